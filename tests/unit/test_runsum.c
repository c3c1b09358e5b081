/* test_runsum.c -- the arithmetic of `gpumon run`'s summary
 * (src/view/runsum.c): which GPUs the tree used, means and peaks over the
 * samples that have a value, energy from the counter or integrated from
 * power (and which), time throttled charged to the reasons at the start of
 * each interval, and values that are not real written as N/A / null.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/snapshot.h"
#include "view/runsum.h"

#define S_NS 1000000000LL
#define MIB (1024.0 * 1024.0)

struct pt {
    double t;    /* seconds */
    double util; /* NAN: not read */
    double mem_mib;
    double power_w;
    double energy_j; /* NAN: no counter */
    int64_t reasons; /* -1: not read */
    uint32_t pid;    /* a process on the GPU, 0 none */
};

static void setd(struct gm_gpu *g, int id, double v, int as_u64)
{
    if (isnan(v))
        g->m[id] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    else
        g->m[id] = as_u64 ? gm_v_u64((uint64_t)v) : gm_v_f64(v);
}

/* One snapshot: GPU 0 as p0 says, GPU 1 idle with a process 999 (not the
 * run's). */
static void add(struct gm_runsum *r, const struct pt *p0, const struct gm_pidset *tree)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->mono_ns = (int64_t)(p0->t * S_NS);
    s->wall_ns = 1700000000LL * S_NS + s->mono_ns;
    gm_snapshot_set_gpus(s, 2);
    for (uint32_t k = 0; k < 2; k++) {
        struct gm_gpu *g = &s->gpus[k];
        g->state = GM_GPU_OK;
        g->procs_listed = 1;
        g->proc_list = gm_v_u64(0);
        g->m[GM_M_NAME] = gm_v_u64(0);
        snprintf(g->str[GM_S_NAME], GM_STR_MAX, "GPU\x1b[2J %u", k);
        setd(g, GM_M_MEM_TOTAL, 80 * 1024 * MIB, 1);
        const struct pt idle = {p0->t, 0, 1, 60, 1000 + p0->t * 60, 1, 999};
        const struct pt *p = k == 0 ? p0 : &idle;
        setd(g, GM_M_UTIL_GPU, p->util, 1);
        setd(g, GM_M_MEM_USED, p->mem_mib * MIB, 1);
        setd(g, GM_M_POWER_DRAW, p->power_w, 0);
        setd(g, GM_M_ENERGY, p->energy_j, 0);
        setd(g, GM_M_CER_ACTIVE, p->reasons < 0 ? NAN : (double)p->reasons, 1);
        g->proc_first = s->nproc;
        if (p->pid) {
            struct gm_proc pr;
            memset(&pr, 0, sizeof(pr));
            pr.gpu = k;
            pr.pid = p->pid;
            gm_snapshot_add_proc_take(s, &pr);
            g->nproc = 1;
        }
    }
    gm_runsum_add(r, s, tree);
    gm_snapshot_free(s);
}

static struct gm_pidset tree_of(uint32_t *pids, size_t n)
{
    struct gm_pidset t = {.n = n, .cap = n, .pid = pids};
    return t;
}

static void test_counter(void **state)
{
    (void)state;
    uint32_t pids[] = {500, 501};
    struct gm_pidset tree = tree_of(pids, 2);
    struct gm_runsum *r = gm_runsum_new();
    /* reasons 0x1 (idle, not throttling) then 0x4 (power cap) from t=1 to
     * t=3, a sample without utilisation, the run's pid from t=1 */
    const struct pt pts[] = {
        {0.0, 10, 100, 100, 5000, 0x1, 0},     {1.0, 90, 1000, 300, 5200, 0x4, 501},
        {2.0, NAN, 3000, 310, 5505, 0x4, 501}, {3.0, 80, 2000, 290, 5805, 0x0, 501},
        {4.0, 20, 500, 120, 6010, -1, 0},
    };
    for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
        add(r, &pts[i], &tree);
    assert_int_equal(r->nsamples, 5);
    assert_int_equal(gm_runsum_nused(r), 1);
    const struct gm_runsum_gpu *g = &r->gpus[0];
    assert_true(g->used);
    assert_false(r->gpus[1].used); /* pid 999 is someone else's */
    assert_int_equal(g->npids, 1);
    assert_int_equal(g->pids[0], 501);
    assert_true(fabs(g->in_use_s - 3.0) < 1e-9); /* intervals starting at t=1,2,3 */
    assert_int_equal(g->util_n, 4);
    assert_true(fabs(g->util_sum / 4 - 50.0) < 1e-9);
    assert_true(fabs(g->util_max - 90) < 1e-9);
    assert_true(fabs(g->mem_sum / (double)g->mem_n / MIB - 1320) < 1e-6);
    assert_true(fabs(g->mem_max / MIB - 3000) < 1e-6);
    enum gm_runsum_energy src;
    double e = gm_runsum_energy_j(g, &src);
    assert_int_equal(src, GM_RE_COUNTER);
    assert_true(fabs(e - 1010) < 1e-9);
    /* reasons known over 4 intervals (the last sample's are not read, but
     * the interval before it began with known ones); sw_power_cap in 2 */
    assert_true(fabs(g->reasons_s - 4.0) < 1e-9);
    for (int k = 0; k < GM_REASON_COUNT; k++) {
        double want = gm_reason_bit(k) == 0x4 ? 2.0 : 0.0;
        assert_true(fabs(g->reason_s[k] - want) < 1e-9);
    }
    struct gm_buf b = GM_BUF_INIT;
    char *argv[] = {"train\n\x1b[31m", "--lr", NULL};
    struct gm_run_info in = {.argc = 2,
                             .argv = argv,
                             .duration_ns = 4 * S_NS,
                             .interval_ns = S_NS,
                             .exit_code = 0,
                             .agent = "none",
                             .data_dir = "/d"};
    gm_runsum_json(r, &in, 0, &b);
    assert_non_null(strstr(b.p, "\"gpus_used\":[0],"));
    assert_non_null(strstr(b.p, "\"command\":[\"train\\n\\u001b[31m\",\"--lr\"]"));
    assert_non_null(strstr(b.p, "\"energy_source\":\"counter\""));
    assert_non_null(strstr(b.p, "\"utilization_gpu_avg_percent\":50,"));
    assert_non_null(strstr(b.p, "\"sw_power_cap\":2,"));
    assert_non_null(strstr(b.p, "\"findings\":null")); /* 5 points: too few */
    gm_buf_reset(&b);
    gm_runsum_text(r, &in, 1, &b);
    assert_null(strchr(b.p, '\x1b'));
    assert_non_null(strstr(b.p, "energy        0.2806 Wh (energy counter)"));
    assert_non_null(strstr(b.p, "utilisation   avg 50.0 %  peak 90 %"));
    assert_non_null(strstr(b.p, "sw_power_cap 2.0 s (50 %)"));
    assert_non_null(strstr(b.p, "not enough samples (5 of the 10"));
    gm_buf_free(&b);
    gm_runsum_free(r);
}

static void test_power_and_absent(void **state)
{
    (void)state;
    uint32_t pids[] = {7};
    struct gm_pidset tree = tree_of(pids, 1);
    struct gm_runsum *r = gm_runsum_new();
    /* no energy counter, no reasons, no utilisation: energy integrated from
     * power (trapezoids: (100+200)/2*1 + (200+200)/2*2 = 550 J), the rest N/A */
    const struct pt pts[] = {
        {0.0, NAN, NAN, 100, NAN, -1, 7},
        {1.0, NAN, NAN, 200, NAN, -1, 7},
        {3.0, NAN, NAN, 200, NAN, -1, 7},
    };
    for (size_t i = 0; i < 3; i++)
        add(r, &pts[i], &tree);
    const struct gm_runsum_gpu *g = &r->gpus[0];
    enum gm_runsum_energy src;
    double e = gm_runsum_energy_j(g, &src);
    assert_int_equal(src, GM_RE_POWER);
    assert_true(fabs(e - 550) < 1e-9);
    struct gm_buf b = GM_BUF_INIT;
    char *argv[] = {"x", NULL};
    struct gm_run_info in = {.argc = 1,
                             .argv = argv,
                             .signal = 15,
                             .exit_code = 143,
                             .agent = "marked",
                             .data_dir = "/d",
                             .task = "t1"};
    gm_runsum_json(r, &in, 0, &b);
    assert_non_null(strstr(b.p, "\"energy_source\":\"power\""));
    assert_non_null(strstr(b.p, "\"utilization_gpu_avg_percent\":null"));
    assert_non_null(strstr(b.p, "\"memory_used_peak_bytes\":null"));
    assert_non_null(strstr(b.p, "\"throttled_s\":null"));
    assert_non_null(strstr(b.p, "\"signal\":15"));
    gm_buf_reset(&b);
    gm_runsum_text(r, &in, 1, &b);
    assert_non_null(strstr(b.p, "killed by signal 15 (exit status 143)"));
    assert_non_null(strstr(b.p, "0.1528 Wh (power.draw integrated: no energy counter)"));
    assert_non_null(strstr(b.p, "utilisation   avg N/A  peak N/A"));
    assert_non_null(strstr(b.p, "throttled     N/A"));
    gm_buf_free(&b);
    gm_runsum_free(r);
}

static void test_counter_reset(void **state)
{
    (void)state;
    uint32_t pids[] = {7};
    struct gm_pidset tree = tree_of(pids, 1);
    struct gm_runsum *r = gm_runsum_new();
    /* the counter goes down (driver reloaded): integrate power instead */
    const struct pt pts[] = {
        {0.0, 50, 1, 100, 9000, 0, 7},
        {1.0, 50, 1, 100, 10, 0, 7},
    };
    add(r, &pts[0], &tree);
    add(r, &pts[1], &tree);
    enum gm_runsum_energy src;
    double e = gm_runsum_energy_j(&r->gpus[0], &src);
    assert_int_equal(src, GM_RE_POWER);
    assert_true(fabs(e - 100) < 1e-9);
    gm_runsum_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter),
        cmocka_unit_test(test_power_and_absent),
        cmocka_unit_test(test_counter_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

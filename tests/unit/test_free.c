/* test_free.c -- unit tests for the free-GPU verdicts (src/view/free.c).
 *
 * Table-driven on hand-built windows of snapshots: one GPU, idle unless a
 * row's edit function changes one sample of the window (busy in one sample
 * of three, too little memory, a compute process, a graphics-only process,
 * exclusive-process mode with and without a process, compute prohibited,
 * lost in one sample, no permission, a pending row remap or page
 * retirement, free memory not reported, utilisation not supported, a
 * percentage minimum with the total unknown); each row names the expected
 * verdict, reason bits and text.  Then MIG (the parent is no candidate, an
 * instance with its own process is busy, its sibling free), choosing
 * --count, the id list, the shell code (quoting, by index, MIG by index
 * refused), --min-mem parsing and the JSON document (parsed by python3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "source/nvml_abi.h"
#include "view/free.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define GIB UINT64_C(1073741824)
#define R(x) (UINT32_C(1) << GM_FREE_R_##x)

/* ------------------------------------------------------------ snapshots */

static void add_proc(struct gm_snapshot *s, uint32_t pos, uint32_t pid, uint8_t type, uint32_t gi,
                     uint32_t ci)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = pos;
    p.pid = pid;
    p.type = type;
    p.gpu_instance_id = gi;
    p.compute_instance_id = ci;
    p.used_memory = gm_v_u64(GIB);
    gm_snapshot_add_proc_take(s, &p);
    /* tests add processes GPU by GPU, in order */
    struct gm_gpu *g = &s->gpus[pos];
    if (g->nproc == 0)
        g->proc_first = s->nproc - 1;
    g->nproc++;
}

/* n idle GPUs of 80 GiB with 79 GiB free, every judged value real. */
static struct gm_snapshot *idle(uint32_t n)
{
    struct gm_snapshot *s = gm_snapshot_new();
    gm_snapshot_set_gpus(s, n);
    for (uint32_t i = 0; i < n; i++) {
        struct gm_gpu *g = &s->gpus[i];
        g->index = i;
        snprintf(g->str[GM_S_UUID], sizeof(g->str[GM_S_UUID]), "GPU-%u%u%u", i, i, i);
        snprintf(g->str[GM_S_NAME], sizeof(g->str[GM_S_NAME]), "NVIDIA H100 80GB HBM3");
        g->m[GM_M_MEM_TOTAL] = gm_v_u64(80 * GIB);
        g->m[GM_M_MEM_FREE] = gm_v_u64(79 * GIB);
        g->m[GM_M_UTIL_GPU] = gm_v_u64(0);
        g->m[GM_M_COMPUTE_MODE] = gm_v_u64(NVML_COMPUTEMODE_DEFAULT);
        g->m[GM_M_REMAP_PENDING] = gm_v_u64(0);
        g->m[GM_M_RETIRED_PENDING] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
        g->m[GM_M_MIG_CURRENT] = gm_v_u64(NVML_DEVICE_MIG_DISABLE);
        g->proc_first = 0;
    }
    return s;
}

/* Edits of sample k of the window (GPU 0). */
static void e_none(struct gm_snapshot *s, int k)
{
    (void)s, (void)k;
}
static void e_busy_once(struct gm_snapshot *s, int k)
{
    if (k == 1)
        s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(97);
}
static void e_util_11(struct gm_snapshot *s, int k)
{
    s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(k == 2 ? 11 : 10);
}
static void e_mem_4g(struct gm_snapshot *s, int k)
{
    s->gpus[0].m[GM_M_MEM_FREE] = gm_v_u64(k == 0 ? 4 * GIB : 70 * GIB);
}
static void e_proc(struct gm_snapshot *s, int k)
{
    (void)k;
    add_proc(s, 0, 1234, GM_PT_COMPUTE, GM_NO_INSTANCE, GM_NO_INSTANCE);
}
static void e_procs3(struct gm_snapshot *s, int k)
{
    for (uint32_t i = 0; i < (k == 2 ? 3u : 1u); i++)
        add_proc(s, 0, 1234 + i, GM_PT_COMPUTE, GM_NO_INSTANCE, GM_NO_INSTANCE);
}
static void e_graphics(struct gm_snapshot *s, int k)
{
    (void)k;
    add_proc(s, 0, 999, GM_PT_GRAPHICS, GM_NO_INSTANCE, GM_NO_INSTANCE);
}
static void e_excl_proc(struct gm_snapshot *s, int k)
{
    s->gpus[0].m[GM_M_COMPUTE_MODE] = gm_v_u64(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    e_proc(s, k);
}
static void e_excl_idle(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].m[GM_M_COMPUTE_MODE] = gm_v_u64(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
}
static void e_prohibited(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].m[GM_M_COMPUTE_MODE] = gm_v_u64(NVML_COMPUTEMODE_PROHIBITED);
}
static void e_lost_once(struct gm_snapshot *s, int k)
{
    if (k != 2)
        return;
    struct gm_gpu *g = &s->gpus[0];
    g->state = GM_GPU_LOST;
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (id != GM_M_INDEX)
            g->m[id] = gm_v_status(GM_VS_LOST, NVML_ERROR_GPU_IS_LOST);
}
static void e_noperm(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].state = GM_GPU_NOPERM;
}
static void e_remap(struct gm_snapshot *s, int k)
{
    if (k == 2)
        s->gpus[0].m[GM_M_REMAP_PENDING] = gm_v_u64(1);
}
static void e_retire(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].m[GM_M_REMAP_PENDING] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    s->gpus[0].m[GM_M_RETIRED_PENDING] = gm_v_u64(1);
}
static void e_mem_unknown(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].m[GM_M_MEM_FREE] = gm_v_status(GM_VS_ERROR, NVML_ERROR_UNKNOWN);
}
static void e_util_unsupported(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
}
static void e_total_unknown(struct gm_snapshot *s, int k)
{
    (void)k;
    s->gpus[0].m[GM_M_MEM_TOTAL] = gm_v_status(GM_VS_NA, 0);
}

struct row {
    const char *name;
    void (*edit)(struct gm_snapshot *s, int k);
    uint64_t min_mem; /* 0: the default percentage */
    int allow_procs;
    int free;
    uint32_t reasons;
    const char *why;
};

static const struct row rows[] = {
    {"idle", e_none, 0, 0, 1, 0, ""},
    {"busy in one sample of three", e_busy_once, 0, 0, 0, R(BUSY), "busy: util 97 %"},
    {"util 10 is allowed, 11 is not", e_util_11, 0, 0, 0, R(BUSY), "busy: util 11 %"},
    {"memory low in one sample", e_mem_4g, 20 * GIB, 0, 0, R(MEMORY), "4.0 GiB free < 20.0 GiB"},
    {"memory by percentage", e_mem_4g, 0, 0, 0, R(MEMORY), "4.0 GiB free < 72.0 GiB"},
    {"a compute process", e_proc, 0, 0, 0, R(PROCS), "1 process (pid 1234)"},
    {"--allow-procs", e_proc, 0, 1, 1, 0, ""},
    {"most processes seen in one sample", e_procs3, 0, 0, 0, R(PROCS),
     "3 processes (pid 1234 and others)"},
    {"graphics only (a desktop)", e_graphics, 0, 0, 1, 0, ""},
    {"exclusive-process with a process", e_excl_proc, 0, 0, 0, R(EXCLUSIVE),
     "exclusive-process with pid 1234"},
    {"exclusive-process even with --allow-procs", e_excl_proc, 0, 1, 0, R(EXCLUSIVE),
     "exclusive-process with pid 1234"},
    {"exclusive-process, nobody on it", e_excl_idle, 0, 0, 1, 0, ""},
    {"compute prohibited", e_prohibited, 0, 0, 0, R(PROHIBITED), "compute prohibited"},
    {"lost in one sample", e_lost_once, 0, 0, 0, R(LOST), "lost"},
    {"no permission", e_noperm, 0, 0, 0, R(UNREADABLE), "no permission"},
    {"row remap pending", e_remap, 0, 0, 0, R(REMAP_PENDING), "pending row remap"},
    {"page retirement pending", e_retire, 0, 0, 0, R(RETIRE_PENDING), "pending page retirement"},
    {"free memory not reported", e_mem_unknown, 0, 0, 0, R(MEM_UNKNOWN), "free memory unknown"},
    {"utilisation not supported: not judged", e_util_unsupported, 0, 0, 1, 0, ""},
    {"percentage with the total unknown", e_total_unknown, 0, 0, 0, R(MEM_UNKNOWN),
     "free memory unknown"},
    {"size with the total unknown", e_total_unknown, 20 * GIB, 0, 1, 0, ""},
};

static void judge3(void (*edit)(struct gm_snapshot *, int), uint32_t ngpu,
                   const struct gm_free_opts *o, struct gm_free_result *r)
{
    struct gm_snapshot *s[3];
    for (int k = 0; k < 3; k++) {
        s[k] = idle(ngpu);
        edit(s[k], k);
    }
    gm_free_judge((const struct gm_snapshot *const *)s, 3, o, r);
    for (int k = 0; k < 3; k++)
        gm_snapshot_free(s[k]);
}

static void test_verdicts(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const struct row *w = &rows[i];
        struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
        if (w->min_mem) {
            o.min_mem = w->min_mem;
            o.min_mem_pct = 0;
        }
        o.allow_procs = w->allow_procs;
        struct gm_free_result r;
        judge3(w->edit, 1, &o, &r);
        if (r.n != 1)
            fail_msg("%s: %u candidates, want 1", w->name, r.n);
        const struct gm_free_unit *u = &r.u[0];
        if (u->free != w->free || u->reasons != w->reasons || strcmp(u->why, w->why) != 0)
            fail_msg("%s: free %d reasons 0x%x \"%s\", want %d 0x%x \"%s\"", w->name, u->free,
                     u->reasons, u->why, w->free, w->reasons, w->why);
        if (r.nfree != (uint32_t)w->free)
            fail_msg("%s: nfree %u", w->name, r.nfree);
        gm_free_result_clear(&r);
    }
}

/* The window's extremes are what the table shows: least free memory, most util. */
static void test_window_extremes(void **state)
{
    (void)state;
    struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
    struct gm_free_result r;
    judge3(e_busy_once, 1, &o, &r);
    assert_int_equal(r.u[0].util.v.u, 97);
    gm_free_result_clear(&r);
    o.min_mem = 20 * GIB;
    o.min_mem_pct = 0;
    judge3(e_mem_4g, 1, &o, &r);
    assert_int_equal(r.u[0].mem_free.v.u, 4 * GIB);
    gm_free_result_clear(&r);
}

/* ------------------------------------------------------------------ MIG */

static void e_mig(struct gm_snapshot *s, int k)
{
    (void)k;
    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_MIG_CURRENT] = gm_v_u64(NVML_DEVICE_MIG_ENABLE);
    g->m[GM_M_UTIL_GPU] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    g->nmig = 2;
    for (uint32_t m = 0; m < 2; m++) {
        struct gm_mig *mg = &g->mig[m];
        mg->index = m;
        mg->gpu_instance_id = 1 + m;
        mg->compute_instance_id = 0;
        snprintf(mg->uuid, sizeof(mg->uuid), "MIG-%u", m);
        snprintf(mg->name, sizeof(mg->name), "NVIDIA H100 80GB HBM3 MIG 3g.40gb");
        mg->mem_total = gm_v_u64(40 * GIB);
        mg->mem_free = gm_v_u64(m == 0 ? 30 * GIB : 39 * GIB);
    }
    add_proc(s, 0, 4321, GM_PT_COMPUTE, 1, 0);
    /* GPU 1: an idle whole GPU after the MIG one */
    s->gpus[1].proc_first = s->nproc;
}

static void test_mig(void **state)
{
    (void)state;
    struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
    o.min_mem = 10 * GIB;
    o.min_mem_pct = 0;
    struct gm_free_result r;
    judge3(e_mig, 2, &o, &r);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.u[0].mig, -1);
    assert_int_equal(r.u[0].free, 0);
    assert_int_equal(r.u[0].reasons, R(MIG));
    assert_int_equal(r.u[1].mig, 0);
    assert_int_equal(r.u[1].reasons, R(PROCS));
    assert_string_equal(r.u[1].why, "1 process (pid 4321)");
    assert_string_equal(r.u[1].uuid, "MIG-0");
    assert_int_equal(r.u[1].util.status, GM_VS_NA);
    assert_int_equal(r.u[2].mig, 1);
    assert_int_equal(r.u[2].free, 1);
    assert_int_equal(r.u[2].mem_free.v.u, 39 * GIB);
    assert_int_equal(r.u[3].gpu, 1);
    assert_int_equal(r.u[3].free, 1);
    assert_int_equal(r.nfree, 2);

    /* chosen in index order; env by index refuses a MIG instance */
    assert_int_equal(gm_free_choose(&r, 2), 0);
    struct gm_buf b = GM_BUF_INIT;
    gm_free_ids(&r, 1, &b);
    assert_string_equal(b.p, "0:1,1\n");
    gm_buf_reset(&b);
    gm_free_ids(&r, 0, &b);
    assert_string_equal(b.p, "MIG-1,GPU-111\n");
    gm_buf_reset(&b);
    struct gm_err err = {0};
    assert_int_equal(gm_free_env(&r, 1, &b, &err), GM_E_INVAL);
    assert_int_equal(b.len, 0);
    assert_non_null(strstr(err.msg, "0:1 can only be named by UUID"));
    assert_int_equal(gm_free_env(&r, 0, &b, &err), 0);
    assert_string_equal(b.p, "export CUDA_VISIBLE_DEVICES='MIG-1,GPU-111'\n");
    gm_buf_reset(&b);
    gm_free_table(&r, &b);
    assert_string_equal(b.p, "GPU   MEMORY FREE   UTIL  PROCS  VERDICT\n"
                             "0        79.0 GiB      -      1  MIG mode: see its instances\n"
                             "0:0      30.0 GiB      -      1  1 process (pid 4321)\n"
                             "0:1      39.0 GiB      -      0  free, chosen\n"
                             "1        79.0 GiB    0 %      0  free, chosen\n");
    gm_buf_free(&b);
    gm_free_result_clear(&r);
}

/* ------------------------------------------------------------ choosing */

static void e_half_busy(struct gm_snapshot *s, int k)
{
    (void)k;
    for (uint32_t i = 0; i < s->ngpu; i++)
        if (i % 2 == 0)
            s->gpus[i].m[GM_M_UTIL_GPU] = gm_v_u64(90);
}

static void test_choose(void **state)
{
    (void)state;
    struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
    struct gm_free_result r;
    judge3(e_half_busy, 6, &o, &r);
    assert_int_equal(r.nfree, 3);
    assert_int_equal(gm_free_choose(&r, 2), 0);
    assert_int_equal(r.nchosen, 2);
    assert_true(r.u[1].chosen && r.u[3].chosen && !r.u[5].chosen);
    assert_int_equal(gm_free_choose(&r, 4), -1);
    assert_int_equal(r.nchosen, 0);
    assert_true(!r.u[1].chosen && !r.u[3].chosen && !r.u[5].chosen);
    assert_int_equal(gm_free_choose(&r, 0), 0);
    assert_int_equal(r.nchosen, 3);
    struct gm_buf b = GM_BUF_INIT;
    gm_free_table(&r, &b); /* without a count: "free", nothing said about choosing */
    assert_string_equal(b.p + strlen("GPU   MEMORY FREE   UTIL  PROCS  VERDICT\n"),
                        "0        79.0 GiB   90 %      0  busy: util 90 %\n"
                        "1        79.0 GiB    0 %      0  free\n"
                        "2        79.0 GiB   90 %      0  busy: util 90 %\n"
                        "3        79.0 GiB    0 %      0  free\n"
                        "4        79.0 GiB   90 %      0  busy: util 90 %\n"
                        "5        79.0 GiB    0 %      0  free\n");
    gm_buf_reset(&b);
    struct gm_err err = {0};
    assert_int_equal(gm_free_env(&r, 1, &b, &err), 0);
    assert_string_equal(b.p, "export CUDA_DEVICE_ORDER=PCI_BUS_ID\n"
                             "export CUDA_VISIBLE_DEVICES='1,3,5'\n");
    gm_buf_free(&b);
    gm_free_result_clear(&r);
}

/* A UUID from the driver with a quote, a blank and a $ stays one shell word. */
static void e_evil_uuid(struct gm_snapshot *s, int k)
{
    (void)k;
    snprintf(s->gpus[0].str[GM_S_UUID], GM_STR_MAX, "GPU-x' $(id) 'y");
}

static void test_env_quoting(void **state)
{
    (void)state;
    struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
    struct gm_free_result r;
    judge3(e_evil_uuid, 1, &o, &r);
    gm_free_choose(&r, 1);
    struct gm_buf b = GM_BUF_INIT;
    assert_int_equal(gm_free_env(&r, 0, &b, NULL), 0);
    assert_string_equal(b.p, "export CUDA_VISIBLE_DEVICES='GPU-x'\\'' $(id) '\\''y'\n");
    gm_buf_free(&b);
    gm_free_result_clear(&r);
}

/* ------------------------------------------------------------- --min-mem */

static void test_parse_min_mem(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int ok;
        uint64_t bytes;
        unsigned pct;
    } t[] = {
        {"20G", 1, 20 * GIB, 0},
        {"20GiB", 1, 20 * GIB, 0},
        {"20gb", 1, 20 * GIB, 0},
        {"512M", 1, 512 << 20, 0},
        {"1.5G", 1, 3 * GIB / 2, 0},
        {"1T", 1, 1024 * GIB, 0},
        {"64K", 1, 65536, 0},
        {"0", 1, 0, 0},
        {"90%", 1, 0, 90},
        {"100%", 1, 0, 100},
        {"20", 0, 0, 0},
        {"", 0, 0, 0},
        {"G", 0, 0, 0},
        {"-1G", 0, 0, 0},
        {"20X", 0, 0, 0},
        {"20GiBs", 0, 0, 0},
        {"0%", 0, 0, 0},
        {"101%", 0, 0, 0},
        {"50.5%", 0, 0, 0},
        {"1e30G", 0, 0, 0},
    };
    for (size_t i = 0; i < N_ELEM(t); i++) {
        struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
        struct gm_err err = {0};
        const char *flag = i % 2 ? "min-mem" : "min-memory"; /* free's, fleet's */
        int rc = gm_free_parse_min_mem(t[i].in, flag, &o, &err);
        if ((rc == 0) != t[i].ok)
            fail_msg("'%s': rc %d, want %s", t[i].in, rc, t[i].ok ? "ok" : "error");
        if (!t[i].ok) {
            char want[32];
            snprintf(want, sizeof(want), "--%s '", flag);
            if (!strstr(err.msg, want))
                fail_msg("'%s': message '%s'", t[i].in, err.msg);
            continue;
        }
        if (o.min_mem != t[i].bytes || o.min_mem_pct != t[i].pct)
            fail_msg("'%s': %llu bytes %u %%", t[i].in, (unsigned long long)o.min_mem,
                     o.min_mem_pct);
    }
}

/* ------------------------------------------------------------------ JSON */

static void test_json(void **state)
{
    (void)state;
    struct gm_free_opts o = GM_FREE_OPTS_DEFAULT;
    struct gm_free_result r;
    judge3(e_mig, 2, &o, &r);
    assert_int_equal(gm_free_choose(&r, 3), -1);
    struct gm_buf b = GM_BUF_INIT;
    gm_free_json(&r, &o, 1.0, 4, 3, 1, &b);
    FILE *f = popen("python3 -c '"
                    "import json,sys\n"
                    "d=json.load(sys.stdin)\n"
                    "assert d[\"criteria\"][\"min_memory_free_percent\"]==90, d\n"
                    "assert d[\"criteria\"][\"min_memory_free_bytes\"] is None\n"
                    "assert d[\"count\"]==3 and d[\"free\"]==2 and d[\"enough\"] is False\n"
                    "assert d[\"chosen\"]==[], d[\"chosen\"]\n"
                    "g=d[\"gpus\"]\n"
                    "assert len(g)==4\n"
                    "assert g[0][\"reasons\"]==[\"mig_enabled\"] and g[0][\"mig_index\"] is None\n"
                    "assert g[1][\"reasons\"]==[\"memory\",\"processes\"], g[1]\n"
                    "assert g[2][\"mig_index\"]==1 and g[2][\"utilization_gpu_percent\"] is None\n"
                    "assert g[3][\"free\"] and not g[3][\"chosen\"] and g[3][\"why\"] is None\n"
                    "'",
                    "w");
    assert_non_null(f);
    fwrite(b.p, 1, b.len, f);
    assert_int_equal(pclose(f), 0);
    gm_buf_free(&b);
    gm_free_result_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),    cmocka_unit_test(test_window_extremes),
        cmocka_unit_test(test_mig),         cmocka_unit_test(test_choose),
        cmocka_unit_test(test_env_quoting), cmocka_unit_test(test_parse_min_mem),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

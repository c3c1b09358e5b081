/* test_live.c -- the live page's pure parts (src/export/live.c, compiled in
 * as the exporter module has it): the history query's parameters (each bad
 * one a 400 naming it), the history ring (values kept as status --json
 * writes them, absent values as null, the hour's window, a changed GPU
 * count), the alerts document and the page's escaping of outside text.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/core/json.h"
#include "src/core/metrics.h"
#include "src/core/snapshot.h"
#include "src/core/value.h"
#include "src/export/live.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define SEC INT64_C(1000000000)
#define T0 INT64_C(1796300000000000000)
#define M0 INT64_C(5000000000000) /* the monotonic clock at T0 */

static const char *cstr(struct gm_buf *b)
{
    gm_buf_putc(b, '\0');
    b->len--;
    return b->p;
}

/* ------------------------------------------------------------ parameters */

static void test_params(void **state)
{
    (void)state;
    static const struct {
        const char *name, *value;
        int ok;
        const char *param; /* the parameter a 400 names */
    } cases[] = {
        {"metric", "utilization_gpu_percent", 1, NULL},
        {"metric", "utilization.gpu,power_draw_watts", 1, NULL}, /* nvidia-smi key or JSON key */
        {"metric", "memory_used_bytes,temperature_gpu_celsius,clocks_sm_mhz", 1, NULL},
        {"metric", "pcie_link_gen_current", 0, "metric"}, /* a metric the ring does not keep */
        {"metric", "nope", 0, "metric"},
        {"metric", "utilization_gpu_percent,", 0, "metric"},
        {"metric", ",utilization_gpu_percent", 0, "metric"},
        {"metric", "utilization_gpu_percent,utilization.gpu", 0, "metric"}, /* twice */
        {"metric", "", 0, "metric"},
        {"metric", NULL, 0, "metric"},
        {"since", "30s", 1, NULL},
        {"since", "10m", 1, NULL},
        {"since", "1h", 1, NULL},
        {"since", "3600s", 1, NULL},
        {"since", "@1796300000000000000", 1, NULL},
        {"since", "2h", 0, "since"},
        {"since", "3601s", 0, "since"},
        {"since", "0s", 0, "since"},
        {"since", "-5s", 0, "since"},
        {"since", "5", 0, "since"},
        {"since", "5d", 0, "since"},
        {"since", "@", 0, "since"},
        {"since", "@-1", 0, "since"},
        {"since", "@12x", 0, "since"},
        {"since", "@99999999999999999999999", 0, "since"},
        {"after", "0", 1, NULL},
        {"after", "18446744073709551615", 1, NULL},
        {"after", "18446744073709551616", 0, "after"}, /* past uint64 */
        {"after", "-1", 0, "after"},
        {"after", "+1", 0, "after"},
        {"after", " 1", 0, "after"},
        {"after", "1x", 0, "after"},
        {"after", "", 0, "after"},
        {"id", "0", 1, NULL},
        {"id", "0,3,63", 1, NULL},
        {"id", "64", 0, "id"},
        {"id", "-1", 0, "id"},
        {"id", "1,", 0, "id"},
        {"id", "a", 0, "id"},
        {"id", "1;2", 0, "id"},
        {"until", "1h", 0, "until"}, /* unknown parameter */
        {"<script>", "x", 0, "<script>"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_live_query q;
        memset(&q, 0, sizeof(q));
        unsigned seen = 0;
        struct gm_buf err = GM_BUF_INIT;
        int rc = gm_live_query_param(&q, &seen, cases[i].name, cases[i].value, &err);
        if (cases[i].ok) {
            if (rc != 0)
                fail_msg("%s=%s refused: %s", cases[i].name, cases[i].value, cstr(&err));
        } else {
            if (rc == 0)
                fail_msg("%s=%s accepted", cases[i].name, cases[i].value ? cases[i].value : "");
            char want[128];
            snprintf(want, sizeof(want), "\"parameter\":\"%s\"", cases[i].param);
            if (!strstr(cstr(&err), want) || !strstr(err.p, "\"status\":400"))
                fail_msg("%s=%s: %s does not name %s", cases[i].name, cases[i].value, err.p,
                         cases[i].param);
        }
        gm_buf_free(&err);
    }
}

static void test_param_repeated(void **state)
{
    (void)state;
    struct gm_live_query q;
    memset(&q, 0, sizeof(q));
    unsigned seen = 0;
    struct gm_buf err = GM_BUF_INIT;
    assert_int_equal(gm_live_query_param(&q, &seen, "id", "1", &err), 0);
    assert_int_equal(gm_live_query_param(&q, &seen, "id", "2", &err), -1);
    assert_non_null(strstr(cstr(&err), "given twice"));
    gm_buf_free(&err);
    assert_int_equal(q.ids, UINT64_C(1) << 1);
}

/* ------------------------------------------------------------------ ring */

static struct gm_snapshot *snap(uint32_t ngpu, int64_t wall, int k)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->wall_ns = wall;
    s->mono_ns = M0 + (wall - T0);
    gm_snapshot_set_gpus(s, ngpu);
    for (uint32_t i = 0; i < ngpu; i++) {
        struct gm_gpu *g = &s->gpus[i];
        g->index = i;
        g->state = GM_GPU_OK;
        g->m[GM_M_UTIL_GPU] = k % 2 ? gm_v_status(GM_VS_UNSUPPORTED, 3) : gm_v_u64(10 * i + k);
        g->m[GM_M_POWER_DRAW] = gm_v_f64(100.125 + k);
        g->m[GM_M_MEM_USED] = gm_v_u64(UINT64_C(76451466445) + (uint64_t)k);
    }
    return s;
}

static void history(struct gm_live_ring *r, const char *metric, const char *since, const char *id,
                    struct gm_buf *out)
{
    struct gm_live_query q;
    memset(&q, 0, sizeof(q));
    unsigned seen = 0;
    struct gm_buf err = GM_BUF_INIT;
    if (metric)
        assert_int_equal(gm_live_query_param(&q, &seen, "metric", metric, &err), 0);
    if (since)
        assert_int_equal(gm_live_query_param(&q, &seen, "since", since, &err), 0);
    if (id)
        assert_int_equal(gm_live_query_param(&q, &seen, "id", id, &err), 0);
    gm_buf_free(&err);
    gm_live_query_finish(&q);
    gm_buf_reset(out);
    assert_int_equal(gm_live_history_json(r, &q, out), 0);
    cstr(out);
}

static void test_ring(void **state)
{
    (void)state;
    struct gm_live_ring *r = gm_live_ring_new();
    struct gm_buf out = GM_BUF_INIT;
    history(r, NULL, NULL, NULL, &out);
    assert_non_null(strstr(out.p, "\"latest_unix_ns\":null"));
    assert_non_null(strstr(out.p, "\"gpus\":[]"));

    for (int k = 0; k < 4; k++) {
        struct gm_snapshot *s = snap(2, T0 + k * SEC, k);
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    history(r, "utilization_gpu_percent,power.draw,memory_used_bytes", NULL, "1", &out);
    /* GPU 1 only; util absent on odd samples; watts with three decimals as status --json */
    assert_null(strstr(out.p, "\"index\":0"));
    assert_non_null(strstr(out.p, "\"index\":1"));
    assert_non_null(strstr(out.p, "\"utilization_gpu_percent\":[10,null,12,null]"));
    assert_non_null(strstr(out.p, "\"power_draw_watts\":[100.125,101.125,102.125,103.125]"));
    assert_non_null(
        strstr(out.p, "\"memory_used_bytes\":[76451466445,76451466446,76451466447,76451466448]"));
    assert_non_null(strstr(out.p, "\"latest_unix_ns\":1796300003000000000"));

    /* since=@T: strictly after; since=2s: the latest sample's last two seconds */
    history(r, "utilization_gpu_percent", "@1796300001000000000", "0", &out);
    assert_non_null(strstr(out.p, "\"time_unix_ns\":[1796300002000000000,1796300003000000000]"));
    history(r, "utilization_gpu_percent", "2s", "0", &out);
    assert_non_null(strstr(out.p, "\"utilization_gpu_percent\":[null,2,null]"));

    /* a GPU the ring does not have: 400 naming id */
    struct gm_live_query q;
    memset(&q, 0, sizeof(q));
    q.ids = UINT64_C(1) << 7;
    gm_live_query_finish(&q);
    gm_buf_reset(&out);
    assert_int_equal(gm_live_history_json(r, &q, &out), -1);
    assert_non_null(strstr(cstr(&out), "\"parameter\":\"id\""));

    /* an hour later the old samples have left the window */
    struct gm_snapshot *s = snap(2, T0 + 3603 * SEC, 0);
    gm_live_ring_add(r, s);
    gm_snapshot_free(s);
    history(r, "utilization_gpu_percent", NULL, "0", &out);
    assert_non_null(strstr(out.p, "\"time_unix_ns\":[1796300003000000000,1796303603000000000]"));

    /* another GPU count starts afresh */
    s = snap(3, T0 + 3604 * SEC, 0);
    gm_live_ring_add(r, s);
    gm_snapshot_free(s);
    history(r, "utilization_gpu_percent", NULL, NULL, &out);
    assert_non_null(strstr(out.p, "\"index\":2"));
    assert_non_null(strstr(out.p, "\"time_unix_ns\":[1796303604000000000]"));
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* The ring keeps each metric in the fewest bytes that give its values back
 * exactly: each value read comes back as the same number, written as
 * status --json writes it, also when a later value widens its column (a
 * power that is no whole milliwatt, memory that is no whole MiB or beyond
 * 32 bits, a negative, -0, an absent value), in a ring that wraps. */
static struct gm_value exact_value(int row, int k)
{
    static const double watts[] = {100.125, 0.001, 699.999, 321.12345678901, -0.0, 1e-300};
    static const uint64_t bytes[] = {
        UINT64_C(1048576) * 3, UINT64_C(1048576) * 40000, 0,
        UINT64_C(76451466445), UINT64_C(1) << 62,         UINT64_C(1048576) * 81559};
    static const double joules[] = {123456.789, 2147483.647, 2147483.648, 5e9 + 0.5, 0, 3.25};
    static const uint64_t small[] = {0, 100, 32767, 32768, 65535, UINT64_C(4294967296)};
    static const int64_t temps[] = {45, -5, -32768, -32767, INT64_C(-2147483648), 90};
    static const uint64_t kibps[] = {1024 * 7, UINT64_C(12000000000), 1000, 1024, 0, 1024 * 32767};
    switch (row) {
    case 0:
        return gm_v_f64(watts[k]);
    case 1:
        return gm_v_u64(bytes[k]);
    case 2:
        return gm_v_f64(joules[k]);
    case 3:
        return gm_v_u64(small[k]);
    case 4:
        return gm_v_i64(temps[k]);
    default:
        return gm_v_u64(kibps[k]);
    }
}

static void test_ring_exact(void **state)
{
    (void)state;
    static const int ids[] = {GM_M_POWER_DRAW, GM_M_MEM_USED, GM_M_ENERGY,
                              GM_M_CLK_SM,     GM_M_TEMP_GPU, GM_M_PCIE_RX};
    struct gm_live_ring *r = gm_live_ring_new();
    /* more samples than the ring holds: the values cycle, an absent one
     * every seventh sample */
    int n = GM_LIVE_RING_MAX + 100;
    for (int i = 0; i < n; i++) {
        struct gm_snapshot *s = snap(2, T0 + (int64_t)i * SEC, 0);
        for (uint32_t g = 0; g < 2; g++)
            for (size_t m = 0; m < N_ELEM(ids); m++)
                s->gpus[g].m[ids[m]] = i % 7 == 3 ? gm_v_status(GM_VS_ERROR, 999)
                                                  : exact_value((int)m, (i + (int)g) % 6);
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    struct gm_buf out = GM_BUF_INIT, want = GM_BUF_INIT;
    char key[128];
    for (size_t m = 0; m < N_ELEM(ids); m++) {
        for (uint32_t g = 0; g < 2; g++) {
            char id[8];
            snprintf(id, sizeof(id), "%u", g);
            history(r, gm_metric_json_key(ids[m], key, sizeof(key)), NULL, id, &out);
            gm_buf_reset(&want);
            struct gm_json j;
            gm_json_init(&j, &want, 0);
            gm_json_key(&j, key);
            gm_json_arr_begin(&j);
            for (int i = n - GM_LIVE_RING_MAX; i < n; i++) {
                struct gm_value v = exact_value((int)m, (i + (int)g) % 6);
                if (i % 7 == 3)
                    gm_json_null(&j);
                else if (v.type == GM_VT_F64)
                    gm_json_f64(&j, v.v.d, gm_metrics[ids[m]].unit == GM_U_WATTS ? 3 : -1);
                else if (v.type == GM_VT_I64)
                    gm_json_i64(&j, v.v.i);
                else
                    gm_json_u64(&j, v.v.u);
            }
            gm_json_arr_end(&j);
            if (!strstr(out.p, cstr(&want)))
                fail_msg("%s of GPU %u not as read: want %.300s\ngot %.600s", key, g, want.p,
                         out.p);
        }
    }
    gm_buf_free(&want);
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* What the ring holds with 8 GPUs for an hour (GM_LIVE_RING_MAX samples) of
 * the values a GPU gives (the simulator's training scenario: whole
 * percents, degrees and MHz, power in milliwatts, memory in MiB, energy in
 * millijoules, PCIe in KiB/s): 48 bytes a GPU-sample at most, where doubles
 * took 8 a metric (14 metrics, 112 bytes and more). */
static void test_ring_bytes(void **state)
{
    (void)state;
    struct gm_live_ring *r = gm_live_ring_new();
    for (int i = 0; i < GM_LIVE_RING_MAX + 5; i++) {
        struct gm_snapshot *s = snap(8, T0 + (int64_t)i * SEC, 0);
        for (uint32_t g = 0; g < 8; g++) {
            struct gm_gpu *gp = &s->gpus[g];
            gp->m[GM_M_UTIL_GPU] = gm_v_u64((uint64_t)(i + (int)g) % 101);
            gp->m[GM_M_UTIL_MEM] = gm_v_u64((uint64_t)(i * 3) % 101);
            gp->m[GM_M_FAN] = gm_v_u64(40);
            gp->m[GM_M_TEMP_GPU] = gm_v_u64(60 + (uint64_t)(i % 20));
            gp->m[GM_M_POWER_DRAW] = gm_v_f64((double)(450000 + i * 37 % 200000) / 1000.0);
            gp->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
            gp->m[GM_M_ENERGY] =
                gm_v_f64((double)(INT64_C(1000000) + (int64_t)i * 500123) / 1000.0);
            gp->m[GM_M_MEM_USED] = gm_v_u64(UINT64_C(1048576) * (60000 + (uint64_t)i % 5000));
            gp->m[GM_M_CLK_SM] = gm_v_u64(1980 - (uint64_t)(i % 300));
            gp->m[GM_M_CLK_MEM] = gm_v_u64(2619);
            gp->m[GM_M_CER_ACTIVE] = gm_v_u64(i % 50 ? 0 : 0x4);
            gp->m[GM_M_PCIE_RX] = gm_v_u64(UINT64_C(1024) * (2000000 + (uint64_t)i * 977));
        }
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    size_t b = gm_live_ring_mem_bytes(r), per = b / (8 * GM_LIVE_RING_MAX);
    if (per > 48)
        fail_msg("the ring holds %zu bytes for 8 GPUs x %d samples: %zu a GPU-sample (48 at most)",
                 b, GM_LIVE_RING_MAX, per);
    /* the values come back as read */
    struct gm_buf out = GM_BUF_INIT;
    history(r, "energy_joules,memory_used_bytes", "1s", "7", &out);
    char want[256];
    int last = GM_LIVE_RING_MAX + 4;
    snprintf(want, sizeof(want), "\"memory_used_bytes\":[%llu,%llu]",
             (unsigned long long)(UINT64_C(1048576) * (60000 + (uint64_t)(last - 1) % 5000)),
             (unsigned long long)(UINT64_C(1048576) * (60000 + (uint64_t)last % 5000)));
    if (!strstr(out.p, want))
        fail_msg("want %s in %.600s", want, out.p);
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* GM_LIVE_RING_MAX samples at most: the oldest are overwritten in order. */
static void test_ring_wraps(void **state)
{
    (void)state;
    struct gm_live_ring *r = gm_live_ring_new();
    int n = GM_LIVE_RING_MAX + 10;
    for (int k = 0; k < n; k++) {
        struct gm_snapshot *s = snap(1, T0 + (int64_t)k * SEC / 2, 2 * k);
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    struct gm_buf out = GM_BUF_INIT;
    history(r, "power_draw_watts", NULL, NULL, &out);
    char first[64], last[64];
    snprintf(first, sizeof(first), "[%.3f,", 100.125 + 2 * 10);
    snprintf(last, sizeof(last), ",%.3f]", 100.125 + 2 * (n - 1));
    assert_non_null(strstr(out.p, first));
    assert_non_null(strstr(out.p, last));
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* The wall clock steps back 5 s after six samples (an NTP step): the
 * history stays in the order taken, its times increase (those before the
 * step moved by it: clock_shift_ns), since=2s is the last two seconds of the
 * monotonic clock, and after=SEQ gives the samples after a sequence number. */
static void test_ring_clock_step(void **state)
{
    (void)state;
    struct gm_live_ring *r = gm_live_ring_new();
    for (int k = 0; k < 10; k++) {
        struct gm_snapshot *s = snap(1, T0 + k * SEC, k);
        s->seq = (uint64_t)k + 1;
        if (k >= 6)
            s->wall_ns -= 5 * SEC; /* mono goes on */
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    struct gm_buf out = GM_BUF_INIT;
    history(r, "power_draw_watts", NULL, NULL, &out);
    /* latest (T0 + 4 s) is the newest, oldest (T0 - 5 s) the oldest */
    assert_non_null(strstr(out.p, "\"latest_unix_ns\":1796300004000000000,"
                                  "\"oldest_unix_ns\":1796299995000000000,"
                                  "\"latest_seq\":10,\"oldest_seq\":1,"
                                  "\"clock_shift_ns\":-5000000000"));
    assert_non_null(strstr(out.p, "\"time_unix_ns\":[1796299995000000000,1796299996000000000,"
                                  "1796299997000000000,1796299998000000000,1796299999000000000,"
                                  "1796300000000000000,1796300001000000000,1796300002000000000,"
                                  "1796300003000000000,1796300004000000000]"));
    assert_non_null(strstr(out.p, "\"seq\":[1,2,3,4,5,6,7,8,9,10]"));
    assert_non_null(strstr(out.p, "\"power_draw_watts\":[100.125,101.125,102.125,103.125,104.125,"
                                  "105.125,106.125,107.125,108.125,109.125]"));

    /* since=2s: the samples of the latest two seconds, not the whole ring */
    history(r, "power_draw_watts", "2s", NULL, &out);
    assert_non_null(strstr(out.p, "\"seq\":[8,9,10]"));
    assert_non_null(strstr(out.p, "\"power_draw_watts\":[107.125,108.125,109.125]"));

    /* after=SEQ: what an incremental reader asks for, step or not */
    history(r, "power_draw_watts", NULL, NULL, &out);
    struct gm_live_query q;
    memset(&q, 0, sizeof(q));
    unsigned seen = 0;
    struct gm_buf err = GM_BUF_INIT;
    assert_int_equal(gm_live_query_param(&q, &seen, "after", "5", &err), 0);
    gm_live_query_finish(&q);
    gm_buf_reset(&out);
    assert_int_equal(gm_live_history_json(r, &q, &out), 0);
    cstr(&out);
    assert_non_null(strstr(out.p, "\"seq\":[6,7,8,9,10]"));
    assert_non_null(strstr(out.p, "\"time_unix_ns\":[1796300000000000000,1796300001000000000,"
                                  "1796300002000000000,1796300003000000000,1796300004000000000]"));
    /* since=@NS: after that time as this answer writes the times */
    history(r, "power_draw_watts", "@1796300002000000000", NULL, &out);
    assert_non_null(strstr(out.p, "\"seq\":[9,10]"));
    gm_buf_free(&err);
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* A forward step of more than the hour keeps the ring: the window is an
 * hour of the monotonic clock. */
static void test_ring_clock_forward(void **state)
{
    (void)state;
    struct gm_live_ring *r = gm_live_ring_new();
    for (int k = 0; k < 4; k++) {
        struct gm_snapshot *s = snap(1, T0 + k * SEC, k);
        if (k >= 2)
            s->wall_ns += 7200 * SEC;
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    struct gm_buf out = GM_BUF_INIT;
    history(r, "power_draw_watts", NULL, NULL, &out);
    assert_non_null(strstr(out.p, "\"power_draw_watts\":[100.125,101.125,102.125,103.125]"));
    assert_non_null(strstr(out.p, "\"time_unix_ns\":[1796307200000000000,1796307201000000000,"
                                  "1796307202000000000,1796307203000000000]"));
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* The driver goes away for two samples (no GPU in them): the ring keeps its
 * GPUs and history, and the outage is in it as samples whose values are
 * null and whose state is no_driver. */
static void test_ring_outage(void **state)
{
    (void)state;
    struct gm_live_ring *r = gm_live_ring_new();
    for (int k = 0; k < 7; k++) {
        struct gm_snapshot *s = snap(2, T0 + k * SEC, 2 * k);
        s->seq = (uint64_t)k + 1;
        if (k == 3 || k == 4) {
            gm_snapshot_set_gpus(s, 0);
            s->driver = GM_DRV_NOT_LOADED;
        }
        gm_live_ring_add(r, s);
        gm_snapshot_free(s);
    }
    struct gm_buf out = GM_BUF_INIT;
    history(r, "utilization_gpu_percent,power_draw_watts", NULL, "1", &out);
    assert_non_null(strstr(out.p, "\"index\":1"));
    assert_non_null(strstr(out.p, "\"seq\":[1,2,3,4,5,6,7]"));
    assert_non_null(strstr(out.p, "\"state\":[\"ok\",\"ok\",\"ok\",\"no_driver\",\"no_driver\","
                                  "\"ok\",\"ok\"]"));
    assert_non_null(strstr(out.p, "\"utilization_gpu_percent\":[10,12,14,null,null,20,22]"));
    assert_non_null(
        strstr(out.p, "\"power_draw_watts\":[100.125,102.125,104.125,null,null,110.125,112.125]"));
    /* a GPU that is lost while the driver works says so */
    struct gm_snapshot *s = snap(2, T0 + 7 * SEC, 14);
    s->gpus[1].state = GM_GPU_LOST;
    gm_live_ring_add(r, s);
    gm_snapshot_free(s);
    history(r, "utilization_gpu_percent", "1s", "1", &out);
    assert_non_null(strstr(out.p, "\"state\":[\"ok\",\"lost\"]"));
    gm_buf_free(&out);
    gm_live_ring_free(r);
}

/* -------------------------------------------------------------- page, alerts */

static const char HOSTILE[] = "<script>alert(1)</script>\"'&\x1b[2J\xff";

static void test_page_escapes(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap(1, T0, 0);
    snprintf(s->hostname, sizeof(s->hostname), "%s", "h<o>st");
    struct gm_gpu *g = &s->gpus[0];
    snprintf(g->str[GM_S_NAME], sizeof(g->str[GM_S_NAME]), "%s", HOSTILE);
    g->m[GM_M_NAME] = gm_v_u64(0);
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = 0;
    p.pid = 4242;
    snprintf(p.name, sizeof(p.name), "%s", "<img src=x onerror=alert(2)>");
    snprintf(p.user, sizeof(p.user), "%s", "e\"vil");
    p.used_memory = gm_v_u64(1048576 * 3);
    gm_snapshot_add_proc_take(s, &p);
    g->proc_first = 0;
    g->nproc = 1;

    struct gm_alert_now a;
    memset(&a, 0, sizeof(a));
    snprintf(a.rule, sizeof(a.rule), "%s", "gpu-temperature-critical");
    a.state = GM_AL_FIRING;
    a.severity = GM_SEV_CRITICAL;
    a.gpu = 0;
    snprintf(a.value, sizeof(a.value), "%s", "<b>89 C</b>");
    a.firing_wall_ns = T0;

    struct gm_buf out = GM_BUF_INIT;
    gm_live_page(&out, s, &a, 1, 1);
    const char *h = cstr(&out);
    assert_null(strstr(h, "<script>alert"));
    assert_null(strstr(h, "<img"));
    assert_null(strstr(h, "<b>"));
    assert_null(strstr(h, "\x1b"));
    assert_null(strstr(h, "onerror=alert(2)>"));
    assert_non_null(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"));
    assert_non_null(strstr(h, "&lt;img src=x onerror=alert(2)&gt;"));
    assert_non_null(strstr(h, "e&quot;vil"));
    assert_non_null(strstr(h, "h&lt;o&gt;st"));
    assert_non_null(strstr(h, "&lt;b&gt;89 C&lt;/b&gt;"));
    /* no inline script or handler: scripts come from /static/ only */
    assert_null(strstr(h, "<script>"));
    assert_non_null(strstr(h, "<script src=\"/static/live.js\" defer></script>"));
    assert_null(strstr(h, " style="));
    /* the numbers: JSON text in data-v, readable text */
    assert_non_null(strstr(h, "data-k=\"power_draw_watts\" data-v=\"100.125\">100.12 W</span>"));
    assert_non_null(strstr(h, "data-k=\"utilization_gpu_percent\" data-v=\"0\">0 %</span>"));
    assert_non_null(strstr(h, "data-k=\"temperature_gpu_celsius\" data-v=\"null\">N/A</span>"));
    assert_non_null(strstr(h, "data-v=\"3145728\">3 MiB</td>"));
    assert_non_null(strstr(h, "id=\"alert-none\" class=\"none\" hidden"));
    gm_buf_free(&out);

    /* the same alert in JSON: escaped there too */
    gm_live_alerts_json(&out, &a, 1, 1);
    assert_non_null(strstr(cstr(&out), "\"value\":\"<b>89 C</b>\""));
    assert_non_null(strstr(out.p, "\"state\":\"firing\",\"gpu\":0"));
    assert_non_null(strstr(out.p, "\"value_age_seconds\":null")); /* no number: no age */
    /* a slow read group's value (ECC, PCIe link, ...) says how old it was,
     * on the page and in the API; one read in that sample says 0 */
    a.value_ok = 1;
    a.value_age_ms = 6500;
    gm_buf_reset(&out);
    gm_live_alerts_json(&out, &a, 1, 1);
    assert_non_null(strstr(cstr(&out), "\"value\":\"<b>89 C</b>\",\"value_age_seconds\":6.5,"));
    gm_buf_reset(&out);
    gm_live_page(&out, s, &a, 1, 1);
    assert_non_null(strstr(cstr(&out), "&lt;b&gt;89 C&lt;/b&gt; (read 6.5s ago)</span>"));
    a.value_age_ms = 0;
    gm_buf_reset(&out);
    gm_live_alerts_json(&out, &a, 1, 1);
    assert_non_null(strstr(cstr(&out), "\"value_age_seconds\":0,"));
    gm_buf_reset(&out);
    gm_live_page(&out, s, &a, 1, 1);
    assert_non_null(strstr(cstr(&out), "&lt;b&gt;89 C&lt;/b&gt;</span>"));
    gm_buf_reset(&out);
    gm_live_alerts_json(&out, NULL, 0, -1);
    assert_non_null(strstr(cstr(&out), "\"enabled\":false,\"count\":0,\"alerts\":[]"));
    gm_buf_free(&out);
    gm_snapshot_free(s);
}

static void test_assets(void **state)
{
    (void)state;
    const struct gm_live_asset *a = gm_live_asset("/static/live.js");
    assert_non_null(a);
    assert_string_equal(a->content_type, "text/javascript; charset=utf-8");
    assert_true(a->len > 1000);
    /* text goes in with textContent; nothing evaluates strings */
    assert_null(strstr((const char *)a->data, "innerHTML"));
    assert_null(strstr((const char *)a->data, "eval("));
    assert_non_null(gm_live_asset("/static/live.css"));
    assert_non_null(gm_live_asset("/static/favicon.svg"));
    assert_null(gm_live_asset("/static/../live.c"));
    assert_null(gm_live_asset("/static/"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_param_repeated),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_ring_wraps),
        cmocka_unit_test(test_ring_exact),
        cmocka_unit_test(test_ring_bytes),
        cmocka_unit_test(test_ring_clock_step),
        cmocka_unit_test(test_ring_clock_forward),
        cmocka_unit_test(test_ring_outage),
        cmocka_unit_test(test_page_escapes),
        cmocka_unit_test(test_assets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

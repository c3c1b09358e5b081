/* test_top.c -- unit tests for gpumon top's model (src/view/top_model.c),
 * everything the full-screen view decides without a terminal:
 *
 *   history: absent samples stay absent (never 0), bucketing into chart
 *   columns, columns without samples, a change of GPU count, a driver that
 *   goes away; limit diagnosis: thermal, power cap, busy with low clocks and
 *   no reason, idle, lost; the process table: every column sorts both ways
 *   with absent values last, filters by user and text, the selection
 *   follows its process; the layout at 80x24 and 200x60 with 1, 2, 8 and 16
 *   GPUs, and on terminals too small for everything; signals: a live child,
 *   a PID reused between check and send, a zombie, a missing PID, and a
 *   user who may not signal; the text formats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/metrics.h"
#include "core/snapshot.h"
#include "view/top_model.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
#define SEC INT64_C(1000000000)

/* ------------------------------------------------------------------------ */
/* history                                                                   */

static struct gm_snapshot *snap(uint32_t ngpu, int64_t mono)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->mono_ns = mono;
    gm_snapshot_set_gpus(s, ngpu);
    for (uint32_t i = 0; i < ngpu; i++) {
        s->gpus[i].index = i;
        s->gpus[i].m[GM_M_MEM_TOTAL] = gm_v_u64(1000 * MIB);
    }
    return s;
}

static void test_hist_absent_is_not_zero(void **state)
{
    (void)state;
    struct gm_top_hist *h = gm_top_hist_new(100);
    /* t = 1..10 s: util 50 on even seconds, not available on odd ones */
    for (int t = 1; t <= 10; t++) {
        struct gm_snapshot *s = snap(1, t * SEC);
        if (t % 2 == 0)
            s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(50);
        else
            s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_status(GM_VS_UNSUPPORTED, 3);
        s->gpus[0].m[GM_M_MEM_USED] = gm_v_u64(250 * MIB);
        s->gpus[0].m[GM_M_POWER_DRAW] = gm_v_f64(100.0 + t);
        gm_top_hist_push(h, s);
        gm_snapshot_free(s);
    }
    assert_int_equal(gm_top_hist_len(h), 10);
    float v[10];
    uint8_t c[10];
    /* 10 columns over the last 10 s: one sample each */
    gm_top_hist_columns(h, 0, GM_TOP_UTIL, 10 * SEC, 10 * SEC, 10, v, c);
    int values = 0, absent = 0;
    for (int k = 0; k < 10; k++) {
        if (c[k] == GM_TOP_VALUE) {
            assert_true(fabsf(v[k] - 50) < 1e-3);
            values++;
        } else if (c[k] == GM_TOP_ABSENT) {
            absent++;
        }
    }
    assert_int_equal(values, 5);
    assert_int_equal(absent, 4); /* column 0 has no sample; the last holds t = 9 and 10 */
    /* 2 columns: the mean of the real samples only (50), not 25 */
    gm_top_hist_columns(h, 0, GM_TOP_UTIL, 10 * SEC, 10 * SEC, 2, v, c);
    assert_int_equal(c[0], GM_TOP_VALUE);
    assert_true(fabsf(v[0] - 50) < 1e-3);
    assert_true(fabsf(v[1] - 50) < 1e-3);
    /* memory in % of the total, power in W */
    gm_top_hist_columns(h, 0, GM_TOP_MEM, 10 * SEC, 5 * SEC, 1, v, c);
    assert_true(fabsf(v[0] - 25) < 1e-3);
    gm_top_hist_columns(h, 0, GM_TOP_POWER, 10 * SEC, 3 * SEC / 2, 1, v, c);
    assert_true(fabsf(v[0] - 109.5f) < 1e-3); /* t = 9, 10 */
    assert_true(fabsf(gm_top_hist_max(h, 0, GM_TOP_POWER, 10 * SEC, 60 * SEC) - 110) < 1e-3);
    /* a span longer than the history: the old columns have no data */
    gm_top_hist_columns(h, 0, GM_TOP_UTIL, 10 * SEC, 100 * SEC, 10, v, c);
    for (int k = 0; k < 9; k++)
        assert_int_equal(c[k], GM_TOP_NODATA);
    assert_int_equal(c[9], GM_TOP_VALUE);
    /* a GPU the history does not have: no data, no crash */
    gm_top_hist_columns(h, 7, GM_TOP_UTIL, 10 * SEC, 10 * SEC, 3, v, c);
    assert_int_equal(c[0], GM_TOP_NODATA);
    gm_top_hist_free(h);
}

/* Samples from before the view started (the agent's store): grouped by
 * time into samples, a GPU without a row in one absent (never 0), the
 * newest cap kept, the view's own samples after them; a history that
 * has samples is not refilled. */
static void test_hist_prefill(void **state)
{
    (void)state;
    static const struct gm_top_past past[] = {
        {1 * SEC, 0, 10, 50, 100}, {1 * SEC, 1, 20, 60, 200},  {2 * SEC, 0, 30, 50, 100},
        {2 * SEC, 1, 40, 60, 200}, {3 * SEC, 0, 50, NAN, 100}, /* GPU 1 has no row at 3 s */
        {4 * SEC, 1, 70, 60, 200},
    };
    static const struct {
        uint32_t cap, want_len;
        int gpu, series;
        int64_t at; /* a one-second column ending here */
        int cell;   /* what it holds */
        float v;
    } rows[] = {
        {8, 4, 0, GM_TOP_UTIL, 1 * SEC, GM_TOP_VALUE, 10},
        {8, 4, 1, GM_TOP_UTIL, 2 * SEC, GM_TOP_VALUE, 40},
        {8, 4, 1, GM_TOP_UTIL, 3 * SEC, GM_TOP_ABSENT, 0}, /* no row: absent, not 0 */
        {8, 4, 0, GM_TOP_MEM, 3 * SEC, GM_TOP_ABSENT, 0},  /* NAN: absent */
        {8, 4, 0, GM_TOP_UTIL, 4 * SEC, GM_TOP_ABSENT, 0}, /* GPU 0 has no row at 4 s */
        {8, 4, 1, GM_TOP_POWER, 4 * SEC, GM_TOP_VALUE, 200},
        {2, 2, 0, GM_TOP_UTIL, 1 * SEC, GM_TOP_NODATA, 0}, /* only the newest 2 kept */
        {2, 2, 0, GM_TOP_UTIL, 3 * SEC, GM_TOP_VALUE, 50},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_top_hist *h = gm_top_hist_new(rows[i].cap);
        assert_int_equal(gm_top_hist_prefill(h, 2, past, N_ELEM(past)), rows[i].want_len);
        float v[1];
        uint8_t c[1];
        gm_top_hist_columns(h, (uint32_t)rows[i].gpu, rows[i].series, rows[i].at, SEC / 2, 1, v, c);
        if (c[0] != rows[i].cell || (c[0] == GM_TOP_VALUE && fabsf(v[0] - rows[i].v) > 1e-3))
            fail_msg("row %zu: cell %d value %g, want %d %g", i, c[0], (double)v[0], rows[i].cell,
                     (double)rows[i].v);
        gm_top_hist_free(h);
    }
    /* the view's own samples follow; a second fill is refused */
    struct gm_top_hist *h = gm_top_hist_new(8);
    gm_top_hist_prefill(h, 2, past, N_ELEM(past));
    struct gm_snapshot *s = snap(2, 5 * SEC);
    s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(90);
    gm_top_hist_push(h, s);
    gm_snapshot_free(s);
    assert_int_equal(gm_top_hist_len(h), 5);
    assert_int_equal(gm_top_hist_prefill(h, 2, past, N_ELEM(past)), 0);
    float v[5];
    uint8_t c[5];
    gm_top_hist_columns(h, 0, GM_TOP_UTIL, 5 * SEC + SEC / 2, 5 * SEC, 5, v, c);
    static const float want[5] = {10, 30, 50, NAN, 90};
    for (int k = 0; k < 5; k++) {
        if (isnan(want[k]))
            assert_int_equal(c[k], GM_TOP_ABSENT);
        else
            assert_true(c[k] == GM_TOP_VALUE && fabsf(v[k] - want[k]) < 1e-3);
    }
    gm_top_hist_free(h);
}

static void test_hist_ring_and_changes(void **state)
{
    (void)state;
    struct gm_top_hist *h = gm_top_hist_new(4);
    for (int t = 1; t <= 6; t++) {
        struct gm_snapshot *s = snap(2, t * SEC);
        s->gpus[1].m[GM_M_UTIL_GPU] = gm_v_u64((uint64_t)t * 10);
        gm_top_hist_push(h, s);
        gm_snapshot_free(s);
    }
    assert_int_equal(gm_top_hist_len(h), 4); /* the ring keeps the newest 4 */
    float v[6];
    uint8_t c[6];
    gm_top_hist_columns(h, 1, GM_TOP_UTIL, 6 * SEC, 6 * SEC, 6, v, c);
    for (int k = 0; k < 3; k++) /* t = 1, 2 were dropped */
        assert_int_equal(c[k], GM_TOP_NODATA);
    assert_int_equal(c[3], GM_TOP_VALUE);
    assert_true(fabsf(v[3] - 30) < 1e-3);
    assert_true(fabsf(v[5] - 55) < 1e-3); /* t = 5 and 6 */

    /* the driver goes away: the GPUs keep their history, with absent samples */
    struct gm_snapshot *down = gm_snapshot_new();
    down->mono_ns = 7 * SEC;
    down->driver = GM_DRV_NOT_LOADED;
    gm_top_hist_push(h, down);
    gm_snapshot_free(down);
    gm_top_hist_columns(h, 1, GM_TOP_UTIL, 7 * SEC, SEC / 2, 1, v, c);
    assert_int_equal(c[0], GM_TOP_ABSENT);
    gm_top_hist_columns(h, 1, GM_TOP_UTIL, 7 * SEC, 3 * SEC / 2, 1, v, c);
    assert_int_equal(c[0], GM_TOP_VALUE); /* t = 6 is real */
    assert_true(fabsf(v[0] - 60) < 1e-3);

    /* a lost GPU: absent */
    struct gm_snapshot *s = snap(2, 8 * SEC);
    s->gpus[1].state = GM_GPU_LOST;
    s->gpus[1].m[GM_M_UTIL_GPU] = gm_v_u64(99);
    gm_top_hist_push(h, s);
    gm_snapshot_free(s);
    gm_top_hist_columns(h, 1, GM_TOP_UTIL, 8 * SEC, SEC / 2, 1, v, c);
    assert_int_equal(c[0], GM_TOP_ABSENT);

    /* another number of GPUs: the history starts over */
    s = snap(3, 9 * SEC);
    gm_top_hist_push(h, s);
    gm_snapshot_free(s);
    assert_int_equal(gm_top_hist_len(h), 1);
    gm_top_hist_free(h);
}

/* ------------------------------------------------------------------------ */
/* diagnosis                                                                 */

static struct gm_gpu gpu_at(double util, double sm, double smmax, uint64_t reasons)
{
    struct gm_snapshot *s = snap(1, 0);
    struct gm_gpu g = s->gpus[0];
    gm_snapshot_free(s);
    if (util >= 0)
        g.m[GM_M_UTIL_GPU] = gm_v_u64((uint64_t)util);
    g.m[GM_M_CLK_SM] = gm_v_u64((uint64_t)sm);
    g.m[GM_M_CLK_MAX_SM] = gm_v_u64((uint64_t)smmax);
    g.m[GM_M_CER_ACTIVE] = gm_v_u64(reasons);
    g.m[GM_M_TEMP_GPU] = gm_v_u64(89);
    g.m[GM_M_TEMP_SLOWDOWN] = gm_v_u64(89);
    g.m[GM_M_POWER_DRAW] = gm_v_f64(299.6);
    g.m[GM_M_POWER_LIMIT] = gm_v_f64(300);
    return g;
}

static void test_diagnose(void **state)
{
    (void)state;
    static const struct {
        double util, sm, smmax;
        uint64_t reasons;
        int limit;
        const char *text; /* NULL: "" */
    } cases[] = {
        {99, 1020, 1980, 0x68, GM_TOP_LIM_THERMAL,
         "thermal slowdown: 89C at its 89C slowdown threshold; SM clock 1020 of 1980 MHz (52 %) at "
         "99 % utilisation"},
        {98, 1185, 1530, 0x4, GM_TOP_LIM_POWER_CAP,
         "power cap: 300 of 300 W; SM clock 1185 of 1530 MHz (77 %) at 98 % utilisation"},
        {95, 1000, 1980, 0x80, GM_TOP_LIM_POWER_BRAKE, NULL},
        {95, 1000, 1980, 0x8, GM_TOP_LIM_HW_SLOWDOWN, NULL},
        {95, 1000, 1980, 0x10, GM_TOP_LIM_SYNC_BOOST, NULL},
        {95, 1000, 1980, 0x2, GM_TOP_LIM_APP_CLOCKS, NULL},
        {95, 1200, 1980, 0, GM_TOP_LIM_UNKNOWN,
         "SM clock 1200 of 1980 MHz (61 %) at 95 % utilisation and no limit reported by the "
         "driver"},
        {95, 1980, 1980, 0, GM_TOP_LIM_NONE, ""},         /* busy at full clocks: fine */
        {10, 345, 1980, 0x1, GM_TOP_LIM_NONE, ""},        /* idle at idle clocks: not a limit */
        {20, 900, 1980, 0, GM_TOP_LIM_NONE, ""},          /* not busy: low clocks are normal */
        {-1, 1020, 1980, 0x68, GM_TOP_LIM_THERMAL, NULL}, /* a reason without utilisation */
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_gpu g = gpu_at(cases[i].util, cases[i].sm, cases[i].smmax, cases[i].reasons);
        struct gm_top_diag d;
        gm_top_diagnose(&g, 0, &d);
        assert_int_equal(d.limit, cases[i].limit);
        if (cases[i].text)
            assert_string_equal(d.text, cases[i].text);
        assert_true((d.limit == GM_TOP_LIM_NONE) == (d.label == NULL));
        assert_true(fabs(d.clock_ratio - cases[i].sm / cases[i].smmax) < 1e-9);
    }
    /* the clock event reasons readable or not; a lost GPU says nothing */
    struct gm_gpu g = gpu_at(99, 1020, 1980, 0x68);
    char buf[160];
    assert_string_equal(gm_top_reasons_text(&g, buf, sizeof(buf)),
                        "hw slowdown, sw thermal slowdown, hw thermal slowdown");
    g.m[GM_M_CER_ACTIVE] = gm_v_u64(0);
    assert_string_equal(gm_top_reasons_text(&g, buf, sizeof(buf)), "none");
    g.m[GM_M_CER_ACTIVE] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    assert_string_equal(gm_top_reasons_text(&g, buf, sizeof(buf)), "unknown");
    g.state = GM_GPU_LOST;
    struct gm_top_diag d;
    gm_top_diagnose(&g, 1, &d);
    assert_int_equal(d.limit, GM_TOP_LIM_NONE);
    assert_true(d.clock_ratio < 0);
    /* UTF-8 degree sign */
    g = gpu_at(99, 1020, 1980, 0x20);
    gm_top_diagnose(&g, 1, &d);
    assert_non_null(strstr(d.text, "89\xC2\xB0"
                                   "C"));
}

/* ------------------------------------------------------------------------ */
/* process table                                                             */

static struct gm_proc *add(struct gm_snapshot *s, uint32_t gpu, uint32_t pid, const char *user,
                           const char *cmd, struct gm_value mem, struct gm_value sm,
                           struct gm_value cpu, uint8_t hs)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = gpu;
    p.pid = pid;
    p.type = GM_PT_COMPUTE;
    p.host_state = hs;
    p.gpu_instance_id = p.compute_instance_id = GM_NO_INSTANCE;
    p.used_memory = mem;
    p.sm_util = sm;
    p.mem_util = p.enc_util = p.dec_util = gm_v_status(GM_VS_NA, 0);
    p.cpu = cpu;
    p.rss = gm_v_u64((uint64_t)pid * MIB);
    p.elapsed = gm_v_f64(pid % 1000);
    p.start_time = gm_v_status(GM_VS_NA, 0);
    snprintf(p.user, sizeof(p.user), "%s", user);
    snprintf(p.name, sizeof(p.name), "%s", "python3");
    if (cmd)
        p.cmdline = strdup(cmd);
    return gm_snapshot_add_proc_take(s, &p);
}

static struct gm_snapshot *procs_snapshot(void)
{
    struct gm_snapshot *s = snap(2, SEC);
    s->gpus[1].index = 7;
    add(s, 0, 100, "alice", "python3 train.py --lr 3e-4", gm_v_u64(30000 * MIB), gm_v_u64(95),
        gm_v_f64(99.5), GM_HS_ALIVE);
    add(s, 1, 200, "bob", "python3 eval.py", gm_v_u64(8000 * MIB), gm_v_status(GM_VS_NA, 0),
        gm_v_f64(3.0), GM_HS_ALIVE);
    add(s, 1, 4194304, "", NULL, gm_v_u64(30720 * MIB), gm_v_u64(47), gm_v_status(GM_VS_NA, 0),
        GM_HS_GONE);
    add(s, 0, 300, "carol", "torchrun --nproc 8 pretrain.py", gm_v_status(GM_VS_NA, 0),
        gm_v_u64(12), gm_v_f64(250.0), GM_HS_ZOMBIE);
    return s;
}

static void pids(const struct gm_top_table *t, uint32_t *out)
{
    for (uint32_t i = 0; i < t->n; i++)
        out[i] = t->rows[i].p->pid;
}

static void test_table_sort(void **state)
{
    (void)state;
    struct gm_snapshot *s = procs_snapshot();
    struct gm_top_table t;
    gm_top_table_init(&t);
    static const struct {
        int col, desc;
        uint32_t want[4];
    } cases[] = {
        /* GPU memory (the default, high first); N/A last in both directions */
        {GM_TC_GPUMEM, 1, {4194304, 100, 200, 300}},  {GM_TC_GPUMEM, 0, {200, 100, 4194304, 300}},
        {GM_TC_SM, 1, {100, 4194304, 300, 200}},      {GM_TC_SM, 0, {300, 4194304, 100, 200}},
        {GM_TC_CPU, 1, {300, 100, 200, 4194304}},     {GM_TC_PID, 0, {100, 200, 300, 4194304}},
        {GM_TC_GPU, 1, {200, 4194304, 100, 300}},  /* ties: GPU then PID */
        {GM_TC_USER, 0, {4194304, 100, 200, 300}}, /* "?" sorts before letters */
        {GM_TC_HOSTMEM, 1, {4194304, 300, 200, 100}}, {GM_TC_TIME, 0, {100, 200, 300, 4194304}},
        {GM_TC_COMMAND, 0, {4194304, 300, 200, 100}}, /* "[gone] ...", "[zombie] ...", text */
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        t.sort_col = cases[i].col;
        t.sort_desc = cases[i].desc;
        gm_top_table_build(&t, s);
        assert_int_equal(t.n, 4);
        uint32_t got[4];
        pids(&t, got);
        for (int k = 0; k < 4; k++) {
            if (got[k] != cases[i].want[k])
                fail_msg("sort col %d desc %d: row %d is PID %u, want %u", cases[i].col,
                         cases[i].desc, k, got[k], cases[i].want[k]);
        }
    }
    gm_top_table_free(&t);
    gm_snapshot_free(s);
}

static void test_table_cells(void **state)
{
    (void)state;
    struct gm_snapshot *s = procs_snapshot();
    struct gm_top_table t;
    gm_top_table_init(&t);
    t.sort_col = GM_TC_PID;
    t.sort_desc = 0;
    gm_top_table_build(&t, s);
    char b[256];
    static const struct {
        int row, col;
        const char *want;
    } cells[] = {
        {0, GM_TC_GPU, "0"},
        {0, GM_TC_PID, "100"},
        {0, GM_TC_USER, "alice"},
        {0, GM_TC_TYPE, "C"},
        {0, GM_TC_GPUMEM, "29.3G"},
        {0, GM_TC_SM, "95"},
        {0, GM_TC_CPU, "99.5"},
        {0, GM_TC_HOSTMEM, "100M"},
        {0, GM_TC_TIME, "1:40"},
        {0, GM_TC_COMMAND, "python3 train.py --lr 3e-4"},
        {1, GM_TC_GPU, "7"},
        {1, GM_TC_SM, "N/A"},
        {2, GM_TC_GPUMEM, "N/A"},
        {2, GM_TC_COMMAND, "[zombie] torchrun --nproc 8 pretrain.py"},
        {3, GM_TC_USER, "?"},
        {3, GM_TC_CPU, "N/A"},
        {3, GM_TC_COMMAND, "[gone] python3"},
    };
    for (size_t i = 0; i < N_ELEM(cells); i++)
        assert_string_equal(gm_top_cell_text(&t.rows[cells[i].row], cells[i].col, b, sizeof(b)),
                            cells[i].want);
    gm_top_table_free(&t);
    gm_snapshot_free(s);
}

static void test_table_filter_and_selection(void **state)
{
    (void)state;
    struct gm_snapshot *s = procs_snapshot();
    struct gm_top_table t;
    gm_top_table_init(&t);
    t.sort_col = GM_TC_PID;
    t.sort_desc = 0;
    gm_top_table_build(&t, s);
    assert_int_equal(t.selected, -1);
    gm_top_table_move(&t, 1); /* the first row */
    assert_int_equal(t.selected, 0);
    gm_top_table_move(&t, 2);
    assert_int_equal(t.rows[t.selected].p->pid, 300);
    gm_top_table_move(&t, 50); /* clamped */
    assert_int_equal(t.rows[t.selected].p->pid, 4194304);
    gm_top_table_move(&t, -1);
    assert_int_equal(t.rows[t.selected].p->pid, 300);

    /* another order: the selection stays on PID 300 */
    t.sort_col = GM_TC_GPUMEM;
    t.sort_desc = 1;
    gm_top_table_build(&t, s);
    assert_int_equal(t.rows[t.selected].p->pid, 300);
    assert_int_equal(t.selected, 3);

    static const struct {
        const char *user, *text;
        uint32_t n;
    } filters[] = {
        {"alice", "", 1}, {"bob", "", 1},    {"?", "", 1},        {"", "TRAIN", 2},
        {"", "py", 4},    {"", "200", 1},    {"", "20", 0},       {"alice", "eval", 0},
        {"", "", 4},      {"nobody", "", 0}, {"", "pretrain", 1},
    };
    for (size_t i = 0; i < N_ELEM(filters); i++) {
        snprintf(t.filter_user, sizeof(t.filter_user), "%s", filters[i].user);
        snprintf(t.filter_text, sizeof(t.filter_text), "%s", filters[i].text);
        gm_top_table_build(&t, s);
        if (t.n != filters[i].n)
            fail_msg("filter user '%s' text '%s': %u rows, want %u", filters[i].user,
                     filters[i].text, t.n, filters[i].n);
        assert_int_equal(t.total, 4);
        assert_true(t.selected < (int)t.n);
    }
    char names[8][33];
    assert_int_equal(gm_top_users(s, names, 8), 4);
    assert_string_equal(names[0], "?");
    assert_string_equal(names[1], "alice");
    assert_string_equal(names[3], "carol");
    gm_top_table_free(&t);
    gm_snapshot_free(s);
}

/* The JOB column and the job and container filters: four processes in a
 * Slurm step, a pod, a docker container and a systemd service (their
 * cgroup paths parsed as procfs does), and one in none. */
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "2f1e3c4d-5b6a-4789-8abc-def012345678"
static struct gm_snapshot *jobs_snapshot(void)
{
    struct gm_snapshot *s = snap(1, SEC);
    static const struct {
        uint32_t pid;
        const char *cgroup;
        uint32_t uid; /* a Slurm step's is its path's */
    } ps[] = {
        {10, "/slurm/uid_1001/job_4242/step_0/task_0", 1001},
        {20,
         "/kubepods/burstable/pod" POD "/fedcba9876543210fedcba9876543210fedcba9876543210fedcba98"
         "76543210",
         0},
        {30, "/system.slice/docker-" CID ".scope", 0},
        {40, "/system.slice/triton.service", 0},
        {50, "/user.slice/user-1000.slice/session-3.scope", 1000},
    };
    for (size_t i = 0; i < N_ELEM(ps); i++) {
        struct gm_proc *p = add(s, 0, ps[i].pid, "alice", "python3 x.py",
                                gm_v_u64((ps[i].pid) * MIB), gm_v_u64(1), gm_v_f64(1), GM_HS_ALIVE);
        gm_attrib_parse(ps[i].cgroup, ps[i].uid, &p->attrib);
    }
    return s;
}

static void test_table_jobs(void **state)
{
    (void)state;
    struct gm_snapshot *s = jobs_snapshot();
    struct gm_top_table t;
    gm_top_table_init(&t);
    t.sort_col = GM_TC_PID;
    t.sort_desc = 0;
    gm_top_table_build(&t, s);
    assert_true(t.any_job);
    char b[256];
    static const char *const want[] = {"slurm:4242.0", "pod:2f1e3c4d", "docker:0123456789ab",
                                       "unit:triton.service", ""};
    for (uint32_t i = 0; i < t.n; i++)
        assert_string_equal(gm_top_cell_text(&t.rows[i], GM_TC_JOB, b, sizeof b), want[i]);

    /* sortable: text order, the processes without a job first (as "" sorts) */
    t.sort_col = GM_TC_JOB;
    gm_top_table_build(&t, s);
    uint32_t got[5];
    pids(&t, got);
    static const uint32_t by_job[] = {50, 30, 20, 10, 40};
    assert_memory_equal(got, by_job, sizeof by_job);
    t.sort_desc = 1;
    gm_top_table_build(&t, s);
    pids(&t, got);
    assert_int_equal(got[0], 40);

    /* the job filter: any part of what names the job; the container filter:
     * the start of the id, optionally after its runtime */
    static const struct {
        const char *job, *container;
        uint32_t n, first;
    } f[] = {
        {"4242", "", 1, 10},         {"slurm:4242", "", 1, 10},
        {"SLURM", "", 1, 10},        {POD, "", 1, 20},
        {"pod:2f1e", "", 1, 20},     {"triton", "", 1, 40},
        {"unit:", "", 1, 40},        {"session-3", "", 0, 0},
        {"", "0123", 1, 30},         {"", "docker:0123456789", 1, 30},
        {"", "crio:0123", 0, 0},     {"", "fedcba98", 1, 20},
        {"", "cri:fedcba98", 1, 20}, {"", "456789ab", 0, 0},
        {"container:", "", 1, 30},   {"4242", "0123", 0, 0},
        {"nothing", "", 0, 0},
    };
    t.sort_desc = 0;
    t.sort_col = GM_TC_PID;
    for (size_t i = 0; i < N_ELEM(f); i++) {
        snprintf(t.filter_job, sizeof t.filter_job, "%s", f[i].job);
        snprintf(t.filter_container, sizeof t.filter_container, "%s", f[i].container);
        gm_top_table_build(&t, s);
        if (t.n != f[i].n || (t.n && t.rows[0].p->pid != f[i].first))
            fail_msg("job '%s' container '%s': %u rows (first %u), want %u (first %u)", f[i].job,
                     f[i].container, t.n, t.n ? t.rows[0].p->pid : 0, f[i].n, f[i].first);
        assert_int_equal(t.total, 5);
        assert_true(t.any_job); /* from every process, not only those shown */
    }
    gm_top_table_free(&t);
    gm_snapshot_free(s);
}

/* Which columns are shown: JOB only when some process has a job (or a job
 * filter is on); on a narrow terminal it replaces TYPE and HOST-MEM. */
static void test_table_columns(void **state)
{
    (void)state;
    struct gm_top_table t;
    gm_top_table_init(&t);
    int col[GM_TC__COUNT], w[GM_TC__COUNT];
    /* no job anywhere: the columns as before */
    int n = gm_top_columns(&t, 80, col, w);
    assert_int_equal(n, GM_TC__COUNT - 1);
    for (int i = 0; i < n; i++)
        assert_int_not_equal(col[i], GM_TC_JOB);
    assert_int_equal(col[n - 1], GM_TC_COMMAND);
    /* a job, wide: every column, JOB 20 wide before COMMAND */
    t.any_job = 1;
    n = gm_top_columns(&t, 200, col, w);
    assert_int_equal(n, GM_TC__COUNT);
    assert_int_equal(col[n - 2], GM_TC_JOB);
    assert_int_equal(w[n - 2], 20);
    /* a job, 80 columns: no TYPE or HOST-MEM, JOB 12 wide, COMMAND keeps
     * at least 16 columns */
    n = gm_top_columns(&t, 80, col, w);
    assert_int_equal(n, GM_TC__COUNT - 2);
    int x = 0;
    for (int i = 0; i < n; i++) {
        assert_int_not_equal(col[i], GM_TC_TYPE);
        assert_int_not_equal(col[i], GM_TC_HOSTMEM);
        x += w[i] ? w[i] + 1 : 0;
    }
    assert_int_equal(w[n - 2], 12);
    assert_true(80 - x >= 16);
    /* a job filter shows the column even when nothing matches */
    t.any_job = 0;
    snprintf(t.filter_job, sizeof t.filter_job, "4242");
    n = gm_top_columns(&t, 200, col, w);
    assert_int_equal(col[n - 2], GM_TC_JOB);
    /* the sort keys step over the columns shown, around the ends */
    t.any_job = 1;
    assert_int_equal(gm_top_column_next(&t, 80, GM_TC_USER, 1), GM_TC_GPUMEM); /* no TYPE */
    assert_int_equal(gm_top_column_next(&t, 80, GM_TC_COMMAND, 1), GM_TC_GPU);
    assert_int_equal(gm_top_column_next(&t, 80, GM_TC_GPU, -1), GM_TC_COMMAND);
    assert_int_equal(gm_top_column_next(&t, 80, GM_TC_HOSTMEM, 1), GM_TC_GPU); /* hidden */
    assert_int_equal(gm_top_column_next(&t, 200, GM_TC_TIME, 1), GM_TC_JOB);
    gm_top_table_free(&t);
}

/* ------------------------------------------------------------------------ */
/* layout                                                                    */

static void check_layout(int rows, int cols, int ngpu, const struct gm_top_layout *l)
{
    /* everything inside the screen, in order, without overlap */
    assert_int_equal(l->gpu_y, 1);
    assert_int_equal(l->prob_y, l->gpu_y + l->gpu_h);
    assert_int_equal(l->chart_y, l->prob_y + l->prob_h);
    assert_int_equal(l->proc_y, l->chart_y + l->chart_h);
    assert_int_equal(l->proc_y + l->proc_h, rows - 1);
    assert_int_equal(l->footer_y, rows - 1);
    assert_true(l->proc_h >= 4);
    assert_true(l->panel_cols >= 1 && l->panel_cols * l->panel_w <= cols);
    if (l->gpus_shown == ngpu)
        assert_true((ngpu + l->panel_cols - 1) / l->panel_cols * l->panel_h <= l->gpu_h);
}

static void test_layout(void **state)
{
    (void)state;
    static const struct {
        int rows, cols, ngpu;
        int panel, panel_cols, charts, all_gpus;
    } cases[] = {
        {24, 80, 1, GM_TOP_PANEL_FULL, 1, 1, 1},  {24, 80, 2, GM_TOP_PANEL_FULL, 1, 1, 1},
        {24, 80, 8, GM_TOP_PANEL_LINE, 2, 1, 1},  {24, 80, 16, GM_TOP_PANEL_LINE, 2, 1, 1},
        {60, 200, 1, GM_TOP_PANEL_FULL, 1, 1, 1}, {60, 200, 2, GM_TOP_PANEL_FULL, 2, 1, 1},
        {60, 200, 8, GM_TOP_PANEL_FULL, 2, 1, 1}, {60, 200, 16, GM_TOP_PANEL_COMPACT, 2, 1, 1},
        {24, 80, 64, GM_TOP_PANEL_LINE, 2, 0, 0}, /* too many: cut, with a line saying so */
        {12, 50, 8, GM_TOP_PANEL_LINE, 1, 0, 0},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_top_layout l;
        gm_top_layout(cases[i].rows, cases[i].cols, cases[i].ngpu, &l);
        if (l.panel != cases[i].panel || l.panel_cols != cases[i].panel_cols ||
            (l.chart_h > 0) != cases[i].charts ||
            (l.gpus_shown == cases[i].ngpu) != cases[i].all_gpus)
            fail_msg("%dx%d with %d GPUs: panel %d x%d, chart %d, %d shown", cases[i].cols,
                     cases[i].rows, cases[i].ngpu, l.panel, l.panel_cols, l.chart_h, l.gpus_shown);
        check_layout(cases[i].rows, cases[i].cols, cases[i].ngpu, &l);
        if (l.chart_h)
            assert_true(l.chart_h >= 5 && l.chart_h <= 12 && l.chart_n == 3);
    }
}

/* GPUs with a problem to tell get a line each under compact and one-line
 * panels (which have no room for the sentence), before the charts, which
 * shrink or go; the process table keeps its quarter; full panels tell it
 * themselves. */
static void test_layout_problems(void **state)
{
    (void)state;
    static const struct {
        int rows, cols, ngpu, nprob;
        int panel, prob_h, chart_h;
    } cases[] = {
        {24, 80, 8, 0, GM_TOP_PANEL_LINE, 0, 9},     {24, 80, 8, 3, GM_TOP_PANEL_LINE, 3, 7},
        {24, 80, 8, 8, GM_TOP_PANEL_LINE, 8, 5},     {24, 80, 8, 9, GM_TOP_PANEL_LINE, 9, 0},
        {24, 80, 16, 16, GM_TOP_PANEL_LINE, 9, 0},   {60, 200, 8, 3, GM_TOP_PANEL_FULL, 0, 12},
        {30, 200, 8, 2, GM_TOP_PANEL_COMPACT, 2, 8},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_top_layout l;
        gm_top_layout_problems(cases[i].rows, cases[i].cols, cases[i].ngpu, cases[i].nprob, &l);
        if (l.panel != cases[i].panel || l.prob_h != cases[i].prob_h ||
            l.chart_h != cases[i].chart_h)
            fail_msg("%dx%d, %d GPUs, %d problems: panel %d, %d problem lines, chart %d",
                     cases[i].cols, cases[i].rows, cases[i].ngpu, cases[i].nprob, l.panel, l.prob_h,
                     l.chart_h);
        check_layout(cases[i].rows, cases[i].cols, cases[i].ngpu, &l);
    }
}

/* ------------------------------------------------------------------------ */
/* signals                                                                   */

static void test_signal_child(void **state)
{
    (void)state;
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    assert_true(child > 0);
    struct gm_top_target t;
    assert_int_equal(gm_top_target_check("/proc", (uint32_t)child, &t), 0);
    assert_true(t.allowed);
    assert_true(t.starttime > 0);
    assert_int_equal(t.uid, getuid());

    /* the PID names another process by the time of sending: nothing sent */
    struct gm_top_target other = t;
    other.starttime++;
    struct gm_err err = {0};
    assert_int_equal(gm_top_target_signal("/proc", &other, SIGTERM, &err), GM_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "nothing sent"));
    assert_int_equal(waitpid(child, NULL, WNOHANG), 0); /* still alive */

    assert_int_equal(gm_top_target_signal("/proc", &t, SIGTERM, &err), 0);
    int st;
    assert_int_equal(waitpid(child, &st, 0), child);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);

    /* gone now */
    assert_int_equal(gm_top_target_check("/proc", (uint32_t)child, &t), GM_E_NOTFOUND);
    assert_false(t.allowed);
    assert_int_equal(gm_top_target_signal("/proc", &t, SIGTERM, &err), GM_E_NOPERM);
    assert_int_equal(gm_top_target_check("/proc", 4194304, &t), GM_E_NOTFOUND);
}

static void test_signal_zombie(void **state)
{
    (void)state;
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    usleep(100000); /* not reaped yet: a zombie */
    struct gm_top_target t;
    assert_int_equal(gm_top_target_check("/proc", (uint32_t)child, &t), 0);
    assert_false(t.allowed);
    assert_non_null(strstr(t.why, "zombie"));
    waitpid(child, NULL, 0);
}

static void test_signal_not_permitted(void **state)
{
    (void)state;
    if (getuid() != 0) {
        /* as a user: PID 1 belongs to root */
        struct gm_top_target t;
        assert_int_equal(gm_top_target_check("/proc", 1, &t), 0);
        assert_false(t.allowed);
        assert_non_null(strstr(t.why, "you may only signal your own processes"));
        return;
    }
    /* as root: check from a child that became nobody */
    pid_t child = fork();
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(2);
        struct gm_top_target t;
        if (gm_top_target_check("/proc", 1, &t) != 0 || t.allowed ||
            !strstr(t.why, "belongs to uid 0"))
            _exit(1);
        struct gm_err err = {0};
        _exit(gm_top_target_signal("/proc", &t, SIGTERM, &err) == GM_E_NOPERM ? 0 : 3);
    }
    int st;
    assert_int_equal(waitpid(child, &st, 0), child);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* ------------------------------------------------------------------------ */
/* formats                                                                   */

static void test_formats(void **state)
{
    (void)state;
    char b[32];
    static const struct {
        double bytes;
        const char *want;
    } mem[] = {
        {0, "0K"},
        {512 * 1024.0, "512K"},
        {1000 * 1024.0, "1.0M"},
        {30000.0 * MIB, "29.3G"},
        {72908.0 * MIB, "71.2G"},
        {100.0 * MIB, "100M"},
        {1.5 * 1024 * 1024 * MIB, "1.5T"},
    };
    for (size_t i = 0; i < N_ELEM(mem); i++)
        assert_string_equal(gm_top_fmt_mem(mem[i].bytes, b, sizeof(b)), mem[i].want);
    static const struct {
        double s;
        const char *want;
    } el[] = {{0, "0s"},         {59.9, "59s"},    {100, "1:40"},
              {3661, "1:01:01"}, {90061, "1d01h"}, {-5, "0s"}};
    for (size_t i = 0; i < N_ELEM(el); i++)
        assert_string_equal(gm_top_fmt_elapsed(el[i].s, b, sizeof(b)), el[i].want);
    static const struct {
        int64_t s;
        const char *want;
    } ago[] = {{0, "now"},     {30, "-30s"},   {300, "-5m"},
               {150, "-2.5m"}, {3600, "-60m"}, {7200, "-2.0h"}};
    for (size_t i = 0; i < N_ELEM(ago); i++)
        assert_string_equal(gm_top_fmt_ago(ago[i].s, b, sizeof(b)), ago[i].want);
    assert_string_equal(gm_top_fmt_rate(1.5 * 1024 * MIB, b, sizeof(b)), "1.5G/s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_absent_is_not_zero),
        cmocka_unit_test(test_hist_ring_and_changes),
        cmocka_unit_test(test_diagnose),
        cmocka_unit_test(test_table_sort),
        cmocka_unit_test(test_table_cells),
        cmocka_unit_test(test_table_filter_and_selection),
        cmocka_unit_test(test_table_jobs),
        cmocka_unit_test(test_table_columns),
        cmocka_unit_test(test_hist_prefill),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_layout_problems),
        cmocka_unit_test(test_signal_child),
        cmocka_unit_test(test_signal_zombie),
        cmocka_unit_test(test_signal_not_permitted),
        cmocka_unit_test(test_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_rule.c -- the alert condition language and operand values
 * (src/alert/rule.c): parsing with column-precise errors, three-valued
 * evaluation, derived values, rule keys and the default set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alert/rule.h"
#include "core/err.h"
#include "core/metrics.h"
#include "core/snapshot.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One healthy GPU: 80 GiB, 60 GiB used, 300/400 W, 70 C (slowdown 87 C). */
static struct gm_snapshot *snap(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    gm_snapshot_set_gpus(s, 1);
    struct gm_gpu *g = &s->gpus[0];
    g->index = 0;
    snprintf(g->str[GM_S_UUID], GM_STR_MAX, "GPU-test");
    snprintf(g->str[GM_S_NAME], GM_STR_MAX, "Test GPU");
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(80ULL << 30);
    g->m[GM_M_MEM_USED] = gm_v_u64(60ULL << 30);
    g->m[GM_M_MEM_FREE] = gm_v_u64(20ULL << 30);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(300.0);
    g->m[GM_M_POWER_ENFORCED] = gm_v_f64(400.0);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(70);
    g->m[GM_M_TEMP_SLOWDOWN] = gm_v_u64(87);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0);
    return s;
}

static int eval(const char *cond, const struct gm_snapshot *s)
{
    struct gm_rule_expr e;
    char why[256];
    int rc = gm_rule_parse(cond, GM_RS_GPU, &e, why, sizeof(why));
    if (rc != 0)
        fail_msg("parse of \"%s\" failed: %s", cond, why);
    struct gm_rule_ctx cx = {.s = s, .g = &s->gpus[0]};
    return gm_rule_eval(&e, &cx, NULL, NULL, NULL);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *cond;
        const char *why; /* a part of the message, including the column */
    } cases[] = {
        {"", "empty condition"},
        {"temperature.gpu", NULL}, /* a bare operand is valid */
        {"temperature.gpu >> 85", "expected a number (at column 18"},
        {"temperature.gpu = 85", "use == to compare (at column 17"},
        {"temp > 85", "unknown metric \"temp\" (see gpumon metrics"},
        {"memory.free < 2048", "memory.free is a size: give the number a unit"},
        {"memory.free < 2 GiB", "memory.free is a size"},
        {"temperature.gpu > 85GiB", "unit \"GiB\" does not fit temperature.gpu (C)"},
        {"temperature.gpu > 85 and", "condition ends too early (at column 25"},
        {"(temperature.gpu > 85", "missing ')'"},
        {"temperature.gpu > 85)", "unexpected \")\""},
        {"temperature.gpu > 85 or or gpu.lost", "expected a metric name before \"or\""},
        {"name > 3", "name is not a number"},
        {"temperature.gpu > 85 xor gpu.lost", "unexpected \"xor gpu.lost\""},
        {"utilization.gpu > 90%", NULL},
        {"power.draw > 300W", NULL},
        {"memory.free < 2GiB and memory.free_pct < 10", NULL},
        {"not (gpu.lost or temperature.margin <= 0)", NULL},
        {"procs.dead_memory > 0", NULL}, /* zero needs no unit */
        /* window functions */
        {"avg(utilization.gpu, 5m) < 50", NULL},
        {"avg(utilization.gpu,5m)<50 and stddev(utilization.gpu, 5m) > 20", NULL},
        {"min(procs.count, 10m) > 0 and max(temperature.gpu, 1h) < 90C", NULL},
        {"slope(memory.used, 6h) > 20MiB/min", NULL},
        {"slope(memory.used, 6h) > 20MiB", NULL},
        {"predict(memory.free, 1h, 24h) < 0", NULL},
        {"avg(memory.free_pct, 30s)", NULL},
        {"avg(utilization.gpu 5m) < 50", "expected ',' and a window length (e.g. "
                                         "avg(utilization.gpu, 5m)) (at column 21"},
        {"avg(utilization.gpu, 5x) < 50", "invalid window length \"5x\" (examples: 30s, 5m, 6h) "
                                          "(at column 22"},
        {"avg(utilization.gpu, ) < 50", "expected a window length (e.g. 5m, 1h) (at column 22"},
        {"avg(utilization.gpu, 0s) < 50", "invalid window length \"0s\""},
        {"avg(utilization.gpu, 1500ms) < 50", "not a whole number of seconds (at column 22"},
        {"avg(utilization.gpu, 25h) < 50", "window length \"25h\" is longer than 24h (at column 22"},
        {"avg(utilization.gpu, 5m < 50", "missing ')' after avg(...) (at column 25"},
        {"mean(utilization.gpu, 5m) < 50", "unknown function \"mean\" (avg, min, max, stddev, "
                                           "slope, predict) (at column 1"},
        {"gpu.lost or avg(temp, 5m) > 1", "unknown metric \"temp\" (see gpumon metrics, and the "
                                          "derived values in docs/alerts.md) (at column 17"},
        {"avg(avg(utilization.gpu, 5m), 5m) > 1", "not another function (at column 5"},
        {"avg(, 5m) > 1", "expected a metric name inside avg() (at column 5"},
        {"max(xid, 1h) > 0", "it cannot be in a window (at column 5"},
        {"avg(name, 1h) > 0", "name is not a number (at column 5"},
        {"predict(memory.free, 1h) < 0", "expected ',' and how far ahead (e.g. "
                                         "predict(memory.free, 1h, 24h)) (at column 24"},
        {"predict(memory.free, 1h, soon) < 0", "invalid horizon \"soon\" (examples: 30s, 5m, 6h) (at column 26"},
        {"avg(memory.used, 1h) > 20MiB/min", "unexpected \"/min\""},
        {"avg(memory.used, 1h) > 20", "memory.used is a size: give the number a unit"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_rule_expr e;
        char why[256] = "";
        int rc = gm_rule_parse(cases[i].cond, GM_RS_GPU, &e, why, sizeof(why));
        if (!cases[i].why) {
            if (rc != 0)
                fail_msg("\"%s\": unexpected error %s", cases[i].cond, why);
            continue;
        }
        if (rc == 0)
            fail_msg("\"%s\" parsed, expected an error", cases[i].cond);
        if (!strstr(why, cases[i].why))
            fail_msg("\"%s\": got \"%s\", want it to contain \"%s\"", cases[i].cond, why,
                     cases[i].why);
    }
}

static void test_host_scope(void **state)
{
    (void)state;
    struct gm_rule_expr e;
    char why[256];
    assert_int_equal(gm_rule_parse("driver.lost", GM_RS_HOST, &e, why, sizeof(why)), 0);
    assert_int_not_equal(gm_rule_parse("temperature.gpu > 85", GM_RS_HOST, &e, why, sizeof(why)),
                         0);
    assert_non_null(strstr(why, "per-GPU value; this rule has scope = host"));
    assert_int_not_equal(gm_rule_parse("avg(driver.lost, 5m) > 0", GM_RS_HOST, &e, why,
                                       sizeof(why)),
                         0);
    assert_non_null(strstr(why, "avg(): window functions are per GPU; this rule has scope = host "
                                "(at column 1"));
}

/* A stand-in for the engine's history: every window of operand `want`
 * has the value *arg; other operands are unknown. */
struct stub {
    int operand, status, calls;
    double value;
    struct gm_rule_node last;
};

static int stub_window(void *arg, const struct gm_rule_node *nd, double *out)
{
    struct stub *st = arg;
    st->calls++;
    st->last = *nd;
    if (nd->operand != st->operand)
        return GM_VS_NA;
    *out = st->value;
    return st->status;
}

static void test_eval_windows(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    struct gm_rule_expr e;
    char why[256];
    assert_int_equal(gm_rule_parse("avg(utilization.gpu, 5m) < 50 and memory.used_pct > 50",
                                   GM_RS_GPU, &e, why, sizeof(why)),
                     0);
    /* no history at all (a caller without an engine): unknown, not false */
    struct gm_rule_ctx cx = {.s = s, .g = &s->gpus[0]};
    double v = 0;
    int op = 0, ok = 1;
    assert_int_equal(gm_rule_eval(&e, &cx, &v, &op, &ok), -1);
    assert_int_equal(ok, 0);

    struct stub st = {.operand = GM_M_UTIL_GPU, .status = GM_VS_OK, .value = 34};
    cx.window = stub_window;
    cx.window_arg = &st;
    assert_int_equal(gm_rule_eval(&e, &cx, &v, &op, &ok), 1);
    assert_int_equal(st.last.fn, GM_WF_AVG);
    assert_int_equal(st.last.window_s, 300);
    assert_int_equal(op, GM_RULE_WINDOWED_OP(GM_WF_AVG, GM_M_UTIL_GPU));
    assert_int_equal(ok, 1);
    assert_true(v == 34);
    char txt[64];
    gm_rule_value_text(op, v, &cx, txt, sizeof(txt));
    assert_string_equal(txt, "34.0 %");
    st.value = 60;
    assert_int_equal(gm_rule_eval(&e, &cx, NULL, NULL, NULL), 0);
    /* a window that is not known yet (too little history): unknown */
    st.status = GM_VS_NA;
    assert_int_equal(gm_rule_eval(&e, &cx, NULL, NULL, NULL), -1);
    /* ... and a value the GPU never reports: false, as for the current value */
    st.status = GM_VS_UNSUPPORTED;
    assert_int_equal(gm_rule_eval(&e, &cx, NULL, NULL, NULL), 0);

    /* slope is per minute and may say so; predict carries its horizon */
    assert_int_equal(gm_rule_parse("slope(memory.used, 6h) > 20MiB/min or "
                                   "predict(memory.free, 1h, 24h) < 0",
                                   GM_RS_GPU, &e, why, sizeof(why)),
                     0);
    assert_int_equal(e.n, 3);
    assert_int_equal(e.node[0].fn, GM_WF_SLOPE);
    assert_int_equal(e.node[0].window_s, 6 * 3600);
    assert_true(e.node[0].number == 20.0 * 1048576);
    assert_int_equal(e.node[1].fn, GM_WF_PREDICT);
    assert_int_equal(e.node[1].window_s, 3600);
    assert_int_equal(e.node[1].horizon_s, 86400);
    assert_int_equal(gm_rule_window_need(&e, GM_M_MEM_USED), 6 * 3600);
    assert_int_equal(gm_rule_window_need(&e, GM_M_MEM_FREE), 3600);
    assert_int_equal(gm_rule_window_need(&e, GM_M_UTIL_GPU), 0);
    st = (struct stub){.operand = GM_M_MEM_USED, .status = GM_VS_OK, .value = 25.0 * 1048576};
    assert_int_equal(gm_rule_eval(&e, &cx, &v, &op, &ok), 1);
    gm_rule_value_text(op, v, &cx, txt, sizeof(txt));
    assert_string_equal(txt, "25.00 MiB/min");
    gm_rule_value_text(GM_RULE_WINDOWED_OP(GM_WF_PREDICT, GM_M_MEM_FREE), -4.0 * 1073741824, &cx,
                       txt, sizeof(txt));
    assert_string_equal(txt, "-4.00 GiB");
    gm_rule_value_text(GM_RULE_WINDOWED_OP(GM_WF_AVG, GM_OP_THROTTLE_THERMAL), 0.25, &cx, txt,
                       sizeof(txt));
    assert_string_equal(txt, "0.25");
    gm_snapshot_unref(s);
}

static void test_eval_three_valued(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    static const struct {
        const char *cond;
        int want;
    } cases[] = {
        {"temperature.gpu > 69", 1},
        {"temperature.gpu > 70", 0},
        {"temperature.gpu >= 70", 1},
        {"temperature.gpu < 70", 0},
        {"temperature.gpu <= 70", 1},
        {"temperature.gpu == 70", 1},
        {"temperature.gpu != 70", 0},
        {"memory.free_pct == 25", 1},
        {"memory.used_pct > 74.9 and memory.used_pct < 75.1", 1},
        {"power.draw_pct == 75", 1},
        {"temperature.margin == 17", 1},
        {"memory.free < 20GiB", 0},
        {"memory.free <= 20GiB", 1},
        {"memory.free < 21474836481B", 1},
        /* fan speed is not set: unknown */
        {"fan.speed > 50", -1},
        {"fan.speed > 50 or temperature.gpu > 60", 1},
        {"fan.speed > 50 or temperature.gpu > 80", -1},
        {"fan.speed > 50 and temperature.gpu > 80", 0},
        {"fan.speed > 50 and temperature.gpu > 60", -1},
        {"not fan.speed > 50", -1},
        {"not temperature.gpu > 80", 1},
        {"(temperature.gpu > 80 or power.draw > 250W) and not gpu.lost", 1},
        {"throttle.thermal", 0},
        {"gpu.lost", 0},
        {"driver.lost", 0},
        {"xid > 0", 0},
        {"procs.count == 0", 1},
        {"ecc.uncorrected.new > 0", -1}, /* no counters on this GPU */
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        int got = eval(cases[i].cond, s);
        if (got != cases[i].want)
            fail_msg("\"%s\": got %d, want %d", cases[i].cond, got, cases[i].want);
    }
    gm_snapshot_unref(s);
}

/* A value the GPU never reports (not supported) makes a comparison false,
 * not unknown: "x >= 92 or margin <= 0" must be able to end on a GPU that
 * has no slowdown threshold. */
static void test_eval_unsupported(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    s->gpus[0].m[GM_M_TEMP_SLOWDOWN] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    assert_int_equal(eval("temperature.margin <= 0", s), 0);
    assert_int_equal(eval("temperature.gpu >= 92 or temperature.margin <= 0", s), 0);
    assert_int_equal(eval("temperature.gpu >= 60 or temperature.margin <= 0", s), 1);
    assert_int_equal(eval("temperature.gpu < 90 and not temperature.margin < 3", s), 1);
    /* not reported *now* (N/A, lost, error) stays unknown */
    s->gpus[0].m[GM_M_TEMP_SLOWDOWN] = gm_v_status(GM_VS_NA, 0);
    assert_int_equal(eval("temperature.gpu >= 92 or temperature.margin <= 0", s), -1);
    gm_snapshot_unref(s);
}

/* diagnosis.<cause>: unknown where no diagnosis runs, then the cause's bit;
 * a '-' inside a name is part of it, and a misspelt cause is an error. */
static void test_diagnosis_operand(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    assert_int_equal(eval("diagnosis.input-starved", s), -1);
    assert_int_equal(eval("diagnosis.input-starved or temperature.gpu > 60", s), 1);
    s->gpus[0].diag_known = 1;
    assert_int_equal(eval("diagnosis.input-starved", s), 0);
    s->gpus[0].diag = 1u << GM_CAUSE_INPUT_STARVED | 1u << GM_CAUSE_GPU_LOST;
    assert_int_equal(eval("diagnosis.input-starved", s), 1);
    assert_int_equal(eval("diagnosis.input-starved == 1 and not diagnosis.thermal-throttle", s),
                     1);
    assert_int_equal(eval("diagnosis.gpu-lost>0", s), 1);
    assert_int_equal(eval("diagnosis.memory-growth", s), 0);
    assert_int_equal(eval("temperature.margin > -5", s), 1); /* a minus still makes a number */
    struct gm_rule_expr e;
    char why[256];
    assert_int_not_equal(gm_rule_parse("diagnosis.input-starvd", GM_RS_GPU, &e, why, sizeof(why)),
                         0);
    assert_non_null(strstr(why, "\"diagnosis.input-starvd\""));
    assert_int_not_equal(gm_rule_parse("diagnosis.gpu-", GM_RS_GPU, &e, why, sizeof(why)), 0);
    gm_snapshot_unref(s);
}

static void test_derived(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    struct gm_gpu *g = &s->gpus[0];
    struct gm_rule_ctx cx = {.s = s, .g = g};
    double v;
    /* throttle classes from the reason bits */
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x20); /* sw thermal */
    assert_int_equal(gm_rule_operand_value(GM_OP_THROTTLE_THERMAL, &cx, &v), GM_VS_OK);
    assert_true(v == 1);
    assert_int_equal(gm_rule_operand_value(GM_OP_THROTTLE_POWER_BRAKE, &cx, &v), GM_VS_OK);
    assert_true(v == 0);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x80 | 0x4);
    gm_rule_operand_value(GM_OP_THROTTLE_POWER_BRAKE, &cx, &v);
    assert_true(v == 1);
    gm_rule_operand_value(GM_OP_THROTTLE_POWER_CAP, &cx, &v);
    assert_true(v == 1);
    char text[64];
    gm_rule_value_text(GM_OP_THROTTLE_POWER_BRAKE, 1, &cx, text, sizeof(text));
    assert_string_equal(text, "sw_power_cap,hw_power_brake_slowdown");

    /* new uncorrectable errors: against the previous sample; aggregate first */
    g->m[GM_M_ECC_UNCORR_AGG] = gm_v_u64(7);
    g->m[GM_M_ECC_UNCORR_VOL] = gm_v_u64(2);
    assert_int_equal(gm_rule_operand_value(GM_OP_ECC_NEW, &cx, &v), GM_VS_NA); /* first */
    cx.prev_agg_ok = 1;
    cx.prev_agg = 5;
    assert_int_equal(gm_rule_operand_value(GM_OP_ECC_NEW, &cx, &v), GM_VS_OK);
    assert_true(v == 2);
    /* only a volatile counter, reset by a driver reload: what it holds is new */
    g->m[GM_M_ECC_UNCORR_AGG] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    cx.prev_agg_ok = 0;
    cx.prev_vol_ok = 1;
    cx.prev_vol = 9;
    assert_int_equal(gm_rule_operand_value(GM_OP_ECC_NEW, &cx, &v), GM_VS_OK);
    assert_true(v == 2);

    /* a lost GPU */
    g->state = GM_GPU_LOST;
    assert_int_equal(gm_rule_operand_value(GM_OP_GPU_LOST, &cx, &v), GM_VS_OK);
    assert_true(v == 1);
    gm_rule_value_text(GM_OP_GPU_LOST, v, &cx, text, sizeof(text));
    assert_string_equal(text, "lost");
    g->state = GM_GPU_NOPERM; /* cannot tell */
    assert_int_not_equal(gm_rule_operand_value(GM_OP_GPU_LOST, &cx, &v), GM_VS_OK);
    g->state = GM_GPU_OK;

    /* the driver, for the host */
    s->driver = GM_DRV_NOT_LOADED;
    struct gm_rule_ctx host = {.s = s};
    assert_int_equal(gm_rule_operand_value(GM_OP_DRIVER_LOST, &host, &v), GM_VS_OK);
    assert_true(v == 1);
    gm_rule_value_text(GM_OP_DRIVER_LOST, v, &host, text, sizeof(text));
    assert_string_equal(text, "driver_not_loaded");
    s->driver = GM_DRV_OK;

    /* a power limit of 0 gives no ratio, not infinity */
    g->m[GM_M_POWER_ENFORCED] = gm_v_f64(0);
    g->m[GM_M_POWER_LIMIT] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    assert_int_not_equal(gm_rule_operand_value(GM_OP_POWER_PCT, &cx, &v), GM_VS_OK);
    /* the enforced limit missing: the management limit stands in */
    g->m[GM_M_POWER_ENFORCED] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    g->m[GM_M_POWER_LIMIT] = gm_v_f64(600);
    assert_int_equal(gm_rule_operand_value(GM_OP_POWER_PCT, &cx, &v), GM_VS_OK);
    assert_true(v == 50);
    gm_snapshot_unref(s);
}

static void add_proc(struct gm_snapshot *s, uint32_t pid, int host_state, uint64_t mem)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = 0;
    p.pid = pid;
    p.host_state = (uint8_t)host_state;
    p.used_memory = gm_v_u64(mem);
    gm_snapshot_add_proc_take(s, &p);
    s->gpus[0].proc_first = 0;
    s->gpus[0].nproc++;
}

static void test_dead_memory(void **state)
{
    (void)state;
    struct gm_snapshot *s = snap();
    struct gm_rule_ctx cx = {.s = s, .g = &s->gpus[0]};
    double v;
    assert_int_equal(gm_rule_operand_value(GM_OP_DEAD_MEM, &cx, &v), GM_VS_OK);
    assert_true(v == 0);
    add_proc(s, 100, GM_HS_ALIVE, 1ULL << 30);
    add_proc(s, 101, GM_HS_GONE, 2ULL << 30);
    add_proc(s, 102, GM_HS_ZOMBIE, 4ULL << 30);
    add_proc(s, 4294967295u, GM_HS_GONE, 8ULL << 30); /* above pid_max: not ours */
    cx.g = &s->gpus[0];
    assert_int_equal(gm_rule_operand_value(GM_OP_DEAD_MEM, &cx, &v), GM_VS_OK);
    assert_true(v == (double)(6ULL << 30));
    char text[64];
    gm_rule_value_text(GM_OP_DEAD_MEM, v, &cx, text, sizeof(text));
    assert_string_equal(text, "6.00 GiB");
    assert_int_equal(gm_rule_operand_value(GM_OP_PROCS, &cx, &v), GM_VS_OK);
    assert_true(v == 4);
    /* in a nested PID namespace absence from /proc proves nothing */
    cx.pid_ns_nested = 1;
    assert_int_not_equal(gm_rule_operand_value(GM_OP_DEAD_MEM, &cx, &v), GM_VS_OK);
    cx.pid_ns_nested = 0;
    /* /proc not looked at */
    s->procs[0].host_state = GM_HS_UNKNOWN;
    assert_int_not_equal(gm_rule_operand_value(GM_OP_DEAD_MEM, &cx, &v), GM_VS_OK);
    gm_snapshot_unref(s);
}

static void test_rule_keys(void **state)
{
    (void)state;
    struct gm_rules r;
    gm_rules_defaults(&r);
    int n0 = r.n;
    char why[512];
    /* overriding one key of a default rule keeps the others */
    assert_int_equal(gm_rules_set(&r, "gpu-temperature-high", "for", "3m", why, sizeof(why)), 0);
    assert_int_equal(r.n, n0);
    const struct gm_rule *t = NULL;
    for (int i = 0; i < r.n; i++)
        if (!strcmp(r.rule[i].name, "gpu-temperature-high"))
            t = &r.rule[i];
    assert_non_null(t);
    assert_true(t->for_ns == 180000000000LL);
    assert_string_equal(t->when.text, "temperature.gpu > 85");
    assert_string_equal(t->clear.text, "temperature.gpu < 80");
    /* the same key twice is an error */
    assert_int_not_equal(gm_rules_set(&r, "gpu-temperature-high", "for", "1m", why, sizeof(why)),
                         0);
    assert_non_null(strstr(why, "duplicate key \"for\" in [alert.gpu-temperature-high]"));
    /* a new rule */
    static const struct {
        const char *key, *value, *err;
    } kv[] = {
        {"when", "utilization.gpu < 5 and memory.used > 1GiB", NULL},
        {"samples", "3", NULL},
        {"severity", "critical", NULL},
        {"labels", "team=ml, room = b2", NULL},
        {"summary", "idle {{gpu}} {{value}}", NULL},
        {"repeat", "0", NULL},
        {"severity", "urgent", "duplicate key"},
        {"colour", "red", "unknown key \"colour\" in [alert.idle]"},
    };
    for (size_t i = 0; i < N_ELEM(kv); i++) {
        int rc = gm_rules_set(&r, "idle", kv[i].key, kv[i].value, why, sizeof(why));
        if (kv[i].err) {
            assert_int_not_equal(rc, 0);
            if (!strstr(why, kv[i].err))
                fail_msg("%s = %s: got \"%s\"", kv[i].key, kv[i].value, why);
        } else if (rc != 0) {
            fail_msg("%s = %s: %s", kv[i].key, kv[i].value, why);
        }
    }
    const struct gm_rule *x = &r.rule[r.n - 1];
    assert_string_equal(x->name, "idle");
    assert_int_equal(x->samples, 3);
    assert_int_equal(x->severity, GM_SEV_CRITICAL);
    assert_int_equal(x->nlabels, 2);
    assert_string_equal(x->labels[1].name, "room");
    assert_string_equal(x->labels[1].value, "b2");
    assert_int_equal(gm_rules_check(&r, why, sizeof(why)), 0);

    static const struct {
        const char *key, *value, *err;
    } bad[] = {
        {"labels", "alertname=x", "label \"alertname\" is set by gpumon itself"},
        {"labels", "9lives=x", "invalid label name"},
        {"labels", "novalue", "invalid label \"novalue\""},
        {"for", "soon", "invalid duration \"soon\""},
        {"samples", "0", "invalid sample count"},
        {"scope", "rack", "invalid scope"},
        {"enabled", "maybe", "invalid boolean"},
    };
    for (size_t i = 0; i < N_ELEM(bad); i++) {
        char name[32];
        snprintf(name, sizeof(name), "bad%zu", i);
        assert_int_not_equal(gm_rules_set(&r, name, bad[i].key, bad[i].value, why, sizeof(why)), 0);
        if (!strstr(why, bad[i].err))
            fail_msg("%s = %s: got \"%s\", want \"%s\"", bad[i].key, bad[i].value, why,
                     bad[i].err);
    }
    assert_int_not_equal(gm_rules_set(&r, "bad name", "when", "gpu.lost", why, sizeof(why)), 0);
    assert_non_null(strstr(why, "invalid rule name"));
}

static void test_rule_checks(void **state)
{
    (void)state;
    static const struct {
        const char *kv[6];
        const char *err;
    } cases[] = {
        {{"severity", "critical", NULL}, "[alert.r] has no \"when\" condition"},
        {{"when", "gpu.lost", "for", "1m", "samples", "2"}, "give either \"for\" or \"samples\""},
        {{"when", "xid > 0", "for", "1m", NULL}, "xid is true only at the instant"},
        {{"when", "gpu.lost", "clear", "xid == 0", NULL}, "clear cannot use xid"},
        {{"when", "gpu.lost", "summary", "{{gpu}} {{nope}}", NULL},
         "unknown placeholder \"{{nope}}\""},
        {{"when", "gpu.lost", "summary", "{{gpu", NULL}, "unterminated"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_rules r;
        memset(&r, 0, sizeof(r));
        char why[512];
        for (int k = 0; k < 6 && cases[i].kv[k]; k += 2)
            if (gm_rules_set(&r, "r", cases[i].kv[k], cases[i].kv[k + 1], why, sizeof(why)) != 0)
                fail_msg("case %zu: %s", i, why);
        assert_int_not_equal(gm_rules_check(&r, why, sizeof(why)), 0);
        if (!strstr(why, cases[i].err))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, why, cases[i].err);
    }
}

static void test_defaults(void **state)
{
    (void)state;
    struct gm_rules r;
    gm_rules_defaults(&r);
    static const char *const want[] = {
        "gpu-temperature-high",  "gpu-memory-low", "gpu-power-at-limit", "gpu-throttled",
        "gpu-power-zero",        "gpu-temperature-critical", "gpu-ecc-uncorrectable",
        "gpu-lost",              "driver-lost",    "gpu-xid",
        "gpu-dead-process-memory", "gpu-memory-growth", "gpu-input-starved"};
    assert_int_equal(r.n, (int)N_ELEM(want));
    for (size_t i = 0; i < N_ELEM(want); i++) {
        assert_string_equal(r.rule[i].name, want[i]);
        assert_true(r.rule[i].builtin);
        assert_true(r.rule[i].enabled);
    }
    char why[256];
    assert_int_equal(gm_rules_check(&r, why, sizeof(why)), 0);
    /* the seeds' numbers */
    assert_true(r.rule[0].for_ns == 60000000000LL);
    assert_true(r.rule[1].for_ns == 300000000000LL);
    assert_int_equal(r.rule[5].severity, GM_SEV_CRITICAL);
    assert_int_equal(r.rule[8].scope, GM_RS_HOST);
    /* the dump reads back to the same rules */
    struct gm_buf b = GM_BUF_INIT;
    gm_rules_dump(&r, &b);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "[alert.gpu-memory-low]\nwhen = memory.free < 2GiB and "
                                "memory.free_pct < 10\nfor = 5m\n"));
    assert_non_null(strstr(b.p, "[alert.driver-lost]\nscope = host\nwhen = driver.lost\n"));
    assert_non_null(strstr(b.p, "[alert.gpu-memory-growth]\nwhen = predict(memory.free, 1h, 24h) "
                                "< 0 and slope(memory.used, 10m) > 0\nfor = 15m\n"));
    gm_buf_free(&b);
    /* the windows of the new rules read back as they were written */
    assert_int_equal(gm_rule_window_need(&r.rule[11].when, GM_M_MEM_FREE), 3600);
    assert_int_equal(gm_rule_window_need(&r.rule[12].when, GM_M_UTIL_GPU), 300);
}

/* Reads a gm_rules_dump back, section by section, over the defaults. */
static void read_dump(struct gm_rules *r, char *text)
{
    char name[64] = "";
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        if (!*line)
            continue;
        if (!strncmp(line, "[alert.", 7)) {
            snprintf(name, sizeof(name), "%.*s", (int)strlen(line) - 8, line + 7);
            continue;
        }
        char *eq = strstr(line, " = ");
        assert_non_null(eq);
        *eq = '\0';
        char why[512];
        if (gm_rules_set(r, name, line, eq + 3, why, sizeof(why)) != 0)
            fail_msg("[alert.%s] %s: %s", name, line, why);
    }
}

/* config show's rules read back to the same rules, also where a file set
 * a default rule's key to the value a new rule starts with (found by
 * tests/fuzz/fuzz_config: "keep-firing-for = 0" of gpu-ecc-uncorrectable
 * was left out of the dump, which then read back with 1h). */
static void test_dump_reads_back(void **state)
{
    (void)state;
    static const struct {
        const char *rule, *kv[6];
    } cases[] = {
        {"gpu-ecc-uncorrectable", {"keep-firing-for", "0", NULL}},
        {"driver-lost", {"scope", "gpu", NULL}},
        {"gpu-temperature-high", {"samples", "3", "severity", "critical", NULL}},
        {"gpu-lost", {"enabled", "false", "labels", "team=ml", NULL}},
        {"mine", {"when", "driver.lost", "scope", "host", "keep-firing-for", "1m"}},
        {"mine2", {"when", "gpu.lost", "clear", "not gpu.lost", "for", "90s"}},
        /* durations finer than a millisecond were shown as whole ones */
        {"gpu-throttled", {"for", "1us", "repeat", "1.5ms", "keep-firing-for", "0.001us"}},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_rules r, back;
        char why[512];
        gm_rules_defaults(&r);
        for (int k = 0; k < 6 && cases[i].kv[k]; k += 2)
            if (gm_rules_set(&r, cases[i].rule, cases[i].kv[k], cases[i].kv[k + 1], why,
                             sizeof(why)) != 0)
                fail_msg("%s: %s", cases[i].rule, why);
        assert_int_equal(gm_rules_check(&r, why, sizeof(why)), 0);
        struct gm_buf a = GM_BUF_INIT, b = GM_BUF_INIT;
        gm_rules_dump(&r, &a);
        gm_buf_putc(&a, '\0');
        gm_rules_defaults(&back);
        char *text = gm_xstrdup(a.p);
        read_dump(&back, text);
        free(text);
        gm_rules_dump(&back, &b);
        gm_buf_putc(&b, '\0');
        if (strcmp(a.p, b.p) != 0)
            fail_msg("%s: the dump reads back as\n%s\ninstead of\n%s", cases[i].rule, b.p, a.p);
        gm_buf_free(&a);
        gm_buf_free(&b);
    }
}

/* scope = host checks clear as well as when: a host rule is evaluated
 * without a GPU, where a per-GPU clear is never known, so the alert could
 * never resolve (and config show's output, which puts scope first, did not
 * load). */
static void test_scope_checks_clear(void **state)
{
    (void)state;
    struct gm_rules r;
    char why[512];
    memset(&r, 0, sizeof(r));
    assert_int_equal(gm_rules_set(&r, "h", "when", "driver.lost", why, sizeof(why)), 0);
    assert_int_equal(gm_rules_set(&r, "h", "clear", "temperature.gpu < 5", why, sizeof(why)), 0);
    assert_int_not_equal(gm_rules_set(&r, "h", "scope", "host", why, sizeof(why)), 0);
    if (!strstr(why, "scope = host does not fit clear: temperature.gpu is a per-GPU value"))
        fail_msg("got \"%s\"", why);
    /* the other order was refused already */
    memset(&r, 0, sizeof(r));
    assert_int_equal(gm_rules_set(&r, "h", "scope", "host", why, sizeof(why)), 0);
    assert_int_not_equal(gm_rules_set(&r, "h", "clear", "temperature.gpu < 5", why, sizeof(why)),
                         0);
    /* a host clear is fine */
    memset(&r, 0, sizeof(r));
    assert_int_equal(gm_rules_set(&r, "h", "when", "driver.lost", why, sizeof(why)), 0);
    assert_int_equal(gm_rules_set(&r, "h", "clear", "not driver.lost", why, sizeof(why)), 0);
    assert_int_equal(gm_rules_set(&r, "h", "scope", "host", why, sizeof(why)), 0);
}

static void test_summary(void **state)
{
    (void)state;
    struct gm_rule r;
    memset(&r, 0, sizeof(r));
    snprintf(r.summary, sizeof(r.summary), "{{rule}}/{{severity}}: GPU {{gpu}} {{name}} "
                                           "{{uuid}} {{bus}} on {{host}} at {{value}} ({{condition}}) {{");
    struct gm_alert a;
    memset(&a, 0, sizeof(a));
    snprintf(a.rule, sizeof(a.rule), "hot");
    a.severity = GM_SEV_CRITICAL;
    a.gpu = 3;
    snprintf(a.gpu_name, sizeof(a.gpu_name), "H100");
    snprintf(a.host, sizeof(a.host), "node7");
    snprintf(a.value_text, sizeof(a.value_text), "93 °C");
    snprintf(a.condition, sizeof(a.condition), "temperature.gpu >= 92");
    char out[512];
    gm_rule_summary(&r, &a, out, sizeof(out));
    assert_string_equal(out, "hot/critical: GPU 3 H100 ? ? on node7 at 93 °C "
                             "(temperature.gpu >= 92) {{");
    a.gpu = -1;
    a.value_text[0] = '\0';
    snprintf(r.summary, sizeof(r.summary), "{{gpu}} {{value}}");
    gm_rule_summary(&r, &a, out, sizeof(out));
    assert_string_equal(out, "(host) N/A");
    /* truncation is bounded */
    char small[8];
    gm_rule_summary(&r, &a, small, sizeof(small));
    assert_int_equal(strlen(small), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_host_scope),
        cmocka_unit_test(test_eval_three_valued), cmocka_unit_test(test_eval_unsupported),
        cmocka_unit_test(test_derived), cmocka_unit_test(test_eval_windows),
        cmocka_unit_test(test_dead_memory), cmocka_unit_test(test_rule_keys),
        cmocka_unit_test(test_rule_checks), cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_summary), cmocka_unit_test(test_dump_reads_back),
        cmocka_unit_test(test_scope_checks_clear), cmocka_unit_test(test_diagnosis_operand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

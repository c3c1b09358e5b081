/* test_engine.c -- alert states and transitions (src/alert/engine.c):
 * for, samples, clear (hysteresis), keep-firing-for, repeat, unknown values,
 * Xid events, reloads that keep state, and the cron state file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "alert/engine.h"
#include "core/metrics.h"
#include "core/snapshot.h"

#define SEC 1000000000LL
#define MAXN 64

struct rec {
    int n;
    struct gm_alert a[MAXN];
};

static void record(void *arg, const struct gm_alert *a)
{
    struct rec *r = arg;
    if (r->n < MAXN)
        r->a[r->n++] = *a;
}

/* A snapshot of ngpu GPUs at temperature temp (a negative temp: unknown). */
static struct gm_snapshot *snap(int ngpu, int temp, int64_t t)
{
    struct gm_snapshot *s = gm_snapshot_new();
    gm_snapshot_set_gpus(s, (uint32_t)ngpu);
    s->wall_ns = 1700000000LL * SEC + t;
    s->mono_ns = t;
    snprintf(s->hostname, sizeof(s->hostname), "node1");
    for (int i = 0; i < ngpu; i++) {
        struct gm_gpu *g = &s->gpus[i];
        g->index = (uint32_t)i;
        snprintf(g->str[GM_S_UUID], GM_STR_MAX, "GPU-%d", i);
        snprintf(g->str[GM_S_NAME], GM_STR_MAX, "Test");
        g->m[GM_M_TEMP_GPU] = temp >= 0 ? gm_v_u64((uint64_t)temp) : gm_v_status(GM_VS_ERROR, 999);
    }
    return s;
}

static struct gm_engine *engine(const char *const *kv)
{
    struct gm_rules r;
    memset(&r, 0, sizeof(r));
    char why[256];
    for (int i = 0; kv[i]; i += 2)
        if (gm_rules_set(&r, "hot", kv[i], kv[i + 1], why, sizeof(why)) != 0)
            fail_msg("%s = %s: %s", kv[i], kv[i + 1], why);
    if (gm_rules_check(&r, why, sizeof(why)) != 0)
        fail_msg("%s", why);
    return gm_engine_new(&r);
}

/* Feeds one temperature per 10 s step; returns the index of the step of
 * each notice in steps[] ("F" firing, "R" resolved, "P" repeat). */
static void run(struct gm_engine *e, const int *temps, int n, char *trace, size_t len)
{
    struct rec r = {0};
    size_t o = 0;
    trace[0] = '\0';
    for (int i = 0; i < n; i++) {
        int before = r.n;
        struct gm_snapshot *s = snap(1, temps[i], i * 10 * SEC);
        gm_engine_eval(e, s, s->mono_ns, record, &r);
        gm_snapshot_unref(s);
        for (int k = before; k < r.n; k++)
            o += (size_t)snprintf(trace + o, len - o, "%s%c@%d", o ? " " : "",
                                  r.a[k].state == GM_AL_RESOLVED ? 'R'
                                  : r.a[k].repeat                ? 'P'
                                                                 : 'F',
                                  i);
    }
}

static void test_for(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", "for", "30s", "repeat", "0",
                                     NULL};
    struct gm_engine *e = engine(kv);
    /* pending from step 1 (t=10); t - t0 >= 30 s at step 4; a gap at 6 ends it */
    const int temps[] = {80, 86, 87, 88, 90, 91, 84, 86, 86, 86, 86, 80};
    char trace[256];
    run(e, temps, 12, trace, sizeof(trace));
    assert_string_equal(trace, "F@4 R@6 F@10 R@11");
    gm_engine_free(e);
}

static void test_pending_interrupted(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", "for", "30s", NULL};
    struct gm_engine *e = engine(kv);
    /* spikes never last 30 s: nothing fires (the seeds' one-sample spikes) */
    const int temps[] = {86, 80, 86, 86, 80, 86, 86, 86, 80, 95, 70};
    char trace[256];
    run(e, temps, 11, trace, sizeof(trace));
    assert_string_equal(trace, "");
    gm_engine_free(e);
}

static void test_samples(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", "samples", "3", NULL};
    struct gm_engine *e = engine(kv);
    const int temps[] = {86, 86, 80, 86, 86, 86, 86, 70};
    char trace[256];
    run(e, temps, 8, trace, sizeof(trace));
    assert_string_equal(trace, "F@5 R@7");
    gm_engine_free(e);
}

static void test_hysteresis(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", "clear",
                                     "temperature.gpu < 80", NULL};
    struct gm_engine *e = engine(kv);
    const int temps[] = {90, 83, 84, 86, 81, 79, 83};
    char trace[256];
    run(e, temps, 7, trace, sizeof(trace));
    assert_string_equal(trace, "F@0 R@5");
    gm_engine_free(e);
}

static void test_unknown(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", "for", "20s", NULL};
    struct gm_engine *e = engine(kv);
    /* unknown breaks a pending run; it never resolves a firing alert */
    const int temps[] = {90, -1, 90, 90, 90, -1, -1, 90, 70};
    char trace[256];
    run(e, temps, 9, trace, sizeof(trace));
    assert_string_equal(trace, "F@4 R@8");
    gm_engine_free(e);
}

static void test_keep_firing_and_repeat(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "when", "temperature.gpu > 85", "keep-firing-for", "25s", "repeat", "20s", NULL};
    struct gm_engine *e = engine(kv);
    /* fires at 0; repeats every 20 s (2, 4, and 6: kept firing is firing); the
     * condition ends at 5, keeps firing while t - last true (40 s) < 25 s:
     * resolves at step 7 (70 s) */
    const int temps[] = {90, 90, 90, 90, 90, 70, 70, 70, 70};
    char trace[256];
    run(e, temps, 9, trace, sizeof(trace));
    assert_string_equal(trace, "F@0 P@2 P@4 P@6 R@7");
    gm_engine_free(e);
}

static void test_notice_fields(void **state)
{
    (void)state;
    static const char *const kv[] = {
        "when",    "temperature.gpu > 85", "severity", "critical", "labels", "team=ml",
        "summary", "{{gpu}} at {{value}}", NULL};
    struct gm_engine *e = engine(kv);
    struct rec r = {0};
    struct gm_snapshot *s = snap(2, 88, 5 * SEC);
    s->gpus[0].m[GM_M_TEMP_GPU] = gm_v_u64(70);
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 1);
    const struct gm_alert *a = &r.a[0];
    assert_string_equal(a->rule, "hot");
    assert_int_equal(a->state, GM_AL_FIRING);
    assert_int_equal(a->severity, GM_SEV_CRITICAL);
    assert_int_equal(a->gpu, 1);
    assert_string_equal(a->uuid, "GPU-1");
    assert_string_equal(a->host, "node1");
    assert_string_equal(a->value_text, "88 °C");
    assert_string_equal(a->summary, "1 at 88 °C");
    assert_string_equal(a->condition, "temperature.gpu > 85");
    assert_int_equal(a->nlabels, 1);
    assert_string_equal(a->labels[0].name, "team");
    assert_true(a->active_ns == 1700000000LL * SEC + 5 * SEC);
    assert_true(a->fired_ns == a->active_ns);
    assert_int_equal(strlen(a->fingerprint), 16);
    /* the same alert keeps its fingerprint; another GPU has another */
    char fp[17];
    memcpy(fp, a->fingerprint, sizeof(fp));
    s = snap(2, 70, 15 * SEC);
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.a[1].state, GM_AL_RESOLVED);
    assert_string_equal(r.a[1].fingerprint, fp);
    assert_string_equal(r.a[1].value_text, "70 °C");
    assert_true(r.a[1].resolved_ns == 1700000000LL * SEC + 15 * SEC);

    /* JSON of the states */
    struct gm_buf b = GM_BUF_INIT;
    gm_engine_json(e, &b);
    gm_buf_putc(&b, '\0');
    assert_string_equal(b.p, "{\"rules\":1,\"alerts\":[]}");
    gm_buf_free(&b);
    gm_engine_free(e);
}

static void test_xid(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "xid > 0 and xid != 13", "keep-firing-for", "30s",
                                     NULL};
    struct gm_engine *e = engine(kv);
    struct rec r = {0};
    struct gm_snapshot *s = snap(2, 50, 0);
    gm_engine_eval(e, s, 0, record, &r);
    gm_snapshot_unref(s);
    gm_engine_xid(e, 1, "GPU-1", 13, 1, 2 * SEC, record, &r); /* an application's Xid */
    assert_int_equal(r.n, 0);
    gm_engine_xid(e, -1, "GPU-1", 79, 1, 3 * SEC, record, &r); /* found by UUID */
    assert_int_equal(r.n, 1);
    assert_int_equal(r.a[0].gpu, 1);
    assert_string_equal(r.a[0].value_text, "Xid 79");
    for (int i = 1; i <= 4; i++) {
        s = snap(2, 50, i * 10 * SEC);
        gm_engine_eval(e, s, s->mono_ns, record, &r);
        gm_snapshot_unref(s);
    }
    /* last true at 3 s; resolves at the first sample >= 33 s: 40 s */
    assert_int_equal(r.n, 2);
    assert_int_equal(r.a[1].state, GM_AL_RESOLVED);
    assert_true(r.a[1].resolved_ns == 1700000000LL * SEC + 40 * SEC);
    /* the resolved notice names the Xid that fired it, not the 0 of the
     * sample that ended it */
    assert_string_equal(r.a[1].value_text, "Xid 79");
    gm_engine_free(e);
}

static void test_reload(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", NULL};
    struct gm_engine *e = engine(kv);
    struct rec r = {0};
    struct gm_snapshot *s = snap(1, 90, 0);
    gm_engine_eval(e, s, 0, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 1);

    /* the same rule (and another one added): the state is kept, no notice */
    struct gm_rules rules;
    memset(&rules, 0, sizeof(rules));
    char why[256];
    gm_rules_set(&rules, "hot", "when", "temperature.gpu > 85", why, sizeof(why));
    gm_rules_set(&rules, "lost", "when", "gpu.lost", why, sizeof(why));
    gm_engine_set_rules(e, &rules, 1, record, &r);
    assert_int_equal(r.n, 1);
    int pending, firing;
    gm_engine_counts(e, &pending, &firing);
    assert_int_equal(firing, 1);
    s = snap(1, 90, 10 * SEC);
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 1); /* still firing, not fired again */

    /* resync: every firing alert again, marked repeat 2 */
    gm_engine_resync(e, 2, record, &r);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.a[1].repeat, 2);

    /* the rule changed: its alert resolves, and it starts afresh */
    memset(&rules, 0, sizeof(rules));
    gm_rules_set(&rules, "hot", "when", "temperature.gpu > 95", why, sizeof(why));
    gm_engine_set_rules(e, &rules, 3, record, &r);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.a[2].state, GM_AL_RESOLVED);
    gm_engine_counts(e, &pending, &firing);
    assert_int_equal(firing, 0);
    gm_engine_free(e);
}

/* A reload with the rule unchanged keeps the repeat timer running: the
 * repeat comes a full interval after the firing, not after the reload. */
static void test_reload_keeps_repeat_timer(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "temperature.gpu > 85", "repeat", "1m", NULL};
    struct gm_engine *e = engine(kv);
    struct rec r = {0};
    int64_t t[] = {0, 30, 50, 60, 90, 120};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (t[i] == 50) { /* reload at 40 s, between the samples */
            struct gm_rules rules;
            memset(&rules, 0, sizeof(rules));
            char why[256];
            for (int k = 0; kv[k]; k += 2)
                gm_rules_set(&rules, "hot", kv[k], kv[k + 1], why, sizeof(why));
            gm_engine_set_rules(e, &rules, 40 * SEC, record, &r);
            assert_int_equal(r.n, 1); /* no notice */
        }
        struct gm_snapshot *s = snap(1, 90, t[i] * SEC);
        gm_engine_eval(e, s, s->mono_ns, record, &r);
        gm_snapshot_unref(s);
        if (t[i] == 50)
            assert_int_equal(r.n, 1);
        if (t[i] == 60) {
            assert_int_equal(r.n, 2);
            assert_int_equal(r.a[1].repeat, 1);
        }
        if (t[i] == 90)
            assert_int_equal(r.n, 2);
    }
    assert_int_equal(r.n, 3); /* the next repeat at 120 s */
    assert_int_equal(r.a[2].repeat, 1);
    gm_engine_free(e);
}

static void test_state_file(void **state)
{
    (void)state;
    char path[] = "/tmp/gpumon-test-engine-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    static const char *const kv[] = {"when", "temperature.gpu > 85", "samples", "3", NULL};
    /* three "cron runs", each a new engine with the state file between */
    const int temps[] = {90, 90, 90, 70};
    const char *want[] = {"", "", "F", "R"};
    for (int run_ = 0; run_ < 4; run_++) {
        struct gm_engine *e = engine(kv);
        struct gm_err err = {0};
        int rc = gm_engine_load(e, path, &err);
        assert_int_equal(rc, run_ == 0 ? GM_E_NOTFOUND : 0);
        struct rec r = {0};
        struct gm_snapshot *s = snap(1, temps[run_], run_ * 60 * SEC);
        gm_engine_eval(e, s, s->wall_ns, record, &r);
        gm_snapshot_unref(s);
        const char *got = r.n == 0 ? "" : r.a[0].state == GM_AL_FIRING ? "F" : "R";
        if (strcmp(got, want[run_]) != 0)
            fail_msg("run %d: got \"%s\", want \"%s\"", run_, got, want[run_]);
        if (run_ == 3)
            assert_string_equal(r.a[0].value_text, "70 °C");
        assert_int_equal(gm_engine_save(e, path, &err), 0);
        gm_engine_free(e);
    }
    /* a changed rule does not inherit the state */
    FILE *f = fopen(path, "w");
    fputs("gpumon-alert-state 1\n", f);
    fclose(f);
    struct gm_engine *e = engine(kv);
    struct gm_err err = {0};
    assert_int_equal(gm_engine_load(e, path, &err), 0);
    /* a broken file names its line */
    f = fopen(path, "w");
    fputs("gpumon-alert-state 1\nst nonsense\n", f);
    fclose(f);
    assert_int_equal(gm_engine_load(e, path, &err), GM_E_INVAL);
    assert_non_null(strstr(err.msg, ":2: malformed line"));
    f = fopen(path, "w");
    fputs("something else\n", f);
    fclose(f);
    assert_int_equal(gm_engine_load(e, path, &err), GM_E_INVAL);
    assert_non_null(strstr(err.msg, "not a gpumon alert state file"));
    gm_engine_free(e);
    unlink(path);
}

static void test_lost_identity(void **state)
{
    (void)state;
    /* a GPU seen with its UUID, then lost without one: the same alert state */
    static const char *const kv[] = {"when", "gpu.lost", NULL};
    struct gm_engine *e = engine(kv);
    struct rec r = {0};
    struct gm_snapshot *s = snap(1, 50, 0);
    gm_engine_eval(e, s, 0, record, &r);
    gm_snapshot_unref(s);
    s = snap(1, 50, 10 * SEC);
    s->gpus[0].state = GM_GPU_LOST;
    s->gpus[0].str[GM_S_UUID][0] = '\0';
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    s = snap(1, 50, 20 * SEC);
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.a[0].uuid, "GPU-0"); /* remembered */
    assert_int_equal(r.a[1].state, GM_AL_RESOLVED);
    gm_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_for),
        cmocka_unit_test(test_pending_interrupted),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_keep_firing_and_repeat),
        cmocka_unit_test(test_notice_fields),
        cmocka_unit_test(test_xid),
        cmocka_unit_test(test_reload_keeps_repeat_timer),
        cmocka_unit_test(test_reload),
        cmocka_unit_test(test_state_file),
        cmocka_unit_test(test_lost_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include <math.h>

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

/* ---------------------------------------------------------- windows */

/* A pseudo-random value in [0, 100) for sample i (repeatable). */
static double noise(int i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (double)(x % 10000) / 100.0;
}

/* What each function should give over samples (t[i], v[i]), i < n, with
 * t[i] >= tq - w: computed the plain way. */
static int brute(const double *t, const double *v, int n, double tq, double w, int fn,
                 double *out)
{
    double sum = 0, mn = 1e300, mx = -1e300, m = 0, st = 0;
    for (int i = 0; i < n; i++)
        if (t[i] >= tq - w) {
            sum += v[i];
            st += t[i];
            mn = v[i] < mn ? v[i] : mn;
            mx = v[i] > mx ? v[i] : mx;
            m++;
        }
    if (m == 0)
        return -1;
    double mean = sum / m, tm = st / m, var = 0, sxy = 0, sxx = 0;
    for (int i = 0; i < n; i++)
        if (t[i] >= tq - w) {
            var += (v[i] - mean) * (v[i] - mean);
            sxy += (t[i] - tm) * (v[i] - mean);
            sxx += (t[i] - tm) * (t[i] - tm);
        }
    switch (fn) {
    case GM_WF_AVG:
        *out = mean;
        return 0;
    case GM_WF_MIN:
        *out = mn;
        return 0;
    case GM_WF_MAX:
        *out = mx;
        return 0;
    case GM_WF_STDDEV:
        *out = sqrt(var / m);
        return m < 2 ? -1 : 0;
    default:
        if (m < 2)
            return -1;
        *out = sxy / sxx * 60;
        return 0;
    }
}

static void test_window_functions(void **state)
{
    (void)state;
    /* 10 s samples, a 2-minute window: every sample has its own bucket, and
     * each function equals the plain computation over [t - 2m, t] */
    const int64_t w = 120 * SEC;
    struct gm_window *win = gm_window_new(w / GM_WINDOW_BUCKETS);
    double t[100], v[100];
    for (int i = 0; i < 100; i++) {
        t[i] = i * 10.0;
        v[i] = noise(i) + 1e3;
        gm_window_add(win, (int64_t)i * 10 * SEC, 1, v[i], w);
        for (int fn = GM_WF_AVG; fn <= GM_WF_SLOPE; fn++) {
            double got = 0, want = 0;
            int rc = gm_window_eval(win, fn, w, 0, &got);
            if (i < 6) { /* 60 s is half of the window: unknown before */
                assert_int_equal(rc, -1);
                continue;
            }
            assert_int_equal(rc, 0);
            assert_int_equal(brute(t, v, i + 1, t[i], 120, fn, &want), 0);
            if (fabs(got - want) > 1e-9 * (1 + fabs(want)))
                fail_msg("sample %d, %s: %.12g, want %.12g", i, gm_window_fn_name(fn), got, want);
        }
        /* only what a window can reach is kept */
        assert_true(gm_window_len(win) <= 14);
    }
    gm_window_free(win);
}

static void test_window_coverage_and_gaps(void **state)
{
    (void)state;
    const int64_t w = 60 * SEC;
    struct gm_window *win = gm_window_new(w / GM_WINDOW_BUCKETS);
    double x;
    /* partial coverage: unknown until the run reaches back 30 s */
    for (int i = 0; i <= 3; i++) {
        gm_window_add(win, (int64_t)i * 10 * SEC, 1, 50, w);
        assert_int_equal(gm_window_eval(win, GM_WF_AVG, w, 0, &x), i < 3 ? -1 : 0);
    }
    /* one missed sample (20 s) is not a gap: the run goes on */
    gm_window_add(win, 50 * SEC, 1, 80, w);
    assert_int_equal(gm_window_eval(win, GM_WF_MAX, w, 0, &x), 0);
    assert_true(x == 80);
    /* two in a row (30 s) are: the window restarts with this sample */
    gm_window_add(win, 80 * SEC, 1, 20, w);
    assert_int_equal(gm_window_eval(win, GM_WF_AVG, w, 0, &x), -1);
    gm_window_add(win, 90 * SEC, 1, 20, w);
    gm_window_add(win, 100 * SEC, 1, 20, w);
    gm_window_add(win, 110 * SEC, 1, 20, w);
    assert_int_equal(gm_window_eval(win, GM_WF_MAX, w, 0, &x), 0);
    assert_true(x == 20); /* 80 at 50 s is in [50, 110] but before the gap */
    /* a value that is not known restarts it */
    gm_window_add(win, 120 * SEC, 0, 0, w);
    assert_int_equal(gm_window_eval(win, GM_WF_AVG, w, 0, &x), -1);
    for (int i = 13; i <= 16; i++)
        gm_window_add(win, (int64_t)i * 10 * SEC, 1, 30, w);
    assert_int_equal(gm_window_eval(win, GM_WF_AVG, w, 0, &x), 0);
    assert_true(x == 30);
    /* so does time going back (an agent whose clock restarted) */
    gm_window_add(win, 100 * SEC, 1, 40, w);
    assert_int_equal(gm_window_eval(win, GM_WF_AVG, w, 0, &x), -1);
    /* one sample: no stddev, no slope */
    struct gm_window *one = gm_window_new(1);
    gm_window_add(one, 0, 1, 5, 0);
    assert_int_equal(gm_window_eval(one, GM_WF_AVG, SEC, 0, &x), -1);
    assert_int_equal(gm_window_eval(one, GM_WF_AVG, 0, 0, &x), 0);
    assert_int_equal(gm_window_eval(one, GM_WF_STDDEV, 0, 0, &x), -1);
    assert_int_equal(gm_window_eval(one, GM_WF_SLOPE, 0, 0, &x), -1);
    gm_window_free(one);
    gm_window_free(win);
}

static void test_window_slope_long(void **state)
{
    (void)state;
    /* a 20 MiB/min leak on 60 GiB, +-5 MiB of noise, every 10 s for 12 h,
     * seen through a 6 h window: buckets of 21.6 s (2 samples each), never
     * more than GM_WINDOW_BUCKETS + 2 of them */
    const double MiB = 1048576.0;
    const int64_t w = 6 * 3600 * SEC;
    struct gm_window *win = gm_window_new(w / GM_WINDOW_BUCKETS);
    double x;
    for (int i = 0; i <= 12 * 360; i++) {
        double tmin = i / 6.0;
        double v = 60.0 * 1024 * MiB + 20 * MiB * tmin + (noise(i) - 50) / 10 * MiB;
        gm_window_add(win, (int64_t)i * 10 * SEC, 1, v, w);
        assert_true(gm_window_len(win) <= GM_WINDOW_BUCKETS + 2);
        if (i < 3 * 360) {
            assert_int_equal(gm_window_eval(win, GM_WF_SLOPE, w, 0, &x), -1);
            continue;
        }
        assert_int_equal(gm_window_eval(win, GM_WF_SLOPE, w, 0, &x), 0);
        if (fabs(x / MiB - 20) > 0.01)
            fail_msg("sample %d: slope %.4f MiB/min, want 20 +- 0.01", i, x / MiB);
    }
    assert_true(gm_window_len(win) >= 1000); /* the whole 6 h is there */
    /* in 24 h at 20 MiB/min: 28800 MiB more than the line is at now */
    double now = 60.0 * 1024 * MiB + 20 * MiB * 720;
    assert_int_equal(gm_window_eval(win, GM_WF_PREDICT, w, 24 * 3600 * SEC, &x), 0);
    if (fabs((x - now) / MiB - 28800) > 30)
        fail_msg("predict: %.1f MiB above now, want 28800 +- 30", (x - now) / MiB);
    /* a short window on the same history works on whole buckets */
    assert_int_equal(gm_window_eval(win, GM_WF_SLOPE, 600 * SEC, 0, &x), 0);
    if (fabs(x / MiB - 20) > 2)
        fail_msg("10-minute slope %.3f MiB/min, want 20 +- 2", x / MiB);
    gm_window_free(win);
}

static void test_engine_windows(void **state)
{
    (void)state;
    static const char *const kv[] = {"when", "avg(temperature.gpu, 1m) > 80", NULL};
    struct gm_engine *e = engine(kv);
    /* 100 and 70 in turn: the current value is above 80 every other sample,
     * the average always.  Known from 30 s (half the window): firing at
     * step 3.  The unknown sample at 60 s restarts the window: unknown does
     * not resolve; the new run is known again at 100 s, where it is 70. */
    const int temps[] = {100, 70, 100, 70, 100, 70, -1, 70, 70, 70, 70, 70};
    char trace[256];
    run(e, temps, 12, trace, sizeof(trace));
    assert_string_equal(trace, "F@3 R@10");
    gm_engine_free(e);

    /* the notice carries the window's value, in the operand's unit */
    static const char *const kv2[] = {"when", "max(temperature.gpu, 20s) >= 90", NULL};
    e = engine(kv2);
    struct rec r = {0};
    for (int i = 0; i < 3; i++) {
        struct gm_snapshot *s = snap(2, i == 1 ? 95 : 60, i * 10 * SEC);
        gm_engine_eval(e, s, s->mono_ns, record, &r);
        gm_snapshot_unref(s);
    }
    assert_int_equal(r.n, 2);
    assert_int_equal(r.a[0].gpu, 0);
    assert_int_equal(r.a[1].gpu, 1);
    assert_string_equal(r.a[0].value_text, "95 °C");
    assert_true(r.a[0].value == 95);

    /* a reload keeps the history of a value whose longest window is
     * unchanged; another rule with a longer window on it restarts it */
    struct gm_rules rs;
    memset(&rs, 0, sizeof(rs));
    char why[256];
    assert_int_equal(gm_rules_set(&rs, "hot", "when", "max(temperature.gpu, 20s) >= 90", why,
                                  sizeof(why)),
                     0);
    assert_int_equal(gm_rules_set(&rs, "hot2", "when", "min(temperature.gpu, 20s) >= 95", why,
                                  sizeof(why)),
                     0);
    gm_engine_set_rules(e, &rs, 0, record, &r);
    struct gm_snapshot *s = snap(2, 95, 30 * SEC);
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    /* hot2 is false (60 at 20 s is in the window): the history was kept */
    assert_int_equal(r.n, 2);
    assert_int_equal(gm_rules_set(&rs, "hot3", "when", "avg(temperature.gpu, 1h) > 0", why,
                                  sizeof(why)),
                     0);
    gm_engine_set_rules(e, &rs, 0, record, &r);
    s = snap(2, 95, 40 * SEC);
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 2); /* restarted: one sample covers no window */
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
    /* the live page's copy of what fires now (gm_engine_active) */
    struct gm_alert_now now[2];
    memset(now, 0xa5, sizeof(now));
    assert_int_equal(gm_engine_active(e, now, 0), 1); /* counted, nothing copied */
    assert_int_equal((unsigned char)now[0].rule[0], 0xa5);
    assert_int_equal(gm_engine_active(e, now, 2), 1);
    assert_string_equal(now[0].rule, "hot");
    assert_int_equal(now[0].state, GM_AL_FIRING);
    assert_int_equal(now[0].severity, GM_SEV_CRITICAL);
    assert_int_equal(now[0].gpu, 1);
    assert_string_equal(now[0].uuid, "GPU-1");
    assert_string_equal(now[0].value, "88 °C");
    assert_int_equal(now[0].value_ok, 1);
    assert_int_equal(now[0].value_age_ms, 0);
    assert_string_equal(now[0].condition, "temperature.gpu > 85");
    assert_true(now[0].active_wall_ns == a->active_ns && now[0].firing_wall_ns == a->fired_ns);
    assert_int_equal(now[0].samples, 1);
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
    assert_int_equal(gm_engine_active(e, now, 2), 0); /* resolved: not listed */

    /* JSON of the states */
    struct gm_buf b = GM_BUF_INIT;
    gm_engine_json(e, &b);
    gm_buf_putc(&b, '\0');
    assert_string_equal(b.p, "{\"rules\":1,\"alerts\":[]}");
    gm_buf_free(&b);
    gm_engine_free(e);
}

/* Issue 30: a slow read group's value (the agent reads ECC counts, retired
 * pages, row remapping, the PCIe link, NVLink and settings every 10 s and
 * reuses them in between, core/value.h's age_ms) carries its age into every
 * form of the notice: the JSON (alert log, hooks, webhooks), the summary's
 * {{value}}, the engine's own JSON and table; a value read every sample says
 * 0 and its text is as before. */
static void test_value_age(void **state)
{
    (void)state;
    struct gm_rules rs;
    memset(&rs, 0, sizeof(rs));
    char why[256];
    static const char *const kv[] = {
        "ecc", "when",    "ecc.errors.uncorrected.volatile.total > 0",
        "ecc", "summary", "GPU {{gpu}} has {{value}} uncorrectable errors",
        "hot", "when",    "temperature.gpu > 85",
        "hot", "summary", "GPU {{gpu}} is at {{value}}",
        NULL};
    for (int i = 0; kv[i]; i += 3)
        if (gm_rules_set(&rs, kv[i], kv[i + 1], kv[i + 2], why, sizeof(why)) != 0)
            fail_msg("%s: %s", kv[i + 1], why);
    assert_int_equal(gm_rules_check(&rs, why, sizeof(why)), 0);
    struct gm_engine *e = gm_engine_new(&rs);
    struct rec r = {0};
    struct gm_snapshot *s = snap(1, 90, 5 * SEC);
    s->gpus[0].m[GM_M_ECC_UNCORR_VOL] = gm_v_u64(2);
    s->gpus[0].m[GM_M_ECC_UNCORR_VOL].age_ms = 7250; /* read 7.25 s before this sample */
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 2);
    const struct gm_alert *ecc = !strcmp(r.a[0].rule, "ecc") ? &r.a[0] : &r.a[1];
    const struct gm_alert *hot = ecc == &r.a[0] ? &r.a[1] : &r.a[0];
    assert_string_equal(ecc->value_text, "2"); /* the field consumers parse: unchanged */
    assert_string_equal(ecc->summary, "GPU 0 has 2 (read 7.3s ago) uncorrectable errors");
    assert_string_equal(hot->summary, "GPU 0 is at 90 °C");
    struct gm_buf b = GM_BUF_INIT;
    gm_alert_json(ecc, &b);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value_text\":\"2\",\"value_age_seconds\":7.25,"));
    gm_buf_reset(&b);
    gm_alert_json(hot, &b);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value_age_seconds\":0,"));
    /* what fires now, as the control socket and `gpumon alerts` show it */
    gm_buf_reset(&b);
    gm_engine_json(e, &b);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value\":\"2\",\"value_age_seconds\":7.25,"));
    assert_non_null(strstr(b.p, "\"value\":\"90 °C\",\"value_age_seconds\":0,"));
    gm_buf_reset(&b);
    gm_engine_text(e, &b);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "  value (read 7.3s ago)\n"));
    assert_null(strstr(b.p, "°C  value"));
    /* the resolved notice: the value that ended it, with its own age */
    r.n = 0;
    s = snap(1, 70, 15 * SEC);
    s->gpus[0].m[GM_M_ECC_UNCORR_VOL] = gm_v_u64(0);
    s->gpus[0].m[GM_M_ECC_UNCORR_VOL].age_ms = 3000;
    gm_engine_eval(e, s, s->mono_ns, record, &r);
    gm_snapshot_unref(s);
    assert_int_equal(r.n, 2);
    ecc = !strcmp(r.a[0].rule, "ecc") ? &r.a[0] : &r.a[1];
    assert_int_equal(ecc->state, GM_AL_RESOLVED);
    gm_buf_reset(&b);
    gm_alert_json(ecc, &b);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value_text\":\"0\",\"value_age_seconds\":3,"));
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
        cmocka_unit_test(test_value_age),
        cmocka_unit_test(test_xid),
        cmocka_unit_test(test_reload_keeps_repeat_timer),
        cmocka_unit_test(test_reload),
        cmocka_unit_test(test_state_file),
        cmocka_unit_test(test_lost_identity),
        cmocka_unit_test(test_window_functions),
        cmocka_unit_test(test_window_coverage_and_gaps),
        cmocka_unit_test(test_window_slope_long),
        cmocka_unit_test(test_engine_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

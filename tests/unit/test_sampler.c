/* test_sampler.c -- the sampler's deadline grid (src/agent/sampler.c) on a
 * virtual clock (struct gm_sampler_clock).
 *
 * The virtual clock jumps to each deadline the sampler sleeps for, and each
 * sample takes the virtual time a table gives it.  Checked, per row of the
 * table: samples start on absolute deadlines (start + k * interval, however
 * long the samples before took: no drift); a sample that overruns its
 * interval is counted once and the deadlines it missed are skipped, the next
 * sample starting on the grid again; the counts in gm_sampler_stats.  A
 * sampler stuck in a sample when it is stopped (the clock's read as the
 * sample ends waits on the test, as a hung NVML call would) pushes nothing
 * to its sinks once gm_sampler_stop has returned.  The
 * collector is real but has no NVML library, so a sample is instant in real
 * time and every snapshot says "no library".
 *
 * The overrun warning (gm_sampler_overrun_msg) from a table of measured
 * figures: a sample whose own duration passed the interval is a slow
 * sample; one that fit but started late (the thread woke after its
 * deadline: the machine was busy) is a late wake-up, never "a sample took
 * 0.000 s, longer than the 0.100 s interval".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "agent/collector.h"
#include "agent/sink.h"
#include "core/err.h"
#include "core/log.h"
#include "agent/sampler.h"
#include "core/timeutil.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MS 1000000LL
#define MAXS 16

/* The virtual clock: the time moves only when the sampler sleeps (to the
 * deadline) and while it samples (by the sample's cost). */
struct vclock {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t now;
    const int64_t *cost; /* virtual duration of sample k */
    int n;               /* samples to run */
    int k;               /* samples started */
    enum { IDLE, WOKEN, SAMPLING } phase;
    int64_t start[MAXS]; /* when sample k started */
    int parked, released;
};

static int64_t v_now(void *arg)
{
    struct vclock *c = arg;
    pthread_mutex_lock(&c->mu);
    if (c->phase == WOKEN) { /* the read as a sample starts */
        c->start[c->k] = c->now;
        c->phase = SAMPLING;
    } else if (c->phase == SAMPLING) { /* the read as it ends */
        c->now += c->cost[c->k++];
        c->phase = IDLE;
    }
    int64_t t = c->now;
    pthread_mutex_unlock(&c->mu);
    return t;
}

static void v_sleep_until(void *arg, int64_t deadline)
{
    struct vclock *c = arg;
    pthread_mutex_lock(&c->mu);
    if (c->k == c->n) {
        /* the table is done: hold the sampler until the test has read its
         * counters and asked it to stop */
        c->parked = 1;
        pthread_cond_broadcast(&c->cv);
        while (!c->released)
            pthread_cond_wait(&c->cv, &c->mu);
        pthread_mutex_unlock(&c->mu);
        return;
    }
    if (deadline > c->now)
        c->now = deadline;
    c->phase = WOKEN;
    pthread_mutex_unlock(&c->mu);
}

struct stop_arg {
    struct gm_sampler *sp;
    int rc;
};

static void *stop_thread(void *p)
{
    struct stop_arg *a = p;
    a->rc = gm_sampler_stop(a->sp, 10000000000LL);
    return NULL;
}

struct grid_case {
    const char *what;
    int64_t cost[MAXS];  /* ms, one per sample */
    int n;               /* samples */
    int64_t start[MAXS]; /* ms after the first deadline */
    uint64_t overruns, skipped;
};

#define T0 (1000 * MS) /* the virtual time the sampler starts at */

static const struct grid_case cases[] = {
    {"on time", {10, 10, 10, 10}, 4, {0, 100, 200, 300}, 0, 0},
    /* however long a sample takes within its interval: no drift */
    {"absolute deadlines", {90, 5, 99, 0, 60}, 5, {0, 100, 200, 300, 400}, 0, 0},
    /* 2.5 intervals: the two deadlines it ran over are skipped */
    {"one overrun", {10, 250, 10, 10}, 4, {0, 100, 400, 500}, 1, 2},
    /* just over one interval: its own next deadline is gone */
    {"just over", {101, 10, 10}, 3, {0, 200, 300}, 1, 1},
    /* ending exactly on the next deadline counts as missing it */
    {"ends on the deadline", {100, 10}, 2, {0, 200}, 1, 1},
    /* each of several slow samples counts */
    {"overruns in a row", {150, 150, 150, 10}, 4, {0, 200, 400, 600}, 3, 3},
    /* a stall of ten intervals, then back on the grid */
    {"a long stall", {10, 1000, 10, 10}, 4, {0, 100, 1200, 1300}, 1, 10},
};

static void run_case(const struct grid_case *g, struct gm_collector *col)
{
    struct vclock c;
    memset(&c, 0, sizeof(c));
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    c.now = T0;
    int64_t cost[MAXS];
    for (int k = 0; k < g->n; k++)
        cost[k] = g->cost[k] * MS;
    c.cost = cost;
    c.n = g->n;
    struct gm_sampler_opts o = {.clock = {v_now, v_sleep_until, &c}};
    struct gm_sampler *sp = gm_sampler_start_opts(col, 100 * MS, NULL, 0, &o);
    assert_non_null(sp);

    pthread_mutex_lock(&c.mu);
    while (!c.parked)
        pthread_cond_wait(&c.cv, &c.mu);
    pthread_mutex_unlock(&c.mu);
    struct gm_sampler_stats st;
    gm_sampler_stats(sp, &st);
    char got[256] = "", want[256] = "";
    size_t gl = 0, wl = 0;
    for (int k = 0; k < g->n; k++) {
        gl += (size_t)snprintf(got + gl, sizeof(got) - gl, " %lld",
                               (long long)((c.start[k] - T0) / MS));
        wl += (size_t)snprintf(want + wl, sizeof(want) - wl, " %lld", (long long)g->start[k]);
    }
    if (strcmp(got, want) != 0 || st.samples != (uint64_t)g->n || st.overruns != g->overruns ||
        st.skipped != g->skipped)
        fail_msg("%s: starts at%s ms, %llu samples, %llu overruns, %llu skipped; want%s ms, %d, "
                 "%llu, %llu",
                 g->what, got, (unsigned long long)st.samples, (unsigned long long)st.overruns,
                 (unsigned long long)st.skipped, want, g->n, (unsigned long long)g->overruns,
                 (unsigned long long)g->skipped);

    /* stop: the request first, then let the sampler out of its sleep */
    struct stop_arg a = {.sp = sp};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stop_thread, &a), 0);
    pthread_mutex_lock(&c.mu);
    c.released = 1;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);
    pthread_join(th, NULL);
    assert_int_equal(a.rc, 0);
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
}

static void test_grid(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        /* no NVML library: each sample is instant and says so */
        struct gm_collector_opts co = {.lib_path = "/nonexistent/libnvidia-ml.so.1"};
        struct gm_collector *col = NULL;
        gm_collector_open(&col, &co, NULL);
        assert_non_null(col);
        run_case(&cases[i], col); /* the sampler takes the collector over */
    }
}

static void test_overrun_msg(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        struct gm_sampler_overrun o; /* ms, converted below */
        const char *want;
    } t[] = {
        {"woke late, instant sample",
         {0, 180, 180, 100, 1, 1},
         "late wake-up: the sample started 0.180 s after its deadline (the machine was busy or "
         "suspended) and took 0.000 s of the 0.100 s interval: skipped 1 deadline(s) (1 "
         "overruns since the last report)"},
        {"slow sample on time",
         {0, 0, 250, 100, 2, 1},
         "slow sample: it took 0.250 s, longer than the 0.100 s interval (it started 0.000 s "
         "after its deadline): skipped 2 deadline(s) (1 overruns since the last report)"},
        {"slow and late: the sample alone overran",
         {1000, 1050, 1160, 100, 2, 7},
         "slow sample: it took 0.110 s, longer than the 0.100 s interval (it started 0.050 s "
         "after its deadline): skipped 2 deadline(s) (7 overruns since the last report)"},
        {"each within the interval, together past it",
         {0, 60, 110, 100, 1, 3},
         "late wake-up: the sample started 0.060 s after its deadline (the machine was busy or "
         "suspended) and took 0.050 s of the 0.100 s interval: skipped 1 deadline(s) (3 "
         "overruns since the last report)"},
        {"a sample exactly one interval long is slow",
         {0, 0, 100, 100, 1, 1},
         "slow sample: it took 0.100 s, longer than the 0.100 s interval (it started 0.000 s "
         "after its deadline): skipped 1 deadline(s) (1 overruns since the last report)"},
    };
    for (size_t i = 0; i < N_ELEM(t); i++) {
        struct gm_sampler_overrun o = t[i].o;
        o.due *= MS;
        o.woke *= MS;
        o.done *= MS;
        o.interval *= MS;
        char msg[512];
        const char *got = gm_sampler_overrun_msg(&o, msg, sizeof msg);
        assert_ptr_equal(got, msg);
        if (strcmp(got, t[i].want) != 0)
            fail_msg("%s:\n got  %s\n want %s", t[i].what, got, t[i].want);
    }
    /* cut to fit, still a string */
    char small[12];
    struct gm_sampler_overrun o = {0, 180 * MS, 180 * MS, 100 * MS, 1, 1};
    assert_string_equal(gm_sampler_overrun_msg(&o, small, sizeof small), "late wake-u");
}

/* ----------------------------------------------------- a stuck sampler */

/* The clock of the stuck sampler: sample 1's end-of-sample read waits until
 * the test lets it go; the sleep after that sample's publish is noted. */
struct hang_clock {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t now;
    int reads;       /* now() calls */
    int hung;        /* the sampler waits in sample 1's last read */
    int let_go;      /* the test's release */
    int slept_after; /* the sampler slept after sample 1 (its publish done) */
};

/* static: the detached sampler thread may use it after the test function's
 * frame would be gone; the sampler itself is leaked by design (reachable) */
static struct hang_clock hc = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0};
static struct gm_sampler *stuck_sampler;

static int64_t h_now(void *arg)
{
    struct hang_clock *c = arg;
    pthread_mutex_lock(&c->mu);
    c->reads++;
    /* reads: 1 at start, 2-3 sample 0, 4-5 sample 1 (5: as it ends) */
    if (c->reads == 5) {
        c->hung = 1;
        pthread_cond_broadcast(&c->cv);
        while (!c->let_go)
            pthread_cond_wait(&c->cv, &c->mu);
    }
    c->now += MS;
    int64_t t = c->now;
    pthread_mutex_unlock(&c->mu);
    return t;
}

static void h_sleep_until(void *arg, int64_t deadline)
{
    struct hang_clock *c = arg;
    pthread_mutex_lock(&c->mu);
    if (deadline > c->now)
        c->now = deadline;
    if (c->hung) {
        c->slept_after = 1;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
}

static int null_write(void *ctx, const struct gm_snapshot *s)
{
    (void)ctx;
    (void)s;
    return 0;
}

static const struct gm_sink_ops null_ops = {"null", null_write, NULL, NULL, NULL, NULL, NULL};

static int wait_flag(int *flag)
{
    int64_t deadline = gm_mono_ns() + 60 * 1000 * MS;
    pthread_mutex_lock(&hc.mu);
    while (!*flag && gm_mono_ns() < deadline) {
        pthread_mutex_unlock(&hc.mu);
        struct timespec ts = {0, 5 * MS};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&hc.mu);
    }
    int v = *flag;
    pthread_mutex_unlock(&hc.mu);
    return v;
}

static void test_stuck_stop(void **state)
{
    (void)state;
    struct gm_collector_opts co = {.lib_path = "/nonexistent/libnvidia-ml.so.1"};
    struct gm_collector *col = NULL;
    gm_collector_open(&col, &co, NULL);
    assert_non_null(col);
    /* paused: what the sampler pushes stays queued, to be counted */
    struct gm_sink *k = gm_sink_start_paused(&null_ops, NULL, 64);
    hc.now = T0;
    struct gm_sampler_opts o = {.clock = {h_now, h_sleep_until, &hc}};
    stuck_sampler = gm_sampler_start_opts(col, 100 * MS, &k, 1, &o);
    assert_non_null(stuck_sampler);
    assert_true(wait_flag(&hc.hung)); /* stuck in sample 1 */
    struct gm_sink_stats before, after;
    gm_sink_stats(k, &before);
    assert_true(before.queue_len >= 1); /* sample 0 */
    assert_int_equal(gm_sampler_stop(stuck_sampler, 300 * MS), GM_E_TIMEOUT);
    /* the call returns: the sample is published (or not) and the thread
     * goes to sleep, sees the stop and ends */
    pthread_mutex_lock(&hc.mu);
    hc.let_go = 1;
    pthread_cond_broadcast(&hc.cv);
    pthread_mutex_unlock(&hc.mu);
    assert_true(wait_flag(&hc.slept_after));
    gm_sink_stats(k, &after);
    if (after.queue_len != before.queue_len || after.dropped != before.dropped)
        fail_msg("after a stuck stop the sampler pushed to its sink: %u queued before, %u after",
                 before.queue_len, after.queue_len);
    assert_int_equal(gm_sink_stop(k, 10000 * MS), 0);
}

int main(void)
{
    /* quiet: each case logs "NVML unavailable" (an error) and its overruns */
    gm_log_init(GM_LOG_ERR - 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_overrun_msg),
        cmocka_unit_test(test_stuck_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_sink.c -- unit tests for the sink runner (src/agent/sink.c).
 *
 * A recording sink notes every snapshot (by sequence number), event and
 * posted call in the order its thread sees them.  Checked: a sink started
 * paused writes nothing until resumed, then everything in order; posted
 * calls run between the items queued before and after them and are never
 * dropped, even with the queue full; a capacity change while items wait
 * (the ring wrapped) keeps them in order and admits more; gm_sink_stop_stats
 * returns the counters of the sink's whole life.  A full queue in front of
 * a busy sink (a table of capacities) drops the newest snapshot or event at
 * once, counts it and keeps no reference; failed writes are counted apart;
 * pushes after the stop has begun are dropped while the queue drains;
 * the counters read while the sink writes grow consistently (and, under
 * ThreadSanitizer, without a data race).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "agent/sink.h"
#include "core/err.h"
#include "core/snapshot.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

struct rec {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char log[256]; /* "s1", "e", "c7", ... separated by spaces */
    int nwrites;
    int gate_closed; /* writes wait while set */
    int in_write;
};

static void rec_note(struct rec *r, const char *what)
{
    size_t n = strlen(r->log);
    snprintf(r->log + n, sizeof(r->log) - n, "%s%s", n ? " " : "", what);
}

static int rec_write(void *ctx, const struct gm_snapshot *s)
{
    struct rec *r = ctx;
    char b[32];
    snprintf(b, sizeof(b), "s%llu", (unsigned long long)s->seq);
    pthread_mutex_lock(&r->mu);
    r->in_write = 1;
    pthread_cond_broadcast(&r->cv);
    while (r->gate_closed)
        pthread_cond_wait(&r->cv, &r->mu);
    rec_note(r, b);
    r->nwrites++;
    r->in_write = 0;
    pthread_mutex_unlock(&r->mu);
    return 0;
}

static int rec_event(void *ctx, const struct gm_event *e)
{
    struct rec *r = ctx;
    pthread_mutex_lock(&r->mu);
    rec_note(r, e->text);
    pthread_mutex_unlock(&r->mu);
    return 0;
}

static void rec_call(void *ctx, void *arg)
{
    struct rec *r = ctx;
    char b[32];
    snprintf(b, sizeof(b), "c%d", *(int *)arg);
    pthread_mutex_lock(&r->mu);
    rec_note(r, b);
    pthread_mutex_unlock(&r->mu);
}

static const struct gm_sink_ops rec_ops = {"rec", rec_write, rec_event, NULL, NULL, NULL, NULL};

static void rec_init(struct rec *r)
{
    memset(r, 0, sizeof(*r));
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
}

static void rec_gate(struct rec *r, int closed)
{
    pthread_mutex_lock(&r->mu);
    r->gate_closed = closed;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void rec_wait_in_write(struct rec *r)
{
    pthread_mutex_lock(&r->mu);
    while (!r->in_write)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

static void rec_log(struct rec *r, char *out, size_t len)
{
    pthread_mutex_lock(&r->mu);
    snprintf(out, len, "%s", r->log);
    pthread_mutex_unlock(&r->mu);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int push_snap(struct gm_sink *k, uint64_t seq)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->seq = seq;
    int rc = gm_sink_push(k, s);
    gm_snapshot_unref(s);
    return rc;
}

static void push_event(struct gm_sink *k, const char *text)
{
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_MARK;
    snprintf(e.text, sizeof(e.text), "%s", text);
    assert_int_equal(gm_sink_push_event(k, &e), 0);
}

static void post(struct gm_sink *k, int n)
{
    int *arg = malloc(sizeof(*arg));
    assert_non_null(arg);
    *arg = n;
    gm_sink_post_call(k, rec_call, arg);
}

/* Paused: nothing is written (the queue fills), resume writes it all in
 * order, and a queue-full drop is counted. */
static void test_paused(void **state)
{
    (void)state;
    struct rec r;
    rec_init(&r);
    struct gm_sink *k = gm_sink_start_paused(&rec_ops, &r, 4);
    for (uint64_t i = 1; i <= 3; i++)
        assert_int_equal(push_snap(k, i), 0);
    push_event(k, "e");
    assert_int_equal(push_snap(k, 5), GM_E_BUSY); /* the queue holds 4 */
    sleep_ms(150);
    char log[256];
    rec_log(&r, log, sizeof(log));
    assert_string_equal(log, "");
    struct gm_sink_stats ks;
    gm_sink_stats(k, &ks);
    assert_int_equal(ks.queue_len, 4);
    gm_sink_resume(k);
    struct gm_sink_stats fin;
    assert_int_equal(gm_sink_stop_stats(k, 5000000000LL, &fin), 0);
    rec_log(&r, log, sizeof(log));
    assert_string_equal(log, "s1 s2 s3 e");
    assert_int_equal(fin.snapshots, 3);
    assert_int_equal(fin.events, 1);
    assert_int_equal(fin.dropped, 1);
    assert_int_equal(fin.errors, 0);
}

/* A paused sink that is stopped without a resume still drains. */
static void test_paused_stop(void **state)
{
    (void)state;
    struct rec r;
    rec_init(&r);
    struct gm_sink *k = gm_sink_start_paused(&rec_ops, &r, 4);
    assert_int_equal(push_snap(k, 1), 0);
    post(k, 1);
    assert_int_equal(gm_sink_stop(k, 5000000000LL), 0);
    char log[256];
    rec_log(&r, log, sizeof(log));
    assert_string_equal(log, "s1 c1");
}

/* Posted calls run in queue order, and are never dropped: with the queue
 * full of snapshots, the call still gets in (the next snapshot does not). */
static void test_post_call(void **state)
{
    (void)state;
    static const struct {
        const char *ops; /* s = snapshot, c = call, e = event */
        unsigned cap;
        const char *want;
        uint64_t dropped;
    } cases[] = {
        {"scs", 8, "s1 c2 s3", 0},
        {"ccc", 1, "c1 c2 c3", 0},
        {"sscsc", 2, "s1 s2 c3 c5", 1},  /* s4 finds the queue full */
        {"escse", 4, "e s2 c3 s4 e", 0}, /* the call takes none of the 4 places */
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct rec r;
        rec_init(&r);
        struct gm_sink *k = gm_sink_start_paused(&rec_ops, &r, cases[i].cap);
        for (int j = 0; cases[i].ops[j]; j++) {
            switch (cases[i].ops[j]) {
            case 's':
                push_snap(k, (uint64_t)j + 1);
                break;
            case 'c':
                post(k, j + 1);
                break;
            default:
                push_event(k, "e");
            }
        }
        gm_sink_resume(k);
        struct gm_sink_stats fin;
        assert_int_equal(gm_sink_stop_stats(k, 5000000000LL, &fin), 0);
        char log[256];
        rec_log(&r, log, sizeof(log));
        if (strcmp(log, cases[i].want) != 0)
            fail_msg("case %zu (%s, cap %u): got \"%s\", want \"%s\"", i, cases[i].ops,
                     cases[i].cap, log, cases[i].want);
        assert_int_equal(fin.dropped, cases[i].dropped);
    }
}

/* A bigger queue while items wait in a wrapped ring: order kept, more fit. */
static void test_set_capacity(void **state)
{
    (void)state;
    struct rec r;
    rec_init(&r);
    rec_gate(&r, 1);
    struct gm_sink *k = gm_sink_start(&rec_ops, &r, 3);
    assert_int_equal(push_snap(k, 1), 0);
    rec_wait_in_write(&r); /* s1 is out of the ring: the next ones wrap */
    for (uint64_t i = 2; i <= 4; i++)
        assert_int_equal(push_snap(k, i), 0);
    assert_int_equal(push_snap(k, 5), GM_E_BUSY);
    gm_sink_set_capacity(k, 5);
    assert_int_equal(push_snap(k, 6), 0);
    assert_int_equal(push_snap(k, 7), 0);
    assert_int_equal(push_snap(k, 8), GM_E_BUSY);
    /* a smaller queue keeps what waits and admits nothing more until it drains */
    gm_sink_set_capacity(k, 2);
    assert_int_equal(push_snap(k, 9), GM_E_BUSY);
    rec_gate(&r, 0);
    struct gm_sink_stats fin;
    assert_int_equal(gm_sink_stop_stats(k, 5000000000LL, &fin), 0);
    char log[256];
    rec_log(&r, log, sizeof(log));
    assert_string_equal(log, "s1 s2 s3 s4 s6 s7");
    assert_int_equal(fin.snapshots, 6);
    assert_int_equal(fin.dropped, 3);
}

/* A full queue while the sink is busy: the producer is never held up, the
 * newest snapshot or event is dropped (its reference released) and counted
 * at once, the queue keeps the oldest `capacity` items in order; failed
 * writes are counted apart from drops. */
static int fail_even(void *ctx, const struct gm_snapshot *s)
{
    rec_write(ctx, s);
    return s->seq % 2 == 0 ? GM_E_IO : 0;
}

static const struct gm_sink_ops fail_even_ops = {"even", fail_even, rec_event, NULL,
                                                 NULL,   NULL,      NULL};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This thread's voluntary context switches so far: each time it blocked
 * (a condition variable, a lock held elsewhere, a sleep).  Preemption, which
 * a loaded machine brings, is counted apart (ru_nivcsw). */
static long blocked_count(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_nvcsw;
}

static void test_full_queue_drops(void **state)
{
    (void)state;
    static const struct {
        unsigned cap;
        unsigned extra; /* pushes after the queue is full */
        const char *want;
    } cases[] = {
        {1, 1, "s1 s2"},
        {2, 3, "s1 s2 s3"},
        {5, 4, "s1 s2 s3 s4 s5 s6"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        unsigned cap = cases[i].cap;
        struct rec r;
        rec_init(&r);
        rec_gate(&r, 1);
        struct gm_sink *k = gm_sink_start(&fail_even_ops, &r, cap);
        assert_int_equal(push_snap(k, 1), 0);
        rec_wait_in_write(&r); /* the sink is stuck writing s1 */
        for (unsigned j = 0; j < cap; j++)
            assert_int_equal(push_snap(k, 2 + j), 0);
        struct gm_sink_stats ks;
        gm_sink_stats(k, &ks);
        assert_int_equal(ks.queue_len, cap);
        assert_int_equal(ks.dropped, 0);
        /* a push that waited for the stuck sink, however briefly, would
         * block; one that drops at once never does, however busy the
         * machine (no time bound to miss) */
        long blocked0 = blocked_count();
        for (unsigned j = 0; j < cases[i].extra; j++) {
            struct gm_snapshot *sn = gm_snapshot_new();
            sn->seq = 100 + j;
            assert_int_equal(gm_sink_push(k, sn), GM_E_BUSY);
            assert_int_equal(sn->refs, 1); /* the queue kept no reference */
            gm_snapshot_unref(sn);
        }
        struct gm_event e;
        memset(&e, 0, sizeof(e));
        e.type = GM_EV_MARK;
        assert_int_equal(gm_sink_push_event(k, &e), GM_E_BUSY);
        long blocked = blocked_count() - blocked0;
        if (blocked != 0)
            fail_msg("case %zu: the pushes into the full queue blocked %ld time(s)", i, blocked);
        gm_sink_stats(k, &ks);
        assert_int_equal(ks.dropped, cases[i].extra + 1);
        assert_int_equal(ks.queue_len, cap);
        assert_int_equal(ks.queue_max, cap);
        assert_int_equal(ks.snapshots, 0);
        rec_gate(&r, 0);
        struct gm_sink_stats fin;
        assert_int_equal(gm_sink_stop_stats(k, 5000000000LL, &fin), 0);
        char log[256];
        rec_log(&r, log, sizeof(log));
        if (strcmp(log, cases[i].want) != 0)
            fail_msg("case %zu: wrote \"%s\", want \"%s\"", i, log, cases[i].want);
        assert_int_equal(fin.snapshots, cap + 1);
        assert_int_equal(fin.dropped, cases[i].extra + 1);
        assert_int_equal(fin.errors, (cap + 1) / 2); /* s2, s4, ... failed */
        assert_int_equal(fin.events, 0);
    }
}

/* The counters read while the sink thread writes: each read is a
 * consistent, growing picture (never more than was pushed, failures never
 * more than writes), and the last one counts every item.  Under
 * ThreadSanitizer (build-tsan) this is the test that shows whether the
 * sink thread updates the counters the way gm_sink_stats reads them. */
static void test_stats_while_writing(void **state)
{
    (void)state;
    enum { N = 100 };
    struct rec r;
    rec_init(&r);
    struct gm_sink *k = gm_sink_start(&fail_even_ops, &r, 2 * N + 8);
    struct gm_sink_stats prev, ks;
    memset(&prev, 0, sizeof(prev));
    for (uint64_t i = 1; i <= N; i++) {
        assert_int_equal(push_snap(k, i), 0);
        push_event(k, "e");
        gm_sink_stats(k, &ks);
        assert_true(ks.snapshots >= prev.snapshots && ks.snapshots <= i);
        assert_true(ks.events >= prev.events && ks.events <= i);
        assert_true(ks.errors <= ks.snapshots);
        prev = ks;
    }
    double t0 = mono_s();
    do {
        gm_sink_stats(k, &ks);
        assert_true(ks.snapshots >= prev.snapshots && ks.snapshots <= N);
        assert_true(ks.events >= prev.events && ks.events <= N);
        assert_true(ks.errors <= ks.snapshots);
        prev = ks;
    } while ((ks.snapshots < N || ks.events < N) && mono_s() - t0 < 60);
    assert_int_equal(ks.snapshots, N);
    assert_int_equal(ks.events, N);
    assert_int_equal(ks.errors, N / 2); /* s2, s4, ... failed */
    assert_int_equal(ks.dropped, 0);
    assert_int_equal(gm_sink_stop(k, 10000000000LL), 0);
}

/* After stop has begun nothing more is queued: a push is dropped and
 * counted (the sampler may still be publishing); what was queued before is
 * still written. */
struct stop_arg {
    struct gm_sink *k;
    struct gm_sink_stats fin;
    int rc;
};

static void *stop_thread(void *p)
{
    struct stop_arg *a = p;
    a->rc = gm_sink_stop_stats(a->k, 10000000000LL, &a->fin);
    return NULL;
}

static void test_push_while_stopping(void **state)
{
    (void)state;
    struct rec r;
    rec_init(&r);
    rec_gate(&r, 1);
    struct gm_sink *k = gm_sink_start(&rec_ops, &r, 64);
    assert_int_equal(push_snap(k, 1), 0);
    rec_wait_in_write(&r);
    struct stop_arg a = {.k = k};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stop_thread, &a), 0);
    /* until the stop has begun pushes are queued (64 places: never full) */
    uint64_t seq = 2;
    int rc;
    double t0 = mono_s();
    while ((rc = push_snap(k, seq)) == 0 && mono_s() - t0 < 5) {
        seq++;
        sleep_ms(5);
    }
    assert_int_equal(rc, GM_E_BUSY);
    rec_gate(&r, 0);
    pthread_join(th, NULL);
    assert_int_equal(a.rc, 0);
    assert_int_equal(a.fin.dropped, 1);
    assert_int_equal(a.fin.snapshots, seq - 1); /* s1 .. s(seq-1): all that got in */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paused),
        cmocka_unit_test(test_paused_stop),
        cmocka_unit_test(test_post_call),
        cmocka_unit_test(test_set_capacity),
        cmocka_unit_test(test_full_queue_drops),
        cmocka_unit_test(test_push_while_stopping),
        cmocka_unit_test(test_stats_while_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* sink.c -- a thread and a bounded queue per sink (see sink.h).
 *
 * The queue is a ring of items (snapshot references, event copies and, for
 * reloads, calls to run on the sink's thread).  The producer (the sampler)
 * never waits: a full queue drops the new snapshot or event and counts it;
 * a call is never dropped (the ring grows for it).  The sink thread pops
 * items in order, calls the sink, and calls its tick about once a second
 * when idle.  A sink started paused queues but processes nothing until it
 * is resumed (a reload's new CSV writer waits for the old one to finish).
 * Every field of the sink, its counters included, is read and written
 * under its mutex; the thread counts an item when it takes the lock back
 * after the call, so gm_sink_stats copies a consistent set.
 */
#include "sink.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/err.h"
#include "../core/timeutil.h"

enum item_kind { IT_SNAP = 0, IT_EVENT, IT_CALL };

struct item {
    uint8_t kind;
    struct gm_snapshot *snap;
    struct gm_event *event;
    void (*fn)(void *ctx, void *arg); /* IT_CALL */
    void *arg;                        /* IT_CALL: freed after fn */
};

struct gm_sink {
    const struct gm_sink_ops *ops;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* items, stop, reopen */
    pthread_cond_t done_cv; /* the thread finished */
    struct item *ring;
    unsigned cap;   /* snapshots and events queued at most */
    unsigned alloc; /* ring slots (>= cap; more when calls needed room) */
    unsigned head, len;
    unsigned ncalls; /* of the len items, posted calls (they take no capacity) */
    int stopping, done, reopen, paused;
    struct gm_sink_stats st;
};

static void item_release(struct item *it)
{
    if (it->kind == IT_SNAP)
        gm_snapshot_unref(it->snap);
    else if (it->kind == IT_EVENT)
        free(it->event);
    else
        free(it->arg);
}

static void *run(void *arg)
{
    struct gm_sink *k = arg;
    int64_t next_tick = gm_mono_ns() + 1000000000LL;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (k->paused && !k->stopping)
            pthread_cond_wait(&k->cv, &k->mu);
        while (k->len == 0 && !k->stopping && !k->reopen) {
            int64_t now = gm_mono_ns();
            if (now >= next_tick)
                break;
            struct timespec ts = {.tv_sec = (time_t)(next_tick / 1000000000LL),
                                  .tv_nsec = (long)(next_tick % 1000000000LL)};
            pthread_cond_timedwait(&k->cv, &k->mu, &ts);
        }
        if (k->reopen) {
            k->reopen = 0;
            pthread_mutex_unlock(&k->mu);
            int failed = k->ops->reopen && k->ops->reopen(k->ctx) < 0;
            pthread_mutex_lock(&k->mu);
            k->st.errors += (uint64_t)failed;
            continue;
        }
        if (k->len == 0) {
            if (k->stopping)
                break;
            pthread_mutex_unlock(&k->mu);
            if (k->ops->tick)
                k->ops->tick(k->ctx, gm_wall_ns());
            next_tick = gm_mono_ns() + 1000000000LL;
            pthread_mutex_lock(&k->mu);
            continue;
        }
        struct item it = k->ring[k->head];
        k->head = (k->head + 1) % k->alloc;
        k->len--;
        k->ncalls -= it.kind == IT_CALL;
        pthread_mutex_unlock(&k->mu);

        int rc = 0, snaps = 0, events = 0;
        if (it.kind == IT_SNAP) {
            rc = k->ops->write(k->ctx, it.snap);
            snaps = 1;
        } else if (it.kind == IT_EVENT && k->ops->event) {
            rc = k->ops->event(k->ctx, it.event);
            events = 1;
        } else if (it.kind == IT_CALL) {
            it.fn(k->ctx, it.arg);
        }
        item_release(&it);
        /* a busy sink still gets its housekeeping */
        if (k->ops->tick && gm_mono_ns() >= next_tick) {
            k->ops->tick(k->ctx, gm_wall_ns());
            next_tick = gm_mono_ns() + 1000000000LL;
        }
        pthread_mutex_lock(&k->mu);
        /* counted under the lock that gm_sink_stats copies them under */
        k->st.snapshots += (uint64_t)snaps;
        k->st.events += (uint64_t)events;
        k->st.errors += (uint64_t)(rc < 0);
    }
    pthread_mutex_unlock(&k->mu);
    if (k->ops->flush)
        k->ops->flush(k->ctx);
    if (k->ops->close)
        k->ops->close(k->ctx);
    pthread_mutex_lock(&k->mu);
    k->done = 1;
    pthread_cond_broadcast(&k->done_cv);
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

static struct gm_sink *start(const struct gm_sink_ops *ops, void *ctx, unsigned capacity,
                             int paused)
{
    struct gm_sink *k = gm_xcalloc(1, sizeof(*k));
    k->ops = ops;
    k->ctx = ctx;
    k->cap = capacity ? capacity : 64;
    k->alloc = k->cap;
    k->paused = paused;
    k->ring = gm_xcalloc(k->alloc, sizeof(struct item));
    pthread_mutex_init(&k->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&k->cv, &ca);
    pthread_cond_init(&k->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&k->thread, NULL, run, k) != 0)
        gm_oom(); /* thread creation fails only when the process is out of resources */
    return k;
}

struct gm_sink *gm_sink_start(const struct gm_sink_ops *ops, void *ctx, unsigned capacity)
{
    return start(ops, ctx, capacity, 0);
}

struct gm_sink *gm_sink_start_paused(const struct gm_sink_ops *ops, void *ctx, unsigned capacity)
{
    return start(ops, ctx, capacity, 1);
}

void gm_sink_resume(struct gm_sink *k)
{
    pthread_mutex_lock(&k->mu);
    k->paused = 0;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

/* Makes the ring at least n slots, keeping the items in order (k->mu held). */
static void ring_grow(struct gm_sink *k, unsigned n)
{
    if (n <= k->alloc)
        return;
    struct item *r = gm_xcalloc(n, sizeof(struct item));
    for (unsigned i = 0; i < k->len; i++)
        r[i] = k->ring[(k->head + i) % k->alloc];
    free(k->ring);
    k->ring = r;
    k->alloc = n;
    k->head = 0;
}

void gm_sink_set_capacity(struct gm_sink *k, unsigned capacity)
{
    pthread_mutex_lock(&k->mu);
    k->cap = capacity ? capacity : 64;
    ring_grow(k, k->cap);
    pthread_mutex_unlock(&k->mu);
}

static int push(struct gm_sink *k, struct item it)
{
    pthread_mutex_lock(&k->mu);
    if (it.kind != IT_CALL && (k->len - k->ncalls >= k->cap || k->stopping)) {
        k->st.dropped++;
        pthread_mutex_unlock(&k->mu);
        item_release(&it);
        return GM_E_BUSY;
    }
    if (k->len == k->alloc)
        ring_grow(k, k->alloc * 2);
    k->ncalls += it.kind == IT_CALL;
    k->ring[(k->head + k->len) % k->alloc] = it;
    k->len++;
    if (k->len > k->st.queue_max)
        k->st.queue_max = k->len;
    pthread_cond_signal(&k->cv);
    pthread_mutex_unlock(&k->mu);
    return 0;
}

int gm_sink_push(struct gm_sink *k, struct gm_snapshot *s)
{
    struct item it = {.kind = IT_SNAP, .snap = gm_snapshot_ref(s)};
    return push(k, it);
}

int gm_sink_push_event(struct gm_sink *k, const struct gm_event *e)
{
    struct item it = {.kind = IT_EVENT, .event = gm_xmalloc(sizeof(*e))};
    memcpy(it.event, e, sizeof(*e));
    return push(k, it);
}

void gm_sink_post_call(struct gm_sink *k, void (*fn)(void *ctx, void *arg), void *arg)
{
    struct item it = {.kind = IT_CALL, .fn = fn, .arg = arg};
    push(k, it);
}

void gm_sink_request_reopen(struct gm_sink *k)
{
    pthread_mutex_lock(&k->mu);
    k->reopen = 1;
    pthread_cond_signal(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

int gm_sink_stop(struct gm_sink *k, int64_t timeout_ns)
{
    return gm_sink_stop_stats(k, timeout_ns, NULL);
}

int gm_sink_stop_stats(struct gm_sink *k, int64_t timeout_ns, struct gm_sink_stats *final)
{
    if (final)
        memset(final, 0, sizeof(*final));
    if (!k)
        return 0;
    int64_t deadline = gm_mono_ns() + timeout_ns;
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000LL),
                          .tv_nsec = (long)(deadline % 1000000000LL)};
    pthread_mutex_lock(&k->mu);
    k->stopping = 1;
    pthread_cond_signal(&k->cv);
    while (!k->done)
        if (pthread_cond_timedwait(&k->done_cv, &k->mu, &ts) != 0 && !k->done)
            break;
    int done = k->done;
    if (final) {
        *final = k->st;
        final->queue_len = k->len;
    }
    pthread_mutex_unlock(&k->mu);
    if (!done) {
        /* the sink is stuck (a hung disk or network): leave it to the exit */
        pthread_detach(k->thread);
        return GM_E_TIMEOUT;
    }
    pthread_join(k->thread, NULL);
    for (unsigned i = 0; i < k->len; i++)
        item_release(&k->ring[(k->head + i) % k->alloc]);
    free(k->ring);
    pthread_cond_destroy(&k->cv);
    pthread_cond_destroy(&k->done_cv);
    pthread_mutex_destroy(&k->mu);
    free(k);
    return 0;
}

void gm_sink_stats(struct gm_sink *k, struct gm_sink_stats *out)
{
    pthread_mutex_lock(&k->mu);
    *out = k->st;
    out->queue_len = k->len;
    pthread_mutex_unlock(&k->mu);
}

const char *gm_sink_name(const struct gm_sink *k)
{
    return k->ops->name;
}

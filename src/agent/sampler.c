/* sampler.c -- the sampler thread: cadence, fan-out, state changes (see
 * sampler.h). */
#include "sampler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/err.h"
#include "../core/timeutil.h"
#include "../core/log.h"

#define MAX_SINKS 16
#define MAX_GPUS 64

/* A change of (wall - monotonic) between two samples beyond this, plus 1 ms
 * per second between them, is a step of the wall clock.  NTP slews at most
 * 0.5 ms/s, so slewing never reads as a step. */
#define CLOCK_STEP_MIN_NS 100000000LL

/* What the previous snapshot said, to log changes once. */
struct seen {
    int have;
    uint8_t driver;
    uint32_t ngpu;
    uint8_t gpu_state[MAX_GPUS];
    char uuid[MAX_GPUS][GM_STR_MAX];
    /* the wall clock against the monotonic one, to notice steps */
    int have_clock;
    int64_t clock_off;  /* wall_ns - mono_ns of the previous snapshot */
    int64_t clock_mono; /* its mono_ns */
    uint64_t steps_back, steps_forward;
};

#define SAMPLER_POOL 4 /* snapshots kept for reuse */

struct gm_sampler {
    struct gm_collector *col;
    struct gm_sampler_clock clock; /* now == NULL: CLOCK_MONOTONIC */
    pthread_t thread;
    pthread_mutex_t mu;     /* sinks, latest, stats, interval */
    pthread_mutex_t pub_mu; /* one snapshot's fan-out; a sink switch waits for it */
    struct gm_sink *sinks[MAX_SINKS];
    int nsinks;
    int64_t interval_ns;
    int stop;
    int finished;
    pthread_cond_t fin_cv;  /* the thread finished */
    pthread_cond_t wake_cv; /* stop requested: end the wait for the next deadline */
    struct gm_snapshot *latest;
    struct gm_sampler_stats st;
    struct seen seen;
    int64_t overrun_logged_mono;
    uint64_t overruns_unlogged;
    void (*inspect)(void *arg, struct gm_snapshot *s, const struct gm_sampler_emit *to);
    void *inspect_arg;
    /* Snapshots filled again once nobody else holds them: with the arrays
     * and string buffers a snapshot keeps when cleared, a steady sample
     * allocates nothing (issue 30).  Each holds the pool's reference. */
    struct gm_snapshot *pool[SAMPLER_POOL];
};

/* A snapshot for the next sample, holding the caller's reference: a pooled
 * one that only the pool holds (every sink and reader has let it go), else a
 * new one, pooled while there is room. */
static struct gm_snapshot *take_snapshot(struct gm_sampler *sp)
{
    for (int i = 0; i < SAMPLER_POOL; i++) {
        struct gm_snapshot *s = sp->pool[i];
        if (!s) {
            sp->pool[i] = gm_snapshot_new();
            return gm_snapshot_ref(sp->pool[i]);
        }
        /* acquire: the last holder's reads are done before we write */
        if (__atomic_load_n(&s->refs, __ATOMIC_ACQUIRE) == 1)
            return gm_snapshot_ref(s);
    }
    return gm_snapshot_new(); /* all held (a slow sink): freed with its last reference */
}

static void emit(struct gm_sink *const *sinks, int n, const struct gm_event *e)
{
    for (int i = 0; i < n; i++)
        gm_sink_push_event(sinks[i], e);
}

void gm_sampler_emit(const struct gm_sampler_emit *to, const struct gm_event *e)
{
    emit(to->sinks, to->n, e);
}

static void event_init(struct gm_event *e, int type, int gpu, int64_t wall_ns, int64_t code)
{
    memset(e, 0, sizeof(*e));
    e->type = (uint8_t)type;
    e->gpu = gpu;
    e->wall_ns = wall_ns;
    e->code = code;
}

/* A step of the wall clock between the previous snapshot and s (an NTP
 * step, a VM resume, an operator's `date -s`): logged once, with its size,
 * and put on the timeline as an agent event (code: the step in ms).  After a
 * step back, the samples of the next |step| repeat wall times already
 * recorded; the CSV log and the store keep both (docs/store.md: dup). */
static void observe_clock(struct seen *sn, const struct gm_snapshot *s,
                          struct gm_sink *const *sinks, int nsinks)
{
    int64_t off = s->wall_ns - s->mono_ns;
    if (sn->have_clock) {
        int64_t d = off - sn->clock_off;
        int64_t tol = CLOCK_STEP_MIN_NS + (s->mono_ns - sn->clock_mono) / 1000;
        if (d < -tol || d > tol) {
            struct gm_event e;
            event_init(&e, GM_EV_AGENT, -1, s->wall_ns, d / 1000000);
            if (d < 0) {
                sn->steps_back++;
                gm_log(GM_LOG_WARNING,
                       "the wall clock stepped back by %.3f s (an NTP step, a VM resume or a "
                       "manual change): the next %.3f s of samples repeat times already "
                       "recorded; the CSV log and the store keep both",
                       -d / 1e9, -d / 1e9);
                snprintf(e.text, sizeof(e.text), "wall clock stepped back by %.3f s", -d / 1e9);
            } else {
                sn->steps_forward++;
                gm_log(GM_LOG_NOTICE,
                       "the wall clock stepped forward by %.3f s (an NTP step, a VM resume or "
                       "a manual change); sampling went on by the monotonic clock",
                       d / 1e9);
                snprintf(e.text, sizeof(e.text), "wall clock stepped forward by %.3f s", d / 1e9);
            }
            emit(sinks, nsinks, &e);
        }
    }
    sn->have_clock = 1;
    sn->clock_off = off;
    sn->clock_mono = s->mono_ns;
}

/* Compares s with what was seen before; logs and emits one event per change. */
static void observe(struct seen *sn, const struct gm_snapshot *s, struct gm_sink *const *sinks,
                    int nsinks, int retrying)
{
    struct gm_event e;
    observe_clock(sn, s, sinks, nsinks);
    if (!sn->have || s->driver != sn->driver) {
        if (s->driver != GM_DRV_OK) {
            gm_log(GM_LOG_ERR, "NVML unavailable (%s): %s%s",
                   gm_driver_state_name((enum gm_driver_state)s->driver), s->driver_msg,
                   retrying ? "; retrying with backoff" : "");
            event_init(&e, GM_EV_DRIVER, -1, s->wall_ns, s->driver_code);
            snprintf(e.text, sizeof(e.text), "%s: %.480s",
                     gm_driver_state_name((enum gm_driver_state)s->driver), s->driver_msg);
            emit(sinks, nsinks, &e);
        } else if (sn->have) {
            gm_log(GM_LOG_NOTICE, "NVML is back: driver %s, %u GPUs; recording resumes",
                   s->driver_version_s, s->ngpu);
            event_init(&e, GM_EV_DRIVER, -1, s->wall_ns, 0);
            snprintf(e.text, sizeof(e.text), "ok: driver %s, %u GPUs", s->driver_version_s,
                     s->ngpu);
            emit(sinks, nsinks, &e);
        } else {
            gm_log(GM_LOG_INFO, "NVML ready: driver %s, %u GPUs", s->driver_version_s, s->ngpu);
        }
    }
    if (s->driver == GM_DRV_OK) {
        for (uint32_t i = 0; i < s->ngpu && i < MAX_GPUS; i++) {
            const struct gm_gpu *g = &s->gpus[i];
            uint8_t before = (sn->have && sn->driver == GM_DRV_OK && i < sn->ngpu)
                                 ? sn->gpu_state[i]
                                 : GM_GPU_OK;
            if (g->state == before)
                continue;
            const char *uuid = g->str[GM_S_UUID][0] ? g->str[GM_S_UUID] : sn->uuid[i];
            event_init(&e, GM_EV_GPU, (int)i, s->wall_ns, g->state_code);
            gm_strlcpy(e.uuid, uuid, sizeof(e.uuid));
            if (g->state == GM_GPU_OK) {
                gm_log(GM_LOG_NOTICE, "GPU %u (%s) is back", i, uuid[0] ? uuid : "uuid unknown");
                snprintf(e.text, sizeof(e.text), "ok: GPU is back");
            } else {
                gm_log(GM_LOG_ERR, "GPU %u (%s): %s (%s); the other GPUs keep recording", i,
                       uuid[0] ? uuid : "uuid unknown",
                       gm_gpu_state_name((enum gm_gpu_state)g->state),
                       gm_nvml_error_text(g->state_code));
                snprintf(e.text, sizeof(e.text), "%s: %s",
                         gm_gpu_state_name((enum gm_gpu_state)g->state),
                         gm_nvml_error_text(g->state_code));
            }
            emit(sinks, nsinks, &e);
        }
        sn->ngpu = s->ngpu < MAX_GPUS ? s->ngpu : MAX_GPUS;
        for (uint32_t i = 0; i < sn->ngpu; i++) {
            sn->gpu_state[i] = s->gpus[i].state;
            if (s->gpus[i].str[GM_S_UUID][0])
                memcpy(sn->uuid[i], s->gpus[i].str[GM_S_UUID], GM_STR_MAX);
        }
    }
    sn->driver = s->driver;
    sn->have = 1;
}

static void publish(struct gm_sampler *sp, struct gm_snapshot *s)
{
    struct gm_sink *sinks[MAX_SINKS];
    /* A snapshot goes to every sink of one list: a switch of the list
     * (gm_sampler_switch_sinks) waits for the fan-out in progress, so no
     * snapshot reaches half of the old sinks, or an old sink already being
     * stopped.  The pushes never block, so neither does the wait for long. */
    pthread_mutex_lock(&sp->pub_mu);
    pthread_mutex_lock(&sp->mu);
    int n = sp->nsinks;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
    memcpy(sinks, sp->sinks, (size_t)n * sizeof(sinks[0]));
    pthread_mutex_unlock(&sp->mu);

    observe(&sp->seen, s, sinks, n, 1);
    if (sp->inspect) {
        struct gm_sampler_emit to = {sinks, n};
        sp->inspect(sp->inspect_arg, s, &to);
    }
    for (int i = 0; i < n; i++)
        gm_sink_push(sinks[i], s);
    pthread_mutex_unlock(&sp->pub_mu);

    pthread_mutex_lock(&sp->mu);
    struct gm_snapshot *old = sp->latest;
    sp->latest = s; /* takes the caller's reference */
    sp->st.samples++;
    sp->st.last_duration_ns = s->duration_ns;
    sp->st.last_wall_ns = s->wall_ns;
    sp->st.driver_state = s->driver;
    sp->st.clock_steps_back = sp->seen.steps_back;
    sp->st.clock_steps_forward = sp->seen.steps_forward;
    pthread_mutex_unlock(&sp->mu);
    gm_snapshot_unref(old);
}

static int64_t clock_now(const struct gm_sampler *sp)
{
    return sp->clock.now ? sp->clock.now(sp->clock.arg) : gm_mono_ns();
}

/* Waits for the absolute deadline next, or for a stop request; returns
 * whether to stop. */
static int wait_deadline(struct gm_sampler *sp, int64_t next)
{
    if (sp->clock.sleep_until)
        sp->clock.sleep_until(sp->clock.arg, next);
    struct timespec ts = {.tv_sec = (time_t)(next / 1000000000LL),
                          .tv_nsec = (long)(next % 1000000000LL)};
    pthread_mutex_lock(&sp->mu);
    while (!sp->clock.sleep_until && !sp->stop && gm_mono_ns() < next)
        pthread_cond_timedwait(&sp->wake_cv, &sp->mu, &ts);
    int stop = sp->stop;
    pthread_mutex_unlock(&sp->mu);
    return stop;
}

const char *gm_sampler_overrun_msg(const struct gm_sampler_overrun *o, char *dst, size_t len)
{
    int64_t took = o->done - o->woke, late = o->woke - o->due;
    if (late < 0)
        late = 0;
    if (took >= o->interval)
        snprintf(dst, len,
                 "slow sample: it took %.3f s, longer than the %.3f s interval (it started "
                 "%.3f s after its deadline): skipped %lld deadline(s) (%llu overruns since the "
                 "last report)",
                 took / 1e9, o->interval / 1e9, late / 1e9, (long long)o->missed,
                 (unsigned long long)o->since);
    else
        snprintf(dst, len,
                 "late wake-up: the sample started %.3f s after its deadline (the machine was "
                 "busy or suspended) and took %.3f s of the %.3f s interval: skipped %lld "
                 "deadline(s) (%llu overruns since the last report)",
                 late / 1e9, took / 1e9, o->interval / 1e9, (long long)o->missed,
                 (unsigned long long)o->since);
    return dst;
}

static void *run(void *arg)
{
    struct gm_sampler *sp = arg;
    int64_t next = clock_now(sp);
    for (;;) {
        if (wait_deadline(sp, next))
            break;
        int64_t due = next;
        int64_t t0 = clock_now(sp);
        pthread_mutex_lock(&sp->mu);
        sp->st.busy_since_mono = t0;
        int64_t interval = sp->interval_ns;
        pthread_mutex_unlock(&sp->mu);

        struct gm_snapshot *s = take_snapshot(sp);
        gm_collector_sample(sp->col, s, 0, NULL);
        int64_t t1 = clock_now(sp);

        pthread_mutex_lock(&sp->mu);
        sp->st.busy_since_mono = 0;
        pthread_mutex_unlock(&sp->mu);
        publish(sp, s);

        next += interval;
        if (next <= t1) {
            /* overrun: skip the missed deadlines, keep the grid */
            int64_t missed = (t1 - next) / interval + 1;
            next += missed * interval;
            pthread_mutex_lock(&sp->mu);
            sp->st.overruns++;
            sp->st.skipped += (uint64_t)missed;
            pthread_mutex_unlock(&sp->mu);
            sp->overruns_unlogged++;
            if (t1 - sp->overrun_logged_mono >= 60000000000LL || !sp->overrun_logged_mono) {
                struct gm_sampler_overrun o = {.due = due,
                                               .woke = t0,
                                               .done = t1,
                                               .interval = interval,
                                               .missed = missed,
                                               .since = sp->overruns_unlogged};
                char msg[256];
                gm_log(GM_LOG_WARNING, "%s", gm_sampler_overrun_msg(&o, msg, sizeof msg));
                sp->overrun_logged_mono = t1;
                sp->overruns_unlogged = 0;
            }
        }
    }
    pthread_mutex_lock(&sp->mu);
    sp->finished = 1;
    pthread_cond_broadcast(&sp->fin_cv);
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

struct gm_sampler *gm_sampler_start(struct gm_collector *c, int64_t interval_ns,
                                    struct gm_sink *const *sinks, int nsinks)
{
    return gm_sampler_start_opts(c, interval_ns, sinks, nsinks, NULL);
}

struct gm_sampler *gm_sampler_start_opts(struct gm_collector *c, int64_t interval_ns,
                                         struct gm_sink *const *sinks, int nsinks,
                                         const struct gm_sampler_opts *o)
{
    struct gm_sampler *sp = gm_xcalloc(1, sizeof(*sp));
    sp->col = c;
    if (o && o->clock.now && o->clock.sleep_until)
        sp->clock = o->clock;
    if (o) {
        sp->inspect = o->inspect;
        sp->inspect_arg = o->inspect_arg;
    }
    sp->interval_ns = interval_ns;
    pthread_mutex_init(&sp->mu, NULL);
    pthread_mutex_init(&sp->pub_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sp->fin_cv, &ca);
    pthread_cond_init(&sp->wake_cv, &ca);
    pthread_condattr_destroy(&ca);
    gm_sampler_set_sinks(sp, sinks, nsinks);
    if (pthread_create(&sp->thread, NULL, run, sp) != 0) {
        free(sp);
        return NULL;
    }
    return sp;
}

void gm_sampler_switch_sinks(struct gm_sampler *sp, struct gm_sink *const *sinks, int nsinks,
                             void (*at_switch)(void *arg), void *arg)
{
    pthread_mutex_lock(&sp->pub_mu);
    pthread_mutex_lock(&sp->mu);
    if (at_switch)
        at_switch(arg);
    sp->nsinks = nsinks < MAX_SINKS ? nsinks : MAX_SINKS;
    if (sp->nsinks > 0) /* sinks may be NULL when there are none */
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
        memcpy(sp->sinks, sinks, (size_t)sp->nsinks * sizeof(sinks[0]));
    pthread_mutex_unlock(&sp->mu);
    pthread_mutex_unlock(&sp->pub_mu);
}

void gm_sampler_set_sinks(struct gm_sampler *sp, struct gm_sink *const *sinks, int nsinks)
{
    gm_sampler_switch_sinks(sp, sinks, nsinks, NULL, NULL);
}

void gm_sampler_set_interval(struct gm_sampler *sp, int64_t interval_ns)
{
    pthread_mutex_lock(&sp->mu);
    sp->interval_ns = interval_ns;
    pthread_mutex_unlock(&sp->mu);
}

void gm_sampler_event(struct gm_sampler *sp, const struct gm_event *e)
{
    pthread_mutex_lock(&sp->mu);
    for (int i = 0; i < sp->nsinks; i++)
        gm_sink_push_event(sp->sinks[i], e);
    pthread_mutex_unlock(&sp->mu);
}

struct gm_snapshot *gm_sampler_latest(struct gm_sampler *sp)
{
    pthread_mutex_lock(&sp->mu);
    struct gm_snapshot *s = gm_snapshot_ref(sp->latest);
    pthread_mutex_unlock(&sp->mu);
    return s;
}

void gm_sampler_stats(struct gm_sampler *sp, struct gm_sampler_stats *out)
{
    pthread_mutex_lock(&sp->mu);
    *out = sp->st;
    pthread_mutex_unlock(&sp->mu);
}

const char *gm_sampler_current_call(struct gm_sampler *sp, int *gpu)
{
    return gm_collector_current_call(sp->col, gpu);
}

int gm_sampler_stop(struct gm_sampler *sp, int64_t timeout_ns)
{
    if (!sp)
        return 0;
    int64_t deadline = gm_mono_ns() + timeout_ns;
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000LL),
                          .tv_nsec = (long)(deadline % 1000000000LL)};
    pthread_mutex_lock(&sp->mu);
    sp->stop = 1;
    pthread_cond_broadcast(&sp->wake_cv);
    while (!sp->finished)
        if (pthread_cond_timedwait(&sp->fin_cv, &sp->mu, &ts) != 0 && !sp->finished)
            break;
    int finished = sp->finished;
    pthread_mutex_unlock(&sp->mu);
    if (!finished) {
        /* When its NVML call returns the thread may still publish what it
         * sampled: not to the sinks the caller stops and frees next. */
        gm_sampler_set_sinks(sp, NULL, 0);
        pthread_detach(sp->thread);
        return GM_E_TIMEOUT;
    }
    pthread_join(sp->thread, NULL);
    gm_snapshot_unref(sp->latest);
    for (int i = 0; i < SAMPLER_POOL; i++)
        gm_snapshot_unref(sp->pool[i]);
    gm_collector_close(sp->col);
    pthread_cond_destroy(&sp->fin_cv);
    pthread_cond_destroy(&sp->wake_cv);
    pthread_mutex_destroy(&sp->mu);
    pthread_mutex_destroy(&sp->pub_mu);
    free(sp);
    return 0;
}

struct gm_snapshot *gm_sampler_once(struct gm_collector *c, struct gm_sink *const *sinks,
                                    int nsinks)
{
    struct seen sn;
    memset(&sn, 0, sizeof(sn));
    struct gm_snapshot *s = gm_snapshot_new();
    gm_collector_sample(c, s, 0, NULL);
    observe(&sn, s, sinks, nsinks, 0);
    for (int i = 0; i < nsinks; i++)
        gm_sink_push(sinks[i], s);
    return s;
}

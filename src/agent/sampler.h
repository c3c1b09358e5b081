/* sampler.h -- the agent's single sampler thread.
 *
 * DESIGN principles 2 and 4: one thread owns NVML and takes a snapshot on a
 * drift-free cadence (absolute deadlines on the monotonic clock).  A sample
 * that overruns its interval is logged and the missed deadlines skipped,
 * never piled up.  Each snapshot goes to every sink through its bounded
 * queue; the sampler never waits for a sink.
 *
 * It also notices changes of state -- the driver going away or coming back,
 * a GPU lost or back, the wall clock stepping back or forward against the
 * monotonic one -- logs one line per change (not per sample) and sends an
 * event to the sinks.  While the driver is away, snapshots still come on
 * time and say so (explicit status rows); NVML init is retried with capped
 * exponential backoff, and recording resumes without a restart.
 */
#ifndef GM_AGENT_SAMPLER_H
#define GM_AGENT_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "collector.h"
#include "../core/event.h"
#include "sink.h"

struct gm_sampler;

struct gm_sampler_stats {
    uint64_t samples;  /* snapshots taken */
    uint64_t overruns; /* samples that took longer than the interval */
    uint64_t skipped;  /* deadlines skipped because of overruns */
    int64_t last_duration_ns;
    int64_t last_wall_ns;         /* wall time of the latest snapshot */
    int64_t busy_since_mono;      /* start of the sample in progress, 0 when idle */
    int driver_state;             /* enum gm_driver_state of the latest snapshot */
    uint64_t clock_steps_back;    /* steps of the wall clock back (against monotonic) */
    uint64_t clock_steps_forward; /* and forward */
};

/* Takes ownership of the collector.  sinks[] are borrowed; the sampler
 * pushes to them until stopped.  Returns NULL only on thread failure. */
struct gm_sampler *gm_sampler_start(struct gm_collector *c, int64_t interval_ns,
                                    struct gm_sink *const *sinks, int nsinks);

/* The clock the sampler keeps its grid on, for tests that run it on a
 * virtual one.  now() is the monotonic time in ns; sleep_until() returns once
 * now() has reached deadline (or at once if it already has).  Between two
 * sleep_until() calls the sampler reads now() exactly twice: as the sample
 * starts and as it ends (and once before the first deadline).  A stop is
 * seen after sleep_until() returns: a test's sleep_until must return for the
 * sampler to stop.  Zeroed (or NULL options), it is CLOCK_MONOTONIC with a
 * timed wait that gm_sampler_stop() ends early. */
struct gm_sampler_clock {
    int64_t (*now)(void *arg);
    void (*sleep_until)(void *arg, int64_t deadline);
    void *arg;
};

/* An event sender for an inspector: sends e to every sink of the list the
 * snapshot being inspected goes to. */
struct gm_sampler_emit {
    struct gm_sink *const *sinks;
    int n;
};
void gm_sampler_emit(const struct gm_sampler_emit *to, const struct gm_event *e);

struct gm_sampler_opts {
    struct gm_sampler_clock clock;
    /* Called on the sampler thread with each snapshot before any sink sees
     * it: it may fill fields the collector leaves alone (the agent's
     * diagnosis sets s->gpus[].diag) and send events with gm_sampler_emit.
     * It must not block; NULL: none. */
    void (*inspect)(void *arg, struct gm_snapshot *s, const struct gm_sampler_emit *to);
    void *inspect_arg;
};

/* gm_sampler_start with options (o may be NULL: the defaults). */
struct gm_sampler *gm_sampler_start_opts(struct gm_collector *c, int64_t interval_ns,
                                         struct gm_sink *const *sinks, int nsinks,
                                         const struct gm_sampler_opts *o);

/* Replaces the sink list (after a config reload).  Every snapshot goes to
 * all of the old list or all of the new one: when this returns, no push to
 * an old sink is in progress or will come, so the caller may stop the sinks
 * it dropped.  The snapshot being sampled goes to the new list. */
void gm_sampler_set_sinks(struct gm_sampler *sp, struct gm_sink *const *sinks, int nsinks);

/* The same, calling at_switch(arg) (when not NULL) at the switch itself:
 * after the last snapshot and event that go to the old list and before the
 * first that goes to the new one.  at_switch must not block (it may queue
 * items on sinks, e.g. gm_sink_post_call). */
void gm_sampler_switch_sinks(struct gm_sampler *sp, struct gm_sink *const *sinks, int nsinks,
                             void (*at_switch)(void *arg), void *arg);
void gm_sampler_set_interval(struct gm_sampler *sp, int64_t interval_ns);

/* Sends an event to every sink (marks, agent lifecycle); thread-safe. */
void gm_sampler_event(struct gm_sampler *sp, const struct gm_event *e);

/* The latest snapshot with a new reference (gm_snapshot_unref it), or NULL. */
struct gm_snapshot *gm_sampler_latest(struct gm_sampler *sp);

void gm_sampler_stats(struct gm_sampler *sp, struct gm_sampler_stats *out);

/* Name of the NVML call in progress and its GPU, for "hung" reports. */
const char *gm_sampler_current_call(struct gm_sampler *sp, int *gpu);

/* Stops the thread, waiting at most timeout_ns for a sample in progress.
 * Returns 0, or GM_E_TIMEOUT when the thread is stuck in NVML (it is then
 * detached, and the collector leaked to the process's exit).  Either way,
 * when this returns nothing more is pushed to the sinks (a stuck thread's
 * list is emptied first), so the caller may stop them. */
int gm_sampler_stop(struct gm_sampler *sp, int64_t timeout_ns);

/* One sample now, on the caller's thread, pushed to the sinks (record
 * --once).  Returns the snapshot with a reference for the caller. */
struct gm_snapshot *gm_sampler_once(struct gm_collector *c, struct gm_sink *const *sinks,
                                    int nsinks);

/* One sample that ran past the next deadline, as the sampler measured it
 * (monotonic ns): due is the deadline it was scheduled for, woke when it
 * started (after the wait), done when it finished; missed deadlines were
 * skipped; since counts the overruns this report covers. */
struct gm_sampler_overrun {
    int64_t due, woke, done, interval;
    int64_t missed;
    uint64_t since;
};

/* The warning for an overrun into dst[len] (NUL-terminated, cut to fit),
 * saying which happened: a "slow sample" when the sample's own duration
 * (done - woke) reached the interval, else a "late wake-up" (the sample fit,
 * but the thread woke after its deadline: the machine was busy), each with
 * the measured figures.  Returns dst. */
const char *gm_sampler_overrun_msg(const struct gm_sampler_overrun *o, char *dst, size_t len);

#endif /* GM_AGENT_SAMPLER_H */

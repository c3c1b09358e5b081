/* sink.h -- the runner of the agent's consumers of snapshots: each sink
 * (core/sinkops.h says what one implements) gets its own thread and a
 * bounded queue.
 *
 * DESIGN principle 2: the sampler never blocks on disk or network.  It hands
 * each sink a reference to the immutable snapshot (gm_snapshot_ref); when a
 * sink's queue is full the item is dropped and counted, never waited for.
 * Everything a sink does (writing, flushing, compressing old files) happens
 * on its own thread.  CSV log, SQLite store, exporter and alerts are sinks.
 */
#ifndef GM_AGENT_SINK_H
#define GM_AGENT_SINK_H

#include <stdint.h>

#include "../core/event.h"
#include "../core/sinkops.h"
#include "../core/snapshot.h"

struct gm_sink;

struct gm_sink_stats {
    uint64_t snapshots; /* written */
    uint64_t events;
    uint64_t dropped;   /* queue full: not written */
    uint64_t errors;    /* write/event callbacks that failed */
    uint32_t queue_len; /* now */
    uint32_t queue_max; /* high-water mark */
};

/* Starts a sink thread over ops/ctx with a queue of `capacity` items.  Takes
 * ownership of ctx (ops->close frees it). */
struct gm_sink *gm_sink_start(const struct gm_sink_ops *ops, void *ctx, unsigned capacity);

/* Like gm_sink_start, but the thread processes nothing (no writes, no
 * ticks) until gm_sink_resume: items queue meanwhile (and are dropped and
 * counted when the queue fills).  A reload starts a replacement sink paused
 * so that it never writes beside the sink it replaces. */
struct gm_sink *gm_sink_start_paused(const struct gm_sink_ops *ops, void *ctx, unsigned capacity);
void gm_sink_resume(struct gm_sink *k);

/* Changes how many snapshots and events may wait (a reload's queue-size);
 * items already queued stay. */
void gm_sink_set_capacity(struct gm_sink *k, unsigned capacity);

/* Queues a call of fn(ctx, arg) on the sink's thread, after the items
 * queued before it and before those queued after (a reload's new settings
 * take effect at a known point).  Never dropped and never blocks; takes
 * ownership of arg, which is free()d after fn returns. */
void gm_sink_post_call(struct gm_sink *k, void (*fn)(void *ctx, void *arg), void *arg);

/* Queues a snapshot reference (takes a new reference; never blocks).
 * Returns 0, or GM_E_BUSY when the queue was full and the item dropped. */
int gm_sink_push(struct gm_sink *k, struct gm_snapshot *s);

/* Queues a copy of an event (never blocks). */
int gm_sink_push_event(struct gm_sink *k, const struct gm_event *e);

/* Asks the sink to reopen its files (SIGHUP); asynchronous. */
void gm_sink_request_reopen(struct gm_sink *k);

/* Drains the queue, flushes, closes and joins the thread, waiting at most
 * timeout_ns; returns GM_E_TIMEOUT if the sink did not finish (its thread is
 * then detached and left to the process's exit). */
int gm_sink_stop(struct gm_sink *k, int64_t timeout_ns);

/* gm_sink_stop that also returns the sink's last counters in *final (when
 * not NULL): what it wrote, dropped and failed over its whole life. */
int gm_sink_stop_stats(struct gm_sink *k, int64_t timeout_ns, struct gm_sink_stats *final);

void gm_sink_stats(struct gm_sink *k, struct gm_sink_stats *out);
const char *gm_sink_name(const struct gm_sink *k);

#endif /* GM_AGENT_SINK_H */

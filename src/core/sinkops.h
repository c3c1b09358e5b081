/* sinkops.h -- the contract between the agent and its consumers of
 * snapshots: what a sink implements.
 *
 * It sits on the ground floor so that the modules that provide sinks (the
 * CSV log and the store in store/, the exporter in export/, the alerter in
 * alert/) implement it without knowing the agent; the runner that gives
 * each sink its thread and bounded queue is the agent's (agent/sink.h).
 */
#ifndef GM_CORE_SINKOPS_H
#define GM_CORE_SINKOPS_H

#include <stdint.h>

#include "event.h"
#include "snapshot.h"

/* What a sink implements.  All callbacks run on the sink's thread, one at a
 * time, in queue order.  ctx is the sink's own state.  A callback that
 * fails returns a negative GM_E* code; the runner counts it, the sink logs. */
struct gm_sink_ops {
    const char *name;
    int (*write)(void *ctx, const struct gm_snapshot *s); /* required */
    int (*event)(void *ctx, const struct gm_event *e);    /* optional */
    int (*flush)(void *ctx);                              /* optional: make durable */
    int (*reopen)(void *ctx);                             /* optional: SIGHUP */
    void (*tick)(void *ctx, int64_t now_wall_ns);         /* optional: housekeeping,
                                                             called about once a second
                                                             when the queue is idle */
    void (*close)(void *ctx);                             /* optional: flush and free */
};

#endif /* GM_CORE_SINKOPS_H */

/* engine.h -- evaluating alert rules on snapshots: the state of every rule
 * on every GPU (inactive, pending, firing), and the notices people get.
 *
 * The engine is fed snapshots (gm_engine_eval) and Xid events
 * (gm_engine_xid) in time order by one thread -- the agent's alert sink, or
 * `gpumon alerts test` -- and calls a notice function on every change a
 * person should hear about: firing, resolved, and repeats while firing.
 * Durations are measured on a clock the caller chooses (the agent passes
 * monotonic time, `record --once` wall time, the rule tester scenario time),
 * so the state machine itself never reads a clock.
 *
 * State is per (rule, GPU); a GPU is identified by its UUID where known,
 * else by its index.  For the rules' window functions the engine keeps, per
 * GPU, the history of each value some window uses, over the longest window
 * used on it (window.h: at most GM_WINDOW_BUCKETS + 2 buckets of 80 bytes
 * per value and GPU).  It lives in memory only: gm_engine_save does not
 * carry it, and a reload keeps it while the longest window stays the same.  gm_engine_set_rules
 * keeps the state of every rule whose definition did not change; the firing alerts of a rule that
 * was removed or changed are resolved with a notice.  gm_engine_save / gm_engine_load carry the
 * state between runs of `gpumon record --once` (cron).
 *
 * Thread-safety: one feeding thread; gm_engine_json may be called from any
 * thread (the agent's control socket) -- an internal mutex serialises them.
 */
#ifndef GM_ALERT_ENGINE_H
#define GM_ALERT_ENGINE_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"
#include "alert.h"
#include "rule.h"

struct gm_engine;

typedef void (*gm_engine_notice_fn)(void *arg, const struct gm_alert *a);

/* A new engine over a copy of rules (only the enabled ones are evaluated). */
struct gm_engine *gm_engine_new(const struct gm_rules *rules);
void gm_engine_free(struct gm_engine *e);

/* Replaces the rules.  State of rules whose definition is unchanged is kept;
 * alerts of removed or changed rules that were firing resolve (notices go
 * to fn at wall time now_wall_ns). */
void gm_engine_set_rules(struct gm_engine *e, const struct gm_rules *rules, int64_t now_wall_ns,
                         gm_engine_notice_fn fn, void *arg);

/* Evaluates every rule on s.  t_ns is the duration clock's time of s. */
void gm_engine_eval(struct gm_engine *e, const struct gm_snapshot *s, int64_t t_ns,
                    gm_engine_notice_fn fn, void *arg);

/* An Xid event on GPU gpu (index; uuid when known) at wall_ns / t_ns: the
 * rules that use `xid` are evaluated at once against the latest snapshot. */
void gm_engine_xid(struct gm_engine *e, int gpu, const char *uuid, int xid, int64_t wall_ns,
                   int64_t t_ns, gm_engine_notice_fn fn, void *arg);

/* Sends every firing alert again with repeat = 2 (a resync after the
 * notifier was restarted). */
void gm_engine_resync(struct gm_engine *e, int64_t now_wall_ns, gm_engine_notice_fn fn, void *arg);

/* The states that are not inactive, as a JSON object:
 * {"rules": N, "alerts": [{rule, severity, state, gpu, uuid, ...}, ...]}. */
void gm_engine_json(struct gm_engine *e, struct gm_buf *out);

/* The same as a table for people ("no alerts pending or firing" when empty). */
void gm_engine_text(struct gm_engine *e, struct gm_buf *out);

/* Copies up to max alerts that are pending or firing now into out (firing
 * first, then pending; in rule order within each) and returns how many
 * there are in all (may exceed max).  Any thread. */
int gm_engine_active(struct gm_engine *e, struct gm_alert_now *out, int max);
/* The same with SINCE as the scenario time of `gpumon alerts test`: wall
 * time w shows as t0_ns + (w - wall0_ns), in seconds. */
void gm_engine_text_at(struct gm_engine *e, struct gm_buf *out, int64_t wall0_ns, int64_t t0_ns);

/* Counts of alerts pending and firing. */
void gm_engine_counts(struct gm_engine *e, int *pending, int *firing);

/* Saves / restores the state (cron).  Loading skips entries of rules that
 * changed since; a missing file is not an error (GM_E_NOTFOUND is returned
 * so the caller can tell). t_ns of the saved file must be on the same clock. */
int gm_engine_save(struct gm_engine *e, const char *path, struct gm_err *err);
int gm_engine_load(struct gm_engine *e, const char *path, struct gm_err *err);

/* Whether the process runs in a nested PID namespace (set once by the
 * caller; procs.dead_memory is then unknown). */
void gm_engine_set_pid_ns_nested(struct gm_engine *e, int nested);

/* 1 when /proc/self/status shows more than one NSpid level. */
int gm_pid_ns_nested(void);

#endif /* GM_ALERT_ENGINE_H */

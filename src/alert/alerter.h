/* alerter.h -- the agent's alert sink: the rule engine fed by the sampler,
 * its notices handed to the notifier, and the notices recorded beside the
 * samples (CSV events, the store's alerts table).
 *
 * It outlives the agent's sinks: a SIGHUP rebuilds the sinks, while the
 * alerter keeps its rule states (gm_alerter_reconfigure) and restarts the
 * notifier only when its channels changed.  The sink that feeds it
 * (gm_alerter_sink_ops, ctx = the alerter) does nothing on close.
 *
 * Evaluation runs on that sink's thread, never on the sampler's; delivery
 * runs on the notifier's threads, never on the sink's.
 */
#ifndef GM_ALERT_ALERTER_H
#define GM_ALERT_ALERTER_H

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/event.h"
#include "../core/sinkops.h"
#include "notify.h"
#include "rule.h"

struct gm_alerter;

/* What the alerter is set up from (the agent fills it from its settings;
 * every pointer is borrowed for the call: the alerter copies what it keeps). */
struct gm_alerter_conf {
    const struct gm_rules *rules;        /* the rules in force */
    const struct gm_notify_conf *notify; /* [notify.NAME] channels */
    int nnotify;
    const char *alert_log;   /* the alert log (required) */
    const char *alert_state; /* rule state between `record --once` runs */
    unsigned queue_size;     /* notices each channel may have waiting */
};

/* Where the alerter sends its GM_EV_ALERT events (to the other sinks). */
typedef void (*gm_alerter_event_fn)(void *arg, const struct gm_event *e);

/* Starts the engine and the notifier from c.  once: `record --once` -- the
 * rule state is loaded from and saved to c->alert_state, and durations use
 * wall time.  Returns NULL with err on failure (the alert log or a channel
 * could not be set up). */
struct gm_alerter *gm_alerter_start(const struct gm_alerter_conf *c, int once,
                                    gm_alerter_event_fn fn, void *arg, struct gm_err *err);

/* Applies a reloaded configuration: rules whose definition did not change
 * keep their state; the notifier restarts only if its settings changed (and
 * is then told what is firing).  On failure the running setup stays. */
int gm_alerter_reconfigure(struct gm_alerter *a, const struct gm_alerter_conf *c,
                           struct gm_err *err);

/* The sink interface; ctx is the alerter (close does nothing). */
extern const struct gm_sink_ops gm_alerter_sink_ops;

/* `gpumon alerts`: the states and the notification channels, as JSON. */
void gm_alerter_json(struct gm_alerter *a, struct gm_buf *out);

/* The live page's alerts (gm_engine_active): up to max pending or firing
 * alerts copied into out; returns how many there are in all.  Any thread. */
int gm_alerter_active(struct gm_alerter *a, struct gm_alert_now *out, int max);

/* The same for people: a table of the alerts, then one line per channel. */
void gm_alerter_text(struct gm_alerter *a, struct gm_buf *out);

/* Stops: delivers queued notices within timeout_ns; in once mode saves the
 * rule state.  Accepts NULL. */
int gm_alerter_stop(struct gm_alerter *a, int64_t timeout_ns, struct gm_err *err);

#endif /* GM_ALERT_ALERTER_H */

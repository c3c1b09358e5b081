/* daemon_int.h -- the agent's state while it runs, shared by the files of
 * the daemon (daemon.c: life cycle and signals; sinkset.c: the sinks and
 * the modules behind them; daemon_ctl.c: the control socket's requests).
 * Not a public header: nothing outside src/agent/daemon*.c and sinkset.c
 * includes it.
 *
 * Threads: the main thread owns every field except where a comment says
 * otherwise; the sampler, sink, control and Xid threads reach the daemon
 * only through the fields marked with the mutex that guards them.
 */
#ifndef GM_AGENT_DAEMON_INT_H
#define GM_AGENT_DAEMON_INT_H

#include <pthread.h>
#include <stdint.h>

#include "../alert/alerter.h"
#include "../export/exporter.h"
#include "../store/store.h"
#include "config.h"
#include "diagstage.h"
#include "sampler.h"
#include "sink.h"

#define GM_DAEMON_MAX_SINKS 8

/* --once (cron): the exit waits this long for the CSV and store sinks,
 * which maintain their files as they close. */
#define GM_DAEMON_ONCE_STOP_NS 30000000000LL

struct gm_sinkset {
    struct gm_sink *k[GM_DAEMON_MAX_SINKS];
    int n;
    /* the sinks a reload carries over instead of restarting: the alerter's
     * and the exporter's (their objects outlive the set anyway), the CSV
     * log's while its settings are unchanged (it reopens its files), and the
     * store's while it stays in the same file (new settings are applied on
     * its one connection) -- a second connection that opens the store while
     * the first still writes can find it locked */
    struct gm_sink *alert, *export, *csv, *store;
    char csv_host[65]; /* the host column the CSV writer was opened with */
};

/* A reload's new settings for the store on its connection (a post_call arg). */
struct gm_store_reconf {
    struct gm_store_opts o;
    char task[64];
};

/* What a reload does at and after the switch to the new set: the carried
 * store sink's new settings (posted at the switch, so every snapshot before
 * it is stored with the old ones and every one after with the new), and the
 * sinks started paused until the ones they replace have finished (a new CSV
 * writer never appends beside the old one). */
struct gm_reload_plan {
    struct gm_sink *store_reconf;
    struct gm_store_reconf *reconf; /* owned until posted */
    struct gm_sink *paused[GM_DAEMON_MAX_SINKS];
    int npaused;
    struct gm_sink *reopen; /* the carried CSV sink: reopens its files */
};

struct gm_daemon {
    struct gm_config cfg; /* the running configuration */
    int once;             /* record --once */
    void (*status_json)(const struct gm_snapshot *s, int command_lines,
                        struct gm_buf *out); /* daemon.h */

    /* The exporter outlives sink restarts (its listener keeps its port
     * across a reload); the sink set holds a sink that renders into it. */
    struct gm_exporter *exporter;
    /* The fleet page's rounds over the agents of fleet = (docs/fleet.md;
     * daemon.h's fleet_start), NULL when none are configured; started
     * before the exporter, which serves its document, and stopped after
     * it.  They live for the process: a reload that changes fleet = says it
     * needs a restart. */
    void *fleet;
    void *(*fleet_start)(const struct gm_config *c, struct gm_err *err);
    int (*fleet_json)(void *fleet, struct gm_buf *out);
    void (*fleet_stop)(void *fleet);
    /* The alerter, like the exporter, outlives sink restarts (it keeps the
     * rule states); its sink comes first in the set so that, when the sinks
     * stop in order, the alert events it sends to the CSV log and the store
     * still reach them. */
    struct gm_alerter *alerter;
    /* guards alerter against the live page's and the control socket's
     * reads (the main thread alone changes it); never taken with sinks_mu
     * held (see live_alerts) */
    pthread_mutex_t alerter_mu;

    pthread_mutex_t sinks_mu; /* guards sinks (the alerter and control threads read it) */
    struct gm_sinkset sinks;

    struct gm_sampler *sampler;
    struct gm_diagstage *diag;      /* the running diagnosis (the sampler's inspect hook) */
    pthread_mutex_t xid_mu;         /* guards xid_sampler */
    struct gm_sampler *xid_sampler; /* where Xid events go; NULL once stopping */

    pthread_mutex_t task_mu; /* guards task: a reload changes it, marks read it */
    char task[GM_TASK_MAX + 1];

    /* atomics: what sinks replaced by reloads dropped and failed over their
     * lives (so that their losses stay counted), and reloads that took
     * effect or failed (the running configuration kept) */
    uint64_t replaced_dropped, replaced_errors;
    uint64_t reloads_ok, reloads_failed;
    /* atomic: marks and steps refused for a time more than GM_MARK_WINDOW_S
     * from the agent's clock */
    uint64_t marks_out_of_window;
};

/* ---------------------------------------------------------- sinkset.c */

/* The modules' options out of the agent's settings (borrowed from c). */
void gm_daemon_exporter_opts(struct gm_daemon *d, const struct gm_config *c,
                             struct gm_exporter_opts *eo);
void gm_daemon_alerter_conf(const struct gm_config *c, struct gm_alerter_conf *ac);

/* Where the alerter's events go: every sink of d's current set but its own
 * (a gm_alerter_event_fn; arg is d). */
void gm_daemon_alert_forward(void *arg, const struct gm_event *e);

/* Opens the sinks of configuration c into set.  On a reload, old and
 * old_cfg are the running set and configuration, and plan receives what
 * must happen at and after the switch (struct gm_reload_plan): the sinks
 * that can carry over are put into set as they are (see struct
 * gm_sinkset), a replacement CSV sink starts paused.  On failure nothing of
 * old is touched and what was started here is stopped. */
int gm_sinkset_open(struct gm_daemon *d, const struct gm_config *c, struct gm_sinkset *set,
                    const struct gm_sinkset *old, const struct gm_config *old_cfg,
                    struct gm_reload_plan *plan, struct gm_err *err);

/* Stops the sinks of set that keep does not hold (keep may be NULL; when
 * it is not, the stopped sinks' losses are added to d's replaced_*).
 * Returns 0, or -1 when one did not finish by deadline. */
int gm_sinkset_stop_except(struct gm_daemon *d, struct gm_sinkset *set,
                           const struct gm_sinkset *keep, int64_t deadline);

/* At the switch (gm_sampler_switch_sinks; arg is the plan): the carried
 * store's new settings. */
void gm_reload_at_switch(void *arg);

/* Starts the exporter, the alerter and the sinks of d->cfg; on failure
 * nothing is left running (err says why). */
int gm_daemon_modules_start(struct gm_daemon *d, struct gm_err *err);

/* Stops the alerter (err: why its state was not saved, in --once; the
 * return value is its status) and the exporter; either may be absent. */
int gm_daemon_modules_stop(struct gm_daemon *d, int64_t alerter_timeout_ns, struct gm_err *err);

/* SIGHUP: builds the configuration again (o->build) and applies it without
 * losing a row.  Returns 0 when it took effect; -1 when it failed, logged
 * and counted, with the running configuration kept. */
struct gm_daemon_opts;
int gm_daemon_reload(struct gm_daemon *d, const struct gm_daemon_opts *o);

/* ------------------------------------------------------- daemon_ctl.c */

/* The control socket's requests (a gm_control_handler; arg is d): "PING",
 * "STATUS", "ALERTS" (JSON), "ALERTS TEXT", "MARK <wall_ns> <task|-> <text>". */
void gm_daemon_control(void *arg, const char *req, size_t len, struct gm_buf *out);

#endif /* GM_AGENT_DAEMON_INT_H */

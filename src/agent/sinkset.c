/* sinkset.c -- what runs behind the agent's sampler: the modules (exporter,
 * alerter) and the sinks, started from a configuration, carried over a
 * reload where their files stay the same, and stopped (daemon_int.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/log.h"
#include "../core/safefile.h"
#include "../core/timeutil.h"
#include "../store/csv.h"
#include "daemon.h"
#include "daemon_int.h"

/* ------------------------------------------------------------- options */

/* /api/v1/usage's reader for the exporter (gm_exporter_opts.usage_json):
 * the store's, which the exporter, a sibling layer, does not include. */
static int usage_json(const char *path, int64_t from_ns, int by, struct gm_buf *out,
                      struct gm_err *err)
{
    struct gm_usage_opts o = {.path = path, .from_ns = from_ns, .to_ns = 0, .gpu = -1, .by = by};
    return gm_store_usage_api(&o, out, err);
}

/* The live page's alerts (an exporter_opts.alerts): the alerter's, under
 * alerter_mu, which a reload or the stop that frees the alerter takes to
 * clear d->alerter first.  Not sinks_mu: gm_alerter_active takes the
 * engine's lock, and the engine forwards alert events to the sinks
 * (gm_daemon_alert_forward, sinks_mu) with it held -- the two orders
 * together could deadlock a page request against a firing alert. */
static int live_alerts(void *arg, struct gm_alert_now *out, int max)
{
    struct gm_daemon *d = arg;
    pthread_mutex_lock(&d->alerter_mu);
    int n = d->alerter ? gm_alerter_active(d->alerter, out, max) : -1;
    pthread_mutex_unlock(&d->alerter_mu);
    return n;
}

void gm_daemon_exporter_opts(struct gm_daemon *d, const struct gm_config *c,
                             struct gm_exporter_opts *eo)
{
    memset(eo, 0, sizeof(*eo));
    eo->listen = c->listen;
    eo->prom.names = c->names;
    eo->prom.hostname_label = c->hostname_label;
    eo->prom.no_hostname = !c->hostname;
    /* checked when the configuration was read (gm_exporter_conf_check) */
    char why[256];
    if (gm_prom_label_fields(c->dcgm_label_fields, &eo->prom.dcgm_labels, why, sizeof why) != 0)
        eo->prom.dcgm_labels = 0;
    eo->prom.process_metrics = c->process_metrics;
    eo->prom.max_process_series = c->max_process_series;
    eo->textfile_dir = c->textfile_dir[0] ? c->textfile_dir : NULL;
    eo->store_path = c->store && c->store_path[0] ? c->store_path : NULL;
    eo->usage_json = usage_json;
    eo->web_config = c->web_config[0] ? c->web_config : NULL;
    eo->allowed_hosts = c->allowed_hosts;
    eo->api_command_lines = c->api_command_lines;
    eo->max_connections = c->max_connections;
    eo->connection_timeout_ns = c->connection_timeout_ns;
    eo->stale_after_ns = c->stale_after_ns;
    eo->status_json = d->status_json;
    eo->alerts = live_alerts;
    eo->alerts_arg = d;
    eo->fleet_json = d->fleet ? d->fleet_json : NULL;
    eo->fleet_arg = d->fleet;
    eo->log = gm_log_cb;
}

void gm_daemon_alerter_conf(const struct gm_config *c, struct gm_alerter_conf *ac)
{
    ac->rules = &c->rules;
    ac->notify = c->notify;
    ac->nnotify = c->nnotify;
    ac->alert_log = c->alert_log;
    ac->alert_state = c->alert_state;
    ac->queue_size = c->queue_size;
}

/* --------------------------------------------------------------- sets */

static void store_reconfigure(void *ctx, void *arg)
{
    struct gm_store_reconf *r = arg;
    gm_store_reconfigure(ctx, &r->o);
}

void gm_daemon_alert_forward(void *arg, const struct gm_event *e)
{
    struct gm_daemon *d = arg;
    pthread_mutex_lock(&d->sinks_mu);
    for (int i = 0; i < d->sinks.n; i++)
        if (strcmp(gm_sink_name(d->sinks.k[i]), gm_alerter_sink_ops.name) != 0)
            gm_sink_push_event(d->sinks.k[i], e);
    pthread_mutex_unlock(&d->sinks_mu);
}

static int in_set(const struct gm_sinkset *set, const struct gm_sink *k)
{
    for (int i = 0; set && i < set->n; i++)
        if (set->k[i] == k)
            return 1;
    return 0;
}

int gm_sinkset_stop_except(struct gm_daemon *d, struct gm_sinkset *set,
                           const struct gm_sinkset *keep, int64_t deadline)
{
    int rc = 0;
    for (int i = 0; i < set->n; i++) {
        if (in_set(keep, set->k[i]))
            continue;
        int64_t left = deadline - gm_mono_ns();
        struct gm_sink_stats fin;
        const char *name = gm_sink_name(set->k[i]);
        if (gm_sink_stop_stats(set->k[i], left > 0 ? left : 1, &fin) != 0) {
            gm_log(GM_LOG_ERR, "the %s sink did not finish in time; %s", name,
                   keep ? "its replacement starts anyway" : "exiting without it");
            rc = -1;
        }
        if (keep) {
            __atomic_add_fetch(&d->replaced_dropped, fin.dropped, __ATOMIC_RELAXED);
            __atomic_add_fetch(&d->replaced_errors, fin.errors, __ATOMIC_RELAXED);
        }
    }
    set->n = 0;
    set->alert = set->export = set->csv = set->store = NULL;
    return rc;
}

static int same_store(const struct gm_config *a, const struct gm_config *b)
{
    return !strcmp(a->store_path, b->store_path) && !strcmp(a->task, b->task) &&
           a->store_retention_raw_ns == b->store_retention_raw_ns &&
           a->store_retention_1m_ns == b->store_retention_1m_ns &&
           a->store_retention_1h_ns == b->store_retention_1h_ns &&
           a->interval_ns == b->interval_ns && a->procs == b->procs && a->store_gpm == b->store_gpm;
}

/* The two paths name one database file (the same string, or links to one
 * existing file). */
static int same_store_file(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int same_csv(const struct gm_config *a, const struct gm_config *b)
{
    return !strcmp(a->csv_dir, b->csv_dir) && !strcmp(a->task, b->task) &&
           !strcmp(a->columns, b->columns) && a->procs == b->procs &&
           a->retention_ns == b->retention_ns && a->compress_after_ns == b->compress_after_ns &&
           a->csv_sync == b->csv_sync;
}

static void store_opts_from(const struct gm_config *c, struct gm_store_opts *so)
{
    memset(so, 0, sizeof(*so));
    so->path = c->store_path;
    so->task = c->task;
    so->retention_raw_ns = c->store_retention_raw_ns;
    so->retention_1m_ns = c->store_retention_1m_ns;
    so->retention_1h_ns = c->store_retention_1h_ns;
    so->commit_interval_ns = 1000000000LL;
    so->interval_ns = c->interval_ns;
    so->procs = c->procs;
    so->gpm = c->store_gpm;
    so->log = gm_log_cb;
}

int gm_sinkset_open(struct gm_daemon *d, const struct gm_config *c, struct gm_sinkset *set,
                    const struct gm_sinkset *old, const struct gm_config *old_cfg,
                    struct gm_reload_plan *plan, struct gm_err *err)
{
    set->n = 0;
    set->alert = set->export = set->csv = set->store = NULL;
    if (c->alerts && d->alerter) {
        set->alert = old && old->alert
                         ? old->alert
                         : gm_sink_start(&gm_alerter_sink_ops, d->alerter, c->queue_size);
        set->k[set->n++] = set->alert;
    }
    if (c->exporter && d->exporter) {
        set->export = old && old->export
                          ? old->export
                          : gm_sink_start(&gm_exporter_sink_ops, d->exporter, c->queue_size);
        set->k[set->n++] = set->export;
    }
    char host[65] = "";
    gethostname(host, sizeof(host) - 1);
    gm_strlcpy(set->csv_host, host, sizeof(set->csv_host));
    if (c->csv && old && old_cfg && old->csv && same_csv(c, old_cfg) &&
        !strcmp(host, old->csv_host)) {
        /* the same log: keep its writer, which reopens its files after the
         * switch (logrotate moved them) */
        set->csv = old->csv;
        set->k[set->n++] = set->csv;
        if (plan)
            plan->reopen = set->csv;
    } else if (c->csv) {
        int cols[128], ncols = 0;
        if (c->columns[0] && gm_csv_parse_columns(c->columns, cols, 128, &ncols, err) != 0)
            return err ? err->code : GM_E_INVAL;
        struct gm_csv_opts co = {
            .dir = c->csv_dir,
            .task = c->task,
            .host = host,
            .columns = ncols ? cols : NULL,
            .ncolumns = ncols,
            .procs = c->procs,
            .retention_ns = c->retention_ns,
            .compress_after_ns = c->compress_after_ns,
            .sync = c->csv_sync,
            .log = gm_log_cb,
        };
        struct gm_csv *csv = gm_csv_open(&co, err);
        if (!csv) {
            gm_sinkset_stop_except(d, set, old, gm_mono_ns() + 2000000000LL);
            return err ? err->code : GM_E_IO;
        }
        /* beside a running writer, this one waits until that one has finished */
        if (plan && old && old->csv) {
            set->csv = gm_sink_start_paused(d->once ? &gm_csv_once_sink_ops : &gm_csv_sink_ops, csv,
                                            c->queue_size);
            plan->paused[plan->npaused++] = set->csv;
        } else {
            set->csv = gm_sink_start(d->once ? &gm_csv_once_sink_ops : &gm_csv_sink_ops, csv,
                                     c->queue_size);
        }
        set->k[set->n++] = set->csv;
    }
    if (c->store && old && old_cfg && old->store &&
        same_store_file(c->store_path, old_cfg->store_path)) {
        /* the same file: one connection, so never two writers on its lock */
        set->store = old->store;
        set->k[set->n++] = set->store;
        if (plan && !same_store(c, old_cfg)) {
            struct gm_store_reconf *r = gm_xcalloc(1, sizeof(*r));
            store_opts_from(c, &r->o);
            gm_strlcpy(r->task, c->task, sizeof(r->task));
            r->o.task = r->task;
            r->o.path = NULL;
            plan->store_reconf = set->store;
            plan->reconf = r;
        }
    } else if (c->store) {
        struct gm_store_opts so;
        store_opts_from(c, &so);
        struct gm_store *st = gm_store_open(&so, err);
        if (!st) {
            gm_sinkset_stop_except(d, set, old, gm_mono_ns() + 2000000000LL);
            return err ? err->code : GM_E_IO;
        }
        set->store = gm_sink_start(d->once ? &gm_store_once_sink_ops : &gm_store_sink_ops, st,
                                   c->queue_size);
        set->k[set->n++] = set->store;
    }
    return 0;
}

void gm_reload_at_switch(void *arg)
{
    struct gm_reload_plan *plan = arg;
    if (plan->store_reconf) {
        gm_sink_post_call(plan->store_reconf, store_reconfigure, plan->reconf);
        plan->reconf = NULL;
    }
}

/* ------------------------------------------------------------ modules */

/* Stops the alerter (err: why its state was not saved, in --once) and the
 * exporter; either may be absent. */
int gm_daemon_modules_stop(struct gm_daemon *d, int64_t alerter_timeout_ns, struct gm_err *err)
{
    pthread_mutex_lock(&d->alerter_mu); /* the exporter's live page reads it */
    struct gm_alerter *al = d->alerter;
    d->alerter = NULL;
    pthread_mutex_unlock(&d->alerter_mu);
    int rc = gm_alerter_stop(al, alerter_timeout_ns, err);
    gm_exporter_stop(d->exporter);
    d->exporter = NULL;
    if (d->fleet)
        d->fleet_stop(d->fleet); /* after the exporter, which served it */
    d->fleet = NULL;
    return rc;
}

/* Starts the exporter, the alerter and the sinks of d->cfg. */
int gm_daemon_modules_start(struct gm_daemon *d, struct gm_err *err)
{
    const struct gm_config *c = &d->cfg;
    if (c->exporter && !d->once && c->listen[0] && c->fleet[0] && d->fleet_start) {
        /* the fleet page: gpumon_fleet.so loads only here */
        if (!(d->fleet = d->fleet_start(c, err)))
            return 1;
    }
    if (c->exporter && (!d->once || c->textfile_dir[0])) {
        struct gm_exporter_opts eo;
        gm_daemon_exporter_opts(d, c, &eo);
        if (d->once)
            eo.listen = NULL; /* cron: the textfile only */
        if (!(d->exporter = gm_exporter_start(&eo, err))) {
            if (d->fleet)
                d->fleet_stop(d->fleet);
            d->fleet = NULL;
            return 1;
        }
    }
    if (c->alerts) {
        struct gm_alerter_conf ac;
        gm_daemon_alerter_conf(c, &ac);
        struct gm_alerter *al = gm_alerter_start(&ac, d->once, gm_daemon_alert_forward, d, err);
        pthread_mutex_lock(&d->alerter_mu);
        d->alerter = al;
        pthread_mutex_unlock(&d->alerter_mu);
        if (!al) {
            gm_daemon_modules_stop(d, 0, NULL);
            return 1;
        }
    }
    if (gm_sinkset_open(d, c, &d->sinks, NULL, NULL, NULL, err) != 0) {
        gm_daemon_modules_stop(d, 1000000000LL, NULL);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------- reload */

/* Whether the [fleet] section (the fleet page's rounds) differs. */
static int fleet_changed(const struct gm_config *a, const struct gm_config *b)
{
    return strcmp(a->fleet, b->fleet) != 0 || a->fleet_interval_ns != b->fleet_interval_ns ||
           a->fleet_timeout_ns != b->fleet_timeout_ns || a->fleet_tls != b->fleet_tls ||
           strcmp(a->fleet_cacert, b->fleet_cacert) != 0 ||
           strcmp(a->fleet_cert, b->fleet_cert) != 0 || strcmp(a->fleet_key, b->fleet_key) != 0 ||
           strcmp(a->fleet_user, b->fleet_user) != 0 ||
           strcmp(a->fleet_password_file, b->fleet_password_file) != 0;
}

/* SIGHUP: the configuration built again, applied without losing a row.
 * The exporter first (it validates the web config), then the alerter, then
 * new sinks, so a bad new setting leaves the running ones alone. */
int gm_daemon_reload(struct gm_daemon *d, const struct gm_daemon_opts *o)
{
    struct gm_config next;
    struct gm_err e = {0};
    if (o->build(o->build_arg, 1, &next, &e) != 0) {
        __atomic_add_fetch(&d->reloads_failed, 1, __ATOMIC_RELAXED);
        gm_log(GM_LOG_ERR, "reload failed, keeping the running configuration: %s", e.msg);
        return -1;
    }
    if (strcmp(next.data_dir, d->cfg.data_dir) != 0) {
        __atomic_add_fetch(&d->reloads_failed, 1, __ATOMIC_RELAXED);
        gm_log(GM_LOG_ERR,
               "reload: data-dir changed from %s to %s; that needs a "
               "restart, keeping the running configuration",
               d->cfg.data_dir, next.data_dir);
        return -1;
    }
    if (next.pcie != d->cfg.pcie) {
        __atomic_add_fetch(&d->reloads_failed, 1, __ATOMIC_RELAXED);
        gm_log(GM_LOG_ERR,
               "reload: pcie changed from %s to %s; that needs a restart, keeping the running "
               "configuration",
               d->cfg.pcie ? "true" : "false", next.pcie ? "true" : "false");
        return -1;
    }
    if (fleet_changed(&next, &d->cfg))
        gm_log(GM_LOG_WARNING, "reload: the [fleet] section changed; the fleet page keeps its "
                               "nodes and settings until a restart");
    struct gm_exporter_opts eo;
    gm_daemon_exporter_opts(d, &next, &eo);
    struct gm_sinkset fresh = {0};
    struct gm_reload_plan plan = {0};
    int rc = 0;
    if (next.exporter && d->exporter)
        rc = gm_exporter_reconfigure(d->exporter, &eo, &e);
    else if (next.exporter && !d->exporter)
        rc = (d->exporter = gm_exporter_start(&eo, &e)) ? 0 : GM_E_INVAL;
    struct gm_alerter_conf ac;
    gm_daemon_alerter_conf(&next, &ac);
    if (rc == 0 && next.alerts && d->alerter) {
        rc = gm_alerter_reconfigure(d->alerter, &ac, &e);
    } else if (rc == 0 && next.alerts && !d->alerter) {
        struct gm_alerter *al = gm_alerter_start(&ac, 0, gm_daemon_alert_forward, d, &e);
        pthread_mutex_lock(&d->alerter_mu);
        d->alerter = al;
        pthread_mutex_unlock(&d->alerter_mu);
        rc = al ? 0 : GM_E_INVAL;
    }
    if (rc != 0 || gm_safefile_mkdirs(next.csv_dir, 0750, &e) != 0 ||
        gm_sinkset_open(d, &next, &fresh, &d->sinks, &d->cfg, &plan, &e) != 0) {
        free(plan.reconf);
        __atomic_add_fetch(&d->reloads_failed, 1, __ATOMIC_RELAXED);
        gm_log(GM_LOG_ERR, "reload failed, keeping the running configuration: %s", e.msg);
        return -1;
    }
    /* Every snapshot goes to all of the old sinks or all of the new; the
     * carried store takes its new settings at that point.  Then the
     * replaced sinks drain and close, and only then do their replacements
     * start writing. */
    gm_sampler_switch_sinks(d->sampler, fresh.k, fresh.n, gm_reload_at_switch, &plan);
    pthread_mutex_lock(&d->sinks_mu);
    struct gm_sinkset old = d->sinks;
    d->sinks = fresh;
    pthread_mutex_unlock(&d->sinks_mu);
    gm_sinkset_stop_except(d, &old, &fresh, gm_mono_ns() + 5000000000LL);
    for (int i = 0; i < plan.npaused; i++)
        gm_sink_resume(plan.paused[i]);
    if (plan.reopen)
        gm_sink_request_reopen(plan.reopen);
    for (int i = 0; i < fresh.n; i++)
        gm_sink_set_capacity(fresh.k[i], next.queue_size);
    __atomic_add_fetch(&d->reloads_ok, 1, __ATOMIC_RELAXED);
    if (!next.exporter && d->exporter) {
        gm_exporter_stop(d->exporter);
        d->exporter = NULL;
    }
    if (!next.alerts && d->alerter) {
        pthread_mutex_lock(&d->alerter_mu);
        struct gm_alerter *al = d->alerter;
        d->alerter = NULL;
        pthread_mutex_unlock(&d->alerter_mu);
        gm_alerter_stop(al, 2000000000LL, NULL);
    }
    gm_sampler_set_interval(d->sampler, next.interval_ns);
    if (d->diag)
        gm_diagstage_set(d->diag, next.diagnose, next.diagnose_window_ns, next.diagnose_every_ns);
    gm_log_set_level(next.log_level);
    d->cfg = next;
    pthread_mutex_lock(&d->task_mu);
    gm_strlcpy(d->task, d->cfg.task, sizeof(d->task));
    pthread_mutex_unlock(&d->task_mu);
    return 0;
}

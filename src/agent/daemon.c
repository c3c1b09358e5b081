/* daemon.c -- the agent process (see daemon.h).
 *
 * Threads: the main thread waits for signals and watches for hung samples;
 * the sampler thread takes snapshots; each sink has its thread; the control
 * thread answers the socket.  All signals are blocked in every thread and
 * taken synchronously by the main thread (sigtimedwait), so no handler runs
 * inside library code.
 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/json.h"
#include "../core/safefile.h"
#include "../core/timeutil.h"
#include "../alert/alerter.h"
#include "../export/exporter.h"
#include "../store/csv.h"
#include "../store/store.h"
#include "collector.h"
#include "../core/log.h"
#include "control.h"
#include "sampler.h"
#include "sink.h"
#include "xidwatch.h"

#define MAX_SINKS 8

/* ------------------------------------------------------------ directories */

static int mkdir_p(const char *path, mode_t mode, struct gm_err *err)
{
    return gm_safefile_mkdirs(path, mode, err);
}

/* ------------------------------------------------------------------- lock */

/* Takes <dir>/agent.lock for the life of the process; on contention names
 * the PID that holds it.  The directory itself is refused when every user
 * may write to it (safefile.h). */
static int lock_acquire(const char *dir, struct gm_safefile_lock **out, struct gm_err *err)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/agent.lock", dir);
    int dfd = -1;
    int rc = gm_safefile_dir_open(dir, &dfd, err);
    if (rc != 0)
        return rc;
    long pid = 0;
    rc = gm_safefile_lock(dfd, "agent.lock", path, out, &pid, err);
    close(dfd);
    if (rc == GM_E_BUSY) {
        char who[32] = "unknown";
        if (pid > 0)
            snprintf(who, sizeof(who), "%ld", pid);
        return gm_err_set(err, GM_E_BUSY,
                          "another gpumon agent (PID %s) is already using %s; one agent per "
                          "data directory keeps rows from interleaving (stop it, or give this "
                          "one another --data-dir)",
                          who, dir);
    }
    return rc;
}

/* A reload's new settings for the store on its connection (a post_call arg). */
struct store_reconf {
    struct gm_store_opts o;
    char task[64];
};

static void store_reconfigure(void *ctx, void *arg)
{
    struct store_reconf *r = arg;
    gm_store_reconfigure(ctx, &r->o);
}

/* --once (cron): the CSV and store sinks maintain their files as they close,
 * and the exit waits for them, up to ONCE_STOP_NS. */
static int once_mode;
#define ONCE_STOP_NS 30000000000LL

struct sinkset {
    struct gm_sink *k[MAX_SINKS];
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

/* What a reload does at and after the switch to the new set: the carried
 * store sink's new settings (posted at the switch, so every snapshot before
 * it is stored with the old ones and every one after with the new), and the
 * sinks started paused until the ones they replace have finished (a new CSV
 * writer never appends beside the old one). */
struct reload_plan {
    struct gm_sink *store_reconf;
    struct store_reconf *reconf; /* owned until posted */
    struct gm_sink *paused[MAX_SINKS];
    int npaused;
    struct gm_sink *reopen; /* the carried CSV sink: reopens its files */
};

static void exporter_opts(const struct gm_config *c, struct gm_exporter_opts *eo)
{
    memset(eo, 0, sizeof(*eo));
    eo->listen = c->listen;
    eo->prom.names = c->names;
    eo->prom.hostname_label = c->hostname_label;
    eo->prom.process_metrics = c->process_metrics;
    eo->prom.max_process_series = c->max_process_series;
    eo->textfile_dir = c->textfile_dir[0] ? c->textfile_dir : NULL;
    eo->web_config = c->web_config[0] ? c->web_config : NULL;
    eo->max_connections = c->max_connections;
    eo->connection_timeout_ns = c->connection_timeout_ns;
    eo->stale_after_ns = c->stale_after_ns;
    eo->log = gm_log_cb;
}

/* The exporter outlives sink restarts (its listener keeps its port across
 * a reload); the sink set holds a sink that renders into it. */
static struct gm_exporter *exporter;

/* The alerter, like the exporter, outlives sink restarts (it keeps the rule
 * states); its sink comes first in the set so that, when the sinks stop in
 * order, the alert events it sends to the CSV log and the store still reach
 * them. */
static struct gm_alerter *alerter;

/* Where the alerter's events go: every sink of the current set but its own. */
static struct sinkset *fwd_sinks;
static pthread_mutex_t *fwd_mu;

static void alert_forward(void *arg, const struct gm_event *e)
{
    (void)arg;
    pthread_mutex_lock(fwd_mu);
    for (int i = 0; i < fwd_sinks->n; i++)
        if (strcmp(gm_sink_name(fwd_sinks->k[i]), gm_alerter_sink_ops.name) != 0)
            gm_sink_push_event(fwd_sinks->k[i], e);
    pthread_mutex_unlock(fwd_mu);
}

static int in_set(const struct sinkset *set, const struct gm_sink *k)
{
    for (int i = 0; set && i < set->n; i++)
        if (set->k[i] == k)
            return 1;
    return 0;
}

/* What sinks replaced by reloads dropped and failed over their lives, so
 * that a replaced sink's losses stay counted (STATUS, the exporter). */
static struct {
    uint64_t dropped, errors;
} replaced;

/* Reloads (SIGHUP) that took effect and that failed (the running
 * configuration kept). */
static struct {
    uint64_t ok, failed;
} reload_stats;

/* Stops the sinks of set that keep does not hold (keep may be NULL).
 * Returns 0, or -1 when one did not finish in time. */
static int sinks_stop_except(struct sinkset *set, const struct sinkset *keep, int64_t deadline)
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
            __atomic_add_fetch(&replaced.dropped, fin.dropped, __ATOMIC_RELAXED);
            __atomic_add_fetch(&replaced.errors, fin.errors, __ATOMIC_RELAXED);
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
           a->interval_ns == b->interval_ns && a->procs == b->procs;
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
    so->log = gm_log_cb;
}

/* Opens the sinks of configuration c into set.  On a reload, old and
 * old_cfg are the running set and configuration, and plan receives what
 * must happen at and after the switch (struct reload_plan): the sinks that
 * can carry over are put into set as they are (see struct sinkset), a
 * replacement CSV sink starts paused.  On failure nothing of old is touched
 * and what was started here is stopped. */
static int sinks_open_from(const struct gm_config *c, struct sinkset *set,
                           const struct sinkset *old, const struct gm_config *old_cfg,
                           struct reload_plan *plan, struct gm_err *err)
{
    set->n = 0;
    set->alert = set->export = set->csv = set->store = NULL;
    if (c->alerts && alerter) {
        set->alert = old && old->alert
                         ? old->alert
                         : gm_sink_start(&gm_alerter_sink_ops, alerter, c->queue_size);
        set->k[set->n++] = set->alert;
    }
    if (c->exporter && exporter) {
        set->export = old && old->export
                          ? old->export
                          : gm_sink_start(&gm_exporter_sink_ops, exporter, c->queue_size);
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
            sinks_stop_except(set, old, gm_mono_ns() + 2000000000LL);
            return err ? err->code : GM_E_IO;
        }
        /* beside a running writer, this one waits until that one has finished */
        if (plan && old && old->csv) {
            set->csv = gm_sink_start_paused(once_mode ? &gm_csv_once_sink_ops : &gm_csv_sink_ops,
                                            csv, c->queue_size);
            plan->paused[plan->npaused++] = set->csv;
        } else {
            set->csv = gm_sink_start(once_mode ? &gm_csv_once_sink_ops : &gm_csv_sink_ops, csv,
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
            struct store_reconf *r = gm_xcalloc(1, sizeof(*r));
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
            sinks_stop_except(set, old, gm_mono_ns() + 2000000000LL);
            return err ? err->code : GM_E_IO;
        }
        set->store = gm_sink_start(once_mode ? &gm_store_once_sink_ops : &gm_store_sink_ops, st,
                                   c->queue_size);
        set->k[set->n++] = set->store;
    }
    return 0;
}

static int sinks_open(const struct gm_config *c, struct sinkset *set, struct gm_err *err)
{
    return sinks_open_from(c, set, NULL, NULL, NULL, err);
}

/* At the switch (gm_sampler_switch_sinks): the carried store's new settings. */
static void reload_at_switch(void *arg)
{
    struct reload_plan *plan = arg;
    if (plan->store_reconf) {
        gm_sink_post_call(plan->store_reconf, store_reconfigure, plan->reconf);
        plan->reconf = NULL;
    }
}

static void sinks_stop(struct sinkset *set, int64_t deadline)
{
    sinks_stop_except(set, NULL, deadline);
}

/* --------------------------------------------------------------- control */

/* What the control socket's requests mean (the socket itself, its bounds
 * and its client are control.c's). */
struct control {
    struct gm_sampler *sampler;
    pthread_mutex_t task_mu; /* task changes on a reload */
    char task[GM_TASK_MAX + 1];
    struct sinkset *sinks;
    pthread_mutex_t *sinks_mu;
};

static void control_status(struct control *ct, struct gm_buf *out)
{
    struct gm_sampler_stats ss;
    gm_sampler_stats(ct->sampler, &ss);
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "pid");
    gm_json_i64(&j, getpid());
    gm_json_key(&j, "samples");
    gm_json_u64(&j, ss.samples);
    gm_json_key(&j, "overruns");
    gm_json_u64(&j, ss.overruns);
    gm_json_key(&j, "skipped");
    gm_json_u64(&j, ss.skipped);
    gm_json_key(&j, "last_sample_unix_ns");
    gm_json_i64(&j, ss.last_wall_ns);
    gm_json_key(&j, "last_sample_duration_seconds");
    gm_json_f64(&j, ss.last_duration_ns / 1e9, 6);
    gm_json_key(&j, "driver");
    gm_json_str(&j, gm_driver_state_name((enum gm_driver_state)ss.driver_state));
    gm_json_key(&j, "clock_steps_back");
    gm_json_u64(&j, ss.clock_steps_back);
    gm_json_key(&j, "clock_steps_forward");
    gm_json_u64(&j, ss.clock_steps_forward);
    gm_json_key(&j, "reloads");
    gm_json_u64(&j, __atomic_load_n(&reload_stats.ok, __ATOMIC_RELAXED));
    gm_json_key(&j, "reloads_failed");
    gm_json_u64(&j, __atomic_load_n(&reload_stats.failed, __ATOMIC_RELAXED));
    gm_json_key(&j, "replaced_sinks");
    gm_json_obj_begin(&j);
    gm_json_key(&j, "dropped");
    gm_json_u64(&j, __atomic_load_n(&replaced.dropped, __ATOMIC_RELAXED));
    gm_json_key(&j, "errors");
    gm_json_u64(&j, __atomic_load_n(&replaced.errors, __ATOMIC_RELAXED));
    gm_json_obj_end(&j);
    gm_json_key(&j, "sinks");
    gm_json_obj_begin(&j);
    pthread_mutex_lock(ct->sinks_mu);
    for (int i = 0; i < ct->sinks->n; i++) {
        struct gm_sink_stats ks;
        gm_sink_stats(ct->sinks->k[i], &ks);
        gm_json_key(&j, gm_sink_name(ct->sinks->k[i]));
        gm_json_obj_begin(&j);
        gm_json_key(&j, "snapshots");
        gm_json_u64(&j, ks.snapshots);
        gm_json_key(&j, "events");
        gm_json_u64(&j, ks.events);
        gm_json_key(&j, "dropped");
        gm_json_u64(&j, ks.dropped);
        gm_json_key(&j, "errors");
        gm_json_u64(&j, ks.errors);
        gm_json_key(&j, "queue_max");
        gm_json_u64(&j, ks.queue_max);
        gm_json_obj_end(&j);
    }
    pthread_mutex_unlock(ct->sinks_mu);
    gm_json_obj_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

/* "MARK <wall_ns> <task|-> <text>": a mark on the timeline, its text whole
 * (at most GM_MARK_MAX bytes; the outputs sanitise it, core/text.h). */
static void control_mark(struct control *ct, const char *req, size_t len, struct gm_buf *out)
{
    const char *p = req + 5, *end = req + len;
    char num[24];
    size_t nl = 0;
    while (p + nl < end && p[nl] != ' ' && nl < sizeof(num) - 1) {
        num[nl] = p[nl];
        nl++;
    }
    num[nl] = '\0';
    char *nend;
    errno = 0;
    long long wall = strtoll(num, &nend, 10);
    int bad = nl == 0 || errno || *nend || p + nl >= end || p[nl] != ' ';
    const char *task = p + nl + 1;
    const char *sp = bad ? NULL : memchr(task, ' ', (size_t)(end - task));
    if (!sp) {
        gm_buf_puts(out, "ERR malformed MARK request\n");
        return;
    }
    size_t tlen = (size_t)(sp - task), xlen = (size_t)(end - sp - 1);
    int own_task = tlen == 1 && task[0] == '-';
    if (!own_task && !gm_config_task_valid(task, tlen)) {
        gm_buf_printf(out,
                      "ERR invalid task (1-%d letters, digits, '.', '_', '-'; not starting with "
                      "'.')\n",
                      GM_TASK_MAX);
        return;
    }
    if (xlen > GM_MARK_MAX) {
        gm_buf_printf(out, "ERR mark longer than %d bytes\n", GM_MARK_MAX);
        return;
    }
    struct gm_event *e = gm_xcalloc(1, sizeof(*e));
    e->type = GM_EV_MARK;
    e->gpu = -1;
    e->wall_ns = wall;
    if (own_task) {
        pthread_mutex_lock(&ct->task_mu);
        gm_strlcpy(e->task, ct->task, sizeof(e->task));
        pthread_mutex_unlock(&ct->task_mu);
    } else {
        memcpy(e->task, task, tlen);
    }
    memcpy(e->text, sp + 1, xlen);
    gm_sampler_event(ct->sampler, e);
    gm_log(GM_LOG_INFO, "mark (%s, %zu bytes): %s", e->task, xlen, e->text);
    free(e);
    gm_buf_puts(out, "OK\n");
}

/* One request per connection: "PING", "STATUS", "ALERTS" (JSON), "ALERTS TEXT", or
 * "MARK <wall_ns> <task|-> <text>".  Replies end with a newline. */
static void control_handle(void *arg, const char *req, size_t len, struct gm_buf *out)
{
    struct control *ct = arg;
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(req, lit, len) == 0)
    if (memchr(req, '\0', len)) {
        gm_buf_puts(out, "ERR malformed request (a NUL byte)\n");
    } else if (IS("PING")) {
        gm_buf_puts(out, "PONG\n");
    } else if (IS("STATUS")) {
        control_status(ct, out);
    } else if (IS("ALERTS") || IS("ALERTS TEXT")) {
        if (alerter && len > 6) {
            gm_alerter_text(alerter, out);
        } else if (alerter) {
            gm_alerter_json(alerter, out);
            gm_buf_putc(out, '\n');
        } else {
            gm_buf_puts(out, "ERR alerts are off in this agent (alerts = false)\n");
        }
    } else if (len >= 5 && memcmp(req, "MARK ", 5) == 0) {
        control_mark(ct, req, len, out);
    } else {
        gm_buf_puts(out, "ERR unknown request\n");
    }
#undef IS
}

/* ------------------------------------------------------------------- run */

/* The alerter's settings out of the agent's (borrowed from c). */
static void alerter_conf(const struct gm_config *c, struct gm_alerter_conf *ac)
{
    ac->rules = &c->rules;
    ac->notify = c->notify;
    ac->nnotify = c->nnotify;
    ac->alert_log = c->alert_log;
    ac->alert_state = c->alert_state;
    ac->queue_size = c->queue_size;
}

static int open_collector(const struct gm_config *c, struct gm_collector **col)
{
    struct gm_collector_opts co = {
        .lib_path = c->nvml_lib[0] ? c->nvml_lib : NULL, .procs = 1, .procfs = 1};
    struct gm_err e = {0};
    /* a failure is not fatal: the first sample reports it (logged once by
     * the sampler) and init is retried with backoff */
    gm_collector_open(col, &co, &e);
    /* retry at the sampling cadence, backing off to a minute */
    gm_collector_set_backoff(*col, c->interval_ns,
                             c->interval_ns > 60000000000LL ? c->interval_ns : 60000000000LL);
    return 0;
}

static void agent_event(struct gm_sampler *sp, struct gm_sink *const *k, int n, const char *text)
{
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_AGENT;
    e.gpu = -1;
    e.wall_ns = gm_wall_ns();
    gm_strlcpy(e.text, text, sizeof(e.text));
    if (sp)
        gm_sampler_event(sp, &e);
    else
        for (int i = 0; i < n; i++)
            gm_sink_push_event(k[i], &e);
}

/* The sampler the Xid events go through; NULL once it is stopping. */
static pthread_mutex_t xid_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gm_sampler *xid_sampler;

/* An Xid event from the event thread: on the timeline of every sink (the
 * CSV events file, the store) and to the alert rules. */
static void on_xid(void *arg, int gpu, const char *uuid, unsigned long long xid, int64_t wall_ns)
{
    (void)arg;
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_XID;
    e.gpu = gpu;
    e.wall_ns = wall_ns;
    e.code = (int64_t)xid;
    gm_strlcpy(e.uuid, uuid, sizeof(e.uuid));
    snprintf(e.text, sizeof(e.text), "Xid %llu on GPU %d", xid, gpu);
    gm_log(GM_LOG_WARNING, "Xid %llu on GPU %d (%s)", xid, gpu, uuid[0] ? uuid : "unknown UUID");
    pthread_mutex_lock(&xid_mu);
    if (xid_sampler)
        gm_sampler_event(xid_sampler, &e);
    pthread_mutex_unlock(&xid_mu);
}

static int run_once(const struct gm_config *c, struct sinkset *sinks)
{
    struct gm_collector *col;
    open_collector(c, &col);
    struct gm_snapshot *s = gm_sampler_once(col, sinks->k, sinks->n);
    int ok = s->driver == GM_DRV_OK;
    gm_snapshot_unref(s);
    sinks_stop(sinks, gm_mono_ns() + ONCE_STOP_NS);
    gm_collector_close(col);
    return ok ? 0 : 3;
}

int gm_daemon_run(const struct gm_daemon_opts *o, struct gm_err *err)
{
    struct gm_config cfg;
    if (o->build(o->build_arg, &cfg, err) != 0)
        return 2;
    gm_log_init(cfg.log_level);
    once_mode = o->once;
    if (mkdir_p(cfg.data_dir, 0750, err) != 0 || mkdir_p(cfg.csv_dir, 0750, err) != 0)
        return 1;
    struct gm_safefile_lock *lock = NULL;
    if (lock_acquire(cfg.data_dir, &lock, err) != 0)
        return 1;

    /* every thread created from here on inherits the blocked signals */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN); /* a file size limit is a write error to count, not a death */

    struct sinkset sinks = {0};
    pthread_mutex_t sinks_mu = PTHREAD_MUTEX_INITIALIZER;
    if (cfg.exporter && (!o->once || cfg.textfile_dir[0])) {
        struct gm_exporter_opts eo;
        exporter_opts(&cfg, &eo);
        if (o->once)
            eo.listen = NULL; /* cron: the textfile only */
        exporter = gm_exporter_start(&eo, err);
        if (!exporter) {
            gm_safefile_unlock(lock);
            return 1;
        }
    }
    fwd_sinks = &sinks;
    fwd_mu = &sinks_mu;
    if (cfg.alerts) {
        struct gm_alerter_conf ac;
        alerter_conf(&cfg, &ac);
        alerter = gm_alerter_start(&ac, o->once, alert_forward, NULL, err);
        if (!alerter) {
            gm_exporter_stop(exporter);
            exporter = NULL;
            gm_safefile_unlock(lock);
            return 1;
        }
    }
    if (sinks_open(&cfg, &sinks, err) != 0) {
        gm_alerter_stop(alerter, 1000000000LL, NULL);
        alerter = NULL;
        gm_exporter_stop(exporter);
        exporter = NULL;
        gm_safefile_unlock(lock);
        return 1;
    }
    if (o->once) {
        int rc = run_once(&cfg, &sinks);
        struct gm_err ae = {0};
        if (gm_alerter_stop(alerter, 5000000000LL, &ae) != 0)
            gm_log(GM_LOG_ERR, "alert state not saved: %s", ae.msg);
        alerter = NULL;
        gm_exporter_stop(exporter);
        exporter = NULL;
        gm_safefile_unlock(lock);
        return rc;
    }

    struct gm_collector *col;
    open_collector(&cfg, &col);
    struct gm_sampler *sp = gm_sampler_start(col, cfg.interval_ns, sinks.k, sinks.n);
    if (!sp) {
        sinks_stop(&sinks, gm_mono_ns() + 2000000000LL);
        gm_safefile_unlock(lock);
        gm_err_set(err, GM_E_IO, "cannot start the sampler thread");
        return 1;
    }
    agent_event(sp, NULL, 0, "agent started");
    pthread_mutex_lock(&xid_mu);
    xid_sampler = sp;
    pthread_mutex_unlock(&xid_mu);
    struct gm_xid_watch *xw = gm_xid_watch_start(cfg.nvml_lib, on_xid, NULL);
    char url[300] = "";
    if (exporter)
        gm_exporter_url(exporter, url, sizeof(url)); /* https:// when the web config has TLS */
    gm_log(GM_LOG_INFO,
           "agent started: pid %d, interval %.3f s, data in %s (csv %s, store %s, exporter %s)",
           (int)getpid(), cfg.interval_ns / 1e9, cfg.data_dir, cfg.csv ? cfg.csv_dir : "off",
           cfg.store ? cfg.store_path : "off",
           !exporter ? "off"
           : url[0]  ? url
                     : "textfile only");

    struct control ct = {.sampler = sp,
                         .task_mu = PTHREAD_MUTEX_INITIALIZER,
                         .sinks = &sinks,
                         .sinks_mu = &sinks_mu};
    gm_strlcpy(ct.task, cfg.task, sizeof(ct.task));
    struct gm_err cerr = {0};
    struct gm_control *control = gm_control_start(cfg.data_dir, control_handle, &ct, &cerr);
    if (!control)
        gm_log(GM_LOG_WARNING, "%s; 'gpumon mark' will not reach this agent", cerr.msg);

    int64_t hung_reported = 0;
    uint64_t dropped_reported = 0;
    for (;;) {
        struct timespec ts = {.tv_sec = 1};
        siginfo_t si;
        int sig = sigtimedwait(&sigs, &si, &ts);
        if (sig == SIGTERM || sig == SIGINT) {
            gm_log(GM_LOG_INFO, "%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            break;
        }
        if (sig == SIGHUP) {
            struct gm_config next;
            struct gm_err e = {0};
            if (o->build(o->build_arg, &next, &e) != 0) {
                __atomic_add_fetch(&reload_stats.failed, 1, __ATOMIC_RELAXED);
                gm_log(GM_LOG_ERR, "reload failed, keeping the running configuration: %s", e.msg);
            } else if (strcmp(next.data_dir, cfg.data_dir) != 0) {
                __atomic_add_fetch(&reload_stats.failed, 1, __ATOMIC_RELAXED);
                gm_log(GM_LOG_ERR,
                       "reload: data-dir changed from %s to %s; that needs a "
                       "restart, keeping the running configuration",
                       cfg.data_dir, next.data_dir);
            } else {
                /* the exporter first (it validates the web config), then new sinks, so a
                 * bad new setting leaves the running ones alone */
                struct gm_exporter_opts eo;
                exporter_opts(&next, &eo);
                struct sinkset fresh = {0};
                struct reload_plan plan = {0};
                int exp_rc = 0;
                if (next.exporter && exporter)
                    exp_rc = gm_exporter_reconfigure(exporter, &eo, &e);
                else if (next.exporter && !exporter)
                    exp_rc = (exporter = gm_exporter_start(&eo, &e)) ? 0 : GM_E_INVAL;
                int al_rc = 0;
                struct gm_alerter_conf ac;
                alerter_conf(&next, &ac);
                if (exp_rc == 0 && next.alerts && alerter)
                    al_rc = gm_alerter_reconfigure(alerter, &ac, &e);
                else if (exp_rc == 0 && next.alerts && !alerter)
                    al_rc = (alerter = gm_alerter_start(&ac, 0, alert_forward, NULL, &e))
                                ? 0
                                : GM_E_INVAL;
                if (exp_rc != 0 || al_rc != 0 || mkdir_p(next.csv_dir, 0750, &e) != 0 ||
                    sinks_open_from(&next, &fresh, &sinks, &cfg, &plan, &e) != 0) {
                    free(plan.reconf);
                    __atomic_add_fetch(&reload_stats.failed, 1, __ATOMIC_RELAXED);
                    gm_log(GM_LOG_ERR, "reload failed, keeping the running configuration: %s",
                           e.msg);
                } else {
                    /* Every snapshot goes to all of the old sinks or all of the
                     * new; the carried store takes its new settings at that
                     * point.  Then the replaced sinks drain and close, and only
                     * then do their replacements start writing. */
                    gm_sampler_switch_sinks(sp, fresh.k, fresh.n, reload_at_switch, &plan);
                    pthread_mutex_lock(&sinks_mu);
                    struct sinkset old = sinks;
                    sinks = fresh;
                    pthread_mutex_unlock(&sinks_mu);
                    sinks_stop_except(&old, &fresh, gm_mono_ns() + 5000000000LL);
                    for (int i = 0; i < plan.npaused; i++)
                        gm_sink_resume(plan.paused[i]);
                    if (plan.reopen)
                        gm_sink_request_reopen(plan.reopen);
                    for (int i = 0; i < fresh.n; i++)
                        gm_sink_set_capacity(fresh.k[i], next.queue_size);
                    __atomic_add_fetch(&reload_stats.ok, 1, __ATOMIC_RELAXED);
                    if (!next.exporter && exporter) {
                        gm_exporter_stop(exporter);
                        exporter = NULL;
                    }
                    if (!next.alerts && alerter) {
                        gm_alerter_stop(alerter, 2000000000LL, NULL);
                        alerter = NULL;
                    }
                    gm_sampler_set_interval(sp, next.interval_ns);
                    gm_log_set_level(next.log_level);
                    cfg = next;
                    pthread_mutex_lock(&ct.task_mu);
                    gm_strlcpy(ct.task, cfg.task, sizeof(ct.task));
                    pthread_mutex_unlock(&ct.task_mu);
                    agent_event(sp, NULL, 0, "configuration reloaded");
                    gm_log(GM_LOG_INFO, "SIGHUP: configuration reloaded, files reopened");
                }
            }
            continue;
        }
        /* once a second: a hung NVML call, dropped snapshots */
        struct gm_sampler_stats ss;
        gm_sampler_stats(sp, &ss);
        int64_t now = gm_mono_ns();
        if (ss.busy_since_mono && now - ss.busy_since_mono > cfg.nvml_timeout_ns) {
            if (!hung_reported) {
                int gpu = -1;
                const char *call = gm_sampler_current_call(sp, &gpu);
                char where[32] = "";
                if (gpu >= 0)
                    snprintf(where, sizeof(where), " on GPU %d", gpu);
                gm_log(GM_LOG_ERR,
                       "sampling is stuck: %s%s has not returned for %.0f s; the driver or GPU "
                       "may be hung (check dmesg for Xid errors)",
                       call ? call : "an NVML call", where, (now - ss.busy_since_mono) / 1e9);
                hung_reported = ss.busy_since_mono;
            }
        } else if (hung_reported && ss.busy_since_mono != hung_reported) {
            gm_log(GM_LOG_NOTICE, "sampling is moving again");
            hung_reported = 0;
        }
        uint64_t dropped = __atomic_load_n(&replaced.dropped, __ATOMIC_RELAXED);
        pthread_mutex_lock(&sinks_mu);
        for (int i = 0; i < sinks.n; i++) {
            struct gm_sink_stats ks;
            gm_sink_stats(sinks.k[i], &ks);
            dropped += ks.dropped;
        }
        pthread_mutex_unlock(&sinks_mu);
        if (exporter)
            gm_exporter_set_dropped(exporter, dropped);
        if (dropped > dropped_reported &&
            (dropped_reported == 0 || (now / 1000000000LL) % 60 == 0)) {
            gm_log(GM_LOG_WARNING,
                   "%llu snapshots dropped so far because a sink could not keep up (see "
                   "'gpumon agent --status')",
                   (unsigned long long)dropped);
            dropped_reported = dropped;
        }
    }

    /* stop: sampling first, then drain and flush every sink, all within 2 s */
    int64_t deadline = gm_mono_ns() + 1900000000LL;
    gm_control_stop(control);
    gm_xid_watch_request_stop(xw); /* it notices within one event wait; joined below */
    pthread_mutex_lock(&xid_mu);
    xid_sampler = NULL;
    pthread_mutex_unlock(&xid_mu);
    if (gm_sampler_stop(sp, 800000000LL) != 0)
        gm_log(GM_LOG_ERR, "the sampler is stuck in NVML; exiting without waiting for it");
    for (int i = 0; i < sinks.n; i++) {
        struct gm_event e;
        memset(&e, 0, sizeof(e));
        e.type = GM_EV_AGENT;
        e.gpu = -1;
        e.wall_ns = gm_wall_ns();
        gm_strlcpy(e.text, "agent stopped", sizeof(e.text));
        gm_sink_push_event(sinks.k[i], &e);
    }
    sinks_stop(&sinks, deadline);
    gm_xid_watch_stop(xw, 300000000LL);
    int64_t left = deadline - gm_mono_ns();
    gm_alerter_stop(alerter, left > 100000000LL ? left : 100000000LL, NULL);
    alerter = NULL;
    gm_exporter_stop(exporter);
    exporter = NULL;
    gm_log(GM_LOG_INFO, "agent stopped");
    gm_safefile_unlock(lock);
    return 0;
}

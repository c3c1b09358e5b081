/* daemon.c -- the agent process (see daemon.h): its life cycle.  Start
 * (lock, exporter, alerter, sinks, sampler, control socket), the signal
 * loop with its once-a-second watch (a hung NVML call, dropped snapshots),
 * a reload, and the stop.  The sinks are sinkset.c's, the socket's answers
 * daemon_ctl.c's; the state they share is struct gm_daemon (daemon_int.h).
 *
 * Threads: the main thread waits for signals and watches for hung samples;
 * the sampler thread takes snapshots; each sink has its thread; the control
 * thread answers the socket.  All signals are blocked in every thread and
 * taken synchronously by the main thread (sigtimedwait), so no handler runs
 * inside library code.
 */
#include "daemon.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../core/log.h"
#include "../core/safefile.h"
#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "collector.h"
#include "control.h"
#include "daemon_int.h"
#include "xidwatch.h"

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

/* ------------------------------------------------------------ helpers */

/* The agent's cadence for the slow read groups (source/nvml.h,
 * gm_nvml_set_cadence): settings, ECC and retired pages, row remapping,
 * PCIe link and replays, NVLink states and errors are read every 10 s, not
 * every sample.  They change on a fault or an administrator's action, not
 * from second to second; the memory faults that matter at once also arrive
 * as Xid events (48, 63, 64, 94, 95: xidwatch.c, read as they happen).  An
 * alert on these values is late by at most one period, small beside the
 * minutes of the shipped rules' windows, while a sample makes far fewer
 * NVML calls (docs/BENCHMARKS.md, "NVML calls per sample").  Every output
 * that shows these values shows their age. */
#define AGENT_SLOW_NS (10LL * 1000000000LL)

/* once: a single sample (--once), which takes its GPM interval now (two GPM
 * samples 100 ms apart, docs/gpm.md) instead of reporting it not yet available. */
/* Lets the agent open as many descriptors as its hard limit allows: the
 * /proc enrichment keeps one stat file open per GPU process (half the soft
 * limit, source/procfs.c), and a node with a thousand processes would
 * otherwise open and close most of them every sample.  Nothing here uses
 * select(), whose sets stop at 1024. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl); /* a refusal leaves the limit as it was */
    }
}

static int open_collector(const struct gm_config *c, struct gm_collector **col, int once)
{
    struct gm_collector_opts co = {.lib_path = c->nvml_lib[0] ? c->nvml_lib : NULL,
                                   .procs = 1,
                                   .procfs = 1,
                                   .hostside = 1, /* the diagnosis stage's host side */
                                   .job_map_dir = c->job_map_dir,
                                   .log = gm_log_cb};
    co.groups = gm_nvml_groups_default();
    if (c->pcie)
        gm_rgset_add(&co.groups, GM_RG_PCIE_TPUT);
    if (once)
        co.nvml_flags |= GM_NVML_GPM_PRIME;
    else
        co.slow_ns = AGENT_SLOW_NS;
    struct gm_err e = {0};
    /* a failure is not fatal: the first sample reports it (logged once by
     * the sampler) and init is retried with backoff */
    gm_collector_open(col, &co, &e);
    /* retry at the sampling cadence, backing off to a minute */
    gm_collector_set_backoff(*col, c->interval_ns,
                             c->interval_ns > 60000000000LL ? c->interval_ns : 60000000000LL);
    return 0;
}

/* An event straight to each sink (the sampler stopped). */
static void push_event(void *arg, const struct gm_event *e)
{
    struct gm_daemon *d = arg;
    for (int i = 0; i < d->sinks.n; i++)
        gm_sink_push_event(d->sinks.k[i], e);
}

static void agent_event(struct gm_daemon *d, const char *text)
{
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_AGENT;
    e.gpu = -1;
    e.wall_ns = gm_wall_ns();
    gm_strlcpy(e.text, text, sizeof(e.text));
    if (d->sampler)
        gm_sampler_event(d->sampler, &e);
    else
        for (int i = 0; i < d->sinks.n; i++)
            gm_sink_push_event(d->sinks.k[i], &e);
}

/* An Xid event from the event thread: on the timeline of every sink (the
 * CSV events file, the store) and to the alert rules. */
static void on_xid(void *arg, int gpu, const char *uuid, unsigned long long xid, int64_t wall_ns)
{
    struct gm_daemon *d = arg;
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_XID;
    e.gpu = gpu;
    e.wall_ns = wall_ns;
    e.code = (int64_t)xid;
    gm_strlcpy(e.uuid, uuid, sizeof(e.uuid));
    snprintf(e.text, sizeof(e.text), "Xid %llu on GPU %d", xid, gpu);
    gm_log(GM_LOG_WARNING, "Xid %llu on GPU %d (%s)", xid, gpu, uuid[0] ? uuid : "unknown UUID");
    pthread_mutex_lock(&d->xid_mu);
    if (d->xid_sampler)
        gm_sampler_event(d->xid_sampler, &e);
    pthread_mutex_unlock(&d->xid_mu);
}

static int run_once(struct gm_daemon *d)
{
    struct gm_collector *col;
    open_collector(&d->cfg, &col, 1);
    struct gm_snapshot *s = gm_sampler_once(col, d->sinks.k, d->sinks.n);
    int ok = s->driver == GM_DRV_OK;
    gm_snapshot_unref(s);
    gm_sinkset_stop_except(d, &d->sinks, NULL, gm_mono_ns() + GM_DAEMON_ONCE_STOP_NS);
    gm_collector_close(col);
    struct gm_err ae = {0};
    if (gm_daemon_modules_stop(d, 5000000000LL, &ae) != 0)
        gm_log(GM_LOG_ERR, "alert state not saved: %s", ae.msg);
    return ok ? 0 : 3;
}

/* ------------------------------------------------------------------ watch */

/* What the main thread checks once a second. */
struct watch {
    int64_t hung_reported;
    uint64_t dropped_reported;
};

/* A hung NVML call (logged once, and once when it moves again) and
 * snapshots dropped by sinks that could not keep up (logged at most once a
 * minute; the exporter's self-metrics get the count). */
static void watch(struct gm_daemon *d, struct watch *w)
{
    struct gm_sampler_stats ss;
    gm_sampler_stats(d->sampler, &ss);
    int64_t now = gm_mono_ns();
    if (ss.busy_since_mono && now - ss.busy_since_mono > d->cfg.nvml_timeout_ns) {
        if (!w->hung_reported) {
            int gpu = -1;
            const char *call = gm_sampler_current_call(d->sampler, &gpu);
            char where[32] = "";
            if (gpu >= 0)
                snprintf(where, sizeof(where), " on GPU %d", gpu);
            gm_log(GM_LOG_ERR,
                   "sampling is stuck: %s%s has not returned for %.0f s; the driver or GPU "
                   "may be hung (check dmesg for Xid errors)",
                   call ? call : "an NVML call", where, (now - ss.busy_since_mono) / 1e9);
            w->hung_reported = ss.busy_since_mono;
        }
    } else if (w->hung_reported && ss.busy_since_mono != w->hung_reported) {
        gm_log(GM_LOG_NOTICE, "sampling is moving again");
        w->hung_reported = 0;
    }
    uint64_t dropped = __atomic_load_n(&d->replaced_dropped, __ATOMIC_RELAXED);
    pthread_mutex_lock(&d->sinks_mu);
    for (int i = 0; i < d->sinks.n; i++) {
        struct gm_sink_stats ks;
        gm_sink_stats(d->sinks.k[i], &ks);
        dropped += ks.dropped;
    }
    pthread_mutex_unlock(&d->sinks_mu);
    if (d->exporter)
        gm_exporter_set_dropped(d->exporter, dropped);
    if (dropped > w->dropped_reported &&
        (w->dropped_reported == 0 || (now / 1000000000LL) % 60 == 0)) {
        gm_log(GM_LOG_WARNING,
               "%llu snapshots dropped so far because a sink could not keep up (see "
               "'gpumon agent --status')",
               (unsigned long long)dropped);
        w->dropped_reported = dropped;
    }
}

/* -------------------------------------------------------------------- run */

/* Stops in order within 2 s: the socket and the Xid thread, sampling, then
 * every sink drains and flushes, then the alerter and the exporter. */
static void stop(struct gm_daemon *d, struct gm_control *control, struct gm_xid_watch *xw)
{
    int64_t deadline = gm_mono_ns() + 1900000000LL;
    gm_control_stop(control);
    gm_xid_watch_request_stop(xw); /* it notices within one event wait; joined below */
    pthread_mutex_lock(&d->xid_mu);
    d->xid_sampler = NULL;
    pthread_mutex_unlock(&d->xid_mu);
    int stuck = gm_sampler_stop(d->sampler, 800000000LL) != 0;
    if (stuck)
        gm_log(GM_LOG_ERR, "the sampler is stuck in NVML; exiting without waiting for it");
    d->sampler = NULL;
    if (d->diag && !stuck) { /* a stuck sampler may still inspect: leave the stage to it */
        gm_diagstage_finish(d->diag, gm_wall_ns(), push_event, d);
        gm_diagstage_free(d->diag);
        d->diag = NULL;
    }
    agent_event(d, "agent stopped"); /* straight to each sink now */
    gm_sinkset_stop_except(d, &d->sinks, NULL, deadline);
    gm_xid_watch_stop(xw, 300000000LL);
    int64_t left = deadline - gm_mono_ns();
    gm_daemon_modules_stop(d, left > 100000000LL ? left : 100000000LL, NULL);
    gm_log(GM_LOG_INFO, "agent stopped");
}

int gm_daemon_run(const struct gm_daemon_opts *o, struct gm_err *err)
{
    static struct gm_daemon d; /* large (the configuration): not on the stack */
    memset(&d, 0, sizeof(d));
    pthread_mutex_init(&d.sinks_mu, NULL);
    pthread_mutex_init(&d.alerter_mu, NULL);
    pthread_mutex_init(&d.xid_mu, NULL);
    pthread_mutex_init(&d.task_mu, NULL);
    if (o->build(o->build_arg, 0, &d.cfg, err) != 0)
        return 2;
    gm_log_init(d.cfg.log_level);
    d.once = o->once;
    d.status_json = o->status_json;
    d.fleet_start = o->fleet_start;
    d.fleet_json = o->fleet_json;
    d.fleet_stop = o->fleet_stop;
    if (gm_safefile_mkdirs(d.cfg.data_dir, 0750, err) != 0 ||
        gm_safefile_mkdirs(d.cfg.csv_dir, 0750, err) != 0)
        return 1;
    struct gm_safefile_lock *lock = NULL;
    if (lock_acquire(d.cfg.data_dir, &lock, err) != 0)
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

    if (gm_daemon_modules_start(&d, err) != 0) {
        gm_safefile_unlock(lock);
        return 1;
    }
    if (o->once) {
        int rc = run_once(&d);
        gm_safefile_unlock(lock);
        return rc;
    }

    struct gm_collector *col;
    raise_nofile();
    open_collector(&d.cfg, &col, 0);
    /* on every sink's timeline before the first sample's events (a driver
     * that is down at start) */
    agent_event(&d, "agent started");
    d.diag = gm_diagstage_new(d.cfg.diagnose, d.cfg.diagnose_window_ns, d.cfg.diagnose_every_ns);
    struct gm_sampler_opts so = {.inspect = gm_diagstage_inspect, .inspect_arg = d.diag};
    d.sampler = gm_sampler_start_opts(col, d.cfg.interval_ns, d.sinks.k, d.sinks.n, &so);
    if (!d.sampler) {
        gm_diagstage_free(d.diag);
        d.diag = NULL;
        gm_sinkset_stop_except(&d, &d.sinks, NULL, gm_mono_ns() + 2000000000LL);
        gm_safefile_unlock(lock);
        gm_err_set(err, GM_E_IO, "cannot start the sampler thread");
        return 1;
    }
    pthread_mutex_lock(&d.xid_mu);
    d.xid_sampler = d.sampler;
    pthread_mutex_unlock(&d.xid_mu);
    struct gm_xid_watch *xw = gm_xid_watch_start(d.cfg.nvml_lib, on_xid, &d);
    char url[300] = "";
    if (d.exporter)
        gm_exporter_url(d.exporter, url, sizeof(url)); /* https:// when the web config has TLS */
    gm_log(GM_LOG_INFO,
           "agent started: pid %d, interval %.3f s, data in %s (csv %s, store %s, exporter %s)",
           (int)getpid(), d.cfg.interval_ns / 1e9, d.cfg.data_dir,
           d.cfg.csv ? d.cfg.csv_dir : "off", d.cfg.store ? d.cfg.store_path : "off",
           !d.exporter ? "off"
           : url[0]    ? url
                       : "textfile only");

    gm_strlcpy(d.task, d.cfg.task, sizeof(d.task));
    struct gm_err cerr = {0};
    struct gm_control *control = gm_control_start(d.cfg.data_dir, gm_daemon_control, &d, &cerr);
    if (!control)
        gm_log(GM_LOG_WARNING, "%s; 'gpumon mark' will not reach this agent", cerr.msg);

    struct watch w = {0};
    for (;;) {
        struct timespec ts = {.tv_sec = 1};
        siginfo_t si;
        int sig = sigtimedwait(&sigs, &si, &ts);
        if (sig == SIGTERM || sig == SIGINT) {
            gm_log(GM_LOG_INFO, "%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            break;
        }
        if (sig == SIGHUP && gm_daemon_reload(&d, o) == 0) {
            agent_event(&d, "configuration reloaded");
            gm_log(GM_LOG_INFO, "SIGHUP: configuration reloaded, files reopened");
        } else if (sig != SIGHUP) {
            watch(&d, &w);
        }
    }
    stop(&d, control, xw);
    gm_safefile_unlock(lock);
    return 0;
}

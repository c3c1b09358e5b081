/* store.h -- the SQLite history store: raw samples, processes, events and
 * marks, and 1-minute and 1-hour rollups maintained incrementally.
 *
 * One writer (the agent's store sink thread) appends in batched
 * transactions; readers (`gpumon report`, the sqlite3 shell) use WAL
 * snapshots and never block the writer or see half a batch.  The schema is
 * documented in docs/store.md, which also shows the report as plain SQL.
 * Retention is per tier (raw 7 days, 1-minute 90 days, 1-hour 3 years by
 * default) and runs from gm_store_tick, not on every write.
 */
#ifndef GM_STORE_STORE_H
#define GM_STORE_STORE_H

#include <stdint.h>

#include "../core/event.h"
#include "../core/buf.h"
#include "../core/err.h"
#include "../core/sinkops.h"
#include "../core/log.h"
#include "../core/snapshot.h"
#include "../core/usage_acct.h"

struct gm_store_opts {
    const char *path;         /* the database file (created with its schema) */
    const char *task;         /* the agent's task id, stored with every sample */
    int64_t retention_raw_ns; /* 0 = keep forever */
    int64_t retention_1m_ns;
    int64_t retention_1h_ns;
    int64_t commit_interval_ns; /* commit a batch at least this often (default 1 s) */
    int64_t interval_ns;        /* the sampling interval: a sample counts for at most twice
                                   this (throttle time, energy); 0 = learn it per GPU (the
                                   median of its recent intervals) */
    int procs;                  /* store processes */
    int gpm;                    /* keep GPM values in the gpm table (docs/store.md) */
    gm_log_fn log;              /* may be NULL */
    void *log_arg;
};

struct gm_store_stats {
    uint64_t samples; /* GPU-samples stored */
    uint64_t proc_rows;
    uint64_t events;
    uint64_t commits;
    uint64_t lost;        /* GPU-samples lost to errors (disk full, ...) */
    uint64_t deleted;     /* rows removed by retention */
    uint64_t events_lost; /* events (alerts, marks) lost: more than the store keeps for a
                             rolled-back batch, or still unwritten at close */
    uint64_t repeated;    /* GPU-samples at a (ts, GPU) already stored (the wall clock
                             stepped back): kept beside the first, with dup > 0 */
};

/* Opens (creating the file, its directory and the schema when missing) the
 * database at o->path in WAL mode.  NULL with err set when it cannot: a
 * database of a newer schema version or one that is not a gpumon store is
 * GM_E_INVAL.  Not thread-safe: one thread uses a store, except that
 * gm_store_stats may be called from any thread. */
struct gm_store *gm_store_open(const struct gm_store_opts *o, struct gm_err *err);

/* Adds one snapshot to the open batch (one row per GPU; with the driver down,
 * a status row for each GPU of the last good snapshot) and commits when the
 * batch is due.  On failure the batch is rolled back, its GPU-samples are
 * counted as lost, the error is logged (rate-limited) and returned
 * (GM_E_NOSPC for a full disk); the next call starts afresh. */
int gm_store_write(struct gm_store *st, const struct gm_snapshot *s);

/* Adds an event or mark to the open batch (committed like samples).  A
 * batch that is rolled back (a full disk) does not lose its events: the
 * store keeps up to 1024 uncommitted events in memory and writes them again
 * with the next batch; beyond that, and what is still unwritten at
 * gm_store_close, they are counted in events_lost and logged. */
int gm_store_event(struct gm_store *st, const struct gm_event *e);

int gm_store_flush(struct gm_store *st);                      /* commit the open batch */
void gm_store_tick(struct gm_store *st, int64_t now_wall_ns); /* commit when due, retention */
void gm_store_stats(const struct gm_store *st, struct gm_store_stats *out);
void gm_store_close(struct gm_store *st); /* commits; accepts NULL */

/* Applies o's task, retentions, interval and procs to the open store, on
 * its one connection (a reload; o's path, commit interval and log are not
 * used: another file is another gm_store_open).  Commits the open batch
 * first, so rows written before keep the old task; the new task's row is
 * made with the next batch.  Cannot fail: a write error later is counted
 * and logged as any other. */
void gm_store_reconfigure(struct gm_store *st, const struct gm_store_opts *o);

/* The report (`gpumon report`), read-only, from the rollups. */
enum gm_report_by { GM_REPORT_HOUR = 0, GM_REPORT_DAY, GM_REPORT_PERIOD /* the whole period */ };
enum gm_report_format { GM_REPORT_TABLE = 0, GM_REPORT_CSV, GM_REPORT_JSON };

struct gm_report_opts {
    const char *path; /* database */
    int64_t from_ns;  /* UTC ns, inclusive: hours that start at or after it */
    int64_t to_ns;    /* UTC ns, exclusive: hours that start before it; 0 = no end */
    int by;           /* enum gm_report_by: UTC hours (labelled in local time), or local
                         days (each hour goes to the local day it starts in) */
    const char *task; /* NULL = all tasks */
    int gpu;          /* NVML index; -1 = all GPUs */
    int format;       /* enum gm_report_format */
};

/* Per GPU per period: average and max utilisation, max memory used, average
 * power, energy (Wh), max temperature, seconds throttled by reason, and the
 * marks in the period, read from the 1-hour rollups and appended to out.
 * Local time is the process's TZ.  GM_E_NOTFOUND when the database does not
 * exist or the task is unknown; GM_E_INVAL for a file that is not a gpumon
 * store (or of a newer schema). */
int gm_store_report(const struct gm_report_opts *o, struct gm_buf *out, struct gm_err *err);

/* The same report as cells (o->format is not used), for a form made
 * elsewhere (the HTML report, view/report_html.h): a row per GPU per
 * period, the columns of the CSV form in its order, keyed as its header.
 * A number keeps how many digits the CSV and JSON forms print; marks and
 * findings are one text each (as in the CSV form); text from outside is
 * as stored, to be escaped by the form.  Free with gm_report_table_free. */
enum gm_report_cell_kind { GM_RCELL_NULL = 0, GM_RCELL_NUM, GM_RCELL_TEXT };
struct gm_report_cell {
    int kind; /* enum gm_report_cell_kind; NULL: not recorded */
    double v;
    int dec;
    char *text;
};
struct gm_report_table {
    size_t ncol, nrow;
    char (*key)[40];             /* ncol keys: "gpu", "util_avg_pct", "thr_thermal_s" ... */
    struct gm_report_cell *cell; /* nrow * ncol, row by row */
    int64_t *hours;              /* nrow: the 1-hour rollups (hours with samples) in the row */
};
/* Who used the GPUs (the usage_1h table, docs/jobs.md): the hours that
 * start in [from, to), summed per job, user or task (report --by
 * job|user|task), or per GPU and (job, user, process) for the HTML report.
 * Ordered by GPU time, most first.  A store from before usage_1h has no
 * rows (not an error). */
struct gm_usage_opts {
    const char *path;
    int64_t from_ns, to_ns; /* to 0 = no end */
    const char *task;       /* NULL = all */
    int gpu;                /* -1 = all */
    int by;                 /* enum gm_usage_by */
    int format;             /* enum gm_report_format (gm_store_usage) */
};
struct gm_usage_row {
    char job[128], user[33], process[64], task[128]; /* outside text, as stored */
    int gpu;                                         /* GM_USAGE_GPU: the NVML index, else -1 */
    int ngpu;                                        /* distinct GPUs */
    double gpu_s;                                    /* GPU-seconds (shared GPUs split) */
    double energy_j;                                 /* -1 unknown */
    double util_avg;                                 /* percent, -1 unknown */
    int64_t mem_max_mib;                             /* -1 unknown */
    double thr_s;                                    /* seconds throttled */
    int64_t first_ms, last_ms;
};
int gm_store_usage_rows(const struct gm_usage_opts *o, struct gm_usage_row **rows, size_t *n,
                        struct gm_err *err);
int gm_store_usage(const struct gm_usage_opts *o, struct gm_buf *out, struct gm_err *err);
/* The agent's /api/v1/usage document "gpumon.usage/1" (docs/api.md) of
 * the rows by o->by (job, user or gpu; o->format unused), on one line.  A
 * database not written yet is no rows. */
int gm_store_usage_api(const struct gm_usage_opts *o, struct gm_buf *out, struct gm_err *err);

int gm_store_report_table(const struct gm_report_opts *o, struct gm_report_table *t,
                          struct gm_err *err);
void gm_report_table_free(struct gm_report_table *t);

/* `gpumon alerts --history`: the notices of the alerts table (docs/store.md),
 * oldest first, as a table (repeat notices marked "firing+") or a JSON array. */
struct gm_alert_history_opts {
    const char *path;
    int64_t from_ns;  /* UTC ns, inclusive */
    int64_t to_ns;    /* exclusive; 0 = no end */
    const char *rule; /* NULL = every rule */
    int json;
};
int gm_store_alert_history(const struct gm_alert_history_opts *o, struct gm_buf *out,
                           struct gm_err *err);

/* The same notices as records, oldest first (the HTML report).  Text from
 * outside (the summary holds the GPU's name) is as stored.  *v is owned by
 * the caller: gm_alert_recs_free.  A store without an alerts table gives
 * none. */
struct gm_alert_rec {
    int64_t ts_ms;
    int repeat;  /* a repeated notice of a firing alert */
    int64_t gpu; /* NVML index; -1 when the alert is not about one GPU */
    char *state; /* "firing", "resolved" */
    char *severity, *rule, *value, *summary;
    int64_t value_age_ms; /* how old value was when the rule took it (alerts.value_age_ms);
                             -1: not a number, or stored before the column */
};
int gm_store_alert_list(const struct gm_alert_history_opts *o, struct gm_alert_rec **v, size_t *n,
                        struct gm_err *err);
void gm_alert_recs_free(struct gm_alert_rec *v, size_t n);

/* The sink interface (core/sinkops.h): ctx is a struct gm_store, which the
 * sink's close frees.  The once variant applies the retention (gm_store_tick) before it
 * closes: `record --once` ends before the first pass of its own. */
extern const struct gm_sink_ops gm_store_sink_ops;
extern const struct gm_sink_ops gm_store_once_sink_ops;

#endif /* GM_STORE_STORE_H */

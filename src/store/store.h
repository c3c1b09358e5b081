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

#include "../agent/event.h"
#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"

struct gm_store_opts {
    const char *path;           /* the database file (created with its schema) */
    const char *task;           /* the agent's task id, stored with every sample */
    int64_t retention_raw_ns;   /* 0 = keep forever */
    int64_t retention_1m_ns;
    int64_t retention_1h_ns;
    int64_t commit_interval_ns; /* commit a batch at least this often (default 1 s) */
    int procs;                  /* store processes */
    void (*log)(void *arg, int level, const char *msg);
    void *log_arg;
};

struct gm_store_stats {
    uint64_t samples;    /* GPU-samples stored */
    uint64_t proc_rows;
    uint64_t events;
    uint64_t commits;
    uint64_t lost;       /* GPU-samples lost to errors (disk full, ...) */
    uint64_t deleted;    /* rows removed by retention */
};

struct gm_store *gm_store_open(const struct gm_store_opts *o, struct gm_err *err);
int gm_store_write(struct gm_store *st, const struct gm_snapshot *s);
int gm_store_event(struct gm_store *st, const struct gm_event *e);
int gm_store_flush(struct gm_store *st);                 /* commit the open batch */
void gm_store_tick(struct gm_store *st, int64_t now_wall_ns); /* commit when due, retention */
void gm_store_stats(const struct gm_store *st, struct gm_store_stats *out);
void gm_store_close(struct gm_store *st);                /* commits; accepts NULL */

/* The report (`gpumon report`), read-only, from the rollups. */
enum gm_report_by { GM_REPORT_HOUR = 0, GM_REPORT_DAY };
enum gm_report_format { GM_REPORT_TABLE = 0, GM_REPORT_CSV, GM_REPORT_JSON };

struct gm_report_opts {
    const char *path;     /* database */
    int64_t from_ns;      /* UTC ns, inclusive */
    int64_t to_ns;        /* UTC ns, exclusive */
    int by;               /* enum gm_report_by; periods are local-time hours/days */
    const char *task;     /* NULL = all tasks */
    int gpu;              /* -1 = all GPUs */
    int format;           /* enum gm_report_format */
};

/* Per GPU per period: average and max utilisation, max memory used, average
 * power, energy, max temperature, time throttled by reason, and the marks in
 * the period.  GM_E_NOTFOUND when the database does not exist. */
int gm_store_report(const struct gm_report_opts *o, struct gm_buf *out, struct gm_err *err);

#endif /* GM_STORE_STORE_H */

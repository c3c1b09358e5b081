/* report_int.h -- what the report's files share (private to src/store/;
 * store.h is the contract): a GPU's row in one period, the marks and
 * findings, the report being built (struct report), the small helpers
 * (hours and local time, reading columns, SQLite failures, CSV cells) and
 * the functions one file defines for another, named gm_rp_*.  report.c
 * reads; report_forms.c has the columns and forms; report_alerts.c the
 * alert history; report_usage.c the usage report.
 */
#ifndef GM_STORE_REPORT_INT_H
#define GM_STORE_REPORT_INT_H

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/text.h"
#include "store.h"
#include "store_schema.h"

#define MS_PER_HOUR INT64_C(3600000)
#define NS_PER_MS INT64_C(1000000)

#define THR_STEM(stem, bits, name) #stem,
static const char *const thr_stem[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_STEM)};
#undef THR_STEM

/* One GPU in one period. */
struct rrow {
    int64_t key;  /* period start, ms since the epoch */
    int64_t hour; /* first hour merged into it */
    int64_t gpu_id;
    int64_t gpu_index; /* -1 = unknown */
    char label[96];
    const char *uuid, *name; /* the GPU's, owned by struct report's gpus */
    int64_t n, util_n, util_sum, power_n, power_sum;
    int64_t nhours; /* hours merged into the row */
    int util_max_ok, mem_max_ok, temp_max_ok, energy_ok;
    int64_t util_max, mem_max, temp_max;
    double energy_j;
    int thr_ok[GM_THR__COUNT];
    int64_t thr[GM_THR__COUNT];
};

struct rmark {
    int64_t ts, key;
    int64_t gpu_id; /* 0 = all GPUs */
    int64_t gpu_index;
    char *task, *text;
};

/* A diagnosis finding on one GPU, from its GM_EV_DIAG events: the periods
 * (keys) it was active in, from the one it began in to the one it ended in. */
struct rfind {
    int64_t gpu_id;
    int cause;
    int64_t key_from, key_to; /* key_to INT64_MAX: still active at the end */
};

/* A GPU's UUID and name, read once per GPU rather than once per row. */
struct rgpu {
    int64_t gpu_id;
    char *uuid, *name;
};

struct report {
    const struct gm_report_opts *o;
    int64_t from_ms, to_ms; /* the hours read: those that start in [from_ms, to_ms) */
    struct rrow *rows;
    size_t nrows, rcap;
    struct rmark *marks;
    size_t nmarks, mcap;
    struct rfind *finds;
    size_t nfinds, fcap;
    struct rgpu *gpus;
    size_t ngpus;
};

static inline int64_t floor_to(int64_t t, int64_t p)
{
    int64_t r = t % p;
    return r < 0 ? t - r - p : t - r;
}

static inline int64_t ceil_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b > 0) ? q + 1 : q;
}

static inline void local_tm(int64_t ms, struct tm *tm)
{
    time_t t = (time_t)floor_to(ms, 1000) / 1000;
    localtime_r(&t, tm);
}

static inline int sql_fail(sqlite3 *db, struct gm_err *err, const char *path, const char *what)
{
    int rc = sqlite3_errcode(db);
    int code = (rc & 0xff) == SQLITE_BUSY ? GM_E_BUSY
               : (rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_PERM ||
                       (rc & 0xff) == SQLITE_READONLY
                   ? GM_E_NOPERM
               : (rc & 0xff) == SQLITE_NOTADB ? GM_E_INVAL
                                              : GM_E_IO;
    return gm_err_set(err, code, "%s: %s: %s", path, what, sqlite3_errmsg(db));
}

static inline char *col_strdup(sqlite3_stmt *q, int c)
{
    const unsigned char *s = sqlite3_column_text(q, c);
    return s ? gm_xstrdup((const char *)s) : NULL;
}

static inline int col_opt(sqlite3_stmt *q, int c, int64_t *v)
{
    if (sqlite3_column_type(q, c) == SQLITE_NULL)
        return 0;
    *v = sqlite3_column_int64(q, c);
    return 1;
}

/* A CSV cell; outside: text from outside (GPU name, UUID, marks), which
 * gets the formula rule (gm_text_csv, docs/store.md). */
static inline void csv_field(struct gm_buf *b, const char *s, int outside)
{
    gm_text_csv(b, s, strlen(s), outside ? GM_TEXT_CSV_OUTSIDE : 0);
}

/* ------------------------------------------- functions shared between files */

/* report.c */
/* Opens the store at path read-only (immutable where the directory cannot
 * be written), checking its schema version. */
int gm_rp_open_db(const char *path, sqlite3 **db, struct gm_err *err);
/* The task's id, or GM_E_NOTFOUND naming the tasks there are. */
int gm_rp_find_task(sqlite3 *db, const char *path, const char *task, int64_t *id,
                    struct gm_err *err);
/* Reads what the report shows into r, initialised by the caller as
 * {.o = o}; free it with gm_rp_report_free, even on failure. */
int gm_rp_report_read(const struct gm_report_opts *o, struct report *r, struct gm_err *err);
/* Frees what r holds. */
void gm_rp_report_free(struct report *r);
/* Groups hours of the same period and GPU (local days). */
void gm_rp_merge_rows(struct report *r);
/* Whether row w's GPU had a finding of cause in w's period. */
int gm_rp_row_has(const struct report *r, const struct rrow *w, int cause);
/* The findings of row w's GPU in w's period, as text, into b. */
void gm_rp_findings_text(struct gm_buf *b, const struct report *r, const struct rrow *w,
                         const char *sep);

#endif /* GM_STORE_REPORT_INT_H */

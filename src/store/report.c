/* report.c -- `gpumon report`: per GPU per hour or local day, from the
 * store's 1-hour rollups (see store.h, docs/store.md).
 *
 * Read-only: one read transaction (a WAL snapshot) over rollup_1h and the
 * marks, so the report never blocks the agent and never sees half a batch.
 * SQL sums each UTC hour over tasks; C groups hours into local days (an hour
 * belongs to the local day in which it starts; the TZ of the process decides),
 * attaches the marks and prints one of three forms: an aligned table, CSV
 * (RFC 4180 quoting, header row, LF line ends) or a JSON array of objects
 * (numbers as numbers, null when unknown).  Raw samples are never read, so
 * a month of 8 GPUs is a few thousand rows.
 */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../core/cause.h"
#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/text.h"
#include "../core/metrics.h"
#include "../core/timeutil.h"
#include "store_schema.h"

#define MS_PER_HOUR INT64_C(3600000)
#define NS_PER_MS INT64_C(1000000)

#define THR_STEM(stem, bits, name) #stem,
static const char *const thr_stem[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_STEM)};
#undef THR_STEM
#define THR_NAME(stem, bits, name) name,
static const char *const thr_name[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_NAME)};
#undef THR_NAME

/* One GPU in one period. */
struct rrow {
    int64_t key;  /* period start, ms since the epoch */
    int64_t hour; /* first hour merged into it */
    int64_t gpu_id;
    int64_t gpu_index; /* -1 = unknown */
    char label[96];
    char *uuid, *name;
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

struct report {
    const struct gm_report_opts *o;
    int64_t from_ms, to_ms; /* the hours read: those that start in [from_ms, to_ms) */
    struct rrow *rows;
    size_t nrows, rcap;
    struct rmark *marks;
    size_t nmarks, mcap;
    struct rfind *finds;
    size_t nfinds, fcap;
};

/* ------------------------------------------------------------ periods */

static int64_t floor_to(int64_t t, int64_t p)
{
    int64_t r = t % p;
    return r < 0 ? t - r - p : t - r;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b > 0) ? q + 1 : q;
}

static void local_tm(int64_t ms, struct tm *tm)
{
    time_t t = (time_t)floor_to(ms, 1000) / 1000;
    localtime_r(&t, tm);
}

/* The period an hour (UTC, ms) belongs to: its key and label.  The whole
 * period (GM_REPORT_PERIOD) is one key, 0; read_rows labels it. */
static int64_t period_of(int by, int64_t hour_ms, char *label, size_t len)
{
    if (by == GM_REPORT_PERIOD)
        return 0;
    struct tm tm;
    local_tm(hour_ms, &tm);
    if (by == GM_REPORT_HOUR) {
        if (label) {
            long off = tm.tm_gmtoff;
            char sign = off < 0 ? '-' : '+';
            if (off < 0)
                off = -off;
            snprintf(label, len, "%04d-%02d-%02dT%02d:%02d%c%02d:%02d", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, sign,
                     (int)(off / 3600 % 100), (int)(off / 60 % 60));
        }
        return hour_ms;
    }
    if (label)
        snprintf(label, len, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    struct tm mid = tm;
    mid.tm_hour = mid.tm_min = mid.tm_sec = 0;
    mid.tm_isdst = -1;
    time_t t = mktime(&mid);
    return (int64_t)t * 1000;
}

/* ------------------------------------------------------------- reading */

static int sql_fail(sqlite3 *db, struct gm_err *err, const char *path, const char *what)
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

static char *col_strdup(sqlite3_stmt *q, int c)
{
    const unsigned char *s = sqlite3_column_text(q, c);
    return s ? gm_xstrdup((const char *)s) : NULL;
}

static int col_opt(sqlite3_stmt *q, int c, int64_t *v)
{
    if (sqlite3_column_type(q, c) == SQLITE_NULL)
        return 0;
    *v = sqlite3_column_int64(q, c);
    return 1;
}

/* The task's id, or GM_E_NOTFOUND naming the tasks there are. */
static int find_task(sqlite3 *db, const char *path, const char *task, int64_t *id,
                     struct gm_err *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id FROM tasks WHERE name = ?1", -1, &q, NULL) != SQLITE_OK)
        return sql_fail(db, err, path, "reading tasks");
    sqlite3_bind_text(q, 1, task, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc != SQLITE_DONE)
        return sql_fail(db, err, path, "reading tasks");
    struct gm_buf names = GM_BUF_INIT;
    if (sqlite3_prepare_v2(db, "SELECT name FROM tasks ORDER BY name LIMIT 20", -1, &q, NULL) ==
        SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW)
            gm_buf_printf(&names, "%s%s", names.len ? ", " : "",
                          (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    gm_err_set(err, GM_E_NOTFOUND, "%s: no task named '%s' in the store (tasks: %s)", path, task,
               names.len ? names.p : "none");
    gm_buf_free(&names);
    return GM_E_NOTFOUND;
}

static int read_rows(struct report *r, sqlite3 *db, int64_t from_ms, int64_t to_ms, int task_set,
                     int64_t task_id, struct gm_err *err)
{
    struct gm_buf sql = GM_BUF_INIT;
    gm_buf_puts(&sql, "SELECT r.ts, r.gpu, g.gpu_index, g.uuid, g.name, sum(r.n), sum(r.util_n),"
                      " sum(r.util_sum), max(r.util_max), max(r.mem_max), sum(r.power_n),"
                      " sum(r.power_sum), sum(r.energy_j), max(r.temp_max)");
    for (int k = 0; k < GM_THR__COUNT; k++)
        gm_buf_printf(&sql, ", sum(r.thr_%s_ms)", thr_stem[k]);
    gm_buf_puts(&sql, " FROM rollup_1h r JOIN gpus g ON g.id = r.gpu"
                      " WHERE r.ts >= ?1 AND r.ts < ?2 AND (?3 = 0 OR r.task = ?4)"
                      " AND (?5 < 0 OR g.gpu_index = ?5)"
                      " GROUP BY r.ts, r.gpu ORDER BY r.ts, g.gpu_index, r.gpu");
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, sql.p, -1, &q, NULL);
    gm_buf_free(&sql);
    if (rc != SQLITE_OK)
        return sql_fail(db, err, r->o->path, "reading the 1-hour rollups");
    sqlite3_bind_int64(q, 1, from_ms);
    sqlite3_bind_int64(q, 2, to_ms);
    sqlite3_bind_int(q, 3, task_set);
    sqlite3_bind_int64(q, 4, task_id);
    sqlite3_bind_int(q, 5, r->o->gpu);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (r->nrows == r->rcap) {
            r->rcap = r->rcap ? r->rcap * 2 : 256;
            r->rows = gm_xrealloc(r->rows, r->rcap * sizeof(*r->rows));
        }
        struct rrow *w = &r->rows[r->nrows++];
        memset(w, 0, sizeof(*w));
        w->hour = sqlite3_column_int64(q, 0);
        w->key = period_of(r->o->by, w->hour, w->label, sizeof(w->label));
        if (r->o->by == GM_REPORT_PERIOD) {
            char a[40], b[40];
            snprintf(w->label, sizeof(w->label), "%s/%s", gm_time_iso(r->o->from_ns, a, sizeof a),
                     r->o->to_ns ? gm_time_iso(r->o->to_ns, b, sizeof b) : "");
        }
        w->gpu_id = sqlite3_column_int64(q, 1);
        w->nhours = 1;
        if (!col_opt(q, 2, &w->gpu_index))
            w->gpu_index = -1;
        w->uuid = col_strdup(q, 3);
        w->name = col_strdup(q, 4);
        w->n = sqlite3_column_int64(q, 5);
        w->util_n = sqlite3_column_int64(q, 6);
        w->util_sum = sqlite3_column_int64(q, 7);
        w->util_max_ok = col_opt(q, 8, &w->util_max);
        w->mem_max_ok = col_opt(q, 9, &w->mem_max);
        w->power_n = sqlite3_column_int64(q, 10);
        w->power_sum = sqlite3_column_int64(q, 11);
        w->energy_ok = sqlite3_column_type(q, 12) != SQLITE_NULL;
        w->energy_j = sqlite3_column_double(q, 12);
        w->temp_max_ok = col_opt(q, 13, &w->temp_max);
        for (int k = 0; k < GM_THR__COUNT; k++)
            w->thr_ok[k] = col_opt(q, 14 + k, &w->thr[k]);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return sql_fail(db, err, r->o->path, "reading the 1-hour rollups");
    return 0;
}

static int read_marks(struct report *r, sqlite3 *db, int64_t from_ms, int64_t to_ms, int task_set,
                      int64_t task_id, struct gm_err *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.ts, e.gpu, g.gpu_index, t.name, e.text FROM events e"
                           " LEFT JOIN gpus g ON g.id = e.gpu LEFT JOIN tasks t ON t.id = e.task"
                           " WHERE e.type = 'mark' AND e.ts >= ?1 AND e.ts < ?2"
                           " AND (?3 = 0 OR e.task = ?4) ORDER BY e.ts, e.id",
                           -1, &q, NULL) != SQLITE_OK)
        return sql_fail(db, err, r->o->path, "reading the marks");
    sqlite3_bind_int64(q, 1, from_ms);
    sqlite3_bind_int64(q, 2, to_ms > INT64_MAX - MS_PER_HOUR ? INT64_MAX : to_ms + MS_PER_HOUR);
    sqlite3_bind_int(q, 3, task_set);
    sqlite3_bind_int64(q, 4, task_id);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(q, 0);
        int64_t hour = floor_to(ts, MS_PER_HOUR);
        if (hour < from_ms || hour >= to_ms)
            continue;
        if (r->nmarks == r->mcap) {
            r->mcap = r->mcap ? r->mcap * 2 : 64;
            r->marks = gm_xrealloc(r->marks, r->mcap * sizeof(*r->marks));
        }
        struct rmark *m = &r->marks[r->nmarks++];
        m->ts = ts;
        m->key = period_of(r->o->by, hour, NULL, 0);
        if (!col_opt(q, 1, &m->gpu_id))
            m->gpu_id = 0;
        if (!col_opt(q, 2, &m->gpu_index))
            m->gpu_index = -1;
        m->task = col_strdup(q, 3);
        m->text = col_strdup(q, 4);
        if (!m->text)
            m->text = gm_xstrdup("");
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return sql_fail(db, err, r->o->path, "reading the marks");
    return 0;
}

/* The diagnosis findings that overlap the report's hours: GM_EV_DIAG
 * events, a beginning and an end per finding (code: the cause, plus
 * GM_CAUSE_EV_ENDED at the end).  A finding with no end is active to the
 * end of the report; one whose end is lost (the agent killed) ends where
 * the agent started again ('agent started' on the timeline). */
static int read_findings(struct report *r, sqlite3 *db, int64_t from_ms, int64_t to_ms,
                         int task_set, int64_t task_id, struct gm_err *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.ts, e.gpu, e.code, e.type FROM events e"
                           " WHERE (e.type = 'diagnosis' OR (e.type = 'agent' AND"
                           " e.text = 'agent started')) AND e.ts < ?1"
                           " AND (?2 = 0 OR e.task = ?3 OR e.type = 'agent') ORDER BY e.ts, e.id",
                           -1, &q, NULL) != SQLITE_OK)
        return sql_fail(db, err, r->o->path, "reading the diagnosis findings");
    sqlite3_bind_int64(q, 1, to_ms > INT64_MAX - MS_PER_HOUR ? INT64_MAX : to_ms + MS_PER_HOUR);
    sqlite3_bind_int(q, 2, task_set);
    sqlite3_bind_int64(q, 3, task_id);
    int rc;
    /* the whole period: findings keep their hours, row_has asks for an overlap */
    int by = r->o->by == GM_REPORT_PERIOD ? GM_REPORT_HOUR : r->o->by;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(q, 0);
        int64_t key = period_of(by, floor_to(ts, MS_PER_HOUR), NULL, 0);
        const unsigned char *type = sqlite3_column_text(q, 3);
        if (type && strcmp((const char *)type, "agent") == 0) {
            for (size_t i = 0; i < r->nfinds; i++)
                if (r->finds[i].key_to == INT64_MAX)
                    r->finds[i].key_to = key;
            continue;
        }
        int64_t gpu_id = 0, code = sqlite3_column_int64(q, 2);
        if (!col_opt(q, 1, &gpu_id))
            continue; /* a finding is about a GPU */
        int cause = (int)(code & ~(int64_t)GM_CAUSE_EV_ENDED);
        if (cause < 0 || cause >= GM_CAUSE__COUNT)
            continue; /* a newer gpumon's cause: not ours to name */
        struct rfind *open = NULL;
        for (size_t i = 0; i < r->nfinds; i++)
            if (r->finds[i].gpu_id == gpu_id && r->finds[i].cause == cause &&
                r->finds[i].key_to == INT64_MAX)
                open = &r->finds[i];
        if (code & GM_CAUSE_EV_ENDED) {
            if (open) /* an end in the first minute of a period is still in it */
                open->key_to = period_of(by, floor_to(ts - 1, MS_PER_HOUR), NULL, 0);
            continue;
        }
        if (open)
            continue; /* began twice: the first beginning holds */
        if (r->nfinds == r->fcap) {
            r->fcap = r->fcap ? r->fcap * 2 : 32;
            r->finds = gm_xrealloc(r->finds, r->fcap * sizeof(*r->finds));
        }
        r->finds[r->nfinds++] = (struct rfind){gpu_id, cause, key, INT64_MAX};
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return sql_fail(db, err, r->o->path, "reading the diagnosis findings");
    (void)from_ms;
    return 0;
}

/* Whether the row's GPU had the cause in the row's period. */
static int row_has(const struct report *r, const struct rrow *w, int cause)
{
    for (size_t i = 0; i < r->nfinds; i++) {
        const struct rfind *f = &r->finds[i];
        if (f->gpu_id != w->gpu_id || f->cause != cause)
            continue;
        if (r->o->by == GM_REPORT_PERIOD ? f->key_from < r->to_ms && f->key_to >= r->from_ms
                                         : f->key_from <= w->key && w->key <= f->key_to)
            return 1;
    }
    return 0;
}

/* "input-starved, thermal-throttle"; sep between names. */
static void findings_text(struct gm_buf *b, const struct report *r, const struct rrow *w,
                          const char *sep)
{
    int any = 0;
    for (int c = 0; c < GM_CAUSE__COUNT; c++)
        if (row_has(r, w, c)) {
            gm_buf_printf(b, "%s%s", any ? sep : "", gm_cause_name(c));
            any = 1;
        }
}

static int row_cmp(const void *a, const void *b)
{
    const struct rrow *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->gpu_index != y->gpu_index)
        return x->gpu_index < y->gpu_index ? -1 : 1;
    if (x->gpu_id != y->gpu_id)
        return x->gpu_id < y->gpu_id ? -1 : 1;
    if (x->hour != y->hour)
        return x->hour < y->hour ? -1 : 1;
    return 0;
}

static void max_into(int *ok, int64_t *v, int ok2, int64_t v2)
{
    if (ok2 && (!*ok || v2 > *v)) {
        *v = v2;
        *ok = 1;
    }
}

/* Groups hours of the same period and GPU (local days). */
static void merge_rows(struct report *r)
{
    if (r->nrows == 0)
        return;
    qsort(r->rows, r->nrows, sizeof(*r->rows), row_cmp);
    size_t out = 0;
    for (size_t i = 1; i < r->nrows; i++) {
        struct rrow *a = &r->rows[out], *b = &r->rows[i];
        if (a->key != b->key || a->gpu_id != b->gpu_id) {
            r->rows[++out] = *b;
            continue;
        }
        a->n += b->n;
        a->nhours += b->nhours;
        a->util_n += b->util_n;
        a->util_sum += b->util_sum;
        a->power_n += b->power_n;
        a->power_sum += b->power_sum;
        max_into(&a->util_max_ok, &a->util_max, b->util_max_ok, b->util_max);
        max_into(&a->mem_max_ok, &a->mem_max, b->mem_max_ok, b->mem_max);
        max_into(&a->temp_max_ok, &a->temp_max, b->temp_max_ok, b->temp_max);
        if (b->energy_ok) {
            a->energy_j = a->energy_ok ? a->energy_j + b->energy_j : b->energy_j;
            a->energy_ok = 1;
        }
        for (int k = 0; k < GM_THR__COUNT; k++)
            if (b->thr_ok[k]) {
                a->thr[k] = a->thr_ok[k] ? a->thr[k] + b->thr[k] : b->thr[k];
                a->thr_ok[k] = 1;
            }
        free(b->uuid);
        free(b->name);
    }
    r->nrows = out + 1;
}

/* -------------------------------------------------------------- columns */

enum {
    C_PERIOD,
    C_GPU,
    C_UUID,
    C_NAME,
    C_SAMPLES,
    C_UTIL_AVG,
    C_UTIL_MAX,
    C_MEM_MAX,
    C_POWER_AVG,
    C_ENERGY,
    C_TEMP_MAX,
    C_THR, /* C_THR + k: seconds throttled by reason k */
    C_FINDINGS = C_THR + GM_THR__COUNT,
    C_MARKS,
    C__COUNT
};

/* CSV header / JSON key of each column (the throttle ones are built). */
static const char *const col_key[C_THR] = {
    "period",       "gpu",         "uuid",        "name",      "samples",    "util_avg_pct",
    "util_max_pct", "mem_max_mib", "power_avg_w", "energy_wh", "temp_max_c",
};

static const char *key_of(int c, char *buf, size_t len)
{
    if (c < C_THR)
        return col_key[c];
    if (c == C_MARKS)
        return "marks";
    if (c == C_FINDINGS)
        return "findings";
    snprintf(buf, len, "thr_%s_s", thr_stem[c - C_THR]);
    return buf;
}

/* The number of column c, with *dec digits after the point; 0 when unknown. */
static int col_num(const struct rrow *w, int c, double *v, int *dec)
{
    *dec = 0;
    switch (c) {
    case C_GPU:
        /* w is a row of r->rows; the analyser, taking col_text's w->label
         * for NULL in put_json, thinks w may be NULL here:
         * NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
        *v = (double)w->gpu_index;
        return w->gpu_index >= 0;
    case C_SAMPLES:
        *v = (double)w->n;
        return 1;
    case C_UTIL_AVG:
        *dec = 1;
        *v = w->util_n ? (double)w->util_sum / (double)w->util_n : 0;
        return w->util_n > 0;
    case C_UTIL_MAX:
        *v = (double)w->util_max;
        return w->util_max_ok;
    case C_MEM_MAX:
        *v = (double)w->mem_max;
        return w->mem_max_ok;
    case C_POWER_AVG:
        *dec = 1;
        *v = w->power_n ? (double)w->power_sum / (double)w->power_n /
                              gm_metrics[GM_M_POWER_DRAW].store_scale
                        : 0;
        return w->power_n > 0;
    case C_ENERGY:
        *dec = 2;
        *v = w->energy_j / 3600.0;
        return w->energy_ok;
    case C_TEMP_MAX:
        *v = (double)w->temp_max;
        return w->temp_max_ok;
    default:
        if (c >= C_THR && c < C_FINDINGS) {
            *dec = 1;
            *v = (double)w->thr[c - C_THR] / 1000.0;
            return w->thr_ok[c - C_THR];
        }
        return 0;
    }
}

static const char *col_text(const struct rrow *w, int c)
{
    switch (c) {
    case C_PERIOD:
        return w->label;
    case C_UUID:
        return w->uuid;
    case C_NAME:
        return w->name;
    default:
        return NULL;
    }
}

static int is_text_col(int c)
{
    return c == C_PERIOD || c == C_UUID || c == C_NAME || c == C_MARKS || c == C_FINDINGS;
}

/* Marks [*lo, *hi) of the row's period; lo only moves forward (rows and
 * marks are both in period order). */
static void marks_of(const struct report *r, const struct rrow *w, size_t *lo, size_t *hi)
{
    while (*lo < r->nmarks && r->marks[*lo].key < w->key)
        (*lo)++;
    *hi = *lo;
    while (*hi < r->nmarks && r->marks[*hi].key == w->key)
        (*hi)++;
}

static int mark_applies(const struct rmark *m, const struct rrow *w)
{
    return m->gpu_id == 0 || m->gpu_id == w->gpu_id;
}

/* "10:15 epoch 3 start; 10:40 eval" (local time); the texts as one line
 * (gm_text_line: control characters and invalid bytes as U+FFFD). */
static void marks_text(struct gm_buf *b, const struct report *r, const struct rrow *w, size_t lo,
                       size_t hi)
{
    int first = 1;
    for (size_t i = lo; i < hi; i++) {
        const struct rmark *m = &r->marks[i];
        if (!mark_applies(m, w))
            continue;
        struct tm tm;
        local_tm(m->ts, &tm);
        gm_buf_printf(b, "%s%02d:%02d ", first ? "" : "; ", tm.tm_hour, tm.tm_min);
        gm_text_line(b, m->text, strlen(m->text));
        first = 0;
    }
}

/* ---------------------------------------------------------------- forms */

/* A CSV cell; outside: text from outside (GPU name, UUID, marks), which
 * gets the formula rule (gm_text_csv, docs/store.md). */
static void csv_field(struct gm_buf *b, const char *s, int outside)
{
    gm_text_csv(b, s, strlen(s), outside ? GM_TEXT_CSV_OUTSIDE : 0);
}

static void put_csv(struct gm_buf *out, const struct report *r)
{
    char kb[40];
    for (int c = 0; c < C__COUNT; c++)
        gm_buf_printf(out, "%s%s", c ? "," : "", key_of(c, kb, sizeof(kb)));
    gm_buf_putc(out, '\n');
    size_t lo = 0, hi = 0;
    struct gm_buf cell = GM_BUF_INIT;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct rrow *w = &r->rows[i];
        marks_of(r, w, &lo, &hi);
        for (int c = 0; c < C__COUNT; c++) {
            if (c)
                gm_buf_putc(out, ',');
            gm_buf_reset(&cell);
            double v;
            int dec;
            if (c == C_MARKS) {
                marks_text(&cell, r, w, lo, hi);
            } else if (c == C_FINDINGS) {
                findings_text(&cell, r, w, " ");
            } else if (is_text_col(c)) {
                const char *s = col_text(w, c);
                gm_buf_puts(&cell, s ? s : "");
            } else if (col_num(w, c, &v, &dec)) {
                gm_buf_printf(&cell, "%.*f", dec, v);
            }
            csv_field(out, cell.p ? cell.p : "", c == C_UUID || c == C_NAME || c == C_MARKS);
        }
        gm_buf_putc(out, '\n');
    }
    gm_buf_free(&cell);
}

static void put_json(struct gm_buf *out, const struct report *r)
{
    struct gm_json j;
    char kb[40], tb[64];
    gm_json_init(&j, out, 1);
    gm_json_arr_begin(&j);
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct rrow *w = &r->rows[i];
        marks_of(r, w, &lo, &hi);
        gm_json_obj_begin(&j);
        for (int c = 0; c < C__COUNT; c++) {
            gm_json_key(&j, key_of(c, kb, sizeof(kb)));
            double v;
            int dec;
            if (c == C_MARKS) {
                gm_json_arr_begin(&j);
                for (size_t k = lo; k < hi; k++) {
                    const struct rmark *m = &r->marks[k];
                    if (!mark_applies(m, w))
                        continue;
                    gm_json_obj_begin(&j);
                    gm_json_key(&j, "time");
                    gm_json_str(&j, gm_time_iso(m->ts * NS_PER_MS, tb, sizeof(tb)));
                    gm_json_key(&j, "gpu");
                    if (m->gpu_id && m->gpu_index >= 0)
                        gm_json_i64(&j, m->gpu_index);
                    else
                        gm_json_null(&j);
                    gm_json_key(&j, "task");
                    if (m->task)
                        gm_json_str(&j, m->task);
                    else
                        gm_json_null(&j);
                    gm_json_key(&j, "text");
                    gm_json_str(&j, m->text);
                    gm_json_obj_end(&j);
                }
                gm_json_arr_end(&j);
            } else if (c == C_FINDINGS) {
                gm_json_arr_begin(&j);
                for (int k = 0; k < GM_CAUSE__COUNT; k++)
                    if (row_has(r, w, k))
                        gm_json_str(&j, gm_cause_name(k));
                gm_json_arr_end(&j);
            } else if (is_text_col(c)) {
                const char *s = col_text(w, c);
                if (s)
                    gm_json_str(&j, s);
                else
                    gm_json_null(&j);
            } else if (!col_num(w, c, &v, &dec)) {
                gm_json_null(&j);
            } else if (dec == 0) {
                gm_json_i64(&j, (int64_t)v);
            } else {
                gm_json_f64(&j, v, dec);
            }
        }
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_buf_putc(out, '\n');
}

/* The table: fewer, shorter columns; throttling as one "reason seconds" list. */
enum {
    T_PERIOD,
    T_GPU,
    T_SAMPLES,
    T_UAVG,
    T_UMAX,
    T_MEM,
    T_POWER,
    T_ENERGY,
    T_TEMP,
    T_THR,
    T_FINDINGS,
    T_MARKS,
    T__COUNT
};
static const char *const t_head[T__COUNT] = {
    "period",      "gpu",       "samples",    "util_avg%", "util_max%", "mem_max_MiB",
    "power_avg_W", "energy_Wh", "temp_max_C", "throttled", "findings",  "marks",
};
static const int t_col[T__COUNT] = {C_PERIOD,   C_GPU,     C_SAMPLES,   C_UTIL_AVG,
                                    C_UTIL_MAX, C_MEM_MAX, C_POWER_AVG, C_ENERGY,
                                    C_TEMP_MAX, -1,        C_FINDINGS,  C_MARKS};

static void table_cell(struct gm_buf *b, const struct report *r, const struct rrow *w, int t,
                       size_t lo, size_t hi)
{
    int c = t_col[t];
    double v;
    int dec;
    if (t == T_THR) {
        int known = 0, any = 0;
        for (int k = 0; k < GM_THR__COUNT; k++) {
            known |= w->thr_ok[k];
            if (w->thr_ok[k] && w->thr[k] > 0) {
                gm_buf_printf(b, "%s%s %.1fs", any ? ", " : "", thr_name[k],
                              (double)w->thr[k] / 1000.0);
                any = 1;
            }
        }
        if (!any)
            gm_buf_puts(b, known ? "-" : "N/A");
    } else if (c == C_MARKS) {
        marks_text(b, r, w, lo, hi);
    } else if (c == C_FINDINGS) {
        findings_text(b, r, w, ", ");
        if (!b->len)
            gm_buf_puts(b, "-");
    } else if (is_text_col(c)) {
        const char *s = col_text(w, c);
        gm_text_line(b, s ? s : "N/A", strlen(s ? s : "N/A"));
    } else if (col_num(w, c, &v, &dec)) {
        gm_buf_printf(b, "%.*f", dec, v);
    } else {
        gm_buf_puts(b, "N/A");
    }
}

static void put_table(struct gm_buf *out, const struct report *r)
{
    size_t ncell = (r->nrows + 1) * T__COUNT;
    struct gm_buf *cells = gm_xcalloc(ncell, sizeof(*cells));
    size_t width[T__COUNT] = {0};
    for (int t = 0; t < T__COUNT; t++) {
        gm_buf_puts(&cells[t], t_head[t]);
        width[t] = gm_text_width(t_head[t]);
    }
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        marks_of(r, &r->rows[i], &lo, &hi);
        for (int t = 0; t < T__COUNT; t++) {
            struct gm_buf *b = &cells[(i + 1) * T__COUNT + t];
            table_cell(b, r, &r->rows[i], t, lo, hi);
            if (b->p && gm_text_width(b->p) > width[t])
                width[t] = gm_text_width(b->p);
        }
    }
    for (size_t i = 0; i <= r->nrows; i++) {
        struct gm_buf line = GM_BUF_INIT;
        for (int t = 0; t < T__COUNT; t++) {
            const struct gm_buf *b = &cells[i * T__COUNT + t];
            const char *s = b->p ? b->p : "";
            int left = t == T_PERIOD || t == T_THR || t == T_FINDINGS || t == T_MARKS;
            if (t)
                gm_buf_puts(&line, "  ");
            if (left) {
                gm_buf_puts(&line, s);
                if (t != T_MARKS)
                    gm_buf_fill(&line, ' ', width[t] - gm_text_width(s));
            } else {
                gm_buf_fill(&line, ' ', width[t] - gm_text_width(s));
                gm_buf_puts(&line, s);
            }
        }
        while (line.len > 0 && line.p[line.len - 1] == ' ')
            line.p[--line.len] = '\0';
        gm_buf_put(out, line.p, line.len);
        gm_buf_putc(out, '\n');
        gm_buf_free(&line);
    }
    for (size_t i = 0; i < ncell; i++)
        gm_buf_free(&cells[i]);
    free(cells);
}

/* ----------------------------------------------------------------- main */

static void report_free(struct report *r)
{
    for (size_t i = 0; i < r->nrows; i++) {
        free(r->rows[i].uuid);
        free(r->rows[i].name);
    }
    free(r->rows);
    for (size_t i = 0; i < r->nmarks; i++) {
        free(r->marks[i].task);
        free(r->marks[i].text);
    }
    free(r->marks);
    free(r->finds);
}

static int read_version(sqlite3 *db, int64_t *ver)
{
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            *ver = sqlite3_column_int64(q, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(q);
    return rc;
}

/* "file:" URI of path with immutable=1 (RFC 3986 escapes). */
static char *immutable_uri(const char *path)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            gm_buf_putc(&b, (char)*p);
        else
            gm_buf_printf(&b, "%%%02X", *p);
    }
    gm_buf_puts(&b, "?immutable=1");
    return b.p;
}

/* Opens the database read-only and checks that it is a store we can read.
 * A WAL database whose -shm file is missing (the agent is not running) and
 * cannot be created (a user without write access to the directory) is opened
 * as immutable: nothing is writing it then. */
static int open_db(const char *path, sqlite3 **db, struct gm_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return gm_err_set(err, GM_E_NOTFOUND,
                              "%s: no such history database (the agent writes it when its store "
                              "is enabled; see docs/store.md)",
                              path);
        return gm_err_set(err, errno == EACCES ? GM_E_NOPERM : GM_E_IO, "%s: %s", path,
                          strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return gm_err_set(err, GM_E_INVAL, "%s: not a regular file", path);
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK)
        return sql_fail(*db, err, path, "cannot open");
    sqlite3_busy_timeout(*db, 5000);
    int64_t ver = -1;
    rc = read_version(*db, &ver);
    if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) {
        char wal[4200];
        snprintf(wal, sizeof(wal), "%s-wal", path);
        if (stat(wal, &sb) != 0 && errno == ENOENT) {
            char *uri = immutable_uri(path);
            sqlite3_close(*db);
            *db = NULL;
            rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
            free(uri);
            if (rc != SQLITE_OK)
                return sql_fail(*db, err, path, "cannot open");
            rc = read_version(*db, &ver);
        }
    }
    if (rc != SQLITE_OK)
        return sql_fail(*db, err, path, "cannot read");
    if (ver == 0)
        return gm_err_set(err, GM_E_INVAL, "%s: not a gpumon history database", path);
    if (ver > GM_STORE_SCHEMA_VERSION)
        return gm_err_set(err, GM_E_INVAL,
                          "%s: schema version %" PRId64 " is newer than this gpumon reads (%d)",
                          path, ver, GM_STORE_SCHEMA_VERSION);
    return 0;
}

/* Reads what the report shows into r, initialised by the caller as
 * {.o = o} (free it with report_free, even on failure); the rows are per
 * hour until merge_rows. */
static int report_read(const struct gm_report_opts *o, struct report *r, struct gm_err *err)
{
    if (!o || !o->path)
        return gm_err_set(err, GM_E_INVAL, "report: no database path");
    if (o->by != GM_REPORT_HOUR && o->by != GM_REPORT_DAY && o->by != GM_REPORT_PERIOD)
        return gm_err_set(err, GM_E_INVAL, "report: unknown period %d", o->by);
    tzset();

    sqlite3 *db = NULL;
    int rc = open_db(o->path, &db, err);
    int64_t from_ms = ceil_div(o->from_ns, NS_PER_MS);
    int64_t to_ms = o->to_ns == 0 ? INT64_MAX : ceil_div(o->to_ns, NS_PER_MS);
    r->from_ms = from_ms;
    r->to_ms = to_ms;
    int64_t task_id = 0;
    int task_set = o->task != NULL;
    /* one read transaction: rollups and marks from the same snapshot */
    if (rc == 0 && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        rc = sql_fail(db, err, o->path, "cannot read");
    if (rc == 0 && task_set)
        rc = find_task(db, o->path, o->task, &task_id, err);
    if (rc == 0)
        rc = read_rows(r, db, from_ms, to_ms, task_set, task_id, err);
    if (rc == 0)
        rc = read_marks(r, db, from_ms, to_ms, task_set, task_id, err);
    if (rc == 0)
        rc = read_findings(r, db, from_ms, to_ms, task_set, task_id, err);
    if (db) {
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(db);
    }
    return rc;
}

int gm_store_report(const struct gm_report_opts *o, struct gm_buf *out, struct gm_err *err)
{
    if (!o || !out)
        return gm_err_set(err, GM_E_INVAL, "report: no options or no output");
    if (o->format < GM_REPORT_TABLE || o->format > GM_REPORT_JSON)
        return gm_err_set(err, GM_E_INVAL, "report: unknown format %d", o->format);
    struct report r = {.o = o};
    int rc = report_read(o, &r, err);
    if (rc == 0) {
        merge_rows(&r);
        switch (o->format) {
        case GM_REPORT_CSV:
            put_csv(out, &r);
            break;
        case GM_REPORT_JSON:
            put_json(out, &r);
            break;
        default:
            put_table(out, &r);
        }
    }
    report_free(&r);
    return rc;
}

int gm_store_report_table(const struct gm_report_opts *o, struct gm_report_table *t,
                          struct gm_err *err)
{
    memset(t, 0, sizeof(*t));
    struct report r = {.o = o};
    int rc = report_read(o, &r, err);
    if (rc != 0) {
        report_free(&r);
        return rc;
    }
    merge_rows(&r);
    t->ncol = C__COUNT;
    t->nrow = r.nrows;
    t->key = gm_xcalloc(C__COUNT, sizeof(*t->key));
    char kb[40];
    for (int c = 0; c < C__COUNT; c++)
        snprintf(t->key[c], sizeof(t->key[c]), "%s", key_of(c, kb, sizeof(kb)));
    t->cell = gm_xcalloc(r.nrows * C__COUNT + 1, sizeof(*t->cell));
    t->hours = gm_xcalloc(r.nrows + 1, sizeof(*t->hours));
    for (size_t i = 0; i < r.nrows; i++)
        t->hours[i] = r.rows[i].nhours;
    size_t lo = 0, hi = 0;
    struct gm_buf b = GM_BUF_INIT;
    for (size_t i = 0; i < r.nrows; i++) {
        const struct rrow *w = &r.rows[i];
        marks_of(&r, w, &lo, &hi);
        for (int c = 0; c < C__COUNT; c++) {
            struct gm_report_cell *x = &t->cell[i * C__COUNT + (size_t)c];
            gm_buf_reset(&b);
            if (c == C_MARKS)
                marks_text(&b, &r, w, lo, hi);
            else if (c == C_FINDINGS)
                findings_text(&b, &r, w, " ");
            else if (is_text_col(c) && col_text(w, c))
                gm_buf_puts(&b, col_text(w, c));
            if (is_text_col(c)) {
                if (b.len || c == C_MARKS || c == C_FINDINGS || col_text(w, c)) {
                    x->kind = GM_RCELL_TEXT;
                    x->text = gm_xstrdup(b.p ? b.p : "");
                }
            } else if (col_num(w, c, &x->v, &x->dec)) {
                x->kind = GM_RCELL_NUM;
            }
        }
    }
    gm_buf_free(&b);
    report_free(&r);
    return 0;
}

void gm_report_table_free(struct gm_report_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->cell && i < t->nrow * t->ncol; i++)
        free(t->cell[i].text);
    free(t->cell);
    free(t->key);
    free(t->hours);
    memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------------------- alert history */

int gm_store_alert_history(const struct gm_alert_history_opts *o, struct gm_buf *out,
                           struct gm_err *err)
{
    if (!o || !o->path || !out)
        return gm_err_set(err, GM_E_INVAL, "alert history: no database path");
    tzset();
    sqlite3 *db = NULL;
    int rc = open_db(o->path, &db, err);
    sqlite3_stmt *q = NULL;
    int have_table = 0;
    if (rc == 0) {
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'alerts'", -1,
                               &q, NULL) != SQLITE_OK ||
            sqlite3_step(q) != SQLITE_ROW)
            rc = sql_fail(db, err, o->path, "cannot read");
        else
            have_table = sqlite3_column_int(q, 0) > 0;
        sqlite3_finalize(q);
        q = NULL;
    }
    struct gm_json j;
    gm_json_init(&j, out, 0);
    if (o->json)
        gm_json_arr_begin(&j);
    else
        gm_buf_printf(out, "%-29s  %-8s  %-8s  %-24s  %3s  %-12s  %s\n", "TIME", "STATE",
                      "SEVERITY", "RULE", "GPU", "VALUE", "SUMMARY");
    int n = 0;
    if (rc == 0 && have_table) {
        if (sqlite3_prepare_v2(db,
                               "SELECT a.ts, a.state, a.severity, a.rule, g.gpu_index, g.uuid,"
                               " a.value, a.summary, a.repeat, a.fingerprint, a.active_ts,"
                               " a.fired_ts FROM alerts a LEFT JOIN gpus g ON g.id = a.gpu"
                               " WHERE a.ts >= ?1 AND a.ts < ?2 AND (?3 IS NULL OR a.rule = ?3)"
                               " ORDER BY a.ts, a.id",
                               -1, &q, NULL) != SQLITE_OK) {
            rc = sql_fail(db, err, o->path, "reading the alerts");
        } else {
            sqlite3_bind_int64(q, 1, o->from_ns / NS_PER_MS);
            sqlite3_bind_int64(q, 2, o->to_ns ? o->to_ns / NS_PER_MS : INT64_MAX);
            if (o->rule)
                sqlite3_bind_text(q, 3, o->rule, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(q, 3);
            int s;
            while ((s = sqlite3_step(q)) == SQLITE_ROW) {
                char iso[64];
                const char *txt[12];
                for (int i = 0; i < 12; i++) {
                    txt[i] = (const char *)sqlite3_column_text(q, i);
                    if (!txt[i])
                        txt[i] = "";
                }
                int64_t ts = sqlite3_column_int64(q, 0);
                gm_time_iso(ts * NS_PER_MS, iso, sizeof(iso));
                int has_gpu = sqlite3_column_type(q, 4) != SQLITE_NULL;
                int repeat = sqlite3_column_int(q, 8);
                n++;
                if (o->json) {
                    gm_json_obj_begin(&j);
                    gm_json_key(&j, "time");
                    gm_json_str(&j, iso);
                    gm_json_key(&j, "time_unix_ms");
                    gm_json_i64(&j, ts);
                    gm_json_key(&j, "state");
                    gm_json_str(&j, txt[1]);
                    gm_json_key(&j, "repeat");
                    gm_json_bool(&j, repeat);
                    gm_json_key(&j, "severity");
                    gm_json_str(&j, txt[2]);
                    gm_json_key(&j, "rule");
                    gm_json_str(&j, txt[3]);
                    gm_json_key(&j, "gpu");
                    if (has_gpu)
                        gm_json_i64(&j, sqlite3_column_int64(q, 4));
                    else
                        gm_json_null(&j);
                    gm_json_key(&j, "uuid");
                    if (has_gpu)
                        gm_json_str(&j, txt[5]);
                    else
                        gm_json_null(&j);
                    gm_json_key(&j, "value");
                    gm_json_str(&j, txt[6]);
                    gm_json_key(&j, "summary");
                    gm_json_str(&j, txt[7]);
                    gm_json_key(&j, "fingerprint");
                    gm_json_str(&j, txt[9]);
                    for (int k = 10; k <= 11; k++) {
                        gm_json_key(&j, k == 10 ? "active_since" : "firing_since");
                        if (sqlite3_column_type(q, k) == SQLITE_NULL) {
                            gm_json_null(&j);
                        } else {
                            char b[64];
                            gm_json_str(&j, gm_time_iso(sqlite3_column_int64(q, k) * NS_PER_MS, b,
                                                        sizeof(b)));
                        }
                    }
                    gm_json_obj_end(&j);
                } else {
                    char gpu[16] = "-";
                    if (has_gpu)
                        snprintf(gpu, sizeof(gpu), "%lld", (long long)sqlite3_column_int64(q, 4));
                    char state[16];
                    snprintf(state, sizeof(state), "%s%s", txt[1], repeat ? "+" : "");
                    /* rule, value and summary as one line each: the summary holds the
                     * GPU's name, and the store keeps control characters */
                    struct gm_buf safe[3] = {GM_BUF_INIT, GM_BUF_INIT, GM_BUF_INIT};
                    const char *src[3] = {txt[3], txt[6][0] ? txt[6] : "-", txt[7]}, *t[3];
                    for (int k = 0; k < 3; k++) {
                        gm_text_line(&safe[k], src[k], strlen(src[k]));
                        t[k] = safe[k].p ? safe[k].p : "";
                    }
                    char rule[128], value[128];
                    gm_buf_printf(out, "%-29s  %-8s  %-8s  %s  %3s  %s  %s\n", iso, state, txt[2],
                                  gm_fmt_cell(rule, sizeof(rule), t[0], 24), gpu,
                                  gm_fmt_cell(value, sizeof(value), t[1], 12), t[2]);
                    for (int k = 0; k < 3; k++)
                        gm_buf_free(&safe[k]);
                }
            }
            if (s != SQLITE_DONE)
                rc = sql_fail(db, err, o->path, "reading the alerts");
            sqlite3_finalize(q);
        }
    }
    if (db)
        sqlite3_close(db);
    if (rc != 0)
        return rc;
    if (o->json) {
        gm_json_arr_end(&j);
        gm_buf_putc(out, '\n');
    } else if (n == 0) {
        gm_buf_puts(out, "(no alert notices in this period)\n");
    }
    return 0;
}

int gm_store_alert_list(const struct gm_alert_history_opts *o, struct gm_alert_rec **v, size_t *n,
                        struct gm_err *err)
{
    *v = NULL;
    *n = 0;
    if (!o || !o->path)
        return gm_err_set(err, GM_E_INVAL, "alert history: no database path");
    sqlite3 *db = NULL;
    int rc = open_db(o->path, &db, err);
    sqlite3_stmt *q = NULL;
    int have_table = 0;
    if (rc == 0) {
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'alerts'", -1,
                               &q, NULL) != SQLITE_OK ||
            sqlite3_step(q) != SQLITE_ROW)
            rc = sql_fail(db, err, o->path, "cannot read");
        else
            have_table = sqlite3_column_int(q, 0) > 0;
        sqlite3_finalize(q);
        q = NULL;
    }
    size_t cap = 0;
    if (rc == 0 && have_table) {
        if (sqlite3_prepare_v2(db,
                               "SELECT a.ts, a.state, a.severity, a.rule, g.gpu_index, a.value,"
                               " a.summary, a.repeat FROM alerts a LEFT JOIN gpus g ON g.id = a.gpu"
                               " WHERE a.ts >= ?1 AND a.ts < ?2 AND (?3 IS NULL OR a.rule = ?3)"
                               " ORDER BY a.ts, a.id",
                               -1, &q, NULL) != SQLITE_OK) {
            rc = sql_fail(db, err, o->path, "reading the alerts");
        } else {
            sqlite3_bind_int64(q, 1, o->from_ns / NS_PER_MS);
            sqlite3_bind_int64(q, 2, o->to_ns ? o->to_ns / NS_PER_MS : INT64_MAX);
            if (o->rule)
                sqlite3_bind_text(q, 3, o->rule, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(q, 3);
            int s;
            while ((s = sqlite3_step(q)) == SQLITE_ROW) {
                if (*n == cap) {
                    cap = cap ? cap * 2 : 32;
                    *v = gm_xrealloc(*v, cap * sizeof(**v));
                }
                struct gm_alert_rec *a = &(*v)[(*n)++];
                a->ts_ms = sqlite3_column_int64(q, 0);
                a->state = col_strdup(q, 1);
                a->severity = col_strdup(q, 2);
                a->rule = col_strdup(q, 3);
                if (!col_opt(q, 4, &a->gpu))
                    a->gpu = -1;
                a->value = col_strdup(q, 5);
                a->summary = col_strdup(q, 6);
                a->repeat = sqlite3_column_int(q, 7) != 0;
                char **txt[] = {&a->state, &a->severity, &a->rule, &a->value, &a->summary};
                for (size_t k = 0; k < sizeof(txt) / sizeof(txt[0]); k++)
                    if (!*txt[k])
                        *txt[k] = gm_xstrdup("");
            }
            if (s != SQLITE_DONE)
                rc = sql_fail(db, err, o->path, "reading the alerts");
            sqlite3_finalize(q);
        }
    }
    if (db)
        sqlite3_close(db);
    if (rc != 0) {
        gm_alert_recs_free(*v, *n);
        *v = NULL;
        *n = 0;
    }
    return rc;
}

void gm_alert_recs_free(struct gm_alert_rec *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].state);
        free(v[i].severity);
        free(v[i].rule);
        free(v[i].value);
        free(v[i].summary);
    }
    free(v);
}

/* ------------------------------------------------------------------ usage */

/* Who used the GPUs (usage_1h, docs/jobs.md): the hours that start in the
 * period, summed per job, user, task, or (HTML report) per GPU and group. */
int gm_store_usage_rows(const struct gm_usage_opts *o, struct gm_usage_row **rows, size_t *n,
                        struct gm_err *err)
{
    *rows = NULL;
    *n = 0;
    if (!o || !o->path)
        return gm_err_set(err, GM_E_INVAL, "report: no database path");
    static const char *const key_sql[] = {
        [GM_USAGE_JOB] = "u.job, '', '', '', -1",
        [GM_USAGE_USER] = "'', u.user, '', '', -1",
        [GM_USAGE_TASK] = "'', '', '', t.name, -1",
        [GM_USAGE_GPU] = "u.job, u.user, u.process, '', g.gpu_index",
    };
    static const char *const group_sql[] = {
        [GM_USAGE_JOB] = "u.job",
        [GM_USAGE_USER] = "u.user",
        [GM_USAGE_TASK] = "t.name",
        [GM_USAGE_GPU] = "g.gpu_index, u.job, u.user, u.process",
    };
    if (o->by < GM_USAGE_JOB || o->by > GM_USAGE_GPU)
        return gm_err_set(err, GM_E_INVAL, "report: unknown usage grouping %d", o->by);
    sqlite3 *db = NULL;
    int rc = open_db(o->path, &db, err);
    int64_t task_id = 0;
    if (rc == 0 && o->task)
        rc = find_task(db, o->path, o->task, &task_id, err);
    if (rc != 0) {
        sqlite3_close(db);
        return rc;
    }
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT %s, sum(u.gpu_ms), sum(u.energy_j), count(u.energy_j), sum(u.util_sum),"
             " sum(u.util_ms), max(u.mem_max_mib), sum(u.thr_ms), min(u.first_ts),"
             " max(u.last_ts), count(DISTINCT u.gpu) FROM usage_1h u JOIN gpus g ON g.id = u.gpu"
             " JOIN tasks t ON t.id = u.task WHERE u.ts >= ?1 AND u.ts < ?2 AND"
             " (?3 = 0 OR u.task = ?3) AND (?4 < 0 OR g.gpu_index = ?4) GROUP BY %s"
             " ORDER BY %s sum(u.gpu_ms) DESC",
             key_sql[o->by], group_sql[o->by], o->by == GM_USAGE_GPU ? "g.gpu_index," : "");
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        /* a store from before usage_1h: nobody recorded, not an error */
        int missing = strstr(sqlite3_errmsg(db), "no such table") != NULL;
        rc = missing ? 0 : sql_fail(db, err, o->path, "reading usage_1h");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_bind_int64(q, 1, ceil_div(o->from_ns, NS_PER_MS));
    sqlite3_bind_int64(q, 2, o->to_ns ? ceil_div(o->to_ns, NS_PER_MS) : INT64_MAX);
    sqlite3_bind_int64(q, 3, task_id);
    sqlite3_bind_int64(q, 4, o->gpu);
    size_t cap = 0;
    int s;
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *rows = gm_xrealloc(*rows, cap * sizeof(**rows));
        }
        struct gm_usage_row *w = &(*rows)[(*n)++];
        memset(w, 0, sizeof *w);
        const char *txt[4];
        for (int k = 0; k < 4; k++) {
            const unsigned char *x = sqlite3_column_text(q, k);
            txt[k] = x ? (const char *)x : "";
        }
        snprintf(w->job, sizeof w->job, "%s", txt[0]);
        snprintf(w->user, sizeof w->user, "%s", txt[1]);
        snprintf(w->process, sizeof w->process, "%s", txt[2]);
        snprintf(w->task, sizeof w->task, "%s", txt[3]);
        w->gpu = sqlite3_column_int(q, 4);
        w->gpu_s = sqlite3_column_double(q, 5) / 1000.0;
        w->energy_j = sqlite3_column_int64(q, 7) > 0 ? sqlite3_column_double(q, 6) : -1;
        double ums = sqlite3_column_double(q, 9);
        w->util_avg = ums > 0 ? sqlite3_column_double(q, 8) / ums : -1;
        w->mem_max_mib =
            sqlite3_column_type(q, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 10);
        w->thr_s = sqlite3_column_double(q, 11) / 1000.0;
        w->first_ms = sqlite3_column_int64(q, 12);
        w->last_ms = sqlite3_column_int64(q, 13);
        w->ngpu = sqlite3_column_int(q, 14);
    }
    if (s != SQLITE_DONE)
        rc = sql_fail(db, err, o->path, "reading usage_1h");
    sqlite3_finalize(q);
    sqlite3_close(db);
    if (rc != 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

static const char *usage_key(const struct gm_usage_opts *o, const struct gm_usage_row *w)
{
    switch (o->by) {
    case GM_USAGE_JOB:
        return w->job[0] ? w->job : "(none)";
    case GM_USAGE_USER:
        return w->user[0] ? w->user : "(unknown)";
    default:
        return w->task;
    }
}

int gm_store_usage(const struct gm_usage_opts *o, struct gm_buf *out, struct gm_err *err)
{
    struct gm_usage_row *v = NULL;
    size_t n = 0;
    int rc = gm_store_usage_rows(o, &v, &n, err);
    if (rc != 0)
        return rc;
    static const char *const by_name[] = {"job", "user", "task", "gpu"};
    char t1[64], t2[64];
    if (o->format == GM_REPORT_JSON) {
        struct gm_json j;
        gm_json_init(&j, out, 1);
        gm_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            const struct gm_usage_row *w = &v[i];
            gm_json_obj_begin(&j);
            gm_json_key(&j, by_name[o->by]);
            gm_json_str(&j, o->by == GM_USAGE_JOB && !w->job[0]     ? NULL
                            : o->by == GM_USAGE_USER && !w->user[0] ? NULL
                                                                    : usage_key(o, w));
            gm_json_key(&j, "gpus");
            gm_json_i64(&j, w->ngpu);
            gm_json_key(&j, "gpu_seconds");
            gm_json_f64(&j, w->gpu_s, 3);
            gm_json_key(&j, "energy_joules");
            if (w->energy_j >= 0)
                gm_json_f64(&j, w->energy_j, 1);
            else
                gm_json_null(&j);
            gm_json_key(&j, "utilization_avg_percent");
            if (w->util_avg >= 0)
                gm_json_f64(&j, w->util_avg, 1);
            else
                gm_json_null(&j);
            gm_json_key(&j, "memory_peak_bytes");
            if (w->mem_max_mib >= 0)
                gm_json_i64(&j, w->mem_max_mib * 1048576);
            else
                gm_json_null(&j);
            gm_json_key(&j, "throttled_seconds");
            gm_json_f64(&j, w->thr_s, 3);
            gm_json_key(&j, "first_seen");
            gm_json_str(&j, gm_time_iso(w->first_ms * NS_PER_MS, t1, sizeof t1));
            gm_json_key(&j, "last_seen");
            gm_json_str(&j, gm_time_iso(w->last_ms * NS_PER_MS, t2, sizeof t2));
            gm_json_obj_end(&j);
        }
        gm_json_arr_end(&j);
        gm_buf_putc(out, '\n');
    } else if (o->format == GM_REPORT_CSV) {
        gm_buf_printf(out,
                      "%s,gpus,gpu_hours,energy_wh,util_avg_pct,mem_peak_mib,throttled_s,"
                      "first_seen,last_seen\n",
                      by_name[o->by]);
        for (size_t i = 0; i < n; i++) {
            const struct gm_usage_row *w = &v[i];
            csv_field(out,
                      o->by == GM_USAGE_JOB && !w->job[0]     ? ""
                      : o->by == GM_USAGE_USER && !w->user[0] ? ""
                                                              : usage_key(o, w),
                      1);
            gm_buf_printf(out, ",%d,%.3f,", w->ngpu, w->gpu_s / 3600.0);
            if (w->energy_j >= 0)
                gm_buf_printf(out, "%.1f", w->energy_j / 3600.0);
            gm_buf_putc(out, ',');
            if (w->util_avg >= 0)
                gm_buf_printf(out, "%.1f", w->util_avg);
            gm_buf_putc(out, ',');
            if (w->mem_max_mib >= 0)
                gm_buf_printf(out, "%" PRId64, w->mem_max_mib);
            gm_buf_printf(out, ",%.0f,%s,%s\n", w->thr_s,
                          gm_time_iso(w->first_ms * NS_PER_MS, t1, sizeof t1),
                          gm_time_iso(w->last_ms * NS_PER_MS, t2, sizeof t2));
        }
    } else {
        gm_buf_printf(out, "%-40s %4s %9s %10s %8s %10s %9s  %-19s  %-19s\n", by_name[o->by],
                      "GPUs", "GPU-hours", "energy-Wh", "util-avg", "mem-peak", "throttled",
                      "first seen", "last seen");
        for (size_t i = 0; i < n; i++) {
            const struct gm_usage_row *w = &v[i];
            struct gm_buf key = GM_BUF_INIT;
            gm_text_term(&key, usage_key(o, w), strlen(usage_key(o, w)), 1);
            char e[24] = "N/A", u[24] = "N/A", m[24] = "N/A";
            if (w->energy_j >= 0)
                snprintf(e, sizeof e, "%.1f", w->energy_j / 3600.0);
            if (w->util_avg >= 0)
                snprintf(u, sizeof u, "%.0f %%", w->util_avg);
            if (w->mem_max_mib >= 0)
                snprintf(m, sizeof m, "%" PRId64 " MiB", w->mem_max_mib);
            struct tm tm;
            char f[24], l[24];
            local_tm(w->first_ms, &tm);
            strftime(f, sizeof f, "%Y-%m-%d %H:%M:%S", &tm);
            local_tm(w->last_ms, &tm);
            strftime(l, sizeof l, "%Y-%m-%d %H:%M:%S", &tm);
            gm_buf_printf(out, "%-40s %4d %9.2f %10s %8s %10s %8.0fs  %-19s  %-19s\n",
                          key.p ? key.p : "", w->ngpu, w->gpu_s / 3600.0, e, u, m, w->thr_s, f, l);
            gm_buf_free(&key);
        }
        if (n == 0)
            gm_buf_puts(out, "(no GPU processes recorded in the period)\n");
    }
    free(v);
    return 0;
}

/* report.c -- `gpumon report`: per GPU per hour or local day, from the
 * store's 1-hour rollups (see store.h, docs/store.md).
 *
 * Read-only: one read transaction (a WAL snapshot) over rollup_1h and the
 * marks, so the report never blocks the agent and never sees half a batch.
 * The rows of each UTC hour and GPU are summed over tasks as they are read
 * (in the rollup's key order); C groups hours into local days (an hour
 * belongs to the local day in which it starts; the TZ of the process decides),
 * attaches the marks and prints one of three forms: an aligned table, CSV
 * (RFC 4180 quoting, header row, LF line ends) or a JSON array of objects
 * (numbers as numbers, null when unknown).  Raw samples are never read, so
 * a month of 8 GPUs is a few thousand rows.
 *
 * This file reads (periods, the rollups, marks and findings, merging
 * hours into periods); the columns and the three forms are
 * report_forms.c, the alert history report_alerts.c, the usage report
 * report_usage.c, and what they share report_int.h.
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
#include "../core/timeutil.h"
#include "report_int.h"
#include "store_schema.h"

/* ------------------------------------------------------------ periods */

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

/* The task's id, or GM_E_NOTFOUND naming the tasks there are. */
int gm_rp_find_task(sqlite3 *db, const char *path, const char *task, int64_t *id,
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

/* The UUID and name of GPU gpu_id (columns 3 and 4 of q), kept once per
 * GPU: a year of hourly rows would otherwise hold 140,000 copies. */
static const struct rgpu *gpu_of(struct report *r, sqlite3_stmt *q, int64_t gpu_id)
{
    for (size_t i = 0; i < r->ngpus; i++)
        if (r->gpus[i].gpu_id == gpu_id)
            return &r->gpus[i];
    r->gpus = gm_xrealloc(r->gpus, (r->ngpus + 1) * sizeof(*r->gpus));
    struct rgpu *g = &r->gpus[r->ngpus++];
    g->gpu_id = gpu_id;
    g->uuid = col_strdup(q, 3);
    g->name = col_strdup(q, 4);
    return g;
}

/* Adds v2 into *v when it is known; *ok: whether any was (SQL's sum()). */
static void sum_into(int *ok, int64_t *v, int ok2, int64_t v2)
{
    if (ok2) {
        *v = *ok ? *v + v2 : v2;
        *ok = 1;
    }
}

static void max_into(int *ok, int64_t *v, int ok2, int64_t v2)
{
    if (ok2 && (!*ok || v2 > *v)) {
        *v = v2;
        *ok = 1;
    }
}

/* The hours' rows, one per hour and GPU summed over tasks.  The rollup's
 * rows come in its primary key's order (ts, gpu, task), so the tasks of an
 * hour and GPU are consecutive and are summed here as they arrive: SQL's
 * GROUP BY with 19 aggregates and a sort by gpu_index took three quarters
 * of a year's report (gm_rp_merge_rows puts the rows in gpu_index order). */
static int read_rows(struct report *r, sqlite3 *db, int64_t from_ms, int64_t to_ms, int task_set,
                     int64_t task_id, struct gm_err *err)
{
    struct gm_buf sql = GM_BUF_INIT;
    gm_buf_puts(&sql, "SELECT r.ts, r.gpu, g.gpu_index, g.uuid, g.name, r.n, r.util_n,"
                      " r.util_sum, r.util_max, r.mem_max, r.power_n,"
                      " r.power_sum, r.energy_j, r.temp_max");
    for (int k = 0; k < GM_THR__COUNT; k++)
        gm_buf_printf(&sql, ", r.thr_%s_ms", thr_stem[k]);
    gm_buf_puts(&sql, " FROM rollup_1h r JOIN gpus g ON g.id = r.gpu"
                      " WHERE r.ts >= ?1 AND r.ts < ?2 AND (?3 = 0 OR r.task = ?4)"
                      " AND (?5 < 0 OR g.gpu_index = ?5)"
                      " ORDER BY r.ts, r.gpu, r.task");
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
        int64_t hour = sqlite3_column_int64(q, 0), gpu_id = sqlite3_column_int64(q, 1);
        struct rrow *w = r->nrows ? &r->rows[r->nrows - 1] : NULL;
        if (!w || w->hour != hour || w->gpu_id != gpu_id) {
            if (r->nrows == r->rcap) {
                r->rcap = r->rcap ? r->rcap * 2 : 256;
                r->rows = gm_xrealloc(r->rows, r->rcap * sizeof(*r->rows));
            }
            w = &r->rows[r->nrows++];
            memset(w, 0, sizeof(*w));
            w->hour = hour;
            w->key = period_of(r->o->by, w->hour, w->label, sizeof(w->label));
            if (r->o->by == GM_REPORT_PERIOD) {
                char a[40], b[40];
                snprintf(w->label, sizeof(w->label), "%s/%s",
                         gm_time_iso(r->o->from_ns, a, sizeof a),
                         r->o->to_ns ? gm_time_iso(r->o->to_ns, b, sizeof b) : "");
            }
            w->gpu_id = gpu_id;
            w->nhours = 1;
            if (!col_opt(q, 2, &w->gpu_index))
                w->gpu_index = -1;
            const struct rgpu *g = gpu_of(r, q, w->gpu_id);
            w->uuid = g->uuid;
            w->name = g->name;
        }
        int64_t v = 0;
        w->n += sqlite3_column_int64(q, 5);
        w->util_n += sqlite3_column_int64(q, 6);
        w->util_sum += sqlite3_column_int64(q, 7);
        int ok = col_opt(q, 8, &v);
        max_into(&w->util_max_ok, &w->util_max, ok, v);
        ok = col_opt(q, 9, &v);
        max_into(&w->mem_max_ok, &w->mem_max, ok, v);
        w->power_n += sqlite3_column_int64(q, 10);
        w->power_sum += sqlite3_column_int64(q, 11);
        if (sqlite3_column_type(q, 12) != SQLITE_NULL) {
            /* added in the order SQL's sum() added them */
            w->energy_j = w->energy_ok ? w->energy_j + sqlite3_column_double(q, 12)
                                       : 0.0 + sqlite3_column_double(q, 12);
            w->energy_ok = 1;
        }
        ok = col_opt(q, 13, &v);
        max_into(&w->temp_max_ok, &w->temp_max, ok, v);
        for (int k = 0; k < GM_THR__COUNT; k++) {
            ok = col_opt(q, 14 + k, &v);
            sum_into(&w->thr_ok[k], &w->thr[k], ok, v);
        }
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
    /* the whole period: findings keep their hours, gm_rp_row_has asks for an overlap */
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
int gm_rp_row_has(const struct report *r, const struct rrow *w, int cause)
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
void gm_rp_findings_text(struct gm_buf *b, const struct report *r, const struct rrow *w,
                         const char *sep)
{
    int any = 0;
    for (int c = 0; c < GM_CAUSE__COUNT; c++)
        if (gm_rp_row_has(r, w, c)) {
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

/* Groups hours of the same period and GPU (local days). */
void gm_rp_merge_rows(struct report *r)
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
    }
    r->nrows = out + 1;
}

/* ----------------------------------------------------------------- main */

void gm_rp_report_free(struct report *r)
{
    for (size_t i = 0; i < r->ngpus; i++) {
        free(r->gpus[i].uuid);
        free(r->gpus[i].name);
    }
    free(r->gpus);
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
int gm_rp_open_db(const char *path, sqlite3 **db, struct gm_err *err)
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
 * {.o = o} (free it with gm_rp_report_free, even on failure); the rows are per
 * hour until gm_rp_merge_rows. */
int gm_rp_report_read(const struct gm_report_opts *o, struct report *r, struct gm_err *err)
{
    if (!o || !o->path)
        return gm_err_set(err, GM_E_INVAL, "report: no database path");
    if (o->by != GM_REPORT_HOUR && o->by != GM_REPORT_DAY && o->by != GM_REPORT_PERIOD)
        return gm_err_set(err, GM_E_INVAL, "report: unknown period %d", o->by);
    tzset();

    sqlite3 *db = NULL;
    int rc = gm_rp_open_db(o->path, &db, err);
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
        rc = gm_rp_find_task(db, o->path, o->task, &task_id, err);
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

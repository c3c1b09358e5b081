/* report_usage.c -- who used the GPUs, from the store's usage_1h (see
 * store.h, docs/jobs.md, report_int.h): the hours that start in the
 * period summed per job, user, task, or per GPU and group
 * (gm_store_usage_rows), and printed as a table, CSV or JSON
 * (gm_store_usage), or as the agent's /api/v1/usage document
 * (gm_store_usage_api).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "report_int.h"

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
    int rc = gm_rp_open_db(o->path, &db, err);
    int64_t task_id = 0;
    if (rc == 0 && o->task)
        rc = gm_rp_find_task(db, o->path, o->task, &task_id, err);
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

/* A JSON string, or null when s is empty. */
static void json_str_or_null(struct gm_json *j, const char *s)
{
    if (s[0])
        gm_json_str(j, s);
    else
        gm_json_null(j);
}

int gm_store_usage_api(const struct gm_usage_opts *o, struct gm_buf *out, struct gm_err *err)
{
    struct gm_usage_row *v = NULL;
    size_t n = 0;
    int rc = gm_store_usage_rows(o, &v, &n, err);
    if (rc == GM_E_NOTFOUND && !o->task)
        rc = 0; /* no database yet: nobody recorded */
    if (rc != 0)
        return rc;
    static const char *const by_name[] = {"job", "user", "task", "gpu"};
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "schema");
    gm_json_str(&j, "gpumon.usage/1");
    gm_json_key(&j, "by");
    gm_json_str(&j, by_name[o->by]);
    gm_json_key(&j, "since_unix_ns");
    gm_json_i64(&j, o->from_ns);
    gm_json_key(&j, "until_unix_ns");
    gm_json_i64(&j, o->to_ns);
    gm_json_key(&j, "rows");
    gm_json_arr_begin(&j);
    for (size_t i = 0; i < n; i++) {
        const struct gm_usage_row *w = &v[i];
        gm_json_obj_begin(&j);
        gm_json_key(&j, "job");
        if (o->by == GM_USAGE_USER)
            gm_json_null(&j);
        else
            json_str_or_null(&j, w->job);
        gm_json_key(&j, "user");
        if (o->by == GM_USAGE_JOB)
            gm_json_null(&j);
        else
            json_str_or_null(&j, w->user);
        gm_json_key(&j, "process");
        if (o->by == GM_USAGE_GPU)
            json_str_or_null(&j, w->process);
        else
            gm_json_null(&j);
        gm_json_key(&j, "gpu");
        if (o->by == GM_USAGE_GPU)
            gm_json_i64(&j, w->gpu);
        else
            gm_json_null(&j);
        gm_json_key(&j, "gpus");
        gm_json_i64(&j, w->ngpu);
        gm_json_key(&j, "gpu_seconds");
        gm_json_f64(&j, w->gpu_s, 3);
        gm_json_key(&j, "energy_joules");
        if (w->energy_j >= 0)
            gm_json_f64(&j, w->energy_j, 1);
        else
            gm_json_null(&j);
        gm_json_key(&j, "first_seen_unix_ms");
        gm_json_i64(&j, w->first_ms);
        gm_json_key(&j, "last_seen_unix_ms");
        gm_json_i64(&j, w->last_ms);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    free(v);
    return 0;
}

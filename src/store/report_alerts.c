/* report_alerts.c -- `gpumon alerts --history` from the store (see
 * store.h, report_int.h): the alerts table read in one read transaction,
 * as a table, CSV or JSON (gm_store_alert_history), or as records
 * (gm_store_alert_list).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "report_int.h"

/* Whether the alerts table has value_age_ms (it came after schema 3: a
 * store written before has none, and its notices' ages are unknown). */
static int have_age_column(sqlite3 *db)
{
    sqlite3_stmt *q = NULL;
    int have = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM pragma_table_info('alerts')"
                           " WHERE name = 'value_age_ms'",
                           -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        have = sqlite3_column_int(q, 0) > 0;
    sqlite3_finalize(q);
    return have;
}

int gm_store_alert_history(const struct gm_alert_history_opts *o, struct gm_buf *out,
                           struct gm_err *err)
{
    if (!o || !o->path || !out)
        return gm_err_set(err, GM_E_INVAL, "alert history: no database path");
    tzset();
    sqlite3 *db = NULL;
    int rc = gm_rp_open_db(o->path, &db, err);
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
    int have_age = rc == 0 && have_table && have_age_column(db);
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
                               have_age ? "SELECT a.ts, a.state, a.severity, a.rule, g.gpu_index,"
                                          " g.uuid, a.value, a.summary, a.repeat, a.fingerprint,"
                                          " a.active_ts, a.fired_ts, a.value_age_ms FROM alerts a"
                                          " LEFT JOIN gpus g ON g.id = a.gpu WHERE a.ts >= ?1"
                                          " AND a.ts < ?2 AND (?3 IS NULL OR a.rule = ?3)"
                                          " ORDER BY a.ts, a.id"
                                        : "SELECT a.ts, a.state, a.severity, a.rule, g.gpu_index,"
                                          " g.uuid, a.value, a.summary, a.repeat, a.fingerprint,"
                                          " a.active_ts, a.fired_ts, NULL FROM alerts a"
                                          " LEFT JOIN gpus g ON g.id = a.gpu WHERE a.ts >= ?1"
                                          " AND a.ts < ?2 AND (?3 IS NULL OR a.rule = ?3)"
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
                    /* how old the value was (alerts.md); null: no number, or a
                     * notice stored before the column */
                    gm_json_key(&j, "value_age_seconds");
                    if (sqlite3_column_type(q, 12) == SQLITE_NULL)
                        gm_json_null(&j);
                    else
                        gm_json_f64(&j, sqlite3_column_int64(q, 12) / 1000.0, 3);
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
                    char rule[128], value[128], age[32] = "";
                    /* a value a slow read group held: its age after it
                     * (alerts.md), the cell widened rather than cut */
                    if (sqlite3_column_type(q, 12) != SQLITE_NULL && txt[6][0])
                        gm_alert_age_text((uint32_t)sqlite3_column_int64(q, 12), age, sizeof(age));
                    char shown[160];
                    snprintf(shown, sizeof(shown), "%s%s", t[1], age);
                    int vw = (int)strlen(shown) > 12 ? (int)strlen(shown) : 12;
                    gm_buf_printf(out, "%-29s  %-8s  %-8s  %s  %3s  %s  %s\n", iso, state, txt[2],
                                  gm_fmt_cell(rule, sizeof(rule), t[0], 24), gpu,
                                  gm_fmt_cell(value, sizeof(value), shown, vw), t[2]);
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
    int rc = gm_rp_open_db(o->path, &db, err);
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
                               have_age_column(db)
                                   ? "SELECT a.ts, a.state, a.severity, a.rule, g.gpu_index,"
                                     " a.value, a.summary, a.repeat, a.value_age_ms FROM alerts a"
                                     " LEFT JOIN gpus g ON g.id = a.gpu WHERE a.ts >= ?1"
                                     " AND a.ts < ?2 AND (?3 IS NULL OR a.rule = ?3)"
                                     " ORDER BY a.ts, a.id"
                                   : "SELECT a.ts, a.state, a.severity, a.rule, g.gpu_index,"
                                     " a.value, a.summary, a.repeat, NULL FROM alerts a"
                                     " LEFT JOIN gpus g ON g.id = a.gpu WHERE a.ts >= ?1"
                                     " AND a.ts < ?2 AND (?3 IS NULL OR a.rule = ?3)"
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
                if (!col_opt(q, 8, &a->value_age_ms))
                    a->value_age_ms = -1;
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

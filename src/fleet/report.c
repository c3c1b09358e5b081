/* report.c -- `gpumon fleet report` (see report.h, docs/fleet.md).
 *
 * Direct mode asks every agent for /api/v1/usage?by=gpu, the finest rows
 * its store has (GPU, job, user, process), and sums them here by user, job
 * or node, so that the distinct GPUs of a key can be counted across nodes.
 * Prometheus mode asks two instant queries, the GPU-seconds and the energy
 * of the period for the whole fleet; Prometheus has no first and last
 * seen, nor which GPUs, so those columns are empty there.  It leaves out:
 * the per-task split (`gpumon report --task` on a node) and utilisation,
 * memory peak and throttling (the node's own `gpumon report --by`).
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "fjson.h"

#define REPORT_MAX_VALUES 2000000
#define NS_PER_S INT64_C(1000000000)
#define NS_PER_MS INT64_C(1000000)

static const char *const by_name[] = {"user", "job", "node"};
static const char *const by_label[] = {"user", "job_id", "instance"};

void gm_frep_api_path(int64_t since_ns, char *buf, size_t len)
{
    snprintf(buf, len, "/api/v1/usage?by=gpu&since=%llds",
             (long long)((since_ns + NS_PER_S - 1) / NS_PER_S));
}

/* The row of key, made when new. */
static struct gm_frep_row *row_of(struct gm_frep *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->row[i].key, key) == 0)
            return &r->row[i];
    r->row = gm_xrealloc(r->row, (r->n + 1) * sizeof(*r->row));
    struct gm_frep_row *w = &r->row[r->n++];
    memset(w, 0, sizeof(*w));
    gm_strlcpy(w->key, key, sizeof(w->key));
    return w;
}

static void add_gpu(struct gm_frep_row *w, uint64_t id)
{
    for (size_t i = 0; i < w->ngpus; i++)
        if (w->gpus[i] == id)
            return;
    if (w->ngpus == w->capgpus) {
        w->capgpus = w->capgpus ? w->capgpus * 2 : 8;
        w->gpus = gm_xrealloc(w->gpus, w->capgpus * sizeof(*w->gpus));
    }
    w->gpus[w->ngpus++] = id;
}

static void invalid(struct gm_fleet_node *nd, const char *why)
{
    nd->state = GM_FLEET_INVALID;
    snprintf(nd->reason, sizeof(nd->reason), "/api/v1/usage %s", why);
}

int gm_frep_add_node(struct gm_frep *r, struct gm_fleet_node *nd, uint32_t node, const char *body,
                     size_t len)
{
    struct gm_err e = {0};
    struct gm_fj *doc = gm_fj_parse(body, len, REPORT_MAX_VALUES, &e);
    if (!doc) {
        char why[200];
        snprintf(why, sizeof(why), "is not JSON: %.150s", e.msg);
        invalid(nd, why);
        return -1;
    }
    const char *schema = gm_fj_str(gm_fj_get(doc, "schema"));
    const struct gm_fj *rows = gm_fj_get(doc, "rows");
    if (!schema || strcmp(schema, "gpumon.usage/1") != 0 || !rows || rows->type != GM_FJ_ARR) {
        gm_fj_free(doc);
        invalid(nd, "is not a gpumon.usage/1 document");
        return -1;
    }
    if (rows->len > GM_FREP_MAX_ROWS) {
        gm_fj_free(doc);
        invalid(nd, "has too many rows");
        return -1;
    }
    /* check every row first: a node's rows count whole or not at all */
    for (size_t i = 0; i < rows->len; i++) {
        const struct gm_fj *x = rows->v[i];
        double s, g;
        if (!gm_fj_num(gm_fj_get(x, "gpu_seconds"), &s) || !isfinite(s) || s < 0 ||
            !gm_fj_num(gm_fj_get(x, "gpu"), &g) || g < 0 || g > 1e6) {
            gm_fj_free(doc);
            invalid(nd, "has a row without gpu_seconds and gpu");
            return -1;
        }
    }
    for (size_t i = 0; i < rows->len; i++) {
        const struct gm_fj *x = rows->v[i];
        const char *key = nd->host;
        if (r->by == GM_FREP_USER)
            key = gm_fj_str(gm_fj_get(x, "user"));
        else if (r->by == GM_FREP_JOB)
            key = gm_fj_str(gm_fj_get(x, "job"));
        struct gm_frep_row *w = row_of(r, key ? key : "");
        double s = 0, g = 0, ej, t;
        gm_fj_num(gm_fj_get(x, "gpu_seconds"), &s);
        gm_fj_num(gm_fj_get(x, "gpu"), &g);
        w->gpu_s += s;
        if (gm_fj_num(gm_fj_get(x, "energy_joules"), &ej) && isfinite(ej) && ej >= 0) {
            w->energy_j += ej;
            w->energy_known = 1;
        }
        add_gpu(w, (uint64_t)node << 32 | (uint32_t)g);
        if (gm_fj_num(gm_fj_get(x, "first_seen_unix_ms"), &t) && t > 0 && t < 9e15 &&
            (!w->first_ms || (int64_t)t < w->first_ms))
            w->first_ms = (int64_t)t;
        if (gm_fj_num(gm_fj_get(x, "last_seen_unix_ms"), &t) && t > 0 && t < 9e15 &&
            (int64_t)t > w->last_ms)
            w->last_ms = (int64_t)t;
    }
    gm_fj_free(doc);
    return 0;
}

void gm_frep_prom_query(int by, int measure, int64_t since_ns, struct gm_buf *out)
{
    gm_buf_printf(out, "sum%%20by%%20(%s)%%20(increase(%s[%llds]))", by_label[by],
                  measure == 0 ? "gpumon_usage_gpu_seconds_total"
                               : "gpumon_usage_energy_joules_total",
                  (long long)((since_ns + NS_PER_S - 1) / NS_PER_S));
}

int gm_frep_from_prom(struct gm_frep *r, const char *const body[2], const size_t len[2],
                      struct gm_err *err)
{
    r->prom = 1;
    for (int q = 0; q < 2; q++) {
        struct gm_err e = {0};
        struct gm_fj *doc = gm_fj_parse(body[q], len[q], REPORT_MAX_VALUES, &e);
        const char *st = doc ? gm_fj_str(gm_fj_get(doc, "status")) : NULL;
        const struct gm_fj *res = gm_fj_get(gm_fj_get(doc, "data"), "result");
        if (!st || strcmp(st, "success") != 0 || !res || res->type != GM_FJ_ARR) {
            gm_fj_free(doc);
            return gm_err_set(err, GM_E_INVAL, "the %s query: not a successful instant query%s%s",
                              q == 0 ? "GPU-seconds" : "energy", e.msg[0] ? ": " : "", e.msg);
        }
        for (size_t k = 0; k < res->len; k++) {
            const char *key = gm_fj_str(gm_fj_get(gm_fj_get(res->v[k], "metric"), by_label[r->by]));
            const struct gm_fj *pair = gm_fj_get(res->v[k], "value");
            const char *s =
                pair && pair->type == GM_FJ_ARR && pair->len == 2 ? gm_fj_str(pair->v[1]) : NULL;
            char *end;
            double v = s ? strtod(s, &end) : NAN;
            if (!s || *end || end == s || !isfinite(v) || v < 0)
                continue;
            struct gm_frep_row *w = row_of(r, key ? key : "");
            if (q == 0) {
                w->gpu_s += v;
            } else {
                w->energy_j += v;
                w->energy_known = 1;
            }
        }
        gm_fj_free(doc);
    }
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const struct gm_frep_row *x = a, *y = b;
    if (x->gpu_s != y->gpu_s)
        return x->gpu_s > y->gpu_s ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* The name of a key in outputs: "(none)" for a job, "(unknown)" for a user. */
static const char *shown(const struct gm_frep *r, const char *key)
{
    if (key[0])
        return key;
    return r->by == GM_FREP_JOB ? "(none)" : "(unknown)";
}

static void iso_ms(int64_t ms, char *buf, size_t len)
{
    if (ms > 0)
        gm_time_iso(ms * NS_PER_MS, buf, len);
    else
        buf[0] = '\0';
}

void gm_frep_render(struct gm_frep *r, const struct gm_fleet *f, int format, struct gm_buf *out)
{
    if (r->n)
        qsort(r->row, r->n, sizeof(*r->row), by_time);
    double tot_s = 0, tot_e = 0;
    int tot_e_known = 0;
    size_t tot_gpus = 0;
    for (size_t i = 0; i < r->n; i++) {
        tot_s += r->row[i].gpu_s;
        tot_e += r->row[i].energy_j;
        tot_e_known |= r->row[i].energy_known;
    }
    /* distinct GPUs of the fleet, over every row */
    struct gm_frep_row all = {0};
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; k < r->row[i].ngpus; k++)
            add_gpu(&all, r->row[i].gpus[k]);
    tot_gpus = all.ngpus;
    free(all.gpus);
    uint32_t missing = 0;
    for (uint32_t i = 0; f && i < f->n; i++)
        missing += f->node[i].state != GM_FLEET_OK;
    char t1[64], t2[64];
    if (format == GM_FREP_JSON) {
        struct gm_json j;
        gm_json_init(&j, out, 1);
        gm_json_obj_begin(&j);
        gm_json_key(&j, "schema");
        gm_json_str(&j, "gpumon.fleet-report/1");
        gm_json_key(&j, "by");
        gm_json_str(&j, by_name[r->by]);
        gm_json_key(&j, "source");
        gm_json_str(&j, r->prom ? "prometheus" : "agents");
        gm_json_key(&j, "since_seconds");
        gm_json_i64(&j, (r->since_ns + NS_PER_S - 1) / NS_PER_S);
        gm_json_key(&j, "complete");
        gm_json_bool(&j, missing == 0);
        gm_json_key(&j, "nodes_missing");
        gm_json_arr_begin(&j);
        for (uint32_t i = 0; f && i < f->n; i++) {
            if (f->node[i].state == GM_FLEET_OK)
                continue;
            gm_json_obj_begin(&j);
            gm_json_key(&j, "host");
            gm_json_str(&j, f->node[i].host);
            gm_json_key(&j, "state");
            gm_json_str(&j, gm_fleet_state_name(f->node[i].state));
            gm_json_key(&j, "reason");
            gm_json_str(&j, f->node[i].reason);
            gm_json_obj_end(&j);
        }
        gm_json_arr_end(&j);
        gm_json_key(&j, "rows");
        gm_json_arr_begin(&j);
        for (size_t i = 0; i < r->n; i++) {
            const struct gm_frep_row *w = &r->row[i];
            gm_json_obj_begin(&j);
            gm_json_key(&j, by_name[r->by]);
            if (w->key[0])
                gm_json_str(&j, w->key);
            else
                gm_json_null(&j);
            gm_json_key(&j, "gpus");
            if (r->prom)
                gm_json_null(&j);
            else
                gm_json_u64(&j, w->ngpus);
            gm_json_key(&j, "gpu_seconds");
            gm_json_f64(&j, w->gpu_s, 3);
            gm_json_key(&j, "energy_joules");
            if (w->energy_known)
                gm_json_f64(&j, w->energy_j, 1);
            else
                gm_json_null(&j);
            iso_ms(w->first_ms, t1, sizeof(t1));
            iso_ms(w->last_ms, t2, sizeof(t2));
            gm_json_key(&j, "first_seen");
            gm_json_str(&j, t1[0] ? t1 : NULL);
            gm_json_key(&j, "last_seen");
            gm_json_str(&j, t2[0] ? t2 : NULL);
            gm_json_obj_end(&j);
        }
        gm_json_arr_end(&j);
        gm_json_key(&j, "total");
        gm_json_obj_begin(&j);
        gm_json_key(&j, "gpus");
        if (r->prom)
            gm_json_null(&j);
        else
            gm_json_u64(&j, tot_gpus);
        gm_json_key(&j, "gpu_seconds");
        gm_json_f64(&j, tot_s, 3);
        gm_json_key(&j, "energy_joules");
        if (tot_e_known)
            gm_json_f64(&j, tot_e, 1);
        else
            gm_json_null(&j);
        gm_json_obj_end(&j);
        gm_json_obj_end(&j);
        gm_buf_putc(out, '\n');
        return;
    }
    if (format == GM_FREP_CSV) {
        gm_buf_printf(out, "%s,gpus,gpu_hours,energy_kwh,first_seen,last_seen\n", by_name[r->by]);
        for (size_t i = 0; i < r->n; i++) {
            const struct gm_frep_row *w = &r->row[i];
            gm_text_csv(out, w->key, strlen(w->key), GM_TEXT_CSV_OUTSIDE);
            if (r->prom)
                gm_buf_printf(out, ",,%.3f,", w->gpu_s / 3600.0);
            else
                gm_buf_printf(out, ",%zu,%.3f,", w->ngpus, w->gpu_s / 3600.0);
            if (w->energy_known)
                gm_buf_printf(out, "%.3f", w->energy_j / 3.6e6);
            iso_ms(w->first_ms, t1, sizeof(t1));
            iso_ms(w->last_ms, t2, sizeof(t2));
            gm_buf_printf(out, ",%s,%s\n", t1, t2);
        }
        return;
    }
    gm_buf_printf(out, "%-40s %5s %10s %10s  %-19s  %-19s\n", by_name[r->by], "GPUs", "GPU-hours",
                  "energy-kWh", "first seen", "last seen");
    for (size_t i = 0; i < r->n; i++) {
        const struct gm_frep_row *w = &r->row[i];
        struct gm_buf key = GM_BUF_INIT;
        const char *k = shown(r, w->key);
        gm_text_term(&key, k, strlen(k), 1);
        char g[24] = "-", e[24] = "N/A", f1[24] = "-", l1[24] = "-";
        if (!r->prom)
            snprintf(g, sizeof(g), "%zu", w->ngpus);
        if (w->energy_known)
            snprintf(e, sizeof(e), "%.3f", w->energy_j / 3.6e6);
        struct tm tm;
        time_t tt;
        if (w->first_ms > 0) {
            tt = (time_t)(w->first_ms / 1000);
            localtime_r(&tt, &tm);
            strftime(f1, sizeof(f1), "%Y-%m-%d %H:%M:%S", &tm);
        }
        if (w->last_ms > 0) {
            tt = (time_t)(w->last_ms / 1000);
            localtime_r(&tt, &tm);
            strftime(l1, sizeof(l1), "%Y-%m-%d %H:%M:%S", &tm);
        }
        gm_buf_printf(out, "%-40s %5s %10.2f %10s  %-19s  %-19s\n", key.p ? key.p : "", g,
                      w->gpu_s / 3600.0, e, f1, l1);
        gm_buf_free(&key);
    }
    if (r->n == 0)
        gm_buf_puts(out, "(no GPU processes recorded in the period)\n");
    char g[24] = "-", e[24] = "N/A";
    if (!r->prom)
        snprintf(g, sizeof(g), "%zu", tot_gpus);
    if (tot_e_known)
        snprintf(e, sizeof(e), "%.3f", tot_e / 3.6e6);
    gm_buf_printf(out, "%-40s %5s %10.2f %10s\n", missing ? "total (incomplete)" : "total", g,
                  tot_s / 3600.0, e);
    for (uint32_t i = 0; f && i < f->n; i++) {
        if (f->node[i].state == GM_FLEET_OK)
            continue;
        gm_buf_puts(out, "missing: ");
        gm_text_line(out, f->node[i].host, strlen(f->node[i].host));
        gm_buf_printf(out, " %s ", gm_fleet_state_name(f->node[i].state));
        gm_text_line(out, f->node[i].reason, strlen(f->node[i].reason));
        gm_buf_putc(out, '\n');
    }
}

void gm_frep_clear(struct gm_frep *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->row[i].gpus);
    free(r->row);
    r->row = NULL;
    r->n = 0;
}

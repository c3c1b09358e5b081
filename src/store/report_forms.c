/* report_forms.c -- the report's columns and forms (see report.c and
 * report_int.h): the columns of a period's row (numbers, text, marks,
 * findings), and the three forms of gm_store_report (an aligned table, CSV
 * with RFC 4180 quoting and the formula rule for outside text, a JSON
 * array of objects with null when unknown) and gm_store_report_table's
 * cells for the HTML report.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/cause.h"
#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "report_int.h"

#define THR_NAME(stem, bits, name) name,
static const char *const thr_name[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_NAME)};
#undef THR_NAME

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

/* v with dec digits after the point, as "%.*f" prints it; whole numbers
 * without printf's floating-point path (half the report's numbers are
 * counts, MiB, degrees: a year of rows is 350,000 of them). */
static void put_num(struct gm_buf *b, double v, int dec)
{
    if (dec == 0 && v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
        char tmp[24], *e = tmp + sizeof(tmp), *p = e;
        int64_t n = (int64_t)v;
        uint64_t u = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (n < 0)
            *--p = '-';
        gm_buf_put(b, p, (size_t)(e - p));
        return;
    }
    gm_buf_printf(b, "%.*f", dec, v);
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
                gm_rp_findings_text(&cell, r, w, " ");
            } else if (is_text_col(c)) {
                const char *s = col_text(w, c);
                gm_buf_puts(&cell, s ? s : "");
            } else if (col_num(w, c, &v, &dec)) {
                put_num(&cell, v, dec);
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
                    if (gm_rp_row_has(r, w, k))
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

/* Appends the table's cell t of row w to b. */
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
        size_t at = b->len;
        gm_rp_findings_text(b, r, w, ", ");
        if (b->len == at)
            gm_buf_puts(b, "-");
    } else if (is_text_col(c)) {
        const char *s = col_text(w, c);
        gm_text_line(b, s ? s : "N/A", strlen(s ? s : "N/A"));
    } else if (col_num(w, c, &v, &dec)) {
        put_num(b, v, dec);
    } else {
        gm_buf_puts(b, "N/A");
    }
}

/* One line of the table from its T__COUNT cells, NUL-terminated one after
 * the other from *cells (which is moved past them), padded to width[];
 * trailing blanks dropped. */
static void table_line(struct gm_buf *out, const char **cells, const size_t *width)
{
    size_t start = out->len;
    for (int t = 0; t < T__COUNT; t++) {
        const char *s = *cells;
        size_t n = strlen(s);
        *cells += n + 1;
        size_t sw = gm_text_width(s);
        int left = t == T_PERIOD || t == T_THR || t == T_FINDINGS || t == T_MARKS;
        if (t)
            gm_buf_puts(out, "  ");
        if (left) {
            gm_buf_put(out, s, n);
            if (t != T_MARKS)
                gm_buf_fill(out, ' ', width[t] - sw);
        } else {
            gm_buf_fill(out, ' ', width[t] - sw);
            gm_buf_put(out, s, n);
        }
    }
    while (out->len > start && out->p[out->len - 1] == ' ')
        out->len--;
    gm_buf_putc(out, '\n');
}

/* The cells go into one buffer, each NUL-terminated, while the widths are
 * measured; then the lines are padded from it.  A year of 8 GPUs is 70,080
 * rows: a buffer per cell (12 of at least 256 bytes a row) cost 266 MiB,
 * formatting the numbers twice a third more time (docs/BENCHMARKS.md). */
static void put_table(struct gm_buf *out, const struct report *r)
{
    size_t width[T__COUNT] = {0};
    struct gm_buf cells = GM_BUF_INIT;
    for (int t = 0; t < T__COUNT; t++) {
        width[t] = gm_text_width(t_head[t]);
        gm_buf_put(&cells, t_head[t], strlen(t_head[t]) + 1);
    }
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        marks_of(r, &r->rows[i], &lo, &hi);
        for (int t = 0; t < T__COUNT; t++) {
            size_t at = cells.len;
            table_cell(&cells, r, &r->rows[i], t, lo, hi);
            size_t cw = gm_text_width(cells.p + at);
            if (cw > width[t])
                width[t] = cw;
            gm_buf_putc(&cells, '\0');
        }
    }
    const char *c = cells.p;
    for (size_t i = 0; i <= r->nrows; i++)
        table_line(out, &c, width);
    gm_buf_free(&cells);
}

int gm_store_report(const struct gm_report_opts *o, struct gm_buf *out, struct gm_err *err)
{
    if (!o || !out)
        return gm_err_set(err, GM_E_INVAL, "report: no options or no output");
    if (o->format < GM_REPORT_TABLE || o->format > GM_REPORT_JSON)
        return gm_err_set(err, GM_E_INVAL, "report: unknown format %d", o->format);
    struct report r = {.o = o};
    int rc = gm_rp_report_read(o, &r, err);
    if (rc == 0) {
        gm_rp_merge_rows(&r);
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
    gm_rp_report_free(&r);
    return rc;
}

int gm_store_report_table(const struct gm_report_opts *o, struct gm_report_table *t,
                          struct gm_err *err)
{
    memset(t, 0, sizeof(*t));
    struct report r = {.o = o};
    int rc = gm_rp_report_read(o, &r, err);
    if (rc != 0) {
        gm_rp_report_free(&r);
        return rc;
    }
    gm_rp_merge_rows(&r);
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
                gm_rp_findings_text(&b, &r, w, " ");
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
    gm_rp_report_free(&r);
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

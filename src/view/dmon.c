/* dmon.c -- nvidia-smi dmon's table from snapshots (see dmon.h), and the
 * line layout it shares with pmon.c. */
#include "dmon.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/metrics.h"
#include "../core/text.h"
#include "../source/nvml.h"

/* ------------------------------------------------------------- layout */

int gm_mon_parse_options(const char *o, struct gm_mon_layout *l, struct gm_err *err)
{
    if (!o || !*o)
        return gm_err_set(err, GM_E_INVAL, "-o needs D, T or DT");
    for (const char *c = o; *c; c++) {
        int u = toupper((unsigned char)*c);
        if (u == 'D')
            l->date = 1;
        else if (u == 'T')
            l->time = 1;
        else
            return gm_err_set(err, GM_E_INVAL,
                              "invalid -o '%s': '%c' is not an option (D: date, T: time)", o, *c);
    }
    return 0;
}

int gm_mon_parse_format(const char *f, struct gm_mon_layout *l, struct gm_err *err)
{
    char tok[32];
    int csv = 0;
    const char *p = f ? f : "";
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof(tok))
            return gm_err_set(err, GM_E_INVAL,
                              "invalid --format '%s' (expected csv[,noheader][,nounit])", f);
        memcpy(tok, p, n);
        tok[n] = '\0';
        if (strcmp(tok, "csv") == 0)
            csv = 1;
        else if (strcmp(tok, "noheader") == 0)
            l->noheader = 1;
        else if (strcmp(tok, "nounit") == 0 || strcmp(tok, "nounits") == 0)
            l->nounit = 1;
        else
            return gm_err_set(
                err, GM_E_INVAL,
                "invalid --format '%s': unknown '%s' (expected csv[,noheader][,nounit])", f, tok);
        p += n;
        if (*p == ',')
            p++;
    }
    if (!csv)
        return gm_err_set(err, GM_E_INVAL,
                          "invalid --format '%s' (expected csv[,noheader][,nounit])", f ? f : "");
    l->csv = 1;
    return 0;
}

void gm_mon_line_begin(struct gm_mon_line *ln, const struct gm_mon_layout *lay, struct gm_buf *out,
                       int header)
{
    ln->lay = lay;
    ln->out = out;
    ln->start = out->len;
    ln->ncells = 0;
    ln->header = header;
    if (lay->csv)
        gm_buf_putc(out, header ? '#' : ' ');
}

void gm_mon_cell(struct gm_mon_line *ln, const char *text, int width, int lead, int left)
{
    if (ln->lay->csv) {
        if (ln->ncells)
            gm_buf_puts(ln->out, ", ");
        gm_buf_puts(ln->out, text);
    } else {
        if (lead)
            gm_buf_putc(ln->out, ' ');
        /* too long: nvidia-smi truncates (process names); by characters, so
         * that a multi-byte one is never cut in two */
        int n = 0;
        size_t bytes = 0;
        while (text[bytes] && n < width) {
            bytes++;
            while (((unsigned char)text[bytes] & 0xC0) == 0x80)
                bytes++;
            n++;
        }
        if (!left)
            gm_buf_fill(ln->out, ' ', (size_t)(width - n));
        gm_buf_put(ln->out, text, bytes);
        if (left)
            gm_buf_fill(ln->out, ' ', (size_t)(width - n));
    }
    ln->ncells++;
}

void gm_mon_cell_outside(struct gm_mon_line *ln, const char *text, int width, int lead, int left)
{
    struct gm_buf t = GM_BUF_INIT;
    if (ln->lay->csv)
        gm_text_csv(&t, text, strlen(text), GM_TEXT_CSV_OUTSIDE);
    else
        gm_text_term(&t, text, strlen(text), !ln->lay->ascii);
    gm_mon_cell(ln, t.p ? t.p : "", width, lead, left);
    gm_buf_free(&t);
}

void gm_mon_line_end(struct gm_mon_line *ln, int trail)
{
    if (!ln->lay->csv) {
        if (trail)
            gm_buf_putc(ln->out, ' ');
        if (ln->header && ln->out->len > ln->start)
            ln->out->p[ln->start] = '#';
    }
    gm_buf_putc(ln->out, '\n');
}

void gm_mon_time_cells(struct gm_mon_line *ln, int64_t wall_ns)
{
    if (!ln->lay->date && !ln->lay->time)
        return;
    time_t t = (time_t)(wall_ns / 1000000000LL);
    struct tm tm;
    localtime_r(&t, &tm);
    char b[32];
    if (ln->lay->date) {
        strftime(b, sizeof(b), "%Y%m%d", &tm);
        gm_mon_cell(ln, b, 11, 1, 1);
    }
    if (ln->lay->time) {
        strftime(b, sizeof(b), "%H:%M:%S", &tm);
        gm_mon_cell(ln, b, 11, 1, 1);
    }
}

void gm_mon_time_header(struct gm_mon_line *ln, int row)
{
    if (ln->lay->date)
        gm_mon_cell(ln, row ? "YYYYMMDD" : "Date", 11, 1, 1);
    if (ln->lay->time)
        gm_mon_cell(ln, row ? "HH:MM:SS" : "Time", 11, 1, 1);
}

/* ------------------------------------------------------------ columns */

/* How a column's number comes about. */
enum col_kind {
    CK_INT = 0, /* the metric's value in its nvidia-smi unit, rounded down */
    CK_NONE,    /* gpumon cannot read it: always "-" */
    CK_VPOW,    /* % of the interval spent power-capped */
    CK_VTHM,    /* 1 when any time of the interval was thermally limited */
};

struct dmon_col {
    char group;       /* the -s letter */
    const char *name; /* header */
    const char *unit; /* units line */
    int kind;
    int metric; /* shown in its unit's nvidia-smi scale (gm_units[].smi_div: MiB for "MB") */
};

static const struct dmon_col cols[] = {
    {'p', "pwr", "W", CK_INT, GM_M_POWER_DRAW},
    {'p', "gtemp", "C", CK_INT, GM_M_TEMP_GPU},
    {'p', "mtemp", "C", CK_INT, GM_M_TEMP_MEM},
    {'u', "sm", "%", CK_INT, GM_M_UTIL_GPU},
    {'u', "mem", "%", CK_INT, GM_M_UTIL_MEM},
    {'u', "enc", "%", CK_INT, GM_M_UTIL_ENC},
    {'u', "dec", "%", CK_INT, GM_M_UTIL_DEC},
    {'u', "jpg", "%", CK_INT, GM_M_UTIL_JPEG},
    {'u', "ofa", "%", CK_INT, GM_M_UTIL_OFA},
    {'c', "mclk", "MHz", CK_INT, GM_M_CLK_MEM},
    {'c', "pclk", "MHz", CK_INT, GM_M_CLK_SM},
    {'v', "pviol", "%", CK_VPOW, GM_M_VIOL_POWER},
    {'v', "tviol", "bool", CK_VTHM, GM_M_VIOL_THERMAL},
    {'m', "fb", "MB", CK_INT, GM_M_MEM_USED},
    {'m', "bar1", "MB", CK_INT, GM_M_BAR1_USED},
    {'m', "ccpm", "MB", CK_NONE, -1},
    {'e', "sbecc", "errs", CK_INT, GM_M_ECC_CORR_AGG},
    {'e', "dbecc", "errs", CK_INT, GM_M_ECC_UNCORR_AGG},
    {'e', "pci", "errs", CK_INT, GM_M_PCIE_REPLAY},
    {'t', "rxpci", "MB/s", CK_INT, GM_M_PCIE_RX},
    {'t', "txpci", "MB/s", CK_INT, GM_M_PCIE_TX},
    /* --gpm-metrics (not an -s group): nvidia-smi's GPM metric ids, gpm_id of the row */
    {'g', "gract", "%", CK_INT, GM_M_GPM_GR_ACTIVE},
    {'g', "smact", "%", CK_INT, GM_M_GPM_SM_ACTIVE},
    {'g', "smocc", "%", CK_INT, GM_M_GPM_SM_OCCUPANCY},
    {'g', "intac", "%", CK_INT, GM_M_GPM_INT_ACTIVE},
    {'g', "tenac", "%", CK_INT, GM_M_GPM_TENSOR_ACTIVE},
    {'g', "dramac", "%", CK_INT, GM_M_GPM_DRAM_ACTIVE},
    {'g', "fp64a", "%", CK_INT, GM_M_GPM_FP64_ACTIVE},
    {'g', "fp32a", "%", CK_INT, GM_M_GPM_FP32_ACTIVE},
    {'g', "fp16a", "%", CK_INT, GM_M_GPM_FP16_ACTIVE},
    {'g', "pcitx", "MB/s", CK_INT, GM_M_GPM_PCIE_TX},
    {'g', "pcirx", "MB/s", CK_INT, GM_M_GPM_PCIE_RX},
    {'g', "nvltx", "MB/s", CK_INT, GM_M_GPM_NVLINK_TX},
    {'g', "nvlrx", "MB/s", CK_INT, GM_M_GPM_NVLINK_RX},
};
#define NCOLS (int)(sizeof(cols) / sizeof(cols[0]))

int gm_dmon_init(struct gm_dmon *d, const char *select, const struct gm_mon_layout *lay,
                 struct gm_err *err)
{
    memset(d, 0, sizeof(*d));
    d->lay = *lay;
    const char *sel = select ? select : "puc";
    if (!*sel)
        return gm_err_set(err, GM_E_INVAL, "-s needs one or more of p, u, c, v, m, e, t");
    char seen[8] = "";
    for (const char *c = sel; *c; c++) {
        if (!strchr("pucvmet", *c))
            return gm_err_set(err, GM_E_INVAL,
                              "invalid -s '%s': '%c' is not a metric group (p, u, c, v, m, e, t)",
                              sel, *c);
        if (strchr(seen, *c))
            continue;
        size_t ns = strlen(seen);
        seen[ns] = *c;
        seen[ns + 1] = '\0';
        for (int k = 0; k < NCOLS; k++)
            if (cols[k].group == *c && d->ncol < GM_MON_MAX_COLS)
                d->col[d->ncol++] = (uint8_t)k;
    }
    return 0;
}

int gm_dmon_add_gpm(struct gm_dmon *d, const char *list, struct gm_err *err)
{
    char ids[160] = "";
    size_t off = 0;
    for (int k = 0; k < NCOLS; k++)
        if (cols[k].group == 'g' && off < sizeof(ids)) {
            int w = snprintf(ids + off, sizeof(ids) - off, "%s%u", off ? "," : "",
                             (unsigned)gm_metrics[cols[k].metric].gpm_id);
            if (w > 0)
                off += (size_t)w;
        }
    const char *p = list ? list : "";
    if (!*p)
        return gm_err_set(err, GM_E_INVAL, "--gpm-metrics needs metric ids (%s)", ids);
    while (*p) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || (*end && *end != ',') || !isdigit((unsigned char)*p))
            return gm_err_set(err, GM_E_INVAL,
                              "invalid --gpm-metrics '%s': '%.*s' is not a metric id (%s)", list,
                              (int)strcspn(p, ","), p, ids);
        int m = v <= 0xffff ? gm_metric_by_gpm_id((unsigned)v) : -1;
        int col = -1;
        for (int k = 0; k < NCOLS && m >= 0; k++)
            if (cols[k].group == 'g' && cols[k].metric == m)
                col = k;
        if (col < 0)
            return gm_err_set(err, GM_E_INVAL,
                              "invalid --gpm-metrics '%s': gpumon does not read GPM metric %lu "
                              "(it reads %s)",
                              list, v, ids);
        int dup = 0;
        for (int i = 0; i < d->ncol; i++)
            dup |= d->col[i] == col;
        if (!dup) {
            if (d->ncol >= GM_MON_MAX_COLS)
                return gm_err_set(err, GM_E_INVAL, "--gpm-metrics: more than %d columns",
                                  GM_MON_MAX_COLS);
            d->col[d->ncol++] = (uint8_t)col;
        }
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return gm_err_set(err, GM_E_INVAL,
                              "invalid --gpm-metrics '%s': a comma at the end (%s)", list, ids);
    }
    return 0;
}

struct gm_rgset gm_dmon_groups(const struct gm_dmon *d, unsigned *flags)
{
    struct gm_rgset g = GM_RGSET_OF(GM_RG_MIG_MODE); /* -i may name a MIG UUID */
    for (int i = 0; i < d->ncol; i++) {
        const struct dmon_col *c = &cols[d->col[i]];
        if (c->metric >= 0)
            gm_rgset_add(&g, gm_metrics[c->metric].rg);
    }
    /* the first line shows an interval too: two GPM samples 100 ms apart at the start */
    if (gm_rgset_has(&g, GM_RG_GPM))
        *flags |= GM_NVML_GPM_PRIME;
    return g;
}

void gm_dmon_header(const struct gm_dmon *d, struct gm_buf *out)
{
    if (d->lay.csv && d->lay.noheader)
        return;
    for (int row = 0; row < 2; row++) {
        if (row == 1 && d->lay.csv && d->lay.nounit)
            break;
        struct gm_mon_line ln;
        gm_mon_line_begin(&ln, &d->lay, out, 1);
        gm_mon_time_header(&ln, row);
        gm_mon_cell(&ln, row ? "Idx" : "gpu", 5, 0, 0);
        for (int i = 0; i < d->ncol; i++) {
            const struct dmon_col *c = &cols[d->col[i]];
            gm_mon_cell(&ln, row ? c->unit : c->name, 6, 1, 0);
        }
        gm_mon_line_end(&ln, 1);
    }
}

/* The cell text of column c for GPU g at position i in s. */
static void cell_text(const struct gm_dmon *d, const struct dmon_col *c,
                      const struct gm_snapshot *s, const struct gm_gpu *g, uint32_t i, char *b,
                      size_t len)
{
    snprintf(b, len, "-");
    if (c->kind == CK_NONE || g->state != GM_GPU_OK)
        return;
    const struct gm_value *v = &g->m[c->metric];
    if (!gm_v_ok(v))
        return;
    double x = gm_v_as_double(v);
    if (c->kind == CK_INT) {
        double div = gm_units[gm_metrics[c->metric].unit].smi_div;
        snprintf(b, len, "%" PRIu64, (uint64_t)floor(x / div + 1e-9));
        return;
    }
    /* rates: the same GPU, ok in both samples, a later sample */
    if (!d->have_prev || i >= d->prev_n || i >= 64 || !d->prev_gpu_ok[i] ||
        s->mono_ns <= d->prev_mono_ns)
        return;
    const struct gm_value *pv = c->kind == CK_VPOW ? &d->prev_vpow[i] : &d->prev_vthm[i];
    if (!gm_v_ok(pv))
        return;
    double dt = (double)(s->mono_ns - d->prev_mono_ns) / 1e9;
    double dv = x - gm_v_as_double(pv);
    if (dv < 0) /* counter reset (driver reload) */
        return;
    if (c->kind == CK_VPOW) {
        double pct = dv / dt * 100.0;
        if (pct > 100)
            pct = 100;
        snprintf(b, len, "%.0f", floor(pct));
    } else {
        snprintf(b, len, "%d", dv > 0);
    }
}

void gm_dmon_rows(struct gm_dmon *d, const struct gm_snapshot *s, uint64_t mask, struct gm_buf *out)
{
    char b[32];
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((mask >> i) & 1))
            continue;
        const struct gm_gpu *g = &s->gpus[i];
        struct gm_mon_line ln;
        gm_mon_line_begin(&ln, &d->lay, out, 0);
        gm_mon_time_cells(&ln, s->wall_ns);
        snprintf(b, sizeof(b), "%u", g->index);
        gm_mon_cell(&ln, b, 5, 0, 0);
        for (int k = 0; k < d->ncol; k++) {
            cell_text(d, &cols[d->col[k]], s, g, i, b, sizeof(b));
            gm_mon_cell(&ln, b, 6, 1, 0);
        }
        gm_mon_line_end(&ln, 1);
    }
    /* what the next sample's rates start from */
    d->have_prev = 1;
    d->prev_mono_ns = s->mono_ns;
    d->prev_n = s->ngpu < 64 ? s->ngpu : 64;
    for (uint32_t i = 0; i < d->prev_n; i++) {
        const struct gm_gpu *g = &s->gpus[i];
        d->prev_gpu_ok[i] = g->state == GM_GPU_OK;
        d->prev_vpow[i] = g->m[GM_M_VIOL_POWER];
        d->prev_vthm[i] = g->m[GM_M_VIOL_THERMAL];
    }
}

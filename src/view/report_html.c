/* report_html.c -- the HTML report's writer (see report_html.h).
 *
 * Why hand-written SVG rather than the cairo module writing SVG: the file
 * is read in a browser, where SVG text stays text (selectable, found by
 * the browser's search, readable by a screen reader and by a test through
 * the DOM), strokes are styled by the page's CSS, and a chart is a few
 * paths instead of cairo's glyph outlines (a month of 8 GPUs stays well
 * under issue 13's 2 MB).  `gpumon report` also keeps its start-up: no
 * cairo, no font stack, no module to find.  What the two share is the data
 * (store/plotdata.h: tiers, min/max per point, gaps, marks, fired alerts).
 *
 * Long windows keep spikes: each GPU's points are gathered per x column
 * (one unit of the chart's width) into low, average and high; the average
 * is the line and low..high a light band around it.  A series is cut where
 * the GPU was down or not recorded, or where no point came for more than
 * 2.5 of its usual steps (the agent stopped): a gap, never a line across.
 *
 * Text from outside (GPU, host, user, process and job names, marks, alert
 * summaries) goes into the page as <bdi> elements, so that right-to-left
 * text in a name cannot reorder what stands around it, and wraps anywhere
 * (overflow-wrap), so that a long unbroken mark cannot make the page wider
 * than the window.  Bidi controls are already U+FFFD (gm_text_html).
 */
#include "report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/err.h"
#include "../core/event.h"
#include "../core/nice.h"
#include "../core/text.h"
#include "../core/timeutil.h"

#define CH_HEIGHT 210
#define CH_TOP 14
#define CH_BOTTOM 26
#define PLOT_W (GM_RH_WIDTH - GM_RH_LEFT - GM_RH_RIGHT)
#define PLOT_H (CH_HEIGHT - CH_TOP - CH_BOTTOM)

/* The palette every chart shares (core/nice.h: Okabe & Ito's, colour-blind
 * safe, with a dash per GPU so that lines differ in black and white too);
 * by NVML index, so a GPU keeps its colour in a --gpu report. */
static const char *colour(int g)
{
    return gm_series_colour((size_t)g)->hex;
}

static const char *dash(int g)
{
    return gm_series_dash((size_t)g)->svg;
}

static const int chart_metric[] = {GM_PM_UTIL, GM_PM_MEM, GM_PM_POWER, GM_PM_TEMP, GM_PM_CLOCKS};

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1000px;"
    "padding:0 1em;color:#222;background:#fff}"
    "h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.2em;margin:1.6em 0 .5em;"
    "border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;width:100%;font-size:13px}"
    "th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}"
    "td.n{white-space:nowrap}.tw{overflow-x:auto;max-width:100%}"
    "@media (min-width:1000px){.t{white-space:nowrap}}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}"
    ".na{color:#888}.meta{color:#555;margin:0}figure{margin:1em 0}"
    "figcaption{font-weight:600;margin-bottom:2px}"
    "svg.chart{width:100%;height:auto;display:block}"
    "svg text{font:11px sans-serif;fill:#333}.grid{stroke:#e4e4e4}.axis{stroke:#888}"
    ".mark{stroke:#333;stroke-width:1;stroke-opacity:.6}.alert{stroke:#c00;stroke-width:1;stroke-"
    "dasharray:4 2}"
    "g.ev rect{fill:#333}g.ev.al rect{fill:#a00}g.ev text{fill:#fff;font-weight:600}"
    "#chart-events{columns:18em;font-size:13px;padding-left:2.2em}"
    "#chart-events li.al::marker{color:#a00}"
    ".series{fill:none;stroke-width:1.5}"
    ".band{stroke:none;opacity:.13}.limit{fill:none;stroke-width:1;stroke-dasharray:1 3}"
    "ul.legend{list-style:none;padding:0;margin:.3em 0}"
    "ul.legend li{display:inline-block;margin-right:1.2em}"
    ".sev-critical{color:#b00;font-weight:600}.sev-warning{color:#a60}"
    "bdi{unicode-bidi:isolate;overflow-wrap:anywhere}"
    "@media print{body{max-width:none}}";

/* s escaped for an attribute value or a text-only element (<title>). */
static void attr(struct gm_buf *b, const char *s)
{
    if (s)
        gm_text_html(b, s, strlen(s));
}

/* Text from outside as element content: escaped, in a <bdi> of its own. */
static void esc(struct gm_buf *b, const char *s)
{
    if (!s)
        return;
    gm_buf_puts(b, "<bdi>");
    gm_text_html(b, s, strlen(s));
    gm_buf_puts(b, "</bdi>");
}

/* Local time of t as "YYYY-MM-DD HH:MM:SS" (the ISO form with its offset
 * goes to the title attribute). */
static void put_time(struct gm_buf *b, int64_t t_ns)
{
    char iso[64];
    gm_time_iso(t_ns, iso, sizeof iso);
    gm_buf_printf(b, "<span class=\"t\" title=\"%s\">%.10s %.8s</span>", iso, iso, iso + 11);
}

/* ------------------------------------------------------------ summary */

static const struct {
    const char *key, *head;
} sum_cols[] = {
    {"gpu", "GPU"},
    {"name", "name"},
    {"hours", "recorded"},
    {"samples", "samples"},
    {"util_avg_pct", "util avg %"},
    {"util_max_pct", "util max %"},
    {"mem_max_mib", "memory max MiB"},
    {"power_avg_w", "power avg W"},
    {"energy_wh", "energy Wh"},
    {"temp_max_c", "temp max \u00b0C"},
    {"thr", "throttled (s, by reason)"},
    {"findings", "agent's findings"},
};

static int col_index(const struct gm_report_table *t, const char *key)
{
    for (size_t c = 0; c < t->ncol; c++)
        if (strcmp(t->key[c], key) == 0)
            return (int)c;
    return -1;
}

static void put_cell(struct gm_buf *b, const struct gm_report_table *t, size_t row, const char *key)
{
    int c = col_index(t, key);
    const struct gm_report_cell *x = c >= 0 ? &t->cell[row * t->ncol + (size_t)c] : NULL;
    if (x && x->kind == GM_RCELL_NUM) {
        gm_buf_printf(b, "<td class=\"n\" data-key=\"%s\">%.*f</td>", key, x->dec, x->v);
    } else if (x && x->kind == GM_RCELL_TEXT) {
        gm_buf_printf(b, "<td data-key=\"%s\">", key);
        if (x->text[0])
            esc(b, x->text);
        else
            gm_buf_puts(b, "-");
        gm_buf_puts(b, "</td>");
    } else {
        gm_buf_printf(b, "<td class=\"na\" data-key=\"%s\">N/A</td>", key);
    }
}

/* "thermal 12.0, power cap 3.5"; "-" when known and none; N/A unknown. */
static void put_thr(struct gm_buf *b, const struct gm_report_table *t, size_t row)
{
    struct gm_buf s = GM_BUF_INIT;
    int known = 0;
    for (size_t c = 0; c < t->ncol; c++) {
        const char *k = t->key[c];
        size_t kl = strlen(k);
        if (strncmp(k, "thr_", 4) != 0 || kl < 7 || strcmp(k + kl - 2, "_s") != 0)
            continue;
        const struct gm_report_cell *x = &t->cell[row * t->ncol + c];
        if (x->kind != GM_RCELL_NUM)
            continue;
        known = 1;
        if (x->v <= 0)
            continue;
        gm_buf_printf(&s, "%s<span data-key=\"%s\">", s.len ? ", " : "", k);
        for (size_t i = 4; i < kl - 2; i++) /* thr_power_cap_s: "power cap" */
            gm_buf_putc(&s, k[i] == '_' ? ' ' : k[i]);
        gm_buf_printf(&s, " %.*f</span>", x->dec, x->v);
    }
    if (s.len)
        gm_buf_printf(b, "<td data-key=\"thr\">%s</td>", s.p);
    else if (known)
        gm_buf_puts(b, "<td data-key=\"thr\">-</td>");
    else
        gm_buf_puts(b, "<td class=\"na\" data-key=\"thr\">N/A</td>");
    gm_buf_free(&s);
}

/* The time the history covers for GPU index gi: each run of points without
 * a gap (more than 2.5 of its usual steps, as the charts cut) from its
 * first point to its last plus one step; -1 when the GPU has no series. */
static double covered_s(const struct gm_plot_data *d, double gi)
{
    for (size_t g = 0; d && g < d->ngpu; g++) {
        const struct gm_plot_gpu *pg = &d->gpu[g];
        if ((double)pg->index != gi)
            continue;
        int64_t step = pg->step_ns > 0 ? pg->step_ns : 1000000000LL, sum = 0, run0 = 0, prev = 0;
        int in_run = 0;
        for (size_t i = 0; i < pg->n; i++) {
            const struct gm_plot_point *p = &pg->p[i];
            if (p->t_ns < d->from_ns || p->t_ns > d->to_ns || p->down) {
                if (in_run)
                    sum += prev - run0 + step;
                in_run = 0;
                continue;
            }
            if (in_run && p->t_ns - prev > step * 5 / 2) {
                sum += prev - run0 + step;
                in_run = 0;
            }
            if (!in_run)
                run0 = p->t_ns;
            in_run = 1;
            prev = p->t_ns;
        }
        if (in_run)
            sum += prev - run0 + step;
        return (double)sum / 1e9;
    }
    return -1;
}

/* A length of time as a person reads it: "42 s", "3.5 min", "23.9 h". */
static void put_duration(struct gm_buf *b, double s)
{
    if (s < 90)
        gm_buf_printf(b, "%.0f s", s);
    else if (s < 5400)
        gm_buf_printf(b, "%.1f min", s / 60);
    else
        gm_buf_printf(b, "%.1f h", s / 3600);
}

static void put_summary(struct gm_buf *b, const struct gm_report_table *t,
                        const struct gm_plot_data *pd)
{
    gm_buf_puts(b, "<h2 id=\"summary\">Summary per GPU</h2>\n");
    if (!t || t->nrow == 0) {
        gm_buf_puts(b, "<p class=\"na\">No samples in this period.</p>\n");
        return;
    }
    gm_buf_puts(b, "<div class=\"tw\"><table id=\"summary-table\"><thead><tr>");
    for (size_t i = 0; i < sizeof sum_cols / sizeof sum_cols[0]; i++)
        gm_buf_printf(b, "<th>%s</th>", sum_cols[i].head);
    gm_buf_puts(b, "</tr></thead><tbody>\n");
    int gc = col_index(t, "gpu");
    for (size_t r = 0; r < t->nrow; r++) {
        const struct gm_report_cell *g = gc >= 0 ? &t->cell[r * t->ncol + (size_t)gc] : NULL;
        if (g && g->kind == GM_RCELL_NUM)
            gm_buf_printf(b, "<tr class=\"gpu\" data-gpu=\"%.0f\">", g->v);
        else
            gm_buf_puts(b, "<tr class=\"gpu\">");
        for (size_t i = 0; i < sizeof sum_cols / sizeof sum_cols[0]; i++) {
            const char *k = sum_cols[i].key;
            if (strcmp(k, "thr") == 0)
                put_thr(b, t, r);
            else if (strcmp(k, "hours") == 0) {
                /* what the history holds, not the count of hours it touches
                 * (3.5 minutes across an hour's turn are not "2 hours") */
                double cov = g && g->kind == GM_RCELL_NUM ? covered_s(pd, g->v) : -1;
                if (cov < 0) {
                    gm_buf_puts(b, "<td class=\"n na\" data-key=\"hours\">N/A</td>");
                } else {
                    gm_buf_printf(b, "<td class=\"n\" data-key=\"hours\" data-seconds=\"%.1f\">",
                                  cov);
                    put_duration(b, cov);
                    gm_buf_puts(b, "</td>");
                }
            } else
                put_cell(b, t, r, k);
        }
        gm_buf_puts(b, "</tr>\n");
    }
    gm_buf_puts(b, "</tbody></table></div>\n<p class=\"meta\">From the store's 1-hour rollups: the "
                   "hours that start in the period. Recorded: the time the history covers "
                   "(the charts' series without their gaps). Throttled: seconds the clocks were "
                   "held down, by reason.</p>\n");
}

/* ------------------------------------------------------------- charts */

static double ch_x(const struct gm_plot_data *d, int64_t t)
{
    double span = (double)(d->to_ns - d->from_ns);
    return GM_RH_LEFT + (double)(t - d->from_ns) / span * PLOT_W;
}

static double ch_y(double v, double top)
{
    double f = v / top;
    if (f < 0)
        f = 0;
    if (f > 1.02)
        f = 1.02;
    return CH_TOP + PLOT_H - f * PLOT_H;
}

/* The time axis: a step from the list giving at most 8 ticks, aligned to
 * local time (local midnight for days). */
static void put_time_axis(struct gm_buf *b, const struct gm_plot_data *d)
{
    static const int64_t steps[] = {1,     2,     5,     10,    15,     30,     60,
                                    120,   300,   600,   900,   1800,   3600,   7200,
                                    10800, 21600, 43200, 86400, 172800, 604800, 2592000};
    int64_t span_s = (d->to_ns - d->from_ns) / 1000000000LL;
    int64_t step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span_s / steps[i] <= 8) {
            step = steps[i];
            break;
        }
    int64_t off = gm_utc_offset(d->from_ns);
    int64_t from_s = d->from_ns / 1000000000LL, to_s = d->to_ns / 1000000000LL;
    int64_t first = ((from_s + off) / step + 1) * step - off;
    for (int64_t t = first; t <= to_s; t += step) {
        double x = ch_x(d, t * 1000000000LL);
        time_t tt = (time_t)t;
        struct tm tm;
        localtime_r(&tt, &tm);
        char lab[32];
        if (step >= 86400)
            snprintf(lab, sizeof lab, "%02d-%02d", tm.tm_mon + 1, tm.tm_mday);
        else if (step >= 60)
            snprintf(lab, sizeof lab, "%02d:%02d", tm.tm_hour, tm.tm_min);
        else
            snprintf(lab, sizeof lab, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
        gm_buf_printf(b,
                      "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                      "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                      x, x, CH_TOP, CH_TOP + PLOT_H, x, CH_HEIGHT - 8, lab);
    }
}

/* One column's gathering of points. */
struct col {
    int x;
    double lo, hi, sum;
    int n;
};

static void flush_segment(struct gm_buf *b, const struct col *c, size_t n, double top, int g)
{
    if (n == 0)
        return;
    int band = 0;
    for (size_t i = 0; i < n; i++)
        if (ch_y(c[i].lo, top) - ch_y(c[i].hi, top) >= 1.0)
            band = 1;
    if (band) {
        gm_buf_printf(b, "<path class=\"band\" fill=\"%s\" d=\"", colour(g));
        for (size_t i = 0; i < n; i++)
            gm_buf_printf(b, "%c%d,%.1f", i ? 'L' : 'M', c[i].x, ch_y(c[i].hi, top));
        for (size_t i = n; i-- > 0;)
            gm_buf_printf(b, "L%d,%.1f", c[i].x, ch_y(c[i].lo, top));
        gm_buf_puts(b, "Z\"/>\n");
    }
    gm_buf_printf(b, "<path class=\"series\" data-gpu=\"%d\" stroke=\"%s\"", g, colour(g));
    if (dash(g)[0])
        gm_buf_printf(b, " stroke-dasharray=\"%s\"", dash(g));
    gm_buf_puts(b, " d=\"");
    for (size_t i = 0; i < n; i++)
        gm_buf_printf(b, "%c%d,%.1f", i ? 'L' : 'M', c[i].x, ch_y(c[i].sum / c[i].n, top));
    if (n == 1) /* a lone point: a short tick so that it shows */
        gm_buf_printf(b, "h1");
    gm_buf_puts(b, "\"/>\n");
}

/* One GPU's series of metric m: columns gathered, cut at gaps. */
static void put_series(struct gm_buf *b, const struct gm_plot_data *d, const struct gm_plot_gpu *pg,
                       int m, double top, int g, struct col *cols)
{
    double scale = gm_plot_metrics[m].scale;
    size_t n = 0;
    int64_t last_t = 0;
    int have_last = 0;
    int64_t max_gap = pg->step_ns > 0 ? pg->step_ns * 5 / 2 : INT64_MAX;
    for (size_t i = 0; i < pg->n; i++) {
        const struct gm_plot_point *p = &pg->p[i];
        if (p->t_ns < d->from_ns || p->t_ns > d->to_ns)
            continue;
        double a = p->avg[m], lo = p->lo[m], hi = p->hi[m];
        if (p->down || isnan(a)) {
            flush_segment(b, cols, n, top, g);
            n = 0;
            have_last = 0;
            continue;
        }
        if (have_last && p->t_ns - last_t > max_gap) {
            flush_segment(b, cols, n, top, g);
            n = 0;
        }
        last_t = p->t_ns;
        have_last = 1;
        a *= scale;
        lo = isnan(lo) ? a : lo * scale;
        hi = isnan(hi) ? a : hi * scale;
        int x = (int)lround(ch_x(d, p->t_ns));
        if (n && cols[n - 1].x == x) {
            struct col *c = &cols[n - 1];
            c->lo = fmin(c->lo, lo);
            c->hi = fmax(c->hi, hi);
            c->sum += a;
            c->n++;
        } else {
            cols[n++] = (struct col){x, lo, hi, a, 1};
        }
    }
    flush_segment(b, cols, n, top, g);
}

static double gpu_limit(const struct gm_plot_gpu *pg, int m)
{
    if (m == GM_PM_POWER)
        return pg->power_limit_w;
    if (m == GM_PM_MEM)
        return pg->mem_total_b * gm_plot_metrics[m].scale;
    if (m == GM_PM_TEMP)
        return pg->temp_slowdown_c;
    return NAN;
}

static void put_chart(struct gm_buf *b, const struct gm_plot_data *d, int m, int labels)
{
    const struct gm_plot_metric_info *mi = &gm_plot_metrics[m];
    double top = 0;
    int any = 0;
    for (size_t g = 0; g < d->ngpu; g++) {
        const struct gm_plot_gpu *pg = &d->gpu[g];
        for (size_t i = 0; i < pg->n; i++) {
            const struct gm_plot_point *p = &pg->p[i];
            double v = isnan(p->hi[m]) ? p->avg[m] : p->hi[m];
            if (p->down || isnan(v))
                continue;
            any = 1;
            top = fmax(top, v * mi->scale);
        }
        double lim = gpu_limit(pg, m);
        if (isfinite(lim))
            top = fmax(top, lim);
    }
    if (m == GM_PM_UTIL)
        top = 100;
    if (top <= 0)
        top = 1;
    struct gm_ticks tk; /* 1-2-5 steps, as plot and the live page (core/nice.h) */
    gm_nice_ticks(0, top, 5, &tk);
    top = tk.hi;

    gm_buf_printf(b, "<figure><figcaption>%s (%s)</figcaption>\n", mi->title, mi->unit);
    gm_buf_printf(b,
                  "<svg class=\"chart\" data-metric=\"%s\" data-from-ms=\"%lld\" "
                  "data-to-ms=\"%lld\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                  "role=\"img\" aria-label=\"%s\">\n",
                  mi->name, (long long)(d->from_ns / 1000000), (long long)(d->to_ns / 1000000),
                  GM_RH_WIDTH, CH_HEIGHT, GM_RH_WIDTH, CH_HEIGHT, mi->title);
    for (int k = 0; k < tk.n; k++) {
        double v = gm_nice_tick(&tk, k);
        double y = ch_y(v, top);
        char lab[32];
        gm_buf_printf(b,
                      "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                      "<text class=\"yt\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                      GM_RH_LEFT, GM_RH_WIDTH - GM_RH_RIGHT, y, y, GM_RH_LEFT - 6, y + 4,
                      gm_nice_label(&tk, v, lab, sizeof lab));
    }
    put_time_axis(b, d);
    gm_buf_printf(b,
                  "<rect class=\"axis\" fill=\"none\" x=\"%d\" y=\"%d\" width=\"%d\" "
                  "height=\"%d\"/>\n",
                  GM_RH_LEFT, CH_TOP, PLOT_W, PLOT_H);
    if (!any)
        gm_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">not recorded</text>\n",
                      GM_RH_LEFT + PLOT_W / 2, CH_TOP + PLOT_H / 2);
    struct col *cols = NULL;
    size_t ccap = 0;
    for (size_t g = 0; g < d->ngpu; g++) {
        const struct gm_plot_gpu *pg = &d->gpu[g];
        if (pg->n > ccap) {
            ccap = pg->n;
            cols = gm_xrealloc(cols, ccap * sizeof *cols);
        }
        double lim = gpu_limit(pg, m);
        if (isfinite(lim))
            gm_buf_printf(b,
                          "<line class=\"limit\" stroke=\"%s\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
                          "y2=\"%.1f\"><title>GPU %u limit %g %s</title></line>\n",
                          colour((int)pg->index), GM_RH_LEFT, GM_RH_WIDTH - GM_RH_RIGHT,
                          ch_y(lim, top), ch_y(lim, top), pg->index, lim, mi->unit);
        put_series(b, d, pg, m, top, (int)pg->index, cols);
    }
    free(cols);
    /* marks and fired alerts: a line each with its number; in the first
     * chart the numbers stand above the plot area (touching ones become
     * one badge, "3-5"), and the list under the charts gives each its
     * time and whole text: no label is cut or drawn over another */
    size_t num = 0, c0 = 0;
    int all_alert = 0;
    double prev_right = -1e9;
    char iso[64];
    for (size_t i = 0; i < d->nev; i++) {
        const struct gm_plot_event *e = &d->ev[i];
        if (e->t_ns < d->from_ns || e->t_ns > d->to_ns)
            continue;
        num++;
        int alert = e->kind == GM_PE_ALERT;
        double x = ch_x(d, e->t_ns);
        gm_buf_printf(b,
                      "<line class=\"%s\" data-n=\"%zu\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
                      "y2=\"%d\"><title>%zu: %s ",
                      alert ? "alert" : "mark", num, x, x, CH_TOP, CH_TOP + PLOT_H, num,
                      gm_time_iso(e->t_ns, iso, sizeof iso));
        attr(b, e->text);
        gm_buf_puts(b, "</title></line>\n");
        if (!labels)
            continue;
        /* the badge of events c0+1..num, drawn when the next one is clear of it */
        if (c0 == 0) {
            c0 = num;
            all_alert = 1;
        }
        all_alert &= alert;
        char lab[48];
        if (c0 == num)
            snprintf(lab, sizeof lab, "%zu", num);
        else
            snprintf(lab, sizeof lab, "%zu-%zu", c0, num);
        double w = 7.0 * (double)strlen(lab) + 6; /* 11px bold digits are under 7 wide */
        double left = fmax(fmax(x - w / 2, GM_RH_LEFT - 3), prev_right + 3);
        size_t nx = i + 1;
        while (nx < d->nev && (d->ev[nx].t_ns < d->from_ns || d->ev[nx].t_ns > d->to_ns))
            nx++;
        if (nx < d->nev) {
            char nl[24];
            snprintf(nl, sizeof nl, "%zu", num + 1);
            double nw = 7.0 * (double)strlen(nl) + 6, xn = ch_x(d, d->ev[nx].t_ns);
            if (xn - nw / 2 < left + w + 3)
                continue; /* the next one joins this badge */
        }
        if (left + w > GM_RH_WIDTH)
            left = GM_RH_WIDTH - w;
        gm_buf_printf(b,
                      "<g class=\"ev %s\" data-from=\"%zu\" data-to=\"%zu\"><rect x=\"%.1f\" "
                      "y=\"0\" width=\"%.1f\" height=\"13\"/><text x=\"%.1f\" y=\"10\" "
                      "text-anchor=\"middle\">%s</text></g>\n",
                      all_alert ? "al" : "ml", c0, num, left, w, left + w / 2, lab);
        prev_right = left + w;
        c0 = 0;
    }
    gm_buf_puts(b, "</svg></figure>\n");
}

/* The charts' time axis: the period, narrowed to the points in it (a
 * report of the last 24 h of an agent that ran for 10 minutes shows the
 * 10 minutes); 0 when there is no point. */
static int chart_window(const struct gm_plot_data *d, int64_t *from, int64_t *to)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, step = 0;
    for (size_t g = 0; g < d->ngpu; g++) {
        const struct gm_plot_gpu *pg = &d->gpu[g];
        for (size_t i = 0; i < pg->n; i++) {
            int64_t t = pg->p[i].t_ns;
            if (t < d->from_ns || t > d->to_ns)
                continue;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
        step = pg->step_ns > step ? pg->step_ns : step;
    }
    if (lo > hi)
        return 0;
    hi += step; /* a rollup point stands for its whole period */
    *from = lo > d->from_ns ? lo : d->from_ns;
    *to = hi < d->to_ns ? hi : d->to_ns;
    if (*to <= *from)
        *to = *from + 1000000000LL;
    return 1;
}

/* The key of the charts' numbered lines: number, time, the whole text. */
static void put_chart_events(struct gm_buf *b, const struct gm_plot_data *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nev; i++)
        n += d->ev[i].t_ns >= d->from_ns && d->ev[i].t_ns <= d->to_ns;
    if (n == 0)
        return;
    gm_buf_puts(b, "<p class=\"meta\">The numbered lines: marks (grey) and alerts that fired "
                   "(red).</p>\n<ol id=\"chart-events\">");
    for (size_t i = 0; i < d->nev; i++) {
        const struct gm_plot_event *e = &d->ev[i];
        if (e->t_ns < d->from_ns || e->t_ns > d->to_ns)
            continue;
        gm_buf_printf(b, "<li class=\"%s\">", e->kind == GM_PE_ALERT ? "al" : "ml");
        put_time(b, e->t_ns);
        gm_buf_puts(b, e->kind == GM_PE_ALERT ? " alert " : " ");
        esc(b, e->text);
        gm_buf_puts(b, "</li>");
    }
    gm_buf_puts(b, "</ol>\n");
}

static void put_charts(struct gm_buf *b, const struct gm_plot_data *pd)
{
    gm_buf_puts(b, "<h2 id=\"charts\">Charts</h2>\n");
    struct gm_plot_data dd;
    if (pd)
        dd = *pd;
    if (!pd || pd->ngpu == 0 || !chart_window(pd, &dd.from_ns, &dd.to_ns)) {
        gm_buf_puts(b, "<p class=\"na\">No samples in this period.</p>\n");
        return;
    }
    const struct gm_plot_data *d = &dd;
    static const char *const tier[] = {"raw samples", "1-minute rollups", "1-hour rollups",
                                       "CSV logs"};
    gm_buf_printf(b,
                  "<p class=\"meta\">From the store's %s. Line: average per column; band: "
                  "lowest to highest; dotted: a GPU's limit; a gap where nothing was recorded. "
                  "Solid grey lines: marks; dashed red: alerts that fired (numbered, listed "
                  "under the charts). From ",
                  d->tier >= 0 && d->tier <= GM_PTIER_CSV ? tier[d->tier] : "history");
    put_time(b, d->from_ns);
    gm_buf_puts(b, " to ");
    put_time(b, d->to_ns);
    gm_buf_puts(b, ".</p>\n");
    gm_buf_puts(b, "<ul class=\"legend\">");
    for (size_t g = 0; g < d->ngpu; g++) {
        const struct gm_plot_gpu *pg = &d->gpu[g];
        gm_buf_printf(b,
                      "<li><svg width=\"28\" height=\"10\" viewBox=\"0 0 28 10\"><line x1=\"0\" "
                      "x2=\"28\" y1=\"5\" y2=\"5\" stroke-width=\"2.5\" stroke=\"%s\"%s%s%s/>"
                      "</svg> GPU %u ",
                      colour((int)pg->index), dash((int)pg->index)[0] ? " stroke-dasharray=\"" : "",
                      dash((int)pg->index), dash((int)pg->index)[0] ? "\"" : "", pg->index);
        esc(b, pg->name);
        gm_buf_puts(b, "</li>");
    }
    gm_buf_puts(b, "</ul>\n");
    for (size_t i = 0; i < sizeof chart_metric / sizeof chart_metric[0]; i++)
        put_chart(b, d, chart_metric[i], i == 0);
    put_chart_events(b, d);
}

/* ---------------------------------------------------------- diagnosis */

static void put_diagnosis(struct gm_buf *b, const struct gm_report_html_in *in)
{
    gm_buf_puts(b, "<h2 id=\"diagnosis\">Diagnosis</h2>\n");
    const struct gm_dg_result *r = in->dgr;
    if (!in->dg || !r || r->ngpu == 0) {
        gm_buf_puts(b, "<p class=\"na\">No history to diagnose in this period.</p>\n");
        return;
    }
    gm_buf_puts(b, "<p class=\"meta\">What <code>gpumon diagnose</code> finds in the same "
                   "history (docs/diagnose.md).</p>\n<div class=\"tw\"><table "
                   "id=\"verdicts\"><thead><tr><th>GPU</th>"
                   "<th>verdict</th><th>points</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < r->ngpu; i++) {
        const struct gm_dg_verdict *v = &r->gpus[i];
        const char *name = v->verdict == GM_DG_GPU_LOST ? "lost"
                           : v->has_findings            ? "findings"
                                                        : gm_dg_cause_name(v->verdict);
        gm_buf_printf(b, "<tr><td class=\"n\">%u</td><td>%s</td><td class=\"n\">%zu</td></tr>\n",
                      v->index, name, v->npoints);
    }
    gm_buf_puts(b, "</tbody></table></div>\n");
    if (r->nfinding == 0) {
        gm_buf_puts(b, "<p>No finding.</p>\n");
        return;
    }
    gm_buf_puts(b, "<div class=\"tw\"><table "
                   "id=\"findings\"><thead><tr><th>cause</th><th>severity</th><th>GPUs</th>"
                   "<th>from</th><th>to</th><th>confidence</th><th>evidence</th>"
                   "<th>what to do</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < r->nfinding; i++) {
        const struct gm_dg_finding *f = &r->findings[i];
        const char *sev = gm_dg_severity_name(f->severity);
        gm_buf_printf(b, "<tr class=\"finding\"><td>%s</td><td class=\"sev-%s\">%s</td><td>",
                      gm_dg_cause_name(f->cause), sev, sev);
        for (uint32_t k = 0; k < f->ngpu && k < 64; k++)
            gm_buf_printf(b, "%s%u", k ? ", " : "", f->gpus[k]);
        gm_buf_puts(b, "</td><td>");
        put_time(b, f->start_ns);
        gm_buf_puts(b, "</td><td>");
        put_time(b, f->end_ns);
        gm_buf_printf(b, "</td><td class=\"n\">%.2f</td><td>", f->confidence);
        esc(b, f->evidence);
        gm_buf_puts(b, "</td><td>");
        esc(b, f->advice);
        gm_buf_puts(b, "</td></tr>\n");
    }
    gm_buf_puts(b, "</tbody></table></div>\n");
}

/* ------------------------------------------------------ alerts, marks */

static void put_alerts(struct gm_buf *b, const struct gm_report_html_in *in)
{
    gm_buf_puts(b, "<h2 id=\"alerts\">Alerts</h2>\n");
    if (in->nalerts == 0) {
        gm_buf_puts(b, "<p>No alert notices in this period.</p>\n");
        return;
    }
    gm_buf_puts(
        b, "<div class=\"tw\"><table id=\"alerts-table\"><thead><tr><th>time</th><th>state</th>"
           "<th>severity</th><th>rule</th><th>GPU</th><th>value</th><th>summary</th>"
           "</tr></thead><tbody>\n");
    for (size_t i = 0; i < in->nalerts; i++) {
        const struct gm_alert_rec *a = &in->alerts[i];
        gm_buf_puts(b, "<tr class=\"alert\"><td>");
        put_time(b, a->ts_ms * 1000000LL);
        gm_buf_puts(b, "</td><td>");
        esc(b, a->state);
        if (a->repeat)
            gm_buf_puts(b, " (repeat)");
        gm_buf_puts(b, "</td><td class=\"sev-");
        attr(b, a->severity);
        gm_buf_puts(b, "\">");
        esc(b, a->severity);
        gm_buf_puts(b, "</td><td>");
        esc(b, a->rule);
        if (a->gpu >= 0)
            gm_buf_printf(b, "</td><td class=\"n\">%lld</td><td>", (long long)a->gpu);
        else
            gm_buf_puts(b, "</td><td>-</td><td>");
        /* a slow read group's value: how old it was (alerts.md) */
        char age[48] = "";
        if (a->value[0] && a->value_age_ms > 0 && a->value_age_ms <= UINT32_MAX)
            gm_alert_age_text((uint32_t)a->value_age_ms, age, sizeof(age));
        struct gm_buf v = GM_BUF_INIT;
        gm_buf_printf(&v, "%s%s", a->value[0] ? a->value : "-", age);
        esc(b, v.p);
        gm_buf_free(&v);
        gm_buf_puts(b, "</td><td>");
        esc(b, a->summary);
        gm_buf_puts(b, "</td></tr>\n");
    }
    gm_buf_puts(b, "</tbody></table></div>\n");
}

/* Who held each GPU in the period: per GPU, each (job, user, process)
 * with its share of the GPU's time, energy, utilisation and peak memory
 * (the usage_1h table, docs/jobs.md). */
static void put_usage(struct gm_buf *b, const struct gm_report_html_in *in)
{
    gm_buf_puts(b, "<h2 id=\"usage\">Processes and users</h2>\n");
    if (in->nusage == 0) {
        gm_buf_puts(b, "<p>No GPU processes recorded in this period.</p>\n");
        return;
    }
    gm_buf_puts(b,
                "<p>Each GPU's time goes to the processes on it, in equal parts when several "
                "share it; grouped by job, user and process name.</p>\n"
                "<div class=\"tw\"><table id=\"usage-table\"><thead><tr><th>GPU</th><th>user</th>"
                "<th>process</th><th>job</th><th>GPU-hours</th><th>energy (Wh)</th>"
                "<th>util avg</th><th>mem peak</th><th>throttled</th><th>first seen</th>"
                "<th>last seen</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < in->nusage; i++) {
        const struct gm_usage_row *w = &in->usage[i];
        gm_buf_printf(b,
                      "<tr class=\"usage\" data-gpu=\"%d\" data-gpu-seconds=\"%.3f\"><td "
                      "class=\"n\">%d</td><td>",
                      w->gpu, w->gpu_s, w->gpu);
        esc(b, w->user[0] ? w->user : "?");
        gm_buf_puts(b, "</td><td>");
        esc(b, w->process[0] ? w->process : "?");
        gm_buf_puts(b, "</td><td>");
        esc(b, w->job[0] ? w->job : "-");
        gm_buf_printf(b, "</td><td class=\"n\">%.2f</td><td class=\"n\">", w->gpu_s / 3600.0);
        if (w->energy_j >= 0)
            gm_buf_printf(b, "%.1f", w->energy_j / 3600.0);
        else
            gm_buf_puts(b, "N/A");
        gm_buf_puts(b, "</td><td class=\"n\">");
        if (w->util_avg >= 0)
            gm_buf_printf(b, "%.0f %%", w->util_avg);
        else
            gm_buf_puts(b, "N/A");
        gm_buf_puts(b, "</td><td class=\"n\">");
        if (w->mem_max_mib >= 0)
            gm_buf_printf(b, "%lld MiB", (long long)w->mem_max_mib);
        else
            gm_buf_puts(b, "N/A");
        gm_buf_printf(b, "</td><td class=\"n\">%.0f s</td><td>", w->thr_s);
        put_time(b, w->first_ms * 1000000LL);
        gm_buf_puts(b, "</td><td>");
        put_time(b, w->last_ms * 1000000LL);
        gm_buf_puts(b, "</td></tr>\n");
    }
    gm_buf_puts(b, "</tbody></table></div>\n");
}

static void put_marks(struct gm_buf *b, const struct gm_plot_data *d)
{
    gm_buf_puts(b, "<h2 id=\"marks\">Marks</h2>\n");
    size_t n = 0;
    for (size_t i = 0; d && i < d->nev; i++)
        n += d->ev[i].kind == GM_PE_MARK;
    if (n == 0) {
        gm_buf_puts(b,
                    "<p>No marks in this period (<code>gpumon mark TEXT</code> adds one).</p>\n");
        return;
    }
    gm_buf_puts(b, "<div class=\"tw\"><table "
                   "id=\"marks-table\"><thead><tr><th>time</th><th>text</th></tr></thead>"
                   "<tbody>\n");
    for (size_t i = 0; i < d->nev; i++) {
        if (d->ev[i].kind != GM_PE_MARK)
            continue;
        gm_buf_puts(b, "<tr class=\"mark\"><td>");
        put_time(b, d->ev[i].t_ns);
        gm_buf_puts(b, "</td><td>");
        esc(b, d->ev[i].text);
        gm_buf_puts(b, "</td></tr>\n");
    }
    gm_buf_puts(b, "</tbody></table></div>\n");
}

/* ------------------------------------------------------------ document */

void gm_report_html(const struct gm_report_html_in *in, struct gm_buf *b)
{
    char a[64], z[64], m[64];
    gm_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\"/>\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                   "<meta name=\"generator\" content=\"gpumon report --html\"/>\n<title>gpumon "
                   "report: ");
    attr(b, in->host);
    gm_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>GPU report: ", css);
    esc(b, in->host);
    gm_buf_puts(b, "</h1>\n<p class=\"meta\">Period: ");
    put_time(b, in->from_ns);
    gm_buf_puts(b, " to ");
    put_time(b, in->to_ns);
    gm_buf_printf(b, " (local time, UTC%s)", gm_time_iso(in->from_ns, a, sizeof a) + 23);
    gm_buf_puts(b, ". Task: ");
    if (in->task)
        esc(b, in->task);
    else
        gm_buf_puts(b, "all");
    gm_buf_printf(b, ". Made %s by gpumon.</p>\n", gm_time_iso(in->made_ns, m, sizeof m));
    (void)z;
    put_summary(b, in->sum, in->plot);
    put_charts(b, in->plot);
    put_diagnosis(b, in);
    put_usage(b, in);
    put_alerts(b, in);
    put_marks(b, in->plot);
    gm_buf_puts(b, "<h2 id=\"absent\">Not in this report</h2>\n<p>Throttled periods shaded on "
                   "the charts (their totals are in the summary): not built yet "
                   "(docs/report.md).</p>\n</body>\n</html>\n");
}

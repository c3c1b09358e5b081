/* plot_draw.c -- gpumon_plot.so: draws a struct gm_plot_data with cairo
 * into PNG, SVG or PDF through one drawing path (plot.h).
 *
 * Layout, top to bottom: a title, the legend (one entry per GPU: colour and
 * line style; then the keys of limits, marks and alerts), one panel per
 * metric on a shared time axis, and a strip per GPU shading the periods
 * its clocks were held down, by reason.  In each panel a GPU's points are
 * gathered per pixel column: the column's lowest and highest values are
 * drawn as a light band and its average as the line, so a spike shorter
 * than a column stays visible whatever the window.  A line is broken where
 * the GPU was down, a value was not recorded, or no point came for more
 * than three of the GPU's usual intervals (the agent stopped): gaps stay
 * gaps.  Colours are Okabe and Ito's palette for colour-blind readers, and
 * each GPU has its own dash pattern as well, for black-and-white prints.
 *
 * Text from outside (GPU names, marks, alert names, the title) goes through
 * gm_text_line first: cairo wants valid UTF-8, and a control character has
 * no business in a picture.  Cairo's SVG surface writes text as glyph
 * outlines, so labels can be searched for in the PDF (pdftotext) but not
 * in the SVG.
 */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/nice.h"
#include "../core/text.h"
#include "plot.h"

#define NS 1000000000LL
#define TITLE_H 34
#define LEGEND_H 26
#define STRIP_ROW 12
#define EVENT_ROW_H 18 /* the marks' and alerts' numbers, above the panels */

struct rgb {
    double r, g, b;
};

/* The throttle reasons' shades (GM_PT_* order). */
static const struct rgb thr_col[GM_PT__COUNT] = {
    {0.835, 0.369, 0.000}, /* thermal: vermillion */
    {0.000, 0.447, 0.698}, /* power cap: blue */
    {0.800, 0.475, 0.655}, /* power brake: reddish purple */
    {0.400, 0.400, 0.400}, /* hw slowdown: grey */
};

struct ctx {
    cairo_t *cr;
    const struct gm_plot_data *d;
    const struct gm_plot_opts *o;
    double x0, x1; /* the plot area's left and right edges */
    struct gm_buf tb;
};

static void set_col(cairo_t *cr, struct rgb c, double a)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

static struct rgb series_rgb(size_t i)
{
    const struct gm_colour *c = gm_series_colour(i);
    return (struct rgb){c->r, c->g, c->b};
}

/* Series i's colour and dash (core/nice.h: the palette all charts share). */
static void gpu_style(cairo_t *cr, size_t i)
{
    set_col(cr, series_rgb(i), 1);
    const struct gm_dash *d = gm_series_dash(i);
    cairo_set_dash(cr, d->len, d->n, 0);
}

/* Hostile text made safe for cairo (valid UTF-8, no controls). */
static const char *clean(struct ctx *c, const char *s)
{
    gm_buf_reset(&c->tb);
    gm_text_line(&c->tb, s, strlen(s));
    gm_buf_putc(&c->tb, '\0');
    return c->tb.p;
}

static void text_at(struct ctx *c, double x, double y, double size, int bold, int align,
                    const char *s)
{
    cairo_select_font_face(c->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(c->cr, size);
    const char *t = clean(c, s);
    cairo_text_extents_t e;
    cairo_text_extents(c->cr, t, &e);
    double dx = align == 0 ? 0 : align == 1 ? -e.x_advance / 2 : -e.x_advance;
    cairo_move_to(c->cr, x + dx, y);
    cairo_show_text(c->cr, t);
}

static double x_of(const struct ctx *c, int64_t t_ns)
{
    return c->x0 +
           (double)(t_ns - c->d->from_ns) / (double)(c->d->to_ns - c->d->from_ns) * (c->x1 - c->x0);
}

/* ---- time axis ---------------------------------------------------------- */

static const int64_t tick_steps[] = {
    10 * NS,     30 * NS,     60 * NS,      120 * NS,     300 * NS,   600 * NS,   900 * NS,
    1800 * NS,   3600 * NS,   7200 * NS,    10800 * NS,   21600 * NS, 43200 * NS, 86400 * NS,
    172800 * NS, 604800 * NS, 1209600 * NS, 2419200 * NS, /* 2 d, 1, 2, 4 weeks */
};

static long utc_offset(const struct ctx *c, int64_t t_ns)
{
    if (c->o->utc)
        return 0;
    time_t t = (time_t)(t_ns / NS);
    struct tm tm;
    localtime_r(&t, &tm);
    return tm.tm_gmtoff;
}

static int64_t tick_step(const struct ctx *c)
{
    int64_t span = c->d->to_ns - c->d->from_ns;
    double max_ticks = (c->x1 - c->x0) / 110.0;
    for (size_t i = 0; i < sizeof tick_steps / sizeof tick_steps[0]; i++)
        if ((double)span / (double)tick_steps[i] <= max_ticks)
            return tick_steps[i];
    return tick_steps[sizeof tick_steps / sizeof tick_steps[0] - 1];
}

/* Calls fn for each tick (aligned in the shown time zone) of the window. */
static void time_ticks(struct ctx *c, double top, double bottom, int labels)
{
    int64_t step = tick_step(c);
    int64_t off = (int64_t)utc_offset(c, c->d->from_ns) * NS;
    int64_t t = ((c->d->from_ns + off) / step + 1) * step - off;
    int prev_yday = -1;
    for (; t <= c->d->to_ns; t += step) {
        double x = floor(x_of(c, t)) + 0.5;
        cairo_set_source_rgb(c->cr, 0.88, 0.88, 0.88);
        cairo_set_line_width(c->cr, 1);
        cairo_set_dash(c->cr, NULL, 0, 0);
        cairo_move_to(c->cr, x, top);
        cairo_line_to(c->cr, x, bottom);
        cairo_stroke(c->cr);
        if (!labels)
            continue;
        time_t s = (time_t)(t / NS) + (time_t)utc_offset(c, t);
        struct tm tm;
        gmtime_r(&s, &tm);
        char lab[32];
        if (step >= 86400 * NS)
            strftime(lab, sizeof lab, "%b %d", &tm);
        else if (tm.tm_yday != prev_yday && prev_yday != -1)
            strftime(lab, sizeof lab, "%b %d %H:%M", &tm);
        else if (step < 60 * NS)
            strftime(lab, sizeof lab, "%H:%M:%S", &tm);
        else
            strftime(lab, sizeof lab, "%H:%M", &tm);
        prev_yday = tm.tm_yday;
        cairo_set_source_rgb(c->cr, 0.2, 0.2, 0.2);
        /* a label near an edge is aligned inside the picture */
        int align = x > c->x1 - 40 ? 2 : x < c->x0 + 40 ? 0 : 1;
        text_at(c, align == 2 ? c->x1 : x, bottom + 13, 10, 0, align, lab);
    }
}

/* ---- panels ------------------------------------------------------------- */

static double limit_of(const struct gm_plot_gpu *g, int m)
{
    return m == GM_PM_POWER  ? g->power_limit_w
           : m == GM_PM_MEM  ? g->mem_total_b
           : m == GM_PM_TEMP ? g->temp_slowdown_c
                             : NAN;
}

struct col {
    double lo, hi, sum;
    int n;
};

/* One GPU's series in a panel: per run of points without a gap, the
 * per-column band and average line. */
static void draw_series(struct ctx *c, const struct gm_plot_gpu *g, size_t gi, int m, double top,
                        double bottom, double ymax, struct col *cols, int ncols)
{
    cairo_t *cr = c->cr;
    double scale = gm_plot_metrics[m].scale;
    int64_t half = c->d->tier == GM_PTIER_1M || c->d->tier == GM_PTIER_1H ? g->step_ns / 2 : 0;
    int64_t max_gap = g->step_ns > 0 ? 3 * g->step_ns : INT64_MAX;
    size_t i = 0;
    while (i < g->n) {
        while (i < g->n && (g->p[i].down || isnan(g->p[i].avg[m])))
            i++;
        if (i >= g->n)
            break;
        size_t j = i + 1;
        while (j < g->n && !g->p[j].down && !isnan(g->p[j].avg[m]) &&
               g->p[j].t_ns - g->p[j - 1].t_ns <= max_gap)
            j++;
        /* the run [i, j) into columns */
        int c0 = ncols, c1 = -1;
        for (size_t k = i; k < j; k++) {
            double x = x_of(c, g->p[k].t_ns + half) - c->x0;
            int ci = (int)floor(x);
            if (ci < 0 || ci >= ncols)
                continue;
            struct col *q = &cols[ci];
            if (ci < c0 || ci > c1) {
                if (ci < c0)
                    c0 = ci;
                if (ci > c1)
                    c1 = ci;
            }
            double lo = isnan(g->p[k].lo[m]) ? g->p[k].avg[m] : g->p[k].lo[m];
            double hi = isnan(g->p[k].hi[m]) ? g->p[k].avg[m] : g->p[k].hi[m];
            if (q->n == 0 || lo < q->lo)
                q->lo = lo;
            if (q->n == 0 || hi > q->hi)
                q->hi = hi;
            q->sum += g->p[k].avg[m];
            q->n++;
        }
        double h = bottom - top;
#define Y(v) (bottom - fmin(fmax((v)*scale / ymax, 0), 1.02) * h)
        if (c1 >= c0) {
            /* the band of lows and highs */
            set_col(cr, series_rgb(gi), 0.28);
            for (int ci = c0; ci <= c1; ci++) {
                if (!cols[ci].n || Y(cols[ci].lo) - Y(cols[ci].hi) < 1.5)
                    continue;
                cairo_rectangle(cr, c->x0 + ci, Y(cols[ci].hi), 1, Y(cols[ci].lo) - Y(cols[ci].hi));
            }
            cairo_fill(cr);
            /* the average */
            gpu_style(cr, gi);
            cairo_set_line_width(cr, 1.6);
            int first = 1, pts = 0;
            for (int ci = c0; ci <= c1; ci++) {
                if (!cols[ci].n)
                    continue;
                double y = Y(cols[ci].sum / cols[ci].n);
                if (first)
                    cairo_move_to(cr, c->x0 + ci + 0.5, y);
                else
                    cairo_line_to(cr, c->x0 + ci + 0.5, y);
                first = 0;
                pts++;
            }
            if (pts == 1) { /* a lone point: a short tick, not nothing */
                double y = Y(cols[c0].sum / cols[c0].n);
                cairo_move_to(cr, c->x0 + c0 - 1, y);
                cairo_line_to(cr, c->x0 + c0 + 2, y);
            }
            cairo_stroke(cr);
            for (int ci = c0; ci <= c1; ci++)
                cols[ci].n = 0, cols[ci].sum = 0;
        }
#undef Y
        i = j;
    }
}

/* One panel of metric m: the series of the GPUs at positions [g0, g1) of
 * d->gpu (at most GM_PLOT_PANEL_LINES), on the y scale of all the GPUs
 * shown, so that the panels of one metric compare at a glance. */
static void draw_panel(struct ctx *c, int m, double top, double height, size_t g0, size_t g1)
{
    cairo_t *cr = c->cr;
    const struct gm_plot_data *d = c->d;
    double at = top + 20, ab = top + height - 22; /* the plot area */
    double scale = gm_plot_metrics[m].scale;
    double ymax = 0;
    int any = 0;
    for (size_t i = 0; i < d->ngpu; i++) {
        const struct gm_plot_gpu *g = &d->gpu[i];
        for (size_t k = 0; k < g->n; k++) {
            double v = isnan(g->p[k].hi[m]) ? g->p[k].avg[m] : g->p[k].hi[m];
            if (!isnan(v)) {
                any |= i >= g0 && i < g1;
                if (v * scale > ymax)
                    ymax = v * scale;
            }
        }
        double lim = limit_of(g, m);
        if (!isnan(lim) && lim * scale > ymax)
            ymax = lim * scale;
    }
    if (ymax <= 0)
        ymax = 1;
    struct gm_ticks tk;
    /* percent: always the whole scale; else from 0 to a nice value above
     * the highest (a limit a hair under a tick still gets a line under it) */
    if (m == GM_PM_UTIL || m == GM_PM_MEMUTIL)
        gm_nice_ticks(0, 100, 5, &tk);
    else
        gm_nice_ticks(0, ymax * 1.02, 5, &tk);
    ymax = tk.hi;

    char lab[160];
    int n = snprintf(lab, sizeof lab, "%s (%s)", gm_plot_metrics[m].title, gm_plot_metrics[m].unit);
    if (g1 - g0 < d->ngpu) { /* small multiples: say whose lines these are */
        for (size_t i = g0; i < g1 && n > 0 && (size_t)n < sizeof lab; i++)
            n += snprintf(lab + n, sizeof lab - (size_t)n, "%s%u",
                          i > g0        ? ", "
                          : g1 - g0 > 1 ? " \xE2\x80\x94 GPUs "
                                        : " \xE2\x80\x94 GPU ",
                          d->gpu[i].index);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(c, c->x0, top + 14, 12, 1, 0, lab);

    /* frame, grid and y ticks */
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 1);
    for (int k = 0; k < tk.n; k++) {
        double v = gm_nice_tick(&tk, k);
        double y = floor(ab - v / ymax * (ab - at)) + 0.5;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, c->x0, y);
        cairo_line_to(cr, c->x1, y);
        cairo_stroke(cr);
        char t[32];
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(c, c->x0 - 6, y + 4, 10, 0, 2, gm_nice_label(&tk, v, t, sizeof t));
    }
    time_ticks(c, at, ab, 1);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_rectangle(cr, floor(c->x0) + 0.5, floor(at) + 0.5, floor(c->x1 - c->x0), floor(ab - at));
    cairo_stroke(cr);

    if (!any) {
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
        text_at(c, (c->x0 + c->x1) / 2, (at + ab) / 2, 12, 0, 1,
                m == GM_PM_MEMUTIL && (d->tier == GM_PTIER_1M || d->tier == GM_PTIER_1H)
                    ? "not recorded (the rollups do not keep it)"
                    : "not recorded");
    }

    /* limits: once per distinct value, dashed grey; the value's label at
     * the right, above the line (where the series are not, mostly) or
     * under it when the line is at the top of the panel */
    double shown[64];
    int nshown = 0;
    for (size_t i = g0; i < g1; i++) {
        double lim = limit_of(&d->gpu[i], m);
        if (isnan(lim))
            continue;
        int dup = 0;
        for (int k = 0; k < nshown; k++)
            dup |= fabs(shown[k] - lim) < 1e-9 * (1 + fabs(lim));
        if (dup || nshown == 64)
            continue;
        shown[nshown++] = lim;
        double y = floor(ab - lim * scale / ymax * (ab - at)) + 0.5;
        static const double dl[] = {4, 3};
        cairo_set_dash(cr, dl, 2, 0);
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        cairo_move_to(cr, c->x0, y);
        cairo_line_to(cr, c->x1, y);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (nshown > 1)
            continue; /* a second limit's label would sit on the first one's */
        snprintf(lab, sizeof lab, "%s %.4g %s",
                 m == GM_PM_POWER ? "power limit"
                 : m == GM_PM_MEM ? "memory total"
                                  : "slowdown",
                 lim * scale, gm_plot_metrics[m].unit);
        text_at(c, c->x1 - 4, y - at >= 13 ? y - 3 : y + 11, 9, 0, 2, lab);
    }

    /* the series */
    int ncols = (int)ceil(c->x1 - c->x0);
    struct col *cols = calloc((size_t)ncols + 1, sizeof *cols);
    if (!cols)
        abort();
    cairo_save(cr);
    cairo_rectangle(cr, c->x0, at - 2, c->x1 - c->x0, ab - at + 2);
    cairo_clip(cr);
    for (size_t i = g0; i < g1; i++)
        draw_series(c, &d->gpu[i], i, m, at, ab, ymax, cols, ncols);
    cairo_restore(cr);
    free(cols);

    /* marks (solid, dark grey) and fired alerts (dashed, dark red): their
     * numbers stand in the row above the panels, their text in the key
     * under the chart */
    for (size_t e = 0; e < d->nev; e++) {
        const struct gm_plot_event *ev = &d->ev[e];
        if (ev->t_ns < d->from_ns || ev->t_ns > d->to_ns)
            continue;
        double x = floor(x_of(c, ev->t_ns)) + 0.5;
        static const double da[] = {5, 3};
        if (ev->kind == GM_PE_MARK) {
            cairo_set_dash(cr, NULL, 0, 0);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        } else {
            cairo_set_dash(cr, da, 2, 0);
            cairo_set_source_rgb(cr, 0.6, 0.0, 0.0);
        }
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, x, at);
        cairo_line_to(cr, x, ab);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
}

/* ---- marks and alerts: numbered in a row, listed in a key --------------- */

/* The events in the window, in time order (marks and alerts are read
 * apart); returns how many, *out malloc'ed (free it). */
static size_t events_in_order(const struct gm_plot_data *d, const struct gm_plot_event ***out)
{
    const struct gm_plot_event **v = calloc(d->nev + 1, sizeof(const struct gm_plot_event *));
    if (!v)
        abort();
    size_t n = 0;
    for (size_t e = 0; e < d->nev; e++)
        if (d->ev[e].t_ns >= d->from_ns && d->ev[e].t_ns <= d->to_ns)
            v[n++] = &d->ev[e];
    for (size_t i = 1; i < n; i++) /* insertion sort: stable, and mostly sorted already */
        for (size_t k = i; k > 0 && v[k]->t_ns < v[k - 1]->t_ns; k--) {
            const struct gm_plot_event *t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    *out = v;
    return n;
}

static void badge(struct ctx *c, double x, double y, int alert, const char *s, double w)
{
    cairo_t *cr = c->cr;
    cairo_set_dash(cr, NULL, 0, 0);
    if (alert)
        cairo_set_source_rgb(cr, 0.6, 0.0, 0.0);
    else
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_rectangle(cr, x, y, w, 13);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    text_at(c, x + w / 2, y + 10, 9, 1, 1, s);
}

static double badge_w(struct ctx *c, const char *s)
{
    cairo_select_font_face(c->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(c->cr, 9);
    cairo_text_extents_t e;
    cairo_text_extents(c->cr, s, &e);
    return e.x_advance + 6;
}

/* The row above the panels: each event's number over its line.  Numbers
 * that would touch become one badge ("3-5"), so none overlaps another. */
static void draw_event_row(struct ctx *c, double y)
{
    const struct gm_plot_event **v;
    size_t n = events_in_order(c->d, &v);
    double prev_right = -1e9;
    size_t k = 0;
    while (k < n) {
        /* the cluster [k, j): grows while its badge would reach the next one */
        size_t j = k + 1;
        char lab[48];
        double w, left;
        for (;;) {
            if (j - k == 1)
                snprintf(lab, sizeof lab, "%zu", k + 1);
            else
                snprintf(lab, sizeof lab, "%zu-%zu", k + 1, j);
            w = badge_w(c, lab);
            left = fmax(x_of(c, v[k]->t_ns) - w / 2, fmax(c->x0 - 4, prev_right + 3));
            if (left + w > c->x1 + 4)
                left = c->x1 + 4 - w;
            if (j >= n)
                break;
            char nl[24];
            snprintf(nl, sizeof nl, "%zu", j + 1);
            double nleft = x_of(c, v[j]->t_ns) - badge_w(c, nl) / 2;
            if (nleft >= left + w + 3 && x_of(c, v[j]->t_ns) + badge_w(c, nl) / 2 <= c->x1 + 4)
                break;
            j++;
        }
        int alert = 1;
        for (size_t i = k; i < j; i++)
            alert &= v[i]->kind == GM_PE_ALERT;
        badge(c, left, y, alert, lab, w);
        prev_right = left + w;
        k = j;
    }
    free(v);
}

#define KEY_COL 280 /* the width of one entry of the events' key */
#define KEY_ROW 14
#define KEY_MAX 60 /* entries listed; then "and N more" */

static int key_cols(const struct ctx *c)
{
    int n = (int)floor((c->x1 - c->x0 + 60) / KEY_COL);
    return n < 1 ? 1 : n;
}

static size_t key_entries(const struct gm_plot_data *d)
{
    size_t n = 0;
    for (size_t e = 0; e < d->nev; e++)
        n += d->ev[e].t_ns >= d->from_ns && d->ev[e].t_ns <= d->to_ns;
    return n;
}

static double key_height(const struct ctx *c)
{
    size_t n = key_entries(c->d);
    if (n == 0)
        return 0;
    size_t shown = n > KEY_MAX ? KEY_MAX : n;
    size_t rows = (shown + (size_t)key_cols(c) - 1) / (size_t)key_cols(c);
    return 24 + (double)rows * KEY_ROW + (n > KEY_MAX ? KEY_ROW : 0) + 8;
}

/* Text cut to fit w points (whole UTF-8 characters, then an ellipsis). */
static const char *fit(struct ctx *c, const char *s, double w)
{
    cairo_select_font_face(c->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(c->cr, 10);
    clean(c, s);
    cairo_text_extents_t e;
    cairo_text_extents(c->cr, c->tb.p, &e);
    if (e.x_advance <= w)
        return c->tb.p;
    size_t len = strlen(c->tb.p);
    while (len > 0) {
        do
            len--;
        while (len > 0 && ((unsigned char)c->tb.p[len] & 0xC0) == 0x80);
        c->tb.len = len;
        gm_buf_puts(&c->tb, "\xE2\x80\xA6");
        gm_buf_putc(&c->tb, '\0');
        cairo_text_extents(c->cr, c->tb.p, &e);
        if (e.x_advance <= w)
            break;
    }
    return c->tb.p;
}

/* The key of marks and alerts: number, time, text; in columns. */
static void draw_event_key(struct ctx *c, double top)
{
    const struct gm_plot_event **v;
    size_t n = events_in_order(c->d, &v);
    if (n == 0) {
        free(v);
        return;
    }
    cairo_set_source_rgb(c->cr, 0, 0, 0);
    text_at(c, c->x0, top + 14, 12, 1, 0, "Marks (solid grey lines) and fired alerts (dashed red)");
    int cols = key_cols(c);
    size_t shown = n > KEY_MAX ? KEY_MAX : n;
    size_t rows = (shown + (size_t)cols - 1) / (size_t)cols;
    for (size_t i = 0; i < shown; i++) {
        size_t col = i / rows, row = i % rows; /* filled down, then across */
        double x = c->x0 + (double)col * KEY_COL, y = top + 24 + (double)row * KEY_ROW;
        char num[24], when[24];
        snprintf(num, sizeof num, "%zu", i + 1);
        double w = badge_w(c, num);
        badge(c, x, y, v[i]->kind == GM_PE_ALERT, num, w);
        time_t s = (time_t)(v[i]->t_ns / NS) + (time_t)utc_offset(c, v[i]->t_ns);
        struct tm tm;
        gmtime_r(&s, &tm);
        strftime(when, sizeof when,
                 c->d->to_ns - c->d->from_ns > 86400 * NS ? "%b %d %H:%M" : "%H:%M:%S", &tm);
        char lab[220];
        snprintf(lab, sizeof lab, "%s %s%s", when, v[i]->kind == GM_PE_ALERT ? "alert " : "",
                 v[i]->text);
        double tx = x + w + 4;
        const char *t = fit(c, lab, KEY_COL - (tx - x) - 10);
        cairo_set_source_rgb(c->cr, 0.1, 0.1, 0.1);
        cairo_move_to(c->cr, tx, y + 10);
        cairo_show_text(c->cr, t);
    }
    if (n > KEY_MAX) {
        char more[64];
        snprintf(more, sizeof more, "and %zu more (gpumon report lists them all)", n - KEY_MAX);
        cairo_set_source_rgb(c->cr, 0.35, 0.35, 0.35);
        text_at(c, c->x0, top + 24 + (double)rows * KEY_ROW + 10, 10, 0, 0, more);
    }
    free(v);
}

/* The throttle strip: a row per GPU, shaded by reason where known. */
static void draw_strip(struct ctx *c, double top)
{
    cairo_t *cr = c->cr;
    const struct gm_plot_data *d = c->d;
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(c, c->x0, top + 14, 12, 1, 0, "Clocks held down (throttle reasons)");
    double y = top + 20;
    for (size_t i = 0; i < d->ngpu; i++) {
        const struct gm_plot_gpu *g = &d->gpu[i];
        if (i)
            y += STRIP_ROW + 2;
        char lab[32];
        snprintf(lab, sizeof lab, "GPU %u", g->index);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(c, c->x0 - 6, y + STRIP_ROW - 2, 9, 0, 2, lab);
        cairo_set_source_rgb(cr, 0.96, 0.96, 0.96);
        cairo_rectangle(cr, c->x0, y, c->x1 - c->x0, STRIP_ROW);
        cairo_fill(cr);
        int64_t half = d->tier == GM_PTIER_1M || d->tier == GM_PTIER_1H ? 0 : g->step_ns / 2;
        for (size_t k = 0; k < g->n; k++) {
            const struct gm_plot_point *p = &g->p[k];
            if (p->down || p->throttle <= 0)
                continue;
            int64_t end = k + 1 < g->n && g->p[k + 1].t_ns - p->t_ns <= 3 * g->step_ns
                              ? g->p[k + 1].t_ns
                              : p->t_ns + g->step_ns;
            double xa = x_of(c, p->t_ns - half), xb = x_of(c, end - half);
            xa = fmax(xa, c->x0);
            xb = fmin(fmax(xb, xa + 1), c->x1);
            int nb = __builtin_popcount((unsigned)p->throttle), b = 0;
            for (int r = 0; r < GM_PT__COUNT; r++) {
                if (!(p->throttle & (1 << r)))
                    continue;
                set_col(cr, thr_col[r], 0.85);
                cairo_rectangle(cr, xa, y + (double)STRIP_ROW * b / nb, xb - xa,
                                (double)STRIP_ROW / nb);
                cairo_fill(cr);
                b++;
            }
        }
    }
    if (d->ngpu)
        y += STRIP_ROW + 2; /* below the last row */
    time_ticks(c, top + 20, y, 1);
    /* the key, under the time labels (which reach 13 below the rows) */
    double x = c->x0;
    y += 32;
    for (int r = 0; r < GM_PT__COUNT; r++) {
        set_col(cr, thr_col[r], 0.85);
        cairo_rectangle(cr, x, y - 9, 14, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        text_at(c, x + 18, y, 10, 0, 0, gm_plot_throttle_names[r]);
        x += 110;
    }
}

static double strip_height(const struct gm_plot_data *d)
{
    return 20 + (double)d->ngpu * (STRIP_ROW + 2) + 44;
}

static void draw_legend(struct ctx *c, double y)
{
    cairo_t *cr = c->cr;
    double x = c->x0;
    char lab[200];
    for (size_t i = 0; i < c->d->ngpu; i++) {
        const struct gm_plot_gpu *g = &c->d->gpu[i];
        gpu_style(cr, i);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, x, y - 4);
        cairo_line_to(cr, x + 24, y - 4);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        snprintf(lab, sizeof lab, "GPU %u%s%.40s", g->index, g->name[0] ? " " : "", g->name);
        text_at(c, x + 28, y, 10, 0, 0, lab);
        cairo_text_extents_t e;
        cairo_text_extents(cr, c->tb.p, &e);
        x += 28 + e.x_advance + 16;
        if (x > c->x1 - 150) {
            x = c->x0;
            y += 14;
        }
    }
}

static double legend_height(const struct ctx *c)
{
    /* a row per five GPUs is enough at the default width */
    double per_row = fmax(1, floor((c->x1 - c->x0) / 230));
    return LEGEND_H + 14 * floor((double)(c->d->ngpu > 0 ? c->d->ngpu - 1 : 0) / per_row);
}

/* Panels per metric: GPUs in groups of at most GM_PLOT_PANEL_LINES. */
static size_t groups(const struct gm_plot_data *d)
{
    return d->ngpu == 0 ? 1 : (d->ngpu + GM_PLOT_PANEL_LINES - 1) / GM_PLOT_PANEL_LINES;
}

static void draw(struct ctx *c)
{
    cairo_t *cr = c->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(c, c->x0, 22, 15, 1, 0, c->o->title ? c->o->title : "gpumon plot");
    static const char *tiers[] = {"raw samples", "1-minute rollups (min/avg/max)",
                                  "1-hour rollups (min/avg/max)", "CSV log"};
    char lab[160];
    snprintf(lab, sizeof lab, "%s; times %s", tiers[c->d->tier], c->o->utc ? "UTC" : "local");
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    text_at(c, c->x1, 22, 10, 0, 2, lab);
    draw_legend(c, TITLE_H + 12);
    double y = TITLE_H + legend_height(c);
    draw_event_row(c, y + 2);
    y += EVENT_ROW_H;
    /* groups of GPUs in the order of d->gpu, balanced (7 GPUs: 4 and 3) */
    size_t ng = groups(c->d), per = ng ? (c->d->ngpu + ng - 1) / ng : 0;
    for (int m = 0; m < GM_PM__COUNT; m++) {
        if (!(c->o->metrics & (1u << m)))
            continue;
        for (size_t g = 0; g < ng; g++) {
            size_t g0 = g * per, g1 = g0 + per < c->d->ngpu ? g0 + per : c->d->ngpu;
            draw_panel(c, m, y, c->o->panel_height, g0, g1);
            y += c->o->panel_height;
        }
    }
    draw_strip(c, y);
    y += strip_height(c->d);
    draw_event_key(c, y);
}

/* ---- output ------------------------------------------------------------- */

struct sink {
    int fd;
    int err; /* errno of the first failed write */
};

static cairo_status_t write_fd(void *closure, const unsigned char *data, unsigned int len)
{
    struct sink *s = closure;
    while (len > 0) {
        ssize_t n = write(s->fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->err = n < 0 ? errno : EIO;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        data += n;
        len -= (unsigned int)n;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int render(const struct gm_plot_data *d, const struct gm_plot_opts *o, int fd,
                  struct gm_err *err)
{
    struct ctx c = {.d = d, .o = o, .tb = GM_BUF_INIT};
    c.x0 = GM_PLOT_LEFT;
    c.x1 = o->width - GM_PLOT_RIGHT;
    int np = 0;
    for (int m = 0; m < GM_PM__COUNT; m++)
        np += !!(o->metrics & (1u << m));
    double height = TITLE_H + legend_height(&c) + EVENT_ROW_H +
                    (double)np * (double)groups(d) * o->panel_height + strip_height(d) +
                    key_height(&c);
    int h = (int)ceil(height);
    struct sink sk = {fd, 0};
    cairo_surface_t *sf;
    if (o->format == GM_PLOT_SVG)
        sf = cairo_svg_surface_create_for_stream(write_fd, &sk, o->width, h);
    else if (o->format == GM_PLOT_PDF)
        sf = cairo_pdf_surface_create_for_stream(write_fd, &sk, o->width, h);
    else
        sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o->width, h);
    c.cr = cairo_create(sf);
    draw(&c);
    cairo_status_t st = cairo_status(c.cr);
    cairo_destroy(c.cr);
    if (st == CAIRO_STATUS_SUCCESS && o->format == GM_PLOT_PNG)
        st = cairo_surface_write_to_png_stream(sf, write_fd, &sk);
    cairo_surface_finish(sf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(sf);
    cairo_surface_destroy(sf);
    gm_buf_free(&c.tb);
    if (sk.err)
        return gm_err_set(err, sk.err == ENOSPC ? GM_E_NOSPC : GM_E_IO, "cannot write: %s",
                          strerror(sk.err));
    if (st != CAIRO_STATUS_SUCCESS)
        return gm_err_set(err, GM_E_IO, "cannot draw: %s", cairo_status_to_string(st));
    return 0;
}

__attribute__((visibility("default")))
const struct gm_plot_module gm_plot_module = {GM_PLOT_MODULE_ABI, render};

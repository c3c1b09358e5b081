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
#include "../core/text.h"
#include "plot.h"

#define NS 1000000000LL
#define TITLE_H 34
#define LEGEND_H 26
#define STRIP_ROW 12

struct rgb {
    double r, g, b;
};

/* Okabe-Ito, most distinct first; black last (marks are dark grey). */
static const struct rgb palette[] = {
    {0.902, 0.624, 0.000}, /* orange */
    {0.337, 0.706, 0.914}, /* sky blue */
    {0.000, 0.620, 0.451}, /* bluish green */
    {0.000, 0.447, 0.698}, /* blue */
    {0.835, 0.369, 0.000}, /* vermillion */
    {0.800, 0.475, 0.655}, /* reddish purple */
    {0.941, 0.894, 0.259}, /* yellow */
    {0.000, 0.000, 0.000}, /* black */
};
#define NPAL (sizeof palette / sizeof palette[0])

/* Dash patterns (after 8 GPUs the colours repeat with the next pattern). */
static const double dash_pat[][4] = {
    {0, 0, 0, 0}, {6, 3, 0, 0}, {1.5, 2.5, 0, 0}, {7, 2.5, 1.5, 2.5}, {12, 4, 0, 0},
};
static const int dash_n[] = {0, 2, 2, 4, 2};
#define NDASH (sizeof dash_n / sizeof dash_n[0])

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

static void gpu_style(cairo_t *cr, size_t i)
{
    set_col(cr, palette[i % NPAL], 1);
    size_t k = (i + i / NPAL) % NDASH;
    cairo_set_dash(cr, dash_pat[k], dash_n[k], 0);
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

static double nice_step(double range, int n)
{
    double raw = range / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

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
            set_col(cr, palette[gi % NPAL], 0.28);
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

static void draw_panel(struct ctx *c, int m, double top, double height, int first)
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
                any = 1;
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
    double ystep = nice_step(ymax, 4);
    ymax = ceil(ymax * 1.04 / ystep) * ystep;
    if (m == GM_PM_UTIL || m == GM_PM_MEMUTIL) { /* percent: always the whole scale */
        ymax = 100;
        ystep = 25;
    }

    char lab[160];
    snprintf(lab, sizeof lab, "%s (%s)", gm_plot_metrics[m].title, gm_plot_metrics[m].unit);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(c, c->x0, top + 14, 12, 1, 0, lab);

    /* frame, grid and y ticks */
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 1);
    int nticks = (int)floor(ymax / ystep + 0.5);
    for (int k = 0; k <= nticks; k++) {
        double v = k * ystep;
        double y = floor(ab - v / ymax * (ab - at)) + 0.5;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, c->x0, y);
        cairo_line_to(cr, c->x1, y);
        cairo_stroke(cr);
        char t[32];
        snprintf(t, sizeof t, "%g", v);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(c, c->x0 - 6, y + 4, 10, 0, 2, t);
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

    /* limits: once per distinct value, dashed grey with its value */
    double shown[64];
    int nshown = 0;
    for (size_t i = 0; i < d->ngpu; i++) {
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
        snprintf(lab, sizeof lab, "%s %.4g %s",
                 m == GM_PM_POWER ? "power limit"
                 : m == GM_PM_MEM ? "memory total"
                                  : "slowdown",
                 lim * scale, gm_plot_metrics[m].unit);
        text_at(c, c->x1 - 4, y - 3, 9, 0, 2, lab);
    }

    /* the series */
    int ncols = (int)ceil(c->x1 - c->x0);
    struct col *cols = calloc((size_t)ncols + 1, sizeof *cols);
    if (!cols)
        abort();
    cairo_save(cr);
    cairo_rectangle(cr, c->x0, at - 2, c->x1 - c->x0, ab - at + 2);
    cairo_clip(cr);
    for (size_t i = 0; i < d->ngpu; i++)
        draw_series(c, &d->gpu[i], i, m, at, ab, ymax, cols, ncols);
    cairo_restore(cr);
    free(cols);

    /* marks (solid, dark grey) and fired alerts (dashed, dark red); their
     * text in the top panel only, and only where it does not overwrite the
     * previous one (a month of marks would be a wall of text) */
    double last_label = -1e9;
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
        if (!first || x - last_label < 12)
            continue;
        last_label = x;
        snprintf(lab, sizeof lab, "%s%.150s", ev->kind == GM_PE_MARK ? "" : "alert: ", ev->text);
        cairo_save(cr);
        cairo_translate(cr, x + 3, at + 3);
        cairo_rotate(cr, M_PI / 2);
        text_at(c, 0, 0, 9, 0, 0, lab);
        cairo_restore(cr);
    }
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
    /* the key */
    double x = c->x0;
    y += 22;
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
    return 20 + (double)d->ngpu * (STRIP_ROW + 2) + 34;
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

static void draw(struct ctx *c, double height)
{
    cairo_t *cr = c->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(c, c->x0, 22, 15, 1, 0, c->o->title ? c->o->title : "gpumon plot");
    static const char *tiers[] = {"raw samples", "1-minute rollups (min/avg/max)",
                                  "1-hour rollups (min/avg/max)", "CSV log"};
    char lab[160];
    snprintf(lab, sizeof lab, "%s; times %s; marks solid grey, fired alerts dashed red",
             tiers[c->d->tier], c->o->utc ? "UTC" : "local");
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    text_at(c, c->x1, 22, 10, 0, 2, lab);
    draw_legend(c, TITLE_H + 12);
    double y = TITLE_H + legend_height(c);
    int k = 0;
    for (int m = 0; m < GM_PM__COUNT; m++) {
        if (!(c->o->metrics & (1u << m)))
            continue;
        draw_panel(c, m, y, c->o->panel_height, k++ == 0);
        y += c->o->panel_height;
    }
    draw_strip(c, y);
    (void)height;
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
    double height = TITLE_H + legend_height(&c) + np * o->panel_height + strip_height(d);
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
    draw(&c, height);
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

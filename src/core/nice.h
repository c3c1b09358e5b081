/* nice.h -- what every chart of gpumon shares: axis ticks at "nice" values
 * (1, 2 or 5 times a power of ten) and the series palette (colour and dash
 * per line).  `gpumon plot` (view/plot_draw.c) and `gpumon report --html`
 * (view/report_html.c) call these; the live page's script
 * (export/static/live.js) mirrors them line for line, and
 * tests/e2e/live_page.py compares its ticks with the table in
 * tests/unit/test_nice.c.  No drawing here, no I/O.
 */
#ifndef GM_CORE_NICE_H
#define GM_CORE_NICE_H

#include <stddef.h>

/* An axis: ticks at lo, lo + step, ..., hi (n of them, n >= 2). */
struct gm_ticks {
    double lo, hi, step;
    int n;
};

/* The ticks of an axis that shows [min, max] with at most max_steps steps
 * between ticks (at least 1): the smallest 1-2-5 step that covers the
 * range in that many steps, lo and hi on multiples of it.  An empty range
 * (max <= min, or not finite) gets an axis around it (0..1 for 0).  The
 * values are rounded to the step's digits, so 0.1 + 0.2 shows as 0.3. */
void gm_nice_ticks(double min, double max, int max_steps, struct gm_ticks *t);

/* Tick k (0 .. t->n - 1) of t. */
double gm_nice_tick(const struct gm_ticks *t, int k);

/* Writes v as a tick label: rounded to t's step, in its shortest form as
 * JavaScript's String() writes it ("0.5", "1", "2000", never "1.0000001"
 * or "-0"); returns buf. */
const char *gm_nice_label(const struct gm_ticks *t, double v, char *buf, size_t len);

/* The series palette: Okabe and Ito's colour-blind-safe colours, their
 * yellow darkened (#F0E442 nearly vanishes on white), in the order that
 * keeps the first four (one panel of `plot`) the most distinct. */
#define GM_PALETTE_N 8
struct gm_colour {
    const char *hex; /* "#0072B2" */
    double r, g, b;  /* 0..1 */
    const char *name;
};
extern const struct gm_colour gm_palette[GM_PALETTE_N];

/* Dash patterns (lengths in units of the line's width 1.6 px): solid,
 * dashed, dotted, dash-dot.  The SVG form is a stroke-dasharray ("" for
 * solid). */
#define GM_DASH_N 4
struct gm_dash {
    int n;
    double len[4];
    const char *svg;
};
extern const struct gm_dash gm_dashes[GM_DASH_N];

/* The style of series i (the i-th line of a chart, 0-based): its colour
 * and dash.  Eight lines have eight colours; each has a dash as well
 * (i mod 4), and after eight the colours repeat with another dash. */
const struct gm_colour *gm_series_colour(size_t i);
const struct gm_dash *gm_series_dash(size_t i);

#endif /* GM_CORE_NICE_H */

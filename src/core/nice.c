/* nice.c -- nice axis ticks and the series palette (see nice.h).
 *
 * The step is searched, not computed from a logarithm alone: the first of
 * 1, 2, 5 times 10^k (k from the range's magnitude down one) whose
 * multiples cover [min, max] in at most max_steps steps.  Rounding the
 * range's ends outwards to the step is what makes the last tick as nice as
 * the first (a max of 82.5 gets an axis to 100 by 20 or 90 by 10, not a
 * tick at 82.5).  static/live.js has the same function (niceTicks).
 */
#include "nice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const struct gm_colour gm_palette[GM_PALETTE_N] = {
    {"#0072B2", 0.000, 0.447, 0.698, "blue"},
    {"#E69F00", 0.902, 0.624, 0.000, "orange"},
    {"#009E73", 0.000, 0.620, 0.451, "bluish green"},
    {"#CC79A7", 0.800, 0.475, 0.655, "reddish purple"},
    {"#56B4E9", 0.337, 0.706, 0.914, "sky blue"},
    {"#D55E00", 0.835, 0.369, 0.000, "vermillion"},
    {"#000000", 0.000, 0.000, 0.000, "black"},
    {"#A08A00", 0.627, 0.541, 0.000, "dark yellow"},
};

const struct gm_dash gm_dashes[GM_DASH_N] = {
    {0, {0, 0, 0, 0}, ""},
    {2, {6, 3, 0, 0}, "6 3"},
    {2, {1.5, 2.5, 0, 0}, "1.5 2.5"},
    {4, {7, 2.5, 1.5, 2.5}, "7 2.5 1.5 2.5"},
};

const struct gm_colour *gm_series_colour(size_t i)
{
    return &gm_palette[i % GM_PALETTE_N];
}

const struct gm_dash *gm_series_dash(size_t i)
{
    return &gm_dashes[(i + i / GM_PALETTE_N) % GM_DASH_N];
}

/* v rounded to the step's decimals (a step of 0.2: one decimal). */
static double snap(double v, double step)
{
    double q = round(v / step) * step;
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    double p = pow(10, dec);
    q = round(q * p) / p;
    return q == 0 ? 0 : q; /* no "-0" */
}

void gm_nice_ticks(double min, double max, int max_steps, struct gm_ticks *t)
{
    if (max_steps < 1)
        max_steps = 1;
    if (!isfinite(min) || !isfinite(max)) {
        min = 0;
        max = 1;
    }
    if (max < min) {
        double x = min;
        min = max;
        max = x;
    }
    if (max == min) {
        double a = fabs(min);
        if (a == 0) {
            max = 1;
        } else {
            min -= a / 10;
            max += a / 10;
        }
    }
    double range = max - min;
    int e = (int)floor(log10(range / max_steps)) - 1;
    static const double f[] = {1, 2, 5};
    for (;; e++) {
        for (int k = 0; k < 3; k++) {
            double step = f[k] * pow(10, e);
            double lo = floor(min / step + 1e-9), hi = ceil(max / step - 1e-9);
            if (hi - lo <= max_steps) {
                if (hi == lo)
                    hi = lo + 1;
                t->step = snap(step, step);
                t->lo = snap(lo * step, step);
                t->hi = snap(hi * step, step);
                t->n = (int)(hi - lo) + 1;
                return;
            }
        }
    }
}

double gm_nice_tick(const struct gm_ticks *t, int k)
{
    return snap(t->lo + k * t->step, t->step);
}

const char *gm_nice_label(const struct gm_ticks *t, double v, char *buf, size_t len)
{
    int dec = t->step >= 1 ? 0 : (int)ceil(-log10(t->step) - 1e-9);
    snprintf(buf, len, "%.*f", dec, snap(v, t->step));
    /* the shortest form, as JavaScript's String(v) writes it: "1", not "1.0" */
    if (dec > 0 && len > 0) {
        size_t n = strlen(buf);
        while (n > 0 && buf[n - 1] == '0')
            buf[--n] = '\0';
        if (n > 0 && buf[n - 1] == '.')
            buf[--n] = '\0';
    }
    return buf;
}

/* window.c -- bucketed history of one value for window functions (see
 * window.h).
 *
 * Times inside a run are seconds since the run's first sample and values
 * are differences from its first value, so that the sums of squares keep
 * their precision (memory in bytes squared is 1e21).
 */
#include "window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/err.h"

struct bucket {
    int64_t k;       /* bucket number since the run's start */
    int64_t t_first; /* ns: the first sample in it */
    double n, st, sv, svv, stv, stt, min, max;
};

struct gm_window {
    int64_t bucket_ns;
    int64_t t0;     /* ns: the run's first sample; 0 with no run */
    double v0;      /* the run's first value */
    int64_t t_last; /* ns: the latest sample */
    int64_t dt_min; /* the run's shortest interval; 0 before the second sample */
    int have;       /* a run is under way */
    int head, len, cap;
    struct bucket *b;
};

static const char *const names[GM_WF__END] = {
    [GM_WF_AVG] = "avg",       [GM_WF_MIN] = "min",     [GM_WF_MAX] = "max",
    [GM_WF_STDDEV] = "stddev", [GM_WF_SLOPE] = "slope", [GM_WF_PREDICT] = "predict",
};

const char *gm_window_fn_name(int fn)
{
    return fn > 0 && fn < GM_WF__END ? names[fn] : NULL;
}

int gm_window_fn_lookup(const char *name, size_t len)
{
    for (int i = 1; i < GM_WF__END; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], name, len))
            return i;
    return -1;
}

struct gm_window *gm_window_new(int64_t bucket_ns)
{
    struct gm_window *w = gm_xrealloc(NULL, sizeof(*w));
    memset(w, 0, sizeof(*w));
    w->bucket_ns = bucket_ns > 0 ? bucket_ns : 1;
    return w;
}

void gm_window_free(struct gm_window *w)
{
    if (!w)
        return;
    free(w->b);
    free(w);
}

size_t gm_window_bucket_size(void)
{
    return sizeof(struct bucket);
}

int gm_window_len(const struct gm_window *w)
{
    return w->len;
}

static struct bucket *at(const struct gm_window *w, int i)
{
    return &w->b[(w->head + i) % w->cap];
}

static void push(struct gm_window *w, const struct bucket *nb)
{
    if (!w->b || w->len == w->cap) {
        if (w->b && w->cap >= GM_WINDOW_BUCKETS + 2) { /* full: the oldest goes */
            w->head = (w->head + 1) % w->cap;
            w->len--;
        } else {
            int ncap = w->cap ? w->cap * 2 : 16;
            if (ncap > GM_WINDOW_BUCKETS + 2)
                ncap = GM_WINDOW_BUCKETS + 2;
            struct bucket *nbuf = gm_xrealloc(NULL, (size_t)ncap * sizeof(*nbuf));
            for (int i = 0; i < w->len; i++)
                nbuf[i] = *at(w, i);
            free(w->b);
            w->b = nbuf;
            w->cap = ncap;
            w->head = 0;
        }
    }
    w->b[(w->head + w->len) % w->cap] = *nb;
    w->len++;
}

void gm_window_add(struct gm_window *w, int64_t t_ns, int ok, double v, int64_t keep_ns)
{
    if (!ok || !isfinite(v)) {
        w->have = 0;
        w->len = 0;
        w->head = 0;
        return;
    }
    if (w->have) {
        int64_t dt = t_ns - w->t_last;
        /* a gap: time went back, or two samples in a row are missing */
        if (dt <= 0 || (w->dt_min && dt * 2 > w->dt_min * 5))
            w->have = 0;
        else if (!w->dt_min || dt < w->dt_min)
            w->dt_min = dt;
    }
    if (!w->have) {
        w->have = 1;
        w->t0 = t_ns;
        w->v0 = v;
        w->dt_min = 0;
        w->len = 0;
        w->head = 0;
    }
    w->t_last = t_ns;
    int64_t k = (t_ns - w->t0) / w->bucket_ns;
    double t = (double)(t_ns - w->t0) / 1e9, x = v - w->v0;
    struct bucket *last = w->len ? at(w, w->len - 1) : NULL;
    if (!last || last->k != k) {
        struct bucket nb = {.k = k, .t_first = t_ns, .min = v, .max = v};
        push(w, &nb);
        last = at(w, w->len - 1);
    }
    last->n += 1;
    last->st += t;
    last->sv += x;
    last->svv += x * x;
    last->stv += t * x;
    last->stt += t * t;
    if (v < last->min)
        last->min = v;
    if (v > last->max)
        last->max = v;
    /* forget buckets that ended before anything a window can reach */
    while (w->len > 1) {
        const struct bucket *f = at(w, 0);
        if (w->t0 + (f->k + 1) * w->bucket_ns >= t_ns - keep_ns)
            break;
        w->head = (w->head + 1) % w->cap;
        w->len--;
    }
}

int gm_window_eval(const struct gm_window *w, int fn, int64_t window_ns, int64_t horizon_ns,
                   double *out)
{
    if (!w->have || !w->len || w->t_last - w->t0 < window_ns / 2)
        return -1;
    double n = 0, st = 0, sv = 0, svv = 0, stv = 0, stt = 0, mn = 0, mx = 0;
    for (int i = w->len - 1; i >= 0; i--) {
        const struct bucket *b = at(w, i);
        if (b->t_first < w->t_last - window_ns)
            break;
        if (n == 0 || b->min < mn)
            mn = b->min;
        if (n == 0 || b->max > mx)
            mx = b->max;
        n += b->n;
        st += b->st;
        sv += b->sv;
        svv += b->svv;
        stv += b->stv;
        stt += b->stt;
    }
    if (n == 0)
        return -1;
    double mean = sv / n;
    /* a flat window is flat: no rounding left over from the sums may make
     * `slope(x) > 0` or `stddev(x) > 0` true on values that never moved */
    int flat = mn == mx;
    switch (fn) {
    case GM_WF_AVG:
        *out = w->v0 + mean;
        return 0;
    case GM_WF_MIN:
        *out = mn;
        return 0;
    case GM_WF_MAX:
        *out = mx;
        return 0;
    case GM_WF_STDDEV: {
        if (n < 2)
            return -1;
        double var = svv / n - mean * mean;
        *out = var > 0 && !flat ? sqrt(var) : 0;
        return 0;
    }
    case GM_WF_SLOPE:
    case GM_WF_PREDICT: {
        double sxx = stt - st * st / n, sxy = stv - st * sv / n;
        if (n < 2 || !(sxx > 1e-9))
            return -1;
        double b = flat ? 0 : sxy / sxx; /* per second */
        if (fn == GM_WF_SLOPE) {
            *out = b * 60;
            return 0;
        }
        double tq = (double)(w->t_last - w->t0) / 1e9 + (double)horizon_ns / 1e9;
        *out = w->v0 + mean + b * (tq - st / n);
        return 0;
    }
    default:
        return -1;
    }
}

/* window.h -- the recent history of one value of one GPU, for the window
 * functions of alert conditions (avg, min, max, stddev, slope, predict).
 *
 * A series keeps time-ordered buckets of a fixed width.  Each bucket holds
 * the count, sums (t, v, v*v, t*v, t*t), minimum and maximum of the samples
 * that fell into it, so every window function is exact over whole buckets:
 * the average is the samples' average, stddev the samples' population
 * standard deviation, slope the least-squares fit through the samples.  The
 * engine chooses the width as the longest window the rules use on this
 * value divided by GM_WINDOW_BUCKETS, so a series never holds more than
 * GM_WINDOW_BUCKETS + 2 buckets, whatever the sampling interval: where the
 * interval is longer than a bucket each sample has its own bucket and
 * nothing is merged.
 *
 * A series is one unbroken run of samples.  A sample that is not known, a
 * sample that comes at or before the previous one, or one that comes more
 * than 2.5 times the run's shortest interval after the previous one (two
 * samples missed in a row) restarts the run: what came before the gap is
 * forgotten, and the windows are unknown again until the new run covers
 * half their length.
 *
 * Not thread-safe: the engine serialises access.
 */
#ifndef GM_ALERT_WINDOW_H
#define GM_ALERT_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#define GM_WINDOW_BUCKETS 1000

/* Window functions (struct gm_rule_node.fn); 0 = the current value. */
enum gm_window_fn {
    GM_WF_NONE = 0,
    GM_WF_AVG,
    GM_WF_MIN,
    GM_WF_MAX,
    GM_WF_STDDEV,
    GM_WF_SLOPE,   /* least-squares rate, per minute */
    GM_WF_PREDICT, /* the least-squares line's value `horizon` after the latest sample */
    GM_WF__END
};

/* "avg", "min", ... ; NULL for GM_WF_NONE or an unknown id. */
const char *gm_window_fn_name(int fn);
/* The id of a function name, or -1. */
int gm_window_fn_lookup(const char *name, size_t len);

struct gm_window;

/* A new, empty series whose buckets are bucket_ns wide (at least 1). */
struct gm_window *gm_window_new(int64_t bucket_ns);
void gm_window_free(struct gm_window *w);

/* Adds a sample at t_ns.  ok == 0 (the value is not known) empties the
 * series; so does a gap (see above), after which v starts the new run.
 * keep_ns: buckets that end more than keep_ns before t_ns are dropped. */
void gm_window_add(struct gm_window *w, int64_t t_ns, int ok, double v, int64_t keep_ns);

/* The function over the samples taken in [t_ns - window_ns, t_ns], where
 * t_ns is the latest sample's time.  Returns 0 with *out set, or -1 when
 * it is not known: the run started less than window_ns / 2 before its
 * latest sample, or (stddev, slope, predict) it holds fewer than two
 * samples at different times. */
int gm_window_eval(const struct gm_window *w, int fn, int64_t window_ns, int64_t horizon_ns,
                   double *out);

/* The number of buckets held now, and the bytes one takes (docs). */
int gm_window_len(const struct gm_window *w);
size_t gm_window_bucket_size(void);

#endif /* GM_ALERT_WINDOW_H */

/* dg_history.h -- the agent's history (store/history.h rows) handed to the
 * detectors (insight/diagnose.h): what `gpumon diagnose --since/--csv` and
 * the HTML report (`gpumon report --html`) both do.
 *
 * Rows arrive per part of the history (several CSV files may come in any
 * order, the store gives its coarser tiers first), so they are collected
 * and added per GPU in time order by gm_dg_feed_flush.  A row where the GPU
 * was lost is a "lost" point; an unreadable one is no point (a gap).
 */
#ifndef GM_VIEW_DG_HISTORY_H
#define GM_VIEW_DG_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "../insight/diagnose.h"
#include "../store/history.h"

struct gm_dg_feed {
    struct gm_dg *d; /* borrowed */
    struct gm_dg_feed_pt {
        uint32_t gpu;
        struct gm_dg_point p;
    } * v;
    size_t n, cap;
};

/* A gm_hist_fn: arg is a struct gm_dg_feed whose d is set.  Declares the
 * row's GPU (uuid, name, job) and keeps its point.  Always returns 0. */
int gm_dg_feed_row(void *arg, const struct gm_hist_row *r);

/* Adds the kept points to f->d per GPU in time order and empties f. */
void gm_dg_feed_flush(struct gm_dg_feed *f);

/* Empties f without adding (on an error). */
void gm_dg_feed_discard(struct gm_dg_feed *f);

#endif /* GM_VIEW_DG_HISTORY_H */

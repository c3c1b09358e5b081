/* plot.h -- `gpumon plot`: drawing a window of history as a chart
 * (contract for cmd_plot.c; docs/plot.md).
 *
 * The drawing lives in a loadable module, gpumon_plot.so, so that cairo is
 * loaded only by `gpumon plot` and every other command starts as fast as
 * it did (as gpumon_top.so does for ncurses; see top.h).  plot_load.c finds
 * the module (beside the binary, $GPUMON_PLOT_MODULE, or the installed
 * copy) and forwards gm_plot_render() to it.  What is drawn comes from
 * store/plotdata.h; the module only draws.
 *
 * Geometry, fixed so that a test can find a time's pixel column: the plot
 * area of every panel spans x from GM_PLOT_LEFT to width - GM_PLOT_RIGHT,
 * from_ns at the left edge and to_ns at the right one.
 */
#ifndef GM_VIEW_PLOT_H
#define GM_VIEW_PLOT_H

#include <stdint.h>

#include "../core/err.h"
#include "../store/plotdata.h"

enum { GM_PLOT_PNG, GM_PLOT_SVG, GM_PLOT_PDF };

#define GM_PLOT_LEFT 90
#define GM_PLOT_RIGHT 30

/* The most GPUs' lines in one panel: more GPUs get more panels per metric
 * (small multiples of at most this many lines each). */
#define GM_PLOT_PANEL_LINES 4

struct gm_plot_opts {
    int format;        /* GM_PLOT_* */
    unsigned metrics;  /* bits (1 << GM_PM_*), in GM_PM order top to bottom */
    int width;         /* pixels (PNG) or points (SVG, PDF) */
    int panel_height;  /* of each metric's panel */
    const char *title; /* hostile text: the host name and window, escaped by the module */
    int utc;           /* 1: the time axis in UTC, else local time */
};

/* Draws d into the file descriptor fd (written from its current offset,
 * not closed).  Returns 0, or a GM_E code with err saying what failed. */
int gm_plot_render(const struct gm_plot_data *d, const struct gm_plot_opts *o, int fd,
                   struct gm_err *err);

/* The module's one export. */
#define GM_PLOT_MODULE_ABI 1
struct gm_plot_module {
    int abi; /* GM_PLOT_MODULE_ABI */
    int (*render)(const struct gm_plot_data *d, const struct gm_plot_opts *o, int fd,
                  struct gm_err *err);
};

#endif /* GM_VIEW_PLOT_H */

/* top.h -- `gpumon top`, the full-screen view (contract for cmd_top.c).
 *
 * The view lives in a loadable module, gpumon_top.so, so that ncursesw is
 * loaded only by `gpumon top` and every other command starts as fast as it
 * did (the exporter's module does the same; see src/export/module.h).
 * top_load.c finds the module (beside the binary, $GPUMON_TOP_MODULE, or
 * the installed copy) and forwards gm_top_run() to it.  What the view shows
 * is decided in top_model.h; top_ui.c and top_draw.c only paint and read
 * keys.
 */
#ifndef GM_VIEW_TOP_H
#define GM_VIEW_TOP_H

#include <stdint.h>

#include "../core/err.h"

struct gm_top_opts {
    int64_t interval_ns;   /* refresh (sampling) interval */
    int64_t span_ns;       /* initial chart span */
    int readonly;          /* no signals */
    int ascii;             /* no UTF-8 drawing characters */
    int color;             /* 1 colour, 0 monochrome, -1 auto */
    const char *ids;       /* -i: only these GPUs, or NULL */
    const char *lib_path;  /* NULL: the default NVML library */
    const char *proc_root; /* NULL: "/proc" */
    const char *job;       /* --job: the process table's job filter, or NULL */
    const char *container; /* --container: its container filter, or NULL */
    /* the agent's SQLite store (its configured data directory) to fill the
     * charts from at the start, or NULL (docs/views.md, history charts) */
    const char *store_path;
};

/* What gm_top_run returns besides 0 and GM_E_* codes. */
enum {
    GM_TOP_WEDGED = 1, /* quit while an NVML call hung: the caller must _exit() */
};

/* Runs the view until the user quits or SIGTERM/SIGINT/SIGHUP; the
 * terminal is restored on every way out.  Errors that stop it (no
 * terminal, the module missing, NVML unusable at start) return a GM_E_*
 * code with the reason in err. */
int gm_top_run(const struct gm_top_opts *o, struct gm_err *err);

/* The module's one export. */
#define GM_TOP_MODULE_ABI 3
struct gm_top_module {
    int abi; /* GM_TOP_MODULE_ABI */
    int (*run)(const struct gm_top_opts *o, struct gm_err *err);
};

#endif /* GM_VIEW_TOP_H */

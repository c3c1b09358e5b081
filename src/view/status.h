/* status.h -- the quick look: gpustat-style lines and the JSON document.
 *
 * Text: a host line (hostname, time, driver and CUDA versions), then one line
 * per GPU -- index, name, temperature, utilisation, memory used/total,
 * power/limit, a throttle marker naming the active limit -- followed by its
 * processes (user, name, pid, GPU memory), marking processes that hold
 * memory but no longer exist.  Colour is optional (the caller decides).
 *
 * JSON: one document described in docs/json.md, with every registry metric
 * (null when unavailable, with the reason in "unavailable"), MIG devices and
 * processes.
 */
#ifndef GM_VIEW_STATUS_H
#define GM_VIEW_STATUS_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/snapshot.h"

struct gm_status_opts {
    int color;      /* ANSI colours */
    int utf8;       /* may print the degree sign and non-ASCII names (else '?') */
    int show_procs; /* list processes (default on) */
    int full_cmd;   /* show the command line instead of the process name */
    uint64_t mask;  /* GPUs to show, by position in s->gpus */
    /* columns the text must fit (the terminal's width), 0 for no limit; at
     * least GM_STATUS_MIN_WIDTH is used.  The GPU lines are shortened in
     * steps, the same for every GPU (no "NVIDIA " in names, fewer blanks
     * and memory in GiB, names cut, names left out); marks and processes
     * that do not fit go whole on lines below, indented: a mark is never
     * split over two lines (docs/views.md, "status") */
    unsigned width;
};
#define GM_STATUS_MIN_WIDTH 48

/* How close a GPU's temperature is to its slowdown threshold, for its
 * colour: hot within GM_STATUS_TEMP_HOT_MARGIN degrees of it (or at or
 * over it), warm within GM_STATUS_TEMP_WARM_MARGIN, cool below; without a
 * threshold 85 and 75 degrees stand in.  Cool when the temperature is not
 * real.  status and top colour by it (cool: no colour, warm: yellow, hot:
 * bold red). */
enum { GM_STATUS_TEMP_COOL = 0, GM_STATUS_TEMP_WARM, GM_STATUS_TEMP_HOT };
#define GM_STATUS_TEMP_HOT_MARGIN 5
#define GM_STATUS_TEMP_WARM_MARGIN 15
int gm_status_temp_level(const struct gm_gpu *g);

/* The text view.  Names (text from outside) are written with gm_text_term:
 * no control character or invalid UTF-8 reaches the terminal. */
void gm_status_text(const struct gm_snapshot *s, const struct gm_status_opts *o,
                    struct gm_buf *out);

/* The JSON document; pretty = indented. */
void gm_status_json(const struct gm_snapshot *s, uint64_t mask, int pretty, struct gm_buf *out);
/* The same with gpm != 0 (`status --json --gpm`): each GPU object also has the
 * GPM metrics (gpm_*), and their reasons in "unavailable". */
void gm_status_json_gpm(const struct gm_snapshot *s, uint64_t mask, int pretty, int gpm,
                        struct gm_buf *out);
/* What gm_status_json_opt adds to the document (flags, or-ed). */
enum {
    GM_STATUS_JSON_GPM = 1 << 0,        /* the GPM metrics, as gm_status_json_gpm */
    GM_STATUS_JSON_NVLINK = 1 << 1,     /* "nvlinks": each NVLink link of each GPU (struct gm_gpu's
                                           nvlink[], read with GM_NVML_NVLINK_LINKS) */
    GM_STATUS_JSON_NO_COMMAND = 1 << 2, /* each process's "command" null, its reason
                                           "withheld" (the agent's API without auth) */
    GM_STATUS_JSON_DIAG = 1 << 3,       /* "diagnosis": each GPU's causes the agent's running
                                           diagnosis finds now (null where none runs) */
};
void gm_status_json_opt(const struct gm_snapshot *s, uint64_t mask, int pretty, int flags,
                        struct gm_buf *out);

/* Short label of the limit that holds the clocks down, from the active clock
 * event reasons ("thermal", "power cap", "power brake", "hw slowdown",
 * "sync boost", "app clocks"), or NULL when none (idle is not a limit). */
const char *gm_status_throttle_label(uint64_t reasons);

/* The states the articles warn about that a GPU's values show, each as a
 * short label for a "[...]" mark: "exclusive-process" (or the old
 * "exclusive-thread") compute mode, and a PCIe link below its maximum
 * generation or width while the GPU is at least GM_STATUS_PCIE_LOAD %
 * busy ("pcie gen4 x8 of gen4 x16"; idle GPUs lower their link speed to
 * save power, which is no fault); memory used, at least
 * GM_STATUS_ORPHAN_MEM, on a GPU whose process lists NVML answered empty
 * ("4.0 GiB used, no process": a process in another container, or memory
 * a crashed job left behind); a row remap or page retirement waiting
 * for a reset ("row remap pending: reset"); persistence mode off on a
 * GPU that drives no display and is not a GeForce board ("persistence
 * off").  Clocks held by application-clock settings are the throttle
 * label "app clocks" (gm_status_throttle_label).  Only values NVML reported count: a
 * value that is missing yields no label, never a guess.  Writes at most
 * max labels into labels and returns how many. */
#define GM_STATUS_FLAG_MAX 48
#define GM_STATUS_FLAGS 6 /* at most this many labels per GPU */
#define GM_STATUS_PCIE_LOAD 50
#define GM_STATUS_ORPHAN_MEM (1ULL << 30) /* bytes used with no process listed worth a mark */
int gm_status_flags(const struct gm_gpu *g, char labels[][GM_STATUS_FLAG_MAX], int max);

#endif /* GM_VIEW_STATUS_H */

/* pmon.h -- `gpumon pmon`: nvidia-smi pmon's scrolling per-process table.
 *
 * Pure formatting, like dmon.h (whose layout helpers it uses).  One line per
 * GPU process per sample: GPU index, PID, type (C, G, C+G, M for MPS), the
 * selected metrics, and the process name (basename, cut to 15 characters);
 * a GPU without processes gets one line of "-".  `-s u` is sm mem enc dec
 * jpg ofa (per-process utilisation), `-s m` is fb ccpm (GPU memory, MiB);
 * letters in the order given.  The header lines are nvidia-smi's literally,
 * including their misalignment with the data columns.
 */
#ifndef GM_VIEW_PMON_H
#define GM_VIEW_PMON_H

#include <stdint.h>

#include "dmon.h"

struct gm_pmon {
    struct gm_mon_layout lay;
    int ncol;
    uint8_t col[GM_MON_MAX_COLS];
};

/* Parses -s (NULL = "u").  Unknown letter: GM_E_INVAL naming it. */
int gm_pmon_init(struct gm_pmon *p, const char *select, const struct gm_mon_layout *lay,
                 struct gm_err *err);

void gm_pmon_header(const struct gm_pmon *p, struct gm_buf *out);

/* The lines of one sample for the GPUs whose bit is set in mask. */
void gm_pmon_rows(const struct gm_pmon *p, const struct gm_snapshot *s, uint64_t mask,
                  struct gm_buf *out);

/* The lines one sample takes (for repeating the header on a terminal). */
int gm_pmon_nlines(const struct gm_snapshot *s, uint64_t mask);

#endif /* GM_VIEW_PMON_H */

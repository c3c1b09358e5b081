/* dmon.h -- `gpumon dmon`: nvidia-smi dmon's scrolling per-GPU table.
 *
 * Pure formatting: snapshots in, text out (no I/O, no clock).  The layout is
 * nvidia-smi's (docs/views.md): one line per GPU per sample, a "# gpu" /
 * "# Idx" header pair, cells right-aligned in 6 columns after a 5-column GPU
 * index, "-" for a value that is not available, a trailing blank on every
 * text line; `-o D|T|DT` prepends date and time cells; `--format csv` joins
 * the same cells with ", ".  Metric groups follow `-s` letters in the order
 * given: p (pwr gtemp mtemp), u (sm mem enc dec jpg ofa), c (mclk pclk),
 * v (pviol tviol), m (fb bar1 ccpm), e (sbecc dbecc pci), t (rxpci txpci);
 * --gpm-metrics adds GPM columns (gract smact smocc intac tenac dramac fp64a
 * fp32a fp16a pcitx pcirx nvltx nvlrx) after them.
 *
 * Columns gpumon cannot read (jpg, ofa, ccpm) are always "-": gpumon never
 * prints a number it did not measure.  The violation columns are rates over
 * the interval between two samples, so the first sample shows "-".
 *
 * The layout helpers (options, formats, the date/time cells, line writing)
 * are shared with pmon (pmon.h).
 */
#ifndef GM_VIEW_DMON_H
#define GM_VIEW_DMON_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/rgset.h"
#include "../core/snapshot.h"

#define GM_MON_MAX_COLS 32

/* How the scrolling tables are laid out: -o D/T and --format. */
struct gm_mon_layout {
    int date;     /* -o D: a YYYYMMDD cell first */
    int time;     /* -o T: an HH:MM:SS cell */
    int csv;      /* --format csv */
    int noheader; /* csv,noheader: no header lines */
    int nounit;   /* csv,nounit: no units line */
    int ascii;    /* the locale is not UTF-8: process names in ASCII ('?' for the rest) */
};

/* Parses -o: any of D and T ("D", "T", "DT", "TD"), case-insensitive. */
int gm_mon_parse_options(const char *o, struct gm_mon_layout *l, struct gm_err *err);

/* Parses --format: "csv" plus optional "noheader" and "nounit" ("nounits"
 * is accepted too), comma-separated, in any order. */
int gm_mon_parse_format(const char *f, struct gm_mon_layout *l, struct gm_err *err);

/* A parsed dmon selection with the state that rates need between samples. */
struct gm_dmon {
    struct gm_mon_layout lay;
    int ncol;
    uint8_t col[GM_MON_MAX_COLS]; /* indices into the column table */
    /* the previous sample, for pviol/tviol */
    int have_prev;
    int64_t prev_mono_ns;
    uint32_t prev_n;
    struct gm_value prev_vpow[64], prev_vthm[64];
    uint8_t prev_gpu_ok[64];
};

/* Parses -s (NULL = "puc").  Unknown letter: GM_E_INVAL naming it. */
int gm_dmon_init(struct gm_dmon *d, const char *select, const struct gm_mon_layout *lay,
                 struct gm_err *err);

/* Adds nvidia-smi's --gpm-metrics columns after the -s ones: list is
 * comma-separated NVML GPM metric ids (1 graphics, 2 SM activity, 3 SM
 * occupancy, 4 integer, 5 tensor, 10 DRAM, 11-13 FP64/32/16, 20/21 PCIe
 * tx/rx, 61/60 NVLink tx/rx), each shown once in the order given.  An id
 * gpumon does not read, or a malformed list: GM_E_INVAL naming it. */
int gm_dmon_add_gpm(struct gm_dmon *d, const char *list, struct gm_err *err);

/* The NVML read groups the selected columns need; adds GM_NVML_GPM_PRIME
 * to *flags when a GPM column is shown. */
struct gm_rgset gm_dmon_groups(const struct gm_dmon *d, unsigned *flags);

/* The header lines (none with csv,noheader; no units line with nounit). */
void gm_dmon_header(const struct gm_dmon *d, struct gm_buf *out);

/* One line per GPU whose bit is set in mask (by position in s->gpus), and
 * remembers what the rates need for the next call. */
void gm_dmon_rows(struct gm_dmon *d, const struct gm_snapshot *s, uint64_t mask,
                  struct gm_buf *out);

/* ---- shared with pmon */

/* A line under construction: cells are appended, then gm_mon_line_end()
 * writes it. */
struct gm_mon_line {
    const struct gm_mon_layout *lay;
    struct gm_buf *out;
    size_t start; /* offset of the line in out */
    int ncells;
    int header; /* a header line: '#' replaces the first character */
};

void gm_mon_line_begin(struct gm_mon_line *ln, const struct gm_mon_layout *lay, struct gm_buf *out,
                       int header);
/* Appends a cell: right-aligned in width (left-aligned when left), after a
 * blank when lead, cut to width characters (not bytes); csv ignores the
 * widths.  text is gpumon's own (numbers, "-"); see gm_mon_cell_outside. */
void gm_mon_cell(struct gm_mon_line *ln, const char *text, int width, int lead, int left);
/* A cell of text from outside (a process name): as gm_mon_cell, written
 * for the terminal (gm_text_term) or, with csv, as a CSV cell with the
 * formula rule (gm_text_csv), so that no name can add a line, a field or an
 * escape sequence. */
void gm_mon_cell_outside(struct gm_mon_line *ln, const char *text, int width, int lead, int left);
/* Ends the line: the trailing blank of text lines (when trail), '#' on
 * header lines, and the newline. */
void gm_mon_line_end(struct gm_mon_line *ln, int trail);
/* The -o date/time cells of a data line at wall time ns (local time), or of
 * the header line (row 0: names, row 1: units). */
void gm_mon_time_cells(struct gm_mon_line *ln, int64_t wall_ns);
void gm_mon_time_header(struct gm_mon_line *ln, int row);

#endif /* GM_VIEW_DMON_H */

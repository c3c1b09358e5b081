/* top_model.h -- what `gpumon top` shows, without a terminal.
 *
 * The full-screen view (top_ui.c, in the gpumon_top.so module with ncurses)
 * is a thin painter over this model, so everything that decides what is
 * shown is here and unit-tested (tests/unit/test_top.c):
 *
 *   - history: per GPU ring buffers of utilisation, memory use and power,
 *     with absent samples kept as absent (never 0), bucketed into chart
 *     columns over a time span;
 *   - limit diagnosis: the seeds' cross-check, "utilisation is high but the
 *     clocks or the power are low", naming the limit that is hit;
 *   - the process table: rows, the columns as data, sorting by any column,
 *     filtering by user or text, a selection that follows its process;
 *   - the layout: which panel form, chart and table sizes fit a terminal of
 *     a given size for a given number of GPUs;
 *   - signals: whether the user may signal a process, and sending one only
 *     to the very process that was confirmed (pidfd, start time checked);
 *   - the small text formats (memory, elapsed time, rates).
 */
#ifndef GM_VIEW_TOP_MODEL_H
#define GM_VIEW_TOP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/snapshot.h"

/* ------------------------------------------------------------- history */

enum gm_top_series { GM_TOP_UTIL = 0, GM_TOP_MEM, GM_TOP_POWER, GM_TOP__NSERIES };

/* What a chart column holds. */
enum gm_top_cell { GM_TOP_NODATA = 0, GM_TOP_VALUE, GM_TOP_ABSENT };

struct gm_top_hist;

/* cap samples per GPU are kept (older ones are dropped). */
struct gm_top_hist *gm_top_hist_new(uint32_t cap);
void gm_top_hist_free(struct gm_top_hist *h);

/* Records one snapshot: utilisation (%), memory used (% of total) and power
 * (W) of each GPU, or "absent" where the value is not real.  A change in
 * the number of GPUs starts the history over. */
void gm_top_hist_push(struct gm_top_hist *h, const struct gm_snapshot *s);

/* One GPU's values at a moment before the view started (the agent's
 * store), for gm_top_hist_prefill. */
struct gm_top_past {
    int64_t mono_ns; /* moved onto this process's monotonic clock */
    uint32_t gpu;    /* position in the snapshots to come */
    float util;      /* %; NAN: not a real value */
    float mem_pct;   /* memory used, % of total; NAN */
    float power;     /* W; NAN */
};

/* Fills an empty history (before the first gm_top_hist_push) with past
 * samples p[0..n), sorted by mono_ns: rows with the same mono_ns are one
 * sample, and a GPU (of ngpu, the number the snapshots will have) without
 * a row in it is absent there, never 0.  The newest cap samples are kept.
 * Returns the samples added (0 when the history is not empty). */
uint32_t gm_top_hist_prefill(struct gm_top_hist *h, uint32_t ngpu, const struct gm_top_past *p,
                             size_t n);

/* Number of samples held. */
uint32_t gm_top_hist_len(const struct gm_top_hist *h);

/* Buckets the last span_ns (ending at now_mono_ns) into ncol columns, oldest
 * first: the mean of the real samples in each column (GM_TOP_VALUE), or
 * GM_TOP_ABSENT when the column has samples but none is real, or
 * GM_TOP_NODATA when it has none.  For GPU at position gpu. */
void gm_top_hist_columns(const struct gm_top_hist *h, uint32_t gpu, int series, int64_t now_mono_ns,
                         int64_t span_ns, int ncol, float *val, uint8_t *cell);

/* The most recent max of a series over the span (for power chart scaling);
 * 0 when there is none. */
float gm_top_hist_max(const struct gm_top_hist *h, uint32_t gpu, int series, int64_t now_mono_ns,
                      int64_t span_ns);

/* ----------------------------------------------------------- diagnosis */

enum gm_top_limit {
    GM_TOP_LIM_NONE = 0,  /* nothing holds the GPU back (or it is idle) */
    GM_TOP_LIM_THERMAL,   /* temperature slowdown */
    GM_TOP_LIM_POWER_CAP, /* software power cap */
    GM_TOP_LIM_POWER_BRAKE,
    GM_TOP_LIM_HW_SLOWDOWN,
    GM_TOP_LIM_SYNC_BOOST,
    GM_TOP_LIM_APP_CLOCKS,
    GM_TOP_LIM_UNKNOWN, /* busy, clocks low, no reason reported */
};

struct gm_top_diag {
    int limit;          /* enum gm_top_limit */
    const char *label;  /* short: "thermal", "power cap", ...; NULL for none */
    char text[256];     /* one sentence with the numbers; "" for none */
    double clock_ratio; /* SM clock / max SM clock, or -1 when unknown */
};

/* The cross-check for one GPU: busy (utilisation >= 50 %) while its clocks
 * run below 90 % of their maximum or a limit reason is active. */
void gm_top_diagnose(const struct gm_gpu *g, int utf8, struct gm_top_diag *d);

/* Active clock event reasons spelled out ("sw power cap, hw thermal
 * slowdown"), "none", or "unknown" when not readable. */
const char *gm_top_reasons_text(const struct gm_gpu *g, char *buf, size_t len);

/* --------------------------------------------------------- process table */

enum gm_top_col {
    GM_TC_GPU = 0,
    GM_TC_PID,
    GM_TC_USER,
    GM_TC_TYPE,
    GM_TC_GPUMEM,
    GM_TC_SM,
    GM_TC_CPU,
    GM_TC_HOSTMEM,
    GM_TC_TIME,
    GM_TC_JOB, /* the job it belongs to (gm_attrib_label): slurm:4242.0, pod:2f1e3c4d, ... */
    GM_TC_COMMAND,
    GM_TC__COUNT
};

struct gm_top_coldesc {
    const char *title;
    int width;   /* 0: takes the rest of the line */
    int numeric; /* right-aligned; sorts high first by default */
    int field;   /* the GM_P_* it shows and sorts by (core/procfield.h); 0: none (no GM_P_* is 0) */
};
extern const struct gm_top_coldesc gm_top_cols[GM_TC__COUNT];

struct gm_top_row {
    const struct gm_proc *p; /* into the snapshot the table was built from */
    uint32_t gpu_index;      /* NVML index of its GPU */
};

struct gm_top_table {
    struct gm_top_row *rows;
    uint32_t n, cap;
    uint32_t total; /* rows before filtering */
    int sort_col;   /* enum gm_top_col */
    int sort_desc;
    char filter_user[33]; /* "" = everyone */
    char filter_text[64]; /* "" = no text filter; case-insensitive substring */
    /* "" = none; case-insensitive substring of the job's label or key
     * (gm_attrib_job: the unit is there), its container id, pod UID or
     * Slurm job (--job, the j key) */
    char filter_job[64];
    /* "" = none; the container id starts with it, or "<runtime>:<id start>"
     * (--container) */
    char filter_container[80];
    int any_job; /* some process of the last snapshot (filtered or not) has a job */
    /* the selection follows its process across refreshes */
    int selected; /* row index, -1 = none */
    uint32_t sel_pid, sel_gpu;
};

void gm_top_table_init(struct gm_top_table *t);
void gm_top_table_free(struct gm_top_table *t);

/* Rebuilds the rows from s (filter, then sort), keeping the selected
 * process selected when it is still listed. */
void gm_top_table_build(struct gm_top_table *t, const struct gm_snapshot *s);

/* The columns shown on a terminal cols wide, in order: col[i] and its
 * width[i] (0: the rest of the line).  JOB is shown only when some
 * process has a job (any_job) or a job or container filter is on; below
 * GM_TOP_JOB_WIDE columns it is 12 wide and TYPE and HOST-MEM are left
 * out to make room for it, so that COMMAND keeps its place.  Returns how
 * many columns (at most GM_TC__COUNT). */
#define GM_TOP_JOB_WIDE 100
int gm_top_columns(const struct gm_top_table *t, int cols, int *col, int *width);

/* The column after (dir 1) or before (dir -1) cur among those shown, for
 * the sort keys. */
int gm_top_column_next(const struct gm_top_table *t, int cols, int cur, int dir);

/* Moves the selection by delta rows (clamped), and remembers its process. */
void gm_top_table_move(struct gm_top_table *t, int delta);

/* Cell text of column col for row r (for the painter and the tests). */
const char *gm_top_cell_text(const struct gm_top_row *r, int col, char *buf, size_t len);

/* The user names in s, sorted, without repeats, for the user filter; returns
 * how many were written to names (at most max). */
int gm_top_users(const struct gm_snapshot *s, char names[][33], int max);

/* ---------------------------------------------------------------- layout */

enum gm_top_panel { GM_TOP_PANEL_FULL = 0, GM_TOP_PANEL_COMPACT, GM_TOP_PANEL_LINE };

struct gm_top_layout {
    int panel;            /* enum gm_top_panel */
    int panel_cols;       /* GPUs side by side */
    int panel_w;          /* width of one panel */
    int panel_h;          /* lines of one panel (with its separator) */
    int gpu_y, gpu_h;     /* the GPU area */
    int gpus_shown;       /* GPUs that fit (the rest are summarised in a line) */
    int prob_y, prob_h;   /* the problem lines under compact or one-line panels (0: none) */
    int chart_y, chart_h; /* 0 height: no charts */
    int chart_n;          /* charts side by side (3) or 0 */
    int proc_y, proc_h;   /* the process table, its header line included */
    int footer_y;
};

/* Lays out a rows x cols screen for ngpu GPUs (header line at 0, footer at
 * the bottom). */
void gm_top_layout(int rows, int cols, int ngpu, struct gm_top_layout *l);

/* The same with nprob GPUs that have a problem to tell (a limit the
 * cross-check names, a diagnosis finding, a mark): under compact or
 * one-line panels, which have no room for the sentences, a line each
 * (prob_y, prob_h) below the panels, before the charts; the charts give
 * way to them (smaller, then none) but the process table keeps its
 * quarter.  Full panels say it in their own fifth line: prob_h 0. */
void gm_top_layout_problems(int rows, int cols, int ngpu, int nprob, struct gm_top_layout *l);

/* --------------------------------------------------------------- signals */

/* What the confirmation dialog checked about a process. */
struct gm_top_target {
    uint32_t pid;
    uint64_t starttime; /* /proc/PID/stat field 22, identifies this incarnation */
    uint32_t uid;
    char comm[64];
    int allowed;   /* the user may signal it */
    char why[160]; /* when not allowed: why */
};

/* Looks pid up under proc_root ("/proc") and decides whether this user may
 * signal it (the kernel's rule: root, or the same real/saved uid; a
 * process that is gone or a zombie cannot be signalled).  Returns 0, or
 * GM_E_NOTFOUND when the process does not exist. */
int gm_top_target_check(const char *proc_root, uint32_t pid, struct gm_top_target *t);

/* Sends sig to the process checked by gm_top_target_check(), only if the
 * PID still names the same process (same start time): through a pidfd, so a
 * PID reused in between is never hit.  Returns 0, or a GM_E_* code with
 * the reason in err. */
int gm_top_target_signal(const char *proc_root, const struct gm_top_target *t, int sig,
                         struct gm_err *err);

/* --------------------------------------------------------------- formats */

/* Memory as "72.9G", "512M", "12K" (binary units), width <= 6. */
const char *gm_top_fmt_mem(double bytes, char *buf, size_t len);
/* Elapsed seconds as "59s", "12:34", "3:02:01", "4d03h". */
const char *gm_top_fmt_elapsed(double seconds, char *buf, size_t len);
/* Throughput in bytes/s as "1.5G/s", "296M/s", "12K/s". */
const char *gm_top_fmt_rate(double bps, char *buf, size_t len);
/* A time axis label for seconds before now: "now", "-30s", "-5m", "-1h". */
const char *gm_top_fmt_ago(int64_t seconds, char *buf, size_t len);

#endif /* GM_VIEW_TOP_MODEL_H */

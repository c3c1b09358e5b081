/* history.h -- reading the agent's history back as per-GPU rows, for
 * `gpumon diagnose --since` (SQLite store) and `--csv` (daily CSV logs).
 *
 * Rows are handed to a callback one at a time, per GPU in time order; the
 * reader keeps nothing.  A value not recorded (NULL in the store, an empty
 * CSV cell) is NAN, or -1 for the integers: never 0.
 */
#ifndef GM_STORE_HISTORY_H
#define GM_STORE_HISTORY_H

#include <stdint.h>

#include "../core/err.h"

struct gm_hist_row {
    int64_t ts_ns;      /* wall clock, UTC */
    uint32_t gpu_index; /* NVML index when recorded */
    const char *uuid;   /* "" when unknown; valid during the callback only */
    const char *name;   /* product name; "" when unknown */
    const char *job;    /* the job of the GPU's first live compute process (by pid): its job
                           id ("slurm:42", "pod:...") when recorded, else "pid:<PID>"; "" none */
    int down;           /* 1: the GPU was lost; 2: unreadable (no permission, error, driver) */
    int rollup;         /* 1: a 1-minute rollup row (util_min/max and averages) */
    double util, util_min, util_max, util_mem;
    double mem_used_b, mem_total_b;
    double power_w, power_limit_w;
    double temp_c, clk_sm_mhz, clk_mem_mhz;
    int64_t reasons; /* -1 unknown */
    int nproc;       /* -1 when processes were not recorded */
    int nproc_dead;  /* gone or zombie; -1 unknown */
    double proc_mem_b;
    double dead_mem_b;             /* of it, what the gone/zombie processes hold; NAN unknown */
    double enc_util, dec_util;     /* percent */
    double pcie_rx_Bps;            /* host to GPU */
    double sm_active, dram_active; /* GPM ratios 0..1 (store-gpm, or CSV gpm columns) */
    /* the GPU's states (the store's states table; CSV columns): -1 / NAN unknown */
    int compute_mode;
    int pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
    double ecc_uncorrected, remap_pending, retired_pending;
    /* the host side of the GPU's feeding process (the store's hostside
     * table; not in CSV logs): 0 / -1 / NAN unknown */
    uint32_t host_pid;
    int host_workers, psi_scope;
    double host_cpu_pct, host_workers_cpu_pct, host_iowait_pct, psi_cpu, psi_io;
};

typedef int (*gm_hist_fn)(void *arg, const struct gm_hist_row *r);

/* Windows longer than this are read from the 1-minute rollups, except
 * their last GM_HIST_RAW_RECENT_NS, read raw: 30 days of 8 GPUs at 1 s are
 * 20 million raw rows (a minute and a gigabyte), but 345 600 rollups. */
#define GM_HIST_RAW_SPAN_NS (2LL * 3600 * 1000000000LL)
#define GM_HIST_RAW_RECENT_NS (3600LL * 1000000000LL)
/* ... and windows longer than this read the hours before their last
 * GM_HIST_MINUTES_SPAN_NS from the 1-hour rollups (30 days of 8 GPUs: 5 568
 * hour rows, 11 040 minute rows and 28 800 raw ones). */
#define GM_HIST_MINUTES_SPAN_NS (86400LL * 1000000000LL)

/* Reads the store at path between from_ns and to_ns (inclusive), only the
 * rows of task when task is not NULL.  Up to GM_HIST_RAW_SPAN_NS: raw
 * samples when there are any in the window, else the 1-minute rollups;
 * longer: 1-minute rollups, then the last GM_HIST_RAW_RECENT_NS raw
 * (rollups where no raw sample is left), and over GM_HIST_MINUTES_SPAN_NS
 * the 1-hour rollups before the last day.  Per GPU the rows come in time
 * order within each part, the coarser parts first.  *nrows receives the rows given.
 * Returns 0, or a GM_E code with err naming the file and what failed; a
 * non-zero return of fn stops the reading and is returned. */
int gm_hist_read_store(const char *path, int64_t from_ns, int64_t to_ns, const char *task,
                       gm_hist_fn fn, void *arg, size_t *nrows, struct gm_err *err);

/* Reads one daily CSV log of GPU rows written by the agent (store/csv.c;
 * a .gz is read through zlib), the rows between from_ns and to_ns (0 = no
 * bound).  Columns are found by their header names, so a log with other
 * --columns works; time and gpu are required.  A cell left empty between
 * two reads of its slow read group (status "<col>:between_reads") takes the
 * GPU's last value read before it in the file.  The processes file of the
 * same task and day beside it is read when it exists (else nproc -1).
 * Errors name the file, and the line for a bad row. */
int gm_hist_read_csv(const char *path, int64_t from_ns, int64_t to_ns, gm_hist_fn fn, void *arg,
                     size_t *nrows, struct gm_err *err);

#endif /* GM_STORE_HISTORY_H */

/* runsum.h -- the summary of `gpumon run`: what a command's process tree
 * did with the GPUs while it ran (docs/run.md).
 *
 * The caller feeds every sample (a snapshot and the tree's pids at that
 * moment); the summary keeps running totals per GPU, never the samples
 * themselves, so a run of days costs the same memory as a run of seconds:
 *
 *  - a GPU is used when a pid of the tree is among its processes in any
 *    sample; "in use" time adds each interval that starts with such a
 *    sample;
 *  - utilisation and memory: the plain mean and the maximum of the samples
 *    that have the value (samples come on a regular grid, so the mean of
 *    the samples is the time average up to one interval at the ends);
 *  - energy: the energy counter's last value less its first when the
 *    counter was read at the first and the last sample and never went
 *    down; otherwise power.draw integrated over time (the trapezoid rule
 *    between consecutive samples that both have it), and said so; N/A
 *    when neither exists;
 *  - time throttled by reason: each interval is charged to the reasons
 *    active at its start (gpu_idle is a state, not throttling, and is
 *    left out); N/A when the reasons were never read;
 *  - diagnosis: the snapshots go to the insight detectors (diagnose.h) at
 *    most one every 100 ms, the last 10 minutes of them kept (at most 6000
 *    points a GPU, whatever the run's length and interval); findings are
 *    shown only with at least GM_RUNSUM_DG_MIN such points.
 *
 * Every value says whether it is real: a count of samples behind it, NAN
 * (text "N/A", JSON null) when there are none.
 */
#ifndef GM_VIEW_RUNSUM_H
#define GM_VIEW_RUNSUM_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/metrics.h"
#include "../core/snapshot.h"
#include "../source/proctree.h"

#define GM_RUNSUM_PIDS 8    /* pids of the tree remembered per GPU (the first seen) */
#define GM_RUNSUM_DG_MIN 10 /* diagnosis points needed for findings */

enum gm_runsum_energy { GM_RE_NONE = 0, GM_RE_COUNTER, GM_RE_POWER };

struct gm_runsum_gpu {
    uint32_t index;
    char uuid[GM_STR_MAX];
    char name[GM_STR_MAX];
    int used;        /* a tree pid was seen on it */
    double in_use_s; /* seconds of intervals that began with a tree pid on it */
    uint32_t pids[GM_RUNSUM_PIDS];
    uint32_t npids;
    uint64_t list_unknown;     /* samples whose process list NVML did not give */
    uint64_t util_n;           /* samples with utilization.gpu */
    double util_sum, util_max; /* percent */
    uint64_t mem_n;            /* samples with memory.used */
    double mem_sum, mem_max;   /* bytes */
    double mem_total;          /* bytes, NAN when unknown */
    /* energy counter (J) */
    int e_first_ok, e_last_ok, e_down;
    double e_first, e_last;
    /* power.draw integrated (J) over power_s seconds */
    double power_j, power_s;
    /* clock event reasons: seconds each reason was active, over reasons_s
     * seconds in which they were known (index k: gm_reason_bit(k)) */
    double reason_s[GM_REASON_COUNT];
    double reasons_s;
    /* the previous sample, for the intervals */
    int have_prev, prev_used;
    int64_t prev_mono;
    double prev_power;
    int64_t prev_reasons;
};

struct gm_dg;

struct gm_runsum {
    uint32_t ngpu;
    struct gm_runsum_gpu *gpus;
    uint64_t nsamples;
    int64_t first_mono, last_mono, first_wall, last_wall;
    struct gm_dg *dg;
    int64_t dg_last_wall;
    uint64_t dg_points;
};

/* A new, empty summary; aborts on out of memory. */
struct gm_runsum *gm_runsum_new(void);
void gm_runsum_free(struct gm_runsum *r); /* accepts NULL */

/* Adds one sample: s (GPUs that are down add nothing but their interval's
 * end) and tree, the pids of the run's process tree at that moment. */
void gm_runsum_add(struct gm_runsum *r, const struct gm_snapshot *s, const struct gm_pidset *tree);

/* The energy a GPU used over the run, J, and where it comes from; NAN with
 * GM_RE_NONE when unknown. */
double gm_runsum_energy_j(const struct gm_runsum_gpu *g, enum gm_runsum_energy *src);

/* The GPUs used, as a count. */
uint32_t gm_runsum_nused(const struct gm_runsum *r);

/* What the summary says about the run itself (the command's side). */
struct gm_run_info {
    int argc;
    char *const *argv; /* the command and its arguments (hostile text) */
    const char *task;  /* NULL: none given */
    int64_t start_wall_ns, end_wall_ns;
    int64_t duration_ns; /* monotonic, from the start of the command to its end */
    int64_t interval_ns;
    int exit_code;          /* gpumon's exit status: the command's, 128+N when killed by N */
    int signal;             /* the signal that killed it, 0 when it exited */
    const char *agent;      /* "marked", "none" or "failed": the start/end marks */
    const char *data_dir;   /* the agent's data directory asked */
    const char *nvml_error; /* the first NVML failure of the run (no samples, or some
                               missing), or NULL */
};

/* The summary as text for a terminal (stderr): one block per GPU used;
 * outside text made safe (utf8: the terminal takes UTF-8). */
void gm_runsum_text(const struct gm_runsum *r, const struct gm_run_info *info, int utf8,
                    struct gm_buf *out);

/* The summary as the JSON document "gpumon.run/1" (docs/run.md). */
void gm_runsum_json(const struct gm_runsum *r, const struct gm_run_info *info, int pretty,
                    struct gm_buf *out);

#endif /* GM_VIEW_RUNSUM_H */

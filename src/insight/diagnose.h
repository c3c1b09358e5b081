/* diagnose.h -- why a GPU is slow or wasted: detectors over per-GPU series.
 *
 * Pure functions, no NVML, no I/O: the caller feeds points (from live
 * snapshots and NVML's sample buffers, from the SQLite store or from CSV
 * logs) and asks for findings over a window.  Two ways to use it:
 *
 *   batch:        gm_dg_new, gm_dg_add for every point, gm_dg_eval once;
 *   incremental:  gm_dg_new with max_age_ns (e.g. 10 min), gm_dg_add as
 *                 samples come (older points are dropped), gm_dg_eval over
 *                 the last N minutes whenever a verdict is wanted.
 *
 * A point is sparse: every double field that was not measured is NAN (an
 * absent value is never 0), so a point carrying only a high-rate
 * utilisation sample and a full snapshot row are the same type.  Points of
 * one GPU must be added in non-decreasing time order.
 *
 * Cause ids and their names are stable (docs/diagnose.md); new causes are
 * appended before GM_DG__COUNT.  Not thread-safe: one gm_dg per thread.
 */
#ifndef GM_INSIGHT_DIAGNOSE_H
#define GM_INSIGHT_DIAGNOSE_H

#include <stddef.h>
#include <stdint.h>

/* Causes and the three negatives (a GPU with no finding gets one of the
 * verdicts GM_DG_HEALTHY_BUSY, GM_DG_IDLE, GM_DG_LIGHT_LOAD). */
#define GM_DG_CAUSES(X)                                                                            \
    X(INPUT_STARVED, "input-starved")                                                              \
    X(THERMAL_THROTTLE, "thermal-throttle")                                                        \
    X(POWER_CAPPED, "power-capped")                                                                \
    X(HW_SLOWDOWN, "hw-slowdown")                                                                  \
    X(LOW_INTENSITY, "low-intensity")                                                              \
    X(MEMORY_BOUND, "memory-bound")                                                                \
    X(MEMORY_SQUATTED, "memory-squatted")                                                          \
    X(MEMORY_ORPHANED, "memory-orphaned")                                                          \
    X(MEMORY_GROWTH, "memory-growth")                                                              \
    X(STRAGGLER, "straggler")                                                                      \
    X(EXCLUSIVE_BLOCKING, "exclusive-blocking")                                                    \
    X(ECC_RISK, "ecc-risk")                                                                        \
    X(TRANSFER_BOUND, "transfer-bound")                                                            \
    X(PCIE_DEGRADED, "pcie-degraded")                                                              \
    X(CODEC_BOUND, "codec-bound")                                                                  \
    X(APP_CLOCKS, "app-clocks")                                                                    \
    X(GPU_LOST, "gpu-lost")                                                                        \
    X(HEALTHY_BUSY, "healthy-busy")                                                                \
    X(IDLE, "idle")                                                                                \
    X(LIGHT_LOAD, "light-load")

enum gm_dg_cause {
#define GM_DG_ENUM_(id, name) GM_DG_##id,
    GM_DG_CAUSES(GM_DG_ENUM_)
#undef GM_DG_ENUM_
        GM_DG__COUNT
};

enum gm_dg_severity { GM_DG_INFO = 0, GM_DG_WARNING, GM_DG_CRITICAL };

/* Clock-event reason bits, NVML's values (nvmlClocksEventReason*). */
#define GM_DG_R_GPU_IDLE 0x1ull
#define GM_DG_R_APP_CLOCKS 0x2ull
#define GM_DG_R_SW_POWER_CAP 0x4ull
#define GM_DG_R_HW_SLOWDOWN 0x8ull
#define GM_DG_R_SYNC_BOOST 0x10ull
#define GM_DG_R_SW_THERMAL 0x20ull
#define GM_DG_R_HW_THERMAL 0x40ull
#define GM_DG_R_HW_POWER_BRAKE 0x80ull
#define GM_DG_R_DISPLAY_CLOCKS 0x100ull

/* Compute modes, NVML's values. */
enum { GM_DG_CM_DEFAULT = 0, GM_DG_CM_PROHIBITED = 2, GM_DG_CM_EXCLUSIVE_PROCESS = 3 };

/* One observation of one GPU at one instant.  Every double is NAN when not
 * measured at this instant; integers use -1 for "not known".  Fields with
 * _min/_max are for rollups (a store's 1-minute rows): when set, the
 * detectors use them beside the average in util_gpu. */
struct gm_dg_point {
    int64_t t_ns; /* wall clock, ns since the epoch (UTC) */
    int lost;     /* 1: the GPU answered GPU_IS_LOST / fell off the bus */

    double util_gpu; /* percent 0..100 */
    double util_gpu_min, util_gpu_max;
    double util_mem; /* memory-controller utilisation, percent */
    double power_w, power_limit_w;
    double sm_clock_mhz, sm_clock_max_mhz;
    double mem_clock_mhz, mem_clock_max_mhz;
    double temp_c, temp_slowdown_c; /* slowdown threshold when known */
    double mem_used_b, mem_total_b; /* bytes */
    double pcie_rx_Bps, pcie_tx_Bps;
    double enc_util, dec_util;      /* percent */
    double sm_active, dram_active;  /* GPM ratios 0..1, NAN without GPM */
    double ecc_uncorrected;         /* volatile uncorrected count */
    double remap_pending;           /* 1 when a row remap is pending */
    double retired_pending;         /* 1 when page retirement is pending */
    int64_t reasons;                /* clock-event reason bits, -1 unknown */
    int pcie_gen, pcie_gen_max;     /* -1 unknown */
    int pcie_width, pcie_width_max; /* -1 unknown */
    int compute_mode;               /* GM_DG_CM_*, -1 unknown */
    int nproc;                      /* processes listed, -1 when not read */
    int nproc_dead;                 /* of them, gone/zombie on the host; -1 unknown */
    double proc_mem_b;              /* memory the listed processes hold; NAN unknown */
    double dead_mem_b;              /* of it, what the gone/zombie ones hold; NAN unknown */
    double pcie_link_Bps;           /* one direction's bandwidth of the current link; NAN */
    /* The host side of the process feeding the GPU (its live compute process
     * using the most CPU; source/hostside.h): NAN / -1 / 0 when not read. */
    uint32_t host_pid;           /* 0 unknown */
    int host_workers;            /* its child processes (DataLoader workers); -1 unknown */
    double host_cpu_pct;         /* the process, % of one core */
    double host_workers_cpu_pct; /* its workers together, % of one core */
    double host_iowait_pct;      /* % of time blocked on block I/O (process or a worker) */
    double psi_cpu, psi_io;      /* pressure stall "some" avg10 %, of its cgroup or the node */
    int psi_scope;               /* 1 its cgroup, 2 the node, 0 unknown */
    /* Who holds the memory: an id of the job of the GPU's first live compute
     * process (any value that differs between jobs, e.g. a hash of its key);
     * 0 = not known or none.  Memory growth is fitted within one owner's
     * life: a change between two known owners starts a new segment. */
    uint64_t owner;
};

/* A point's owner id for a job key ("slurm:42", "pid:7"): never 0; 0 for "". */
uint64_t gm_dg_owner_id(const char *job);

/* Sets every field of p to "not measured" (NAN / -1) with time t_ns. */
void gm_dg_point_init(struct gm_dg_point *p, int64_t t_ns);

/* Facts about a GPU that do not change sample to sample. */
struct gm_dg_gpu_info {
    uint32_t index;
    char uuid[96];
    char name[96];
    /* The job this GPU serves, for straggler detection: GPUs with the same
     * non-empty job key are compared with each other.  Keys name an
     * identity, never a process name: a job id ("slurm:42", "pod:<UID>",
     * "container:<ID>", "unit:<UNIT>", "hpc:<ID>"), "parent:<PPID>" (the
     * children of one launcher) or "pid:<PID>" (one process); the evidence
     * says which grouping it was.  "" = not part of a known job. */
    char job[128];
};

struct gm_dg_opts {
    int64_t max_age_ns; /* incremental use: drop points older than newest - max_age; 0 keeps all */
};

/* One finding.  gpus lists NVML indices (straggler may name several). */
#define GM_DG_MAX_VALUES 16
struct gm_dg_finding {
    enum gm_dg_cause cause;
    enum gm_dg_severity severity;
    uint32_t ngpu;
    uint32_t gpus[64];
    int64_t start_ns, end_ns;
    double confidence; /* 0..1 */
    char evidence[512];
    const char *advice; /* static text */
    uint32_t nvalues;
    struct {
        const char *key; /* static */
        double v;        /* NAN written as null */
    } values[GM_DG_MAX_VALUES];
};

/* Verdict per GPU. */
struct gm_dg_verdict {
    uint32_t index;
    /* "findings" when any finding names this GPU, else a negative:
     * GM_DG_HEALTHY_BUSY, GM_DG_IDLE, GM_DG_LIGHT_LOAD; GM_DG_GPU_LOST when lost. */
    enum gm_dg_cause verdict;
    int has_findings;
    uint64_t causes; /* bit (1 << cause) for each finding on this GPU */
    size_t npoints;  /* points seen in the window */
};

struct gm_dg_result {
    int64_t start_ns, end_ns; /* the window evaluated (clipped to the data) */
    size_t nfinding;
    struct gm_dg_finding *findings;
    size_t ngpu;
    struct gm_dg_verdict *gpus;
};

struct gm_dg;

/* A new, empty analyser.  opts may be NULL.  Aborts on out-of-memory. */
struct gm_dg *gm_dg_new(const struct gm_dg_opts *opts);

void gm_dg_free(struct gm_dg *d);

/* Declares (or updates) a GPU's facts; GPUs are also created by gm_dg_add. */
void gm_dg_set_gpu(struct gm_dg *d, const struct gm_dg_gpu_info *info);

/* Adds one point for GPU index gpu (copied).  Returns 0, or GM_E... when
 * the point is older than the GPU's last point (it is then ignored). */
int gm_dg_add(struct gm_dg *d, uint32_t gpu, const struct gm_dg_point *p);

/* Evaluates every detector over [from_ns, to_ns] (0 = from the first / to
 * the last point) and fills *out (owned by the caller: gm_dg_result_free).
 * Deterministic: the same points give the same findings. */
int gm_dg_eval(const struct gm_dg *d, int64_t from_ns, int64_t to_ns, struct gm_dg_result *out);

void gm_dg_result_free(struct gm_dg_result *r);

/* The bytes d holds for its points and GPUs (its own allocations; what
 * max_age keeps bounds it once the window is full). */
size_t gm_dg_mem_bytes(const struct gm_dg *d);

/* The facts of GPU index (zeroed, with the index, when never declared). */
struct gm_dg_gpu_info gm_dg_gpu(const struct gm_dg *d, uint32_t index);

/* Writes r as the documented JSON (docs/diagnose.md, schema
 * "gpumon.diagnose/1"); source is "live", "store" or "csv".  Text from
 * outside (GPU names, job names) is escaped. */
struct gm_buf;
void gm_dg_json(const struct gm_dg *d, const struct gm_dg_result *r, const char *source, int pretty,
                struct gm_buf *out);

/* The same as text for a terminal: one line per GPU with its verdict, then
 * each finding with its evidence and advice; outside text made safe for a
 * terminal (utf8: whether the terminal takes UTF-8). */
void gm_dg_text(const struct gm_dg *d, const struct gm_dg_result *r, const char *source, int utf8,
                struct gm_buf *out);

/* Stable name ("input-starved") of a cause; "?" when out of range. */
const char *gm_dg_cause_name(enum gm_dg_cause c);

/* The cause whose name is s, or -1. */
int gm_dg_cause_from_name(const char *s);

const char *gm_dg_severity_name(enum gm_dg_severity s);

/* Severity from "info"/"warning"/"critical", or -1. */
int gm_dg_severity_from_name(const char *s);

/* ---- from snapshots (live use and the agent) ----------------------------- */

struct gm_snapshot;

/* Adds one point per GPU of snapshot s whose bit is set in mask (bit k for
 * s->gpus[k], as gm_query_select makes it; all GPUs when mask is 0) and declares each GPU's facts
 * (uuid, name, and as its job the identity of its first live compute process by pid: its job id
 * from attribution, else "parent:<PPID>" when its parent is a launcher (not init, not its session's
 * leader), else "pid:<PID>"; "" with none).
 * Values the snapshot has as not available stay NAN / -1.  Returns 0. */
int gm_dg_add_snapshot(struct gm_dg *d, const struct gm_snapshot *s, uint64_t mask);

#endif /* GM_INSIGHT_DIAGNOSE_H */

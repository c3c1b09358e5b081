/* snapshot.h -- everything gpumon knows about the machine at one instant.
 *
 * DESIGN principle 2: one sampler fills a snapshot (all GPUs, their MIG
 * devices and processes, host facts), after which it is immutable and shared
 * by every consumer.  A snapshot owns all its memory: gm_snapshot_free()
 * releases it, gm_snapshot_copy() makes an independent deep copy.
 *
 * Values are indexed by metric id (metrics.h) and carry their own status
 * (value.h).  Principle 4: each snapshot has a wall-clock and a monotonic
 * timestamp.
 */
#ifndef GM_SNAPSHOT_H
#define GM_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "attrib.h"
#include "metrics.h"
#include "value.h"

/* Why there are no GPUs (or fewer than usual). */
enum gm_driver_state {
    GM_DRV_OK = 0,
    GM_DRV_NOLIB,      /* libnvidia-ml.so.1 could not be loaded */
    GM_DRV_NOT_LOADED, /* NVML_ERROR_DRIVER_NOT_LOADED */
    GM_DRV_NOPERM,     /* NVML_ERROR_NO_PERMISSION */
    GM_DRV_MISMATCH,   /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
    GM_DRV_ERROR,      /* any other init/enumeration failure */
};

/* State of one GPU in a snapshot. */
enum gm_gpu_state {
    GM_GPU_OK = 0,
    GM_GPU_LOST,   /* NVML_ERROR_GPU_IS_LOST: fell off the bus */
    GM_GPU_NOPERM, /* no permission to open the device, or every value read this
                      sample was refused (permission revoked while the handle is held) */
    GM_GPU_ERROR,  /* handle could not be obtained for another reason, or every
                      value read this sample failed with another error */
};

/* Process type bits (nvidia-smi prints C, G or C+G). */
enum { GM_PT_COMPUTE = 1, GM_PT_GRAPHICS = 2, GM_PT_MPS = 4 };

/* Host-side state of a GPU process, from /proc. */
enum gm_host_state {
    GM_HS_UNKNOWN = 0, /* not looked up (procfs enrichment off) */
    GM_HS_ALIVE,       /* exists, not a zombie */
    GM_HS_ZOMBIE,      /* exited but not reaped: its GPU memory may never be freed */
    GM_HS_GONE,        /* no such PID in /proc: memory held by a process that does not exist */
    GM_HS_HIDDEN,      /* /proc denies access (other user, hidepid) */
};

#define GM_NO_INSTANCE 0xFFFFFFFFu
#define GM_MIG_MAX 8
/* Job ids a GPU keeps from the job-mapping directory (source/jobmap.h):
 * at most this many, each shorter than GM_HPC_JOB_LEN. */
#define GM_HPC_JOBS_MAX 8
#define GM_HPC_JOB_LEN 64

/* One NVLink link of a GPU (`status --json --nvlink`; docs/json.md).  Each
 * value is ok or says why not, as the registry's values do. */
#define GM_NVLINK_MAX 18 /* NVML_NVLINK_MAX_LINKS */
struct gm_nvlink {
    uint32_t link;           /* NVML's link number */
    struct gm_value up;      /* 1 up, 0 down (nvmlDeviceGetNvLinkState) */
    struct gm_value version; /* nvmlDeviceGetNvLinkVersion */
    struct gm_value remote;  /* status of remote_pci */
    char remote_pci[32];     /* the far end's PCI bus id (an NVSwitch or a GPU) */
    struct gm_value tx, rx;  /* payload bytes since the driver loaded (u64) */
    struct gm_value err[4];  /* replay, recovery, CRC flit, CRC data (u64); only of links up */
};

struct gm_mig {
    uint32_t index;               /* MIG device index under its GPU */
    uint32_t gpu_instance_id;     /* GM_NO_INSTANCE when NVML did not say */
    uint32_t compute_instance_id; /* GM_NO_INSTANCE when NVML did not say */
    /* NVML's answer when the id or string above is unknown (GM_NO_INSTANCE,
     * ""), for the reason status --json --gpm gives; 0 when not asked. */
    int16_t gpu_instance_code;
    int16_t compute_instance_code;
    int16_t uuid_code;
    int16_t name_code;
    char uuid[GM_STR_MAX];
    char name[GM_STR_MAX];     /* e.g. "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
    char profile[32];          /* e.g. "1g.10gb", from the name; "" if unknown */
    struct gm_value mem_total; /* bytes */
    struct gm_value mem_used;
    struct gm_value mem_free;
    /* Reserved memory (nvmlDeviceGetMemoryInfo_v2; not supported through the
     * v1 call) and BAR1 (NA with GM_CODE_NOT_COLLECTED when the GPU's BAR1
     * read group is off), in bytes, read on the MIG device's own handle as
     * DCGM reads them for a GPU instance. */
    struct gm_value mem_reserved;
    struct gm_value bar1_total;
    struct gm_value bar1_used;
    /* GPM metrics of the GPU instance (nvmlGpmMigSampleGet), indexed by
     * metric id - GM_GPM_FIRST: values of the same unit as the GPU's; NA with
     * GM_CODE_NOT_COLLECTED when GPM was not asked for. */
    struct gm_value gpm[GM_GPM_COUNT];
};

/* Where a process's pressure stall figures come from. */
enum gm_psi_scope { GM_PSI_NONE = 0, GM_PSI_CGROUP, GM_PSI_NODE };

/* The host side of a GPU process: what feeds the GPU (src/source/hostside.c).
 * Nothing in it is known unless read is 1; a figure not read is NAN (-1 for
 * workers), never 0.  CPU and I/O wait are rates since the previous sample of
 * the same process (same pid and start time): NAN at first sight. */
struct gm_host_side {
    uint8_t read;           /* 1: read in this sample */
    uint8_t psi_scope;      /* enum gm_psi_scope */
    int32_t workers;        /* child processes (DataLoader workers); -1 unknown */
    double cpu_pct;         /* the process itself, % of one core */
    double workers_cpu_pct; /* its children together, % of one core */
    double workers_cpu_max; /* the busiest child, % of one core */
    double iowait_pct;      /* % of the time blocked on block I/O (delay accounting):
                               the process's, or its most-waiting child's when higher */
    double psi_cpu, psi_io; /* "some" avg10 %: its cgroup's (v2) or the node's */
};

struct gm_proc {
    uint32_t gpu; /* index into gm_snapshot.gpus */
    uint32_t pid;
    uint8_t type;                 /* GM_PT_* bits */
    uint8_t host_state;           /* enum gm_host_state */
    uint8_t simulated;            /* 1: host_state and the /proc facts come from the NVML
                                     simulator's view of a pid >= GM_PID_SIM_MIN
                                     (source/procfs.h), not from this host */
    char state_char;              /* /proc state letter (R, S, D, Z, ...) or 0 */
    uint32_t ppid;                /* parent pid from /proc/PID/stat; 0 unknown */
    uint32_t sid;                 /* session id from /proc/PID/stat; 0 unknown */
    uint32_t gpu_instance_id;     /* GM_NO_INSTANCE when not MIG */
    uint32_t compute_instance_id; /* GM_NO_INSTANCE when not MIG */
    uint32_t uid;
    struct gm_value used_memory; /* bytes; NA for NVML_VALUE_NOT_AVAILABLE */
    struct gm_value sm_util;     /* percent, from nvmlDeviceGetProcessUtilization */
    struct gm_value mem_util;
    struct gm_value enc_util;
    struct gm_value dec_util;
    struct gm_value start_time; /* wall clock, ns since the epoch */
    struct gm_value elapsed;    /* seconds (double) */
    struct gm_value cpu;        /* percent of one core since the previous sample */
    struct gm_value rss;        /* bytes */
    char name[64];              /* nvmlSystemGetProcessName (what nvidia-smi prints) */
    int16_t name_code;          /* its NVML return code when it failed ("" name), else 0 */
    char comm[64];              /* /proc/PID/comm; "" when unknown */
    char user[33];              /* login name, or the numeric uid */
    char *cmdline;              /* NUL separators replaced by spaces; NULL if unknown */
    char *exe;                  /* /proc/PID/exe target; NULL if unknown */
    char *cgroup;               /* first line of /proc/PID/cgroup (path part); NULL if unknown */
    uint32_t nspid;             /* the PID inside its own PID namespace (the last NSpid of
                                   /proc/PID/status); 0 unknown */
    struct gm_attrib attrib;    /* container, pod, Slurm job or unit, from cgroup (attrib.h) */
    struct gm_host_side host;   /* CPU, workers, I/O wait, pressure (hostside.h) */
};

struct gm_gpu {
    uint32_t index;     /* NVML index */
    uint8_t state;      /* enum gm_gpu_state */
    int16_t state_code; /* NVML return code behind state */
    struct gm_value m[GM_M__GPU_END];
    char str[GM_S__COUNT][GM_STR_MAX];
    uint32_t nmig;
    struct gm_mig mig[GM_MIG_MAX];
    /* Whether the MIG devices were read whole (OK also when MIG is off or
     * not supported), or why not (then nmig is 0); NA with
     * GM_CODE_NOT_COLLECTED when not read (the MIG mode not asked for, a
     * GPU that is down). */
    struct gm_value mig_list;
    uint32_t proc_first; /* this GPU's processes: snapshot procs[proc_first .. +nproc) */
    uint32_t nproc;
    /* Whether the process list was read whole: OK, or why not (the
     * processes listed are then those of the lists NVML did give: the
     * graphics processes when the compute list failed); NA with
     * GM_CODE_NOT_COLLECTED when it was not read (processes not asked for,
     * a GPU that is down). */
    struct gm_value proc_list;
    uint8_t procs_listed; /* 1 when NVML answered both process lists (compute and graphics)
                             this sample: nproc 0 then means none, not unknown
                             (the same as gm_v_ok(&proc_list)) */
    /* Processes NVML listed on this GPU beyond the GM_NVML_PROC_MAX the
     * snapshot keeps (source/nvml.h): they use the GPU but are not among
     * its nproc.  0 when all are there. */
    uint32_t proc_dropped;
    /* The causes the agent's running diagnosis finds on this GPU (bit
     * 1 << enum gm_cause, core/cause.h); only when diag_known is 1 (0: no
     * diagnosis runs, as in one-shot commands: unknown, not "none"). */
    uint32_t diag;
    uint8_t diag_known;
    /* The job ids the job-mapping directory names for this GPU
     * (dcgm-exporter's --hpc-job-mapping-dir: the lines of the file named
     * by the GPU's index; source/jobmap.h, docs/jobs.md).  hpc_known 0:
     * no directory is configured, or it or the file could not be read
     * (unknown); 1 with nhpc_jobs 0: the GPU has no file or an empty one
     * (none).  hpc_dropped counts ids beyond GM_HPC_JOBS_MAX.  hpc_read 1:
     * a directory is configured and was looked at (hpc_known 0 then means
     * it or the file could not be read; 0: nobody asked). */
    uint8_t hpc_known;
    uint8_t hpc_read;
    uint8_t nhpc_jobs;
    uint16_t hpc_dropped;
    char hpc_jobs[GM_HPC_JOBS_MAX][GM_HPC_JOB_LEN];
    /* The NVLink links, one by one: read only when asked for
     * (GM_NVML_NVLINK_LINKS); nvlink_list is OK when they were read whole,
     * NOT_SUPPORTED on a GPU without NVLink (nnvlink 0), an error, or NA
     * with GM_CODE_NOT_COLLECTED when not asked for.  nvlink holds nnvlink
     * entries (at most GM_NVLINK_MAX), NULL when there are none; the
     * snapshot owns it (freed and deep-copied with the snapshot; a GPU
     * array resized by gm_snapshot_set_gpus frees it first).  On the heap
     * so that the GPU object stays small when nobody asks (18 links are
     * 3 KB a GPU, touched by every sample otherwise). */
    uint32_t nnvlink;
    struct gm_nvlink *nvlink;
    struct gm_value nvlink_list;
};

struct gm_strpool;

struct gm_snapshot {
    int refs;             /* reference count (gm_snapshot_ref/unref); 1 after new */
    uint64_t seq;         /* sample number, from 1 */
    int64_t wall_ns;      /* CLOCK_REALTIME at the start of the sample */
    int64_t mono_ns;      /* CLOCK_MONOTONIC at the start of the sample */
    int32_t utc_offset_s; /* local time zone offset at wall_ns */
    int64_t duration_ns;  /* how long the sample took (monotonic) */
    /* The slow read groups' period (source/nvml.h, gm_nvml_set_cadence):
     * > 0 when values of slow groups may be reused from earlier reads (the
     * agent), each with its age_ms; the outputs then show the ages. */
    int64_t slow_ns;
    char hostname[65];

    uint8_t driver;                 /* enum gm_driver_state */
    int16_t driver_code;            /* NVML return code behind it */
    char driver_msg[512];           /* human explanation when driver != OK */
    struct gm_value driver_version; /* status of the string below */
    char driver_version_s[80];
    struct gm_value nvml_version;
    char nvml_version_s[80];
    struct gm_value cuda_version; /* e.g. 12040 (u64); print as 12.4 */

    uint32_t ngpu;
    uint32_t gpu_cap; /* allocated entries of gpus (kept by gm_snapshot_clear) */
    struct gm_gpu *gpus;
    uint32_t nproc;
    uint32_t proc_cap; /* allocated entries of procs (kept by gm_snapshot_clear) */
    struct gm_proc *procs;
    /* The string buffers of the processes a clear let go, for
     * gm_snapshot_strdup to fill again (snapshot.c). */
    struct gm_strpool *spare;
};

/* Allocates an empty snapshot (no GPUs) holding one reference. Aborts on
 * out-of-memory. */
struct gm_snapshot *gm_snapshot_new(void);

/* Resizes the GPU array to n entries, all marked with every value NA. */
void gm_snapshot_set_gpus(struct gm_snapshot *s, uint32_t n);

/* Appends one process (copied; its strings are taken over: the caller must
 * not free them) and returns it. */
struct gm_proc *gm_snapshot_add_proc_take(struct gm_snapshot *s, const struct gm_proc *p);

/* Zeroes the snapshot, ready for reuse.  It keeps its GPU and process
 * arrays and its processes' strings' buffers (for gm_snapshot_strdup), so
 * that a snapshot filled again with as much allocates nothing. */
void gm_snapshot_clear(struct gm_snapshot *s);

/* A copy of src for one of s's process strings (cmdline, exe, cgroup),
 * in a buffer a clear of s kept when one is large enough, else a new one.
 * NULL for NULL.  Aborts on out-of-memory. */
char *gm_snapshot_strdup(struct gm_snapshot *s, const char *src);

/* A deep copy. */
struct gm_snapshot *gm_snapshot_copy(const struct gm_snapshot *s);

void gm_snapshot_free(struct gm_snapshot *s);

/* Shared, immutable snapshots: ref takes another reference (thread-safe),
 * unref drops one and frees the snapshot with the last.  Both accept NULL. */
struct gm_snapshot *gm_snapshot_ref(struct gm_snapshot *s);
void gm_snapshot_unref(struct gm_snapshot *s);

/* Value of metric id on a GPU (GPU- or host-scope metric). */
const struct gm_value *gm_gpu_value(const struct gm_snapshot *s, const struct gm_gpu *g, int id);

/* The process feeding GPU g: of its compute processes whose host side was
 * read, the one using the most CPU (the first when no rate is known yet);
 * NULL when none was read. */
const struct gm_proc *gm_gpu_feeder(const struct gm_snapshot *s, const struct gm_gpu *g);

/* The job on GPU g (docs/jobs.md): that of its first process that
 * belongs to one (gm_attrib_job), else the first job the job-mapping
 * directory names for it (gm_hpc_job_key), else "".  Written to buf (len
 * >= 128 always fits). */
const char *gm_gpu_job(const struct gm_snapshot *s, const struct gm_gpu *g, char *buf, size_t len);

/* The GPU whose index is idx, or NULL. */
const struct gm_gpu *gm_snapshot_gpu_by_index(const struct gm_snapshot *s, uint32_t idx);

const char *gm_driver_state_name(enum gm_driver_state st);
const char *gm_gpu_state_name(enum gm_gpu_state st);
const char *gm_host_state_name(enum gm_host_state st);

#endif /* GM_SNAPSHOT_H */

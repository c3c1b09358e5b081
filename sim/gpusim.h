/* gpusim.h -- the simulator's core: scenario files, GPU model presets, the
 * workload physics, faults and scenario time.
 *
 * This is the contract between the scenario/model code (the static library
 * gpusim_core) and the two consumers: the exported NVML entry points in
 * sim/api_*.c and the unit tests.  Everything here is pure data plus
 * functions of (scenario, GPU, scenario time t): the same scenario at the same
 * t gives the same values in every process.  The only mutable state is the
 * energy/violation integration cache inside struct gs_scenario; callers
 * serialise access to one scenario (the API layer holds its mutex).
 *
 * Left out on purpose: anything about NVML handles, init refcounts, locking
 * or the wall clock's use by events -- those live in sim/api.h.
 */
#ifndef GS_GPUSIM_H
#define GS_GPUSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/nvml_abi.h"

#define GS_MAX_GPUS 64
#define GS_MAX_MIG 7
/* Most processes one [process.NAME] section may stand for (`count`): enough
 * to go past gpumon's own bound of 65536 per list. */
#define GS_MAX_PROC_COUNT 100000
#define GS_NO_GPU (-1)

/* ---------------------------------------------------------------- names */

/* Every NVML function the simulator exports plus the field-value ids it
 * answers, by name.  Scenario keys `unsupported =` and `call =` refer to these
 * names; the API layer looks its own __func__ up here. */
enum gs_name_kind { GS_NAME_FUNCTION, GS_NAME_FIELD };

struct gs_name {
    const char *name;
    enum gs_name_kind kind;
    unsigned field_id; /* for GS_NAME_FIELD */
};

extern const struct gs_name gs_names[];
extern const size_t gs_name_count;
#define GS_NAMES_MAX 512

/* GPUSIM_COUNT's file (sim/api_core.c, docs/simulator.md): one record of
 * GS_COUNT_REC bytes per function, in gs_names order: the name in the first
 * GS_COUNT_NAME bytes (NUL padded), then the calls as a uint64_t. */
#define GS_COUNT_NAME 56
#define GS_COUNT_REC 64

/* Index of name in gs_names, or -1 when unknown. */
int gs_name_index(const char *name);
/* Index of the field with this NVML_FI_* id, or -1 when the sim does not know it. */
int gs_field_index(unsigned field_id);

/* -------------------------------------------------------------- presets */

/* Architecture numbers as nvmlDeviceGetArchitecture reports them. */
enum {
    GS_ARCH_KEPLER = 2,
    GS_ARCH_MAXWELL = 3,
    GS_ARCH_PASCAL = 4,
    GS_ARCH_VOLTA = 5,
    GS_ARCH_TURING = 6,
    GS_ARCH_AMPERE = 7,
    GS_ARCH_ADA = 8,
    GS_ARCH_HOPPER = 9,
    GS_ARCH_BLACKWELL = 10,
};

/* nvmlBrandType_t values (nvml.h); nvml_abi.h declares only UNKNOWN. */
enum {
    GS_BRAND_UNKNOWN = 0,
    GS_BRAND_QUADRO = 1,
    GS_BRAND_TESLA = 2,
    GS_BRAND_NVS = 3,
    GS_BRAND_GEFORCE = 5,
    GS_BRAND_TITAN = 6,
    GS_BRAND_QUADRO_RTX = 12,
    GS_BRAND_NVIDIA_RTX = 13,
    GS_BRAND_NVIDIA = 14,
};

/* A board as shipped: identity, limits and thermal design.  Every field can
 * be overridden per GPU in a scenario. */
struct gs_preset {
    const char *key;  /* scenario spelling, e.g. "H100-SXM5-80GB" */
    const char *name; /* nvmlDeviceGetName */
    unsigned brand, arch;
    int cc_major, cc_minor;
    unsigned pci_device_id; /* 16-bit PCI device id; vendor 0x10DE is added */
    unsigned pci_subsystem_id;
    const char *part_number, *vbios;
    unsigned mem_total_mib, mem_reserved_mib, bar1_total_mib;
    double power_default, power_min, power_max, power_idle;             /* W */
    unsigned clock_max[NVML_CLOCK_COUNT], clock_idle[NVML_CLOCK_COUNT]; /* MHz */
    unsigned temp_shutdown, temp_slowdown, temp_gpu_max, temp_mem_max;  /* 0: no sensor */
    double temp_nominal;    /* degC at default power limit, 25 degC air, cooling 1 */
    double mem_temp_offset; /* HBM/GDDR above the GPU; < -100: no sensor */
    unsigned pcie_gen, pcie_width;
    unsigned fans;
    bool ecc, mig, display;
};

extern const struct gs_preset gs_presets[];
extern const size_t gs_preset_count;

/* The preset called key (case-insensitive), or NULL. */
const struct gs_preset *gs_preset_find(const char *key);

/* ------------------------------------------------------------- scenario */

enum gs_workload_kind {
    GS_WL_IDLE,
    GS_WL_STEADY,
    GS_WL_HEARTBEAT,
    GS_WL_RAMP,
    GS_WL_LEAK,
    GS_WL_THERMAL,
    GS_WL_POWERCAP,
    GS_WL_LOWINTENSITY, /* launch-bound: busy, low SM activity and power */
    GS_WL_MEMBOUND,     /* memory-bandwidth bound */
    GS_WL_TRANSFER,     /* host-to-device copy bound */
    GS_WL_ENCODE,       /* video encoder bound */
    GS_WL_DECODE,       /* video decoder bound */
    GS_WL_INFERENCE,    /* random short requests, low mean load */
};

/* What runs on a GPU, as parameters of closed-form functions of t.
 * Percentages are 0..100, sizes bytes, rates bytes/s, times seconds. */
struct gs_workload {
    enum gs_workload_kind kind;
    double util, mem_util, enc_util, dec_util;
    double memory_used;
    double hb_period, hb_duty, hb_jitter;
    double ramp_from, ramp_to, ramp_start, ramp_duration;
    double leak_rate;
    double power_demand; /* W at 100 % util with nothing limiting it */
    double pcie_rx, pcie_tx;
    /* GPM activity at full load (fractions 0..1) and NVLink rates (B/s);
     * NAN until the loader fills in the workload's defaults. */
    double sm_activity, sm_occupancy, tensor_activity, dram_activity;
    double fp64_activity, fp32_activity, fp16_activity;
    double nvlink_rx, nvlink_tx;
    double hb_floor;   /* % utilisation in a heartbeat's idle phase */
    double util_noise; /* +- % noise of busy utilisation */
};

struct gs_gi_profile;

struct gs_mig_dev {
    char profile[16]; /* "3g.40gb" */
    unsigned slices;
    unsigned long long mem_total;
    unsigned gi_id, ci_id;
    char name[96], uuid[96];
    const struct gs_gi_profile *gip; /* the board's GPU instance profile (sim/mig.c) */
    unsigned start;                  /* GPU instance placement: first memory slice */
};

struct gs_gpu {
    const struct gs_preset *preset;
    char name[96], uuid[96], serial[32], part_number[80], vbios[32];
    unsigned pci_domain, pci_bus, pci_device;
    unsigned pci_device_id, pci_subsystem_id; /* device_id already has 0x10DE */
    unsigned minor, brand, arch;
    int cc_major, cc_minor;
    unsigned long long mem_total, mem_reserved, bar1_total;
    double power_limit, power_default, power_min, power_max, power_idle; /* W */
    unsigned clock_max[NVML_CLOCK_COUNT], clock_idle[NVML_CLOCK_COUNT];
    unsigned temp_shutdown, temp_slowdown, temp_gpu_max, temp_mem_max;
    bool mem_temp;
    double mem_temp_offset;
    double ambient, cooling, thermal_r, tau;
    double temp_start; /* NAN: workload default */
    unsigned pcie_gen, pcie_width, pcie_width_cur;
    unsigned pcie_gen_load;               /* link generation while loaded (idle: gen 1) */
    unsigned app_clock[NVML_CLOCK_COUNT]; /* application clocks; default = max */
    double pcie_replays_per_hour;
    unsigned fans;
    bool ecc_capable, ecc, ecc_pending, persistence, display_active, display_mode, mig_capable;
    bool accounting; /* per-process accounting mode (scenario key `accounting`, off by default) */
    unsigned compute_mode;
    bool has_unsupported;
    unsigned char unsupported[GS_NAMES_MAX];
    uint32_t nvlink_down; /* bit l: NVLink link l is down (scenario key nvlink_down) */
    unsigned nmig;        /* > 0: MIG mode on */
    struct gs_mig_dev mig[GS_MAX_MIG];
    struct gs_workload wl;
    /* Driver state the setters of sim/api_set.c change, in this process
     * only and until its last nvmlShutdown (the next init reloads the
     * scenario).  The loader leaves it zero: nothing set. */
    struct {
        double acct_since;                 /* accounting lists processes started at or after t */
        bool acct_cleared;                 /* nvmlDeviceClearAccountingPids was called at... */
        double acct_cleared_t;             /* ...this t: processes ended by then are not listed */
        unsigned long long ecc_base[2][2]; /* [volatile, aggregate][corrected, uncorrected] */
        unsigned locked_gpu[2], locked_mem[2]; /* locked [min, max] MHz; max 0: not locked */
        bool api_unrestricted[2];              /* nvmlRestrictedAPI_t: root no longer needed */
        bool mig_pending_set, mig_pending;     /* MIG mode after the next GPU reset */
        bool drained;
        int vf_offset[2]; /* GPC and memory clock V/F offsets, MHz (GeForce) */
        bool autoboost_off, autoboost_default_off; /* pre-Volta boards only */
        unsigned char fan_manual[8]; /* per fan (scenario `fans` <= 8): the speed (%) set
                                      * by nvmlDeviceSetFanSpeed_v2; 0: the driver's curve */
    } set;
};

enum { GS_PT_COMPUTE = 1, GS_PT_GRAPHICS = 2, GS_PT_MPS = 4 };
enum gs_mem_mode { GS_MEM_FIXED, GS_MEM_SHARE, GS_MEM_NA };

/* The host side of a process (sim/hostside.c): NAN / -1 when not given. */
#define GS_HOST_MAX_WORKERS 64
struct gs_host {
    bool set;               /* any host key given: its files are written */
    int workers;            /* child processes */
    double worker_cpu;      /* % of one core, each worker */
    double iowait;          /* % of the time blocked on block I/O */
    double psi_cpu, psi_io; /* its cgroup's pressure, "some" avg10 % */
};

struct gs_process {
    char key[64];
    char name[256];
    unsigned pid;
    uint64_t gpus;  /* bit i: runs on GPU i */
    unsigned types; /* GS_PT_* */
    enum gs_mem_mode mem_mode;
    unsigned long long used_memory; /* GS_MEM_FIXED */
    double sm_util, mem_util;       /* NAN: a share of the GPU's */
    double start, end;              /* active in [start, end) */
    int mig;                        /* MIG device index, -1 when none */
    /* `pid_file = PATH` (owned): the pid is read from this file at every
     * call (gs_proc_refresh) and the process exists only while the file
     * names a live, non-zombie process; NULL for a fixed pid. */
    char *pid_file;
    bool dyn_live; /* pid_file's process is alive (pid is then its pid; 0 when not) */
    /* The simulated /proc view (sim/procview.c) of a pid at or above
     * GS_PID_SIM_MIN: `alive = no` makes it a process that is gone from the
     * host (memory held by a dead process); cmdline (NULL: the name; owned
     * by the scenario's cmdlines) and cpu are what /proc/PID/cmdline, the
     * CPU times and the RSS say.  cpu (`cpu`, percent of one core, 0 to
     * 6400, default 100) is the one CPU use of the process: the /proc view's
     * utime and the host side's stat (sim/hostside.c) both grow by it. */
    bool dead;
    const char *cmdline;
    double cpu;
    double rss; /* bytes of host memory */
    struct gs_host host;
};

/* Linux's PID_MAX_LIMIT: the kernel never hands out a pid at or above it, so
 * such a pid in a scenario can only be a simulated process (sim/procview.c). */
#define GS_PID_SIM_MIN 4194304u

/* Sets h to "no host side given". */
void gs_host_init(struct gs_host *h);
/* Reads host key k = v of process p: `cpu` into p->cpu, the others into
 * p->host; any of them marks p->host.set.  1 when k is a host key and v is
 * good, 0 when k is not a host key, -1 with *want (what would be) when v is
 * bad. */
int gs_host_key(struct gs_process *p, const char *k, const char *v, const char **want);
struct gs_timecfg;
struct gs_scenario;
/* With $GPUSIM_HOST_ROOT set, writes the host view of the processes on GPU
 * gpu at scenario time t that have a host side (sim/hostside.c). */
void gs_host_write(const struct gs_scenario *s, const struct gs_timecfg *tc, unsigned gpu,
                   double t);
/* What the host side file `file` (stat, children, cgroup, cpu.pressure,
 * io.pressure) of simulated pid holds at scenario time t: for a process
 * with a host side and a pid at or above GS_PID_SIM_MIN, alive at t, or one
 * of its workers (stat only).  Copies at most cap bytes (no terminator) and
 * returns the length; -ENOENT for no such process, -EINVAL for another
 * file.  Call with the library's lock held (sim/procview.c). */
int gs_host_read(const struct gs_scenario *s, const struct gs_timecfg *tc, double t, unsigned pid,
                 const char *file, char *buf, size_t cap);

enum gs_fault_kind {
    GS_FAULT_DRIVER_NOT_LOADED,
    GS_FAULT_VERSION_MISMATCH,
    GS_FAULT_NO_PERMISSION,
    GS_FAULT_GPU_LOST,
    GS_FAULT_HANG,
    GS_FAULT_ECC,
    GS_FAULT_XID,
    GS_FAULT_HW_SLOWDOWN,
};

struct gs_fault {
    char key[64];
    enum gs_fault_kind kind;
    double at, until; /* active in [at, until) */
    int gpu;          /* GS_NO_GPU: all GPUs */
    int call;         /* gs_names index, -1: every call ('*') */
    double seconds;
    unsigned long long corrected, uncorrected;
    unsigned xid;
    bool power_brake; /* hw_slowdown: also HW power brake */
};

/* One NVML event the scenario will raise, in delivery order. */
struct gs_event {
    double at;
    unsigned gpu;
    unsigned long long type; /* nvmlEventType* bit */
    unsigned long long data; /* Xid number, or 0 */
};

struct gs_integ; /* per-GPU integration cache, private to model.c */

struct gs_scenario {
    char path[512];
    char driver_version[80], nvml_version[80];
    int cuda_version;
    bool driver_version_set, nvml_version_set, cuda_version_set;
    uint64_t seed;
    bool nvswitch;           /* [machine] nvlink = nvswitch: SXM GPUs joined by NVSwitches */
    unsigned nvlink_bw_mode; /* set by nvmlSystemSetNvlinkBwMode in this process; 0 FULL */
    unsigned ngpus;
    struct gs_gpu *gpus;
    size_t nprocs;
    struct gs_process *procs;
    size_t *by_pid; /* indices of fixed-pid procs sorted by (pid, index): gs_proc_by_pid */
    size_t nby_pid; /* entries of by_pid (the processes without pid_file) */
    size_t ndyn;    /* processes with pid_file */
    size_t *dyn;    /* their indices, in file order */
    size_t nfaults;
    struct gs_fault *faults;
    size_t nevents;
    struct gs_event *events;
    struct gs_integ *integ; /* mutable cache; callers serialise */
    /* [machine] start: the scenario time at a session's first init when
     * GPUSIM_EPOCH and GPUSIM_TIME are unset (the story is already that far
     * along when a user first looks); 0 by default. */
    double start;
    char **cmdlines; /* owned strings that processes' cmdline point into */
    size_t ncmdlines;
};

/* Loads and validates a scenario file.  On failure returns -1 and writes
 * "FILE:LINE: reason" (or "FILE: reason") into err; *out is then NULL. */
int gs_scenario_load(const char *path, struct gs_scenario **out, char *err, size_t errlen);

/* The same from a string; name stands in for the file name in messages. */
int gs_scenario_parse_string(const char *name, const char *text, struct gs_scenario **out,
                             char *err, size_t errlen);

/* Frees a scenario; accepts NULL. */
void gs_scenario_free(struct gs_scenario *s);

/* ----------------------------------------------------------- value parsers */

/* Parsers for scenario values.  Each returns 0 and stores the value, or -1
 * (value untouched) when text is not a valid value of that kind.  Leading and
 * trailing blanks must already be trimmed. */
int gs_parse_double(const char *text, double *out);
int gs_parse_uint(const char *text, unsigned long long max, unsigned long long *out);
int gs_parse_bool(const char *text, bool *out);
int gs_parse_percent(const char *text, double *out); /* "95", "95%" */
int gs_parse_size(const char *text, double *out);    /* "30GiB", "512MB" */
int gs_parse_rate(const char *text, double *out);    /* "20MiB/min" -> B/s */
int gs_parse_seconds(const char *text, double *out); /* "60", "1.5min", "500ms" */
int gs_parse_watts(const char *text, double *out);   /* "700W", "700000mW" */
int gs_parse_celsius(const char *text, double *out); /* "89", "89C" */
int gs_parse_clock(const char *text, unsigned *out); /* "1980", "1980MHz", "1.98GHz" */

/* "DOMAIN:BUS:DEVICE.0" or "BUS:DEVICE.0" (hex; the function must be 0). */
int gs_parse_bus_id(const char *text, unsigned *domain, unsigned *bus, unsigned *device);
/* "MAJOR.MINOR", and with allow_patch also "MAJOR.MINOR.PATCH" (patch dropped). */
int gs_parse_major_minor(const char *text, bool allow_patch, unsigned *major, unsigned *minor);
/* A MIG profile "Ng.Mgb" with N in 1, 2, 3, 4, 7. */
int gs_parse_mig_profile(const char *text, unsigned *slices, unsigned *gb);

/* ------------------------------------------------------------------ MIG */

/* One GPU instance profile of a board, as `nvidia-smi mig -lgip` lists it
 * (sim/mig.c holds the tables and their sources). */
struct gs_gi_profile {
    unsigned index;      /* NVML_GPU_INSTANCE_PROFILE_* */
    unsigned id;         /* the profile id NVML and nvidia-smi report (19, 14, 9, ...) */
    const char *name;    /* "1g.10gb" */
    unsigned slices;     /* compute slices */
    unsigned mem_slices; /* memory slices (placement size), of 8 */
    unsigned starts;     /* bit i: a placement may start at memory slice i */
    unsigned count;      /* most instances at once */
    unsigned sm, ce, dec, enc, jpeg, ofa;
    unsigned long long mem_mib;
};

#define GS_MIG_COMPUTE_SLICES 7
#define GS_MIG_MEMORY_SLICES 8

/* The GPU instance profiles of preset p (NULL and *n = 0 when it has none). */
const struct gs_gi_profile *gs_mig_profiles(const struct gs_preset *p, size_t *n);
/* Lookups in p's table by NVML profile index, by profile id, by name; NULL when absent. */
const struct gs_gi_profile *gs_mig_profile_by_index(const struct gs_preset *p, unsigned index);
const struct gs_gi_profile *gs_mig_profile_by_id(const struct gs_preset *p, unsigned id);
const struct gs_gi_profile *gs_mig_profile_by_name(const struct gs_preset *p, const char *name);

/* Gives each MIG device of g its profile and a placement that does not
 * overlap the others' (in scenario order, the first that fits, backtracking
 * when a later device has none).  Returns 0, or -1 with a message in
 * err[len] naming the profile that does not exist or does not fit. */
int gs_mig_layout(struct gs_gpu *g, char *err, size_t len);

/* How many more GPU instances of profile p fit beside g's (memory slices,
 * compute slices and p's instance limit). */
unsigned gs_mig_gi_capacity(const struct gs_gpu *g, const struct gs_gi_profile *p);

/* Comma-separated lists: copies the next item (blanks trimmed) into out and
 * advances *cursor.  Returns 1 for an item (possibly empty), 0 at the end. */
int gs_next_item(const char **cursor, char *out, size_t outlen);

/* ${VAR} and ${VAR:-default} expansion from the environment.  Returns 0, or
 * -1 with a reason in why (e.g. the unset variable's name). */
int gs_expand_env(const char *in, char *out, size_t outlen, char *why, size_t whylen);

/* ------------------------------------------------------------- the model */

/* Everything NVML reports about one GPU at one scenario time. */
struct gs_state {
    double busy; /* fraction of the 1/6 s sample period with work running */
    double load; /* 1-s average load 0..1 that sets power */
    unsigned util_gpu, util_mem, util_enc, util_dec; /* % */
    double power_w;
    unsigned power_mw;
    double temp_c;
    unsigned temp, mem_temp; /* degC */
    unsigned clock[NVML_CLOCK_COUNT];
    unsigned pstate;
    unsigned long long reasons;  /* active clock event reasons */
    unsigned fan;                /* % */
    unsigned long long mem_used; /* v2 meaning: excludes reserved */
    unsigned pcie_rx_kbs, pcie_tx_kbs;
    unsigned pcie_gen_cur, pcie_width_cur;
    unsigned pcie_replays;
    bool power_capped, thermal_limited;
};

/* The scenario time grid for sampled values: 1/6 s, NVML's shortest
 * utilisation sample period. */
#define GS_SAMPLE_HZ 6

/* Fills st with the model of GPU gpu at scenario time t (t < 0 counts as 0). */
void gs_model_eval(const struct gs_scenario *s, unsigned gpu, double t, struct gs_state *st);

/* GPM (GPU Performance Monitoring) activity of one GPU over the 1/6 s sample
 * period containing t: fractions 0..1 of the hardware's peak, rates in B/s.
 * Each activity is the workload's value at full load scaled by the period's
 * utilisation (so a heartbeat reads high inside a burst, ~floor between)
 * and by the SM clock ratio when the clocks are held down. */
struct gs_gpm {
    double graphics, sm, occupancy, integer, tensor, dfma, hmma, dmma, imma, dram;
    double fp64, fp32, fp16;
    double pcie_rx, pcie_tx, nvlink_rx, nvlink_tx; /* B/s */
    double nvenc, nvdec, nvjpg;                    /* per engine */
};

/* Engines GPM reports per-engine metrics for, and NVLink links. */
struct gs_gpm_shape {
    unsigned nvdec, nvenc, nvjpg, nvlinks;
};

/* Fills the GPM fields of w still NAN with the defaults of w->kind. */
void gs_gpm_defaults(struct gs_workload *w);
/* True when the GPU supports GPM: compute capability 9.0 (Hopper) or later. */
bool gs_gpm_supported(const struct gs_gpu *g);
/* The engine and link counts of g (zero counts: not present). */
void gs_gpm_shape(const struct gs_gpu *g, struct gs_gpm_shape *sh);
/* The GPM activity of GPU gpu at t; with mig >= 0, of that MIG device's GPU
 * instance (the GPU's activity while a process runs in it, else idle; PCIe
 * and NVLink stay device-wide). */
void gs_model_gpm(const struct gs_scenario *s, unsigned gpu, int mig, double t, struct gs_gpm *out);

/* Frees the integration cache (gs_scenario_free calls this). */
void gs_integ_free(struct gs_scenario *s);

/* Integrals from t=0 to t: energy (mJ, including a per-GPU base that stands
 * for the time since the driver loaded) and seconds spent power-capped and
 * thermally limited.  The first day is summed on a fixed 1 s grid (uses and
 * extends the scenario's cache), the rest integrated in closed form, so the
 * answer does not depend on which times were asked before and costs at most
 * a day of grid steps at any t. */
void gs_model_integrals(struct gs_scenario *s, unsigned gpu, double t, double *energy_mj,
                        double *powercap_s, double *thermal_s);

/* A 64-bit hash of (seed, a, b, c) (splitmix64 rounds): the simulator's only
 * source of randomness, so values never depend on process or call order. */
uint64_t gs_hash(uint64_t seed, unsigned a, unsigned b, int64_t c);
/* Deterministic noise in [-1, 1) from (seed, gpu, metric, bucket). */
double gs_noise(uint64_t seed, unsigned gpu, unsigned metric, int64_t bucket);

/* Process helpers.  A process is active on a GPU at t when it lists the GPU
 * and start <= t < end. */
bool gs_proc_on(const struct gs_process *p, unsigned gpu, double t);
/* Memory the process holds on gpu at t, in bytes (also for GS_MEM_NA). */
unsigned long long gs_proc_memory(const struct gs_scenario *s, const struct gs_process *p,
                                  unsigned gpu, double t);
/* SM and memory utilisation (%) of the process on gpu at t. */
void gs_proc_util(const struct gs_scenario *s, const struct gs_process *p, unsigned gpu, double t,
                  unsigned *sm, unsigned *mem);

/* What the memory and utilisation of every process on one GPU at one time
 * depend on, worked out once (a pass over the processes), so that answering
 * for n processes costs O(n) rather than O(n^2).  The _at functions give
 * exactly what gs_proc_memory and gs_proc_util give. */
struct gs_procs_at {
    unsigned gpu;
    double t;
    double share;       /* bytes each share-taking process holds (before a MIG cap) */
    unsigned nactive;   /* processes active and alive on the GPU, every type: the ones that
                           share its utilisation (a dead one does no work) */
    struct gs_state st; /* the GPU's model at t */
};
void gs_procs_at(const struct gs_scenario *s, unsigned gpu, double t, struct gs_procs_at *a);
unsigned long long gs_proc_memory_at(const struct gs_scenario *s, const struct gs_procs_at *a,
                                     const struct gs_process *p);
void gs_proc_util_at(const struct gs_scenario *s, const struct gs_procs_at *a,
                     const struct gs_process *p, unsigned *sm, unsigned *mem);

/* The first process (in file order) with this pid, or NULL; O(log n) (a
 * pid_file process whose file names pid now comes first). */
const struct gs_process *gs_proc_by_pid(const struct gs_scenario *s, unsigned pid);

/* Re-reads the pid file of every `pid_file` process (sim/pidfile.c): its
 * pid and whether it lives now.  The library calls it at the start of
 * every NVML call, with its lock held; nothing when s->ndyn is 0. */
void gs_proc_refresh(struct gs_scenario *s);

/* The pid a pid file names: the file (opened O_NOFOLLOW|O_NONBLOCK, a
 * regular file, at most 63 bytes read) holds a decimal pid 1..4294967295
 * with optional white space around it.  0 when there is no such file or it
 * holds anything else. */
unsigned gs_pid_file_read(const char *path);

/* Whether pid is a process that runs now: /proc/PID/stat exists and its
 * state is not Z (zombie) or X (dead).  A zombie's GPU contexts are gone,
 * so real NVML no longer lists it. */
bool gs_pid_alive(unsigned pid);
/* Memory used on MIG device mig of gpu (bytes). */
unsigned long long gs_mig_mem_used(const struct gs_scenario *s, unsigned gpu, unsigned mig,
                                   double t);

/* ------------------------------------------------------------- faults */

/* NVML_ERROR_DRIVER_NOT_LOADED or NVML_ERROR_LIB_RM_VERSION_MISMATCH when a
 * driver fault is active at t, else NVML_SUCCESS. */
nvmlReturn_t gs_fault_driver(const struct gs_scenario *s, double t);
/* NVML_ERROR_GPU_IS_LOST / NVML_ERROR_NO_PERMISSION for gpu at t, else SUCCESS. */
nvmlReturn_t gs_fault_gpu(const struct gs_scenario *s, unsigned gpu, double t);
/* Seconds the call (gs_names index fn) on gpu (or GS_NO_GPU) must block at t. */
double gs_fault_hang(const struct gs_scenario *s, int gpu, int fn, double t);
/* Clocks fall to this fraction of max during a hw_slowdown fault. */
#define GS_HW_SLOWDOWN_CLOCK 0.35
/* True when a hw_slowdown fault holds gpu at t; *brake says whether it
 * also asserts HW power brake. */
bool gs_fault_hw_slowdown(const struct gs_scenario *s, unsigned gpu, double t, bool *brake);
/* Seconds gpu spent in hw_slowdown windows with power_brake from 0 to t
 * (overlapping windows counted once). */
double gs_hw_brake_seconds(const struct gs_scenario *s, unsigned gpu, double t);
/* ECC error counts injected on gpu up to t. */
void gs_ecc_counts(const struct gs_scenario *s, unsigned gpu, double t,
                   unsigned long long *corrected, unsigned long long *uncorrected);
/* Pages retired on gpu up to t for cause (0 SBE, 1 DBE); fills up to max
 * addresses and returns the total count. */
unsigned gs_retired_pages(const struct gs_scenario *s, unsigned gpu, double t, unsigned cause,
                          unsigned long long *addresses, unsigned max);
/* gs_retired_pages, also giving each page's retirement time (scenario
 * seconds) in times[] when times is not NULL. */
unsigned gs_retired_pages_at(const struct gs_scenario *s, unsigned gpu, double t, unsigned cause,
                             unsigned long long *addresses, double *times, unsigned max);
/* Row-remapper state of gpu at t. */
void gs_remapped_rows(const struct gs_scenario *s, unsigned gpu, double t, unsigned *corr,
                      unsigned *unc, unsigned *pending, unsigned *failure);
/* Builds s->events from the ECC and Xid faults (called by the loader). */
int gs_events_build(struct gs_scenario *s);

/* ------------------------------------------------------------- topology */

/* The host the GPUs sit in (sim/topo.c): one CPU socket and NUMA node for
 * up to 3 GPUs, two for 4 or more (GPUs split evenly, lower indices on node
 * 0); 16 cores a socket on one-socket hosts, 56 on two-socket ones, two
 * hardware threads a core (Linux numbering: thread 0 of every core first).
 * On two-socket hosts GPUs sit in pairs behind one PCIe switch. */
unsigned gs_topo_sockets(const struct gs_scenario *s);
unsigned gs_topo_cores_per_socket(const struct gs_scenario *s);
/* Logical CPUs of the host. */
unsigned gs_topo_cpus(const struct gs_scenario *s);
/* The NUMA node (= socket) GPU gpu is attached to. */
unsigned gs_topo_numa(const struct gs_scenario *s, unsigned gpu);
/* The NUMA node of logical CPU cpu. */
unsigned gs_topo_cpu_node(const struct gs_scenario *s, unsigned cpu);
/* nvmlGpuTopologyLevel_t of the PCIe path between two GPUs: 0 (same GPU),
 * 20 (PCIe switch, PXB), 30 (host bridge, PHB), 40 (same NUMA node), 50
 * (across sockets, SYS).  NVLink is not a PCIe level: see gs_nvlinks. */
unsigned gs_topo_level(const struct gs_scenario *s, unsigned a, unsigned b);
/* NVLink links of gpu that are up (0: PCIe only): the board's link count
 * (V100 SXM2 6, A100 SXM4 12, H100 SXM5 18) when the scenario has
 * `nvlink = nvswitch` and the board is an SXM module, else 0. */
unsigned gs_nvlinks(const struct gs_scenario *s, unsigned gpu);
/* The NVLink version of the board's links (2 Volta, 3 Ampere, 4 Hopper). */
unsigned gs_nvlink_version(const struct gs_gpu *g);

/* ----------------------------------------------------- injected failures */

/* GPUSIM_FAIL: fail chosen calls on purpose, to prove a client's error paths
 * (docs/simulator.md).  A rule names a function, optionally a GPU, which of
 * its calls fail and with what:
 *
 *     FUNCTION[@GPU]:WHEN:CODE[,RULE...]
 *
 * WHEN is N (the N-th call only), N+ (the N-th and every later one) or *
 * (every call), counting from 1; CODE is an nvmlReturn_t name with or
 * without its NVML_ERROR_ prefix (NVML_ERROR_UNKNOWN, not_supported).  Each
 * rule counts the calls it matches on its own. */
#define GS_FAIL_MAX 64

struct gs_fail_rule {
    int fn;                   /* gs_names index of the function */
    int gpu;                  /* GS_NO_GPU: calls on any GPU or none */
    unsigned long long first; /* the first call that fails, from 1 */
    unsigned long long last;  /* the last one; 0: no end */
    nvmlReturn_t code;
    unsigned long long calls; /* matching calls counted so far */
};

struct gs_fail {
    size_t n;
    struct gs_fail_rule rule[GS_FAIL_MAX];
};

/* Parses a GPUSIM_FAIL value into f (counters at 0).  ngpus bounds the GPU
 * filter.  Returns 0, or -1 with "GPUSIM_FAIL: reason" in err (the rule
 * quoted); f is then empty.  An empty or all-blank text is no rule. */
int gs_fail_parse(const char *text, unsigned ngpus, struct gs_fail *f, char *err, size_t errlen);

/* Counts a call of function fn (gs_names index) on physical GPU gpu
 * (GS_NO_GPU for a call that names no GPU) against every rule, and returns
 * the code of the first rule that fails it, else NVML_SUCCESS. */
nvmlReturn_t gs_fail_call(struct gs_fail *f, int fn, int gpu);

/* The name of an NVML return code ("NVML_ERROR_UNKNOWN"), or NULL. */
const char *gs_return_name(nvmlReturn_t code);

/* --------------------------------------------------------- scenario time */

/* How scenario time follows the wall clock (from GPUSIM_TIME, GPUSIM_SPEED,
 * GPUSIM_EPOCH). */
struct gs_timecfg {
    bool pinned;
    double pinned_t;
    double speed;
    double epoch; /* unix seconds of t = 0 */
};

/* Reads the environment.  default_epoch is used when GPUSIM_EPOCH is unset.
 * Returns 0, or -1 with "VAR: reason" in err. */
int gs_timecfg_from_env(struct gs_timecfg *tc, double default_epoch, char *err, size_t errlen);
/* Wall clock now, unix seconds (CLOCK_REALTIME). */
double gs_wall_now(void);
/* Scenario time now (never negative). */
double gs_time_now(const struct gs_timecfg *tc);
/* Unix time in microseconds at which scenario time t happens (or happened). */
unsigned long long gs_time_to_wall_us(const struct gs_timecfg *tc, double t);

#endif /* GS_GPUSIM_H */

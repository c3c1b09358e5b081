/* nvml_int.h -- what the NVML source's files share (not a contract for
 * other modules: nvml.h is).  nvml.c holds the core (dlopen, init, the
 * per-GPU handles and cache, the read-group table and the sample's order);
 * nvml_<area>.c the readers of one NVML area each, as the simulator's
 * sim/api_<area>.c: identity and modes, sensors and power, clocks,
 * utilisation and memory, PCIe, ECC, GPM, NVLink, MIG, processes.
 *
 * Here: the symbol list (NVML_SYMS) and the function-pointer struct, the
 * per-GPU state (struct dev) and the handle (struct gm_nvml), CALL and
 * RCALL, the small helpers every reader uses (static inline), and the
 * functions one file defines for another, named gm_nv_*: one reader per
 * read group, gm_nv_rd_<group>, listed in nvml.c's readers[].
 */
#ifndef GM_SOURCE_NVML_INT_H
#define GM_SOURCE_NVML_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/rgset.h"
#include "nvml.h"
#include "nvml_abi.h"

/* ------------------------------------------------------------ symbol table */

#define NVML_SYMS(X)                                                                               \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlInit)                                                                                    \
    X(nvmlShutdown)                                                                                \
    X(nvmlSystemGetDriverVersion)                                                                  \
    X(nvmlSystemGetNVMLVersion)                                                                    \
    X(nvmlSystemGetCudaDriverVersion_v2)                                                           \
    X(nvmlSystemGetCudaDriverVersion)                                                              \
    X(nvmlSystemGetProcessName)                                                                    \
    X(nvmlDeviceGetCount_v2)                                                                       \
    X(nvmlDeviceGetCount)                                                                          \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetHandleByIndex)                                                                  \
    X(nvmlDeviceGetIndex)                                                                          \
    X(nvmlDeviceGetMinorNumber)                                                                    \
    X(nvmlDeviceGetName)                                                                           \
    X(nvmlDeviceGetUUID)                                                                           \
    X(nvmlDeviceGetSerial)                                                                         \
    X(nvmlDeviceGetPciInfo_v3)                                                                     \
    X(nvmlDeviceGetPciInfo_v2)                                                                     \
    X(nvmlDeviceGetPciInfo)                                                                        \
    X(nvmlDeviceGetVbiosVersion)                                                                   \
    X(nvmlDeviceGetBoardPartNumber)                                                                \
    X(nvmlDeviceGetCudaComputeCapability)                                                          \
    X(nvmlDeviceGetPersistenceMode)                                                                \
    X(nvmlDeviceGetComputeMode)                                                                    \
    X(nvmlDeviceGetDisplayMode)                                                                    \
    X(nvmlDeviceGetDisplayActive)                                                                  \
    X(nvmlDeviceGetMigMode)                                                                        \
    X(nvmlDeviceGetPerformanceState)                                                               \
    X(nvmlDeviceGetFanSpeed)                                                                       \
    X(nvmlDeviceGetTemperature)                                                                    \
    X(nvmlDeviceGetTemperatureV)                                                                   \
    X(nvmlDeviceGetTemperatureThreshold)                                                           \
    X(nvmlDeviceGetFieldValues)                                                                    \
    X(nvmlDeviceGetPowerUsage)                                                                     \
    X(nvmlDeviceGetEnforcedPowerLimit)                                                             \
    X(nvmlDeviceGetPowerManagementLimit)                                                           \
    X(nvmlDeviceGetPowerManagementDefaultLimit)                                                    \
    X(nvmlDeviceGetPowerManagementLimitConstraints)                                                \
    X(nvmlDeviceGetTotalEnergyConsumption)                                                         \
    X(nvmlDeviceGetUtilizationRates)                                                               \
    X(nvmlDeviceGetEncoderUtilization)                                                             \
    X(nvmlDeviceGetDecoderUtilization)                                                             \
    X(nvmlDeviceGetMemoryInfo_v2)                                                                  \
    X(nvmlDeviceGetMemoryInfo)                                                                     \
    X(nvmlDeviceGetBAR1MemoryInfo)                                                                 \
    X(nvmlDeviceGetClockInfo)                                                                      \
    X(nvmlDeviceGetMaxClockInfo)                                                                   \
    X(nvmlDeviceGetCurrentClocksEventReasons)                                                      \
    X(nvmlDeviceGetCurrentClocksThrottleReasons)                                                   \
    X(nvmlDeviceGetSupportedClocksEventReasons)                                                    \
    X(nvmlDeviceGetSupportedClocksThrottleReasons)                                                 \
    X(nvmlDeviceGetViolationStatus)                                                                \
    X(nvmlDeviceGetCurrPcieLinkGeneration)                                                         \
    X(nvmlDeviceGetCurrPcieLinkWidth)                                                              \
    X(nvmlDeviceGetMaxPcieLinkGeneration)                                                          \
    X(nvmlDeviceGetMaxPcieLinkWidth)                                                               \
    X(nvmlDeviceGetPcieThroughput)                                                                 \
    X(nvmlDeviceGetPcieReplayCounter)                                                              \
    X(nvmlDeviceGetEccMode)                                                                        \
    X(nvmlDeviceGetTotalEccErrors)                                                                 \
    X(nvmlDeviceGetRetiredPages)                                                                   \
    X(nvmlDeviceGetRetiredPagesPendingStatus)                                                      \
    X(nvmlDeviceGetRemappedRows)                                                                   \
    X(nvmlDeviceGetMaxMigDeviceCount)                                                              \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlDeviceGetGpuInstanceId)                                                                  \
    X(nvmlDeviceGetComputeInstanceId)                                                              \
    X(nvmlDeviceGetComputeRunningProcesses_v3)                                                     \
    X(nvmlDeviceGetComputeRunningProcesses_v2)                                                     \
    X(nvmlDeviceGetComputeRunningProcesses)                                                        \
    X(nvmlDeviceGetGraphicsRunningProcesses_v3)                                                    \
    X(nvmlDeviceGetGraphicsRunningProcesses_v2)                                                    \
    X(nvmlDeviceGetGraphicsRunningProcesses)                                                       \
    X(nvmlDeviceGetProcessUtilization)                                                             \
    X(nvmlGpmQueryDeviceSupport)                                                                   \
    X(nvmlGpmSampleAlloc)                                                                          \
    X(nvmlGpmSampleFree)                                                                           \
    X(nvmlGpmSampleGet)                                                                            \
    X(nvmlGpmMigSampleGet)                                                                         \
    X(nvmlGpmMetricsGet)                                                                           \
    X(nvmlDeviceGetSamples)                                                                        \
    X(nvmlDeviceGetPowerManagementMode)                                                            \
    X(nvmlDeviceGetApplicationsClock)                                                              \
    X(nvmlDeviceGetDefaultApplicationsClock)                                                       \
    X(nvmlDeviceGetGpuMaxPcieLinkGeneration)                                                       \
    X(nvmlDeviceGetDriverModel_v2)                                                                 \
    X(nvmlDeviceGetDriverModel)                                                                    \
    X(nvmlDeviceGetGpuOperationMode)                                                               \
    X(nvmlDeviceGetAccountingMode)                                                                 \
    X(nvmlDeviceGetAccountingBufferSize)                                                           \
    X(nvmlDeviceGetEncoderStats)                                                                   \
    X(nvmlDeviceGetInforomVersion)                                                                 \
    X(nvmlDeviceGetInforomImageVersion)                                                            \
    X(nvmlDeviceGetBrand)                                                                          \
    X(nvmlDeviceGetRowRemapperHistogram)                                                           \
    X(nvmlDeviceGetGpuFabricInfoV)                                                                 \
    X(nvmlDeviceGetMemoryErrorCounter)                                                             \
    X(nvmlDeviceGetNvLinkState)                                                                    \
    X(nvmlDeviceGetNvLinkErrorCounter)                                                             \
    X(nvmlDeviceGetNvLinkVersion)                                                                  \
    X(nvmlDeviceGetNvLinkRemotePciInfo_v2)                                                         \
    X(nvmlDeviceGetMarginTemperature)                                                              \
    X(nvmlDeviceGetJpgUtilization)                                                                 \
    X(nvmlDeviceGetOfaUtilization)                                                                 \
    X(nvmlDeviceGetPciInfoExt)                                                                     \
    X(nvmlDeviceGetGspFirmwareMode)                                                                \
    X(nvmlDeviceGetConfComputeProtectedMemoryUsage)                                                \
    X(nvmlDeviceGetSramEccErrorStatus)                                                             \
    X(nvmlDeviceValidateInforom)                                                                   \
    X(nvmlDeviceGetC2cModeInfoV)                                                                   \
    X(nvmlDeviceGetAddressingMode)                                                                 \
    X(nvmlDeviceGetDramEncryptionMode)                                                             \
    X(nvmlDeviceGetHostname_v1)                                                                    \
    X(nvmlDeviceGetPlatformInfo)                                                                   \
    X(nvmlDeviceGetModuleId)

struct nvml_fns {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): a declarator, not an expression */
#define X(name) __typeof__(name) *name;
    NVML_SYMS(X)
#undef X
};

/* ------------------------------------------------------------------ state */

/* GPM samples of one MIG GPU instance (nvmlGpmMigSampleGet on the parent's
 * handle): the previous sample (s[prev]) and the buffer for the next one,
 * allocated at the instance's first GPM read and freed with the device.  A
 * slot follows one GPU instance id: another id in its place (MIG
 * reconfigured) starts a new interval and asks again. */
struct mig_gpm {
    unsigned int gi; /* the GPU instance id of the samples */
    nvmlGpmSample_t s[2];
    int prev;
    int have_prev;
    int pending;      /* first sample taken this sample, finished by gm_nv_gpm_primed() */
    nvmlReturn_t off; /* SUCCESS, or why this instance has no GPM (not asked again) */
};

/* Per-GPU cache: the static facts, kept in a template gm_gpu that each
 * snapshot starts from. */
struct dev {
    nvmlDevice_t h;
    int have_handle;
    int static_done; /* tmpl's static facts are current */
    int have_tmpl;   /* tmpl holds identity read at some point (kept while the GPU is lost) */
    struct gm_gpu tmpl;
    unsigned long long last_proc_util_us; /* lastSeenTimeStamp for process utilization */
    /* GPM: the previous sample (gpm[prev]) and the buffer for the next one,
     * allocated at the GPU's first GPM read and freed with the device. */
    nvmlGpmSample_t gpm[2];
    int gpm_prev;         /* index of the previous sample in gpm[] */
    int gpm_have_prev;    /* gpm[gpm_prev] holds a sample of this GPU */
    nvmlReturn_t gpm_off; /* SUCCESS, or why this GPU has no GPM (asked once) */
    int gpm_asked;        /* gpm_off is known */
    int gpm_pending;      /* first sample taken this sample, finished by gm_nv_gpm_primed() */
    /* GPM of each MIG GPU instance, slot k for the snapshot's mig[k]. */
    struct mig_gpm mgpm[GM_MIG_MAX];
    /* NVLink: the links up and their error counters, read link by link (5
     * calls a link, 90 on an 18-link H100), at most every NVLINK_SLOW_NS
     * when sampling again and again (the agent); 0: not read yet */
    int64_t nvl_at;
    nvmlReturn_t nvl_rc; /* link 0's state: anything but SUCCESS means no values */
    nvmlReturn_t nvl_links_rc, nvl_erc[4];
    unsigned int nvl_links, nvl_down; /* links up; links there but not up */
    unsigned long long nvl_errs[4];
    /* module power answered NOT_SUPPORTED for every field: not a Grace
     * Hopper module, so not asked again (a board does not become one) */
    int module_none;
    /* each link as the same walk found it (GM_NVML_NVLINK_LINKS): links
     * 0 .. nvl_n - 1, their state (nvl_src: its code), error counters of
     * the links up; version and remote end read once (nvl_ident) */
    unsigned int nvl_n;
    nvmlReturn_t nvl_src[GM_NVLINK_MAX], nvl_lerc[GM_NVLINK_MAX][4];
    unsigned char nvl_up[GM_NVLINK_MAX];
    unsigned long long nvl_lerr[GM_NVLINK_MAX][4];
    int nvl_ident;
    nvmlReturn_t nvl_ver_rc[GM_NVLINK_MAX], nvl_pci_rc[GM_NVLINK_MAX];
    unsigned int nvl_ver[GM_NVLINK_MAX];
    char nvl_pci[GM_NVLINK_MAX][32];
    /* the slow groups (slow_period()): when each was read, and its values */
    int64_t slow_at[GM_RG__COUNT];
    struct gm_value slow_v[GM_M__GPU_END];
};

/* How long the link states and error counters of a GPU are reused (they
 * are cumulative counters and states that change on a fault; the
 * throughput counters are read every sample), when no cadence is set
 * (gm_nvml_set_cadence); with one, its period. */
#define NVLINK_SLOW_NS (10LL * 1000000000LL)

/* Whether a slow group read at `at` (monotonic ns; 0: never, or its read
 * failed) is still reused at `now` with a period of period ns: until the
 * period has all but passed.  Its last 1/16 counts as passed, so that a
 * sample on the agent's grid that starts a little earlier after its
 * deadline than the one that read the group reads it again instead of
 * holding it one interval more (at an interval equal to the period, every
 * other read would be skipped). */
static inline int slow_reuse(int64_t now, int64_t at, int64_t period)
{
    return at && now >= at && now - at < period - period / 16;
}

/* The age in ms of a value read at `at` and shown at `now` (monotonic ns),
 * for struct gm_value's age_ms. */
static inline uint32_t age_ms(int64_t now, int64_t at)
{
    int64_t ms = now > at ? (now - at) / 1000000 : 0;
    return ms > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

/* Outcomes of the calls of one GPU's read (its static facts when they are
 * read in the same sample, and its dynamic values): a GPU none of whose
 * calls succeeded is down, not ok with every value missing. */
struct tally {
    unsigned ok;   /* answered (a size query's INSUFFICIENT_SIZE included) */
    unsigned perm; /* NVML_ERROR_NO_PERMISSION */
    unsigned err;  /* another failure that is not "not supported" / "no data" */
    int first_err; /* the code of the first of those */
};

struct gm_nvml {
    void *dl;
    struct nvml_fns f;
    char lib_path[512];
    int inited;
    int host_done;
    int mem_v1;    /* MemoryInfo_v2 answered FUNCTION_NOT_FOUND: use v1 */
    uint8_t state; /* enum gm_driver_state */
    int16_t state_code;
    char state_msg[512];
    int64_t next_init_ns; /* monotonic time of the next init attempt */
    int64_t backoff_ns;
    int64_t backoff_min_ns, backoff_max_ns;
    struct gm_rgset groups; /* read groups to collect */
    int64_t gpm_prime_ns;   /* when pending GPM reads may take their second sample, 0: none */
    int want_procs;
    unsigned flags;  /* GM_NVML_GPM_PRIME, GM_NVML_NVLINK_LINKS, GM_NVML_EVERY_SAMPLE */
    int64_t slow_ns; /* gm_nvml_set_cadence; 0: the slow groups every sample */

    char driver_version[80];
    struct gm_value driver_version_v;
    char nvml_version[80];
    struct gm_value nvml_version_v;
    struct gm_value cuda_version_v;

    unsigned ndev;
    struct dev *dev;

    char hostname[65];

    _Atomic(const char *) cur_call;
    atomic_int cur_gpu;
    struct tally *tally; /* set while one GPU's dynamic values are read */

    /* Buffers of the process lists and samples, kept between samples (see
     * "processes" below). */
    nvmlProcessInfo_v2_t *pbuf;
    unsigned int pcap;
    nvmlProcessUtilizationSample_t *ubuf;
    unsigned int ucap;
    /* One GPU's merged lists and their index by pid (nvml_procs.c's
     * struct proc_ent and struct pid_pos), grown as needed, kept. */
    void *pent, *pix;
    size_t pent_cap, pix_cap; /* entries */
};

/* NOLINTNEXTLINE(bugprone-macro-parentheses): fn is a member name, it cannot be wrapped */
#define CALL(n, gpu, fn, ...)                                                                      \
    ((n)->f.fn ? (atomic_store(&(n)->cur_gpu, (gpu)), atomic_store(&(n)->cur_call, #fn),           \
                  call_done((n), (n)->f.fn(__VA_ARGS__)))                                          \
               : NVML_ERROR_FUNCTION_NOT_FOUND)

static inline nvmlReturn_t call_done(struct gm_nvml *n, nvmlReturn_t rc)
{
    atomic_store(&n->cur_call, (const char *)NULL);
    struct tally *t = n->tally;
    if (t) {
        if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
            t->ok++;
        else if (rc == NVML_ERROR_NO_PERMISSION)
            t->perm++;
        else if (gm_v_status_from_nvml(rc) == GM_VS_ERROR && !t->err++)
            t->first_err = rc;
    }
    return rc;
}

/* ------------------------------------------------------------ value helpers */

static inline int want(const struct gm_nvml *n, enum gm_read_group g)
{
    return gm_rgset_has(&n->groups, (unsigned)g);
}

static inline void setv(struct gm_gpu *g, int id, nvmlReturn_t rc, struct gm_value ok)
{
    g->m[id] = rc == NVML_SUCCESS ? ok : gm_v_status(gm_v_status_from_nvml(rc), rc);
}

/* --------------------------------------------------------------- readers */

/* One GPU's read in progress: what each reader needs, and the worst
 * outcome its calls reported. */
struct rd {
    struct gm_nvml *n;
    int i; /* the GPU's index, for CALL */
    nvmlDevice_t h;
    struct gm_gpu *g;
    nvmlReturn_t lost; /* GPU_IS_LOST or a code that says the driver went away, else SUCCESS */
};

/* A call on the GPU's handle: CALL with the handle as the first argument. */
#define RCALL(r, fn, ...) CALL((r)->n, (r)->i, fn, (r)->h, __VA_ARGS__)

static inline int driver_gone(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH ||
           rc == NVML_ERROR_UNINITIALIZED;
}

/* Remembers a code that takes the GPU (or the driver) away. */
static inline void note(struct rd *r, nvmlReturn_t rc)
{
    if (rc == NVML_ERROR_GPU_IS_LOST || driver_gone(rc))
        r->lost = rc;
}

static inline void read_string(struct gm_gpu *g, int id, nvmlReturn_t rc, const char *s)
{
    if (rc == NVML_SUCCESS) {
        gm_strlcpy(g->str[gm_metrics[id].sslot], s, GM_STR_MAX);
        g->m[id] = gm_v_u64(0);
    } else {
        g->str[gm_metrics[id].sslot][0] = '\0';
        g->m[id] = gm_v_status(gm_v_status_from_nvml(rc), rc);
    }
}

/* One field value (nvmlDeviceGetFieldValues) as an integer into *v: the
 * call's code, or the field's own when the call succeeded. */
static inline nvmlReturn_t read_field(struct rd *r, unsigned int field, uint64_t *v)
{
    nvmlFieldValue_t fv;
    memset(&fv, 0, sizeof(fv));
    fv.fieldId = field;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFieldValues, 1, &fv);
    if (rc == NVML_SUCCESS)
        rc = fv.nvmlReturn;
    *v = fv.valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? fv.value.ullVal
         : fv.valueType == NVML_VALUE_TYPE_SIGNED_LONG_LONG ? (uint64_t)fv.value.sllVal
                                                            : fv.value.uiVal;
    return rc;
}

/* The status of a list that failed with rc. */
static inline struct gm_value list_failed(nvmlReturn_t rc)
{
    enum gm_vstatus st = gm_v_status_from_nvml(rc);
    return gm_v_status(st == GM_VS_NA ? GM_VS_ERROR : st, rc);
}

/* ------------------------------------------- functions shared between files */

/* The readers, one per read group (nvml.c's readers[] calls them in order).
 * Each notes the code of its last call (and of every call in a loop): a
 * GPU lost or a driver gone there ends the GPU's read. */

/* nvml_ident.c */
void gm_nv_rd_index(struct rd *r);
void gm_nv_rd_minor(struct rd *r);
void gm_nv_rd_name(struct rd *r);
void gm_nv_rd_uuid(struct rd *r);
void gm_nv_rd_serial(struct rd *r);
void gm_nv_rd_brand(struct rd *r);
void gm_nv_rd_vbios(struct rd *r);
void gm_nv_rd_board_part(struct rd *r);
void gm_nv_rd_pci(struct rd *r);
void gm_nv_rd_pci_ext(struct rd *r);
void gm_nv_rd_gsp_mode(struct rd *r);
void gm_nv_rd_inforom_check(struct rd *r);
void gm_nv_rd_c2c(struct rd *r);
void gm_nv_rd_addr_mode(struct rd *r);
void gm_nv_rd_dram_enc(struct rd *r);
void gm_nv_rd_gpu_hostname(struct rd *r);
void gm_nv_rd_platform(struct rd *r);
void gm_nv_rd_module_id(struct rd *r);
void gm_nv_rd_cc(struct rd *r);
void gm_nv_rd_driver_model(struct rd *r);
void gm_nv_rd_inforom(struct rd *r);
void gm_nv_rd_persistence(struct rd *r);
void gm_nv_rd_compute_mode(struct rd *r);
void gm_nv_rd_display(struct rd *r);
void gm_nv_rd_mig_mode(struct rd *r);
void gm_nv_rd_gom(struct rd *r);
void gm_nv_rd_accounting(struct rd *r);
void gm_nv_rd_fabric(struct rd *r);

/* nvml_sensors.c */
void gm_nv_rd_temp_thresh(struct rd *r);
void gm_nv_rd_power_limits(struct rd *r);
void gm_nv_rd_pstate(struct rd *r);
void gm_nv_rd_fan(struct rd *r);
void gm_nv_rd_temp(struct rd *r);
void gm_nv_rd_temp_mem(struct rd *r);
void gm_nv_rd_power(struct rd *r);
void gm_nv_rd_power_instant(struct rd *r);
void gm_nv_rd_power_limit(struct rd *r);
void gm_nv_rd_energy(struct rd *r);
void gm_nv_rd_power_mgmt(struct rd *r);
void gm_nv_rd_temp_margin(struct rd *r);
void gm_nv_rd_module_power(struct rd *r);
void gm_nv_rd_power_smoothing(struct rd *r);
void gm_nv_rd_edpp(struct rd *r);

/* nvml_clocks.c */
void gm_nv_rd_max_clocks(struct rd *r);
void gm_nv_rd_clocks(struct rd *r);
void gm_nv_rd_clock_reasons(struct rd *r);
void gm_nv_rd_violation(struct rd *r);
void gm_nv_rd_app_clocks(struct rd *r);
void gm_nv_rd_cer_counters(struct rd *r);
void gm_nv_rd_recovery(struct rd *r);

/* nvml_util.c */
void gm_nv_rd_util(struct rd *r);
void gm_nv_rd_enc(struct rd *r);
void gm_nv_rd_dec(struct rd *r);
void gm_nv_rd_memory(struct rd *r);
void gm_nv_rd_bar1(struct rd *r);
void gm_nv_rd_enc_stats(struct rd *r);
void gm_nv_rd_engine_util(struct rd *r);
void gm_nv_rd_prot_mem(struct rd *r);

/* nvml_pcie.c */
void gm_nv_rd_max_pcie(struct rd *r);
void gm_nv_rd_pcie_link(struct rd *r);
void gm_nv_rd_pcie_tput(struct rd *r);
void gm_nv_rd_pcie_replay(struct rd *r);
void gm_nv_rd_pcie_hostmax(struct rd *r);

/* nvml_ecc.c */
void gm_nv_rd_ecc_mode(struct rd *r);
void gm_nv_rd_ecc_counts(struct rd *r);
void gm_nv_rd_retired(struct rd *r);
void gm_nv_rd_remapped(struct rd *r);
void gm_nv_rd_remap_hist(struct rd *r);
void gm_nv_rd_remap_inactive(struct rd *r);
void gm_nv_rd_ecc_locations(struct rd *r);
void gm_nv_rd_ecc_units(struct rd *r);
void gm_nv_rd_sram_status(struct rd *r);

/* nvml_gpm.c */
void gm_nv_rd_gpm(struct rd *r);
/* Frees a GPU's GPM samples (while the library is loaded) and forgets its
 * GPM state. */
void gm_nv_free_gpm(struct gm_nvml *n, struct dev *d);
/* A GPU that went down: its GPM intervals start again when it comes back. */
void gm_nv_gpm_restart(struct dev *d);
/* GPM of each GPU instance of GPU i in MIG mode, after gm_nv_read_mig and
 * the GPU's own GPM read. */
void gm_nv_read_mig_gpm(struct gm_nvml *n, int i, struct dev *d, struct gm_gpu *g);
/* The second GPM sample of everything left pending (GM_NVML_GPM_PRIME),
 * after one wait; called once per snapshot, after every GPU's read. */
void gm_nv_gpm_primed(struct gm_nvml *n, struct gm_snapshot *s);

/* nvml_nvlink.c */
void gm_nv_rd_nvlink(struct rd *r);

/* nvml_mig.c: the MIG devices of GPU i into g (g->mig, g->mig_list). */
void gm_nv_read_mig(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_gpu *g);

/* nvml_procs.c: GPU i's processes into s (gpu_slot: g's place in s->gpus),
 * and their utilisation samples since the last read. */
void gm_nv_add_procs(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_snapshot *s,
                     struct gm_gpu *g, uint32_t gpu_slot);
void gm_nv_read_proc_util(struct gm_nvml *n, int i, struct dev *d, struct gm_snapshot *s,
                          struct gm_gpu *g);

/* nvml.c: g is down with code rc (lost, no permission, an error): its live
 * values take that status, its identity stays. */
void gm_nv_mark_gpu_down(struct gm_gpu *g, int rc);

#endif /* GM_SOURCE_NVML_INT_H */

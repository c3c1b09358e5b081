/* nvml.c -- the NVML source (see nvml.h): dlopen, symbol resolution with
 * version fallbacks, the per-GPU static cache, and one pass per snapshot.
 *
 * Every symbol gpumon uses is named once, in NVML_SYMS, which makes both
 * the function-pointer struct and the dlsym table.  Every NVML call goes
 * through CALL(), which records the function and GPU in progress
 * (gm_nvml_current_call) so a caller's watchdog can name a call that hangs.
 * A missing symbol reads as NVML_ERROR_FUNCTION_NOT_FOUND, which the value
 * layer maps to "not supported" (DESIGN principle 3).
 *
 * Values are read by one small function per read group (metrics.h), listed
 * in readers[]: the static groups once per GPU, the wanted dynamic groups
 * on every sample.
 *
 * Left out here: NVML events (XID) live with the agent's event thread, and
 * /proc enrichment lives in procfs.c.
 */
#include "nvml.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/timeutil.h"
#include "nvml_abi.h"
#include "pcihost.h"

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
    X(nvmlDeviceGetRowRemapperHistogram)                                                           \
    X(nvmlDeviceGetGpuFabricInfoV)                                                                 \
    X(nvmlDeviceGetMemoryErrorCounter)                                                             \
    X(nvmlDeviceGetNvLinkState)                                                                    \
    X(nvmlDeviceGetNvLinkErrorCounter)                                                             \
    X(nvmlDeviceGetNvLinkVersion)                                                                  \
    X(nvmlDeviceGetNvLinkRemotePciInfo_v2)                                                         \
    X(nvmlDeviceGetMarginTemperature)

struct nvml_fns {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): a declarator, not an expression */
#define X(name) __typeof__(name) *name;
    NVML_SYMS(X)
#undef X
};

static const struct {
    const char *name;
    size_t off;
} symtab[] = {
#define X(name) {#name, offsetof(struct nvml_fns, name)},
    NVML_SYMS(X)
#undef X
};
#define NSYMS (sizeof(symtab) / sizeof(symtab[0]))

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
    int pending;      /* first sample taken this sample, finished by gpm_primed() */
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
    int gpm_pending;      /* first sample taken this sample, finished by gpm_primed() */
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
    /* the slow groups (slow_group()): when each was read, and its values */
    int64_t slow_at[GM_RG__COUNT];
    struct gm_value slow_v[GM_M__GPU_END];
};

/* How long the link states and error counters of a GPU are reused (they
 * are cumulative counters and states that change on a fault; the
 * throughput counters are read every sample). */
#define NVLINK_SLOW_NS (10LL * 1000000000LL)

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
    unsigned flags;         /* GM_NVML_GPM_PRIME, GM_NVML_NVLINK_LINKS */
    int64_t gpm_prime_ns;   /* when pending GPM reads may take their second sample, 0: none */
    int want_procs;

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
};

/* NOLINTNEXTLINE(bugprone-macro-parentheses): fn is a member name, it cannot be wrapped */
#define CALL(n, gpu, fn, ...)                                                                      \
    ((n)->f.fn ? (atomic_store(&(n)->cur_gpu, (gpu)), atomic_store(&(n)->cur_call, #fn),           \
                  call_done((n), (n)->f.fn(__VA_ARGS__)))                                          \
               : NVML_ERROR_FUNCTION_NOT_FOUND)

static nvmlReturn_t call_done(struct gm_nvml *n, nvmlReturn_t rc)
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

/* --------------------------------------------------------------- messages */

const char *gm_nvml_strerror(int code)
{
    return gm_nvml_error_text(code);
}

static void set_state(struct gm_nvml *n, enum gm_driver_state st, int code, const char *msg)
{
    n->state = (uint8_t)st;
    n->state_code = (int16_t)code;
    gm_strlcpy(n->state_msg, msg, sizeof(n->state_msg));
}

static void explain_init_failure(struct gm_nvml *n, int rc)
{
    char msg[512];
    switch (rc) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
        snprintf(msg, sizeof(msg),
                 "the NVIDIA kernel driver is not loaded (NVML: %s); run 'gpumon doctor' (check "
                 "'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and "
                 "'dmesg | grep -i nvrm'",
                 gm_nvml_strerror(rc));
        set_state(n, GM_DRV_NOT_LOADED, rc, msg);
        break;
    case NVML_ERROR_NO_PERMISSION:
        snprintf(
            msg, sizeof(msg),
            "no permission to talk to the NVIDIA driver (NVML: %s); run 'gpumon doctor' (check "
            "'devnodes'): /dev/nvidiactl and /dev/nvidia* must be open to you",
            gm_nvml_strerror(rc));
        set_state(n, GM_DRV_NOPERM, rc, msg);
        break;
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        snprintf(
            msg, sizeof(msg),
            "driver/library version mismatch: the loaded kernel module and libnvidia-ml.so "
            "come from different driver versions (usually an upgrade without a reboot); "
            "reboot or reload the nvidia modules; 'gpumon doctor' (check 'version') shows both");
        set_state(n, GM_DRV_MISMATCH, rc, msg);
        break;
    default:
        snprintf(msg, sizeof(msg),
                 "NVML failed to initialize: %s (code %d); run 'gpumon doctor' (check 'nvml')",
                 gm_nvml_strerror(rc), rc);
        set_state(n, GM_DRV_ERROR, rc, msg);
        break;
    }
}

/* ------------------------------------------------------------ open / init */

/* Frees a GPU's GPM samples (while the library is still loaded) and
 * forgets its GPM state. */
static void free_gpm(struct gm_nvml *n, struct dev *d)
{
    for (int k = 0; k < 2; k++) {
        if (d->gpm[k] && n->f.nvmlGpmSampleFree && n->inited)
            n->f.nvmlGpmSampleFree(d->gpm[k]);
        d->gpm[k] = NULL;
    }
    d->gpm_have_prev = 0;
    d->gpm_asked = 0;
    for (int m = 0; m < GM_MIG_MAX; m++) {
        struct mig_gpm *mg = &d->mgpm[m];
        for (int k = 0; k < 2; k++) {
            if (mg->s[k] && n->f.nvmlGpmSampleFree && n->inited)
                n->f.nvmlGpmSampleFree(mg->s[k]);
            mg->s[k] = NULL;
        }
        memset(mg, 0, sizeof(*mg));
    }
}

/* A GPU that went down: its GPM intervals (the device's and its GPU
 * instances') start again when it comes back. */
static void gpm_restart(struct dev *d)
{
    d->gpm_have_prev = 0;
    for (int m = 0; m < GM_MIG_MAX; m++)
        d->mgpm[m].have_prev = 0;
}

static void free_devices(struct gm_nvml *n)
{
    for (unsigned i = 0; i < n->ndev; i++)
        free_gpm(n, &n->dev[i]);
    free(n->dev);
}

static void reset_devices(struct gm_nvml *n)
{
    free_devices(n);
    n->dev = NULL;
    n->ndev = 0;
    n->host_done = 0;
}

static int try_init(struct gm_nvml *n)
{
    nvmlReturn_t rc = n->f.nvmlInit_v2 ? CALL(n, -1, nvmlInit_v2) : CALL(n, -1, nvmlInit);
    if (rc != NVML_SUCCESS) {
        explain_init_failure(n, rc);
        return rc;
    }
    n->inited = 1;
    n->backoff_ns = 0;
    set_state(n, GM_DRV_OK, 0, "");
    reset_devices(n);
    return NVML_SUCCESS;
}

static void schedule_retry(struct gm_nvml *n)
{
    n->backoff_ns = n->backoff_ns ? n->backoff_ns * 2 : n->backoff_min_ns;
    if (n->backoff_ns > n->backoff_max_ns)
        n->backoff_ns = n->backoff_max_ns;
    n->next_init_ns = gm_mono_ns() + n->backoff_ns;
}

int gm_nvml_open(struct gm_nvml **out, const char *lib_path, struct gm_err *err)
{
    struct gm_nvml *n = gm_xcalloc(1, sizeof(*n));
    *out = n;
    n->backoff_min_ns = 0;
    n->backoff_max_ns = 60LL * 1000000000LL;
    n->groups = gm_nvml_groups_default();
    n->want_procs = 1;
    atomic_init(&n->cur_call, NULL);
    atomic_init(&n->cur_gpu, -1);
    if (gethostname(n->hostname, sizeof(n->hostname) - 1) != 0)
        gm_strlcpy(n->hostname, "unknown", sizeof(n->hostname));

    if (!lib_path || !*lib_path)
        lib_path = getenv("GPUMON_NVML_LIB");
    if (!lib_path || !*lib_path)
        lib_path = "libnvidia-ml.so.1";
    gm_strlcpy(n->lib_path, lib_path, sizeof(n->lib_path));

    n->dl = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!n->dl) {
        const char *why = dlerror();
        char msg[512];
        snprintf(msg, sizeof(msg),
                 "cannot load the NVIDIA management library %s (%s); the NVIDIA driver is not "
                 "installed or its library is not on the loader path; run 'gpumon doctor' (check "
                 "'nvml')",
                 lib_path, why ? why : "unknown reason");
        set_state(n, GM_DRV_NOLIB, NVML_ERROR_LIBRARY_NOT_FOUND, msg);
        if (err)
            err->nvml_code = NVML_ERROR_LIBRARY_NOT_FOUND;
        return gm_err_set(err, GM_E_NOLIB, "%s", msg);
    }
    for (size_t i = 0; i < NSYMS; i++) {
        void *p = dlsym(n->dl, symtab[i].name);
        memcpy((char *)&n->f + symtab[i].off, &p, sizeof(p));
    }
    if (!n->f.nvmlInit_v2 && !n->f.nvmlInit) {
        char msg[512];
        snprintf(msg, sizeof(msg), "%s does not export nvmlInit: not an NVML library", lib_path);
        set_state(n, GM_DRV_NOLIB, NVML_ERROR_FUNCTION_NOT_FOUND, msg);
        if (err)
            err->nvml_code = NVML_ERROR_FUNCTION_NOT_FOUND;
        return gm_err_set(err, GM_E_NOLIB, "%s", msg);
    }
    int rc = try_init(n);
    if (rc != NVML_SUCCESS) {
        schedule_retry(n);
        if (err)
            err->nvml_code = rc;
        return gm_err_set(err, GM_E_DRIVER, "%s", n->state_msg);
    }
    return 0;
}

void gm_nvml_close(struct gm_nvml *n)
{
    if (!n)
        return;
    free_devices(n);
    if (n->inited && n->f.nvmlShutdown)
        n->f.nvmlShutdown();
    if (n->dl)
        dlclose(n->dl);
    free(n->pbuf);
    free(n->ubuf);
    free(n);
}

void gm_nvml_set_backoff(struct gm_nvml *n, int64_t min_ns, int64_t max_ns)
{
    n->backoff_min_ns = min_ns;
    n->backoff_max_ns = max_ns < min_ns ? min_ns : max_ns;
}

void gm_nvml_set_groups(struct gm_nvml *n, const struct gm_rgset *groups, int procs, unsigned flags)
{
    struct gm_rgset st = gm_nvml_groups_static();
    n->groups = *groups;
    gm_rgset_union(&n->groups, &st);
    n->want_procs = procs;
    n->flags = flags;
}

struct gm_rgset gm_nvml_groups_static(void)
{
    struct gm_rgset m = GM_RGSET_EMPTY;
    for (int g = 0; g < GM_RG__COUNT; g++)
        if (gm_read_groups[g].is_static)
            gm_rgset_add(&m, (unsigned)g);
    return m;
}

struct gm_rgset gm_nvml_groups_default(void)
{
    /* PCIe throughput costs ~20 ms per counter on real hardware: only on request.
     * GPM is in, without GM_NVML_GPM_PRIME: one interval per sample.  The
     * groups behind nvidia-smi's rarer --query-gpu fields (issue 14) are in
     * too: each is one or a few cheap calls (inforom and driver model once
     * per GPU), and `status --json --pcie --gpm` making every call that a
     * query can make is what tests/e2e/fault_sweep.py relies on. */
    struct gm_rgset m = gm_rgset_all();
    gm_rgset_del(&m, GM_RG_PCIE_TPUT);
    return m;
}

const char *gm_nvml_current_call(const struct gm_nvml *n, int *gpu)
{
    struct gm_nvml *m = (struct gm_nvml *)n;
    const char *c = atomic_load(&m->cur_call);
    if (gpu)
        *gpu = c ? atomic_load(&m->cur_gpu) : -1;
    return c;
}

const char *gm_nvml_missing_symbols(const struct gm_nvml *n, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NSYMS && n->dl; i++) {
        void *p;
        memcpy(&p, (const char *)&n->f + symtab[i].off, sizeof(p));
        if (p)
            continue;
        int w = snprintf(buf + off, len - off, "%s%s", off ? "," : "", symtab[i].name);
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
    return buf;
}

/* ------------------------------------------------------------ value helpers */

static inline int want(const struct gm_nvml *n, enum gm_read_group g)
{
    return gm_rgset_has(&n->groups, (unsigned)g);
}

static void setv(struct gm_gpu *g, int id, nvmlReturn_t rc, struct gm_value ok)
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

static int driver_gone(nvmlReturn_t rc);

/* Remembers a code that takes the GPU (or the driver) away. */
static void note(struct rd *r, nvmlReturn_t rc)
{
    if (rc == NVML_ERROR_GPU_IS_LOST || driver_gone(rc))
        r->lost = rc;
}

static void read_string(struct gm_gpu *g, int id, nvmlReturn_t rc, const char *s)
{
    if (rc == NVML_SUCCESS) {
        gm_strlcpy(g->str[gm_metrics[id].sslot], s, GM_STR_MAX);
        g->m[id] = gm_v_u64(0);
    } else {
        g->str[gm_metrics[id].sslot][0] = '\0';
        g->m[id] = gm_v_status(gm_v_status_from_nvml(rc), rc);
    }
}

/* ------------------------------------------------- readers: static groups */

static void rd_index(struct rd *r)
{
    r->g->m[GM_M_INDEX] = gm_v_u64((uint64_t)r->i); /* NVML's enumeration order, not a call */
}

static void rd_minor(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMinorNumber, &u);
    setv(r->g, GM_M_MINOR, rc, gm_v_u64(u));
}

static void rd_name(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetName, buf, sizeof(buf));
    read_string(r->g, GM_M_NAME, rc, buf);
}

static void rd_uuid(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetUUID, buf, sizeof(buf));
    read_string(r->g, GM_M_UUID, rc, buf);
}

static void rd_serial(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetSerial, buf, NVML_DEVICE_SERIAL_BUFFER_SIZE);
    read_string(r->g, GM_M_SERIAL, rc, buf);
}

static void rd_vbios(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc =
        RCALL(r, nvmlDeviceGetVbiosVersion, buf, NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE);
    read_string(r->g, GM_M_VBIOS, rc, buf);
}

static void rd_board_part(struct rd *r)
{
    char buf[GM_STR_MAX] = "";
    nvmlReturn_t rc =
        RCALL(r, nvmlDeviceGetBoardPartNumber, buf, NVML_DEVICE_PART_NUMBER_BUFFER_SIZE);
    read_string(r->g, GM_M_BOARD_PART, rc, buf);
}

static void rd_pci(struct rd *r)
{
    struct gm_gpu *g = r->g;
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof(pci));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPciInfo_v3, &pci);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND)
        rc = RCALL(r, nvmlDeviceGetPciInfo_v2, &pci);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        rc = RCALL(r, nvmlDeviceGetPciInfo, &pci);
        /* the v1 layout has only the legacy 16-byte bus id */
        if (rc == NVML_SUCCESS)
            snprintf(pci.busId, sizeof(pci.busId), "%08X:%02X:%02X.0", pci.domain, pci.bus,
                     pci.device);
    }
    pci.busId[sizeof(pci.busId) - 1] = '\0';
    read_string(g, GM_M_PCI_BUS_ID, rc, pci.busId);
    setv(g, GM_M_PCI_DOMAIN, rc, gm_v_u64(pci.domain));
    setv(g, GM_M_PCI_BUS, rc, gm_v_u64(pci.bus));
    setv(g, GM_M_PCI_DEVICE, rc, gm_v_u64(pci.device));
    setv(g, GM_M_PCI_DEVICE_ID, rc, gm_v_u64(pci.pciDeviceId));
    setv(g, GM_M_PCI_SUB_DEVICE_ID, rc, gm_v_u64(pci.pciSubSystemId));
}

static void rd_cc(struct rd *r)
{
    int major = 0, minor = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetCudaComputeCapability, &major, &minor);
    setv(r->g, GM_M_COMPUTE_CAP, rc, gm_v_u64((uint64_t)major * 10 + (uint64_t)minor));
}

static void rd_temp_thresh(struct rd *r)
{
    static const struct {
        int id;
        nvmlTemperatureThresholds_t t;
    } th[] = {{GM_M_TEMP_SHUTDOWN, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN},
              {GM_M_TEMP_SLOWDOWN, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN},
              {GM_M_TEMP_GPU_MAX, NVML_TEMPERATURE_THRESHOLD_GPU_MAX},
              {GM_M_TEMP_MEM_MAX, NVML_TEMPERATURE_THRESHOLD_MEM_MAX}};
    for (size_t k = 0; k < sizeof(th) / sizeof(th[0]); k++) {
        unsigned int u = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetTemperatureThreshold, th[k].t, &u);
        setv(r->g, th[k].id, rc, gm_v_u64(u));
    }
}

static void rd_power_limits(struct rd *r)
{
    unsigned int u = 0, u2 = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerManagementDefaultLimit, &u);
    setv(r->g, GM_M_POWER_DEFAULT, rc, gm_v_f64(u / 1000.0));
    rc = RCALL(r, nvmlDeviceGetPowerManagementLimitConstraints, &u, &u2);
    setv(r->g, GM_M_POWER_MIN, rc, gm_v_f64(u / 1000.0));
    setv(r->g, GM_M_POWER_MAX, rc, gm_v_f64(u2 / 1000.0));
}

static void rd_max_clocks(struct rd *r)
{
    static const struct {
        int id;
        nvmlClockType_t t;
    } mc[] = {{GM_M_CLK_MAX_GR, NVML_CLOCK_GRAPHICS},
              {GM_M_CLK_MAX_SM, NVML_CLOCK_SM},
              {GM_M_CLK_MAX_MEM, NVML_CLOCK_MEM},
              {GM_M_CLK_MAX_VIDEO, NVML_CLOCK_VIDEO}};
    for (size_t k = 0; k < sizeof(mc) / sizeof(mc[0]); k++) {
        unsigned int u = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMaxClockInfo, mc[k].t, &u);
        setv(r->g, mc[k].id, rc, gm_v_u64(u));
    }
}

static void rd_max_pcie(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMaxPcieLinkGeneration, &u);
    setv(r->g, GM_M_PCIE_GEN_MAX, rc, gm_v_u64(u));
    rc = RCALL(r, nvmlDeviceGetMaxPcieLinkWidth, &u);
    setv(r->g, GM_M_PCIE_WIDTH_MAX, rc, gm_v_u64(u));
    rc = RCALL(r, nvmlDeviceGetGpuMaxPcieLinkGeneration, &u);
    setv(r->g, GM_M_PCIE_GEN_GPUMAX, rc, gm_v_u64(u));
}

static void rd_driver_model(struct rd *r)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDriverModel_v2, &cur, &pend);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) /* drivers before the _v2 symbol */
        rc = RCALL(r, nvmlDeviceGetDriverModel, &cur, &pend);
    setv(r->g, GM_M_DRIVER_MODEL_CUR, rc, gm_v_u64(cur));
    setv(r->g, GM_M_DRIVER_MODEL_PEND, rc, gm_v_u64(pend));
}

static void rd_inforom(struct rd *r)
{
    static const struct {
        int id;
        int object; /* nvmlInforomObject_t, -1: the image */
    } parts[] = {{GM_M_INFOROM_IMG, -1},
                 {GM_M_INFOROM_OEM, NVML_INFOROM_OEM},
                 {GM_M_INFOROM_ECC, NVML_INFOROM_ECC},
                 {GM_M_INFOROM_PWR, NVML_INFOROM_POWER}};
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        char buf[GM_STR_MAX] = "";
        nvmlReturn_t rc = parts[k].object < 0 ? RCALL(r, nvmlDeviceGetInforomImageVersion, buf, 16)
                                              : RCALL(r, nvmlDeviceGetInforomVersion,
                                                      (unsigned int)parts[k].object, buf, 16);
        read_string(r->g, parts[k].id, rc, buf);
    }
}

/* ------------------------------------------------ readers: dynamic groups */

/* Each notes the code of its last call (and of every call in a loop): a
 * GPU lost or a driver gone there ends the GPU's read. */

static void rd_persistence(struct rd *r)
{
    nvmlEnableState_t e = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPersistenceMode, &e);
    setv(r->g, GM_M_PERSISTENCE, rc, gm_v_u64(e));
    note(r, rc);
}

static void rd_compute_mode(struct rd *r)
{
    nvmlComputeMode_t cm = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetComputeMode, &cm);
    setv(r->g, GM_M_COMPUTE_MODE, rc, gm_v_u64(cm));
    note(r, rc);
}

static void rd_display(struct rd *r)
{
    nvmlEnableState_t e = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDisplayMode, &e);
    setv(r->g, GM_M_DISPLAY_MODE, rc, gm_v_u64(e));
    rc = RCALL(r, nvmlDeviceGetDisplayActive, &e);
    setv(r->g, GM_M_DISPLAY_ACTIVE, rc, gm_v_u64(e));
    note(r, rc);
}

static void rd_mig_mode(struct rd *r)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMigMode, &cur, &pend);
    setv(r->g, GM_M_MIG_CURRENT, rc, gm_v_u64(cur));
    setv(r->g, GM_M_MIG_PENDING, rc, gm_v_u64(pend));
    note(r, rc);
}

static void rd_pstate(struct rd *r)
{
    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPerformanceState, &ps);
    setv(r->g, GM_M_PSTATE, rc, gm_v_u64((uint64_t)ps));
    note(r, rc);
}

static void rd_fan(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFanSpeed, &u);
    setv(r->g, GM_M_FAN, rc, gm_v_u64(u));
    note(r, rc);
}

static void rd_temp(struct rd *r)
{
    nvmlReturn_t rc;
    if (r->n->f.nvmlDeviceGetTemperature) {
        unsigned int u = 0;
        rc = RCALL(r, nvmlDeviceGetTemperature, NVML_TEMPERATURE_GPU, &u);
        setv(r->g, GM_M_TEMP_GPU, rc, gm_v_u64(u));
    } else {
        nvmlTemperature_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
        rc = RCALL(r, nvmlDeviceGetTemperatureV, &t);
        setv(r->g, GM_M_TEMP_GPU, rc, gm_v_i64(t.temperature));
    }
    note(r, rc);
}

/* One field value (nvmlDeviceGetFieldValues) as an integer into *v: the
 * call's code, or the field's own when the call succeeded. */
static nvmlReturn_t read_field(struct rd *r, unsigned int field, uint64_t *v)
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

static void rd_temp_mem(struct rd *r)
{
    uint64_t v = 0;
    nvmlReturn_t rc = read_field(r, NVML_FI_DEV_MEMORY_TEMP, &v);
    if (rc == NVML_SUCCESS)
        /* a zero memory temperature is how some boards say "no sensor" */
        r->g->m[GM_M_TEMP_MEM] = v ? gm_v_u64(v) : gm_v_status(GM_VS_NA, 0);
    else
        setv(r->g, GM_M_TEMP_MEM, rc, gm_v_u64(0));
    note(r, rc);
}

static void rd_power(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerUsage, &u);
    setv(r->g, GM_M_POWER_DRAW, rc, gm_v_f64(u / 1000.0));
    note(r, rc);
}

static void rd_power_instant(struct rd *r)
{
    uint64_t mw = 0;
    nvmlReturn_t rc = read_field(r, NVML_FI_DEV_POWER_AVERAGE, &mw);
    setv(r->g, GM_M_POWER_AVERAGE, rc, gm_v_f64((double)mw / 1000.0));
    rc = read_field(r, NVML_FI_DEV_POWER_INSTANT, &mw);
    setv(r->g, GM_M_POWER_INSTANT, rc, gm_v_f64((double)mw / 1000.0));
    note(r, rc);
}

static void rd_power_limit(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerManagementLimit, &u);
    setv(r->g, GM_M_POWER_LIMIT, rc, gm_v_f64(u / 1000.0));
    rc = RCALL(r, nvmlDeviceGetEnforcedPowerLimit, &u);
    setv(r->g, GM_M_POWER_ENFORCED, rc, gm_v_f64(u / 1000.0));
    note(r, rc);
}

static void rd_energy(struct rd *r)
{
    unsigned long long ull = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetTotalEnergyConsumption, &ull);
    setv(r->g, GM_M_ENERGY, rc, gm_v_f64(ull / 1000.0));
    note(r, rc);
}

static void rd_util(struct rd *r)
{
    nvmlUtilization_t ut = {0, 0};
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetUtilizationRates, &ut);
    setv(r->g, GM_M_UTIL_GPU, rc, gm_v_u64(ut.gpu));
    setv(r->g, GM_M_UTIL_MEM, rc, gm_v_u64(ut.memory));
    note(r, rc);
}

static void rd_enc(struct rd *r)
{
    unsigned int u = 0, period_us = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetEncoderUtilization, &u, &period_us);
    setv(r->g, GM_M_UTIL_ENC, rc, gm_v_u64(u));
    note(r, rc);
}

static void rd_dec(struct rd *r)
{
    unsigned int u = 0, period_us = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetDecoderUtilization, &u, &period_us);
    setv(r->g, GM_M_UTIL_DEC, rc, gm_v_u64(u));
    note(r, rc);
}

static void rd_memory(struct rd *r)
{
    struct gm_gpu *g = r->g;
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (!r->n->mem_v1) {
        nvmlMemory_v2_t m2;
        memset(&m2, 0, sizeof(m2));
        m2.version = nvmlMemory_v2;
        rc = RCALL(r, nvmlDeviceGetMemoryInfo_v2, &m2);
        if (rc == NVML_SUCCESS) {
            g->m[GM_M_MEM_TOTAL] = gm_v_u64(m2.total);
            g->m[GM_M_MEM_RESERVED] = gm_v_u64(m2.reserved);
            g->m[GM_M_MEM_USED] = gm_v_u64(m2.used);
            g->m[GM_M_MEM_FREE] = gm_v_u64(m2.free);
        } else if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
            r->n->mem_v1 = 1; /* older driver: symbol missing or struct version refused */
        }
    }
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        nvmlMemory_t m1 = {0, 0, 0};
        rc = RCALL(r, nvmlDeviceGetMemoryInfo, &m1);
        setv(g, GM_M_MEM_TOTAL, rc, gm_v_u64(m1.total));
        setv(g, GM_M_MEM_USED, rc, gm_v_u64(m1.used)); /* includes reserved memory */
        setv(g, GM_M_MEM_FREE, rc, gm_v_u64(m1.free));
        g->m[GM_M_MEM_RESERVED] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND);
    } else if (rc != NVML_SUCCESS) {
        for (int id = GM_M_MEM_TOTAL; id <= GM_M_MEM_FREE; id++)
            setv(g, id, rc, gm_v_u64(0));
    }
    note(r, rc);
}

static void rd_bar1(struct rd *r)
{
    nvmlBAR1Memory_t b = {0, 0, 0};
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetBAR1MemoryInfo, &b);
    setv(r->g, GM_M_BAR1_TOTAL, rc, gm_v_u64(b.bar1Total));
    setv(r->g, GM_M_BAR1_USED, rc, gm_v_u64(b.bar1Used));
    note(r, rc);
}

static void rd_clocks(struct rd *r)
{
    static const struct {
        int id;
        nvmlClockType_t t;
    } ck[] = {{GM_M_CLK_GR, NVML_CLOCK_GRAPHICS},
              {GM_M_CLK_SM, NVML_CLOCK_SM},
              {GM_M_CLK_MEM, NVML_CLOCK_MEM},
              {GM_M_CLK_VIDEO, NVML_CLOCK_VIDEO}};
    for (size_t k = 0; k < sizeof(ck) / sizeof(ck[0]); k++) {
        unsigned int u = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetClockInfo, ck[k].t, &u);
        setv(r->g, ck[k].id, rc, gm_v_u64(u));
        note(r, rc);
    }
}

static void rd_clock_reasons(struct rd *r)
{
    unsigned long long act = 0, sup = 0;
    nvmlReturn_t rc = r->n->f.nvmlDeviceGetCurrentClocksEventReasons
                          ? RCALL(r, nvmlDeviceGetCurrentClocksEventReasons, &act)
                          : RCALL(r, nvmlDeviceGetCurrentClocksThrottleReasons, &act);
    setv(r->g, GM_M_CER_ACTIVE, rc, gm_v_u64(act));
    for (int id = GM_M_CER_GPU_IDLE; id <= GM_M_CER_DISPLAY_CLOCK; id++)
        setv(r->g, id, rc, gm_v_u64((act & gm_metrics[id].bit) ? 1 : 0));
    note(r, rc);
    rc = r->n->f.nvmlDeviceGetSupportedClocksEventReasons
             ? RCALL(r, nvmlDeviceGetSupportedClocksEventReasons, &sup)
             : RCALL(r, nvmlDeviceGetSupportedClocksThrottleReasons, &sup);
    setv(r->g, GM_M_CER_SUPPORTED, rc, gm_v_u64(sup));
    note(r, rc);
}

static void rd_violation(struct rd *r)
{
    nvmlViolationTime_t vt = {0, 0};
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetViolationStatus, NVML_PERF_POLICY_POWER, &vt);
    setv(r->g, GM_M_VIOL_POWER, rc, gm_v_f64(vt.violationTime / 1e9));
    rc = RCALL(r, nvmlDeviceGetViolationStatus, NVML_PERF_POLICY_THERMAL, &vt);
    setv(r->g, GM_M_VIOL_THERMAL, rc, gm_v_f64(vt.violationTime / 1e9));
    note(r, rc);
}

static void rd_pcie_link(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetCurrPcieLinkGeneration, &u);
    setv(r->g, GM_M_PCIE_GEN_CUR, rc, gm_v_u64(u));
    rc = RCALL(r, nvmlDeviceGetCurrPcieLinkWidth, &u);
    setv(r->g, GM_M_PCIE_WIDTH_CUR, rc, gm_v_u64(u));
    note(r, rc);
}

static void rd_pcie_tput(struct rd *r)
{
    /* NVML reports KB/s (KiB, as nvtop and nvitop read it) */
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_TX_BYTES, &u);
    setv(r->g, GM_M_PCIE_TX, rc, gm_v_u64((uint64_t)u * 1024));
    rc = RCALL(r, nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_RX_BYTES, &u);
    setv(r->g, GM_M_PCIE_RX, rc, gm_v_u64((uint64_t)u * 1024));
    note(r, rc);
}

static void rd_pcie_replay(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPcieReplayCounter, &u);
    setv(r->g, GM_M_PCIE_REPLAY, rc, gm_v_u64(u));
    note(r, rc);
}

static void rd_ecc_mode(struct rd *r)
{
    nvmlEnableState_t cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetEccMode, &cur, &pend);
    setv(r->g, GM_M_ECC_CUR, rc, gm_v_u64(cur));
    setv(r->g, GM_M_ECC_PENDING, rc, gm_v_u64(pend));
    note(r, rc);
}

static void rd_ecc_counts(struct rd *r)
{
    static const struct {
        int id;
        nvmlMemoryErrorType_t e;
        nvmlEccCounterType_t c;
    } ec[] = {{GM_M_ECC_CORR_VOL, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC},
              {GM_M_ECC_UNCORR_VOL, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC},
              {GM_M_ECC_CORR_AGG, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC},
              {GM_M_ECC_UNCORR_AGG, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC}};
    for (size_t k = 0; k < sizeof(ec) / sizeof(ec[0]); k++) {
        unsigned long long ull = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetTotalEccErrors, ec[k].e, ec[k].c, &ull);
        setv(r->g, ec[k].id, rc, gm_v_u64(ull));
        note(r, rc);
        if (rc == NVML_ERROR_NOT_SUPPORTED) {
            for (size_t rest = k + 1; rest < sizeof(ec) / sizeof(ec[0]); rest++)
                setv(r->g, ec[rest].id, rc, gm_v_u64(0));
            break;
        }
    }
}

static void rd_retired(struct rd *r)
{
    static const struct {
        int id;
        nvmlPageRetirementCause_t c;
    } rp[] = {{GM_M_RETIRED_SBE, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS},
              {GM_M_RETIRED_DBE, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR}};
    nvmlReturn_t rc;
    for (size_t k = 0; k < sizeof(rp) / sizeof(rp[0]); k++) {
        unsigned int cnt = 0;
        rc = RCALL(r, nvmlDeviceGetRetiredPages, rp[k].c, &cnt, NULL);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
            rc = NVML_SUCCESS; /* the size query answers with the count */
        setv(r->g, rp[k].id, rc, gm_v_u64(cnt));
        note(r, rc);
    }
    nvmlEnableState_t pend = 0;
    rc = RCALL(r, nvmlDeviceGetRetiredPagesPendingStatus, &pend);
    setv(r->g, GM_M_RETIRED_PENDING, rc, gm_v_u64(pend));
    note(r, rc);
}

static void rd_remapped(struct rd *r)
{
    unsigned int corr = 0, unc = 0, pend = 0, fail = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetRemappedRows, &corr, &unc, &pend, &fail);
    setv(r->g, GM_M_REMAP_CORR, rc, gm_v_u64(corr));
    setv(r->g, GM_M_REMAP_UNCORR, rc, gm_v_u64(unc));
    setv(r->g, GM_M_REMAP_PENDING, rc, gm_v_u64(pend ? 1 : 0));
    setv(r->g, GM_M_REMAP_FAILURE, rc, gm_v_u64(fail ? 1 : 0));
    note(r, rc);
}

/* ------------------------------------------------------------------- GPM */

/* Every GPM metric of the GPU gets status rc (not supported, no data yet,
 * an error). */
static void gpm_set_all(struct gm_gpu *g, nvmlReturn_t rc)
{
    for (int id = GM_GPM_FIRST; id < GM_GPM_FIRST + GM_GPM_COUNT; id++)
        setv(g, id, rc, gm_v_f64(0));
}

/* Whether the GPU can do GPM: asked once per GPU (per handle), with the
 * samples allocated on the first yes. */
static nvmlReturn_t gpm_ready(struct rd *r, struct dev *d)
{
    if (d->gpm_asked)
        return d->gpm_off;
    nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
    nvmlReturn_t rc = RCALL(r, nvmlGpmQueryDeviceSupport, &sup);
    if (rc == NVML_SUCCESS && !sup.isSupportedDevice)
        rc = NVML_ERROR_NOT_SUPPORTED;
    for (int k = 0; k < 2 && rc == NVML_SUCCESS; k++)
        rc = CALL(r->n, r->i, nvmlGpmSampleAlloc, &d->gpm[k]);
    if (rc == NVML_ERROR_GPU_IS_LOST || driver_gone(rc))
        return rc; /* asked again on the GPU's next read */
    d->gpm_asked = 1;
    d->gpm_off = rc;
    return rc;
}

/* Takes the GPU's next sample into the free buffer. */
static nvmlReturn_t gpm_take(struct rd *r, struct dev *d)
{
    return RCALL(r, nvmlGpmSampleGet, d->gpm[!d->gpm_prev]);
}

/* A failed GPM sample: no interval to continue from; a GPU that cannot
 * sample (NOT_SUPPORTED, no symbol) is not asked again. */
static void gpm_fail(struct rd *r, struct dev *d, nvmlReturn_t rc)
{
    d->gpm_have_prev = 0;
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        d->gpm_asked = 1;
        d->gpm_off = rc;
    }
    gpm_set_all(r->g, rc);
    note(r, rc);
}

/* The GPM metrics of the interval from sample s1 to s2 into out[] (one
 * value per GPM row, GM_GPM_FIRST on): a metric NVML answers with its own
 * error gets that status; the call's error, every one.  Returns the call's
 * code. */
static nvmlReturn_t gpm_compute(struct gm_nvml *n, int i, nvmlGpmSample_t s1, nvmlGpmSample_t s2,
                                struct gm_value out[GM_GPM_COUNT])
{
    nvmlGpmMetricsGet_t mg;
    memset(&mg, 0, offsetof(nvmlGpmMetricsGet_t, metrics));
    mg.version = NVML_GPM_METRICS_GET_VERSION;
    mg.numMetrics = GM_GPM_COUNT; /* NVML touches metrics[0 .. numMetrics-1] only */
    mg.sample1 = s1;
    mg.sample2 = s2;
    for (int k = 0; k < GM_GPM_COUNT; k++) {
        memset(&mg.metrics[k], 0, sizeof(mg.metrics[k]));
        mg.metrics[k].metricId = gm_metrics[GM_GPM_FIRST + k].gpm_id;
    }
    nvmlReturn_t rc = CALL(n, i, nvmlGpmMetricsGet, &mg);
    for (int k = 0; k < GM_GPM_COUNT; k++) {
        int id = GM_GPM_FIRST + k;
        nvmlReturn_t mrc = rc == NVML_SUCCESS ? mg.metrics[k].nvmlReturn : rc;
        double v = mg.metrics[k].value;
        if (mrc == NVML_SUCCESS && (v != v || v < 0)) /* NaN or negative: not a reading */
            mrc = NVML_ERROR_UNKNOWN;
        if (mrc != NVML_SUCCESS)
            out[k] = gm_v_status(gm_v_status_from_nvml(mrc), mrc);
        else if (gm_metrics[id].unit == GM_U_BYTES_PER_S) /* NVML: MiB/s; ours: whole bytes/s */
            out[k] = gm_v_u64((uint64_t)(v * 1048576.0 + 0.5));
        else
            out[k] = gm_v_f64(v);
    }
    return rc;
}

/* Takes the GPU's next sample and the metrics of the interval since the
 * previous one (gpm[gpm_prev]); the new sample starts the next interval. */
static void gpm_finish(struct rd *r, struct dev *d)
{
    nvmlReturn_t rc = gpm_take(r, d);
    if (rc != NVML_SUCCESS) {
        gpm_fail(r, d, rc);
        return;
    }
    rc = gpm_compute(r->n, r->i, d->gpm[d->gpm_prev], d->gpm[!d->gpm_prev], &r->g->m[GM_GPM_FIRST]);
    d->gpm_prev = !d->gpm_prev;
    note(r, rc);
}

/* GPM: one interval per sample.  The previous GPM sample is kept per GPU,
 * so the agent, dmon and top pay one nvmlGpmSampleGet and one
 * nvmlGpmMetricsGet per GPU and sample.  A GPU's first read has no interval
 * yet: it is "not yet available" (NA, NVML_ERROR_NO_DATA), unless
 * GM_NVML_GPM_PRIME asks for an interval now: then the GPU is left pending
 * and gpm_primed() finishes every pending GPU after one wait of
 * GM_NVML_GPM_PRIME_MS for the whole sample (one-shot commands). */
static void rd_power_mgmt(struct rd *r)
{
    unsigned int mode = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPowerManagementMode, &mode);
    setv(r->g, GM_M_POWER_MGMT, rc, gm_v_u64(mode));
    note(r, rc);
}

static void rd_app_clocks(struct rd *r)
{
    static const struct {
        int id;
        nvmlClockType_t type;
        int dflt;
    } parts[] = {{GM_M_CLK_APP_GR, NVML_CLOCK_GRAPHICS, 0},
                 {GM_M_CLK_APP_MEM, NVML_CLOCK_MEM, 0},
                 {GM_M_CLK_DEFAPP_GR, NVML_CLOCK_GRAPHICS, 1},
                 {GM_M_CLK_DEFAPP_MEM, NVML_CLOCK_MEM, 1}};
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        unsigned int mhz = 0;
        rc = parts[k].dflt ? RCALL(r, nvmlDeviceGetDefaultApplicationsClock, parts[k].type, &mhz)
                           : RCALL(r, nvmlDeviceGetApplicationsClock, parts[k].type, &mhz);
        setv(r->g, parts[k].id, rc, gm_v_u64(mhz));
    }
    note(r, rc);
}

static void rd_gom(struct rd *r)
{
    unsigned int cur = 0, pend = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetGpuOperationMode, &cur, &pend);
    setv(r->g, GM_M_GOM_CUR, rc, gm_v_u64(cur));
    setv(r->g, GM_M_GOM_PEND, rc, gm_v_u64(pend));
    note(r, rc);
}

static void rd_accounting(struct rd *r)
{
    nvmlEnableState_t mode = 0;
    unsigned int size = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetAccountingMode, &mode);
    setv(r->g, GM_M_ACCOUNTING_MODE, rc, gm_v_u64(mode));
    rc = RCALL(r, nvmlDeviceGetAccountingBufferSize, &size);
    setv(r->g, GM_M_ACCOUNTING_BUFFER, rc, gm_v_u64(size));
    note(r, rc);
}

static void rd_enc_stats(struct rd *r)
{
    unsigned int n = 0, fps = 0, lat = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetEncoderStats, &n, &fps, &lat);
    setv(r->g, GM_M_ENC_SESSIONS, rc, gm_v_u64(n));
    setv(r->g, GM_M_ENC_FPS, rc, gm_v_u64(fps));
    setv(r->g, GM_M_ENC_LATENCY, rc, gm_v_u64(lat));
    note(r, rc);
}

static void rd_remap_hist(struct rd *r)
{
    nvmlRowRemapperHistogramValues_t h;
    memset(&h, 0, sizeof(h));
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetRowRemapperHistogram, &h);
    setv(r->g, GM_M_REMAP_HIST_MAX, rc, gm_v_u64(h.max));
    setv(r->g, GM_M_REMAP_HIST_HIGH, rc, gm_v_u64(h.high));
    setv(r->g, GM_M_REMAP_HIST_PARTIAL, rc, gm_v_u64(h.partial));
    setv(r->g, GM_M_REMAP_HIST_LOW, rc, gm_v_u64(h.low));
    setv(r->g, GM_M_REMAP_HIST_NONE, rc, gm_v_u64(h.none));
    note(r, rc);
}

/* The cluster UUID is 16 raw bytes: shown in the canonical 8-4-4-4-12 form.
 * The clique and cluster exist only once registration completed. */
static void rd_fabric(struct rd *r)
{
    nvmlGpuFabricInfoV_t f;
    memset(&f, 0, sizeof(f));
    f.version = nvmlGpuFabricInfo_v2;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetGpuFabricInfoV, &f);
    setv(r->g, GM_M_FABRIC_STATE, rc, gm_v_u64(f.state));
    int done = rc == NVML_SUCCESS && f.state == 3;
    nvmlReturn_t part = rc != NVML_SUCCESS ? rc : done ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
    setv(r->g, GM_M_FABRIC_STATUS, part, gm_v_u64((uint64_t)f.status));
    setv(r->g, GM_M_FABRIC_CLIQUE, part, gm_v_u64(f.cliqueId));
    const unsigned char *u = (const unsigned char *)f.clusterUuid;
    char buf[GM_STR_MAX];
    snprintf(buf, sizeof(buf),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    read_string(r->g, GM_M_FABRIC_CLUSTER, part, buf);
    note(r, rc);
}

static void rd_ecc_locations(struct rd *r)
{
    static const struct {
        int id;
        nvmlMemoryErrorType_t type;
        nvmlEccCounterType_t counter;
        unsigned int location;
    } parts[] = {
        {GM_M_ECC_CORR_VOL_DRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_UNCORR_VOL_DRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_CORR_AGG_DRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_UNCORR_AGG_DRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_DRAM},
        {GM_M_ECC_CORR_VOL_SRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
        {GM_M_ECC_UNCORR_VOL_SRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
        {GM_M_ECC_CORR_AGG_SRAM, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
        {GM_M_ECC_UNCORR_AGG_SRAM, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
         NVML_MEMORY_LOCATION_SRAM},
    };
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        unsigned long long n = 0;
        rc = RCALL(r, nvmlDeviceGetMemoryErrorCounter, parts[k].type, parts[k].counter,
                   parts[k].location, &n);
        setv(r->g, parts[k].id, rc, gm_v_u64(n));
    }
    note(r, rc);
}

/* Clock event reason durations (ns in NVML) as seconds; nvidia-smi prints
 * them in microseconds (GM_U_US). */
static void rd_cer_counters(struct rd *r)
{
    static const struct {
        int id;
        unsigned int field;
    } parts[] = {{GM_M_CERC_SW_POWER_CAP, 74},
                 {GM_M_CERC_SYNC_BOOST, 76},
                 {GM_M_CERC_SW_THERMAL, 269},
                 {GM_M_CERC_HW_THERMAL, 270},
                 {GM_M_CERC_HW_POWER_BRAKE, 271}};
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        uint64_t ns = 0;
        rc = read_field(r, parts[k].field, &ns);
        setv(r->g, parts[k].id, rc, gm_v_f64((double)ns / 1e9));
    }
    note(r, rc);
}

/* Links are numbered densely from 0: INVALID_ARGUMENT (or NOT_SUPPORTED)
 * past the last one ends them; NOT_SUPPORTED on link 0 means no NVLink
 * (every value absent).  A link that answers inactive is down (counted in
 * GM_M_NVLINK_DOWN).  Any other error on a link makes both link counts
 * that error.  Error counters are summed over the active links
 * (nvmlNvLinkErrorCounter_t 0 replay, 1 recovery, 2 CRC flit, 3 CRC data):
 * a counter no link reports is NOT_SUPPORTED, one a link failed to give
 * carries that error (the sum would be short). */
/* The link states and error counters of r's GPU into d (see rd_nvlink). */
static void nvlink_slow(struct rd *r, struct dev *d)
{
    unsigned int active = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetNvLinkState, 0, &active);
    d->nvl_rc = rc;
    if (rc != NVML_SUCCESS) {
        d->nvl_n = 0;
        note(r, rc);
        return;
    }
    unsigned int links = 0, down = 0;
    nvmlReturn_t links_rc = NVML_SUCCESS;
    unsigned long long errs[4] = {0, 0, 0, 0};
    nvmlReturn_t erc[4] = {NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED,
                           NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED};
    int failed[4] = {0, 0, 0, 0};
    unsigned int l = 0;
    for (; l < NVML_NVLINK_MAX_LINKS && l < GM_NVLINK_MAX; l++) {
        d->nvl_up[l] = 0;
        for (unsigned int k = 0; k < 4; k++)
            d->nvl_lerc[l][k] = NVML_ERROR_NOT_SUPPORTED;
        if (l > 0) {
            nvmlReturn_t s = RCALL(r, nvmlDeviceGetNvLinkState, l, &active);
            if (s == NVML_ERROR_INVALID_ARGUMENT || s == NVML_ERROR_NOT_SUPPORTED)
                break;
            d->nvl_src[l] = s;
            if (s != NVML_SUCCESS) {
                links_rc = s;
                note(r, s);
                continue;
            }
        } else {
            d->nvl_src[0] = NVML_SUCCESS;
        }
        if (!active) {
            down++;
            continue;
        }
        links++;
        d->nvl_up[l] = 1;
        for (unsigned int k = 0; k < 4; k++) {
            unsigned long long v = 0;
            nvmlReturn_t e = RCALL(r, nvmlDeviceGetNvLinkErrorCounter, l, k, &v);
            d->nvl_lerc[l][k] = e;
            d->nvl_lerr[l][k] = v;
            if (e == NVML_SUCCESS && !failed[k]) {
                errs[k] += v;
                erc[k] = NVML_SUCCESS;
            } else if (e != NVML_SUCCESS && e != NVML_ERROR_NOT_SUPPORTED) {
                erc[k] = e;
                failed[k] = 1;
                note(r, e);
            }
        }
    }
    d->nvl_links_rc = links_rc;
    d->nvl_links = links;
    d->nvl_down = down;
    d->nvl_n = l;
    memcpy(d->nvl_errs, errs, sizeof errs);
    memcpy(d->nvl_erc, erc, sizeof erc);
}

/* The NVLink version and the far end's PCI bus id of each link of r's GPU
 * (GM_NVML_NVLINK_LINKS): read once for the links the last walk found;
 * a failure other than NOT_SUPPORTED is asked again next time. */
static void nvlink_ident(struct rd *r, struct dev *d)
{
    int again = 0;
    for (unsigned int l = 0; l < d->nvl_n; l++) {
        unsigned int v = 0;
        nvmlReturn_t rc = RCALL(r, nvmlDeviceGetNvLinkVersion, l, &v);
        d->nvl_ver_rc[l] = rc;
        d->nvl_ver[l] = v;
        again |= rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED;
        note(r, rc);
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof(pci));
        rc = RCALL(r, nvmlDeviceGetNvLinkRemotePciInfo_v2, l, &pci);
        d->nvl_pci_rc[l] = rc;
        /* the driver's text, bounded: busId need not end in a NUL */
        snprintf(d->nvl_pci[l], sizeof(d->nvl_pci[l]), "%.*s", (int)sizeof(pci.busId), pci.busId);
        if (rc == NVML_SUCCESS && !d->nvl_pci[l][0])
            d->nvl_pci_rc[l] = NVML_ERROR_NOT_SUPPORTED; /* an empty answer is no answer */
        again |= rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_SUPPORTED;
        note(r, rc);
    }
    d->nvl_ident = again ? 0 : (int)d->nvl_n + 1; /* 0: not read; else links read + 1 */
}

static struct gm_value nvl_value(nvmlReturn_t rc, uint64_t v)
{
    return rc == NVML_SUCCESS ? gm_v_u64(v) : gm_v_status(gm_v_status_from_nvml(rc), rc);
}

/* Each link of r's GPU into g->nvlink[] (GM_NVML_NVLINK_LINKS) from the
 * walk kept in d and the per-link throughput counters in fv (2 a link, from
 * fv[0]; frc: the field-value call's own code). */
static void nvlink_each(struct rd *r, struct dev *d, const nvmlFieldValue_t *fv, nvmlReturn_t frc)
{
    struct gm_gpu *g = r->g;
    if (d->nvl_ident != (int)d->nvl_n + 1)
        nvlink_ident(r, d);
    free(g->nvlink); /* NULL: the GPU object is new each sample */
    g->nvlink = d->nvl_n ? gm_xcalloc(d->nvl_n, sizeof(*g->nvlink)) : NULL;
    g->nnvlink = d->nvl_n;
    for (unsigned int l = 0; l < d->nvl_n; l++) {
        struct gm_nvlink *k = &g->nvlink[l];
        memset(k, 0, sizeof(*k));
        k->link = l;
        nvmlReturn_t src = d->nvl_src[l];
        k->up = nvl_value(src, d->nvl_up[l]);
        k->version = nvl_value(d->nvl_ver_rc[l], d->nvl_ver[l]);
        k->remote = nvl_value(d->nvl_pci_rc[l], 0);
        if (d->nvl_pci_rc[l] == NVML_SUCCESS)
            gm_strlcpy(k->remote_pci, d->nvl_pci[l], sizeof(k->remote_pci));
        for (int q = 0; q < 2; q++) {
            const nvmlFieldValue_t *f = &fv[2 * l + (unsigned)q];
            nvmlReturn_t rc = frc != NVML_SUCCESS ? frc : f->nvmlReturn;
            uint64_t kib = f->valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? f->value.ullVal
                                                                              : f->value.uiVal;
            (q ? &k->rx : &k->tx)[0] = nvl_value(rc, kib * 1024);
        }
        for (int e = 0; e < 4; e++) {
            if (src != NVML_SUCCESS) /* the state is not known: neither are its counters */
                k->err[e] = gm_v_status(gm_v_status_from_nvml(src), src);
            else if (!d->nvl_up[l]) /* not read for a link that is down */
                k->err[e] = gm_v_status(GM_VS_NA, 0);
            else
                k->err[e] = nvl_value(d->nvl_lerc[l][e], d->nvl_lerr[l][e]);
        }
    }
    g->nvlink_list = d->nvl_links_rc == NVML_SUCCESS
                         ? gm_v_u64(d->nvl_n)
                         : gm_v_status(gm_v_status_from_nvml(d->nvl_links_rc) == GM_VS_NA
                                           ? GM_VS_ERROR
                                           : gm_v_status_from_nvml(d->nvl_links_rc),
                                       d->nvl_links_rc);
}

static void rd_nvlink(struct rd *r)
{
    static const int err_ids[4] = {GM_M_NVLINK_ERR_REPLAY, GM_M_NVLINK_ERR_RECOVERY,
                                   GM_M_NVLINK_ERR_CRC_FLIT, GM_M_NVLINK_ERR_CRC_DATA};
    struct dev *d = &r->n->dev[r->i];
    int64_t now = gm_mono_ns();
    /* a failure is read again at the next sample, not reused */
    int fresh = d->nvl_at && now - d->nvl_at < NVLINK_SLOW_NS && now >= d->nvl_at &&
                (d->nvl_rc == NVML_SUCCESS || d->nvl_rc == NVML_ERROR_NOT_SUPPORTED) &&
                d->nvl_links_rc == NVML_SUCCESS;
    for (int k = 0; fresh && k < 4; k++)
        fresh = d->nvl_erc[k] == NVML_SUCCESS || d->nvl_erc[k] == NVML_ERROR_NOT_SUPPORTED;
    if (!fresh) {
        nvlink_slow(r, d);
        d->nvl_at = now ? now : 1;
    }
    int each = (r->n->flags & GM_NVML_NVLINK_LINKS) != 0;
    nvmlReturn_t rc = d->nvl_rc;
    if (rc != NVML_SUCCESS) {
        for (int id = GM_M_NVLINK_LINKS; id <= GM_M_NVLINK_ERR_CRC_DATA; id++)
            setv(r->g, id, rc, gm_v_u64(0));
        if (each) {
            r->g->nnvlink = 0;
            r->g->nvlink_list = gm_v_status(gm_v_status_from_nvml(rc), rc);
        }
        return;
    }
    setv(r->g, GM_M_NVLINK_LINKS, d->nvl_links_rc, gm_v_u64(d->nvl_links));
    setv(r->g, GM_M_NVLINK_DOWN, d->nvl_links_rc, gm_v_u64(d->nvl_down));
    for (int k = 0; k < 4; k++)
        setv(r->g, err_ids[k], d->nvl_links_rc != NVML_SUCCESS ? d->nvl_links_rc : d->nvl_erc[k],
             gm_v_u64(d->nvl_errs[k]));
    /* the sums over all links (scopeId UINT_MAX), and with `each` every
     * link's own two counters in the same call */
    nvmlFieldValue_t fv[2 + 2 * GM_NVLINK_MAX];
    unsigned int nl = each ? d->nvl_n : 0, nf = 2 + 2 * nl;
    memset(fv, 0, sizeof(fv));
    for (unsigned int k = 0; k < nf; k++) {
        fv[k].fieldId =
            k % 2 ? NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX : NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
        fv[k].scopeId = k < 2 ? 0xFFFFFFFFu : (k - 2) / 2;
    }
    rc = RCALL(r, nvmlDeviceGetFieldValues, (int)nf, fv);
    double kib[2] = {0, 0};
    nvmlReturn_t frc[2];
    for (int k = 0; k < 2; k++) {
        frc[k] = rc != NVML_SUCCESS ? rc : fv[k].nvmlReturn;
        kib[k] = fv[k].valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? (double)fv[k].value.ullVal
                                                                       : fv[k].value.uiVal;
    }
    setv(r->g, GM_M_NVLINK_TX, frc[0], gm_v_f64(kib[0] * 1024.0));
    setv(r->g, GM_M_NVLINK_RX, frc[1], gm_v_f64(kib[1] * 1024.0));
    setv(r->g, GM_M_NVLINK_TOTAL, frc[0] != NVML_SUCCESS ? frc[0] : frc[1],
         gm_v_f64((kib[0] + kib[1]) * 1024.0));
    note(r, rc);
    if (each)
        nvlink_each(r, d, fv + 2, rc);
}

static void rd_temp_margin(struct rd *r)
{
    nvmlMarginTemperature_t m;
    memset(&m, 0, sizeof(m));
    m.version = nvmlMarginTemperature_v1;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMarginTemperature, &m);
    setv(r->g, GM_M_TEMP_TLIMIT, rc, gm_v_i64(m.marginTemperature));
    note(r, rc);
}

/* Module power (Grace Hopper): the power fields with scopeId
 * NVML_POWER_SCOPE_MODULE in one call.  NVML has no getter for the module
 * scope besides the field values; a board that is not a module answers
 * NOT_SUPPORTED per entry ([N/A]), and is not asked again while the
 * handle lives (the agent samples every second). */
static void rd_module_power(struct rd *r)
{
    static const struct {
        int id;
        unsigned int field;
    } parts[] = {{GM_M_MODULE_POWER_AVERAGE, NVML_FI_DEV_POWER_AVERAGE},
                 {GM_M_MODULE_POWER_INSTANT, NVML_FI_DEV_POWER_INSTANT},
                 {GM_M_MODULE_POWER_LIMIT, 192},    /* NVML_FI_DEV_POWER_REQUESTED_LIMIT */
                 {GM_M_MODULE_POWER_ENFORCED, 190}, /* NVML_FI_DEV_POWER_CURRENT_LIMIT */
                 {GM_M_MODULE_POWER_DEFAULT, 189},  /* NVML_FI_DEV_POWER_DEFAULT_LIMIT */
                 {GM_M_MODULE_POWER_MIN, 187},      /* NVML_FI_DEV_POWER_MIN_LIMIT */
                 {GM_M_MODULE_POWER_MAX, 188}};     /* NVML_FI_DEV_POWER_MAX_LIMIT */
    enum { N = sizeof(parts) / sizeof(parts[0]) };
    struct dev *d = &r->n->dev[r->i];
    if (d->module_none) {
        for (size_t k = 0; k < N; k++)
            setv(r->g, parts[k].id, NVML_ERROR_NOT_SUPPORTED, gm_v_f64(0));
        return;
    }
    nvmlFieldValue_t fv[N];
    memset(fv, 0, sizeof(fv));
    for (size_t k = 0; k < N; k++) {
        fv[k].fieldId = parts[k].field;
        fv[k].scopeId = NVML_POWER_SCOPE_MODULE;
    }
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetFieldValues, (int)N, fv);
    int none = 1;
    for (size_t k = 0; k < N; k++) {
        nvmlReturn_t one = rc == NVML_SUCCESS ? fv[k].nvmlReturn : rc;
        uint64_t mw = fv[k].valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? fv[k].value.ullVal
                                                                            : fv[k].value.uiVal;
        setv(r->g, parts[k].id, one, gm_v_f64((double)mw / 1000.0));
        none &= one == NVML_ERROR_NOT_SUPPORTED;
    }
    d->module_none = none;
    note(r, rc);
}

/* pcie.link.gen.hostmax: not NVML but sysfs (source/pcihost.h), from the
 * bus id rd_pci read; [N/A] when the bus id or the file is not there. */
static void rd_pcie_hostmax(struct rd *r)
{
    const struct gm_gpu *g = r->g;
    unsigned gen = 0;
    if (gm_v_ok(&g->m[GM_M_PCI_BUS_ID]))
        gen = gm_pcihost_max_gen(gm_pcihost_sysfs_root(), g->str[GM_S_PCI_BUS_ID]);
    r->g->m[GM_M_PCIE_GEN_HOSTMAX] = gen ? gm_v_u64(gen) : gm_v_status(GM_VS_NA, 0);
}

/* ECC counts in the locations besides DRAM and SRAM (and device_memory,
 * nvidia-smi's other name for DRAM).  A board counts a location or it does
 * not (Ampere and later split SRAM and DRAM only): when the first counter
 * of a location is NOT_SUPPORTED the other three are too, without asking. */
static void rd_ecc_units(struct rd *r)
{
    static const struct {
        int first; /* CV; UV, CA, UA follow (metrics.h) */
        unsigned int location;
    } locs[] = {{GM_M_ECCU_DEVMEM_CV, NVML_MEMORY_LOCATION_DRAM},
                {GM_M_ECCU_REGFILE_CV, NVML_MEMORY_LOCATION_REGISTER_FILE},
                {GM_M_ECCU_L1_CV, NVML_MEMORY_LOCATION_L1_CACHE},
                {GM_M_ECCU_L2_CV, NVML_MEMORY_LOCATION_L2_CACHE},
                {GM_M_ECCU_TEX_CV, NVML_MEMORY_LOCATION_TEXTURE_MEMORY},
                {GM_M_ECCU_CBU_CV, NVML_MEMORY_LOCATION_CBU}};
    nvmlReturn_t rc = NVML_SUCCESS;
    for (size_t l = 0; l < sizeof(locs) / sizeof(locs[0]); l++) {
        for (int k = 0; k < 4; k++) {
            unsigned long long n = 0;
            if (k == 0 || rc != NVML_ERROR_NOT_SUPPORTED)
                rc = RCALL(r, nvmlDeviceGetMemoryErrorCounter,
                           k & 1 ? NVML_MEMORY_ERROR_TYPE_UNCORRECTED
                                 : NVML_MEMORY_ERROR_TYPE_CORRECTED,
                           k & 2 ? NVML_AGGREGATE_ECC : NVML_VOLATILE_ECC, locs[l].location, &n);
            setv(r->g, locs[l].first + k, rc, gm_v_u64(n));
        }
    }
    note(r, rc);
}

static void rd_gpm(struct rd *r)
{
    struct dev *d = &r->n->dev[r->i];
    nvmlReturn_t rc = gpm_ready(r, d);
    if (rc != NVML_SUCCESS) {
        gpm_fail(r, d, rc);
        return;
    }
    if (d->gpm_have_prev) {
        gpm_finish(r, d);
        return;
    }
    rc = gpm_take(r, d);
    if (rc != NVML_SUCCESS) {
        gpm_fail(r, d, rc);
        return;
    }
    d->gpm_prev = !d->gpm_prev;
    d->gpm_have_prev = 1;
    gpm_set_all(r->g, NVML_ERROR_NO_DATA);
    if (r->n->flags & GM_NVML_GPM_PRIME) {
        d->gpm_pending = 1;
        if (!r->n->gpm_prime_ns)
            r->n->gpm_prime_ns = gm_mono_ns() + (int64_t)GM_NVML_GPM_PRIME_MS * 1000000;
    }
}

/* ------------------------------------------------------------ the table */

/* One reader per read group (metrics.h), in the order they are called:
 * the static groups once per GPU (read_statics), then each wanted dynamic
 * group per sample (read_dynamic).  Adding a group is one row here and one
 * function above (docs/architecture.md). */
static const struct reader {
    uint8_t rg; /* enum gm_read_group */
    void (*fn)(struct rd *r);
} readers[] = {
    {GM_RG_INDEX, rd_index},
    {GM_RG_MINOR, rd_minor},
    {GM_RG_NAME, rd_name},
    {GM_RG_UUID, rd_uuid},
    {GM_RG_SERIAL, rd_serial},
    {GM_RG_VBIOS, rd_vbios},
    {GM_RG_BOARD_PART, rd_board_part},
    {GM_RG_PCI, rd_pci},
    {GM_RG_CC, rd_cc},
    {GM_RG_TEMP_THRESH, rd_temp_thresh},
    {GM_RG_POWER_LIMITS, rd_power_limits},
    {GM_RG_MAX_CLOCKS, rd_max_clocks},
    {GM_RG_MAX_PCIE, rd_max_pcie},
    {GM_RG_PERSISTENCE, rd_persistence},
    {GM_RG_COMPUTE_MODE, rd_compute_mode},
    {GM_RG_DISPLAY, rd_display},
    {GM_RG_MIG_MODE, rd_mig_mode},
    {GM_RG_PSTATE, rd_pstate},
    {GM_RG_FAN, rd_fan},
    {GM_RG_TEMP, rd_temp},
    {GM_RG_TEMP_MEM, rd_temp_mem},
    {GM_RG_POWER, rd_power},
    {GM_RG_POWER_INSTANT, rd_power_instant},
    {GM_RG_POWER_LIMIT, rd_power_limit},
    {GM_RG_ENERGY, rd_energy},
    {GM_RG_UTIL, rd_util},
    {GM_RG_ENC, rd_enc},
    {GM_RG_DEC, rd_dec},
    {GM_RG_MEMORY, rd_memory},
    {GM_RG_BAR1, rd_bar1},
    {GM_RG_CLOCKS, rd_clocks},
    {GM_RG_CLOCK_REASONS, rd_clock_reasons},
    {GM_RG_VIOLATION, rd_violation},
    {GM_RG_PCIE_LINK, rd_pcie_link},
    {GM_RG_PCIE_TPUT, rd_pcie_tput},
    {GM_RG_PCIE_REPLAY, rd_pcie_replay},
    {GM_RG_ECC_MODE, rd_ecc_mode},
    {GM_RG_ECC_COUNTS, rd_ecc_counts},
    {GM_RG_RETIRED, rd_retired},
    {GM_RG_REMAPPED, rd_remapped},
    {GM_RG_GPM, rd_gpm},
    {GM_RG_POWER_MGMT, rd_power_mgmt},
    {GM_RG_APP_CLOCKS, rd_app_clocks},
    {GM_RG_DRIVER_MODEL, rd_driver_model},
    {GM_RG_GOM, rd_gom},
    {GM_RG_ACCOUNTING, rd_accounting},
    {GM_RG_ENC_STATS, rd_enc_stats},
    {GM_RG_INFOROM, rd_inforom},
    {GM_RG_REMAP_HIST, rd_remap_hist},
    {GM_RG_FABRIC, rd_fabric},
    {GM_RG_ECC_LOCATIONS, rd_ecc_locations},
    {GM_RG_CER_COUNTERS, rd_cer_counters},
    {GM_RG_NVLINK, rd_nvlink},
    {GM_RG_TEMP_MARGIN, rd_temp_margin},
    {GM_RG_MODULE_POWER, rd_module_power},
    {GM_RG_PCIE_HOSTMAX, rd_pcie_hostmax},
    {GM_RG_ECC_UNITS, rd_ecc_units},
};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

/* The static facts of GPU i into d's template: every value "not collected"
 * until a reader fills it, then each static group's reader. */
static void read_statics(struct gm_nvml *n, int i, struct dev *d)
{
    struct gm_gpu *g = &d->tmpl;
    memset(g, 0, sizeof(*g));
    for (int id = 0; id < GM_M__GPU_END; id++)
        g->m[id] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->proc_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->mig_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->nvlink_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->index = (uint32_t)i;
    struct rd r = {n, i, d->h, g, NVML_SUCCESS};
    for (size_t k = 0; k < NREADERS; k++)
        if (gm_read_groups[readers[k].rg].is_static)
            readers[k].fn(&r);
    d->static_done = 1;
    d->have_tmpl = 1;
}

/* Groups of settings and slow counters (power management, GPU operation
 * mode, accounting mode, the remapping histogram, per-location ECC
 * counters, also by unit): read at most every NVLINK_SLOW_NS when sampling again and
 * again (the agent), their last values reused in between; no strings. */
static int slow_group(int rg)
{
    return rg == GM_RG_POWER_MGMT || rg == GM_RG_GOM || rg == GM_RG_ACCOUNTING ||
           rg == GM_RG_REMAP_HIST || rg == GM_RG_ECC_LOCATIONS || rg == GM_RG_ECC_UNITS;
}

/* Reads slow group k of r's GPU, or reuses its values (slow_group()). */
static void read_slow(struct rd *r, size_t k, int64_t now)
{
    struct dev *d = &r->n->dev[r->i];
    int rg = readers[k].rg;
    if (d->slow_at[rg] && now >= d->slow_at[rg] && now - d->slow_at[rg] < NVLINK_SLOW_NS) {
        for (int id = 0; id < GM_M__GPU_END; id++)
            if (gm_metrics[id].rg == rg)
                r->g->m[id] = d->slow_v[id];
        return;
    }
    readers[k].fn(r);
    int clean = 1; /* a failed read is not reused: the next sample asks again */
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (gm_metrics[id].rg == rg) {
            d->slow_v[id] = r->g->m[id];
            clean &= r->g->m[id].status != GM_VS_ERROR && r->g->m[id].status != GM_VS_LOST;
        }
    d->slow_at[rg] = clean ? (now ? now : 1) : 0;
}

/* The wanted dynamic groups of GPU i.  Returns NVML_ERROR_GPU_IS_LOST if a
 * call reported the GPU lost, or the code of a call that says the whole
 * driver went away (the last such code noted); else SUCCESS. */
static nvmlReturn_t read_dynamic(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_gpu *g)
{
    struct rd r = {n, i, h, g, NVML_SUCCESS};
    int64_t now = gm_mono_ns();
    for (size_t k = 0; k < NREADERS; k++) {
        int rg = readers[k].rg;
        if (gm_read_groups[rg].is_static || !want(n, (enum gm_read_group)rg))
            continue;
        if (slow_group(rg))
            read_slow(&r, k, now);
        else
            readers[k].fn(&r);
    }
    return r.lost;
}

/* ------------------------------------------------------------------ MIG */

/* The status of a list that failed with rc. */
static struct gm_value list_failed(nvmlReturn_t rc)
{
    enum gm_vstatus st = gm_v_status_from_nvml(rc);
    return gm_v_status(st == GM_VS_NA ? GM_VS_ERROR : st, rc);
}

/* MIG devices of a GPU in MIG mode.  Not knowing the mode, or failing to
 * enumerate, leaves the list empty with the reason in g->mig_list (a GPU
 * that does not support MIG has none: that list is whole). */
static void read_mig(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_gpu *g)
{
    const struct gm_value *mode = &g->m[GM_M_MIG_CURRENT];
    g->nmig = 0;
    if (!gm_v_ok(mode)) {
        g->mig_list =
            mode->status == GM_VS_UNSUPPORTED ? gm_v_u64(0) : gm_v_status(mode->status, mode->code);
        return;
    }
    g->mig_list = gm_v_u64(0);
    if (mode->v.u != NVML_DEVICE_MIG_ENABLE)
        return;
    unsigned int max = 0;
    nvmlReturn_t lrc = CALL(n, i, nvmlDeviceGetMaxMigDeviceCount, h, &max);
    if (lrc != NVML_SUCCESS) {
        g->mig_list = list_failed(lrc);
        return;
    }
    for (unsigned int k = 0; k < max && g->nmig < GM_MIG_MAX; k++) {
        nvmlDevice_t mh;
        lrc = CALL(n, i, nvmlDeviceGetMigDeviceHandleByIndex, h, k, &mh);
        if (lrc == NVML_ERROR_NOT_FOUND || lrc == NVML_ERROR_INVALID_ARGUMENT)
            break; /* past the last: indices are dense from 0 */
        if (lrc != NVML_SUCCESS) {
            g->mig_list = list_failed(lrc);
            g->nmig = 0;
            return;
        }
        struct gm_mig *mg = &g->mig[g->nmig++];
        memset(mg, 0, sizeof(*mg));
        mg->index = k;
        for (int q = 0; q < GM_GPM_COUNT; q++)
            mg->gpm[q] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
        unsigned int id = GM_NO_INSTANCE;
        nvmlReturn_t irc = CALL(n, i, nvmlDeviceGetGpuInstanceId, mh, &id);
        mg->gpu_instance_id = irc == NVML_SUCCESS ? id : GM_NO_INSTANCE;
        mg->gpu_instance_code = (int16_t)irc;
        id = GM_NO_INSTANCE;
        irc = CALL(n, i, nvmlDeviceGetComputeInstanceId, mh, &id);
        mg->compute_instance_id = irc == NVML_SUCCESS ? id : GM_NO_INSTANCE;
        mg->compute_instance_code = (int16_t)irc;
        irc = CALL(n, i, nvmlDeviceGetUUID, mh, mg->uuid, sizeof(mg->uuid));
        mg->uuid_code = (int16_t)irc;
        if (irc != NVML_SUCCESS)
            mg->uuid[0] = '\0';
        irc = CALL(n, i, nvmlDeviceGetName, mh, mg->name, sizeof(mg->name));
        mg->name_code = (int16_t)irc;
        if (irc != NVML_SUCCESS)
            mg->name[0] = '\0';
        const char *p = strstr(mg->name, " MIG ");
        gm_strlcpy(mg->profile, p ? p + 5 : "", sizeof(mg->profile));
        nvmlMemory_v2_t m2;
        memset(&m2, 0, sizeof(m2));
        m2.version = nvmlMemory_v2;
        nvmlReturn_t rc = n->mem_v1 ? NVML_ERROR_FUNCTION_NOT_FOUND
                                    : CALL(n, i, nvmlDeviceGetMemoryInfo_v2, mh, &m2);
        if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
            nvmlMemory_t m1 = {0, 0, 0};
            rc = CALL(n, i, nvmlDeviceGetMemoryInfo, mh, &m1);
            m2.total = m1.total;
            m2.used = m1.used;
            m2.free = m1.free;
        }
        mg->mem_total =
            rc == NVML_SUCCESS ? gm_v_u64(m2.total) : gm_v_status(gm_v_status_from_nvml(rc), rc);
        mg->mem_used =
            rc == NVML_SUCCESS ? gm_v_u64(m2.used) : gm_v_status(gm_v_status_from_nvml(rc), rc);
        mg->mem_free =
            rc == NVML_SUCCESS ? gm_v_u64(m2.free) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    }
}

/* Every GPM value of a GPU instance gets status rc (NOT_FOUND: the instance
 * has no GPM, not supported). */
static void mig_gpm_set_all(struct gm_mig *mg, nvmlReturn_t rc)
{
    enum gm_vstatus st = rc == NVML_ERROR_NOT_FOUND ? GM_VS_UNSUPPORTED : gm_v_status_from_nvml(rc);
    for (int k = 0; k < GM_GPM_COUNT; k++)
        mg->gpm[k] = gm_v_status(st, rc);
}

/* A failed sample of a GPU instance: no interval to continue from; an
 * instance that cannot sample (NOT_SUPPORTED, NOT_FOUND, no symbol) is not
 * asked again. */
static void mig_gpm_fail(struct mig_gpm *m, struct gm_mig *mg, nvmlReturn_t rc)
{
    m->have_prev = 0;
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_NOT_FOUND ||
        rc == NVML_ERROR_FUNCTION_NOT_FOUND)
        m->off = rc;
    mig_gpm_set_all(mg, rc);
}

/* Takes the instance's next sample and the metrics of the interval since
 * the previous one. */
static void mig_gpm_finish(struct gm_nvml *n, int i, nvmlDevice_t h, struct mig_gpm *m,
                           struct gm_mig *mg)
{
    nvmlReturn_t rc = CALL(n, i, nvmlGpmMigSampleGet, h, m->gi, m->s[!m->prev]);
    if (rc != NVML_SUCCESS) {
        mig_gpm_fail(m, mg, rc);
        return;
    }
    gpm_compute(n, i, m->s[m->prev], m->s[!m->prev], mg->gpm);
    m->prev = !m->prev;
}

/* GPM of each GPU instance of a GPU in MIG mode, after read_mig and the
 * GPU's own GPM read (rd_gpm): as the GPU's, one interval per sample with
 * the previous sample kept per instance, the first read "not yet available"
 * or (GM_NVML_GPM_PRIME) finished by gpm_primed().  A GPU without GPM has
 * none on its instances either: they are not asked. */
static void read_mig_gpm(struct gm_nvml *n, int i, struct dev *d, struct gm_gpu *g)
{
    for (uint32_t k = g->nmig; k < GM_MIG_MAX; k++)
        d->mgpm[k].have_prev = 0; /* an instance listed again starts a new interval */
    for (uint32_t k = 0; k < g->nmig; k++) {
        struct gm_mig *mg = &g->mig[k];
        struct mig_gpm *m = &d->mgpm[k];
        if (!d->gpm_asked || d->gpm_off != NVML_SUCCESS) {
            mig_gpm_set_all(mg, d->gpm_asked ? d->gpm_off : NVML_ERROR_NOT_SUPPORTED);
            continue;
        }
        if (mg->gpu_instance_id == GM_NO_INSTANCE) {
            /* its id is unknown: nothing to ask, for the reason the id is missing */
            nvmlReturn_t why = (nvmlReturn_t)mg->gpu_instance_code;
            mig_gpm_set_all(mg, why != NVML_SUCCESS ? why : NVML_ERROR_NOT_FOUND);
            continue;
        }
        if (m->gi != mg->gpu_instance_id) {
            m->gi = mg->gpu_instance_id;
            m->have_prev = 0;
            m->off = NVML_SUCCESS;
        }
        if (m->off != NVML_SUCCESS) {
            mig_gpm_set_all(mg, m->off);
            continue;
        }
        nvmlReturn_t rc = NVML_SUCCESS;
        for (int b = 0; b < 2 && rc == NVML_SUCCESS; b++)
            if (!m->s[b])
                rc = CALL(n, i, nvmlGpmSampleAlloc, &m->s[b]);
        if (rc != NVML_SUCCESS) { /* asked again next sample */
            mig_gpm_set_all(mg, rc);
            continue;
        }
        if (m->have_prev) {
            mig_gpm_finish(n, i, d->h, m, mg);
            continue;
        }
        rc = CALL(n, i, nvmlGpmMigSampleGet, d->h, m->gi, m->s[!m->prev]);
        if (rc != NVML_SUCCESS) {
            mig_gpm_fail(m, mg, rc);
            continue;
        }
        m->prev = !m->prev;
        m->have_prev = 1;
        mig_gpm_set_all(mg, NVML_ERROR_NO_DATA);
        if (n->flags & GM_NVML_GPM_PRIME) {
            m->pending = 1;
            if (!n->gpm_prime_ns)
                n->gpm_prime_ns = gm_mono_ns() + (int64_t)GM_NVML_GPM_PRIME_MS * 1000000;
        }
    }
}

/* ------------------------------------------------------------- processes */

/* Process lists and process samples follow NVML's sizing protocol: a call
 * whose count is smaller than the list fills nothing, answers
 * NVML_ERROR_INSUFFICIENT_SIZE and stores the count it needs.  We call with
 * the buffer we have (kept between samples, so a steady list costs one call);
 * on INSUFFICIENT_SIZE we grow it to that count plus an eighth (processes
 * can start between two calls) and call again, PROC_TRIES calls in all, as
 * nvidia-smi does.  GM_NVML_PROC_READ_MAX (nvml.h, more than Linux has
 * pids) bounds one list, against a library that answers with a garbage
 * count: NVML cannot hand out part of a list, so only such a list is left
 * out.  Of what was read, the snapshot keeps GM_NVML_PROC_MAX processes per
 * GPU and counts the rest in proc_dropped. */
#define PROC_FIRST 256 /* entries of the first buffer */
#define PROC_TRIES 4

enum { PROC_COMPUTE, PROC_GRAPHICS };

/* The capacity to call again with after NVML asked for need entries while we
 * offered had: need plus headroom, more than had, at most
 * GM_NVML_PROC_READ_MAX; 0 when that cannot satisfy the need (give up). */
static unsigned int proc_grow(unsigned int need, unsigned int had)
{
    if (need > GM_NVML_PROC_READ_MAX || had >= GM_NVML_PROC_READ_MAX)
        return 0;
    unsigned long long cap = (unsigned long long)need + need / 8 + 16;
    if (cap <= had)
        cap = (unsigned long long)had * 2; /* a count that did not grow: still make progress */
    return cap > GM_NVML_PROC_READ_MAX ? GM_NVML_PROC_READ_MAX : (unsigned int)cap;
}

/* Grows the buffer *buf of *cap entries of size elem to at least want. */
static void buf_reserve(void **buf, unsigned int *cap, unsigned int want, size_t elem)
{
    if (*buf && *cap >= want)
        return;
    *buf = gm_xrealloc(*buf, (size_t)want * elem);
    *cap = want;
}

/* One call of the newest process-list symbol the library has for kind, into
 * buf (room for *cnt entries of the stride that symbol implies: 16 bytes for
 * the unversioned v1 symbols, 24 for _v2 and _v3). */
static nvmlReturn_t proc_call(struct gm_nvml *n, int i, nvmlDevice_t h, int kind, int *v1,
                              unsigned int *cnt, void *buf)
{
    *v1 = 0;
    if (kind == PROC_COMPUTE) {
        if (n->f.nvmlDeviceGetComputeRunningProcesses_v3)
            return CALL(n, i, nvmlDeviceGetComputeRunningProcesses_v3, h, cnt, buf);
        if (n->f.nvmlDeviceGetComputeRunningProcesses_v2)
            return CALL(n, i, nvmlDeviceGetComputeRunningProcesses_v2, h, cnt, buf);
        *v1 = 1;
        return CALL(n, i, nvmlDeviceGetComputeRunningProcesses, h, cnt, buf);
    }
    if (n->f.nvmlDeviceGetGraphicsRunningProcesses_v3)
        return CALL(n, i, nvmlDeviceGetGraphicsRunningProcesses_v3, h, cnt, buf);
    if (n->f.nvmlDeviceGetGraphicsRunningProcesses_v2)
        return CALL(n, i, nvmlDeviceGetGraphicsRunningProcesses_v2, h, cnt, buf);
    *v1 = 1;
    return CALL(n, i, nvmlDeviceGetGraphicsRunningProcesses, h, cnt, buf);
}

/* Lists the processes of one kind on GPU i into n->pbuf (24-byte entries,
 * v1 answers widened), growing it as the sizing protocol asks.  Returns the
 * NVML code of the last call and sets *count (0 unless it succeeded). */
static nvmlReturn_t list_procs(struct gm_nvml *n, int i, nvmlDevice_t h, int kind,
                               unsigned int *count)
{
    void *buf = n->pbuf;
    buf_reserve(&buf, &n->pcap, PROC_FIRST, sizeof(nvmlProcessInfo_v2_t));
    n->pbuf = buf;
    nvmlReturn_t rc = NVML_ERROR_INSUFFICIENT_SIZE;
    unsigned int cnt = 0;
    int v1 = 0;
    *count = 0;
    for (int tries = 0; tries < PROC_TRIES; tries++) {
        cnt = n->pcap;
        rc = proc_call(n, i, h, kind, &v1, &cnt, n->pbuf);
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
            break;
        unsigned int cap = proc_grow(cnt, n->pcap);
        if (!cap)
            break;
        buf = n->pbuf;
        buf_reserve(&buf, &n->pcap, cap, sizeof(nvmlProcessInfo_v2_t));
        n->pbuf = buf;
    }
    if (rc != NVML_SUCCESS)
        return rc;
    if (cnt > n->pcap)
        cnt = n->pcap; /* a library that claims more than it was given room for */
    if (v1) {
        /* Widen 16-byte entries to 24 in place, last first: entry k's new
         * place overlaps only old entries k and later, already moved. */
        unsigned char *raw = (unsigned char *)n->pbuf;
        for (unsigned int k = cnt; k-- > 0;) {
            nvmlProcessInfo_v1_t e1;
            nvmlProcessInfo_v2_t e2;
            memcpy(&e1, raw + (size_t)k * sizeof(e1), sizeof(e1));
            memset(&e2, 0, sizeof(e2));
            e2.pid = e1.pid;
            e2.usedGpuMemory = e1.usedGpuMemory;
            e2.gpuInstanceId = GM_NO_INSTANCE;
            e2.computeInstanceId = GM_NO_INSTANCE;
            memcpy(raw + (size_t)k * sizeof(e2), &e2, sizeof(e2));
        }
    }
    *count = cnt;
    return rc;
}

/* One listed process before it goes into the snapshot. */
struct proc_ent {
    nvmlProcessInfo_v2_t info;
    uint8_t type; /* GM_PT_* bits, merged over the lists */
    uint8_t keep; /* the first entry of its pid */
};

struct pid_pos {
    unsigned int pid;
    uint32_t pos;
};

static int cmp_pid_pos(const void *a, const void *b)
{
    const struct pid_pos *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void add_procs(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_snapshot *s,
                      struct gm_gpu *g, uint32_t gpu_slot)
{
    g->proc_first = s->nproc;
    g->nproc = 0;
    g->proc_dropped = 0;
    g->proc_list = gm_v_u64(0);
    struct proc_ent *ent = NULL;
    uint32_t nent = 0;
    g->procs_listed = 1;
    for (int kind = PROC_COMPUTE; kind <= PROC_GRAPHICS; kind++) {
        unsigned int cnt = 0;
        nvmlReturn_t rc = list_procs(n, i, h, kind, &cnt);
        if (rc != NVML_SUCCESS) {
            /* (a list longer than GM_NVML_PROC_READ_MAX too) the other list is
             * still shown, but the GPU says its processes are not all there:
             * neither "idle" nor a C+G process shown as G can pass for whole */
            g->proc_list = list_failed(rc);
            g->procs_listed = 0;
            continue;
        }
        if (cnt == 0)
            continue;
        ent = gm_xrealloc(ent, ((size_t)nent + cnt) * sizeof(*ent));
        const nvmlProcessInfo_v2_t *buf = n->pbuf;
        for (unsigned int k = 0; k < cnt; k++) {
            ent[nent].info = buf[k];
            ent[nent].type = kind == PROC_COMPUTE ? GM_PT_COMPUTE : GM_PT_GRAPHICS;
            ent[nent].keep = 1;
            nent++;
        }
    }
    if (nent == 0)
        return;
    /* A pid in both lists (or twice in one) is one C+G entry, where it first
     * appeared: sort by (pid, position) to find them in O(n log n). */
    struct pid_pos *ix = gm_xmalloc((size_t)nent * sizeof(*ix));
    for (uint32_t k = 0; k < nent; k++)
        ix[k] = (struct pid_pos){ent[k].info.pid, k};
    qsort(ix, nent, sizeof(*ix), cmp_pid_pos);
    for (uint32_t a = 0, b; a < nent; a = b) {
        for (b = a + 1; b < nent && ix[b].pid == ix[a].pid; b++) {
            ent[ix[a].pos].type |= ent[ix[b].pos].type;
            ent[ix[b].pos].keep = 0;
        }
    }
    free(ix);
    for (uint32_t k = 0; k < nent; k++) {
        if (!ent[k].keep)
            continue;
        if (g->nproc >= GM_NVML_PROC_MAX) {
            g->proc_dropped++; /* listed, but beyond what the snapshot keeps */
            continue;
        }
        const nvmlProcessInfo_v2_t *e = &ent[k].info;
        struct gm_proc p;
        memset(&p, 0, sizeof(p));
        gm_attrib_parse(NULL, GM_ATTRIB_NO_UID, &p.attrib); /* unknown until /proc says (uids -1) */
        p.gpu = gpu_slot;
        p.pid = e->pid;
        p.type = ent[k].type;
        p.gpu_instance_id = e->gpuInstanceId;
        p.compute_instance_id = e->computeInstanceId;
        p.used_memory = e->usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL
                            ? gm_v_status(GM_VS_NA, 0)
                            : gm_v_u64(e->usedGpuMemory);
        p.sm_util = p.mem_util = p.enc_util = p.dec_util = gm_v_status(GM_VS_NA, 0);
        p.start_time = p.elapsed = p.cpu = p.rss = gm_v_status(GM_VS_NA, 0);
        nvmlReturn_t nrc = CALL(n, i, nvmlSystemGetProcessName, p.pid, p.name, sizeof(p.name));
        if (nrc != NVML_SUCCESS) {
            p.name[0] = '\0';
            p.name_code = (int16_t)nrc; /* NOT_FOUND (it exited) reads as not available */
        }
        gm_snapshot_add_proc_take(s, &p);
        g->nproc++;
    }
    free(ent);
}

static int cmp_sample_pid(const void *a, const void *b)
{
    const nvmlProcessUtilizationSample_t *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Process utilisation samples newer than last into n->ubuf, sorted by pid;
 * sets *count.  The sizing call (NULL buffer) answers INSUFFICIENT_SIZE with
 * the count; then the same growth as the process lists. */
static nvmlReturn_t get_proc_samples(struct gm_nvml *n, int i, nvmlDevice_t h,
                                     unsigned long long last, unsigned int *count)
{
    unsigned int cnt = 0;
    *count = 0;
    nvmlReturn_t rc = CALL(n, i, nvmlDeviceGetProcessUtilization, h, NULL, &cnt, last);
    if (rc == NVML_SUCCESS)
        return rc; /* nothing to read */
    for (int tries = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && tries < PROC_TRIES; tries++) {
        unsigned int cap = proc_grow(cnt, tries ? n->ucap : 0);
        if (!cap)
            break;
        void *buf = n->ubuf;
        buf_reserve(&buf, &n->ucap, cap, sizeof(nvmlProcessUtilizationSample_t));
        n->ubuf = buf;
        cnt = n->ucap;
        rc = CALL(n, i, nvmlDeviceGetProcessUtilization, h, n->ubuf, &cnt, last);
    }
    if (rc != NVML_SUCCESS)
        return rc;
    if (cnt > n->ucap)
        cnt = n->ucap;
    qsort(n->ubuf, cnt, sizeof(*n->ubuf), cmp_sample_pid);
    *count = cnt;
    return rc;
}

static void read_proc_util(struct gm_nvml *n, int i, struct dev *d, struct gm_snapshot *s,
                           struct gm_gpu *g)
{
    if (g->nproc == 0)
        return;
    unsigned int cnt = 0;
    unsigned long long now_us = (unsigned long long)(s->wall_ns / 1000);
    unsigned long long last = d->last_proc_util_us ? d->last_proc_util_us : now_us - 1000000ULL;
    nvmlReturn_t rc = get_proc_samples(n, i, d->h, last, &cnt);
    const nvmlProcessUtilizationSample_t *smp = n->ubuf;
    enum gm_vstatus st = rc == NVML_SUCCESS ? GM_VS_NA : gm_v_status_from_nvml(rc);
    for (uint32_t q = g->proc_first; q < g->proc_first + g->nproc; q++) {
        struct gm_proc *p = &s->procs[q];
        unsigned long long sum[4] = {0, 0, 0, 0}, ns = 0;
        /* the first sample of this pid (samples are sorted by pid) */
        unsigned int lo = 0, hi = cnt;
        while (lo < hi) {
            unsigned int mid = lo + (hi - lo) / 2;
            if (smp[mid].pid < p->pid)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (unsigned int k = lo; k < cnt && smp[k].pid == p->pid; k++) {
            /* drivers can return stale or garbage slots: filter like nvtop */
            if (smp[k].timeStamp <= last || smp[k].smUtil > 100 || smp[k].memUtil > 100)
                continue;
            sum[0] += smp[k].smUtil;
            sum[1] += smp[k].memUtil;
            sum[2] += smp[k].encUtil;
            sum[3] += smp[k].decUtil;
            ns++;
        }
        if (ns) {
            p->sm_util = gm_v_u64((sum[0] + ns / 2) / ns);
            p->mem_util = gm_v_u64((sum[1] + ns / 2) / ns);
            p->enc_util = gm_v_u64((sum[2] + ns / 2) / ns);
            p->dec_util = gm_v_u64((sum[3] + ns / 2) / ns);
        } else {
            p->sm_util = p->mem_util = p->enc_util = p->dec_util = gm_v_status(st, rc);
        }
    }
    if (rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_FOUND)
        d->last_proc_util_us = now_us;
}

/* ------------------------------------------------------------------ sample */

static void mark_gpu_down(struct gm_gpu *g, int rc)
{
    enum gm_vstatus st = gm_v_status_from_nvml(rc);
    if (st == GM_VS_OK || st == GM_VS_NA)
        st = GM_VS_ERROR;
    g->state = rc == NVML_ERROR_GPU_IS_LOST     ? GM_GPU_LOST
               : rc == NVML_ERROR_NO_PERMISSION ? GM_GPU_NOPERM
                                                : GM_GPU_ERROR;
    g->state_code = (int16_t)rc;
    for (int id = 0; id < GM_M__GPU_END; id++) {
        /* identity learnt earlier stays (it is static); live values do not */
        if (gm_metrics[id].kind == GM_K_INFO && gm_v_ok(&g->m[id]))
            continue;
        if (gm_metrics[id].scope != GM_SC_GPU)
            continue;
        g->m[id] = gm_v_status(st, rc);
    }
    g->m[GM_M_INDEX] = gm_v_u64(g->index); /* the index is ours, not NVML's answer */
    g->nmig = 0;
    /* no link of a GPU that is down (the array, if any, goes with the snapshot) */
    g->nnvlink = 0;
    g->nvlink_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
}

/* The second GPM sample of the GPUs and GPU instances left pending by rd_gpm
 * and read_mig_gpm (GM_NVML_GPM_PRIME), after a single wait for them all. */
static void gpm_primed(struct gm_nvml *n, struct gm_snapshot *s)
{
    if (!n->gpm_prime_ns)
        return;
    gm_sleep_until(n->gpm_prime_ns, NULL);
    n->gpm_prime_ns = 0;
    for (uint32_t i = 0; i < s->ngpu && i < n->ndev; i++) {
        struct dev *d = &n->dev[i];
        struct gm_gpu *g = &s->gpus[i];
        int pending = d->gpm_pending;
        d->gpm_pending = 0;
        if (pending && g->state == GM_GPU_OK && d->have_handle) {
            struct rd r = {n, (int)i, d->h, g, NVML_SUCCESS};
            gpm_finish(&r, d);
            if (r.lost != NVML_SUCCESS) {
                /* lost (or the driver went away) between the two samples: the GPU is
                 * down in this sample; the next one finds out which */
                mark_gpu_down(g, r.lost);
                d->have_handle = 0;
                d->static_done = 0;
                d->nvl_ident = 0; /* and the links' version and far end */
                gpm_restart(d);
            }
        }
        for (uint32_t k = 0; k < GM_MIG_MAX; k++) {
            struct mig_gpm *m = &d->mgpm[k];
            if (!m->pending)
                continue;
            m->pending = 0;
            if (g->state == GM_GPU_OK && d->have_handle && k < g->nmig &&
                g->mig[k].gpu_instance_id == m->gi)
                mig_gpm_finish(n, (int)i, d->h, m, &g->mig[k]);
        }
    }
}

static void read_host(struct gm_nvml *n)
{
    char buf[80];
    nvmlReturn_t rc = CALL(n, -1, nvmlSystemGetDriverVersion, buf, sizeof(buf));
    n->driver_version_v =
        rc == NVML_SUCCESS ? gm_v_u64(0) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    gm_strlcpy(n->driver_version, rc == NVML_SUCCESS ? buf : "", sizeof(n->driver_version));
    rc = CALL(n, -1, nvmlSystemGetNVMLVersion, buf, sizeof(buf));
    n->nvml_version_v =
        rc == NVML_SUCCESS ? gm_v_u64(0) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    gm_strlcpy(n->nvml_version, rc == NVML_SUCCESS ? buf : "", sizeof(n->nvml_version));
    int cv = 0;
    rc = n->f.nvmlSystemGetCudaDriverVersion_v2
             ? CALL(n, -1, nvmlSystemGetCudaDriverVersion_v2, &cv)
             : CALL(n, -1, nvmlSystemGetCudaDriverVersion, &cv);
    n->cuda_version_v =
        rc == NVML_SUCCESS ? gm_v_u64((uint64_t)cv) : gm_v_status(gm_v_status_from_nvml(rc), rc);
    n->host_done = 1;
}

static int driver_gone(nvmlReturn_t rc)
{
    return rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH ||
           rc == NVML_ERROR_UNINITIALIZED;
}

static void lose_driver(struct gm_nvml *n, nvmlReturn_t rc)
{
    if (n->f.nvmlShutdown)
        n->f.nvmlShutdown();
    n->inited = 0;
    explain_init_failure(n, rc);
    reset_devices(n);
    schedule_retry(n);
}

static void fill_header(struct gm_nvml *n, struct gm_snapshot *s)
{
    s->wall_ns = gm_wall_ns();
    s->mono_ns = gm_mono_ns();
    s->utc_offset_s = gm_utc_offset(s->wall_ns);
    memcpy(s->hostname, n->hostname, sizeof(s->hostname));
}

static void fill_driver(struct gm_nvml *n, struct gm_snapshot *s)
{
    s->driver = n->state;
    s->driver_code = n->state_code;
    gm_strlcpy(s->driver_msg, n->state_msg, sizeof(s->driver_msg));
    if (n->host_done && n->state == GM_DRV_OK) {
        s->driver_version = n->driver_version_v;
        s->nvml_version = n->nvml_version_v;
        s->cuda_version = n->cuda_version_v;
        memcpy(s->driver_version_s, n->driver_version, sizeof(s->driver_version_s));
        memcpy(s->nvml_version_s, n->nvml_version, sizeof(s->nvml_version_s));
    } else {
        int code = n->state_code;
        s->driver_version = s->nvml_version = s->cuda_version = gm_v_status(GM_VS_ERROR, code);
    }
}

int gm_nvml_sample(struct gm_nvml *n, struct gm_snapshot *s)
{
    fill_header(n, s);
    int64_t t0 = s->mono_ns;
    if (!n->dl) {
        fill_driver(n, s);
        s->duration_ns = gm_mono_ns() - t0;
        return 0;
    }
    if (!n->inited) {
        if (s->mono_ns < n->next_init_ns || try_init(n) != NVML_SUCCESS) {
            if (!n->inited && s->mono_ns >= n->next_init_ns)
                schedule_retry(n);
            fill_driver(n, s);
            s->duration_ns = gm_mono_ns() - t0;
            return 0;
        }
    }
    if (!n->host_done)
        read_host(n);

    unsigned int count = 0;
    nvmlReturn_t rc = n->f.nvmlDeviceGetCount_v2 ? CALL(n, -1, nvmlDeviceGetCount_v2, &count)
                                                 : CALL(n, -1, nvmlDeviceGetCount, &count);
    if (rc != NVML_SUCCESS) {
        if (driver_gone(rc))
            lose_driver(n, rc);
        else {
            char msg[160];
            snprintf(msg, sizeof(msg), "nvmlDeviceGetCount failed: %s", gm_nvml_strerror(rc));
            set_state(n, GM_DRV_ERROR, rc, msg);
        }
        fill_driver(n, s);
        s->duration_ns = gm_mono_ns() - t0;
        return 0;
    }
    set_state(n, GM_DRV_OK, 0, "");
    if (count != n->ndev) {
        free_devices(n);
        n->dev = gm_xcalloc(count ? count : 1, sizeof(struct dev));
        n->ndev = count;
    }
    gm_snapshot_set_gpus(s, count);

    int driver_lost = 0;
    for (unsigned int i = 0; i < count && !driver_lost; i++) {
        struct dev *d = &n->dev[i];
        struct gm_gpu *g = &s->gpus[i];
        if (!d->have_handle) {
            rc = n->f.nvmlDeviceGetHandleByIndex_v2
                     ? CALL(n, (int)i, nvmlDeviceGetHandleByIndex_v2, i, &d->h)
                     : CALL(n, (int)i, nvmlDeviceGetHandleByIndex, i, &d->h);
            if (rc != NVML_SUCCESS) {
                if (driver_gone(rc)) {
                    driver_lost = (int)rc;
                    break;
                }
                if (d->have_tmpl)
                    *g = d->tmpl; /* the identity learnt before it was lost */
                g->index = i;
                mark_gpu_down(g, rc);
                d->static_done = 0; /* re-read identity when it comes back */
                d->nvl_ident = 0;   /* and the links' version and far end */
                continue;
            }
            d->have_handle = 1;
        }
        /* The static reads of this sample count too: a narrow query (one
         * dynamic read) whose one read fails has a GPU that answers. */
        struct tally t = {0};
        n->tally = &t;
        if (!d->static_done)
            read_statics(n, (int)i, d);
        *g = d->tmpl;
        rc = read_dynamic(n, (int)i, d->h, g);
        n->tally = NULL;
        if (driver_gone(rc)) {
            driver_lost = (int)rc;
            break;
        }
        if (rc == NVML_ERROR_GPU_IS_LOST) {
            mark_gpu_down(g, rc);
            gpm_restart(d); /* a GPU that comes back starts new intervals */
            d->have_handle = 0;
            d->static_done = 0;
            d->nvl_ident = 0; /* and the links' version and far end */
            continue;
        }
        if (t.ok == 0 && t.perm + t.err > 0) {
            /* Every value failed (permission revoked while the handle was
             * held, or a GPU that answers nothing): the GPU is down, with the
             * most common reason.  The handle and identity are kept; the next
             * read that answers brings it back. */
            mark_gpu_down(g, t.perm >= t.err ? NVML_ERROR_NO_PERMISSION : t.first_err);
            continue;
        }
        if (want(n, GM_RG_MIG_MODE)) {
            read_mig(n, (int)i, d->h, g);
            if (want(n, GM_RG_GPM))
                read_mig_gpm(n, (int)i, d, g);
        }
        if (n->want_procs) {
            add_procs(n, (int)i, d->h, s, g, i);
            read_proc_util(n, (int)i, d, s, g);
        }
    }
    if (!driver_lost)
        gpm_primed(n, s);
    n->gpm_prime_ns = 0;
    if (driver_lost) {
        for (uint32_t q = 0; q < s->nproc; q++) {
            free(s->procs[q].cmdline);
            free(s->procs[q].exe);
            free(s->procs[q].cgroup);
        }
        s->nproc = 0;
        gm_snapshot_set_gpus(s, 0); /* frees what the GPUs held */
        lose_driver(n, (nvmlReturn_t)driver_lost);
    }
    fill_driver(n, s);
    s->duration_ns = gm_mono_ns() - t0;
    return 0;
}

/* ---------------------------------------------------- NVML sample buffers */

int gm_nvml_samples(struct gm_nvml *n, uint32_t index, int type, uint64_t since_us,
                    struct gm_nvml_sample *out, size_t cap, size_t *count)
{
    *count = 0;
    if (!n->inited || index >= n->ndev || !n->dev[index].have_handle)
        return NVML_ERROR_UNINITIALIZED;
    nvmlDevice_t h = n->dev[index].h;
    nvmlValueType_t vt;
    unsigned int cnt = 0;
    nvmlReturn_t rc = CALL(n, (int)index, nvmlDeviceGetSamples, h, (nvmlSamplingType_t)type,
                           since_us, &vt, &cnt, NULL);
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0; /* an empty buffer: nothing new */
    if (rc != NVML_SUCCESS)
        return rc;
    if (cnt == 0)
        return 0;
    if (cnt > 4096) /* a garbage count: NVML keeps about 120 entries per type */
        cnt = 4096;
    nvmlSample_t *buf = calloc(cnt, sizeof *buf);
    if (!buf)
        gm_oom();
    unsigned int got = cnt;
    rc = CALL(n, (int)index, nvmlDeviceGetSamples, h, (nvmlSamplingType_t)type, since_us, &vt, &got,
              buf);
    if (rc == NVML_ERROR_NOT_FOUND)
        rc = NVML_SUCCESS, got = 0;
    if (got > cnt)
        got = cnt;
    for (unsigned int k = 0; rc == NVML_SUCCESS && k < got && *count < cap; k++) {
        double v;
        switch (vt) {
        case NVML_VALUE_TYPE_DOUBLE:
            v = buf[k].sampleValue.dVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_INT:
            v = buf[k].sampleValue.uiVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
            v = (double)buf[k].sampleValue.ulVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
            v = (double)buf[k].sampleValue.ullVal;
            break;
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
            v = (double)buf[k].sampleValue.sllVal;
            break;
        case NVML_VALUE_TYPE_SIGNED_INT:
            v = buf[k].sampleValue.siVal;
            break;
        case NVML_VALUE_TYPE_UNSIGNED_SHORT:
            v = buf[k].sampleValue.usVal;
            break;
        default:
            continue;
        }
        if (type == NVML_TOTAL_POWER_SAMPLES)
            v /= 1000.0; /* mW -> W */
        out[*count].t_us = buf[k].timeStamp;
        out[*count].v = v;
        (*count)++;
    }
    free(buf);
    return rc == NVML_SUCCESS ? 0 : rc;
}

void *gm_nvml_symbol(struct gm_nvml *n, const char *name)
{
    return n && n->dl ? dlsym(n->dl, name) : NULL;
}

void *gm_nvml_device(struct gm_nvml *n, uint32_t index)
{
    if (!n || !n->inited || index >= n->ndev || !n->dev[index].have_handle)
        return NULL;
    return n->dev[index].h;
}

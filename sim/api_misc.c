/* api_misc.c -- the remaining read-only NVML queries nvidia-smi -q and the
 * pynvml clients make: driver model, inforom versions, virtualisation and
 * GPU operation mode, accounting, encoder and frame-buffer-capture
 * sessions, the driver branch, excluded devices, S-class units and the
 * extended PCI info.
 *
 * What the simulated host is: Linux, bare metal (no vGPU, no passthrough),
 * no S-class unit, no GPU excluded by the administrator, accounting off
 * unless the scenario's GPU says `accounting = on` (off is the driver's
 * default: its per-process lists are then NOT_SUPPORTED, as nvml.h says),
 * no frame-buffer capture.  Encoder sessions are the
 * processes running on a GPU whose workload is `encode`, one each.  The
 * driver model is a Windows notion: NOT_SUPPORTED, as real Linux NVML
 * answers (nvitop calls it on every start).  Inforom versions are
 * plausible ones for each architecture rather than read off one card.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "ext_abi.h"

static nvmlReturn_t driver_model(const char *fn, nvmlDevice_t device, unsigned int *current,
                                 unsigned int *pending)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_ANY, device, 0, current != NULL && pending != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, unsigned int *current,
                                                unsigned int *pending)
{
    return driver_model(__func__, device, current, pending);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
GS_EXPORT nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, unsigned int *current,
                                                   unsigned int *pending)
{
    return driver_model(__func__, device, current, pending);
}
#endif

/* ---------------------------------------------------------------- inforom */

struct inforom {
    const char *image, *oem, *ecc; /* NULL: the board has no such object */
};

static struct inforom inforom_of(const struct gs_gpu *g)
{
    struct inforom v = {NULL, NULL, NULL};
    switch (g->arch) {
    case GS_ARCH_HOPPER:
        v = (struct inforom){"G520.0200.00.05", "2.1", "7.0"};
        break;
    case GS_ARCH_AMPERE:
        v = (struct inforom){"G506.0212.00.02", "2.1", "6.16"};
        break;
    case GS_ARCH_VOLTA:
        v = (struct inforom){"G503.0201.00.03", "1.1", "5.0"};
        break;
    default:
        v = (struct inforom){"G002.0000.00.03", "2.0", "6.16"};
        break;
    }
    if (!g->ecc_capable)
        v.ecc = NULL;
    return v;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, unsigned int object,
                                                   char *version, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, version != NULL && object < GS_INFOROM_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    struct inforom v = inforom_of(c.g);
    /* No modelled board keeps a power object (nvidia-smi: "PWR Object
     * Version: N/A"). */
    const char *s = object == GS_INFOROM_OEM ? v.oem : object == GS_INFOROM_ECC ? v.ecc : NULL;
    if (!s)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    return gs_end(&c, gs_copy_out(version, length, s));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version,
                                                        unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, version != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(version, length, inforom_of(c.g).image));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetInforomConfigurationChecksum(nvmlDevice_t device,
                                                                 unsigned int *checksum)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, checksum != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *checksum = (unsigned)gs_hash(c.s->seed, c.gpu, 910, 0);
    return gs_end(&c, NVML_SUCCESS);
}

/* ------------------------------------------------------------------ modes */

GS_EXPORT nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device,
                                                       unsigned int *pVirtualMode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pVirtualMode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *pVirtualMode = GS_VIRT_MODE_NONE;
    return gs_end(&c, NVML_SUCCESS);
}

/* GPU operation modes belong to GK110-era Tesla and Quadro boards; every
 * modelled board reports N/A. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuOperationMode(nvmlDevice_t device, unsigned int *current,
                                                     unsigned int *pending)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, current != NULL && pending != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* ------------------------------------------------------------- accounting */

#define GS_ACCOUNTING_BUFFER 4000

_Static_assert(sizeof(nvmlAccountingStats_t) == 56, "nvmlAccountingStats_t is 56 bytes");

GS_EXPORT nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, mode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *mode = c.g->accounting ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device,
                                                         unsigned int *bufferSize)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, bufferSize != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *bufferSize = GS_ACCOUNTING_BUFFER;
    return gs_end(&c, NVML_SUCCESS);
}

/* The accounted processes of a GPU with accounting on: the compute
 * processes of the scenario that have started on it by t, running or
 * ended, in file order, the last GS_ACCOUNTING_BUFFER of them (the
 * driver's buffer drops the oldest).  Accounting switched on in this
 * process (nvmlDeviceSetAccountingMode) counts the processes started from
 * then on; nvmlDeviceClearAccountingPids drops those that had ended. */
static bool accounted(const struct gs_call *c, const struct gs_process *p)
{
    return (p->types & (GS_PT_COMPUTE | GS_PT_MPS)) && (p->gpus & (UINT64_C(1) << c->gpu)) &&
           p->start <= c->t && p->start >= c->g->set.acct_since &&
           !(c->g->set.acct_cleared && p->end <= c->g->set.acct_cleared_t);
}

static size_t accounted_first(const struct gs_call *c, unsigned *n)
{
    unsigned total = 0;
    for (size_t i = 0; i < c->s->nprocs; i++)
        total += accounted(c, &c->s->procs[i]);
    size_t skip = total > GS_ACCOUNTING_BUFFER ? total - GS_ACCOUNTING_BUFFER : 0, i = 0;
    for (; skip && i < c->s->nprocs; i++)
        skip -= accounted(c, &c->s->procs[i]);
    *n = total > GS_ACCOUNTING_BUFFER ? GS_ACCOUNTING_BUFFER : total;
    return i;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t device, unsigned int *count,
                                                   unsigned int *pids)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->accounting)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED); /* as nvml.h says with the mode off */
    unsigned n;
    size_t first = accounted_first(&c, &n);
    if (*count < n) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n && !pids)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned k = 0;
    for (size_t i = first; i < c.s->nprocs && k < n; i++)
        if (accounted(&c, &c.s->procs[i]))
            pids[k++] = c.s->procs[i].pid;
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

/* A process's lifetime statistics, from the model at GS_ACCT_SAMPLES
 * times spread over [start, min(t, end)): utilisation their mean, memory
 * their maximum.  time is the context's active time once the process
 * ended (0 while it runs, as NVML documents). */
#define GS_ACCT_SAMPLES 8

GS_EXPORT nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned int pid,
                                                    nvmlAccountingStats_t *stats)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, stats != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->accounting)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned n;
    size_t first = accounted_first(&c, &n);
    const struct gs_process *p = NULL;
    for (size_t i = first; i < c.s->nprocs && !p; i++)
        if (accounted(&c, &c.s->procs[i]) && c.s->procs[i].pid == pid)
            p = &c.s->procs[i];
    if (!p)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    bool running = c.t < p->end;
    double until = running ? c.t : p->end, span = until - p->start;
    double sm_sum = 0, mem_sum = 0;
    unsigned long long max_mem = 0;
    for (int k = 0; k < GS_ACCT_SAMPLES; k++) {
        double at = p->start + span * (k + 0.5) / GS_ACCT_SAMPLES;
        unsigned sm = 0, mem = 0;
        if (span > 0) {
            gs_proc_util(c.s, p, c.gpu, at, &sm, &mem);
            unsigned long long m = gs_proc_memory(c.s, p, c.gpu, at);
            max_mem = m > max_mem ? m : max_mem;
        }
        sm_sum += sm;
        mem_sum += mem;
    }
    memset(stats, 0, sizeof(*stats));
    stats->gpuUtilization = (unsigned)(sm_sum / GS_ACCT_SAMPLES + 0.5);
    stats->memoryUtilization = (unsigned)(mem_sum / GS_ACCT_SAMPLES + 0.5);
    stats->maxMemoryUsage = p->mem_mode == GS_MEM_NA ? NVML_VALUE_NOT_AVAILABLE_ULL : max_mem;
    stats->time = running ? 0 : (unsigned long long)(span * 1000 + 0.5);
    stats->startTime = gs_time_to_wall_us(c.tc, p->start);
    stats->isRunning = running;
    return gs_end(&c, NVML_SUCCESS);
}

/* ------------------------------------------------------ encoder and capture */

/* A100 and H100 have no NVENC engine. */
static bool has_nvenc(const struct gs_gpu *g)
{
    const char *k = g->preset ? g->preset->key : "";
    return strncmp(k, "A100", 4) != 0 && strncmp(k, "H100", 4) != 0;
}

/* Encoder sessions on c's GPU now: fills up to max entries of out (may be
 * NULL) and returns the count. */
static unsigned encoder_sessions(const struct gs_call *c, nvmlEncoderSessionInfo_t *out,
                                 unsigned max)
{
    if (c->g->wl.kind != GS_WL_ENCODE || !has_nvenc(c->g))
        return 0;
    unsigned n = 0;
    for (size_t i = 0; i < c->s->nprocs; i++) {
        const struct gs_process *p = &c->s->procs[i];
        if (!gs_proc_on(p, c->gpu, c->t))
            continue;
        if (out && n < max) {
            memset(&out[n], 0, sizeof(out[n]));
            out[n].sessionId = n + 1;
            out[n].pid = p->pid;
            out[n].codecType = 0; /* H.264 */
            out[n].hResolution = 1920;
            out[n].vResolution = 1080;
            out[n].averageFps = 60;
            out[n].averageLatency = 4000; /* us */
        }
        n++;
    }
    return n;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetEncoderCapacity(nvmlDevice_t device,
                                                    unsigned int encoderQueryType,
                                                    unsigned int *encoderCapacity)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              encoderCapacity != NULL && encoderQueryType <= 2);
    if (r != NVML_SUCCESS)
        return r;
    if (!has_nvenc(c.g) || (encoderQueryType == 2 && c.g->arch < GS_ARCH_ADA))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    struct gs_state st;
    gs_model_eval(c.s, c.gpu, c.t, &st);
    *encoderCapacity = 100 - (st.util_enc > 100 ? 100 : st.util_enc);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount,
                                                 unsigned int *averageFps,
                                                 unsigned int *averageLatency)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              sessionCount != NULL && averageFps != NULL && averageLatency != NULL);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = encoder_sessions(&c, NULL, 0);
    *sessionCount = n;
    *averageFps = n ? 60 : 0;
    *averageLatency = n ? 4000 : 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetEncoderSessions(nvmlDevice_t device, unsigned int *sessionCount,
                                                    nvmlEncoderSessionInfo_t *sessionInfos)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, sessionCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = encoder_sessions(&c, NULL, 0);
    /* *sessionCount = 0 asks for the count (nvml.h). */
    if (*sessionCount == 0 || !sessionInfos) {
        *sessionCount = n;
        return gs_end(&c, NVML_SUCCESS);
    }
    if (*sessionCount < n) {
        *sessionCount = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    *sessionCount = encoder_sessions(&c, sessionInfos, n);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetFBCStats(nvmlDevice_t device, nvmlFBCStats_t *fbcStats)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, fbcStats != NULL);
    if (r != NVML_SUCCESS)
        return r;
    memset(fbcStats, 0, sizeof(*fbcStats));
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetFBCSessions(nvmlDevice_t device, unsigned int *sessionCount,
                                                nvmlFBCSessionInfo_t *sessionInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, sessionCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    (void)sessionInfo;
    *sessionCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------------- system */

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* "r550_00" from driver 550.54.15 (the branch the driver was cut from). */
GS_EXPORT nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *branchInfo,
                                                 unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, branchInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (branchInfo->version != GS_DRIVER_BRANCH_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    char *end;
    unsigned long major = strtoul(c.s->driver_version, &end, 10);
    if (end == c.s->driver_version || major > 9999)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    char b[32];
    snprintf(b, sizeof(b), "r%lu_00", major);
    unsigned cap = length < sizeof(branchInfo->branch) ? length : sizeof(branchInfo->branch);
    return gs_end(&c, gs_copy_out(branchInfo->branch, cap, b));
}
#endif

GS_EXPORT nvmlReturn_t nvmlGetExcludedDeviceCount(unsigned int *deviceCount)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, deviceCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *deviceCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGetExcludedDeviceInfoByIndex(unsigned int index,
                                                        nvmlExcludedDeviceInfo_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    (void)index; /* there are none: every index is out of range */
    return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

GS_EXPORT nvmlReturn_t nvmlUnitGetCount(unsigned int *unitCount)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, unitCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *unitCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlUnitGetHandleByIndex(unsigned int index, nvmlUnit_t *unit)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, unit != NULL);
    if (r != NVML_SUCCESS)
        return r;
    (void)index;
    return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- PCI ext */

#ifndef GPUSIM_LEGACY /* newer than R450 */
GS_EXPORT nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_t *pci)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pci != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (pci->version != GS_PCI_INFO_EXT_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    pci->domain = c.g->pci_domain;
    pci->bus = c.g->pci_bus;
    pci->device = c.g->pci_device;
    pci->pciDeviceId = c.g->pci_device_id;
    pci->pciSubSystemId = c.g->pci_subsystem_id;
    /* Display controller 0x03: VGA-compatible (0x00) where the board can
     * drive a display, 3D controller (0x02) otherwise. */
    pci->baseClass = 0x03;
    pci->subClass = c.g->display_mode ? 0x00 : 0x02;
    snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", c.g->pci_domain, c.g->pci_bus,
             c.g->pci_device);
    return gs_end(&c, NVML_SUCCESS);
}
#endif

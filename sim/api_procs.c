/* api_procs.c -- exported NVML calls for processes and sampled history:
 * running-process lists, per-process utilisation and nvmlDeviceGetSamples.
 *
 * The process lists follow NVML's sizing protocol exactly (fact sheet 2.15):
 * with n processes and *infoCount < n the call stores n and returns
 * INSUFFICIENT_SIZE (infos may be NULL); with none it stores 0 and succeeds;
 * otherwise it fills n entries.  The element stride is fixed by the symbol:
 * the unversioned (v1) symbols write 16-byte entries, _v2 and _v3 24-byte
 * ones, and nothing is written past n entries.  Process memory is reported
 * as NVML_VALUE_NOT_AVAILABLE when the scenario says `used_memory = na` or
 * the GPU is in MIG mode.  Samples are the model's values on the 1/6 s grid,
 * the last 20 s of them, so a client can see sub-second patterns.
 */
#include <math.h>
#include <string.h>

#include "api.h"
#include "ext_abi.h"

#define GS_SAMPLE_BUFFER 120 /* samples kept per type: 20 s at 1/6 s */

static bool proc_matches(const struct gs_call *c, const struct gs_process *p, unsigned types)
{
    if (!(p->types & types) || !gs_proc_on(p, c->gpu, c->t))
        return false;
    return c->mig < 0 || p->mig == c->mig;
}

/* A process in the utilisation samples: listed and alive.  A dead one
 * (`alive = no`: its context outlived it) holds memory but runs no
 * kernels, so the driver has no utilisation sample of it. */
static bool util_matches(const struct gs_call *c, const struct gs_process *p, unsigned types)
{
    return proc_matches(c, p, types) && !p->dead;
}

static nvmlReturn_t list_processes(const char *fn, nvmlDevice_t device, unsigned int *infoCount,
                                   void *infos, size_t stride, unsigned types)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_ANY, device, 0, infoCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    gs_host_write(c.s, c.tc, c.gpu, c.t); /* the host view, when GPUSIM_HOST_ROOT asks */
    unsigned n = 0;
    for (size_t i = 0; i < c.s->nprocs; i++)
        n += proc_matches(&c, &c.s->procs[i], types);
    if (n == 0) {
        *infoCount = 0;
        return gs_end(&c, NVML_SUCCESS);
    }
    if (*infoCount < n) {
        *infoCount = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (!infos)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct gs_procs_at at;
    gs_procs_at(c.s, c.gpu, c.t, &at);
    unsigned k = 0;
    for (size_t i = 0; i < c.s->nprocs; i++) {
        const struct gs_process *p = &c.s->procs[i];
        if (!proc_matches(&c, p, types))
            continue;
        nvmlProcessInfo_v2_t e;
        memset(&e, 0, sizeof(e));
        e.pid = p->pid;
        e.usedGpuMemory = (p->mem_mode == GS_MEM_NA || c.g->nmig) ? NVML_VALUE_NOT_AVAILABLE_ULL
                                                                  : gs_proc_memory_at(c.s, &at, p);
        e.gpuInstanceId = p->mig >= 0 ? c.g->mig[p->mig].gi_id : 0xFFFFFFFFu;
        e.computeInstanceId = p->mig >= 0 ? c.g->mig[p->mig].ci_id : 0xFFFFFFFFu;
        if (stride == sizeof(nvmlProcessInfo_v1_t)) {
            nvmlProcessInfo_v1_t e1;
            memset(&e1, 0, sizeof(e1));
            e1.pid = e.pid;
            e1.usedGpuMemory = e.usedGpuMemory;
            memcpy((char *)infos + k * stride, &e1, stride);
        } else {
            memcpy((char *)infos + k * stride, &e, stride);
        }
        k++;
    }
    *infoCount = n;
    return gs_end(&c, NVML_SUCCESS);
}

_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "v1 process info is 16 bytes");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "v2 process info is 24 bytes");

#define V1 sizeof(nvmlProcessInfo_v1_t)
#define V2 sizeof(nvmlProcessInfo_v2_t)

GS_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                            unsigned int *infoCount,
                                                            nvmlProcessInfo_v1_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V1, GS_PT_COMPUTE);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
                                                               unsigned int *infoCount,
                                                               nvmlProcessInfo_v2_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V2, GS_PT_COMPUTE);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device,
                                                             unsigned int *infoCount,
                                                             nvmlProcessInfo_v1_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V1, GS_PT_GRAPHICS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device,
                                                                unsigned int *infoCount,
                                                                nvmlProcessInfo_v2_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V2, GS_PT_GRAPHICS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t device,
                                                               unsigned int *infoCount,
                                                               nvmlProcessInfo_v1_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V1, GS_PT_MPS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t device,
                                                                  unsigned int *infoCount,
                                                                  nvmlProcessInfo_v2_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V2, GS_PT_MPS);
}

#ifndef GPUSIM_LEGACY
GS_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                               unsigned int *infoCount,
                                                               nvmlProcessInfo_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V2, GS_PT_COMPUTE);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device,
                                                                unsigned int *infoCount,
                                                                nvmlProcessInfo_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V2, GS_PT_GRAPHICS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device,
                                                                  unsigned int *infoCount,
                                                                  nvmlProcessInfo_t *infos)
{
    return list_processes(__func__, device, infoCount, infos, V2, GS_PT_MPS);
}
#endif

/* --------------------------------------------------- process utilisation */

GS_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                                       nvmlProcessUtilizationSample_t *utilization,
                                                       unsigned int *processSamplesCount,
                                                       unsigned long long lastSeenTimeStamp)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, processSamplesCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    const unsigned all = GS_PT_COMPUTE | GS_PT_GRAPHICS | GS_PT_MPS;
    unsigned n = 0;
    for (size_t i = 0; i < c.s->nprocs; i++)
        n += util_matches(&c, &c.s->procs[i], all);
    /* All processes share the sample of the current 1/6 s period. */
    double t0 = floor(c.t * GS_SAMPLE_HZ) / GS_SAMPLE_HZ;
    unsigned long long ts = gs_time_to_wall_us(c.tc, t0);
    if (n == 0 || ts <= lastSeenTimeStamp)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    /* The sizing call (utilization == NULL) answers INSUFFICIENT_SIZE: pynvml
     * and nvtop expect exactly that. */
    if (!utilization || *processSamplesCount < n) {
        *processSamplesCount = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    struct gs_procs_at at;
    gs_procs_at(c.s, c.gpu, c.t, &at);
    unsigned k = 0;
    for (size_t i = 0; i < c.s->nprocs; i++) {
        const struct gs_process *p = &c.s->procs[i];
        if (!util_matches(&c, p, all))
            continue;
        nvmlProcessUtilizationSample_t *u = &utilization[k++];
        memset(u, 0, sizeof(*u));
        u->pid = p->pid;
        u->timeStamp = ts;
        gs_proc_util_at(c.s, &at, p, &u->smUtil, &u->memUtil);
    }
    *processSamplesCount = n;
    return gs_end(&c, NVML_SUCCESS);
}

/* --------------------------------------------------------------- samples */

static bool sample_value(const struct gs_state *st, nvmlSamplingType_t type, unsigned *v)
{
    switch (type) {
    case NVML_TOTAL_POWER_SAMPLES:
        *v = st->power_mw;
        return true;
    case NVML_GPU_UTILIZATION_SAMPLES:
        *v = st->util_gpu;
        break;
    case NVML_MEMORY_UTILIZATION_SAMPLES:
        *v = st->util_mem;
        break;
    case NVML_ENC_UTILIZATION_SAMPLES:
        *v = st->util_enc;
        break;
    case NVML_DEC_UTILIZATION_SAMPLES:
        *v = st->util_dec;
        break;
    case NVML_PROCESSOR_CLK_SAMPLES:
        *v = st->clock[NVML_CLOCK_GRAPHICS];
        return true;
    case NVML_MEMORY_CLK_SAMPLES:
        *v = st->clock[NVML_CLOCK_MEM];
        return true;
    }
    /* Utilisation buffers stay empty while the GPU idles in P8. */
    return st->pstate != 8;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type,
                                            unsigned long long lastSeenTimeStamp,
                                            nvmlValueType_t *sampleValType,
                                            unsigned int *sampleCount, nvmlSample_t *samples)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, sampleValType != NULL && sampleCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if ((unsigned)type >= 10)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if ((unsigned)type > NVML_MEMORY_CLK_SAMPLES) /* module power, JPG, OFA: not modelled */
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    /* Power samples come from the same sensor as the power reading: absent
     * where the board does not report its draw. */
    if (type == NVML_TOTAL_POWER_SAMPLES && gs_fn_unsupported(c.g, "nvmlDeviceGetPowerUsage"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    bool util_type = type >= NVML_GPU_UTILIZATION_SAMPLES && type <= NVML_DEC_UTILIZATION_SAMPLES;
    if (util_type && c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);

    int64_t now = (int64_t)floor(c.t * GS_SAMPLE_HZ);
    int64_t first = now - GS_SAMPLE_BUFFER + 1 > 0 ? now - GS_SAMPLE_BUFFER + 1 : 0;
    unsigned long long ts[GS_SAMPLE_BUFFER];
    unsigned val[GS_SAMPLE_BUFFER];
    unsigned n = 0;
    for (int64_t b = first; b <= now; b++) {
        double tb = (double)b / GS_SAMPLE_HZ;
        unsigned long long when = gs_time_to_wall_us(c.tc, tb);
        if (when <= lastSeenTimeStamp)
            continue;
        struct gs_state st;
        unsigned v;
        gs_model_eval(c.s, c.gpu, tb, &st);
        if (!sample_value(&st, type, &v))
            continue;
        ts[n] = when;
        val[n] = v;
        n++;
    }
    *sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (n == 0)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    /* The sizing call (samples == NULL) succeeds with the count: pynvml raises
     * on anything else. */
    if (!samples) {
        *sampleCount = n;
        return gs_end(&c, NVML_SUCCESS);
    }
    unsigned out = *sampleCount < n ? *sampleCount : n;
    for (unsigned i = 0; i < out; i++) {
        samples[i].timeStamp = ts[n - out + i];
        samples[i].sampleValue.ullVal = 0;
        samples[i].sampleValue.uiVal = val[n - out + i];
    }
    *sampleCount = out;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY
/* ------------------------------------------------ versioned process lists */

/* nvmlDeviceGetRunningProcessDetailList (R535.104+): the v3 list as 32-byte
 * entries behind a versioned header; mode 0 compute, 1 graphics, 2 MPS.
 * Same sizing protocol as the v3 calls, through numProcArrayEntries.
 * Exported together with the v3 calls and without
 * nvmlDeviceGetConfComputeMemSizeInfo, which tells nvitop the v3 entries
 * are 24 bytes (fact sheet 2.15). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device,
                                                             nvmlProcessDetailList_t *plist)
{
    static const unsigned types[3] = {GS_PT_COMPUTE, GS_PT_GRAPHICS, GS_PT_MPS};
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, plist != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (plist->version != GS_PROCESS_DETAIL_LIST_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (plist->mode > 2)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned want = types[plist->mode];
    unsigned n = 0;
    for (size_t i = 0; i < c.s->nprocs; i++)
        n += proc_matches(&c, &c.s->procs[i], want);
    if (n == 0) {
        plist->numProcArrayEntries = 0;
        return gs_end(&c, NVML_SUCCESS);
    }
    if (plist->numProcArrayEntries < n || !plist->procArray) {
        plist->numProcArrayEntries = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    struct gs_procs_at at;
    gs_procs_at(c.s, c.gpu, c.t, &at);
    unsigned k = 0;
    for (size_t i = 0; i < c.s->nprocs; i++) {
        const struct gs_process *p = &c.s->procs[i];
        if (!proc_matches(&c, p, want))
            continue;
        nvmlProcessDetail_v1_t *e = &plist->procArray[k++];
        memset(e, 0, sizeof(*e));
        e->pid = p->pid;
        e->usedGpuMemory = (p->mem_mode == GS_MEM_NA || c.g->nmig) ? NVML_VALUE_NOT_AVAILABLE_ULL
                                                                   : gs_proc_memory_at(c.s, &at, p);
        e->gpuInstanceId = p->mig >= 0 ? c.g->mig[p->mig].gi_id : 0xFFFFFFFFu;
        e->computeInstanceId = p->mig >= 0 ? c.g->mig[p->mig].ci_id : 0xFFFFFFFFu;
        e->usedGpuCcProtectedMemory = 0; /* no confidential computing */
    }
    plist->numProcArrayEntries = n;
    return gs_end(&c, NVML_SUCCESS);
}

_Static_assert(sizeof(nvmlProcessDetail_v1_t) == 32, "process detail is 32 bytes");
_Static_assert(sizeof(nvmlProcessDetailList_t) == 24, "process detail list is 24 bytes");
_Static_assert(sizeof(nvmlProcessesUtilizationInfo_t) == 24, "utilisation info is 24 bytes");
_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40, "utilisation entry is 40 bytes");

/* nvmlDeviceGetProcessesUtilizationInfo (R550+): GetProcessUtilization's
 * samples in the versioned form, with JPEG and OFA shares (0: no workload
 * uses those engines).  A NULL array or a short one is answered with the
 * count and INSUFFICIENT_SIZE. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
                                                             nvmlProcessesUtilizationInfo_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (info->version != GS_PROCESSES_UTIL_INFO_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    const unsigned all = GS_PT_COMPUTE | GS_PT_GRAPHICS | GS_PT_MPS;
    unsigned n = 0;
    for (size_t i = 0; i < c.s->nprocs; i++)
        n += util_matches(&c, &c.s->procs[i], all);
    double t0 = floor(c.t * GS_SAMPLE_HZ) / GS_SAMPLE_HZ;
    unsigned long long ts = gs_time_to_wall_us(c.tc, t0);
    if (n == 0 || ts <= info->lastSeenTimeStamp)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    if (!info->procUtilArray || info->processSamplesCount < n) {
        info->processSamplesCount = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    struct gs_procs_at at;
    gs_procs_at(c.s, c.gpu, c.t, &at);
    unsigned k = 0;
    for (size_t i = 0; i < c.s->nprocs; i++) {
        const struct gs_process *p = &c.s->procs[i];
        if (!util_matches(&c, p, all))
            continue;
        nvmlProcessUtilizationInfo_v1_t *u = &info->procUtilArray[k++];
        memset(u, 0, sizeof(*u));
        u->pid = p->pid;
        u->timeStamp = ts;
        gs_proc_util_at(c.s, &at, p, &u->smUtil, &u->memUtil);
    }
    info->processSamplesCount = n;
    return gs_end(&c, NVML_SUCCESS);
}
#endif /* GPUSIM_LEGACY */

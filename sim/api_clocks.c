/* api_clocks.c -- exported NVML calls for clock and power limits that do
 * not change with load: max customer boost, the supported memory and
 * graphics clock tables, auto boost, power management mode, P-state lists
 * and ranges, PCIe generation and speed limits, bus type, and the JPEG/OFA
 * engine utilisation.
 *
 * The supported-clock tables are derived from the board's limits: an HBM
 * board (ECC-capable datacenter part) has one memory clock, its maximum; a
 * GDDR board has four (max, half, 810, 405 MHz).  For each memory clock the
 * graphics clocks run from the boost clock down to the idle clock in 15 MHz
 * steps (NVIDIA's granularity), the idle clock last.  Auto boost is
 * NOT_SUPPORTED from Volta on (what nvidia-smi shows as N/A on those
 * boards), max customer boost on GeForce boards.  P-states are the two the
 * model uses: P0 under load, P8 at idle.
 */
#include "api.h"
#include "ext_abi.h"

#define GS_CLOCK_STEP 15
#define GS_MAX_PSTATES 16
#define GS_PSTATE_UNKNOWN 32

GS_EXPORT nvmlReturn_t nvmlDeviceGetMaxCustomerBoostClock(nvmlDevice_t device,
                                                          nvmlClockType_t clockType,
                                                          unsigned int *clockMHz)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              clockMHz != NULL && (unsigned)clockType < NVML_CLOCK_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->brand == GS_BRAND_GEFORCE)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *clockMHz = c.g->clock_max[clockType];
    return gs_end(&c, NVML_SUCCESS);
}

static unsigned memory_clocks(const struct gs_gpu *g, unsigned out[4])
{
    unsigned max = g->clock_max[NVML_CLOCK_MEM];
    out[0] = max;
    if (g->ecc_capable && g->brand != GS_BRAND_GEFORCE)
        return 1;
    out[1] = max / 2;
    out[2] = 810;
    out[3] = 405;
    return 4;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t device, unsigned int *count,
                                                          unsigned int *clocksMHz)
{
    struct gs_call c;
    unsigned mem[4];
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = memory_clocks(c.g, mem);
    if (*count < n || !clocksMHz) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    for (unsigned i = 0; i < n; i++)
        clocksMHz[i] = mem[i];
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t device,
                                                            unsigned int memoryClockMHz,
                                                            unsigned int *count,
                                                            unsigned int *clocksMHz)
{
    struct gs_call c;
    unsigned mem[4];
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    unsigned nm = memory_clocks(c.g, mem);
    bool known = false;
    for (unsigned i = 0; i < nm; i++)
        known |= mem[i] == memoryClockMHz;
    if (!known)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    unsigned lo = c.g->clock_idle[NVML_CLOCK_GRAPHICS];
    unsigned span =
        c.g->clock_max[NVML_CLOCK_GRAPHICS] > lo ? c.g->clock_max[NVML_CLOCK_GRAPHICS] - lo : 0;
    /* The low memory clocks cap the graphics clock (as on GDDR boards). */
    if (memoryClockMHz < mem[0])
        span = memoryClockMHz <= 810 ? span / 4 : span / 2;
    unsigned hi = lo + span;
    /* hi, hi - 15, ... while above lo, then lo itself. */
    unsigned n = (span + GS_CLOCK_STEP - 1) / GS_CLOCK_STEP + 1;
    if (*count < n || !clocksMHz) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    unsigned k = 0;
    for (unsigned step = 0; step < span; step += GS_CLOCK_STEP)
        clocksMHz[k++] = hi - step;
    clocksMHz[k++] = lo;
    *count = k;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetAutoBoostedClocksEnabled(nvmlDevice_t device,
                                                             unsigned int *isEnabled,
                                                             unsigned int *defaultIsEnabled)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, isEnabled != NULL && defaultIsEnabled != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch >= GS_ARCH_VOLTA)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *isEnabled = !c.g->set.autoboost_off;
    *defaultIsEnabled = !c.g->set.autoboost_default_off;
    return gs_end(&c, NVML_SUCCESS);
}

/* Power management (limit and reading) works exactly when the board reports
 * its power draw. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, unsigned int *mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, mode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (gs_fn_unsupported(c.g, "nvmlDeviceGetPowerUsage"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *mode = NVML_FEATURE_ENABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* The deprecated name of GetPerformanceState. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pState != NULL);
    if (r != NVML_SUCCESS)
        return r;
    struct gs_state st;
    gs_model_eval(c.s, c.gpu, c.t, &st);
    *pState = (nvmlPstates_t)st.pstate;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedPerformanceStates(nvmlDevice_t device,
                                                               nvmlPstates_t *pstates,
                                                               unsigned int size)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pstates != NULL);
    if (r != NVML_SUCCESS)
        return r;
    /* size counts bytes in nvml.h's wording and elements in pynvml's call
     * (it passes 16 elements of 4 bytes); either way 16 entries fit. */
    if (size < GS_MAX_PSTATES)
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    for (unsigned i = 0; i < GS_MAX_PSTATES; i++)
        pstates[i] = (nvmlPstates_t)GS_PSTATE_UNKNOWN;
    pstates[0] = (nvmlPstates_t)0;
    pstates[1] = (nvmlPstates_t)8;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMinMaxClockOfPState(nvmlDevice_t device, nvmlClockType_t type,
                                                        nvmlPstates_t pstate,
                                                        unsigned int *minClockMHz,
                                                        unsigned int *maxClockMHz)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                 minClockMHz != NULL && maxClockMHz != NULL && (unsigned)type < NVML_CLOCK_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    if ((unsigned)pstate != 0 && (unsigned)pstate != 8)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *minClockMHz = c.g->clock_idle[type];
    *maxClockMHz = (unsigned)pstate == 0 ? c.g->clock_max[type] : c.g->clock_idle[type];
    return gs_end(&c, NVML_SUCCESS);
}

/* The GPU's own PCIe limit (GetMaxPcieLinkGeneration is the link's, which
 * the host may lower; the modelled hosts never do). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device,
                                                             unsigned int *maxLinkGen)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, maxLinkGen != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *maxLinkGen = c.g->pcie_gen;
    return gs_end(&c, NVML_SUCCESS);
}

/* NVML_PCIE_LINK_MAX_SPEED_*MBPS: the per-lane transfer rate of a generation. */
static unsigned gen_speed(unsigned gen)
{
    static const unsigned mbps[] = {0, 2500, 5000, 8000, 16000, 32000, 64000};
    return gen < sizeof(mbps) / sizeof(mbps[0]) ? mbps[gen] : 0;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPcieLinkMaxSpeed(nvmlDevice_t device, unsigned int *maxSpeed)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, maxSpeed != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *maxSpeed = gen_speed(c.g->pcie_gen);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPcieSpeed(nvmlDevice_t device, unsigned int *pcieSpeed)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pcieSpeed != NULL);
    if (r != NVML_SUCCESS)
        return r;
    struct gs_state st;
    gs_model_eval(c.s, c.gpu, c.t, &st);
    *pcieSpeed = gen_speed(st.pcie_gen_cur);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetBusType(nvmlDevice_t device, unsigned int *type)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, type != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *type = GS_BUS_TYPE_PCIE;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* JPEG and optical-flow engines: answered from Turing on, GeForce included
 * (real GeForce RTX 2080 SUPER and 4080 SUPER, drivers 591-595, print
 * `JPEG : 0 %` and `OFA : 0 %` in -q and `utilization.jpeg` `0 %` in
 * --query-gpu: utkuozdemir/nvidia_gpu_exporter internal/captures/).  No
 * workload uses them, so they read 0 % over NVML's 1/6 s sampling period;
 * MIG-enabled GPUs answer NOT_SUPPORTED as for the encoder and decoder (the
 * H100 and H200 MIG captures print N/A). */
static nvmlReturn_t engine_util(const char *fn, nvmlDevice_t device, unsigned int *utilization,
                                unsigned int *samplingPeriodUs)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, fn, GS_H_PHYS, device, 0, utilization != NULL && samplingPeriodUs != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_TURING || c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *utilization = 0;
    *samplingPeriodUs = 1000000 / GS_SAMPLE_HZ;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t device, unsigned int *utilization,
                                                   unsigned int *samplingPeriodUs)
{
    return engine_util(__func__, device, utilization, samplingPeriodUs);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t device, unsigned int *utilization,
                                                   unsigned int *samplingPeriodUs)
{
    return engine_util(__func__, device, utilization, samplingPeriodUs);
}
#endif /* GPUSIM_LEGACY */

/* api_set.c -- the NVML calls that change driver state: persistence, compute
 * and ECC modes, accounting, application and locked clocks, the power
 * limit, API restrictions, pending MIG mode, drain state, V/F offsets, fans and
 * the clears and resets of counters, plus the related calls that a board
 * or this simulated host cannot honour (driver model, operation mode,
 * virtualisation mode, CPU affinity, NVLink utilisation counters...).
 *
 * Privilege: like the driver, these need root.  The session's privilege is
 * settled at nvmlInit (GPUSIM_ROOT=0/1, else geteuid() == 0: gs_privileged)
 * and a setter called without it answers NO_PERMISSION.  The order of the
 * checks is: the prologue (init, handle, arguments, lost GPU, MIG handle,
 * GPUSIM_FAIL), then NOT_SUPPORTED where the board lacks the feature, then
 * NO_PERMISSION, then the board's constraints (INVALID_ARGUMENT).
 *
 * State: a change lives in the loaded scenario of this process (struct
 * gs_gpu's set and the mode fields) and the getters read it from there: it
 * is seen by this process only and lasts until its last nvmlShutdown (the
 * next nvmlInit reloads the scenario file).  Nothing here runs unless a
 * client calls a setter, so scenarios nobody changes answer as before.
 *
 * Left out (docs/simulator.md says why): removing a GPU, and MIG GPU/compute
 * instance creation and destruction.
 */
#include <string.h>

#include "api.h"
#include "set_abi.h"

_Static_assert(sizeof(nvmlPowerValue_v2_t) == 12, "nvmlPowerValue_v2_t");
_Static_assert(sizeof(nvmlGpuThermalSettings_t) == 64, "nvmlGpuThermalSettings_t");

#define GS_CLOCK_STEP 15 /* the graphics clock table's step (api_clocks.c) */

/* After a successful prologue: NOT_SUPPORTED when the board lacks the
 * feature, NO_PERMISSION when root is needed and the session is not root
 * (both end the call), else NVML_SUCCESS with the lock still held. */
static nvmlReturn_t gate(struct gs_call *c, bool supported, bool need_root)
{
    if (!supported)
        return gs_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (need_root && !gs_privileged())
        return gs_end(c, NVML_ERROR_NO_PERMISSION);
    return NVML_SUCCESS;
}

/* The GPU a call changes (c->g is the read-only view of the same GPU). */
static struct gs_gpu *gpu_rw(const struct gs_call *c)
{
    return &c->s->gpus[c->gpu];
}

/* ----------------------------------------------------------------- modes */

/* Persistence mode is a Linux driver feature every board has. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, (unsigned)mode <= 1);
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->persistence = mode == NVML_FEATURE_ENABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* EXCLUSIVE_THREAD was removed from the driver (nvml.h: "Support Removed"):
 * NOT_SUPPORTED; the other three modes are set. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device, nvmlComputeMode_t mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              (unsigned)mode <= NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    if (r != NVML_SUCCESS ||
        (r = gate(&c, mode != NVML_COMPUTEMODE_EXCLUSIVE_THREAD, true)) != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->compute_mode = (unsigned)mode;
    return gs_end(&c, NVML_SUCCESS);
}

/* The ECC mode changes at the next reboot: only the pending mode moves
 * (nvmlDeviceGetEccMode's second answer, field NVML_FI_DEV_ECC_PENDING). */
GS_EXPORT nvmlReturn_t nvmlDeviceSetEccMode(nvmlDevice_t device, nvmlEnableState_t ecc)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, (unsigned)ecc <= 1);
    if (r != NVML_SUCCESS || (r = gate(&c, c.g->ecc_capable, true)) != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->ecc_pending = ecc == NVML_FEATURE_ENABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* A Windows notion (WDDM/TCC): NOT_SUPPORTED on Linux, as
 * nvmlDeviceGetDriverModel answers. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetDriverModel(nvmlDevice_t device, unsigned int driverModel,
                                                unsigned int flags)
{
    struct gs_call c;
    (void)flags;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, driverModel < GS_DRIVER_MODEL_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* GK110-era Tesla/Quadro only: NOT_SUPPORTED as the getter answers. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetGpuOperationMode(nvmlDevice_t device, unsigned int mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, mode < GS_GOM_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* The simulated host is bare metal without a vGPU manager: NOT_SUPPORTED. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetVirtualizationMode(nvmlDevice_t device,
                                                       unsigned int virtualMode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, virtualMode < GS_VIRT_MODE_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* The MIG mode changes at the next GPU reset: only the pending mode moves
 * (nvmlDeviceGetMigMode's second answer); the MIG devices stay as they
 * are.  activationStatus is SUCCESS: nothing in the model blocks it. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode,
                                            nvmlReturn_t *activationStatus)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              mode <= NVML_DEVICE_MIG_ENABLE && activationStatus != NULL);
    if (r != NVML_SUCCESS || (r = gate(&c, c.g->mig_capable, true)) != NVML_SUCCESS)
        return r;
    struct gs_gpu *g = gpu_rw(&c);
    g->set.mig_pending_set = true;
    g->set.mig_pending = mode == NVML_DEVICE_MIG_ENABLE;
    *activationStatus = NVML_SUCCESS;
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------- accounting */

/* Switching accounting on starts a new record: processes started from now
 * on are accounted.  Switching it off drops the record (nvml.h: disabling
 * clears all accounting pids information). */
GS_EXPORT nvmlReturn_t nvmlDeviceSetAccountingMode(nvmlDevice_t device, nvmlEnableState_t mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, (unsigned)mode <= 1);
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    struct gs_gpu *g = gpu_rw(&c);
    bool on = mode == NVML_FEATURE_ENABLED;
    if (on && !g->accounting) {
        g->set.acct_since = c.t;
        g->set.acct_cleared = false;
    }
    g->accounting = on;
    return gs_end(&c, NVML_SUCCESS);
}

/* Forgets the processes that have ended; running ones stay listed. */
GS_EXPORT nvmlReturn_t nvmlDeviceClearAccountingPids(nvmlDevice_t device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    struct gs_gpu *g = gpu_rw(&c);
    g->set.acct_cleared = true;
    g->set.acct_cleared_t = c.t;
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------------- ECC */

/* Sets the volatile or the aggregate counts (total and per location) to 0:
 * later errors count from there.  Retired pages and remapped rows stay.
 * NOT_SUPPORTED with ECC off, as the counters are. */
GS_EXPORT nvmlReturn_t nvmlDeviceClearEccErrorCounts(nvmlDevice_t device,
                                                     nvmlEccCounterType_t counterType)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, (unsigned)counterType <= 1);
    if (r != NVML_SUCCESS || (r = gate(&c, c.g->ecc, true)) != NVML_SUCCESS)
        return r;
    unsigned long long *base = gpu_rw(&c)->set.ecc_base[counterType];
    gs_ecc_counts(c.s, c.gpu, c.t, &base[0], &base[1]);
    return gs_end(&c, NVML_SUCCESS);
}

/* ---------------------------------------------------------------- clocks */

/* Whether (mem, gfx) is a pair nvmlDeviceGetSupportedMemoryClocks and
 * ...GraphicsClocks list (the same rule as api_clocks.c). */
static bool supported_pair(const struct gs_gpu *g, unsigned mem, unsigned gfx)
{
    unsigned max = g->clock_max[NVML_CLOCK_MEM];
    bool hbm = g->ecc_capable && g->brand != GS_BRAND_GEFORCE;
    if (mem != max && (hbm || (mem != max / 2 && mem != 810 && mem != 405)))
        return false;
    unsigned lo = g->clock_idle[NVML_CLOCK_GRAPHICS];
    unsigned span =
        g->clock_max[NVML_CLOCK_GRAPHICS] > lo ? g->clock_max[NVML_CLOCK_GRAPHICS] - lo : 0;
    if (mem < max)
        span = mem <= 810 ? span / 4 : span / 2;
    unsigned hi = lo + span;
    return gfx == lo || (gfx <= hi && gfx > lo && (hi - gfx) % GS_CLOCK_STEP == 0);
}

/* Application clocks: not on GeForce boards.  Root unless
 * nvmlDeviceSetAPIRestriction lifted the restriction. */
static nvmlReturn_t app_begin(struct gs_call *c, const char *fn, nvmlDevice_t device)
{
    nvmlReturn_t r = gs_begin(c, fn, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    return gate(c, c->g->brand != GS_BRAND_GEFORCE,
                !c->g->set.api_unrestricted[GS_RESTRICTED_API_SET_APPLICATION_CLOCKS]);
}

/* A pair from the supported-clock tables, else INVALID_ARGUMENT.  A loaded
 * GPU then runs at them (nvmlDeviceGetClockInfo, the ApplicationsClocksSetting
 * event reason, less power). */
GS_EXPORT nvmlReturn_t nvmlDeviceSetApplicationsClocks(nvmlDevice_t device,
                                                       unsigned int memClockMHz,
                                                       unsigned int graphicsClockMHz)
{
    struct gs_call c;
    nvmlReturn_t r = app_begin(&c, __func__, device);
    if (r != NVML_SUCCESS)
        return r;
    if (!supported_pair(c.g, memClockMHz, graphicsClockMHz))
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct gs_gpu *g = gpu_rw(&c);
    g->app_clock[NVML_CLOCK_MEM] = memClockMHz;
    g->app_clock[NVML_CLOCK_GRAPHICS] = graphicsClockMHz;
    g->app_clock[NVML_CLOCK_SM] = graphicsClockMHz;
    return gs_end(&c, NVML_SUCCESS);
}

/* Back to the defaults (nvmlDeviceGetDefaultApplicationsClock: the max). */
GS_EXPORT nvmlReturn_t nvmlDeviceResetApplicationsClocks(nvmlDevice_t device)
{
    struct gs_call c;
    nvmlReturn_t r = app_begin(&c, __func__, device);
    if (r != NVML_SUCCESS)
        return r;
    struct gs_gpu *g = gpu_rw(&c);
    for (int k = 0; k < NVML_CLOCK_COUNT; k++)
        g->app_clock[k] = g->clock_max[k];
    return gs_end(&c, NVML_SUCCESS);
}

/* Locks clock domain k (graphics+SM, or memory) to [lo, hi]:
 * UNLIMITED stands for the board's max, TDP (the base clock, not
 * modelled) is NOT_SUPPORTED; lo > hi or hi above the max is
 * INVALID_ARGUMENT.  A loaded GPU then runs at most at hi, an idle one at
 * least at lo (sim/model.c). */
static nvmlReturn_t lock_clocks(const char *fn, nvmlDevice_t device, int k, unsigned arch,
                                unsigned lo, unsigned hi)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    bool tdp = lo == GS_CLOCK_LIMIT_ID_TDP || hi == GS_CLOCK_LIMIT_ID_TDP;
    if ((r = gate(&c, c.g->arch >= arch && !tdp, true)) != NVML_SUCCESS)
        return r;
    unsigned max = c.g->clock_max[k];
    if (lo == GS_CLOCK_LIMIT_ID_UNLIMITED)
        lo = max;
    if (hi == GS_CLOCK_LIMIT_ID_UNLIMITED)
        hi = max;
    if (lo > hi || hi > max || hi == 0)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned *l = k == NVML_CLOCK_MEM ? gpu_rw(&c)->set.locked_mem : gpu_rw(&c)->set.locked_gpu;
    l[0] = lo;
    l[1] = hi;
    return gs_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t unlock_clocks(const char *fn, nvmlDevice_t device, int k, unsigned arch)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS || (r = gate(&c, c.g->arch >= arch, true)) != NVML_SUCCESS)
        return r;
    unsigned *l = k == NVML_CLOCK_MEM ? gpu_rw(&c)->set.locked_mem : gpu_rw(&c)->set.locked_gpu;
    l[0] = l[1] = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* GPU clocks lock from Volta on (nvml.h). */
GS_EXPORT nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t device,
                                                    unsigned int minGpuClockMHz,
                                                    unsigned int maxGpuClockMHz)
{
    return lock_clocks(__func__, device, NVML_CLOCK_GRAPHICS, GS_ARCH_VOLTA, minGpuClockMHz,
                       maxGpuClockMHz);
}

GS_EXPORT nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t device)
{
    return unlock_clocks(__func__, device, NVML_CLOCK_GRAPHICS, GS_ARCH_VOLTA);
}

/* Auto boost cannot be toggled from Volta on (the getter is NOT_SUPPORTED);
 * on older boards the current setting is root-only unless
 * nvmlDeviceSetAPIRestriction lifted it, the default always root-only. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetAutoBoostedClocksEnabled(nvmlDevice_t device,
                                                             nvmlEnableState_t enabled)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, (unsigned)enabled <= 1);
    if (r != NVML_SUCCESS ||
        (r = gate(&c, c.g->arch < GS_ARCH_VOLTA,
                  !c.g->set.api_unrestricted[GS_RESTRICTED_API_SET_AUTO_BOOSTED_CLOCKS])) !=
            NVML_SUCCESS)
        return r;
    gpu_rw(&c)->set.autoboost_off = enabled == NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetDefaultAutoBoostedClocksEnabled(nvmlDevice_t device,
                                                                    nvmlEnableState_t enabled,
                                                                    unsigned int flags)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, (unsigned)enabled <= 1 && flags == 0);
    if (r != NVML_SUCCESS || (r = gate(&c, c.g->arch < GS_ARCH_VOLTA, true)) != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->set.autoboost_default_off = enabled == NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* Whether the application-clock or auto-boost calls need root.  The same
 * restrictions nvmlDeviceGetAPIRestriction reports: NOT_SUPPORTED for auto
 * boost and on GeForce. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetAPIRestriction(nvmlDevice_t device, unsigned int apiType,
                                                   nvmlEnableState_t isRestricted)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              apiType < GS_RESTRICTED_API_COUNT && (unsigned)isRestricted <= 1);
    if (r != NVML_SUCCESS)
        return r;
    bool supported =
        apiType != GS_RESTRICTED_API_SET_AUTO_BOOSTED_CLOCKS && c.g->brand != GS_BRAND_GEFORCE;
    if ((r = gate(&c, supported, true)) != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->set.api_unrestricted[apiType] = isRestricted == NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------------- power */

/* A limit in milliwatts within nvmlDeviceGetPowerManagementLimitConstraints,
 * else INVALID_ARGUMENT.  The model caps power (and so clocks) at it from
 * now on; the energy counter's past is not recomputed.  Power management
 * exists where the board reports its draw (nvmlDeviceGetPowerManagementMode)
 * and its limits. */
static nvmlReturn_t set_power_limit(struct gs_call *c, unsigned mw)
{
    bool managed = !gs_fn_unsupported(c->g, "nvmlDeviceGetPowerUsage") &&
                   !gs_fn_unsupported(c->g, "nvmlDeviceGetPowerManagementLimit") &&
                   !gs_fn_unsupported(c->g, "nvmlDeviceGetPowerManagementLimitConstraints");
    nvmlReturn_t r = gate(c, managed, true);
    if (r != NVML_SUCCESS)
        return r;
    unsigned lo = (unsigned)(c->g->power_min * 1000 + 0.5);
    unsigned hi = (unsigned)(c->g->power_max * 1000 + 0.5);
    if (mw < lo || mw > hi)
        return gs_end(c, NVML_ERROR_INVALID_ARGUMENT);
    gpu_rw(c)->power_limit = mw / 1000.0;
    return gs_end(c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    return set_power_limit(&c, limit);
}

/* ------------------------------------------------------------ CPU, inforom */

/* The driver binds the calling thread to the CPUs near the GPU.  The
 * simulated host's CPUs (sim/topo.c) are not this machine's, so binding a
 * real thread to them would be wrong or impossible: NOT_SUPPORTED.  Like
 * the driver, no root is needed. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

GS_EXPORT nvmlReturn_t nvmlDeviceClearCpuAffinity(nvmlDevice_t device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* No modelled infoROM is corrupt: SUCCESS on every board (no root needed:
 * it only reads). */
GS_EXPORT nvmlReturn_t nvmlDeviceValidateInforom(nvmlDevice_t device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------- drain state */

/* The GPU at pciInfo's domain, bus and device numbers, or -1. */
static int gpu_at(const struct gs_scenario *s, const nvmlPciInfo_t *pci)
{
    for (unsigned i = 0; i < s->ngpus; i++) {
        const struct gs_gpu *g = &s->gpus[i];
        if (g->pci_domain == pci->domain && g->pci_bus == pci->bus && g->pci_device == pci->device)
            return (int)i;
    }
    return -1;
}

/* Drains (or undrains) the GPU at pciInfo: nvmlDeviceQueryDrainState reads
 * it back.  NOT_FOUND for an address with no GPU. */
GS_EXPORT nvmlReturn_t nvmlDeviceModifyDrainState(nvmlPciInfo_t *pciInfo,
                                                  nvmlEnableState_t newState)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_NONE, NULL, 0, pciInfo != NULL && (unsigned)newState <= 1);
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    int i = gpu_at(c.s, pciInfo);
    if (i < 0)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    c.s->gpus[i].set.drained = newState == NVML_FEATURE_ENABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* Rescans the PCI tree for GPUs removed earlier.  No GPU can be removed
 * here (nvmlDeviceRemoveGpu is not exported), so there is nothing to find:
 * SUCCESS, nothing changes. */
GS_EXPORT nvmlReturn_t nvmlDeviceDiscoverGpus(nvmlPciInfo_t *pciInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, pciInfo != NULL);
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_SUCCESS);
}

/* ---------------------------------------------------------------- NVLink */

/* Like the NVLink getters: NOT_SUPPORTED without links, INVALID_ARGUMENT
 * past the last one. */
static nvmlReturn_t link_begin(struct gs_call *c, const char *fn, nvmlDevice_t device,
                               unsigned link, int args_ok)
{
    nvmlReturn_t r = gs_begin(c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = gs_nvlinks(c->s, c->gpu);
    if (n == 0)
        return gs_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (link >= n)
        return gs_end(c, NVML_ERROR_INVALID_ARGUMENT);
    return NVML_SUCCESS;
}

/* The modelled links never count an error (nvmlDeviceGetNvLinkErrorCounter
 * reads 0), so the reset leaves them at 0: SUCCESS as root. */
GS_EXPORT nvmlReturn_t nvmlDeviceResetNvLinkErrorCounters(nvmlDevice_t device, unsigned int link)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, 1);
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_SUCCESS);
}

/* The utilisation counters these control are NOT_SUPPORTED on every board
 * (retired with Ampere; Volta's are not modelled): so are these. */
GS_EXPORT nvmlReturn_t
nvmlDeviceSetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link, unsigned int counter,
                                      nvmlNvLinkUtilizationControl_t *control, unsigned int reset)
{
    struct gs_call c;
    nvmlReturn_t r =
        link_begin(&c, __func__, device, link, control != NULL && counter <= 1 && reset <= 1);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

GS_EXPORT nvmlReturn_t nvmlDeviceFreezeNvLinkUtilizationCounter(nvmlDevice_t device,
                                                                unsigned int link,
                                                                unsigned int counter,
                                                                nvmlEnableState_t freeze)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, counter <= 1 && (unsigned)freeze <= 1);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

GS_EXPORT nvmlReturn_t nvmlDeviceResetNvLinkUtilizationCounter(nvmlDevice_t device,
                                                               unsigned int link,
                                                               unsigned int counter)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, counter <= 1);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* ------------------------------------------------------------------ unit */

/* The simulated host has no S-class unit (nvmlUnitGetCount is 0), so no
 * handle names one: INVALID_ARGUMENT for any handle, as for a bad color. */
GS_EXPORT nvmlReturn_t nvmlUnitSetLedState(nvmlUnit_t unit, unsigned int color)
{
    struct gs_call c;
    (void)unit;
    (void)color; /* nvmlLedColor_t: 0 green, 1 amber */
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, 0);
    return r;
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* ------------------------------------------------- newer than R450 */

/* Memory clocks lock from Ampere on (nvml.h). */
GS_EXPORT nvmlReturn_t nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t device,
                                                       unsigned int minMemClockMHz,
                                                       unsigned int maxMemClockMHz)
{
    return lock_clocks(__func__, device, NVML_CLOCK_MEM, GS_ARCH_AMPERE, minMemClockMHz,
                       maxMemClockMHz);
}

GS_EXPORT nvmlReturn_t nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t device)
{
    return unlock_clocks(__func__, device, NVML_CLOCK_MEM, GS_ARCH_AMPERE);
}

/* The GPU scope as nvmlDeviceSetPowerManagementLimit; the module and memory
 * scopes are NOT_SUPPORTED on every modelled board (no Grace-Hopper module),
 * as their readings are. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetPowerManagementLimit_v2(nvmlDevice_t device,
                                                            nvmlPowerValue_v2_t *powerValue)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                 powerValue != NULL && powerValue->powerScope <= GS_POWER_SCOPE_MEMORY);
    if (r != NVML_SUCCESS)
        return r;
    if (powerValue->version != GS_POWER_VALUE_V2)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (powerValue->powerScope != GS_POWER_SCOPE_GPU)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    return set_power_limit(&c, powerValue->powerValueMw);
}

/* Only the acoustic and GPS thresholds can be set, and the simulator models
 * neither (nvmlDeviceGetTemperatureThreshold answers NOT_SUPPORTED for
 * them): NOT_SUPPORTED. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetTemperatureThreshold(nvmlDevice_t device,
                                                         nvmlTemperatureThresholds_t thresholdType,
                                                         int *temp)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              temp != NULL && (unsigned)thresholdType <
                                                  (unsigned)NVML_TEMPERATURE_THRESHOLD_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* No field the simulator answers is a counter the driver clears (the NVLink
 * link count and speed are not counters; the throughput counters' clearing
 * is not modelled): each entry gets NOT_SUPPORTED in its nvmlReturn, and the
 * call SUCCESS, as nvmlDeviceGetFieldValues reports per entry. */
GS_EXPORT nvmlReturn_t nvmlDeviceClearFieldValues(nvmlDevice_t device, int valuesCount,
                                                  nvmlFieldValue_t *values)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0,
                              valuesCount >= 0 && (valuesCount == 0 || values != NULL));
    if (r != NVML_SUCCESS || (r = gate(&c, true, true)) != NVML_SUCCESS)
        return r;
    for (int i = 0; i < valuesCount; i++)
        values[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    return gs_end(&c, NVML_SUCCESS);
}

/* The thermal controllers and their default ranges are not public for the
 * modelled boards: not modelled (a getter; no root needed). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetThermalSettings(nvmlDevice_t device, unsigned int sensorIndex,
                                                    nvmlGpuThermalSettings_t *pThermalSettings)
{
    struct gs_call c;
    (void)sensorIndex;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pThermalSettings != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* V/F offsets: GeForce only, as the getters.  Their ranges are not public
 * (the MinMax getters are NOT_SUPPORTED), so any offset is accepted and
 * read back; the clock model does not apply it. */
static nvmlReturn_t set_vf_offset(const char *fn, nvmlDevice_t device, int which, int offset)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS || (r = gate(&c, c.g->brand == GS_BRAND_GEFORCE, true)) != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->set.vf_offset[which] = offset;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetGpcClkVfOffset(nvmlDevice_t device, int offset)
{
    return set_vf_offset(__func__, device, 0, offset);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetMemClkVfOffset(nvmlDevice_t device, int offset)
{
    return set_vf_offset(__func__, device, 1, offset);
}

/* Per-P-state offsets: NOT_SUPPORTED, as nvmlDeviceGetClockOffsets is (their
 * ranges are not public), after the same checks. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetClockOffsets(nvmlDevice_t device, nvmlClockOffset_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (info->version != GS_CLOCK_OFFSET_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if ((unsigned)info->type >= NVML_CLOCK_COUNT || info->pstate > 15)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* The system-wide NVLink bandwidth mode (FULL, OFF, MIN, HALF, 3QUARTER):
 * where nvmlSystemGetNvlinkBwMode answers (a Hopper GPU with links up), it
 * then reads the new mode; NOT_SUPPORTED elsewhere. */
GS_EXPORT nvmlReturn_t nvmlSystemSetNvlinkBwMode(unsigned int nvlinkBwMode)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_NONE, NULL, 0, nvlinkBwMode < GS_NVLINK_BW_MODE_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    bool hopper_links = false;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        hopper_links |= c.s->gpus[i].arch >= GS_ARCH_HOPPER && gs_nvlinks(c.s, i) > 0;
    if ((r = gate(&c, hopper_links, true)) != NVML_SUCCESS)
        return r;
    c.s->nvlink_bw_mode = nvlinkBwMode;
    return gs_end(&c, NVML_SUCCESS);
}

/* ------------------------------------------------------------------ fans */

/* A fan of a board with fans, as the fan getters check it: NOT_SUPPORTED on
 * fanless (passively cooled) boards, INVALID_ARGUMENT past NumFans; root. */
static nvmlReturn_t fan_begin(struct gs_call *c, const char *fn, nvmlDevice_t device, unsigned fan,
                              int args_ok)
{
    nvmlReturn_t r = gs_begin(c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    bool fans = c->g->fans && !gs_fn_unsupported(c->g, "nvmlDeviceGetFanSpeed");
    if ((r = gate(c, fans, true)) != NVML_SUCCESS)
        return r;
    if (fan >= c->g->fans || fan >= sizeof(c->g->set.fan_manual))
        return gs_end(c, NVML_ERROR_INVALID_ARGUMENT);
    return NVML_SUCCESS;
}

/* Manual control: the fan runs at speed (within nvmlDeviceGetMinMaxFanSpeed,
 * 30-100 %) and its policy reads MANUAL.  The fan getters report it; the
 * thermal model does not depend on the fan, so temperatures do not move. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetFanSpeed_v2(nvmlDevice_t device, unsigned int fan,
                                                unsigned int speed)
{
    struct gs_call c;
    nvmlReturn_t r = fan_begin(&c, __func__, device, fan, 1);
    if (r != NVML_SUCCESS)
        return r;
    if (speed < 30 || speed > 100)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    gpu_rw(&c)->set.fan_manual[fan] = (unsigned char)speed;
    return gs_end(&c, NVML_SUCCESS);
}

/* Back to the driver's temperature-driven curve. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetDefaultFanSpeed_v2(nvmlDevice_t device, unsigned int fan)
{
    struct gs_call c;
    nvmlReturn_t r = fan_begin(&c, __func__, device, fan, 1);
    if (r != NVML_SUCCESS)
        return r;
    gpu_rw(&c)->set.fan_manual[fan] = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* TEMPERATURE_CONTINOUS_SW returns the fan to the curve; MANUAL holds it at
 * the speed it runs at now (until nvmlDeviceSetFanSpeed_v2 sets another). */
GS_EXPORT nvmlReturn_t nvmlDeviceSetFanControlPolicy(nvmlDevice_t device, unsigned int fan,
                                                     unsigned int policy)
{
    struct gs_call c;
    nvmlReturn_t r = fan_begin(&c, __func__, device, fan, policy <= GS_FAN_POLICY_MANUAL);
    if (r != NVML_SUCCESS)
        return r;
    struct gs_gpu *g = gpu_rw(&c);
    if (policy == GS_FAN_POLICY_TEMPERATURE_CONTINOUS_SW) {
        g->set.fan_manual[fan] = 0;
    } else if (!g->set.fan_manual[fan]) {
        struct gs_state st;
        gs_model_eval(c.s, c.gpu, c.t, &st);
        g->set.fan_manual[fan] = (unsigned char)(st.fan < 30 ? 30 : st.fan > 100 ? 100 : st.fan);
    }
    return gs_end(&c, NVML_SUCCESS);
}

/* NVLink low-power (L1) thresholds: no getter reads one back in the
 * simulator and no public source gives a board's range: not modelled. */
GS_EXPORT nvmlReturn_t nvmlDeviceSetNvLinkDeviceLowPowerThreshold(nvmlDevice_t device,
                                                                  nvmlNvLinkPowerThres_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}
#endif

/* api_ecc.c -- exported NVML calls for memory errors (ECC counters, retired
 * pages, remapped rows) and nvmlDeviceGetFieldValues.
 *
 * ECC counters exist only while ECC is enabled (NOT_SUPPORTED otherwise).
 * Page retirement is the pre-Ampere mechanism and row remapping the Ampere+
 * one, so each is NOT_SUPPORTED on the other generation; remapped rows are
 * also NOT_SUPPORTED while MIG is on.  Counts come from the scenario's ecc
 * faults (faults.c); the locations other than DRAM and SRAM count 0 on
 * Volta and are NOT_SUPPORTED from Ampere on.  Field values carry a per-entry status, a timestamp
 * in microseconds since 1970 and a value type; unknown ids get NOT_SUPPORTED in their entry while
 * the call itself succeeds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "ext_abi.h"

static bool retirement_supported(const struct gs_gpu *g)
{
    return g->ecc && g->arch < GS_ARCH_AMPERE;
}

static bool remapping_supported(const struct gs_gpu *g)
{
    return g->ecc && g->arch >= GS_ARCH_AMPERE && g->nmig == 0;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
                                            nvmlEnableState_t *pending)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, current != NULL && pending != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->ecc_capable)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *current = c.g->ecc ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    *pending = c.g->ecc_pending ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device,
                                                   nvmlMemoryErrorType_t errorType,
                                                   nvmlEccCounterType_t counterType,
                                                   unsigned long long *eccCounts)
{
    struct gs_call c;
    unsigned long long corr, unc;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                 eccCounts != NULL && (unsigned)errorType <= 1 && (unsigned)counterType <= 1);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->ecc)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    /* The simulated driver never reloads: volatile == aggregate until one
     * of them is cleared (nvmlDeviceClearEccErrorCounts). */
    gs_ecc_read(&c, counterType, &corr, &unc);
    *eccCounts = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? corr : unc;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device,
                                                 nvmlPageRetirementCause_t cause,
                                                 unsigned int *pageCount,
                                                 unsigned long long *addresses)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, pageCount != NULL && (unsigned)cause <= 1);
    if (r != NVML_SUCCESS)
        return r;
    if (!retirement_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned n = gs_retired_pages(c.s, c.gpu, c.t, (unsigned)cause, NULL, 0);
    /* *pageCount = 0 is the size query: the needed count comes back. */
    if (*pageCount < n) {
        *pageCount = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n > 0 && !addresses)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    gs_retired_pages(c.s, c.gpu, c.t, (unsigned)cause, addresses, n);
    *pageCount = n;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                              nvmlEnableState_t *isPending)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, isPending != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!retirement_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    /* Pages retired for double-bit errors wait for the next driver reload. */
    unsigned dbe = gs_retired_pages(c.s, c.gpu, c.t, 1, NULL, 0);
    *isPending = dbe ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
                                                 unsigned int *uncRows, unsigned int *isPending,
                                                 unsigned int *failureOccurred)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              corrRows && uncRows && isPending && failureOccurred);
    if (r != NVML_SUCCESS)
        return r;
    if (!remapping_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    gs_remapped_rows(c.s, c.gpu, c.t, corrRows, uncRows, isPending, failureOccurred);
    return gs_end(&c, NVML_SUCCESS);
}

/* ECC on by default on every ECC-capable board (the factory setting). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetDefaultEccMode(nvmlDevice_t device,
                                                   nvmlEnableState_t *defaultMode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, defaultMode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->ecc_capable)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *defaultMode = NVML_FEATURE_ENABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* nvmlMemoryLocation_t: 0 L1, 1 L2, 2 DRAM, 3 register file, 4 texture,
 * 5 texture shared memory, 6 CBU, 7 SRAM.  Volta counts per unit (L1 to
 * CBU); Ampere and later split SRAM and DRAM only.  The scenario's ecc
 * faults hit DRAM; the other locations stay at 0.  A MIG device answers
 * its volatile SRAM count (the one nvidia-smi -q prints per MIG device as
 * `SRAM Uncorrectable`: 0 on a real H100 with MIG, driver 590, in
 * utkuozdemir/nvidia_gpu_exporter internal/captures/) and NOT_SUPPORTED for
 * the rest: its memory errors are the GPU's. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device,
                                                       nvmlMemoryErrorType_t errorType,
                                                       nvmlEccCounterType_t counterType,
                                                       unsigned int locationType,
                                                       unsigned long long *count)
{
    struct gs_call c;
    unsigned long long corr, unc;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0,
                              count != NULL && (unsigned)errorType <= 1 &&
                                  (unsigned)counterType <= 1 && locationType <= 7);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->ecc)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (c.mig >= 0 && (locationType != 7 || counterType != NVML_VOLATILE_ECC))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    bool split = c.g->arch >= GS_ARCH_AMPERE;
    if (split ? (locationType != 2 && locationType != 7) : locationType == 7)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    gs_ecc_read(&c, counterType, &corr, &unc);
    *count = locationType != 2 ? 0 : errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? corr : unc;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, unsigned int cause,
                                                    unsigned int *pageCount,
                                                    unsigned long long *addresses,
                                                    unsigned long long *timestamps)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pageCount != NULL && cause <= 1);
    if (r != NVML_SUCCESS)
        return r;
    if (!retirement_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned n = gs_retired_pages(c.s, c.gpu, c.t, cause, NULL, 0);
    if (*pageCount < n) {
        *pageCount = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n > 0 && (!addresses || !timestamps))
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    double *times = n ? calloc(n, sizeof(*times)) : NULL;
    if (n && !times)
        return gs_end(&c, NVML_ERROR_MEMORY);
    gs_retired_pages_at(c.s, c.gpu, c.t, cause, addresses, times, n);
    for (unsigned i = 0; i < n; i++)
        timestamps[i] = gs_time_to_wall_us(c.tc, times[i]);
    free(times);
    *pageCount = n;
    return gs_end(&c, NVML_SUCCESS);
}

/* Row-remapper banks by how many spare rows they have left: every bank
 * starts with all of them ("max"); each remapped row takes a spare from
 * one bank (max -> high), counting up from the first. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device,
                                                         nvmlRowRemapperHistogramValues_t *values)
{
    struct gs_call c;
    unsigned rc, ru, rp, rf;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, values != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!remapping_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    gs_remapped_rows(c.s, c.gpu, c.t, &rc, &ru, &rp, &rf);
    unsigned banks = c.g->arch >= GS_ARCH_HOPPER ? 2560 : 640;
    unsigned used = rc + ru > banks ? banks : rc + ru;
    memset(values, 0, sizeof(*values));
    values->max = banks - used;
    values->high = used;
    return gs_end(&c, NVML_SUCCESS);
}

/* --------------------------------------------------------- field values */

struct fv_ctx {
    struct gs_call *c;
    bool have_state, have_integ;
    struct gs_state st;
    double energy_mj, powercap_s, thermal_s;
};

static const struct gs_state *fv_state(struct fv_ctx *x)
{
    if (!x->have_state) {
        gs_model_eval(x->c->s, x->c->gpu, x->c->t, &x->st);
        x->have_state = true;
    }
    return &x->st;
}

static void fv_integ(struct fv_ctx *x)
{
    if (!x->have_integ) {
        gs_model_integrals(x->c->s, x->c->gpu, x->c->t, &x->energy_mj, &x->powercap_s,
                           &x->thermal_s);
        x->have_integ = true;
    }
}

static nvmlReturn_t set_uint(nvmlFieldValue_t *v, unsigned x)
{
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    v->value.uiVal = x;
    return NVML_SUCCESS;
}

static nvmlReturn_t set_double(nvmlFieldValue_t *v, double x)
{
    v->valueType = NVML_VALUE_TYPE_DOUBLE;
    v->value.dVal = x;
    return NVML_SUCCESS;
}

static nvmlReturn_t set_ull(nvmlFieldValue_t *v, unsigned long long x)
{
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    v->value.ullVal = x;
    return NVML_SUCCESS;
}

static nvmlReturn_t field_value(struct fv_ctx *x, nvmlFieldValue_t *v)
{
    const struct gs_call *c = x->c;
    const struct gs_gpu *g = c->g;
    unsigned long long corr, unc;
    unsigned rc, ru, rp, rf;

    int idx = gs_field_index(v->fieldId);
    if (idx < 0 || (g->has_unsupported && g->unsupported[idx]))
        return NVML_ERROR_NOT_SUPPORTED;
    /* The power fields 185-192 take a scope in scopeId (0 GPU, 1 module,
     * 2 memory).  Only a Grace Hopper module measures the module and the
     * memory; no modelled board is one, so those scopes are NOT_SUPPORTED,
     * as real drivers answer on other boards (nvidia-smi then prints
     * module.power.* as [N/A]). */
    if (v->fieldId >= NVML_FI_DEV_POWER_AVERAGE && v->fieldId <= 192 && v->scopeId != 0)
        return NVML_ERROR_NOT_SUPPORTED;
    switch (v->fieldId) {
    case 1: /* NVML_FI_DEV_ECC_CURRENT */
    case 2: /* NVML_FI_DEV_ECC_PENDING */
        if (!g->ecc_capable)
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, v->fieldId == 1 ? g->ecc : g->ecc_pending);
    case 3: /* SBE volatile */
    case 4: /* DBE volatile */
    case 5: /* SBE aggregate */
    case 6: /* DBE aggregate */
        if (!g->ecc)
            return NVML_ERROR_NOT_SUPPORTED;
        gs_ecc_read(c, v->fieldId >= 5, &corr, &unc);
        return set_ull(v, (v->fieldId == 3 || v->fieldId == 5) ? corr : unc);
    case 29: /* NVML_FI_DEV_RETIRED_SBE */
    case 30: /* NVML_FI_DEV_RETIRED_DBE */
        if (!retirement_supported(g))
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, gs_retired_pages(c->s, c->gpu, c->t, v->fieldId == 30, NULL, 0));
    case 31: /* NVML_FI_DEV_RETIRED_PENDING */
        if (!retirement_supported(g))
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, gs_retired_pages(c->s, c->gpu, c->t, 1, NULL, 0) > 0);
    case 74: /* NVML_FI_DEV_PERF_POLICY_POWER (ns) */
        fv_integ(x);
        return set_ull(v, (unsigned long long)llround(x->powercap_s * 1e9));
    case 75:  /* NVML_FI_DEV_PERF_POLICY_THERMAL (ns) */
    case 269: /* ..._SW_THERM_SLOWDOWN */
    case 270: /* ..._HW_THERM_SLOWDOWN */
        fv_integ(x);
        return set_ull(v, (unsigned long long)llround(x->thermal_s * 1e9));
    case 271: /* ..._HW_POWER_BRAKE_SLOWDOWN (ns): hw_slowdown faults with power_brake */
        return set_ull(v,
                       (unsigned long long)llround(gs_hw_brake_seconds(c->s, c->gpu, c->t) * 1e9));
    case 230: /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: NONE, the simulator's
               * faults never ask for a reset (nvidia-smi prints "None" on
               * every captured board, drivers 590-595) */
        return set_uint(v, 0);
    /* Power smoothing (R570+): Blackwell only; nvidia-smi prints every
     * power_smoothing.* field [N/A] on the H100/H200 captures (590).  The
     * values are derived, not taken from a real board: preset profile 0
     * active, its primary floor half the power limit, no
     * secondary floor and window multipliers 0 (no switching between
     * floors), activation offset 10 W (the minimum), minimum activation
     * point 100 W, window multiplier 10 ms, delayed smoothing supported,
     * no admin override (NVML_POWER_SMOOTHING_ADMIN_OVERRIDE_NOT_SET).
     * The profile fields answer profiles 0-4 (scopeId) alike and
     * INVALID_ARGUMENT past NVML_POWER_SMOOTHING_MAX_NUM_PROFILES. */
    case NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE:
    case NVML_FI_PWR_SMOOTHING_WINDOW_MULTIPLIER:
    case NVML_FI_PWR_SMOOTHING_DELAYED_PWR_SMOOTHING_SUPPORTED:
        if (g->arch < GS_ARCH_BLACKWELL)
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, v->fieldId == NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE ? 0
                           : v->fieldId == NVML_FI_PWR_SMOOTHING_WINDOW_MULTIPLIER   ? 10
                                                                                     : 1);
    case NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR:
    case NVML_FI_PWR_SMOOTHING_SECONDARY_POWER_FLOOR:
    case NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_OFFSET:
    case NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_POINT:
        if (g->arch < GS_ARCH_BLACKWELL)
            return NVML_ERROR_NOT_SUPPORTED;
        return set_double(
            v, v->fieldId == NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR     ? g->power_limit / 2
               : v->fieldId == NVML_FI_PWR_SMOOTHING_SECONDARY_POWER_FLOOR ? 0
               : v->fieldId == NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_OFFSET ? 10
                                                                                  : 100);
    case NVML_FI_PWR_SMOOTHING_PROFILE_SECONDARY_POWER_FLOOR:
    case NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_WIN_MULT:
    case NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_TAR_WIN_MULT:
    case NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_OFFSET:
        if (g->arch < GS_ARCH_BLACKWELL)
            return NVML_ERROR_NOT_SUPPORTED;
        if (v->scopeId >= 5) /* NVML_POWER_SMOOTHING_MAX_NUM_PROFILES */
            return NVML_ERROR_INVALID_ARGUMENT;
        return set_double(
            v, v->fieldId == NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_OFFSET ? 10 : 0);
    case NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_SECONDARY_POWER_FLOOR:
    case NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_WIN_MULT:
    case NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_TAR_WIN_MULT:
    case NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_OFFSET:
        if (g->arch < GS_ARCH_BLACKWELL)
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, NVML_POWER_SMOOTHING_ADMIN_OVERRIDE_NOT_SET);
    case NVML_FI_DEV_MEMORY_TEMP:
        if (!g->mem_temp)
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, fv_state(x)->mem_temp);
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
    case 191: /* NVML_FI_DEV_ENERGY */
        if (g->arch < GS_ARCH_VOLTA)
            return NVML_ERROR_NOT_SUPPORTED;
        fv_integ(x);
        return set_ull(v, (unsigned long long)x->energy_mj);
    case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
        return set_uint(v, fv_state(x)->pcie_replays);
    case 142: /* NVML_FI_DEV_REMAPPED_COR */
    case 143: /* NVML_FI_DEV_REMAPPED_UNC */
    case 144: /* NVML_FI_DEV_REMAPPED_PENDING */
    case 145: /* NVML_FI_DEV_REMAPPED_FAILURE */
        if (!remapping_supported(g))
            return NVML_ERROR_NOT_SUPPORTED;
        gs_remapped_rows(c->s, c->gpu, c->t, &rc, &ru, &rp, &rf);
        return set_uint(v, v->fieldId == 142   ? rc
                           : v->fieldId == 143 ? ru
                           : v->fieldId == 144 ? rp
                                               : rf);
    case NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE:
    case NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE:
        /* Where rows are remapped; the modelled faults never deactivate a
         * remapping, so 0 (the captured L40S, 595, prints 0). */
        if (!remapping_supported(g))
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, 0);
    case NVML_FI_DEV_EDPP_MULTIPLIER:
        /* Hopper and later: 100 %, what the captured H100 and H200 print
         * (MIG on or off, 590); the L40S and GeForce print [N/A]. */
        if (g->arch < GS_ARCH_HOPPER)
            return NVML_ERROR_NOT_SUPPORTED;
        return set_uint(v, 100);
    case NVML_FI_DEV_POWER_AVERAGE:
        return set_uint(v, fv_state(x)->power_mw);
    case NVML_FI_DEV_POWER_INSTANT: {
        /* Instantaneous readings scatter a little around the 1 s average. */
        const struct gs_state *st = fv_state(x);
        double n = gs_noise(c->s->seed, c->gpu, 77, (int64_t)floor(c->t * 50));
        double w = fmin(st->power_w * (1 + 0.03 * n), g->power_limit * 1.02);
        return set_uint(v, (unsigned)lround(w * 1000));
    }
    }
    nvmlReturn_t nrc;
    if (gs_nvlink_field(c, v, &nrc))
        return nrc;
    return NVML_ERROR_NOT_SUPPORTED;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                                nvmlFieldValue_t *values)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              valuesCount >= 0 && (values != NULL || valuesCount == 0));
    if (r != NVML_SUCCESS)
        return r;
    struct fv_ctx x = {.c = &c};
    long long ts = (long long)gs_time_to_wall_us(c.tc, c.t);
    for (int i = 0; values && i < valuesCount; i++) {
        nvmlFieldValue_t *v = &values[i];
        memset(&v->value, 0, sizeof(v->value));
        v->timestamp = ts;
        v->latencyUsec = 0;
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->nvmlReturn = field_value(&x, v);
    }
    return gs_end(&c, NVML_SUCCESS);
}

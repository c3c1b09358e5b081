/* api_sensors.c -- exported NVML calls for what a GPU is doing: utilisation,
 * temperature, power and energy, clocks, fans, clock event reasons,
 * violation counters and PCIe.
 *
 * Each call evaluates the model (model.c) at the call's scenario time and
 * converts to NVML's units: percent, degC, mW, mJ, MHz, KB/s (KB = 1024 B, as
 * nvtop and nvitop read it) and ns.  Utilisation, encoder and decoder calls
 * are NOT_SUPPORTED on a MIG-enabled GPU, as on real hardware; fans are
 * NOT_SUPPORTED on fanless (passively cooled) boards.
 */
#include <math.h>

#include "api.h"
#include "clock_abi.h"

/* Encoder/decoder sampling period reported with their utilisation (1/6 s). */
#define GS_CODEC_PERIOD_US 167000u

static nvmlReturn_t eval(const char *fn, nvmlDevice_t device, int args_ok, struct gs_call *c,
                         struct gs_state *st)
{
    nvmlReturn_t r = gs_begin(c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r == NVML_SUCCESS)
        gs_model_eval(c->s, c->gpu, c->t, st);
    return r;
}

/* ---------------------------------------------------------- utilization */

GS_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                     nvmlUtilization_t *utilization)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(__func__, device, utilization != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    utilization->gpu = st.util_gpu;
    utilization->memory = st.util_mem;
    return gs_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t codec(const char *fn, nvmlDevice_t device, unsigned int *util,
                          unsigned int *period, bool enc)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(fn, device, util != NULL && period != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *util = enc ? st.util_enc : st.util_dec;
    *period = GS_CODEC_PERIOD_US;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device,
                                                       unsigned int *utilization,
                                                       unsigned int *samplingPeriodUs)
{
    return codec(__func__, device, utilization, samplingPeriodUs, true);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device,
                                                       unsigned int *utilization,
                                                       unsigned int *samplingPeriodUs)
{
    return codec(__func__, device, utilization, samplingPeriodUs, false);
}

/* ---------------------------------------------------------- temperature */

GS_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                                nvmlTemperatureSensors_t sensorType,
                                                unsigned int *temp)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r =
        eval(__func__, device, temp != NULL && sensorType == NVML_TEMPERATURE_GPU, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    *temp = st.temp;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY
GS_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device,
                                                 nvmlTemperature_t *temperature)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(__func__, device, temperature != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    /* Newer versioned APIs answer a wrong version with ARGUMENT_VERSION_MISMATCH. */
    if (temperature->version != nvmlTemperature_v1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (temperature->sensorType != NVML_TEMPERATURE_GPU)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    temperature->temperature = (int)st.temp;
    return gs_end(&c, NVML_SUCCESS);
}
#endif

/* The acoustic ("GPU Target Temperature") thresholds: GeForce and
 * workstation (Quadro, RTX) boards have them, datacenter boards do not.  Real
 * GeForce RTX 2080 SUPER and 4080 SUPER print `GPU Target Temperature : 84 C`
 * (drivers 591-595), H100, H200 and L40S `N/A`
 * (utkuozdemir/nvidia_gpu_exporter internal/captures/).  The range: 65 to
 * 90 C on a GeForce (the `<supported_gpu_target_temp>` of the -q -x pasted
 * in influxdata/telegraf#12996), 65 to 89 C on a workstation board (an RTX
 * A5000 with driver 590, influxdata/telegraf
 * plugins/inputs/nvidia_smi/testdata/dual_a5000-v13.xml, target 84 C).
 * 0: none. */
static unsigned acoustic_threshold(const struct gs_gpu *g, nvmlTemperatureThresholds_t t)
{
    unsigned max;
    switch (g->brand) {
    case GS_BRAND_GEFORCE:
    case GS_BRAND_TITAN:
        max = 90;
        break;
    case GS_BRAND_QUADRO:
    case GS_BRAND_QUADRO_RTX:
    case GS_BRAND_NVIDIA_RTX:
        max = 89;
        break;
    default:
        return 0;
    }
    return t == NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN    ? 65
           : t == NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR ? 84
                                                           : max;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device,
                                                         nvmlTemperatureThresholds_t thresholdType,
                                                         unsigned int *temp)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              temp != NULL && (unsigned)thresholdType <
                                                  (unsigned)NVML_TEMPERATURE_THRESHOLD_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    unsigned v = 0;
    switch (thresholdType) {
    case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
        v = c.g->temp_shutdown;
        break;
    case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
        v = c.g->temp_slowdown;
        break;
    case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
        v = c.g->temp_mem_max;
        break;
    case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
        v = c.g->temp_gpu_max;
        break;
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN:
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR:
    case NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX:
        v = acoustic_threshold(c.g, thresholdType);
        break;
    default:
        v = 0;
        break; /* the GPS thresholds are not modelled */
    }
    if (v == 0)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *temp = v;
    return gs_end(&c, NVML_SUCCESS);
}

/* ---------------------------------------------------------------- power */

GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(__func__, device, power != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    *power = st.power_mw;
    return gs_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t power_value(const char *fn, nvmlDevice_t device, unsigned int *out, int which)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, out != NULL);
    if (r != NVML_SUCCESS)
        return r;
    double w = which == 0 ? c.g->power_limit : c.g->power_default;
    *out = (unsigned)lround(w * 1000);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    return power_value(__func__, device, limit, 0);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    return power_value(__func__, device, limit, 0);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device,
                                                                unsigned int *defaultLimit)
{
    return power_value(__func__, device, defaultLimit, 1);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device,
                                                                    unsigned int *minLimit,
                                                                    unsigned int *maxLimit)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, minLimit != NULL && maxLimit != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *minLimit = (unsigned)lround(c.g->power_min * 1000);
    *maxLimit = (unsigned)lround(c.g->power_max * 1000);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                           unsigned long long *energy)
{
    struct gs_call c;
    double mj, pc, th;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, energy != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_VOLTA) /* the counter exists since Volta */
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    gs_model_integrals(c.s, c.gpu, c.t, &mj, &pc, &th);
    *energy = (unsigned long long)mj;
    return gs_end(&c, NVML_SUCCESS);
}

/* --------------------------------------------------------------- clocks */

GS_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                              unsigned int *clock)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r =
        eval(__func__, device, clock != NULL && (unsigned)type < NVML_CLOCK_COUNT, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    *clock = st.clock[type];
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                                 unsigned int *clock)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              clock != NULL && (unsigned)type < NVML_CLOCK_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    *clock = c.g->clock_max[type];
    return gs_end(&c, NVML_SUCCESS);
}

/* Application clocks: what a loaded GPU runs at (scenario keys
 * app_clock_graphics / app_clock_mem); the default is the max clock. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device,
                                                      nvmlClockType_t clockType,
                                                      unsigned int *clockMHz)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              clockMHz != NULL && (unsigned)clockType < NVML_CLOCK_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    *clockMHz = c.g->app_clock[clockType];
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device,
                                                             nvmlClockType_t clockType,
                                                             unsigned int *clockMHz)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              clockMHz != NULL && (unsigned)clockType < NVML_CLOCK_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    *clockMHz = c.g->clock_max[clockType];
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                          unsigned int clockId, unsigned int *clockMHz)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(__func__, device,
                          clockMHz != NULL && (unsigned)clockType < NVML_CLOCK_COUNT &&
                              clockId < GS_CLOCK_ID_COUNT,
                          &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    switch (clockId) {
    case GS_CLOCK_ID_CURRENT:
        *clockMHz = st.clock[clockType];
        break;
    case GS_CLOCK_ID_APP_CLOCK_TARGET:
        *clockMHz = c.g->app_clock[clockType];
        break;
    default: /* the default application clock and the boost maximum: max */
        *clockMHz = c.g->clock_max[clockType];
        break;
    }
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------------- fans */

GS_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(__func__, device, speed != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->fans)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *speed = gs_fan_speed(c.g, 0, st.fan);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan,
                                                unsigned int *speed)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(__func__, device, speed != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->fans)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (fan >= c.g->fans)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *speed = gs_fan_speed(c.g, fan, st.fan);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, numFans != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->fans)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *numFans = c.g->fans;
    return gs_end(&c, NVML_SUCCESS);
}

/* ---------------------------------------------------- clock event reasons */

static nvmlReturn_t reasons(const char *fn, nvmlDevice_t device, unsigned long long *out,
                            bool supported)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(fn, device, out != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    if (supported)
        *out = (nvmlClocksEventReasonAll & ~nvmlClocksEventReasonDisplayClockSetting) |
               (c.g->display_mode ? nvmlClocksEventReasonDisplayClockSetting : 0);
    else
        *out = st.reasons;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY
GS_EXPORT nvmlReturn_t
nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *clocksEventReasons)
{
    return reasons(__func__, device, clocksEventReasons, false);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(
    nvmlDevice_t device, unsigned long long *supportedClocksEventReasons)
{
    return reasons(__func__, device, supportedClocksEventReasons, true);
}
#endif

GS_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(
    nvmlDevice_t device, unsigned long long *clocksThrottleReasons)
{
    return reasons(__func__, device, clocksThrottleReasons, false);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(
    nvmlDevice_t device, unsigned long long *supportedClocksThrottleReasons)
{
    return reasons(__func__, device, supportedClocksThrottleReasons, true);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device,
                                                    nvmlPerfPolicyType_t perfPolicyType,
                                                    nvmlViolationTime_t *violTime)
{
    struct gs_call c;
    double mj, pc, th;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                 violTime != NULL && (unsigned)perfPolicyType <= NVML_PERF_POLICY_RELIABILITY);
    if (r != NVML_SUCCESS)
        return r;
    gs_model_integrals(c.s, c.gpu, c.t, &mj, &pc, &th);
    double secs = perfPolicyType == NVML_PERF_POLICY_POWER     ? pc
                  : perfPolicyType == NVML_PERF_POLICY_THERMAL ? th
                                                               : 0;
    /* referenceTime is a CPU timestamp in microseconds (nvml.h); the
     * violation time is in nanoseconds. */
    violTime->referenceTime = gs_time_to_wall_us(c.tc, c.t);
    violTime->violationTime = (unsigned long long)llround(secs * 1e9);
    return gs_end(&c, NVML_SUCCESS);
}

/* ----------------------------------------------------------------- PCIe */

GS_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device,
                                                   nvmlPcieUtilCounter_t counter,
                                                   unsigned int *value)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r =
        eval(__func__, device, value != NULL && (unsigned)counter < NVML_PCIE_UTIL_COUNT, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    *value = counter == NVML_PCIE_UTIL_TX_BYTES ? st.pcie_tx_kbs : st.pcie_rx_kbs;
    return gs_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t link_value(const char *fn, nvmlDevice_t device, unsigned int *out, int which)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = eval(fn, device, out != NULL, &c, &st);
    if (r != NVML_SUCCESS)
        return r;
    switch (which) {
    case 0:
        *out = st.pcie_gen_cur;
        break;
    case 1:
        *out = st.pcie_width_cur;
        break;
    case 2:
        *out = c.g->pcie_gen;
        break;
    case 3:
        *out = c.g->pcie_width;
        break;
    default:
        *out = st.pcie_replays;
        break;
    }
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device,
                                                           unsigned int *currLinkGen)
{
    return link_value(__func__, device, currLinkGen, 0);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device,
                                                      unsigned int *currLinkWidth)
{
    return link_value(__func__, device, currLinkWidth, 1);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device,
                                                          unsigned int *maxLinkGen)
{
    return link_value(__func__, device, maxLinkGen, 2);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device,
                                                     unsigned int *maxLinkWidth)
{
    return link_value(__func__, device, maxLinkWidth, 3);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
    return link_value(__func__, device, value, 4);
}

/* api_rare.c -- seldom-used read-only NVML queries with the modelled
 * machine's answers: the host interface cards of S-class units (there are
 * none: nvmlUnitGetCount is 0) and the fan control policy (the driver's
 * temperature-driven curve on every board with fans; nothing sets a manual
 * policy, the simulator being read-only).
 */
#include "api.h"
#include "rare_abi.h"

/* No S-class unit, so no HIC: the count is 0 whatever buffer is passed. */
GS_EXPORT nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount,
                                               nvmlHwbcEntry_t *hwbcEntries)
{
    struct gs_call c;
    (void)hwbcEntries;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, hwbcCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *hwbcCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* Like nvmlDeviceGetFanSpeed_v2: NOT_SUPPORTED on fanless (passively
 * cooled) boards, INVALID_ARGUMENT for a fan index past nvmlDeviceGetNumFans. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan,
                                                        unsigned int *policy)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, policy != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->fans || gs_fn_unsupported(c.g, "nvmlDeviceGetFanSpeed"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (fan >= c.g->fans)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *policy = GS_FAN_POLICY_TEMPERATURE_CONTINOUS_SW;
    return gs_end(&c, NVML_SUCCESS);
}
#endif

/* rare_abi.h -- declarations of the seldom-used read-only NVML queries that
 * sim/api_rare.c exports (pynvml binds them; gpustat, nvitop and nvtop do
 * not call them on a normal run).  Layouts and values from NVIDIA's nvml.h.
 */
#ifndef GS_RARE_ABI_H
#define GS_RARE_ABI_H

#include "source/nvml_abi.h"

/* nvmlHwbcEntry_t: one host interface card of an S-class unit. */
typedef struct {
    unsigned int hwbcId;
    char firmwareVersion[32];
} nvmlHwbcEntry_t;

/* nvmlFanControlPolicy_t */
enum { GS_FAN_POLICY_TEMPERATURE_CONTINOUS_SW = 0, GS_FAN_POLICY_MANUAL = 1 };

nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount, nvmlHwbcEntry_t *hwbcEntries);
nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan,
                                              unsigned int *policy);

#endif /* GS_RARE_ABI_H */

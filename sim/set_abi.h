/* set_abi.h -- declarations of the NVML functions that change driver state
 * (setters, clears, resets, drain state) which sim/api_set.c exports.
 * Layouts, version words and values from NVIDIA's nvml.h (13.x, as go-nvml
 * ships it); the ones newer than R450 are marked.
 */
#ifndef GS_SET_ABI_H
#define GS_SET_ABI_H

#include "ext_abi.h"
#include "rare_abi.h"
#include "source/nvml_abi.h"

/* nvmlPowerValue_v2_t: a power limit and the scope it applies to. */
typedef struct {
    unsigned int version;
    unsigned char powerScope; /* nvmlPowerScopeType_t: 0 GPU, 1 module, 2 memory */
    unsigned int powerValueMw;
} nvmlPowerValue_v2_t;
#define GS_POWER_VALUE_V2 NVML_STRUCT_VERSION_OF(nvmlPowerValue_v2_t, 2)
enum { GS_POWER_SCOPE_GPU = 0, GS_POWER_SCOPE_MODULE = 1, GS_POWER_SCOPE_MEMORY = 2 };

/* nvmlNvLinkPowerThres_t */
typedef struct {
    unsigned int lowPwrThreshold;
} nvmlNvLinkPowerThres_t;

/* nvmlGpuThermalSettings_t: up to three sensors. */
#define GS_MAX_THERMAL_SENSORS_PER_GPU 3
typedef struct {
    unsigned int count;
    struct {
        int controller; /* nvmlThermalController_t */
        int defaultMinTemp;
        int defaultMaxTemp;
        int currentTemp;
        int target; /* nvmlThermalTarget_t */
    } sensor[GS_MAX_THERMAL_SENSORS_PER_GPU];
} nvmlGpuThermalSettings_t;

/* nvmlClockLimitId_t: special values of the locked-clock setters. */
enum {
    GS_CLOCK_LIMIT_ID_RANGE_START = 0xffffff00,
    GS_CLOCK_LIMIT_ID_TDP = 0xffffff01,
    GS_CLOCK_LIMIT_ID_UNLIMITED = 0xffffff02,
};

/* The number of values of nvmlGpuOperationMode_t (ALL_ON, COMPUTE, LOW_DP),
 * nvmlDriverModel_t (WDDM, WDM, MCDM) and nvmlGpuVirtualizationMode_t
 * (NONE, PASSTHROUGH, VGPU, HOST_VGPU, HOST_VSGA). */
enum { GS_GOM_COUNT = 3, GS_DRIVER_MODEL_COUNT = 3, GS_VIRT_MODE_COUNT = 5 };

/* R450-era */
nvmlReturn_t nvmlDeviceSetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t mode);
nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device, nvmlComputeMode_t mode);
nvmlReturn_t nvmlDeviceSetEccMode(nvmlDevice_t device, nvmlEnableState_t ecc);
nvmlReturn_t nvmlDeviceClearEccErrorCounts(nvmlDevice_t device, nvmlEccCounterType_t counterType);
nvmlReturn_t nvmlDeviceSetDriverModel(nvmlDevice_t device, unsigned int driverModel,
                                      unsigned int flags);
nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t device, unsigned int minGpuClockMHz,
                                          unsigned int maxGpuClockMHz);
nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t device);
nvmlReturn_t nvmlDeviceSetApplicationsClocks(nvmlDevice_t device, unsigned int memClockMHz,
                                             unsigned int graphicsClockMHz);
nvmlReturn_t nvmlDeviceResetApplicationsClocks(nvmlDevice_t device);
nvmlReturn_t nvmlDeviceSetAutoBoostedClocksEnabled(nvmlDevice_t device, nvmlEnableState_t enabled);
nvmlReturn_t nvmlDeviceSetDefaultAutoBoostedClocksEnabled(nvmlDevice_t device,
                                                          nvmlEnableState_t enabled,
                                                          unsigned int flags);
nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit);
nvmlReturn_t nvmlDeviceSetGpuOperationMode(nvmlDevice_t device, unsigned int mode);
nvmlReturn_t nvmlDeviceSetAPIRestriction(nvmlDevice_t device, unsigned int apiType,
                                         nvmlEnableState_t isRestricted);
nvmlReturn_t nvmlDeviceSetAccountingMode(nvmlDevice_t device, nvmlEnableState_t mode);
nvmlReturn_t nvmlDeviceClearAccountingPids(nvmlDevice_t device);
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t device);
nvmlReturn_t nvmlDeviceClearCpuAffinity(nvmlDevice_t device);
nvmlReturn_t nvmlDeviceModifyDrainState(nvmlPciInfo_t *pciInfo, nvmlEnableState_t newState);
nvmlReturn_t nvmlDeviceDiscoverGpus(nvmlPciInfo_t *pciInfo);
nvmlReturn_t nvmlDeviceResetNvLinkErrorCounters(nvmlDevice_t device, unsigned int link);
nvmlReturn_t nvmlDeviceSetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link,
                                                   unsigned int counter,
                                                   nvmlNvLinkUtilizationControl_t *control,
                                                   unsigned int reset);
nvmlReturn_t nvmlDeviceFreezeNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link,
                                                      unsigned int counter,
                                                      nvmlEnableState_t freeze);
nvmlReturn_t nvmlDeviceResetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link,
                                                     unsigned int counter);
nvmlReturn_t nvmlDeviceSetVirtualizationMode(nvmlDevice_t device, unsigned int virtualMode);
nvmlReturn_t nvmlUnitSetLedState(nvmlUnit_t unit, unsigned int color);
nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode,
                                  nvmlReturn_t *activationStatus);

/* newer than R450 */
nvmlReturn_t nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t device, unsigned int minMemClockMHz,
                                             unsigned int maxMemClockMHz);
nvmlReturn_t nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t device);
nvmlReturn_t nvmlDeviceSetPowerManagementLimit_v2(nvmlDevice_t device,
                                                  nvmlPowerValue_v2_t *powerValue);
nvmlReturn_t nvmlDeviceSetTemperatureThreshold(nvmlDevice_t device,
                                               nvmlTemperatureThresholds_t thresholdType,
                                               int *temp);
nvmlReturn_t nvmlDeviceClearFieldValues(nvmlDevice_t device, int valuesCount,
                                        nvmlFieldValue_t *values);
nvmlReturn_t nvmlDeviceGetThermalSettings(nvmlDevice_t device, unsigned int sensorIndex,
                                          nvmlGpuThermalSettings_t *pThermalSettings);
nvmlReturn_t nvmlDeviceSetGpcClkVfOffset(nvmlDevice_t device, int offset);
nvmlReturn_t nvmlDeviceSetMemClkVfOffset(nvmlDevice_t device, int offset);
nvmlReturn_t nvmlDeviceSetClockOffsets(nvmlDevice_t device, nvmlClockOffset_t *info);
nvmlReturn_t nvmlDeviceSetNvLinkDeviceLowPowerThreshold(nvmlDevice_t device,
                                                        nvmlNvLinkPowerThres_t *info);
nvmlReturn_t nvmlSystemSetNvlinkBwMode(unsigned int nvlinkBwMode);
nvmlReturn_t nvmlDeviceSetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int speed);
nvmlReturn_t nvmlDeviceSetDefaultFanSpeed_v2(nvmlDevice_t device, unsigned int fan);
nvmlReturn_t nvmlDeviceSetFanControlPolicy(nvmlDevice_t device, unsigned int fan,
                                           unsigned int policy);

#endif /* GS_SET_ABI_H */

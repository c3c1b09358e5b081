/* rare_abi.h -- declarations of the seldom-used read-only NVML queries that
 * sim/api_rare.c exports (pynvml binds them; gpustat, nvitop and nvtop do
 * not call them on a normal run).  Layouts, version words and values from
 * NVIDIA's nvml.h (13.x, as go-nvml ships it); the R450-era ones are marked.
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

/* nvmlRestrictedAPI_t (R450-era) */
enum {
    GS_RESTRICTED_API_SET_APPLICATION_CLOCKS = 0,
    GS_RESTRICTED_API_SET_AUTO_BOOSTED_CLOCKS = 1,
    GS_RESTRICTED_API_COUNT = 2
};

/* nvmlBridgeChipHierarchy_t (R450-era): the bridge chips of a multi-GPU board. */
#define GS_MAX_PHYSICAL_BRIDGE 128
typedef struct {
    unsigned int type; /* nvmlBridgeChipType_t: 0 PLX, 1 BRO4 */
    unsigned int fwVersion;
} nvmlBridgeChipInfo_t;
typedef struct {
    unsigned char bridgeCount;
    nvmlBridgeChipInfo_t bridgeChipInfo[GS_MAX_PHYSICAL_BRIDGE];
} nvmlBridgeChipHierarchy_t;

/* nvmlDeviceCapabilities_v1_t; NVML_DEV_CAP_EGM (1 << 0) is the only bit. */
typedef struct {
    unsigned int version;
    unsigned int capMask;
} nvmlDeviceCapabilities_t;
#define GS_DEVICE_CAPABILITIES_V1 NVML_STRUCT_VERSION_OF(nvmlDeviceCapabilities_t, 1)

/* nvmlClkMonStatus_t: the frequency monitor faults (Ampere and later). */
#define GS_MAX_CLK_DOMAINS 32
typedef struct {
    unsigned int clkApiDomain;
    unsigned int clkDomainFaultMask;
} nvmlClkMonFaultInfo_t;
typedef struct {
    unsigned int bGlobalStatus;
    unsigned int clkMonListSize;
    nvmlClkMonFaultInfo_t clkMonList[GS_MAX_CLK_DOMAINS];
} nvmlClkMonStatus_t;

/* nvmlClockOffset_v1_t */
typedef struct {
    unsigned int version;
    nvmlClockType_t type;
    unsigned int pstate; /* nvmlPstates_t */
    int clockOffsetMHz;
    int minClockOffsetMHz;
    int maxClockOffsetMHz;
} nvmlClockOffset_t;
#define GS_CLOCK_OFFSET_V1 NVML_STRUCT_VERSION_OF(nvmlClockOffset_t, 1)

/* nvmlEccErrorCounts_t (R450-era, deprecated in 13.0) */
typedef struct {
    unsigned long long l1Cache;
    unsigned long long l2Cache;
    unsigned long long deviceMemory;
    unsigned long long registerFile;
} nvmlEccErrorCounts_t;

/* nvmlGpuDynamicPstatesInfo_t */
#define GS_MAX_GPU_UTILIZATIONS 8
typedef struct {
    unsigned int flags;
    struct {
        unsigned int bIsPresent;
        unsigned int percentage;
        unsigned int incThreshold;
        unsigned int decThreshold;
    } utilization[GS_MAX_GPU_UTILIZATIONS];
} nvmlGpuDynamicPstatesInfo_t;

/* nvmlNvLinkUtilizationControl_t (R450-era, deprecated in 13.0) */
typedef struct {
    unsigned int units;     /* nvmlNvLinkUtilizationCountUnits_t */
    unsigned int pktfilter; /* nvmlNvLinkUtilizationCountPktTypes_t */
} nvmlNvLinkUtilizationControl_t;

/* nvmlPowerSource_t values */
enum { GS_POWER_SOURCE_AC = 0, GS_POWER_SOURCE_BATTERY = 1, GS_POWER_SOURCE_UNDERSIZED = 2 };

#define GS_ECC_SRAM_ERROR_STATUS_V1 NVML_STRUCT_VERSION_OF(nvmlEccSramErrorStatus_t, 1)

/* nvmlSystemGetNvlinkBwMode: NVML_GPU_NVLINK_BW_MODE_FULL (the others:
 * OFF 1, MIN 2, HALF 3, 3QUARTER 4). */
enum { GS_NVLINK_BW_MODE_FULL = 0, GS_NVLINK_BW_MODE_COUNT = 5 };

nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount, nvmlHwbcEntry_t *hwbcEntries);
nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan,
                                              unsigned int *policy);

/* R450-era */
nvmlReturn_t nvmlDeviceGetAPIRestriction(nvmlDevice_t device, unsigned int apiType,
                                         nvmlEnableState_t *isRestricted);
nvmlReturn_t nvmlDeviceGetBridgeChipInfo(nvmlDevice_t device,
                                         nvmlBridgeChipHierarchy_t *bridgeHierarchy);
nvmlReturn_t nvmlDeviceGetDetailedEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                            nvmlEccCounterType_t counterType,
                                            nvmlEccErrorCounts_t *eccCounts);
nvmlReturn_t nvmlDeviceGetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link,
                                                   unsigned int counter,
                                                   nvmlNvLinkUtilizationControl_t *control);
nvmlReturn_t nvmlDeviceQueryDrainState(nvmlPciInfo_t *pciInfo, nvmlEnableState_t *currentState);

/* newer than R450 */
nvmlReturn_t nvmlDeviceGetAdaptiveClockInfoStatus(nvmlDevice_t device,
                                                  unsigned int *adaptiveClockStatus);
nvmlReturn_t nvmlDeviceGetCapabilities(nvmlDevice_t device, nvmlDeviceCapabilities_t *caps);
nvmlReturn_t nvmlDeviceGetClkMonStatus(nvmlDevice_t device, nvmlClkMonStatus_t *status);
nvmlReturn_t nvmlDeviceGetClockOffsets(nvmlDevice_t device, nvmlClockOffset_t *info);
nvmlReturn_t nvmlDeviceGetDynamicPstatesInfo(nvmlDevice_t device,
                                             nvmlGpuDynamicPstatesInfo_t *pDynamicPstatesInfo);
nvmlReturn_t nvmlDeviceGetGpcClkVfOffset(nvmlDevice_t device, int *offset);
nvmlReturn_t nvmlDeviceGetMemClkVfOffset(nvmlDevice_t device, int *offset);
nvmlReturn_t nvmlDeviceGetGpcClkMinMaxVfOffset(nvmlDevice_t device, int *minOffset, int *maxOffset);
nvmlReturn_t nvmlDeviceGetMemClkMinMaxVfOffset(nvmlDevice_t device, int *minOffset, int *maxOffset);
nvmlReturn_t nvmlDeviceGetLastBBXFlushTime(nvmlDevice_t device, unsigned long long *timestamp,
                                           unsigned long *durationUs);
nvmlReturn_t nvmlDeviceGetPowerSource(nvmlDevice_t device, unsigned int *powerSource);
nvmlReturn_t nvmlSystemGetNvlinkBwMode(unsigned int *nvlinkBwMode);

#endif /* GS_RARE_ABI_H */

/* ext_abi.h -- NVML declarations the simulator exports but gpumon's own
 * src/source/nvml_abi.h does not need: clocks and PCIe limits, topology,
 * NVLink, inforom, accounting, encoder/FBC sessions, fabric, driver model
 * and the other read-only queries that nvidia-smi -q, topo -m and the
 * pynvml-based clients (nvitop, gpustat) call.
 *
 * Layouts and values are NVIDIA's nvml.h (reference/nvml-abi.md and the
 * ctypes structures of nvidia-ml-py 12.560.30).  Enums passed by value are
 * declared as unsigned int, which is the same type at the ABI level; the
 * GS_ constants carry their values.
 */
#ifndef GS_EXT_ABI_H
#define GS_EXT_ABI_H

#include "source/nvml_abi.h"

/* nvmlGpuTopologyLevel_t */
enum {
    GS_TOPO_INTERNAL = 0,
    GS_TOPO_SINGLE = 10,
    GS_TOPO_MULTIPLE = 20,
    GS_TOPO_HOSTBRIDGE = 30,
    GS_TOPO_NODE = 40,
    GS_TOPO_SYSTEM = 50,
};

/* nvmlNvLinkCapability_t, nvmlNvLinkErrorCounter_t, nvmlIntNvLinkDeviceType_t */
enum { GS_NVLINK_CAP_COUNT = 6 };
enum { GS_NVLINK_ERROR_COUNT = 5 };
enum { GS_NVLINK_DEV_GPU = 0, GS_NVLINK_DEV_IBMNPU = 1, GS_NVLINK_DEV_SWITCH = 2 };
#define GS_NVLINK_MAX_LINKS 18

/* nvmlGpuFabricState_t */
enum {
    GS_FABRIC_NOT_SUPPORTED = 0,
    GS_FABRIC_NOT_STARTED = 1,
    GS_FABRIC_IN_PROGRESS = 2,
    GS_FABRIC_COMPLETED = 3,
};

/* nvmlInforomObject_t */
enum { GS_INFOROM_OEM = 0, GS_INFOROM_ECC = 1, GS_INFOROM_POWER = 2, GS_INFOROM_COUNT = 3 };

/* nvmlBusType_t, nvmlGpuVirtualizationMode_t, nvmlDriverModel_t */
enum { GS_BUS_TYPE_PCIE = 2 };
enum { GS_VIRT_MODE_NONE = 0 };

typedef struct {
    unsigned int version;
    char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
} nvmlGpuFabricInfo_t;

/* nvmlGpuFabricInfoV_t is in nvml_abi.h (gpumon reads it). */
#define GS_FABRIC_INFO_V2 nvmlGpuFabricInfo_v2
#define GS_FABRIC_INFO_V3 nvmlGpuFabricInfo_v3

typedef struct {
    unsigned int version; /* sizeof | 1 << 24 */
    char branch[80];
} nvmlSystemDriverBranchInfo_t;
#define GS_DRIVER_BRANCH_V1 (unsigned)(sizeof(nvmlSystemDriverBranchInfo_t) | (1U << 24))

typedef struct {
    nvmlPciInfo_t pciInfo;
    char uuid[80];
} nvmlExcludedDeviceInfo_t;

/* nvmlAccountingStats_t: src/source/nvml_abi.h (gpumon reads it too) */

typedef struct {
    unsigned int sessionId, pid, vgpuInstance, codecType, hResolution, vResolution, averageFps,
        averageLatency;
} nvmlEncoderSessionInfo_t;

typedef struct {
    unsigned int sessionsCount, averageFPS, averageLatency;
} nvmlFBCStats_t;

typedef struct {
    unsigned int sessionId, pid, vgpuInstance, displayOrdinal, sessionType, sessionFlags,
        hMaxResolution, vMaxResolution, hResolution, vResolution, averageFPS, averageLatency;
} nvmlFBCSessionInfo_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t;

typedef struct {
    unsigned int version; /* 0x01000018 */
    unsigned int mode;    /* 0 compute, 1 graphics, 2 MPS */
    unsigned int numProcArrayEntries;
    nvmlProcessDetail_v1_t *procArray;
} nvmlProcessDetailList_t;
#define GS_PROCESS_DETAIL_LIST_V1 (unsigned)(sizeof(nvmlProcessDetailList_t) | (1U << 24))

typedef struct {
    unsigned long long timeStamp;
    unsigned int pid, smUtil, memUtil, encUtil, decUtil, jpgUtil, ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct {
    unsigned int version; /* 0x01000018 */
    unsigned int processSamplesCount;
    unsigned long long lastSeenTimeStamp;
    nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_t;
#define GS_PROCESSES_UTIL_INFO_V1 (unsigned)(sizeof(nvmlProcessesUtilizationInfo_t) | (1U << 24))

#define GS_PCI_INFO_EXT_V1 (unsigned)(sizeof(nvmlPciInfoExt_t) | (1U << 24))

/* Opaque unit handle (S-class units); the simulator models none. */
typedef struct nvmlUnit_st *nvmlUnit_t;

/* Clocks, power, P-states (api_clocks.c). */
nvmlReturn_t nvmlDeviceGetMaxCustomerBoostClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                unsigned int *clockMHz);
nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t device, unsigned int *count,
                                                unsigned int *clocksMHz);
nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t device, unsigned int memoryClockMHz,
                                                  unsigned int *count, unsigned int *clocksMHz);
nvmlReturn_t nvmlDeviceGetAutoBoostedClocksEnabled(nvmlDevice_t device, unsigned int *isEnabled,
                                                   unsigned int *defaultIsEnabled);
nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, unsigned int *mode);
nvmlReturn_t nvmlDeviceGetPowerState(nvmlDevice_t device, nvmlPstates_t *pState);
nvmlReturn_t nvmlDeviceGetSupportedPerformanceStates(nvmlDevice_t device, nvmlPstates_t *pstates,
                                                     unsigned int size);
nvmlReturn_t nvmlDeviceGetMinMaxClockOfPState(nvmlDevice_t device, nvmlClockType_t type,
                                              nvmlPstates_t pstate, unsigned int *minClockMHz,
                                              unsigned int *maxClockMHz);
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
nvmlReturn_t nvmlDeviceGetPcieLinkMaxSpeed(nvmlDevice_t device, unsigned int *maxSpeed);
nvmlReturn_t nvmlDeviceGetPcieSpeed(nvmlDevice_t device, unsigned int *pcieSpeed);
nvmlReturn_t nvmlDeviceGetBusType(nvmlDevice_t device, unsigned int *type);

/* Topology (api_topo.c). */
nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int cpuSetSize,
                                      unsigned long *cpuSet);
nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t device, unsigned int nodeSetSize,
                                                 unsigned long *nodeSet, unsigned int scope);
nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t device, unsigned int nodeSetSize,
                                         unsigned long *nodeSet, unsigned int scope);
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 unsigned int *pathInfo);
nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device, unsigned int level,
                                              unsigned int *count, nvmlDevice_t *deviceArray);
nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpuNumber, unsigned int *count,
                                         nvmlDevice_t *deviceArray);
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                    unsigned int p2pIndex, unsigned int *p2pStatus);
nvmlReturn_t nvmlDeviceOnSameBoard(nvmlDevice_t device1, nvmlDevice_t device2, int *onSameBoard);

/* NVLink and fabric (api_nvlink.c). */
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      unsigned int *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
                                        unsigned int *version);
nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link,
                                           unsigned int capability, unsigned int *capResult);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                 nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                 unsigned int *type);
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                             unsigned int counter, unsigned long long *value);
nvmlReturn_t nvmlDeviceGetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link,
                                                   unsigned int counter,
                                                   unsigned long long *rxcounter,
                                                   unsigned long long *txcounter);
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo);
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo);

/* Everything else read-only (api_misc.c). */
nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, unsigned int *current,
                                      unsigned int *pending);
nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, unsigned int *current,
                                         unsigned int *pending);
nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, unsigned int object, char *version,
                                         unsigned int length);
nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version,
                                              unsigned int length);
nvmlReturn_t nvmlDeviceGetInforomConfigurationChecksum(nvmlDevice_t device, unsigned int *checksum);
nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, unsigned int *pVirtualMode);
nvmlReturn_t nvmlDeviceGetGpuOperationMode(nvmlDevice_t device, unsigned int *current,
                                           unsigned int *pending);
nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode);
nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int *bufferSize);
nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t device, unsigned int *count,
                                         unsigned int *pids);
nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned int pid,
                                          nvmlAccountingStats_t *stats);
nvmlReturn_t nvmlDeviceGetEncoderCapacity(nvmlDevice_t device, unsigned int encoderQueryType,
                                          unsigned int *encoderCapacity);
nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount,
                                       unsigned int *averageFps, unsigned int *averageLatency);
nvmlReturn_t nvmlDeviceGetEncoderSessions(nvmlDevice_t device, unsigned int *sessionCount,
                                          nvmlEncoderSessionInfo_t *sessionInfos);
nvmlReturn_t nvmlDeviceGetFBCStats(nvmlDevice_t device, nvmlFBCStats_t *fbcStats);
nvmlReturn_t nvmlDeviceGetFBCSessions(nvmlDevice_t device, unsigned int *sessionCount,
                                      nvmlFBCSessionInfo_t *sessionInfo);
nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *branchInfo,
                                       unsigned int length);
nvmlReturn_t nvmlGetExcludedDeviceCount(unsigned int *deviceCount);
nvmlReturn_t nvmlGetExcludedDeviceInfoByIndex(unsigned int index, nvmlExcludedDeviceInfo_t *info);
nvmlReturn_t nvmlUnitGetCount(unsigned int *unitCount);
nvmlReturn_t nvmlUnitGetHandleByIndex(unsigned int index, nvmlUnit_t *unit);
nvmlReturn_t nvmlDeviceGetDefaultEccMode(nvmlDevice_t device, nvmlEnableState_t *defaultMode);
nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                             nvmlEccCounterType_t counterType,
                                             unsigned int locationType, unsigned long long *count);
nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, unsigned int cause,
                                          unsigned int *pageCount, unsigned long long *addresses,
                                          unsigned long long *timestamps);
nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device,
                                               nvmlRowRemapperHistogramValues_t *values);
nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device,
                                                   nvmlProcessDetailList_t *plist);
nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
                                                   nvmlProcessesUtilizationInfo_t *info);

/* Board facts nvidia-smi -q prints (api_board.c). */
nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device,
                                            nvmlMarginTemperature_t *marginTempInfo);
nvmlReturn_t nvmlDeviceGetBoardId(nvmlDevice_t device, unsigned int *boardId);
nvmlReturn_t nvmlDeviceGetMultiGpuBoard(nvmlDevice_t device, unsigned int *multiGpuBool);
nvmlReturn_t nvmlDeviceGetGspFirmwareVersion(nvmlDevice_t device, char *version);
nvmlReturn_t nvmlDeviceGetIrqNum(nvmlDevice_t device, unsigned int *irqNum);
nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth);
nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int *numCores);
nvmlReturn_t nvmlDeviceGetMinMaxFanSpeed(nvmlDevice_t device, unsigned int *minSpeed,
                                         unsigned int *maxSpeed);
nvmlReturn_t nvmlDeviceGetTargetFanSpeed(nvmlDevice_t device, unsigned int fan,
                                         unsigned int *targetSpeed);

#endif /* GS_EXT_ABI_H */

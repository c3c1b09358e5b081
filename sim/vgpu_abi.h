/* vgpu_abi.h -- declarations of the vGPU and S-class unit queries that
 * sim/api_vgpu.c exports.  Signatures, layouts and version words from
 * NVIDIA's nvml.h (13.x, as go-nvml ships it); sizes checked against that
 * header on LP64.  Structs the simulator only passes through (it never
 * writes them: there is no vGPU and no unit to describe) are declared
 * incomplete, so no layout is guessed.  Functions newer than R450 (absent
 * from the 11.0 header) are marked.
 */
#ifndef GS_VGPU_ABI_H
#define GS_VGPU_ABI_H

#include "ext_abi.h"
#include "source/nvml_abi.h"

typedef unsigned int nvmlVgpuTypeId_t;
typedef unsigned int nvmlVgpuInstance_t;

/* nvmlHostVgpuMode_t, nvmlVgpuVmIdType_t, nvmlLedState_t's colour: plain enums. */
typedef unsigned int nvmlHostVgpuMode_t;
typedef unsigned int nvmlVgpuVmIdType_t;
typedef unsigned int nvmlDeviceVgpuCapability_t;
typedef unsigned int nvmlVgpuCapability_t;
typedef unsigned int nvmlVgpuDriverCapability_t;

/* The enum counts that bound the capability arguments. */
#define GS_VGPU_CAP_COUNT 5         /* NVML_VGPU_CAP_COUNT */
#define GS_VGPU_DRIVER_CAP_COUNT 2  /* NVML_VGPU_DRIVER_CAP_COUNT */
#define GS_DEVICE_VGPU_CAP_COUNT 12 /* NVML_DEVICE_VGPU_CAP_COUNT */

/* nvmlGridLicensableFeatures_t (860 bytes): the simulator writes only the
 * two leading words (licensing not supported, no features) and clears the
 * rest. */
#define GS_GRID_LICENSABLE_FEATURES_SIZE 860
typedef struct {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    unsigned char gridLicensableFeatures[GS_GRID_LICENSABLE_FEATURES_SIZE - 8];
} nvmlGridLicensableFeatures_t;

/* Versioned structs whose version word is checked. */
typedef struct {
    unsigned int version;
    unsigned int mode;
} nvmlVgpuHeterogeneousMode_t;
#define GS_VGPU_HETEROGENEOUS_MODE_V1 NVML_STRUCT_VERSION_OF(nvmlVgpuHeterogeneousMode_t, 1)

typedef struct {
    unsigned int version;
    unsigned int placementId;
} nvmlVgpuPlacementId_t;
#define GS_VGPU_PLACEMENT_ID_V1 NVML_STRUCT_VERSION_OF(nvmlVgpuPlacementId_t, 1)

typedef struct {
    unsigned int version;
    unsigned int placementSize;
    unsigned int count;
    unsigned int *placementIds;
} nvmlVgpuPlacementList_v1_t;
typedef struct {
    unsigned int version;
    unsigned int placementSize;
    unsigned int count;
    unsigned int *placementIds;
    unsigned int mode;
} nvmlVgpuPlacementList_t; /* _v2 */
#define GS_VGPU_PLACEMENT_LIST_V1 NVML_STRUCT_VERSION_OF(nvmlVgpuPlacementList_v1_t, 1)
#define GS_VGPU_PLACEMENT_LIST_V2 NVML_STRUCT_VERSION_OF(nvmlVgpuPlacementList_t, 2)

typedef struct {
    unsigned int version;
    unsigned long long bar1Size;
} nvmlVgpuTypeBar1Info_t;
#define GS_VGPU_TYPE_BAR1_INFO_V1 NVML_STRUCT_VERSION_OF(nvmlVgpuTypeBar1Info_t, 1)

typedef struct nvmlVgpuInstanceUtilizationInfo_v1_st nvmlVgpuInstanceUtilizationInfo_v1_t;
typedef struct {
    unsigned int version;
    nvmlValueType_t sampleValType;
    unsigned int vgpuInstanceCount;
    unsigned long long lastSeenTimeStamp;
    nvmlVgpuInstanceUtilizationInfo_v1_t *vgpuUtilArray;
} nvmlVgpuInstancesUtilizationInfo_t;
#define GS_VGPU_INSTANCES_UTIL_INFO_V1 NVML_STRUCT_VERSION_OF(nvmlVgpuInstancesUtilizationInfo_t, 1)

typedef struct nvmlVgpuProcessUtilizationInfo_v1_st nvmlVgpuProcessUtilizationInfo_v1_t;
typedef struct {
    unsigned int version;
    unsigned int vgpuProcessCount;
    unsigned long long lastSeenTimeStamp;
    nvmlVgpuProcessUtilizationInfo_v1_t *vgpuProcUtilArray;
} nvmlVgpuProcessesUtilizationInfo_t;
#define GS_VGPU_PROCESSES_UTIL_INFO_V1 NVML_STRUCT_VERSION_OF(nvmlVgpuProcessesUtilizationInfo_t, 1)

/* Never written by the simulator: incomplete on purpose. */
typedef struct nvmlVgpuInstanceUtilizationSample_st nvmlVgpuInstanceUtilizationSample_t;
typedef struct nvmlVgpuProcessUtilizationSample_st nvmlVgpuProcessUtilizationSample_t;
typedef struct nvmlVgpuMetadata_st nvmlVgpuMetadata_t;
typedef struct nvmlVgpuPgpuMetadata_st nvmlVgpuPgpuMetadata_t;
typedef struct nvmlVgpuPgpuCompatibility_st nvmlVgpuPgpuCompatibility_t;
typedef struct nvmlVgpuVersion_st nvmlVgpuVersion_t;
typedef struct nvmlVgpuSchedulerCapabilities_st nvmlVgpuSchedulerCapabilities_t;
typedef struct nvmlVgpuSchedulerLog_st nvmlVgpuSchedulerLog_t;
typedef struct nvmlVgpuSchedulerGetState_st nvmlVgpuSchedulerGetState_t;
typedef struct nvmlVgpuSchedulerSetState_st nvmlVgpuSchedulerSetState_t;
typedef struct nvmlVgpuLicenseInfo_st nvmlVgpuLicenseInfo_t;
typedef struct nvmlUnitFanSpeeds_st nvmlUnitFanSpeeds_t;
typedef struct nvmlPSUInfo_st nvmlPSUInfo_t;
typedef struct nvmlUnitInfo_st nvmlUnitInfo_t;
typedef struct nvmlLedState_st nvmlLedState_t;

/* ------------------------------------------------- R450-era (nvml.h 11.0) */
nvmlReturn_t nvmlDeviceGetActiveVgpus(nvmlDevice_t device, unsigned int *vgpuCount,
                                      nvmlVgpuInstance_t *vgpuInstances);
nvmlReturn_t nvmlDeviceGetCreatableVgpus(nvmlDevice_t device, unsigned int *vgpuCount,
                                         nvmlVgpuTypeId_t *vgpuTypeIds);
nvmlReturn_t nvmlDeviceGetSupportedVgpus(nvmlDevice_t device, unsigned int *vgpuCount,
                                         nvmlVgpuTypeId_t *vgpuTypeIds);
nvmlReturn_t nvmlDeviceGetHostVgpuMode(nvmlDevice_t device, nvmlHostVgpuMode_t *pHostVgpuMode);
nvmlReturn_t nvmlDeviceGetPgpuMetadataString(nvmlDevice_t device, char *pgpuMetadata,
                                             unsigned int *bufferSize);
nvmlReturn_t nvmlDeviceGetVgpuMetadata(nvmlDevice_t device, nvmlVgpuPgpuMetadata_t *pgpuMetadata,
                                       unsigned int *bufferSize);
nvmlReturn_t nvmlDeviceGetVgpuUtilization(nvmlDevice_t device, unsigned long long lastSeenTimeStamp,
                                          nvmlValueType_t *sampleValType,
                                          unsigned int *vgpuInstanceSamplesCount,
                                          nvmlVgpuInstanceUtilizationSample_t *utilizationSamples);
nvmlReturn_t
nvmlDeviceGetVgpuProcessUtilization(nvmlDevice_t device, unsigned long long lastSeenTimeStamp,
                                    unsigned int *vgpuProcessSamplesCount,
                                    nvmlVgpuProcessUtilizationSample_t *utilizationSamples);
nvmlReturn_t nvmlGetVgpuCompatibility(nvmlVgpuMetadata_t *vgpuMetadata,
                                      nvmlVgpuPgpuMetadata_t *pgpuMetadata,
                                      nvmlVgpuPgpuCompatibility_t *compatibilityInfo);
nvmlReturn_t nvmlGetVgpuVersion(nvmlVgpuVersion_t *supported, nvmlVgpuVersion_t *current);
nvmlReturn_t nvmlSetVgpuVersion(nvmlVgpuVersion_t *vgpuVersion);

nvmlReturn_t nvmlUnitGetDevices(nvmlUnit_t unit, unsigned int *deviceCount, nvmlDevice_t *devices);
nvmlReturn_t nvmlUnitGetFanSpeedInfo(nvmlUnit_t unit, nvmlUnitFanSpeeds_t *fanSpeeds);
nvmlReturn_t nvmlUnitGetLedState(nvmlUnit_t unit, nvmlLedState_t *state);
nvmlReturn_t nvmlUnitGetPsuInfo(nvmlUnit_t unit, nvmlPSUInfo_t *psu);
nvmlReturn_t nvmlUnitGetTemperature(nvmlUnit_t unit, unsigned int type, unsigned int *temp);
nvmlReturn_t nvmlUnitGetUnitInfo(nvmlUnit_t unit, nvmlUnitInfo_t *info);

nvmlReturn_t nvmlVgpuInstanceClearAccountingPids(nvmlVgpuInstance_t vgpuInstance);
nvmlReturn_t nvmlVgpuInstanceGetAccountingMode(nvmlVgpuInstance_t vgpuInstance,
                                               nvmlEnableState_t *mode);
nvmlReturn_t nvmlVgpuInstanceGetAccountingPids(nvmlVgpuInstance_t vgpuInstance, unsigned int *count,
                                               unsigned int *pids);
nvmlReturn_t nvmlVgpuInstanceGetAccountingStats(nvmlVgpuInstance_t vgpuInstance, unsigned int pid,
                                                nvmlAccountingStats_t *stats);
nvmlReturn_t nvmlVgpuInstanceGetEccMode(nvmlVgpuInstance_t vgpuInstance,
                                        nvmlEnableState_t *eccMode);
nvmlReturn_t nvmlVgpuInstanceGetEncoderCapacity(nvmlVgpuInstance_t vgpuInstance,
                                                unsigned int *encoderCapacity);
nvmlReturn_t nvmlVgpuInstanceGetEncoderSessions(nvmlVgpuInstance_t vgpuInstance,
                                                unsigned int *sessionCount,
                                                nvmlEncoderSessionInfo_t *sessionInfo);
nvmlReturn_t nvmlVgpuInstanceGetEncoderStats(nvmlVgpuInstance_t vgpuInstance,
                                             unsigned int *sessionCount, unsigned int *averageFps,
                                             unsigned int *averageLatency);
nvmlReturn_t nvmlVgpuInstanceGetFBCSessions(nvmlVgpuInstance_t vgpuInstance,
                                            unsigned int *sessionCount,
                                            nvmlFBCSessionInfo_t *sessionInfo);
nvmlReturn_t nvmlVgpuInstanceGetFBCStats(nvmlVgpuInstance_t vgpuInstance, nvmlFBCStats_t *fbcStats);
nvmlReturn_t nvmlVgpuInstanceGetFbUsage(nvmlVgpuInstance_t vgpuInstance,
                                        unsigned long long *fbUsage);
nvmlReturn_t nvmlVgpuInstanceGetFrameRateLimit(nvmlVgpuInstance_t vgpuInstance,
                                               unsigned int *frameRateLimit);
nvmlReturn_t nvmlVgpuInstanceGetLicenseStatus(nvmlVgpuInstance_t vgpuInstance,
                                              unsigned int *licensed);
nvmlReturn_t nvmlVgpuInstanceGetMdevUUID(nvmlVgpuInstance_t vgpuInstance, char *mdevUuid,
                                         unsigned int size);
nvmlReturn_t nvmlVgpuInstanceGetMetadata(nvmlVgpuInstance_t vgpuInstance,
                                         nvmlVgpuMetadata_t *vgpuMetadata,
                                         unsigned int *bufferSize);
nvmlReturn_t nvmlVgpuInstanceGetType(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuTypeId_t *vgpuTypeId);
nvmlReturn_t nvmlVgpuInstanceGetUUID(nvmlVgpuInstance_t vgpuInstance, char *uuid,
                                     unsigned int size);
nvmlReturn_t nvmlVgpuInstanceGetVmDriverVersion(nvmlVgpuInstance_t vgpuInstance, char *version,
                                                unsigned int length);
nvmlReturn_t nvmlVgpuInstanceGetVmID(nvmlVgpuInstance_t vgpuInstance, char *vmId, unsigned int size,
                                     nvmlVgpuVmIdType_t *vmIdType);
nvmlReturn_t nvmlVgpuInstanceSetEncoderCapacity(nvmlVgpuInstance_t vgpuInstance,
                                                unsigned int encoderCapacity);

nvmlReturn_t nvmlVgpuTypeGetClass(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeClass,
                                  unsigned int *size);
nvmlReturn_t nvmlVgpuTypeGetDeviceID(nvmlVgpuTypeId_t vgpuTypeId, unsigned long long *deviceID,
                                     unsigned long long *subsystemID);
nvmlReturn_t nvmlVgpuTypeGetFrameRateLimit(nvmlVgpuTypeId_t vgpuTypeId,
                                           unsigned int *frameRateLimit);
nvmlReturn_t nvmlVgpuTypeGetFramebufferSize(nvmlVgpuTypeId_t vgpuTypeId,
                                            unsigned long long *fbSize);
nvmlReturn_t nvmlVgpuTypeGetLicense(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeLicenseString,
                                    unsigned int size);
nvmlReturn_t nvmlVgpuTypeGetMaxInstances(nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId,
                                         unsigned int *vgpuInstanceCount);
nvmlReturn_t nvmlVgpuTypeGetMaxInstancesPerVm(nvmlVgpuTypeId_t vgpuTypeId,
                                              unsigned int *vgpuInstanceCountPerVm);
nvmlReturn_t nvmlVgpuTypeGetName(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeName,
                                 unsigned int *size);
nvmlReturn_t nvmlVgpuTypeGetNumDisplayHeads(nvmlVgpuTypeId_t vgpuTypeId,
                                            unsigned int *numDisplayHeads);
nvmlReturn_t nvmlVgpuTypeGetResolution(nvmlVgpuTypeId_t vgpuTypeId, unsigned int displayIndex,
                                       unsigned int *xdim, unsigned int *ydim);

/* ------------------------------------------------------ newer than R450 */
nvmlReturn_t
nvmlDeviceGetGridLicensableFeatures_v4(nvmlDevice_t device,
                                       nvmlGridLicensableFeatures_t *pGridLicensableFeatures);
nvmlReturn_t nvmlDeviceGetVgpuCapabilities(nvmlDevice_t device,
                                           nvmlDeviceVgpuCapability_t capability,
                                           unsigned int *capResult);
nvmlReturn_t nvmlDeviceSetVgpuCapabilities(nvmlDevice_t device,
                                           nvmlDeviceVgpuCapability_t capability,
                                           nvmlEnableState_t state);
nvmlReturn_t nvmlDeviceGetVgpuHeterogeneousMode(nvmlDevice_t device,
                                                nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode);
nvmlReturn_t
nvmlDeviceSetVgpuHeterogeneousMode(nvmlDevice_t device,
                                   const nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode);
nvmlReturn_t
nvmlDeviceGetVgpuInstancesUtilizationInfo(nvmlDevice_t device,
                                          nvmlVgpuInstancesUtilizationInfo_t *vgpuUtilInfo);
nvmlReturn_t
nvmlDeviceGetVgpuProcessesUtilizationInfo(nvmlDevice_t device,
                                          nvmlVgpuProcessesUtilizationInfo_t *vgpuProcUtilInfo);
nvmlReturn_t nvmlDeviceGetVgpuSchedulerCapabilities(nvmlDevice_t device,
                                                    nvmlVgpuSchedulerCapabilities_t *pCapabilities);
nvmlReturn_t nvmlDeviceGetVgpuSchedulerLog(nvmlDevice_t device,
                                           nvmlVgpuSchedulerLog_t *pSchedulerLog);
nvmlReturn_t nvmlDeviceGetVgpuSchedulerState(nvmlDevice_t device,
                                             nvmlVgpuSchedulerGetState_t *pSchedulerState);
nvmlReturn_t nvmlDeviceSetVgpuSchedulerState(nvmlDevice_t device,
                                             nvmlVgpuSchedulerSetState_t *pSchedulerState);
nvmlReturn_t nvmlDeviceGetVgpuTypeCreatablePlacements(nvmlDevice_t device,
                                                      nvmlVgpuTypeId_t vgpuTypeId,
                                                      nvmlVgpuPlacementList_t *pPlacementList);
nvmlReturn_t nvmlDeviceGetVgpuTypeSupportedPlacements(nvmlDevice_t device,
                                                      nvmlVgpuTypeId_t vgpuTypeId,
                                                      nvmlVgpuPlacementList_t *pPlacementList);
nvmlReturn_t nvmlGetVgpuDriverCapabilities(nvmlVgpuDriverCapability_t capability,
                                           unsigned int *capResult);
nvmlReturn_t nvmlVgpuInstanceGetGpuInstanceId(nvmlVgpuInstance_t vgpuInstance,
                                              unsigned int *gpuInstanceId);
nvmlReturn_t nvmlVgpuInstanceGetGpuPciId(nvmlVgpuInstance_t vgpuInstance, char *vgpuPciId,
                                         unsigned int *length);
nvmlReturn_t nvmlVgpuInstanceGetLicenseInfo_v2(nvmlVgpuInstance_t vgpuInstance,
                                               nvmlVgpuLicenseInfo_t *licenseInfo);
nvmlReturn_t nvmlVgpuInstanceGetPlacementId(nvmlVgpuInstance_t vgpuInstance,
                                            nvmlVgpuPlacementId_t *pPlacement);
nvmlReturn_t nvmlVgpuTypeGetBAR1Info(nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuTypeBar1Info_t *bar1Info);
nvmlReturn_t nvmlVgpuTypeGetCapabilities(nvmlVgpuTypeId_t vgpuTypeId,
                                         nvmlVgpuCapability_t capability, unsigned int *capResult);
nvmlReturn_t nvmlVgpuTypeGetFbReservation(nvmlVgpuTypeId_t vgpuTypeId,
                                          unsigned long long *fbReservation);
nvmlReturn_t nvmlVgpuTypeGetGpuInstanceProfileId(nvmlVgpuTypeId_t vgpuTypeId,
                                                 unsigned int *gpuInstanceProfileId);
nvmlReturn_t nvmlVgpuTypeGetGspHeapSize(nvmlVgpuTypeId_t vgpuTypeId,
                                        unsigned long long *gspHeapSize);

#endif /* GS_VGPU_ABI_H */

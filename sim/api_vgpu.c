/* api_vgpu.c -- the vGPU and S-class unit queries, with the answers of a
 * bare-metal host: the driver is the ordinary (non-vGPU) one, no vGPU
 * manager runs (nvmlDeviceGetVirtualizationMode answers NONE), so there is
 * no vGPU type, no vGPU instance and no vGPU scheduler; and the host has no
 * S-class unit (nvmlUnitGetCount is 0).
 *
 * The answers follow nvml.h's documented return codes:
 *
 *   - the lists (active, supported and creatable vGPUs, vGPU and vGPU
 *     process utilisation) are empty: SUCCESS with a count of 0, which
 *     nvml.h documents for "no vGPU types supported" / "instance count is
 *     zero";
 *   - what only a vGPU manager has (host vGPU mode, heterogeneous mode,
 *     capabilities, scheduler, metadata, version ranges, compatibility)
 *     answers NOT_SUPPORTED ("vGPU is not supported by the device/system");
 *     nvidia-smi -q on bare metal prints "Host VGPU Mode: N/A";
 *   - vGPU licensing: SUCCESS with isGridLicenseSupported 0 and no feature
 *     (nvml.h's "identifies whether the system supports vGPU licensing");
 *   - a vGPU instance id: 0 is INVALID_ARGUMENT, any other NOT_FOUND ("does
 *     not match a valid active vGPU instance");
 *   - a vGPU type id: INVALID_ARGUMENT ("vgpuTypeId is invalid"), every id
 *     being invalid where no type exists;
 *   - a unit handle: INVALID_ARGUMENT ("unit is invalid"); no call returns
 *     one.  The handle is never dereferenced.
 *
 * Arguments are checked first (NULL outputs, enum ranges, version words), so
 * a caller's mistake is reported as on a real driver.  Setters of vGPU
 * state answer like the getters (NOT_SUPPORTED / NOT_FOUND): there is no
 * state to set.  docs/simulator.md lists each answer.  Functions newer than
 * R450 (absent from nvml.h 11.0) are left out of the legacy build.
 */
#include <string.h>

#include "api.h"
#include "vgpu_abi.h"

_Static_assert(sizeof(nvmlGridLicensableFeatures_t) == 860, "nvmlGridLicensableFeatures_t");
_Static_assert(sizeof(nvmlVgpuPlacementList_t) == 32, "nvmlVgpuPlacementList_v2_t");
_Static_assert(sizeof(nvmlVgpuPlacementList_v1_t) == 24, "nvmlVgpuPlacementList_v1_t");
_Static_assert(sizeof(nvmlVgpuTypeBar1Info_t) == 16, "nvmlVgpuTypeBar1Info_v1_t");
_Static_assert(sizeof(nvmlVgpuInstancesUtilizationInfo_t) == 32,
               "nvmlVgpuInstancesUtilizationInfo_v1_t");
_Static_assert(sizeof(nvmlVgpuProcessesUtilizationInfo_t) == 24,
               "nvmlVgpuProcessesUtilizationInfo_v1_t");

#define GS_UNIT_TEMPERATURE_BOARD 2 /* NVML_TEMPERATURE_BOARD, the last unit sensor */

/* ------------------------------------------------------------- helpers */

/* A physical GPU's answer when only a vGPU manager would know. */
static nvmlReturn_t no_vgpu_manager(const char *fn, nvmlDevice_t device, int args_ok)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* The same for a system-wide query. */
static nvmlReturn_t no_vgpu_manager_system(const char *fn, int args_ok)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* An empty list on a physical GPU: *count = 0. */
static nvmlReturn_t empty_list(const char *fn, nvmlDevice_t device, unsigned int *count)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *count = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* A vGPU instance id: 0 is never one (INVALID_ARGUMENT), and no other id
 * matches an active instance (NOT_FOUND). */
static nvmlReturn_t no_instance(const char *fn, nvmlVgpuInstance_t instance, int args_ok)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, args_ok && instance != 0);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

/* A vGPU type id: none exists, so every id is invalid. */
static nvmlReturn_t no_type(const char *fn, nvmlVgpuTypeId_t type, int args_ok)
{
    struct gs_call c;
    (void)type;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

/* A unit handle: no call returns one, so every handle is invalid. */
static nvmlReturn_t no_unit(const char *fn, nvmlUnit_t unit, int args_ok)
{
    struct gs_call c;
    (void)unit;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

/* nvml.h's rule for the metadata calls: bufferSize is required, and the
 * buffer too unless *bufferSize is 0 (the sizing call). */
static int metadata_args_ok(const void *buffer, const unsigned int *bufferSize)
{
    return bufferSize != NULL && (buffer != NULL || *bufferSize == 0);
}

/* ---------------------------------------------------- physical GPU (R450) */

GS_EXPORT nvmlReturn_t nvmlDeviceGetActiveVgpus(nvmlDevice_t device, unsigned int *vgpuCount,
                                                nvmlVgpuInstance_t *vgpuInstances)
{
    (void)vgpuInstances;
    return empty_list(__func__, device, vgpuCount);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCreatableVgpus(nvmlDevice_t device, unsigned int *vgpuCount,
                                                   nvmlVgpuTypeId_t *vgpuTypeIds)
{
    (void)vgpuTypeIds;
    return empty_list(__func__, device, vgpuCount);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSupportedVgpus(nvmlDevice_t device, unsigned int *vgpuCount,
                                                   nvmlVgpuTypeId_t *vgpuTypeIds)
{
    (void)vgpuTypeIds;
    return empty_list(__func__, device, vgpuCount);
}

/* SR-IOV or not is a property of vGPU host mode, which needs the manager. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetHostVgpuMode(nvmlDevice_t device,
                                                 nvmlHostVgpuMode_t *pHostVgpuMode)
{
    return no_vgpu_manager(__func__, device, pHostVgpuMode != NULL);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPgpuMetadataString(nvmlDevice_t device, char *pgpuMetadata,
                                                       unsigned int *bufferSize)
{
    return no_vgpu_manager(__func__, device, metadata_args_ok(pgpuMetadata, bufferSize));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuMetadata(nvmlDevice_t device,
                                                 nvmlVgpuPgpuMetadata_t *pgpuMetadata,
                                                 unsigned int *bufferSize)
{
    return no_vgpu_manager(__func__, device, metadata_args_ok(pgpuMetadata, bufferSize));
}

/* No vGPU instance, so no sample: 0 samples of the documented type. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuUtilization(
    nvmlDevice_t device, unsigned long long lastSeenTimeStamp, nvmlValueType_t *sampleValType,
    unsigned int *vgpuInstanceSamplesCount, nvmlVgpuInstanceUtilizationSample_t *utilizationSamples)
{
    struct gs_call c;
    (void)lastSeenTimeStamp;
    (void)utilizationSamples;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              sampleValType != NULL && vgpuInstanceSamplesCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    *vgpuInstanceSamplesCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuProcessUtilization(
    nvmlDevice_t device, unsigned long long lastSeenTimeStamp,
    unsigned int *vgpuProcessSamplesCount, nvmlVgpuProcessUtilizationSample_t *utilizationSamples)
{
    (void)lastSeenTimeStamp;
    (void)utilizationSamples;
    return empty_list(__func__, device, vgpuProcessSamplesCount);
}

/* -------------------------------------------------------- system (R450) */

/* nvml.h lists no NOT_SUPPORTED here; with no vGPU manager to compare
 * against, the "feature not available" code is the honest answer. */
GS_EXPORT nvmlReturn_t nvmlGetVgpuCompatibility(nvmlVgpuMetadata_t *vgpuMetadata,
                                                nvmlVgpuPgpuMetadata_t *pgpuMetadata,
                                                nvmlVgpuPgpuCompatibility_t *compatibilityInfo)
{
    return no_vgpu_manager_system(__func__, vgpuMetadata != NULL && pgpuMetadata != NULL &&
                                                compatibilityInfo != NULL);
}

GS_EXPORT nvmlReturn_t nvmlGetVgpuVersion(nvmlVgpuVersion_t *supported, nvmlVgpuVersion_t *current)
{
    return no_vgpu_manager_system(__func__, supported != NULL && current != NULL);
}

GS_EXPORT nvmlReturn_t nvmlSetVgpuVersion(nvmlVgpuVersion_t *vgpuVersion)
{
    return no_vgpu_manager_system(__func__, vgpuVersion != NULL);
}

/* ---------------------------------------------------------- units (R450) */

GS_EXPORT nvmlReturn_t nvmlUnitGetDevices(nvmlUnit_t unit, unsigned int *deviceCount,
                                          nvmlDevice_t *devices)
{
    (void)devices;
    return no_unit(__func__, unit, deviceCount != NULL);
}

GS_EXPORT nvmlReturn_t nvmlUnitGetFanSpeedInfo(nvmlUnit_t unit, nvmlUnitFanSpeeds_t *fanSpeeds)
{
    return no_unit(__func__, unit, fanSpeeds != NULL);
}

GS_EXPORT nvmlReturn_t nvmlUnitGetLedState(nvmlUnit_t unit, nvmlLedState_t *state)
{
    return no_unit(__func__, unit, state != NULL);
}

GS_EXPORT nvmlReturn_t nvmlUnitGetPsuInfo(nvmlUnit_t unit, nvmlPSUInfo_t *psu)
{
    return no_unit(__func__, unit, psu != NULL);
}

/* type: 0 intake, 1 exhaust, 2 board (nvml.h's unit sensors). */
GS_EXPORT nvmlReturn_t nvmlUnitGetTemperature(nvmlUnit_t unit, unsigned int type,
                                              unsigned int *temp)
{
    return no_unit(__func__, unit, temp != NULL && type <= GS_UNIT_TEMPERATURE_BOARD);
}

GS_EXPORT nvmlReturn_t nvmlUnitGetUnitInfo(nvmlUnit_t unit, nvmlUnitInfo_t *info)
{
    return no_unit(__func__, unit, info != NULL);
}

/* ------------------------------------------------ vGPU instances (R450) */

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceClearAccountingPids(nvmlVgpuInstance_t vgpuInstance)
{
    return no_instance(__func__, vgpuInstance, 1);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetAccountingMode(nvmlVgpuInstance_t vgpuInstance,
                                                         nvmlEnableState_t *mode)
{
    return no_instance(__func__, vgpuInstance, mode != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetAccountingPids(nvmlVgpuInstance_t vgpuInstance,
                                                         unsigned int *count, unsigned int *pids)
{
    (void)pids;
    return no_instance(__func__, vgpuInstance, count != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetAccountingStats(nvmlVgpuInstance_t vgpuInstance,
                                                          unsigned int pid,
                                                          nvmlAccountingStats_t *stats)
{
    (void)pid;
    return no_instance(__func__, vgpuInstance, stats != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetEccMode(nvmlVgpuInstance_t vgpuInstance,
                                                  nvmlEnableState_t *eccMode)
{
    return no_instance(__func__, vgpuInstance, eccMode != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetEncoderCapacity(nvmlVgpuInstance_t vgpuInstance,
                                                          unsigned int *encoderCapacity)
{
    return no_instance(__func__, vgpuInstance, encoderCapacity != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetEncoderSessions(nvmlVgpuInstance_t vgpuInstance,
                                                          unsigned int *sessionCount,
                                                          nvmlEncoderSessionInfo_t *sessionInfo)
{
    (void)sessionInfo;
    return no_instance(__func__, vgpuInstance, sessionCount != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetEncoderStats(nvmlVgpuInstance_t vgpuInstance,
                                                       unsigned int *sessionCount,
                                                       unsigned int *averageFps,
                                                       unsigned int *averageLatency)
{
    return no_instance(__func__, vgpuInstance,
                       sessionCount != NULL && averageFps != NULL && averageLatency != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetFBCSessions(nvmlVgpuInstance_t vgpuInstance,
                                                      unsigned int *sessionCount,
                                                      nvmlFBCSessionInfo_t *sessionInfo)
{
    (void)sessionInfo;
    return no_instance(__func__, vgpuInstance, sessionCount != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetFBCStats(nvmlVgpuInstance_t vgpuInstance,
                                                   nvmlFBCStats_t *fbcStats)
{
    return no_instance(__func__, vgpuInstance, fbcStats != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetFbUsage(nvmlVgpuInstance_t vgpuInstance,
                                                  unsigned long long *fbUsage)
{
    return no_instance(__func__, vgpuInstance, fbUsage != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetFrameRateLimit(nvmlVgpuInstance_t vgpuInstance,
                                                         unsigned int *frameRateLimit)
{
    return no_instance(__func__, vgpuInstance, frameRateLimit != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetLicenseStatus(nvmlVgpuInstance_t vgpuInstance,
                                                        unsigned int *licensed)
{
    return no_instance(__func__, vgpuInstance, licensed != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetMdevUUID(nvmlVgpuInstance_t vgpuInstance, char *mdevUuid,
                                                   unsigned int size)
{
    (void)size;
    return no_instance(__func__, vgpuInstance, mdevUuid != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetMetadata(nvmlVgpuInstance_t vgpuInstance,
                                                   nvmlVgpuMetadata_t *vgpuMetadata,
                                                   unsigned int *bufferSize)
{
    return no_instance(__func__, vgpuInstance, metadata_args_ok(vgpuMetadata, bufferSize));
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetType(nvmlVgpuInstance_t vgpuInstance,
                                               nvmlVgpuTypeId_t *vgpuTypeId)
{
    return no_instance(__func__, vgpuInstance, vgpuTypeId != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetUUID(nvmlVgpuInstance_t vgpuInstance, char *uuid,
                                               unsigned int size)
{
    (void)size;
    return no_instance(__func__, vgpuInstance, uuid != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetVmDriverVersion(nvmlVgpuInstance_t vgpuInstance,
                                                          char *version, unsigned int length)
{
    (void)length;
    return no_instance(__func__, vgpuInstance, version != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetVmID(nvmlVgpuInstance_t vgpuInstance, char *vmId,
                                               unsigned int size, nvmlVgpuVmIdType_t *vmIdType)
{
    (void)size;
    return no_instance(__func__, vgpuInstance, vmId != NULL && vmIdType != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceSetEncoderCapacity(nvmlVgpuInstance_t vgpuInstance,
                                                          unsigned int encoderCapacity)
{
    (void)encoderCapacity;
    return no_instance(__func__, vgpuInstance, 1);
}

/* ---------------------------------------------------- vGPU types (R450) */

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetClass(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeClass,
                                            unsigned int *size)
{
    return no_type(__func__, vgpuTypeId, vgpuTypeClass != NULL && size != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetDeviceID(nvmlVgpuTypeId_t vgpuTypeId,
                                               unsigned long long *deviceID,
                                               unsigned long long *subsystemID)
{
    return no_type(__func__, vgpuTypeId, deviceID != NULL && subsystemID != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetFrameRateLimit(nvmlVgpuTypeId_t vgpuTypeId,
                                                     unsigned int *frameRateLimit)
{
    return no_type(__func__, vgpuTypeId, frameRateLimit != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetFramebufferSize(nvmlVgpuTypeId_t vgpuTypeId,
                                                      unsigned long long *fbSize)
{
    return no_type(__func__, vgpuTypeId, fbSize != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetLicense(nvmlVgpuTypeId_t vgpuTypeId,
                                              char *vgpuTypeLicenseString, unsigned int size)
{
    (void)size;
    return no_type(__func__, vgpuTypeId, vgpuTypeLicenseString != NULL);
}

/* The device is checked (a MIG handle or a lost GPU answers as elsewhere)
 * before the type. */
GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetMaxInstances(nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId,
                                                   unsigned int *vgpuInstanceCount)
{
    struct gs_call c;
    (void)vgpuTypeId;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, vgpuInstanceCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetMaxInstancesPerVm(nvmlVgpuTypeId_t vgpuTypeId,
                                                        unsigned int *vgpuInstanceCountPerVm)
{
    return no_type(__func__, vgpuTypeId, vgpuInstanceCountPerVm != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetName(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeName,
                                           unsigned int *size)
{
    return no_type(__func__, vgpuTypeId, vgpuTypeName != NULL && size != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetNumDisplayHeads(nvmlVgpuTypeId_t vgpuTypeId,
                                                      unsigned int *numDisplayHeads)
{
    return no_type(__func__, vgpuTypeId, numDisplayHeads != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetResolution(nvmlVgpuTypeId_t vgpuTypeId,
                                                 unsigned int displayIndex, unsigned int *xdim,
                                                 unsigned int *ydim)
{
    (void)displayIndex;
    return no_type(__func__, vgpuTypeId, xdim != NULL && ydim != NULL);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* ------------------------------------------------- newer than R450 */

/* Licensing is a vGPU (guest) feature: not supported, no feature listed. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v4(
    nvmlDevice_t device, nvmlGridLicensableFeatures_t *pGridLicensableFeatures)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pGridLicensableFeatures != NULL);
    if (r != NVML_SUCCESS)
        return r;
    memset(pGridLicensableFeatures, 0, sizeof(*pGridLicensableFeatures));
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuCapabilities(nvmlDevice_t device,
                                                     nvmlDeviceVgpuCapability_t capability,
                                                     unsigned int *capResult)
{
    return no_vgpu_manager(__func__, device,
                           capResult != NULL && capability < GS_DEVICE_VGPU_CAP_COUNT);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetVgpuCapabilities(nvmlDevice_t device,
                                                     nvmlDeviceVgpuCapability_t capability,
                                                     nvmlEnableState_t state)
{
    return no_vgpu_manager(__func__, device,
                           capability < GS_DEVICE_VGPU_CAP_COUNT &&
                               (state == NVML_FEATURE_DISABLED || state == NVML_FEATURE_ENABLED));
}

/* The version word is checked before the answer, as for every versioned
 * struct. */
static nvmlReturn_t heterogeneous_mode(const char *fn, nvmlDevice_t device,
                                       const nvmlVgpuHeterogeneousMode_t *mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, mode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (mode->version != GS_VGPU_HETEROGENEOUS_MODE_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuHeterogeneousMode(
    nvmlDevice_t device, nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode)
{
    return heterogeneous_mode(__func__, device, pHeterogeneousMode);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetVgpuHeterogeneousMode(
    nvmlDevice_t device, const nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode)
{
    return heterogeneous_mode(__func__, device, pHeterogeneousMode);
}

/* No vGPU instance: 0 entries (the version word checked first). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuInstancesUtilizationInfo(
    nvmlDevice_t device, nvmlVgpuInstancesUtilizationInfo_t *vgpuUtilInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, vgpuUtilInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (vgpuUtilInfo->version != GS_VGPU_INSTANCES_UTIL_INFO_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    vgpuUtilInfo->sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    vgpuUtilInfo->vgpuInstanceCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuProcessesUtilizationInfo(
    nvmlDevice_t device, nvmlVgpuProcessesUtilizationInfo_t *vgpuProcUtilInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, vgpuProcUtilInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (vgpuProcUtilInfo->version != GS_VGPU_PROCESSES_UTIL_INFO_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    vgpuProcUtilInfo->vgpuProcessCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* The vGPU scheduler runs only in vGPU host mode. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuSchedulerCapabilities(
    nvmlDevice_t device, nvmlVgpuSchedulerCapabilities_t *pCapabilities)
{
    return no_vgpu_manager(__func__, device, pCapabilities != NULL);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuSchedulerLog(nvmlDevice_t device,
                                                     nvmlVgpuSchedulerLog_t *pSchedulerLog)
{
    return no_vgpu_manager(__func__, device, pSchedulerLog != NULL);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuSchedulerState(nvmlDevice_t device,
                                                       nvmlVgpuSchedulerGetState_t *pSchedulerState)
{
    return no_vgpu_manager(__func__, device, pSchedulerState != NULL);
}

GS_EXPORT nvmlReturn_t nvmlDeviceSetVgpuSchedulerState(nvmlDevice_t device,
                                                       nvmlVgpuSchedulerSetState_t *pSchedulerState)
{
    return no_vgpu_manager(__func__, device, pSchedulerState != NULL);
}

/* Placements of a vGPU type: the list's version word (v1 or v2) is checked,
 * then the type, which cannot exist. */
static nvmlReturn_t placements(const char *fn, nvmlDevice_t device, nvmlVgpuTypeId_t type,
                               const nvmlVgpuPlacementList_t *list)
{
    struct gs_call c;
    (void)type;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, list != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (list->version != GS_VGPU_PLACEMENT_LIST_V1 && list->version != GS_VGPU_PLACEMENT_LIST_V2)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuTypeCreatablePlacements(
    nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuPlacementList_t *pPlacementList)
{
    return placements(__func__, device, vgpuTypeId, pPlacementList);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVgpuTypeSupportedPlacements(
    nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuPlacementList_t *pPlacementList)
{
    return placements(__func__, device, vgpuTypeId, pPlacementList);
}

GS_EXPORT nvmlReturn_t nvmlGetVgpuDriverCapabilities(nvmlVgpuDriverCapability_t capability,
                                                     unsigned int *capResult)
{
    return no_vgpu_manager_system(__func__,
                                  capResult != NULL && capability < GS_VGPU_DRIVER_CAP_COUNT);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetGpuInstanceId(nvmlVgpuInstance_t vgpuInstance,
                                                        unsigned int *gpuInstanceId)
{
    return no_instance(__func__, vgpuInstance, gpuInstanceId != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetGpuPciId(nvmlVgpuInstance_t vgpuInstance, char *vgpuPciId,
                                                   unsigned int *length)
{
    return no_instance(__func__, vgpuInstance, metadata_args_ok(vgpuPciId, length));
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetLicenseInfo_v2(nvmlVgpuInstance_t vgpuInstance,
                                                         nvmlVgpuLicenseInfo_t *licenseInfo)
{
    return no_instance(__func__, vgpuInstance, licenseInfo != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuInstanceGetPlacementId(nvmlVgpuInstance_t vgpuInstance,
                                                      nvmlVgpuPlacementId_t *pPlacement)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_NONE, NULL, 0, pPlacement != NULL && vgpuInstance != 0);
    if (r != NVML_SUCCESS)
        return r;
    if (pPlacement->version != GS_VGPU_PLACEMENT_ID_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetBAR1Info(nvmlVgpuTypeId_t vgpuTypeId,
                                               nvmlVgpuTypeBar1Info_t *bar1Info)
{
    return no_type(__func__, vgpuTypeId, bar1Info != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetCapabilities(nvmlVgpuTypeId_t vgpuTypeId,
                                                   nvmlVgpuCapability_t capability,
                                                   unsigned int *capResult)
{
    return no_type(__func__, vgpuTypeId, capResult != NULL && capability < GS_VGPU_CAP_COUNT);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetFbReservation(nvmlVgpuTypeId_t vgpuTypeId,
                                                    unsigned long long *fbReservation)
{
    return no_type(__func__, vgpuTypeId, fbReservation != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetGpuInstanceProfileId(nvmlVgpuTypeId_t vgpuTypeId,
                                                           unsigned int *gpuInstanceProfileId)
{
    return no_type(__func__, vgpuTypeId, gpuInstanceProfileId != NULL);
}

GS_EXPORT nvmlReturn_t nvmlVgpuTypeGetGspHeapSize(nvmlVgpuTypeId_t vgpuTypeId,
                                                  unsigned long long *gspHeapSize)
{
    return no_type(__func__, vgpuTypeId, gspHeapSize != NULL);
}
#endif

/* test_sim_vgpu.c -- the simulator's vGPU and S-class unit queries
 * (sim/api_vgpu.c) as a client sees them (dlopen of the built
 * libnvidia-ml.so.1): layouts and version words against nvml.h, the
 * bare-metal answers (empty vGPU lists, NOT_SUPPORTED for the vGPU
 * manager's state, NOT_FOUND / INVALID_ARGUMENT for vGPU instance and type
 * ids, INVALID_ARGUMENT for every unit handle), argument validation (NULL,
 * out-of-range enums, the metadata sizing rule, wrong struct versions, MIG
 * and forged handles), GPUSIM_FAIL, UNINITIALIZED, and which of them the
 * R450-era legacy build exports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpusim.h"
#include "vgpu_abi.h"

#if !defined(SIM_LIB_PATH) || !defined(SIM_LEGACY_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH, SIM_LEGACY_LIB_PATH and SCENARIO_DIR"
#endif

nvmlReturn_t nvmlUnitGetCount(unsigned int *unitCount);

#define GS_FUNCS(X)                                                                                \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlUnitGetCount)                                                                            \
    X(nvmlUnitGetHandleByIndex)                                                                    \
    X(nvmlDeviceGetActiveVgpus)                                                                    \
    X(nvmlDeviceGetCreatableVgpus)                                                                 \
    X(nvmlDeviceGetSupportedVgpus)                                                                 \
    X(nvmlDeviceGetHostVgpuMode)                                                                   \
    X(nvmlDeviceGetPgpuMetadataString)                                                             \
    X(nvmlDeviceGetVgpuMetadata)                                                                   \
    X(nvmlDeviceGetVgpuUtilization)                                                                \
    X(nvmlDeviceGetVgpuProcessUtilization)                                                         \
    X(nvmlGetVgpuCompatibility)                                                                    \
    X(nvmlGetVgpuVersion)                                                                          \
    X(nvmlSetVgpuVersion)                                                                          \
    X(nvmlUnitGetDevices)                                                                          \
    X(nvmlUnitGetFanSpeedInfo)                                                                     \
    X(nvmlUnitGetLedState)                                                                         \
    X(nvmlUnitGetPsuInfo)                                                                          \
    X(nvmlUnitGetTemperature)                                                                      \
    X(nvmlUnitGetUnitInfo)                                                                         \
    X(nvmlVgpuInstanceClearAccountingPids)                                                         \
    X(nvmlVgpuInstanceGetAccountingPids)                                                           \
    X(nvmlVgpuInstanceGetEncoderStats)                                                             \
    X(nvmlVgpuInstanceGetMetadata)                                                                 \
    X(nvmlVgpuInstanceGetType)                                                                     \
    X(nvmlVgpuInstanceGetUUID)                                                                     \
    X(nvmlVgpuInstanceGetVmID)                                                                     \
    X(nvmlVgpuInstanceSetEncoderCapacity)                                                          \
    X(nvmlVgpuTypeGetName)                                                                         \
    X(nvmlVgpuTypeGetFramebufferSize)                                                              \
    X(nvmlVgpuTypeGetResolution)                                                                   \
    X(nvmlVgpuTypeGetMaxInstances)                                                                 \
    X(nvmlDeviceGetGridLicensableFeatures_v4)                                                      \
    X(nvmlDeviceGetVgpuCapabilities)                                                               \
    X(nvmlDeviceSetVgpuCapabilities)                                                               \
    X(nvmlDeviceGetVgpuHeterogeneousMode)                                                          \
    X(nvmlDeviceSetVgpuHeterogeneousMode)                                                          \
    X(nvmlDeviceGetVgpuInstancesUtilizationInfo)                                                   \
    X(nvmlDeviceGetVgpuProcessesUtilizationInfo)                                                   \
    X(nvmlDeviceGetVgpuSchedulerState)                                                             \
    X(nvmlDeviceGetVgpuTypeCreatablePlacements)                                                    \
    X(nvmlDeviceGetVgpuTypeSupportedPlacements)                                                    \
    X(nvmlGetVgpuDriverCapabilities)                                                               \
    X(nvmlVgpuInstanceGetPlacementId)                                                              \
    X(nvmlVgpuInstanceGetGpuPciId)                                                                 \
    X(nvmlVgpuTypeGetBAR1Info)                                                                     \
    X(nvmlVgpuTypeGetCapabilities)

#include "simlib.h"

static int group_setup(void **state)
{
    (void)state;
    return simlib_open(NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    return simlib_close();
}

/* The shipped A100 MIG scenario: GPU 0 in MIG mode with MIG devices, GPU 1
 * a plain A100. */
static void start(void)
{
    simlib_start(SCENARIO_DIR "/a100-mig.ini", "60");
}

/* ------------------------------------------------------------------ ABI */

/* Sizes and version words computed with NVIDIA's nvml.h (13.x, LP64). */
static void test_layouts(void **state)
{
    (void)state;
    assert_int_equal(sizeof(nvmlGridLicensableFeatures_t), 860);
    assert_int_equal(GS_VGPU_HETEROGENEOUS_MODE_V1, 0x01000008);
    assert_int_equal(GS_VGPU_PLACEMENT_ID_V1, 0x01000008);
    assert_int_equal(GS_VGPU_PLACEMENT_LIST_V1, 0x01000018);
    assert_int_equal(GS_VGPU_PLACEMENT_LIST_V2, 0x02000020);
    assert_int_equal(GS_VGPU_TYPE_BAR1_INFO_V1, 0x01000010);
    assert_int_equal(GS_VGPU_INSTANCES_UTIL_INFO_V1, 0x01000020);
    assert_int_equal(GS_VGPU_PROCESSES_UTIL_INFO_V1, 0x01000018);
    assert_int_equal(offsetof(nvmlVgpuInstancesUtilizationInfo_t, lastSeenTimeStamp), 16);
    assert_int_equal(offsetof(nvmlVgpuProcessesUtilizationInfo_t, vgpuProcUtilArray), 16);
}

/* ------------------------------------------------------- empty vGPU lists */

static void test_empty_lists(void **state)
{
    (void)state;
    start();
    for (unsigned i = 0; i < 2; i++) {
        nvmlDevice_t d = dev(i);
        unsigned n = 5;
        nvmlVgpuInstance_t inst[5] = {0};
        assert_int_equal(CALL(nvmlDeviceGetActiveVgpus, d, &n, inst), NVML_SUCCESS);
        assert_int_equal(n, 0);
        n = 0; /* the sizing call: SUCCESS, not INSUFFICIENT_SIZE, when there are none */
        assert_int_equal(CALL(nvmlDeviceGetActiveVgpus, d, &n, NULL), NVML_SUCCESS);
        assert_int_equal(n, 0);
        n = 3;
        assert_int_equal(CALL(nvmlDeviceGetSupportedVgpus, d, &n, NULL), NVML_SUCCESS);
        assert_int_equal(n, 0);
        n = 3;
        assert_int_equal(CALL(nvmlDeviceGetCreatableVgpus, d, &n, NULL), NVML_SUCCESS);
        assert_int_equal(n, 0);
        assert_int_equal(CALL(nvmlDeviceGetCreatableVgpus, d, NULL, NULL),
                         NVML_ERROR_INVALID_ARGUMENT);

        nvmlValueType_t vt = NVML_VALUE_TYPE_DOUBLE;
        n = 4;
        assert_int_equal(CALL(nvmlDeviceGetVgpuUtilization, d, 0, &vt, &n, NULL), NVML_SUCCESS);
        assert_int_equal(vt, NVML_VALUE_TYPE_UNSIGNED_INT);
        assert_int_equal(n, 0);
        assert_int_equal(CALL(nvmlDeviceGetVgpuUtilization, d, 0, NULL, &n, NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        n = 4;
        assert_int_equal(CALL(nvmlDeviceGetVgpuProcessUtilization, d, 0, &n, NULL), NVML_SUCCESS);
        assert_int_equal(n, 0);

        nvmlVgpuInstancesUtilizationInfo_t iu = {.version = GS_VGPU_INSTANCES_UTIL_INFO_V1,
                                                 .vgpuInstanceCount = 9};
        assert_int_equal(CALL(nvmlDeviceGetVgpuInstancesUtilizationInfo, d, &iu), NVML_SUCCESS);
        assert_int_equal(iu.vgpuInstanceCount, 0);
        assert_int_equal(iu.sampleValType, NVML_VALUE_TYPE_UNSIGNED_INT);
        iu.version = 1; /* the bare number, not sizeof | 1 << 24 */
        assert_int_equal(CALL(nvmlDeviceGetVgpuInstancesUtilizationInfo, d, &iu),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        nvmlVgpuProcessesUtilizationInfo_t pu = {.version = GS_VGPU_PROCESSES_UTIL_INFO_V1,
                                                 .vgpuProcessCount = 9};
        assert_int_equal(CALL(nvmlDeviceGetVgpuProcessesUtilizationInfo, d, &pu), NVML_SUCCESS);
        assert_int_equal(pu.vgpuProcessCount, 0);
        pu.version = GS_VGPU_INSTANCES_UTIL_INFO_V1;
        assert_int_equal(CALL(nvmlDeviceGetVgpuProcessesUtilizationInfo, d, &pu),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        assert_int_equal(CALL(nvmlDeviceGetVgpuProcessesUtilizationInfo, d, NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
    }
}

/* ------------------------------------------- the vGPU manager's state */

static void test_no_vgpu_manager(void **state)
{
    (void)state;
    start();
    nvmlDevice_t d = dev(1);
    nvmlHostVgpuMode_t mode;
    assert_int_equal(CALL(nvmlDeviceGetHostVgpuMode, d, &mode), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetHostVgpuMode, d, NULL), NVML_ERROR_INVALID_ARGUMENT);

    unsigned cap;
    assert_int_equal(CALL(nvmlDeviceGetVgpuCapabilities, d, 0, &cap), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetVgpuCapabilities, d, GS_DEVICE_VGPU_CAP_COUNT, &cap),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetVgpuCapabilities, d, 0, NVML_FEATURE_ENABLED),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetVgpuCapabilities, d, 0, (nvmlEnableState_t)2),
                     NVML_ERROR_INVALID_ARGUMENT);

    nvmlVgpuHeterogeneousMode_t hm = {.version = GS_VGPU_HETEROGENEOUS_MODE_V1};
    assert_int_equal(CALL(nvmlDeviceGetVgpuHeterogeneousMode, d, &hm), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetVgpuHeterogeneousMode, d, &hm), NVML_ERROR_NOT_SUPPORTED);
    hm.version = 1;
    assert_int_equal(CALL(nvmlDeviceGetVgpuHeterogeneousMode, d, &hm),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);

    /* The metadata sizing rule: a NULL buffer is fine with *bufferSize 0. */
    char buf[64];
    unsigned size = 0;
    assert_int_equal(CALL(nvmlDeviceGetPgpuMetadataString, d, NULL, &size),
                     NVML_ERROR_NOT_SUPPORTED);
    size = sizeof(buf);
    assert_int_equal(CALL(nvmlDeviceGetPgpuMetadataString, d, buf, &size),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetPgpuMetadataString, d, NULL, &size),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetPgpuMetadataString, d, buf, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    size = 0;
    assert_int_equal(CALL(nvmlDeviceGetVgpuMetadata, d, NULL, &size), NVML_ERROR_NOT_SUPPORTED);

    unsigned char sched[16];
    assert_int_equal(
        CALL(nvmlDeviceGetVgpuSchedulerState, d, (nvmlVgpuSchedulerGetState_t *)(void *)sched),
        NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetVgpuSchedulerState, d, NULL), NVML_ERROR_INVALID_ARGUMENT);

    /* Licensing: SUCCESS, not supported, no feature; the whole struct cleared. */
    nvmlGridLicensableFeatures_t lic;
    memset(&lic, 0xff, sizeof(lic));
    assert_int_equal(CALL(nvmlDeviceGetGridLicensableFeatures_v4, d, &lic), NVML_SUCCESS);
    assert_int_equal(lic.isGridLicenseSupported, 0);
    assert_int_equal(lic.licensableFeaturesCount, 0);
    assert_int_equal(lic.gridLicensableFeatures[sizeof(lic.gridLicensableFeatures) - 1], 0);

    /* System-wide. */
    unsigned char v1[8], v2[8], meta[256], pmeta[128], compat[8];
    assert_int_equal(
        CALL(nvmlGetVgpuVersion, (nvmlVgpuVersion_t *)(void *)v1, (nvmlVgpuVersion_t *)(void *)v2),
        NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGetVgpuVersion, NULL, (nvmlVgpuVersion_t *)(void *)v2),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlSetVgpuVersion, (nvmlVgpuVersion_t *)(void *)v1),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGetVgpuDriverCapabilities, 0, &cap), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGetVgpuDriverCapabilities, GS_VGPU_DRIVER_CAP_COUNT, &cap),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlGetVgpuCompatibility, (nvmlVgpuMetadata_t *)(void *)meta,
                          (nvmlVgpuPgpuMetadata_t *)(void *)pmeta,
                          (nvmlVgpuPgpuCompatibility_t *)(void *)compat),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGetVgpuCompatibility, (nvmlVgpuMetadata_t *)(void *)meta, NULL,
                          (nvmlVgpuPgpuCompatibility_t *)(void *)compat),
                     NVML_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------ instances and types */

static void test_instances(void **state)
{
    (void)state;
    start();
    nvmlVgpuTypeId_t type = 77;
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 0, &type), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 1, &type), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 0xFFFFFFFFu, &type), NVML_ERROR_NOT_FOUND);
    assert_int_equal(type, 77); /* untouched */
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 1, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlVgpuInstanceClearAccountingPids, 0), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlVgpuInstanceClearAccountingPids, 3), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlVgpuInstanceSetEncoderCapacity, 3, 50), NVML_ERROR_NOT_FOUND);
    unsigned n = 0, a, b;
    assert_int_equal(CALL(nvmlVgpuInstanceGetAccountingPids, 3, &n, NULL), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlVgpuInstanceGetAccountingPids, 3, NULL, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlVgpuInstanceGetEncoderStats, 3, &n, &a, &b), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlVgpuInstanceGetEncoderStats, 3, &n, NULL, &b),
                     NVML_ERROR_INVALID_ARGUMENT);
    char s[80];
    nvmlVgpuVmIdType_t idt;
    assert_int_equal(CALL(nvmlVgpuInstanceGetUUID, 3, s, sizeof(s)), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlVgpuInstanceGetVmID, 3, s, sizeof(s), &idt), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlVgpuInstanceGetVmID, 3, s, sizeof(s), NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    unsigned size = 0;
    assert_int_equal(CALL(nvmlVgpuInstanceGetMetadata, 3, NULL, &size), NVML_ERROR_NOT_FOUND);
    size = 10;
    assert_int_equal(CALL(nvmlVgpuInstanceGetMetadata, 3, NULL, &size),
                     NVML_ERROR_INVALID_ARGUMENT);
    size = sizeof(s);
    assert_int_equal(CALL(nvmlVgpuInstanceGetGpuPciId, 3, s, &size), NVML_ERROR_NOT_FOUND);
    nvmlVgpuPlacementId_t pl = {.version = GS_VGPU_PLACEMENT_ID_V1};
    assert_int_equal(CALL(nvmlVgpuInstanceGetPlacementId, 3, &pl), NVML_ERROR_NOT_FOUND);
    pl.version = 1;
    assert_int_equal(CALL(nvmlVgpuInstanceGetPlacementId, 3, &pl),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
}

static void test_types(void **state)
{
    (void)state;
    start();
    char name[96];
    unsigned size = sizeof(name), x, y;
    unsigned long long fb;
    for (nvmlVgpuTypeId_t t = 0; t < 3; t++) {
        assert_int_equal(CALL(nvmlVgpuTypeGetName, t, name, &size), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlVgpuTypeGetFramebufferSize, t, &fb), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlVgpuTypeGetResolution, t, 0, &x, &y),
                         NVML_ERROR_INVALID_ARGUMENT);
    }
    nvmlVgpuTypeBar1Info_t bar1 = {.version = GS_VGPU_TYPE_BAR1_INFO_V1};
    assert_int_equal(CALL(nvmlVgpuTypeGetBAR1Info, 1, &bar1), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlVgpuTypeGetCapabilities, 1, 0, &x), NVML_ERROR_INVALID_ARGUMENT);

    /* With a device: the device is checked first. */
    assert_int_equal(CALL(nvmlVgpuTypeGetMaxInstances, dev(1), 1, &x), NVML_ERROR_INVALID_ARGUMENT);
    nvmlDevice_t mig = NULL;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, dev(0), 0, &mig), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlVgpuTypeGetMaxInstances, mig, 1, &x), NVML_ERROR_NOT_SUPPORTED);
    nvmlVgpuPlacementList_t list = {.version = GS_VGPU_PLACEMENT_LIST_V2};
    assert_int_equal(CALL(nvmlDeviceGetVgpuTypeCreatablePlacements, dev(1), 1, &list),
                     NVML_ERROR_INVALID_ARGUMENT);
    list.version = GS_VGPU_PLACEMENT_LIST_V1;
    assert_int_equal(CALL(nvmlDeviceGetVgpuTypeSupportedPlacements, dev(1), 1, &list),
                     NVML_ERROR_INVALID_ARGUMENT);
    list.version = 2;
    assert_int_equal(CALL(nvmlDeviceGetVgpuTypeSupportedPlacements, dev(1), 1, &list),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
}

/* ------------------------------------------------------------- units */

static void test_units(void **state)
{
    (void)state;
    start();
    unsigned n = 7;
    assert_int_equal(CALL(nvmlUnitGetCount, &n), NVML_SUCCESS);
    assert_int_equal(n, 0);
    nvmlUnit_t unit = NULL;
    assert_int_equal(CALL(nvmlUnitGetHandleByIndex, 0, &unit), NVML_ERROR_INVALID_ARGUMENT);
    /* Neither NULL nor a forged handle is a unit; the handle is never read. */
    unsigned char junk[512];
    nvmlUnit_t handles[] = {NULL, (nvmlUnit_t)(void *)junk};
    for (size_t i = 0; i < 2; i++) {
        nvmlUnit_t u = handles[i];
        void *out = junk;
        unsigned t;
        n = 0;
        assert_int_equal(CALL(nvmlUnitGetDevices, u, &n, NULL), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlUnitGetFanSpeedInfo, u, out), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlUnitGetLedState, u, out), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlUnitGetPsuInfo, u, out), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlUnitGetTemperature, u, 0, &t), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlUnitGetUnitInfo, u, out), NVML_ERROR_INVALID_ARGUMENT);
    }
}

/* ------------------------------------------ MIG handles, faults, legacy */

static void test_mig_and_forged_handles(void **state)
{
    (void)state;
    start();
    nvmlDevice_t mig = NULL;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, dev(0), 0, &mig), NVML_SUCCESS);
    unsigned n = 0;
    nvmlHostVgpuMode_t mode;
    assert_int_equal(CALL(nvmlDeviceGetActiveVgpus, mig, &n, NULL), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetHostVgpuMode, mig, &mode), NVML_ERROR_NOT_SUPPORTED);
    int junk;
    assert_int_equal(CALL(nvmlDeviceGetActiveVgpus, (nvmlDevice_t)&junk, &n, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetHostVgpuMode, NULL, &mode), NVML_ERROR_INVALID_ARGUMENT);
}

static void test_fail_rules(void **state)
{
    (void)state;
    setenv("GPUSIM_FAIL",
           "nvmlDeviceGetActiveVgpus:1:UNKNOWN,nvmlVgpuInstanceGetType:*:NO_PERMISSION,"
           "nvmlUnitGetUnitInfo:2:GPU_IS_LOST",
           1);
    start();
    unsetenv("GPUSIM_FAIL");
    unsigned n = 0;
    assert_int_equal(CALL(nvmlDeviceGetActiveVgpus, dev(1), &n, NULL), NVML_ERROR_UNKNOWN);
    assert_int_equal(CALL(nvmlDeviceGetActiveVgpus, dev(1), &n, NULL), NVML_SUCCESS);
    nvmlVgpuTypeId_t t;
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 1, &t), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 1, &t), NVML_ERROR_NO_PERMISSION);
    /* An argument error is found before the rule. */
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 0, &t), NVML_ERROR_INVALID_ARGUMENT);
    unsigned char info[384];
    nvmlUnitInfo_t *ui = (nvmlUnitInfo_t *)(void *)info;
    assert_int_equal(CALL(nvmlUnitGetUnitInfo, NULL, ui), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlUnitGetUnitInfo, NULL, ui), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(CALL(nvmlUnitGetUnitInfo, NULL, ui), NVML_ERROR_INVALID_ARGUMENT);
}

static void test_uninitialized(void **state)
{
    (void)state;
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    unsigned n = 0;
    nvmlVgpuTypeId_t t;
    unsigned char info[384];
    assert_int_equal(CALL(nvmlVgpuInstanceGetType, 1, &t), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlUnitGetUnitInfo, NULL, (nvmlUnitInfo_t *)(void *)info),
                     NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlVgpuTypeGetName, 1, NULL, &n), NVML_ERROR_UNINITIALIZED);
}

/* The 47 of these functions that nvml.h 11.0 (R450) declares are in the
 * legacy build; the 23 added later are not. */
static void test_legacy_exports(void **state)
{
    (void)state;
    static const char *const r450[] = {
        "nvmlDeviceGetActiveVgpus",
        "nvmlDeviceGetCreatableVgpus",
        "nvmlDeviceGetHostVgpuMode",
        "nvmlDeviceGetPgpuMetadataString",
        "nvmlDeviceGetSupportedVgpus",
        "nvmlDeviceGetVgpuMetadata",
        "nvmlDeviceGetVgpuProcessUtilization",
        "nvmlDeviceGetVgpuUtilization",
        "nvmlGetVgpuCompatibility",
        "nvmlGetVgpuVersion",
        "nvmlSetVgpuVersion",
        "nvmlUnitGetDevices",
        "nvmlUnitGetFanSpeedInfo",
        "nvmlUnitGetLedState",
        "nvmlUnitGetPsuInfo",
        "nvmlUnitGetTemperature",
        "nvmlUnitGetUnitInfo",
        "nvmlVgpuInstanceClearAccountingPids",
        "nvmlVgpuInstanceGetAccountingMode",
        "nvmlVgpuInstanceGetAccountingPids",
        "nvmlVgpuInstanceGetAccountingStats",
        "nvmlVgpuInstanceGetEccMode",
        "nvmlVgpuInstanceGetEncoderCapacity",
        "nvmlVgpuInstanceGetEncoderSessions",
        "nvmlVgpuInstanceGetEncoderStats",
        "nvmlVgpuInstanceGetFBCSessions",
        "nvmlVgpuInstanceGetFBCStats",
        "nvmlVgpuInstanceGetFbUsage",
        "nvmlVgpuInstanceGetFrameRateLimit",
        "nvmlVgpuInstanceGetLicenseStatus",
        "nvmlVgpuInstanceGetMdevUUID",
        "nvmlVgpuInstanceGetMetadata",
        "nvmlVgpuInstanceGetType",
        "nvmlVgpuInstanceGetUUID",
        "nvmlVgpuInstanceGetVmDriverVersion",
        "nvmlVgpuInstanceGetVmID",
        "nvmlVgpuInstanceSetEncoderCapacity",
        "nvmlVgpuTypeGetClass",
        "nvmlVgpuTypeGetDeviceID",
        "nvmlVgpuTypeGetFrameRateLimit",
        "nvmlVgpuTypeGetFramebufferSize",
        "nvmlVgpuTypeGetLicense",
        "nvmlVgpuTypeGetMaxInstances",
        "nvmlVgpuTypeGetMaxInstancesPerVm",
        "nvmlVgpuTypeGetName",
        "nvmlVgpuTypeGetNumDisplayHeads",
        "nvmlVgpuTypeGetResolution",
    };
    static const char *const newer[] = {
        "nvmlDeviceGetGridLicensableFeatures_v4",
        "nvmlDeviceGetVgpuCapabilities",
        "nvmlDeviceGetVgpuHeterogeneousMode",
        "nvmlDeviceGetVgpuInstancesUtilizationInfo",
        "nvmlDeviceGetVgpuProcessesUtilizationInfo",
        "nvmlDeviceGetVgpuSchedulerCapabilities",
        "nvmlDeviceGetVgpuSchedulerLog",
        "nvmlDeviceGetVgpuSchedulerState",
        "nvmlDeviceGetVgpuTypeCreatablePlacements",
        "nvmlDeviceGetVgpuTypeSupportedPlacements",
        "nvmlDeviceSetVgpuCapabilities",
        "nvmlDeviceSetVgpuHeterogeneousMode",
        "nvmlDeviceSetVgpuSchedulerState",
        "nvmlGetVgpuDriverCapabilities",
        "nvmlVgpuInstanceGetGpuInstanceId",
        "nvmlVgpuInstanceGetGpuPciId",
        "nvmlVgpuInstanceGetLicenseInfo_v2",
        "nvmlVgpuInstanceGetPlacementId",
        "nvmlVgpuTypeGetBAR1Info",
        "nvmlVgpuTypeGetCapabilities",
        "nvmlVgpuTypeGetFbReservation",
        "nvmlVgpuTypeGetGpuInstanceProfileId",
        "nvmlVgpuTypeGetGspHeapSize",
    };
    assert_int_equal(sizeof(r450) / sizeof(r450[0]) + sizeof(newer) / sizeof(newer[0]), 70);
    simlib_legacy(r450, sizeof(r450) / sizeof(r450[0]), newer, sizeof(newer) / sizeof(newer[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_empty_lists),
        cmocka_unit_test(test_no_vgpu_manager),
        cmocka_unit_test(test_instances),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_mig_and_forged_handles),
        cmocka_unit_test(test_fail_rules),
        cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_legacy_exports),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

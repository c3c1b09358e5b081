/* test_sim_set.c -- the simulator's state-changing calls (sim/api_set.c) as
 * a client sees them (dlopen of the built libnvidia-ml.so.1): the privilege
 * model (GPUSIM_ROOT), each setter as root read back through its getters
 * (and the model: clocks, power), the boards' constraints and the
 * NOT_SUPPORTED of those a board or the simulated host lacks, argument
 * errors, MIG handles, that the state is per session, and which of them
 * the R450-era legacy build exports.
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
#include <unistd.h>

#include "clock_abi.h"
#include "ext_abi.h"
#include "gpusim.h"
#include "set_abi.h"

#if !defined(SIM_LIB_PATH) || !defined(SIM_LEGACY_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH, SIM_LEGACY_LIB_PATH and SCENARIO_DIR"
#endif

#define GS_FUNCS(X)                                                                                \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetPciInfo_v3)                                                                     \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlDeviceGetPersistenceMode)                                                                \
    X(nvmlDeviceGetComputeMode)                                                                    \
    X(nvmlDeviceGetEccMode)                                                                        \
    X(nvmlDeviceGetMigMode)                                                                        \
    X(nvmlDeviceGetAccountingMode)                                                                 \
    X(nvmlDeviceGetAccountingPids)                                                                 \
    X(nvmlDeviceGetTotalEccErrors)                                                                 \
    X(nvmlDeviceGetApplicationsClock)                                                              \
    X(nvmlDeviceGetClockInfo)                                                                      \
    X(nvmlDeviceGetCurrentClocksEventReasons)                                                      \
    X(nvmlDeviceGetPowerManagementLimit)                                                           \
    X(nvmlDeviceGetEnforcedPowerLimit)                                                             \
    X(nvmlDeviceGetPowerUsage)                                                                     \
    X(nvmlDeviceGetAPIRestriction)                                                                 \
    X(nvmlDeviceQueryDrainState)                                                                   \
    X(nvmlSystemGetNvlinkBwMode)                                                                   \
    X(nvmlDeviceGetGpcClkVfOffset)                                                                 \
    X(nvmlDeviceSetPersistenceMode)                                                                \
    X(nvmlDeviceSetComputeMode)                                                                    \
    X(nvmlDeviceSetEccMode)                                                                        \
    X(nvmlDeviceClearEccErrorCounts)                                                               \
    X(nvmlDeviceSetDriverModel)                                                                    \
    X(nvmlDeviceSetGpuLockedClocks)                                                                \
    X(nvmlDeviceResetGpuLockedClocks)                                                              \
    X(nvmlDeviceSetMemoryLockedClocks)                                                             \
    X(nvmlDeviceSetApplicationsClocks)                                                             \
    X(nvmlDeviceResetApplicationsClocks)                                                           \
    X(nvmlDeviceSetAutoBoostedClocksEnabled)                                                       \
    X(nvmlDeviceSetPowerManagementLimit)                                                           \
    X(nvmlDeviceSetPowerManagementLimit_v2)                                                        \
    X(nvmlDeviceSetGpuOperationMode)                                                               \
    X(nvmlDeviceSetAPIRestriction)                                                                 \
    X(nvmlDeviceSetAccountingMode)                                                                 \
    X(nvmlDeviceClearAccountingPids)                                                               \
    X(nvmlDeviceSetCpuAffinity)                                                                    \
    X(nvmlDeviceValidateInforom)                                                                   \
    X(nvmlDeviceModifyDrainState)                                                                  \
    X(nvmlDeviceDiscoverGpus)                                                                      \
    X(nvmlDeviceResetNvLinkErrorCounters)                                                          \
    X(nvmlDeviceResetNvLinkUtilizationCounter)                                                     \
    X(nvmlDeviceSetVirtualizationMode)                                                             \
    X(nvmlDeviceSetMigMode)                                                                        \
    X(nvmlUnitSetLedState)                                                                         \
    X(nvmlDeviceSetTemperatureThreshold)                                                           \
    X(nvmlDeviceClearFieldValues)                                                                  \
    X(nvmlDeviceGetThermalSettings)                                                                \
    X(nvmlDeviceSetGpcClkVfOffset)                                                                 \
    X(nvmlDeviceSetClockOffsets)                                                                   \
    X(nvmlSystemSetNvlinkBwMode)                                                                   \
    X(nvmlDeviceGetFanSpeed)                                                                       \
    X(nvmlDeviceGetFanSpeed_v2)                                                                    \
    X(nvmlDeviceGetTargetFanSpeed)                                                                 \
    X(nvmlDeviceGetFanControlPolicy_v2)                                                            \
    X(nvmlDeviceSetFanSpeed_v2)                                                                    \
    X(nvmlDeviceSetDefaultFanSpeed_v2)                                                             \
    X(nvmlDeviceSetFanControlPolicy)

#include "simlib.h"

/* GPUs of the scenario below. */
enum { H100, GEFORCE, V100, L40S };

/* GPU 0 loaded, accounted, with ECC errors; one accounted process ended
 * at 30 s, one still runs at the pinned time 60 s. */
static const char k_machine[] = "[machine]\nseed = 7\nnvlink = nvswitch\n"
                                "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                                "util = 90%\naccounting = on\n"
                                "[gpu.1]\nmodel = RTX-4090\n"
                                "[gpu.2]\nmodel = V100-SXM2-32GB\n"
                                "[gpu.3]\nmodel = L40S\necc = off\n"
                                "[fault.ecc]\ntype = ecc\ngpu = 0\nat = 10\n"
                                "corrected = 12\nuncorrected = 2\n"
                                "[process.done]\ngpu = 0\npid = 1001\nname = done\nend = 30\n"
                                "[process.runs]\ngpu = 0\npid = 1002\nname = runs\n";

static int group_setup(void **state)
{
    (void)state;
    return simlib_open("/tmp/gs-set-XXXXXX");
}

static int group_teardown(void **state)
{
    (void)state;
    unsetenv("GPUSIM_ROOT");
    return simlib_close();
}

/* A fresh session on the machine above, as root (root "1") or not ("0"). */
static void start_as(const char *root, const char *path)
{
    setenv("GPUSIM_ROOT", root, 1);
    simlib_start(path, "60");
}

static void start_machine(const char *root)
{
    char path[128];
    simlib_write("t.ini", k_machine, path, sizeof(path));
    start_as(root, path);
}

/* ------------------------------------------------------------- privilege */

static void test_layouts(void **state)
{
    (void)state;
    assert_int_equal(GS_POWER_VALUE_V2, 0x0200000C);
    assert_int_equal(offsetof(nvmlPowerValue_v2_t, powerValueMw), 8);
    assert_int_equal(offsetof(nvmlGpuThermalSettings_t, sensor[1]), 24);
}

static void test_privilege(void **state)
{
    (void)state;
    start_machine("0");
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlDeviceGetPersistenceMode, dev(H100), &e), NVML_SUCCESS);
    nvmlEnableState_t before = e;
    assert_int_equal(CALL(nvmlDeviceSetPersistenceMode, dev(H100), !before),
                     NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlDeviceGetPersistenceMode, dev(H100), &e), NVML_SUCCESS);
    assert_int_equal(e, before);
    /* Argument errors and NOT_SUPPORTED come before the privilege check. */
    assert_int_equal(CALL(nvmlDeviceSetPersistenceMode, dev(H100), (nvmlEnableState_t)2),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetEccMode, dev(GEFORCE), NVML_FEATURE_ENABLED),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit, dev(H100), 1),
                     NVML_ERROR_NO_PERMISSION);
    /* Root changes it. */
    start_machine("1");
    assert_int_equal(CALL(nvmlDeviceSetPersistenceMode, dev(H100), !before), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPersistenceMode, dev(H100), &e), NVML_SUCCESS);
    assert_int_equal(e, !before);
    /* The change lasts until the last shutdown: a new session reloads. */
    start_machine("1");
    assert_int_equal(CALL(nvmlDeviceGetPersistenceMode, dev(H100), &e), NVML_SUCCESS);
    assert_int_equal(e, before);
    /* A bad GPUSIM_ROOT fails init. */
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    setenv("GPUSIM_ROOT", "yes", 1);
    assert_int_equal(CALL(nvmlInit_v2), NVML_ERROR_UNKNOWN);
    setenv("GPUSIM_ROOT", "1", 1);
}

/* ----------------------------------------------------------------- modes */

static void test_modes(void **state)
{
    (void)state;
    start_machine("1");
    nvmlComputeMode_t m;
    assert_int_equal(CALL(nvmlDeviceSetComputeMode, dev(V100), NVML_COMPUTEMODE_EXCLUSIVE_PROCESS),
                     NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetComputeMode, dev(V100), &m), NVML_SUCCESS);
    assert_int_equal(m, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
    assert_int_equal(CALL(nvmlDeviceSetComputeMode, dev(V100), NVML_COMPUTEMODE_EXCLUSIVE_THREAD),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetComputeMode, dev(V100), (nvmlComputeMode_t)4),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetComputeMode, dev(H100), &m), NVML_SUCCESS);
    assert_int_equal(m, NVML_COMPUTEMODE_DEFAULT);

    /* ECC: only the pending mode moves. */
    nvmlEnableState_t cur, pend;
    assert_int_equal(CALL(nvmlDeviceSetEccMode, dev(H100), NVML_FEATURE_DISABLED), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetEccMode, dev(H100), &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_FEATURE_ENABLED);
    assert_int_equal(pend, NVML_FEATURE_DISABLED);
    assert_int_equal(CALL(nvmlDeviceSetEccMode, dev(L40S), NVML_FEATURE_ENABLED), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetEccMode, dev(L40S), &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_FEATURE_DISABLED);
    assert_int_equal(pend, NVML_FEATURE_ENABLED);
    assert_int_equal(CALL(nvmlDeviceSetEccMode, dev(GEFORCE), NVML_FEATURE_ENABLED),
                     NVML_ERROR_NOT_SUPPORTED);

    /* MIG: pending too. */
    unsigned mc, mp;
    nvmlReturn_t act = NVML_ERROR_UNKNOWN;
    assert_int_equal(CALL(nvmlDeviceSetMigMode, dev(H100), 1, &act), NVML_SUCCESS);
    assert_int_equal(act, NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetMigMode, dev(H100), &mc, &mp), NVML_SUCCESS);
    assert_int_equal(mc, 0);
    assert_int_equal(mp, 1);
    assert_int_equal(CALL(nvmlDeviceSetMigMode, dev(GEFORCE), 1, &act), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetMigMode, dev(H100), 2, &act), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetMigMode, dev(H100), 1, NULL), NVML_ERROR_INVALID_ARGUMENT);

    /* What Linux or these boards cannot do. */
    assert_int_equal(CALL(nvmlDeviceSetDriverModel, dev(H100), 0, 0), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetGpuOperationMode, dev(H100), 0), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetVirtualizationMode, dev(H100), 0), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetCpuAffinity, dev(H100)), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetAutoBoostedClocksEnabled, dev(V100), NVML_FEATURE_ENABLED),
                     NVML_ERROR_NOT_SUPPORTED);
    int temp = 80;
    assert_int_equal(CALL(nvmlDeviceSetTemperatureThreshold, dev(H100),
                          NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR, &temp),
                     NVML_ERROR_NOT_SUPPORTED);
    nvmlGpuThermalSettings_t ts;
    assert_int_equal(CALL(nvmlDeviceGetThermalSettings, dev(H100), 0, &ts),
                     NVML_ERROR_NOT_SUPPORTED);
    nvmlClockOffset_t off = {.version = 1};
    assert_int_equal(CALL(nvmlDeviceSetClockOffsets, dev(GEFORCE), &off),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    off.version = GS_CLOCK_OFFSET_V1;
    assert_int_equal(CALL(nvmlDeviceSetClockOffsets, dev(GEFORCE), &off), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceValidateInforom, dev(H100)), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlUnitSetLedState, NULL, 0), NVML_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------ accounting, ECC */

static unsigned pid_count(nvmlDevice_t d, nvmlReturn_t want)
{
    unsigned n = 8, pids[8];
    assert_int_equal(CALL(nvmlDeviceGetAccountingPids, d, &n, pids), want);
    return n;
}

static void test_accounting(void **state)
{
    (void)state;
    start_machine("1");
    assert_int_equal(pid_count(dev(H100), NVML_SUCCESS), 2);
    assert_int_equal(CALL(nvmlDeviceClearAccountingPids, dev(H100)), NVML_SUCCESS);
    assert_int_equal(pid_count(dev(H100), NVML_SUCCESS), 1); /* the running one */
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlDeviceSetAccountingMode, dev(H100), NVML_FEATURE_DISABLED),
                     NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetAccountingMode, dev(H100), &e), NVML_SUCCESS);
    assert_int_equal(e, NVML_FEATURE_DISABLED);
    pid_count(dev(H100), NVML_ERROR_NOT_SUPPORTED);
    /* Switched on again: a new record, empty until a process starts. */
    assert_int_equal(CALL(nvmlDeviceSetAccountingMode, dev(H100), NVML_FEATURE_ENABLED),
                     NVML_SUCCESS);
    assert_int_equal(pid_count(dev(H100), NVML_SUCCESS), 0);
    assert_int_equal(CALL(nvmlDeviceSetAccountingMode, dev(H100), (nvmlEnableState_t)3),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static unsigned long long ecc(nvmlDevice_t d, nvmlEccCounterType_t type)
{
    unsigned long long n = 99;
    assert_int_equal(
        CALL(nvmlDeviceGetTotalEccErrors, d, NVML_MEMORY_ERROR_TYPE_CORRECTED, type, &n),
        NVML_SUCCESS);
    return n;
}

static void test_ecc_clear(void **state)
{
    (void)state;
    start_machine("1");
    assert_int_equal(ecc(dev(H100), NVML_VOLATILE_ECC), 12);
    assert_int_equal(ecc(dev(H100), NVML_AGGREGATE_ECC), 12);
    assert_int_equal(CALL(nvmlDeviceClearEccErrorCounts, dev(H100), NVML_VOLATILE_ECC),
                     NVML_SUCCESS);
    assert_int_equal(ecc(dev(H100), NVML_VOLATILE_ECC), 0);
    assert_int_equal(ecc(dev(H100), NVML_AGGREGATE_ECC), 12);
    assert_int_equal(CALL(nvmlDeviceClearEccErrorCounts, dev(H100), NVML_AGGREGATE_ECC),
                     NVML_SUCCESS);
    assert_int_equal(ecc(dev(H100), NVML_AGGREGATE_ECC), 0);
    assert_int_equal(CALL(nvmlDeviceClearEccErrorCounts, dev(L40S), NVML_VOLATILE_ECC),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceClearEccErrorCounts, dev(H100), (nvmlEccCounterType_t)2),
                     NVML_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------- clocks, power */

static unsigned clock_of(nvmlDevice_t d, nvmlClockType_t k)
{
    unsigned mhz = 0;
    assert_int_equal(CALL(nvmlDeviceGetClockInfo, d, k, &mhz), NVML_SUCCESS);
    return mhz;
}

static void test_app_clocks(void **state)
{
    (void)state;
    start_machine("1");
    unsigned mhz;
    unsigned long long reasons;
    assert_int_equal(CALL(nvmlDeviceGetCurrentClocksEventReasons, dev(H100), &reasons),
                     NVML_SUCCESS);
    assert_int_equal(reasons & 0x2, 0);
    /* 1830 = 1980 - 10 * 15: in the supported table. */
    assert_int_equal(CALL(nvmlDeviceSetApplicationsClocks, dev(H100), 2619, 1830), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetApplicationsClock, dev(H100), NVML_CLOCK_GRAPHICS, &mhz),
                     NVML_SUCCESS);
    assert_int_equal(mhz, 1830);
    assert_true(clock_of(dev(H100), NVML_CLOCK_GRAPHICS) <= 1830);
    assert_true(clock_of(dev(H100), NVML_CLOCK_GRAPHICS) > 345); /* loaded */
    assert_int_equal(CALL(nvmlDeviceGetCurrentClocksEventReasons, dev(H100), &reasons),
                     NVML_SUCCESS);
    assert_int_equal(reasons & 0x2, 0x2); /* ApplicationsClocksSetting */
    assert_int_equal(CALL(nvmlDeviceSetApplicationsClocks, dev(H100), 2619, 1831),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetApplicationsClocks, dev(H100), 1000, 1830),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetApplicationsClocks, dev(GEFORCE), 10501, 3120),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceResetApplicationsClocks, dev(H100)), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetApplicationsClock, dev(H100), NVML_CLOCK_GRAPHICS, &mhz),
                     NVML_SUCCESS);
    assert_int_equal(mhz, 1980);
    /* The restriction is read back. */
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlDeviceSetAPIRestriction, dev(H100), 0, NVML_FEATURE_DISABLED),
                     NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, dev(H100), 0, &e), NVML_SUCCESS);
    assert_int_equal(e, NVML_FEATURE_DISABLED);
    assert_int_equal(CALL(nvmlDeviceSetAPIRestriction, dev(H100), 1, NVML_FEATURE_DISABLED),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetAPIRestriction, dev(GEFORCE), 0, NVML_FEATURE_DISABLED),
                     NVML_ERROR_NOT_SUPPORTED);
}

static void test_locked_clocks(void **state)
{
    (void)state;
    start_machine("1");
    assert_int_equal(CALL(nvmlDeviceSetGpuLockedClocks, dev(H100), 1000, 1200), NVML_SUCCESS);
    unsigned loaded = clock_of(dev(H100), NVML_CLOCK_GRAPHICS);
    assert_true(loaded <= 1200 && loaded > 345);
    /* An idle GPU is held at the locked minimum. */
    unsigned idle = clock_of(dev(V100), NVML_CLOCK_GRAPHICS);
    assert_int_equal(idle, 135);
    assert_int_equal(CALL(nvmlDeviceSetGpuLockedClocks, dev(V100), 1000, 1000), NVML_SUCCESS);
    assert_int_equal(clock_of(dev(V100), NVML_CLOCK_GRAPHICS), 1000);
    assert_int_equal(CALL(nvmlDeviceResetGpuLockedClocks, dev(V100)), NVML_SUCCESS);
    assert_int_equal(clock_of(dev(V100), NVML_CLOCK_GRAPHICS), 135);
    /* Constraints. */
    assert_int_equal(CALL(nvmlDeviceSetGpuLockedClocks, dev(H100), 1200, 1000),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetGpuLockedClocks, dev(H100), 1000, 1981),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(
        CALL(nvmlDeviceSetGpuLockedClocks, dev(H100), GS_CLOCK_LIMIT_ID_TDP, GS_CLOCK_LIMIT_ID_TDP),
        NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(
        CALL(nvmlDeviceSetGpuLockedClocks, dev(H100), 1000, GS_CLOCK_LIMIT_ID_UNLIMITED),
        NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceResetGpuLockedClocks, dev(H100)), NVML_SUCCESS);
    /* Memory clocks lock from Ampere on. */
    assert_int_equal(CALL(nvmlDeviceSetMemoryLockedClocks, dev(V100), 877, 877),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetMemoryLockedClocks, dev(GEFORCE), 405, 5000), NVML_SUCCESS);
    assert_int_equal(clock_of(dev(GEFORCE), NVML_CLOCK_MEM), 405); /* idle: at its floor */
}

static void test_power_limit(void **state)
{
    (void)state;
    start_machine("1");
    unsigned mw, before;
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(H100), &before), NVML_SUCCESS);
    assert_true(before > 320000);
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit, dev(H100), 300000), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerManagementLimit, dev(H100), &mw), NVML_SUCCESS);
    assert_int_equal(mw, 300000);
    assert_int_equal(CALL(nvmlDeviceGetEnforcedPowerLimit, dev(H100), &mw), NVML_SUCCESS);
    assert_int_equal(mw, 300000);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(H100), &mw), NVML_SUCCESS);
    assert_true(mw <= 300000);
    /* Outside the constraints (200..700 W). */
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit, dev(H100), 199999),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit, dev(H100), 700001),
                     NVML_ERROR_INVALID_ARGUMENT);
    nvmlPowerValue_v2_t v = {.version = 2, .powerScope = 0, .powerValueMw = 450000};
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit_v2, dev(H100), &v),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    v.version = GS_POWER_VALUE_V2;
    v.powerScope = GS_POWER_SCOPE_MODULE;
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit_v2, dev(H100), &v),
                     NVML_ERROR_NOT_SUPPORTED);
    v.powerScope = 3;
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit_v2, dev(H100), &v),
                     NVML_ERROR_INVALID_ARGUMENT);
    v.powerScope = GS_POWER_SCOPE_GPU;
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit_v2, dev(H100), &v), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerManagementLimit, dev(H100), &mw), NVML_SUCCESS);
    assert_int_equal(mw, 450000);
}

/* --------------------------------------------- drain, NVLink, offsets */

static void test_drain_nvlink_offsets(void **state)
{
    (void)state;
    start_machine("1");
    nvmlPciInfo_t pci;
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlDeviceGetPciInfo_v3, dev(V100), &pci), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceModifyDrainState, &pci, NVML_FEATURE_ENABLED), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_SUCCESS);
    assert_int_equal(e, NVML_FEATURE_ENABLED);
    nvmlPciInfo_t other;
    assert_int_equal(CALL(nvmlDeviceGetPciInfo_v3, dev(H100), &other), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &other, &e), NVML_SUCCESS);
    assert_int_equal(e, NVML_FEATURE_DISABLED);
    assert_int_equal(CALL(nvmlDeviceModifyDrainState, &pci, NVML_FEATURE_DISABLED), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_SUCCESS);
    assert_int_equal(e, NVML_FEATURE_DISABLED);
    pci.bus = 0xFF;
    assert_int_equal(CALL(nvmlDeviceModifyDrainState, &pci, NVML_FEATURE_ENABLED),
                     NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlDeviceModifyDrainState, NULL, NVML_FEATURE_ENABLED),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceDiscoverGpus, &pci), NVML_SUCCESS);

    /* NVLink: the H100 and V100 are on NVSwitches, the others are not. */
    assert_int_equal(CALL(nvmlDeviceResetNvLinkErrorCounters, dev(H100), 17), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceResetNvLinkErrorCounters, dev(H100), 18),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceResetNvLinkErrorCounters, dev(L40S), 0),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceResetNvLinkUtilizationCounter, dev(V100), 0, 0),
                     NVML_ERROR_NOT_SUPPORTED);
    unsigned mode = 9;
    assert_int_equal(CALL(nvmlSystemSetNvlinkBwMode, 3), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_SUCCESS);
    assert_int_equal(mode, 3);
    assert_int_equal(CALL(nvmlSystemSetNvlinkBwMode, 5), NVML_ERROR_INVALID_ARGUMENT);

    /* Field values: none is clearable, each entry says so. */
    nvmlFieldValue_t fv = {.fieldId = 138, .nvmlReturn = NVML_SUCCESS};
    assert_int_equal(CALL(nvmlDeviceClearFieldValues, dev(H100), 1, &fv), NVML_SUCCESS);
    assert_int_equal(fv.nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceClearFieldValues, dev(H100), 1, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);

    /* V/F offsets: GeForce only, read back. */
    int off = 0;
    assert_int_equal(CALL(nvmlDeviceSetGpcClkVfOffset, dev(GEFORCE), 150), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetGpcClkVfOffset, dev(GEFORCE), &off), NVML_SUCCESS);
    assert_int_equal(off, 150);
    assert_int_equal(CALL(nvmlDeviceSetGpcClkVfOffset, dev(H100), 150), NVML_ERROR_NOT_SUPPORTED);
}

static void test_fans(void **state)
{
    (void)state;
    start_machine("1");
    unsigned curve, v, policy;
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed_v2, dev(GEFORCE), 1, &curve), NVML_SUCCESS);
    assert_true(curve >= 30 && curve < 77); /* idle: the curve, not 77 */
    assert_int_equal(CALL(nvmlDeviceSetFanSpeed_v2, dev(GEFORCE), 1, 77), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed_v2, dev(GEFORCE), 1, &v), NVML_SUCCESS);
    assert_int_equal(v, 77);
    assert_int_equal(CALL(nvmlDeviceGetTargetFanSpeed, dev(GEFORCE), 1, &v), NVML_SUCCESS);
    assert_int_equal(v, 77);
    assert_int_equal(CALL(nvmlDeviceGetFanControlPolicy_v2, dev(GEFORCE), 1, &policy),
                     NVML_SUCCESS);
    assert_int_equal(policy, 1); /* MANUAL */
    /* Fan 0 still follows the curve. */
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed, dev(GEFORCE), &v), NVML_SUCCESS);
    assert_int_equal(v, curve);
    assert_int_equal(CALL(nvmlDeviceGetFanControlPolicy_v2, dev(GEFORCE), 0, &policy),
                     NVML_SUCCESS);
    assert_int_equal(policy, 0);
    /* Outside 30..100 %, past the last fan, fanless boards. */
    assert_int_equal(CALL(nvmlDeviceSetFanSpeed_v2, dev(GEFORCE), 1, 29),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetFanSpeed_v2, dev(GEFORCE), 1, 101),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetFanSpeed_v2, dev(GEFORCE), 2, 50),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetFanSpeed_v2, dev(H100), 0, 50), NVML_ERROR_NOT_SUPPORTED);
    /* Back to the curve. */
    assert_int_equal(CALL(nvmlDeviceSetDefaultFanSpeed_v2, dev(GEFORCE), 1), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed_v2, dev(GEFORCE), 1, &v), NVML_SUCCESS);
    assert_int_equal(v, curve);
    /* MANUAL holds the current speed; the curve policy releases it. */
    assert_int_equal(CALL(nvmlDeviceSetFanControlPolicy, dev(GEFORCE), 0, 1), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetFanControlPolicy_v2, dev(GEFORCE), 0, &policy),
                     NVML_SUCCESS);
    assert_int_equal(policy, 1);
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed, dev(GEFORCE), &v), NVML_SUCCESS);
    assert_int_equal(v, curve);
    assert_int_equal(CALL(nvmlDeviceSetFanControlPolicy, dev(GEFORCE), 0, 0), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetFanControlPolicy_v2, dev(GEFORCE), 0, &policy),
                     NVML_SUCCESS);
    assert_int_equal(policy, 0);
    assert_int_equal(CALL(nvmlDeviceSetFanControlPolicy, dev(GEFORCE), 0, 2),
                     NVML_ERROR_INVALID_ARGUMENT);
    /* Not as non-root. */
    start_machine("0");
    assert_int_equal(CALL(nvmlDeviceSetFanSpeed_v2, dev(GEFORCE), 1, 77), NVML_ERROR_NO_PERMISSION);
}

static void test_nvlink_bw_without_hopper_links(void **state)
{
    (void)state;
    start_as("1", SCENARIO_DIR "/a100-mig.ini");
    assert_int_equal(CALL(nvmlSystemSetNvlinkBwMode, 0), NVML_ERROR_NOT_SUPPORTED);
    /* The workstation's laptop GPU reports no power draw: no power management. */
    start_as("1", SCENARIO_DIR "/workstation.ini");
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit, dev(1), 60000),
                     NVML_ERROR_NOT_SUPPORTED);
    start_as("1", SCENARIO_DIR "/a100-mig.ini");
    /* MIG handles: physical-GPU state only. */
    nvmlDevice_t mig = NULL;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, dev(0), 0, &mig), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceSetPersistenceMode, mig, NVML_FEATURE_ENABLED),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceSetPowerManagementLimit, mig, 300000),
                     NVML_ERROR_NOT_SUPPORTED);
    int junk;
    assert_int_equal(CALL(nvmlDeviceSetComputeMode, (nvmlDevice_t)&junk, 0),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static void test_uninitialized(void **state)
{
    (void)state;
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    nvmlPciInfo_t pci = {0};
    assert_int_equal(CALL(nvmlDeviceModifyDrainState, &pci, NVML_FEATURE_ENABLED),
                     NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlSystemSetNvlinkBwMode, 0), NVML_ERROR_UNINITIALIZED);
}

static void test_fail_rules(void **state)
{
    (void)state;
    setenv("GPUSIM_FAIL", "nvmlDeviceSetPersistenceMode:1:GPU_IS_LOST", 1);
    start_machine("1");
    unsetenv("GPUSIM_FAIL");
    assert_int_equal(CALL(nvmlDeviceSetPersistenceMode, dev(H100), NVML_FEATURE_ENABLED),
                     NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(CALL(nvmlDeviceSetPersistenceMode, dev(H100), NVML_FEATURE_ENABLED),
                     NVML_SUCCESS);
}

static void test_legacy_exports(void **state)
{
    (void)state;
    static const char *const r450[] = {
        "nvmlDeviceSetPersistenceMode",
        "nvmlDeviceSetComputeMode",
        "nvmlDeviceSetEccMode",
        "nvmlDeviceClearEccErrorCounts",
        "nvmlDeviceSetGpuLockedClocks",
        "nvmlDeviceSetApplicationsClocks",
        "nvmlDeviceSetPowerManagementLimit",
        "nvmlDeviceSetAccountingMode",
        "nvmlDeviceClearAccountingPids",
        "nvmlDeviceModifyDrainState",
        "nvmlDeviceSetMigMode",
        "nvmlDeviceSetAPIRestriction",
    };
    static const char *const newer[] = {
        "nvmlDeviceSetMemoryLockedClocks",
        "nvmlDeviceResetMemoryLockedClocks",
        "nvmlDeviceSetPowerManagementLimit_v2",
        "nvmlDeviceSetTemperatureThreshold",
        "nvmlDeviceClearFieldValues",
        "nvmlDeviceGetThermalSettings",
        "nvmlDeviceSetGpcClkVfOffset",
        "nvmlDeviceSetMemClkVfOffset",
        "nvmlDeviceSetClockOffsets",
        "nvmlDeviceSetNvLinkDeviceLowPowerThreshold",
        "nvmlSystemSetNvlinkBwMode",
        "nvmlDeviceSetFanSpeed_v2",
        "nvmlDeviceSetDefaultFanSpeed_v2",
        "nvmlDeviceSetFanControlPolicy",
    };
    simlib_legacy(r450, sizeof(r450) / sizeof(r450[0]), newer, sizeof(newer) / sizeof(newer[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_privilege),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_accounting),
        cmocka_unit_test(test_ecc_clear),
        cmocka_unit_test(test_app_clocks),
        cmocka_unit_test(test_locked_clocks),
        cmocka_unit_test(test_power_limit),
        cmocka_unit_test(test_drain_nvlink_offsets),
        cmocka_unit_test(test_fans),
        cmocka_unit_test(test_nvlink_bw_without_hopper_links),
        cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_fail_rules),
        cmocka_unit_test(test_legacy_exports),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

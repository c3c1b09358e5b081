/* test_sim_rare.c -- the simulator's seldom-used queries (sim/api_rare.c) as
 * a client sees them (dlopen of the built libnvidia-ml.so.1): version words
 * and layouts against nvml.h, the modelled answer of each function per
 * board (H100 SXM5 and V100 SXM2 on NVSwitches, a GeForce RTX 4090, an
 * L40S with ECC off), the NOT_SUPPORTED of the functions that are not
 * modelled, argument validation (NULL, out-of-range enums, wrong struct
 * versions, MIG handles), GPUSIM_FAIL, and which of them the R450-era
 * legacy build exports.
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

#include "gpusim.h"
#include "rare_abi.h"

#if !defined(SIM_LIB_PATH) || !defined(SIM_LEGACY_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH, SIM_LEGACY_LIB_PATH and SCENARIO_DIR"
#endif

#define GS_FUNCS(X)                                                                                \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetPciInfo_v3)                                                                     \
    X(nvmlDeviceGetTotalEccErrors)                                                                 \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlDeviceGetAPIRestriction)                                                                 \
    X(nvmlDeviceGetBridgeChipInfo)                                                                 \
    X(nvmlDeviceGetDetailedEccErrors)                                                              \
    X(nvmlDeviceGetNvLinkUtilizationControl)                                                       \
    X(nvmlDeviceQueryDrainState)                                                                   \
    X(nvmlDeviceGetAdaptiveClockInfoStatus)                                                        \
    X(nvmlDeviceGetC2cModeInfoV)                                                                   \
    X(nvmlDeviceGetCapabilities)                                                                   \
    X(nvmlDeviceGetClkMonStatus)                                                                   \
    X(nvmlDeviceGetClockOffsets)                                                                   \
    X(nvmlDeviceGetDynamicPstatesInfo)                                                             \
    X(nvmlDeviceGetGpcClkVfOffset)                                                                 \
    X(nvmlDeviceGetMemClkVfOffset)                                                                 \
    X(nvmlDeviceGetGpcClkMinMaxVfOffset)                                                           \
    X(nvmlDeviceGetMemClkMinMaxVfOffset)                                                           \
    X(nvmlDeviceGetLastBBXFlushTime)                                                               \
    X(nvmlDeviceGetPowerSource)                                                                    \
    X(nvmlDeviceGetSramEccErrorStatus)                                                             \
    X(nvmlDeviceGetAddressingMode)                                                                 \
    X(nvmlDeviceGetDramEncryptionMode)                                                             \
    X(nvmlDeviceGetHostname_v1)                                                                    \
    X(nvmlDeviceGetGpuFabricInfoV)                                                                 \
    X(nvmlDeviceGetPlatformInfo)                                                                   \
    X(nvmlDeviceGetModuleId)                                                                       \
    X(nvmlDeviceGetFieldValues)                                                                    \
    X(nvmlSystemGetNvlinkBwMode)

#include "simlib.h"

/* GPUs of the scenario below. */
enum { H100, GEFORCE, V100, L40S };

static const char k_machine[] = "[machine]\nseed = 7\nnvlink = nvswitch\n"
                                "[gpu.0]\nmodel = H100-SXM5-80GB\n"
                                "[gpu.1]\nmodel = RTX-4090\n"
                                "[gpu.2]\nmodel = V100-SXM2-32GB\n"
                                "[gpu.3]\nmodel = L40S\necc = off\n"
                                "[fault.ecc]\ntype = ecc\ngpu = 0\nat = 10\n"
                                "corrected = 12\nuncorrected = 2\n";

static int group_setup(void **state)
{
    (void)state;
    return simlib_open("/tmp/gs-rare-XXXXXX");
}

static int group_teardown(void **state)
{
    (void)state;
    return simlib_close();
}

static void start(const char *path)
{
    simlib_start(path, "60");
}

static void start_text(const char *text)
{
    simlib_start_text(text);
}

/* ------------------------------------------------------------------ ABI */

static void test_layouts(void **state)
{
    (void)state;
    assert_int_equal(GS_DEVICE_CAPABILITIES_V1, 0x01000008);
    assert_int_equal(GS_CLOCK_OFFSET_V1, 0x01000018);
    assert_int_equal(GS_ECC_SRAM_ERROR_STATUS_V1, 0x01000068);
    assert_int_equal(offsetof(nvmlEccSramErrorStatus_t, aggregateUncParity), 8);
    assert_int_equal(offsetof(nvmlEccSramErrorStatus_t, bThresholdExceeded), 96);
    assert_int_equal(offsetof(nvmlBridgeChipHierarchy_t, bridgeChipInfo), 4);
    assert_int_equal(offsetof(nvmlClkMonStatus_t, clkMonList), 8);
    assert_int_equal(offsetof(nvmlClockOffset_t, maxClockOffsetMHz), 20);
    assert_int_equal(offsetof(nvmlEccErrorCounts_t, registerFile), 24);
}

/* ------------------------------------------------- modelled answers */

static void test_api_restriction(void **state)
{
    (void)state;
    start_text(k_machine);
    nvmlEnableState_t e = (nvmlEnableState_t)7;
    static const unsigned restricted[] = {H100, V100, L40S};
    for (size_t i = 0; i < sizeof(restricted) / sizeof(restricted[0]); i++) {
        e = (nvmlEnableState_t)7;
        assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, dev(restricted[i]), 0, &e),
                         NVML_SUCCESS);
        assert_int_equal(e, NVML_FEATURE_ENABLED);
        assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, dev(restricted[i]), 1, &e),
                         NVML_ERROR_NOT_SUPPORTED);
    }
    assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, dev(GEFORCE), 0, &e),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, dev(H100), 2, &e),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, dev(H100), 0, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static void test_bridge_and_drain(void **state)
{
    (void)state;
    start_text(k_machine);
    for (unsigned i = 0; i < 4; i++) {
        nvmlBridgeChipHierarchy_t b;
        memset(&b, 0xff, sizeof(b));
        assert_int_equal(CALL(nvmlDeviceGetBridgeChipInfo, dev(i), &b), NVML_SUCCESS);
        assert_int_equal(b.bridgeCount, 0);

        nvmlPciInfo_t pci;
        assert_int_equal(CALL(nvmlDeviceGetPciInfo_v3, dev(i), &pci), NVML_SUCCESS);
        nvmlEnableState_t e = (nvmlEnableState_t)7;
        assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_SUCCESS);
        assert_int_equal(e, NVML_FEATURE_DISABLED);
        pci.bus = 0xff;
        assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_ERROR_NOT_FOUND);
        assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, NULL), NVML_ERROR_INVALID_ARGUMENT);
    }
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, NULL, &e), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetBridgeChipInfo, dev(H100), NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static void test_detailed_ecc(void **state)
{
    (void)state;
    start_text(k_machine);
    for (unsigned type = 0; type <= 1; type++) {
        unsigned long long total = 0;
        assert_int_equal(
            CALL(nvmlDeviceGetTotalEccErrors, dev(H100), type, NVML_AGGREGATE_ECC, &total),
            NVML_SUCCESS);
        assert_int_equal(total, type == 0 ? 12 : 2);
        nvmlEccErrorCounts_t n;
        memset(&n, 0xff, sizeof(n));
        assert_int_equal(
            CALL(nvmlDeviceGetDetailedEccErrors, dev(H100), type, NVML_VOLATILE_ECC, &n),
            NVML_SUCCESS);
        assert_int_equal(n.deviceMemory, total);
        assert_int_equal(n.l1Cache, 0);
        assert_int_equal(n.l2Cache, 0);
        assert_int_equal(n.registerFile, 0);
    }
    nvmlEccErrorCounts_t n;
    assert_int_equal(CALL(nvmlDeviceGetDetailedEccErrors, dev(GEFORCE), 0, 0, &n),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetDetailedEccErrors, dev(L40S), 0, 0, &n),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetDetailedEccErrors, dev(H100), 2, 0, &n),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetDetailedEccErrors, dev(H100), 0, 2, &n),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static void test_nvlink(void **state)
{
    (void)state;
    start_text(k_machine);
    nvmlNvLinkUtilizationControl_t ctl;
    assert_int_equal(CALL(nvmlDeviceGetNvLinkUtilizationControl, dev(H100), 17, 0, &ctl),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetNvLinkUtilizationControl, dev(H100), 18, 0, &ctl),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetNvLinkUtilizationControl, dev(V100), 6, 1, &ctl),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetNvLinkUtilizationControl, dev(H100), 0, 2, &ctl),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetNvLinkUtilizationControl, dev(GEFORCE), 0, 0, &ctl),
                     NVML_ERROR_NOT_SUPPORTED);

    unsigned mode = 7;
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_SUCCESS);
    assert_int_equal(mode, GS_NVLINK_BW_MODE_FULL);
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, NULL), NVML_ERROR_INVALID_ARGUMENT);
    /* Volta links only, or Hopper without links: not supported. */
    start_text("[machine]\nnvlink = nvswitch\n[gpu.0]\nmodel = V100-SXM2-32GB\n");
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_ERROR_NOT_SUPPORTED);
    start_text("[gpu.0]\nmodel = H100-SXM5-80GB\n");
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_ERROR_NOT_SUPPORTED);
}

static void test_clocks(void **state)
{
    (void)state;
    start_text(k_machine);
    nvmlClkMonStatus_t st;
    memset(&st, 0xff, sizeof(st));
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, dev(H100), &st), NVML_SUCCESS);
    assert_int_equal(st.bGlobalStatus, 0);
    assert_int_equal(st.clkMonListSize, 0);
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, dev(L40S), &st), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, dev(V100), &st), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, dev(GEFORCE), &st), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, dev(H100), NULL), NVML_ERROR_INVALID_ARGUMENT);

    int off = 123, lo, hi;
    assert_int_equal(CALL(nvmlDeviceGetGpcClkVfOffset, dev(GEFORCE), &off), NVML_SUCCESS);
    assert_int_equal(off, 0);
    off = 123;
    assert_int_equal(CALL(nvmlDeviceGetMemClkVfOffset, dev(GEFORCE), &off), NVML_SUCCESS);
    assert_int_equal(off, 0);
    for (unsigned i = 0; i < 4; i++) {
        if (i != GEFORCE) {
            assert_int_equal(CALL(nvmlDeviceGetGpcClkVfOffset, dev(i), &off),
                             NVML_ERROR_NOT_SUPPORTED);
            assert_int_equal(CALL(nvmlDeviceGetMemClkVfOffset, dev(i), &off),
                             NVML_ERROR_NOT_SUPPORTED);
        }
        assert_int_equal(CALL(nvmlDeviceGetGpcClkMinMaxVfOffset, dev(i), &lo, &hi),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(CALL(nvmlDeviceGetMemClkMinMaxVfOffset, dev(i), &lo, &hi),
                         NVML_ERROR_NOT_SUPPORTED);
    }
    assert_int_equal(CALL(nvmlDeviceGetGpcClkVfOffset, dev(GEFORCE), NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetGpcClkMinMaxVfOffset, dev(GEFORCE), &lo, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);

    nvmlClockOffset_t co = {.version = GS_CLOCK_OFFSET_V1, .type = NVML_CLOCK_GRAPHICS};
    assert_int_equal(CALL(nvmlDeviceGetClockOffsets, dev(GEFORCE), &co), NVML_ERROR_NOT_SUPPORTED);
    co.pstate = 16;
    assert_int_equal(CALL(nvmlDeviceGetClockOffsets, dev(GEFORCE), &co),
                     NVML_ERROR_INVALID_ARGUMENT);
    co.pstate = 0;
    co.type = NVML_CLOCK_COUNT;
    assert_int_equal(CALL(nvmlDeviceGetClockOffsets, dev(GEFORCE), &co),
                     NVML_ERROR_INVALID_ARGUMENT);
    co.type = NVML_CLOCK_MEM;
    co.version = NVML_STRUCT_VERSION_OF(nvmlClockOffset_t, 2);
    assert_int_equal(CALL(nvmlDeviceGetClockOffsets, dev(GEFORCE), &co),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetClockOffsets, dev(GEFORCE), NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static void test_capabilities_and_sram(void **state)
{
    (void)state;
    start_text(k_machine);
    for (unsigned i = 0; i < 4; i++) {
        nvmlDeviceCapabilities_t caps = {.version = GS_DEVICE_CAPABILITIES_V1, .capMask = ~0u};
        assert_int_equal(CALL(nvmlDeviceGetCapabilities, dev(i), &caps), NVML_SUCCESS);
        assert_int_equal(caps.capMask, 0);
        caps.version = 8;
        assert_int_equal(CALL(nvmlDeviceGetCapabilities, dev(i), &caps),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    }
    assert_int_equal(CALL(nvmlDeviceGetCapabilities, dev(H100), NULL), NVML_ERROR_INVALID_ARGUMENT);

    nvmlEccSramErrorStatus_t s;
    memset(&s, 0xff, sizeof(s));
    s.version = GS_ECC_SRAM_ERROR_STATUS_V1;
    assert_int_equal(CALL(nvmlDeviceGetSramEccErrorStatus, dev(H100), &s), NVML_SUCCESS);
    assert_int_equal(s.version, GS_ECC_SRAM_ERROR_STATUS_V1);
    assert_int_equal(s.aggregateUncParity, 0);
    assert_int_equal(s.volatileCor, 0);
    assert_int_equal(s.aggregateUncBucketOther, 0);
    assert_int_equal(s.bThresholdExceeded, 0);
    static const unsigned lacking[] = {GEFORCE, V100, L40S};
    for (size_t i = 0; i < sizeof(lacking) / sizeof(lacking[0]); i++)
        assert_int_equal(CALL(nvmlDeviceGetSramEccErrorStatus, dev(lacking[i]), &s),
                         NVML_ERROR_NOT_SUPPORTED);
    s.version = NVML_STRUCT_VERSION_OF(nvmlEccSramErrorStatus_t, 2);
    assert_int_equal(CALL(nvmlDeviceGetSramEccErrorStatus, dev(H100), &s),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetSramEccErrorStatus, dev(H100), NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
}

/* --------------------------------------------- not modelled: NOT_SUPPORTED */

static void test_not_modelled(void **state)
{
    (void)state;
    start_text(k_machine);
    for (unsigned i = 0; i < 4; i++) {
        nvmlDevice_t d = dev(i);
        unsigned u;
        unsigned long long ts;
        unsigned long dur;
        nvmlC2cModeInfo_v1_t c2c;
        nvmlGpuDynamicPstatesInfo_t dp;
        assert_int_equal(CALL(nvmlDeviceGetAdaptiveClockInfoStatus, d, &u),
                         NVML_ERROR_NOT_SUPPORTED);
        /* C2C: a Hopper board answers Disabled (nvidia-smi prints c2c.mode
         * "Disabled" on an H100 and H200, [N/A] on GeForce and L40S, drivers
         * 590-595: utkuozdemir/nvidia_gpu_exporter internal/captures/) */
        memset(&c2c, 0xab, sizeof(c2c));
        if (i == 0) {
            assert_int_equal(CALL(nvmlDeviceGetC2cModeInfoV, d, &c2c), NVML_SUCCESS);
            assert_int_equal(c2c.isC2cEnabled, 0);
        } else {
            assert_int_equal(CALL(nvmlDeviceGetC2cModeInfoV, d, &c2c), NVML_ERROR_NOT_SUPPORTED);
        }
        assert_int_equal(CALL(nvmlDeviceGetDynamicPstatesInfo, d, &dp), NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(CALL(nvmlDeviceGetLastBBXFlushTime, d, &ts, &dur),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(CALL(nvmlDeviceGetPowerSource, d, &u), NVML_ERROR_NOT_SUPPORTED);
        /* NULL outputs are an argument error before anything else. */
        assert_int_equal(CALL(nvmlDeviceGetAdaptiveClockInfoStatus, d, NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetC2cModeInfoV, d, NULL), NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetDynamicPstatesInfo, d, NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetLastBBXFlushTime, d, &ts, NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetPowerSource, d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    }
}

/* ------------------------------------------ MIG handles, faults, legacy */

static void test_mig_handles(void **state)
{
    (void)state;
    start(SCENARIO_DIR "/a100-mig.ini");
    nvmlDevice_t mig = NULL;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, dev(0), 0, &mig), NVML_SUCCESS);
    nvmlEnableState_t e;
    nvmlBridgeChipHierarchy_t b;
    nvmlClkMonStatus_t st;
    nvmlEccSramErrorStatus_t s = {.version = GS_ECC_SRAM_ERROR_STATUS_V1};
    int off;
    assert_int_equal(CALL(nvmlDeviceGetAPIRestriction, mig, 0, &e), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetBridgeChipInfo, mig, &b), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, mig, &st), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetSramEccErrorStatus, mig, &s), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpcClkVfOffset, mig, &off), NVML_ERROR_NOT_SUPPORTED);
    /* The parent answers. */
    assert_int_equal(CALL(nvmlDeviceGetClkMonStatus, dev(0), &st), NVML_SUCCESS);
    /* A forged handle is an argument error. */
    int junk;
    assert_int_equal(CALL(nvmlDeviceGetBridgeChipInfo, (nvmlDevice_t)&junk, &b),
                     NVML_ERROR_INVALID_ARGUMENT);
}

static void test_fail_rules(void **state)
{
    (void)state;
    setenv("GPUSIM_FAIL",
           "nvmlDeviceGetBridgeChipInfo:1:UNKNOWN,nvmlSystemGetNvlinkBwMode:*:NO_PERMISSION,"
           "nvmlDeviceQueryDrainState:2:GPU_IS_LOST",
           1);
    start_text(k_machine);
    unsetenv("GPUSIM_FAIL");
    nvmlBridgeChipHierarchy_t b;
    assert_int_equal(CALL(nvmlDeviceGetBridgeChipInfo, dev(H100), &b), NVML_ERROR_UNKNOWN);
    assert_int_equal(CALL(nvmlDeviceGetBridgeChipInfo, dev(H100), &b), NVML_SUCCESS);
    unsigned mode;
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_ERROR_NO_PERMISSION);
    nvmlPciInfo_t pci;
    assert_int_equal(CALL(nvmlDeviceGetPciInfo_v3, dev(H100), &pci), NVML_SUCCESS);
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_SUCCESS);
}

static void test_uninitialized(void **state)
{
    (void)state;
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    unsigned mode;
    nvmlPciInfo_t pci = {0};
    nvmlEnableState_t e;
    assert_int_equal(CALL(nvmlSystemGetNvlinkBwMode, &mode), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlDeviceQueryDrainState, &pci, &e), NVML_ERROR_UNINITIALIZED);
}

/* nvmlDeviceGetAddressingMode (nvmlDeviceAddressingMode_v1_t: version,
 * value; NONE 0, HMM 1, ATS 2; "Turing or newer", docs.nvidia.com
 * nvml-api): nvidia-smi prints addressing_mode "HMM" on GeForce RTX 2080
 * SUPER/4080 SUPER and L40S (drivers 595), "None" on H100 (590)
 * (utkuozdemir/nvidia_gpu_exporter internal/captures/). */
static void test_addressing_mode(void **state)
{
    (void)state;
    start_text(k_machine);
    static const struct {
        unsigned gpu;
        nvmlReturn_t rc;
        unsigned value;
    } want[] = {{H100, NVML_SUCCESS, 0},
                {GEFORCE, NVML_SUCCESS, 1},
                {V100, NVML_ERROR_NOT_SUPPORTED, 0},
                {L40S, NVML_SUCCESS, 1}};
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        nvmlDeviceAddressingMode_t m;
        memset(&m, 0xab, sizeof(m));
        m.version = nvmlDeviceAddressingMode_v1;
        assert_int_equal(CALL(nvmlDeviceGetAddressingMode, dev(want[k].gpu), &m), want[k].rc);
        if (want[k].rc == NVML_SUCCESS) {
            assert_int_equal(m.value, want[k].value);
            assert_int_equal(m.version, nvmlDeviceAddressingMode_v1);
        }
    }
    nvmlDeviceAddressingMode_t m = {.version = 1};
    assert_int_equal(CALL(nvmlDeviceGetAddressingMode, dev(H100), &m),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetAddressingMode, dev(H100), NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(nvmlDeviceAddressingMode_v1, 0x01000008);
}

/* nvmlDeviceGetDramEncryptionMode (nvmlDramEncryptionInfo_v1_t: version,
 * encryptionState; R570+, "Blackwell or newer"): NOT_SUPPORTED on every
 * preset, as nvidia-smi prints dramEncryption.mode.* [N/A] on GeForce,
 * L40S, H100 and H200 (utkuozdemir/nvidia_gpu_exporter internal/captures/);
 * the version of both arguments is checked first. */
static void test_dram_encryption(void **state)
{
    (void)state;
    start_text(k_machine);
    static const unsigned gpus[] = {H100, GEFORCE, V100, L40S};
    for (size_t k = 0; k < sizeof(gpus) / sizeof(gpus[0]); k++) {
        nvmlDramEncryptionInfo_t cur = {.version = nvmlDramEncryptionInfo_v1};
        nvmlDramEncryptionInfo_t pend = {.version = nvmlDramEncryptionInfo_v1};
        assert_int_equal(CALL(nvmlDeviceGetDramEncryptionMode, dev(gpus[k]), &cur, &pend),
                         NVML_ERROR_NOT_SUPPORTED);
    }
    nvmlDramEncryptionInfo_t cur = {.version = nvmlDramEncryptionInfo_v1};
    nvmlDramEncryptionInfo_t old = {.version = 1};
    assert_int_equal(CALL(nvmlDeviceGetDramEncryptionMode, dev(H100), &cur, &old),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetDramEncryptionMode, dev(H100), &cur, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(nvmlDramEncryptionInfo_v1, 0x01000008);
}

/* nvmlDeviceGetHostname_v1 (nvmlHostname_v1_t, 64 bytes; R580+, "Blackwell
 * or newer"): NOT_SUPPORTED on every preset, as nvidia-smi prints hostname
 * [N/A] on every captured board; NULL is refused first. */
static void test_gpu_hostname(void **state)
{
    (void)state;
    start_text(k_machine);
    static const unsigned gpus[] = {H100, GEFORCE, V100, L40S};
    for (size_t k = 0; k < sizeof(gpus) / sizeof(gpus[0]); k++) {
        nvmlHostname_v1_t h;
        memset(&h, 'x', sizeof(h));
        assert_int_equal(CALL(nvmlDeviceGetHostname_v1, dev(gpus[k]), &h),
                         NVML_ERROR_NOT_SUPPORTED);
    }
    assert_int_equal(CALL(nvmlDeviceGetHostname_v1, dev(H100), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sizeof(nvmlHostname_v1_t), 64);
}

/* nvmlDeviceGetGpuFabricInfoV, versions 2 and 3 (v3 appends healthSummary;
 * 0x02000024 and 0x03000028 as nvml.h's NVML_STRUCT_VERSION gives them).
 * A Blackwell on NVSwitches answers a healthy fabric in every health
 * field; an H100 completes registration with no health (0: every field
 * "not supported", as the 590 captures print N/A); a GeForce (Ada) has no
 * fabric: NOT_SUPPORTED.  Other versions are refused. */
static void test_fabric_health(void **state)
{
    (void)state;
    start_text("[machine]\nseed = 7\nnvlink = nvswitch\n"
               "[gpu.0]\nmodel = H100-SXM5-80GB\narchitecture = blackwell\n"
               "[gpu.1]\nmodel = H100-SXM5-80GB\n"
               "[gpu.2]\nmodel = RTX-4090\n");
    assert_int_equal(nvmlGpuFabricInfo_v2, 0x02000024);
    assert_int_equal(nvmlGpuFabricInfo_v3, 0x03000028);
    assert_int_equal(offsetof(nvmlGpuFabricInfoV_t, healthMask), 32);
    assert_int_equal(offsetof(nvmlGpuFabricInfoV_t, healthSummary), 36);
    /* 2 (false) in the four 2-bit flags, 1 (none) in incorrect
     * configuration, 1 (true) in partition assigned */
    const unsigned healthy = 2u | 2u << 2 | 2u << 4 | 2u << 6 | 1u << 8 | 1u << 12;
    static const struct {
        unsigned gpu;
        unsigned char state;
        unsigned mask;
        unsigned char summary;
    } want[] = {{0, 3, healthy, 1}, {1, 3, 0, 0}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        nvmlGpuFabricInfoV_t f;
        memset(&f, 0xab, sizeof(f));
        f.version = nvmlGpuFabricInfo_v3;
        assert_int_equal(CALL(nvmlDeviceGetGpuFabricInfoV, dev(want[i].gpu), &f), NVML_SUCCESS);
        assert_int_equal(f.state, want[i].state);
        assert_int_equal(f.healthMask, want[i].mask);
        assert_int_equal(f.healthSummary, want[i].summary);
        /* v2: the same mask, and the byte after the v2 struct untouched */
        memset(&f, 0xab, sizeof(f));
        f.version = nvmlGpuFabricInfo_v2;
        assert_int_equal(CALL(nvmlDeviceGetGpuFabricInfoV, dev(want[i].gpu), &f), NVML_SUCCESS);
        assert_int_equal(f.healthMask, want[i].mask);
        assert_int_equal(f.healthSummary, 0xab);
    }
    nvmlGpuFabricInfoV_t g = {.version = nvmlGpuFabricInfo_v3};
    assert_int_equal(CALL(nvmlDeviceGetGpuFabricInfoV, dev(2), &g), NVML_ERROR_NOT_SUPPORTED);
    nvmlGpuFabricInfoV_t f = {.version = (unsigned)sizeof(nvmlGpuFabricInfoV_t) | 4u << 24};
    assert_int_equal(CALL(nvmlDeviceGetGpuFabricInfoV, dev(0), &f),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetGpuFabricInfoV, dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
}

/* nvmlDeviceGetPlatformInfo (nvmlPlatformInfo_v2_t: 44 bytes, 0x0200002C
 * as NVML_STRUCT_VERSION gives it; R570+, "Blackwell or newer"): a
 * Blackwell answers its rack placement (13-digit chassis serial, 8-byte
 * GUID, peer type 1 on NVSwitches, the module id nvmlDeviceGetModuleId
 * gives), an H100 and a GeForce NOT_SUPPORTED; version 1 is refused. */
static void test_platform_info(void **state)
{
    (void)state;
    start_text("[machine]\nseed = 7\nnvlink = nvswitch\ngpus = 6\n"
               "[gpu]\nmodel = H100-SXM5-80GB\narchitecture = blackwell\n"
               "[gpu.4]\nmodel = H100-SXM5-80GB\narchitecture = hopper\n"
               "[gpu.5]\nmodel = RTX-4090\narchitecture = ada\n");
    assert_int_equal(sizeof(nvmlPlatformInfo_t), 44);
    assert_int_equal(nvmlPlatformInfo_v2, 0x0200002C);
    assert_int_equal(offsetof(nvmlPlatformInfo_t, chassisSerialNumber), 20);
    assert_int_equal(offsetof(nvmlPlatformInfo_t, slotNumber), 36);
    assert_int_equal(offsetof(nvmlPlatformInfo_t, moduleId), 40);
    char serial0[17] = "";
    for (unsigned gpu = 0; gpu < 4; gpu++) {
        nvmlPlatformInfo_t p;
        memset(&p, 0xab, sizeof(p));
        p.version = nvmlPlatformInfo_v2;
        assert_int_equal(CALL(nvmlDeviceGetPlatformInfo, dev(gpu), &p), NVML_SUCCESS);
        char serial[17];
        memcpy(serial, p.chassisSerialNumber, 16);
        serial[16] = '\0';
        assert_int_equal(strlen(serial), 13);
        assert_int_equal(strspn(serial, "0123456789"), 13);
        if (gpu == 0)
            memcpy(serial0, serial, sizeof(serial0));
        assert_string_equal(serial, serial0); /* one chassis */
        for (int i = 8; i < 16; i++)
            assert_int_equal(p.ibGuid[i], 0);
        assert_int_equal(p.trayIndex, 0);
        assert_int_equal(p.slotNumber, 1);
        assert_int_equal(p.hostId, 1);
        assert_int_equal(p.peerType, 1);
        unsigned int module = 0;
        assert_int_equal(CALL(nvmlDeviceGetModuleId, dev(gpu), &module), NVML_SUCCESS);
        assert_int_equal(p.moduleId, module);
        assert_int_equal(p.moduleId, gpu + 1);
    }
    for (unsigned gpu = 4; gpu < 6; gpu++) {
        nvmlPlatformInfo_t p = {.version = nvmlPlatformInfo_v2};
        assert_int_equal(CALL(nvmlDeviceGetPlatformInfo, dev(gpu), &p), NVML_ERROR_NOT_SUPPORTED);
    }
    nvmlPlatformInfo_t v1 = {.version = (unsigned)sizeof(nvmlPlatformInfo_t) | 1u << 24};
    assert_int_equal(CALL(nvmlDeviceGetPlatformInfo, dev(0), &v1),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetPlatformInfo, dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
}

/* Power smoothing through nvmlDeviceGetFieldValues (NVML_FI_PWR_SMOOTHING_*
 * 264, 275-288, R570+): a Blackwell answers profile 0 active, primary
 * floor half its power limit (700 W here), the static fields, the profile
 * fields for profiles 0-4 (INVALID_ARGUMENT past them) and admin overrides
 * not set (0xFFFFFFFF); an H100 answers NOT_SUPPORTED in every field. */
static void test_power_smoothing_fields(void **state)
{
    (void)state;
    start_text("[machine]\nseed = 7\n"
               "[gpu.0]\nmodel = H100-SXM5-80GB\narchitecture = blackwell\n"
               "[gpu.1]\nmodel = H100-SXM5-80GB\n");
    static const struct {
        unsigned field, scope;
        nvmlReturn_t rc;
        nvmlValueType_t type;
        double value;
    } want[] = {
        {264, 0, NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 0},
        {275, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 350},
        {276, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 0},
        {277, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 10},
        {278, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 100},
        {279, 0, NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 10},
        {280, 0, NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 1},
        {281, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 0},
        {282, 4, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 0},
        {283, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 0},
        {284, 0, NVML_SUCCESS, NVML_VALUE_TYPE_DOUBLE, 10},
        {284, 5, NVML_ERROR_INVALID_ARGUMENT, NVML_VALUE_TYPE_DOUBLE, 0},
        {285, 0, NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 4294967295.0},
        {288, 0, NVML_SUCCESS, NVML_VALUE_TYPE_UNSIGNED_INT, 4294967295.0},
    };
    enum { N = sizeof(want) / sizeof(want[0]) };
    nvmlFieldValue_t fv[N];
    memset(fv, 0, sizeof(fv));
    for (size_t i = 0; i < N; i++) {
        fv[i].fieldId = want[i].field;
        fv[i].scopeId = want[i].scope;
    }
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(0), (int)N, fv), NVML_SUCCESS);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(fv[i].nvmlReturn, want[i].rc);
        if (want[i].rc != NVML_SUCCESS)
            continue;
        assert_int_equal(fv[i].valueType, want[i].type);
        double got = fv[i].valueType == NVML_VALUE_TYPE_DOUBLE ? fv[i].value.dVal
                                                               : (double)fv[i].value.uiVal;
        assert_true(got == want[i].value);
    }
    memset(fv, 0, sizeof(fv));
    for (size_t i = 0; i < N; i++)
        fv[i].fieldId = want[i].field;
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(1), (int)N, fv), NVML_SUCCESS);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(fv[i].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
}

/* The EDPp multiplier (field 274) and the inactive remapped rows (301,
 * 302) through nvmlDeviceGetFieldValues, board by board: Hopper and later
 * answer the multiplier, 100 (%; the captured H100/H200 print 100.00 %),
 * older boards NOT_SUPPORTED (the captured L40S and GeForce print [N/A]);
 * a board that remaps rows (Ampere and later, ECC on, MIG off) answers 0
 * inactive remappings beside its active ones (the H100's ecc fault
 * remapped 2 rows, field 143), every other board NOT_SUPPORTED. */
static void test_edpp_and_inactive_remaps(void **state)
{
    (void)state;
    start_text("[machine]\nseed = 7\n"
               "[gpu.0]\nmodel = H100-SXM5-80GB\n"
               "[gpu.1]\nmodel = RTX-4090\n"
               "[gpu.2]\nmodel = V100-SXM2-32GB\n"
               "[gpu.3]\nmodel = L40S\necc = off\n"
               "[gpu.4]\nmodel = L40S\n"
               "[gpu.5]\nmodel = A100-SXM4-80GB\nmig = 3g.40gb\n"
               "[gpu.6]\nmodel = A100-SXM4-80GB\n"
               "[gpu.7]\nmodel = H100-SXM5-80GB\narchitecture = blackwell\n"
               "[fault.ecc]\ntype = ecc\ngpu = 0\nat = 10\ncorrected = 12\nuncorrected = 2\n");
    enum { NS = -1 };
    static const struct {
        unsigned gpu;
        int edpp, unc, cor_inactive, unc_inactive; /* NS: NOT_SUPPORTED */
    } want[] = {
        {0, 100, 2, 0, 0}, {1, NS, NS, NS, NS}, {2, NS, NS, NS, NS}, {3, NS, NS, NS, NS},
        {4, NS, 0, 0, 0},  {5, NS, NS, NS, NS}, {6, NS, 0, 0, 0},    {7, 100, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const unsigned ids[] = {274, 143, 301, 302};
        const int vals[] = {want[i].edpp, want[i].unc, want[i].cor_inactive, want[i].unc_inactive};
        nvmlFieldValue_t fv[4];
        memset(fv, 0, sizeof(fv));
        for (size_t k = 0; k < 4; k++)
            fv[k].fieldId = ids[k];
        assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(want[i].gpu), 4, fv), NVML_SUCCESS);
        for (size_t k = 0; k < 4; k++) {
            if (vals[k] == NS) {
                assert_int_equal(fv[k].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
                continue;
            }
            assert_int_equal(fv[k].nvmlReturn, NVML_SUCCESS);
            assert_int_equal(fv[k].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
            assert_int_equal(fv[k].value.uiVal, vals[k]);
        }
    }
}

static void test_legacy_exports(void **state)
{
    (void)state;
    static const char *const r450[] = {
        "nvmlDeviceGetAPIRestriction",    "nvmlDeviceGetBridgeChipInfo",
        "nvmlDeviceGetDetailedEccErrors", "nvmlDeviceGetNvLinkUtilizationControl",
        "nvmlDeviceQueryDrainState",
    };
    static const char *const newer[] = {
        "nvmlDeviceGetAdaptiveClockInfoStatus",
        "nvmlDeviceGetC2cModeInfoV",
        "nvmlDeviceGetCapabilities",
        "nvmlDeviceGetClkMonStatus",
        "nvmlDeviceGetClockOffsets",
        "nvmlDeviceGetDynamicPstatesInfo",
        "nvmlDeviceGetGpcClkVfOffset",
        "nvmlDeviceGetMemClkVfOffset",
        "nvmlDeviceGetGpcClkMinMaxVfOffset",
        "nvmlDeviceGetMemClkMinMaxVfOffset",
        "nvmlDeviceGetLastBBXFlushTime",
        "nvmlDeviceGetPowerSource",
        "nvmlDeviceGetSramEccErrorStatus",
        "nvmlDeviceGetAddressingMode",
        "nvmlDeviceGetDramEncryptionMode",
        "nvmlDeviceGetPlatformInfo",
        "nvmlDeviceGetHostname_v1",
        "nvmlSystemGetNvlinkBwMode",
    };
    simlib_legacy(r450, sizeof(r450) / sizeof(r450[0]), newer, sizeof(newer) / sizeof(newer[0]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_api_restriction),
        cmocka_unit_test(test_bridge_and_drain),
        cmocka_unit_test(test_detailed_ecc),
        cmocka_unit_test(test_nvlink),
        cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_capabilities_and_sram),
        cmocka_unit_test(test_not_modelled),
        cmocka_unit_test(test_mig_handles),
        cmocka_unit_test(test_fail_rules),
        cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_addressing_mode),
        cmocka_unit_test(test_dram_encryption),
        cmocka_unit_test(test_gpu_hostname),
        cmocka_unit_test(test_fabric_health),
        cmocka_unit_test(test_platform_info),
        cmocka_unit_test(test_power_smoothing_fields),
        cmocka_unit_test(test_edpp_and_inactive_remaps),
        cmocka_unit_test(test_legacy_exports),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/* test_sim_cc.c -- the simulator's confidential-computing calls
 * (sim/api_cc.c) as a client sees them (dlopen of the built
 * libnvidia-ml.so.1): layouts and version words against nvml.h, the CC-off
 * answers on an all-Hopper host (GPUs CC capable) and on a mixed one (not
 * capable), NOT_SUPPORTED from every CC-mode-only query, the setters'
 * privilege model (GPUSIM_ROOT), wrong struct versions, NULL and
 * out-of-range arguments, MIG handles, GPUSIM_FAIL, and that the R450-era
 * legacy build exports none of them.
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

#include "cc_abi.h"
#include "gpusim.h"

#if !defined(SIM_LIB_PATH) || !defined(SIM_LEGACY_LIB_PATH)
#error "meson passes SIM_LIB_PATH and SIM_LEGACY_LIB_PATH"
#endif

#define GS_FUNCS(X)                                                                                \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlSystemGetConfComputeCapabilities)                                                        \
    X(nvmlSystemGetConfComputeState)                                                               \
    X(nvmlSystemGetConfComputeSettings)                                                            \
    X(nvmlSystemGetConfComputeGpusReadyState)                                                      \
    X(nvmlSystemGetConfComputeKeyRotationThresholdInfo)                                            \
    X(nvmlDeviceGetConfComputeMemSizeInfo)                                                         \
    X(nvmlDeviceGetConfComputeProtectedMemoryUsage)                                                \
    X(nvmlDeviceGetConfComputeGpuCertificate)                                                      \
    X(nvmlDeviceGetConfComputeGpuAttestationReport)                                                \
    X(nvmlDeviceSetConfComputeUnprotectedMemSize)                                                  \
    X(nvmlSystemSetConfComputeGpusReadyState)                                                      \
    X(nvmlSystemSetConfComputeKeyRotationThresholdInfo)

#include "simlib.h"

/* Two H100s: every GPU is Hopper, so the system is CC capable. */
static const char k_hopper[] = "[machine]\nseed = 3\n"
                               "[gpu.0]\nmodel = H100-SXM5-80GB\n"
                               "[gpu.1]\nmodel = H100-SXM5-80GB\n";
/* One H100 beside an RTX 4090 (Ada): not capable as a system. */
static const char k_mixed[] = "[machine]\nseed = 3\n"
                              "[gpu.0]\nmodel = H100-SXM5-80GB\n"
                              "[gpu.1]\nmodel = RTX-4090\n";
/* An H100 split by MIG. */
static const char k_mig[] = "[machine]\nseed = 3\n"
                            "[gpu.0]\nmodel = H100-SXM5-80GB\nmig = 3g.40gb, 1g.10gb\n";

static int group_setup(void **state)
{
    (void)state;
    return simlib_open("/tmp/gs-cc-XXXXXX");
}

static int group_teardown(void **state)
{
    (void)state;
    unsetenv("GPUSIM_ROOT");
    return simlib_close();
}

/* A fresh session on scenario text, as root (root "1") or not ("0"). */
static void start_as(const char *root, const char *text)
{
    setenv("GPUSIM_ROOT", root, 1);
    simlib_start_text(text);
}

/* ------------------------------------------------------------------ ABI */

static void test_layouts(void **state)
{
    (void)state;
    assert_int_equal(GS_CC_SETTINGS_V1, 0x01000014);
    assert_int_equal(GS_CC_KEY_ROTATION_V1, 0x01000010);
    assert_int_equal(offsetof(nvmlSystemConfComputeSettings_t, multiGpuMode), 16);
    assert_int_equal(offsetof(nvmlConfComputeKeyRotationThresholdInfo_t, attackerAdvantage), 8);
    assert_int_equal(offsetof(nvmlConfComputeGpuCertificate_t, attestationCertChain), 8 + 0x1000);
    assert_int_equal(offsetof(nvmlConfComputeGpuAttestationReport_t, nonce), 12);
    assert_int_equal(offsetof(nvmlConfComputeGpuAttestationReport_t, cecAttestationReport),
                     12 + 0x20 + 0x2000);
}

/* ------------------------------------------------------ system queries */

static void test_capabilities(void **state)
{
    (void)state;
    nvmlConfComputeSystemCaps_t caps;
    start_as("0", k_hopper);
    memset(&caps, 0xff, sizeof(caps));
    assert_int_equal(CALL(nvmlSystemGetConfComputeCapabilities, &caps), NVML_SUCCESS);
    assert_int_equal(caps.cpuCaps, GS_CC_CPU_CAPS_NONE);
    assert_int_equal(caps.gpusCaps, GS_CC_GPUS_CAPABLE);
    assert_int_equal(CALL(nvmlSystemGetConfComputeCapabilities, NULL), NVML_ERROR_INVALID_ARGUMENT);
    start_as("0", k_mixed);
    memset(&caps, 0xff, sizeof(caps));
    assert_int_equal(CALL(nvmlSystemGetConfComputeCapabilities, &caps), NVML_SUCCESS);
    assert_int_equal(caps.cpuCaps, GS_CC_CPU_CAPS_NONE);
    assert_int_equal(caps.gpusCaps, GS_CC_GPUS_NOT_CAPABLE);
}

static void test_state_and_settings(void **state)
{
    (void)state;
    static const char *const machines[] = {k_hopper, k_mixed};
    for (size_t i = 0; i < 2; i++) {
        start_as("0", machines[i]);
        nvmlConfComputeSystemState_t st;
        memset(&st, 0xff, sizeof(st));
        assert_int_equal(CALL(nvmlSystemGetConfComputeState, &st), NVML_SUCCESS);
        assert_int_equal(st.environment, GS_CC_ENVIRONMENT_UNAVAILABLE);
        assert_int_equal(st.ccFeature, GS_CC_FEATURE_DISABLED);
        assert_int_equal(st.devToolsMode, GS_CC_DEVTOOLS_MODE_OFF);
        assert_int_equal(CALL(nvmlSystemGetConfComputeState, NULL), NVML_ERROR_INVALID_ARGUMENT);

        nvmlSystemConfComputeSettings_t set;
        memset(&set, 0xff, sizeof(set));
        set.version = GS_CC_SETTINGS_V1;
        assert_int_equal(CALL(nvmlSystemGetConfComputeSettings, &set), NVML_SUCCESS);
        assert_int_equal(set.version, GS_CC_SETTINGS_V1);
        assert_int_equal(set.environment, GS_CC_ENVIRONMENT_UNAVAILABLE);
        assert_int_equal(set.ccFeature, GS_CC_FEATURE_DISABLED);
        assert_int_equal(set.devToolsMode, GS_CC_DEVTOOLS_MODE_OFF);
        assert_int_equal(set.multiGpuMode, GS_CC_MULTIGPU_NONE);
        /* a wrong version word is refused and nothing is written */
        memset(&set, 0xee, sizeof(set));
        set.version = NVML_STRUCT_VERSION_OF(nvmlSystemConfComputeSettings_t, 2);
        assert_int_equal(CALL(nvmlSystemGetConfComputeSettings, &set),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        assert_int_equal(set.ccFeature, 0xeeeeeeeeu);
        set.version = 0;
        assert_int_equal(CALL(nvmlSystemGetConfComputeSettings, &set),
                         NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        assert_int_equal(CALL(nvmlSystemGetConfComputeSettings, NULL), NVML_ERROR_INVALID_ARGUMENT);
    }
}

/* The ready state and key rotation exist only in CC mode. */
static void test_cc_mode_only_system_queries(void **state)
{
    (void)state;
    start_as("1", k_hopper);
    unsigned ready = 7;
    assert_int_equal(CALL(nvmlSystemGetConfComputeGpusReadyState, &ready),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(ready, 7);
    assert_int_equal(CALL(nvmlSystemGetConfComputeGpusReadyState, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    nvmlConfComputeKeyRotationThresholdInfo_t k = {GS_CC_KEY_ROTATION_V1, 99};
    assert_int_equal(CALL(nvmlSystemGetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(k.attackerAdvantage, 99);
    k.version = NVML_STRUCT_VERSION_OF(nvmlConfComputeKeyRotationThresholdInfo_t, 2);
    assert_int_equal(CALL(nvmlSystemGetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlSystemGetConfComputeKeyRotationThresholdInfo, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------ device queries */

static void test_device_queries(void **state)
{
    (void)state;
    start_as("1", k_mixed);
    for (unsigned i = 0; i < 2; i++) {
        nvmlConfComputeMemSizeInfo_t ms;
        memset(&ms, 0xab, sizeof(ms));
        assert_int_equal(CALL(nvmlDeviceGetConfComputeMemSizeInfo, dev(i), &ms),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_true(ms.protectedMemSizeKib == 0xababababababababull); /* not a fake 0 */
        /* protected memory with CC off: 0 MiB total, used and free, as
         * nvidia-smi prints on CC-off GeForce, L40S and H100 (drivers
         * 590-595, utkuozdemir/nvidia_gpu_exporter internal/captures/) */
        nvmlMemory_t mem;
        memset(&mem, 0xab, sizeof(mem));
        assert_int_equal(CALL(nvmlDeviceGetConfComputeProtectedMemoryUsage, dev(i), &mem),
                         NVML_SUCCESS);
        assert_true(mem.total == 0 && mem.used == 0 && mem.free == 0);
        static nvmlConfComputeGpuCertificate_t cert;
        assert_int_equal(CALL(nvmlDeviceGetConfComputeGpuCertificate, dev(i), &cert),
                         NVML_ERROR_NOT_SUPPORTED);
        static nvmlConfComputeGpuAttestationReport_t rep;
        assert_int_equal(CALL(nvmlDeviceGetConfComputeGpuAttestationReport, dev(i), &rep),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(CALL(nvmlDeviceGetConfComputeMemSizeInfo, dev(i), NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetConfComputeProtectedMemoryUsage, dev(i), NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetConfComputeGpuCertificate, dev(i), NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetConfComputeGpuAttestationReport, dev(i), NULL),
                         NVML_ERROR_INVALID_ARGUMENT);
    }
    nvmlConfComputeMemSizeInfo_t ms;
    assert_int_equal(CALL(nvmlDeviceGetConfComputeMemSizeInfo, NULL, &ms),
                     NVML_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ setters */

static void test_setters_privilege(void **state)
{
    (void)state;
    nvmlConfComputeKeyRotationThresholdInfo_t k = {GS_CC_KEY_ROTATION_V1, 55};

    /* capable hardware: NO_PERMISSION as non-root, NOT_SUPPORTED as root
     * (CC mode is off) */
    start_as("0", k_hopper);
    assert_int_equal(CALL(nvmlDeviceSetConfComputeUnprotectedMemSize, dev(0), 1024),
                     NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlSystemSetConfComputeGpusReadyState, GS_CC_ACCEPTING_TRUE),
                     NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_NO_PERMISSION);
    start_as("1", k_hopper);
    assert_int_equal(CALL(nvmlDeviceSetConfComputeUnprotectedMemSize, dev(0), 1024),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlSystemSetConfComputeGpusReadyState, GS_CC_ACCEPTING_TRUE),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_NOT_SUPPORTED);

    /* hardware without CC: NOT_SUPPORTED whoever asks */
    static const char *const roots[] = {"0", "1"};
    for (size_t i = 0; i < 2; i++) {
        start_as(roots[i], k_mixed);
        assert_int_equal(CALL(nvmlDeviceSetConfComputeUnprotectedMemSize, dev(1), 1024),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(CALL(nvmlSystemSetConfComputeGpusReadyState, GS_CC_ACCEPTING_FALSE),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                         NVML_ERROR_NOT_SUPPORTED);
    }
    /* the H100 of the mixed host is capable as a device; the system is not */
    start_as("0", k_mixed);
    assert_int_equal(CALL(nvmlDeviceSetConfComputeUnprotectedMemSize, dev(0), 1024),
                     NVML_ERROR_NO_PERMISSION);
}

static void test_setters_arguments(void **state)
{
    (void)state;
    start_as("1", k_hopper);
    assert_int_equal(CALL(nvmlSystemSetConfComputeGpusReadyState, 2), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceSetConfComputeUnprotectedMemSize, NULL, 1024),
                     NVML_ERROR_INVALID_ARGUMENT);
    nvmlConfComputeKeyRotationThresholdInfo_t k = {0, 55};
    assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    k.version = GS_CC_KEY_ROTATION_V1;
    static const unsigned long long bad[] = {0, 49, 66, 1000};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        k.attackerAdvantage = bad[i];
        assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                         NVML_ERROR_INVALID_ARGUMENT);
    }
    k.attackerAdvantage = 50;
    assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_NOT_SUPPORTED);
    k.attackerAdvantage = 65;
    assert_int_equal(CALL(nvmlSystemSetConfComputeKeyRotationThresholdInfo, &k),
                     NVML_ERROR_NOT_SUPPORTED);
}

/* ------------------------------------------ MIG handles, faults, legacy */

static void test_mig_handles(void **state)
{
    (void)state;
    start_as("1", k_mig);
    nvmlDevice_t mig = NULL;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, dev(0), 0, &mig), NVML_SUCCESS);
    nvmlConfComputeMemSizeInfo_t ms;
    nvmlMemory_t mem;
    static nvmlConfComputeGpuCertificate_t cert;
    static nvmlConfComputeGpuAttestationReport_t rep;
    assert_int_equal(CALL(nvmlDeviceGetConfComputeMemSizeInfo, mig, &ms), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetConfComputeProtectedMemoryUsage, mig, &mem),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetConfComputeGpuCertificate, mig, &cert),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetConfComputeGpuAttestationReport, mig, &rep),
                     NVML_ERROR_NOT_SUPPORTED);
    /* a MIG handle is refused before the privilege check */
    assert_int_equal(CALL(nvmlDeviceSetConfComputeUnprotectedMemSize, mig, 1024),
                     NVML_ERROR_NOT_SUPPORTED);
    /* the system answers are the parent's: one H100, capable */
    nvmlConfComputeSystemCaps_t caps;
    assert_int_equal(CALL(nvmlSystemGetConfComputeCapabilities, &caps), NVML_SUCCESS);
    assert_int_equal(caps.gpusCaps, GS_CC_GPUS_CAPABLE);
}

static void test_fail_rules(void **state)
{
    (void)state;
    setenv("GPUSIM_FAIL", "nvmlSystemGetConfComputeState:1:UNKNOWN", 1);
    start_as("0", k_hopper);
    unsetenv("GPUSIM_FAIL");
    nvmlConfComputeSystemState_t st;
    assert_int_equal(CALL(nvmlSystemGetConfComputeState, &st), NVML_ERROR_UNKNOWN);
    assert_int_equal(CALL(nvmlSystemGetConfComputeState, &st), NVML_SUCCESS);
    assert_int_equal(st.ccFeature, GS_CC_FEATURE_DISABLED);
}

static void test_uninitialized(void **state)
{
    (void)state;
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    nvmlConfComputeSystemCaps_t caps;
    assert_int_equal(CALL(nvmlSystemGetConfComputeCapabilities, &caps), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlSystemSetConfComputeGpusReadyState, 1), NVML_ERROR_UNINITIALIZED);
}

static void test_legacy_exports(void **state)
{
    (void)state;
    static const char *const cc[] = {
        "nvmlSystemGetConfComputeCapabilities",
        "nvmlSystemGetConfComputeState",
        "nvmlSystemGetConfComputeSettings",
        "nvmlSystemGetConfComputeGpusReadyState",
        "nvmlSystemGetConfComputeKeyRotationThresholdInfo",
        "nvmlDeviceGetConfComputeMemSizeInfo",
        "nvmlDeviceGetConfComputeProtectedMemoryUsage",
        "nvmlDeviceGetConfComputeGpuCertificate",
        "nvmlDeviceGetConfComputeGpuAttestationReport",
        "nvmlDeviceSetConfComputeUnprotectedMemSize",
        "nvmlSystemSetConfComputeGpusReadyState",
        "nvmlSystemSetConfComputeKeyRotationThresholdInfo",
    };
    simlib_legacy(NULL, 0, cc, sizeof(cc) / sizeof(cc[0]));
    /* both of nvitop's probes are there, so it reads 24-byte entries */
    assert_non_null(dlsym(g_lib, "nvmlDeviceGetRunningProcessDetailList"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_capabilities),
        cmocka_unit_test(test_state_and_settings),
        cmocka_unit_test(test_cc_mode_only_system_queries),
        cmocka_unit_test(test_device_queries),
        cmocka_unit_test(test_setters_privilege),
        cmocka_unit_test(test_setters_arguments),
        cmocka_unit_test(test_mig_handles),
        cmocka_unit_test(test_fail_rules),
        cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_legacy_exports),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

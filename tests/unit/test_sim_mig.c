/* test_sim_mig.c -- the simulator's MIG instance queries as a client sees
 * them (dlopen of the built libnvidia-ml.so.1): struct sizes, offsets and
 * version words against nvml.h; a walk from GPU instance profiles to GPU
 * instances to compute instances on scenarios/a100-mig.ini that must agree
 * with the MIG devices (ids, slices, SMs, memory, parent handles);
 * placements and remaining capacity; and the error codes (MIG off, no MIG
 * on the board, unknown profiles, versions, stale and forged handles,
 * sizing calls).
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
#include "mig_abi.h"

#if !defined(SIM_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH and SCENARIO_DIR"
#endif

#define GS_FUNCS(X)                                                                                \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetName)                                                                           \
    X(nvmlDeviceGetMemoryInfo)                                                                     \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlDeviceGetGpuInstanceId)                                                                  \
    X(nvmlDeviceGetComputeInstanceId)                                                              \
    X(nvmlDeviceGetGpuInstanceProfileInfo)                                                         \
    X(nvmlDeviceGetGpuInstanceProfileInfoV)                                                        \
    X(nvmlDeviceGetGpuInstancePossiblePlacements_v2)                                               \
    X(nvmlDeviceGetGpuInstanceRemainingCapacity)                                                   \
    X(nvmlDeviceGetGpuInstances)                                                                   \
    X(nvmlDeviceGetGpuInstanceById)                                                                \
    X(nvmlGpuInstanceGetInfo)                                                                      \
    X(nvmlGpuInstanceGetComputeInstanceProfileInfo)                                                \
    X(nvmlGpuInstanceGetComputeInstanceProfileInfoV)                                               \
    X(nvmlGpuInstanceGetComputeInstanceRemainingCapacity)                                          \
    X(nvmlGpuInstanceGetComputeInstancePossiblePlacements)                                         \
    X(nvmlGpuInstanceGetComputeInstances)                                                          \
    X(nvmlGpuInstanceGetComputeInstanceById)                                                       \
    X(nvmlComputeInstanceGetInfo_v2)                                                               \
    X(nvmlDeviceGetAttributes_v2)

#include "simlib.h"

static int group_setup(void **state)
{
    (void)state;
    return simlib_open("/tmp/gs-mig-XXXXXX");
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
    assert_int_equal(sizeof(nvmlGpuInstancePlacement_t), 8);
    assert_int_equal(sizeof(nvmlGpuInstanceProfileInfo_t), 48);
    assert_int_equal(offsetof(nvmlGpuInstanceProfileInfo_t, memorySizeMB), 40);
    assert_int_equal(sizeof(nvmlGpuInstanceProfileInfo_v2_t), 152);
    assert_int_equal(offsetof(nvmlGpuInstanceProfileInfo_v2_t, memorySizeMB), 48);
    assert_int_equal(offsetof(nvmlGpuInstanceProfileInfo_v2_t, name), 56);
    assert_int_equal(sizeof(nvmlGpuInstanceProfileInfo_v3_t), 152);
    assert_int_equal(offsetof(nvmlGpuInstanceProfileInfo_v3_t, memorySizeMB), 40);
    assert_int_equal(offsetof(nvmlGpuInstanceProfileInfo_v3_t, name), 48);
    assert_int_equal(offsetof(nvmlGpuInstanceProfileInfo_v3_t, capabilities), 144);
    assert_int_equal(nvmlGpuInstanceProfileInfo_v2, 0x02000098);
    assert_int_equal(nvmlGpuInstanceProfileInfo_v3, 0x03000098);
    assert_int_equal(sizeof(nvmlGpuInstanceInfo_t), 24);
    assert_int_equal(offsetof(nvmlGpuInstanceInfo_t, placement), 16);
    assert_int_equal(sizeof(nvmlComputeInstanceProfileInfo_t), 36);
    assert_int_equal(sizeof(nvmlComputeInstanceProfileInfo_v2_t), 136);
    assert_int_equal(sizeof(nvmlComputeInstanceProfileInfo_v3_t), 140);
    assert_int_equal(nvmlComputeInstanceProfileInfo_v2, 0x02000088);
    assert_int_equal(nvmlComputeInstanceProfileInfo_v3, 0x0300008C);
    assert_int_equal(sizeof(nvmlComputeInstanceInfo_t), 32);
    assert_int_equal(offsetof(nvmlComputeInstanceInfo_t, id), 16);
    assert_int_equal(offsetof(nvmlComputeInstanceInfo_t, placement), 24);
    assert_int_equal(sizeof(nvmlDeviceAttributes_t), 40);
    assert_int_equal(offsetof(nvmlDeviceAttributes_t, memorySizeMB), 32);
}

/* ----------------------------------------------------------------- walk */

/* Profiles -> GPU instances -> compute instances on a100-mig.ini's GPU 0
 * (mig = 3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb), checked against its MIG
 * devices. */
static void test_walk(void **state)
{
    (void)state;
    start(SCENARIO_DIR "/a100-mig.ini");
    nvmlDevice_t g0 = dev(0);
    unsigned seen = 0, mem_used = 0, compute = 0;

    for (unsigned prof = 0; prof < GS_GI_PROFILE_COUNT; prof++) {
        nvmlGpuInstanceProfileInfo_t pi;
        nvmlReturn_t r = CALL(nvmlDeviceGetGpuInstanceProfileInfo, g0, prof, &pi);
        if (r == NVML_ERROR_NOT_SUPPORTED)
            continue;
        assert_int_equal(r, NVML_SUCCESS);
        assert_int_equal(pi.isP2pSupported, 0);
        nvmlGpuInstance_t gis[8];
        unsigned n = 0;
        assert_int_equal(CALL(nvmlDeviceGetGpuInstances, g0, pi.id, gis, &n), NVML_SUCCESS);
        assert_true(n <= pi.instanceCount);
        nvmlGpuInstancePlacement_t pl[8];
        unsigned npl = 8;
        assert_int_equal(CALL(nvmlDeviceGetGpuInstancePossiblePlacements_v2, g0, pi.id, pl, &npl),
                         NVML_SUCCESS);
        for (unsigned i = 0; i < n; i++) {
            nvmlGpuInstanceInfo_t gi;
            assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gis[i], &gi), NVML_SUCCESS);
            assert_ptr_equal(gi.device, g0);
            assert_int_equal(gi.profileId, pi.id);
            /* The placement is one of the profile's and overlaps no other. */
            bool listed = false;
            for (unsigned j = 0; j < npl; j++)
                listed |= pl[j].start == gi.placement.start && pl[j].size == gi.placement.size;
            assert_true(listed);
            unsigned span = ((1U << gi.placement.size) - 1) << gi.placement.start;
            assert_int_equal(mem_used & span, 0);
            mem_used |= span;
            compute += pi.sliceCount;
            nvmlGpuInstance_t again;
            assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g0, gi.id, &again), NVML_SUCCESS);
            assert_ptr_equal(again, gis[i]);

            /* The MIG device with this GPU instance id. */
            nvmlDevice_t m = NULL;
            for (unsigned k = 0; k < 7; k++) {
                nvmlDevice_t h;
                unsigned id;
                if (CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, k, &h) != NVML_SUCCESS)
                    break;
                assert_int_equal(CALL(nvmlDeviceGetGpuInstanceId, h, &id), NVML_SUCCESS);
                if (id == gi.id)
                    m = h;
            }
            assert_non_null(m);
            char name[96];
            assert_int_equal(CALL(nvmlDeviceGetName, m, name, sizeof(name)), NVML_SUCCESS);
            char want[32];
            snprintf(want, sizeof(want), " MIG %ug.", pi.sliceCount);
            assert_non_null(strstr(name, want));
            nvmlDeviceAttributes_t at;
            assert_int_equal(CALL(nvmlDeviceGetAttributes_v2, m, &at), NVML_SUCCESS);
            assert_int_equal(at.gpuInstanceSliceCount, pi.sliceCount);
            assert_int_equal(at.computeInstanceSliceCount, pi.sliceCount);
            assert_int_equal(at.multiprocessorCount, pi.multiprocessorCount);
            assert_int_equal(at.sharedCopyEngineCount, pi.copyEngineCount);
            assert_int_equal(at.sharedDecoderCount, pi.decoderCount);
            nvmlMemory_t mem;
            assert_int_equal(CALL(nvmlDeviceGetMemoryInfo, m, &mem), NVML_SUCCESS);
            assert_int_equal(at.memorySizeMB, mem.total >> 20);
            assert_int_equal(mem.total, pi.memorySizeMB << 20); /* the profile's memory */

            /* Its one compute instance spans it. */
            unsigned ci_id;
            assert_int_equal(CALL(nvmlDeviceGetComputeInstanceId, m, &ci_id), NVML_SUCCESS);
            unsigned full = pi.sliceCount == 7 ? 4 : pi.sliceCount - 1;
            nvmlComputeInstanceProfileInfo_t cp;
            assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceProfileInfo, gis[i], full,
                                  GS_CI_ENGINE_PROFILE_SHARED, &cp),
                             NVML_SUCCESS);
            assert_int_equal(cp.sliceCount, pi.sliceCount);
            assert_int_equal(cp.instanceCount, 1);
            assert_int_equal(cp.multiprocessorCount, pi.multiprocessorCount);
            nvmlComputeInstance_t cis[8];
            unsigned nci = 0;
            assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstances, gis[i], cp.id, cis, &nci),
                             NVML_SUCCESS);
            assert_int_equal(nci, 1);
            nvmlComputeInstanceInfo_t ci;
            assert_int_equal(CALL(nvmlComputeInstanceGetInfo_v2, cis[0], &ci), NVML_SUCCESS);
            assert_ptr_equal(ci.device, g0);
            assert_ptr_equal(ci.gpuInstance, gis[i]);
            assert_int_equal(ci.id, ci_id);
            assert_int_equal(ci.profileId, cp.id);
            assert_int_equal(ci.placement.start, 0);
            assert_int_equal(ci.placement.size, pi.sliceCount);
            nvmlComputeInstance_t ci2;
            assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceById, gis[i], ci_id, &ci2),
                             NVML_SUCCESS);
            assert_ptr_equal(ci2, cis[0]);
            assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceById, gis[i], ci_id + 1, &ci2),
                             NVML_ERROR_NOT_FOUND);
            /* Full: no room for another compute instance of any size. */
            unsigned cap = 99;
            assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceRemainingCapacity, gis[i],
                                  GS_CI_PROFILE_1_SLICE, &cap),
                             NVML_SUCCESS);
            assert_int_equal(cap, 0);
            seen++;
        }
    }
    assert_int_equal(seen, 4);
    assert_int_equal(compute, 7);
    /* 3g, 2g, 1g, 1g fit only with the 3g.40gb at slices 4-7. */
    assert_int_equal(mem_used, 0xFF);
    nvmlGpuInstance_t gi;
    nvmlGpuInstanceInfo_t info;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g0, 1, &gi), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_SUCCESS);
    assert_int_equal(info.profileId, 9);
    assert_int_equal(info.placement.start, 4);
    assert_int_equal(info.placement.size, 4);
    /* Every slice is taken: nothing more of any profile. */
    static const unsigned ids[] = {19, 20, 15, 14, 9, 5, 0};
    for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        unsigned cap = 99;
        assert_int_equal(CALL(nvmlDeviceGetGpuInstanceRemainingCapacity, g0, ids[i], &cap),
                         NVML_SUCCESS);
        assert_int_equal(cap, 0);
    }
    CALL(nvmlShutdown);
}

/* The A100-SXM4-80GB profile table (nvidia-smi mig -lgip) and placements. */
static void test_profiles(void **state)
{
    (void)state;
    start(SCENARIO_DIR "/a100-mig.ini");
    nvmlDevice_t g0 = dev(0);
    static const struct {
        unsigned index, id, slices, count, sm, ce, dec, jpeg, ofa;
        unsigned long long mib;
        const char *name;
        unsigned nplace, first, size;
    } want[] = {
        {0, 19, 1, 7, 14, 1, 0, 0, 0, 9728, "MIG 1g.10gb", 7, 0, 1},
        {7, 20, 1, 1, 14, 1, 1, 1, 1, 9728, "MIG 1g.10gb+me", 7, 0, 1},
        {9, 15, 1, 4, 14, 1, 1, 0, 0, 19968, "MIG 1g.20gb", 4, 0, 2},
        {1, 14, 2, 3, 28, 2, 1, 0, 0, 19968, "MIG 2g.20gb", 3, 0, 2},
        {2, 9, 3, 2, 42, 3, 2, 0, 0, 40192, "MIG 3g.40gb", 2, 0, 4},
        {3, 5, 4, 1, 56, 4, 2, 0, 0, 40192, "MIG 4g.40gb", 1, 0, 4},
        {4, 0, 7, 1, 98, 7, 5, 1, 1, 80640, "MIG 7g.80gb", 1, 0, 8},
    };
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        nvmlGpuInstanceProfileInfo_v2_t v2 = {.version = nvmlGpuInstanceProfileInfo_v2};
        assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfoV, g0, want[i].index, &v2),
                         NVML_SUCCESS);
        assert_int_equal(v2.version, nvmlGpuInstanceProfileInfo_v2);
        assert_int_equal(v2.id, want[i].id);
        assert_int_equal(v2.sliceCount, want[i].slices);
        assert_int_equal(v2.instanceCount, want[i].count);
        assert_int_equal(v2.multiprocessorCount, want[i].sm);
        assert_int_equal(v2.copyEngineCount, want[i].ce);
        assert_int_equal(v2.decoderCount, want[i].dec);
        assert_int_equal(v2.jpegCount, want[i].jpeg);
        assert_int_equal(v2.ofaCount, want[i].ofa);
        assert_int_equal(v2.memorySizeMB, want[i].mib);
        assert_string_equal(v2.name, want[i].name);
        nvmlGpuInstanceProfileInfo_v3_t v3;
        memset(&v3, 0xA5, sizeof(v3));
        v3.version = nvmlGpuInstanceProfileInfo_v3;
        assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfoV, g0, want[i].index,
                              (nvmlGpuInstanceProfileInfo_v2_t *)&v3),
                         NVML_SUCCESS);
        assert_int_equal(v3.id, want[i].id);
        assert_int_equal(v3.memorySizeMB, want[i].mib);
        assert_string_equal(v3.name, want[i].name);
        assert_int_equal(v3.capabilities, 0);
        /* Sizing: NULL buffer gives the count; a short one INSUFFICIENT_SIZE. */
        unsigned n = 0;
        assert_int_equal(
            CALL(nvmlDeviceGetGpuInstancePossiblePlacements_v2, g0, want[i].id, NULL, &n),
            NVML_SUCCESS);
        assert_int_equal(n, want[i].nplace);
        nvmlGpuInstancePlacement_t pl[8];
        if (n > 1) {
            unsigned short_n = n - 1;
            assert_int_equal(
                CALL(nvmlDeviceGetGpuInstancePossiblePlacements_v2, g0, want[i].id, pl, &short_n),
                NVML_ERROR_INSUFFICIENT_SIZE);
            assert_int_equal(short_n, n);
        }
        assert_int_equal(
            CALL(nvmlDeviceGetGpuInstancePossiblePlacements_v2, g0, want[i].id, pl, &n),
            NVML_SUCCESS);
        assert_int_equal(pl[0].start, want[i].first);
        assert_int_equal(pl[0].size, want[i].size);
        assert_true(pl[n - 1].start + pl[n - 1].size <= 8);
    }
    CALL(nvmlShutdown);
}

/* Remaining capacity beside a 3g.40gb (slices 0-3) and a 1g.10gb (slice 4)
 * on an H100. */
static void test_capacity(void **state)
{
    (void)state;
    start_text("[gpu.0]\nmodel = H100-SXM5-80GB\nmig = 3g.40gb, 1g.10gb\n");
    nvmlDevice_t g0 = dev(0);
    static const struct {
        unsigned id, cap;
    } want[] = {{19, 2}, {20, 1}, {15, 1}, {14, 0}, {9, 0}, {5, 0}, {0, 0}};
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        unsigned cap = 99;
        assert_int_equal(CALL(nvmlDeviceGetGpuInstanceRemainingCapacity, g0, want[i].id, &cap),
                         NVML_SUCCESS);
        assert_int_equal(cap, want[i].cap);
    }
    nvmlGpuInstanceProfileInfo_t pi;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfo, g0, GS_GI_PROFILE_7_SLICE, &pi),
                     NVML_SUCCESS);
    assert_int_equal(pi.multiprocessorCount, 132);
    assert_int_equal(pi.memorySizeMB, 81152);
    /* The 3g.40gb MIG device has the profile's 40448 MiB. */
    nvmlDevice_t m;
    nvmlMemory_t mem;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, 0, &m), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo, m, &mem), NVML_SUCCESS);
    assert_int_equal(mem.total, 40448ULL << 20);
    /* Compute instance profiles of the 3g GPU instance: 1c x3, 2c x1, 3c. */
    nvmlGpuInstance_t gi;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g0, 1, &gi), NVML_SUCCESS);
    static const unsigned count[] = {3, 1, 1};
    for (unsigned p = 0; p < 3; p++) {
        nvmlComputeInstanceProfileInfo_v2_t cp = {.version = nvmlComputeInstanceProfileInfo_v2};
        assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceProfileInfoV, gi, p,
                              GS_CI_ENGINE_PROFILE_SHARED, &cp),
                         NVML_SUCCESS);
        assert_int_equal(cp.sliceCount, p + 1);
        assert_int_equal(cp.instanceCount, count[p]);
        assert_int_equal(cp.sharedCopyEngineCount, 3);
        assert_string_equal(cp.name, p == 2   ? "MIG 3g.40gb"
                                     : p == 0 ? "MIG 1c.3g.40gb"
                                              : "MIG 2c.3g.40gb");
        nvmlComputeInstancePlacement_t pl[4];
        unsigned n = 4;
        assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstancePossiblePlacements, gi, p, pl, &n),
                         NVML_SUCCESS);
        assert_int_equal(n, count[p]);
        assert_int_equal(pl[n - 1].start, (n - 1) * (p + 1));
        assert_int_equal(pl[0].size, p + 1);
    }
    nvmlComputeInstanceProfileInfo_t cp;
    assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceProfileInfo, gi, GS_CI_PROFILE_4_SLICE,
                          GS_CI_ENGINE_PROFILE_SHARED, &cp),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(
        CALL(nvmlGpuInstanceGetComputeInstanceProfileInfo, gi, GS_CI_PROFILE_1_SLICE, 1, &cp),
        NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceProfileInfo, gi, GS_CI_PROFILE_COUNT,
                          GS_CI_ENGINE_PROFILE_SHARED, &cp),
                     NVML_ERROR_INVALID_ARGUMENT);
    nvmlComputeInstanceProfileInfo_v2_t bad = {.version = 2};
    assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceProfileInfoV, gi, 0,
                          GS_CI_ENGINE_PROFILE_SHARED, &bad),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    CALL(nvmlShutdown);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void **state)
{
    (void)state;
    nvmlGpuInstanceProfileInfo_t pi;
    nvmlGpuInstance_t gis[8], gi = NULL;
    nvmlGpuInstanceInfo_t info;
    unsigned n = 8;

    /* Before nvmlInit, and with a forged handle. */
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, (nvmlGpuInstance_t)&n, &info),
                     NVML_ERROR_UNINITIALIZED);

    start(SCENARIO_DIR "/a100-mig.ini");
    nvmlDevice_t g0 = dev(0), g1 = dev(1), m;
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, (nvmlGpuInstance_t)&n, &info),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, NULL, &info), NVML_ERROR_INVALID_ARGUMENT);

    /* GPU 0: a profile the board lacks, one past NVML's enum, an unknown id. */
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfo, g0, GS_GI_PROFILE_8_SLICE, &pi),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfo, g0, GS_GI_PROFILE_COUNT, &pi),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfo, g0, 0, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstances, g0, 7, gis, &n), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstances, g0, 19, NULL, &n),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g0, 99, &gi), NVML_ERROR_NOT_FOUND);
    /* The plain version number instead of nvmlGpuInstanceProfileInfo_v2. */
    nvmlGpuInstanceProfileInfo_v2_t v2 = {.version = 2};
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfoV, g0, 0, &v2),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    /* A MIG device handle is not a GPU. */
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, 0, &m), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstances, m, 9, gis, &n), NVML_ERROR_NOT_SUPPORTED);
    nvmlDeviceAttributes_t at;
    assert_int_equal(CALL(nvmlDeviceGetAttributes_v2, g0, &at), NVML_ERROR_NOT_SUPPORTED);

    /* GPU 1: MIG-capable, MIG off.  Placements are answered regardless. */
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfo, g1, 0, &pi),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstances, g1, 19, gis, &n), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceRemainingCapacity, g1, 19, &n),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g1, 1, &gi), NVML_ERROR_NOT_SUPPORTED);
    n = 0;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstancePossiblePlacements_v2, g1, 9, NULL, &n),
                     NVML_SUCCESS);
    assert_int_equal(n, 2);

    /* A handle of an instance that the next scenario does not have. */
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g0, 8, &gi), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_SUCCESS);
    CALL(nvmlShutdown);
    start_text("[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 3g.40gb\n");
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_ERROR_INVALID_ARGUMENT);
    CALL(nvmlShutdown);

    /* A board without MIG. */
    start_text("[gpu.0]\nmodel = RTX-4090\n");
    g0 = dev(0);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceProfileInfo, g0, 0, &pi),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstancePossiblePlacements_v2, g0, 19, NULL, &n),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstances, g0, 19, gis, &n), NVML_ERROR_NOT_SUPPORTED);
    CALL(nvmlShutdown);
}

/* One 7g.80gb instance takes the whole GPU: 8 memory slices, 7 compute. */
static void test_whole_gpu(void **state)
{
    (void)state;
    start_text("[gpu.0]\nmodel = H100-SXM5-80GB\nmig = 7g.80gb\n");
    nvmlDevice_t g0 = dev(0), m;
    nvmlGpuInstance_t gi;
    nvmlGpuInstanceInfo_t info;
    nvmlMemory_t mem;
    unsigned cap = 99;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, g0, 0, &gi), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_SUCCESS);
    assert_int_equal(info.profileId, 0);
    assert_int_equal(info.placement.start, 0);
    assert_int_equal(info.placement.size, 8);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceRemainingCapacity, g0, 19, &cap), NVML_SUCCESS);
    assert_int_equal(cap, 0);
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, 0, &m), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo, m, &mem), NVML_SUCCESS);
    assert_int_equal(mem.total, 81152ULL << 20);
    nvmlComputeInstanceProfileInfo_t cp;
    assert_int_equal(CALL(nvmlGpuInstanceGetComputeInstanceProfileInfo, gi, GS_CI_PROFILE_7_SLICE,
                          GS_CI_ENGINE_PROFILE_SHARED, &cp),
                     NVML_SUCCESS);
    assert_int_equal(cp.multiprocessorCount, 132);
    assert_int_equal(cp.sharedOfaCount, 1);
    CALL(nvmlShutdown);
}

/* The +me profile: the one set of media engines (OFA, JPEG) of an A100. */
static void test_media_extension(void **state)
{
    (void)state;
    start_text("[gpu.0]\nmodel = A100-SXM4-80GB\nmig = 1g.10gb+me, 3g.40gb\n");
    nvmlDevice_t g0 = dev(0), m;
    char name[96];
    nvmlDeviceAttributes_t at;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, 0, &m), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetName, m, name, sizeof(name)), NVML_SUCCESS);
    assert_string_equal(name, "NVIDIA A100-SXM4-80GB MIG 1g.10gb+me");
    assert_int_equal(CALL(nvmlDeviceGetAttributes_v2, m, &at), NVML_SUCCESS);
    assert_int_equal(at.sharedOfaCount, 1);
    assert_int_equal(at.sharedJpegCount, 1);
    assert_int_equal(at.sharedDecoderCount, 1);
    static const struct {
        unsigned id, cap;
    } want[] = {{20, 0}, {19, 3}, {15, 1}, {14, 1}, {9, 0}, {5, 0}, {0, 0}};
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        unsigned cap = 99;
        assert_int_equal(CALL(nvmlDeviceGetGpuInstanceRemainingCapacity, g0, want[i].id, &cap),
                         NVML_SUCCESS);
        assert_int_equal(cap, want[i].cap);
    }
    nvmlGpuInstance_t gis[8];
    unsigned n = 0;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstances, g0, 20, gis, &n), NVML_SUCCESS);
    assert_int_equal(n, 1);
    CALL(nvmlShutdown);
}

/* A call on an instance is a call on its parent GPU: a GPUSIM_FAIL rule
 * with @GPU counts it, a rule for another GPU does not. */
static void test_fail_rules(void **state)
{
    (void)state;
    nvmlGpuInstance_t gi;
    nvmlGpuInstanceInfo_t info;
    setenv("GPUSIM_FAIL",
           "nvmlGpuInstanceGetInfo@0:2:GPU_IS_LOST,nvmlGpuInstanceGetInfo@1:1+:UNKNOWN", 1);
    start(SCENARIO_DIR "/a100-mig.ini");
    unsetenv("GPUSIM_FAIL");
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceById, dev(0), 1, &gi), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(CALL(nvmlGpuInstanceGetInfo, gi, &info), NVML_SUCCESS);
    CALL(nvmlShutdown);
}

/* Every MIG-capable preset has a profile table whose placements fit. */
static void test_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < gs_preset_count; i++) {
        size_t n;
        const struct gs_gi_profile *t = gs_mig_profiles(&gs_presets[i], &n);
        if (!gs_presets[i].mig) {
            assert_null(t);
            continue;
        }
        assert_non_null(t);
        assert_int_equal(n, 7);
        for (size_t j = 0; j < n; j++) {
            assert_true(t[j].index < GS_GI_PROFILE_COUNT);
            assert_true(t[j].starts != 0 && t[j].starts < (1U << 8));
            for (unsigned s = 0; s < 8; s++)
                if (t[j].starts & (1U << s))
                    assert_true(s + t[j].mem_slices <= 8);
            assert_ptr_equal(gs_mig_profile_by_id(&gs_presets[i], t[j].id), &t[j]);
            assert_ptr_equal(gs_mig_profile_by_index(&gs_presets[i], t[j].index), &t[j]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),         cmocka_unit_test(test_walk),
        cmocka_unit_test(test_profiles),        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_errors),          cmocka_unit_test(test_whole_gpu),
        cmocka_unit_test(test_media_extension), cmocka_unit_test(test_fail_rules),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/* mig_abi.h -- NVML's MIG instance-management declarations that the
 * simulator exports (sim/api_miginst.c): GPU and compute instance profiles,
 * instances, placements and the MIG device attributes.
 *
 * Layouts are NVIDIA's nvml.h (the 12.x/13.x headers; the same structs are
 * mirrored field for field by cuda-python's cuda.bindings.nvml and
 * rust-nvml's nvml-wrapper-sys).  Versioned structs carry
 * `sizeof(struct) | (version << 24)` in their first word (NVML_STRUCT_VERSION).
 * The create/destroy calls are not declared: the MIG layout is the
 * scenario's (docs/simulator.md, "Changing driver state").
 */
#ifndef GS_MIG_ABI_H
#define GS_MIG_ABI_H

#include "source/nvml_abi.h"

typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;

/* NVML_GPU_INSTANCE_PROFILE_* (the `profile` argument of
 * nvmlDeviceGetGpuInstanceProfileInfo; not the profile *id* it returns). */
enum {
    GS_GI_PROFILE_1_SLICE = 0x0,
    GS_GI_PROFILE_2_SLICE = 0x1,
    GS_GI_PROFILE_3_SLICE = 0x2,
    GS_GI_PROFILE_4_SLICE = 0x3,
    GS_GI_PROFILE_7_SLICE = 0x4,
    GS_GI_PROFILE_8_SLICE = 0x5,
    GS_GI_PROFILE_6_SLICE = 0x6,
    GS_GI_PROFILE_1_SLICE_REV1 = 0x7, /* 1g.Ngb+me */
    GS_GI_PROFILE_2_SLICE_REV1 = 0x8,
    GS_GI_PROFILE_1_SLICE_REV2 = 0x9, /* 1g with two memory slices (1g.20gb) */
    /* 0xA-0x10: the Blackwell +gfx / -me / +me.all profiles of later headers. */
    GS_GI_PROFILE_COUNT = 0x11,
};

/* NVML_COMPUTE_INSTANCE_PROFILE_* and _ENGINE_PROFILE_*. */
enum {
    GS_CI_PROFILE_1_SLICE = 0x0,
    GS_CI_PROFILE_2_SLICE = 0x1,
    GS_CI_PROFILE_3_SLICE = 0x2,
    GS_CI_PROFILE_4_SLICE = 0x3,
    GS_CI_PROFILE_7_SLICE = 0x4,
    GS_CI_PROFILE_8_SLICE = 0x5,
    GS_CI_PROFILE_6_SLICE = 0x6,
    GS_CI_PROFILE_1_SLICE_REV1 = 0x7,
    GS_CI_PROFILE_COUNT = 0x8,
};
enum { GS_CI_ENGINE_PROFILE_SHARED = 0x0, GS_CI_ENGINE_PROFILE_COUNT = 0x1 };

typedef struct {
    unsigned int start; /* first memory slice */
    unsigned int size;  /* memory slices */
} nvmlGpuInstancePlacement_t;

typedef struct {
    unsigned int start; /* first compute slice within the GPU instance */
    unsigned int size;  /* compute slices */
} nvmlComputeInstancePlacement_t;

typedef struct {
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t; /* 48 bytes */

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
} nvmlGpuInstanceProfileInfo_v2_t; /* 152 bytes */

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned int capabilities;
} nvmlGpuInstanceProfileInfo_v3_t; /* 152 bytes */

#define nvmlGpuInstanceProfileInfo_v2                                                              \
    ((unsigned int)(sizeof(nvmlGpuInstanceProfileInfo_v2_t) | (2U << 24)))
#define nvmlGpuInstanceProfileInfo_v3                                                              \
    ((unsigned int)(sizeof(nvmlGpuInstanceProfileInfo_v3_t) | (3U << 24)))

typedef struct {
    nvmlDevice_t device;
    unsigned int id;
    unsigned int profileId;
    nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t; /* 24 bytes */

typedef struct {
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t; /* 36 bytes */

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
} nvmlComputeInstanceProfileInfo_v2_t; /* 136 bytes */

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned int capabilities;
} nvmlComputeInstanceProfileInfo_v3_t; /* 140 bytes */

#define nvmlComputeInstanceProfileInfo_v2                                                          \
    ((unsigned int)(sizeof(nvmlComputeInstanceProfileInfo_v2_t) | (2U << 24)))
#define nvmlComputeInstanceProfileInfo_v3                                                          \
    ((unsigned int)(sizeof(nvmlComputeInstanceProfileInfo_v3_t) | (3U << 24)))

typedef struct {
    nvmlDevice_t device;
    nvmlGpuInstance_t gpuInstance;
    unsigned int id;
    unsigned int profileId;
    nvmlComputeInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t; /* 32 bytes */

typedef struct {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t; /* 40 bytes */

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info);
/* info->version selects the layout: nvmlGpuInstanceProfileInfo_v2 or _v3. */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t *info);
nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device,
                                                           unsigned int profileId,
                                                           nvmlGpuInstancePlacement_t *placements,
                                                           unsigned int *count);
nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId,
                                                       unsigned int *count);
nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId,
                                       nvmlGpuInstance_t *gpuInstances, unsigned int *count);
nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                          nvmlGpuInstance_t *gpuInstance);
nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info);
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance,
                                                          unsigned int profile,
                                                          unsigned int engProfile,
                                                          nvmlComputeInstanceProfileInfo_t *info);
nvmlReturn_t
nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                              unsigned int engProfile,
                                              nvmlComputeInstanceProfileInfo_v2_t *info);
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceRemainingCapacity(nvmlGpuInstance_t gpuInstance,
                                                                unsigned int profileId,
                                                                unsigned int *count);
nvmlReturn_t nvmlGpuInstanceGetComputeInstancePossiblePlacements(
    nvmlGpuInstance_t gpuInstance, unsigned int profileId,
    nvmlComputeInstancePlacement_t *placements, unsigned int *count);
nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance,
                                                unsigned int profileId,
                                                nvmlComputeInstance_t *computeInstances,
                                                unsigned int *count);
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id,
                                                   nvmlComputeInstance_t *computeInstance);
nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance,
                                           nvmlComputeInstanceInfo_t *info);
nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes);

#endif /* GS_MIG_ABI_H */

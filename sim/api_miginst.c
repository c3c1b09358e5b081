/* api_miginst.c -- exported NVML calls for MIG instance management, read
 * only: GPU instance profiles, placements and remaining capacity, the GPU
 * instances and compute instances of the scenario's MIG layout, and the
 * attributes of a MIG device.
 *
 * The scenario's `mig =` list is the layout: MIG device k is GPU instance k
 * (its profile and placement from sim/mig.c) holding one compute instance
 * that spans the whole GPU instance (compute instance id 0).  Profiles are
 * answered by the board's table whether or not instances exist; instances
 * only while MIG mode is on.
 *
 * Error codes, as nvml.h documents them: a board without MIG, a profile the
 * board does not have, and instance queries with MIG mode off answer
 * NOT_SUPPORTED; a profile index past NVML's enum, NULL pointers and
 * handles that are not (or no longer) ours answer INVALID_ARGUMENT; an id
 * with no instance answers NOT_FOUND.  Possible placements are answered
 * with MIG mode off ("regardless of whether MIG is enabled").  nvml.h says
 * these queries need a privileged user; the privilege is the mig/monitor
 * capability, world-readable by default, so non-root callers are answered
 * (GPUSIM_FAIL can inject NO_PERMISSION).  Create/destroy are not
 * exported; nvmlDeviceSetMigMode (sim/api_set.c) changes only the pending
 * mode, so the layout here never changes within a session.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "mig_abi.h"

/* Instance handles are pointers into static tables, like device handles. */
struct nvmlGpuInstance_st {
    char unused;
};
struct nvmlComputeInstance_st {
    char unused;
};
static struct nvmlGpuInstance_st g_gi[GS_MAX_GPUS * GS_MAX_MIG];
static struct nvmlComputeInstance_st g_ci[GS_MAX_GPUS * GS_MAX_MIG];

static nvmlGpuInstance_t gi_handle(unsigned gpu, unsigned k)
{
    return &g_gi[gpu * GS_MAX_MIG + k];
}

static nvmlComputeInstance_t ci_handle(unsigned gpu, unsigned k)
{
    return &g_ci[gpu * GS_MAX_MIG + k];
}

/* Decodes an instance handle from table base[n]; false when not ours. */
static bool decode(const void *h, const void *base, size_t n, unsigned *gpu, unsigned *k)
{
    uintptr_t p = (uintptr_t)h, b = (uintptr_t)base;
    if (p < b || p >= b + n)
        return false;
    size_t idx = p - b;
    *gpu = (unsigned)(idx / GS_MAX_MIG);
    *k = (unsigned)(idx % GS_MAX_MIG);
    return true;
}

/* The call prologue for a GPU or compute instance handle: a call on an
 * instance is a call on its parent GPU (faults, GPUSIM_FAIL rules).  *k is
 * the MIG device index; a handle of an instance that the loaded scenario
 * does not have answers INVALID_ARGUMENT. */
static nvmlReturn_t inst_begin(struct gs_call *c, const char *fn, const void *h, bool ci,
                               int args_ok, unsigned *k)
{
    unsigned gpu = 0;
    bool ours =
        ci ? decode(h, g_ci, sizeof(g_ci), &gpu, k) : decode(h, g_gi, sizeof(g_gi), &gpu, k);
    nvmlReturn_t r = gs_begin(c, fn, GS_H_PHYS, ours ? gs_handle(gpu, -1) : NULL, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    if (*k >= c->g->nmig || !c->g->mig[*k].gip)
        return gs_end(c, NVML_ERROR_INVALID_ARGUMENT);
    return NVML_SUCCESS;
}

/* ------------------------------------------------------- GPU instances */

static void gi_fill(const struct gs_gi_profile *p, unsigned *id, unsigned *slices, unsigned *count,
                    unsigned *sm, unsigned *ce, unsigned *dec, unsigned *enc, unsigned *jpeg,
                    unsigned *ofa, unsigned long long *mib)
{
    *id = p->id;
    *slices = p->slices;
    *count = p->count;
    *sm = p->sm;
    *ce = p->ce;
    *dec = p->dec;
    *enc = p->enc;
    *jpeg = p->jpeg;
    *ofa = p->ofa;
    *mib = p->mem_mib;
}

/* The profile for NVML profile index `profile` on the call's GPU, or the
 * error to answer. */
static nvmlReturn_t gi_profile(const struct gs_call *c, unsigned profile,
                               const struct gs_gi_profile **p)
{
    if (!c->g->mig_capable)
        return NVML_ERROR_NOT_SUPPORTED;
    if (profile >= GS_GI_PROFILE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!c->g->nmig)
        return NVML_ERROR_NOT_SUPPORTED;
    *p = gs_mig_profile_by_index(c->g->preset, profile);
    return *p ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device,
                                                           unsigned int profile,
                                                           nvmlGpuInstanceProfileInfo_t *info)
{
    struct gs_call c;
    const struct gs_gi_profile *p = NULL;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    r = gi_profile(&c, profile, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r);
    memset(info, 0, sizeof(*info));
    gi_fill(p, &info->id, &info->sliceCount, &info->instanceCount, &info->multiprocessorCount,
            &info->copyEngineCount, &info->decoderCount, &info->encoderCount, &info->jpegCount,
            &info->ofaCount, &info->memorySizeMB);
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY /* the versioned and _v2 calls are newer than R450 */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device,
                                                            unsigned int profile,
                                                            nvmlGpuInstanceProfileInfo_v2_t *info)
{
    struct gs_call c;
    const struct gs_gi_profile *p = NULL;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    unsigned version = info->version;
    if (version != nvmlGpuInstanceProfileInfo_v2 && version != nvmlGpuInstanceProfileInfo_v3)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    r = gi_profile(&c, profile, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r);
    if (version == nvmlGpuInstanceProfileInfo_v2) {
        memset(info, 0, sizeof(*info));
        info->version = version;
        gi_fill(p, &info->id, &info->sliceCount, &info->instanceCount, &info->multiprocessorCount,
                &info->copyEngineCount, &info->decoderCount, &info->encoderCount, &info->jpegCount,
                &info->ofaCount, &info->memorySizeMB);
        snprintf(info->name, sizeof(info->name), "MIG %s", p->name);
    } else {
        nvmlGpuInstanceProfileInfo_v3_t *v3 = (nvmlGpuInstanceProfileInfo_v3_t *)info;
        memset(v3, 0, sizeof(*v3));
        v3->version = version;
        gi_fill(p, &v3->id, &v3->sliceCount, &v3->instanceCount, &v3->multiprocessorCount,
                &v3->copyEngineCount, &v3->decoderCount, &v3->encoderCount, &v3->jpegCount,
                &v3->ofaCount, &v3->memorySizeMB);
        snprintf(v3->name, sizeof(v3->name), "MIG %s", p->name);
        v3->capabilities = 0; /* no P2P (nvidia-smi's P2P column says No), no graphics */
    }
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(
    nvmlDevice_t device, unsigned int profileId, nvmlGpuInstancePlacement_t *placements,
    unsigned int *count)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->mig_capable)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    const struct gs_gi_profile *p = gs_mig_profile_by_id(c.g->preset, profileId);
    if (!p)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned n = 0;
    for (unsigned s = 0; s < GS_MIG_MEMORY_SLICES; s++)
        n += (p->starts >> s) & 1U;
    if (!placements) {
        *count = n;
        return gs_end(&c, NVML_SUCCESS);
    }
    if (*count < n) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    unsigned i = 0;
    for (unsigned s = 0; s < GS_MIG_MEMORY_SLICES; s++)
        if (p->starts & (1U << s))
            placements[i++] = (nvmlGpuInstancePlacement_t){.start = s, .size = p->mem_slices};
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}
#endif

/* The profile with id profileId for a query about existing instances. */
static nvmlReturn_t gi_profile_id(const struct gs_call *c, unsigned profileId,
                                  const struct gs_gi_profile **p)
{
    if (!c->g->mig_capable || !c->g->nmig)
        return NVML_ERROR_NOT_SUPPORTED;
    *p = gs_mig_profile_by_id(c->g->preset, profileId);
    return *p ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device,
                                                                 unsigned int profileId,
                                                                 unsigned int *count)
{
    struct gs_call c;
    const struct gs_gi_profile *p = NULL;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    r = gi_profile_id(&c, profileId, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r);
    *count = gs_mig_gi_capacity(c.g, p);
    return gs_end(&c, NVML_SUCCESS);
}

/* The caller's buffer holds the profile's instanceCount handles (nvml.h);
 * *count receives how many were written. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId,
                                                 nvmlGpuInstance_t *gpuInstances,
                                                 unsigned int *count)
{
    struct gs_call c;
    const struct gs_gi_profile *p = NULL;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, gpuInstances != NULL && count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    r = gi_profile_id(&c, profileId, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r);
    unsigned n = 0;
    for (unsigned k = 0; k < c.g->nmig && n < p->count; k++)
        if (c.g->mig[k].gip == p)
            gpuInstances[n++] = gi_handle(c.gpu, k);
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                                    nvmlGpuInstance_t *gpuInstance)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, gpuInstance != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->mig_capable || !c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    for (unsigned k = 0; k < c.g->nmig; k++) {
        if (c.g->mig[k].gi_id == id) {
            *gpuInstance = gi_handle(c.gpu, k);
            return gs_end(&c, NVML_SUCCESS);
        }
    }
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance,
                                              nvmlGpuInstanceInfo_t *info)
{
    struct gs_call c;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, gpuInstance, false, info != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    const struct gs_mig_dev *d = &c.g->mig[k];
    memset(info, 0, sizeof(*info));
    info->device = gs_handle(c.gpu, -1);
    info->id = d->gi_id;
    info->profileId = d->gip->id;
    info->placement.start = d->start;
    info->placement.size = d->gip->mem_slices;
    return gs_end(&c, NVML_SUCCESS);
}

/* --------------------------------------------------- compute instances */

/* Compute slices of NVML compute instance profile i; 0 for the profiles no
 * modelled board has (8, 6 and 1_REV1). */
static unsigned ci_slices(unsigned i)
{
    static const unsigned s[GS_CI_PROFILE_COUNT] = {1, 2, 3, 4, 7, 0, 0, 0};
    return i < GS_CI_PROFILE_COUNT ? s[i] : 0;
}

/* The compute instance profile that spans a GPU instance of `slices`. */
static unsigned ci_full_profile(unsigned slices)
{
    for (unsigned i = 0; i < GS_CI_PROFILE_COUNT; i++)
        if (ci_slices(i) == slices)
            return i;
    return GS_CI_PROFILE_COUNT;
}

struct ci_prof {
    unsigned id, slices, count, sm, ce, dec, enc, jpeg, ofa;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
};

/* Compute instance profile `profile` inside GPU instance d, or the error. */
static nvmlReturn_t ci_profile(const struct gs_mig_dev *d, unsigned profile, unsigned engProfile,
                               struct ci_prof *out)
{
    if (profile >= GS_CI_PROFILE_COUNT || engProfile >= GS_CI_ENGINE_PROFILE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned cs = ci_slices(profile), gs = d->gip->slices;
    if (cs == 0 || cs > gs)
        return NVML_ERROR_NOT_SUPPORTED;
    const struct gs_gi_profile *p = d->gip;
    *out = (struct ci_prof){
        .id = profile,
        .slices = cs,
        .count = gs / cs,
        /* SMs in proportion to the slices (exact on A100: 14 per slice). */
        .sm = cs == gs ? p->sm : p->sm * cs / gs,
        .ce = p->ce,
        .dec = p->dec,
        .enc = p->enc,
        .jpeg = p->jpeg,
        .ofa = p->ofa,
    };
    if (cs == gs)
        snprintf(out->name, sizeof(out->name), "MIG %s", p->name);
    else
        snprintf(out->name, sizeof(out->name), "MIG %uc.%s", cs, p->name);
    return NVML_SUCCESS;
}

GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(
    nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile,
    nvmlComputeInstanceProfileInfo_t *info)
{
    struct gs_call c;
    struct ci_prof p;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, gpuInstance, false, info != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    r = ci_profile(&c.g->mig[k], profile, engProfile, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r);
    *info = (nvmlComputeInstanceProfileInfo_t){
        .id = p.id,
        .sliceCount = p.slices,
        .instanceCount = p.count,
        .multiprocessorCount = p.sm,
        .sharedCopyEngineCount = p.ce,
        .sharedDecoderCount = p.dec,
        .sharedEncoderCount = p.enc,
        .sharedJpegCount = p.jpeg,
        .sharedOfaCount = p.ofa,
    };
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY
GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(
    nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile,
    nvmlComputeInstanceProfileInfo_v2_t *info)
{
    struct gs_call c;
    struct ci_prof p;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, gpuInstance, false, info != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    unsigned version = info->version;
    if (version != nvmlComputeInstanceProfileInfo_v2 &&
        version != nvmlComputeInstanceProfileInfo_v3)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    r = ci_profile(&c.g->mig[k], profile, engProfile, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r);
    /* v3 is v2 plus a trailing capabilities word (0: no graphics). */
    if (version == nvmlComputeInstanceProfileInfo_v3)
        memset(info, 0, sizeof(nvmlComputeInstanceProfileInfo_v3_t));
    else
        memset(info, 0, sizeof(*info));
    info->version = version;
    info->id = p.id;
    info->sliceCount = p.slices;
    info->instanceCount = p.count;
    info->multiprocessorCount = p.sm;
    info->sharedCopyEngineCount = p.ce;
    info->sharedDecoderCount = p.dec;
    info->sharedEncoderCount = p.enc;
    info->sharedJpegCount = p.jpeg;
    info->sharedOfaCount = p.ofa;
    memcpy(info->name, p.name, sizeof(info->name));
    return gs_end(&c, NVML_SUCCESS);
}
#endif

/* Compute slices of GPU instance d used by its compute instance: all. */
static unsigned ci_used(const struct gs_mig_dev *d)
{
    return (1U << d->gip->slices) - 1;
}

GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceRemainingCapacity(
    nvmlGpuInstance_t gpuInstance, unsigned int profileId, unsigned int *count)
{
    struct gs_call c;
    struct ci_prof p;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, gpuInstance, false, count != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    const struct gs_mig_dev *d = &c.g->mig[k];
    r = ci_profile(d, profileId, GS_CI_ENGINE_PROFILE_SHARED, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r == NVML_ERROR_INVALID_ARGUMENT ? NVML_ERROR_NOT_SUPPORTED : r);
    unsigned used = ci_used(d), n = 0;
    for (unsigned s = 0; s + p.slices <= d->gip->slices; s += p.slices) {
        unsigned m = ((1U << p.slices) - 1) << s;
        if (!(m & used)) {
            used |= m;
            n++;
        }
    }
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstancePossiblePlacements(
    nvmlGpuInstance_t gpuInstance, unsigned int profileId,
    nvmlComputeInstancePlacement_t *placements, unsigned int *count)
{
    struct gs_call c;
    struct ci_prof p;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, gpuInstance, false, count != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    r = ci_profile(&c.g->mig[k], profileId, GS_CI_ENGINE_PROFILE_SHARED, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r == NVML_ERROR_INVALID_ARGUMENT ? NVML_ERROR_NOT_SUPPORTED : r);
    unsigned n = p.count;
    if (!placements) {
        *count = n;
        return gs_end(&c, NVML_SUCCESS);
    }
    if (*count < n) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    for (unsigned i = 0; i < n; i++)
        placements[i] = (nvmlComputeInstancePlacement_t){.start = i * p.slices, .size = p.slices};
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance,
                                                          unsigned int profileId,
                                                          nvmlComputeInstance_t *computeInstances,
                                                          unsigned int *count)
{
    struct gs_call c;
    struct ci_prof p;
    unsigned k = 0;
    nvmlReturn_t r =
        inst_begin(&c, __func__, gpuInstance, false, computeInstances != NULL && count != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    const struct gs_mig_dev *d = &c.g->mig[k];
    r = ci_profile(d, profileId, GS_CI_ENGINE_PROFILE_SHARED, &p);
    if (r != NVML_SUCCESS)
        return gs_end(&c, r == NVML_ERROR_INVALID_ARGUMENT ? NVML_ERROR_NOT_SUPPORTED : r);
    unsigned n = 0;
    if (profileId == ci_full_profile(d->gip->slices))
        computeInstances[n++] = ci_handle(c.gpu, k);
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance,
                                                             unsigned int id,
                                                             nvmlComputeInstance_t *computeInstance)
{
    struct gs_call c;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, gpuInstance, false, computeInstance != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    if (id != c.g->mig[k].ci_id)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    *computeInstance = ci_handle(c.gpu, k);
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY
GS_EXPORT nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance,
                                                     nvmlComputeInstanceInfo_t *info)
{
    struct gs_call c;
    unsigned k = 0;
    nvmlReturn_t r = inst_begin(&c, __func__, computeInstance, true, info != NULL, &k);
    if (r != NVML_SUCCESS)
        return r;
    const struct gs_mig_dev *d = &c.g->mig[k];
    memset(info, 0, sizeof(*info));
    info->device = gs_handle(c.gpu, -1);
    info->gpuInstance = gi_handle(c.gpu, k);
    info->id = d->ci_id;
    info->profileId = ci_full_profile(d->gip->slices);
    info->placement.start = 0;
    info->placement.size = d->gip->slices;
    return gs_end(&c, NVML_SUCCESS);
}

/* MIG device handles only (nvml.h: "currently only supports MIG device
 * handles"): the GPU instance's engines, its compute instance's SMs and the
 * MIG device's memory as nvmlDeviceGetMemoryInfo reports it. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device,
                                                  nvmlDeviceAttributes_t *attributes)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, attributes != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.mig < 0 || !c.g->mig[c.mig].gip)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    const struct gs_mig_dev *d = &c.g->mig[c.mig];
    *attributes = (nvmlDeviceAttributes_t){
        .multiprocessorCount = d->gip->sm,
        .sharedCopyEngineCount = d->gip->ce,
        .sharedDecoderCount = d->gip->dec,
        .sharedEncoderCount = d->gip->enc,
        .sharedJpegCount = d->gip->jpeg,
        .sharedOfaCount = d->gip->ofa,
        .gpuInstanceSliceCount = d->gip->slices,
        .computeInstanceSliceCount = d->gip->slices,
        .memorySizeMB = d->mem_total >> 20,
    };
    return gs_end(&c, NVML_SUCCESS);
}
#endif

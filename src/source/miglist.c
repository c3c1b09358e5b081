/* miglist.c -- the MIG instance listings' reads (see miglist.h).
 *
 * As nvml_q.c: the sampler's library opened again (the same loaded object;
 * nvmlInit_v2/nvmlShutdown are reference counted) and its symbols looked up
 * by name, so a library without the instance calls lists nothing instead of
 * failing to load.  The structs are nvml.h's (12.x/13.x headers), declared
 * here because nothing else reads them: versioned ones carry
 * sizeof | version << 24 in their first word.
 */
#include "miglist.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/value.h"
#include "nvml_abi.h"

typedef struct gm_mig_nvml_gi *mig_gi_t; /* nvmlGpuInstance_t */
typedef struct gm_mig_nvml_ci *mig_ci_t; /* nvmlComputeInstance_t */

struct gip_v2 { /* nvmlGpuInstanceProfileInfo_v2_t */
    unsigned version, id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount,
        copyEngineCount, decoderCount, encoderCount, jpegCount, ofaCount;
    unsigned long long memorySizeMB;
    char name[96];
};
struct cip_v2 { /* nvmlComputeInstanceProfileInfo_v2_t */
    unsigned version, id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
        sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount;
    char name[96];
};
struct gi_info { /* nvmlGpuInstanceInfo_t */
    nvmlDevice_t device;
    unsigned id, profileId, start, size;
};
struct ci_info { /* nvmlComputeInstanceInfo_t */
    nvmlDevice_t device;
    mig_gi_t gi;
    unsigned id, profileId, start, size;
};
#define GIP_V2 ((unsigned)(sizeof(struct gip_v2) | (2U << 24)))
#define CIP_V2 ((unsigned)(sizeof(struct cip_v2) | (2U << 24)))

enum { GIP_COUNT = 0x11, CIP_COUNT = 0x8 }; /* NVML_*_INSTANCE_PROFILE_COUNT */

struct fns {
    nvmlReturn_t (*mode)(nvmlDevice_t, unsigned *, unsigned *);
    nvmlReturn_t (*gip)(nvmlDevice_t, unsigned, struct gip_v2 *);
    nvmlReturn_t (*place)(nvmlDevice_t, unsigned, struct gm_mig_placement *, unsigned *);
    nvmlReturn_t (*cap)(nvmlDevice_t, unsigned, unsigned *);
    nvmlReturn_t (*gis)(nvmlDevice_t, unsigned, mig_gi_t *, unsigned *);
    nvmlReturn_t (*gi_info)(mig_gi_t, struct gi_info *);
    nvmlReturn_t (*cip)(mig_gi_t, unsigned, unsigned, struct cip_v2 *);
    nvmlReturn_t (*ci_cap)(mig_gi_t, unsigned, unsigned *);
    nvmlReturn_t (*cis)(mig_gi_t, unsigned, mig_ci_t *, unsigned *);
    nvmlReturn_t (*ci_info)(mig_ci_t, struct ci_info *);
};

/* nvidia-smi's order of profiles: slices, then memory, then NVML's index
 * (1g, 1g+me, 1g with two memory slices, 2g, ..., 7g). */
static int gip_cmp(const void *a, const void *b)
{
    const struct gm_mig_gip *x = a, *y = b;
    if (x->slices != y->slices)
        return x->slices < y->slices ? -1 : 1;
    if (x->mem_mb != y->mem_mb)
        return x->mem_mb < y->mem_mb ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void read_cis(const struct fns *f, mig_gi_t h, struct gm_mig_gi *gi, unsigned gi_slices)
{
    for (unsigned k = 0; k < CIP_COUNT && gi->ncip < GM_MIG_MAX_CIP; k++) {
        struct cip_v2 p;
        memset(&p, 0, sizeof(p));
        p.version = CIP_V2;
        if (f->cip(h, k, 0, &p) != NVML_SUCCESS) /* engine profile: shared */
            continue;
        struct gm_mig_cip *c = &gi->cip[gi->ncip++];
        c->id = p.id;
        c->slices = p.sliceCount;
        c->total = p.instanceCount;
        c->sm = p.multiprocessorCount;
        c->ce = p.sharedCopyEngineCount;
        c->dec = p.sharedDecoderCount;
        c->enc = p.sharedEncoderCount;
        c->jpeg = p.sharedJpegCount;
        c->ofa = p.sharedOfaCount;
        c->whole = p.sliceCount == gi_slices;
        snprintf(c->name, sizeof(c->name), "%.*s", (int)sizeof(p.name), p.name);
        c->free_ok = f->ci_cap && f->ci_cap(h, p.id, &c->free) == NVML_SUCCESS;
        mig_ci_t cis[GM_MIG_MAX_CI];
        unsigned n = 0;
        if (!f->cis || !f->ci_info || p.instanceCount > GM_MIG_MAX_CI ||
            f->cis(h, p.id, cis, &n) != NVML_SUCCESS)
            continue;
        for (unsigned j = 0; j < n && j < GM_MIG_MAX_CI && gi->nci < GM_MIG_MAX_CI; j++) {
            struct ci_info in;
            if (f->ci_info(cis[j], &in) != NVML_SUCCESS)
                continue;
            struct gm_mig_ci *ci = &gi->ci[gi->nci++];
            ci->id = in.id;
            ci->profile_id = in.profileId;
            ci->place.start = in.start;
            ci->place.size = in.size;
            memcpy(ci->name, c->name, sizeof(ci->name));
        }
    }
}

static void read_gpu(const struct fns *f, nvmlDevice_t d, struct gm_mig_gpu *g)
{
    unsigned cur = 0, pend = 0;
    if (!f->mode || f->mode(d, &cur, &pend) != NVML_SUCCESS || cur != 1 || !f->gip)
        return;
    for (unsigned k = 0; k < GIP_COUNT && g->ngip < GM_MIG_MAX_GIP; k++) {
        struct gip_v2 p;
        memset(&p, 0, sizeof(p));
        p.version = GIP_V2;
        if (f->gip(d, k, &p) != NVML_SUCCESS)
            continue;
        struct gm_mig_gip *q = &g->gip[g->ngip++];
        q->index = k;
        q->id = p.id;
        q->slices = p.sliceCount;
        q->total = p.instanceCount;
        q->p2p = p.isP2pSupported;
        q->sm = p.multiprocessorCount;
        q->ce = p.copyEngineCount;
        q->dec = p.decoderCount;
        q->enc = p.encoderCount;
        q->jpeg = p.jpegCount;
        q->ofa = p.ofaCount;
        q->mem_mb = p.memorySizeMB;
        snprintf(q->name, sizeof(q->name), "%.*s", (int)sizeof(p.name), p.name);
        q->free_ok = f->cap && f->cap(d, p.id, &q->free) == NVML_SUCCESS;
        unsigned np = GM_MIG_MAX_PLACE;
        if (f->place && f->place(d, p.id, q->place, &np) == NVML_SUCCESS)
            q->nplace = np < GM_MIG_MAX_PLACE ? np : GM_MIG_MAX_PLACE;
    }
    qsort(g->gip, g->ngip, sizeof(g->gip[0]), gip_cmp);
    g->mig_on = 1;
    if (!f->gis || !f->gi_info)
        return;
    for (unsigned k = 0; k < g->ngip; k++) {
        const struct gm_mig_gip *q = &g->gip[k];
        mig_gi_t h[GM_MIG_MAX_GI];
        unsigned n = 0;
        if (q->total > GM_MIG_MAX_GI || f->gis(d, q->id, h, &n) != NVML_SUCCESS)
            continue;
        unsigned first = g->ngi;
        for (unsigned j = 0; j < n && j < GM_MIG_MAX_GI && g->ngi < GM_MIG_MAX_GI; j++) {
            struct gi_info in;
            if (f->gi_info(h[j], &in) != NVML_SUCCESS)
                continue;
            struct gm_mig_gi *gi = &g->gi[g->ngi++];
            memset(gi, 0, sizeof(*gi));
            gi->id = in.id;
            gi->profile_id = in.profileId;
            gi->place.start = in.start;
            gi->place.size = in.size;
            memcpy(gi->name, q->name, sizeof(gi->name));
            if (f->cip)
                read_cis(f, h[j], gi, q->slices);
        }
        /* within a profile by instance id, as nvidia-smi */
        for (unsigned a = first + 1; a < g->ngi; a++)
            for (unsigned b = a; b > first && g->gi[b - 1].id > g->gi[b].id; b--) {
                struct gm_mig_gi t = g->gi[b];
                g->gi[b] = g->gi[b - 1];
                g->gi[b - 1] = t;
            }
    }
}

int gm_mig_read(const char *lib_path, const unsigned *idx, uint32_t n, struct gm_mig_gpu *out,
                struct gm_err *err)
{
    memset(out, 0, n * sizeof(*out));
    for (uint32_t i = 0; i < n; i++)
        out[i].index = idx[i];
    if (!lib_path)
        lib_path = getenv("GPUMON_NVML_LIB");
    if (!lib_path || !*lib_path)
        lib_path = "libnvidia-ml.so.1";
    void *dl = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *why = dlerror();
        return gm_err_set(err, GM_E_NOLIB, "cannot load %s (%s)", lib_path,
                          why ? why : "unknown reason");
    }
    nvmlReturn_t (*init)(void) = (nvmlReturn_t(*)(void))dlsym(dl, "nvmlInit_v2");
    nvmlReturn_t (*shutdown)(void) = (nvmlReturn_t(*)(void))dlsym(dl, "nvmlShutdown");
    nvmlReturn_t rc = init ? init() : NVML_ERROR_FUNCTION_NOT_FOUND;
    if (rc != NVML_SUCCESS) {
        dlclose(dl);
        return gm_err_set(err, GM_E_DRIVER, "nvmlInit failed: %s", gm_nvml_error_text(rc));
    }
    struct fns f;
#define LOAD(field, name) f.field = (__typeof__(f.field))dlsym(dl, name)
    LOAD(mode, "nvmlDeviceGetMigMode");
    LOAD(gip, "nvmlDeviceGetGpuInstanceProfileInfoV");
    LOAD(place, "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
    LOAD(cap, "nvmlDeviceGetGpuInstanceRemainingCapacity");
    LOAD(gis, "nvmlDeviceGetGpuInstances");
    LOAD(gi_info, "nvmlGpuInstanceGetInfo");
    LOAD(cip, "nvmlGpuInstanceGetComputeInstanceProfileInfoV");
    LOAD(ci_cap, "nvmlGpuInstanceGetComputeInstanceRemainingCapacity");
    LOAD(cis, "nvmlGpuInstanceGetComputeInstances");
    LOAD(ci_info, "nvmlComputeInstanceGetInfo_v2");
#undef LOAD
    nvmlReturn_t (*handle)(unsigned, nvmlDevice_t *) =
        (nvmlReturn_t(*)(unsigned, nvmlDevice_t *))dlsym(dl, "nvmlDeviceGetHandleByIndex_v2");
    for (uint32_t i = 0; i < n && handle; i++) {
        nvmlDevice_t d = NULL;
        if (handle(idx[i], &d) == NVML_SUCCESS)
            read_gpu(&f, d, &out[i]);
    }
    if (shutdown)
        shutdown();
    dlclose(dl);
    return 0;
}

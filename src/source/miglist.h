/* miglist.h -- what `nvidia-smi mig -lgip/-lgipp/-lgi/-lcip/-lci` list:
 * the GPU instance profiles of each GPU in MIG mode (with their free and
 * total counts and possible placements), its GPU instances, and for each
 * GPU instance its compute instance profiles and compute instances.
 *
 * Read only, with NVML's instance-management queries (nvml.h's
 * nvmlDeviceGetGpuInstance* and nvmlGpuInstanceGetComputeInstance*), from
 * the library the sampler uses, on the caller's thread without the hung-call
 * watchdog: call it after a sample succeeded.  A GPU that is not in MIG mode
 * or whose library lacks the calls has mig_on 0 and nothing listed.
 * Orders follow nvidia-smi (view/miglist.c): profiles by slices, then
 * memory, then NVML's profile index; instances by their profile, then id.
 */
#ifndef GM_SOURCE_MIGLIST_H
#define GM_SOURCE_MIGLIST_H

#include <stdint.h>

#include "../core/err.h"

#define GM_MIG_NAME 96
#define GM_MIG_MAX_GIP 24   /* GPU instance profiles of one GPU */
#define GM_MIG_MAX_PLACE 16 /* placements of one profile */
#define GM_MIG_MAX_GI 16    /* GPU instances of one GPU */
#define GM_MIG_MAX_CIP 8    /* compute instance profiles of one GPU instance */
#define GM_MIG_MAX_CI 8     /* compute instances of one GPU instance */

struct gm_mig_placement {
    unsigned start, size;
};

struct gm_mig_gip { /* a GPU instance profile */
    unsigned index; /* NVML_GPU_INSTANCE_PROFILE_* */
    unsigned id;    /* the profile id nvidia-smi shows */
    unsigned slices, total, p2p, sm, ce, dec, enc, jpeg, ofa;
    int free_ok; /* whether free could be read */
    unsigned free;
    unsigned long long mem_mb;
    char name[GM_MIG_NAME]; /* "MIG 1g.10gb" (from the library: hostile) */
    unsigned nplace;
    struct gm_mig_placement place[GM_MIG_MAX_PLACE];
};

struct gm_mig_cip { /* a compute instance profile of one GPU instance */
    unsigned id, slices, total, sm, ce, dec, enc, jpeg, ofa;
    int free_ok;
    unsigned free;
    int whole; /* spans the whole GPU instance (nvidia-smi marks it '*') */
    char name[GM_MIG_NAME];
};

struct gm_mig_ci {
    unsigned id, profile_id;
    struct gm_mig_placement place;
    char name[GM_MIG_NAME];
};

struct gm_mig_gi {
    unsigned id, profile_id;
    struct gm_mig_placement place;
    char name[GM_MIG_NAME];
    unsigned ncip, nci;
    struct gm_mig_cip cip[GM_MIG_MAX_CIP];
    struct gm_mig_ci ci[GM_MIG_MAX_CI];
};

struct gm_mig_gpu {
    unsigned index;
    int mig_on; /* in MIG mode (current) with the instance calls answered */
    unsigned ngip, ngi;
    struct gm_mig_gip gip[GM_MIG_MAX_GIP];
    struct gm_mig_gi gi[GM_MIG_MAX_GI];
};

/* Reads the n GPUs idx[0..n-1] into out[0..n-1] through lib_path (NULL:
 * $GPUMON_NVML_LIB or libnvidia-ml.so.1).  Returns 0, or GM_E_NOLIB /
 * GM_E_DRIVER with err set when the library cannot be loaded or
 * initialised (out then all mig_on 0). */
int gm_mig_read(const char *lib_path, const unsigned *idx, uint32_t n, struct gm_mig_gpu *out,
                struct gm_err *err);

#endif

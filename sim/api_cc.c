/* api_cc.c -- the confidential-computing (CC) NVML calls of an R535+ driver
 * on a host where CC is off, the normal case: the system queries say so
 * (no CPU TEE, CC feature and dev-tools mode disabled, no CC environment),
 * the GPUs count as CC capable only when every one is Hopper or newer, and
 * everything that exists only in CC mode (protected memory, certificates,
 * attestation reports, the ready state, key rotation) answers
 * NOT_SUPPORTED, but for the protected memory in use: zeros, as real
 * CC-off drivers answer.  The setters follow sim/api_set.c's privilege model:
 * NOT_SUPPORTED on hardware without CC, NO_PERMISSION when not root, and
 * NOT_SUPPORTED as root, since CC mode is off and can only be turned on
 * outside NVML (the GPU admin tools, then a reset).
 *
 * CC mode itself (a CC-on scenario) is not modelled.  docs/simulator.md
 * ("Confidential computing") gives each answer and its source.  None of
 * this is in the R450-era legacy build.
 */
#include <string.h>

#include "api.h"
#include "cc_abi.h"

/* The layouts nvml.h gives these structs on LP64. */
_Static_assert(sizeof(nvmlConfComputeSystemCaps_t) == 8, "nvmlConfComputeSystemCaps_t");
_Static_assert(sizeof(nvmlConfComputeSystemState_t) == 12, "nvmlConfComputeSystemState_t");
_Static_assert(sizeof(nvmlSystemConfComputeSettings_t) == 20, "nvmlSystemConfComputeSettings_v1_t");
_Static_assert(sizeof(nvmlConfComputeMemSizeInfo_t) == 16, "nvmlConfComputeMemSizeInfo_t");
_Static_assert(sizeof(nvmlConfComputeGpuCertificate_t) == 9224, "nvmlConfComputeGpuCertificate_t");
_Static_assert(sizeof(nvmlConfComputeGpuAttestationReport_t) == 12332,
               "nvmlConfComputeGpuAttestationReport_t");
_Static_assert(sizeof(nvmlConfComputeKeyRotationThresholdInfo_t) == 16,
               "nvmlConfComputeKeyRotationThresholdInfo_v1_t");

#ifndef GPUSIM_LEGACY /* R535 and later */

/* CC needs Hopper or newer; NVIDIA's CC deployment guide supports it only
 * when every GPU the system hands out is capable, so one older GPU makes
 * the system not capable. */
static bool gpu_cc_capable(const struct gs_gpu *g)
{
    return g->arch >= GS_ARCH_HOPPER;
}

static bool system_cc_capable(const struct gs_scenario *s)
{
    if (s->ngpus == 0)
        return false;
    for (unsigned i = 0; i < s->ngpus; i++)
        if (!gpu_cc_capable(&s->gpus[i]))
            return false;
    return true;
}

/* The setters' gate after a successful prologue: NOT_SUPPORTED without CC
 * hardware, NO_PERMISSION when not root (both end the call), else
 * NVML_SUCCESS with the lock still held, as sim/api_set.c orders them. */
static nvmlReturn_t setter_gate(struct gs_call *c, bool capable)
{
    if (!capable)
        return gs_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (!gs_privileged())
        return gs_end(c, NVML_ERROR_NO_PERMISSION);
    return NVML_SUCCESS;
}

/* ------------------------------------------------------ system queries */

GS_EXPORT nvmlReturn_t nvmlSystemGetConfComputeCapabilities(nvmlConfComputeSystemCaps_t *caps)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, caps != NULL);
    if (r != NVML_SUCCESS)
        return r;
    caps->cpuCaps = GS_CC_CPU_CAPS_NONE; /* the simulated host is not a TEE guest */
    caps->gpusCaps = system_cc_capable(c.s) ? GS_CC_GPUS_CAPABLE : GS_CC_GPUS_NOT_CAPABLE;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlSystemGetConfComputeState(nvmlConfComputeSystemState_t *state)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, state != NULL);
    if (r != NVML_SUCCESS)
        return r;
    state->environment = GS_CC_ENVIRONMENT_UNAVAILABLE;
    state->ccFeature = GS_CC_FEATURE_DISABLED;
    state->devToolsMode = GS_CC_DEVTOOLS_MODE_OFF;
    return gs_end(&c, NVML_SUCCESS);
}

/* The state above plus the multi-GPU mode, in a versioned struct. */
GS_EXPORT nvmlReturn_t nvmlSystemGetConfComputeSettings(nvmlSystemConfComputeSettings_t *settings)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, settings != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (settings->version != GS_CC_SETTINGS_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    settings->environment = GS_CC_ENVIRONMENT_UNAVAILABLE;
    settings->ccFeature = GS_CC_FEATURE_DISABLED;
    settings->devToolsMode = GS_CC_DEVTOOLS_MODE_OFF;
    settings->multiGpuMode = GS_CC_MULTIGPU_NONE;
    return gs_end(&c, NVML_SUCCESS);
}

/* The ready state gates work only in CC mode (a CC guest sets it after
 * attestation); with CC off there is none to report.  No public output
 * shows what a CC-off driver answers: NOT_SUPPORTED. */
GS_EXPORT nvmlReturn_t nvmlSystemGetConfComputeGpusReadyState(unsigned int *isAcceptingWork)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, isAcceptingWork != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* Key rotation exists only in CC mode: NOT_SUPPORTED after the version check. */
GS_EXPORT nvmlReturn_t
nvmlSystemGetConfComputeKeyRotationThresholdInfo(nvmlConfComputeKeyRotationThresholdInfo_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (info->version != GS_CC_KEY_ROTATION_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* ------------------------------------------------------ device queries */

/* The protected/unprotected split of video memory exists only in CC mode;
 * with CC off every board answers NOT_SUPPORTED (no public source shows a
 * CC-off Hopper answering zeros). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device,
                                                           nvmlConfComputeMemSizeInfo_t *memInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, memInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* Protected memory in use: with CC off there is none, and the driver says
 * so with zeros: nvidia-smi prints `Conf Compute Protected Memory Usage`
 * Total/Used/Free `0 MiB` (and `protected_memory.*` `0 MiB`) on CC-off
 * GeForce RTX 2080 SUPER and 4080 SUPER, L40S and H100, drivers 590-595
 * (utkuozdemir/nvidia_gpu_exporter internal/captures/).  Turing is the
 * oldest board seen answering; older ones and MIG handles NOT_SUPPORTED. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetConfComputeProtectedMemoryUsage(nvmlDevice_t device,
                                                                    nvmlMemory_t *memory)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, memory != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_TURING)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    memory->total = memory->used = memory->free = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* Certificates and attestation reports come from the GPU's security
 * processor in CC mode only: NOT_SUPPORTED. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetConfComputeGpuCertificate(nvmlDevice_t device,
                                                              nvmlConfComputeGpuCertificate_t *cert)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, cert != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetConfComputeGpuAttestationReport(
    nvmlDevice_t device, nvmlConfComputeGpuAttestationReport_t *report)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, report != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* ------------------------------------------------------------ setters */

GS_EXPORT nvmlReturn_t nvmlDeviceSetConfComputeUnprotectedMemSize(nvmlDevice_t device,
                                                                  unsigned long long sizeKiB)
{
    struct gs_call c;
    (void)sizeKiB;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, 1);
    if (r != NVML_SUCCESS)
        return r;
    if ((r = setter_gate(&c, gpu_cc_capable(c.g))) != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED); /* CC mode is off */
}

GS_EXPORT nvmlReturn_t nvmlSystemSetConfComputeGpusReadyState(unsigned int isAcceptingWork)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0,
                              isAcceptingWork == GS_CC_ACCEPTING_FALSE ||
                                  isAcceptingWork == GS_CC_ACCEPTING_TRUE);
    if (r != NVML_SUCCESS)
        return r;
    if ((r = setter_gate(&c, system_cc_capable(c.s))) != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED); /* CC mode is off */
}

/* A wrong version is refused first; an attacker advantage outside 50..65
 * is a constraint, checked after the privilege as api_set.c does. */
GS_EXPORT nvmlReturn_t
nvmlSystemSetConfComputeKeyRotationThresholdInfo(nvmlConfComputeKeyRotationThresholdInfo_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (info->version != GS_CC_KEY_ROTATION_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if ((r = setter_gate(&c, system_cc_capable(c.s))) != NVML_SUCCESS)
        return r;
    if (info->attackerAdvantage < GS_CC_ATTACKER_ADVANTAGE_MIN ||
        info->attackerAdvantage > GS_CC_ATTACKER_ADVANTAGE_MAX)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED); /* CC mode is off */
}

#endif /* GPUSIM_LEGACY */

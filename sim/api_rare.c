/* api_rare.c -- seldom-used read-only NVML queries with the modelled
 * machine's answers: the host interface cards of S-class units (there are
 * none: nvmlUnitGetCount is 0), the fan control policy (the driver's
 * temperature-driven curve on every board with fans, unless a setter of
 * sim/api_set.c made it manual in this process), API restrictions, bridge chips,
 * drain state, clock monitors, clock offsets, SRAM ECC status, capabilities
 * and the NVLink bandwidth mode.
 *
 * Where no public source says what a board answers (adaptive clocking, the
 * dynamic P-state thresholds, offset ranges, BBX flushes, the power source)
 * the function answers NOT_SUPPORTED after validating its arguments, so a
 * client sees the symbol a 550-series driver exports and the "absent here"
 * answer, never a made-up value.  docs/simulator.md lists each answer and
 * its source.  Functions newer than R450 are left out of the legacy build.
 */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "rare_abi.h"

#define GS_PSTATE_MAX 15 /* NVML_PSTATE_15 */

/* The layouts nvml.h gives these structs on LP64. */
_Static_assert(sizeof(nvmlBridgeChipHierarchy_t) == 1028, "nvmlBridgeChipHierarchy_t");
_Static_assert(sizeof(nvmlClkMonStatus_t) == 264, "nvmlClkMonStatus_t");
_Static_assert(sizeof(nvmlClockOffset_t) == 24, "nvmlClockOffset_v1_t");
_Static_assert(sizeof(nvmlEccErrorCounts_t) == 32, "nvmlEccErrorCounts_t");
_Static_assert(sizeof(nvmlGpuDynamicPstatesInfo_t) == 132, "nvmlGpuDynamicPstatesInfo_t");
_Static_assert(sizeof(nvmlEccSramErrorStatus_t) == 104, "nvmlEccSramErrorStatus_v1_t");

/* No S-class unit, so no HIC: the count is 0 whatever buffer is passed. */
GS_EXPORT nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount,
                                               nvmlHwbcEntry_t *hwbcEntries)
{
    struct gs_call c;
    (void)hwbcEntries;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, hwbcCount != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *hwbcCount = 0;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* Like nvmlDeviceGetFanSpeed_v2: NOT_SUPPORTED on fanless (passively
 * cooled) boards, INVALID_ARGUMENT for a fan index past nvmlDeviceGetNumFans. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan,
                                                        unsigned int *policy)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, policy != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->fans || gs_fn_unsupported(c.g, "nvmlDeviceGetFanSpeed"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (fan >= c.g->fans)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *policy =
        gs_fan_speed(c.g, fan, 0) ? GS_FAN_POLICY_MANUAL : GS_FAN_POLICY_TEMPERATURE_CONTINOUS_SW;
    return gs_end(&c, NVML_SUCCESS);
}
#endif

/* ------------------------------------------------------- R450-era queries */

/* Application clocks are root-only by default on the boards that let them
 * be set (nvidia-smi -acp RESTRICTED); GeForce boards do not, and no board
 * from Volta on lets auto boost be toggled (AutoBoostedClocksEnabled is
 * NOT_SUPPORTED), so that restriction is NOT_SUPPORTED as nvml.h says. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetAPIRestriction(nvmlDevice_t device, unsigned int apiType,
                                                   nvmlEnableState_t *isRestricted)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              isRestricted != NULL && apiType < GS_RESTRICTED_API_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    if (apiType == GS_RESTRICTED_API_SET_AUTO_BOOSTED_CLOCKS || c.g->brand == GS_BRAND_GEFORCE)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *isRestricted =
        c.g->set.api_unrestricted[apiType] ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
    return gs_end(&c, NVML_SUCCESS);
}

/* No modelled board is a multi-GPU board (nvmlDeviceGetMultiGpuBoard 0), so
 * none carries a PLX or BRO4 bridge: 0 bridges. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetBridgeChipInfo(nvmlDevice_t device,
                                                   nvmlBridgeChipHierarchy_t *bridgeHierarchy)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, bridgeHierarchy != NULL);
    if (r != NVML_SUCCESS)
        return r;
    memset(bridgeHierarchy, 0, sizeof(*bridgeHierarchy));
    return gs_end(&c, NVML_SUCCESS);
}

/* The deprecated per-unit ECC counts: the scenario's ECC faults hit device
 * memory; nvml.h reports 0 for the counters a board lacks, so L1, L2 and
 * the register file read 0.  Like TotalEccErrors: NOT_SUPPORTED with ECC
 * off, volatile == aggregate (the simulated driver never reloads). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetDetailedEccErrors(nvmlDevice_t device,
                                                      nvmlMemoryErrorType_t errorType,
                                                      nvmlEccCounterType_t counterType,
                                                      nvmlEccErrorCounts_t *eccCounts)
{
    struct gs_call c;
    unsigned long long corr, unc;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                 eccCounts != NULL && (unsigned)errorType <= 1 && (unsigned)counterType <= 1);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->ecc)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    gs_ecc_read(&c, counterType, &corr, &unc);
    memset(eccCounts, 0, sizeof(*eccCounts));
    eccCounts->deviceMemory = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? corr : unc;
    return gs_end(&c, NVML_SUCCESS);
}

/* Like nvmlDeviceGetNvLinkUtilizationCounter, which it configures:
 * NOT_SUPPORTED without links, INVALID_ARGUMENT past the last link or for a
 * counter other than 0 and 1, then NOT_SUPPORTED (the counters were retired
 * with Ampere and Volta's control state is not modelled). */
GS_EXPORT nvmlReturn_t
nvmlDeviceGetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link, unsigned int counter,
                                      nvmlNvLinkUtilizationControl_t *control)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, control != NULL && counter <= 1);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = gs_nvlinks(c.s, c.gpu);
    if (n == 0)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (link >= n)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* Found by the domain, bus and device numbers of pciInfo (as nvidia-smi
 * drain -p fills them): DISABLED unless nvmlDeviceModifyDrainState drained
 * it in this process; NOT_FOUND for an address with no GPU. */
GS_EXPORT nvmlReturn_t nvmlDeviceQueryDrainState(nvmlPciInfo_t *pciInfo,
                                                 nvmlEnableState_t *currentState)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_NONE, NULL, 0, pciInfo != NULL && currentState != NULL);
    if (r != NVML_SUCCESS)
        return r;
    for (unsigned i = 0; i < c.s->ngpus; i++) {
        const struct gs_gpu *g = &c.s->gpus[i];
        if (g->pci_domain == pciInfo->domain && g->pci_bus == pciInfo->bus &&
            g->pci_device == pciInfo->device) {
            *currentState = g->set.drained ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
            return gs_end(&c, NVML_SUCCESS);
        }
    }
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* ------------------------------------------------- newer than R450 */

/* A device query the simulator does not model: arguments checked, then
 * NOT_SUPPORTED ("this query is not supported by the device"). */
static nvmlReturn_t not_modelled(const char *fn, nvmlDevice_t device, int args_ok)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* Which boards clock adaptively is not public: not modelled. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetAdaptiveClockInfoStatus(nvmlDevice_t device,
                                                            unsigned int *adaptiveClockStatus)
{
    return not_modelled(__func__, device, adaptiveClockStatus != NULL);
}

/* C2C is the Grace-Hopper chip-to-chip link.  Hopper and later boards
 * answer whether it is on: off on every preset (no Grace module), as
 * nvidia-smi prints c2c.mode "Disabled" on an H100 and H200 (driver 590);
 * older boards, GeForce and L40S print [N/A]: NOT_SUPPORTED
 * (utkuozdemir/nvidia_gpu_exporter internal/captures/). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device,
                                                 nvmlC2cModeInfo_v1_t *c2cModeInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, c2cModeInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_HOPPER || c.g->brand == GS_BRAND_GEFORCE)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    c2cModeInfo->isC2cEnabled = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* The only capability nvml.h defines is EGM (extended GPU memory), which
 * needs a Grace CPU beside the GPU: no modelled board has it, mask 0. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetCapabilities(nvmlDevice_t device,
                                                 nvmlDeviceCapabilities_t *caps)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, caps != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (caps->version != GS_DEVICE_CAPABILITIES_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    caps->capMask = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* Frequency monitors: "Ampere or newer fully supported devices", so not on
 * Volta and not on GeForce.  No fault of the model is a clock-monitor fault:
 * global status 0 and an empty list. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetClkMonStatus(nvmlDevice_t device, nvmlClkMonStatus_t *status)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, status != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_AMPERE || c.g->brand == GS_BRAND_GEFORCE)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    memset(status, 0, sizeof(*status));
    return gs_end(&c, NVML_SUCCESS);
}

/* The offset ranges of a board's V/F curve are not public: after checking
 * the version, clock type and P-state, not modelled. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetClockOffsets(nvmlDevice_t device, nvmlClockOffset_t *info)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, info != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (info->version != GS_CLOCK_OFFSET_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if ((unsigned)info->type >= NVML_CLOCK_COUNT || info->pstate > GS_PSTATE_MAX)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* The utilisation percentages exist in the model, but the driver's
 * increase/decrease thresholds that fill the same entries do not appear in
 * any public source: not modelled rather than half made up. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetDynamicPstatesInfo(
    nvmlDevice_t device, nvmlGpuDynamicPstatesInfo_t *pDynamicPstatesInfo)
{
    return not_modelled(__func__, device, pDynamicPstatesInfo != NULL);
}

/* The current V/F offset: overclocking offsets are a GeForce feature (the
 * datacenter boards answer NOT_SUPPORTED): 0 unless nvmlDeviceSet*VfOffset
 * set one in this process. */
static nvmlReturn_t vf_offset(const char *fn, nvmlDevice_t device, int *offset, int which)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, offset != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->brand != GS_BRAND_GEFORCE)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *offset = c.g->set.vf_offset[which];
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpcClkVfOffset(nvmlDevice_t device, int *offset)
{
    return vf_offset(__func__, device, offset, 0);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMemClkVfOffset(nvmlDevice_t device, int *offset)
{
    return vf_offset(__func__, device, offset, 1);
}

/* The ranges: not public for the modelled boards, not modelled. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGpcClkMinMaxVfOffset(nvmlDevice_t device, int *minOffset,
                                                         int *maxOffset)
{
    return not_modelled(__func__, device, minOffset != NULL && maxOffset != NULL);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMemClkMinMaxVfOffset(nvmlDevice_t device, int *minOffset,
                                                         int *maxOffset)
{
    return not_modelled(__func__, device, minOffset != NULL && maxOffset != NULL);
}

/* When the driver flushes the infoROM's black box is not public: not
 * modelled (rather than NOT_READY, which would claim it never did). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetLastBBXFlushTime(nvmlDevice_t device,
                                                     unsigned long long *timestamp,
                                                     unsigned long *durationUs)
{
    return not_modelled(__func__, device, timestamp != NULL && durationUs != NULL);
}

/* AC, battery or undersized supply: servers and desktop cards do not report
 * one, and the laptop preset's supply is not modelled. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetPowerSource(nvmlDevice_t device, unsigned int *powerSource)
{
    return not_modelled(__func__, device, powerSource != NULL);
}

/* The addressing mode (nvmlDeviceAddressingMode_v1_t; "Turing or newer",
 * Linux): HMM on GeForce, workstation boards and L40S, none on Hopper and
 * later datacenter boards, as nvidia-smi prints addressing_mode on the
 * boards captured in utkuozdemir/nvidia_gpu_exporter internal/captures/
 * (RTX 2080 SUPER, 4080 SUPER, L40S: HMM; H100 with and without MIG: None)
 * and an RTX A5000 in Telegraf's testdata (HMM).  No A100 capture was
 * found: it gets HMM by this rule.  ATS (Grace systems) is no preset's. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device,
                                                   nvmlDeviceAddressingMode_t *mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, mode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (mode->version != nvmlDeviceAddressingMode_v1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (c.g->arch < GS_ARCH_TURING)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    bool dc = c.g->arch >= GS_ARCH_HOPPER && c.g->brand != GS_BRAND_GEFORCE &&
              c.g->brand != GS_BRAND_QUADRO && c.g->brand != GS_BRAND_QUADRO_RTX &&
              c.g->brand != GS_BRAND_NVIDIA_RTX;
    mode->value = dc ? 0 : 1; /* NONE : HMM */
    return gs_end(&c, NVML_SUCCESS);
}

/* DRAM encryption (nvmlDramEncryptionInfo_v1_t, R570+): "Blackwell or
 * newer"; nvidia-smi prints dramEncryption.mode.current/pending [N/A] on
 * every board of utkuozdemir/nvidia_gpu_exporter internal/captures/
 * (GeForce RTX 2080 SUPER, 4080 SUPER, L40S, H100, H200; drivers 590-595).
 * No preset is a Blackwell, so every board answers NOT_SUPPORTED; a
 * Blackwell would answer disabled, encryption being opt-in. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetDramEncryptionMode(nvmlDevice_t device,
                                                       nvmlDramEncryptionInfo_t *current,
                                                       nvmlDramEncryptionInfo_t *pending)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, current != NULL && pending != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (current->version != nvmlDramEncryptionInfo_v1 ||
        pending->version != nvmlDramEncryptionInfo_v1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (c.g->arch < GS_ARCH_BLACKWELL)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    current->encryptionState = 0;
    pending->encryptionState = 0;
    return gs_end(&c, NVML_SUCCESS);
}

/* The name NVML keeps per GPU (nvmlHostname_v1_t, R580+): "Blackwell or
 * newer"; nvidia-smi prints hostname [N/A] on every board of
 * utkuozdemir/nvidia_gpu_exporter internal/captures/ (drivers 590-595).
 * No preset is a Blackwell: NOT_SUPPORTED everywhere. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetHostname_v1(nvmlDevice_t device, nvmlHostname_v1_t *hostname)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, hostname != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_BLACKWELL)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    hostname->value[0] = '\0';
    return gs_end(&c, NVML_SUCCESS);
}

/* Platform information (nvmlPlatformInfo_v2_t, R570+): "Blackwell or newer
 * fully supported devices"; older boards NOT_SUPPORTED (nvidia-smi -q
 * prints the section N/A on every board of the 590-595 captures).  A
 * Blackwell answers a rack-scale placement derived from the scenario,
 * not taken from a real system: a 13-digit chassis serial number and an
 * 8-byte InfiniBand GUID from the seed (per GPU for the GUID), tray
 * index (GPU / 4, four GPUs to a compute tray) and slot number (tray + 1),
 * host id 1 (the captures' value), peer type 1 (switch connected) on
 * NVSwitches and 0 (direct) otherwise, and the module id of
 * nvmlDeviceGetModuleId.  Version 2 only. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetPlatformInfo(nvmlDevice_t device,
                                                 nvmlPlatformInfo_t *platformInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, platformInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (platformInfo->version != nvmlPlatformInfo_v2)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (c.g->arch < GS_ARCH_BLACKWELL)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    nvmlPlatformInfo_t *p = platformInfo;
    memset(p->ibGuid, 0, sizeof(p->ibGuid));
    memset(p->chassisSerialNumber, 0, sizeof(p->chassisSerialNumber));
    uint64_t guid = gs_hash(c.s->seed, c.gpu, 910, 1);
    for (int i = 0; i < 8; i++)
        p->ibGuid[i] = (unsigned char)(guid >> (56 - 8 * i));
    char serial[16];
    snprintf(serial, sizeof(serial), "%013llu",
             (unsigned long long)(gs_hash(c.s->seed, 0, 910, 2) % 10000000000000ULL));
    memcpy(p->chassisSerialNumber, serial, 13);
    p->trayIndex = (unsigned char)(c.gpu / 4);
    p->slotNumber = (unsigned char)(c.gpu / 4 + 1);
    p->hostId = 1;
    p->peerType = gs_nvlinks(c.s, c.gpu) ? 1 : 0;
    p->moduleId =
        (unsigned char)(c.g->preset && strstr(c.g->preset->key, "SXM") ? c.gpu % 8 + 1 : 1);
    return gs_end(&c, NVML_SUCCESS);
}

/* SRAM ECC status: "Ampere or newer fully supported devices" with ECC on.
 * The scenario's ECC faults hit DRAM (MemoryErrorCounter's SRAM location
 * reads 0), so every SRAM count is 0 and no threshold is exceeded. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetSramEccErrorStatus(nvmlDevice_t device,
                                                       nvmlEccSramErrorStatus_t *status)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, status != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (status->version != GS_ECC_SRAM_ERROR_STATUS_V1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (c.g->arch < GS_ARCH_AMPERE || c.g->brand == GS_BRAND_GEFORCE || !c.g->ecc)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned version = status->version;
    memset(status, 0, sizeof(*status));
    status->version = version;
    return gs_end(&c, NVML_SUCCESS);
}

/* The system-wide reduced-bandwidth mode is a Hopper NVLink feature: FULL
 * (or what nvmlSystemSetNvlinkBwMode set in this process) when a Hopper or
 * later GPU has links up, otherwise NOT_SUPPORTED ("GPU is not Hopper or
 * newer"). */
GS_EXPORT nvmlReturn_t nvmlSystemGetNvlinkBwMode(unsigned int *nvlinkBwMode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, nvlinkBwMode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        if (c.s->gpus[i].arch >= GS_ARCH_HOPPER && gs_nvlinks(c.s, i) > 0) {
            *nvlinkBwMode = c.s->nvlink_bw_mode;
            return gs_end(&c, NVML_SUCCESS);
        }
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}
#endif

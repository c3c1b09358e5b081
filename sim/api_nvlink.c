/* api_nvlink.c -- exported NVML calls for NVLink and the NVSwitch fabric:
 * link state, version, capabilities, the remote end of each link, error and
 * throughput counters, and GPU fabric registration; also the NVLink field
 * values of nvmlDeviceGetFieldValues (gs_nvlink_field).
 *
 * Links exist where the topology model says so (sim/topo.c: `nvlink =
 * nvswitch` in [machine], SXM boards): every link is up and ends at one of
 * four NVSwitches (link l at switch l % 4), which answer with PCI bus ids
 * 0000:E0..E3:00.0 and device type NVSwitch.  A GPU without links answers
 * NOT_SUPPORTED, a link number past its links INVALID_ARGUMENT, as real
 * NVML does.  A link the scenario lists in `nvlink_down` is there but not
 * active (state 0); the others are up.  Error counters are 0.
 * Throughput counters (KiB, field ids 138-141) grow at the workload's mean
 * NVLink rate (its full-load rate times its mean utilisation) from scenario
 * time 0, split evenly over the links that are up (a down link's stay 0);
 * raw counters add 8 % of protocol overhead.  The legacy utilisation
 * counters (nvmlDeviceGetNvLinkUtilizationCounter) are not supported from
 * Ampere on, as in nvml.h, and so not here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "ext_abi.h"

#define GS_NVSWITCHES 4

/* Prologue shared by the per-link calls: a physical GPU with links and a
 * link number below their count. */
static nvmlReturn_t link_begin(struct gs_call *c, const char *fn, nvmlDevice_t device,
                               unsigned link, int args_ok)
{
    nvmlReturn_t r = gs_begin(c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = gs_nvlinks(c->s, c->gpu);
    if (n == 0)
        return gs_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (link >= n)
        return gs_end(c, NVML_ERROR_INVALID_ARGUMENT);
    return NVML_SUCCESS;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                                unsigned int *isActive)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, isActive != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *isActive = !((c.g->nvlink_down >> link) & 1);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
                                                  unsigned int *version)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, version != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *version = gs_nvlink_version(c.g);
    return gs_end(&c, NVML_SUCCESS);
}

/* nvmlNvLinkCapability_t: P2P, sysmem access, P2P atomics, sysmem atomics,
 * SLI bridge, valid.  Sysmem over NVLink is an IBM POWER feature. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link,
                                                     unsigned int capability,
                                                     unsigned int *capResult)
{
    static const unsigned caps[GS_NVLINK_CAP_COUNT] = {1, 0, 1, 0, 0, 1};
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link,
                                capResult != NULL && capability < GS_NVLINK_CAP_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    *capResult = caps[capability];
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                           nvmlPciInfo_t *pci)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, pci != NULL);
    if (r != NVML_SUCCESS)
        return r;
    memset(pci, 0, sizeof(*pci));
    pci->domain = 0;
    pci->bus = 0xE0 + link % GS_NVSWITCHES;
    pci->device = 0;
    pci->pciDeviceId = 0x22A310DE; /* NVSwitch (third generation) */
    pci->pciSubSystemId = 0x16C210DE;
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", pci->domain, pci->bus,
             pci->device);
    snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", pci->domain, pci->bus,
             pci->device);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                           unsigned int *type)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link, type != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *type = GS_NVLINK_DEV_SWITCH;
    return gs_end(&c, NVML_SUCCESS);
}

/* nvmlNvLinkErrorCounter_t: DL replay, recovery, CRC flit, CRC data, ECC. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                                       unsigned int counter,
                                                       unsigned long long *value)
{
    struct gs_call c;
    nvmlReturn_t r =
        link_begin(&c, __func__, device, link, value != NULL && counter < GS_NVLINK_ERROR_COUNT);
    if (r != NVML_SUCCESS)
        return r;
    *value = 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link,
                                                             unsigned int counter,
                                                             unsigned long long *rxcounter,
                                                             unsigned long long *txcounter)
{
    struct gs_call c;
    nvmlReturn_t r = link_begin(&c, __func__, device, link,
                                rxcounter != NULL && txcounter != NULL && counter <= 1);
    if (r != NVML_SUCCESS)
        return r;
    /* Deprecated; every board that has NVLink here is Volta or later and
     * the counters were retired with Ampere.  Volta keeps them in nvml.h,
     * but their units are set through a control call the simulator does
     * not model, so they are reported as absent on every board. */
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* Fabric registration: Hopper and later.  A GPU on NVSwitches has
 * completed it; one without stays NOT_SUPPORTED (state, not return).
 *
 * Health (v3's healthMask and healthSummary): the H100/H200 of
 * utkuozdemir/nvidia_gpu_exporter internal/captures/ (driver 590, fabric
 * Completed) print every fabric.health.* field N/A, so Hopper answers 0
 * (every field "not supported").  A Blackwell on NVSwitches answers a
 * healthy fabric: bandwidth not degraded, no route recovery, routes
 * healthy, no access timeout recovery, configuration correct, partition
 * assigned, summary healthy (the words a live GB200 prints, docs/compat.md). */
static nvmlReturn_t fabric(const char *fn, nvmlDevice_t device, char *uuid, nvmlReturn_t *status,
                           unsigned *clique, unsigned char *state, unsigned *health,
                           unsigned char *summary, int args_ok)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, args_ok);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->arch < GS_ARCH_HOPPER)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    memset(uuid, 0, 16);
    *health = 0;
    *summary = 0;
    if (gs_nvlinks(c.s, c.gpu)) {
        uint64_t h1 = gs_hash(c.s->seed, 0, 900, 1), h2 = gs_hash(c.s->seed, 0, 900, 2);
        memcpy(uuid, &h1, 8);
        memcpy(uuid + 8, &h2, 8);
        *status = NVML_SUCCESS;
        *clique = 1;
        *state = GS_FABRIC_COMPLETED;
        if (c.g->arch >= GS_ARCH_BLACKWELL) {
            *health = 2u << NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW |
                      2u << NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY |
                      2u << NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY |
                      2u << NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY |
                      1u << NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION |
                      1u << NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED;
            *summary = 1;
        }
    } else {
        *status = NVML_ERROR_NOT_SUPPORTED;
        *clique = 0;
        *state = GS_FABRIC_NOT_SUPPORTED;
    }
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device,
                                                  nvmlGpuFabricInfo_t *gpuFabricInfo)
{
    nvmlGpuFabricInfo_t *f = gpuFabricInfo;
    char dummy[16];
    nvmlReturn_t st = NVML_ERROR_NOT_SUPPORTED;
    unsigned clique = 0, health = 0;
    unsigned char state = GS_FABRIC_NOT_SUPPORTED, summary = 0;
    nvmlReturn_t r = fabric(__func__, device, f ? f->clusterUuid : dummy, &st, &clique, &state,
                            &health, &summary, f != NULL);
    if (r == NVML_SUCCESS) {
        f->status = st;
        f->cliqueId = clique;
        f->state = state;
    }
    return r;
}

/* Versions 2 and 3: v3 is v2 with healthSummary appended. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
                                                   nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
    nvmlGpuFabricInfoV_t *f = gpuFabricInfo;
    if (f && f->version != GS_FABRIC_INFO_V2 && f->version != GS_FABRIC_INFO_V3)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    char dummy[16];
    nvmlReturn_t st = NVML_ERROR_NOT_SUPPORTED;
    unsigned clique = 0, health = 0;
    unsigned char state = GS_FABRIC_NOT_SUPPORTED, summary = 0;
    nvmlReturn_t r = fabric(__func__, device, f ? f->clusterUuid : dummy, &st, &clique, &state,
                            &health, &summary, f != NULL);
    if (r == NVML_SUCCESS) {
        f->status = st;
        f->cliqueId = clique;
        f->state = state;
        f->healthMask = health;
        if (f->version == GS_FABRIC_INFO_V3)
            f->healthSummary = summary;
    }
    return r;
}
#endif /* GPUSIM_LEGACY */

/* ----------------------------------------------------------- field values */

/* NVLink data rate of one link, MB/s per direction. */
static unsigned link_speed_mbps(const struct gs_gpu *g)
{
    switch (g->arch) {
    case GS_ARCH_VOLTA:
        return 25781;
    case GS_ARCH_AMPERE:
        return 25000;
    case GS_ARCH_BLACKWELL: /* NVLink 5: twice NVLink 4's rate per link */
        return 53125;
    default:
        return 26562;
    }
}

/* KiB moved through all links since t = 0 (rx or tx). */
static double data_kib(const struct gs_call *c, bool rx)
{
    const struct gs_workload *w = &c->g->wl;
    double rate = rx ? w->nvlink_rx : w->nvlink_tx;
    double util = w->util;
    if (!isfinite(rate) || rate < 0)
        rate = 0;
    if (!isfinite(util) || util < 0)
        util = 0;
    return rate * (util / 100.0) * c->t / 1024.0;
}

int gs_nvlink_field(const struct gs_call *c, nvmlFieldValue_t *v, nvmlReturn_t *rc)
{
    unsigned id = v->fieldId;
    if (id != 90 && id != 91 && (id < 138 || id > 141))
        return 0;
    unsigned n = gs_nvlinks(c->s, c->gpu);
    if (n == 0) {
        *rc = NVML_ERROR_NOT_SUPPORTED;
        return 1;
    }
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    *rc = NVML_SUCCESS;
    if (id == 90) { /* NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON */
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->value.uiVal = link_speed_mbps(c->g);
        return 1;
    }
    if (id == 91) { /* NVML_FI_DEV_NVLINK_LINK_COUNT */
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->value.uiVal = n;
        return 1;
    }
    /* 138 DATA_TX, 139 DATA_RX, 140 RAW_TX, 141 RAW_RX; scopeId: a link, or
     * UINT_MAX for the sum of all links. */
    double kib = data_kib(c, id == 139 || id == 141);
    if (id >= 140)
        kib *= 1.08;
    if (v->scopeId != 0xFFFFFFFFu) {
        if (v->scopeId >= n) {
            *rc = NVML_ERROR_INVALID_ARGUMENT;
            return 1;
        }
        unsigned up = 0;
        for (unsigned l = 0; l < n; l++)
            up += !((c->g->nvlink_down >> l) & 1);
        kib = up && !((c->g->nvlink_down >> v->scopeId) & 1) ? kib / up : 0;
    }
    v->value.ullVal = (unsigned long long)kib;
    return 1;
}

/* api_identity.c -- exported NVML calls for what a GPU is: identity, PCI,
 * modes and memory.
 *
 * Identity strings come from the scenario (preset + overrides); a string the
 * board does not report (GeForce serial, board part number) is an empty
 * string in the scenario and NOT_SUPPORTED here.  String getters return
 * INSUFFICIENT_SIZE when the caller's buffer cannot hold the string and its
 * NUL.  MIG device handles answer the calls that make sense for a MIG
 * instance (name, UUID, PCI info of the parent, memory); the rest return
 * NOT_SUPPORTED for them.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "api.h"

/* ------------------------------------------------------------- strings */

GS_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, name != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(name, length, c.mig >= 0 ? c.g->mig[c.mig].name : c.g->name));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, uuid != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(uuid, length, c.mig >= 0 ? c.g->mig[c.mig].uuid : c.g->uuid));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, serial != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(serial, length, c.g->serial));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber,
                                                    unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, partNumber != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(partNumber, length, c.g->part_number));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version,
                                                 unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, version != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(version, length, c.g->vbios));
}

/* ----------------------------------------------------------------- PCI */

static void fill_pci(const struct gs_gpu *g, nvmlPciInfo_t *pci)
{
    memset(pci, 0, sizeof(*pci));
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", g->pci_domain & 0xFFFF,
             g->pci_bus, g->pci_device);
    pci->domain = g->pci_domain;
    pci->bus = g->pci_bus;
    pci->device = g->pci_device;
    pci->pciDeviceId = g->pci_device_id;
    pci->pciSubSystemId = g->pci_subsystem_id;
    snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", g->pci_domain, g->pci_bus,
             g->pci_device);
}

static nvmlReturn_t pci_info(const char *fn, nvmlDevice_t device, nvmlPciInfo_t *pci, size_t bytes)
{
    struct gs_call c;
    nvmlPciInfo_t full;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_ANY, device, 0, pci != NULL);
    if (r != NVML_SUCCESS)
        return r;
    fill_pci(c.g, &full);
    memcpy(pci, &full, bytes);
    return gs_end(&c, NVML_SUCCESS);
}

/* The original nvmlDeviceGetPciInfo filled a 52-byte struct: a 16-byte bus id
 * (today's busIdLegacy), five ids and four reserved words, zeroed here.  It
 * must not write the 68-byte layout into an old client's buffer. */
#define GS_PCI_V1_SIZE 52
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t layout");

GS_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    struct gs_call c;
    nvmlPciInfo_t full;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, pci != NULL);
    if (r != NVML_SUCCESS)
        return r;
    fill_pci(c.g, &full);
    memset(full.busId, 0, GS_PCI_V1_SIZE - offsetof(nvmlPciInfo_t, busId));
    memcpy(pci, &full, GS_PCI_V1_SIZE);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return pci_info(__func__, device, pci, sizeof(*pci));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return pci_info(__func__, device, pci, sizeof(*pci));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, minorNumber != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *minorNumber = c.g->minor;
    return gs_end(&c, NVML_SUCCESS);
}

/* ------------------------------------------------------ board properties */

GS_EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, type != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *type = (nvmlBrandType_t)c.g->brand;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device,
                                                 nvmlDeviceArchitecture_t *arch)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, arch != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *arch = c.g->arch;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major,
                                                          int *minor)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, major != NULL && minor != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *major = c.g->cc_major;
    *minor = c.g->cc_minor;
    return gs_end(&c, NVML_SUCCESS);
}

/* ---------------------------------------------------------------- modes */

static nvmlReturn_t enable_state(const char *fn, nvmlDevice_t device, nvmlEnableState_t *out,
                                 size_t field)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, out != NULL);
    if (r != NVML_SUCCESS)
        return r;
    bool on = *(const bool *)((const char *)c.g + field);
    *out = on ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return enable_state(__func__, device, mode, offsetof(struct gs_gpu, persistence));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *display)
{
    return enable_state(__func__, device, display, offsetof(struct gs_gpu, display_mode));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *isActive)
{
    return enable_state(__func__, device, isActive, offsetof(struct gs_gpu, display_active));
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, mode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *mode = (nvmlComputeMode_t)c.g->compute_mode;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    struct gs_call c;
    struct gs_state st;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, pState != NULL);
    if (r != NVML_SUCCESS)
        return r;
    gs_model_eval(c.s, c.gpu, c.t, &st);
    *pState = (nvmlPstates_t)st.pstate;
    return gs_end(&c, NVML_SUCCESS);
}

/* --------------------------------------------------------------- memory */

/* total, reserved and used (v2 meaning) of a physical or MIG device. */
static void memory_of(const struct gs_call *c, unsigned long long *total,
                      unsigned long long *reserved, unsigned long long *used)
{
    if (c->mig >= 0) {
        *total = c->g->mig[c->mig].mem_total;
        *reserved = 0;
        *used = gs_mig_mem_used(c->s, c->gpu, (unsigned)c->mig, c->t);
        return;
    }
    struct gs_state st;
    gs_model_eval(c->s, c->gpu, c->t, &st);
    *total = c->g->mem_total;
    *reserved = c->g->mem_reserved;
    *used = st.mem_used;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    struct gs_call c;
    unsigned long long total, reserved, used;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, memory != NULL);
    if (r != NVML_SUCCESS)
        return r;
    memory_of(&c, &total, &reserved, &used);
    /* v1: "used" includes the memory the driver reserves. */
    memory->total = total;
    memory->used = used + reserved;
    memory->free = total - used - reserved;
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY
GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    struct gs_call c;
    unsigned long long total, reserved, used;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, memory != NULL);
    if (r != NVML_SUCCESS)
        return r;
    /* Real NVML answers a wrong struct version (e.g. the plain 2 that nvtop
     * passes) with FUNCTION_NOT_FOUND; clients rely on it to fall back. */
    if (memory->version != nvmlMemory_v2)
        return gs_end(&c, NVML_ERROR_FUNCTION_NOT_FOUND);
    memory_of(&c, &total, &reserved, &used);
    memory->total = total;
    memory->reserved = reserved;
    memory->used = used;
    memory->free = total - reserved - used;
    return gs_end(&c, NVML_SUCCESS);
}
#endif

GS_EXPORT nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device,
                                                   nvmlBAR1Memory_t *bar1Memory)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, bar1Memory != NULL);
    if (r != NVML_SUCCESS)
        return r;
    /* A MIG device has its share of the aperture by memory slices (of 8:
     * 1g 1, 2g 2, 3g and 4g 4, 7g all 8), as real drivers answer for MIG
     * handles (nvitop --once reads it for every MIG device). */
    unsigned long long total = c.g->bar1_total;
    if (c.mig >= 0) {
        static const unsigned mem_slices[8] = {0, 1, 2, 4, 4, 8, 8, 8};
        unsigned sl = c.g->mig[c.mig].slices;
        total = total / 8 * mem_slices[sl < 8 ? sl : 7];
    }
    /* A couple of MiB for the driver plus one per active process. */
    unsigned long long used = 2ULL << 20;
    for (size_t i = 0; i < c.s->nprocs; i++)
        if (gs_proc_on(&c.s->procs[i], c.gpu, c.t) && (c.mig < 0 || c.s->procs[i].mig == c.mig))
            used += 1ULL << 20;
    if (used > total)
        used = total;
    bar1Memory->bar1Total = total;
    bar1Memory->bar1Used = used;
    bar1Memory->bar1Free = total - used;
    return gs_end(&c, NVML_SUCCESS);
}

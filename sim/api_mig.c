/* api_mig.c -- exported NVML calls for Multi-Instance GPU.
 *
 * A GPU with `mig = ...` in the scenario is in MIG mode with one compute
 * instance per GPU instance.  MIG device handles are indexed densely from 0
 * (nvitop stops enumerating at the first error), past the end is NOT_FOUND,
 * and MaxMigDeviceCount reports the hardware maximum (7) as real drivers do.
 * GPUs that cannot do MIG answer the mode queries with NOT_SUPPORTED.
 */
#include "api.h"

GS_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                            unsigned int *pendingMode)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, currentMode != NULL && pendingMode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->mig_capable)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *currentMode = c.g->nmig ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    /* nvmlDeviceSetMigMode changes the mode after the next GPU reset. */
    *pendingMode = c.g->set.mig_pending_set
                       ? (c.g->set.mig_pending ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE)
                       : *currentMode;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->mig_capable)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *count = c.g->nmig ? GS_MAX_MIG : 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                           nvmlDevice_t *migDevice)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, migDevice != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!c.g->mig_capable)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (index >= c.g->nmig)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    *migDevice = gs_handle(c.gpu, (int)index);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
                                                                    nvmlDevice_t *device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, migDevice, 0, device != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.mig < 0)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *device = gs_handle(c.gpu, -1);
    return gs_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t instance_id(const char *fn, nvmlDevice_t device, unsigned int *id, bool gi)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_ANY, device, 0, id != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.mig < 0)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *id = gi ? c.g->mig[c.mig].gi_id : c.g->mig[c.mig].ci_id;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return instance_id(__func__, device, id, true);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return instance_id(__func__, device, id, false);
}

GS_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, isMigDevice != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *isMigDevice = c.mig >= 0;
    return gs_end(&c, NVML_SUCCESS);
}

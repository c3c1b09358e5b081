/* nvml_mig.c -- the NVML source's MIG devices (see nvml_int.h): the GPU
 * instances and compute instances of a GPU in MIG mode, with their
 * identity, memory (framebuffer, reserved, BAR1).  Their GPM metrics are nvml_gpm.c's.  The
 * simulator answers these in sim/api_mig.c.
 */
#include "nvml_int.h"

#include <stdio.h>
#include <string.h>

/* MIG devices of a GPU in MIG mode.  Not knowing the mode, or failing to
 * enumerate, leaves the list empty with the reason in g->mig_list (a GPU
 * that does not support MIG has none: that list is whole). */
void gm_nv_read_mig(struct gm_nvml *n, int i, nvmlDevice_t h, struct gm_gpu *g)
{
    const struct gm_value *mode = &g->m[GM_M_MIG_CURRENT];
    g->nmig = 0;
    if (!gm_v_ok(mode)) {
        g->mig_list =
            mode->status == GM_VS_UNSUPPORTED ? gm_v_u64(0) : gm_v_status(mode->status, mode->code);
        return;
    }
    g->mig_list = gm_v_u64(0);
    if (mode->v.u != NVML_DEVICE_MIG_ENABLE)
        return;
    unsigned int max = 0;
    nvmlReturn_t lrc = CALL(n, i, nvmlDeviceGetMaxMigDeviceCount, h, &max);
    if (lrc != NVML_SUCCESS) {
        g->mig_list = list_failed(lrc);
        return;
    }
    for (unsigned int k = 0; k < max && g->nmig < GM_MIG_MAX; k++) {
        nvmlDevice_t mh;
        lrc = CALL(n, i, nvmlDeviceGetMigDeviceHandleByIndex, h, k, &mh);
        if (lrc == NVML_ERROR_NOT_FOUND || lrc == NVML_ERROR_INVALID_ARGUMENT)
            break; /* past the last: indices are dense from 0 */
        if (lrc != NVML_SUCCESS) {
            g->mig_list = list_failed(lrc);
            g->nmig = 0;
            return;
        }
        struct gm_mig *mg = &g->mig[g->nmig++];
        memset(mg, 0, sizeof(*mg));
        mg->index = k;
        for (int q = 0; q < GM_GPM_COUNT; q++)
            mg->gpm[q] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
        unsigned int id = GM_NO_INSTANCE;
        nvmlReturn_t irc = CALL(n, i, nvmlDeviceGetGpuInstanceId, mh, &id);
        mg->gpu_instance_id = irc == NVML_SUCCESS ? id : GM_NO_INSTANCE;
        mg->gpu_instance_code = (int16_t)irc;
        id = GM_NO_INSTANCE;
        irc = CALL(n, i, nvmlDeviceGetComputeInstanceId, mh, &id);
        mg->compute_instance_id = irc == NVML_SUCCESS ? id : GM_NO_INSTANCE;
        mg->compute_instance_code = (int16_t)irc;
        irc = CALL(n, i, nvmlDeviceGetUUID, mh, mg->uuid, sizeof(mg->uuid));
        mg->uuid_code = (int16_t)irc;
        if (irc != NVML_SUCCESS)
            mg->uuid[0] = '\0';
        irc = CALL(n, i, nvmlDeviceGetName, mh, mg->name, sizeof(mg->name));
        mg->name_code = (int16_t)irc;
        if (irc != NVML_SUCCESS)
            mg->name[0] = '\0';
        const char *p = strstr(mg->name, " MIG ");
        gm_strlcpy(mg->profile, p ? p + 5 : "", sizeof(mg->profile));
        nvmlMemory_v2_t m2;
        memset(&m2, 0, sizeof(m2));
        m2.version = nvmlMemory_v2;
        nvmlReturn_t rc = n->mem_v1 ? NVML_ERROR_FUNCTION_NOT_FOUND
                                    : CALL(n, i, nvmlDeviceGetMemoryInfo_v2, mh, &m2);
        if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
            nvmlMemory_t m1 = {0, 0, 0};
            rc = CALL(n, i, nvmlDeviceGetMemoryInfo, mh, &m1);
            m2.total = m1.total;
            m2.used = m1.used;
            m2.free = m1.free;
            mg->mem_reserved = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND);
        } else {
            mg->mem_reserved = rc == NVML_SUCCESS ? gm_v_u64(m2.reserved)
                                                  : gm_v_status(gm_v_status_from_nvml(rc), rc);
        }
        mg->mem_total =
            rc == NVML_SUCCESS ? gm_v_u64(m2.total) : gm_v_status(gm_v_status_from_nvml(rc), rc);
        mg->mem_used =
            rc == NVML_SUCCESS ? gm_v_u64(m2.used) : gm_v_status(gm_v_status_from_nvml(rc), rc);
        mg->mem_free =
            rc == NVML_SUCCESS ? gm_v_u64(m2.free) : gm_v_status(gm_v_status_from_nvml(rc), rc);
        /* BAR1 with the GPU's, on the MIG device's handle: each MIG device
         * has its own BAR1 aperture (nvidia-smi -q prints it per MIG device). */
        if (want(n, GM_RG_BAR1)) {
            nvmlBAR1Memory_t b = {0, 0, 0};
            rc = CALL(n, i, nvmlDeviceGetBAR1MemoryInfo, mh, &b);
            mg->bar1_total = rc == NVML_SUCCESS ? gm_v_u64(b.bar1Total)
                                                : gm_v_status(gm_v_status_from_nvml(rc), rc);
            mg->bar1_used = rc == NVML_SUCCESS ? gm_v_u64(b.bar1Used)
                                               : gm_v_status(gm_v_status_from_nvml(rc), rc);
        } else {
            mg->bar1_total = mg->bar1_used = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
        }
    }
}

/* api_board.c -- exported NVML calls for board facts nvidia-smi -q prints
 * and nvitop shows: board id, multi-GPU board, module id, GSP firmware,
 * IRQ, memory bus width, CUDA core count, fan range and target.
 *
 * The per-board numbers (bus width, cores) are the published figures of
 * each preset's GPU; a board made from a preset by overrides keeps its
 * preset's figures.  GSP firmware runs by default from Hopper on (and on
 * Ada datacenter parts); its version is the driver's, as nvidia-smi shows
 * it.  SXM modules are numbered 1.. by GPU index on their baseboard, a
 * PCIe card is module 1.
 */
#include <string.h>

#include "api.h"
#include "ext_abi.h"

struct board_facts {
    const char *prefix;
    unsigned bus_width, cores;
};

static const struct board_facts facts[] = {
    {"H100", 5120, 16896},    {"A100", 5120, 6912},    {"V100", 4096, 5120},
    {"RTX-4090", 384, 16384}, {"RTX-4060", 128, 3072}, {"L40S", 384, 18176},
};

static const struct board_facts *facts_of(const struct gs_gpu *g)
{
    const char *k = g->preset ? g->preset->key : "";
    for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
        if (strncmp(k, facts[i].prefix, strlen(facts[i].prefix)) == 0)
            return &facts[i];
    return NULL;
}

static bool is_sxm(const struct gs_gpu *g)
{
    return g->preset && strstr(g->preset->key, "SXM");
}

#ifndef GPUSIM_LEGACY /* its callers are newer than R450 */
static inline bool gsp_on(const struct gs_gpu *g)
{
    return g->arch >= GS_ARCH_HOPPER || (g->arch == GS_ARCH_ADA && g->brand != GS_BRAND_GEFORCE);
}
#endif

/* One scalar answer per physical GPU: the common shape of most calls here. */
#define SCALAR_CALL(fn, out, expr)                                                                 \
    struct gs_call c;                                                                              \
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_PHYS, device, 0, (out) != NULL);                        \
    if (r != NVML_SUCCESS)                                                                         \
        return r;                                                                                  \
    *(out) = (expr);                                                                               \
    return gs_end(&c, NVML_SUCCESS)

/* nvidia-smi prints it as "Board ID: 0x<hex>": domain and bus of the GPU. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetBoardId(nvmlDevice_t device, unsigned int *boardId)
{
    SCALAR_CALL(__func__, boardId, c.g->pci_domain << 16 | c.g->pci_bus << 8);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetMultiGpuBoard(nvmlDevice_t device, unsigned int *multiGpuBool)
{
    SCALAR_CALL(__func__, multiGpuBool, 0);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetModuleId(nvmlDevice_t device, unsigned int *moduleId)
{
    SCALAR_CALL(__func__, moduleId, is_sxm(c.g) ? c.gpu % 8 + 1 : 1);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetIrqNum(nvmlDevice_t device, unsigned int *irqNum)
{
    SCALAR_CALL(__func__, irqNum, 100 + c.g->minor);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int *isEnabled,
                                                    unsigned int *defaultMode)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, isEnabled != NULL && defaultMode != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *isEnabled = gsp_on(c.g);
    *defaultMode = gsp_on(c.g);
    return gs_end(&c, NVML_SUCCESS);
}
#endif

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* version is NVML_GSP_FIRMWARE_VERSION_BUF_SIZE (64) bytes; NOT_SUPPORTED
 * where GSP firmware does not run. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetGspFirmwareVersion(nvmlDevice_t device, char *version)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, version != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!gsp_on(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    return gs_end(&c, gs_copy_out(version, 64, c.s->driver_version));
}
#endif

GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, busWidth != NULL);
    if (r != NVML_SUCCESS)
        return r;
    const struct board_facts *f = facts_of(c.g);
    if (!f)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *busWidth = f->bus_width;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int *numCores)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, numCores != NULL);
    if (r != NVML_SUCCESS)
        return r;
    const struct board_facts *f = facts_of(c.g);
    if (!f)
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *numCores = f->cores;
    return gs_end(&c, NVML_SUCCESS);
}

/* Fanless (passively cooled) boards answer NOT_SUPPORTED, as GetFanSpeed. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetMinMaxFanSpeed(nvmlDevice_t device, unsigned int *minSpeed,
                                                   unsigned int *maxSpeed)
{
    struct gs_call c;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device, 0, minSpeed != NULL && maxSpeed != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->fans == 0 || gs_fn_unsupported(c.g, "nvmlDeviceGetFanSpeed"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *minSpeed = 30;
    *maxSpeed = 100;
    return gs_end(&c, NVML_SUCCESS);
}

/* The fan controller's target: what the fan runs at in the model (or the
 * speed nvmlDeviceSetFanSpeed_v2 set). */
GS_EXPORT nvmlReturn_t nvmlDeviceGetTargetFanSpeed(nvmlDevice_t device, unsigned int fan,
                                                   unsigned int *targetSpeed)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, targetSpeed != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (c.g->fans == 0 || gs_fn_unsupported(c.g, "nvmlDeviceGetFanSpeed"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (fan >= c.g->fans)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct gs_state st;
    gs_model_eval(c.s, c.gpu, c.t, &st);
    *targetSpeed = gs_fan_speed(c.g, fan, st.fan);
    return gs_end(&c, NVML_SUCCESS);
}

#ifndef GPUSIM_LEGACY /* newer than R450 */
/* The margin to the slowdown threshold (nvidia-smi's "GPU T.Limit Temp"):
 * negative once the GPU is past it.  NOT_SUPPORTED on a board without a
 * slowdown threshold or where the temperature reading is. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device,
                                                      nvmlMarginTemperature_t *marginTempInfo)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, marginTempInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (marginTempInfo->version != nvmlMarginTemperature_v1)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (c.g->temp_slowdown == 0 || gs_fn_unsupported(c.g, "nvmlDeviceGetTemperature"))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    struct gs_state st;
    gs_model_eval(c.s, c.gpu, c.t, &st);
    marginTempInfo->marginTemperature = (int)c.g->temp_slowdown - (int)st.temp;
    return gs_end(&c, NVML_SUCCESS);
}
#endif

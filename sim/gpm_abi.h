/* gpm_abi.h -- NVML's GPM (GPU Performance Monitoring) declarations, as
 * nvml.h 13.3 has them (reference/nvml-abi.md section 2.19), for the
 * simulator's sim/api_gpm.c and its tests.
 *
 * src/source/nvml_abi.h leaves GPM out; when it gains these declarations
 * (it defines NVML_GPM_METRICS_GET_VERSION), this header steps aside so the
 * two never disagree.  NVML_GPM_METRIC_MAX here is the 12.x value (98, what
 * pynvml uses); the simulator never relies on it: it touches only
 * metrics[0..numMetrics-1], because clients built with newer headers pass
 * larger arrays (210, 333).
 */
#ifndef GS_GPM_ABI_H
#define GS_GPM_ABI_H

#include "source/nvml_abi.h"

#ifndef NVML_GPM_METRICS_GET_VERSION

#define NVML_GPM_METRIC_MAX 98
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION 1

typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

typedef struct {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;
} nvmlGpmMetric_t;

typedef struct {
    unsigned int version;
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;

typedef struct {
    unsigned int version;
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport);
nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample);
nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId,
                                 nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet);
nvmlReturn_t nvmlGpmQueryIfStreamingEnabled(nvmlDevice_t device, unsigned int *state);
nvmlReturn_t nvmlGpmSetStreamingEnabled(nvmlDevice_t device, unsigned int state);

#endif /* NVML_GPM_METRICS_GET_VERSION */

/* The largest NVML_GPM_METRIC_MAX of any header (13.3): more metrics than
 * this in one call cannot be a valid request. */
#define GS_GPM_METRIC_MAX_ANY 333

#endif /* GS_GPM_ABI_H */

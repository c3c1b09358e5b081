/* api_gpm.c -- exported NVML calls for GPM (GPU Performance Monitoring,
 * Hopper and later): device support, samples and the metrics computed from
 * two of them (reference/nvml-abi.md section 2.19).
 *
 * A sample records which GPU (and GPU instance) it was taken on and the
 * scenario time; nvmlGpmMetricsGet averages the model (gs_model_gpm) over
 * the 1/6 s sample periods between the two samples, so two samples taken at
 * the same pinned scenario time (GPUSIM_TIME) read the period that time is
 * in.  Long windows are averaged over at most GS_GPM_MAX_EVALS evenly spaced
 * periods.  Only metrics[0..numMetrics-1] are read or written: clients built
 * with different headers pass arrays of 98, 210 or 333 entries.
 *
 * Pre-Hopper GPUs answer QueryDeviceSupport with isSupportedDevice = 0 and
 * SampleGet with NOT_SUPPORTED.  Streaming (the driver sampling GPM in the
 * background) is accepted and remembered per GPU but changes nothing here:
 * every sample is computed from the model.  Metric names and units are the
 * simulator's own (the fact sheet gives none of NVML's strings).  Absent
 * from the R450-era legacy variant, which predates GPM.
 */
#ifndef GPUSIM_LEGACY

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "gpm_abi.h"

#define GS_GPM_MAGIC 0x67706d73616d706cULL /* "gpmsampl" */
/* Most 1/6 s periods one MetricsGet evaluates (two minutes' worth). */
#define GS_GPM_MAX_EVALS 720

struct nvmlGpmSample_st {
    uint64_t magic;
    bool taken;
    unsigned gpu;
    int mig; /* MIG device index, -1: the whole GPU */
    double t;
    struct nvmlGpmSample_st *prev, *next; /* the samples alive (g_samples) */
};

static unsigned g_streaming[GS_MAX_GPUS];
/* Every sample allocated and not freed.  A sample outlives nvmlShutdown
 * (a client may keep one across a re-init, and real NVML does not say it
 * may not); the list keeps the ones a client could not free (its
 * nvmlGpmSampleFree failed on purpose, GPUSIM_FAIL) until the library is
 * unloaded: they are the library's memory, not a leak of the client's.
 * Guarded by the library mutex. */
static struct nvmlGpmSample_st *g_samples;

/* The library's memory goes with the library: at dlclose (or exit) the
 * samples still on the list are freed. */
__attribute__((destructor)) static void gpm_unload(void)
{
    while (g_samples) {
        struct nvmlGpmSample_st *p = g_samples;
        g_samples = p->next;
        p->magic = 0;
        free(p);
    }
}

/* --------------------------------------------------------- metric table */

enum gpm_what {
    W_NONE,
    W_GRAPHICS,
    W_SM,
    W_OCC,
    W_INT,
    W_TENSOR,
    W_DFMA,
    W_HMMA,
    W_DMMA,
    W_IMMA,
    W_DRAM,
    W_FP64,
    W_FP32,
    W_FP16,
    W_PCIE_TX,
    W_PCIE_RX,
    W_NVDEC,
    W_NVJPG,
    W_NVENC,
    W_NVLINK_RX,
    W_NVLINK_TX,
    W_LINK_RX, /* per link */
    W_LINK_TX,
};

struct gpm_metric {
    enum gpm_what what;
    unsigned engine; /* engine or link number */
    char shortname[40], longname[80];
    const char *unit;
};

static struct gpm_metric g_metrics[GS_GPM_METRIC_MAX_ANY + 1];
static pthread_once_t g_metrics_once = PTHREAD_ONCE_INIT;

static void put(unsigned id, enum gpm_what what, unsigned engine, const char *unit,
                const char *shortname, const char *longname)
{
    struct gpm_metric *m = &g_metrics[id];
    m->what = what;
    m->engine = engine;
    m->unit = unit;
    snprintf(m->shortname, sizeof(m->shortname), "%s", shortname);
    snprintf(m->longname, sizeof(m->longname), "%s", longname);
}

static void metrics_init(void)
{
    static const struct {
        unsigned id;
        enum gpm_what what;
        const char *shortname, *longname;
    } fixed[] = {
        {1, W_GRAPHICS, "gr_util", "graphics/compute engine active"},
        {2, W_SM, "sm_util", "SM activity"},
        {3, W_OCC, "sm_occupancy", "SM occupancy"},
        {4, W_INT, "integer_util", "integer pipe activity"},
        {5, W_TENSOR, "any_tensor_util", "any tensor pipe activity"},
        {6, W_DFMA, "dfma_tensor_util", "DFMA tensor pipe activity"},
        {7, W_HMMA, "hmma_tensor_util", "HMMA tensor pipe activity"},
        {8, W_DMMA, "dmma_tensor_util", "DMMA tensor pipe activity"},
        {9, W_IMMA, "imma_tensor_util", "IMMA tensor pipe activity"},
        {10, W_DRAM, "dram_bw_util", "DRAM bandwidth utilization"},
        {11, W_FP64, "fp64_util", "FP64 pipe activity"},
        {12, W_FP32, "fp32_util", "FP32 pipe activity"},
        {13, W_FP16, "fp16_util", "FP16 pipe activity"},
    };
    char s[40], l[80];
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        put(fixed[i].id, fixed[i].what, 0, "%", fixed[i].shortname, fixed[i].longname);
    put(20, W_PCIE_TX, 0, "MiB/s", "pcie_tx_per_sec", "PCIe transmit throughput");
    put(21, W_PCIE_RX, 0, "MiB/s", "pcie_rx_per_sec", "PCIe receive throughput");
    for (unsigned k = 0; k < 8; k++) {
        snprintf(s, sizeof(s), "nvdec_%u_util", k);
        snprintf(l, sizeof(l), "NVDEC %u activity", k);
        put(30 + k, W_NVDEC, k, "%", s, l);
        snprintf(s, sizeof(s), "nvjpg_%u_util", k);
        snprintf(l, sizeof(l), "NVJPG %u activity", k);
        put(40 + k, W_NVJPG, k, "%", s, l);
    }
    put(60, W_NVLINK_RX, 0, "MiB/s", "nvlink_total_rx_per_sec", "NVLink receive throughput");
    put(61, W_NVLINK_TX, 0, "MiB/s", "nvlink_total_tx_per_sec", "NVLink transmit throughput");
    for (unsigned k = 0; k <= 17; k++) {
        snprintf(s, sizeof(s), "nvlink_l%u_rx_per_sec", k);
        snprintf(l, sizeof(l), "NVLink link %u receive throughput", k);
        put(62 + 2 * k, W_LINK_RX, k, "MiB/s", s, l);
        snprintf(s, sizeof(s), "nvlink_l%u_tx_per_sec", k);
        snprintf(l, sizeof(l), "NVLink link %u transmit throughput", k);
        put(63 + 2 * k, W_LINK_TX, k, "MiB/s", s, l);
    }
    for (unsigned k = 0; k < 4; k++) {
        snprintf(s, sizeof(s), "nvenc_%u_util", k);
        snprintf(l, sizeof(l), "NVENC %u activity", k);
        put(166 + k, W_NVENC, k, "%", s, l);
    }
}

/* ------------------------------------------------------------ the calls */

GS_EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, gpmSupport != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (gpmSupport->version != NVML_GPM_SUPPORT_VERSION)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    gpmSupport->isSupportedDevice = gs_gpm_supported(c.g) ? 1 : 0;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, gpmSample != NULL);
    if (r != NVML_SUCCESS)
        return r;
    struct nvmlGpmSample_st *p = calloc(1, sizeof(*p));
    if (!p)
        return gs_end(&c, NVML_ERROR_MEMORY);
    p->magic = GS_GPM_MAGIC;
    p->mig = -1;
    p->next = g_samples;
    if (g_samples)
        g_samples->prev = p;
    g_samples = p;
    *gpmSample = p;
    return gs_end(&c, NVML_SUCCESS);
}

static bool sample_ok(const struct nvmlGpmSample_st *p)
{
    return p && p->magic == GS_GPM_MAGIC;
}

GS_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, sample_ok(gpmSample));
    if (r != NVML_SUCCESS)
        return r;
    gpmSample->magic = 0;
    if (gpmSample->prev)
        gpmSample->prev->next = gpmSample->next;
    else
        g_samples = gpmSample->next;
    if (gpmSample->next)
        gpmSample->next->prev = gpmSample->prev;
    free(gpmSample);
    return gs_end(&c, NVML_SUCCESS);
}

/* Records (gpu, mig, t) into sample after the GPM support check. */
static nvmlReturn_t take(struct gs_call *c, int mig, nvmlGpmSample_t sample)
{
    if (!gs_gpm_supported(c->g))
        return gs_end(c, NVML_ERROR_NOT_SUPPORTED);
    sample->taken = true;
    sample->gpu = c->gpu;
    sample->mig = mig;
    sample->t = c->t;
    return gs_end(c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, sample_ok(gpmSample));
    if (r != NVML_SUCCESS)
        return r;
    return take(&c, c.mig, gpmSample);
}

GS_EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId,
                                           nvmlGpmSample_t gpmSample)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, sample_ok(gpmSample));
    if (r != NVML_SUCCESS)
        return r;
    if (!gs_gpm_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    for (unsigned i = 0; i < c.g->nmig; i++)
        if (c.g->mig[i].gi_id == gpuInstanceId)
            return take(&c, (int)i, gpmSample);
    /* No such GPU instance (or MIG off). */
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

/* The value of metric m from an averaged activity, or NOT_SUPPORTED. */
static nvmlReturn_t metric_value(const struct gpm_metric *m, const struct gs_gpm *a,
                                 const struct gs_gpm_shape *sh, bool mig, double *out)
{
    const double mib = 1048576.0;
    switch (m->what) {
    case W_NONE:
        return NVML_ERROR_NOT_SUPPORTED;
    case W_GRAPHICS:
        *out = 100 * a->graphics;
        return NVML_SUCCESS;
    case W_SM:
        *out = 100 * a->sm;
        return NVML_SUCCESS;
    case W_OCC:
        *out = 100 * a->occupancy;
        return NVML_SUCCESS;
    case W_INT:
        *out = 100 * a->integer;
        return NVML_SUCCESS;
    case W_TENSOR:
        *out = 100 * a->tensor;
        return NVML_SUCCESS;
    case W_DFMA:
        *out = 100 * a->dfma;
        return NVML_SUCCESS;
    case W_HMMA:
        *out = 100 * a->hmma;
        return NVML_SUCCESS;
    case W_DMMA:
        *out = 100 * a->dmma;
        return NVML_SUCCESS;
    case W_IMMA:
        *out = 100 * a->imma;
        return NVML_SUCCESS;
    case W_DRAM:
        *out = 100 * a->dram;
        return NVML_SUCCESS;
    case W_FP64:
        *out = 100 * a->fp64;
        return NVML_SUCCESS;
    case W_FP32:
        *out = 100 * a->fp32;
        return NVML_SUCCESS;
    case W_FP16:
        *out = 100 * a->fp16;
        return NVML_SUCCESS;
    default:
        break;
    }
    /* Device-wide counters: not per GPU instance. */
    if (mig)
        return NVML_ERROR_NOT_SUPPORTED;
    switch (m->what) {
    case W_PCIE_TX:
        *out = a->pcie_tx / mib;
        return NVML_SUCCESS;
    case W_PCIE_RX:
        *out = a->pcie_rx / mib;
        return NVML_SUCCESS;
    case W_NVDEC:
        if (m->engine >= sh->nvdec)
            return NVML_ERROR_NOT_SUPPORTED;
        *out = 100 * a->nvdec;
        return NVML_SUCCESS;
    case W_NVJPG:
        if (m->engine >= sh->nvjpg)
            return NVML_ERROR_NOT_SUPPORTED;
        *out = 100 * a->nvjpg;
        return NVML_SUCCESS;
    case W_NVENC:
        if (m->engine >= sh->nvenc)
            return NVML_ERROR_NOT_SUPPORTED;
        *out = 100 * a->nvenc;
        return NVML_SUCCESS;
    case W_NVLINK_RX:
    case W_NVLINK_TX:
    case W_LINK_RX:
    case W_LINK_TX: {
        if (sh->nvlinks == 0 || m->engine >= sh->nvlinks)
            return NVML_ERROR_NOT_SUPPORTED;
        bool rx = m->what == W_NVLINK_RX || m->what == W_LINK_RX;
        bool per_link = m->what == W_LINK_RX || m->what == W_LINK_TX;
        double v = rx ? a->nvlink_rx : a->nvlink_tx;
        *out = (per_link ? v / sh->nvlinks : v) / mib;
        return NVML_SUCCESS;
    }
    default:
        return NVML_ERROR_NOT_SUPPORTED;
    }
}

_Static_assert(sizeof(struct gs_gpm) % sizeof(double) == 0, "struct gs_gpm holds only doubles");

/* Averages the model over the sample periods whose middle lies in [t1, t2]
 * (the period of t1 when none does). */
static void window_average(const struct gs_scenario *s, unsigned gpu, int mig, double t1, double t2,
                           struct gs_gpm *avg)
{
    int64_t b1 = (int64_t)ceil(t1 * GS_SAMPLE_HZ - 0.5);
    int64_t b2 = (int64_t)floor(t2 * GS_SAMPLE_HZ - 0.5);
    if (b2 < b1)
        b1 = b2 = (int64_t)floor(t1 * GS_SAMPLE_HZ);
    int64_t n = b2 - b1 + 1;
    int64_t evals = n < GS_GPM_MAX_EVALS ? n : GS_GPM_MAX_EVALS;
    double *acc = (double *)avg;
    const size_t nf = sizeof(*avg) / sizeof(double);
    struct gs_gpm one;

    memset(avg, 0, sizeof(*avg));
    for (int64_t i = 0; i < evals; i++) {
        int64_t b = b1 + (evals > 1 ? i * (n - 1) / (evals - 1) : 0);
        gs_model_gpm(s, gpu, mig, ((double)b + 0.5) / GS_SAMPLE_HZ, &one);
        const double *v = (const double *)&one;
        for (size_t k = 0; k < nf; k++)
            acc[k] += v[k];
    }
    for (size_t k = 0; k < nf; k++)
        acc[k] /= (double)evals;
}

GS_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, metricsGet != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (metricsGet->version != NVML_GPM_METRICS_GET_VERSION)
        return gs_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    const struct nvmlGpmSample_st *s1 = metricsGet->sample1, *s2 = metricsGet->sample2;
    if (metricsGet->numMetrics > GS_GPM_METRIC_MAX_ANY || !sample_ok(s1) || !sample_ok(s2) ||
        !s1->taken || !s2->taken || s1->gpu != s2->gpu || s1->mig != s2->mig ||
        s1->gpu >= c.s->ngpus || s2->t < s1->t)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    const struct gs_gpu *g = &c.s->gpus[s1->gpu];
    if (s1->mig >= (int)g->nmig)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    /* A lost (or forbidden) GPU answers for its samples too. */
    nvmlReturn_t lost = gs_fault_gpu(c.s, s1->gpu, c.t);
    if (lost != NVML_SUCCESS)
        return gs_end(&c, lost);
    int fn = gs_name_index(__func__);
    if (g->has_unsupported && fn >= 0 && g->unsupported[fn])
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    pthread_once(&g_metrics_once, metrics_init);

    struct gs_gpm avg;
    struct gs_gpm_shape sh;
    gs_gpm_shape(g, &sh);
    window_average(c.s, s1->gpu, s1->mig, s1->t, s2->t, &avg);
    for (unsigned i = 0; i < metricsGet->numMetrics; i++) {
        nvmlGpmMetric_t *m = &metricsGet->metrics[i];
        unsigned id = m->metricId;
        const struct gpm_metric *d = id <= GS_GPM_METRIC_MAX_ANY ? &g_metrics[id] : NULL;
        double v = 0;
        m->nvmlReturn = d ? metric_value(d, &avg, &sh, s1->mig >= 0, &v) : NVML_ERROR_NOT_SUPPORTED;
        if (m->nvmlReturn == NVML_SUCCESS) {
            m->value = v;
            m->metricInfo.shortName = (char *)d->shortname;
            m->metricInfo.longName = (char *)d->longname;
            m->metricInfo.unit = (char *)d->unit;
        } else {
            m->value = 0;
            m->metricInfo.shortName = m->metricInfo.longName = m->metricInfo.unit = NULL;
        }
    }
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpmQueryIfStreamingEnabled(nvmlDevice_t device, unsigned int *state)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, state != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!gs_gpm_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *state = g_streaming[c.gpu];
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlGpmSetStreamingEnabled(nvmlDevice_t device, unsigned int state)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, state <= 1);
    if (r != NVML_SUCCESS)
        return r;
    if (!gs_gpm_supported(c.g))
        return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
    g_streaming[c.gpu] = state;
    return gs_end(&c, NVML_SUCCESS);
}

#endif /* GPUSIM_LEGACY */

/* gpm.c -- the GPM (GPU Performance Monitoring, Hopper+) side of the model:
 * SM activity, occupancy, tensor/DRAM/FP pipe activity, NVLink and video
 * engine activity of one GPU over one 1/6 s sample period.
 *
 * These follow the utilisation model in model.c rather than running beside
 * it: each activity is the workload's value at full load (per-workload
 * defaults below, or the scenario's sm_activity... keys) times the period's
 * busy fraction (a ramp: its utilisation fraction), times the SM clock ratio when the clocks are
 * held below max (power cap, thermal or HW slowdown, application clocks).  So a heartbeat GPU reads
 * high SM activity inside a burst and ~0 between, and a GPU at 100 % utilisation can still show low
 * SM activity (launch-bound). The API layer (sim/api_gpm.c) averages these over a two-sample
 * window.
 *
 * Left out: per-engine imbalance (every video engine reads the device's
 * average), NVOFA, and any dependence on which processes run (a MIG GPU
 * instance is either idle or shows the GPU's workload).
 */
#include <math.h>
#include <string.h>

#include "gpusim.h"

/* Noise metric ids: above model.c's (which end at 13), stable. */
enum { M_GPM_BASE = 100 };

/* Per-workload activity at full load. */
struct gpm_dflt {
    double sm, occ, tensor, dram, fp64, fp32, fp16, integer;
    double nvlink_rx, nvlink_tx; /* B/s at full load, NVLink boards only */
};

static const struct gpm_dflt *defaults_of(enum gs_workload_kind k)
{
    /* Fields: SM, occupancy, tensor, DRAM, FP64, FP32, FP16, integer, NVLink rx/tx. */
    static const struct gpm_dflt idle = {0};
    static const struct gpm_dflt training = {0.80, 0.45, 0.55, 0.40, 0,
                                             0.15, 0.30, 0.10, 40e9, 40e9};
    static const struct gpm_dflt lowint = {0.20, 0.08, 0.03, 0.08, 0, 0.05, 0.02, 0.05, 1e9, 1e9};
    static const struct gpm_dflt membound = {0.55, 0.30, 0.05, 0.88, 0, 0.10, 0.05, 0.10, 5e9, 5e9};
    static const struct gpm_dflt transfer = {0.25, 0.12, 0.10, 0.15, 0, 0.05, 0.05, 0.05, 0, 0};
    static const struct gpm_dflt video = {0.05, 0.03, 0, 0.05, 0, 0.02, 0, 0.02, 0, 0};
    static const struct gpm_dflt inference = {0.60, 0.30, 0.40, 0.35, 0, 0.10, 0.25, 0.05, 0, 0};
    switch (k) {
    case GS_WL_IDLE:
        return &idle;
    case GS_WL_LOWINTENSITY:
        return &lowint;
    case GS_WL_MEMBOUND:
        return &membound;
    case GS_WL_TRANSFER:
        return &transfer;
    case GS_WL_ENCODE:
    case GS_WL_DECODE:
        return &video;
    case GS_WL_INFERENCE:
        return &inference;
    default: /* steady, heartbeat, ramp, leak, thermal, powercap: training */
        return &training;
    }
}

void gs_gpm_defaults(struct gs_workload *w)
{
    const struct gpm_dflt *d = defaults_of(w->kind);
    if (isnan(w->sm_activity))
        w->sm_activity = d->sm;
    if (isnan(w->sm_occupancy))
        w->sm_occupancy = d->occ;
    if (isnan(w->tensor_activity))
        w->tensor_activity = d->tensor;
    if (isnan(w->dram_activity))
        w->dram_activity = d->dram;
    if (isnan(w->fp64_activity))
        w->fp64_activity = d->fp64;
    if (isnan(w->fp32_activity))
        w->fp32_activity = d->fp32;
    if (isnan(w->fp16_activity))
        w->fp16_activity = d->fp16;
    if (isnan(w->nvlink_rx))
        w->nvlink_rx = d->nvlink_rx;
    if (isnan(w->nvlink_tx))
        w->nvlink_tx = d->nvlink_tx;
}

bool gs_gpm_supported(const struct gs_gpu *g)
{
    return g->cc_major >= 9;
}

void gs_gpm_shape(const struct gs_gpu *g, struct gs_gpm_shape *sh)
{
    memset(sh, 0, sizeof(*sh));
    if (!gs_gpm_supported(g))
        return;
    /* The presets' only GPM board is the H100 SXM5: 7 NVDEC, 7 NVJPG, no
     * NVENC, 18 NVLink links.  A board made GPM-capable by a
     * compute_capability override gets one engine of each and no NVLink. */
    if (g->preset && strncmp(g->preset->key, "H100", 4) == 0) {
        sh->nvdec = 7;
        sh->nvjpg = 7;
        sh->nvenc = 0;
        sh->nvlinks = strstr(g->preset->key, "SXM") ? 18 : 0;
    } else {
        sh->nvdec = sh->nvenc = sh->nvjpg = 1;
    }
}

static double clamp01(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* True when a process runs in MIG device mig of gpu at t. */
static bool mig_busy(const struct gs_scenario *s, unsigned gpu, int mig, double t)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].mig == mig && gs_proc_on(&s->procs[i], gpu, t))
            return true;
    return false;
}

void gs_model_gpm(const struct gs_scenario *s, unsigned gpu, int mig, double t, struct gs_gpm *out)
{
    const struct gs_gpu *g = &s->gpus[gpu];
    const struct gs_workload *w = &g->wl;
    const struct gpm_dflt *d = defaults_of(w->kind);
    struct gs_state st;
    struct gs_gpm_shape sh;

    memset(out, 0, sizeof(*out));
    if (!(t >= 0))
        t = 0;
    gs_model_eval(s, gpu, t, &st);
    gs_gpm_shape(g, &sh);
    int64_t b = (int64_t)floor(t * GS_SAMPLE_HZ);

    /* Device-wide link traffic, whatever the instance. */
    out->pcie_rx = st.pcie_rx_kbs * 1024.0;
    out->pcie_tx = st.pcie_tx_kbs * 1024.0;
    double u = st.util_gpu / 100.0;
    if (sh.nvlinks) {
        out->nvlink_rx = w->nvlink_rx * u * (1 + 0.05 * gs_noise(s->seed, gpu, M_GPM_BASE, b));
        out->nvlink_tx = w->nvlink_tx * u * (1 + 0.05 * gs_noise(s->seed, gpu, M_GPM_BASE + 1, b));
    }
    if (mig >= 0 && !mig_busy(s, gpu, mig, t))
        return;

    double cr = 1;
    unsigned cmax = g->clock_max[NVML_CLOCK_SM];
    if (st.pstate == 0 && cmax > 0 && st.clock[NVML_CLOCK_SM] < cmax)
        cr = (double)st.clock[NVML_CLOCK_SM] / cmax;
    /* The busy fraction of the period (a ramp: its current level; a
     * heartbeat's idle phase: heartbeat_floor). */
    double busy = w->kind == GS_WL_RAMP ? u : st.busy;
    if (w->kind == GS_WL_HEARTBEAT)
        busy += (1 - busy) * w->hb_floor / 100;
    double f = busy * cr;
    const double full[] = {w->sm_activity,   w->sm_occupancy,  d->integer,       w->tensor_activity,
                           w->dram_activity, w->fp64_activity, w->fp32_activity, w->fp16_activity};
    double v[sizeof(full) / sizeof(full[0])];
    for (unsigned k = 0; k < sizeof(full) / sizeof(full[0]); k++)
        v[k] = clamp01(full[k] * f * (1 + 0.02 * gs_noise(s->seed, gpu, M_GPM_BASE + 2 + k, b)));

    out->graphics = u;
    out->sm = v[0];
    out->occupancy = v[1];
    out->integer = v[2];
    out->tensor = v[3];
    out->dram = v[4];
    out->fp64 = v[5];
    out->fp32 = v[6];
    out->fp16 = v[7];
    /* Tensor work runs on the pipe of the dominant precision. */
    if (w->fp64_activity > w->fp16_activity)
        out->dfma = out->dmma = out->tensor;
    else
        out->hmma = out->tensor;
    out->nvenc = st.util_enc / 100.0;
    out->nvdec = st.util_dec / 100.0;
    out->nvjpg = 0;
}

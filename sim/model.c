/* model.c -- the workload physics: what a GPU reports at scenario time t.
 *
 * Every value is a closed-form function of (scenario, GPU, t):
 *   - load L(t) (0..1) follows the workload: constant, a ramp, or for
 *     heartbeat the duty-weighted average; utilisation is sampled per 1/6 s
 *     period, so heartbeat's busy/idle phases show up at sub-second sampling;
 *   - demanded power P = idle + (demand - idle) * L, capped at the enforced
 *     limit (SW power cap);
 *   - temperature is the first-order (tau ~ 60 s) response to power:
 *     T = ambient + R/cooling * filtered(P), solved exactly for the piecewise
 *     linear input; above the slowdown threshold the GPU holds T at the
 *     threshold by cutting power (and clocks with it): HW/SW thermal slowdown;
 *   - clocks scale with the power actually granted; idle means P8 and idle
 *     clocks; memory used = max(workload's memory, processes' memory).
 * Noise comes from gs_hash() keyed by (seed, gpu, metric, 1/6 s bucket), never
 * rand(), so every process computes the same numbers.  The only integrals
 * (energy, time spent throttled) are summed on a fixed 1 s grid with a cache
 * for the first day and integrated in closed form after it (see
 * "integrals"), so their value does not depend on which times were asked
 * before and costs the same at any scenario time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpusim.h"

#define MIB 1048576.0

/* Metric ids for the noise hash (stable: changing them changes every value). */
enum {
    M_UTIL = 1,
    M_MEMUTIL,
    M_POWER,
    M_TEMP,
    M_HEARTBEAT,
    M_PCIE_RX,
    M_PCIE_TX,
    M_ENC,
    M_DEC,
    M_MEMTEMP,
    M_PROC_SM,
    M_PROC_MEM,
    M_ENERGY_BASE,
    M_INFER,
    M_INFER_LEN,
};

/* Smallest memory a process with a CUDA context holds when it takes a share. */
#define GS_MIN_CONTEXT (300 * MIB)
/* Memory the driver reports used on a GPU with nothing running (v2 meaning). */
#define GS_BASE_USED (1 * MIB)

/* ---------------------------------------------------------------- noise */

static uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t gs_hash(uint64_t seed, unsigned a, unsigned b, int64_t c)
{
    uint64_t x = splitmix64(seed);
    x = splitmix64(x ^ a);
    x = splitmix64(x ^ ((uint64_t)b << 32));
    return splitmix64(x ^ (uint64_t)c);
}

static double unit01(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

double gs_noise(uint64_t seed, unsigned gpu, unsigned metric, int64_t bucket)
{
    return 2.0 * unit01(gs_hash(seed, gpu, metric, bucket)) - 1.0;
}

static int64_t bucket_of(double t)
{
    return (int64_t)floor(t * GS_SAMPLE_HZ);
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* ------------------------------------------------------------- workload */

/* Ramp value (%) at t. */
static double ramp_at(const struct gs_workload *w, double t)
{
    double f = clampd((t - w->ramp_start) / w->ramp_duration, 0, 1);
    return w->ramp_from + (w->ramp_to - w->ramp_from) * f;
}

/* Inference requests run at this utilisation (%) while one is in flight,
 * or at util if that is higher (then every period is busy). */
#define GS_INFER_LEVEL 90.0

static double inference_level(const struct gs_workload *w)
{
    return fmax(GS_INFER_LEVEL, w->util);
}

/* Utilisation level (%) while busy, at t. */
static double level_at(const struct gs_workload *w, double t)
{
    switch (w->kind) {
    case GS_WL_IDLE:
        return 0;
    case GS_WL_RAMP:
        return ramp_at(w, t);
    case GS_WL_INFERENCE:
        return inference_level(w);
    default:
        return w->util;
    }
}

/* Heartbeat bursts last whole 1/6 s sample periods (at least one): the GPU
 * is either computing a batch or waiting for the next, so each sample reads
 * ~util or 0 rather than a blur of partial values. */
static double heartbeat_burst(const struct gs_workload *w)
{
    return fmax(1, round(w->hb_duty * w->hb_period * GS_SAMPLE_HZ)) / GS_SAMPLE_HZ;
}

/* The duty cycle after rounding bursts to sample periods. */
static double heartbeat_duty(const struct gs_workload *w)
{
    return fmin(1, heartbeat_burst(w) / w->hb_period);
}

/* Fraction of [a, b) in which heartbeat bursts run.  Cycle k spans
 * [kP, (k+1)P); its burst starts at a jittered offset on the sample grid, so the pattern is
 * periodic on average but a sampler with exactly the period still sees it change (no aliasing into
 * a constant). */
static double heartbeat_busy(const struct gs_scenario *s, unsigned gpu, const struct gs_workload *w,
                             double a, double b)
{
    double p = w->hb_period, len = heartbeat_burst(w);
    double slack = fmax(0, p - len) * w->hb_jitter, busy = 0;
    /* A cycle's burst ends at most one sample period after the cycle. */
    int64_t k0 = (int64_t)floor((a - p - 1.0 / GS_SAMPLE_HZ) / p), k1 = (int64_t)floor(b / p);

    for (int64_t k = k0; k <= k1; k++) {
        /* Uniform over the sample periods the burst can start in. */
        double span = slack > 0 ? slack + 1.0 / GS_SAMPLE_HZ : 0;
        double s0 = (double)k * p + span * unit01(gs_hash(s->seed, gpu, M_HEARTBEAT, k));
        s0 = floor(s0 * GS_SAMPLE_HZ + 1e-9) / GS_SAMPLE_HZ;
        busy += fmax(0, fmin(b, s0 + len) - fmax(a, s0));
    }
    return clampd(busy / (b - a), 0, 1);
}

/* Inference: requests arrive at random, each busy for one or two whole
 * sample periods.  Period b starts a request with probability q and the
 * request lasts two periods with probability 1/2, so b is busy with
 * probability 1 - (1 - q)(1 - q/2); q is chosen to make that util / level,
 * giving a mean utilisation of util with no period to lock onto. */
static bool inference_busy(const struct gs_scenario *s, unsigned gpu, const struct gs_workload *w,
                           int64_t b)
{
    double p = clampd(w->util / inference_level(w), 0, 1);
    double q = 1.5 - sqrt(2.25 - 2 * p);
    if (unit01(gs_hash(s->seed, gpu, M_INFER, b)) < q)
        return true;
    return unit01(gs_hash(s->seed, gpu, M_INFER, b - 1)) < q &&
           unit01(gs_hash(s->seed, gpu, M_INFER_LEN, b - 1)) < 0.5;
}

/* Slow (1 s average) load 0..1 at t: what sets power and temperature.
 * Heartbeat and inference average their bursts; transfer's copy engines
 * and PCIe link draw power all the time whatever the SMs do; the video
 * workloads add 0.45 x the video engine's load to the graphics load. */
static double slow_load(const struct gs_workload *w, double t)
{
    double l = level_at(w, t) / 100;
    switch (w->kind) {
    case GS_WL_HEARTBEAT: {
        double d = heartbeat_duty(w);
        return l * d + w->hb_floor / 100 * (1 - d);
    }
    case GS_WL_INFERENCE:
        return fmin(w->util, inference_level(w)) / 100;
    case GS_WL_TRANSFER:
        return l > 0 ? 1 : 0;
    case GS_WL_ENCODE:
        return fmin(1, l + 0.45 * w->enc_util / 100);
    case GS_WL_DECODE:
        return fmin(1, l + 0.45 * w->dec_util / 100);
    default:
        return l;
    }
}

/* The [min, max] MHz clock k is locked to (nvmlDeviceSetGpuLockedClocks for
 * graphics and SM, SetMemoryLockedClocks for memory), or NULL. */
static const unsigned *locked(const struct gs_gpu *g, int k)
{
    const unsigned *l = k == NVML_CLOCK_MEM                              ? g->set.locked_mem
                        : k == NVML_CLOCK_GRAPHICS || k == NVML_CLOCK_SM ? g->set.locked_gpu
                                                                         : NULL;
    return l && l[1] ? l : NULL;
}

/* The clock a loaded GPU runs at before any slowdown: its application clock,
 * lowered to a locked maximum. */
static unsigned target_clock(const struct gs_gpu *g, int k)
{
    const unsigned *l = locked(g, k);
    return l && l[1] < g->app_clock[k] ? l[1] : g->app_clock[k];
}

/* An idle GPU's clock: the idle clock, raised to a locked minimum. */
static unsigned idle_clock(const struct gs_gpu *g, int k)
{
    const unsigned *l = locked(g, k);
    return l && l[0] > g->clock_idle[k] ? l[0] : g->clock_idle[k];
}

/* Application (or locked) clocks below max lower the power in proportion. */
static double app_ratio(const struct gs_gpu *g)
{
    unsigned mx = g->clock_max[NVML_CLOCK_GRAPHICS];
    unsigned tc = target_clock(g, NVML_CLOCK_GRAPHICS);
    return mx > 0 && tc < mx ? (double)tc / mx : 1.0;
}

static double demanded_power(const struct gs_gpu *g, double load)
{
    return g->power_idle + (g->wl.power_demand - g->power_idle) * load * app_ratio(g);
}

/* Power after the SW power cap, from load. */
static double capped_power(const struct gs_gpu *g, double load)
{
    return fmin(demanded_power(g, load), g->power_limit);
}

/* ------------------------------------------------------------ thermal */

struct pw_point {
    double t, u;
};

/* Breakpoints of the capped power input, piecewise linear in t (<= 6). */
static size_t power_input(const struct gs_gpu *g, struct pw_point *pt)
{
    const struct gs_workload *w = &g->wl;
    double ts[3];
    size_t n = 0, m = 0;

    ts[n++] = 0;
    if (w->kind == GS_WL_RAMP) {
        if (w->ramp_start > 0)
            ts[n++] = w->ramp_start;
        ts[n++] = w->ramp_start + w->ramp_duration;
    }
    for (size_t i = 0; i < n; i++) {
        double pi = demanded_power(g, slow_load(w, ts[i]));
        if (i > 0) {
            double pp = demanded_power(g, slow_load(w, ts[i - 1]));
            /* Insert the point where the line crosses the cap. */
            if ((pp - g->power_limit) * (pi - g->power_limit) < 0) {
                double f = (g->power_limit - pp) / (pi - pp);
                pt[m].t = ts[i - 1] + f * (ts[i] - ts[i - 1]);
                pt[m].u = g->power_limit;
                m++;
            }
        }
        pt[m].t = ts[i];
        pt[m].u = fmin(pi, g->power_limit);
        m++;
    }
    return m;
}

/* First-order response y' = (u - y)/tau to the piecewise linear input,
 * from y(0) = y0, evaluated at t. */
static double first_order(const struct pw_point *pt, size_t n, double y0, double tau, double t)
{
    double y = y0;

    for (size_t i = 0; i + 1 < n; i++) {
        double a = pt[i].t, b = pt[i + 1].t;
        double slope = b > a ? (pt[i + 1].u - pt[i].u) / (b - a) : 0;
        double dt = fmin(t, b) - a;
        if (dt <= 0)
            return y;
        y = pt[i].u + slope * dt - slope * tau + (y - pt[i].u + slope * tau) * exp(-dt / tau);
        if (t <= b)
            return y;
    }
    double dt = t - pt[n - 1].t;
    if (dt <= 0)
        return y;
    return pt[n - 1].u + (y - pt[n - 1].u) * exp(-dt / tau);
}

static double slowdown_temp(const struct gs_gpu *g)
{
    if (g->temp_slowdown)
        return g->temp_slowdown;
    if (g->temp_shutdown)
        return g->temp_shutdown - 3.0;
    return INFINITY;
}

/* The noise-free power state at t: what the power reading, the clocks,
 * the temperature and the throttle reasons follow. */
struct pw_state {
    double load;   /* slow load, 0..1 */
    double p_in;   /* demanded power, W */
    double p;      /* granted power: after the SW cap and thermal slowdown */
    double temp;   /* temperature before noise, held at t_slow while throttling */
    double t_slow; /* slowdown threshold (INFINITY: none) */
    bool by_power, by_thermal;
};

/* Power the first-order temperature filter starts from at t = 0. */
static double initial_filtered_power(const struct gs_gpu *g, double r)
{
    if (!isnan(g->temp_start))
        return (g->temp_start - g->ambient) / r;
    if (g->wl.kind == GS_WL_THERMAL)
        return g->power_idle;
    return capped_power(g, slow_load(&g->wl, 0));
}

/* Power the cooling removes at the slowdown threshold: the power a GPU
 * held there is cut to (filtered power above it means too hot). */
static double hold_power(const struct gs_gpu *g, double r)
{
    return (slowdown_temp(g) - g->ambient) / r;
}

static void power_at(const struct gs_gpu *g, double t, struct pw_state *ps)
{
    const struct gs_workload *w = &g->wl;
    ps->load = slow_load(w, t);
    ps->p_in = demanded_power(g, ps->load);
    ps->p = fmin(ps->p_in, g->power_limit);
    ps->by_power = ps->p_in > g->power_limit;
    ps->by_thermal = false;

    /* Temperature: first-order response to the capped power input. */
    struct pw_point pt[8];
    size_t npt = power_input(g, pt);
    double r = g->thermal_r / g->cooling;
    double t_unc = g->ambient + r * first_order(pt, npt, initial_filtered_power(g, r), g->tau, t);
    ps->t_slow = slowdown_temp(g);
    ps->temp = t_unc;
    if (t_unc >= ps->t_slow) {
        /* The GPU holds the threshold: power is cut to what the cooling
         * removes at that temperature. */
        double p_hold = hold_power(g, r);
        ps->temp = ps->t_slow;
        if (p_hold < ps->p) {
            ps->p = fmax(p_hold, g->power_idle);
            ps->by_thermal = true;
            ps->by_power = false;
        }
    }
}

/* A hw_slowdown fault: clocks at GS_HW_SLOWDOWN_CLOCK of max and power
 * falling with them; the SW power cap no longer binds.  Temperature keeps
 * following the undisturbed power (the fault is meant to be short). */
static bool hw_slowdown(const struct gs_scenario *s, unsigned gpu, double t, struct pw_state *ps,
                        bool *brake)
{
    const struct gs_gpu *g = &s->gpus[gpu];
    if (!s->nfaults || !gs_fault_hw_slowdown(s, gpu, t, brake))
        return false;
    if (ps->load >= 0.005) {
        ps->p = g->power_idle + (ps->p - g->power_idle) * GS_HW_SLOWDOWN_CLOCK;
        ps->by_power = false;
    }
    return true;
}

/* The power reading for noise pn in [-1, 1): at the cap it sits just below
 * the limit, else within 1 % of the granted power. */
static double reported_power(const struct gs_gpu *g, const struct pw_state *ps, double pn)
{
    double p_rep = ps->by_power ? g->power_limit * (1 - 0.004 * fabs(pn)) : ps->p * (1 + 0.01 * pn);
    return fmin(p_rep, g->power_limit);
}

/* ---------------------------------------------------------- processes */

bool gs_proc_on(const struct gs_process *p, unsigned gpu, double t)
{
    return (p->gpus & (UINT64_C(1) << gpu)) && t >= p->start && t < p->end &&
           (!p->pid_file || p->dyn_live);
}

/* Memory the workload itself holds at t (leaks grow until 64 MiB short of full). */
static double workload_memory(const struct gs_gpu *g, double t)
{
    double usable = (double)(g->mem_total - g->mem_reserved);
    double m = g->wl.memory_used + g->wl.leak_rate * t;
    return fmin(m, fmax(g->wl.memory_used, usable - GS_BASE_USED - 64 * MIB));
}

/* Fixed memory and number of share-taking processes active on gpu at t. */
static void proc_totals(const struct gs_scenario *s, unsigned gpu, double t, double *fixed,
                        unsigned *nshare)
{
    *fixed = 0;
    *nshare = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gs_process *p = &s->procs[i];
        if (!gs_proc_on(p, gpu, t))
            continue;
        if (p->mem_mode == GS_MEM_FIXED)
            *fixed += (double)p->used_memory;
        else
            (*nshare)++;
    }
}

/* Bytes each share-taking process holds on gpu at t, given the totals. */
static double share_of(const struct gs_scenario *s, unsigned gpu, double t, double fixed,
                       unsigned nshare)
{
    return nshare ? fmax(GS_MIN_CONTEXT, (workload_memory(&s->gpus[gpu], t) - fixed) / nshare)
                  : GS_MIN_CONTEXT;
}

static unsigned long long memory_with_share(const struct gs_scenario *s, const struct gs_process *p,
                                            unsigned gpu, double t, double share)
{
    if (!gs_proc_on(p, gpu, t))
        return 0;
    if (p->mem_mode == GS_MEM_FIXED)
        return p->used_memory;
    const struct gs_gpu *g = &s->gpus[gpu];
    if (p->mig >= 0 && (unsigned)p->mig < g->nmig)
        share = fmin(share, (double)g->mig[p->mig].mem_total / 2);
    /* Drivers account in whole MiB. */
    return (unsigned long long)(share / MIB) << 20;
}

unsigned long long gs_proc_memory(const struct gs_scenario *s, const struct gs_process *p,
                                  unsigned gpu, double t)
{
    if (!gs_proc_on(p, gpu, t))
        return 0;
    if (p->mem_mode == GS_MEM_FIXED)
        return p->used_memory;
    double fixed;
    unsigned nshare;
    proc_totals(s, gpu, t, &fixed, &nshare);
    return memory_with_share(s, p, gpu, t, share_of(s, gpu, t, fixed, nshare));
}

static double gpu_memory_used(const struct gs_scenario *s, unsigned gpu, double t)
{
    const struct gs_gpu *g = &s->gpus[gpu];
    double fixed;
    unsigned nshare;
    proc_totals(s, gpu, t, &fixed, &nshare);
    double procs = fixed + nshare * GS_MIN_CONTEXT;
    double used = GS_BASE_USED + fmax(workload_memory(g, t), procs);
    return fmin(used, (double)(g->mem_total - g->mem_reserved));
}

unsigned long long gs_mig_mem_used(const struct gs_scenario *s, unsigned gpu, unsigned mig,
                                   double t)
{
    const struct gs_gpu *g = &s->gpus[gpu];
    double fixed;
    unsigned nshare;
    proc_totals(s, gpu, t, &fixed, &nshare);
    double share = share_of(s, gpu, t, fixed, nshare);
    double used = GS_BASE_USED;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gs_process *p = &s->procs[i];
        if (p->mig == (int)mig && gs_proc_on(p, gpu, t))
            used += (double)memory_with_share(s, p, gpu, t, share);
    }
    return (unsigned long long)fmin(used, (double)g->mig[mig].mem_total);
}

void gs_procs_at(const struct gs_scenario *s, unsigned gpu, double t, struct gs_procs_at *a)
{
    double fixed;
    unsigned nshare;
    a->gpu = gpu;
    a->t = t;
    proc_totals(s, gpu, t, &fixed, &nshare);
    a->share = share_of(s, gpu, t, fixed, nshare);
    a->nactive = 0;
    for (size_t i = 0; i < s->nprocs; i++)
        a->nactive += gs_proc_on(&s->procs[i], gpu, t) && !s->procs[i].dead ? 1 : 0;
    gs_model_eval(s, gpu, t, &a->st);
}

unsigned long long gs_proc_memory_at(const struct gs_scenario *s, const struct gs_procs_at *a,
                                     const struct gs_process *p)
{
    return memory_with_share(s, p, a->gpu, a->t, a->share);
}

void gs_proc_util_at(const struct gs_scenario *s, const struct gs_procs_at *a,
                     const struct gs_process *p, unsigned *sm, unsigned *mem)
{
    const struct gs_state *st = &a->st;
    unsigned gpu = a->gpu, n = a->nactive ? a->nactive : 1;
    int64_t b = bucket_of(a->t);
    unsigned key = (unsigned)(p - s->procs);
    double busy = s->gpus[gpu].wl.kind == GS_WL_HEARTBEAT ? st->busy : 1.0;
    double vsm = isnan(p->sm_util) ? (double)st->util_gpu / n : p->sm_util * busy;
    double vmem = isnan(p->mem_util) ? (double)st->util_mem / n : p->mem_util * busy;
    if (vsm > 0)
        vsm += gs_noise(s->seed, gpu, M_PROC_SM + 16 * key, b);
    if (vmem > 0)
        vmem += gs_noise(s->seed, gpu, M_PROC_MEM + 16 * key, b);
    *sm = (unsigned)lround(clampd(vsm, 0, 100));
    *mem = (unsigned)lround(clampd(vmem, 0, 100));
}

void gs_proc_util(const struct gs_scenario *s, const struct gs_process *p, unsigned gpu, double t,
                  unsigned *sm, unsigned *mem)
{
    struct gs_procs_at a;
    gs_procs_at(s, gpu, t, &a);
    gs_proc_util_at(s, &a, p, sm, mem);
}

/* -------------------------------------------------------------- the model */

static unsigned quantize_clock(double mhz, unsigned max)
{
    if (mhz >= max)
        return max;
    unsigned q = (unsigned)(mhz / 15.0) * 15u;
    return q ? q : 15u;
}

static double link_bw(unsigned gen, unsigned width)
{
    static const double lane[7] = {0, 250e6, 500e6, 985e6, 1969e6, 3938e6, 7563e6};
    return lane[gen < 7 ? gen : 6] * width;
}

void gs_model_eval(const struct gs_scenario *s, unsigned gpu, double t, struct gs_state *st)
{
    const struct gs_gpu *g = &s->gpus[gpu];
    const struct gs_workload *w = &g->wl;
    uint64_t seed = s->seed;

    memset(st, 0, sizeof(*st));
    if (!(t >= 0))
        t = 0;
    int64_t b = bucket_of(t);
    double w0 = (double)b / GS_SAMPLE_HZ, w1 = (double)(b + 1) / GS_SAMPLE_HZ;

    /* Utilisation over the 1/6 s sample period containing t. */
    double level = level_at(w, (w0 + w1) / 2);
    double busy = w->kind == GS_WL_IDLE        ? 0
                  : w->kind == GS_WL_HEARTBEAT ? heartbeat_busy(s, gpu, w, w0, w1)
                  : w->kind == GS_WL_INFERENCE ? (inference_busy(s, gpu, w, b) ? 1 : 0)
                                               : (level > 0 ? 1 : 0);
    st->busy = busy;
    /* A heartbeat's idle phase reads heartbeat_floor (default 0) +- noise. */
    double floor_pct = w->kind == GS_WL_HEARTBEAT ? w->hb_floor : 0;
    double active = level * busy + floor_pct * (1 - busy);
    double un = gs_noise(seed, gpu, M_UTIL, b);
    double util = busy > 0        ? active + w->util_noise * un * busy
                  : floor_pct > 0 ? active + fmin(w->util_noise, floor_pct) * un
                                  : 0;
    st->util_gpu = (unsigned)lround(clampd(util, 0, 100));
    double mem_ratio = w->util > 0 ? w->mem_util / w->util : 0;
    double mutil = active > 0 ? mem_ratio * active + gs_noise(seed, gpu, M_MEMUTIL, b) : 0;
    st->util_mem = (unsigned)lround(clampd(mutil, 0, 100));
    if (w->enc_util > 0)
        st->util_enc =
            (unsigned)lround(clampd(w->enc_util + gs_noise(seed, gpu, M_ENC, b), 0, 100));
    if (w->dec_util > 0)
        st->util_dec =
            (unsigned)lround(clampd(w->dec_util + gs_noise(seed, gpu, M_DEC, b), 0, 100));

    /* Power demand, the SW power cap, temperature and thermal slowdown. */
    struct pw_state ps;
    power_at(g, t, &ps);
    bool brake = false;
    bool hw_slow = hw_slowdown(s, gpu, t, &ps, &brake);
    double load = ps.load, p_in = ps.p_in, p = ps.p, temp = ps.temp, t_slow = ps.t_slow;
    st->load = load;
    st->power_capped = ps.by_power;
    st->thermal_limited = ps.by_thermal;
    bool by_power = ps.by_power, by_thermal = ps.by_thermal;

    st->power_w = reported_power(g, &ps, gs_noise(seed, gpu, M_POWER, b));
    st->power_mw = (unsigned)lround(st->power_w * 1000);

    double tn = gs_noise(seed, gpu, M_TEMP, b);
    st->temp_c = temp >= t_slow ? t_slow - 0.3 * fabs(tn) : temp + 0.3 * tn;
    st->temp = (unsigned)lround(fmax(st->temp_c, 0));
    if (g->mem_temp)
        st->mem_temp = (unsigned)lround(
            fmax(st->temp_c + g->mem_temp_offset + 0.5 * gs_noise(seed, gpu, M_MEMTEMP, b), 0));

    /* Performance state and clocks. */
    bool idle = load < 0.005;
    st->pstate = idle ? 8 : 0;
    double f = 1;
    if (hw_slow)
        f = GS_HW_SLOWDOWN_CLOCK;
    else if (!idle && p < p_in - 1e-9 && p_in > g->power_idle)
        f = clampd((p - g->power_idle) / (p_in - g->power_idle), 0.2, 1);
    /* A loaded GPU runs at its application clocks (default: max), scaled
     * down by a power cap, thermal or HW slowdown. */
    for (int k = 0; k < NVML_CLOCK_COUNT; k++) {
        if (idle)
            st->clock[k] = idle_clock(g, k);
        else if (k == NVML_CLOCK_MEM || f >= 1)
            st->clock[k] = target_clock(g, k);
        else
            st->clock[k] = quantize_clock(target_clock(g, k) * f, g->clock_max[k]);
    }

    unsigned long long reasons = 0;
    if (idle || st->util_gpu == 0)
        reasons |= nvmlClocksEventReasonGpuIdle;
    if (by_power)
        reasons |= nvmlClocksEventReasonSwPowerCap;
    if (by_thermal)
        reasons |= nvmlClocksThrottleReasonHwSlowdown | nvmlClocksEventReasonSwThermalSlowdown |
                   nvmlClocksThrottleReasonHwThermalSlowdown;
    if (!idle && (target_clock(g, NVML_CLOCK_GRAPHICS) < g->clock_max[NVML_CLOCK_GRAPHICS] ||
                  target_clock(g, NVML_CLOCK_MEM) < g->clock_max[NVML_CLOCK_MEM]))
        reasons |= nvmlClocksEventReasonApplicationsClocksSetting;
    if (hw_slow)
        reasons |= nvmlClocksThrottleReasonHwSlowdown;
    if (hw_slow && brake)
        reasons |= nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
    st->reasons = reasons;

    if (g->fans)
        st->fan = (unsigned)lround(clampd(30 + (st->temp_c - 35) * 1.3, 30, 100));

    st->mem_used = (unsigned long long)gpu_memory_used(s, gpu, t);

    /* PCIe: the link drops to gen1 in P8; data-loader-bound heartbeat pulls
     * hardest while the SMs wait. */
    st->pcie_gen_cur = idle ? 1 : g->pcie_gen_load;
    st->pcie_width_cur = g->pcie_width_cur;
    double bw = 0.9 * link_bw(st->pcie_gen_cur, st->pcie_width_cur);
    double rx, tx;
    if (idle) {
        rx = fmin(w->pcie_rx, 20e3);
        tx = fmin(w->pcie_tx, 10e3);
    } else if (w->kind == GS_WL_HEARTBEAT) {
        rx = w->pcie_rx * (0.25 + 0.75 * (1 - busy));
        tx = w->pcie_tx * busy;
    } else if (w->kind == GS_WL_TRANSFER) {
        rx = w->pcie_rx; /* the copies never stop */
        tx = w->pcie_tx;
    } else {
        rx = w->pcie_rx * load;
        tx = w->pcie_tx * load;
    }
    rx *= 1 + 0.1 * gs_noise(seed, gpu, M_PCIE_RX, b);
    tx *= 1 + 0.1 * gs_noise(seed, gpu, M_PCIE_TX, b);
    st->pcie_rx_kbs = (unsigned)(clampd(rx, 0, bw) / 1024);
    st->pcie_tx_kbs = (unsigned)(clampd(tx, 0, bw) / 1024);
    st->pcie_replays = (unsigned)fmin(floor(g->pcie_replays_per_hour * t / 3600), 4e9);
}

/* ------------------------------------------------------------ integrals */

/* The integrals (energy, seconds power-capped, seconds thermally limited)
 * are sums over a 1 s grid of the values at each whole second, the power
 * with its noise, for the first GS_EXACT_S seconds: what a client that
 * differences energy over short spans sees.  The cache makes a time's sum
 * cost O(1) amortised for a clock that moves forward and at most
 * GS_EXACT_S model evaluations for any time.
 *
 * Past GS_EXACT_S the sums go on as the integral of their expectation over
 * the noise, in closed form per piece of the model on which its state is
 * fixed (see expected_integrals), so the cost is the same at 1e9 s as at
 * 1e5 s.  What that leaves out is the running sum of the noise: a random
 * walk of about sqrt(n) * 0.6 % of the power over n seconds, 2e-5 of the
 * energy after one day and less after, so no client can tell. */

#define GS_CP_STEPS 1024 /* grid steps (seconds) between checkpoints */
#define GS_EXACT_S 86400 /* seconds summed on the grid: one day */

struct gs_integ {
    double (*cp)[3]; /* cp[i]: sums over steps [0, i*GS_CP_STEPS) */
    size_t ncp, capcp;
    int64_t cur_k; /* cur: sums over steps [0, cur_k) */
    double cur[3];
};

void gs_integ_free(struct gs_scenario *s)
{
    if (!s->integ)
        return;
    for (unsigned i = 0; i < s->ngpus; i++)
        free(s->integ[i].cp);
    free(s->integ);
    s->integ = NULL;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fputs("gpusim: out of memory\n", stderr);
        abort();
    }
    return q;
}

/* Power (W) and throttle indicators over grid step k, i.e. [k, k+1) s: the
 * values gs_model_eval gives at t = k. */
static void step_values(const struct gs_scenario *s, unsigned gpu, int64_t k, double v[3])
{
    const struct gs_gpu *g = &s->gpus[gpu];
    struct pw_state ps;
    bool brake;
    power_at(g, (double)k, &ps);
    hw_slowdown(s, gpu, (double)k, &ps, &brake);
    v[0] = reported_power(g, &ps, gs_noise(s->seed, gpu, M_POWER, bucket_of((double)k)));
    v[1] = ps.by_power ? 1 : 0;
    v[2] = ps.by_thermal ? 1 : 0;
}

static void advance(const struct gs_scenario *s, unsigned gpu, struct gs_integ *in, int64_t to)
{
    double v[3];
    while (in->cur_k < to) {
        step_values(s, gpu, in->cur_k, v);
        for (int j = 0; j < 3; j++)
            in->cur[j] += v[j];
        in->cur_k++;
        if (in->cur_k % GS_CP_STEPS == 0 && (size_t)(in->cur_k / GS_CP_STEPS) == in->ncp) {
            if (in->ncp == in->capcp) {
                in->capcp = in->capcp ? 2 * in->capcp : 64;
                in->cp = xrealloc(in->cp, in->capcp * sizeof(*in->cp));
            }
            memcpy(in->cp[in->ncp++], in->cur, sizeof(in->cur));
        }
    }
}

/* Mean reported power over the noise u (uniform in [-1, 1)) when power p
 * is granted without the cap: min(p (1 + 0.01 u), L) averages p while
 * p * 1.01 <= L, else 1/2 (0.995 p + L - 50 (L - p)^2 / p). */
static double mean_power(double p, double L)
{
    if (p * 1.01 <= L)
        return p;
    double d = L - p;
    return 0.5 * (0.995 * p + L - 50 * d * d / p);
}

/* The integral of mean_power over len seconds in which p runs linearly from
 * p0 to p1, on one side of L / 1.01: p itself below, and above it
 * 1/2 (-49.005 p + 101 L - 50 L^2 / p), whose 1/p integrates to a log. */
static double mean_power_integral(double p0, double p1, double len, double L)
{
    double pm = 0.5 * (p0 + p1);
    if (pm * 1.01 <= L)
        return pm * len;
    double inv = fabs(p1 - p0) <= 1e-12 * pm ? 1 / pm : log(p1 / p0) / (p1 - p0);
    return 0.5 * len * (-49.005 * pm + 101 * L - 50 * L * L * inv);
}

/* Adds x to cuts[] if it lies strictly inside (lo, hi). */
static void add_cut(double *cuts, size_t *n, size_t cap, double x, double lo, double hi)
{
    if (x > lo && x < hi && *n < cap)
        cuts[(*n)++] = x;
}

/* Where, in (lo, hi) of a segment starting at s0, the filtered power
 * y(s0 + d) = u0 + m (d - tau) + A e^(-d/tau) crosses level h.  y is convex
 * or concave (y'' has the sign of A), so it crosses at most twice: split at
 * its extremum, then bisect each monotone part to the last bit. */
static void add_crossings(double *cuts, size_t *n, size_t cap, double s0, double u0, double m,
                          double A, double tau, double h, double lo, double hi)
{
    double x[3];
    size_t nx = 0;
    x[nx++] = lo - s0;
    if (A != 0 && m != 0 && m * tau / A > 0) {
        double de = -tau * log(m * tau / A); /* y'(de) = 0 */
        if (de > lo - s0 && de < hi - s0)
            x[nx++] = de;
    }
    x[nx++] = hi - s0;
    for (size_t k = 0; k + 1 < nx; k++) {
        double a = x[k], b = x[k + 1];
        double fa = u0 + m * (a - tau) + A * exp(-a / tau) - h;
        double fb = u0 + m * (b - tau) + A * exp(-b / tau) - h;
        if ((fa < 0) == (fb < 0))
            continue;
        for (int it = 0; it < 200; it++) {
            double c = 0.5 * (a + b);
            if (c <= a || c >= b)
                break;
            double fc = u0 + m * (c - tau) + A * exp(-c / tau) - h;
            if ((fc < 0) == (fa < 0)) {
                a = c;
                fa = fc;
            } else {
                b = c;
            }
        }
        add_cut(cuts, n, cap, s0 + b, lo, hi);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The integrals over [a, b) of the step values' expectation over the noise,
 * added to out[].  [a, b) is cut where the model's state can change: at the
 * breakpoints of the power input (ramp ends, crossings of the power limit),
 * where the filtered power crosses the hold power (thermal slowdown starts
 * or ends), where the input crosses the hold power or L / 1.01.  On each
 * piece the state is that of its midpoint and the integrand is a constant
 * or mean_power of a linear p, integrated exactly. */
static void expected_integrals(const struct gs_gpu *g, double a, double b, double out[3])
{
    struct pw_point pt[8];
    size_t npt = power_input(g, pt);
    double r = g->thermal_r / g->cooling, L = g->power_limit;
    double y0 = initial_filtered_power(g, r), h = hold_power(g, r);
    double cuts[64];
    size_t nc = 0;
    cuts[nc++] = a;
    cuts[nc++] = b;
    for (size_t i = 0; i < npt; i++) {
        double s0 = pt[i].t, s1 = i + 1 < npt ? pt[i + 1].t : INFINITY;
        double lo = fmax(s0, a), hi = fmin(s1, b);
        if (lo >= hi)
            continue;
        add_cut(cuts, &nc, 64, s0, a, b);
        double u0 = pt[i].u;
        double m = i + 1 < npt && s1 > s0 ? (pt[i + 1].u - u0) / (s1 - s0) : 0;
        if (m != 0) {
            add_cut(cuts, &nc, 64, s0 + (L / 1.01 - u0) / m, lo, hi);
            if (isfinite(h))
                add_cut(cuts, &nc, 64, s0 + (h - u0) / m, lo, hi);
        }
        if (isfinite(h)) {
            double ys = first_order(pt, npt, y0, g->tau, s0);
            add_crossings(cuts, &nc, 64, s0, u0, m, ys - u0 + m * g->tau, g->tau, h, lo, hi);
        }
    }
    qsort(cuts, nc, sizeof(cuts[0]), cmp_double);
    for (size_t k = 0; k + 1 < nc; k++) {
        double c0 = cuts[k], c1 = cuts[k + 1], len = c1 - c0;
        if (!(len > 0))
            continue;
        struct pw_state ps;
        power_at(g, 0.5 * (c0 + c1), &ps);
        if (ps.by_power) {
            out[0] += L * (1 - 0.002) * len; /* E|u| = 1/2 */
            out[1] += len;
        } else if (ps.by_thermal) {
            out[0] += mean_power(ps.p, L) * len;
            out[2] += len;
        } else {
            double p0 = fmin(demanded_power(g, slow_load(&g->wl, c0)), L);
            double p1 = fmin(demanded_power(g, slow_load(&g->wl, c1)), L);
            out[0] += mean_power_integral(p0, p1, len, L);
        }
    }
}

void gs_model_integrals(struct gs_scenario *s, unsigned gpu, double t, double *energy_mj,
                        double *powercap_s, double *thermal_s)
{
    if (!(t >= 0))
        t = 0;
    if (!s->integ) {
        s->integ = calloc(s->ngpus ? s->ngpus : 1, sizeof(*s->integ));
        if (!s->integ) {
            fputs("gpusim: out of memory\n", stderr);
            abort();
        }
    }
    struct gs_integ *in = &s->integ[gpu];
    if (in->ncp == 0) {
        in->capcp = 64;
        in->cp = xrealloc(in->cp, in->capcp * sizeof(*in->cp));
        memset(in->cp[0], 0, sizeof(in->cp[0]));
        in->ncp = 1;
        in->cur_k = 0;
        memset(in->cur, 0, sizeof(in->cur));
    }
    double tt = fmin(t, GS_EXACT_S);
    int64_t k = (int64_t)floor(tt);
    if (k < in->cur_k) {
        /* Going back: restart from the checkpoint at or below k; the sums are
         * then added in exactly the same order as the first time. */
        size_t q = (size_t)(k / GS_CP_STEPS);
        memcpy(in->cur, in->cp[q], sizeof(in->cur));
        in->cur_k = (int64_t)q * GS_CP_STEPS;
    }
    advance(s, gpu, in, k);
    double sum[3];
    if (t < GS_EXACT_S) {
        double v[3];
        step_values(s, gpu, k, v);
        for (int j = 0; j < 3; j++)
            sum[j] = in->cur[j] + v[j] * (tt - (double)k);
    } else {
        memcpy(sum, in->cur, sizeof(sum));
        expected_integrals(&s->gpus[gpu], GS_EXACT_S, t, sum);
    }

    const struct gs_gpu *g = &s->gpus[gpu];
    /* Energy since the driver loaded: 2-7 days at idle power before t = 0. */
    double base_j =
        g->power_idle * 86400 * (2 + 5 * unit01(gs_hash(s->seed, gpu, M_ENERGY_BASE, 0)));
    *energy_mj = floor((base_j + sum[0]) * 1000);
    *powercap_s = sum[1];
    *thermal_s = sum[2];
}

/* diagnose.c -- the detectors behind `gpumon diagnose`: per-GPU series in,
 * named causes with evidence out.
 *
 * Each GPU keeps its points (sparse: a NAN field was not measured).  An
 * evaluation summarises every GPU's points in the window once (struct stats:
 * means, fractions of points meeting a condition, the utilisation's shape,
 * the memory slope), then runs the detectors, one small function per cause,
 * over the summaries.  The rules and thresholds are in docs/diagnose.md;
 * that page and the constants here must agree.
 *
 * Not here: reading NVML, the store or CSV (the callers), printing (cli).
 */
#include "diagnose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/err.h"

/* ---- names -------------------------------------------------------------- */

static const char *const cause_names[] = {
#define GM_DG_NAME_(id, name) name,
    GM_DG_CAUSES(GM_DG_NAME_)
#undef GM_DG_NAME_
};

const char *gm_dg_cause_name(enum gm_dg_cause c)
{
    return (unsigned)c < GM_DG__COUNT ? cause_names[c] : "?";
}

int gm_dg_cause_from_name(const char *s)
{
    for (int i = 0; i < GM_DG__COUNT; i++)
        if (strcmp(s, cause_names[i]) == 0)
            return i;
    return -1;
}

static const char *const sev_names[] = {"info", "warning", "critical"};

const char *gm_dg_severity_name(enum gm_dg_severity s)
{
    return (unsigned)s <= GM_DG_CRITICAL ? sev_names[s] : "?";
}

int gm_dg_severity_from_name(const char *s)
{
    for (int i = 0; i <= GM_DG_CRITICAL; i++)
        if (strcmp(s, sev_names[i]) == 0)
            return i;
    return -1;
}

/* ---- the store of points ------------------------------------------------ */

struct series {
    struct gm_dg_gpu_info info;
    int has_info;
    struct gm_dg_point *p;
    size_t n, cap;
};

struct gm_dg {
    struct gm_dg_opts opts;
    struct series *g; /* by NVML index */
    size_t ng;
};

uint64_t gm_dg_owner_id(const char *job)
{
    if (!job || !job[0])
        return 0;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)job; *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    return h ? h : 1;
}

void gm_dg_point_init(struct gm_dg_point *p, int64_t t_ns)
{
    memset(p, 0, sizeof *p);
    p->t_ns = t_ns;
    double *d[] = {
        &p->util_gpu,        &p->util_gpu_min,      &p->util_gpu_max,    &p->util_mem,
        &p->power_w,         &p->power_limit_w,     &p->sm_clock_mhz,    &p->sm_clock_max_mhz,
        &p->mem_clock_mhz,   &p->mem_clock_max_mhz, &p->temp_c,          &p->temp_slowdown_c,
        &p->mem_used_b,      &p->mem_total_b,       &p->pcie_rx_Bps,     &p->pcie_tx_Bps,
        &p->enc_util,        &p->dec_util,          &p->sm_active,       &p->dram_active,
        &p->ecc_uncorrected, &p->remap_pending,     &p->retired_pending, &p->proc_mem_b,
        &p->pcie_link_Bps,   &p->dead_mem_b};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        *d[i] = NAN;
    p->reasons = -1;
    p->pcie_gen = p->pcie_gen_max = p->pcie_width = p->pcie_width_max = -1;
    p->compute_mode = -1;
    p->nproc = p->nproc_dead = -1;
    p->host_workers = -1;
    p->host_cpu_pct = p->host_workers_cpu_pct = p->host_iowait_pct = NAN;
    p->psi_cpu = p->psi_io = NAN;
}

struct gm_dg *gm_dg_new(const struct gm_dg_opts *opts)
{
    struct gm_dg *d = gm_xcalloc(1, sizeof *d);
    if (opts)
        d->opts = *opts;
    return d;
}

void gm_dg_free(struct gm_dg *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->ng; i++)
        free(d->g[i].p);
    free(d->g);
    free(d);
}

static struct series *series_at(struct gm_dg *d, uint32_t gpu)
{
    if (gpu >= d->ng) {
        size_t n = (size_t)gpu + 1;
        d->g = gm_xrealloc(d->g, n * sizeof *d->g);
        memset(d->g + d->ng, 0, (n - d->ng) * sizeof *d->g);
        for (size_t i = d->ng; i < n; i++)
            d->g[i].info.index = (uint32_t)i;
        d->ng = n;
    }
    return &d->g[gpu];
}

size_t gm_dg_mem_bytes(const struct gm_dg *d)
{
    size_t b = sizeof *d + d->ng * sizeof *d->g;
    for (size_t i = 0; i < d->ng; i++)
        b += d->g[i].cap * sizeof *d->g[i].p;
    return b;
}

struct gm_dg_gpu_info gm_dg_gpu(const struct gm_dg *d, uint32_t index)
{
    if (index < d->ng)
        return d->g[index].info;
    struct gm_dg_gpu_info z = {.index = index};
    return z;
}

void gm_dg_set_gpu(struct gm_dg *d, const struct gm_dg_gpu_info *info)
{
    struct series *s = series_at(d, info->index);
    s->info = *info;
    s->has_info = 1;
}

int gm_dg_add(struct gm_dg *d, uint32_t gpu, const struct gm_dg_point *p)
{
    if (gpu >= 4096)
        return GM_E_INVAL;
    struct series *s = series_at(d, gpu);
    if (s->n && p->t_ns < s->p[s->n - 1].t_ns)
        return GM_E_INVAL;
    if (d->opts.max_age_ns > 0 && s->n) { /* drop what is older than newest - max_age */
        /* the points before the first one at or after cut: a binary search,
         * the times do not decrease */
        int64_t cut = p->t_ns - d->opts.max_age_ns;
        size_t lo = 0, hi = s->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->p[mid].t_ns < cut)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* amortised: moved once a sixteenth is stale (15 points moved per
         * point added), or before the array would grow, so that a full
         * window neither grows the array nor touches more of it (the
         * stale points are out of every evaluation's range meanwhile) */
        if (lo > 0 && (lo >= s->n / 16 || s->n == s->cap)) {
            memmove(s->p, s->p + lo, (s->n - lo) * sizeof *s->p);
            s->n -= lo;
        }
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->p = gm_xrealloc(s->p, s->cap * sizeof *s->p);
    }
    s->p[s->n++] = *p;
    return 0;
}

/* ---- per-GPU summary ---------------------------------------------------- */

#define UTIL_HIGH 50.0            /* a sample "busy" in a burst */
#define UTIL_LOW 10.0             /* a sample "idle" between bursts */
#define STARVED_MEAN 18.0         /* % mean utilisation at least, PCIe measured */
#define STARVED_MEAN_NO_PCIE 25.0 /* % mean utilisation at least, PCIe not measured */
#define STARVED_RX_BPS 0.5e9      /* PCIe RX between bursts at least, when measured */
#define STARVED_MIN_GAPS 3        /* intervals between rises to judge a beat's regularity */
#define STARVED_REGULAR_CV 0.5    /* intervals' CV at most: paced steps, not random requests */

struct acc {
    double sum, sum2;
    double min, max;
    size_t n;
};

static void acc_add(struct acc *a, double v)
{
    if (isnan(v))
        return;
    if (!a->n || v < a->min)
        a->min = v;
    if (!a->n || v > a->max)
        a->max = v;
    a->sum += v;
    a->sum2 += v * v;
    a->n++;
}

static double acc_mean(const struct acc *a)
{
    return a->n ? a->sum / (double)a->n : NAN;
}

static double acc_sd(const struct acc *a)
{
    if (a->n < 2)
        return NAN;
    double m = a->sum / (double)a->n;
    double v = a->sum2 / (double)a->n - m * m;
    return v > 0 ? sqrt(v) : 0;
}

struct stats {
    size_t npoints;
    int64_t t0, t1;
    int lost;
    int64_t lost_at;
    struct acc util, util_mem, power_frac, clock_frac, temp, rx, rx_frac, enc, dec, sm_act, dram;
    double temp_slowdown;
    /* utilisation's shape */
    size_t n_high, n_low, rises; /* samples >= UTIL_HIGH, <= UTIL_LOW; low->high edges */
    size_t n_roll, n_roll_alt;   /* rollup rows; of them, min <= LOW and max >= HIGH */
    struct acc rx_low;           /* PCIe RX in the idle samples */
    struct acc rise_gap;         /* seconds between consecutive rises */
    int64_t last_rise;
    /* reasons */
    size_t n_reasons, n_thermal, n_pcap, n_hwslow, n_brake, n_app, n_hw_nontherm;
    int64_t thermal_t0, thermal_t1, pcap_t0, pcap_t1, hw_t0, hw_t1, app_t0, app_t1;
    /* clocks below max with no reason but app clocks */
    size_t n_busy_clock, n_busy_clock_low;
    /* memory */
    double mem_total, mem_last, mem_first_seg;
    struct acc mem;
    double slope_Bps, slope_r2; /* least squares over the last segment (after a restart) */
    double slope_late_Bps;      /* the same over the segment's second half */
    double seg_mem0;            /* memory at the segment's first point */
    size_t seg_n;
    int64_t seg_t0;
    /* processes */
    size_t n_proc_read, n_proc_none_mem; /* points with the list read; of them nproc 0, mem held */
    int nproc_last, dead_last;
    double proc_mem_last, dead_mem_last;
    int max_dead;
    /* modes and faults */
    size_t n_cm_known, n_excl_with_proc;
    double ecc_max, remap_max, retired_max;
    size_t n_pcie_loaded, n_pcie_degraded;
    int gen_min, gen_max, width_min, width_max;
    /* the host side of the feeding process (points that carried it) */
    struct acc host_cpu, host_wcpu, host_workers, host_io, psi_cpu, psi_io;
    uint32_t host_pid;
    int psi_scope;
};

static int64_t first_nonzero(int64_t cur, int64_t t)
{
    return cur ? cur : t;
}

static double link_Bps(int gen, int width)
{
    static const double lane[] = {0, 0.25e9, 0.5e9, 0.985e9, 1.969e9, 3.938e9, 7.563e9};
    if (gen < 1 || gen > 6 || width < 1)
        return NAN;
    return lane[gen] * width;
}

/* ---- memory segments: one owner's life, between steps ------------------- */

static int mem_point(const struct gm_dg_point *p, int64_t from, int64_t to)
{
    return !((from && p->t_ns < from) || (to && p->t_ns > to) || p->lost || isnan(p->mem_used_b));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A step: one sample-to-sample change of memory far beyond the others
 * (a job's start or end, a model loaded or freed, a restart).  A leak adds
 * memory at a steady rate, so its changes between samples are alike; an
 * allocation that comes at once is many times the typical change, and
 * more than allocator noise. */
#define STEP_TIMES 8.0       /* times the median absolute change between samples */
#define STEP_MIN_FRAC 0.02   /* of the card, at least */
#define STEP_MIN_B 268435456 /* 256 MiB at least */

/* The index of the first point of the last segment of points first..last:
 * a new segment starts at a step (either way) and where the memory's owner
 * changes between two known owners. */
static size_t mem_segment(const struct series *s, size_t first, size_t last, double total)
{
    size_t nd = 0, cap = last - first + 1;
    double *dv = gm_xcalloc(cap, sizeof *dv), prev = NAN;
    for (size_t i = first; i <= last; i++) {
        const struct gm_dg_point *p = &s->p[i];
        if (p->lost || isnan(p->mem_used_b))
            continue;
        if (!isnan(prev))
            dv[nd++] = fabs(p->mem_used_b - prev);
        prev = p->mem_used_b;
    }
    double med = 0;
    if (nd) {
        qsort(dv, nd, sizeof *dv, cmp_double);
        med = dv[nd / 2];
    }
    free(dv);
    double step = fmax(STEP_TIMES * med, STEP_MIN_B);
    if (!isnan(total) && total > 0)
        step = fmax(step, STEP_MIN_FRAC * total);
    size_t start = first;
    uint64_t owner = 0;
    prev = NAN;
    for (size_t i = first; i <= last; i++) {
        const struct gm_dg_point *p = &s->p[i];
        if (p->lost || isnan(p->mem_used_b))
            continue;
        if ((!isnan(prev) && fabs(p->mem_used_b - prev) >= step) ||
            (p->owner && owner && p->owner != owner))
            start = i;
        if (p->owner)
            owner = p->owner;
        prev = p->mem_used_b;
    }
    return start;
}

struct fit {
    double sx, sy, sxx, sxy, syy;
    size_t n;
};

static void fit_add(struct fit *f, double x, double y)
{
    f->sx += x;
    f->sy += y;
    f->sxx += x * x;
    f->sxy += x * y;
    f->syy += y * y;
    f->n++;
}

/* Least-squares slope and R²; NAN when fewer than 3 points or no spread in x. */
static void fit_line(const struct fit *f, double *slope, double *r2)
{
    *slope = *r2 = NAN;
    if (f->n < 3)
        return;
    double n = (double)f->n;
    double dx = f->sxx - f->sx * f->sx / n, dy = f->syy - f->sy * f->sy / n;
    double cxy = f->sxy - f->sx * f->sy / n;
    if (dx > 0) {
        *slope = cxy / dx;
        *r2 = dy > 0 ? cxy * cxy / (dx * dy) : 0;
    }
}

static void summarise(const struct series *s, int64_t from, int64_t to, struct stats *st)
{
    memset(st, 0, sizeof *st);
    st->temp_slowdown = NAN;
    st->mem_total = st->mem_last = NAN;
    st->slope_Bps = st->slope_r2 = st->slope_late_Bps = st->seg_mem0 = NAN;
    st->proc_mem_last = st->dead_mem_last = NAN;
    st->nproc_last = st->dead_last = -1;
    st->gen_min = st->width_min = 1 << 30;
    st->gen_max = st->width_max = -1;
    st->remap_max = st->retired_max = st->ecc_max = NAN;
    int prev_low = -1;

    size_t first = 0, last = 0, any = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct gm_dg_point *p = &s->p[i];
        if ((from && p->t_ns < from) || (to && p->t_ns > to))
            continue;
        if (!any)
            first = i;
        last = i;
        any = 1;
        st->npoints++;
        if (!st->t0)
            st->t0 = p->t_ns;
        st->t1 = p->t_ns;
        if (p->lost) {
            if (!st->lost)
                st->lost_at = p->t_ns;
            st->lost = 1;
            continue;
        }
        double u = p->util_gpu;
        acc_add(&st->util, u);
        if (!isnan(u)) {
            int low = u <= UTIL_LOW, high = u >= UTIL_HIGH;
            st->n_high += (size_t)high;
            st->n_low += (size_t)low;
            if (high && prev_low == 1) {
                st->rises++;
                if (st->last_rise)
                    acc_add(&st->rise_gap, (double)(p->t_ns - st->last_rise) / 1e9);
                st->last_rise = p->t_ns;
            }
            if (low || high)
                prev_low = low;
            if (low)
                acc_add(&st->rx_low, p->pcie_rx_Bps);
        }
        if (!isnan(p->util_gpu_min) && !isnan(p->util_gpu_max)) {
            st->n_roll++;
            if (p->util_gpu_min <= UTIL_LOW && p->util_gpu_max >= UTIL_HIGH)
                st->n_roll_alt++;
        }
        acc_add(&st->util_mem, p->util_mem);
        if (p->power_limit_w > 0)
            acc_add(&st->power_frac, p->power_w / p->power_limit_w);
        if (p->sm_clock_max_mhz > 0)
            acc_add(&st->clock_frac, p->sm_clock_mhz / p->sm_clock_max_mhz);
        acc_add(&st->temp, p->temp_c);
        if (!isnan(p->temp_slowdown_c))
            st->temp_slowdown = p->temp_slowdown_c;
        acc_add(&st->rx, p->pcie_rx_Bps);
        double link =
            !isnan(p->pcie_link_Bps) ? p->pcie_link_Bps : link_Bps(p->pcie_gen, p->pcie_width);
        if (!isnan(p->pcie_rx_Bps) && link > 0)
            acc_add(&st->rx_frac, p->pcie_rx_Bps / link);
        acc_add(&st->enc, p->enc_util);
        acc_add(&st->dec, p->dec_util);
        acc_add(&st->sm_act, p->sm_active);
        acc_add(&st->dram, p->dram_active);
        acc_add(&st->host_cpu, p->host_cpu_pct);
        acc_add(&st->host_wcpu, p->host_workers_cpu_pct);
        acc_add(&st->host_io, p->host_iowait_pct);
        acc_add(&st->psi_cpu, p->psi_cpu);
        acc_add(&st->psi_io, p->psi_io);
        if (p->host_workers >= 0)
            acc_add(&st->host_workers, (double)p->host_workers);
        if (p->host_pid) {
            st->host_pid = p->host_pid;
            st->psi_scope = p->psi_scope;
        }
        if (p->reasons >= 0) {
            uint64_t r = (uint64_t)p->reasons;
            st->n_reasons++;
            int therm = (r & (GM_DG_R_HW_THERMAL | GM_DG_R_SW_THERMAL)) != 0;
            if (therm) {
                st->n_thermal++;
                st->thermal_t0 = first_nonzero(st->thermal_t0, p->t_ns);
                st->thermal_t1 = p->t_ns;
            }
            if (r & GM_DG_R_SW_POWER_CAP) {
                st->n_pcap++;
                st->pcap_t0 = first_nonzero(st->pcap_t0, p->t_ns);
                st->pcap_t1 = p->t_ns;
            }
            if (r & GM_DG_R_HW_SLOWDOWN)
                st->n_hwslow++;
            if (r & GM_DG_R_HW_POWER_BRAKE)
                st->n_brake++;
            if ((r & (GM_DG_R_HW_SLOWDOWN | GM_DG_R_HW_POWER_BRAKE)) && !therm) {
                st->n_hw_nontherm++;
                st->hw_t0 = first_nonzero(st->hw_t0, p->t_ns);
                st->hw_t1 = p->t_ns;
            }
            if (r & GM_DG_R_APP_CLOCKS) {
                st->n_app++;
                st->app_t0 = first_nonzero(st->app_t0, p->t_ns);
                st->app_t1 = p->t_ns;
            }
            if (!isnan(u) && u >= UTIL_HIGH && p->sm_clock_max_mhz > 0 && !isnan(p->sm_clock_mhz)) {
                st->n_busy_clock++;
                uint64_t other = GM_DG_R_SW_POWER_CAP | GM_DG_R_HW_SLOWDOWN | GM_DG_R_SW_THERMAL |
                                 GM_DG_R_HW_THERMAL | GM_DG_R_HW_POWER_BRAKE | GM_DG_R_GPU_IDLE;
                if (p->sm_clock_mhz < 0.9 * p->sm_clock_max_mhz && !(r & other))
                    st->n_busy_clock_low++;
            }
        }
        if (!isnan(p->mem_total_b))
            st->mem_total = p->mem_total_b;
        if (!isnan(p->mem_used_b)) {
            acc_add(&st->mem, p->mem_used_b);
            st->mem_last = p->mem_used_b;
        }
        if (p->nproc >= 0) {
            st->n_proc_read++;
            st->nproc_last = p->nproc;
            st->dead_last = p->nproc_dead;
            st->proc_mem_last = p->proc_mem_b;
            st->dead_mem_last = p->dead_mem_b;
            if (p->nproc_dead > st->max_dead)
                st->max_dead = p->nproc_dead;
            if (p->nproc == 0 && p->mem_used_b >= 256.0 * 1048576)
                st->n_proc_none_mem++;
        }
        if (p->compute_mode >= 0) {
            st->n_cm_known++;
            if (p->compute_mode == GM_DG_CM_EXCLUSIVE_PROCESS && p->nproc > 0)
                st->n_excl_with_proc++;
        }
        if (!isnan(p->ecc_uncorrected) && !(st->ecc_max >= p->ecc_uncorrected))
            st->ecc_max = p->ecc_uncorrected;
        if (!isnan(p->remap_pending) && !(st->remap_max >= p->remap_pending))
            st->remap_max = p->remap_pending;
        if (!isnan(p->retired_pending) && !(st->retired_max >= p->retired_pending))
            st->retired_max = p->retired_pending;
        if (!isnan(u) && u >= 30 && p->pcie_gen > 0 && p->pcie_gen_max > 0 && p->pcie_width > 0 &&
            p->pcie_width_max > 0) {
            st->n_pcie_loaded++;
            if (p->pcie_gen < p->pcie_gen_max || p->pcie_width < p->pcie_width_max)
                st->n_pcie_degraded++;
            if (p->pcie_gen < st->gen_min)
                st->gen_min = p->pcie_gen;
            if (p->pcie_width < st->width_min)
                st->width_min = p->pcie_width;
            if (p->pcie_gen_max > st->gen_max)
                st->gen_max = p->pcie_gen_max;
            if (p->pcie_width_max > st->width_max)
                st->width_max = p->pcie_width_max;
        }
    }
    if (!any)
        return;
    size_t seg_start = mem_segment(s, first, last, st->mem_total);
    /* least squares of memory over the last segment, and over its second half */
    struct fit all = {0}, late = {0};
    int64_t tb = 0, tmid = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = seg_start; i <= last; i++) {
            const struct gm_dg_point *p = &s->p[i];
            if (!mem_point(p, from, to))
                continue;
            if (pass == 0) {
                if (!all.n) {
                    tb = p->t_ns;
                    st->seg_mem0 = p->mem_used_b;
                }
                fit_add(&all, (double)(p->t_ns - tb) / 1e9, p->mem_used_b);
                tmid = tb + (p->t_ns - tb) / 2;
            } else if (p->t_ns >= tmid) {
                fit_add(&late, (double)(p->t_ns - tb) / 1e9, p->mem_used_b);
            }
        }
    st->seg_n = all.n;
    st->seg_t0 = tb;
    if (all.n >= 5) {
        fit_line(&all, &st->slope_Bps, &st->slope_r2);
        double r2;
        fit_line(&late, &st->slope_late_Bps, &r2);
    }
}

/* ---- findings ----------------------------------------------------------- */

struct ctx {
    struct gm_dg_result *r;
    size_t cap;
};

static struct gm_dg_finding *add_finding(struct ctx *c, enum gm_dg_cause cause,
                                         enum gm_dg_severity sev, uint32_t gpu, int64_t t0,
                                         int64_t t1, double conf, const char *advice)
{
    struct gm_dg_result *r = c->r;
    if (r->nfinding == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        r->findings = gm_xrealloc(r->findings, c->cap * sizeof *r->findings);
    }
    struct gm_dg_finding *f = &r->findings[r->nfinding++];
    memset(f, 0, sizeof *f);
    f->cause = cause;
    f->severity = sev;
    f->ngpu = 1;
    f->gpus[0] = gpu;
    f->start_ns = t0;
    f->end_ns = t1;
    f->confidence = conf < 0 ? 0 : conf > 1 ? 1 : conf;
    f->advice = advice;
    return f;
}

static void val(struct gm_dg_finding *f, const char *key, double v)
{
    if (f->nvalues < GM_DG_MAX_VALUES) {
        f->values[f->nvalues].key = key;
        f->values[f->nvalues].v = v;
        f->nvalues++;
    }
}

static double frac(size_t a, size_t b)
{
    return b ? (double)a / (double)b : 0;
}

static double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

#define MIB 1048576.0
/* An engine at most this busy (%) over the window does no work: the
 * utilisation counters read a few % of housekeeping (context switches,
 * the driver's own polling) on a GPU nobody uses. */
#define SQUAT_BUSY 5.0
/* Memory growth (docs/diagnose.md#memory-growth). */
#define LEAK_R2 0.6            /* the line explains most of the variation: steady, not noise */
#define LEAK_MIN_B (64 * MIB)  /* grown at least: beyond the caching allocator's block noise */
#define LEAK_MIN_FRAC 0.005    /* of the card, grown at least */
#define LEAK_STEADY 0.5        /* the second half grows at >= this part of the whole's rate */
#define LEAK_CRITICAL_S 3600.0 /* full within an hour: before anyone can react */
#define LEAK_WARNING_S 86400.0 /* full within a day: before the next working day */
#define GIB (1024.0 * MIB)

/* "41 % of limit" or "N/A" */
static const char *pct_or_na(char *b, size_t n, double v)
{
    if (isnan(v))
        snprintf(b, n, "N/A");
    else
        snprintf(b, n, "%.0f %%", v * 100);
    return b;
}

/* "41 %" or "N/A" for a percentage that may not have been measured */
static const char *pctv_or_na(char *b, size_t n, double v)
{
    return pct_or_na(b, n, v / 100);
}

/* The heartbeat of a data-loader-starved job: bursts of high utilisation
 * separated by ~0, repeatedly, at a mean that is neither idle nor a light
 * inference load (docs/diagnose.md#input-starved). */
/* The widest mean spacing of utilisation samples from which a beat's period
 * is reported: NVML's buffers give 1/6 s; a 1 s series aliases a sub-second
 * beat into a wrong, longer one. */
#define STARVED_TIMED_SPACING 0.25

/* ---- the host side of starvation (issue 25, point 3) -------------------
 *
 * A GPU fed by a process that cannot keep up need not show bursts: with
 * num_workers=0 every step waits for the main process to load the next
 * batch, and utilisation sits steadily at 30-40 %.  The GPU side alone
 * cannot tell that from a small model; the host side can.  Thresholds and
 * what each encodes (docs/diagnose.md#the-host-side):
 */
/* % mean utilisation below healthy-busy's line: the GPU waits for something */
#define FEED_UTIL_MAX 60.0
/* % mean utilisation above idle's line: the GPU does run the job's steps */
#define FEED_UTIL_MIN 2.0
/* % of one core: a Python loader is one thread (the GIL), so at a full core
 * it cannot go faster; 10 points below 100 for sampling jitter */
#define FEED_CORE 90.0
/* % of the time blocked on block I/O: a fifth of every step waits for
 * storage, where a fed pipeline reads ahead and hardly blocks */
#define FEED_IOWAIT 20.0
/* pressure "some" avg10 %: a task of the job (or the node) stalled for CPU
 * or I/O a fifth of the time */
#define FEED_PSI 20.0
/* % of one core, the feeder and its workers together, at least, for CPU
 * pressure to count against it: pressure is a cgroup's or the node's figure
 * (some task waits for a CPU), and a process waiting for a CPU still gets
 * its turns -- a share of a core even with twenty runnable tasks per core;
 * one that uses less is asleep (waiting for the GPU, a lock, the network),
 * not queued for a CPU */
#define FEED_PSI_ACTIVE 5.0
/* host readings with a rate (each needs two reads a sample apart) */
#define FEED_MIN_POINTS 3

enum feed { FEED_NONE = 0, FEED_CPU = 1, FEED_IO = 2 };

/* Whether the feeding process is CPU-bound and/or I/O-stalled (bits), with
 * a sentence saying which and why in buf ("" when the host side is unknown). */
static int feed_bound(const struct stats *st, char *buf, size_t len)
{
    buf[0] = '\0';
    if (st->host_cpu.n < FEED_MIN_POINTS)
        return FEED_NONE;
    double cpu = acc_mean(&st->host_cpu), wcpu = acc_mean(&st->host_wcpu);
    double workers = acc_mean(&st->host_workers), io = acc_mean(&st->host_io);
    double pc = acc_mean(&st->psi_cpu), pio = acc_mean(&st->psi_io);
    int nw = isnan(workers) ? -1 : (int)lround(workers);
    int bound = 0;
    /* num_workers=0: the main process loads every batch on one core */
    if (cpu >= FEED_CORE && nw == 0)
        bound |= FEED_CPU;
    /* every worker busy all the time: the pool is too small */
    if (nw > 0 && !isnan(wcpu) && wcpu / nw >= FEED_CORE)
        bound |= FEED_CPU;
    /* the job's own tasks wait for a CPU (other jobs, too few cores), and
     * the feeder is one of them: it runs when it gets a turn.  Only the
     * job's cgroup says the former: the node's pressure is any task's
     * stall (a build beside an idle loader reads 97 %), so it is shown,
     * never decides */
    int own_psi = st->psi_scope == 1;
    double demand = (isnan(cpu) ? 0 : cpu) + (isnan(wcpu) ? 0 : wcpu);
    if (own_psi && !isnan(pc) && pc >= FEED_PSI && demand >= FEED_PSI_ACTIVE)
        bound |= FEED_CPU;
    if ((!isnan(io) && io >= FEED_IOWAIT) || (own_psi && !isnan(pio) && pio >= FEED_PSI))
        bound |= FEED_IO;
    char w[48], wc[40], iot[32], psi[96];
    if (nw < 0)
        snprintf(w, sizeof w, "workers unknown");
    else
        snprintf(w, sizeof w, "%d worker%s", nw, nw == 1 ? "" : "s");
    wc[0] = iot[0] = psi[0] = '\0';
    if (nw > 0 && !isnan(wcpu))
        snprintf(wc, sizeof wc, " at %.0f %% of a core each", wcpu / nw);
    if (isnan(io)) /* delay accounting off, or not one rate yet */
        snprintf(iot, sizeof iot, ", I/O wait N/A");
    else
        snprintf(iot, sizeof iot, ", I/O wait %.0f %%", io);
    if (!isnan(pc) || !isnan(pio)) { /* a pressure not read is N/A, never 0 */
        char a[16], b[16];
        snprintf(a, sizeof a, isnan(pc) ? "N/A" : "%.0f %%", pc);
        snprintf(b, sizeof b, isnan(pio) ? "N/A" : "%.0f %%", pio);
        snprintf(psi, sizeof psi, ", %s pressure cpu %s io %s",
                 st->psi_scope == 1 ? "cgroup" : "node", a, b);
    }
    /* the verdict first: top's one-line sentence keeps the start */
    const char *verdict = bound == (FEED_CPU | FEED_IO) ? "feeder CPU-bound and I/O-stalled"
                          : bound == FEED_IO            ? "feeder I/O-stalled (waiting for storage)"
                          : bound == FEED_CPU && nw == 0 && cpu >= FEED_CORE
                              ? "feeder CPU-bound (num_workers=0: the main process loads every "
                                "batch)"
                          : bound == FEED_CPU ? "feeder CPU-bound"
                                              : "host";
    snprintf(buf, len, "%s: pid %u at %.0f %% of a core, %s%s%s%s", verdict, st->host_pid, cpu, w,
             wc, iot, psi);
    return bound;
}

static const char *const feed_advice[] = {
    [FEED_NONE] = "the GPU waits for input between bursts: more DataLoader workers (num_workers), "
                  "pin_memory=True, prefetching (prefetch_factor, non_blocking copies), faster "
                  "storage",
    [FEED_CPU] = "the input pipeline is CPU-bound: DataLoader num_workers > 0 (about one per free "
                 "core), pin_memory=True, persistent_workers, cheaper decoding/augmentation or "
                 "move it to the GPU (DALI, torchvision.io on GPU)",
    [FEED_IO] = "the input pipeline waits for storage: local NVMe instead of a network file "
                "system, cache the data set (page cache, local copy, RAM), larger sequential reads "
                "(sharded/packed formats), more workers to overlap reads",
    [FEED_CPU | FEED_IO] = "the input pipeline is both CPU-bound and waiting for storage: cache "
                           "the data set on fast local storage first, then more DataLoader "
                           "workers and pin_memory=True",
};

static void feed_values(struct gm_dg_finding *f, const struct stats *st)
{
    val(f, "host_cpu_pct", acc_mean(&st->host_cpu));
    val(f, "workers", acc_mean(&st->host_workers));
    val(f, "workers_cpu_pct", acc_mean(&st->host_wcpu));
    val(f, "iowait_pct", acc_mean(&st->host_io));
    val(f, "psi_cpu_pct", acc_mean(&st->psi_cpu));
    val(f, "psi_io_pct", acc_mean(&st->psi_io));
}

/* Steady low utilisation with the feeding process CPU-bound or I/O-stalled. */
static int detect_starved_steady(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    double mean = acc_mean(&st->util);
    if (st->util.n < 8 || isnan(mean) || mean < FEED_UTIL_MIN || mean >= FEED_UTIL_MAX)
        return 0;
    char host[256];
    int bound = feed_bound(st, host, sizeof host);
    if (!bound)
        return 0;
    double cv = mean > 0 ? acc_sd(&st->util) / mean : 0;
    double conf = clamp01(0.6 + 0.1 * (double)(st->host_cpu.n >= 8) + 0.1 * (cv < 0.5) +
                          0.1 * (bound == FEED_IO || bound == FEED_CPU));
    struct gm_dg_finding *f = add_finding(c, GM_DG_INPUT_STARVED, GM_DG_WARNING, gpu, st->t0,
                                          st->t1, conf, feed_advice[bound]);
    char pw[32];
    snprintf(f->evidence, sizeof f->evidence,
             "%s; utilisation %s %.0f-%.0f %% (mean %.0f %%, CV %.2f), no burst-and-gap pattern; "
             "power %s of limit",
             host, cv < 0.5 ? "steady at" : "between", st->util.min, st->util.max, mean, cv,
             pct_or_na(pw, sizeof pw, acc_mean(&st->power_frac)));
    val(f, "util_mean_pct", mean);
    val(f, "util_max_pct", st->util.max);
    val(f, "cv", cv);
    val(f, "power_frac", acc_mean(&st->power_frac));
    feed_values(f, st);
    return 1;
}

static int detect_starved(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    size_t n = st->util.n;
    double mean = acc_mean(&st->util), sd = acc_sd(&st->util);
    double cv = mean > 0 ? sd / mean : 0;
    double duty = frac(st->n_high, n), lowf = frac(st->n_low, n);
    /* The look-alike is a light inference load: random short bursts, a
     * low mean and little PCIe traffic.  A starved job pulls data over PCIe
     * while its SMs wait (the seeds' "high PCIe RX"); where PCIe was not
     * measured (history) the mean must be higher instead. */
    double rx_low = acc_mean(&st->rx_low);
    double min_mean = isnan(rx_low) ? STARVED_MEAN_NO_PCIE : STARVED_MEAN;
    int pcie_ok = isnan(rx_low) || rx_low >= STARVED_RX_BPS;
    /* The beat's regularity: a training loop starts a step per batch, so its
     * bursts come at a steady pace (intervals' CV well below 1); requests
     * to a server arrive at random (Poisson: CV ~1). */
    double gap_cv =
        st->rise_gap.n >= STARVED_MIN_GAPS ? acc_sd(&st->rise_gap) / acc_mean(&st->rise_gap) : NAN;
    int regular = gap_cv <= STARVED_REGULAR_CV;
    int shape = n >= 8 && duty > 0 && duty <= 0.85 && lowf >= 0.15 && cv >= 0.5;
    /* Work waiting for input between bursts: input arriving over PCIe while
     * the SMs wait says so directly, and two bursts around such a wait are
     * already a cycle -- at any duty and mean (a 1 s burst every 10 s is
     * ~10 %).  Without that reading, the beat must repeat: regular bursts,
     * or (as before) a mean no light server reaches. */
    int fed = !isnan(rx_low) && rx_low >= STARVED_RX_BPS && st->rises >= 2;
    int beat = isnan(rx_low) && st->rises >= 3 && (regular || (duty >= 0.15 && mean >= min_mean));
    int legacy = st->rises >= 3 && duty >= 0.15 && mean >= min_mean && pcie_ok;
    int raw = shape && (fed || beat || legacy);
    int roll = st->n_roll >= 3 && frac(st->n_roll_alt, st->n_roll) >= 0.6 && mean >= min_mean &&
               mean <= 85 && pcie_ok;
    if (!raw && !roll)
        return detect_starved_steady(c, gpu, st);
    char host[256];
    int bound = feed_bound(st, host, sizeof host);
    double secs = (double)(st->t1 - st->t0) / 1e9;
    double period = st->rises ? secs / (double)st->rises : NAN;
    double conf = roll && !raw ? 0.7 : clamp01(0.6 + 0.2 * (cv - 0.5) + 0.02 * (double)st->rises);
    if (conf > 0.97)
        conf = 0.97;
    struct gm_dg_finding *f = add_finding(c, GM_DG_INPUT_STARVED, GM_DG_WARNING, gpu, st->t0,
                                          st->t1, conf, feed_advice[bound]);
    char pw[32];
    /* A beat is timed only from samples fine enough to see it (NVML's 1/6 s
     * buffers); from a coarser series (the agent's 1 s samples, history) the
     * rises are aliased and their count says nothing about the period. */
    double spacing = n > 1 ? secs / (double)(n - 1) : NAN;
    int timed = !isnan(spacing) && spacing <= STARVED_TIMED_SPACING;
    if (!timed)
        period = NAN;
    if (raw && timed)
        snprintf(f->evidence, sizeof f->evidence,
                 "utilisation alternates %.0f <-> %.0f %% every %.1f s (%zu bursts), duty %.0f %%, "
                 "mean %.0f %%, CV %.2f; power %s of limit",
                 st->util.min, st->util.max, period, st->rises, duty * 100, mean, cv,
                 pct_or_na(pw, sizeof pw, acc_mean(&st->power_frac)));
    else if (raw)
        snprintf(f->evidence, sizeof f->evidence,
                 "utilisation jumps between %.0f and %.0f %% (%zu rises in %zu samples, one every "
                 "%.1f s: too coarse to time the beat), high %.0f %% of the time, mean %.0f %%, "
                 "CV %.2f; power %s of limit",
                 st->util.min, st->util.max, st->rises, n, spacing, duty * 100, mean, cv,
                 pct_or_na(pw, sizeof pw, acc_mean(&st->power_frac)));
    else
        snprintf(f->evidence, sizeof f->evidence,
                 "%zu of %zu rollup rows swing from <= %.0f %% to >= %.0f %% utilisation, "
                 "mean %.0f %%; power %s of limit",
                 st->n_roll_alt, st->n_roll, UTIL_LOW, UTIL_HIGH, mean,
                 pct_or_na(pw, sizeof pw, acc_mean(&st->power_frac)));
    if (!isnan(rx_low) && rx_low > 0) {
        size_t l = strlen(f->evidence);
        snprintf(f->evidence + l, sizeof f->evidence - l, "; PCIe RX %.0f MB/s between bursts",
                 rx_low / 1e6);
    }
    if (!fed && !legacy && regular) {
        size_t l = strlen(f->evidence);
        snprintf(f->evidence + l, sizeof f->evidence - l,
                 "; bursts at a steady pace (every %.1f s, interval CV %.2f)",
                 acc_mean(&st->rise_gap), gap_cv);
    }
    if (host[0]) {
        size_t l = strlen(f->evidence);
        snprintf(f->evidence + l, sizeof f->evidence - l, "; %s", host);
    }
    val(f, "util_mean_pct", mean);
    val(f, "util_max_pct", st->util.max);
    val(f, "duty", raw ? duty : NAN);
    val(f, "period_s", raw ? period : NAN);
    val(f, "cv", cv);
    val(f, "bursts", (double)st->rises);
    val(f, "power_frac", acc_mean(&st->power_frac));
    val(f, "pcie_rx_idle_Bps", rx_low);
    val(f, "beat_cv", gap_cv);
    feed_values(f, st);
    return 1;
}

/* "SM clock 52 % of max", or that the maximum is not known (history: the
 * store keeps the clock, not its maximum) -- never "nan %". */
static const char *clock_text(const struct stats *st, char *buf, size_t len)
{
    double cf = acc_mean(&st->clock_frac);
    if (isnan(cf))
        snprintf(buf, len, "SM clock's maximum not known");
    else
        snprintf(buf, len, "SM clock %.0f %% of max", cf * 100);
    return buf;
}

static void detect_thermal(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    double fr = frac(st->n_thermal, st->n_reasons);
    int hot = !isnan(st->temp_slowdown) && st->temp.n && st->temp.max >= st->temp_slowdown - 1 &&
              acc_mean(&st->clock_frac) < 0.9;
    if (!(st->n_thermal >= 2 && fr >= 0.2) && !hot)
        return;
    enum gm_dg_severity sev = st->temp.max >= 95 ? GM_DG_CRITICAL : GM_DG_WARNING;
    struct gm_dg_finding *f = add_finding(
        c, GM_DG_THERMAL_THROTTLE, sev, gpu, st->thermal_t0 ? st->thermal_t0 : st->t0,
        st->thermal_t1 ? st->thermal_t1 : st->t1, clamp01(0.7 + 0.3 * fr),
        "the GPU slows itself to stay cool: check cooling and airflow (fans, blocked intakes, "
        "room temperature, dust), the slot spacing, and nvidia-smi -q -d TEMPERATURE");
    char sd[32] = "N/A", ck[64];
    if (!isnan(st->temp_slowdown))
        snprintf(sd, sizeof sd, "%.0f °C", st->temp_slowdown);
    snprintf(f->evidence, sizeof f->evidence,
             "thermal slowdown in %.0f %% of samples; temperature up to %.0f °C (slowdown %s); "
             "%s, utilisation %.0f %%",
             fr * 100, st->temp.max, sd, clock_text(st, ck, sizeof ck), acc_mean(&st->util));
    val(f, "thermal_frac", fr);
    val(f, "temp_max_c", st->temp.n ? st->temp.max : NAN);
    val(f, "temp_slowdown_c", st->temp_slowdown);
    val(f, "clock_frac", acc_mean(&st->clock_frac));
    val(f, "util_mean_pct", acc_mean(&st->util));
}

static void detect_power(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    char ck[64];
    double fr = frac(st->n_pcap, st->n_reasons);
    double pf = acc_mean(&st->power_frac);
    if (st->n_pcap < 2 || fr < 0.2 || frac(st->n_thermal, st->n_reasons) >= 0.2)
        return;
    struct gm_dg_finding *f =
        add_finding(c, GM_DG_POWER_CAPPED, GM_DG_WARNING, gpu, st->pcap_t0, st->pcap_t1,
                    clamp01(0.7 + 0.3 * fr),
                    "clocks are cut to stay under the power limit: check the power limit "
                    "(nvidia-smi -q -d POWER; nvidia-smi -pl), the PSU and the board's default; "
                    "expected under a deliberately lowered cap");
    snprintf(f->evidence, sizeof f->evidence,
             "software power cap in %.0f %% of samples; power %.0f %% of limit, %s, "
             "utilisation %.0f %%",
             fr * 100, pf * 100, clock_text(st, ck, sizeof ck), acc_mean(&st->util));
    val(f, "power_cap_frac", fr);
    val(f, "power_frac", pf);
    val(f, "clock_frac", acc_mean(&st->clock_frac));
    val(f, "util_mean_pct", acc_mean(&st->util));
}

static void detect_hw(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    char ck[64];
    double fr = frac(st->n_hw_nontherm, st->n_reasons);
    if (st->n_hw_nontherm < 2 || fr < 0.2)
        return;
    struct gm_dg_finding *f = add_finding(
        c, GM_DG_HW_SLOWDOWN, GM_DG_CRITICAL, gpu, st->hw_t0, st->hw_t1, clamp01(0.7 + 0.3 * fr),
        "hardware slowdown without heat: check the power supply and its cables (power brake "
        "is an external signal), dmesg for Xid errors, and the board with the vendor");
    snprintf(f->evidence, sizeof f->evidence,
             "HW slowdown in %.0f %% of samples (power brake in %zu) with no thermal reason; %s",
             fr * 100, st->n_brake, clock_text(st, ck, sizeof ck));
    val(f, "hw_slowdown_frac", fr);
    val(f, "power_brake_samples", (double)st->n_brake);
    val(f, "clock_frac", acc_mean(&st->clock_frac));
}

static void detect_app_clocks(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    char ck[64];
    double fr = frac(st->n_app, st->n_reasons);
    double lowc = frac(st->n_busy_clock_low, st->n_busy_clock);
    double cf = acc_mean(&st->clock_frac); /* NAN in history: no max clock there */
    int bit = st->n_app >= 2 && fr >= 0.2 && (isnan(cf) || cf < 0.97);
    int held = st->n_busy_clock >= 3 && lowc >= 0.8;
    if (!bit && !held)
        return;
    struct gm_dg_finding *f = add_finding(
        c, GM_DG_APP_CLOCKS, GM_DG_INFO, gpu, bit ? st->app_t0 : st->t0, bit ? st->app_t1 : st->t1,
        bit ? clamp01(0.7 + 0.3 * fr) : 0.7,
        "clocks are held below max by settings: check application clocks and locked clocks "
        "(nvidia-smi -q -d CLOCK; nvidia-smi -rac / -rgc to reset)");
    snprintf(f->evidence, sizeof f->evidence,
             "applications-clocks reason in %.0f %% of samples; %s while busy (%.0f %% of "
             "busy samples below 90 %% with no other reason)",
             fr * 100, clock_text(st, ck, sizeof ck), lowc * 100);
    val(f, "app_clocks_frac", fr);
    val(f, "clock_frac", acc_mean(&st->clock_frac));
}

static void detect_intensity(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    double u = acc_mean(&st->util), um = acc_mean(&st->util_mem), pf = acc_mean(&st->power_frac);
    double cf = acc_mean(&st->clock_frac), sm = acc_mean(&st->sm_act), dr = acc_mean(&st->dram);
    if (st->util.n < 3 || u < 70 || frac(st->n_low, st->util.n) > 0.1)
        return;
    int throttled = frac(st->n_thermal + st->n_pcap + st->n_hw_nontherm, st->n_reasons) >= 0.2;
    if (throttled)
        return;
    /* memory-bound: the memory controller near saturation (or DRAM active) */
    if ((um >= 60 || dr >= 0.6) && (isnan(pf) || (pf >= 0.35 && pf <= 0.9))) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_MEMORY_BOUND, GM_DG_INFO, gpu, st->t0, st->t1, clamp01(0.7 + (um - 60) / 100),
            "the kernels wait on memory bandwidth: fuse kernels, use lower precision (bf16/fp8), "
            "larger batches, better data layout; profile with Nsight Compute (memory workload)");
        char pw[32], mc[32];
        snprintf(f->evidence, sizeof f->evidence,
                 "utilisation %.0f %%, memory-controller %s, power %s of limit", u,
                 pctv_or_na(mc, sizeof mc, um), pct_or_na(pw, sizeof pw, pf));
        val(f, "util_mean_pct", u);
        val(f, "util_mem_pct", um);
        val(f, "power_frac", pf);
        val(f, "dram_active", dr);
        return;
    }
    /* low-intensity: "busy" but drawing little power at full clocks */
    if (!isnan(pf) && pf < 0.5 && (isnan(cf) || cf >= 0.9) && (isnan(um) || um < 40) &&
        (isnan(sm) || sm < 0.3)) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_LOW_INTENSITY, GM_DG_INFO, gpu, st->t0, st->t1, clamp01(0.6 + (0.5 - pf)),
            "utilisation counts time with any kernel running, not work done: tiny kernels or "
            "launch overhead; batch more work per kernel, use CUDA graphs / torch.compile, "
            "larger batch sizes; check SM activity with GPM or Nsight Systems");
        char ck[64], mc[32];
        snprintf(f->evidence, sizeof f->evidence,
                 "utilisation %.0f %% but power %.0f %% of limit at %s, memory-controller "
                 "%s%s",
                 u, pf * 100, clock_text(st, ck, sizeof ck), pctv_or_na(mc, sizeof mc, um),
                 isnan(sm) ? "" : "; GPM SM activity low");
        val(f, "util_mean_pct", u);
        val(f, "power_frac", pf);
        val(f, "clock_frac", cf);
        val(f, "util_mem_pct", um);
        val(f, "sm_active", sm);
    }
}

/* The highest utilisation any engine other than the SMs showed in the
 * window (encoder, decoder; the copy engines as PCIe traffic over the link),
 * in percent; NAN when none was measured.  A video pipeline or a copy loop
 * keeps its memory busy while the SMs read ~0 %. */
static double engines_max(const struct stats *st)
{
    double m = NAN;
    if (st->enc.n)
        m = st->enc.max;
    if (st->dec.n && !(m >= st->dec.max))
        m = st->dec.max;
    if (st->rx_frac.n && !(m >= st->rx_frac.max * 100))
        m = st->rx_frac.max * 100;
    return m;
}

static void detect_memory(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    double used = st->mem_last, total = st->mem_total;
    /* squatted: memory held, every engine ~0 throughout (the SMs, and the
     * video and copy engines where measured), a live process */
    double eng = engines_max(st);
    if (st->util.n >= 3 && !isnan(used) && used >= 1 * GIB && st->util.max <= SQUAT_BUSY &&
        !(eng > SQUAT_BUSY) && st->nproc_last > 0 && st->dead_last < st->nproc_last) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_MEMORY_SQUATTED, GM_DG_WARNING, gpu, st->t0, st->t1, 0.9,
            "a live process holds memory and does no work: look for idle notebooks/servers "
            "(gpumon status --procs), ask the owner or stop it; nothing else fits on the card");
        snprintf(f->evidence, sizeof f->evidence,
                 "%.1f GiB held by %d live process(es), utilisation at most %.0f %% over %.0f s",
                 used / GIB, st->nproc_last - (st->dead_last > 0 ? st->dead_last : 0), st->util.max,
                 (double)(st->t1 - st->t0) / 1e9);
        val(f, "mem_used_b", used);
        val(f, "util_max_pct", st->util.max);
        val(f, "processes", st->nproc_last);
    }
    /* orphaned: memory of a process that no longer exists, or used with none listed */
    int dead = st->dead_last > 0 && !(st->proc_mem_last <= 0);
    int none = st->n_proc_read >= 3 && frac(st->n_proc_none_mem, st->n_proc_read) >= 0.8;
    if (dead || none) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_MEMORY_ORPHANED, GM_DG_WARNING, gpu, st->t0, st->t1, dead ? 0.95 : 0.8,
            "memory held by a process that is gone: kill the orphan (its parent, or a zombie's "
            "parent), fuser -v /dev/nvidia*; if nothing holds it, reset the GPU "
            "(nvidia-smi --gpu-reset) when it is idle");
        /* the orphans' own memory, which is what a reset or kill frees;
         * the GPU's total only when the list gave no figures */
        if (dead && !isnan(st->dead_mem_last) && !isnan(used))
            snprintf(f->evidence, sizeof f->evidence,
                     "%d of %d process(es) on the GPU no longer exist on the host and hold "
                     "%.1f GiB (of %.1f GiB used)",
                     st->dead_last, st->nproc_last, st->dead_mem_last / GIB, used / GIB);
        else if (dead && !isnan(st->dead_mem_last))
            snprintf(f->evidence, sizeof f->evidence,
                     "%d of %d process(es) on the GPU no longer exist on the host and hold "
                     "%.1f GiB",
                     st->dead_last, st->nproc_last, st->dead_mem_last / GIB);
        else if (dead)
            snprintf(f->evidence, sizeof f->evidence,
                     "%d of %d process(es) on the GPU no longer exist on the host; %.1f GiB used",
                     st->dead_last, st->nproc_last, isnan(used) ? 0 : used / GIB);
        else
            snprintf(f->evidence, sizeof f->evidence,
                     "%.1f GiB used with no process listed in %.0f %% of samples", used / GIB,
                     frac(st->n_proc_none_mem, st->n_proc_read) * 100);
        val(f, "mem_used_b", used);
        val(f, "dead_processes", st->dead_last);
        val(f, "dead_mem_b", st->dead_mem_last);
        val(f, "processes", st->nproc_last);
    }
    /* growth: a steady slope within one owner's life, however slow */
    double span = st->seg_n >= 5 ? (double)(st->t1 - st->seg_t0) / 1e9 : 0;
    if (!isnan(st->slope_Bps) && st->slope_Bps > 0 && !isnan(total) && total > 0 && span > 0 &&
        !isnan(used)) {
        double grown = st->slope_Bps * span;
        double fill_s = (total - used) / st->slope_Bps;
        if (fill_s < 0)
            fill_s = 0;
        /* steady: the second half still grows at half the rate or more (a
         * warm-up or a cache filling up levels off; a leak does not) */
        int steady = st->slope_late_Bps >= LEAK_STEADY * st->slope_Bps;
        if (st->slope_r2 >= LEAK_R2 && grown >= LEAK_MIN_B && grown >= LEAK_MIN_FRAC * total &&
            steady) {
            enum gm_dg_severity sev = fill_s <= LEAK_CRITICAL_S  ? GM_DG_CRITICAL
                                      : fill_s <= LEAK_WARNING_S ? GM_DG_WARNING
                                                                 : GM_DG_INFO;
            struct gm_dg_finding *f = add_finding(
                c, GM_DG_MEMORY_GROWTH, sev, gpu, st->seg_t0, st->t1,
                clamp01(0.5 + 0.5 * st->slope_r2),
                "memory grows steadily (a leak: tensors kept in a list, a growing cache, "
                "history of the loss with its graph): find what keeps references; restart "
                "before it runs out");
            double mib_h = st->slope_Bps * 3600 / MIB;
            char rate[48], dur[48], full[48];
            if (mib_h >= 600)
                snprintf(rate, sizeof rate, "%.0f MiB/min", mib_h / 60);
            else
                snprintf(rate, sizeof rate, "%.1f MiB/h", mib_h);
            if (span >= 2 * 86400)
                snprintf(dur, sizeof dur, "%.1f days", span / 86400);
            else if (span >= 7200)
                snprintf(dur, sizeof dur, "%.1f h", span / 3600);
            else
                snprintf(dur, sizeof dur, "%.0f s", span);
            if (fill_s >= 2 * 86400)
                snprintf(full, sizeof full, "%.1f days", fill_s / 86400);
            else if (fill_s >= 7200)
                snprintf(full, sizeof full, "%.1f h", fill_s / 3600);
            else
                snprintf(full, sizeof full, "%.0f min", fill_s / 60);
            snprintf(f->evidence, sizeof f->evidence,
                     "memory grows %s (R² %.2f) over %s, from %.1f to %.1f of %.1f GiB: full in "
                     "%s at this rate",
                     rate, st->slope_r2, dur, st->seg_mem0 / GIB, used / GIB, total / GIB, full);
            val(f, "slope_Bps", st->slope_Bps);
            val(f, "r2", st->slope_r2);
            val(f, "mem_used_b", used);
            val(f, "mem_total_b", total);
            val(f, "fill_s", fill_s);
            val(f, "duration_s", span);
        }
    }
}

static void detect_modes(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    if (st->n_excl_with_proc >= 1 && frac(st->n_excl_with_proc, st->n_cm_known) >= 0.5) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_EXCLUSIVE_BLOCKING, GM_DG_INFO, gpu, st->t0, st->t1, 0.9,
            "exclusive-process compute mode and a process holds the GPU: no other job can use "
            "it; set the default mode (nvidia-smi -c DEFAULT) if sharing is wanted");
        snprintf(f->evidence, sizeof f->evidence,
                 "compute mode exclusive-process with %d process(es) in %.0f %% of samples",
                 st->nproc_last, frac(st->n_excl_with_proc, st->n_cm_known) * 100);
        val(f, "processes", st->nproc_last);
    }
    if (st->ecc_max > 0 || st->remap_max > 0 || st->retired_max > 0) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_ECC_RISK, GM_DG_CRITICAL, gpu, st->t0, st->t1, 0.95,
            "uncorrectable memory errors or pending repairs: drain the GPU, reset it to apply "
            "row remaps / page retirement (nvidia-smi -q -d ECC,ROW_REMAPPER), RMA if it recurs");
        snprintf(f->evidence, sizeof f->evidence,
                 "uncorrected ECC errors %.0f, row remap pending %s, page retirement pending %s",
                 isnan(st->ecc_max) ? 0 : st->ecc_max, st->remap_max > 0 ? "yes" : "no",
                 st->retired_max > 0 ? "yes" : "no");
        val(f, "ecc_uncorrected", st->ecc_max);
        val(f, "remap_pending", st->remap_max);
        val(f, "retired_pending", st->retired_max);
    }
    if (st->n_pcie_loaded >= 2 && frac(st->n_pcie_degraded, st->n_pcie_loaded) >= 0.5) {
        struct gm_dg_finding *f = add_finding(
            c, GM_DG_PCIE_DEGRADED, GM_DG_WARNING, gpu, st->t0, st->t1,
            clamp01(0.6 + 0.4 * frac(st->n_pcie_degraded, st->n_pcie_loaded)),
            "the PCIe link runs below its maximum under load: reseat the card, check the slot "
            "and riser, BIOS link settings, and lspci -vv (LnkSta vs LnkCap)");
        snprintf(f->evidence, sizeof f->evidence,
                 "under load the link is gen %d x%d, the card can do gen %d x%d (%.0f %% of "
                 "loaded samples)",
                 st->gen_min, st->width_min, st->gen_max, st->width_max,
                 frac(st->n_pcie_degraded, st->n_pcie_loaded) * 100);
        val(f, "pcie_gen", st->gen_min);
        val(f, "pcie_gen_max", st->gen_max);
        val(f, "pcie_width", st->width_min);
        val(f, "pcie_width_max", st->width_max);
    }
}

static void detect_transfer(struct ctx *c, uint32_t gpu, const struct stats *st, int starved)
{
    double rf = acc_mean(&st->rx_frac), u = acc_mean(&st->util);
    if (starved || st->rx_frac.n < 3 || rf < 0.6 || u > 50)
        return;
    struct gm_dg_finding *f = add_finding(
        c, GM_DG_TRANSFER_BOUND, GM_DG_WARNING, gpu, st->t0, st->t1, clamp01(0.5 + 0.5 * rf),
        "host-to-device copies fill the PCIe link while the SMs wait: keep data on the GPU, "
        "pinned memory with overlapping copies (non_blocking), compress or pre-process on "
        "the GPU, check the link (gen/width)");
    snprintf(f->evidence, sizeof f->evidence,
             "PCIe RX %.1f GB/s = %.0f %% of the link, utilisation %.0f %%",
             acc_mean(&st->rx) / 1e9, rf * 100, u);
    val(f, "pcie_rx_Bps", acc_mean(&st->rx));
    val(f, "pcie_rx_frac", rf);
    val(f, "util_mean_pct", u);
}

static void detect_codec(struct ctx *c, uint32_t gpu, const struct stats *st)
{
    double e = acc_mean(&st->enc), d = acc_mean(&st->dec), u = acc_mean(&st->util);
    double m = isnan(e) ? d : isnan(d) ? e : (e > d ? e : d);
    if (isnan(m) || m < 85 || (!isnan(u) && u > 60))
        return;
    int enc = !isnan(e) && (isnan(d) || e >= d);
    struct gm_dg_finding *f = add_finding(
        c, GM_DG_CODEC_BOUND, GM_DG_INFO, gpu, st->t0, st->t1, clamp01(0.6 + (m - 85) / 40),
        "the video engine is the bottleneck, not the SMs: spread streams over more GPUs, "
        "lower resolution or frame rate, use a faster preset, or decode on the CPU");
    snprintf(f->evidence, sizeof f->evidence, "%s %.0f %% while GPU utilisation %.0f %%",
             enc ? "encoder" : "decoder", m, isnan(u) ? 0 : u);
    val(f, "enc_util_pct", e);
    val(f, "dec_util_pct", d);
    val(f, "util_mean_pct", u);
}

/* ---- straggler: one GPU of a job unlike the others ---------------------- */

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A cause found on the GPU itself explains its imbalance better than
 * "straggler" does: straggler is what is left when none does. */
static int explained(const struct gm_dg_result *r, uint32_t gpu)
{
    for (size_t k = 0; k < r->nfinding; k++) {
        const struct gm_dg_finding *f = &r->findings[k];
        if (f->gpus[0] != gpu)
            continue;
        switch (f->cause) {
        case GM_DG_INPUT_STARVED:
        case GM_DG_THERMAL_THROTTLE:
        case GM_DG_POWER_CAPPED:
        case GM_DG_HW_SLOWDOWN:
        case GM_DG_APP_CLOCKS:
        case GM_DG_PCIE_DEGRADED:
        case GM_DG_TRANSFER_BOUND:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

/* How a job key was formed, for the evidence (diagnose.h: gm_dg_gpu_info.job). */
static const char *grouping(const char *job)
{
    if (strncmp(job, "parent:", 7) == 0)
        return "grouped by their common parent process";
    if (strncmp(job, "pid:", 4) == 0)
        return "grouped as one process";
    return "grouped by job id";
}

/* Imbalance inside a job: one GPU whose mean utilisation stands apart from
 * the others' by more than they differ among themselves.  Ranks of one
 * synchronous job run in lockstep, so their means agree up to sampling
 * noise (a rank that waits at every step reads 0/100 % samples: a noisy
 * mean); the one apart is the bottleneck, whichever way:
 *   far below the rest: it does less per step (an uneven shard, a slow
 *     input of its own) and the job's step time follows it;
 *   far above the rest: the others compute their part and wait for it at
 *     every synchronisation; their gaps are waits for this GPU, not for
 *     input, so their input-starved findings are withdrawn. */
#define IMBALANCE_GAP 20.0 /* points between the outlier and the nearest other GPU, at least */
#define IMBALANCE_DEV 25.0 /* points between the outlier and the job's median, at least */

/* Removes the input-starved findings of the GPUs in ix[0..n) except skip. */
static void withdraw_starved(struct ctx *c, const uint32_t *ix, size_t n, uint32_t skip)
{
    struct gm_dg_result *r = c->r;
    size_t w = 0;
    for (size_t k = 0; k < r->nfinding; k++) {
        int drop = 0;
        if (r->findings[k].cause == GM_DG_INPUT_STARVED && r->findings[k].gpus[0] != skip)
            for (size_t m = 0; m < n; m++)
                drop |= r->findings[k].gpus[0] == ix[m];
        if (!drop)
            r->findings[w++] = r->findings[k];
    }
    r->nfinding = w;
}

static void detect_straggler(struct ctx *c, const struct gm_dg *d, const struct stats *st)
{
    char *done = gm_xcalloc(d->ng ? d->ng : 1, 1);
    double *u = gm_xcalloc(d->ng ? d->ng : 1, sizeof *u);
    uint32_t *ix = gm_xcalloc(d->ng ? d->ng : 1, sizeof *ix);
    for (size_t i = 0; i < d->ng; i++) {
        if (done[i] || !d->g[i].info.job[0])
            continue;
        size_t n = 0;
        for (size_t j = i; j < d->ng; j++)
            if (!done[j] && strcmp(d->g[j].info.job, d->g[i].info.job) == 0 && st[j].util.n >= 3 &&
                !st[j].lost) {
                done[j] = 1;
                ix[n] = (uint32_t)j;
                u[n++] = acc_mean(&st[j].util);
            }
        if (n < 3)
            continue;
        double *tmp = gm_xcalloc(n, sizeof *tmp);
        memcpy(tmp, u, n * sizeof *u);
        double med = median(tmp, n);
        free(tmp);
        for (size_t k = 0; k < n; k++) {
            double dev = u[k] - med;
            if (fabs(dev) < IMBALANCE_DEV)
                continue;
            /* the others: their spread, and the gap from the outlier to the nearest */
            double lo = INFINITY, hi = -INFINITY, gap = INFINITY;
            for (size_t m = 0; m < n; m++) {
                if (m == k)
                    continue;
                lo = fmin(lo, u[m]);
                hi = fmax(hi, u[m]);
                gap = fmin(gap, fabs(u[k] - u[m]));
            }
            int apart = gap >= IMBALANCE_GAP && gap > hi - lo;
            if (!apart || explained(c->r, ix[k]))
                continue;
            int above = dev > 0;
            if (above)
                withdraw_starved(c, ix, n, ix[k]);
            struct gm_dg_finding *f = add_finding(
                c, GM_DG_STRAGGLER, GM_DG_WARNING, ix[k], st[ix[k]].t0, st[ix[k]].t1,
                clamp01(0.6 + fabs(dev) / 100),
                above ? "this GPU is the job's bottleneck: the other ranks finish their part and "
                        "wait for it at every synchronisation; give it less work (uneven "
                        "batches / shards, a rank with extra duties such as logging or "
                        "evaluation), or check what else runs on it"
                      : "one GPU of the job is unlike the others: the rest wait for it at every "
                        "synchronisation; check that GPU's clocks, temperature and PCIe link, "
                        "and the data split (uneven batches / shards)");
            f->ngpu = 1;
            snprintf(f->evidence, sizeof f->evidence,
                     "utilisation %.0f %% on this GPU vs a median of %.0f %% on the %zu GPUs of "
                     "job \"%s\" (%s), %.0f points %s the nearest of them; %s",
                     u[k], med, n, d->g[i].info.job, grouping(d->g[i].info.job), gap,
                     above ? "above" : "below",
                     above ? "the others wait for it at every step" : "unlike the rest of the job");
            val(f, "util_mean_pct", u[k]);
            val(f, "group_median_pct", med);
            val(f, "group_size", (double)n);
            val(f, "gap_pct", gap);
            val(f, "others_spread_pct", hi - lo);
        }
    }
    free(done);
    free(u);
    free(ix);
}

/* ---- evaluation --------------------------------------------------------- */

/* A stand-in for the utilisation of a GPU that gives none (NVML answers
 * NOT_SUPPORTED on a MIG-enabled GPU's parent, whatever its instances do),
 * from the power it draws as a share of its limit: below UNREAD_IDLE_POWER
 * (an idle GPU draws 5-20 % of its limit: fans, memory refresh, leakage)
 * nothing runs -> 0; at UNREAD_BUSY_POWER or more (what low-intensity calls
 * plainly busy work: kernels keeping the SMs switching for over half the
 * power budget) -> 100; in between -> a light load (30).  NAN when the
 * power or its limit is not known either: then nothing says it works. */
#define UNREAD_IDLE_POWER 0.25
#define UNREAD_BUSY_POWER 0.5
static double util_from_power(const struct stats *st)
{
    double pf = acc_mean(&st->power_frac);
    if (isnan(pf))
        return NAN;
    return pf < UNREAD_IDLE_POWER ? 0 : pf >= UNREAD_BUSY_POWER ? 100 : 30;
}

int gm_dg_eval(const struct gm_dg *d, int64_t from_ns, int64_t to_ns, struct gm_dg_result *out)
{
    memset(out, 0, sizeof *out);
    struct ctx c = {.r = out};
    struct stats *st = gm_xcalloc(d->ng ? d->ng : 1, sizeof *st);
    out->gpus = gm_xcalloc(d->ng ? d->ng : 1, sizeof *out->gpus);
    for (size_t i = 0; i < d->ng; i++) {
        summarise(&d->g[i], from_ns, to_ns, &st[i]);
        if (!st[i].npoints && !d->g[i].has_info)
            continue;
        if (st[i].npoints) {
            if (!out->start_ns || st[i].t0 < out->start_ns)
                out->start_ns = st[i].t0;
            if (st[i].t1 > out->end_ns)
                out->end_ns = st[i].t1;
        }
    }
    for (size_t i = 0; i < d->ng; i++) {
        const struct stats *s = &st[i];
        uint32_t g = (uint32_t)i;
        if (!s->npoints)
            continue;
        if (s->lost) {
            struct gm_dg_finding *f = add_finding(
                &c, GM_DG_GPU_LOST, GM_DG_CRITICAL, g, s->lost_at, s->t1, 0.99,
                "the GPU fell off the bus: check dmesg for Xid 79 / NVRM errors, power and "
                "cooling; a reset (nvidia-smi -r) or a reboot brings it back; RMA if it recurs");
            snprintf(f->evidence, sizeof f->evidence,
                     "NVML answers GPU_IS_LOST from %.0f s into the window",
                     (double)(s->lost_at - s->t0) / 1e9);
            val(f, "lost_after_s", (double)(s->lost_at - s->t0) / 1e9);
        }
        int starved = detect_starved(&c, g, s);
        detect_thermal(&c, g, s);
        detect_power(&c, g, s);
        detect_hw(&c, g, s);
        detect_app_clocks(&c, g, s);
        if (!starved)
            detect_intensity(&c, g, s);
        detect_memory(&c, g, s);
        detect_modes(&c, g, s);
        detect_transfer(&c, g, s, starved);
        detect_codec(&c, g, s);
    }
    detect_straggler(&c, d, st);
    for (size_t i = 0; i < d->ng; i++) {
        if (!st[i].npoints && !d->g[i].has_info)
            continue;
        struct gm_dg_verdict *v = &out->gpus[out->ngpu++];
        v->index = (uint32_t)i;
        v->npoints = st[i].npoints;
        for (size_t k = 0; k < out->nfinding; k++)
            for (uint32_t j = 0; j < out->findings[k].ngpu; j++)
                if (out->findings[k].gpus[j] == i)
                    v->causes |= UINT64_C(1) << out->findings[k].cause;
        v->has_findings = v->causes != 0;
        double u = acc_mean(&st[i].util);
        /* No utilisation reading at all (a MIG-enabled GPU: NVML has none for
         * the parent while its instances run): the power drawn stands in */
        if (isnan(u))
            u = util_from_power(&st[i]);
        /* with findings the verdict is unused (see the header): healthy-busy */
        if (st[i].lost)
            v->verdict = GM_DG_GPU_LOST;
        else if (!v->has_findings && (isnan(u) || (u < 2 && st[i].util.max < 10)) &&
                 !(engines_max(&st[i]) >= 10))
            v->verdict = GM_DG_IDLE;
        else if (!v->has_findings && u < 60)
            v->verdict = GM_DG_LIGHT_LOAD;
        else
            v->verdict = GM_DG_HEALTHY_BUSY;
    }
    free(st);
    return 0;
}

void gm_dg_result_free(struct gm_dg_result *r)
{
    if (!r)
        return;
    free(r->findings);
    free(r->gpus);
    memset(r, 0, sizeof *r);
}

/* dg_history.c -- history rows into the detectors (see dg_history.h). */
#include "dg_history.h"

#include <stdio.h>
#include <stdlib.h>

#include "../core/err.h"

int gm_dg_feed_row(void *arg, const struct gm_hist_row *r)
{
    struct gm_dg_feed *f = arg;
    struct gm_dg *d = f->d;
    struct gm_dg_gpu_info info = gm_dg_gpu(d, r->gpu_index);
    if (r->uuid[0])
        snprintf(info.uuid, sizeof info.uuid, "%s", r->uuid);
    if (r->name[0])
        snprintf(info.name, sizeof info.name, "%s", r->name);
    if (r->job[0])
        snprintf(info.job, sizeof info.job, "%s", r->job);
    gm_dg_set_gpu(d, &info);
    struct gm_dg_point p;
    gm_dg_point_init(&p, r->ts_ns);
    if (r->down == 1) {
        p.lost = 1;
    } else if (r->down == 0) {
        p.util_gpu = r->util;
        p.util_gpu_min = r->util_min;
        p.util_gpu_max = r->util_max;
        p.util_mem = r->util_mem;
        p.mem_used_b = r->mem_used_b;
        p.mem_total_b = r->mem_total_b;
        p.power_w = r->power_w;
        p.power_limit_w = r->power_limit_w;
        p.temp_c = r->temp_c;
        p.sm_clock_mhz = r->clk_sm_mhz;
        p.mem_clock_mhz = r->clk_mem_mhz;
        p.reasons = r->reasons;
        p.nproc = r->nproc;
        p.nproc_dead = r->nproc_dead;
        p.proc_mem_b = r->proc_mem_b;
        p.dead_mem_b = r->dead_mem_b;
        p.owner = gm_dg_owner_id(r->job);
        p.enc_util = r->enc_util;
        p.dec_util = r->dec_util;
        p.pcie_rx_Bps = r->pcie_rx_Bps;
        p.sm_active = r->sm_active;
        p.dram_active = r->dram_active;
        p.compute_mode = r->compute_mode;
        p.pcie_gen = r->pcie_gen;
        p.pcie_gen_max = r->pcie_gen_max;
        p.pcie_width = r->pcie_width;
        p.pcie_width_max = r->pcie_width_max;
        p.ecc_uncorrected = r->ecc_uncorrected;
        p.remap_pending = r->remap_pending;
        p.retired_pending = r->retired_pending;
        p.host_pid = r->host_pid;
        p.host_workers = r->host_workers;
        p.host_cpu_pct = r->host_cpu_pct;
        p.host_workers_cpu_pct = r->host_workers_cpu_pct;
        p.host_iowait_pct = r->host_iowait_pct;
        p.psi_cpu = r->psi_cpu;
        p.psi_io = r->psi_io;
        p.psi_scope = r->psi_scope;
    } else {
        return 0; /* unreadable: no point (a gap) */
    }
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 1024;
        f->v = gm_xrealloc(f->v, f->cap * sizeof *f->v);
    }
    f->v[f->n].gpu = r->gpu_index;
    f->v[f->n++].p = p;
    return 0;
}

static int cmp_pt(const void *a, const void *b)
{
    const struct gm_dg_feed_pt *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    return (x->p.t_ns > y->p.t_ns) - (x->p.t_ns < y->p.t_ns);
}

void gm_dg_feed_flush(struct gm_dg_feed *f)
{
    if (f->n)
        qsort(f->v, f->n, sizeof *f->v, cmp_pt);
    for (size_t i = 0; i < f->n; i++)
        gm_dg_add(f->d, f->v[i].gpu, &f->v[i].p);
    gm_dg_feed_discard(f);
}

void gm_dg_feed_discard(struct gm_dg_feed *f)
{
    free(f->v);
    f->v = NULL;
    f->n = f->cap = 0;
}

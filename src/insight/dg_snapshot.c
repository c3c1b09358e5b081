/* dg_snapshot.c -- a snapshot's GPUs as diagnosis points.
 *
 * The one place that knows both the snapshot (core/snapshot.h, the metric
 * registry's ids) and the detectors' point: the live command and the agent
 * feed snapshots through here.  Values not available stay NAN (-1 for
 * integers), so a detector never mistakes a missing value for 0.  GPM's SM
 * and DRAM activity are read here as the store's history reader reads them
 * (a ratio 0..1), so live and history see the same numbers.  Each GPU's job
 * (for the straggler) is its first live compute process's identity, never
 * its name: see job_key.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/attrib.h"
#include "../core/snapshot.h"
#include "diagnose.h"

/* The job key of a live process: gm_attrib_job_key of its job id, parent
 * and session (core/attrib.h), as the history readers compute it from the
 * procs rows they keep. */
static void job_key(const struct gm_proc *pr, char *buf, size_t len)
{
    char j[128];
    gm_attrib_job_key(gm_attrib_job(&pr->attrib, j, sizeof j), pr->pid, pr->ppid, pr->sid, buf,
                      len);
}

static double num(const struct gm_snapshot *s, const struct gm_gpu *g, int id)
{
    const struct gm_value *v = gm_gpu_value(s, g, id);
    return gm_v_ok(v) ? gm_v_as_double(v) : NAN;
}

static int inum(const struct gm_snapshot *s, const struct gm_gpu *g, int id)
{
    double v = num(s, g, id);
    return isnan(v) ? -1 : (int)v;
}

/* The host side of the process feeding g (gm_gpu_feeder). */
static void add_host_side(const struct gm_snapshot *s, const struct gm_gpu *g,
                          struct gm_dg_point *p)
{
    const struct gm_proc *best = gm_gpu_feeder(s, g);
    if (!best)
        return;
    const struct gm_host_side *h = &best->host;
    p->host_pid = best->pid;
    p->host_workers = h->workers;
    p->host_cpu_pct = h->cpu_pct;
    p->host_workers_cpu_pct = h->workers_cpu_pct;
    p->host_iowait_pct = h->iowait_pct;
    p->psi_cpu = h->psi_cpu;
    p->psi_io = h->psi_io;
    p->psi_scope = h->psi_scope == GM_PSI_CGROUP ? 1 : h->psi_scope == GM_PSI_NODE ? 2 : 0;
}

int gm_dg_add_snapshot(struct gm_dg *d, const struct gm_snapshot *s, uint64_t mask)
{
    for (uint32_t k = 0; k < s->ngpu; k++) {
        const struct gm_gpu *g = &s->gpus[k];
        if (k >= 64 || (mask && !(mask & (UINT64_C(1) << k))))
            continue;
        struct gm_dg_gpu_info info = {.index = g->index};
        if (g->str[GM_S_UUID][0])
            snprintf(info.uuid, sizeof info.uuid, "%s", g->str[GM_S_UUID]);
        if (g->str[GM_S_NAME][0])
            snprintf(info.name, sizeof info.name, "%s", g->str[GM_S_NAME]);
        struct gm_dg_point p;
        gm_dg_point_init(&p, s->wall_ns);
        if (g->state == GM_GPU_LOST) {
            p.lost = 1;
            gm_dg_set_gpu(d, &info);
            gm_dg_add(d, g->index, &p);
            continue;
        }
        p.util_gpu = num(s, g, GM_M_UTIL_GPU);
        p.util_mem = num(s, g, GM_M_UTIL_MEM);
        p.power_w = num(s, g, GM_M_POWER_DRAW);
        p.power_limit_w = num(s, g, GM_M_POWER_LIMIT);
        p.sm_clock_mhz = num(s, g, GM_M_CLK_SM);
        p.sm_clock_max_mhz = num(s, g, GM_M_CLK_MAX_SM);
        p.mem_clock_mhz = num(s, g, GM_M_CLK_MEM);
        p.mem_clock_max_mhz = num(s, g, GM_M_CLK_MAX_MEM);
        p.temp_c = num(s, g, GM_M_TEMP_GPU);
        p.temp_slowdown_c = num(s, g, GM_M_TEMP_SLOWDOWN);
        p.mem_used_b = num(s, g, GM_M_MEM_USED);
        p.mem_total_b = num(s, g, GM_M_MEM_TOTAL);
        p.pcie_rx_Bps = num(s, g, GM_M_PCIE_RX);
        p.pcie_tx_Bps = num(s, g, GM_M_PCIE_TX);
        p.enc_util = num(s, g, GM_M_UTIL_ENC);
        p.dec_util = num(s, g, GM_M_UTIL_DEC);
        /* GPM (Hopper and later, when the GPM group was read): percent in
         * the snapshot, a 0..1 ratio in the point, as the store gives it */
        p.sm_active = num(s, g, GM_M_GPM_SM_ACTIVE) / 100.0;
        p.dram_active = num(s, g, GM_M_GPM_DRAM_ACTIVE) / 100.0;
        p.ecc_uncorrected = num(s, g, GM_M_ECC_UNCORR_VOL);
        p.remap_pending = num(s, g, GM_M_REMAP_PENDING);
        p.retired_pending = num(s, g, GM_M_RETIRED_PENDING);
        double r = num(s, g, GM_M_CER_ACTIVE);
        p.reasons = isnan(r) ? -1 : (int64_t)r;
        p.pcie_gen = inum(s, g, GM_M_PCIE_GEN_CUR);
        p.pcie_gen_max = inum(s, g, GM_M_PCIE_GEN_MAX);
        p.pcie_width = inum(s, g, GM_M_PCIE_WIDTH_CUR);
        p.pcie_width_max = inum(s, g, GM_M_PCIE_WIDTH_MAX);
        p.compute_mode = inum(s, g, GM_M_COMPUTE_MODE);
        if (g->procs_listed) {
            int dead = 0, known = 1, dead_known = 1;
            double mem = 0, dead_mem = 0;
            uint32_t first_pid = 0;
            for (uint32_t i = 0; i < g->nproc; i++) {
                const struct gm_proc *pr = &s->procs[g->proc_first + i];
                if (pr->host_state == GM_HS_GONE || pr->host_state == GM_HS_ZOMBIE)
                    dead++;
                else if (pr->host_state == GM_HS_UNKNOWN)
                    known = 0;
                if (gm_v_ok(&pr->used_memory))
                    mem += gm_v_as_double(&pr->used_memory);
                /* a dead process is no longer part of a job */
                int gone = pr->host_state == GM_HS_GONE || pr->host_state == GM_HS_ZOMBIE;
                if (gone && gm_v_ok(&pr->used_memory))
                    dead_mem += gm_v_as_double(&pr->used_memory);
                else if (gone)
                    dead_known = 0;
                if ((pr->type & GM_PT_COMPUTE) && !gone && (!first_pid || pr->pid < first_pid)) {
                    first_pid = pr->pid;
                    job_key(pr, info.job, sizeof info.job);
                }
            }
            p.owner = gm_dg_owner_id(first_pid ? info.job : "");
            p.nproc = (int)g->nproc;
            p.nproc_dead = known ? dead : -1;
            p.proc_mem_b = mem;
            p.dead_mem_b = dead_known ? dead_mem : NAN;
            add_host_side(s, g, &p);
        }
        gm_dg_set_gpu(d, &info);
        gm_dg_add(d, g->index, &p);
    }
    return 0;
}

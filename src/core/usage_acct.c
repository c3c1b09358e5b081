/* usage_acct.c -- the accounting rules of usage_1h and of the exporter's
 * usage counters (see usage_acct.h, docs/jobs.md).  Moved here from the
 * store so that the two cannot drift apart.
 */
#include "usage_acct.h"

#include <string.h>

#include "attrib.h"
#include "err.h"
#include "metrics.h"
#include "text.h"

/* A process's memory in whole MiB, rounded down as nvidia-smi does. */
static int mem_mib(const struct gm_value *v, int64_t *out)
{
    if (!gm_v_ok(v))
        return 0;
    uint64_t div = (uint64_t)gm_units[GM_U_BYTES].smi_div;
    if (v->type == GM_VT_U64) {
        *out = (int64_t)(v->v.u / div);
        return 1;
    }
    double d = gm_v_as_double(v) / (double)div;
    if (!(d >= 0) || d > 9.2e18)
        return 0;
    *out = (int64_t)d;
    return 1;
}

int gm_uacct_groups(const struct gm_snapshot *s, const struct gm_gpu *gpu,
                    struct gm_uacct_group *ug, int *n)
{
    *n = 0;
    if (!gpu || gpu->state != GM_GPU_OK || !gpu->procs_listed)
        return 0;
    for (uint32_t k = gpu->proc_first; k < gpu->proc_first + gpu->nproc && k < s->nproc; k++) {
        const struct gm_proc *p = &s->procs[k];
        struct gm_uacct_group u;
        memset(&u, 0, sizeof u);
        /* a process without a job of its own counts to the job the
         * job-mapping directory names first for its GPU (docs/jobs.md) */
        if (!gm_attrib_job(&p->attrib, u.job, sizeof u.job)[0] && gpu->hpc_known && gpu->nhpc_jobs)
            gm_hpc_job_key(gpu->hpc_jobs[0], u.job, sizeof u.job);
        gm_strlcpy(u.user, p->user, sizeof u.user);
        /* a vanished process is nobody's user any more, and its own job is
         * gone with it: one group per process name, user "(vanished)", job
         * the GPU's mapped job or "(vanished)" (docs/jobs.md) */
        u.vanished = p->host_state == GM_HS_GONE || p->host_state == GM_HS_ZOMBIE;
        if (u.vanished) {
            if (gpu->hpc_known && gpu->nhpc_jobs)
                gm_hpc_job_key(gpu->hpc_jobs[0], u.job, sizeof u.job);
            else
                gm_strlcpy(u.job, "(vanished)", sizeof u.job);
            gm_strlcpy(u.user, "(vanished)", sizeof u.user);
        }
        const char *name = p->comm[0] ? p->comm : p->name;
        const char *base = strrchr(name, '/');
        gm_strlcpy(u.proc, base && base[1] ? base + 1 : name, sizeof u.proc);
        int64_t mem = 0;
        int mem_ok = mem_mib(&p->used_memory, &mem);
        int i = 0;
        while (i < *n && (strcmp(ug[i].job, u.job) != 0 || strcmp(ug[i].user, u.user) != 0 ||
                          strcmp(ug[i].proc, u.proc) != 0))
            i++;
        if (i == *n) {
            if (*n == GM_UACCT_GROUPS) { /* the rest, together */
                i = GM_UACCT_GROUPS - 1;
                gm_strlcpy(ug[i].job, "(other)", sizeof ug[i].job);
                ug[i].user[0] = ug[i].proc[0] = '\0';
                ug[i].vanished = 0;
            } else {
                ug[(*n)++] = u;
                ug[i].mem_ok = 0;
                ug[i].mem_mib = 0;
            }
        }
        if (mem_ok) {
            ug[i].mem_mib += mem;
            ug[i].mem_ok = 1;
        }
    }
    return 1;
}

double gm_uacct_share(const struct gm_uacct_group *ug, int n, int i)
{
    int nlive = 0;
    for (int k = 0; k < n; k++)
        nlive += !ug[k].vanished;
    /* a vanished group beside live ones: seen, holding memory, charged nothing */
    return nlive && ug[i].vanished ? 0 : 1.0 / (nlive ? nlive : n);
}

int64_t gm_uacct_gap(struct gm_uacct_gaps *g, int64_t dt, int64_t fixed)
{
    g->delta[g->pos] = dt;
    g->pos = (g->pos + 1) % GM_UACCT_NDELTA;
    if (g->n < GM_UACCT_NDELTA)
        g->n++;
    int64_t usual = fixed;
    if (usual <= 0) {
        int64_t v[GM_UACCT_NDELTA];
        memcpy(v, g->delta, sizeof(v));
        for (int i = 1; i < g->n; i++)
            for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                int64_t t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
        usual = v[g->n / 2];
    }
    int64_t cap = 2 * usual;
    return dt < cap ? dt : cap;
}

int gm_uacct_energy(const struct gm_uacct_energy_at *prev, const struct gm_uacct_energy_at *cur,
                    int64_t d, int64_t dt, double *e)
{
    *e = 0;
    if (prev->energy_ok && cur->energy_ok && cur->energy_j >= prev->energy_j) {
        /* the counter's energy over dt, of which d was observed */
        *e = cur->energy_j - prev->energy_j;
        if (d < dt)
            *e = *e * (double)d / (double)dt;
        return GM_UACCT_ESRC_COUNTER;
    }
    if (prev->power_ok) {
        /* no counter, or it went backwards (driver reload): power x time */
        *e = prev->power_w * (double)d / 1000.0;
        return GM_UACCT_ESRC_POWER;
    }
    return GM_UACCT_ESRC_NONE;
}

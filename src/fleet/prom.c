/* prom.c -- the fleet from Prometheus' query API (fleet.h,
 * docs/fleet.md "Prometheus").
 *
 * One instant query per metric for the whole fleet (gm_fleet_prom_queries,
 * in this order), never one per node: the number of queries does not grow
 * with the nodes.  The nodes are the `up` series of the jobs that scrape
 * gpumon (those with gpumon_exporter_last_sample_timestamp_seconds), by
 * their `instance` label; a target that Prometheus failed to scrape (up 0)
 * is unreachable, one whose latest sample is older than the stale limit is
 * stale.  Only gpumon's native names are read (not dcgm-exporter's).
 *
 * Processes, users and jobs come from the per-process series
 * (gpumon_process_memory_used_bytes and gpumon_process_sm_utilization_ratio,
 * merged by instance, GPU and pid) and gpumon_gpu_job_info.  An agent
 * exports process series only with process-metrics on, which
 * gpumon_exporter_process_series_dropped tells: without that series a
 * node's processes are unknown (said in its reason, and nothing is judged
 * by them); with it above 0 they are incomplete (the agent's series cap).
 * The series do not say compute or graphics, so every process counts as a
 * compute process; nor which MIG instance a process is on, so MIG
 * instances are not read (a GPU in MIG mode is not itself a candidate for
 * `fleet free`, as locally).  A target whose instance label is not
 * host[:port] is left out (gm_fleet_add's rules).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cause.h"
#include "../core/metrics.h"
#include "fjson.h"
#include "fleet.h"

#define PROM_MAX_VALUES 4000000
#define PROM_MAX_PROCS 4096 /* per node: a hostile Prometheus cannot grow a node beyond */

/* The queries, URL-encoded, in the order gm_fleet_from_prometheus reads
 * their answers. */
enum {
    Q_STAMP,
    Q_UP,
    Q_GPU_UP,
    Q_UTIL,
    Q_MEM_USED,
    Q_MEM_TOTAL,
    Q_MEM_FREE,
    Q_POWER,
    Q_TEMP,
    Q_DIAG,
    Q_ALERTS,
    Q_PROC_MEM,
    Q_PROC_SM,
    Q_PROC_DROPPED,
    Q_JOB,
    Q_REMAP,
    Q_RETIRE,
    Q_MIG,
    Q_CMODE,
    Q__COUNT
};

const char *const gm_fleet_prom_queries[] = {
    "time()%20-%20gpumon_exporter_last_sample_timestamp_seconds",
    "up",
    "gpumon_gpu_up",
    "gpumon_gpu_utilization_ratio",
    "gpumon_memory_used_bytes",
    "gpumon_memory_total_bytes",
    "gpumon_memory_free_bytes",
    "gpumon_power_draw_watts",
    "gpumon_gpu_temperature_celsius",
    "gpumon_diagnosis_active%20%3D%3D%201",
    "ALERTS%7Balertstate%3D%22firing%22%7D",
    "gpumon_process_memory_used_bytes",
    "gpumon_process_sm_utilization_ratio",
    "gpumon_exporter_process_series_dropped",
    "gpumon_gpu_job_info",
    "gpumon_remapped_rows_pending",
    "gpumon_retired_pages_pending",
    "gpumon_mig_mode",
    "gpumon_compute_mode",
    NULL,
};

/* The result array of a query's answer, or NULL with err set. */
static const struct gm_fj *result(const struct gm_fj *doc, int q, struct gm_err *err)
{
    const char *st = gm_fj_str(gm_fj_get(doc, "status"));
    const struct gm_fj *data = gm_fj_get(doc, "data");
    const struct gm_fj *r = gm_fj_get(data, "result");
    if (!st || strcmp(st, "success") != 0 || !r || r->type != GM_FJ_ARR) {
        gm_err_set(err, GM_E_INVAL, "query %d: not a successful instant query answer", q);
        return NULL;
    }
    return r;
}

static const char *label(const struct gm_fj *sample, const char *name)
{
    return gm_fj_str(gm_fj_get(gm_fj_get(sample, "metric"), name));
}

static int value(const struct gm_fj *sample, double *v)
{
    const struct gm_fj *pair = gm_fj_get(sample, "value");
    const char *s =
        pair && pair->type == GM_FJ_ARR && pair->len == 2 ? gm_fj_str(pair->v[1]) : NULL;
    if (!s)
        return 0;
    char *end;
    *v = strtod(s, &end);
    return *end == '\0' && end != s && isfinite(*v);
}

static struct gm_fleet_node *node_of(struct gm_fleet *f, const char *instance)
{
    for (uint32_t i = 0; instance && i < f->n; i++)
        if (strcmp(f->node[i].host, instance) == 0)
            return &f->node[i];
    return NULL;
}

/* The position of GPU `gpu` (its label) on nd, or -1. */
static int gpu_pos(const struct gm_fleet_node *nd, const char *gpu)
{
    if (!nd || !nd->s || !gpu)
        return -1;
    char *end;
    unsigned long idx = strtoul(gpu, &end, 10);
    if (*end || end == gpu)
        return -1;
    for (uint32_t k = 0; k < nd->s->ngpu; k++)
        if (nd->s->gpus[k].index == idx)
            return (int)k;
    return -1;
}

static void set_metric(struct gm_fleet *f, const struct gm_fj *r, int id, double scale, int u64)
{
    for (size_t k = 0; r && k < r->len; k++) {
        struct gm_fleet_node *nd = node_of(f, label(r->v[k], "instance"));
        int pos = gpu_pos(nd, label(r->v[k], "gpu"));
        double v;
        if (pos < 0 || !value(r->v[k], &v))
            continue;
        v *= scale;
        nd->s->gpus[pos].m[id] =
            u64 && v >= 0 && v < 1.8e19 ? gm_v_u64((uint64_t)llround(v)) : gm_v_f64(v);
    }
}

/* ------------------------------------------------------------- processes */

/* One sample of the process series, before it goes into its node. */
struct pproc {
    uint32_t node, pos, pid;
    struct gm_value mem, sm;
    char name[64], user[33], job[80];
};

static int by_place(const void *a, const void *b)
{
    const struct pproc *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void copy_label(char *dst, size_t len, const struct gm_fj *sample, const char *name)
{
    const char *s = label(sample, name);
    gm_strlcpy(dst, s ? s : "", len);
}

/* Appends the samples of process series r (sm: the SM share, else the
 * memory) of known nodes and GPUs to *p. */
static void collect_procs(struct gm_fleet *f, const struct gm_fj *r, int sm, struct pproc **p,
                          size_t *n, size_t *cap)
{
    for (size_t k = 0; r && k < r->len; k++) {
        const struct gm_fj *smp = r->v[k];
        struct gm_fleet_node *nd = node_of(f, label(smp, "instance"));
        int pos = gpu_pos(nd, label(smp, "gpu"));
        const char *pid = label(smp, "pid");
        char *end = NULL;
        unsigned long long id = pid && *pid >= '0' && *pid <= '9' ? strtoull(pid, &end, 10) : 0;
        double v;
        if (pos < 0 || !end || *end || id > UINT32_MAX || !value(smp, &v) || v < 0)
            continue;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *p = gm_xrealloc(*p, *cap * sizeof(**p));
        }
        struct pproc *e = &(*p)[(*n)++];
        memset(e, 0, sizeof(*e));
        e->node = (uint32_t)(nd - f->node);
        e->pos = (uint32_t)pos;
        e->pid = (uint32_t)id;
        e->mem = e->sm = gm_v_status(GM_VS_NA, 0);
        if (sm)
            e->sm = gm_v_u64((uint64_t)llround(v * 100.0 > 100.0 ? 100.0 : v * 100.0));
        else if (v < 1.8e19)
            e->mem = gm_v_u64((uint64_t)llround(v));
        copy_label(e->name, sizeof(e->name), smp, "process");
        copy_label(e->user, sizeof(e->user), smp, "user");
        copy_label(e->job, sizeof(e->job), smp, "job_id");
    }
}

/* Puts the processes of the two process series into their nodes, a GPU's
 * together and by pid, each GPU's first job from them; known[i]: node i's
 * agent exports process series (set here too for a node with a process). */
static void read_procs(struct gm_fleet *f, const struct gm_fj *mem, const struct gm_fj *sm,
                       uint8_t *known)
{
    struct pproc *p = NULL;
    size_t n = 0, cap = 0;
    collect_procs(f, mem, 0, &p, &n, &cap);
    collect_procs(f, sm, 1, &p, &n, &cap);
    if (n) /* qsort of NULL is undefined even for 0 elements */
        qsort(p, n, sizeof(*p), by_place);
    size_t j = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        uint32_t added = 0;
        if (j < n && p[j].node == i)
            known[i] = 1;
        for (uint32_t k = 0; nd->s && k < nd->s->ngpu; k++) {
            struct gm_gpu *g = &nd->s->gpus[k];
            g->proc_first = nd->s->nproc;
            g->nproc = 0;
            if (known[i] && g->state == GM_GPU_OK) {
                g->procs_listed = 1;
                g->proc_list = gm_v_u64(1);
            }
            while (j < n && p[j].node == i && p[j].pos == k) {
                struct pproc e = p[j++];
                /* the other series of the same process */
                for (; j < n && by_place(&e, &p[j]) == 0; j++) {
                    if (!gm_v_ok(&e.mem))
                        e.mem = p[j].mem;
                    if (!gm_v_ok(&e.sm))
                        e.sm = p[j].sm;
                }
                if (added >= PROM_MAX_PROCS)
                    continue;
                struct gm_proc pr = {.gpu = k,
                                     .pid = e.pid,
                                     .type = GM_PT_COMPUTE, /* the series do not say */
                                     .used_memory = e.mem,
                                     .sm_util = e.sm,
                                     .gpu_instance_id = GM_NO_INSTANCE,
                                     .compute_instance_id = GM_NO_INSTANCE};
                gm_strlcpy(pr.name, e.name, sizeof(pr.name));
                gm_strlcpy(pr.user, e.user, sizeof(pr.user));
                if (!nd->g[k].job[0] && e.job[0])
                    gm_strlcpy(nd->g[k].job, e.job, sizeof(nd->g[k].job));
                gm_snapshot_add_proc_take(nd->s, &pr);
                nd->s->gpus[k].nproc++;
                added++;
            }
        }
        while (j < n && p[j].node == i)
            j++;
    }
    free(p);
}

/* gpumon_gpu_job_info: the job-mapping directory's ids as the GPU's
 * hpc_jobs (the exporter wrote "slurm:ID" or "hpc:ID"), and a GPU's job
 * from its cgroup jobs when no process series named one.  Then a GPU
 * without a process job takes "hpc:" and its first id, as from an agent. */
static void read_jobs(struct gm_fleet *f, const struct gm_fj *r)
{
    for (size_t k = 0; r && k < r->len; k++) {
        const struct gm_fj *smp = r->v[k];
        struct gm_fleet_node *nd = node_of(f, label(smp, "instance"));
        int pos = gpu_pos(nd, label(smp, "gpu"));
        const char *job = label(smp, "job_id"), *src = label(smp, "source");
        if (pos < 0 || !job || !*job)
            continue;
        struct gm_gpu *g = &nd->s->gpus[pos];
        if (src && strcmp(src, "job-mapping") == 0) {
            const char *id = strchr(job, ':') ? strchr(job, ':') + 1 : job;
            int dup = 0;
            for (int h = 0; h < g->nhpc_jobs && !dup; h++)
                dup = strcmp(g->hpc_jobs[h], id) == 0;
            g->hpc_known = g->hpc_read = 1;
            if (!dup && *id && g->nhpc_jobs < GM_HPC_JOBS_MAX)
                gm_strlcpy(g->hpc_jobs[g->nhpc_jobs++], id, GM_HPC_JOB_LEN);
        } else if (!nd->g[pos].job[0]) {
            gm_strlcpy(nd->g[pos].job, job, sizeof(nd->g[pos].job));
        }
    }
    for (uint32_t i = 0; i < f->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        for (uint32_t k = 0; nd->s && k < nd->s->ngpu; k++)
            if (!nd->g[k].job[0] && nd->s->gpus[k].nhpc_jobs)
                snprintf(nd->g[k].job, sizeof(nd->g[k].job), "hpc:%s", nd->s->gpus[k].hpc_jobs[0]);
    }
}

int gm_fleet_from_prometheus(struct gm_fleet *f, const char *const *body, const size_t *len,
                             int64_t stale_ns, struct gm_err *err)
{
    struct gm_fj *doc[Q__COUNT] = {0};
    const struct gm_fj *r[Q__COUNT] = {0};
    int rc = 0;
    for (int q = 0; q < Q__COUNT; q++) {
        struct gm_err e = {0};
        doc[q] = gm_fj_parse(body[q], len[q], PROM_MAX_VALUES, &e);
        if (!doc[q]) {
            rc = gm_err_set(err, GM_E_INVAL, "query %d: not JSON: %s", q, e.msg);
            goto out;
        }
        if (!(r[q] = result(doc[q], q, err))) {
            rc = GM_E_INVAL;
            goto out;
        }
    }
    /* the jobs that scrape gpumon, then their targets */
    for (size_t k = 0; k < r[Q_UP]->len; k++) {
        const char *job = label(r[Q_UP]->v[k], "job");
        const char *inst = label(r[Q_UP]->v[k], "instance");
        int ours = 0;
        for (size_t s = 0; job && s < r[Q_STAMP]->len && !ours; s++) {
            const char *j2 = label(r[Q_STAMP]->v[s], "job");
            ours = j2 && strcmp(j2, job) == 0;
        }
        if (!ours || !inst || node_of(f, inst))
            continue;
        /* an instance label that is not host[:port] (odd bytes, a path) is
         * left out, as gm_fleet_add refuses such a host */
        if (gm_fleet_add(f, inst, 0, NULL) != 0)
            continue;
        struct gm_fleet_node *nd = &f->node[f->n - 1];
        double up;
        if (!value(r[Q_UP]->v[k], &up) || up != 1) {
            gm_fleet_node_failed(nd, 0, 0, NULL);
            nd->state = GM_FLEET_UNREACHABLE;
            gm_strlcpy(nd->reason, "Prometheus cannot scrape it (up 0)", sizeof(nd->reason));
            continue;
        }
        nd->state = GM_FLEET_OK;
        nd->reason[0] = '\0';
        gm_strlcpy(nd->schema, "prometheus", sizeof(nd->schema));
        nd->s = gm_snapshot_new();
    }
    /* GPUs: count per node, then fill */
    for (size_t k = 0; k < r[Q_GPU_UP]->len; k++) {
        struct gm_fleet_node *nd = node_of(f, label(r[Q_GPU_UP]->v[k], "instance"));
        const char *gpu = label(r[Q_GPU_UP]->v[k], "gpu");
        if (!nd || !nd->s || !gpu || gpu_pos(nd, gpu) >= 0 || nd->s->ngpu >= GM_FLEET_MAX_GPUS)
            continue;
        char *end;
        unsigned long idx = strtoul(gpu, &end, 10);
        if (*end || end == gpu || idx > 1000000)
            continue;
        uint32_t n = nd->s->ngpu;
        /* gm_snapshot_set_gpus resets every GPU: keep the ones read */
        struct gm_gpu *keep = gm_xcalloc(n ? n : 1, sizeof(*keep));
        if (n) /* memcpy from NULL is undefined even for 0 bytes */
            memcpy(keep, nd->s->gpus, n * sizeof(*keep));
        gm_snapshot_set_gpus(nd->s, n + 1);
        if (n)
            memcpy(nd->s->gpus, keep, n * sizeof(*keep));
        free(keep);
        struct gm_gpu *g = &nd->s->gpus[n];
        g->index = (uint32_t)idx;
        const char *s = label(r[Q_GPU_UP]->v[k], "uuid");
        gm_strlcpy(g->str[GM_S_UUID], s ? s : "", GM_STR_MAX);
        s = label(r[Q_GPU_UP]->v[k], "name");
        gm_strlcpy(g->str[GM_S_NAME], s ? s : "", GM_STR_MAX);
        double v;
        g->state = value(r[Q_GPU_UP]->v[k], &v) && v == 1 ? GM_GPU_OK : GM_GPU_LOST;
    }
    for (uint32_t i = 0; i < f->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        if (nd->s && !nd->g)
            nd->g = gm_xcalloc(nd->s->ngpu ? nd->s->ngpu : 1, sizeof(*nd->g));
    }
    set_metric(f, r[Q_UTIL], GM_M_UTIL_GPU, 100.0, 1);
    set_metric(f, r[Q_MEM_USED], GM_M_MEM_USED, 1, 1);
    set_metric(f, r[Q_MEM_TOTAL], GM_M_MEM_TOTAL, 1, 1);
    set_metric(f, r[Q_MEM_FREE], GM_M_MEM_FREE, 1, 1);
    set_metric(f, r[Q_POWER], GM_M_POWER_DRAW, 1, 0);
    set_metric(f, r[Q_TEMP], GM_M_TEMP_GPU, 1, 1);
    set_metric(f, r[Q_REMAP], GM_M_REMAP_PENDING, 1, 1);
    set_metric(f, r[Q_RETIRE], GM_M_RETIRED_PENDING, 1, 1);
    set_metric(f, r[Q_MIG], GM_M_MIG_CURRENT, 1, 1);
    set_metric(f, r[Q_CMODE], GM_M_COMPUTE_MODE, 1, 1);
    /* whether each node's agent exports process series, and how many it left out */
    uint8_t *known = gm_xcalloc(f->n ? f->n : 1, 1);
    double *dropped = gm_xcalloc(f->n ? f->n : 1, sizeof(*dropped));
    for (size_t k = 0; k < r[Q_PROC_DROPPED]->len; k++) {
        struct gm_fleet_node *nd = node_of(f, label(r[Q_PROC_DROPPED]->v[k], "instance"));
        double d;
        if (nd && value(r[Q_PROC_DROPPED]->v[k], &d)) {
            known[nd - f->node] = 1;
            dropped[nd - f->node] = d;
        }
    }
    read_procs(f, r[Q_PROC_MEM], r[Q_PROC_SM], known);
    read_jobs(f, r[Q_JOB]);
    for (size_t k = 0; k < r[Q_DIAG]->len; k++) {
        struct gm_fleet_node *nd = node_of(f, label(r[Q_DIAG]->v[k], "instance"));
        int pos = gpu_pos(nd, label(r[Q_DIAG]->v[k], "gpu"));
        const char *c = label(r[Q_DIAG]->v[k], "cause");
        int id = c ? gm_cause_find(c, strlen(c)) : -1;
        if (pos >= 0 && id >= 0)
            nd->s->gpus[pos].diag |= 1u << id;
    }
    for (size_t k = 0; k < r[Q_STAMP]->len; k++) {
        struct gm_fleet_node *nd = node_of(f, label(r[Q_STAMP]->v[k], "instance"));
        double age;
        if (!nd || !nd->s || !value(r[Q_STAMP]->v[k], &age))
            continue;
        nd->age_ns = (int64_t)(age * 1e9);
        if (stale_ns > 0 && nd->age_ns > stale_ns && nd->state == GM_FLEET_OK) {
            nd->state = GM_FLEET_STALE;
            snprintf(nd->reason, sizeof(nd->reason), "latest sample %.0f s old", age);
        }
    }
    /* firing alerts, as the agent's /api/v1/alerts would list them */
    for (uint32_t i = 0; i < f->n; i++)
        f->node[i].alerts_known = f->node[i].s != NULL;
    for (size_t k = 0; k < r[Q_ALERTS]->len; k++) {
        const struct gm_fj *a = r[Q_ALERTS]->v[k];
        struct gm_fleet_node *nd = node_of(f, label(a, "instance"));
        if (!nd || !nd->s || nd->nalerts >= 1024)
            continue;
        nd->alerts = gm_xrealloc(nd->alerts, (nd->nalerts + 1) * sizeof(*nd->alerts));
        struct gm_fleet_alert *al = &nd->alerts[nd->nalerts++];
        memset(al, 0, sizeof(*al));
        const char *s = label(a, "alertname");
        gm_strlcpy(al->rule, s ? s : "", sizeof(al->rule));
        s = label(a, "severity");
        gm_strlcpy(al->severity, s ? s : "", sizeof(al->severity));
        gm_strlcpy(al->state, "firing", sizeof(al->state));
        const char *gpu = label(a, "gpu");
        int pos = gpu_pos(nd, gpu);
        al->gpu = pos >= 0 ? (int)nd->s->gpus[pos].index : -1;
    }
    for (uint32_t i = 0; i < f->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        for (uint32_t k = 0; nd->s && k < nd->s->ngpu; k++)
            nd->s->gpus[k].diag_known = 1;
        if (nd->s && nd->state == GM_FLEET_OK && !known[i])
            gm_strlcpy(nd->reason,
                       "processes unknown: the agent exports no process series "
                       "(process-metrics off)",
                       sizeof(nd->reason));
        else if (nd->s && nd->state == GM_FLEET_OK && dropped[i] > 0)
            snprintf(nd->reason, sizeof(nd->reason),
                     "processes incomplete: %.0f left out by the agent's series cap", dropped[i]);
        gm_fleet_node_judge(nd);
    }
    free(known);
    free(dropped);
out:
    for (int q = 0; q < Q__COUNT; q++)
        gm_fj_free(doc[q]);
    return rc;
}

/* snapshot.c -- allocation, copying and lookup for snapshots (see snapshot.h).
 *
 * A snapshot that is cleared and filled again (the collector's, the
 * sampler's pool) keeps its arrays and the buffers of its processes'
 * strings, so that a steady sample allocates nothing (issue 30).  The
 * buffers wait in a pool by size class -- class k holds buffers of at least
 * 2^k usable bytes (malloc_usable_size) -- and gm_snapshot_strdup takes one
 * from the smallest class that is sure to fit, or allocates 2^k bytes, which
 * go back to class k.
 */
#include "snapshot.h"

#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

struct gm_snapshot *gm_snapshot_new(void)
{
    struct gm_snapshot *s = gm_xcalloc(1, sizeof(struct gm_snapshot));
    s->refs = 1;
    return s;
}

struct gm_snapshot *gm_snapshot_ref(struct gm_snapshot *s)
{
    if (s)
        __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

void gm_snapshot_unref(struct gm_snapshot *s)
{
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
        gm_snapshot_free(s);
}

#define SP_MIN 4      /* the smallest class: 16 bytes */
#define SP_CLASSES 24 /* up to 8 MiB; larger buffers are freed */

struct gm_strpool {
    char **buf[SP_CLASSES];
    uint32_t n[SP_CLASSES], cap[SP_CLASSES];
};

/* Gives the string buffer p to s's pool (or frees it). */
static void pool_put(struct gm_snapshot *s, char *p)
{
    if (!p)
        return;
    size_t usable = malloc_usable_size(p);
    int k = 0;
    while (k + 1 < 64 && ((size_t)1 << (k + 1)) <= usable)
        k++;
    if (k < SP_MIN || k >= SP_CLASSES) {
        free(p);
        return;
    }
    if (!s->spare)
        s->spare = gm_xcalloc(1, sizeof *s->spare);
    struct gm_strpool *sp = s->spare;
    if (sp->n[k] == sp->cap[k]) {
        sp->cap[k] = sp->cap[k] ? sp->cap[k] * 2 : 16;
        sp->buf[k] = gm_xrealloc(sp->buf[k], sp->cap[k] * sizeof *sp->buf[k]);
    }
    sp->buf[k][sp->n[k]++] = p;
}

static void pool_free(struct gm_strpool *sp)
{
    if (!sp)
        return;
    for (int k = 0; k < SP_CLASSES; k++) {
        for (uint32_t i = 0; i < sp->n[k]; i++)
            free(sp->buf[k][i]);
        free(sp->buf[k]);
    }
    free(sp);
}

char *gm_snapshot_strdup(struct gm_snapshot *s, const char *src)
{
    if (!src)
        return NULL;
    size_t len = strlen(src);
    int k = SP_MIN;
    while (k < 63 && ((size_t)1 << k) < len + 1)
        k++;
    char *p = NULL;
    for (int c = k; s->spare && c < SP_CLASSES && !p; c++)
        if (s->spare->n[c])
            p = s->spare->buf[c][--s->spare->n[c]];
    if (!p)
        p = gm_xmalloc(k < SP_CLASSES ? (size_t)1 << k : len + 1);
    memcpy(p, src, len + 1);
    return p;
}

static void gpu_init(struct gm_gpu *g, uint32_t index)
{
    memset(g, 0, sizeof(*g));
    g->index = index;
    for (int i = 0; i < GM_M__GPU_END; i++)
        g->m[i] = gm_v_status(GM_VS_NA, 0);
    g->proc_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->mig_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->nvlink_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    for (int k = 0; k < GM_MIG_MAX; k++)
        for (int q = 0; q < GM_GPM_COUNT; q++)
            g->mig[k].gpm[q] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
}

void gm_snapshot_set_gpus(struct gm_snapshot *s, uint32_t n)
{
    for (uint32_t i = 0; i < s->ngpu; i++)
        free(s->gpus[i].nvlink);
    if (!s->gpus || n > s->gpu_cap) {
        s->gpus = gm_xrealloc(s->gpus, (n ? n : 1) * sizeof(struct gm_gpu));
        s->gpu_cap = n ? n : 1;
    }
    for (uint32_t i = 0; i < n; i++)
        gpu_init(&s->gpus[i], i);
    s->ngpu = n;
}

struct gm_proc *gm_snapshot_add_proc_take(struct gm_snapshot *s, const struct gm_proc *p)
{
    uint32_t n = s->nproc;
    if (n == s->proc_cap) {
        s->proc_cap = n ? n * 2 : 16;
        s->procs = gm_xrealloc(s->procs, s->proc_cap * sizeof(struct gm_proc));
    }
    s->procs[n] = *p;
    s->nproc = n + 1;
    return &s->procs[n];
}

void gm_snapshot_clear(struct gm_snapshot *s)
{
    int refs = s->refs;
    for (uint32_t i = 0; i < s->nproc; i++) {
        struct gm_proc *p = &s->procs[i];
        pool_put(s, p->cmdline);
        pool_put(s, p->exe);
        pool_put(s, p->cgroup);
        p->cmdline = p->exe = p->cgroup = NULL;
    }
    for (uint32_t i = 0; i < s->ngpu; i++)
        free(s->gpus[i].nvlink);
    struct gm_gpu *gpus = s->gpus;
    struct gm_proc *procs = s->procs;
    struct gm_strpool *spare = s->spare;
    uint32_t gpu_cap = s->gpu_cap, proc_cap = s->proc_cap;
    memset(s, 0, sizeof(*s));
    s->refs = refs;
    s->gpus = gpus;
    s->gpu_cap = gpu_cap;
    s->procs = procs;
    s->proc_cap = proc_cap;
    s->spare = spare;
}

struct gm_snapshot *gm_snapshot_copy(const struct gm_snapshot *s)
{
    struct gm_snapshot *c = gm_xmalloc(sizeof(*c));
    *c = *s;
    c->gpus = NULL;
    c->gpu_cap = 0;
    c->procs = NULL;
    c->proc_cap = 0;
    c->spare = NULL;
    c->refs = 1;
    if (s->ngpu) {
        c->gpus = gm_xmalloc(s->ngpu * sizeof(struct gm_gpu));
        c->gpu_cap = s->ngpu;
        memcpy(c->gpus, s->gpus, s->ngpu * sizeof(struct gm_gpu));
        for (uint32_t i = 0; i < s->ngpu; i++) {
            const struct gm_gpu *g = &s->gpus[i];
            c->gpus[i].nvlink = NULL;
            if (g->nvlink && g->nnvlink) {
                c->gpus[i].nvlink = gm_xmalloc(g->nnvlink * sizeof(*g->nvlink));
                memcpy(c->gpus[i].nvlink, g->nvlink, g->nnvlink * sizeof(*g->nvlink));
            }
        }
    }
    if (s->nproc) {
        c->proc_cap = s->nproc;
        c->procs = gm_xmalloc(s->nproc * sizeof(struct gm_proc));
        memcpy(c->procs, s->procs, s->nproc * sizeof(struct gm_proc));
        for (uint32_t i = 0; i < s->nproc; i++) {
            struct gm_proc *p = &c->procs[i];
            p->cmdline = p->cmdline ? gm_xstrdup(p->cmdline) : NULL;
            p->exe = p->exe ? gm_xstrdup(p->exe) : NULL;
            p->cgroup = p->cgroup ? gm_xstrdup(p->cgroup) : NULL;
        }
    }
    return c;
}

void gm_snapshot_free(struct gm_snapshot *s)
{
    if (!s)
        return;
    gm_snapshot_clear(s);
    free(s->gpus);
    free(s->procs);
    pool_free(s->spare);
    free(s);
}

const struct gm_value *gm_gpu_value(const struct gm_snapshot *s, const struct gm_gpu *g, int id)
{
    static const struct gm_value na = {.status = GM_VS_NA};
    switch (id) {
    case GM_M_DRIVER_VERSION:
    case GM_M_KMD_VERSION:
        return &s->driver_version;
    case GM_M_NVML_VERSION:
        return &s->nvml_version;
    case GM_M_CUDA_VERSION:
        return &s->cuda_version;
    default:
        break;
    }
    if (id < 0 || id >= GM_M__GPU_END || !g)
        return &na;
    return &g->m[id];
}

const struct gm_proc *gm_gpu_feeder(const struct gm_snapshot *s, const struct gm_gpu *g)
{
    const struct gm_proc *best = NULL;
    for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc && k < s->nproc; k++) {
        const struct gm_proc *pr = &s->procs[k];
        if (!(pr->type & GM_PT_COMPUTE) || !pr->host.read)
            continue;
        double c = isnan(pr->host.cpu_pct) ? -1 : pr->host.cpu_pct;
        double b = !best || isnan(best->host.cpu_pct) ? -1 : best->host.cpu_pct;
        if (!best || c > b)
            best = pr;
    }
    return best;
}

const char *gm_gpu_job(const struct gm_snapshot *s, const struct gm_gpu *g, char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    for (uint32_t k = g->proc_first; k < g->proc_first + g->nproc && k < s->nproc; k++)
        if (gm_attrib_job(&s->procs[k].attrib, buf, len)[0])
            return buf;
    if (g->hpc_known && g->nhpc_jobs)
        gm_hpc_job_key(g->hpc_jobs[0], buf, len);
    return buf;
}

const struct gm_gpu *gm_snapshot_gpu_by_index(const struct gm_snapshot *s, uint32_t idx)
{
    for (uint32_t i = 0; i < s->ngpu; i++)
        if (s->gpus[i].index == idx)
            return &s->gpus[i];
    return NULL;
}

const char *gm_driver_state_name(enum gm_driver_state st)
{
    static const char *const names[] = {
        "ok", "no_library", "driver_not_loaded", "no_permission", "version_mismatch", "error"};
    return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "error";
}

const char *gm_gpu_state_name(enum gm_gpu_state st)
{
    static const char *const names[] = {"ok", "lost", "no_permission", "error"};
    return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "error";
}

const char *gm_host_state_name(enum gm_host_state st)
{
    static const char *const names[] = {"unknown", "alive", "zombie", "gone", "hidden"};
    return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

/* collector.c -- NVML + /proc into one snapshot, optionally under a watchdog
 * (see collector.h). */
#include "collector.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "../source/jobmap.h"
#include "../source/hostside.h"
#include "../source/procfs.h"
#include "../source/clocks.h"
#include "../source/accounting.h"
#include "../source/pages.h"
#include "../source/topo.h"

struct gm_collector {
    struct gm_nvml *nvml;
    struct gm_procfs *procfs;
    struct gm_hostside *hostside;
    struct gm_jobmap *jobmap;
    int hostside_root_set; /* the host side reads another root than / */
    uint64_t seq;

    /* watchdog worker */
    int have_thread;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int request; /* a sample is wanted */
    int done;    /* the sample finished */
    int quit;
    struct gm_snapshot *target;
};

int gm_collector_open(struct gm_collector **out, const struct gm_collector_opts *o,
                      struct gm_err *err)
{
    struct gm_collector *c = gm_xcalloc(1, sizeof(*c));
    *out = c;
    pthread_mutex_init(&c->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (o->procs && o->procfs)
        c->procfs = gm_procfs_new(o->proc_root ? o->proc_root : "/proc");
    if (o->procs && o->hostside) {
        const char *root = o->host_root ? o->host_root : getenv("GPUMON_HOST_ROOT");
        c->hostside = gm_hostside_new(root ? root : "");
        c->hostside_root_set = root && root[0] && strcmp(root, "/") != 0;
    }
    /* The host side takes each GPU process's stat from the enrichment of
     * the same sample instead of reading it again, when both read one /proc. */
    if (c->procfs && c->hostside && !c->hostside_root_set &&
        (!o->proc_root || strcmp(o->proc_root, "/proc") == 0))
        gm_hostside_set_procfs(c->hostside, c->procfs);
    if (o->job_map_dir && o->job_map_dir[0])
        c->jobmap = gm_jobmap_new(o->job_map_dir, o->log, o->log_arg);
    int rc = gm_nvml_open(&c->nvml, o->lib_path, err);
    struct gm_rgset groups = gm_rgset_empty(&o->groups) ? gm_nvml_groups_default() : o->groups;
    gm_nvml_set_groups(c->nvml, &groups, o->procs, o->nvml_flags);
    gm_nvml_set_cadence(c->nvml, o->slow_ns);
    return rc;
}

static void sample_now(struct gm_collector *c, struct gm_snapshot *s)
{
    gm_snapshot_clear(s);
    gm_nvml_sample(c->nvml, s);
    if (c->procfs && s->nproc) {
        /* On the simulator, its simulated processes' /proc view
         * (source/procfs.h); NULL with a real NVML. */
        void *sym = gm_nvml_symbol(c->nvml, "gpusimProcRead");
        gm_procfs_sim_fn fn = NULL;
        if (sym)
            memcpy(&fn, &sym, sizeof fn);
        gm_procfs_set_sim(c->procfs, fn);
        gm_procfs_enrich(c->procfs, s);
    }
    if (c->hostside && s->nproc) {
        /* On the simulator, its simulated processes' host side from memory
         * (source/hostside.h), unless a host root points at files. */
        void *sym = c->hostside_root_set ? NULL : gm_nvml_symbol(c->nvml, "gpusimHostRead");
        gm_hostside_sim_fn fn = NULL;
        if (sym)
            memcpy(&fn, &sym, sizeof fn);
        gm_hostside_set_sim(c->hostside, fn);
        gm_hostside_enrich(c->hostside, s);
    }
    if (c->jobmap)
        gm_jobmap_apply(c->jobmap, s);
    s->seq = ++c->seq;
}

static void *worker(void *arg)
{
    struct gm_collector *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->request && !c->quit)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->quit)
            break;
        c->request = 0;
        struct gm_snapshot *s = c->target;
        pthread_mutex_unlock(&c->mu);
        sample_now(c, s);
        pthread_mutex_lock(&c->mu);
        c->done = 1;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

int gm_collector_sample(struct gm_collector *c, struct gm_snapshot *s, int64_t timeout_ns,
                        struct gm_err *err)
{
    if (timeout_ns <= 0) {
        sample_now(c, s);
        return 0;
    }
    if (!c->have_thread) {
        if (pthread_create(&c->thread, NULL, worker, c) != 0) {
            sample_now(c, s);
            return 0;
        }
        c->have_thread = 1;
    }
    int64_t deadline = gm_mono_ns() + timeout_ns;
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000LL),
                          .tv_nsec = (long)(deadline % 1000000000LL)};
    pthread_mutex_lock(&c->mu);
    c->target = s;
    c->done = 0;
    c->request = 1;
    pthread_cond_broadcast(&c->cv);
    int timed_out = 0;
    while (!c->done) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0 && !c->done) {
            timed_out = 1;
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    if (!timed_out)
        return 0;
    int gpu = -1;
    const char *call = gm_nvml_current_call(c->nvml, &gpu);
    char where[32] = "";
    if (gpu >= 0)
        snprintf(where, sizeof(where), " on GPU %d", gpu);
    return gm_err_set(
        err, GM_E_TIMEOUT,
        "the NVIDIA driver did not answer within %.1f s: %s%s has not returned; the "
        "driver or GPU may be hung (Xid errors in dmesg: run 'gpumon doctor', check 'kernel-log')",
        timeout_ns / 1e9, call ? call : "an NVML call", where);
}

void gm_collector_close(struct gm_collector *c)
{
    if (!c)
        return;
    if (c->have_thread) {
        pthread_mutex_lock(&c->mu);
        c->quit = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        pthread_join(c->thread, NULL);
    }
    gm_nvml_close(c->nvml);
    gm_procfs_free(c->procfs);
    gm_hostside_free(c->hostside);
    gm_jobmap_free(c->jobmap);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void gm_collector_abandon(struct gm_collector *c)
{
    /* The worker is blocked inside NVML holding pointers into c and its
     * snapshot: freeing anything could crash it. The process is about to exit. */
    (void)c;
}

const char *gm_collector_current_call(struct gm_collector *c, int *gpu)
{
    return gm_nvml_current_call(c->nvml, gpu);
}

void gm_collector_set_backoff(struct gm_collector *c, int64_t min_ns, int64_t max_ns)
{
    gm_nvml_set_backoff(c->nvml, min_ns, max_ns);
}

int gm_collector_nvml_samples(struct gm_collector *c, uint32_t index, int type, uint64_t since_us,
                              struct gm_nvml_sample *out, size_t cap, size_t *count)
{
    return gm_nvml_samples(c->nvml, index, type, since_us, out, cap, count);
}

void gm_collector_nvml_topo(struct gm_collector *c, uint32_t ngpu, struct gm_topo *t)
{
    gm_nvml_topo(c->nvml, ngpu, t);
}

int gm_collector_nvml_supported_clocks(struct gm_collector *c, uint32_t index,
                                       struct gm_clock_pair **out, size_t *count)
{
    return gm_nvml_supported_clocks(c->nvml, index, out, count);
}

int gm_collector_nvml_retired_pages(struct gm_collector *c, uint32_t index,
                                    struct gm_retired_page **out, size_t *count)
{
    return gm_nvml_retired_pages(c->nvml, index, out, count);
}

int gm_collector_nvml_accounted(struct gm_collector *c, uint32_t index, struct gm_accounted **out,
                                size_t *count)
{
    return gm_nvml_accounted(c->nvml, index, out, count);
}

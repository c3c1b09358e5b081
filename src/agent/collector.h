/* collector.h -- one sample of everything: NVML values, processes and their
 * /proc enrichment, in a snapshot.  Used by the one-shot commands and the
 * live views; the agent's sampler thread wraps the same calls.
 *
 * A hung NVML call (a wedged driver) must not hang a command forever: with a
 * timeout, the sample runs on a worker thread and the caller gives up after
 * the timeout, learning which NVML function on which GPU did not return.
 */
#ifndef GM_AGENT_COLLECTOR_H
#define GM_AGENT_COLLECTOR_H

#include <stdint.h>

#include "../core/err.h"
#include "../core/log.h"
#include "../core/rgset.h"
#include "../core/snapshot.h"

struct gm_collector;

struct gm_collector_opts {
    const char *lib_path;   /* NULL: $GPUMON_NVML_LIB or libnvidia-ml.so.1 */
    struct gm_rgset groups; /* read groups (empty = the default set) */
    unsigned nvml_flags;    /* GM_NVML_GPM_PRIME, GM_NVML_NVLINK_LINKS (source/nvml.h) */
    int64_t slow_ns;        /* the slow read groups' period (gm_nvml_set_cadence); 0: every
                               sample */
    int procs;              /* list GPU processes */
    int procfs;             /* enrich them from /proc */
    const char *proc_root;  /* NULL = "/proc" */
    /* Read the host side of each GPU process (source/hostside.h: CPU,
     * workers, I/O wait, pressure) under host_root; NULL: $GPUMON_HOST_ROOT
     * when set (the simulator's host view as files, tests), else the real
     * one -- and then, on the simulator, its simulated processes' host side
     * from its gpusimHostRead() (gm_hostside_set_sim). */
    int hostside;
    const char *host_root;
    /* The job-mapping directory (source/jobmap.h), read on every sample;
     * NULL or "": none.  Its warnings go to log (NULL: dropped). */
    const char *job_map_dir;
    gm_log_fn log;
    void *log_arg;
};

/* Opens NVML.  Returns 0, or the gm_nvml_open error (GM_E_NOLIB,
 * GM_E_DRIVER) with *out still valid: samples then report the driver state
 * and retry init with backoff. */
int gm_collector_open(struct gm_collector **out, const struct gm_collector_opts *o,
                      struct gm_err *err);

/* Clears s and fills it.  timeout_ns <= 0 waits forever.  On timeout returns
 * GM_E_TIMEOUT with err naming the NVML call still in progress; the collector
 * is then wedged and must be abandoned with gm_collector_abandon(). */
int gm_collector_sample(struct gm_collector *c, struct gm_snapshot *s, int64_t timeout_ns,
                        struct gm_err *err);

void gm_collector_close(struct gm_collector *c);

/* gm_nvml_samples through the collector (NVML's sample buffers of one GPU,
 * for `diagnose`).  Call only between samples, from the thread that calls
 * gm_collector_sample. */
struct gm_nvml_sample;
int gm_collector_nvml_samples(struct gm_collector *c, uint32_t index, int type, uint64_t since_us,
                              struct gm_nvml_sample *out, size_t cap, size_t *count);

/* gm_nvml_topo through the collector (`gpumon topo -m`), for the first
 * ngpu GPUs.  Same calling rule as gm_collector_nvml_samples. */
struct gm_topo;
void gm_collector_nvml_topo(struct gm_collector *c, uint32_t ngpu, struct gm_topo *t);

/* gm_nvml_supported_clocks through the collector (query
 * --query-supported-clocks).  Same calling rule as gm_collector_nvml_samples. */
struct gm_clock_pair;
int gm_collector_nvml_supported_clocks(struct gm_collector *c, uint32_t index,
                                       struct gm_clock_pair **out, size_t *count);

/* gm_nvml_retired_pages through the collector (query --query-retired-pages). */
struct gm_retired_page;
int gm_collector_nvml_retired_pages(struct gm_collector *c, uint32_t index,
                                    struct gm_retired_page **out, size_t *count);

/* gm_nvml_accounted through the collector (query --query-accounted-apps). */
struct gm_accounted;
int gm_collector_nvml_accounted(struct gm_collector *c, uint32_t index, struct gm_accounted **out,
                                size_t *count);

/* The NVML call in progress (see gm_nvml_current_call); thread-safe. */
const char *gm_collector_current_call(struct gm_collector *c, int *gpu);

/* Reconnect backoff after a driver failure (see gm_nvml_set_backoff). */
void gm_collector_set_backoff(struct gm_collector *c, int64_t min_ns, int64_t max_ns);

/* For a wedged collector: releases nothing that the stuck thread may touch. */
void gm_collector_abandon(struct gm_collector *c);

#endif /* GM_AGENT_COLLECTOR_H */

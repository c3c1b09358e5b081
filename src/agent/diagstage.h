/* diagstage.h -- the agent's running diagnosis (docs/diagnose.md, "In the
 * agent").
 *
 * The sampler hands each snapshot to gm_diagstage_inspect before any sink
 * sees it (gm_sampler_opts.inspect).  The stage feeds the snapshot to the
 * detectors (src/insight/), evaluates them over the last `window` every
 * `every`, and keeps per GPU the set of causes found:
 *
 *   - a cause begins the first evaluation that finds it, and ends after
 *     GM_DIAGSTAGE_END_MISSES evaluations in a row without it (a finding
 *     near a threshold does not flap);
 *   - each beginning and end is a GM_EV_DIAG event to every sink (the CSV
 *     events file, the store, the alerter) and one log line;
 *   - every snapshot carries the set (gpus[].diag, diag_known), which the
 *     exporter shows as gpumon_diagnosis_active and the alert rules read as
 *     diagnosis.<cause>.
 *
 * Until the window holds GM_DIAGSTAGE_MIN_SPAN of data (or half the window,
 * if shorter) nothing is known (diag_known 0): no verdict from too little.
 * While NVML is away the set is unknown too, and the findings stay as they
 * were until it is back.
 *
 * Runs on the sampler thread only; gm_diagstage_set may be called from any
 * thread (a reload).
 */
#ifndef GM_AGENT_DIAGSTAGE_H
#define GM_AGENT_DIAGSTAGE_H

#include <stdint.h>

#include "../core/snapshot.h"
#include "sampler.h"

#define GM_DIAGSTAGE_END_MISSES 3
#define GM_DIAGSTAGE_MIN_SPAN_NS 60000000000LL

struct gm_diagstage;

/* window_ns: how far back each evaluation looks; every_ns: how often it
 * runs (the sample that comes at or after each multiple). */
struct gm_diagstage *gm_diagstage_new(int enabled, int64_t window_ns, int64_t every_ns);
void gm_diagstage_free(struct gm_diagstage *ds);

/* New settings (a reload); the points already kept stay.  Turned off, the
 * active findings end ("diagnosis turned off") and nothing is known. */
void gm_diagstage_set(struct gm_diagstage *ds, int enabled, int64_t window_ns, int64_t every_ns);

/* The sampler's inspect hook (arg: the stage). */
void gm_diagstage_inspect(void *arg, struct gm_snapshot *s, const struct gm_sampler_emit *to);

/* Ends every active finding (the agent stops): an "ended" event for each,
 * sent through send(arg, e). */
void gm_diagstage_finish(struct gm_diagstage *ds, int64_t wall_ns,
                         void (*send)(void *arg, const struct gm_event *e), void *arg);

#endif /* GM_AGENT_DIAGSTAGE_H */

/* cause.h -- the causes the diagnosis names (src/insight/), as stable ids.
 *
 * The detectors (src/insight/) decide; everything that carries a finding
 * further -- the snapshot's active set, the agent's events, the exporter's
 * gpumon_diagnosis_active{cause=...}, the alert operand diagnosis.<cause>,
 * the store and the report -- needs only the id and its name, and finds
 * them here.  The names are a public interface (JSON, Prometheus labels,
 * alert rules): a name is never changed or reused; new causes go at the
 * end.  docs/diagnose.md explains each.
 */
#ifndef GM_CORE_CAUSE_H
#define GM_CORE_CAUSE_H

#include <stddef.h>

enum gm_cause {
    GM_CAUSE_INPUT_STARVED = 0, /* input-starved: bursts then idle (the data loader) */
    GM_CAUSE_THERMAL,           /* thermal-throttle */
    GM_CAUSE_POWER_CAPPED,      /* power-capped */
    GM_CAUSE_HW_SLOWDOWN,       /* hw-slowdown: HW slowdown / power brake, not thermal */
    GM_CAUSE_LOW_INTENSITY,     /* low-intensity: busy, low power, clocks at max */
    GM_CAUSE_MEMORY_BOUND,      /* memory-bound */
    GM_CAUSE_MEMORY_SQUATTED,   /* memory-squatted: memory held, no compute */
    GM_CAUSE_MEMORY_ORPHANED,   /* memory-orphaned: held by a process that is gone */
    GM_CAUSE_MEMORY_GROWTH,     /* memory-growth: a leak that would fill the card */
    GM_CAUSE_STRAGGLER,         /* straggler: load imbalance within one job */
    GM_CAUSE_EXCLUSIVE,         /* exclusive-blocking */
    GM_CAUSE_ECC_RISK,          /* ecc-risk */
    GM_CAUSE_TRANSFER_BOUND,    /* transfer-bound: host-to-device copies */
    GM_CAUSE_PCIE_DEGRADED,     /* pcie-degraded: link below its max under load */
    GM_CAUSE_CODEC_BOUND,       /* codec-bound: encoder or decoder */
    GM_CAUSE_APP_CLOCKS,        /* app-clocks: clocks held by application-clock settings */
    GM_CAUSE_GPU_LOST,          /* gpu-lost */
    GM_CAUSE__COUNT
};

/* A GM_EV_DIAG event's code: the cause, plus this when the finding ended
 * (the store's events table keeps the code; docs/store.md). */
#define GM_CAUSE_EV_ENDED 0x100

/* The cause's stable name ("input-starved"); "unknown" out of range. */
const char *gm_cause_name(int cause);

/* The id of the name s[0..len), or -1. */
int gm_cause_find(const char *s, size_t len);

#endif /* GM_CORE_CAUSE_H */

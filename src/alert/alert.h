/* alert.h -- an alert as the rule engine hands it to the notifiers.
 *
 * The engine (engine.c) evaluates rules on snapshots and, on every state
 * change that a person should hear about (firing, resolved, and repeats of
 * a long-firing alert), builds one struct gm_alert and gives a copy to the
 * notifier (notify.h).  The struct is plain data with fixed-size strings so
 * that it can be queued by value; nothing in it points anywhere.
 *
 * The JSON form (gm_alert_json) is the documented body of the alert log, of
 * the exec hook's stdin and of the default webhook (docs/alerts.md); the
 * Alertmanager client builds its own body from the same fields.
 */
#ifndef GM_ALERT_ALERT_H
#define GM_ALERT_ALERT_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/event.h" /* severities and states */

#define GM_ALERT_MAX_LABELS 8

struct gm_alert_label {
    char name[64];
    char value[128];
};

struct gm_alert {
    char rule[64];    /* the rule's name: [alert.NAME] */
    uint8_t severity; /* enum gm_alert_severity */
    uint8_t state;    /* GM_AL_FIRING or GM_AL_RESOLVED in a notice */
    uint8_t repeat;   /* 0: the first notice of this state; 1: a repeat notice of an
                         alert still firing; 2: a resync after a reload (notify.h) */
    int32_t gpu;      /* GPU index; -1 for a host-scope rule */
    char uuid[96];    /* GPU UUID, "" for host scope or when unknown */
    char gpu_name[96];
    char pci_bus_id[32];
    char job[128]; /* the job on the GPU when the alert fired (core/attrib.h: "slurm:42",
                      "pod:<uid>", ...; its first process that has one); "" none */
    char host[256];
    char summary[512];   /* the rule's summary template, expanded */
    char condition[256]; /* what the rule tests, as written ("temperature.gpu > 85") */
    char value_text[64]; /* the value that made it fire / the latest value, with unit;
                            "" when the condition is not a single value (an event) */
    double value;        /* the same number, when value_ok */
    int value_ok;
    /* How old value was at the evaluation that took it, in ms (core/value.h's
     * age_ms; as text: gm_alert_age_text, core/event.h): 0 for one read in
     * that sample, always so for a metric read every sample; up to the
     * agent's 10 s for a slow read group's (ECC, retired pages, row
     * remapping, PCIe link, NVLink, settings).  Meaningful with value_ok. */
    uint32_t value_age_ms;
    int64_t active_ns;    /* wall time (UTC ns) the condition first held */
    int64_t fired_ns;     /* wall time it started firing */
    int64_t resolved_ns;  /* wall time it resolved; 0 while firing */
    int64_t sent_ns;      /* wall time this notice was made */
    char fingerprint[17]; /* 16 hex digits, stable for (rule, gpu uuid or index, host) */
    int nlabels;
    struct gm_alert_label labels[GM_ALERT_MAX_LABELS]; /* the rule's extra labels */
};

/* Appends the alert as one JSON object (no newline).  Times are RFC 3339
 * with the host's offset and also unix milliseconds; absent values (host
 * scope, no value, not resolved yet) are null.  See docs/alerts.md,
 * "Notification formats". */
void gm_alert_json(const struct gm_alert *a, struct gm_buf *out);

#endif /* GM_ALERT_ALERT_H */

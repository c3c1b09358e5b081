/* event.h -- things that happen between samples and belong on the timeline:
 * user marks ("epoch 3 start"), driver and GPU state changes, Xid errors
 * and alerts.  Sinks record them beside the samples.
 */
#ifndef GM_CORE_EVENT_H
#define GM_CORE_EVENT_H

#include <stddef.h>
#include <stdint.h>

/* An alert's severity and state: alert/ evaluates them, events carry them,
 * the sinks record them by name (gm_alert_severity_name/state_name) without
 * knowing the alert engine. */
enum gm_alert_severity { GM_SEV_WARNING = 0, GM_SEV_CRITICAL = 1 };

/* Per rule and GPU (or host): inactive -> pending -> firing -> resolved
 * (resolved is inactive again, remembered for the notice). */
enum gm_alert_state {
    GM_AL_INACTIVE = 0,
    GM_AL_PENDING = 1,
    GM_AL_FIRING = 2,
    GM_AL_RESOLVED = 3,
};

/* An alert pending or firing now, as the alerter lists it for the agent's
 * live page (GET /api/v1/alerts and the page at /): a copy, so the reader
 * holds no lock of the engine.  Text fields are cut to their size; uuid and
 * name are the GPU's and come from outside (escape them on output). */
struct gm_alert_now {
    char rule[64];
    uint8_t severity;       /* enum gm_alert_severity */
    uint8_t state;          /* GM_AL_PENDING or GM_AL_FIRING */
    int gpu;                /* NVML index, -1 for a host rule */
    char uuid[96];          /* "" when none */
    char name[96];          /* the GPU's name, "" when none */
    char condition[256];    /* the rule's condition as written */
    char value[64];         /* the value that made it true, as text */
    int value_ok;           /* the value is a number (else an event, or unknown) */
    uint32_t value_age_ms;  /* how old it was when the rule took it (alert.h); with value_ok */
    int64_t active_wall_ns; /* when the condition became true */
    int64_t firing_wall_ns; /* when it started firing; 0 while pending */
    uint32_t samples;       /* samples the condition has held */
};

/* The longest mark, in bytes of text: `gpumon mark` refuses a longer one
 * before sending it, and so does the agent (docs/gpumon.1, README). */
#define GM_MARK_MAX 4096

enum gm_event_type {
    GM_EV_MARK = 0, /* `gpumon mark TEXT` */
    GM_EV_DRIVER,   /* the driver state changed (text: new state and message) */
    GM_EV_GPU,      /* a GPU's state changed: lost, back, no permission */
    GM_EV_XID,      /* an XID error reported by NVML (code = Xid) */
    GM_EV_AGENT,    /* agent lifecycle: started, stopped, config reloaded */
    GM_EV_ALERT,    /* an alert fired, repeated or resolved (the alert fields below) */
    GM_EV_DIAG,     /* a diagnosis finding began or ended (code = enum gm_cause, core/cause.h;
                       state GM_AL_FIRING or GM_AL_RESOLVED; severity; text: the evidence) */
};

struct gm_event {
    uint8_t type;               /* enum gm_event_type */
    int32_t gpu;                /* GPU index, or -1 when not about one GPU */
    int64_t wall_ns;            /* when it happened (UTC ns) */
    int64_t code;               /* type-specific: Xid number, NVML return code, ... */
    char task[64];              /* task the mark belongs to; "" = the agent's task */
    char uuid[96];              /* GPU UUID when known */
    char text[GM_MARK_MAX + 1]; /* human text, UTF-8 (an alert's summary, a whole mark) */
    /* GM_EV_ALERT (all) and GM_EV_DIAG (severity, state) */
    char rule[64];
    uint8_t severity; /* enum gm_alert_severity */
    uint8_t state;    /* GM_AL_FIRING or GM_AL_RESOLVED */
    uint8_t repeat;   /* a repeat notice of an alert still firing */
    char value[64];   /* the value, as shown */
    /* GM_EV_ALERT: whether value is a number, and how old it was when the
     * rule took it (alert/alert.h, value_age_ms) */
    uint8_t value_ok;
    uint32_t value_age_ms;
    char fingerprint[17];
    int64_t active_ns;    /* wall time the condition first held */
    int64_t fired_ns;     /* wall time it started firing */
    uint16_t summary_off; /* where the summary starts in text (after "firing RULE (severity): ") */
};

const char *gm_event_type_name(enum gm_event_type t);

/* "warning", "critical"; "unknown" for any other value. */
const char *gm_alert_severity_name(int severity);
/* "inactive", "pending", "firing", "resolved"; "unknown" for any other value. */
const char *gm_alert_state_name(int state);

/* " (read 7.5s ago)": how old an alert's value was when its rule took it
 * (struct gm_alert's value_age_ms; tenths of a second, rounded up); "" for
 * a value read in that sample (0).  out always gets a string. */
void gm_alert_age_text(uint32_t age_ms, char *out, size_t len);

#endif /* GM_CORE_EVENT_H */

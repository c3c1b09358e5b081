/* event.c -- names of event types, alert severities and states, and an alert
 * value's age as text (see event.h). */
#include "event.h"

#include <stdio.h>

const char *gm_event_type_name(enum gm_event_type t)
{
    switch (t) {
    case GM_EV_MARK:
        return "mark";
    case GM_EV_DRIVER:
        return "driver";
    case GM_EV_GPU:
        return "gpu";
    case GM_EV_XID:
        return "xid";
    case GM_EV_AGENT:
        return "agent";
    case GM_EV_ALERT:
        return "alert";
    case GM_EV_DIAG:
        return "diagnosis";
    }
    return "unknown";
}

const char *gm_alert_severity_name(int severity)
{
    switch (severity) {
    case GM_SEV_WARNING:
        return "warning";
    case GM_SEV_CRITICAL:
        return "critical";
    default:
        return "unknown";
    }
}

const char *gm_alert_state_name(int state)
{
    switch (state) {
    case GM_AL_INACTIVE:
        return "inactive";
    case GM_AL_PENDING:
        return "pending";
    case GM_AL_FIRING:
        return "firing";
    case GM_AL_RESOLVED:
        return "resolved";
    default:
        return "unknown";
    }
}

void gm_alert_age_text(uint32_t age_ms, char *out, size_t len)
{
    if (!len)
        return;
    out[0] = '\0';
    if (!age_ms)
        return;
    /* tenths of a second, rounded up: a value 40 ms old is not "0s" old */
    uint32_t t = age_ms / 100 + (age_ms % 100 != 0);
    if (t % 10)
        snprintf(out, len, " (read %u.%us ago)", t / 10, t % 10);
    else
        snprintf(out, len, " (read %us ago)", t / 10);
}

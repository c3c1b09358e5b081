/* event.c -- names of event types, alert severities and states (see event.h). */
#include "event.h"

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

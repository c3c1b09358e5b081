/* event.c -- names of event types (see event.h). */
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
    }
    return "unknown";
}

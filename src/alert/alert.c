/* alert.c -- names and the JSON form of an alert notice (see alert.h).
 *
 * The JSON object is what the alert log stores one per line, what an exec
 * hook reads on stdin and what a webhook without a body template receives;
 * docs/alerts.md ("Notification formats") documents it field by field.  It
 * leaves out nothing the struct holds, spells absence as null, and gives
 * every time twice: RFC 3339 with the host's offset for people, unix
 * milliseconds for programs.
 */
#include "alert.h"

#include <stdio.h>
#include <string.h>

#include "../core/err.h"
#include "../core/json.h"
#include "../core/timeutil.h"

/* The struct's strings are fixed arrays filled by another module: never
 * read past one, even if it lacks its NUL. */
#define FIELD(j, s) gm_json_strn((j), (s), strnlen((s), sizeof(s)))

/* A string field, null when empty. */
static void str_or_null(struct gm_json *j, const char *key, const char *s, size_t size)
{
    gm_json_key(j, key);
    if (s[0])
        gm_json_strn(j, s, strnlen(s, size));
    else
        gm_json_null(j);
}
#define STR_OR_NULL(j, key, s) str_or_null((j), (key), (s), sizeof(s))

/* "<key>": RFC 3339 and "<key>_unix_ms", both null for 0 (not happened). */
static void time_pair(struct gm_json *j, const char *key, int64_t ns)
{
    char t[64], k[64];
    gm_json_key(j, key);
    gm_json_str(j, ns ? gm_time_iso(ns, t, sizeof(t)) : NULL);
    snprintf(k, sizeof(k), "%s_unix_ms", key);
    gm_json_key(j, k);
    if (ns) {
        /* floor, so that the two spellings name the same millisecond */
        int64_t ms = ns / 1000000;
        if (ns < 0 && ns % 1000000)
            ms--;
        gm_json_i64(j, ms);
    } else {
        gm_json_null(j);
    }
}

void gm_alert_json(const struct gm_alert *a, struct gm_buf *out)
{
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "rule");
    FIELD(&j, a->rule);
    gm_json_key(&j, "state");
    gm_json_str(&j, gm_alert_state_name(a->state));
    gm_json_key(&j, "severity");
    gm_json_str(&j, gm_alert_severity_name(a->severity));
    gm_json_key(&j, "repeat");
    gm_json_bool(&j, a->repeat != 0);
    gm_json_key(&j, "host");
    FIELD(&j, a->host);
    gm_json_key(&j, "gpu");
    if (a->gpu >= 0)
        gm_json_i64(&j, a->gpu);
    else
        gm_json_null(&j);
    STR_OR_NULL(&j, "uuid", a->uuid);
    STR_OR_NULL(&j, "gpu_name", a->gpu_name);
    STR_OR_NULL(&j, "pci_bus_id", a->pci_bus_id);
    STR_OR_NULL(&j, "job_id", a->job);
    gm_json_key(&j, "summary");
    FIELD(&j, a->summary);
    gm_json_key(&j, "condition");
    FIELD(&j, a->condition);
    gm_json_key(&j, "value");
    if (a->value_ok)
        gm_json_f64(&j, a->value, -1);
    else
        gm_json_null(&j);
    STR_OR_NULL(&j, "value_text", a->value_text);
    gm_json_key(&j, "value_age_seconds");
    if (a->value_ok)
        gm_json_f64(&j, a->value_age_ms / 1000.0, 3);
    else
        gm_json_null(&j);
    time_pair(&j, "active_at", a->active_ns);
    time_pair(&j, "fired_at", a->fired_ns);
    time_pair(&j, "resolved_at", a->resolved_ns);
    time_pair(&j, "sent_at", a->sent_ns);
    gm_json_key(&j, "fingerprint");
    FIELD(&j, a->fingerprint);
    gm_json_key(&j, "labels");
    gm_json_obj_begin(&j);
    int n = a->nlabels < 0                     ? 0
            : a->nlabels > GM_ALERT_MAX_LABELS ? GM_ALERT_MAX_LABELS
                                               : a->nlabels;
    for (int i = 0; i < n; i++) {
        if (!a->labels[i].name[0])
            continue;
        char name[sizeof(a->labels[i].name)];
        gm_strlcpy(name, a->labels[i].name, sizeof(name));
        gm_json_key(&j, name);
        FIELD(&j, a->labels[i].value);
    }
    gm_json_obj_end(&j);
    gm_json_obj_end(&j);
}

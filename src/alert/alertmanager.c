/* alertmanager.c -- the body and URL of Alertmanager's v2 API.
 *
 * POST /api/v2/alerts takes a JSON array of
 *   {"labels":{...},"annotations":{...},"startsAt":T,"endsAt":T}
 * and Alertmanager identifies an alert by its label set, so the labels are
 * the alert's identity (rule, host, GPU) and nothing that changes while it
 * fires; the summary, condition and value go into annotations.  The label
 * names follow gpumon's exporter (gpu, uuid, name for the GPU's model,
 * hostname), so routes, inhibitions and silences written for the
 * Prometheus-evaluated rules in contrib/prometheus apply to these too.
 * The channel's worker (notify.c) keeps the set of firing alerts and
 * re-sends it; this file only builds what goes on the wire.
 */
#include <stdio.h>
#include <string.h>

#include "../core/json.h"
#include "../core/timeutil.h"
#include "notify_impl.h"

#define AM_PATH "/api/v2/alerts"

int gm_am_url(const char *url, char *out, size_t len)
{
    size_t n = strlen(url);
    size_t pl = strlen(AM_PATH);
    if (n >= pl && strcmp(url + n - pl, AM_PATH) == 0) {
        if (n >= len)
            return GM_E_INVAL;
        gm_strlcpy(out, url, len);
        return 0;
    }
    while (n > 0 && url[n - 1] == '/')
        n--;
    if (n + pl >= len)
        return GM_E_INVAL;
    snprintf(out, len, "%.*s%s", (int)n, url, AM_PATH);
    return 0;
}

/* Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]*, and not reserved (__*).
 * Alertmanager refuses the whole POST for one bad name, so bad ones are
 * left out instead. */
static int label_ok(const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9') || (s[0] == '_' && s[1] == '_'))
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return 0;
    return 1;
}

/* An empty label value is the same as no label to Alertmanager: skip it. */
static void label(struct gm_json *j, const char *name, const char *value, size_t size)
{
    size_t n = strnlen(value, size);
    if (!n)
        return;
    gm_json_key(j, name);
    gm_json_strn(j, value, n);
}
#define LABEL(j, name, s) label((j), (name), (s), sizeof(s))

static void one(struct gm_json *j, const struct gm_alert *a, int64_t now_ns, int64_t resend_ns)
{
    char t[64], gpu[16];
    gm_json_obj_begin(j);
    gm_json_key(j, "labels");
    gm_json_obj_begin(j);
    LABEL(j, "alertname", a->rule);
    /* the rule's own labels may override the built-in ones, but not the
     * alert's name; a label the rule also sets is written once */
    const char *sev = gm_alert_severity_name(a->severity);
    int n = a->nlabels < 0                     ? 0
            : a->nlabels > GM_ALERT_MAX_LABELS ? GM_ALERT_MAX_LABELS
                                               : a->nlabels;
    char names[GM_ALERT_MAX_LABELS][sizeof(a->labels[0].name)];
    for (int i = 0; i < n; i++)
        gm_strlcpy(names[i], a->labels[i].name, sizeof(names[i]));
    struct {
        const char *name, *value;
        size_t size;
    } b[] = {
        {"severity", sev, strlen(sev) + 1},     {"instance", a->host, sizeof(a->host)},
        {"hostname", a->host, sizeof(a->host)}, {"gpu", gpu, sizeof(gpu)},
        {"uuid", a->uuid, sizeof(a->uuid)},     {"name", a->gpu_name, sizeof(a->gpu_name)},
        {"job_id", a->job, sizeof(a->job)},
    };
    if (a->gpu >= 0)
        snprintf(gpu, sizeof(gpu), "%d", (int)a->gpu);
    else
        gpu[0] = '\0';
    for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
        int overridden = 0;
        for (int i = 0; i < n; i++)
            overridden |= strcmp(names[i], b[k].name) == 0;
        if (!overridden)
            label(j, b[k].name, b[k].value, b[k].size);
    }
    for (int i = 0; i < n; i++) {
        if (!label_ok(names[i]) || strcmp(names[i], "alertname") == 0)
            continue;
        int dup = 0; /* the first of two labels with one name wins */
        for (int k = 0; k < i; k++)
            dup |= strcmp(names[k], names[i]) == 0;
        if (!dup)
            LABEL(j, names[i], a->labels[i].value);
    }
    gm_json_obj_end(j);

    gm_json_key(j, "annotations");
    gm_json_obj_begin(j);
    LABEL(j, "summary", a->summary);
    LABEL(j, "condition", a->condition);
    if (a->value_text[0]) {
        LABEL(j, "value", a->value_text);
    } else if (a->value_ok) {
        struct gm_buf v = GM_BUF_INIT;
        gm_tpl_field("value_number", 12, a, &v);
        gm_json_key(j, "value");
        gm_json_str(j, v.p);
        gm_buf_free(&v);
    }
    /* how old the value was, when it was not read in that sample: a slow read
     * group's (ECC, PCIe link, NVLink, settings) may be up to 10 s old */
    if (a->value_ok && a->value_age_ms) {
        struct gm_buf v = GM_BUF_INIT;
        gm_tpl_field("value_age_seconds", 17, a, &v);
        gm_json_key(j, "value_age_seconds");
        gm_json_str(j, v.p);
        gm_buf_free(&v);
    }
    gm_json_obj_end(j);

    gm_json_key(j, "startsAt");
    int64_t starts = a->fired_ns ? a->fired_ns : a->active_ns ? a->active_ns : now_ns;
    gm_json_str(j, gm_time_iso(starts, t, sizeof(t)));
    gm_json_key(j, "endsAt");
    int64_t ends =
        a->state == GM_AL_RESOLVED && a->resolved_ns ? a->resolved_ns : now_ns + 4 * resend_ns;
    /* Alertmanager refuses the whole POST (400) when one alert ends before
     * it starts: same-millisecond times or a wall clock that stepped back */
    if (ends < starts + 1000000)
        ends = starts + 1000000;
    gm_json_str(j, gm_time_iso(ends, t, sizeof(t)));
    gm_json_obj_end(j);
}

void gm_am_body(const struct gm_alert *const *alerts, int n, int64_t now_ns, int64_t resend_ns,
                struct gm_buf *out)
{
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_arr_begin(&j);
    for (int i = 0; i < n; i++)
        one(&j, alerts[i], now_ns, resend_ns);
    gm_json_arr_end(&j);
}

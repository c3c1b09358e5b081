/* template.c -- an alert's fields as text: the {{placeholders}} of webhook
 * body templates and the GPUMON_ALERT_* environment of exec hooks.
 *
 * One table names every field once, so a template placeholder and the
 * hook's variable always agree ({{fired_at}} is GPUMON_ALERT_FIRED_AT).
 * Placeholders are {{name}} (blanks inside allowed); {{label.NAME}} is one
 * of the rule's extra labels ("" when the rule has none of that name), and
 * {{json}} is the whole alert as JSON (gm_alert_json).  There is no escape
 * for a literal "{{": no chat-bot body needs one.  Substituted text is
 * escaped for the body's content type (JSON string, form encoding) so that
 * a summary with quotes or newlines cannot break the body; {{json}} is a
 * JSON value itself and goes in unquoted.  Any other content type gets each
 * value as it is but valid UTF-8 (gm_text_utf8: a bad byte as U+FFFD); the
 * hook's variables are one line of valid UTF-8 each (gm_text_line: control
 * characters as U+FFFD too), as scripts echo them into logs.  A GPU name is
 * text from outside (core/text.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "notify_impl.h"

extern char **environ;

/* Appends a fixed-size string field without reading past its end. */
static void put_field(struct gm_buf *out, const char *s, size_t size)
{
    gm_buf_put(out, s, strnlen(s, size));
}
#define PUT(out, s) put_field((out), (s), sizeof(s))

static void put_time(struct gm_buf *out, int64_t ns)
{
    char t[64];
    if (ns)
        gm_buf_puts(out, gm_time_iso(ns, t, sizeof(t)));
}

static void put_ms(struct gm_buf *out, int64_t ns)
{
    if (!ns)
        return;
    int64_t ms = ns / 1000000;
    if (ns < 0 && ns % 1000000)
        ms--;
    gm_buf_printf(out, "%lld", (long long)ms);
}

/* The shortest text that reads back as the same double, as in the JSON. */
static void put_number(struct gm_buf *out, double v)
{
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_f64(&j, v, -1);
}

static void f_rule(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->rule);
}
static void f_state(const struct gm_alert *a, struct gm_buf *o)
{
    gm_buf_puts(o, gm_alert_state_name(a->state));
}
static void f_severity(const struct gm_alert *a, struct gm_buf *o)
{
    gm_buf_puts(o, gm_alert_severity_name(a->severity));
}
static void f_repeat(const struct gm_alert *a, struct gm_buf *o)
{
    gm_buf_puts(o, a->repeat ? "true" : "false");
}
static void f_host(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->host);
}
static void f_gpu(const struct gm_alert *a, struct gm_buf *o)
{
    if (a->gpu >= 0)
        gm_buf_printf(o, "%d", (int)a->gpu);
}
static void f_target(const struct gm_alert *a, struct gm_buf *o)
{
    if (a->gpu >= 0)
        gm_buf_printf(o, "GPU %d", (int)a->gpu);
    else
        gm_buf_puts(o, "host");
}
static void f_uuid(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->uuid);
}
static void f_gpu_name(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->gpu_name);
}
static void f_pci_bus_id(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->pci_bus_id);
}
static void f_job_id(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->job);
}
static void f_summary(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->summary);
}
static void f_condition(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->condition);
}
static void f_value(const struct gm_alert *a, struct gm_buf *o)
{
    if (a->value_text[0])
        PUT(o, a->value_text);
    else if (a->value_ok)
        put_number(o, a->value);
}
static void f_value_number(const struct gm_alert *a, struct gm_buf *o)
{
    if (a->value_ok)
        put_number(o, a->value);
}
static void f_value_age(const struct gm_alert *a, struct gm_buf *o)
{
    if (!a->value_ok)
        return;
    struct gm_json j;
    gm_json_init(&j, o, 0);
    gm_json_f64(&j, a->value_age_ms / 1000.0, 3);
}
static void f_active_at(const struct gm_alert *a, struct gm_buf *o)
{
    put_time(o, a->active_ns);
}
static void f_active_ms(const struct gm_alert *a, struct gm_buf *o)
{
    put_ms(o, a->active_ns);
}
static void f_fired_at(const struct gm_alert *a, struct gm_buf *o)
{
    put_time(o, a->fired_ns);
}
static void f_fired_ms(const struct gm_alert *a, struct gm_buf *o)
{
    put_ms(o, a->fired_ns);
}
static void f_resolved_at(const struct gm_alert *a, struct gm_buf *o)
{
    put_time(o, a->resolved_ns);
}
static void f_resolved_ms(const struct gm_alert *a, struct gm_buf *o)
{
    put_ms(o, a->resolved_ns);
}
static void f_sent_at(const struct gm_alert *a, struct gm_buf *o)
{
    put_time(o, a->sent_ns);
}
static void f_sent_ms(const struct gm_alert *a, struct gm_buf *o)
{
    put_ms(o, a->sent_ns);
}
static void f_fingerprint(const struct gm_alert *a, struct gm_buf *o)
{
    PUT(o, a->fingerprint);
}
static void f_json(const struct gm_alert *a, struct gm_buf *o)
{
    gm_alert_json(a, o);
}

struct field {
    const char *name; /* the placeholder */
    const char *env;  /* GPUMON_ALERT_<env>; NULL: template only */
    void (*get)(const struct gm_alert *a, struct gm_buf *out);
};

static const struct field fields[] = {
    {"rule", "RULE", f_rule},
    {"state", "STATE", f_state},
    {"severity", "SEVERITY", f_severity},
    {"repeat", "REPEAT", f_repeat},
    {"host", "HOST", f_host},
    {"gpu", "GPU", f_gpu},
    {"target", "TARGET", f_target},
    {"uuid", "UUID", f_uuid},
    {"gpu_name", "GPU_NAME", f_gpu_name},
    {"pci_bus_id", "PCI_BUS_ID", f_pci_bus_id},
    {"job_id", "JOB_ID", f_job_id},
    {"summary", "SUMMARY", f_summary},
    {"condition", "CONDITION", f_condition},
    {"value", "VALUE", f_value},
    {"value_number", "VALUE_NUMBER", f_value_number},
    {"value_age_seconds", "VALUE_AGE_SECONDS", f_value_age},
    {"active_at", "ACTIVE_AT", f_active_at},
    {"active_at_unix_ms", "ACTIVE_AT_UNIX_MS", f_active_ms},
    {"fired_at", "FIRED_AT", f_fired_at},
    {"fired_at_unix_ms", "FIRED_AT_UNIX_MS", f_fired_ms},
    {"resolved_at", "RESOLVED_AT", f_resolved_at},
    {"resolved_at_unix_ms", "RESOLVED_AT_UNIX_MS", f_resolved_ms},
    {"sent_at", "SENT_AT", f_sent_at},
    {"sent_at_unix_ms", "SENT_AT_UNIX_MS", f_sent_ms},
    {"fingerprint", "FINGERPRINT", f_fingerprint},
    {"json", NULL, f_json},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int label_name_ok(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

int gm_tpl_field(const char *name, size_t len, const struct gm_alert *a, struct gm_buf *out)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strlen(fields[i].name) == len && memcmp(fields[i].name, name, len) == 0) {
            fields[i].get(a, out);
            return 0;
        }
    if (len > 6 && memcmp(name, "label.", 6) == 0 && label_name_ok(name + 6, len - 6)) {
        const char *ln = name + 6;
        size_t ll = len - 6;
        int n = a->nlabels > GM_ALERT_MAX_LABELS ? GM_ALERT_MAX_LABELS : a->nlabels;
        for (int i = 0; i < n; i++)
            if (strnlen(a->labels[i].name, sizeof(a->labels[i].name)) == ll &&
                memcmp(a->labels[i].name, ln, ll) == 0) {
                PUT(out, a->labels[i].value);
                break;
            }
        return 0;
    }
    return -1;
}

static char names_text[512];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_init(void)
{
    size_t off = 0;
    for (size_t i = 0; i < NFIELDS && off < sizeof(names_text); i++) {
        int n = snprintf(names_text + off, sizeof(names_text) - off, "%s%s", i ? ", " : "",
                         fields[i].name);
        if (n < 0)
            break;
        off += (size_t)n;
    }
    if (off < sizeof(names_text))
        snprintf(names_text + off, sizeof(names_text) - off, ", label.NAME");
}

const char *gm_tpl_names(void)
{
    pthread_once(&names_once, names_init);
    return names_text;
}

int gm_tpl_escape_for(const char *ct)
{
    /* media types are case-insensitive; "json" anywhere covers
     * application/json, application/vnd.foo+json, text/json */
    for (const char *p = ct; *p; p++)
        if (strncasecmp(p, "json", 4) == 0)
            return GM_TPL_JSON;
    size_t n = strcspn(ct, "; ");
    if (n == strlen("application/x-www-form-urlencoded") &&
        strncasecmp(ct, "application/x-www-form-urlencoded", n) == 0)
        return GM_TPL_FORM;
    return GM_TPL_RAW;
}

/* Finds the next placeholder at or after p: *open at "{{", the name
 * trimmed of blanks in [*name, *name + *nlen), *end after "}}".  Returns 0
 * when there is none, 1 when found, -1 when "{{" is not closed. */
static int next_placeholder(const char *p, const char **open, const char **name, size_t *nlen,
                            const char **end)
{
    const char *o = strstr(p, "{{");
    if (!o)
        return 0;
    const char *c = strstr(o + 2, "}}");
    if (!c) {
        *open = o;
        return -1;
    }
    const char *s = o + 2, *e = c;
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *open = o;
    *name = s;
    *nlen = (size_t)(e - s);
    *end = c + 2;
    return 1;
}

int gm_tpl_check(const char *tpl, char *why, size_t wlen)
{
    static const struct gm_alert probe; /* all fields empty: only the name matters */
    const char *p = tpl, *open, *name, *end;
    size_t nlen;
    int r;
    struct gm_buf scratch = GM_BUF_INIT;
    while ((r = next_placeholder(p, &open, &name, &nlen, &end)) != 0) {
        if (r < 0) {
            snprintf(why, wlen, "unterminated placeholder \"%.24s\" (placeholders are {{name}})",
                     open);
            gm_buf_free(&scratch);
            return GM_E_INVAL;
        }
        gm_buf_reset(&scratch);
        if (gm_tpl_field(name, nlen, &probe, &scratch) != 0) {
            snprintf(why, wlen, "unknown placeholder {{%.*s}} (known: %s)",
                     (int)(nlen > 64 ? 64 : nlen), name, gm_tpl_names());
            gm_buf_free(&scratch);
            return GM_E_INVAL;
        }
        p = end;
    }
    gm_buf_free(&scratch);
    return 0;
}

static void put_escaped(struct gm_buf *out, const char *s, size_t n, int escape)
{
    if (escape == GM_TPL_JSON) {
        gm_json_escape(out, s, n);
    } else if (escape == GM_TPL_FORM) {
        /* the bytes of valid UTF-8 (a bad byte as U+FFFD), percent-encoded */
        static const char hex[] = "0123456789ABCDEF";
        struct gm_buf u = GM_BUF_INIT;
        gm_text_utf8(&u, s, n);
        for (size_t i = 0; i < u.len; i++) {
            unsigned char c = (unsigned char)u.p[i];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~') {
                gm_buf_putc(out, (char)c);
            } else {
                gm_buf_putc(out, '%');
                gm_buf_putc(out, hex[c >> 4]);
                gm_buf_putc(out, hex[c & 15]);
            }
        }
        gm_buf_free(&u);
    } else {
        gm_text_utf8(out, s, n); /* as it is, but valid UTF-8 */
    }
}

void gm_tpl_expand(const char *tpl, const struct gm_alert *a, int escape, struct gm_buf *out)
{
    const char *p = tpl, *open, *name, *end;
    size_t nlen;
    struct gm_buf v = GM_BUF_INIT;
    while (next_placeholder(p, &open, &name, &nlen, &end) == 1) {
        gm_buf_put(out, p, (size_t)(open - p));
        gm_buf_reset(&v);
        if (gm_tpl_field(name, nlen, a, &v) != 0) {
            gm_buf_put(out, open, (size_t)(end - open)); /* unchecked template: keep as written */
        } else if (nlen == 4 && memcmp(name, "json", 4) == 0 && escape != GM_TPL_FORM) {
            gm_buf_put(out, v.p, v.len); /* a JSON value, not text inside a string */
        } else {
            put_escaped(out, v.p ? v.p : "", v.len, escape);
        }
        p = end;
    }
    gm_buf_puts(out, p);
    gm_buf_free(&v);
}

/* ------------------------------------------------------------ environment */

static char *env_entry(const char *prefix, const char *name, const char *value, size_t vlen)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, prefix);
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            c = '_';
        gm_buf_putc(&b, c);
    }
    gm_buf_putc(&b, '=');
    gm_text_line(&b, value ? value : "", value ? vlen : 0); /* one line of valid UTF-8 */
    return b.p;                                             /* the caller frees it */
}

char **gm_alert_env(const struct gm_alert *a, const char *channel)
{
    size_t nenv = 0;
    for (char **e = environ; e && *e; e++)
        nenv++;
    size_t cap = nenv + NFIELDS + GM_ALERT_MAX_LABELS + 2;
    char **env = gm_xcalloc(cap, sizeof(char *));
    size_t k = 0;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "GPUMON_ALERT_", 13) != 0 && strncmp(*e, "GPUMON_NOTIFY_CHANNEL=", 22) != 0)
            env[k++] = gm_xstrdup(*e);
    struct gm_buf v = GM_BUF_INIT;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!fields[i].env)
            continue;
        gm_buf_reset(&v);
        fields[i].get(a, &v);
        env[k++] = env_entry("GPUMON_ALERT_", fields[i].env, v.p, v.len);
    }
    gm_buf_free(&v);
    int n = a->nlabels < 0                     ? 0
            : a->nlabels > GM_ALERT_MAX_LABELS ? GM_ALERT_MAX_LABELS
                                               : a->nlabels;
    for (int i = 0; i < n; i++) {
        char name[sizeof(a->labels[i].name)];
        gm_strlcpy(name, a->labels[i].name, sizeof(name));
        if (!name[0])
            continue;
        env[k++] = env_entry("GPUMON_ALERT_LABEL_", name, a->labels[i].value,
                             strnlen(a->labels[i].value, sizeof(a->labels[i].value)));
    }
    env[k++] = env_entry("GPUMON_NOTIFY_", "CHANNEL", channel, strlen(channel));
    env[k] = NULL;
    return env;
}

void gm_alert_env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

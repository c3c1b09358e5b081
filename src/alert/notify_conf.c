/* notify_conf.c -- the keys of a [notify.NAME] section (see notify.h).
 *
 * One table describes every key once: its name, the channel types that use
 * it, its default and its help line; set, check, dump and the generated
 * documentation all read it.  Errors are short reasons without a place:
 * the configuration loader knows the file and line and adds them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../core/timeutil.h"
#include "notify.h"
#include "notify_impl.h"

#define SEC 1000000000LL

enum key {
    K_TYPE,
    K_COMMAND,
    K_URL,
    K_BODY,
    K_BODY_FILE,
    K_CONTENT_TYPE,
    K_HEADER,
    K_CA_FILE,
    K_TIMEOUT,
    K_RETRIES,
    K_RESEND,
    K_MIN_SEVERITY,
    K_SEND_RESOLVED,
    NKEYS
};

_Static_assert(NKEYS <= sizeof(((struct gm_notify_conf *)0)->set) / sizeof(int),
               "gm_notify_conf.set has a slot per key");

#define T_EXEC (1u << GM_NT_EXEC)
#define T_HOOK (1u << GM_NT_WEBHOOK)
#define T_AM (1u << GM_NT_ALERTMANAGER)
#define T_ALL (T_EXEC | T_HOOK | T_AM)

struct key_doc {
    const char *name;
    unsigned types; /* T_* mask of the types that use it */
    const char *def;
    const char *arg;
    const char *help;
};

static const struct key_doc keys[NKEYS] = {
    [K_TYPE] = {"type", T_ALL, "", "TYPE",
                "`exec` (run a program), `webhook` (HTTP POST) or `alertmanager` (its v2 API); "
                "required"},
    [K_COMMAND] = {"command", T_EXEC, "", "ARGV",
                   "the program and its arguments, split like a shell splits words ('...', "
                   "\"...\", \\\\) but run without one; `PATH` is searched; required for exec"},
    [K_URL] = {"url", T_HOOK | T_AM, "", "URL",
               "`http://` or `https://`; for alertmanager its base URL "
               "(`http://am:9093`) or the full `.../api/v2/alerts`; required"},
    [K_BODY] = {"body", T_HOOK, "", "TEMPLATE",
                "the request body with `{{placeholders}}` (docs/alerts.md); empty: the alert's "
                "JSON"},
    [K_BODY_FILE] = {"body-file", T_HOOK, "", "PATH",
                     "read the body template from a file (for templates longer than a config "
                     "line)"},
    [K_CONTENT_TYPE] = {"content-type", T_HOOK, "application/json", "TYPE",
                        "the body's media type; with `json` in it placeholders are JSON-escaped, "
                        "with `application/x-www-form-urlencoded` percent-encoded"},
    [K_HEADER] = {"header", T_HOOK | T_AM, "", "\"NAME: VALUE\"",
                  "one extra request header, e.g. `Authorization: Bearer TOKEN`"},
    [K_CA_FILE] = {"ca-file", T_HOOK | T_AM, "", "PATH",
                   "PEM file of CAs trusted for https:// besides the system's (verification "
                   "is always on)"},
    [K_TIMEOUT] = {"timeout", T_ALL, "10s", "DURATION",
                   "one attempt: the whole HTTP request, or the hook's run until it is killed "
                   "(SIGTERM, SIGKILL 1 s later); 100ms to 10m"},
    [K_RETRIES] = {"retries", T_ALL, "3", "N",
                   "attempts after a failed one, 1 s, 2 s, 4 s ... apart (at most 60 s); 0 to "
                   "20"},
    [K_RESEND] = {"resend", T_AM, "1m", "DURATION",
                  "re-send the firing alerts this often (Alertmanager resolves an alert not "
                  "re-sent within 4 x resend); 1s to 24h"},
    [K_MIN_SEVERITY] = {"min-severity", T_ALL, "warning", "LEVEL",
                        "`warning` or `critical`: alerts below it are not sent here"},
    [K_SEND_RESOLVED] = {"send-resolved", T_ALL, "true", NULL,
                         "also notify when an alert resolves"},
};

static const char *const type_names[] = {"", "exec", "webhook", "alertmanager"};

void gm_notify_conf_init(struct gm_notify_conf *c, const char *name)
{
    memset(c, 0, sizeof(*c));
    gm_strlcpy(c->name, name ? name : "", sizeof(c->name));
    c->timeout_ns = 10 * SEC;
    c->retries = 3;
    c->resend_ns = 60 * SEC;
    c->min_severity = GM_SEV_WARNING;
    c->send_resolved = 1;
    gm_strlcpy(c->content_type, "application/json", sizeof(c->content_type));
}

static int has_ctl(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

static int url_ok(const char *v, char *why, size_t wlen)
{
    size_t skip = strncasecmp(v, "http://", 7) == 0    ? 7
                  : strncasecmp(v, "https://", 8) == 0 ? 8
                                                       : 0;
    if (!skip || !v[skip] || v[skip] == '/' || strpbrk(v, " \t") || has_ctl(v)) {
        snprintf(why, wlen, "invalid url \"%s\" (http://HOST[:PORT][/PATH] or https://...)", v);
        return GM_E_INVAL;
    }
    return 0;
}

/* "Name: value": an HTTP token, a colon, a value without line breaks. */
static int header_ok(const char *v, char *why, size_t wlen)
{
    size_t n = strspn(v, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (n == 0 || v[n] != ':' || has_ctl(v)) {
        snprintf(why, wlen, "invalid header \"%s\" (one \"Name: value\" line)", v);
        return GM_E_INVAL;
    }
    if ((n == 12 && strncasecmp(v, "Content-Type", n) == 0) ||
        (n == 14 && strncasecmp(v, "Content-Length", n) == 0)) {
        snprintf(why, wlen, "header %.*s is set by gpumon (use content-type for the type)", (int)n,
                 v);
        return GM_E_INVAL;
    }
    return 0;
}

static int duration(const char *v, int64_t min, int64_t max, const char *key, int64_t *out,
                    char *why, size_t wlen)
{
    int64_t ns;
    if (gm_parse_duration(v, &ns) != 0) {
        snprintf(why, wlen, "invalid duration \"%s\" (examples: 500ms, 10s, 1m)", v);
        return GM_E_INVAL;
    }
    if (ns < min || ns > max) {
        snprintf(why, wlen, "%s \"%s\" is out of range (%g s to %g s)", key, v, min / 1e9,
                 max / 1e9);
        return GM_E_INVAL;
    }
    *out = ns;
    return 0;
}

static int copy(char *dst, size_t size, const char *v, char *why, size_t wlen)
{
    if (strlen(v) >= size) {
        snprintf(why, wlen, "value too long (at most %zu bytes)", size - 1);
        return GM_E_INVAL;
    }
    gm_strlcpy(dst, v, size);
    return 0;
}

/* Reads a template file into c->body: at most sizeof(body) - 1 bytes, its
 * final line break dropped. */
static int read_body_file(struct gm_notify_conf *c, const char *path, char *why, size_t wlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, wlen, "body-file %s: %s", path, strerror(errno));
        return GM_E_INVAL;
    }
    char buf[sizeof(c->body) + 1];
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(why, wlen, "body-file %s: %s", path, strerror(errno));
            close(fd);
            return GM_E_INVAL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == sizeof(buf) - 1)
            break;
    }
    close(fd);
    if (n >= sizeof(c->body)) {
        snprintf(why, wlen, "body-file %s is larger than %zu bytes", path, sizeof(c->body) - 1);
        return GM_E_INVAL;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        snprintf(why, wlen, "body-file %s is not text (it holds a NUL byte)", path);
        return GM_E_INVAL;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    char twhy[400];
    if (gm_tpl_check(buf, twhy, sizeof(twhy)) != 0) {
        snprintf(why, wlen, "body-file %s: %s", path, twhy);
        return GM_E_INVAL;
    }
    gm_strlcpy(c->body, buf, sizeof(c->body));
    return 0;
}

int gm_notify_conf_set(struct gm_notify_conf *c, const char *key, const char *value, char *why,
                       size_t wlen)
{
    int k = -1;
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].name, key) == 0)
            k = i;
    if (k < 0) {
        snprintf(why, wlen,
                 "unknown key \"%s\" in [notify.%s] (keys: type, command, url, body, body-file, "
                 "content-type, header, ca-file, timeout, retries, resend, min-severity, "
                 "send-resolved)",
                 key, c->name);
        return GM_E_INVAL;
    }
    if (c->set[k]) {
        snprintf(why, wlen, "duplicate key \"%s\" in [notify.%s]", key, c->name);
        return GM_E_INVAL;
    }
    int rc = GM_E_INVAL;
    switch ((enum key)k) {
    case K_TYPE:
        for (int t = GM_NT_EXEC; t <= GM_NT_ALERTMANAGER; t++)
            if (strcmp(value, type_names[t]) == 0) {
                c->type = t;
                rc = 0;
            }
        if (rc)
            snprintf(why, wlen, "invalid type \"%s\" (one of: exec, webhook, alertmanager)", value);
        break;
    case K_COMMAND: {
        char **argv;
        if ((rc = copy(c->command, sizeof(c->command), value, why, wlen)) != 0)
            break;
        rc = gm_argv_split(value, &argv, why, wlen);
        if (rc > 0) {
            gm_argv_free(argv);
            rc = 0;
        }
        break;
    }
    case K_URL:
        if ((rc = url_ok(value, why, wlen)) == 0)
            rc = copy(c->url, sizeof(c->url), value, why, wlen);
        break;
    case K_BODY:
        if (c->set[K_BODY_FILE]) {
            snprintf(why, wlen, "body and body-file are exclusive");
            break;
        }
        if ((rc = gm_tpl_check(value, why, wlen)) == 0)
            rc = copy(c->body, sizeof(c->body), value, why, wlen);
        break;
    case K_BODY_FILE:
        if (c->set[K_BODY]) {
            snprintf(why, wlen, "body and body-file are exclusive");
            break;
        }
        if (!*value) {
            snprintf(why, wlen, "body-file is empty");
            break;
        }
        if ((rc = copy(c->body_file, sizeof(c->body_file), value, why, wlen)) == 0)
            rc = read_body_file(c, value, why, wlen);
        break;
    case K_CONTENT_TYPE:
        if (!*value || !strchr(value, '/') || has_ctl(value)) {
            snprintf(why, wlen, "invalid content-type \"%s\" (a media type: application/json)",
                     value);
            break;
        }
        rc = copy(c->content_type, sizeof(c->content_type), value, why, wlen);
        break;
    case K_HEADER:
        if ((rc = header_ok(value, why, wlen)) == 0)
            rc = copy(c->header, sizeof(c->header), value, why, wlen);
        break;
    case K_CA_FILE:
        if (!*value) {
            snprintf(why, wlen, "ca-file is empty");
            break;
        }
        rc = copy(c->ca_file, sizeof(c->ca_file), value, why, wlen);
        break;
    case K_TIMEOUT:
        rc = duration(value, SEC / 10, 600 * SEC, key, &c->timeout_ns, why, wlen);
        break;
    case K_RESEND:
        rc = duration(value, SEC, 86400 * SEC, key, &c->resend_ns, why, wlen);
        break;
    case K_RETRIES: {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (errno || end == value || *end || v < 0 || v > 20) {
            snprintf(why, wlen, "invalid number \"%s\" (0 to 20)", value);
            break;
        }
        c->retries = (unsigned)v;
        rc = 0;
        break;
    }
    case K_MIN_SEVERITY:
        if (strcmp(value, "warning") == 0 || strcmp(value, "critical") == 0) {
            c->min_severity = value[0] == 'c' ? GM_SEV_CRITICAL : GM_SEV_WARNING;
            rc = 0;
        } else {
            snprintf(why, wlen, "invalid value \"%s\" (one of: warning, critical)", value);
        }
        break;
    case K_SEND_RESOLVED:
        if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "on") ||
            !strcmp(value, "1")) {
            c->send_resolved = 1;
            rc = 0;
        } else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "off") ||
                   !strcmp(value, "0")) {
            c->send_resolved = 0;
            rc = 0;
        } else {
            snprintf(why, wlen, "invalid boolean \"%s\" (true or false)", value);
        }
        break;
    case NKEYS:
        break;
    }
    if (rc == 0)
        c->set[k] = 1;
    return rc;
}

int gm_notify_conf_check(const struct gm_notify_conf *c, char *why, size_t wlen)
{
    size_t nl = strnlen(c->name, sizeof(c->name));
    if (nl == 0 || nl == sizeof(c->name) ||
        strspn(c->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
            nl) {
        snprintf(why, wlen, "invalid channel name \"%.*s\" (1-%zu letters, digits, '.', '_', '-')",
                 (int)nl, c->name, sizeof(c->name) - 1);
        return GM_E_INVAL;
    }
    if (strcmp(c->name, "log") == 0) {
        snprintf(why, wlen, "the channel name \"log\" is taken by the alert log");
        return GM_E_INVAL;
    }
    if (c->type < GM_NT_EXEC || c->type > GM_NT_ALERTMANAGER) {
        snprintf(why, wlen, "type is missing (type = exec, webhook or alertmanager)");
        return GM_E_INVAL;
    }
    for (int k = 0; k < NKEYS; k++)
        if (c->set[k] && !(keys[k].types & (1u << c->type))) {
            snprintf(why, wlen, "%s is not used by type = %s", keys[k].name, type_names[c->type]);
            return GM_E_INVAL;
        }
    if (c->type == GM_NT_EXEC) {
        char **argv;
        if (!c->command[0]) {
            snprintf(why, wlen, "command is missing (type = exec runs it)");
            return GM_E_INVAL;
        }
        if (gm_argv_split(c->command, &argv, why, wlen) < 0)
            return GM_E_INVAL;
        gm_argv_free(argv);
        return 0;
    }
    if (!c->url[0]) {
        snprintf(why, wlen, "url is missing (type = %s posts to it)", type_names[c->type]);
        return GM_E_INVAL;
    }
    if (url_ok(c->url, why, wlen) != 0)
        return GM_E_INVAL;
    if (c->header[0] && header_ok(c->header, why, wlen) != 0)
        return GM_E_INVAL;
    if (c->body[0] && gm_tpl_check(c->body, why, wlen) != 0)
        return GM_E_INVAL;
    return 0;
}

static void duration_text(int64_t ns, char *buf, size_t len)
{
    if (ns >= 3600 * SEC && ns % (3600 * SEC) == 0)
        snprintf(buf, len, "%lldh", (long long)(ns / (3600 * SEC)));
    else if (ns >= 60 * SEC && ns % (60 * SEC) == 0)
        snprintf(buf, len, "%lldm", (long long)(ns / (60 * SEC)));
    else if (ns % SEC == 0)
        snprintf(buf, len, "%llds", (long long)(ns / SEC));
    else
        gm_duration_fine(ns, buf, len);
}

void gm_notify_conf_dump(const struct gm_notify_conf *c, struct gm_buf *out)
{
    unsigned t = c->type >= GM_NT_EXEC && c->type <= GM_NT_ALERTMANAGER ? 1u << c->type : T_ALL;
    char d[32];
    gm_buf_printf(out, "[notify.%s]\n", c->name);
    for (int k = 0; k < NKEYS; k++) {
        if (!(keys[k].types & t))
            continue;
        switch ((enum key)k) {
        case K_TYPE:
            gm_buf_printf(out, "type = %s\n",
                          type_names[c->type <= 3 && c->type >= 0 ? c->type : 0]);
            break;
        case K_COMMAND:
            gm_buf_ini_kv(out, "command", c->command);
            break;
        case K_URL:
            gm_buf_ini_kv(out, "url", c->url);
            break;
        case K_BODY:
            if (!c->body_file[0])
                gm_buf_ini_kv(out, "body", c->body);
            break;
        case K_BODY_FILE:
            if (c->body_file[0])
                gm_buf_ini_kv(out, "body-file", c->body_file);
            break;
        case K_CONTENT_TYPE:
            gm_buf_ini_kv(out, "content-type", c->content_type);
            break;
        case K_HEADER: /* optional, no default: "header =" would not read back */
            if (c->header[0])
                gm_buf_ini_kv(out, "header", c->header);
            break;
        case K_CA_FILE: /* likewise ("ca-file is empty") */
            if (c->ca_file[0])
                gm_buf_ini_kv(out, "ca-file", c->ca_file);
            break;
        case K_TIMEOUT:
            duration_text(c->timeout_ns, d, sizeof(d));
            gm_buf_printf(out, "timeout = %s\n", d);
            break;
        case K_RETRIES:
            gm_buf_printf(out, "retries = %u\n", c->retries);
            break;
        case K_RESEND:
            duration_text(c->resend_ns, d, sizeof(d));
            gm_buf_printf(out, "resend = %s\n", d);
            break;
        case K_MIN_SEVERITY:
            gm_buf_printf(out, "min-severity = %s\n", gm_alert_severity_name(c->min_severity));
            break;
        case K_SEND_RESOLVED:
            gm_buf_printf(out, "send-resolved = %s\n", c->send_resolved ? "true" : "false");
            break;
        case NKEYS:
            break;
        }
    }
}

void gm_notify_markdown(struct gm_buf *out)
{
    gm_buf_puts(out,
                "## [notify.NAME]\n\n"
                "Each `[notify.NAME]` section is one notification channel with its own queue, "
                "worker, retries and counters (NAME: letters, digits, `.`, `_`, `-`; `log` is "
                "taken by the alert log, `<data-dir>/alerts.jsonl`, which is always on). What "
                "each type sends (the JSON, the hook's environment, the template placeholders, "
                "the Alertmanager body) is in [alerts.md](alerts.md#notification-formats).\n\n"
                "| key | value | default | types | meaning |\n|---|---|---|---|---|\n");
    for (int k = 0; k < NKEYS; k++) {
        char types[64] = "";
        if (keys[k].types == T_ALL) {
            gm_strlcpy(types, "all", sizeof(types));
        } else {
            for (int t = GM_NT_EXEC; t <= GM_NT_ALERTMANAGER; t++)
                if (keys[k].types & (1u << t)) {
                    size_t l = strlen(types);
                    snprintf(types + l, sizeof(types) - l, "%s%s", l ? ", " : "", type_names[t]);
                }
        }
        gm_buf_printf(out, "| `%s` | %s | %s%s%s | %s | %s |\n", keys[k].name,
                      keys[k].arg ? keys[k].arg : "boolean", keys[k].def[0] ? "`" : "",
                      keys[k].def[0] ? keys[k].def : "", keys[k].def[0] ? "`" : "", types,
                      keys[k].help);
    }
    /* the limits are the sizes of the fields gm_notify_conf_set copies into */
    const struct gm_notify_conf *c = NULL;
    gm_buf_printf(out,
                  "\nA key that the section's type does not use is an error, as is a missing "
                  "`command` (exec) or `url` (webhook, alertmanager) and an unknown "
                  "`{{placeholder}}`. Lines may be of any length; a longer value than its key "
                  "holds is an error, in bytes: `command` %zu, `url` %zu, `body` %zu (also a "
                  "`body-file`), `header` %zu, `content-type` %zu. Inside `body`, a `;` preceded "
                  "by a blank starts a comment: write `;` without the blank before it, or put "
                  "the template in a `body-file`.\n",
                  sizeof(c->command) - 1, sizeof(c->url) - 1, sizeof(c->body) - 1,
                  sizeof(c->header) - 1, sizeof(c->content_type) - 1);
}

/* notify_driver.c -- drives the notifier (src/alert/notify.h) for the
 * end-to-end tests in tests/e2e/notify_*.py, which bring the real peers
 * (HTTP servers, TLS, Alertmanager).
 *
 *   notify_driver LOG_PATH CONFIG_INI QUEUE_SIZE
 *
 * reads the [notify.NAME] sections of CONFIG_INI through the same
 * gm_notify_conf_set/check the agent uses (errors: "FILE:LINE: reason" on
 * stderr, exit 2), starts the notifier (failure: exit 3), prints
 * {"started":true} and then answers one JSON line per command on stdin:
 *
 *   send FIELD=VALUE ...            queue one alert; {"send_ns":N}
 *   burst N FIELD=VALUE ...         N sends; the latency of each, summarised
 *   cadence N PERIOD_MS FIELD=...   a sampler-like loop on absolute deadlines
 *                                   that sends every period; lateness and send
 *                                   latency, summarised
 *   stats                           every channel's counters
 *   wait NAME FIELD N TIMEOUT_MS    until NAME's FIELD (sent, failed, retries,
 *                                   dropped) >= N; the stats and "ok"
 *   stop TIMEOUT_MS                 gm_notifier_stop; {"stop_ns":N}, exit 0
 *
 * Alert fields: rule, severity (warning|critical), state (firing|resolved),
 * repeat, gpu, uuid, gpu_name, host, summary, condition, value_text, value_age_ms, value,
 * fingerprint, fired_ms, resolved_ms, label.NAME; values are percent-encoded
 * (%20 for a blank).  Unset times default to now.
 */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alert/notify.h"
#include "core/json.h"
#include "core/timeutil.h"

#define NS 1000000000LL

static struct gm_notify_conf confs[GM_NOTIFY_MAX];
static int nconfs;
static char load_err[600];

static int on_ini(void *user, const char *section, const char *key, const char *value)
{
    (void)user;
    if (strncmp(section, "notify.", 7) != 0) {
        snprintf(load_err, sizeof(load_err), "unknown section [%s]", section);
        return 0;
    }
    const char *name = section + 7;
    int i;
    for (i = 0; i < nconfs; i++)
        if (strcmp(confs[i].name, name) == 0)
            break;
    if (i == nconfs) {
        if (nconfs == GM_NOTIFY_MAX) {
            snprintf(load_err, sizeof(load_err), "too many sections");
            return 0;
        }
        gm_notify_conf_init(&confs[nconfs++], name);
    }
    char why[512];
    if (gm_notify_conf_set(&confs[i], key, value, why, sizeof(why)) != 0) {
        snprintf(load_err, sizeof(load_err), "%s", why);
        return 0;
    }
    return 1;
}

static void pct_decode(const char *in, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < len; p++) {
        if (p[0] == '%' && p[1] && p[2]) {
            char hex[3] = {p[1], p[2], 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            p += 2;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

static void parse_alert(char *args, struct gm_alert *a)
{
    int64_t now = gm_wall_ns();
    memset(a, 0, sizeof(*a));
    gm_strlcpy(a->rule, "test_rule", sizeof(a->rule));
    a->state = GM_AL_FIRING;
    a->gpu = 0;
    gm_strlcpy(a->host, "test-host", sizeof(a->host));
    gm_strlcpy(a->fingerprint, "00000000000000aa", sizeof(a->fingerprint));
    a->active_ns = a->fired_ns = a->sent_ns = now;
    int64_t resolved = -1;
    for (char *tok = args, *end; tok && *tok; tok = end) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            break;
        end = strchr(tok, ' ');
        if (end)
            *end++ = '\0';
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char v[1024];
        pct_decode(eq + 1, v, sizeof(v));
        const char *k = tok;
        if (!strcmp(k, "rule"))
            gm_strlcpy(a->rule, v, sizeof(a->rule));
        else if (!strcmp(k, "severity"))
            a->severity = strcmp(v, "critical") == 0 ? GM_SEV_CRITICAL : GM_SEV_WARNING;
        else if (!strcmp(k, "state"))
            a->state = strcmp(v, "resolved") == 0 ? GM_AL_RESOLVED : GM_AL_FIRING;
        else if (!strcmp(k, "repeat"))
            a->repeat = (uint8_t)atoi(v);
        else if (!strcmp(k, "gpu"))
            a->gpu = atoi(v);
        else if (!strcmp(k, "uuid"))
            gm_strlcpy(a->uuid, v, sizeof(a->uuid));
        else if (!strcmp(k, "gpu_name"))
            gm_strlcpy(a->gpu_name, v, sizeof(a->gpu_name));
        else if (!strcmp(k, "host"))
            gm_strlcpy(a->host, v, sizeof(a->host));
        else if (!strcmp(k, "summary"))
            gm_strlcpy(a->summary, v, sizeof(a->summary));
        else if (!strcmp(k, "condition"))
            gm_strlcpy(a->condition, v, sizeof(a->condition));
        else if (!strcmp(k, "value_text"))
            gm_strlcpy(a->value_text, v, sizeof(a->value_text));
        else if (!strcmp(k, "value_age_ms"))
            a->value_age_ms = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(k, "value")) {
            a->value = strtod(v, NULL);
            a->value_ok = 1;
        } else if (!strcmp(k, "fingerprint"))
            gm_strlcpy(a->fingerprint, v, sizeof(a->fingerprint));
        else if (!strcmp(k, "fired_ms"))
            a->active_ns = a->fired_ns = strtoll(v, NULL, 10) * 1000000LL;
        else if (!strcmp(k, "resolved_ms"))
            resolved = strtoll(v, NULL, 10) * 1000000LL;
        else if (!strncmp(k, "label.", 6) && a->nlabels < GM_ALERT_MAX_LABELS) {
            gm_strlcpy(a->labels[a->nlabels].name, k + 6, sizeof(a->labels[0].name));
            gm_strlcpy(a->labels[a->nlabels].value, v, sizeof(a->labels[0].value));
            a->nlabels++;
        }
    }
    if (a->state == GM_AL_RESOLVED)
        a->resolved_ns = resolved >= 0 ? resolved : now;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

static void summary(struct gm_json *j, const char *key, int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_i64);
    gm_json_key(j, key);
    gm_json_obj_begin(j);
    gm_json_key(j, "p50");
    gm_json_i64(j, n ? v[n / 2] : 0);
    gm_json_key(j, "p99");
    gm_json_i64(j, n ? v[(n * 99) / 100] : 0);
    gm_json_key(j, "max");
    gm_json_i64(j, n ? v[n - 1] : 0);
    gm_json_obj_end(j);
}

static void print_stats(struct gm_notifier *nf, struct gm_json *j)
{
    struct gm_notify_stats st[GM_NOTIFY_MAX + 1];
    int n = gm_notifier_stats(nf, st, GM_NOTIFY_MAX + 1);
    gm_json_key(j, "channels");
    gm_json_obj_begin(j);
    for (int i = 0; i < n; i++) {
        gm_json_key(j, st[i].name);
        gm_json_obj_begin(j);
        gm_json_key(j, "type");
        gm_json_i64(j, st[i].type);
        gm_json_key(j, "sent");
        gm_json_u64(j, st[i].sent);
        gm_json_key(j, "failed");
        gm_json_u64(j, st[i].failed);
        gm_json_key(j, "retries");
        gm_json_u64(j, st[i].retries);
        gm_json_key(j, "dropped");
        gm_json_u64(j, st[i].dropped);
        gm_json_key(j, "queue_len");
        gm_json_u64(j, st[i].queue_len);
        gm_json_key(j, "last_ok_ns");
        gm_json_i64(j, st[i].last_ok_ns);
        gm_json_key(j, "last_error");
        gm_json_str(j, st[i].last_error);
        gm_json_obj_end(j);
    }
    gm_json_obj_end(j);
}

static uint64_t stat_field(struct gm_notifier *nf, const char *name, const char *field)
{
    struct gm_notify_stats st[GM_NOTIFY_MAX + 1];
    int n = gm_notifier_stats(nf, st, GM_NOTIFY_MAX + 1);
    for (int i = 0; i < n; i++) {
        if (strcmp(st[i].name, name) != 0)
            continue;
        if (!strcmp(field, "sent"))
            return st[i].sent;
        if (!strcmp(field, "failed"))
            return st[i].failed;
        if (!strcmp(field, "retries"))
            return st[i].retries;
        if (!strcmp(field, "dropped"))
            return st[i].dropped;
    }
    return 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: notify_driver LOG_PATH CONFIG_INI QUEUE_SIZE\n");
        return 2;
    }
    int line = ini_parse(argv[2], on_ini, NULL);
    if (line != 0) {
        fprintf(stderr, "%s:%d: %s\n", argv[2], line, load_err[0] ? load_err : "syntax error");
        return 2;
    }
    for (int i = 0; i < nconfs; i++) {
        char why[512];
        if (gm_notify_conf_check(&confs[i], why, sizeof(why)) != 0) {
            fprintf(stderr, "%s: [notify.%s]: %s\n", argv[2], confs[i].name, why);
            return 2;
        }
    }
    struct gm_err err = {0};
    struct gm_notifier *nf =
        gm_notifier_start(argv[1], confs, nconfs, (unsigned)atoi(argv[3]), &err);
    if (!nf) {
        fprintf(stderr, "notify_driver: %s\n", err.msg);
        return 3;
    }
    printf("{\"started\":true}\n");
    fflush(stdout);

    char buf[8192];
    struct gm_buf out = GM_BUF_INIT;
    while (fgets(buf, sizeof(buf), stdin)) {
        buf[strcspn(buf, "\n")] = '\0';
        char *args = strchr(buf, ' ');
        if (args)
            *args++ = '\0';
        struct gm_json j;
        gm_buf_reset(&out);
        gm_json_init(&j, &out, 0);
        gm_json_obj_begin(&j);
        struct gm_alert a;
        if (!strcmp(buf, "send")) {
            parse_alert(args, &a);
            int64_t t0 = gm_mono_ns();
            gm_notifier_send(nf, &a);
            gm_json_key(&j, "send_ns");
            gm_json_i64(&j, gm_mono_ns() - t0);
        } else if (!strcmp(buf, "burst") && args) {
            int n = atoi(args);
            char *rest = strchr(args, ' ');
            parse_alert(rest, &a);
            int64_t *lat = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
            for (int i = 0; i < n; i++) {
                int64_t t0 = gm_mono_ns();
                gm_notifier_send(nf, &a);
                lat[i] = gm_mono_ns() - t0;
            }
            gm_json_key(&j, "n");
            gm_json_i64(&j, n);
            summary(&j, "send_ns", lat, n);
            free(lat);
        } else if (!strcmp(buf, "cadence") && args) {
            int n = atoi(args);
            char *p = strchr(args, ' ');
            int period_ms = p ? atoi(p + 1) : 100;
            char *rest = p ? strchr(p + 1, ' ') : NULL;
            parse_alert(rest, &a);
            int64_t *late = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
            int64_t *lat = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
            int64_t next = gm_mono_ns() + (int64_t)period_ms * 1000000LL;
            for (int i = 0; i < n; i++) {
                gm_sleep_until(next, NULL);
                late[i] = gm_mono_ns() - next;
                int64_t t0 = gm_mono_ns();
                gm_notifier_send(nf, &a);
                lat[i] = gm_mono_ns() - t0;
                next += (int64_t)period_ms * 1000000LL;
            }
            gm_json_key(&j, "n");
            gm_json_i64(&j, n);
            summary(&j, "late_ns", late, n);
            summary(&j, "send_ns", lat, n);
            free(late);
            free(lat);
        } else if (!strcmp(buf, "stats")) {
            print_stats(nf, &j);
        } else if (!strcmp(buf, "wait") && args) {
            char name[64], field[32];
            unsigned long long want;
            int timeout_ms;
            if (sscanf(args, "%63s %31s %llu %d", name, field, &want, &timeout_ms) != 4) {
                fprintf(stderr, "bad wait\n");
                return 2;
            }
            int64_t until = gm_mono_ns() + (int64_t)timeout_ms * 1000000LL;
            int ok;
            while (!(ok = stat_field(nf, name, field) >= want) && gm_mono_ns() < until)
                sleep_ms(10);
            gm_json_key(&j, "ok");
            gm_json_bool(&j, ok);
            print_stats(nf, &j);
        } else if (!strcmp(buf, "stop")) {
            int64_t t0 = gm_mono_ns();
            gm_notifier_stop(nf, (args ? atoll(args) : 5000) * 1000000LL);
            gm_json_key(&j, "stop_ns");
            gm_json_i64(&j, gm_mono_ns() - t0);
            gm_json_obj_end(&j);
            printf("%s\n", out.p);
            gm_buf_free(&out);
            return 0;
        } else {
            fprintf(stderr, "notify_driver: unknown command \"%s\"\n", buf);
            return 2;
        }
        gm_json_obj_end(&j);
        printf("%s\n", out.p);
        fflush(stdout);
    }
    gm_notifier_stop(nf, 5 * NS);
    gm_buf_free(&out);
    return 0;
}

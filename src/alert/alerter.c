/* alerter.c -- the agent's alert sink (see alerter.h). */
#include "alerter.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../core/json.h"
#include "../core/timeutil.h"
#include "engine.h"
#include "notify.h"

struct gm_alerter {
    struct gm_engine *eng;
    struct gm_notifier *nf;
    pthread_mutex_t mu; /* guards nf (replaced on reload) */
    int once;
    char state_path[PATH_MAX];
    char log_path[PATH_MAX];
    unsigned queue;
    int nnotify;
    struct gm_notify_conf *notify; /* the running channels' settings */
    gm_alerter_event_fn fwd;
    void *fwd_arg;
};

static void on_notice(void *arg, const struct gm_alert *al)
{
    struct gm_alerter *a = arg;
    pthread_mutex_lock(&a->mu);
    gm_notifier_send(a->nf, al);
    pthread_mutex_unlock(&a->mu);
    if (al->repeat == 2 || !a->fwd)
        return; /* a resync is not news */
    /* notice, not warning: the agent's warnings and errors are about the agent
     * itself; alerts are about the GPUs and have their own log and channels */
    gm_log(GM_LOG_NOTICE, "alert %s%s: %s", gm_alert_state_name(al->state),
           al->repeat ? " (repeat)" : "", al->summary);
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_ALERT;
    e.gpu = al->gpu;
    e.wall_ns = al->sent_ns;
    e.code = al->state;
    gm_strlcpy(e.uuid, al->uuid, sizeof(e.uuid));
    /* events table and CSV: "firing RULE (severity): summary"; the alerts
     * table, which has those columns, takes the summary alone */
    int n = snprintf(e.text, sizeof(e.text), "%s %.63s (%s): ", gm_alert_state_name(al->state),
                     al->rule, gm_alert_severity_name(al->severity));
    e.summary_off = (uint16_t)(n > 0 && (size_t)n < sizeof(e.text) ? n : 0);
    gm_strlcpy(e.text + e.summary_off, al->summary, sizeof(e.text) - e.summary_off);
    gm_strlcpy(e.rule, al->rule, sizeof(e.rule));
    e.severity = al->severity;
    e.state = al->state;
    e.repeat = al->repeat;
    gm_strlcpy(e.value, al->value_text, sizeof(e.value));
    e.value_ok = al->value_ok != 0;
    e.value_age_ms = al->value_ok ? al->value_age_ms : 0;
    gm_strlcpy(e.fingerprint, al->fingerprint, sizeof(e.fingerprint));
    e.active_ns = al->active_ns;
    e.fired_ns = al->fired_ns;
    a->fwd(a->fwd_arg, &e);
}

static struct gm_notifier *notifier_start(const struct gm_alerter_conf *c, struct gm_err *err)
{
    return gm_notifier_start(c->alert_log, c->notify, c->nnotify, c->queue_size, err);
}

static void keep_notify(struct gm_alerter *a, const struct gm_alerter_conf *c)
{
    free(a->notify);
    a->notify = NULL;
    a->nnotify = c->nnotify;
    if (c->nnotify) {
        a->notify = gm_xmalloc((size_t)c->nnotify * sizeof(*a->notify));
        memcpy(a->notify, c->notify, (size_t)c->nnotify * sizeof(*a->notify));
    }
    gm_strlcpy(a->log_path, c->alert_log, sizeof(a->log_path));
    a->queue = c->queue_size;
}

struct gm_alerter *gm_alerter_start(const struct gm_alerter_conf *c, int once,
                                    gm_alerter_event_fn fn, void *arg, struct gm_err *err)
{
    struct gm_alerter *a = gm_xcalloc(1, sizeof(*a));
    pthread_mutex_init(&a->mu, NULL);
    a->once = once;
    a->fwd = fn;
    a->fwd_arg = arg;
    gm_strlcpy(a->state_path, c->alert_state, sizeof(a->state_path));
    a->nf = notifier_start(c, err);
    if (!a->nf) {
        pthread_mutex_destroy(&a->mu);
        free(a);
        return NULL;
    }
    keep_notify(a, c);
    a->eng = gm_engine_new(c->rules);
    gm_engine_set_pid_ns_nested(a->eng, gm_pid_ns_nested());
    if (once) {
        struct gm_err e = {0};
        int rc = gm_engine_load(a->eng, a->state_path, &e);
        if (rc != 0 && rc != GM_E_NOTFOUND)
            gm_log(GM_LOG_WARNING, "alert state: %s; starting without it", e.msg);
    }
    return a;
}

int gm_alerter_reconfigure(struct gm_alerter *a, const struct gm_alerter_conf *c,
                           struct gm_err *err)
{
    int same =
        a->nnotify == c->nnotify && !strcmp(a->log_path, c->alert_log) &&
        a->queue == c->queue_size &&
        (!c->nnotify || !memcmp(a->notify, c->notify, (size_t)c->nnotify * sizeof(*c->notify)));
    struct gm_notifier *fresh = NULL;
    if (!same) {
        fresh = notifier_start(c, err);
        if (!fresh)
            return err ? err->code : GM_E_INVAL;
    }
    /* resolutions of removed or changed rules go to the channels that were
     * configured when they fired */
    gm_engine_set_rules(a->eng, c->rules, gm_wall_ns(), on_notice, a);
    if (fresh) {
        pthread_mutex_lock(&a->mu);
        struct gm_notifier *old = a->nf;
        a->nf = fresh;
        pthread_mutex_unlock(&a->mu);
        gm_notifier_stop(old, 2000000000LL);
        keep_notify(a, c);
        gm_engine_resync(a->eng, gm_wall_ns(), on_notice, a);
    }
    return 0;
}

static int sink_write(void *ctx, const struct gm_snapshot *s)
{
    struct gm_alerter *a = ctx;
    gm_engine_eval(a->eng, s, a->once ? s->wall_ns : s->mono_ns, on_notice, a);
    return 0;
}

static int sink_event(void *ctx, const struct gm_event *e)
{
    struct gm_alerter *a = ctx;
    if (e->type != GM_EV_XID)
        return 0;
    /* the event's wall time on the engine's clock */
    int64_t t = a->once ? e->wall_ns : gm_mono_ns() - (gm_wall_ns() - e->wall_ns);
    char uuid[sizeof(e->uuid) + 1];
    memcpy(uuid, e->uuid, sizeof(e->uuid));
    uuid[sizeof(e->uuid)] = '\0';
    gm_engine_xid(a->eng, e->gpu, uuid, (int)e->code, e->wall_ns, t, on_notice, a);
    return 0;
}

const struct gm_sink_ops gm_alerter_sink_ops = {
    .name = "alerts", .write = sink_write, .event = sink_event};

/* The channels' counters, the log first; returns how many (at most
 * GM_NOTIFY_MAX + 1). */
static int channel_stats(struct gm_alerter *a, struct gm_notify_stats st[GM_NOTIFY_MAX + 1])
{
    pthread_mutex_lock(&a->mu);
    int n = gm_notifier_stats(a->nf, st, GM_NOTIFY_MAX + 1);
    pthread_mutex_unlock(&a->mu);
    return n > GM_NOTIFY_MAX + 1 ? GM_NOTIFY_MAX + 1 : n;
}

int gm_alerter_active(struct gm_alerter *a, struct gm_alert_now *out, int max)
{
    return gm_engine_active(a->eng, out, max);
}

void gm_alerter_json(struct gm_alerter *a, struct gm_buf *out)
{
    struct gm_buf states = GM_BUF_INIT;
    gm_engine_json(a->eng, &states);
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "engine");
    /* the engine's object, verbatim */
    gm_buf_put(out, states.p ? states.p : "{}", states.p ? states.len : 2);
    gm_buf_free(&states);
    j.after_key = 0; /* the raw value completed the member */
    gm_json_key(&j, "channels");
    gm_json_arr_begin(&j);
    struct gm_notify_stats st[GM_NOTIFY_MAX + 1];
    int n = channel_stats(a, st);
    for (int i = 0; i < n; i++) {
        static const char *const types[] = {"log", "exec", "webhook", "alertmanager"};
        gm_json_obj_begin(&j);
        gm_json_key(&j, "name");
        gm_json_str(&j, st[i].name);
        gm_json_key(&j, "type");
        gm_json_str(&j, st[i].type >= 0 && st[i].type <= 3 ? types[st[i].type] : "?");
        gm_json_key(&j, "sent");
        gm_json_u64(&j, st[i].sent);
        gm_json_key(&j, "failed");
        gm_json_u64(&j, st[i].failed);
        gm_json_key(&j, "retries");
        gm_json_u64(&j, st[i].retries);
        gm_json_key(&j, "dropped");
        gm_json_u64(&j, st[i].dropped);
        gm_json_key(&j, "queue");
        gm_json_u64(&j, st[i].queue_len);
        gm_json_key(&j, "last_error");
        gm_json_str(&j, st[i].last_error);
        gm_json_obj_end(&j);
    }
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
}

void gm_alerter_text(struct gm_alerter *a, struct gm_buf *out)
{
    gm_engine_text(a->eng, out);
    struct gm_notify_stats st[GM_NOTIFY_MAX + 1];
    int n = channel_stats(a, st);
    gm_buf_puts(out, "\nnotices:");
    for (int i = 0; i < n; i++) {
        gm_buf_printf(out, "%s %s: %llu sent", i ? ";" : "", st[i].name,
                      (unsigned long long)st[i].sent);
        if (st[i].failed)
            gm_buf_printf(out, ", %llu failed", (unsigned long long)st[i].failed);
        if (st[i].dropped)
            gm_buf_printf(out, ", %llu dropped", (unsigned long long)st[i].dropped);
        if (st[i].queue_len)
            gm_buf_printf(out, ", %u queued", st[i].queue_len);
        if (st[i].last_error[0] && st[i].failed)
            gm_buf_printf(out, " (last error: %s)", st[i].last_error);
    }
    gm_buf_putc(out, '\n');
}

int gm_alerter_stop(struct gm_alerter *a, int64_t timeout_ns, struct gm_err *err)
{
    if (!a)
        return 0;
    int rc = 0;
    if (a->once)
        rc = gm_engine_save(a->eng, a->state_path, err);
    gm_notifier_stop(a->nf, timeout_ns);
    gm_engine_free(a->eng);
    free(a->notify);
    pthread_mutex_destroy(&a->mu);
    free(a);
    return rc;
}

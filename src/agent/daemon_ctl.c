/* daemon_ctl.c -- what the agent answers on its control socket: its
 * status, its alerts, and marks on the timeline (daemon_int.h).  The socket
 * itself, its bounds and its client are control.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/json.h"
#include "../core/log.h"
#include "daemon_int.h"

static void control_status(struct gm_daemon *ct, struct gm_buf *out)
{
    struct gm_sampler_stats ss;
    gm_sampler_stats(ct->sampler, &ss);
    struct gm_json j;
    gm_json_init(&j, out, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "pid");
    gm_json_i64(&j, getpid());
    gm_json_key(&j, "samples");
    gm_json_u64(&j, ss.samples);
    gm_json_key(&j, "overruns");
    gm_json_u64(&j, ss.overruns);
    gm_json_key(&j, "skipped");
    gm_json_u64(&j, ss.skipped);
    gm_json_key(&j, "last_sample_unix_ns");
    gm_json_i64(&j, ss.last_wall_ns);
    gm_json_key(&j, "last_sample_duration_seconds");
    gm_json_f64(&j, ss.last_duration_ns / 1e9, 6);
    gm_json_key(&j, "driver");
    gm_json_str(&j, gm_driver_state_name((enum gm_driver_state)ss.driver_state));
    gm_json_key(&j, "clock_steps_back");
    gm_json_u64(&j, ss.clock_steps_back);
    gm_json_key(&j, "clock_steps_forward");
    gm_json_u64(&j, ss.clock_steps_forward);
    gm_json_key(&j, "reloads");
    gm_json_u64(&j, __atomic_load_n(&ct->reloads_ok, __ATOMIC_RELAXED));
    gm_json_key(&j, "reloads_failed");
    gm_json_u64(&j, __atomic_load_n(&ct->reloads_failed, __ATOMIC_RELAXED));
    gm_json_key(&j, "replaced_sinks");
    gm_json_obj_begin(&j);
    gm_json_key(&j, "dropped");
    gm_json_u64(&j, __atomic_load_n(&ct->replaced_dropped, __ATOMIC_RELAXED));
    gm_json_key(&j, "errors");
    gm_json_u64(&j, __atomic_load_n(&ct->replaced_errors, __ATOMIC_RELAXED));
    gm_json_obj_end(&j);
    gm_json_key(&j, "sinks");
    gm_json_obj_begin(&j);
    pthread_mutex_lock(&ct->sinks_mu);
    for (int i = 0; i < ct->sinks.n; i++) {
        struct gm_sink_stats ks;
        gm_sink_stats(ct->sinks.k[i], &ks);
        gm_json_key(&j, gm_sink_name(ct->sinks.k[i]));
        gm_json_obj_begin(&j);
        gm_json_key(&j, "snapshots");
        gm_json_u64(&j, ks.snapshots);
        gm_json_key(&j, "events");
        gm_json_u64(&j, ks.events);
        gm_json_key(&j, "dropped");
        gm_json_u64(&j, ks.dropped);
        gm_json_key(&j, "errors");
        gm_json_u64(&j, ks.errors);
        gm_json_key(&j, "queue_max");
        gm_json_u64(&j, ks.queue_max);
        gm_json_obj_end(&j);
    }
    pthread_mutex_unlock(&ct->sinks_mu);
    gm_json_obj_end(&j);
    gm_json_obj_end(&j);
    gm_buf_putc(out, '\n');
}

/* "MARK <wall_ns> <task|-> <text>": a mark on the timeline, its text whole
 * (at most GM_MARK_MAX bytes; the outputs sanitise it, core/text.h). */
static void control_mark(struct gm_daemon *ct, const char *req, size_t len, struct gm_buf *out)
{
    const char *p = req + 5, *end = req + len;
    char num[24];
    size_t nl = 0;
    while (p + nl < end && p[nl] != ' ' && nl < sizeof(num) - 1) {
        num[nl] = p[nl];
        nl++;
    }
    num[nl] = '\0';
    char *nend;
    errno = 0;
    long long wall = strtoll(num, &nend, 10);
    int bad = nl == 0 || errno || *nend || p + nl >= end || p[nl] != ' ';
    const char *task = p + nl + 1;
    const char *sp = bad ? NULL : memchr(task, ' ', (size_t)(end - task));
    if (!sp) {
        gm_buf_puts(out, "ERR malformed MARK request\n");
        return;
    }
    size_t tlen = (size_t)(sp - task), xlen = (size_t)(end - sp - 1);
    int own_task = tlen == 1 && task[0] == '-';
    if (!own_task && !gm_config_task_valid(task, tlen)) {
        gm_buf_printf(out,
                      "ERR invalid task (1-%d letters, digits, '.', '_', '-'; not starting with "
                      "'.')\n",
                      GM_TASK_MAX);
        return;
    }
    if (xlen > GM_MARK_MAX) {
        gm_buf_printf(out, "ERR mark longer than %d bytes\n", GM_MARK_MAX);
        return;
    }
    struct gm_event *e = gm_xcalloc(1, sizeof(*e));
    e->type = GM_EV_MARK;
    e->gpu = -1;
    e->wall_ns = wall;
    if (own_task) {
        pthread_mutex_lock(&ct->task_mu);
        gm_strlcpy(e->task, ct->task, sizeof(e->task));
        pthread_mutex_unlock(&ct->task_mu);
    } else {
        memcpy(e->task, task, tlen);
    }
    memcpy(e->text, sp + 1, xlen);
    gm_sampler_event(ct->sampler, e);
    gm_log(GM_LOG_INFO, "mark (%s, %zu bytes): %s", e->task, xlen, e->text);
    free(e);
    gm_buf_puts(out, "OK\n");
}

/* One request per connection; replies end with a newline. */
void gm_daemon_control(void *arg, const char *req, size_t len, struct gm_buf *out)
{
    struct gm_daemon *ct = arg;
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(req, lit, len) == 0)
    if (memchr(req, '\0', len)) {
        gm_buf_puts(out, "ERR malformed request (a NUL byte)\n");
    } else if (IS("PING")) {
        gm_buf_puts(out, "PONG\n");
    } else if (IS("STATUS")) {
        control_status(ct, out);
    } else if (IS("ALERTS") || IS("ALERTS TEXT")) {
        /* sinks_mu: a reload that turns alerts off frees the alerter */
        pthread_mutex_lock(&ct->sinks_mu);
        if (ct->alerter && len > 6) {
            gm_alerter_text(ct->alerter, out);
        } else if (ct->alerter) {
            gm_alerter_json(ct->alerter, out);
            gm_buf_putc(out, '\n');
        } else {
            gm_buf_puts(out, "ERR alerts are off in this agent (alerts = false)\n");
        }
        pthread_mutex_unlock(&ct->sinks_mu);
    } else if (len >= 5 && memcmp(req, "MARK ", 5) == 0) {
        control_mark(ct, req, len, out);
    } else {
        gm_buf_puts(out, "ERR unknown request\n");
    }
#undef IS
}

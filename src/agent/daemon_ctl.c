/* daemon_ctl.c -- what the agent answers on its control socket: its
 * status, its alerts, and marks on the timeline (daemon_int.h).  The socket
 * itself, its bounds and its client are control.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/json.h"
#include "../core/log.h"
#include "../core/timeutil.h"
#include "control.h"
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
    gm_json_key(&j, "marks_out_of_window");
    gm_json_u64(&j, __atomic_load_n(&ct->marks_out_of_window, __ATOMIC_RELAXED));
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

/* The head of MARK and STEP: "<wall_ns> <task|-> " at p.  Fills *wall and
 * the event's task (the agent's own for "-"), and returns where the rest
 * starts, or NULL with the reason appended to out.  A time more than
 * GM_MARK_WINDOW_S from the agent's clock is refused and counted. */
static const char *parse_head(struct gm_daemon *ct, const char *p, const char *end,
                              const char *what, long long *wall, struct gm_event *e,
                              struct gm_buf *out)
{
    char num[24];
    size_t nl = 0;
    while (p + nl < end && p[nl] != ' ' && nl < sizeof(num) - 1) {
        num[nl] = p[nl];
        nl++;
    }
    num[nl] = '\0';
    char *nend;
    errno = 0;
    *wall = strtoll(num, &nend, 10);
    int bad = nl == 0 || errno || *nend || p + nl >= end || p[nl] != ' ';
    const char *task = p + nl + 1;
    const char *sp = bad ? NULL : memchr(task, ' ', (size_t)(end - task));
    if (!sp) {
        gm_buf_printf(out, "ERR malformed %s request\n", what);
        return NULL;
    }
    size_t tlen = (size_t)(sp - task);
    int own_task = tlen == 1 && task[0] == '-';
    if (!own_task && !gm_config_task_valid(task, tlen)) {
        gm_buf_printf(out,
                      "ERR invalid task (1-%d letters, digits, '.', '_', '-'; not starting with "
                      "'.')\n",
                      GM_TASK_MAX);
        return NULL;
    }
    long long now = (long long)gm_wall_ns(), window = GM_MARK_WINDOW_S * 1000000000LL;
    if (*wall < now - window || *wall > now + window) {
        __atomic_add_fetch(&ct->marks_out_of_window, 1, __ATOMIC_RELAXED);
        gm_buf_printf(out,
                      "ERR %s time %lld is more than %d s from the agent's clock (%lld ns since "
                      "the Unix epoch)\n",
                      what, *wall, GM_MARK_WINDOW_S, now);
        return NULL;
    }
    if (own_task) {
        pthread_mutex_lock(&ct->task_mu);
        gm_strlcpy(e->task, ct->task, sizeof(e->task));
        pthread_mutex_unlock(&ct->task_mu);
    } else {
        memcpy(e->task, task, tlen);
    }
    return sp + 1;
}

/* Puts the mark e (its text text[0..len)) on the timeline. */
static void put_mark(struct gm_daemon *ct, struct gm_event *e, long long wall, const char *text,
                     size_t len, struct gm_buf *out)
{
    e->type = GM_EV_MARK;
    e->gpu = -1;
    e->wall_ns = wall;
    memcpy(e->text, text, len);
    gm_sampler_event(ct->sampler, e);
    gm_log(GM_LOG_INFO, "mark (%s, %zu bytes): %s", e->task, len, e->text);
    gm_buf_puts(out, "OK\n");
}

/* "MARK <wall_ns> <task|-> <text>": a mark on the timeline, its text whole
 * (at most GM_MARK_MAX bytes; the outputs sanitise it, core/text.h). */
static void control_mark(struct gm_daemon *ct, const char *req, size_t len, struct gm_buf *out)
{
    const char *end = req + len;
    long long wall;
    struct gm_event *e = gm_xcalloc(1, sizeof(*e));
    const char *text = parse_head(ct, req + 5, end, "MARK", &wall, e, out);
    if (text && (size_t)(end - text) > GM_MARK_MAX)
        gm_buf_printf(out, "ERR mark longer than %d bytes\n", GM_MARK_MAX);
    else if (text)
        put_mark(ct, e, wall, text, (size_t)(end - text), out);
    free(e);
}

/* Whether s[0..n) is a step's value name: a letter or '_', then letters,
 * digits, '_' (a Python keyword argument's shape), at most
 * GM_STEP_NAME_MAX bytes. */
static int step_name_valid(const char *s, size_t n)
{
    if (n == 0 || n > GM_STEP_NAME_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

/* Whether s[0..n) is a finite decimal number (strtod's syntax without
 * inf, nan and hexadecimal). */
static int step_number_valid(const char *s, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof(buf) || memchr(s, 'x', n) || memchr(s, 'X', n))
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (isspace((unsigned char)buf[0]))
        return 0;
    char *e;
    errno = 0;
    double d = strtod(buf, &e);
    return *e == '\0' && isfinite(d) && errno != ERANGE;
}

/* "STEP <wall_ns> <task|-> <n> [name=value ...]" (protocol 2): a training
 * step and the caller's numbers, kept as a mark whose text is the request's
 * "step <n> name=value ..." after checking every part (docs/control.md). */
static void control_step(struct gm_daemon *ct, const char *req, size_t len, struct gm_buf *out)
{
    const char *end = req + len;
    long long wall;
    struct gm_event *e = gm_xcalloc(1, sizeof(*e));
    const char *p = parse_head(ct, req + 5, end, "STEP", &wall, e, out);
    if (!p) {
        free(e);
        return;
    }
    const char *body = p;
    /* the step number: decimal digits, at most 19 (below 2^63) */
    size_t n = 0;
    while (p + n < end && isdigit((unsigned char)p[n]))
        n++;
    if (n == 0 || n > 19 || (n == 19 && memcmp(p, "9223372036854775807", 19) > 0) ||
        (p + n < end && p[n] != ' ')) {
        gm_buf_puts(out, "ERR malformed STEP request: the step is a whole number 0-"
                         "9223372036854775807\n");
        free(e);
        return;
    }
    p += n;
    int count = 0;
    while (p < end) {
        p++; /* the space */
        const char *tok = p;
        const char *sp = memchr(tok, ' ', (size_t)(end - tok));
        size_t tl = sp ? (size_t)(sp - tok) : (size_t)(end - tok);
        const char *eq = memchr(tok, '=', tl);
        if (++count > GM_STEP_VALUES_MAX) {
            gm_buf_printf(out, "ERR a step carries at most %d values\n", GM_STEP_VALUES_MAX);
            free(e);
            return;
        }
        if (!eq || !step_name_valid(tok, (size_t)(eq - tok))) {
            gm_buf_printf(out,
                          "ERR malformed STEP value %d: name=value with a name of 1-%d letters, "
                          "digits, '_' (not starting with a digit)\n",
                          count, GM_STEP_NAME_MAX);
            free(e);
            return;
        }
        if (!step_number_valid(eq + 1, (size_t)(tok + tl - eq - 1))) {
            gm_buf_printf(out, "ERR STEP value %d (%.*s): not a finite decimal number\n", count,
                          (int)(eq - tok), tok);
            free(e);
            return;
        }
        p = tok + tl;
    }
    struct gm_buf text = GM_BUF_INIT;
    gm_buf_puts(&text, "step ");
    gm_buf_put(&text, body, (size_t)(end - body));
    if (text.len > GM_MARK_MAX)
        gm_buf_printf(out, "ERR step longer than %d bytes as a mark\n", GM_MARK_MAX);
    else
        put_mark(ct, e, wall, text.p, text.len, out);
    gm_buf_free(&text);
    free(e);
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
        /* alerter_mu: a reload that turns alerts off frees the alerter (not
         * sinks_mu: the engine's lock is taken inside, and the engine
         * forwards alert events to the sinks under it; sinkset.c) */
        pthread_mutex_lock(&ct->alerter_mu);
        if (ct->alerter && len > 6) {
            gm_alerter_text(ct->alerter, out);
        } else if (ct->alerter) {
            gm_alerter_json(ct->alerter, out);
            gm_buf_putc(out, '\n');
        } else {
            gm_buf_puts(out, "ERR alerts are off in this agent (alerts = false)\n");
        }
        pthread_mutex_unlock(&ct->alerter_mu);
    } else if (IS("HELLO") || (len > 6 && memcmp(req, "HELLO ", 6) == 0)) {
        gm_buf_printf(out, "OK version=%d requests=HELLO,PING,STATUS,ALERTS,MARK,STEP\n",
                      GM_CONTROL_VERSION);
    } else if (len >= 5 && memcmp(req, "MARK ", 5) == 0) {
        control_mark(ct, req, len, out);
    } else if (len >= 5 && memcmp(req, "STEP ", 5) == 0) {
        control_step(ct, req, len, out);
    } else {
        gm_buf_puts(out, "ERR unknown request\n");
    }
#undef IS
}

/* notify.c -- the notifier: one worker thread and one bounded queue per
 * channel (see notify.h).
 *
 * The caller's thread (the rule engine's) only copies an alert into each
 * channel's ring and signals; a full ring drops and counts.  Each worker
 * pops alerts in order and delivers them with retries: attempt, then wait
 * 1 s, 2 s, 4 s ... (at most 60 s) before the next, up to the channel's
 * retry count; giving up is counted as failed and the reason kept in
 * last_error.  Because channels do not share a thread, a webhook that hangs
 * delays only its own queue: the alert log and the other channels go on.
 *
 * The alert log appends one JSON line per notice with one write(2), opening
 * the file for each (notices are rare, and a rotated or deleted file is
 * simply created again).  A full disk (ENOSPC, EDQUOT, EFBIG) is waited out
 * rather than given up on after the retries: a short write is cut back, the
 * notice is tried again every LOG_FULL_RETRY_NS and the ones behind it wait
 * in the channel's ring (queue_size of them, more are dropped and counted),
 * so that they are written, in order, when space returns; at the stop what
 * is still waiting is counted and logged as not delivered.  Exec hooks are in hook.c, the HTTP
 * request in the module (http_module.h), the Alertmanager body in alertmanager.c.
 *
 * The Alertmanager worker is different in one way: it keeps the set of
 * alerts that fire (by fingerprint) and POSTs the whole set, plus any that
 * just resolved, whenever the set changes and every `resend` while it is
 * not empty, so that Alertmanager never resolves an alert on its own while
 * it still fires here.  Several queued alerts go out in one POST.
 */
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/log.h"
#include "../core/safefile.h"
#include "../core/timeutil.h"
#include "notify_impl.h"

#define SEC 1000000000LL
#define AM_MAX_FIRING 4096 /* alerts kept for re-sending; more are dropped and counted */
/* after the stop deadline, how long aborted workers get to finish (a hook's
 * SIGTERM grace, libcurl noticing the abort) */
#define STOP_GRACE_NS (GM_HOOK_KILL_GRACE_NS + 2 * SEC)
/* the alert log on a full disk: the longest wait between two attempts */
#define LOG_FULL_RETRY_NS (2 * SEC)

struct chan {
    char name[64];
    int type; /* GM_NT_NONE: the alert log */
    struct gm_notify_conf conf;
    char log_path[PATH_MAX];

    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* alerts, stop, abort */
    pthread_cond_t done_cv; /* the worker finished */
    struct gm_alert *ring;
    unsigned cap, head, len;
    int stopping, done;
    int64_t stop_deadline; /* monotonic */
    int abort;             /* past the deadline: abort what runs (written under mu and
                            * atomically: the hook and HTTP calls poll it without mu) */
    struct gm_notify_stats st;
    int failing; /* the last delivery failed (log the recovery once) */
    /* the alert log: waiting for space since full_since (monotonic, 0 =
     * not), with the dropped counter at that time */
    int64_t full_since;
    uint64_t full_dropped;

    char **argv;                              /* exec */
    const struct gm_notify_http_module *http; /* webhook, alertmanager */
    void *client;
    char url[sizeof(((struct gm_notify_conf *)0)->url) + 16];
    struct gm_alert *firing; /* alertmanager: the alerts it is told about */
    int nfiring, capfiring;
    int64_t next_resend; /* monotonic; 0: nothing to re-send */
};

struct gm_notifier {
    int n;
    struct chan *ch[GM_NOTIFY_MAX + 1];
};

int64_t gm_notify_backoff_ns(unsigned attempt)
{
    if (attempt == 0)
        return 0;
    if (attempt > 7)
        return GM_NOTIFY_BACKOFF_MAX_NS;
    int64_t d = SEC << (attempt - 1);
    return d < GM_NOTIFY_BACKOFF_MAX_NS ? d : GM_NOTIFY_BACKOFF_MAX_NS;
}

/* The response body as part of one log line. */
static void body_snippet(const struct gm_http_resp *r, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = r->body; *p && n + 1 < len && n < 160; p++)
        out[n++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? ' ' : *p;
    while (n && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

int gm_notify_http_ok(const struct gm_http_resp *r, char *why, size_t wlen)
{
    char snip[200];
    body_snippet(r, snip, sizeof(snip));
    if (r->status < 200 || r->status > 299) {
        snprintf(why, wlen, "HTTP %ld%s%s", r->status, snip[0] ? ": " : "", snip);
        return GM_E_IO;
    }
    const char *p = r->body;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    const char *e = *p == '{' ? strstr(p, "\"errcode\"") : NULL;
    if (e) {
        e += 9;
        while (*e == ' ' || *e == '\t')
            e++;
        if (*e == ':') {
            char *end;
            long code = strtol(e + 1, &end, 10);
            if (end != e + 1 && code != 0) {
                snprintf(why, wlen, "HTTP %ld with errcode %ld: %s", r->status, code, snip);
                return GM_E_IO;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- stats */

static void set_error(struct chan *c, const char *why)
{
    pthread_mutex_lock(&c->mu);
    gm_strlcpy(c->st.last_error, why, sizeof(c->st.last_error));
    pthread_mutex_unlock(&c->mu);
}

static void count_ok(struct chan *c)
{
    int was_failing = c->failing;
    c->failing = 0;
    pthread_mutex_lock(&c->mu);
    c->st.sent++;
    c->st.last_ok_ns = gm_wall_ns();
    pthread_mutex_unlock(&c->mu);
    if (was_failing)
        gm_log(GM_LOG_NOTICE, "notify %s: delivering again", c->name);
}

/* ------------------------------------------------------------- attempts */

/* Waits ns on the channel's condition; returns 0 when the retry should
 * not happen (aborted, or it would come after the stop deadline). */
static int backoff_wait(struct chan *c, int64_t ns)
{
    int64_t until = gm_mono_ns() + ns;
    int go = 1;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        if (c->abort || (c->stopping && until > c->stop_deadline)) {
            go = 0;
            break;
        }
        if (gm_mono_ns() >= until)
            break;
        struct timespec ts = {.tv_sec = (time_t)(until / SEC), .tv_nsec = (long)(until % SEC)};
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    pthread_mutex_unlock(&c->mu);
    return go;
}

typedef int (*attempt_fn)(struct chan *c, const void *arg, char *why, size_t wlen);

/* The alert log could not be written for lack of space: say so once, when
 * the wait starts. */
static void full_begin(struct chan *c, const char *why)
{
    if (c->full_since)
        return;
    c->full_since = gm_mono_ns();
    pthread_mutex_lock(&c->mu);
    c->full_dropped = c->st.dropped;
    pthread_mutex_unlock(&c->mu);
    gm_log(GM_LOG_WARNING,
           "notify %s: %s; keeping the alert notices in memory (at most %u) until there is room",
           c->name, why, c->cap + 1);
}

/* Written again after a wait for space. */
static void full_end(struct chan *c)
{
    if (!c->full_since)
        return;
    pthread_mutex_lock(&c->mu);
    uint64_t dropped = c->st.dropped - c->full_dropped;
    unsigned kept = c->len + 1; /* this one and those waiting behind it */
    pthread_mutex_unlock(&c->mu);
    gm_log(dropped ? GM_LOG_WARNING : GM_LOG_NOTICE,
           "notify %s: writing again after %.0f s without space (%u notice%s kept in memory, "
           "%llu dropped: the queue holds %u)",
           c->name, (double)(gm_mono_ns() - c->full_since) / SEC, kept, kept == 1 ? "" : "s",
           (unsigned long long)dropped, c->cap);
    c->full_since = 0;
    c->failing = 0; /* this message says it */
}

/* One delivery: attempts with backoff; counts sent or failed.  An attempt
 * that returns GM_E_NOSPC (the alert log on a full disk) does not count
 * against the retries: it is repeated until it works or the channel stops. */
static void deliver(struct chan *c, attempt_fn attempt, const void *arg, const char *what)
{
    char why[256];
    unsigned retries = c->type == GM_NT_NONE ? 3 : c->conf.retries;
    unsigned counted = 0; /* failed attempts that count against retries */
    for (unsigned i = 0;; i++) {
        why[0] = '\0';
        int rc = attempt(c, arg, why, sizeof(why));
        if (rc == 0) {
            full_end(c);
            count_ok(c);
            return;
        }
        set_error(c, why);
        int full = rc == GM_E_NOSPC && c->type == GM_NT_NONE;
        if (full)
            full_begin(c, why);
        else
            counted++;
        if (counted > retries || __atomic_load_n(&c->abort, __ATOMIC_RELAXED))
            break;
        int64_t d = gm_notify_backoff_ns(i + 1);
        if (full && d > LOG_FULL_RETRY_NS)
            d = LOG_FULL_RETRY_NS;
        gm_log(GM_LOG_DEBUG, "notify %s: %s: attempt %u failed (%s); next in %lld s", c->name, what,
               i + 1, why, (long long)(d / SEC));
        if (!backoff_wait(c, d))
            break;
        pthread_mutex_lock(&c->mu);
        c->st.retries++;
        pthread_mutex_unlock(&c->mu);
    }
    c->failing = 1;
    pthread_mutex_lock(&c->mu);
    c->st.failed++;
    pthread_mutex_unlock(&c->mu);
    gm_log(GM_LOG_WARNING, "notify %s: %s not delivered: %s", c->name, what, why);
}

static int no_space(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG;
}

/* Opens the alert log to append a line: never through a symbolic link,
 * never a second name of another file, in a directory not open to every
 * user (safefile.h). */
static int log_open(const char *path, struct gm_err *err)
{
    char base[256];
    int dfd = -1;
    int rc = gm_safefile_parent_open(path, &dfd, base, sizeof(base), err);
    if (rc != 0)
        return rc;
    int fd = gm_safefile_open_append(dfd, base, 0640, path, err);
    close(dfd);
    return fd;
}

/* Appends one line; a short write (a full disk) is cut back so that the
 * file never keeps half a line.  GM_E_NOSPC when there is no room. */
static int attempt_log(struct chan *c, const void *arg, char *why, size_t wlen)
{
    const struct gm_buf *line = arg;
    struct gm_err e = {0};
    int fd = log_open(c->log_path, &e);
    if (fd < 0) {
        gm_strlcpy(why, e.msg, wlen);
        return fd == GM_E_NOSPC ? GM_E_NOSPC : GM_E_IO;
    }
    struct stat st;
    int have_size = fstat(fd, &st) == 0;
    int rc = gm_buf_write_fd(line, fd);
    if (rc != 0 && have_size && ftruncate(fd, st.st_size) != 0)
        gm_log(GM_LOG_WARNING, "notify %s: %s: cannot cut back a short write: %s", c->name,
               c->log_path, strerror(errno));
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0) {
        snprintf(why, wlen, "%s: write: %s", c->log_path, strerror(-rc));
        return no_space(-rc) ? GM_E_NOSPC : GM_E_IO;
    }
    return 0;
}

struct exec_arg {
    const struct gm_alert *a;
    const struct gm_buf *json;
};

static int attempt_exec(struct chan *c, const void *arg, char *why, size_t wlen)
{
    const struct exec_arg *x = arg;
    char **env = gm_alert_env(x->a, c->name);
    struct gm_hook_result r;
    int rc = gm_hook_run(c->argv, env, x->json->p, x->json->len, c->conf.timeout_ns, &c->abort, &r,
                         why, wlen);
    gm_alert_env_free(env);
    if (rc == 0)
        gm_log(GM_LOG_INFO, "notify %s: %s exited with status 0 after %.3f s%s%s", c->name,
               c->argv[0], (double)r.elapsed_ns / 1e9, r.output[0] ? ": " : "", r.output);
    else
        gm_log(GM_LOG_WARNING, "notify %s: %s", c->name, why);
    return rc;
}

struct http_arg {
    const struct gm_buf *body;
    const char *content_type;
};

static int attempt_http(struct chan *c, const void *arg, char *why, size_t wlen)
{
    const struct http_arg *h = arg;
    struct gm_http_req req = {
        .url = c->url,
        .body = h->body->p,
        .body_len = h->body->len,
        .content_type = h->content_type,
        .header = c->conf.header,
        .ca_file = c->conf.ca_file,
        .timeout_ns = c->conf.timeout_ns,
        .abort = &c->abort,
    };
    struct gm_http_resp resp;
    if (c->http->post(c->client, &req, &resp) != 0) {
        snprintf(why, wlen, "%s", resp.error);
        return GM_E_IO;
    }
    return gm_notify_http_ok(&resp, why, wlen);
}

/* ------------------------------------------------------------- channels */

static void alert_what(const struct gm_alert *a, char *buf, size_t len)
{
    if (a->gpu >= 0)
        snprintf(buf, len, "%s %s (GPU %d)", a->rule, gm_alert_state_name(a->state), (int)a->gpu);
    else
        snprintf(buf, len, "%s %s", a->rule, gm_alert_state_name(a->state));
}

static void handle_one(struct chan *c, const struct gm_alert *a)
{
    struct gm_buf b = GM_BUF_INIT;
    char what[160];
    alert_what(a, what, sizeof(what));
    switch (c->type) {
    case GM_NT_NONE:
        gm_alert_json(a, &b);
        gm_buf_putc(&b, '\n');
        deliver(c, attempt_log, &b, what);
        break;
    case GM_NT_EXEC: {
        gm_alert_json(a, &b);
        gm_buf_putc(&b, '\n');
        struct exec_arg x = {a, &b};
        deliver(c, attempt_exec, &x, what);
        break;
    }
    case GM_NT_WEBHOOK: {
        if (c->conf.body[0])
            gm_tpl_expand(c->conf.body, a, gm_tpl_escape_for(c->conf.content_type), &b);
        else
            gm_alert_json(a, &b);
        struct http_arg h = {&b, c->conf.content_type};
        deliver(c, attempt_http, &h, what);
        break;
    }
    default:
        break;
    }
    gm_buf_free(&b);
}

static int find_firing(const struct chan *c, const char *fingerprint)
{
    for (int i = 0; i < c->nfiring; i++)
        if (strncmp(c->firing[i].fingerprint, fingerprint, sizeof(c->firing[i].fingerprint)) == 0)
            return i;
    return -1;
}

/* POSTs every firing alert plus the resolved ones in `resolved`. */
static void am_post(struct chan *c, const struct gm_alert *resolved, int nresolved)
{
    int n = c->nfiring + nresolved;
    if (n == 0)
        return;
    const struct gm_alert **list = gm_xcalloc((size_t)n, sizeof(const struct gm_alert *));
    int k = 0;
    for (int i = 0; i < c->nfiring; i++)
        list[k++] = &c->firing[i];
    for (int i = 0; i < nresolved; i++)
        list[k++] = &resolved[i];
    struct gm_buf b = GM_BUF_INIT;
    gm_am_body(list, n, gm_wall_ns(), c->conf.resend_ns, &b);
    free(list);
    char what[96];
    snprintf(what, sizeof(what), "POST of %d firing and %d resolved alert%s", c->nfiring, nresolved,
             c->nfiring + nresolved == 1 ? "" : "s");
    struct http_arg h = {&b, "application/json"};
    deliver(c, attempt_http, &h, what);
    gm_buf_free(&b);
    c->next_resend = c->nfiring ? gm_mono_ns() + c->conf.resend_ns : 0;
}

/* Applies a batch of notices to the firing set and POSTs what changed. */
static void am_batch(struct chan *c, const struct gm_alert *batch, int n)
{
    struct gm_alert *resolved = gm_xcalloc((size_t)n, sizeof(*resolved));
    int nresolved = 0, changed = 0;
    for (int i = 0; i < n; i++) {
        const struct gm_alert *a = &batch[i];
        int at = find_firing(c, a->fingerprint);
        if (a->state == GM_AL_FIRING) {
            if (at < 0) {
                if (c->nfiring == AM_MAX_FIRING) {
                    pthread_mutex_lock(&c->mu);
                    c->st.dropped++;
                    pthread_mutex_unlock(&c->mu);
                    continue;
                }
                if (c->nfiring == c->capfiring) {
                    c->capfiring = c->capfiring ? c->capfiring * 2 : 16;
                    c->firing = gm_xrealloc(c->firing, (size_t)c->capfiring * sizeof(*c->firing));
                }
                at = c->nfiring++;
            }
            c->firing[at] = *a;
            if (a->repeat != 2)
                changed = 1; /* a resync only joins the set; the next re-send tells */
            else if (!c->next_resend)
                c->next_resend = gm_mono_ns() + c->conf.resend_ns;
        } else if (a->state == GM_AL_RESOLVED) {
            if (at >= 0)
                c->firing[at] = c->firing[--c->nfiring];
            if (c->conf.send_resolved && a->repeat != 2) {
                resolved[nresolved++] = *a;
                changed = 1;
            }
        }
    }
    if (changed)
        am_post(c, resolved, nresolved);
    else if (!c->nfiring)
        c->next_resend = 0;
    free(resolved);
}

static void *run(void *arg)
{
    struct chan *c = arg;
    struct gm_alert *batch = c->type == GM_NT_ALERTMANAGER ? gm_xcalloc(c->cap, sizeof(*batch))
                                                           : gm_xmalloc(sizeof(*batch));
    pthread_mutex_lock(&c->mu);
    for (;;) {
        int resend_due = 0;
        while (c->len == 0 && !c->stopping && !c->abort) {
            if (c->next_resend) {
                int64_t now = gm_mono_ns();
                if (now >= c->next_resend) {
                    resend_due = 1;
                    break;
                }
                struct timespec ts = {.tv_sec = (time_t)(c->next_resend / SEC),
                                      .tv_nsec = (long)(c->next_resend % SEC)};
                pthread_cond_timedwait(&c->cv, &c->mu, &ts);
            } else {
                pthread_cond_wait(&c->cv, &c->mu);
            }
        }
        if (c->abort || (c->len == 0 && !resend_due))
            break; /* aborted, or stopping with nothing left */
        if (resend_due) {
            pthread_mutex_unlock(&c->mu);
            am_post(c, NULL, 0);
            pthread_mutex_lock(&c->mu);
            continue;
        }
        int n = 0;
        int max = c->type == GM_NT_ALERTMANAGER ? (int)c->cap : 1;
        while (c->len > 0 && n < max) {
            batch[n++] = c->ring[c->head];
            c->head = (c->head + 1) % c->cap;
            c->len--;
        }
        pthread_mutex_unlock(&c->mu);
        if (c->type == GM_NT_ALERTMANAGER)
            am_batch(c, batch, n);
        else
            handle_one(c, batch);
        pthread_mutex_lock(&c->mu);
    }
    unsigned lost = c->len;
    c->st.dropped += lost;
    c->len = 0;
    pthread_mutex_unlock(&c->mu);
    if (lost)
        gm_log(GM_LOG_WARNING, "notify %s: %u alert%s still queued at shutdown, not delivered",
               c->name, lost, lost == 1 ? "" : "s");
    free(batch);
    if (c->client)
        c->http->close(c->client);
    c->client = NULL;
    pthread_mutex_lock(&c->mu);
    c->done = 1;
    pthread_cond_broadcast(&c->done_cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* --------------------------------------------------------- start / stop */

static struct chan *chan_new(const char *name, int type, unsigned cap)
{
    struct chan *c = gm_xcalloc(1, sizeof(*c));
    gm_strlcpy(c->name, name, sizeof(c->name));
    gm_strlcpy(c->st.name, name, sizeof(c->st.name));
    c->type = type;
    c->st.type = type;
    c->cap = cap ? cap : 64;
    c->ring = gm_xcalloc(c->cap, sizeof(struct gm_alert));
    pthread_mutex_init(&c->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &ca);
    pthread_cond_init(&c->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    return c;
}

static void chan_free(struct chan *c)
{
    if (c->client)
        c->http->close(c->client);
    gm_argv_free(c->argv);
    free(c->firing);
    free(c->ring);
    pthread_cond_destroy(&c->cv);
    pthread_cond_destroy(&c->done_cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Sets up what a configured channel needs before its worker starts. */
static int chan_prepare(struct chan *c, const struct gm_notify_conf *conf, struct gm_err *err)
{
    char why[400];
    c->conf = *conf;
    if (gm_notify_conf_check(conf, why, sizeof(why)) != 0)
        return gm_err_set(err, GM_E_INVAL, "[notify.%s]: %s", conf->name, why);
    if (conf->type == GM_NT_EXEC) {
        if (gm_argv_split(conf->command, &c->argv, why, sizeof(why)) < 0)
            return gm_err_set(err, GM_E_INVAL, "[notify.%s]: command: %s", conf->name, why);
        return 0;
    }
    if (conf->ca_file[0] && access(conf->ca_file, R_OK) != 0)
        return gm_err_set(err, GM_E_IO, "[notify.%s]: ca-file %s: %s", conf->name, conf->ca_file,
                          strerror(errno));
    if (conf->type == GM_NT_ALERTMANAGER)
        gm_am_url(conf->url, c->url, sizeof(c->url));
    else
        gm_strlcpy(c->url, conf->url, sizeof(c->url));
    struct gm_err e = {0};
    c->http = gm_notify_http_load(&e);
    if (!c->http)
        return gm_err_set(err, e.code, "[notify.%s]: %s", conf->name, e.msg);
    c->client = c->http->open();
    if (!c->client)
        return gm_err_set(err, GM_E_NOMEM, "[notify.%s]: cannot create an HTTP client", conf->name);
    return 0;
}

struct gm_notifier *gm_notifier_start(const char *log_path, const struct gm_notify_conf *confs,
                                      int nconfs, unsigned queue_size, struct gm_err *err)
{
    if (!log_path || !log_path[0]) {
        gm_err_set(err, GM_E_INVAL, "no alert log path");
        return NULL;
    }
    if (nconfs < 0 || nconfs > GM_NOTIFY_MAX) {
        gm_err_set(err, GM_E_INVAL, "at most %d [notify.NAME] sections", GM_NOTIFY_MAX);
        return NULL;
    }
    if (strlen(log_path) >= PATH_MAX) {
        gm_err_set(err, GM_E_INVAL, "alert log path too long");
        return NULL;
    }
    struct gm_err le = {0};
    int fd = log_open(log_path, &le);
    if (fd < 0) {
        if (le.code == GM_E_NOTFOUND) /* its directory is missing */
            gm_err_set(err, GM_E_IO, "cannot open the alert log %s: %s", log_path,
                       strerror(ENOENT));
        else
            gm_err_set(err, le.code, "the alert log: %s", le.msg);
        return NULL;
    }
    close(fd);

    struct gm_notifier *nf = gm_xcalloc(1, sizeof(*nf));
    struct chan *log = chan_new("log", GM_NT_NONE, queue_size);
    gm_strlcpy(log->log_path, log_path, sizeof(log->log_path));
    nf->ch[nf->n++] = log;
    for (int i = 0; i < nconfs; i++) {
        for (int k = 0; k < i; k++)
            if (strcmp(confs[k].name, confs[i].name) == 0) {
                gm_err_set(err, GM_E_INVAL, "[notify.%s] given twice", confs[i].name);
                goto fail;
            }
        struct chan *c = chan_new(confs[i].name, confs[i].type, queue_size);
        nf->ch[nf->n++] = c;
        if (chan_prepare(c, &confs[i], err) != 0)
            goto fail;
    }

    /* workers take no asynchronous signals: those are the agent's main
     * thread's to handle */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < nf->n; i++) {
        int rc = pthread_create(&nf->ch[i]->thread, NULL, run, nf->ch[i]);
        if (rc != 0) {
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            gm_err_set(err, GM_E_NOMEM, "notify %s: cannot start a thread: %s", nf->ch[i]->name,
                       strerror(rc));
            nf->n = i; /* stop the ones started, free the rest */
            for (int k = i; k <= nconfs; k++)
                chan_free(nf->ch[k]);
            gm_notifier_stop(nf, 0);
            return NULL;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return nf;

fail:
    for (int i = 0; i < nf->n; i++)
        chan_free(nf->ch[i]);
    free(nf);
    return NULL;
}

/* Whether channel c takes alert a. */
static int wants(const struct chan *c, const struct gm_alert *a)
{
    if (c->type == GM_NT_NONE)
        return a->repeat != 2;
    if (c->type == GM_NT_ALERTMANAGER) {
        if (a->repeat == 1 || a->severity < c->conf.min_severity)
            return 0;
        return a->state == GM_AL_FIRING || a->state == GM_AL_RESOLVED;
    }
    if (a->repeat == 2 || a->severity < c->conf.min_severity)
        return 0;
    if (a->state == GM_AL_RESOLVED)
        return c->conf.send_resolved;
    return a->state == GM_AL_FIRING;
}

void gm_notifier_send(struct gm_notifier *nf, const struct gm_alert *a)
{
    if (!nf)
        return;
    for (int i = 0; i < nf->n; i++) {
        struct chan *c = nf->ch[i];
        if (!wants(c, a))
            continue;
        pthread_mutex_lock(&c->mu);
        if (c->len == c->cap || c->stopping) {
            c->st.dropped++;
        } else {
            c->ring[(c->head + c->len) % c->cap] = *a;
            c->len++;
            pthread_cond_signal(&c->cv);
        }
        pthread_mutex_unlock(&c->mu);
    }
}

int gm_notifier_stats(struct gm_notifier *nf, struct gm_notify_stats *out, int max)
{
    if (!nf)
        return 0;
    for (int i = 0; i < nf->n && i < max; i++) {
        struct chan *c = nf->ch[i];
        pthread_mutex_lock(&c->mu);
        out[i] = c->st;
        out[i].queue_len = c->len;
        pthread_mutex_unlock(&c->mu);
    }
    return nf->n;
}

/* Waits until c's worker is done or the monotonic deadline passes. */
static int wait_done(struct chan *c, int64_t deadline)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline / SEC), .tv_nsec = (long)(deadline % SEC)};
    pthread_mutex_lock(&c->mu);
    while (!c->done)
        if (pthread_cond_timedwait(&c->done_cv, &c->mu, &ts) != 0)
            break;
    int done = c->done;
    pthread_mutex_unlock(&c->mu);
    return done;
}

void gm_notifier_stop(struct gm_notifier *nf, int64_t timeout_ns)
{
    if (!nf)
        return;
    int64_t deadline = gm_mono_ns() + (timeout_ns > 0 ? timeout_ns : 0);
    for (int i = 0; i < nf->n; i++) {
        struct chan *c = nf->ch[i];
        pthread_mutex_lock(&c->mu);
        c->stopping = 1;
        c->stop_deadline = deadline;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    for (int i = 0; i < nf->n; i++) {
        struct chan *c = nf->ch[i];
        if (wait_done(c, deadline))
            continue;
        /* past the deadline: abort the request, kill the hook, drop the rest */
        pthread_mutex_lock(&c->mu);
        __atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    int64_t grace = gm_mono_ns() + STOP_GRACE_NS;
    for (int i = 0; i < nf->n; i++) {
        struct chan *c = nf->ch[i];
        if (wait_done(c, grace)) {
            pthread_join(c->thread, NULL);
            chan_free(c);
        } else {
            /* stuck in the kernel (a hung disk): leave it to the exit */
            gm_log(GM_LOG_ERR, "notify %s: the worker did not stop; leaving it", c->name);
            pthread_detach(c->thread);
        }
    }
    free(nf);
}

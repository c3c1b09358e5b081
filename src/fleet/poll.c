/* poll.c -- the fleet in rounds on a thread of its own, and the one round
 * `gpumon fleet` runs (see poll.h).
 *
 * Each round starts from the host list afresh (nothing of the last round's
 * answers is carried into the next), renders the document once and swaps
 * it in under the lock; a reader copies it and adds its age, so a request
 * never waits for a node.  The thread sleeps on a condition variable on the
 * monotonic clock, so that stopping does not wait out the interval.
 */
#include "poll.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/json.h"
#include "../core/modload.h"
#include "../core/timeutil.h"

#ifndef GM_FLEET_MODULE_INSTALLED
#define GM_FLEET_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_fleet.so"
#endif

/* ------------------------------------------------------------- module */

static int accept_fleet(const void *sym, char *why, size_t wlen)
{
    const struct gm_fleet_fetch_module *m = sym;
    if (m->abi != GM_FLEET_FETCH_ABI)
        return -1;
    return m->init(why, wlen);
}

const struct gm_fleet_fetch_module *gm_fleet_module_load(char *why, size_t wlen)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static const struct gm_fleet_fetch_module *mod;
    pthread_mutex_lock(&mu);
    if (!mod)
        mod = gm_module_load("GPUMON_FLEET_MODULE", "gpumon_fleet.so", GM_FLEET_MODULE_INSTALLED,
                             "gm_fleet_fetch_module", "fleet", accept_fleet, why, wlen);
    const struct gm_fleet_fetch_module *m = mod;
    pthread_mutex_unlock(&mu);
    return m;
}

/* -------------------------------------------------------------- round */

/* Reads one node's answers (its transfer x) into nd. */
static void read_answers(struct gm_fleet_node *nd, const struct gm_fleet_xfer *x, int64_t now,
                         int64_t stale_ns)
{
    nd->fetch_s = (double)x->elapsed_ns / 1e9;
    if (x->fail[0] != GM_FLEET_F_NONE || x->status[0] != 200) {
        gm_fleet_node_failed(nd, x->fail[0], x->status[0], x->error[0]);
        return;
    }
    if (gm_fleet_node_status(nd, x->body[0], x->len[0], now, stale_ns) != 0)
        return;
    if (x->fail[1] == GM_FLEET_F_NONE && x->status[1] == 200)
        gm_fleet_node_alerts(nd, x->body[1], x->len[1]);
    else if (nd->state == GM_FLEET_OK)
        gm_strlcpy(nd->reason, "alerts unknown: /api/v1/alerts did not answer", sizeof(nd->reason));
}

/* What the round's node_done reads each node's answers into. */
struct read_ctx {
    struct gm_fleet *f;
    struct gm_fleet_xfer *x;
    int64_t stale_ns;
    unsigned char *read; /* per node: its answers read (and freed) */
};

/* Reads node i's answers as soon as it has them, while the fetch waits
 * for the others, and frees them: with 1000 nodes they are tens of MiB,
 * and a hung node no longer holds the reading of all the rest. */
static void node_done(void *arg, size_t i)
{
    struct read_ctx *c = arg;
    read_answers(&c->f->node[i], &c->x[i], gm_wall_ns(), c->stale_ns);
    for (int k = 0; k < GM_FLEET_MAX_PATHS; k++) {
        free(c->x[i].body[k]);
        c->x[i].body[k] = NULL;
    }
    c->read[i] = 1;
}

int gm_fleet_fetch_round(const struct gm_fleet_fetch_module *m, struct gm_fleet *f,
                         const struct gm_fleet_fetch_opts *fo, int64_t stale_ns, char *why,
                         size_t wlen)
{
    struct gm_fleet_xfer *x = gm_xcalloc(f->n ? f->n : 1, sizeof(*x));
    for (uint32_t i = 0; i < f->n; i++) {
        x[i].base = f->node[i].base;
        x[i].paths[0] = "/api/v1/status";
        x[i].paths[1] = "/api/v1/alerts";
    }
    struct read_ctx c = {f, x, stale_ns, gm_xcalloc(f->n ? f->n : 1, 1)};
    struct gm_fleet_fetch_opts o = *fo;
    o.node_done = node_done;
    o.arg = &c;
    int rc = m->fetch(x, f->n, &o, why, wlen) != 0 ? -1 : 0;
    int64_t now = gm_wall_ns();
    for (uint32_t i = 0; i < f->n; i++) {
        if (rc == 0 && !c.read[i]) /* those the total deadline ended */
            read_answers(&f->node[i], &x[i], now, stale_ns);
        for (int k = 0; k < GM_FLEET_MAX_PATHS; k++)
            free(x[i].body[k]);
    }
    free(c.read);
    free(x);
    return rc;
}

int gm_fleet_prom_round(const struct gm_fleet_fetch_module *m, const char *url,
                        const struct gm_fleet_fetch_opts *fo, int64_t stale_ns, struct gm_fleet *f,
                        struct gm_err *err)
{
    size_t n = 0;
    while (gm_fleet_prom_queries[n])
        n++;
    char base[1024], why[256] = "";
    size_t bl = strlen(url);
    while (bl && url[bl - 1] == '/')
        bl--;
    snprintf(base, sizeof(base), "%.*s", (int)bl, url);
    struct gm_fleet_xfer *x = gm_xcalloc(n, sizeof(*x));
    char **paths = gm_xcalloc(n, sizeof(*paths));
    for (size_t i = 0; i < n; i++) {
        struct gm_buf p = GM_BUF_INIT;
        gm_buf_printf(&p, "/api/v1/query?query=%s", gm_fleet_prom_queries[i]);
        paths[i] = p.p;
        x[i].base = base;
        x[i].paths[0] = paths[i];
    }
    struct gm_fleet_fetch_opts o = *fo;
    o.max_body = 64u << 20;
    o.host_connections = (long)n; /* the queries at once, not one after the other */
    o.node_ns = o.total_ns;       /* one query each: the whole time */
    int rc = 0;
    if (m->fetch(x, n, &o, why, sizeof(why)) != 0)
        rc = gm_err_set(err, GM_E_IO, "%s", why);
    const char **body = gm_xcalloc(n, sizeof(*body));
    size_t *len = gm_xcalloc(n, sizeof(*len));
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (x[i].fail[0] != GM_FLEET_F_NONE || x[i].status[0] != 200) {
            struct gm_fleet_node probe = {0};
            gm_fleet_node_failed(&probe, x[i].fail[0], x[i].status[0], x[i].error[0]);
            rc = gm_err_set(err, GM_E_IO, "Prometheus %s: %s", base, probe.reason);
        }
        body[i] = x[i].body[0];
        len[i] = x[i].len[0];
    }
    struct gm_err e = {0};
    if (rc == 0 && gm_fleet_from_prometheus(f, body, len, stale_ns, &e) != 0)
        rc = gm_err_set(err, e.code, "Prometheus %s: %s", base, e.msg);
    for (size_t i = 0; i < n; i++) {
        free(x[i].body[0]);
        free(paths[i]);
    }
    free(body);
    free(len);
    free(paths);
    free(x);
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------- poller */

struct gm_fleet_poller {
    const struct gm_fleet_fetch_module *mod;
    uint32_t n;
    char (*host)[256]; /* [n] as given */
    char (*base)[300]; /* [n] */
    char *prometheus;  /* the source instead of the hosts, or NULL */
    struct gm_fleet_fetch_opts fo;
    char *cacert, *cert, *key, *user, *password; /* fo's strings, owned */
    int64_t interval_ns, stale_ns;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    /* the latest document (under mu) */
    struct gm_buf doc; /* render_json's, compact; "" before the first round */
    uint64_t round;
    int64_t fetched_ns;
    char round_error[256]; /* why the latest round failed as a whole, "" when it did not */
};

static char *dup_or_null(const char *s)
{
    return s ? gm_xstrdup(s) : NULL;
}

/* One round into a document; 0, or -1 with why when it failed as a whole. */
static int poll_round(struct gm_fleet_poller *p, struct gm_buf *out, char *why, size_t wlen)
{
    if (p->prometheus) {
        struct gm_fleet f = {0};
        struct gm_err err = {0};
        int rc = gm_fleet_prom_round(p->mod, p->prometheus, &p->fo, p->stale_ns, &f, &err);
        if (rc == 0)
            gm_fleet_render_json(&f, 0, out);
        else
            gm_strlcpy(why, err.msg, wlen);
        gm_fleet_clear(&f);
        return rc;
    }
    struct gm_fleet f = {.n = p->n, .node = gm_xcalloc(p->n, sizeof(struct gm_fleet_node))};
    for (uint32_t i = 0; i < p->n; i++) {
        gm_strlcpy(f.node[i].host, p->host[i], sizeof(f.node[i].host));
        gm_strlcpy(f.node[i].base, p->base[i], sizeof(f.node[i].base));
        f.node[i].age_ns = -1;
    }
    int rc = gm_fleet_fetch_round(p->mod, &f, &p->fo, p->stale_ns, why, wlen);
    if (rc == 0)
        gm_fleet_render_json(&f, 0, out);
    gm_fleet_clear(&f);
    return rc;
}

static void *poll_main(void *arg)
{
    struct gm_fleet_poller *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        pthread_mutex_unlock(&p->mu);
        int64_t start = gm_mono_ns();
        struct gm_buf doc = GM_BUF_INIT;
        char why[256] = "";
        int rc = poll_round(p, &doc, why, sizeof(why));
        pthread_mutex_lock(&p->mu);
        if (rc == 0 && doc.len > 2 && doc.p[0] == '{') {
            struct gm_buf old = p->doc;
            p->doc = doc;
            doc = old;
            p->round++;
            p->fetched_ns = gm_wall_ns();
            p->round_error[0] = '\0';
        } else {
            gm_strlcpy(p->round_error, why[0] ? why : "the round failed", sizeof(p->round_error));
        }
        gm_buf_free(&doc);
        /* the next round starts interval_ns after this one started */
        int64_t wake = start + p->interval_ns;
        while (!p->stop && gm_mono_ns() < wake) {
            struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000LL),
                                  .tv_nsec = (long)(wake % 1000000000LL)};
            pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

struct gm_fleet_poller *gm_fleet_poller_start(const struct gm_fleet_poll_opts *o,
                                              struct gm_err *err)
{
    if (!o->prometheus && (!o->nodes || o->nodes->n == 0)) {
        gm_err_set(err, GM_E_INVAL, "fleet: no nodes");
        return NULL;
    }
    char why[512] = "";
    const struct gm_fleet_fetch_module *m =
        o->module ? o->module : gm_fleet_module_load(why, sizeof(why));
    if (!m) {
        gm_err_set(err, GM_E_NOLIB,
                   "fleet: cannot load the HTTP client: %s" GM_MODULE_HINT(
                       "gpumon_fleet.so", "libcurl.so.4", "libcurl4"),
                   why);
        return NULL;
    }
    struct gm_fleet_poller *p = gm_xcalloc(1, sizeof(*p));
    p->mod = m;
    p->n = o->prometheus ? 0 : o->nodes->n;
    p->prometheus = dup_or_null(o->prometheus);
    p->host = gm_xcalloc(p->n ? p->n : 1, sizeof(*p->host));
    p->base = gm_xcalloc(p->n ? p->n : 1, sizeof(*p->base));
    for (uint32_t i = 0; i < p->n; i++) {
        gm_strlcpy(p->host[i], o->nodes->node[i].host, sizeof(p->host[i]));
        gm_strlcpy(p->base[i], o->nodes->node[i].base, sizeof(p->base[i]));
    }
    p->fo = o->fetch;
    p->fo.cacert = p->cacert = dup_or_null(o->fetch.cacert);
    p->fo.cert = p->cert = dup_or_null(o->fetch.cert);
    p->fo.key = p->key = dup_or_null(o->fetch.key);
    p->fo.user = p->user = dup_or_null(o->fetch.user);
    p->fo.password = p->password = dup_or_null(o->fetch.password);
    p->interval_ns = o->interval_ns > 0 ? o->interval_ns : 2000000000LL;
    p->stale_ns = o->stale_ns;
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&p->th, NULL, poll_main, p);
    if (rc != 0) {
        gm_err_set(err, GM_E_IO, "fleet: cannot start its thread: %s", strerror(rc));
        p->th = 0;
        gm_fleet_poller_stop(p);
        return NULL;
    }
    return p;
}

int gm_fleet_poller_json(struct gm_fleet_poller *p, struct gm_buf *out)
{
    pthread_mutex_lock(&p->mu);
    if (!p->round) {
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    int64_t age = gm_wall_ns() - p->fetched_ns;
    if (age < 0)
        age = 0;
    char head[256];
    snprintf(head, sizeof(head),
             "{\"round\":%llu,\"fetched_unix_ns\":%lld,\"age_seconds\":%.3f,"
             "\"interval_seconds\":%.3f,",
             (unsigned long long)p->round, (long long)p->fetched_ns, (double)age / 1e9,
             (double)p->interval_ns / 1e9);
    gm_buf_puts(out, head);
    if (p->round_error[0]) {
        gm_buf_puts(out, "\"round_error\":\"");
        gm_json_escape(out, p->round_error, strlen(p->round_error));
        gm_buf_puts(out, "\",");
    } else {
        gm_buf_puts(out, "\"round_error\":null,");
    }
    gm_buf_put(out, p->doc.p + 1, p->doc.len - 1); /* the document without its '{' */
    pthread_mutex_unlock(&p->mu);
    return 0;
}

int gm_fleet_poller_json_cb(void *p, struct gm_buf *out)
{
    return gm_fleet_poller_json(p, out);
}

void gm_fleet_poller_stop(struct gm_fleet_poller *p)
{
    if (!p)
        return;
    if (p->th) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->th, NULL);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    gm_buf_free(&p->doc);
    free(p->host);
    free(p->base);
    free(p->prometheus);
    free(p->cacert);
    free(p->cert);
    free(p->key);
    free(p->user);
    if (p->password)
        memset(p->password, 0, strlen(p->password));
    free(p->password);
    free(p);
}

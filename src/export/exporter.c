/* exporter.c -- the exporter sink and its HTTP server (see exporter.h).
 *
 * A rendered sample is a refcounted `struct body`: the text 0.0.4 and
 * OpenMetrics renderings, their gzip forms (made on first demand, then
 * kept), a libmicrohttpd response object per form (made on first demand,
 * then handed to every request: MHD counts its own references to it), and
 * what /healthz needs.  The sink thread renders and swaps the current body;
 * HTTP threads take a reference, queue the cached response and let go.  So
 * a scrape allocates nothing and copies nothing of ours.
 *
 * Requests are answered on the access handler's second call (the first
 * only says the headers are in), which is what lets MHD keep the
 * connection open for the next scrape.  Which endpoint a request goes to and
 * which form of the body it gets are decided in request.c, without MHD.
 *
 * The connection guard (a thread per listener) defends the connection
 * slots.  MHD's connection timeout is an idle timeout that every byte
 * resets, so a client trickling a header line every few seconds would hold
 * a slot for ever; the guard instead gives every request a deadline: its
 * headers must be in within connection-timeout of the connection opening
 * (or of the previous response being sent), and its response must be sent
 * within connection-timeout of that.  A connection past its deadline is
 * shut down (shutdown(2); MHD then sees the end of the stream and closes
 * it).  And when all max-connections slots are taken, a new connection
 * takes the place of the one that has waited longest for its request
 * headers, so a normal scrape is served even while slow clients hold every
 * slot.
 *
 * Basic auth never runs bcrypt on the two HTTP threads: credentials
 * verified once are allowed from a cache on the spot, and the others are
 * checked on the listener's verifier thread while their connection is
 * suspended, in a bounded queue served in turn per client address (the
 * verifier section), so a wrong-password flood delays neither the scrapes
 * of clients already verified nor, by more than a check per flooding
 * address, another address's first login.
 *
 * Before anything else a request is checked for what no client may send:
 * a request target with %00 or too many parameters (400, 414: on_target,
 * in MHD's URI callback), and, without basic auth or verified client
 * certificates, a Host that does not name the agent (421: DNS rebinding;
 * request.h).  Without auth, /api/v1/status also leaves command lines out
 * unless api-command-lines is set.
 *
 * A reload is a transaction: the new web config is loaded and the new
 * listening socket bound and served before anything of the old is let go;
 * on any error the running listener, web config and options stay as they
 * were.  The listener restarts only when its address, limits or TLS
 * material changed; new basic-auth users or headers are swapped in under
 * running connections, keeping the credentials verified so far.
 *
 * This file holds the body, the sink, the connection guard, the listener
 * and (re)configuration; the answers are exporter_http.c, the password
 * checks exporter_verify.c, and what they share exporter_int.h.
 */
#include "exporter.h"
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "exporter_int.h"
#include "listen.h"
#include "live.h"
#include "module.h"
#include "request.h"

#define DEFAULT_MAX_CONNECTIONS 512

#define DEFAULT_TIMEOUT_NS 10000000000LL

/* ------------------------------------------------------------------ body */

static struct body *body_new(void)
{
    struct body *b = gm_xcalloc(1, sizeof(*b));
    b->refs = 1;
    b->mem = 1;
    pthread_mutex_init(&b->mu, NULL);
    return b;
}

static struct body *body_ref(struct body *b)
{
    if (b)
        __atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
    return b;
}

static void body_mem_unref(struct body *b)
{
    if (__atomic_sub_fetch(&b->mem, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    gm_buf_free(&b->text.plain);
    gm_buf_free(&b->text.gz);
    gm_buf_free(&b->om.plain);
    gm_buf_free(&b->om.gz);
    gm_buf_free(&b->status);
    gm_buf_free(&b->page);
    gm_snapshot_unref(b->snap);
    gm_prom_state_free(b->state);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

/* MHD's free callback of a response made from b's buffers. */
void gm_ex_body_mem_release_cb(void *cls)
{
    body_mem_unref(cls);
}

void gm_ex_body_unref(struct body *b)
{
    if (!b || __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    /* no user is left to hand these out: drop the cache's references */
    for (int v = 0; v < NVARIANTS; v++)
        if (b->resp[v])
            MHD_destroy_response(b->resp[v]);
    if (b->status_resp)
        MHD_destroy_response(b->status_resp);
    body_mem_unref(b);
}

/* The plain form of r, rendered on first use (under the body's lock). */
const struct gm_buf *gm_ex_rendering_plain(struct body *b, struct rendering *r)
{
    pthread_mutex_lock(&b->mu);
    if (!r->done) {
        struct gm_prom_opts po = b->prom;
        po.openmetrics = r == &b->om;
        gm_prom_render(b->state, b->snap, &po, &b->self, &r->plain);
        r->done = 1;
    }
    pthread_mutex_unlock(&b->mu);
    return &r->plain;
}

static int gzip_buf(const struct gm_buf *in, struct gm_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    uLong bound = deflateBound(&z, (uLong)in->len);
    gm_buf_reset(out);
    gm_buf_reserve(out, bound);
    z.next_in = (Bytef *)in->p;
    z.avail_in = (uInt)in->len;
    z.next_out = (Bytef *)out->p;
    z.avail_out = (uInt)bound;
    int rc = deflate(&z, Z_FINISH);
    out->len = z.total_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* The gzip form of r, made on first use (under the body's lock). */
const struct gm_buf *gm_ex_rendering_gz(struct body *b, struct rendering *r)
{
    gm_ex_rendering_plain(b, r);
    pthread_mutex_lock(&b->mu);
    if (!r->gz_done) {
        if (gzip_buf(&r->plain, &r->gz) != 0)
            gm_buf_reset(&r->gz);
        r->gz_done = 1;
    }
    pthread_mutex_unlock(&b->mu);
    return r->gz.len ? &r->gz : NULL;
}

/* ------------------------------------------------------ security context */

/* What a context made now for allowed would hold besides the web config. */
static void sec_hosts(const char *allowed, char *hostname, size_t hlen, char *hosts, size_t alen)
{
    if (gethostname(hostname, hlen) != 0)
        hostname[0] = '\0';
    hostname[hlen - 1] = '\0';
    gm_strlcpy(hosts, allowed ? allowed : "", alen);
}

struct sec *gm_ex_sec_ref(struct sec *s)
{
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

void gm_ex_sec_unref(struct sec *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    gm_auth_free(s->auth);
    gm_webconfig_free(s->web);
    free(s);
}

/* Takes web (also on failure).  prev: the context it replaces, or NULL; its
 * verified credentials carry over (gm_auth_renew). */
static struct sec *sec_new_take(struct gm_webconfig *web, const struct sec *prev, uint64_t gen,
                                const char *allowed, int api_command_lines, struct gm_err *err)
{
    struct gm_auth *auth = NULL;
    if (web && gm_webconfig_basic_auth(web) &&
        gm_auth_renew(web, prev ? prev->auth : NULL, &auth, err) != 0) {
        gm_webconfig_free(web);
        return NULL;
    }
    struct sec *s = gm_xcalloc(1, sizeof(*s));
    s->refs = 1;
    s->gen = gen;
    s->web = web;
    s->auth = auth;
    s->host_check =
        !auth && !(web && gm_webconfig_tls(web) &&
                   gm_webconfig_client_auth(web) == GM_WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT);
    sec_hosts(allowed, s->hostname, sizeof(s->hostname), s->allowed_hosts,
              sizeof(s->allowed_hosts));
    s->command_lines = !s->host_check || api_command_lines;
    return s;
}

/* ------------------------------------------------------------- exporter */

struct body *gm_ex_current(struct gm_exporter *x, int64_t *stale_after_ns)
{
    pthread_mutex_lock(&x->mu);
    struct body *b = body_ref(x->cur);
    if (stale_after_ns)
        *stale_after_ns = x->stale_after_ns;
    pthread_mutex_unlock(&x->mu);
    return b;
}

struct sec *gm_ex_current_sec(struct gm_exporter *x)
{
    pthread_mutex_lock(&x->mu);
    struct sec *s = gm_ex_sec_ref(x->sec);
    pthread_mutex_unlock(&x->mu);
    return s;
}

/* --------------------------------------------------------------- textfile */

/* Replaces dir/gpumon.prom whole: a temporary with a name nobody can guess
 * (created O_EXCL, never through a link), renamed over it, relative to the
 * directory opened once for the write (safefile.h). */
static int write_textfile(const char *dir, const struct gm_buf *body, struct gm_err *err)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/gpumon.prom", dir);
    int dfd = -1;
    int rc = gm_safefile_dir_open(dir, &dfd, err);
    if (rc != 0)
        return rc;
    rc = gm_safefile_write(dfd, "gpumon.prom", body->p, body->len, 0644, path, err);
    close(dfd);
    return rc;
}

/* ------------------------------------------------------------------ sink */

static int sink_write(void *ctx, const struct gm_snapshot *s)
{
    struct gm_exporter *x = ctx;
    struct gm_prom_self self = {
        .scrapes = __atomic_load_n(&x->scrapes, __ATOMIC_RELAXED),
        .dropped = __atomic_load_n(&x->dropped, __ATOMIC_RELAXED),
        .page_renders = __atomic_load_n(&x->page_renders, __ATOMIC_RELAXED),
    };
    pthread_mutex_lock(&x->mu);
    struct gm_prom_opts po = x->prom;
    void (*status_json)(const struct gm_snapshot *, int, struct gm_buf *) = x->status_json;
    char textfile[sizeof(x->textfile_dir)];
    memcpy(textfile, x->textfile_dir, sizeof(textfile));
    pthread_mutex_unlock(&x->mu);

    pthread_mutex_lock(&x->render_mu);
    gm_prom_observe(x->state, s);
    struct body *b = body_new();
    b->state = gm_prom_state_clone(x->state);
    pthread_mutex_unlock(&x->render_mu);
    /* the sink holds its own reference for as long as the snapshot is queued:
     * take another for the body (the snapshot is immutable) */
    b->snap = gm_snapshot_ref((struct gm_snapshot *)s);
    b->prom = po;
    b->self = self;
    b->status_json = status_json;
    b->wall_ns = s->wall_ns;
    gm_live_ring_add(x->ring, s);
    b->driver = s->driver;
    gm_strlcpy(b->driver_msg, s->driver_msg, sizeof(b->driver_msg));

    /* the textfile first, while this thread still owns b alone */
    int rc = 0;
    if (textfile[0]) {
        struct gm_err e = {0};
        if (write_textfile(textfile, gm_ex_rendering_plain(b, &b->text), &e) != 0) {
            if (!x->textfile_failing)
                xlog(x, 3, "textfile: %s (reported once until it works again)", e.msg);
            x->textfile_failing = 1;
            rc = GM_E_IO;
        } else {
            if (x->textfile_failing)
                xlog(x, 5, "textfile: writing %s/gpumon.prom again", textfile);
            x->textfile_failing = 0;
        }
    }
    pthread_mutex_lock(&x->mu);
    struct body *old = x->cur;
    x->cur = b;
    pthread_mutex_unlock(&x->mu);
    gm_ex_body_unref(old);
    return rc;
}

/* An Xid event: counted in the state under the render lock, so the next
 * sample's rendering carries it (the scrape path never renders). */
static int sink_event(void *ctx, const struct gm_event *e)
{
    struct gm_exporter *x = ctx;
    if (e->type != GM_EV_XID)
        return 0;
    pthread_mutex_lock(&x->render_mu);
    gm_prom_xid(x->state, e->gpu, e->uuid, e->code);
    pthread_mutex_unlock(&x->render_mu);
    return 0;
}

static void sink_close(void *ctx)
{
    (void)ctx; /* the exporter outlives its sink: gm_exporter_stop frees it */
}

static const struct gm_sink_ops mod_sink_ops = {
    .name = "exporter", .write = sink_write, .event = sink_event, .close = sink_close};

static void mod_set_dropped(struct gm_exporter *x, uint64_t dropped)
{
    __atomic_store_n(&x->dropped, dropped, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ connection guard */

/* Under l->mu. */
static void conn_cut(struct listener *l, struct conn *c)
{
    shutdown(c->fd, SHUT_RDWR);
    c->cut = 1;
    l->live--;
}

static void *guard_run(void *arg)
{
    struct listener *l = arg;
    pthread_mutex_lock(&l->mu);
    while (!l->quit) {
        int64_t now = gm_mono_ns(), next = INT64_MAX;
        for (struct conn *c = l->head.next; c != &l->head; c = c->next) {
            if (c->cut)
                continue;
            int64_t due = c->since + l->timeout_ns;
            if (due <= now) {
                conn_cut(l, c);
                xlog(l->x, 7, "http: closed a connection %s for %.1f s",
                     c->waiting ? "waiting for a complete request" : "still answering a request",
                     (now - c->since) / 1e9);
            } else if (due < next) {
                next = due;
            }
        }
        if (l->trim_at && l->trim_at <= now) {
            /* the deferred give-back (held answers): the connections'
             * own memory is freed after their answers, so trim once they
             * are gone too, unless big answers are still held */
            l->trim_at = 0;
            if (__atomic_load_n(&l->x->held, __ATOMIC_ACQUIRE) < TRIM_MIN &&
                __atomic_exchange_n(&l->x->trim_owed, 0, __ATOMIC_ACQ_REL)) {
                pthread_mutex_unlock(&l->mu);
                malloc_trim(0);
                pthread_mutex_lock(&l->mu);
            }
            continue;
        }
        if (l->trim_at && l->trim_at < next)
            next = l->trim_at;
        l->guard_idle = next == INT64_MAX;
        if (l->guard_idle) {
            pthread_cond_wait(&l->cv, &l->mu);
        } else {
            next += 1000000; /* 1 ms late rather than early: no spin around the deadline */
            struct timespec ts = {.tv_sec = next / 1000000000LL, .tv_nsec = next % 1000000000LL};
            pthread_cond_timedwait(&l->cv, &l->mu, &ts);
        }
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    struct listener *l = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn *c = gm_xcalloc(1, sizeof(*c));
        c->l = l;
        c->fd = ci ? ci->connect_fd : -1;
        c->since = gm_mono_ns();
        c->waiting = 1;
        pthread_mutex_lock(&l->mu);
        c->prev = l->head.prev;
        c->next = &l->head;
        l->head.prev->next = c;
        l->head.prev = c;
        l->live++;
        int notice = 0;
        if (l->live > l->max_connections) {
            /* full: the connection that has waited longest for its request
             * gives way (this one, when every other is being answered) */
            struct conn *victim = NULL;
            for (struct conn *o = l->head.next; o != &l->head; o = o->next)
                if (!o->cut && o->waiting && (!victim || o->since < victim->since))
                    victim = o;
            conn_cut(l, victim ? victim : c);
            if (!l->evict_logged || c->since - l->evict_logged > 60000000000LL) {
                l->evict_logged = c->since;
                notice = 1;
            }
        }
        if (l->guard_idle) {
            l->guard_idle = 0;
            pthread_cond_signal(&l->cv);
        }
        pthread_mutex_unlock(&l->mu);
        *socket_ctx = c;
        if (notice)
            xlog(l->x, 5,
                 "http: all %u connection slots are taken: closing the connections that wait "
                 "longest for a request (slow or stalled clients); reported once a minute",
                 l->max_connections);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_ctx) {
        struct conn *c = *socket_ctx;
        pthread_mutex_lock(&l->mu);
        c->prev->next = c->next;
        c->next->prev = c->prev;
        if (!c->cut)
            l->live--;
        if (__atomic_load_n(&l->x->trim_owed, __ATOMIC_ACQUIRE)) {
            /* after the last close in a row; the guard may be waiting for
             * a later deadline, so wake it to wait for this one */
            l->trim_at = gm_mono_ns() + TRIM_DELAY_NS;
            l->guard_idle = 0;
            pthread_cond_signal(&l->cv);
        }
        pthread_mutex_unlock(&l->mu);
        free(c);
        *socket_ctx = NULL;
    }
}

static struct conn *conn_of(struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* A request's headers are in (waiting = 0: answering it), or its response
 * has been sent (waiting = 1: waiting for the next one); either starts a
 * new deadline. */
void gm_ex_conn_phase(struct MHD_Connection *mc, int waiting)
{
    struct conn *c = conn_of(mc);
    if (!c)
        return;
    pthread_mutex_lock(&c->l->mu);
    c->since = gm_mono_ns();
    c->waiting = waiting;
    pthread_mutex_unlock(&c->l->mu);
}

/* *req_cls of a request whose headers are in and that has no job. */
char gm_ex_headers_in;

/* *req_cls, from on_target, of a request whose target is refused: 400
 * (%00) or 414 (too many parameters).  Neither is a job. */
char gm_ex_target_nul, gm_ex_target_params;

static int is_job(const void *req_cls)
{
    return req_cls && req_cls != &gm_ex_headers_in && req_cls != &gm_ex_target_nul &&
           req_cls != &gm_ex_target_params;
}

/* MHD's URI callback: the request target as sent, before MHD decodes %XX
 * (which would cut the path or a parameter at a %00, unseen) and splits the
 * query into parameters.  Its answer is the request's first *req_cls.
 *
 * Too many parameters: libmicrohttpd 0.9 keeps an entry per parameter in
 * the connection's memory pool (MHD_OPTION_CONNECTION_MEMORY_LIMIT), and
 * about 500 of them fill it, so that neither our answer nor its own 431
 * fits and the client gets a closed connection.  So the query is cut here,
 * in MHD's buffer, before MHD splits it: MHD parses it right after this
 * call, from its own copy of where the '?' is (microhttpd.h: the callback
 * comes "before we modify URI or args"), and an empty query has no
 * parameters.  The request is then refused with 414 (tests/e2e/
 * exporter_hostile.py, many_params, catches a library that behaves
 * otherwise). */
static void *on_target(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    const char *why;
    switch (gm_request_target_check(uri, &why)) {
    case 400:
        return &gm_ex_target_nul;
    case 414: {
        char *q = strchr(uri, '?'); /* MHD's writable request buffer (see above) */
        if (q)
            q[1] = '\0';
        return &gm_ex_target_params;
    }
    default:
        return NULL;
    }
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct listener *l = cls;
    (void)toe;
    if (is_job(*req_cls)) {
        /* resumed after its check, but the client went away before the
         * handler could answer */
        gm_ex_job_release(l->ver, *req_cls);
        *req_cls = NULL;
    }
    gm_ex_conn_phase(mc, 1);
}

/* -------------------------------------------------------------- listener */

static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct gm_exporter *x = cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    xlog(x, 7, "http: %s", msg);
}

static int same_sockaddr(const struct sockaddr_storage *a, socklen_t al,
                         const struct sockaddr_storage *b, socklen_t bl)
{
    return al == bl && memcmp(a, b, al) == 0;
}

/* A listening socket for ss, or -1 with err set. */
static int bind_listen(const struct sockaddr_storage *ss, socklen_t sl, const char *addr,
                       struct gm_err *err)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        gm_err_set(err, GM_E_IO, "cannot listen on %s: %s", addr, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss->ss_family == AF_INET6) {
        /* "[::]:PORT" and ":PORT" take IPv4 too; a specific address only itself */
        int v6only = !IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr);
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
    }
    if (bind(fd, (const struct sockaddr *)ss, sl) != 0 || listen(fd, SOMAXCONN) != 0) {
        int e = errno;
        close(fd);
        gm_err_set(err, GM_E_IO, "cannot listen on %s: %s%s", addr, strerror(e),
                   e == EADDRNOTAVAIL ? " (not an address of this host)"
                   : e == EACCES      ? " (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
                                      : "");
        return -1;
    }
    return fd;
}

/* Stops MHD (closing its connections), then the guard.  Accepts NULL. */
static void listener_close(struct listener *l)
{
    if (!l)
        return;
    gm_ex_verifier_stop(l->ver); /* MHD must not stop with connections suspended */
    if (l->mhd)
        MHD_stop_daemon(l->mhd);
    gm_ex_verifier_free(l->ver);
    if (l->guard_started) {
        pthread_mutex_lock(&l->mu);
        l->quit = 1;
        pthread_cond_signal(&l->cv);
        pthread_mutex_unlock(&l->mu);
        pthread_join(l->guard, NULL);
    }
    while (l->head.next != &l->head) { /* none left after MHD_stop_daemon; to be sure */
        struct conn *c = l->head.next;
        l->head.next = c->next;
        free(c);
    }
    if (l->fd >= 0)
        close(l->fd);
    gm_ex_sec_unref(l->sec);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* Starts serving addr.  reuse: a running listener on the same address whose
 * socket to share (so that a restart never closes the port), or NULL to bind
 * a new one.  On error nothing is left running and err says why. */
static struct listener *listener_open(struct gm_exporter *x, const char *addr, unsigned maxc,
                                      int64_t timeout_ns, struct sec *s,
                                      const struct listener *reuse, struct gm_err *err)
{
    struct listener *l = gm_xcalloc(1, sizeof(*l));
    l->x = x;
    l->fd = -1;
    l->max_connections = maxc;
    l->timeout_ns = timeout_ns;
    l->sec = gm_ex_sec_ref(s);
    l->head.next = l->head.prev = &l->head;
    l->ver = gm_ex_verifier_new(l);
    gm_strlcpy(l->addr, addr, sizeof(l->addr));
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cv, &ca);
    pthread_condattr_destroy(&ca);

    char why[200];
    if (gm_listen_parse(addr, &l->ss, &l->sl, why, sizeof(why)) != 0) {
        gm_err_set(err, GM_E_INVAL, "listen \"%s\": %s", addr, why);
        goto fail;
    }
    if (reuse && same_sockaddr(&reuse->ss, reuse->sl, &l->ss, l->sl)) {
        if ((l->fd = fcntl(reuse->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
            gm_err_set(err, GM_E_IO, "cannot listen on %s: %s", addr, strerror(errno));
            goto fail;
        }
    } else if ((l->fd = bind_listen(&l->ss, l->sl, addr, err)) < 0) {
        goto fail;
    }
    if (pthread_create(&l->guard, NULL, guard_run, l) != 0) {
        gm_err_set(err, GM_E_IO, "cannot start the HTTP connection guard thread");
        goto fail;
    }
    l->guard_started = 1;

    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_TURBO |
                     MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    struct MHD_OptionItem tls[8];
    int nt = 0;
    if (s->web && gm_webconfig_tls(s->web)) {
        flags |= MHD_USE_TLS;
        tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0,
                                            (void *)gm_webconfig_cert_pem(s->web)};
        tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0,
                                            (void *)gm_webconfig_key_pem(s->web)};
        tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
                                            (void *)gm_webconfig_tls_priorities(s->web)};
        if (gm_webconfig_client_ca_pem(s->web))
            tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0,
                                                (void *)gm_webconfig_client_ca_pem(s->web)};
    }
    tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    unsigned timeout_s = (unsigned)((timeout_ns + 999999999LL) / 1000000000LL);
    /* MHD's own limit leaves room above ours for connections the guard has
     * shut down and MHD has not reaped yet; the guard keeps the number
     * being served at maxc */
    unsigned hard = maxc + (maxc / 4 > 16 ? maxc / 4 : 16);
    /* MHD closes the socket it is given, also when it fails to start: give
     * it a duplicate, and keep ours for the next listener on this address */
    int mfd = fcntl(l->fd, F_DUPFD_CLOEXEC, 0);
    if (mfd < 0) {
        gm_err_set(err, GM_E_IO, "cannot listen on %s: %s", addr, strerror(errno));
        goto fail;
    }
    l->mhd = MHD_start_daemon(
        flags, 0, NULL, NULL, gm_ex_handler, l, MHD_OPTION_LISTEN_SOCKET, mfd,
        MHD_OPTION_CONNECTION_LIMIT, hard, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024), MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)2, MHD_OPTION_NOTIFY_CONNECTION, on_connection, l, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, l, MHD_OPTION_URI_LOG_CALLBACK, on_target, l, MHD_OPTION_EXTERNAL_LOGGER,
        mhd_log, x, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
    if (!l->mhd) {
        gm_err_set(err, GM_E_IO, "cannot start the HTTP server on %s (debug log: http: ...)", addr);
        goto fail;
    }
    return l;
fail:
    listener_close(l);
    return NULL;
}

/* Stops l from taking new connections (its socket stays open for whoever
 * shares it); the ones it has keep being served until listener_close. */
static void listener_quiesce(struct listener *l)
{
    MHD_socket fd = MHD_quiesce_daemon(l->mhd);
    if (fd != MHD_INVALID_SOCKET)
        close(fd); /* MHD's duplicate; l->fd keeps the socket */
}

/* ------------------------------------------------------------ (re)config */

/* Applies o to x as one transaction: everything that can fail (the
 * textfile directory, the web config, binding and starting a new listener)
 * happens first, with the running settings untouched; then the swap, which
 * cannot fail; then the old listener is let go. */
static int apply_opts(struct gm_exporter *x, const struct gm_exporter_opts *o, struct gm_err *err)
{
    const char *addr = o->listen ? o->listen : "";
    unsigned maxc = o->max_connections ? o->max_connections : DEFAULT_MAX_CONNECTIONS;
    int64_t timeout_ns = o->connection_timeout_ns ? o->connection_timeout_ns : DEFAULT_TIMEOUT_NS;
    if (o->textfile_dir && *o->textfile_dir) {
        int dfd = -1;
        struct gm_err e = {0};
        if (gm_safefile_dir_open(o->textfile_dir, &dfd, &e) != 0)
            return gm_err_set(err, e.code, "textfile-dir: %s", e.msg);
        close(dfd);
        if (access(o->textfile_dir, W_OK) != 0)
            return gm_err_set(err, GM_E_IO, "textfile-dir %s: %s", o->textfile_dir,
                              strerror(errno));
    }
    struct gm_webconfig *web = NULL;
    int rc;
    if (o->web_config && *o->web_config && (rc = gm_webconfig_load(o->web_config, &web, err)) != 0)
        return rc;

    /* x->sec and x->lis are written only by this thread: read them unlocked */
    struct sec *s;
    char hostname[sizeof(s->hostname)], hosts[sizeof(s->allowed_hosts)];
    sec_hosts(o->allowed_hosts, hostname, sizeof(hostname), hosts, sizeof(hosts));
    if (x->sec && gm_webconfig_equal(x->sec->web, web) && !strcmp(x->sec->hostname, hostname) &&
        !strcmp(x->sec->allowed_hosts, hosts) &&
        x->sec->command_lines == (!x->sec->host_check || o->api_command_lines)) {
        /* the same settings: keep the running context (and its auth cache) */
        gm_webconfig_free(web);
        s = gm_ex_sec_ref(x->sec);
    } else if (!(s = sec_new_take(web, x->sec, x->sec_gen + 1, o->allowed_hosts,
                                  o->api_command_lines, err))) {
        return GM_E_INVAL;
    }

    struct listener *old = x->lis, *fresh = NULL;
    int restart = !old != !addr[0];
    if (old && addr[0] && !restart) {
        struct sockaddr_storage ss;
        socklen_t sl;
        char why[200];
        restart = gm_listen_parse(addr, &ss, &sl, why, sizeof(why)) != 0 ||
                  !same_sockaddr(&old->ss, old->sl, &ss, sl) || old->max_connections != maxc ||
                  old->timeout_ns != timeout_ns || !gm_webconfig_tls_equal(old->sec->web, s->web);
    }
    if (!x->sec) {
        /* the first configuration: the listener answers as soon as it is
         * open, and its handler reads x->sec */
        pthread_mutex_lock(&x->mu);
        x->sec = gm_ex_sec_ref(s);
        x->sec_gen = s->gen;
        pthread_mutex_unlock(&x->mu);
    }
    if (restart && addr[0] && !(fresh = listener_open(x, addr, maxc, timeout_ns, s, old, err))) {
        gm_ex_sec_unref(s);
        return GM_E_IO;
    }

    pthread_mutex_lock(&x->mu);
    x->prom = o->prom;
    gm_strlcpy(x->textfile_dir, o->textfile_dir ? o->textfile_dir : "", sizeof(x->textfile_dir));
    gm_strlcpy(x->store_path, o->store_path ? o->store_path : "", sizeof(x->store_path));
    x->usage_json = o->usage_json;
    x->stale_after_ns = o->stale_after_ns;
    x->status_json = o->status_json;
    x->alerts = o->alerts;
    x->alerts_arg = o->alerts_arg;
    x->fleet_json = o->fleet_json;
    x->fleet_arg = o->fleet_arg;
    x->fleet_only = o->fleet_only;
    struct sec *old_sec = x->sec;
    x->sec = s;
    x->sec_gen = s->gen;
    pthread_mutex_unlock(&x->mu);
    gm_ex_sec_unref(old_sec);
    if (restart) {
        x->lis = fresh;
        if (old) {
            listener_quiesce(old); /* the new one takes every new connection */
            listener_close(old);
        }
    }
    return 0;
}

static void exporter_free(struct gm_exporter *x)
{
    listener_close(x->lis);
    gm_ex_body_unref(x->cur);
    gm_ex_sec_unref(x->sec);
    gm_prom_state_free(x->state);
    gm_live_ring_free(x->ring);
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->render_mu);
    free(x);
}

static struct gm_exporter *mod_start(const struct gm_exporter_opts *o, struct gm_err *err)
{
    struct gm_exporter *x = gm_xcalloc(1, sizeof(*x));
    pthread_mutex_init(&x->mu, NULL);
    pthread_mutex_init(&x->render_mu, NULL);
    x->state = gm_prom_state_new();
    x->ring = gm_live_ring_new();
    x->log = o->log;
    x->log_arg = o->log_arg;
    if (apply_opts(x, o, err) != 0) {
        exporter_free(x);
        return NULL;
    }
    return x;
}

static int mod_reconfigure(struct gm_exporter *x, const struct gm_exporter_opts *o,
                           struct gm_err *err)
{
    return apply_opts(x, o, err);
}

static void mod_stop(struct gm_exporter *x)
{
    if (x)
        exporter_free(x);
}

/* x->lis is the caller's (the thread that starts and reconfigures x); its
 * security context is the TLS material the listener was started with. */
static void mod_url(struct gm_exporter *x, char *buf, size_t len)
{
    const struct listener *l = x->lis;
    if (!l) {
        snprintf(buf, len, "%s", "");
        return;
    }
    int tls = l->sec->web && gm_webconfig_tls(l->sec->web);
    snprintf(buf, len, "%s://%s", tls ? "https" : "http", l->addr);
}

static int mod_check_web_config(const char *path, struct gm_err *err)
{
    struct gm_webconfig *wc = NULL;
    int rc = gm_webconfig_load(path, &wc, err);
    gm_webconfig_free(wc);
    return rc;
}

/* The module's only export (see module.h). */
__attribute__((visibility("default"))) const struct gm_export_module gm_export_module = {
    .abi = GM_EXPORT_MODULE_ABI,
    .start = mod_start,
    .reconfigure = mod_reconfigure,
    .set_dropped = mod_set_dropped,
    .stop = mod_stop,
    .sink_ops = &mod_sink_ops,
    .check_web_config = mod_check_web_config,
    .url = mod_url,
};

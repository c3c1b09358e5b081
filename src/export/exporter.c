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
 */
#include "exporter.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/log.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "listen.h"
#include "live.h"
#include "module.h"
#include "request.h"
#include "webconfig.h"

#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define DEFAULT_MAX_CONNECTIONS 512
#define DEFAULT_TIMEOUT_NS 10000000000LL
/* held answers (the section of that name) */
#define HELD_MAX ((size_t)32 << 20)   /* bytes of one-off answers waiting, at most */
#define HELD_SMALL ((size_t)64 << 10) /* answers never refused */
#define TRIM_MIN ((size_t)256 << 10)  /* freeing this much is worth a malloc_trim */
#define TRIM_EVERY_NS 100000000LL     /* at most this often while answers are held */
#define TRIM_DELAY_NS 200000000LL     /* the deferred trim, after the last close */

/* ------------------------------------------------------------------ body */

struct rendering {
    int done;
    struct gm_buf plain;
    struct gm_buf gz; /* empty until first asked for */
    int gz_done;
};

/* The four forms a scrape may get, each with its own cached response. */
enum { V_TEXT, V_TEXT_GZ, V_OM, V_OM_GZ, NVARIANTS };

/* A published sample: rendered on the first scrape that wants each form
 * (text or OpenMetrics, plain or gzip), then kept, so an exporter nobody
 * scrapes costs almost nothing and a scraped one renders once per sample.
 *
 * Two counts: refs are its users (the exporter's current pointer, requests
 * being answered); mem keeps the buffers alive for the users as a whole
 * (one) and for each MHD response made from them (one each, released by
 * MHD's free callback once the last connection sending it is done).  When
 * the last user goes, the cached responses are let go (MHD may still be
 * sending them), and the buffers follow when the last response does. */
struct body {
    int refs;
    int mem;
    pthread_mutex_t mu;          /* lazy rendering, gzip, the response cache */
    struct gm_snapshot *snap;    /* reference */
    struct gm_prom_state *state; /* the counters as of this sample */
    struct gm_prom_opts prom;
    struct gm_prom_self self;
    struct rendering text, om;
    /* /api/v1/status: the status document, rendered on the first request
     * (status_json NULL: none), with command lines or without
     * (status_cmd), and its cached response */
    void (*status_json)(const struct gm_snapshot *s, int command_lines, struct gm_buf *out);
    struct gm_buf status;
    int status_done;
    int status_cmd;
    struct MHD_Response *status_resp;
    uint64_t status_gen;
    struct MHD_Response *resp[NVARIANTS]; /* set once; one MHD reference each */
    uint64_t resp_gen[NVARIANTS];         /* the security context they carry headers of */
    int64_t wall_ns;
    uint8_t driver;
    char driver_msg[256];
};

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
    gm_snapshot_unref(b->snap);
    gm_prom_state_free(b->state);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

/* MHD's free callback of a response made from b's buffers. */
static void body_mem_release_cb(void *cls)
{
    body_mem_unref(cls);
}

static void body_unref(struct body *b)
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
static const struct gm_buf *rendering_plain(struct body *b, struct rendering *r)
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
static const struct gm_buf *rendering_gz(struct body *b, struct rendering *r)
{
    rendering_plain(b, r);
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

/* What requests are checked against: the web config and its basic-auth
 * checker.  Immutable once made; refcounted, so that a reload can swap it
 * while requests still use the old one.  gen tells responses made with one
 * context's headers from another's. */
struct sec {
    int refs;
    uint64_t gen;
    struct gm_webconfig *web; /* NULL: plain HTTP, no auth, no extra headers */
    struct gm_auth *auth;     /* NULL: no basic auth */
    /* the Host check (DNS rebinding; gm_request_host_ok): on unless basic
     * auth or RequireAndVerifyClientCert authenticates every request */
    int host_check;
    char hostname[256];       /* gethostname() when the context was made */
    char allowed_hosts[1024]; /* allowed-hosts */
    /* /api/v1/status with command lines: authenticated (!host_check) or
     * api-command-lines */
    int command_lines;
};

/* What a context made now for allowed would hold besides the web config. */
static void sec_hosts(const char *allowed, char *hostname, size_t hlen, char *hosts, size_t alen)
{
    if (gethostname(hostname, hlen) != 0)
        hostname[0] = '\0';
    hostname[hlen - 1] = '\0';
    gm_strlcpy(hosts, allowed ? allowed : "", alen);
}

static struct sec *sec_ref(struct sec *s)
{
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

static void sec_unref(struct sec *s)
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

struct listener;

struct gm_exporter {
    pthread_mutex_t mu;        /* cur, sec and the option copies below */
    pthread_mutex_t render_mu; /* state: two sink threads may overlap during a reload */
    struct body *cur;
    struct sec *sec;
    uint64_t sec_gen;
    struct gm_prom_state *state;
    struct gm_prom_opts prom;
    char textfile_dir[4096];
    int64_t stale_after_ns;
    /* the live page's sources (exporter.h) */
    void (*status_json)(const struct gm_snapshot *s, int command_lines, struct gm_buf *out);
    int (*alerts)(void *arg, struct gm_alert_now *out, int max);
    void *alerts_arg;
    struct gm_live_ring *ring;                          /* the last hour, for /api/v1/history */
    void (*log)(void *arg, int level, const char *msg); /* set once, at start */
    void *log_arg;

    /* the HTTP server, or NULL; only the thread that starts, reconfigures
     * and stops the exporter touches this pointer */
    struct listener *lis;

    size_t held;         /* atomic: bytes of one-off answers MHD holds (held answers) */
    int trim_owed;       /* atomic: a big answer was freed since the last deferred trim */
    int64_t trim_ns;     /* atomic: monotonic ns of the last malloc_trim */
    int64_t held_logged; /* atomic: monotonic ns of the last notice about HELD_MAX */
    uint64_t scrapes;    /* atomic */
    uint64_t dropped;    /* atomic, from the agent */
    int textfile_failing;
};

/* The exporter's log (x->log may be NULL). */
#define xlog(x, level, ...) gm_logf((x)->log, (x)->log_arg, (level), __VA_ARGS__)

static struct body *current(struct gm_exporter *x, int64_t *stale_after_ns)
{
    pthread_mutex_lock(&x->mu);
    struct body *b = body_ref(x->cur);
    if (stale_after_ns)
        *stale_after_ns = x->stale_after_ns;
    pthread_mutex_unlock(&x->mu);
    return b;
}

static struct sec *current_sec(struct gm_exporter *x)
{
    pthread_mutex_lock(&x->mu);
    struct sec *s = sec_ref(x->sec);
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
        if (write_textfile(textfile, rendering_plain(b, &b->text), &e) != 0) {
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
    body_unref(old);
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

/* One accepted connection, as the guard sees it.  Lives from MHD's
 * "started" notification to its "closed" one; the fd is valid in between,
 * and the guard touches it only under the listener's lock, which the
 * "closed" notification takes too, so it never shuts down a reused fd. */
struct conn {
    struct conn *prev, *next;
    struct listener *l;
    int fd;
    int64_t since; /* monotonic ns: the start of the current deadline */
    int waiting;   /* waiting for a request's headers (not answering one) */
    int cut;       /* shut down by the guard; MHD closes it soon */
};

struct verifier; /* below: the password checks that need bcrypt */

struct listener {
    struct gm_exporter *x;
    struct MHD_Daemon *mhd;
    int fd; /* the listening socket (MHD serves a duplicate of it) */
    struct sockaddr_storage ss;
    socklen_t sl;
    char addr[256];
    unsigned max_connections;
    int64_t timeout_ns;
    struct sec *sec; /* the TLS material MHD was started with */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct conn head; /* sentinel of the list of connections */
    unsigned live;    /* connections not cut */
    int guard_idle;   /* the guard waits with no deadline (no connection) */
    int quit;
    int guard_started;
    pthread_t guard;
    int64_t evict_logged; /* monotonic ns of the last notice about a full server */
    int64_t trim_at;      /* monotonic ns of the deferred malloc_trim, or 0 (held answers) */

    struct verifier *ver; /* made with the listener, its thread started on first use */
};

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
static void conn_phase(struct MHD_Connection *mc, int waiting)
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
static char headers_in;

/* *req_cls, from on_target, of a request whose target is refused: 400
 * (%00) or 414 (too many parameters).  Neither is a job. */
static char target_nul, target_params;

static int is_job(const void *req_cls)
{
    return req_cls && req_cls != &headers_in && req_cls != &target_nul && req_cls != &target_params;
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
        return &target_nul;
    case 414: {
        char *q = strchr(uri, '?'); /* MHD's writable request buffer (see above) */
        if (q)
            q[1] = '\0';
        return &target_params;
    }
    default:
        return NULL;
    }
}

struct vjob;
static void job_release(struct verifier *v, struct vjob *j);

static void on_completed(void *cls, struct MHD_Connection *mc, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct listener *l = cls;
    (void)toe;
    if (is_job(*req_cls)) {
        /* resumed after its check, but the client went away before the
         * handler could answer */
        job_release(l->ver, *req_cls);
        *req_cls = NULL;
    }
    conn_phase(mc, 1);
}

/* -------------------------------------------------------------- verifier */

/* The password checks that need bcrypt run here, on one thread per
 * listener, never on the HTTP threads.  A request whose credentials are not
 * in the cache of verified ones (gm_auth_begin) is suspended
 * (MHD_suspend_connection) and queued; the thread computes the bcrypt
 * (gm_auth_verify), records the verdict in the job and resumes the
 * connection, and MHD calls the handler again, which answers.  Meanwhile
 * the HTTP threads go on serving everyone else, and a client whose
 * credentials were verified once is answered from the cache at once, however
 * many wrong passwords are waiting.  One thread: bcrypt is CPU, and the
 * exporter's work is serving scrapes, so at most one core goes to checking
 * passwords.
 *
 * The queue is bounded and fair: the waiting checks are grouped by client
 * address (an IPv4 address, or the /64 of an IPv6 one) and taken in turn, one
 * per address, so a flood from one address delays another address's first
 * login by at most one check per flooding address.  An address may have
 * VERIFY_PER_CLIENT checks waiting and all addresses VERIFY_MAX_WAITING.  A
 * request beyond that is refused unchecked (its credentials neither
 * accepted nor refused): 429 with Retry-After: 1, held back for
 * VERIFY_BUSY_DELAY_NS first, so that a client that asks again at once
 * costs one request a second per connection instead of a busy loop; at most
 * VERIFY_MAX_DELAYED are held back (they hold connection slots), the others
 * get their 429 at once.
 *
 * MHD must not be stopped while a connection is suspended: verifier_stop
 * stops the thread, which first answers every job still queued or held back
 * (503, 429) without a check, and then waits until every job's request has
 * let go of it. */

#define VERIFY_MAX_WAITING 64
#define VERIFY_PER_CLIENT 4
#define VERIFY_MAX_DELAYED 64
#define VERIFY_BUSY_DELAY_NS 1000000000LL
#define VERIFY_DRAIN_NS 5000000000LL /* verifier_stop's wait for requests to let go */

enum job_state { JOB_UNCHECKED, JOB_ALLOWED, JOB_DENIED, JOB_BUSY, JOB_DROPPED };

/* A suspended request's check; the request's *req_cls from submission until
 * the handler (or on_completed, when the client went away) releases it. */
struct vjob {
    struct vjob *next;
    struct MHD_Connection *c;
    struct sec *sec; /* a reference: the context whose checker decides */
    struct gm_auth_pending *pending;
    int64_t due; /* monotonic ns: when a held-back job gets its 429 */
    int state;   /* enum job_state; written by the thread before it resumes c */
};

/* A client address with checks waiting; in the ring while it has any. */
struct vclient {
    struct vclient *next;
    unsigned char addr[17]; /* family byte, then 4 or 8 address bytes, zero-padded */
    struct vjob *head, *tail;
    unsigned n;
};

struct verifier {
    struct listener *l;
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* work for the thread; or, when quitting, a job let go */
    struct vclient *ring; /* the address whose turn it is; then the others in turn */
    struct vclient *ring_tail;
    struct vjob *delayed, *delayed_tail; /* held-back refusals, by due time */
    unsigned waiting;                    /* jobs queued, all addresses */
    unsigned ndelayed;
    unsigned outstanding; /* jobs submitted and not yet released */
    int quit;
    int started;
    pthread_t thread;
    int64_t busy_logged; /* monotonic ns of the last notice about a full queue */
};

/* The address key of the connection's client. */
static void client_key(struct MHD_Connection *c, unsigned char key[17])
{
    memset(key, 0, 17);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a6)) { /* an IPv4 client of a [::] listener */
            key[0] = 4;
            memcpy(key + 1, a6->s6_addr + 12, 4);
        } else {
            key[0] = 6;
            memcpy(key + 1, a6->s6_addr, 8); /* one /64 is one client */
        }
    }
}

/* The job's request is done with it (answered, or its connection closed). */
static void job_release(struct verifier *v, struct vjob *j)
{
    gm_auth_pending_free(j->pending);
    sec_unref(j->sec);
    free(j);
    pthread_mutex_lock(&v->mu);
    if (--v->outstanding == 0 && v->quit)
        pthread_cond_broadcast(&v->cv);
    pthread_mutex_unlock(&v->mu);
}

/* Under v->mu: the next queued job, the ring turned to the next address. */
static struct vjob *take_queued(struct verifier *v)
{
    struct vclient *vc = v->ring;
    struct vjob *j = vc->head;
    vc->head = j->next;
    if (!vc->head)
        vc->tail = NULL;
    vc->n--;
    v->waiting--;
    v->ring = vc->next;
    if (!v->ring)
        v->ring_tail = NULL;
    if (vc->n) { /* to the back of the ring */
        vc->next = NULL;
        if (v->ring_tail)
            v->ring_tail->next = vc;
        else
            v->ring = vc;
        v->ring_tail = vc;
    } else {
        free(vc);
    }
    return j;
}

/* Records j's verdict and resumes its connection; after this j belongs to
 * its request.  Called without v->mu. */
static void job_done(struct vjob *j, int state)
{
    __atomic_store_n(&j->state, state, __ATOMIC_RELEASE);
    MHD_resume_connection(j->c);
}

static void *verifier_run(void *arg)
{
    struct verifier *v = arg;
    pthread_mutex_lock(&v->mu);
    for (;;) {
        int64_t now = gm_mono_ns();
        struct vjob *j = NULL;
        int state = JOB_BUSY;
        if (v->delayed && (v->quit || v->delayed->due <= now)) {
            j = v->delayed;
            v->delayed = j->next;
            if (!v->delayed)
                v->delayed_tail = NULL;
            v->ndelayed--;
        } else if (v->ring) {
            j = take_queued(v);
            state = v->quit ? JOB_DROPPED : JOB_UNCHECKED;
        } else if (v->quit) {
            break;
        } else if (v->delayed) {
            struct timespec ts = {.tv_sec = v->delayed->due / 1000000000LL,
                                  .tv_nsec = v->delayed->due % 1000000000LL};
            pthread_cond_timedwait(&v->cv, &v->mu, &ts);
            continue;
        } else {
            pthread_cond_wait(&v->cv, &v->mu);
            continue;
        }
        pthread_mutex_unlock(&v->mu);
        if (state == JOB_UNCHECKED) {
            struct gm_auth_pending *p = j->pending;
            j->pending = NULL;
            state = gm_auth_verify(j->sec->auth, p) ? JOB_ALLOWED : JOB_DENIED;
        }
        job_done(j, state);
        pthread_mutex_lock(&v->mu);
    }
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

enum { SUBMIT_OK, SUBMIT_BUSY, SUBMIT_CLOSING };

/* Queues the check of p for the request on c (or, when the queue is full,
 * holds the request back for its 429) and suspends c; on SUBMIT_OK
 * *req_cls is the job.  SUBMIT_BUSY (answer 429 now) and SUBMIT_CLOSING
 * (503) leave c running.  Takes p, also on failure.  Called on an HTTP
 * thread, from the handler. */
static int verifier_submit(struct verifier *v, struct MHD_Connection *c, struct sec *s,
                           struct gm_auth_pending *p, void **req_cls)
{
    unsigned char key[17];
    client_key(c, key);
    pthread_mutex_lock(&v->mu);
    struct vclient *vc = v->ring;
    while (vc && memcmp(vc->addr, key, sizeof(key)) != 0)
        vc = vc->next;
    int queue = v->waiting < VERIFY_MAX_WAITING && (!vc || vc->n < VERIFY_PER_CLIENT);
    int rc = SUBMIT_OK;
    if (v->quit)
        rc = SUBMIT_CLOSING;
    else if ((!queue && v->ndelayed >= VERIFY_MAX_DELAYED) ||
             (!v->started && pthread_create(&v->thread, NULL, verifier_run, v) != 0))
        rc = SUBMIT_BUSY;
    else
        v->started = 1;
    int notice = 0;
    int64_t now = gm_mono_ns();
    if (!queue && rc != SUBMIT_CLOSING &&
        (!v->busy_logged || now - v->busy_logged > 60000000000LL)) {
        v->busy_logged = now;
        notice = 1;
    }
    unsigned waiting = v->waiting;
    if (rc == SUBMIT_OK) {
        struct vjob *j = gm_xcalloc(1, sizeof(*j));
        j->c = c;
        j->sec = sec_ref(s);
        j->state = JOB_UNCHECKED;
        /* suspended before the thread can see the job, so that its resume
         * always follows this suspend */
        MHD_suspend_connection(c);
        if (queue) {
            j->pending = p;
            p = NULL;
            if (!vc) {
                vc = gm_xcalloc(1, sizeof(*vc));
                memcpy(vc->addr, key, sizeof(key));
                if (v->ring_tail)
                    v->ring_tail->next = vc;
                else
                    v->ring = vc;
                v->ring_tail = vc;
            }
            if (vc->tail)
                vc->tail->next = j;
            else
                vc->head = j;
            vc->tail = j;
            vc->n++;
            v->waiting++;
        } else {
            j->due = now + VERIFY_BUSY_DELAY_NS;
            if (v->delayed_tail)
                v->delayed_tail->next = j;
            else
                v->delayed = j;
            v->delayed_tail = j;
            v->ndelayed++;
        }
        v->outstanding++;
        pthread_cond_signal(&v->cv);
        *req_cls = j;
    }
    pthread_mutex_unlock(&v->mu);
    gm_auth_pending_free(p);
    if (notice)
        xlog(v->l->x, 5,
             "http: %u password checks are waiting (at most %d, %d per client address): further "
             "logins that need one get 429 until there is room; reported once a minute",
             waiting, VERIFY_MAX_WAITING, VERIFY_PER_CLIENT);
    return rc;
}

static struct verifier *verifier_new(struct listener *l)
{
    struct verifier *v = gm_xcalloc(1, sizeof(*v));
    v->l = l;
    pthread_mutex_init(&v->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&v->cv, &ca);
    pthread_condattr_destroy(&ca);
    return v;
}

/* Stops the thread (the jobs still queued or held back are answered
 * unchecked) and waits until every request has let go of its job, so that
 * no connection of the listener stays suspended; then MHD may be stopped.
 * Accepts NULL. */
static void verifier_stop(struct verifier *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->mu);
    v->quit = 1;
    pthread_cond_broadcast(&v->cv);
    int started = v->started;
    pthread_mutex_unlock(&v->mu);
    if (started)
        pthread_join(v->thread, NULL);
    pthread_mutex_lock(&v->mu);
    int64_t until = gm_mono_ns() + VERIFY_DRAIN_NS;
    struct timespec ts = {.tv_sec = until / 1000000000LL, .tv_nsec = until % 1000000000LL};
    while (v->outstanding && pthread_cond_timedwait(&v->cv, &v->mu, &ts) != ETIMEDOUT)
        ;
    unsigned left = v->outstanding;
    pthread_mutex_unlock(&v->mu);
    if (left) /* resumed; MHD takes them up as it stops */
        xlog(v->l->x, 7, "http: %u checked requests not answered yet at shutdown", left);
}

/* After verifier_stop and MHD_stop_daemon.  Accepts NULL. */
static void verifier_free(struct verifier *v)
{
    if (!v)
        return;
    pthread_cond_destroy(&v->cv);
    pthread_mutex_destroy(&v->mu);
    free(v);
}

/* ------------------------------------------------------------------ HTTP */

static void add_headers(const struct sec *s, struct MHD_Response *r)
{
    int nosniff = 0;
    if (s->web) {
        const char *name, *value;
        for (size_t i = 0; gm_webconfig_header(s->web, i, &name, &value) == 0; i++) {
            MHD_add_response_header(r, name, value);
            nosniff |= strcasecmp(name, "X-Content-Type-Options") == 0;
        }
    }
    if (!nosniff)
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
}

static enum MHD_Result reply_text(const struct sec *s, struct MHD_Connection *c, unsigned status,
                                  const char *text)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, HEAD");
    if (status == MHD_HTTP_TOO_MANY_REQUESTS || status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(r, "Retry-After", "1");
    add_headers(s, r);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A response for form v of b, carrying s's headers; *owned says whether the
 * caller must MHD_destroy_response it (a one-off) or it is b's cached one
 * (valid while the caller holds its reference to b). */
static struct MHD_Response *body_response(struct body *b, int v, const struct sec *s, int *owned)
{
    pthread_mutex_lock(&b->mu);
    struct MHD_Response *r = b->resp[v] && b->resp_gen[v] == s->gen ? b->resp[v] : NULL;
    pthread_mutex_unlock(&b->mu);
    *owned = 0;
    if (r)
        return r;
    int om = v == V_OM || v == V_OM_GZ;
    struct rendering *rd = om ? &b->om : &b->text;
    const struct gm_buf *data = rendering_plain(b, rd);
    int gz = 0;
    if (v == V_TEXT_GZ || v == V_OM_GZ) {
        const struct gm_buf *z = rendering_gz(b, rd);
        if (z) {
            data = z;
            gz = 1;
        }
    }
    __atomic_add_fetch(&b->mem, 1, __ATOMIC_RELAXED);
    r = MHD_create_response_from_buffer_with_free_callback_cls(data->len, data->p,
                                                               body_mem_release_cb, b);
    if (!r) {
        /* cannot reach 0: the caller is a user, and users hold one */
        __atomic_sub_fetch(&b->mem, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    MHD_add_response_header(r, "Content-Type", om ? CT_OM : CT_TEXT);
    if (gz)
        MHD_add_response_header(r, "Content-Encoding", "gzip");
    MHD_add_response_header(r, "Vary", "Accept, Accept-Encoding");
    add_headers(s, r);
    pthread_mutex_lock(&b->mu);
    if (!b->resp[v]) {
        b->resp[v] = r;
        b->resp_gen[v] = s->gen;
    } else {
        *owned = 1; /* another thread cached one first, or a reload changed the headers */
    }
    pthread_mutex_unlock(&b->mu);
    return r;
}

static enum MHD_Result serve_metrics(struct gm_exporter *x, const struct sec *s,
                                     struct MHD_Connection *c)
{
    __atomic_add_fetch(&x->scrapes, 1, __ATOMIC_RELAXED);
    struct body *b = current(x, NULL);
    if (!b)
        return reply_text(s, c, MHD_HTTP_SERVICE_UNAVAILABLE,
                          "no sample yet: the agent has just started\n");
    int om, gz;
    gm_request_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"),
                         MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding"), &om,
                         &gz);
    int owned;
    struct MHD_Response *r = body_response(b, (om ? V_OM : V_TEXT) + gz, s, &owned);
    enum MHD_Result ret = r ? MHD_queue_response(c, MHD_HTTP_OK, r) : MHD_NO;
    if (r && owned)
        MHD_destroy_response(r);
    body_unref(b);
    return ret;
}

/* Seconds with millisecond precision and no trailing zeros past the first
 * decimal: 2000 -> "2.0", 2043 -> "2.043", 2050 -> "2.05". */
static void fmt_ms(char *buf, size_t n, int64_t ms)
{
    snprintf(buf, n, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
    size_t len = strlen(buf);
    while (len > 2 && buf[len - 1] == '0' && buf[len - 2] != '.')
        buf[--len] = '\0';
}

static enum MHD_Result serve_health(struct gm_exporter *x, const struct sec *s,
                                    struct MHD_Connection *c)
{
    int64_t stale_after_ns;
    struct body *b = current(x, &stale_after_ns);
    char msg[512];
    unsigned status = MHD_HTTP_OK;
    if (!b) {
        status = MHD_HTTP_SERVICE_UNAVAILABLE;
        snprintf(msg, sizeof(msg), "not ready: no sample yet\n");
    } else {
        /* compared in whole milliseconds, as printed */
        int64_t age_ns = gm_wall_ns() - b->wall_ns;
        int64_t age_ms = age_ns > 0 ? age_ns / 1000000 : 0;
        int64_t limit_ms = stale_after_ns / 1000000;
        char age[32], limit[32];
        fmt_ms(age, sizeof(age), age_ms);
        fmt_ms(limit, sizeof(limit), limit_ms);
        if (b->driver != GM_DRV_OK) {
            status = MHD_HTTP_SERVICE_UNAVAILABLE;
            snprintf(msg, sizeof(msg), "unhealthy: %s: %s\n",
                     gm_driver_state_name((enum gm_driver_state)b->driver), b->driver_msg);
        } else if (stale_after_ns > 0 && age_ms > limit_ms) {
            status = MHD_HTTP_SERVICE_UNAVAILABLE;
            snprintf(msg, sizeof(msg),
                     "stale: the latest sample is %s s old (limit %s s); sampling may be stuck "
                     "in a hung NVML call\n",
                     age, limit);
        } else {
            snprintf(msg, sizeof(msg), "ok: latest sample %s s old\n", age);
        }
    }
    body_unref(b);
    return reply_text(s, c, status, msg);
}

/* -------------------------------------------------------------- live page */

/* The headers of every live response (page, assets, API): the strict CSP
 * (GM_LIVE_CSP), no referrer, no framing, and how long it may be cached. */
static void add_live_headers(struct MHD_Response *r, const char *cache)
{
    MHD_add_response_header(r, "Content-Security-Policy", GM_LIVE_CSP);
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Cache-Control", cache);
}

/* ---------------------------------------------------------- held answers */

static enum MHD_Result reply_held_full(struct gm_exporter *x, const struct sec *s,
                                       struct MHD_Connection *c, const char *ctype, size_t held);

/* A one-off answer (the page, the history, the alerts, an error) lives in
 * our memory until its client has read all of it that the kernel's socket
 * buffer does not take, for as long as connection-timeout allows; 200
 * clients asking for a whole history of megabytes and never reading once
 * pinned hundreds of megabytes, and glibc kept them after the clients left.
 * So the bytes of the answers waiting are counted (x->held), an answer
 * above HELD_SMALL that would take them over HELD_MAX is refused with 503
 * (Retry-After: 1) after it is rendered and freed, and once a big answer
 * is freed the memory goes back to the system (malloc_trim: when little is
 * left held, or at most every TRIM_EVERY_NS while more is; and once more by
 * the connection guard TRIM_DELAY_NS after the last connection in a row
 * closed, as libmicrohttpd frees a connection's memory after its answer).
 * The cached
 * /metrics and /api/v1/status answers are shared per sample and are not
 * counted here. */

struct held {
    struct gm_exporter *x;
    size_t len;
    void *p;
};

/* After len bytes of a one-off answer were freed, left still held. */
static void held_give_back(struct gm_exporter *x, size_t len, size_t left)
{
    if (len < TRIM_MIN)
        return;
    __atomic_store_n(&x->trim_owed, 1, __ATOMIC_RELEASE);
    int64_t now = gm_mono_ns();
    int64_t last = __atomic_load_n(&x->trim_ns, __ATOMIC_RELAXED);
    if (left >= TRIM_MIN && now - last < TRIM_EVERY_NS)
        return;
    if (!__atomic_compare_exchange_n(&x->trim_ns, &last, now, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED))
        return; /* another thread trims now */
    malloc_trim(0);
}

/* MHD's free callback of a counted answer. */
static void held_free(void *cls)
{
    struct held *h = cls;
    free(h->p);
    size_t left = __atomic_sub_fetch(&h->x->held, h->len, __ATOMIC_ACQ_REL);
    held_give_back(h->x, h->len, left);
    free(h);
}

/* Answers with b's bytes (taken: b is left empty, also on failure),
 * counted in x->held when x is set (refused with 503 beyond HELD_MAX: the
 * held answers section); x NULL: small answers, not counted. */
static enum MHD_Result reply_buf(struct gm_exporter *x, const struct sec *s,
                                 struct MHD_Connection *c, unsigned status, const char *ctype,
                                 struct gm_buf *b)
{
    if (!b->p)
        gm_buf_reserve(b, 1);
    struct held *h = NULL;
    if (x) {
        size_t len = b->len, total = __atomic_add_fetch(&x->held, len, __ATOMIC_ACQ_REL);
        if (len > HELD_SMALL && total > HELD_MAX) {
            size_t left = __atomic_sub_fetch(&x->held, len, __ATOMIC_ACQ_REL);
            gm_buf_free(b);
            held_give_back(x, len, left);
            return reply_held_full(x, s, c, ctype, total - len);
        }
        h = gm_xcalloc(1, sizeof(*h));
        h->x = x;
        h->len = len;
        /* drop the growth slack (up to as much again): mremap or a split */
        void *p = len ? realloc(b->p, len) : NULL;
        h->p = p ? p : b->p;
    }
    struct MHD_Response *r =
        h ? MHD_create_response_from_buffer_with_free_callback_cls(h->len, h->p, held_free, h)
          : MHD_create_response_from_buffer_with_free_callback(b->len, b->p, free);
    if (!r) {
        if (h)
            held_free(h);
        else
            gm_buf_free(b);
        *b = (struct gm_buf)GM_BUF_INIT;
        return MHD_NO;
    }
    *b = (struct gm_buf)GM_BUF_INIT; /* MHD frees it */
    MHD_add_response_header(r, "Content-Type", ctype);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, HEAD");
    if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(r, "Retry-After", "1");
    add_live_headers(r, "no-store");
    add_headers(s, r);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_json_error(const struct sec *s, struct MHD_Connection *c,
                                        unsigned status, const char *param, const char *msg)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_live_error_json(&b, (int)status, param, msg);
    return reply_buf(NULL, s, c, status, "application/json", &b);
}

/* 503 for a big answer that would take the held ones over HELD_MAX
 * (JSON for the API's ctype), with a notice at most once a minute. */
static enum MHD_Result reply_held_full(struct gm_exporter *x, const struct sec *s,
                                       struct MHD_Connection *c, const char *ctype, size_t held)
{
    int64_t now = gm_mono_ns(), last = __atomic_load_n(&x->held_logged, __ATOMIC_RELAXED);
    if ((!last || now - last > 60000000000LL) &&
        __atomic_compare_exchange_n(&x->held_logged, &last, now, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
        xlog(x, 5,
             "http: %.1f MiB of answers wait for clients that read slowly (at most %zu MiB): "
             "further big answers get 503 until they are read; reported once a minute",
             held / 1048576.0, HELD_MAX >> 20);
    char msg[200];
    snprintf(msg, sizeof(msg),
             "busy: %zu MiB of answers are waiting for clients that read slowly; try again",
             HELD_MAX >> 20);
    if (strcmp(ctype, "application/json") == 0)
        return reply_json_error(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, msg);
    gm_strlcpy(msg + strlen(msg), "\n", sizeof(msg) - strlen(msg));
    return reply_text(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
}

/* The alerts pending and firing now: up to max in out, the count in all,
 * or -1 when alerts are off. */
static int live_alerts(struct gm_exporter *x, struct gm_alert_now *out, int max)
{
    pthread_mutex_lock(&x->mu);
    int (*fn)(void *, struct gm_alert_now *, int) = x->alerts;
    void *arg = x->alerts_arg;
    pthread_mutex_unlock(&x->mu);
    return fn ? fn(arg, out, max) : -1;
}

/* The query string's parameters, checked as they come (MHD's iterator). */
struct query {
    enum gm_request_route route;
    struct gm_live_query q;
    unsigned seen;
    int bad;
    struct gm_buf err;
};

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    struct query *z = cls;
    (void)kind;
    if (z->route != GM_REQ_API_HISTORY) {
        char msg[200];
        snprintf(msg, sizeof(msg), "unknown parameter \"%.64s\" (this endpoint takes none)", key);
        gm_live_error_json(&z->err, 400, key, msg);
        z->bad = 1;
    } else if (gm_live_query_param(&z->q, &z->seen, key, value, &z->err) != 0) {
        z->bad = 1;
    }
    return z->bad ? MHD_NO : MHD_YES;
}

static enum MHD_Result serve_page(struct gm_exporter *x, const struct sec *s,
                                  struct MHD_Connection *c)
{
    struct body *b = current(x, NULL);
    struct gm_alert_now *al = gm_xcalloc(GM_LIVE_ALERTS_MAX, sizeof(*al));
    int total = live_alerts(x, al, GM_LIVE_ALERTS_MAX);
    struct gm_buf out = GM_BUF_INIT;
    gm_live_page(&out, b ? b->snap : NULL, al,
                 total < GM_LIVE_ALERTS_MAX ? total : GM_LIVE_ALERTS_MAX, total);
    free(al);
    unsigned status = b ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
    body_unref(b);
    return reply_buf(x, s, c, status, "text/html; charset=utf-8", &out);
}

static enum MHD_Result serve_static(const struct sec *s, struct MHD_Connection *c, const char *url)
{
    const struct gm_live_asset *a = gm_live_asset(url);
    if (!a)
        return reply_text(s, c, MHD_HTTP_NOT_FOUND, "not found: try /\n");
    struct MHD_Response *r =
        MHD_create_response_from_buffer(a->len, (void *)a->data, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", a->content_type);
    add_live_headers(r, "no-cache");
    add_headers(s, r);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* /api/v1/status: the latest sample's status document, rendered once per
 * sample on the first request and then handed out as one cached response,
 * as /metrics is. */
static enum MHD_Result serve_api_status(struct gm_exporter *x, const struct sec *s,
                                        struct MHD_Connection *c)
{
    struct body *b = current(x, NULL);
    if (!b)
        return reply_json_error(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                                "no sample yet: the agent has just started");
    if (!b->status_json) {
        body_unref(b);
        return reply_json_error(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                                "this exporter has no status document");
    }
    pthread_mutex_lock(&b->mu);
    if (!b->status_done) {
        b->status_json(b->snap, s->command_lines, &b->status);
        b->status_done = 1;
        b->status_cmd = s->command_lines;
    }
    int other = b->status_cmd != s->command_lines;
    struct MHD_Response *r = b->status_resp && b->status_gen == s->gen ? b->status_resp : NULL;
    pthread_mutex_unlock(&b->mu);
    if (other) {
        /* rendered for a context a reload replaced, with the other choice
         * of command lines: a one-off rendering for this request */
        struct gm_buf out = GM_BUF_INIT;
        b->status_json(b->snap, s->command_lines, &out);
        body_unref(b);
        return reply_buf(x, s, c, MHD_HTTP_OK, "application/json", &out);
    }
    int owned = 0;
    if (!r) {
        __atomic_add_fetch(&b->mem, 1, __ATOMIC_RELAXED);
        r = MHD_create_response_from_buffer_with_free_callback_cls(b->status.len, b->status.p,
                                                                   body_mem_release_cb, b);
        if (!r) {
            __atomic_sub_fetch(&b->mem, 1, __ATOMIC_RELAXED);
            body_unref(b);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "application/json");
        add_live_headers(r, "no-store");
        add_headers(s, r);
        pthread_mutex_lock(&b->mu);
        if (!b->status_resp) {
            b->status_resp = r;
            b->status_gen = s->gen;
        } else {
            owned = 1;
        }
        pthread_mutex_unlock(&b->mu);
    }
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    if (owned)
        MHD_destroy_response(r);
    body_unref(b);
    return ret;
}

static enum MHD_Result serve_api_alerts(struct gm_exporter *x, const struct sec *s,
                                        struct MHD_Connection *c)
{
    struct gm_alert_now *al = gm_xcalloc(GM_LIVE_ALERTS_MAX, sizeof(*al));
    int total = live_alerts(x, al, GM_LIVE_ALERTS_MAX);
    struct gm_buf out = GM_BUF_INIT;
    gm_live_alerts_json(&out, al, total < GM_LIVE_ALERTS_MAX ? total : GM_LIVE_ALERTS_MAX, total);
    free(al);
    return reply_buf(x, s, c, MHD_HTTP_OK, "application/json", &out);
}

/* The API's routes: the query checked first (400 naming the parameter). */
static enum MHD_Result serve_api(struct gm_exporter *x, const struct sec *s,
                                 struct MHD_Connection *c, enum gm_request_route route)
{
    struct query z;
    memset(&z, 0, sizeof(z));
    z.route = route;
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_arg, &z);
    if (z.bad)
        return reply_buf(NULL, s, c, MHD_HTTP_BAD_REQUEST, "application/json", &z.err);
    gm_buf_free(&z.err);
    if (route == GM_REQ_API_STATUS)
        return serve_api_status(x, s, c);
    if (route == GM_REQ_API_ALERTS)
        return serve_api_alerts(x, s, c);
    gm_live_query_finish(&z.q);
    struct gm_buf out = GM_BUF_INIT;
    int rc = gm_live_history_json(x->ring, &z.q, &out);
    return reply_buf(x, s, c, rc == 0 ? MHD_HTTP_OK : MHD_HTTP_BAD_REQUEST, "application/json",
                     &out);
}

/* A request target refused by gm_request_target_check: 400 (nul) or 414,
 * JSON under /api/ (url: the path as MHD decoded it, maybe cut at the
 * %00), text elsewhere. */
static enum MHD_Result reply_malformed(const struct sec *s, struct MHD_Connection *c,
                                       const char *url, int nul)
{
    const char *why = nul ? GM_REQUEST_WHY_NUL : GM_REQUEST_WHY_PARAMS;
    unsigned status = nul ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_URI_TOO_LONG;
    if (strncmp(url, "/api/", 5) == 0)
        return reply_json_error(s, c, status, NULL, why);
    char msg[200];
    snprintf(msg, sizeof(msg), "%s\n", why);
    return reply_text(s, c, status, msg);
}

/* 421 for a Host that does not name this agent (gm_request_host_ok),
 * quoted as one sanitised line (it is the client's text), JSON under /api/. */
static enum MHD_Result reply_misdirected(const struct sec *s, struct MHD_Connection *c,
                                         const char *url, const char *host)
{
    struct gm_buf h = GM_BUF_INIT;
    gm_text_line(&h, host, strnlen(host, 200));
    gm_buf_putc(&h, '\0');
    int api = strncmp(url, "/api/", 5) == 0;
    char msg[512];
    snprintf(msg, sizeof(msg),
             "misdirected request: Host \"%s\" does not name this agent (its addresses, "
             "localhost, its host name; more in allowed-hosts); docs/security.md, DNS "
             "rebinding%s",
             h.p, api ? "" : "\n");
    gm_buf_free(&h);
    if (api)
        return reply_json_error(s, c, MHD_HTTP_MISDIRECTED_REQUEST, NULL, msg);
    return reply_text(s, c, MHD_HTTP_MISDIRECTED_REQUEST, msg);
}

static enum MHD_Result reply_unauthorized(const struct sec *s, struct MHD_Connection *c)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen("Unauthorized\n"), (void *)"Unauthorized\n", MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    add_headers(s, r);
    enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "gpumon", r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_busy(const struct sec *s, struct MHD_Connection *c)
{
    return reply_text(s, c, MHD_HTTP_TOO_MANY_REQUESTS,
                      "too many logins are being checked: try again in a second\n");
}

/* Basic auth for a request not checked yet: answered (401, 429, 503) or
 * suspended for the verifier, *handled set; or allowed, *handled 0.  Only
 * GET and HEAD are worth a bcrypt: other methods get 401 unless their
 * credentials are in the cache (then 405, below). */
static enum MHD_Result check_auth(struct listener *l, struct sec *s, struct MHD_Connection *c,
                                  int get_or_head, void **req_cls, int *handled)
{
    *handled = 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    struct gm_auth_pending *p;
    enum gm_auth_verdict v = gm_auth_begin(s->auth, h, &p);
    if (v == GM_AUTH_ALLOW) {
        *handled = 0;
        return MHD_YES;
    }
    if (v == GM_AUTH_DENY || !get_or_head) {
        gm_auth_pending_free(p);
        return reply_unauthorized(s, c);
    }
    switch (verifier_submit(l->ver, c, s, p, req_cls)) {
    case SUBMIT_OK:
        return MHD_YES; /* the handler is called again once it is checked */
    case SUBMIT_BUSY:
        return reply_busy(s, c);
    default:
        return reply_text(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is restarting\n");
    }
}

/* verdict: the verifier's, for a request it checked; JOB_UNCHECKED for one
 * not checked yet. */
static enum MHD_Result respond(struct listener *l, struct sec *s, struct MHD_Connection *c,
                               const char *method, const char *url, int verdict, void **req_cls)
{
    struct gm_exporter *x = l->x;
    int get_or_head = gm_request_get_or_head(method);
    if (verdict == JOB_DENIED)
        return reply_unauthorized(s, c);
    if (verdict == JOB_BUSY)
        return reply_busy(s, c);
    if (verdict == JOB_DROPPED)
        return reply_text(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is restarting\n");
    if (verdict == JOB_UNCHECKED && s->host_check) {
        const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
        if (!gm_request_host_ok(host, s->hostname, s->allowed_hosts))
            return reply_misdirected(s, c, url, host);
    }
    if (verdict == JOB_UNCHECKED && s->web && gm_webconfig_tls(s->web)) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        struct gm_err e = {0};
        if (!ci || gm_webconfig_check_client_cert(s->web, ci->tls_session, &e) != 0) {
            xlog(x, 6, "http: refused a client: %s", e.msg[0] ? e.msg : "no TLS session");
            return reply_text(s, c, MHD_HTTP_FORBIDDEN,
                              "forbidden: a valid client certificate is required\n");
        }
    }
    if (verdict == JOB_UNCHECKED && s->auth) {
        int handled;
        enum MHD_Result ret = check_auth(l, s, c, get_or_head, req_cls, &handled);
        if (handled)
            return ret;
    }
    switch (gm_request_route(method, url)) {
    case GM_REQ_NOT_ALLOWED:
        if (strncmp(url, "/api/", 5) == 0)
            return reply_json_error(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
                                    "method not allowed: the API is read-only (GET, HEAD)");
        return reply_text(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n");
    case GM_REQ_METRICS:
        return serve_metrics(x, s, c);
    case GM_REQ_HEALTH:
        return serve_health(x, s, c);
    case GM_REQ_INDEX:
        return serve_page(x, s, c);
    case GM_REQ_STATIC:
        return serve_static(s, c, url);
    case GM_REQ_API_STATUS:
    case GM_REQ_API_HISTORY:
    case GM_REQ_API_ALERTS:
        return serve_api(x, s, c, gm_request_route(method, url));
    case GM_REQ_NOT_FOUND:
        break;
    }
    if (strncmp(url, "/api/", 5) == 0)
        return reply_json_error(s, c, MHD_HTTP_NOT_FOUND, NULL,
                                "not found: the API has /api/v1/status, /api/v1/history and "
                                "/api/v1/alerts");
    return reply_text(s, c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **req_cls)
{
    struct listener *l = cls;
    (void)version;
    (void)upload;
    int get_or_head = gm_request_get_or_head(method);
    if (*req_cls == &target_nul || *req_cls == &target_params) {
        /* refused before anything else, auth included: it is malformed
         * whoever sends it; the connection closes after the answer */
        int nul = *req_cls == &target_nul;
        *req_cls = (void *)&headers_in;
        conn_phase(c, 0);
        struct sec *s = current_sec(l->x);
        enum MHD_Result ret = reply_malformed(s, c, url, nul);
        sec_unref(s);
        return ret;
    }
    if (*req_cls == NULL) {
        *req_cls = (void *)&headers_in;
        conn_phase(c, 0);
        /* GET and HEAD are answered on the next call, when MHD has the whole
         * request: a response queued now would make MHD close the connection
         * afterwards (it cannot know what else the request holds), and
         * Prometheus's next scrape would pay for a new one.  Other methods
         * are refused now, before MHD reads their body; that connection
         * closes. */
        if (get_or_head)
            return MHD_YES;
    } else if (*upload_size) {
        *upload_size = 0; /* discard request bodies */
        return MHD_YES;
    }
    struct sec *s;
    int verdict = JOB_UNCHECKED;
    if (*req_cls != &headers_in) {
        /* resumed: the verifier has checked the credentials, against the
         * security context of that time, which answers */
        struct vjob *j = *req_cls;
        verdict = __atomic_load_n(&j->state, __ATOMIC_ACQUIRE);
        s = sec_ref(j->sec);
        *req_cls = (void *)&headers_in;
        job_release(l->ver, j);
    } else {
        s = current_sec(l->x);
    }
    /* s holds its own reference (sec_ref above), so the job's release cannot
     * free it; the analyzer does not follow reference counts */
    /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
    enum MHD_Result ret = respond(l, s, c, method, url, verdict, req_cls);
    sec_unref(s);
    return ret;
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
    verifier_stop(l->ver); /* MHD must not stop with connections suspended */
    if (l->mhd)
        MHD_stop_daemon(l->mhd);
    verifier_free(l->ver);
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
    sec_unref(l->sec);
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
    l->sec = sec_ref(s);
    l->head.next = l->head.prev = &l->head;
    l->ver = verifier_new(l);
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
        flags, 0, NULL, NULL, handler, l, MHD_OPTION_LISTEN_SOCKET, mfd,
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
        s = sec_ref(x->sec);
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
        x->sec = sec_ref(s);
        x->sec_gen = s->gen;
        pthread_mutex_unlock(&x->mu);
    }
    if (restart && addr[0] && !(fresh = listener_open(x, addr, maxc, timeout_ns, s, old, err))) {
        sec_unref(s);
        return GM_E_IO;
    }

    pthread_mutex_lock(&x->mu);
    x->prom = o->prom;
    gm_strlcpy(x->textfile_dir, o->textfile_dir ? o->textfile_dir : "", sizeof(x->textfile_dir));
    x->stale_after_ns = o->stale_after_ns;
    x->status_json = o->status_json;
    x->alerts = o->alerts;
    x->alerts_arg = o->alerts_arg;
    struct sec *old_sec = x->sec;
    x->sec = s;
    x->sec_gen = s->gen;
    pthread_mutex_unlock(&x->mu);
    sec_unref(old_sec);
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
    body_unref(x->cur);
    sec_unref(x->sec);
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

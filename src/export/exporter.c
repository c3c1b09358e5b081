/* exporter.c -- the exporter sink and its HTTP server (see exporter.h).
 *
 * A rendered sample is a refcounted `struct body`: the text 0.0.4 and
 * OpenMetrics renderings, their gzip forms (made on first demand, then
 * kept), and what /healthz needs.  The sink thread renders and swaps the
 * current body; HTTP threads take a reference and hand it to libmicrohttpd,
 * which drops it when the response is sent.  Nothing on the request path
 * allocates more than the response object.
 */
#include "exporter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/timeutil.h"
#include "module.h"
#include "webconfig.h"

#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* ------------------------------------------------------------------ body */

struct rendering {
    int done;
    struct gm_buf plain;
    struct gm_buf gz; /* empty until first asked for */
    int gz_done;
};

/* A published sample: rendered on the first scrape that wants each form
 * (text or OpenMetrics, plain or gzip), then kept, so an exporter nobody
 * scrapes costs almost nothing and a scraped one renders once per sample. */
struct body {
    int refs;
    pthread_mutex_t mu;          /* lazy rendering and gzip */
    struct gm_snapshot *snap;    /* reference */
    struct gm_prom_state *state; /* the counters as of this sample */
    struct gm_prom_opts prom;
    struct gm_prom_self self;
    struct rendering text, om;
    int64_t wall_ns;
    uint8_t driver;
    char driver_msg[256];
};

static struct body *body_new(void)
{
    struct body *b = gm_xcalloc(1, sizeof(*b));
    b->refs = 1;
    pthread_mutex_init(&b->mu, NULL);
    return b;
}

static struct body *body_ref(struct body *b)
{
    if (b)
        __atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
    return b;
}

static void body_unref(struct body *b)
{
    if (!b || __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    gm_buf_free(&b->text.plain);
    gm_buf_free(&b->text.gz);
    gm_buf_free(&b->om.plain);
    gm_buf_free(&b->om.gz);
    gm_snapshot_unref(b->snap);
    gm_prom_state_free(b->state);
    pthread_mutex_destroy(&b->mu);
    free(b);
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

/* ------------------------------------------------------------- exporter */

struct gm_exporter {
    pthread_mutex_t mu;        /* cur, opts copies, webconfig */
    pthread_mutex_t render_mu; /* state: two sink threads may overlap during a reload */
    struct body *cur;
    struct gm_prom_state *state;
    struct gm_prom_opts prom;
    char textfile_dir[4096];
    char listen[256];
    char web_config_path[4096];
    unsigned max_connections;
    int64_t connection_timeout_ns;
    int64_t stale_after_ns;
    void (*log)(void *arg, int level, const char *msg);
    void *log_arg;

    struct MHD_Daemon *mhd;
    struct gm_webconfig *web;
    struct gm_auth *auth;

    uint64_t scrapes; /* atomic */
    uint64_t dropped; /* atomic, from the agent */
    int textfile_failing;
};

static void xlog(struct gm_exporter *x, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void xlog(struct gm_exporter *x, int level, const char *fmt, ...)
{
    if (!x->log)
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    x->log(x->log_arg, level, msg);
}

static struct body *current(struct gm_exporter *x)
{
    pthread_mutex_lock(&x->mu);
    struct body *b = body_ref(x->cur);
    pthread_mutex_unlock(&x->mu);
    return b;
}

/* --------------------------------------------------------------- textfile */

static int write_textfile(const char *dir, const struct gm_buf *body, struct gm_err *err)
{
    char tmp[4200], path[4200];
    snprintf(path, sizeof(path), "%s/gpumon.prom", dir);
    snprintf(tmp, sizeof(tmp), "%s/.gpumon.prom.%d.tmp", dir, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return gm_err_set(err, GM_E_IO, "cannot create %s: %s", tmp, strerror(errno));
    int rc = gm_buf_write_fd(body, fd);
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc != 0) {
        unlink(tmp);
        return gm_err_set(err, GM_E_IO, "cannot write %s: %s", path, strerror(-rc));
    }
    return 0;
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
    b->wall_ns = s->wall_ns;
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

static void sink_close(void *ctx)
{
    (void)ctx; /* the exporter outlives its sink: gm_exporter_stop frees it */
}

static const struct gm_sink_ops mod_sink_ops = {
    .name = "exporter", .write = sink_write, .close = sink_close};

static void mod_set_dropped(struct gm_exporter *x, uint64_t dropped)
{
    __atomic_store_n(&x->dropped, dropped, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ HTTP */

static void free_body_cb(void *cls)
{
    body_unref(cls);
}

static void add_headers(struct gm_exporter *x, struct MHD_Response *r)
{
    int nosniff = 0;
    if (x->web) {
        const char *name, *value;
        for (size_t i = 0; gm_webconfig_header(x->web, i, &name, &value) == 0; i++) {
            MHD_add_response_header(r, name, value);
            nosniff |= strcasecmp(name, "X-Content-Type-Options") == 0;
        }
    }
    if (!nosniff)
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
}

static enum MHD_Result reply_text(struct gm_exporter *x, struct MHD_Connection *c, unsigned status,
                                  const char *text)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, HEAD");
    add_headers(x, r);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static int accepts(const char *header, const char *what)
{
    return header && strstr(header, what) != NULL;
}

static enum MHD_Result serve_metrics(struct gm_exporter *x, struct MHD_Connection *c)
{
    __atomic_add_fetch(&x->scrapes, 1, __ATOMIC_RELAXED);
    struct body *b = current(x);
    if (!b)
        return reply_text(x, c, MHD_HTTP_SERVICE_UNAVAILABLE,
                          "no sample yet: the agent has just started\n");
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    const char *enc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding");
    int om = accepts(accept, "application/openmetrics-text");
    struct rendering *rd = om ? &b->om : &b->text;
    const struct gm_buf *data = rendering_plain(b, rd);
    int gz = 0;
    if (accepts(enc, "gzip")) {
        const struct gm_buf *z = rendering_gz(b, rd);
        if (z) {
            data = z;
            gz = 1;
        }
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer_with_free_callback_cls(data->len, data->p, free_body_cb, b);
    if (!r) {
        body_unref(b);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", om ? CT_OM : CT_TEXT);
    if (gz)
        MHD_add_response_header(r, "Content-Encoding", "gzip");
    MHD_add_response_header(r, "Vary", "Accept, Accept-Encoding");
    add_headers(x, r);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result serve_health(struct gm_exporter *x, struct MHD_Connection *c)
{
    struct body *b = current(x);
    char msg[512];
    unsigned status = MHD_HTTP_OK;
    if (!b) {
        status = MHD_HTTP_SERVICE_UNAVAILABLE;
        snprintf(msg, sizeof(msg), "not ready: no sample yet\n");
    } else {
        int64_t age = gm_wall_ns() - b->wall_ns;
        if (b->driver != GM_DRV_OK) {
            status = MHD_HTTP_SERVICE_UNAVAILABLE;
            snprintf(msg, sizeof(msg), "unhealthy: %s: %s\n",
                     gm_driver_state_name((enum gm_driver_state)b->driver), b->driver_msg);
        } else if (x->stale_after_ns > 0 && age > x->stale_after_ns) {
            status = MHD_HTTP_SERVICE_UNAVAILABLE;
            snprintf(msg, sizeof(msg),
                     "stale: the latest sample is %.1f s old (limit %.1f s); sampling may be stuck "
                     "in a hung NVML call\n",
                     age / 1e9, x->stale_after_ns / 1e9);
        } else {
            snprintf(msg, sizeof(msg), "ok: latest sample %.1f s old\n", age / 1e9);
        }
    }
    body_unref(b);
    return reply_text(x, c, status, msg);
}

static const char index_html[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpumon exporter</title></head>\n"
    "<body><h1>gpumon exporter</h1>\n"
    "<p><a href=\"/metrics\">/metrics</a>: GPU metrics in the Prometheus text format "
    "(OpenMetrics when asked for).</p>\n"
    "<p><a href=\"/healthz\">/healthz</a>: 200 while the latest sample is fresh, 503 with the "
    "reason otherwise.</p>\n</body></html>\n";

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **req_cls)
{
    struct gm_exporter *x = cls;
    (void)version;
    (void)upload;
    if (*req_cls == NULL) {
        /* first call for this request: wait for the whole of it */
        *req_cls = (void *)1;
        if (*upload_size == 0)
            goto respond;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* discard request bodies */
        return MHD_YES;
    }
respond:
    if (x->web && gm_webconfig_tls(x->web)) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        struct gm_err e = {0};
        if (!ci || gm_webconfig_check_client_cert(x->web, ci->tls_session, &e) != 0) {
            xlog(x, 6, "http: refused a client: %s", e.msg[0] ? e.msg : "no TLS session");
            return reply_text(x, c, MHD_HTTP_FORBIDDEN,
                              "forbidden: a valid client certificate is required\n");
        }
    }
    if (x->auth) {
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        if (!gm_auth_check(x->auth, h)) {
            struct MHD_Response *r = MHD_create_response_from_buffer(
                strlen("Unauthorized\n"), (void *)"Unauthorized\n", MHD_RESPMEM_PERSISTENT);
            if (!r)
                return MHD_NO;
            add_headers(x, r);
            enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "gpumon", r);
            MHD_destroy_response(r);
            return ret;
        }
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply_text(x, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n");
    if (strcmp(url, "/metrics") == 0)
        return serve_metrics(x, c);
    if (strcmp(url, "/healthz") == 0)
        return serve_health(x, c);
    if (strcmp(url, "/") == 0) {
        struct MHD_Response *r = MHD_create_response_from_buffer(
            sizeof(index_html) - 1, (void *)index_html, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
        add_headers(x, r);
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    return reply_text(x, c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

/* Parses ADDR:PORT ("127.0.0.1:9842", "[::1]:9842", ":9842"). */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, int *v6,
                        struct gm_err *err)
{
    char host[256];
    const char *port;
    if (s[0] == '[') {
        const char *e = strchr(s, ']');
        if (!e || e[1] != ':')
            return gm_err_set(err, GM_E_INVAL, "listen \"%s\": expected [ADDRESS]:PORT", s);
        snprintf(host, sizeof(host), "%.*s", (int)(e - s - 1), s + 1);
        port = e + 2;
    } else {
        const char *c = strrchr(s, ':');
        if (!c)
            return gm_err_set(err, GM_E_INVAL, "listen \"%s\": expected ADDRESS:PORT", s);
        snprintf(host, sizeof(host), "%.*s", (int)(c - s), s);
        port = c + 1;
    }
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 1 || p > 65535)
        return gm_err_set(err, GM_E_INVAL, "listen \"%s\": invalid port \"%s\"", s, port);
    memset(ss, 0, sizeof(*ss));
    if (!host[0]) {
        /* all interfaces, IPv6 and IPv4 */
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)p);
        *len = sizeof(*a);
        *v6 = 1;
        return 0;
    }
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)p);
        *len = sizeof(*a4);
        *v6 = 0;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)p);
        *len = sizeof(*a6);
        *v6 = 1;
        return 0;
    }
    return gm_err_set(err, GM_E_INVAL,
                      "listen \"%s\": \"%s\" is not a numeric IPv4 or IPv6 address", s, host);
}

static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct gm_exporter *x = cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    xlog(x, 7, "http: %s", msg);
}

static int http_start(struct gm_exporter *x, struct gm_err *err)
{
    if (!x->listen[0])
        return 0;
    struct sockaddr_storage ss;
    socklen_t sl;
    int v6;
    if (parse_listen(x->listen, &ss, &sl, &v6, err) != 0)
        return GM_E_INVAL;
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_TURBO;
    if (v6)
        flags |= MHD_USE_IPv6;
    if (v6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr))
        flags |= MHD_USE_DUAL_STACK;
    unsigned timeout_s = (unsigned)((x->connection_timeout_ns + 999999999LL) / 1000000000LL);
    struct MHD_OptionItem tls[8];
    int nt = 0;
    if (x->web && gm_webconfig_tls(x->web)) {
        flags |= MHD_USE_TLS;
        tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0,
                                            (void *)gm_webconfig_cert_pem(x->web)};
        tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0,
                                            (void *)gm_webconfig_key_pem(x->web)};
        tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
                                            (void *)gm_webconfig_tls_priorities(x->web)};
        if (gm_webconfig_client_ca_pem(x->web))
            tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0,
                                                (void *)gm_webconfig_client_ca_pem(x->web)};
    }
    tls[nt++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    x->mhd = MHD_start_daemon(
        flags, 0, NULL, NULL, handler, x, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_LIMIT, x->max_connections, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024), MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)2, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, x, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
    if (!x->mhd)
        return gm_err_set(err, GM_E_IO,
                          "cannot listen on %s (address in use, or not an address of this host?)",
                          x->listen);
    return 0;
}

static void http_stop(struct gm_exporter *x)
{
    if (x->mhd) {
        MHD_stop_daemon(x->mhd);
        x->mhd = NULL;
    }
}

static void copy_opts(struct gm_exporter *x, const struct gm_exporter_opts *o)
{
    x->prom = o->prom;
    gm_strlcpy(x->textfile_dir, o->textfile_dir ? o->textfile_dir : "", sizeof(x->textfile_dir));
    gm_strlcpy(x->listen, o->listen ? o->listen : "", sizeof(x->listen));
    gm_strlcpy(x->web_config_path, o->web_config ? o->web_config : "", sizeof(x->web_config_path));
    x->max_connections = o->max_connections ? o->max_connections : 512;
    x->connection_timeout_ns = o->connection_timeout_ns ? o->connection_timeout_ns : 10000000000LL;
    x->stale_after_ns = o->stale_after_ns;
    x->log = o->log;
    x->log_arg = o->log_arg;
}

static struct gm_exporter *mod_start(const struct gm_exporter_opts *o, struct gm_err *err)
{
    struct gm_exporter *x = gm_xcalloc(1, sizeof(*x));
    pthread_mutex_init(&x->mu, NULL);
    pthread_mutex_init(&x->render_mu, NULL);
    x->state = gm_prom_state_new();
    copy_opts(x, o);
    if (x->web_config_path[0]) {
        if (gm_webconfig_load(x->web_config_path, &x->web, err) != 0)
            goto fail;
        if (gm_webconfig_basic_auth(x->web) && gm_auth_new(x->web, &x->auth, err) != 0)
            goto fail;
    }
    if (x->textfile_dir[0] && access(x->textfile_dir, W_OK) != 0) {
        gm_err_set(err, GM_E_IO, "textfile-dir %s: %s", x->textfile_dir, strerror(errno));
        goto fail;
    }
    if (http_start(x, err) != 0)
        goto fail;
    return x;
fail:
    gm_auth_free(x->auth);
    gm_webconfig_free(x->web);
    gm_prom_state_free(x->state);
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->render_mu);
    free(x);
    return NULL;
}

static int mod_reconfigure(struct gm_exporter *x, const struct gm_exporter_opts *o,
                           struct gm_err *err)
{
    struct gm_webconfig *web = NULL;
    if (o->web_config && *o->web_config && gm_webconfig_load(o->web_config, &web, err) != 0)
        return GM_E_INVAL;
    /* The listener restarts when anything it depends on changed, or when a
     * web config is involved: stopping it first means no request is still
     * using the old credentials when they are freed. */
    int restart = strcmp(x->listen, o->listen ? o->listen : "") != 0 || web || x->web ||
                  x->max_connections != (o->max_connections ? o->max_connections : 512) ||
                  x->connection_timeout_ns !=
                      (o->connection_timeout_ns ? o->connection_timeout_ns : 10000000000LL);
    if (restart)
        http_stop(x);
    pthread_mutex_lock(&x->mu);
    struct gm_webconfig *old_web = x->web;
    struct gm_auth *old_auth = x->auth;
    copy_opts(x, o);
    x->web = web;
    x->auth = NULL;
    if (web && gm_webconfig_basic_auth(web) && gm_auth_new(web, &x->auth, err) != 0) {
        pthread_mutex_unlock(&x->mu);
        gm_auth_free(old_auth);
        gm_webconfig_free(old_web);
        return GM_E_INVAL;
    }
    pthread_mutex_unlock(&x->mu);
    gm_auth_free(old_auth);
    gm_webconfig_free(old_web);
    return restart ? http_start(x, err) : 0;
}

static void mod_stop(struct gm_exporter *x)
{
    if (!x)
        return;
    http_stop(x);
    body_unref(x->cur);
    gm_auth_free(x->auth);
    gm_webconfig_free(x->web);
    gm_prom_state_free(x->state);
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->render_mu);
    free(x);
}

/* The module's only export (see module.h). */
__attribute__((visibility("default"))) const struct gm_export_module gm_export_module = {
    .abi = GM_EXPORT_MODULE_ABI,
    .start = mod_start,
    .reconfigure = mod_reconfigure,
    .set_dropped = mod_set_dropped,
    .stop = mod_stop,
    .sink_ops = &mod_sink_ops,
};

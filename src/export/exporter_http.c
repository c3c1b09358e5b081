/* exporter_http.c -- the exporter's answers (see exporter.c and
 * exporter_int.h): the access handler with the checks that come first
 * (a refused request target, the Host check), basic auth, /metrics with the
 * cached responses of the current body, /healthz, the live page with its
 * /api/v1 (which endpoint and which form are request.c's decision), and the
 * bound on the one-off answers that slow readers hold (held answers).
 */
#include "exporter_int.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text.h"
#include "../core/timeutil.h"
#include "../core/usage_acct.h"
#include "live.h"
#include "request.h"

/* ------------------------------------------------------------------ HTTP */

/* A response over size bytes at buf that calls release(cls) when MHD is
 * done with them; NULL on failure, when the caller still owns buf and cls.
 * libmicrohttpd before 0.9.73 (Debian 11's 0.9.72, where the release
 * tarball is built) has no such call: the response takes a copy, and cls
 * is released at once. */
static struct MHD_Response *
response_from_buffer_cls(size_t size, void *buf, MHD_ContentReaderFreeCallback release, void *cls)
{
#ifdef GM_HAVE_MHD_FREE_CALLBACK_CLS
    return MHD_create_response_from_buffer_with_free_callback_cls(size, buf, release, cls);
#else
    struct MHD_Response *r = MHD_create_response_from_buffer(size, buf, MHD_RESPMEM_MUST_COPY);
    if (r)
        release(cls);
    return r;
#endif
}

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
    const struct gm_buf *data = gm_ex_rendering_plain(b, rd);
    int gz = 0;
    if (v == V_TEXT_GZ || v == V_OM_GZ) {
        const struct gm_buf *z = gm_ex_rendering_gz(b, rd);
        if (z) {
            data = z;
            gz = 1;
        }
    }
    __atomic_add_fetch(&b->mem, 1, __ATOMIC_RELAXED);
    r = response_from_buffer_cls(data->len, data->p, gm_ex_body_mem_release_cb, b);
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
    struct body *b = gm_ex_current(x, NULL);
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
    gm_ex_body_unref(b);
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
    struct body *b = gm_ex_current(x, &stale_after_ns);
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
    gm_ex_body_unref(b);
    return reply_text(s, c, status, msg);
}

/* /livez, liveness: 200 whenever the HTTP server answers, whatever the
 * driver or the sampler do.  Kubernetes restarts a container whose liveness
 * probe fails, and on driver loss (/healthz 503) a restart cannot help and
 * would lose the very metrics that show the loss; readiness and alerts carry
 * the driver state.  The text says whether there is a sample yet, for a
 * person reading it. */
static enum MHD_Result serve_live(struct gm_exporter *x, const struct sec *s,
                                  struct MHD_Connection *c)
{
    int64_t stale_after_ns;
    struct body *b = gm_ex_current(x, &stale_after_ns);
    pthread_mutex_lock(&x->mu);
    int fleet_only = x->fleet_only;
    pthread_mutex_unlock(&x->mu);
    const char *msg = fleet_only ? "ok: serving the fleet page (gpumon fleet serve)\n"
                      : b        ? "ok: serving (readiness and the driver state: /healthz)\n"
                                 : "ok: serving, no sample yet (readiness: /healthz)\n";
    gm_ex_body_unref(b);
    return reply_text(s, c, MHD_HTTP_OK, msg);
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
        h ? response_from_buffer_cls(h->len, h->p, held_free, h)
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
    /* /api/v1/usage */
    int64_t since_ns; /* 0: the default, 7 days */
    int by;           /* enum gm_usage_by */
};

#define USAGE_SINCE_DEFAULT_NS (INT64_C(7) * 86400 * 1000000000)
#define USAGE_SINCE_MAX_NS (INT64_C(3660) * 86400 * 1000000000) /* ten years */

/* A parameter of /api/v1/usage: since=DUR (gm_parse_duration: 7d, 24h,
 * 90m; at most ten years), by=user|job|gpu; each at most once.  0, or -1
 * with the 400 document naming it in z->err. */
static int usage_param(struct query *z, const char *key, const char *value)
{
    char msg[300];
    int since = strcmp(key, "since") == 0, by = strcmp(key, "by") == 0;
    unsigned bit = since ? 1u : 2u;
    if (!since && !by) {
        snprintf(msg, sizeof(msg), "unknown parameter \"%.64s\" (since, by)", key);
    } else if (z->seen & bit) {
        snprintf(msg, sizeof(msg), "%s given twice", key);
    } else if (!value || !*value) {
        snprintf(msg, sizeof(msg), "%s is empty", key);
    } else if (since) {
        int64_t ns = 0;
        if (gm_parse_duration(value, &ns) == 0 && ns > 0 && ns <= USAGE_SINCE_MAX_NS) {
            z->since_ns = ns;
            z->seen |= bit;
            return 0;
        }
        struct gm_buf v = GM_BUF_INIT;
        gm_text_line(&v, value, strnlen(value, 64));
        snprintf(msg, sizeof(msg),
                 "since \"%s\": expected a duration back from now (7d, 24h, 90m; "
                 "at most 3660d)",
                 v.p ? v.p : "");
        gm_buf_free(&v);
    } else {
        static const struct {
            const char *name;
            int by;
        } bys[] = {{"user", GM_USAGE_USER}, {"job", GM_USAGE_JOB}, {"gpu", GM_USAGE_GPU}};
        for (size_t i = 0; i < sizeof(bys) / sizeof(bys[0]); i++)
            if (strcmp(value, bys[i].name) == 0) {
                z->by = bys[i].by;
                z->seen |= bit;
                return 0;
            }
        struct gm_buf v = GM_BUF_INIT;
        gm_text_line(&v, value, strnlen(value, 64));
        snprintf(msg, sizeof(msg), "by \"%s\": expected user, job or gpu", v.p ? v.p : "");
        gm_buf_free(&v);
    }
    gm_live_error_json(&z->err, 400, key, msg);
    return -1;
}

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    struct query *z = cls;
    (void)kind;
    if (z->route == GM_REQ_API_USAGE) {
        if (usage_param(z, key, value) != 0)
            z->bad = 1;
    } else if (z->route != GM_REQ_API_HISTORY) {
        char msg[200];
        snprintf(msg, sizeof(msg), "unknown parameter \"%.64s\" (this endpoint takes none)", key);
        gm_live_error_json(&z->err, 400, key, msg);
        z->bad = 1;
    } else if (gm_live_query_param(&z->q, &z->seen, key, value, &z->err) != 0) {
        z->bad = 1;
    }
    return z->bad ? MHD_NO : MHD_YES;
}

/* The page at /: rendered once per sample, on the first request that
 * wants it, and kept with the sample (as /metrics and /api/v1/status are),
 * so that every other request of the sample costs a copy.  Its alerts are
 * those of that first request; the page's script keeps them current from
 * /api/v1/alerts.  Without a sample yet, a page that says so (503),
 * rendered each time. */
static void render_page(struct gm_exporter *x, const struct gm_snapshot *snap, struct gm_buf *out)
{
    struct gm_alert_now *al = gm_xcalloc(GM_LIVE_ALERTS_MAX, sizeof(*al));
    int total = live_alerts(x, al, GM_LIVE_ALERTS_MAX);
    gm_live_page(out, snap, al, total < GM_LIVE_ALERTS_MAX ? total : GM_LIVE_ALERTS_MAX, total);
    __atomic_add_fetch(&x->page_renders, 1, __ATOMIC_RELAXED);
    free(al);
}

static enum MHD_Result serve_page(struct gm_exporter *x, const struct sec *s,
                                  struct MHD_Connection *c)
{
    struct body *b = gm_ex_current(x, NULL);
    struct gm_buf out = GM_BUF_INIT;
    if (!b) {
        render_page(x, NULL, &out);
        return reply_buf(x, s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/html; charset=utf-8", &out);
    }
    pthread_mutex_lock(&b->mu);
    if (!b->page_done) {
        render_page(x, b->snap, &b->page);
        b->page_done = 1;
    }
    gm_buf_put(&out, b->page.p, b->page.len);
    pthread_mutex_unlock(&b->mu);
    gm_ex_body_unref(b);
    return reply_buf(x, s, c, MHD_HTTP_OK, "text/html; charset=utf-8", &out);
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
    struct body *b = gm_ex_current(x, NULL);
    if (!b)
        return reply_json_error(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                                "no sample yet: the agent has just started");
    if (!b->status_json) {
        gm_ex_body_unref(b);
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
        gm_ex_body_unref(b);
        return reply_buf(x, s, c, MHD_HTTP_OK, "application/json", &out);
    }
    int owned = 0;
    if (!r) {
        __atomic_add_fetch(&b->mem, 1, __ATOMIC_RELAXED);
        r = response_from_buffer_cls(b->status.len, b->status.p, gm_ex_body_mem_release_cb, b);
        if (!r) {
            __atomic_sub_fetch(&b->mem, 1, __ATOMIC_RELAXED);
            gm_ex_body_unref(b);
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
    gm_ex_body_unref(b);
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

/* /api/v1/usage: who used the GPUs over the period, from the agent's store
 * (usage_1h; docs/api.md).  SQLite is read on this thread: the store is in
 * WAL mode, so the read waits for no writer (at most its busy timeout). */
static enum MHD_Result serve_api_usage(struct gm_exporter *x, const struct sec *s,
                                       struct MHD_Connection *c, const struct query *z)
{
    char path[sizeof(x->store_path)];
    pthread_mutex_lock(&x->mu);
    memcpy(path, x->store_path, sizeof(path));
    int (*usage_json)(const char *, int64_t, int, struct gm_buf *, struct gm_err *) = x->usage_json;
    pthread_mutex_unlock(&x->mu);
    if (!path[0] || !usage_json)
        return reply_json_error(s, c, MHD_HTTP_NOT_FOUND, NULL,
                                "no usage: this agent keeps no store (store = false)");
    int64_t now = gm_wall_ns();
    struct gm_buf out = GM_BUF_INIT;
    struct gm_err e = {0};
    if (usage_json(path, now - (z->since_ns ? z->since_ns : USAGE_SINCE_DEFAULT_NS), z->by, &out,
                   &e) != 0) {
        gm_buf_free(&out);
        xlog(x, 4, "http: /api/v1/usage: %s", e.msg);
        return reply_json_error(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
                                "the store could not be read (the agent's log says why)");
    }
    gm_buf_putc(&out, '\n');
    return reply_buf(x, s, c, MHD_HTTP_OK, "application/json", &out);
}

/* ---------------------------------------------------------------- fleet */

/* The fleet's document source, or NULL when no fleet is configured. */
static int (*fleet_source(struct gm_exporter *x, void **arg))(void *, struct gm_buf *)
{
    pthread_mutex_lock(&x->mu);
    int (*fn)(void *, struct gm_buf *) = x->fleet_json;
    *arg = x->fleet_arg;
    pthread_mutex_unlock(&x->mu);
    return fn;
}

#define NO_FLEET                                                                                   \
    "not found: no fleet is configured here (fleet = in the [fleet] section of the agent's "       \
    "configuration, or gpumon fleet serve; docs/fleet.md)"

/* /fleet: the page (its data comes from /api/v1/fleet). */
static enum MHD_Result serve_fleet_page(struct gm_exporter *x, const struct sec *s,
                                        struct MHD_Connection *c)
{
    void *arg;
    if (!fleet_source(x, &arg))
        return reply_text(s, c, MHD_HTTP_NOT_FOUND, NO_FLEET "\n");
    struct gm_buf out = GM_BUF_INIT;
    gm_live_fleet_page(&out);
    return reply_buf(NULL, s, c, MHD_HTTP_OK, "text/html; charset=utf-8", &out);
}

/* /api/v1/fleet: the last round's document, never a round of its own, so
 * that N viewers do not ask the nodes N times (fleet/poll.h). */
static enum MHD_Result serve_api_fleet(struct gm_exporter *x, const struct sec *s,
                                       struct MHD_Connection *c)
{
    void *arg;
    int (*fn)(void *, struct gm_buf *) = fleet_source(x, &arg);
    if (!fn)
        return reply_json_error(s, c, MHD_HTTP_NOT_FOUND, NULL, NO_FLEET);
    struct gm_buf out = GM_BUF_INIT;
    if (fn(arg, &out) != 0) {
        gm_buf_free(&out);
        return reply_json_error(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                                "no fleet round has ended yet: try again in a second");
    }
    return reply_buf(x, s, c, MHD_HTTP_OK, "application/json", &out);
}

/* The API's routes: the query checked first (400 naming the parameter). */
static enum MHD_Result serve_api(struct gm_exporter *x, const struct sec *s,
                                 struct MHD_Connection *c, enum gm_request_route route)
{
    struct query z;
    memset(&z, 0, sizeof(z));
    z.route = route;
    z.by = GM_USAGE_USER;
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_arg, &z);
    if (z.bad)
        return reply_buf(NULL, s, c, MHD_HTTP_BAD_REQUEST, "application/json", &z.err);
    gm_buf_free(&z.err);
    if (route == GM_REQ_API_STATUS)
        return serve_api_status(x, s, c);
    if (route == GM_REQ_API_ALERTS)
        return serve_api_alerts(x, s, c);
    if (route == GM_REQ_API_USAGE)
        return serve_api_usage(x, s, c, &z);
    if (route == GM_REQ_API_FLEET)
        return serve_api_fleet(x, s, c);
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
    switch (gm_ex_verifier_submit(l->ver, c, s, p, req_cls)) {
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
    enum gm_request_route route = gm_request_route(method, url);
    pthread_mutex_lock(&x->mu);
    int fleet_only = x->fleet_only;
    pthread_mutex_unlock(&x->mu);
    if (fleet_only) {
        /* gpumon fleet serve: nothing is sampled here */
        if (route == GM_REQ_INDEX)
            return serve_fleet_page(x, s, c);
        if (route != GM_REQ_NOT_ALLOWED && route != GM_REQ_LIVE && route != GM_REQ_STATIC &&
            route != GM_REQ_FLEET && route != GM_REQ_API_FLEET) {
            if (strncmp(url, "/api/", 5) == 0)
                return reply_json_error(s, c, MHD_HTTP_NOT_FOUND, NULL,
                                        "not found: gpumon fleet serve has /api/v1/fleet only");
            return reply_text(s, c, MHD_HTTP_NOT_FOUND,
                              "not found: gpumon fleet serve has /fleet and /api/v1/fleet\n");
        }
    }
    switch (route) {
    case GM_REQ_NOT_ALLOWED:
        if (strncmp(url, "/api/", 5) == 0)
            return reply_json_error(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
                                    "method not allowed: the API is read-only (GET, HEAD)");
        return reply_text(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n");
    case GM_REQ_METRICS:
        return serve_metrics(x, s, c);
    case GM_REQ_HEALTH:
        return serve_health(x, s, c);
    case GM_REQ_LIVE:
        return serve_live(x, s, c);
    case GM_REQ_INDEX:
        return serve_page(x, s, c);
    case GM_REQ_STATIC:
        return serve_static(s, c, url);
    case GM_REQ_API_STATUS:
    case GM_REQ_API_HISTORY:
    case GM_REQ_API_ALERTS:
    case GM_REQ_API_USAGE:
    case GM_REQ_API_FLEET:
        return serve_api(x, s, c, route);
    case GM_REQ_FLEET:
        return serve_fleet_page(x, s, c);
    case GM_REQ_NOT_FOUND:
        break;
    }
    if (strncmp(url, "/api/", 5) == 0)
        return reply_json_error(s, c, MHD_HTTP_NOT_FOUND, NULL,
                                "not found: the API has /api/v1/status, /api/v1/history, "
                                "/api/v1/alerts, /api/v1/usage and /api/v1/fleet");
    return reply_text(s, c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
}

enum MHD_Result gm_ex_handler(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **req_cls)
{
    struct listener *l = cls;
    (void)version;
    (void)upload;
    int get_or_head = gm_request_get_or_head(method);
    if (*req_cls == &gm_ex_target_nul || *req_cls == &gm_ex_target_params) {
        /* refused before anything else, auth included: it is malformed
         * whoever sends it; the connection closes after the answer */
        int nul = *req_cls == &gm_ex_target_nul;
        *req_cls = (void *)&gm_ex_headers_in;
        gm_ex_conn_phase(c, 0);
        struct sec *s = gm_ex_current_sec(l->x);
        enum MHD_Result ret = reply_malformed(s, c, url, nul);
        gm_ex_sec_unref(s);
        return ret;
    }
    if (*req_cls == NULL) {
        *req_cls = (void *)&gm_ex_headers_in;
        gm_ex_conn_phase(c, 0);
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
    if (*req_cls != &gm_ex_headers_in) {
        /* resumed: the verifier has checked the credentials, against the
         * security context of that time, which answers */
        struct vjob *j = *req_cls;
        verdict = __atomic_load_n(&j->state, __ATOMIC_ACQUIRE);
        s = gm_ex_sec_ref(j->sec);
        *req_cls = (void *)&gm_ex_headers_in;
        gm_ex_job_release(l->ver, j);
    } else {
        s = gm_ex_current_sec(l->x);
    }
    /* s holds its own reference (gm_ex_sec_ref above), so the job's release cannot
     * free it; the analyzer does not follow reference counts */
    /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
    enum MHD_Result ret = respond(l, s, c, method, url, verdict, req_cls);
    gm_ex_sec_unref(s);
    return ret;
}

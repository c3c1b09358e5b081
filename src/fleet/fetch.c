/* fetch.c -- gpumon_fleet.so: every node's answers at once with libcurl's
 * multi interface (fetch_module.h says what it promises).
 *
 * Each node has one easy handle; when one path is answered the same handle
 * asks the next, so the connection is reused and a node never has two.
 * The per-node deadline is CURLOPT_TIMEOUT_MS of each request, shortened to
 * what is left of the node's budget; the total deadline ends the loop and
 * marks what is still running as timed out, so a node that answers one
 * byte a second or never answers holds nobody else.
 *
 * A connection per node is a descriptor per node: the soft RLIMIT_NOFILE
 * is raised toward the hard one for them, and where even that is short
 * the nodes beyond it wait for a free connection
 * (CURLMOPT_MAX_TOTAL_CONNECTIONS) instead of failing as refused.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fetch_module.h"

#define EXPORT __attribute__((visibility("default")))

/* Descriptors left for the rest of the process: the standard streams,
 * libcurl's wake-up pair, the modules, a log. */
#define FD_RESERVE ((rlim_t)64)

struct node {
    struct gm_fleet_xfer *x;
    CURL *h;
    int k;         /* the path being fetched */
    int done;      /* every path fetched, or one failed */
    int64_t start; /* monotonic ns */
    char *buf;     /* the body so far */
    size_t len, cap, max;
    int too_big;
    char url[2048];
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
    struct node *nd = arg;
    size_t n = size * nmemb;
    if (nd->len + n > nd->max) {
        nd->too_big = 1;
        return 0; /* CURLE_WRITE_ERROR: the transfer ends */
    }
    if (nd->len + n + 1 > nd->cap) {
        size_t cap = nd->cap ? nd->cap : 16384;
        while (cap < nd->len + n + 1)
            cap *= 2;
        char *b = realloc(nd->buf, cap);
        if (!b)
            return 0;
        nd->buf = b;
        nd->cap = cap;
    }
    memcpy(nd->buf + nd->len, p, n);
    nd->len += n;
    nd->buf[nd->len] = '\0';
    return n;
}

static int classify(CURLcode rc, int too_big)
{
    if (too_big)
        return GM_FLEET_F_TOO_BIG;
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
        return GM_FLEET_F_REFUSED;
    case CURLE_OPERATION_TIMEDOUT:
        return GM_FLEET_F_TIMEOUT;
    case CURLE_COULDNT_RESOLVE_HOST:
        return GM_FLEET_F_DNS;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return GM_FLEET_F_TLS;
    default:
        return GM_FLEET_F_OTHER;
    }
}

static int start_path(struct node *nd, const struct gm_fleet_fetch_opts *o, int64_t now)
{
    int64_t left = nd->start + o->node_ns - now;
    if (left < 1000000)
        left = 1000000;
    snprintf(nd->url, sizeof(nd->url), "%s%s", nd->x->base, nd->x->paths[nd->k]);
    nd->len = 0;
    nd->too_big = 0;
    if (nd->buf)
        nd->buf[0] = '\0';
    curl_easy_setopt(nd->h, CURLOPT_URL, nd->url);
    curl_easy_setopt(nd->h, CURLOPT_TIMEOUT_MS, (long)(left / 1000000));
    return 0;
}

static void setup(struct node *nd, const struct gm_fleet_fetch_opts *o)
{
    CURL *h = nd->h;
    curl_easy_setopt(h, CURLOPT_PRIVATE, nd);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, nd);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    /* before curl 7.85 (Debian 11's 7.74, the release tarball's build;
     * src/alert/http.c does the same) */
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_body);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gpumon-fleet");
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
    if (o->cacert)
        curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
    if (o->cert)
        curl_easy_setopt(h, CURLOPT_SSLCERT, o->cert);
    if (o->key)
        curl_easy_setopt(h, CURLOPT_SSLKEY, o->key);
    if (o->user && o->password) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, o->user);
        curl_easy_setopt(h, CURLOPT_PASSWORD, o->password);
    }
}

/* Records the end of the current path; returns 1 when the node asks for
 * another path. */
static int finish(struct node *nd, CURLcode rc, int64_t now)
{
    struct gm_fleet_xfer *x = nd->x;
    int k = nd->k;
    long st = 0;
    curl_easy_getinfo(nd->h, CURLINFO_RESPONSE_CODE, &st);
    x->status[k] = st;
    x->elapsed_ns = now - nd->start;
    if (rc == CURLE_OK) {
        x->fail[k] = GM_FLEET_F_NONE;
        if (nd->buf && nd->cap > nd->len + 1) { /* kept until every node is done: no slack */
            char *fit = realloc(nd->buf, nd->len + 1);
            if (fit)
                nd->buf = fit;
        }
        x->body[k] = nd->buf ? nd->buf : calloc(1, 1);
        x->len[k] = nd->len;
        nd->buf = NULL;
        nd->cap = nd->len = 0;
        if (!x->body[k]) {
            x->fail[k] = GM_FLEET_F_OTHER;
            snprintf(x->error[k], sizeof(x->error[k]), "out of memory");
        }
    } else {
        x->fail[k] = classify(rc, nd->too_big || rc == CURLE_FILESIZE_EXCEEDED);
        snprintf(x->error[k], sizeof(x->error[k]), "%s", curl_easy_strerror(rc));
    }
    if (x->fail[k] != GM_FLEET_F_NONE || st != 200 || k + 1 >= GM_FLEET_MAX_PATHS ||
        !x->paths[k + 1]) {
        nd->done = 1;
        return 0;
    }
    nd->k++;
    return 1;
}

/* Makes room for n connections at once: raises the soft limit on open
 * files up to n + FD_RESERVE (never past the hard limit) and returns how
 * many connections fit under the limit it got, or 0 when all n do. */
static long connection_cap(size_t n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    rlim_t want = (rlim_t)n + FD_RESERVE;
    if (rl.rlim_cur < want) {
        struct rlimit up = rl;
        up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0) /* a refusal leaves the limit as it was */
            rl.rlim_cur = up.rlim_cur;
    }
    if (rl.rlim_cur >= want)
        return 0;
    rlim_t room = rl.rlim_cur > 2 * FD_RESERVE ? rl.rlim_cur - FD_RESERVE : rl.rlim_cur / 2;
    return room > 0 ? (long)room : 1;
}

static int fleet_init(char *why, size_t wlen)
{
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        snprintf(why, wlen, "curl_global_init: %s", curl_easy_strerror(rc));
        return -1;
    }
    return 0;
}

static int fleet_fetch(struct gm_fleet_xfer *x, size_t n, const struct gm_fleet_fetch_opts *o,
                       char *why, size_t wlen)
{
    struct node *nd = calloc(n ? n : 1, sizeof(*nd));
    CURLM *m = curl_multi_init();
    if (!nd || !m) {
        snprintf(why, wlen, "out of memory");
        free(nd);
        if (m)
            curl_multi_cleanup(m);
        return -1;
    }
    curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS,
                      o->host_connections > 0 ? o->host_connections : 1L);
    long cap = connection_cap(n);
    if (cap > 0)
        curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, cap);
    int64_t t0 = now_ns(), end = t0 + o->total_ns;
    int running_paths = 0;
    for (size_t i = 0; i < n; i++) {
        nd[i].x = &x[i];
        nd[i].max = o->max_body;
        nd[i].start = t0;
        for (int k = 0; k < GM_FLEET_MAX_PATHS; k++) {
            x[i].body[k] = NULL;
            x[i].len[k] = 0;
            x[i].status[k] = 0;
            x[i].fail[k] = GM_FLEET_F_TIMEOUT;
            x[i].error[k][0] = '\0';
        }
        nd[i].h = curl_easy_init();
        if (!nd[i].h || !x[i].paths[0]) {
            nd[i].done = 1;
            x[i].fail[0] = GM_FLEET_F_OTHER;
            snprintf(x[i].error[0], sizeof(x[i].error[0]), "cannot start a transfer");
            continue;
        }
        setup(&nd[i], o);
        start_path(&nd[i], o, t0);
        curl_multi_add_handle(m, nd[i].h);
        running_paths++;
    }
    while (running_paths > 0) {
        int64_t now = now_ns();
        if (now >= end)
            break;
        int still;
        curl_multi_perform(m, &still);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct node *d;
            CURL *h = msg->easy_handle;
            CURLcode rc = msg->data.result;
            curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&d);
            curl_multi_remove_handle(m, h);
            running_paths--;
            if (finish(d, rc, now_ns())) {
                start_path(d, o, now_ns());
                curl_multi_add_handle(m, h);
                running_paths++;
            } else if (o->node_done) {
                o->node_done(o->arg, (size_t)(d - nd));
            }
        }
        if (running_paths == 0)
            break;
        int64_t wait = (end - now_ns()) / 1000000;
        if (wait > 100)
            wait = 100;
        if (wait < 1)
            wait = 1;
        curl_multi_poll(m, NULL, 0, (int)wait, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        if (!nd[i].done && nd[i].h) {
            int k = nd[i].k;
            x[i].fail[k] = GM_FLEET_F_TIMEOUT;
            snprintf(x[i].error[k], sizeof(x[i].error[k]), "no answer within the total deadline");
            x[i].elapsed_ns = now_ns() - t0;
        }
        if (nd[i].h) {
            curl_multi_remove_handle(m, nd[i].h);
            curl_easy_cleanup(nd[i].h);
        }
        free(nd[i].buf);
    }
    curl_multi_cleanup(m);
    free(nd);
    return 0;
}

static const char *fleet_version(void)
{
    return curl_version();
}

EXPORT const struct gm_fleet_fetch_module gm_fleet_fetch_module = {
    .abi = GM_FLEET_FETCH_ABI,
    .init = fleet_init,
    .fetch = fleet_fetch,
    .version = fleet_version,
};

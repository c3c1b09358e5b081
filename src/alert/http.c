/* http.c -- gpumon_notify.so: the notifier's HTTP POST over libcurl.
 *
 * One easy handle per channel, reset before each request (so no setting
 * leaks from one request to the next) but keeping its connection and TLS
 * session for the next one.  TLS verification is always on (peer and host
 * name); a ca-file is trusted in addition to the system's CAs.  Redirects
 * are not followed (a POST that moved is a configuration error to see, not
 * to guess around).  Proxies come from the usual environment variables
 * (https_proxy, no_proxy), as for every libcurl program.
 *
 * This file uses nothing of gpumon's core (see http_module.h): it is built
 * into a module that must load into any program.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "http_module.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
    init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int mod_init(char *why, size_t wlen)
{
    pthread_once(&init_once, global_init);
    if (init_rc != CURLE_OK) {
        snprintf(why, wlen, "libcurl initialisation failed: %s", curl_easy_strerror(init_rc));
        return -1;
    }
    return 0;
}

static void *mod_open(void)
{
    return curl_easy_init();
}

static void mod_close(void *client)
{
    if (client)
        curl_easy_cleanup(client);
}

static const char *mod_version(void)
{
    return curl_version();
}

/* Keeps the first bytes of the body (for the error message), counts all. */
static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct gm_http_resp *r = ud;
    size_t len = size * n;
    size_t have = r->body_len < sizeof(r->body) - 1 ? r->body_len : sizeof(r->body) - 1;
    size_t take = sizeof(r->body) - 1 - have;
    if (take > len)
        take = len;
    memcpy(r->body + have, p, take);
    r->body[have + take] = '\0';
    r->body_len += len;
    return len;
}

/* libcurl calls this at least once a second, and often while data flows. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    const int *abort_flag = ud;
    return abort_flag && __atomic_load_n(abort_flag, __ATOMIC_RELAXED) ? 1 : 0;
}

#define SET(opt, val)                                                                              \
    do {                                                                                           \
        CURLcode c_ = curl_easy_setopt(h, opt, val);                                               \
        if (c_ != CURLE_OK) {                                                                      \
            snprintf(resp->error, sizeof(resp->error), "cannot set %s: %s", #opt,                  \
                     curl_easy_strerror(c_));                                                      \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static int mod_post(void *client, const struct gm_http_req *req, struct gm_http_resp *resp)
{
    CURL *h = client;
    memset(resp, 0, sizeof(*resp));
    int rc = -1;
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *hdrs = NULL, *t;
    char line[640];

    curl_easy_reset(h);
    snprintf(line, sizeof(line), "Content-Type: %s", req->content_type);
    if (!(t = curl_slist_append(hdrs, line)))
        goto oom;
    hdrs = t;
    /* no "Expect: 100-continue" round trip for bodies over 1 KiB */
    if (!(t = curl_slist_append(hdrs, "Expect:")))
        goto oom;
    hdrs = t;
    if (req->header && req->header[0]) {
        if (!(t = curl_slist_append(hdrs, req->header)))
            goto oom;
        hdrs = t;
    }

    long timeout_ms = (long)(req->timeout_ns / 1000000);
    if (timeout_ms < 1)
        timeout_ms = 1;
    SET(CURLOPT_URL, req->url);
#if LIBCURL_VERSION_NUM >= 0x075500
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
    /* before curl 7.85 (Debian 11's 7.74, the release tarball's build);
     * still honoured, deprecated, by the newer ones it then runs with */
    SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_POSTFIELDS, req->body);
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    SET(CURLOPT_HTTPHEADER, hdrs);
    SET(CURLOPT_USERAGENT, "gpumon");
    SET(CURLOPT_TIMEOUT_MS, timeout_ms);
    SET(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    if (req->ca_file && req->ca_file[0]) {
        struct stat st;
        SET(CURLOPT_CAINFO, req->ca_file);
        /* keep the system's CAs too (CAINFO alone would replace the bundle) */
        if (stat("/etc/ssl/certs", &st) == 0 && S_ISDIR(st.st_mode))
            SET(CURLOPT_CAPATH, "/etc/ssl/certs");
    }
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, resp);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, (void *)req->abort);
    SET(CURLOPT_ERRORBUFFER, errbuf);

    CURLcode cc = curl_easy_perform(h);
    if (cc != CURLE_OK) {
        if (cc == CURLE_ABORTED_BY_CALLBACK)
            snprintf(resp->error, sizeof(resp->error), "aborted (the notifier is stopping)");
        else if (cc == CURLE_OPERATION_TIMEDOUT)
            snprintf(resp->error, sizeof(resp->error), "timed out after %ld ms", timeout_ms);
        else
            snprintf(resp->error, sizeof(resp->error), "%s",
                     errbuf[0] ? errbuf : curl_easy_strerror(cc));
        goto out;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
    rc = 0;
    goto out;
oom:
    snprintf(resp->error, sizeof(resp->error), "out of memory");
out:
    /* the handle must not point at this stack frame or the freed list */
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hdrs);
    return rc;
}

__attribute__((visibility("default"))) const struct gm_notify_http_module gm_notify_http_module = {
    .abi = GM_NOTIFY_HTTP_ABI,
    .init = mod_init,
    .open = mod_open,
    .post = mod_post,
    .close = mod_close,
    .version = mod_version,
};

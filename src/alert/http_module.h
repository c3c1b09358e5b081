/* http_module.h -- the notifier's loadable HTTP client (gpumon_notify.so).
 *
 * libcurl with OpenSSL costs every process that links it a few milliseconds
 * at start-up (library constructors, symbol binding), and only an agent with
 * a webhook or Alertmanager channel needs it.  So http.c is built as the
 * module gpumon_notify.so; http_load.c finds it (like src/export/load.c finds
 * the exporter) when gm_notifier_start meets a channel that needs HTTP.
 *
 * The boundary is plain C: the module uses nothing of gpumon's core (so it
 * loads into any program, tests included), and the notifier does everything
 * but the request itself (body, URL, headers, what a response means).
 */
#ifndef GM_ALERT_HTTP_MODULE_H
#define GM_ALERT_HTTP_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define GM_NOTIFY_HTTP_ABI 1

struct gm_http_req {
    const char *url;
    const char *body;
    size_t body_len;
    const char *content_type;
    const char *header;  /* one extra header line "Name: value", or "" */
    const char *ca_file; /* extra trusted CAs (PEM), or "" */
    int64_t timeout_ns;  /* the whole attempt, connection included */
    /* non-zero (set by another thread, with __atomic_store_n; read here with
     * __atomic_load_n) aborts the transfer within ~100 ms */
    const int *abort;
};

struct gm_http_resp {
    long status;     /* HTTP status, 0 when none was received */
    char body[256];  /* the first bytes of the response body, NUL-terminated */
    size_t body_len; /* all bytes received (may exceed what body holds) */
    char error[256]; /* why the request failed (no status), else "" */
};

struct gm_notify_http_module {
    int abi; /* GM_NOTIFY_HTTP_ABI */
    /* Once per process, before the first open: global library set-up.
     * Returns 0, or -1 with the reason in why. */
    int (*init)(char *why, size_t wlen);
    /* A client for one channel (keeps its connection between requests);
     * NULL when out of memory. */
    void *(*open)(void);
    /* POSTs req.  Returns 0 when a response arrived (whatever its status),
     * -1 with resp->error set when none did (DNS, connect, TLS, timeout). */
    int (*post)(void *client, const struct gm_http_req *req, struct gm_http_resp *resp);
    void (*close)(void *client);
    /* The library's version line ("libcurl/7.88.1 OpenSSL/3.0.11 ..."). */
    const char *(*version)(void);
};

#endif /* GM_ALERT_HTTP_MODULE_H */

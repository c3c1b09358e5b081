/* fetch_module.h -- the fleet's loadable HTTP client (gpumon_fleet.so).
 *
 * libcurl with its TLS stack costs every process that links it start-up
 * time, and only `gpumon fleet` asks other machines anything, so fetch.c
 * is a module like the notifier's (src/alert/http_module.h), found by
 * fetch_load.c.  The boundary is plain C: the module uses nothing of
 * gpumon's core.
 *
 * One call fetches the paths of every node concurrently (libcurl multi),
 * one connection per node (the node's paths one after the other on it),
 * within a per-node and a total deadline; bodies beyond a cap are cut off
 * and the transfer failed; redirects are not followed; only http and
 * https are spoken; TLS peers are verified unless the caller says not to.
 * Credentials are given to libcurl only as user and password, never in a
 * URL, so no error text can hold them.
 */
#ifndef GM_FLEET_FETCH_MODULE_H
#define GM_FLEET_FETCH_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define GM_FLEET_FETCH_ABI 2
#define GM_FLEET_MAX_PATHS 3

/* Why a transfer got no usable answer (gm_fleet_xfer.fail). */
enum gm_fleet_fail {
    GM_FLEET_F_NONE = 0, /* an HTTP status arrived with the whole body */
    GM_FLEET_F_REFUSED,  /* connection refused or reset */
    GM_FLEET_F_TIMEOUT,  /* the per-node or total deadline passed */
    GM_FLEET_F_DNS,      /* the name did not resolve */
    GM_FLEET_F_TLS,      /* TLS handshake or peer verification failed */
    GM_FLEET_F_TOO_BIG,  /* the body passed the cap */
    GM_FLEET_F_OTHER,    /* anything else (error says what) */
};

struct gm_fleet_xfer {
    /* in */
    const char *base;                      /* "http://host:port" or "https://..." */
    const char *paths[GM_FLEET_MAX_PATHS]; /* fetched in order; NULL ends the list */
    /* out, per path: the body (malloc'd, NUL-terminated, the caller frees),
     * its length, the HTTP status (0: none), and why it failed */
    char *body[GM_FLEET_MAX_PATHS];
    size_t len[GM_FLEET_MAX_PATHS];
    long status[GM_FLEET_MAX_PATHS];
    int fail[GM_FLEET_MAX_PATHS];
    char error[GM_FLEET_MAX_PATHS][160];
    int64_t elapsed_ns; /* from the start until the node's last answer */
};

struct gm_fleet_fetch_opts {
    const char *cacert;    /* extra trusted CAs (PEM file), or NULL */
    const char *cert;      /* client certificate (PEM), or NULL */
    const char *key;       /* its key, or NULL */
    const char *user;      /* basic auth, or NULL */
    const char *password;  /* basic auth, or NULL */
    int insecure;          /* 1: do not verify TLS peers */
    int64_t total_ns;      /* every node done within this */
    int64_t node_ns;       /* each node's transfers within this */
    size_t max_body;       /* bytes per answer */
    long host_connections; /* connections to one host:port at once; 0: 1 (a node's
                              answers one after the other on its connection) */
    /* Called, when not NULL, as soon as node i has its answers (every path
     * fetched, or one failed), on the fetching thread and while the others
     * are still under way, so that the caller can read x[i] (and take its
     * bodies: it frees them and sets them NULL) instead of waiting for the
     * slowest node.  Nodes that the total deadline ends are not passed. */
    void (*node_done)(void *arg, size_t i);
    void *arg;
};

struct gm_fleet_fetch_module {
    int abi; /* GM_FLEET_FETCH_ABI */
    /* Once per process: global library set-up.  0, or -1 with why. */
    int (*init)(char *why, size_t wlen);
    /* Fetches every x[i]'s paths as described above; returns 0, or -1 with
     * why when nothing could be tried (out of memory, libcurl refused). */
    int (*fetch)(struct gm_fleet_xfer *x, size_t n, const struct gm_fleet_fetch_opts *o, char *why,
                 size_t wlen);
    const char *(*version)(void);
};

#endif /* GM_FLEET_FETCH_MODULE_H */

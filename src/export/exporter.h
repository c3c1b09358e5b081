/* exporter.h -- the Prometheus exporter: an agent sink that renders each
 * snapshot once, and an HTTP server (libmicrohttpd) that serves the latest
 * rendering to every scrape, plus the node_exporter textfile output.
 *
 * The scrape path never calls NVML and never renders: it takes a reference
 * to the latest rendered body (text 0.0.4, or OpenMetrics 1.0 when the
 * Accept header asks for it; gzip-compressed on the first request that
 * accepts it, then cached), so a hung driver or a slow disk cannot slow a
 * scrape, and one failed GPU never fails the scrape.
 *
 * Endpoints: /metrics, /healthz (200 while the latest sample is fresh and
 * the driver answers; 503 with the reason otherwise), /livez (200 while the
 * server answers: liveness, whatever the driver), / (the live page),
 * /static/NAME (its assets) and /api/v1/status, /history, /alerts (its
 * read-only JSON API; live.h, docs/api.md), and /fleet with /api/v1/fleet
 * when a fleet is configured (docs/fleet.md).
 * Other paths 404, methods other than GET and HEAD 405.  Optional TLS,
 * client certificates and basic auth from an exporter-toolkit web config.
 * Connections are bounded in number, time and header size.
 */
#ifndef GM_EXPORT_EXPORTER_H
#define GM_EXPORT_EXPORTER_H

#include <stdint.h>

#include "../core/buf.h"
#include "../core/event.h"
#include "../core/sinkops.h"
#include "../core/err.h"
#include "../core/log.h"
#include "prom.h"

#define GM_EXPORTER_DEFAULT_LISTEN "127.0.0.1:9842"

struct gm_exporter_opts {
    const char *listen;       /* "ADDR:PORT", "[v6]:PORT", ":PORT" (all); NULL or "" = no HTTP */
    struct gm_prom_opts prom; /* names, hostname label, process metrics */
    const char *textfile_dir; /* write DIR/gpumon.prom after every sample; NULL = off */
    const char *store_path;   /* the agent's SQLite store, for /api/v1/usage; NULL = none */
    /* /api/v1/usage's document from the store at path, the period from
     * from_ns, grouped by `by` (enum gm_usage_by): the agent hands the
     * store's reader (the store is a sibling layer); NULL = 404 */
    int (*usage_json)(const char *path, int64_t from_ns, int by, struct gm_buf *out,
                      struct gm_err *err);
    const char *web_config; /* exporter-toolkit YAML; NULL = plain HTTP, no auth */
    /* Host names answered besides the agent's own, comma-separated ("*":
     * any); checked only without basic auth or verified client certificates
     * (request.h, gm_request_host_ok).  NULL = none. */
    const char *allowed_hosts;
    /* /api/v1/status has the processes' command lines (which may hold
     * secrets passed as arguments) with basic auth or verified client
     * certificates, or when this is set; "command" is null otherwise. */
    int api_command_lines;
    unsigned max_connections;      /* 0 = 512 */
    int64_t connection_timeout_ns; /* idle connections are closed after this; 0 = 10 s */
    int64_t stale_after_ns;        /* /healthz: 503 when the latest sample is older */
    /* The live page (/, /static/..., /api/v1/...; docs/api.md).  status_json
     * writes `gpumon status --json`'s document of a snapshot (the view
     * layer's, which this layer cannot call), with each process's command
     * line when command_lines, else with "command" null (withheld); NULL:
     * /api/v1/status answers 503.  alerts copies up to max alerts pending or firing now into out
     * and returns how many there are, or -1 when alerts are off (NULL: off); it is called on the
     * HTTP threads and must not block for long. */
    void (*status_json)(const struct gm_snapshot *s, int command_lines, struct gm_buf *out);
    int (*alerts)(void *arg, struct gm_alert_now *out, int max);
    void *alerts_arg;
    /* The fleet page (/fleet, /api/v1/fleet; docs/fleet.md): fleet_json
     * appends the latest fleet document to out and returns 0, or -1 when no
     * round has ended yet (503); it is called on the HTTP threads and must
     * not wait for the nodes (fleet/poll.h keeps the document).  NULL: no
     * fleet is configured here, /fleet and /api/v1/fleet answer 404 saying
     * so.  fleet_only: `gpumon fleet serve`, which samples nothing: / is the
     * fleet page too, /livez answers, every other path of the agent 404s. */
    int (*fleet_json)(void *arg, struct gm_buf *out);
    void *fleet_arg;
    int fleet_only;
    gm_log_fn log; /* may be NULL */
    void *log_arg;
};

struct gm_exporter;

/* These functions live in the gpumon_export.so module (module.h), loaded on
 * the first call to gm_exporter_start: $GPUMON_EXPORT_MODULE, the directory
 * of the gpumon binary (a build tree), or the installed library directory.
 * When the module cannot be loaded, gm_exporter_start fails with the reason. */

/* Starts the HTTP server (when listen is set) and loads the web config.
 * Errors (bad address, port in use, bad web config with FILE:LINE) leave
 * nothing running. */
struct gm_exporter *gm_exporter_start(const struct gm_exporter_opts *o, struct gm_err *err);

/* Applies new options (after SIGHUP): re-reads the web config and restarts
 * the listener when the address or TLS changed; the latest rendering keeps
 * being served.  On error the old settings stay. */
int gm_exporter_reconfigure(struct gm_exporter *x, const struct gm_exporter_opts *o,
                            struct gm_err *err);

/* The sink interface: write() publishes a snapshot.  ctx is the exporter;
 * the sink's close does not stop the server (gm_exporter_stop does), so the
 * exporter outlives sink restarts on reload. */
extern const struct gm_sink_ops gm_exporter_sink_ops;

/* Dropped snapshots of the agent's sinks, for the self-metrics. */
void gm_exporter_set_dropped(struct gm_exporter *x, uint64_t dropped);

/* Stops the server and frees everything.  Accepts NULL. */
void gm_exporter_stop(struct gm_exporter *x);

/* Where the exporter serves, for log lines: "https://ADDR" when its web
 * config turns TLS on, "http://ADDR" otherwise, "" when it serves no HTTP
 * (textfile only).  Call from the thread that starts and reconfigures x. */
void gm_exporter_url(struct gm_exporter *x, char *buf, size_t len);

/* Loads and validates the web config at path as the exporter would (keys,
 * bcrypt hashes, certificate and key files, limits), without starting
 * anything: 0, or a GM_E* code with "PATH:LINE: reason" in err.  Loads the
 * exporter module (`gpumon config check`). */
int gm_exporter_check_web_config(const char *path, struct gm_err *err);

#endif /* GM_EXPORT_EXPORTER_H */

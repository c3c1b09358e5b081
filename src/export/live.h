/* live.h -- the agent's live page and its read-only JSON API, without the
 * server: the page at / (server-rendered from a snapshot, so it reads
 * without JavaScript), the assets under /static/ (embedded in the module),
 * the history ring behind /api/v1/history, the query parameters' checks and
 * the JSON documents (docs/api.md).
 *
 * Pure functions of their arguments plus the ring (its own lock), so that
 * they can be tested without libmicrohttpd (tests/unit/test_live.c);
 * exporter_http.c routes the requests and adds the headers.  Every text that
 * came from outside (GPU names, UUIDs, process names, users, alert values)
 * is written through gm_text_line and HTML-escaped in the page, through
 * gm_json_str in the API.  Left out: anything that changes state (there is
 * no such endpoint), and the SQLite store (the history is the ring's last
 * hour; `gpumon plot` and `gpumon report` read the store).
 */
#ifndef GM_EXPORT_LIVE_H
#define GM_EXPORT_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/event.h"
#include "../core/snapshot.h"

/* The Content-Security-Policy of every live response: nothing inline,
 * nothing from another origin. */
#define GM_LIVE_CSP                                                                                \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "                    \
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "                 \
    "frame-ancestors 'none'"

/* How far back the ring reaches, and how many samples per GPU it keeps at
 * most (an hour at the default 1 s interval; a shorter interval covers less
 * than the hour). */
#define GM_LIVE_WINDOW_NS 3600000000000LL
#define GM_LIVE_RING_MAX 3600

/* The most alerts the page and /api/v1/alerts list (the count says when
 * there are more). */
#define GM_LIVE_ALERTS_MAX 128

/* ------------------------------------------------------------- assets */

struct gm_live_asset {
    const char *path; /* "/static/live.js" */
    const char *content_type;
    const unsigned char *data;
    size_t len;
};

/* The embedded asset served at path, or NULL. */
const struct gm_live_asset *gm_live_asset(const char *path);

/* ------------------------------------------------------------ history */

/* The metrics the ring keeps: those the SQLite store keeps (a STORE column
 * in the registry), GPU scope; up to max ids into ids, returns how many. */
int gm_live_history_metrics(int *ids, int max);

struct gm_live_ring;

/* An empty ring (it allocates as samples come, up to GM_LIVE_RING_MAX per
 * GPU); its functions may be called from any thread (its own lock).
 * gm_live_ring_free accepts NULL. */
struct gm_live_ring *gm_live_ring_new(void);
void gm_live_ring_free(struct gm_live_ring *r);

/* The bytes r holds for its samples (its own allocations: the columns at
 * the width their values need, src/export/live.c). */
size_t gm_live_ring_mem_bytes(struct gm_live_ring *r);

/* Appends snapshot s (its wall and monotonic times, its sequence number,
 * each GPU's state and kept metrics; a value that is not ok is kept as
 * absent).  Samples more than the window before it on the monotonic clock
 * fall out.  A snapshot without GPUs because the driver is not there is kept
 * as a gap on the GPUs the ring has (no value, state no_driver); a snapshot
 * with another GPU count otherwise starts the ring afresh.  s->seq numbers
 * the sample (one that does not increase is taken as the previous plus 1). */
void gm_live_ring_add(struct gm_live_ring *r, const struct gm_snapshot *s);

/* A checked /api/v1/history query. */
struct gm_live_query {
    int metrics[16]; /* registry ids, in the order asked */
    int nmetrics;
    int64_t since_ns;   /* a duration back from the latest sample, or ... */
    int64_t after_wall; /* ... (since=@NS) samples strictly after this time (as answered) */
    uint64_t after_seq; /* after=SEQ: samples whose sequence number is greater */
    uint64_t ids;       /* GPU indices asked for (bit i); 0: all */
};

/* Checks one query parameter (name, value; value may be NULL for "?name")
 * into q, which starts zeroed.  0, or -1 with a 400 JSON error in err naming
 * the parameter.  seen: bits of parameters already given (a repeat is
 * refused). */
int gm_live_query_param(struct gm_live_query *q, unsigned *seen, const char *name,
                        const char *value, struct gm_buf *err);

/* Fills the defaults of what the query left out (every kept metric, the
 * whole window). */
void gm_live_query_finish(struct gm_live_query *q);

/* The /api/v1/history document for q.  0, or -1 with a 400 JSON error in
 * out (a GPU index the ring does not have). */
int gm_live_history_json(struct gm_live_ring *r, const struct gm_live_query *q, struct gm_buf *out);

/* ---------------------------------------------------- documents, page */

/* {"error": msg, "parameter": param or absent, "status": status}. */
void gm_live_error_json(struct gm_buf *out, int status, const char *param, const char *msg);

/* The /api/v1/alerts document: n of total alerts copied in a; total < 0:
 * alerts are off in this agent. */
void gm_live_alerts_json(struct gm_buf *out, const struct gm_alert_now *a, int n, int total);

/* The page at /: one card per GPU of s (s may be NULL: no sample yet) and
 * the alerts (as for gm_live_alerts_json). */
void gm_live_page(struct gm_buf *out, const struct gm_snapshot *s, const struct gm_alert_now *a,
                  int n, int total);

/* The fleet page at /fleet: a page without data of its own (the legend,
 * the empty grid and problem list) whose script (static/fleet.js) draws
 * both from /api/v1/fleet; without JavaScript it says where the JSON is. */
void gm_live_fleet_page(struct gm_buf *out);

#endif /* GM_EXPORT_LIVE_H */

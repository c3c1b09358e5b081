/* poll.h -- the fleet fetched in rounds in the background, for the fleet
 * page (`/fleet` of the agent's page server and of `gpumon fleet serve`).
 *
 * One thread asks every node (fetch_module.h, the module gpumon_fleet.so,
 * loaded here and only when a fleet is configured) once per interval and
 * keeps the last round's `gpumon.fleet/1` document; the page server hands
 * that document to every viewer, so N viewers cost the nodes nothing more
 * than one: the nodes are asked once a round, never per request.  A round
 * that could not ask at all (the module refused) keeps the previous
 * document, whose age then grows.  Also the one round that `gpumon fleet`
 * runs (gm_fleet_fetch_round), so both read answers the same way.
 */
#ifndef GM_FLEET_POLL_H
#define GM_FLEET_POLL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "fetch_module.h"
#include "fleet.h"

/* Loads gpumon_fleet.so ($GPUMON_FLEET_MODULE, beside the executable, or
 * installed) and initialises it once; NULL with why when it cannot. */
const struct gm_fleet_fetch_module *gm_fleet_module_load(char *why, size_t wlen);

/* One round: asks every node of f for /api/v1/status and /api/v1/alerts
 * with m and fo, and reads the answers into f's nodes (stale_ns: the age
 * beyond which a node is stale).  0, or -1 with why when nothing could be
 * asked (the nodes are left as they were). */
int gm_fleet_fetch_round(const struct gm_fleet_fetch_module *m, struct gm_fleet *f,
                         const struct gm_fleet_fetch_opts *fo, int64_t stale_ns, char *why,
                         size_t wlen);

/* The Prometheus source's round: the instant queries of
 * gm_fleet_prom_queries at url (http(s), trailing slashes ignored) all at
 * once with m and fo (whose max_body and host_connections this sets), then
 * a node per target into f, which starts empty.  0, or -1 with err naming
 * Prometheus and why (the first query that failed). */
int gm_fleet_prom_round(const struct gm_fleet_fetch_module *m, const char *url,
                        const struct gm_fleet_fetch_opts *fo, int64_t stale_ns, struct gm_fleet *f,
                        struct gm_err *err);

struct gm_fleet_poll_opts {
    const struct gm_fleet *nodes; /* the hosts, in order (only host and base are read) */
    const char *prometheus;       /* or: the nodes from this Prometheus (copied) */
    /* The HTTP client; NULL: gpumon_fleet.so (tests give their own). */
    const struct gm_fleet_fetch_module *module;
    struct gm_fleet_fetch_opts fetch; /* its strings are copied */
    int64_t interval_ns;              /* a round starts this long after the last one started */
    int64_t stale_ns;
};

struct gm_fleet_poller;

/* Loads the module and starts the thread (its first round at once).  NULL
 * with err (the module's reason) when the module cannot be loaded, or
 * there are neither nodes nor a Prometheus. */
struct gm_fleet_poller *gm_fleet_poller_start(const struct gm_fleet_poll_opts *o,
                                              struct gm_err *err);

/* The latest round's document: `gpumon fleet --json`'s gpumon.fleet/1 with
 * "round" (its number, from 1), "fetched_unix_ns" (when it ended),
 * "age_seconds" (how long ago, now), "interval_seconds" and
 * "round_error" (why the rounds after it failed as a whole, or null) in
 * front of "schema"; appended to out.  Returns 0, or -1 (out untouched) when no round
 * has ended yet.  Any thread; it never waits for a round.  A round that
 * failed as a whole (nothing could be asked, Prometheus did not answer)
 * leaves the last document, and its age grows. */
int gm_fleet_poller_json(struct gm_fleet_poller *p, struct gm_buf *out);

/* gm_fleet_poller_json with the poller as a void *, for the exporter's
 * fleet_json option. */
int gm_fleet_poller_json_cb(void *p, struct gm_buf *out);

/* Stops the thread (a round in progress ends within its timeout) and frees
 * everything.  Accepts NULL. */
void gm_fleet_poller_stop(struct gm_fleet_poller *p);

#endif /* GM_FLEET_POLL_H */

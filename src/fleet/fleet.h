/* fleet.h -- many nodes' GPUs at a glance: the model of `gpumon fleet`.
 *
 * A fleet is a list of nodes, each an agent's HTTP API (docs/api.md) that
 * fetch_module.h asked for /api/v1/status and /api/v1/alerts.  This module
 * turns each node's answers into a snapshot (the same struct gm_snapshot
 * one machine's sampler makes, so that view/free.c's rules judge a remote
 * GPU as they judge a local one) plus what only the fleet has: the node's
 * state and why, its alerts, each GPU's problem and job.  It renders the
 * fleet view, its JSON document and the diagnosis across nodes
 * (docs/fleet.md).  Every answer is somebody else's text: the parser
 * refuses what is not the document (fjson.h), caps the GPUs, and every
 * output escapes names (core/text.h).  Nothing here does network I/O,
 * prints or exits; cli/cmd_fleet.c does.
 */
#ifndef GM_FLEET_H
#define GM_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"

#define GM_FLEET_MAX_NODES 4096
#define GM_FLEET_MAX_GPUS 1024        /* per node: more is refused as hostile */
#define GM_FLEET_MAX_BODY (16u << 20) /* bytes of one answer */
#define GM_FLEET_STATUS_SCHEMA "gpumon.status/1"
#define GM_FLEET_ALERTS_SCHEMA "gpumon.alerts/1"

enum gm_fleet_state {
    GM_FLEET_OK = 0,
    GM_FLEET_UNREACHABLE, /* no answer: refused, timeout, DNS, TLS, 401/403 */
    GM_FLEET_INVALID,     /* an answer that is not the document: refused */
    GM_FLEET_STALE,       /* the latest sample is older than the stale limit */
    GM_FLEET_DRIVER,      /* the agent runs but its driver does not answer */
};

/* The state's name in every output ("ok", "unreachable", ...). */
const char *gm_fleet_state_name(int state);

/* What only the fleet keeps of a GPU. */
struct gm_fleet_gpu {
    int sev;           /* 0 none, 1 throttled, 2 finding or warning, 3 critical, 4 lost */
    char problem[160]; /* why, plain text from our own words and the agent's cause names */
    char throttle[32]; /* the agent's `throttle`, "" when none */
    char job[80];      /* the GPU's first job id (process job, else hpc_jobs), "" when none */
    int busy;          /* utilisation >= 10 % or a compute process */
};

struct gm_fleet_alert {
    char rule[64];
    char severity[16];
    char state[16];
    int gpu; /* -1: a host rule */
    char value[64];
};

struct gm_fleet_node {
    char host[256];   /* as given: "name" or "name:port" */
    char base[300];   /* "http://name:port" */
    int state;        /* enum gm_fleet_state */
    char reason[256]; /* why it is not ok (plain ASCII of our own, or escaped later) */
    int skew;         /* the API's schema differs from the one this gpumon reads */
    char schema[64];
    int64_t age_ns;         /* how old its latest sample is (-1 unknown) */
    double fetch_s;         /* how long its answers took */
    struct gm_snapshot *s;  /* its GPUs; NULL when none was read */
    struct gm_fleet_gpu *g; /* s->ngpu entries */
    int alerts_known;
    uint32_t nalerts;
    struct gm_fleet_alert *alerts;
};

struct gm_fleet {
    uint32_t n;
    struct gm_fleet_node *node;
};

/* Adds host ("name", "name:port", "[v6]:port", with an optional http:// or
 * https:// in front; default port 9842, default scheme http, https when
 * tls).  GM_E_INVAL with a message naming the host when it is malformed,
 * holds credentials (user@), a path, or the fleet is full. */
int gm_fleet_add(struct gm_fleet *f, const char *host, int tls, struct gm_err *err);

/* Adds each comma-separated host of list. */
int gm_fleet_add_list(struct gm_fleet *f, const char *list, int tls, struct gm_err *err);

/* The configuration's check of the [fleet] section's values (the agent's
 * config.h gm_config_check_fn): `fleet` must be a host list that
 * gm_fleet_add_list accepts; other keys pass. */
int gm_fleet_conf_check(const char *key, const char *value, char *why, size_t wlen);

/* Adds the hosts of a file: one host[:port] a line, blank lines and
 * comments (# to the end of the line) skipped.  Errors name file:line. */
int gm_fleet_add_file(struct gm_fleet *f, const char *path, int tls, struct gm_err *err);

void gm_fleet_clear(struct gm_fleet *f);

/* Marks node unreachable/invalid from a transfer that failed: what is the
 * path, fail the gm_fleet_fail code, status the HTTP status, error
 * libcurl's words. */
void gm_fleet_node_failed(struct gm_fleet_node *nd, int fail, long status, const char *error);

/* Reads node nd's /api/v1/status answer (body[0..len)); now_ns is this
 * machine's wall clock, stale_ns the age beyond which it is stale.
 * Returns 0, or -1 with nd marked invalid and the reason set. */
int gm_fleet_node_status(struct gm_fleet_node *nd, const char *body, size_t len, int64_t now_ns,
                         int64_t stale_ns);

/* Reads its /api/v1/alerts answer; an answer that is not the document
 * leaves alerts unknown and says so in reason (the node stays as it is).
 * Then judges each GPU's problem (gm_fleet_gpu). */
void gm_fleet_node_alerts(struct gm_fleet_node *nd, const char *body, size_t len);

/* Judges each GPU's problem and busy flag from the snapshot and alerts
 * (called by the two above; again after alerts arrive). */
void gm_fleet_node_judge(struct gm_fleet_node *nd);

struct gm_fleet_view_opts {
    int gpus;  /* every GPU row, not only the problem ones */
    int color; /* unused yet: plain text */
};

/* The fleet view: a line per node, then the problem GPUs by severity. */
void gm_fleet_render_status(const struct gm_fleet *f, const struct gm_fleet_view_opts *o,
                            struct gm_buf *out);

/* The JSON document "gpumon.fleet/1" (docs/fleet.md). */
void gm_fleet_render_json(const struct gm_fleet *f, int pretty, struct gm_buf *out);

/* A job on several nodes with one node far below the others. */
struct gm_fleet_straggler {
    char job[80];
    uint32_t node;      /* the straggling node's index */
    double node_util;   /* its GPUs' mean utilisation */
    double others_util; /* the other nodes' mean */
    uint32_t nnodes;    /* nodes the job runs on */
};

/* Finds the straggling nodes of multi-node jobs: a job id on GPUs of two
 * or more ok nodes, one node's mean utilisation below half the mean of the
 * others, and the others at least 30 %.  Returns how many were written
 * (at most max). */
size_t gm_fleet_stragglers(const struct gm_fleet *f, struct gm_fleet_straggler *out, size_t max);

/* `fleet diagnose`: every finding of every node grouped by cause, then the
 * fleet's own (straggling nodes); as text or as JSON "gpumon.fleet-diagnose/1". */
void gm_fleet_render_diagnose(const struct gm_fleet *f, int json, int pretty, struct gm_buf *out);

/* ------------------------------------------------------------------ Prometheus */

/* The instant queries of the Prometheus source, URL-encoded (the values of
 * /api/v1/query?query=), NULL-terminated: one per metric for the whole
 * fleet (prom.c says which). */
extern const char *const gm_fleet_prom_queries[];

/* Adds a node per target of the jobs that scrape gpumon, from the answers
 * body[i] (len[i] bytes) to gm_fleet_prom_queries[i] in order: its GPUs,
 * values, findings, firing alerts, processes (each a compute process),
 * users, jobs and state (up 0: unreachable; a sample older than stale_ns:
 * stale; an ok node whose processes are unknown or incomplete says so in
 * its reason).  Returns 0, or GM_E_INVAL with err naming the query whose
 * answer is not a successful instant-query document. */
int gm_fleet_from_prometheus(struct gm_fleet *f, const char *const *body, const size_t *len,
                             int64_t stale_ns, struct gm_err *err);

#endif /* GM_FLEET_H */

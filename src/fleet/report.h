/* report.h -- `gpumon fleet report`: who used the fleet's GPUs over a
 * period, by user, job or node (docs/fleet.md "fleet report").
 *
 * Two sources, one table.  From the agents: each node's /api/v1/usage
 * (docs/api.md, by=gpu: its store's usage_1h rows per GPU, job, user and
 * process) summed here, with the nodes that did not answer named and the
 * totals marked incomplete.  From Prometheus: one query per measure for the
 * whole fleet over the agents' gpumon_usage_* counters (docs/exporter.md),
 * so the number of queries does not grow with the nodes.  Both keep the
 * accounting of the store (core/usage_acct.h).  Every name comes from
 * another machine: the parser refuses what is not the document and every
 * output escapes (core/text.h).  Nothing here does I/O.
 */
#ifndef GM_FLEET_REPORT_H
#define GM_FLEET_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "fleet.h"

enum gm_frep_by { GM_FREP_USER = 0, GM_FREP_JOB, GM_FREP_NODE };
enum gm_frep_format { GM_FREP_TEXT = 0, GM_FREP_CSV, GM_FREP_JSON };

#define GM_FREP_MAX_ROWS 100000 /* rows of one node's answer; more: refused */

struct gm_frep_row {
    char key[256];   /* the user, job or node as received ("" none) */
    double gpu_s;    /* GPU-seconds */
    double energy_j; /* J, summed over the parts that know it */
    int energy_known;
    uint64_t *gpus; /* distinct (node << 32 | GPU index); direct mode only */
    size_t ngpus, capgpus;
    int64_t first_ms, last_ms; /* 0: unknown (Prometheus) */
};

struct gm_frep {
    int by;           /* enum gm_frep_by */
    int64_t since_ns; /* the period: since_ns back from now */
    int prom;         /* read from Prometheus */
    size_t n;
    struct gm_frep_row *row;
};

/* The agent path asked for a report since since_ns ("/api/v1/usage?..."). */
void gm_frep_api_path(int64_t since_ns, char *buf, size_t len);

/* Adds node `node` (its index in the fleet) from its /api/v1/usage answer
 * body[0..len).  Returns 0, or -1 with nd marked invalid and its reason
 * set (the totals then lack it). */
int gm_frep_add_node(struct gm_frep *r, struct gm_fleet_node *nd, uint32_t node, const char *body,
                     size_t len);

/* The Prometheus queries, URL-encoded, for measure 0 (GPU-seconds) and 1
 * (energy): sum by (user|job_id|instance) (increase(...[since])). */
void gm_frep_prom_query(int by, int measure, int64_t since_ns, struct gm_buf *out);

/* Reads the answers to the two queries.  0, or GM_E_INVAL with err naming
 * the query whose answer is not a successful instant-query document. */
int gm_frep_from_prom(struct gm_frep *r, const char *const body[2], const size_t len[2],
                      struct gm_err *err);

/* The report: a line per key, most GPU time first, then the total (marked
 * incomplete when a node of f is not ok; f NULL in Prometheus mode), as a
 * table, CSV, or the JSON document "gpumon.fleet-report/1". */
void gm_frep_render(struct gm_frep *r, const struct gm_fleet *f, int format, struct gm_buf *out);

void gm_frep_clear(struct gm_frep *r);

#endif /* GM_FLEET_REPORT_H */

/* cmd_fleet_report.h -- `gpumon fleet report` for cmd_fleet.c, which
 * parses the flags, builds the node list and owns the HTTP client
 * (cmd_fleet_report.c). */
#ifndef GM_CLI_CMD_FLEET_REPORT_H
#define GM_CLI_CMD_FLEET_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../fleet/fetch_module.h"
#include "../fleet/fleet.h"

/* Fetches x[0..n) with the command's TLS, auth and deadlines; prom: the
 * transfers are Prometheus queries (all at once on one host).  0, or -1
 * with why when nothing could be asked. */
typedef int (*cli_fleet_fetch_fn)(void *ctx, struct gm_fleet_xfer *x, size_t n, int prom, char *why,
                                  size_t wlen);

struct cli_fleet_report_opts {
    const char *prometheus; /* base URL without the trailing '/', or NULL: the agents */
    int by;                 /* enum gm_frep_by */
    int64_t since_ns;
    int format; /* enum gm_frep_format */
};

/* Runs the report over the nodes of f (the agents) or Prometheus, prints
 * it; returns the exit status (1 when no node answered or Prometheus
 * failed). */
int cli_fleet_report(struct gm_fleet *f, const struct cli_fleet_report_opts *o,
                     cli_fleet_fetch_fn fetch, void *ctx);

#endif /* GM_CLI_CMD_FLEET_REPORT_H */

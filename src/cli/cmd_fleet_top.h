/* cmd_fleet_top.h -- `gpumon fleet top` for cmd_fleet.c, which parses the
 * flags, builds the node list and owns the fetch (cmd_fleet_top.c). */
#ifndef GM_CLI_CMD_FLEET_TOP_H
#define GM_CLI_CMD_FLEET_TOP_H

#include "../fleet/fleet_top.h"

/* Runs the full-screen view over the nodes of f, a round (round(ctx, ...))
 * every interval_ns, each within round_ns.  Returns the exit status; it
 * _exit()s when a round does not end after the view closed. */
int cli_fleet_top(const struct gm_fleet *f, int64_t interval_ns, int64_t round_ns,
                  gm_fleet_top_round round, void *ctx);

#endif /* GM_CLI_CMD_FLEET_TOP_H */

/* cmd_fleet_top.c -- `gpumon fleet top`: the fleet's full-screen view
 * (docs/fleet.md).  cmd_fleet.c parses the flags and gives the node list
 * and a round function (every node's /api/v1/status and /api/v1/alerts,
 * or Prometheus' queries, as `fleet status` asks them); this file starts the screen module
 * (fleet/fleet_top.h) and turns how it ended into an exit status.  Exit:
 * 0 after q or a signal, 1 when the screen cannot start.
 */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_fleet_top.h"

int cli_fleet_top(const struct gm_fleet *f, int64_t interval_ns, int64_t round_ns,
                  gm_fleet_top_round round, void *ctx)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        cli_error("fleet top: needs a terminal (use gpumon fleet status for a text view)");
        return GM_EXIT_FAIL;
    }
    struct gm_fleet_top_opts o = {
        .list = f,
        .interval_ns = interval_ns,
        .round_ns = round_ns,
        .color = -1,
        .round = round,
        .ctx = ctx,
    };
    struct gm_err err = {0};
    int rc = gm_fleet_top_run(&o, &err);
    if (rc == GM_FLEET_TOP_WEDGED) {
        fflush(stdout);
        _exit(GM_EXIT_OK); /* a round still runs on its thread: nothing may be freed */
    }
    if (rc != 0) {
        cli_error("fleet top: %s", err.msg);
        return GM_EXIT_FAIL;
    }
    return GM_EXIT_OK;
}

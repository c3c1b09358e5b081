/* daemon.h -- `gpumon agent`: the sampler, its sinks, the lock, signals and
 * the control socket, for the life of the process.
 *
 *  - One agent per data directory: <data-dir>/agent.lock is held with
 *    flock(2) for the daemon's life and contains its PID; a second agent
 *    fails and names that PID.
 *  - SIGTERM/SIGINT: stop sampling, drain and flush every sink, exit 0
 *    within 2 s.  SIGHUP: reload the configuration (an invalid file is
 *    reported and the old settings kept) and reopen every file.
 *  - <data-dir>/agent.sock answers `gpumon mark` and status requests
 *    (control.h: the protocol, its bounds and the client).
 *  - --once: one sample through the same sinks, lock and files, then exit
 *    (for cron).
 */
#ifndef GM_AGENT_DAEMON_H
#define GM_AGENT_DAEMON_H

#include "config.h"
#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"

/* Builds the configuration (defaults, file, flags) -- called at start
 * (reload 0) and again on SIGHUP (reload 1: read the file with
 * GM_CONFIG_REGULAR, so that the main loop never waits for a FIFO's
 * writer).  Returns 0 or an error with a message. */
typedef int (*gm_config_builder)(void *arg, int reload, struct gm_config *out, struct gm_err *err);

struct gm_daemon_opts {
    gm_config_builder build;
    void *build_arg;
    int once; /* record one sample and exit */
    /* `gpumon status --json`'s document of a snapshot, for the exporter's
     * /api/v1/status (the view layer's function, handed down by the
     * command); NULL: that endpoint answers 503 */
    void (*status_json)(const struct gm_snapshot *s, int command_lines, struct gm_buf *out);
    /* The fleet page's rounds (fleet/poll.h, a layer above, handed down by
     * the command): fleet_start starts them over the hosts of `fleet =`
     * with the [fleet] section's settings and returns a handle (NULL with
     * err: the agent does not start);
     * fleet_json is the exporter's fleet_json of that handle; fleet_stop
     * ends them.  NULL: no fleet page, whatever `fleet =` says. */
    void *(*fleet_start)(const struct gm_config *c, struct gm_err *err);
    int (*fleet_json)(void *fleet, struct gm_buf *out);
    void (*fleet_stop)(void *fleet);
};

/* Runs until a stop signal; returns the process exit status (0, or 1 for a
 * start-up failure such as a held lock, with err describing it). */
int gm_daemon_run(const struct gm_daemon_opts *o, struct gm_err *err);

#endif /* GM_AGENT_DAEMON_H */

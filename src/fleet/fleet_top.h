/* fleet_top.h -- `gpumon fleet top`, the fleet's full-screen view
 * (contract for cmd_fleet_top.c; docs/fleet.md).
 *
 * Like `gpumon top`, the screen lives in a loadable module
 * (gpumon_fleettop.so, ncursesw) so that no other command loads ncurses;
 * fleet_top_load.c finds it and forwards gm_fleet_top_run() to it.  The
 * module knows nothing of HTTP: the caller gives it a round function that
 * asks every node once (cmd_fleet.c's fetch, libcurl in gpumon_fleet.so),
 * and the module calls it on a thread of its own every interval, so a slow
 * or dead node never holds the screen.  What the screen shows of a node is
 * its last good answer with that answer's age, and the state of its latest
 * round (a node that stopped answering is marked, its old values kept).
 */
#ifndef GM_FLEET_FLEET_TOP_H
#define GM_FLEET_FLEET_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "fleet.h"

/* One round: fills every node of f (fresh copies of the list's nodes, in
 * order: host and base set, nothing read) with its answers.  Called on the
 * fetch thread, never two at once; it must not print.  Returns 0, or -1
 * with why when nothing could be asked (the screen shows why). */
typedef int (*gm_fleet_top_round)(void *ctx, struct gm_fleet *f, char *why, size_t wlen);

struct gm_fleet_top_opts {
    const struct gm_fleet *list; /* the nodes (host, base), borrowed for the run */
    int64_t interval_ns;         /* a round starts this long after the last one started */
    int64_t round_ns;            /* the longest a round takes (its total deadline) */
    int color;                   /* 1 colour, 0 monochrome, -1 auto (NO_COLOR) */
    gm_fleet_top_round round;
    void *ctx;
};

/* What gm_fleet_top_run returns besides 0 and GM_E_* codes. */
enum {
    GM_FLEET_TOP_WEDGED = 1, /* quit while a round did not end: the caller must _exit() */
};

/* Runs the view until q or SIGTERM/SIGINT/SIGHUP; the terminal is
 * restored on every way out.  Errors that stop it (no terminal, the
 * module missing) return a GM_E_* code with the reason in err. */
int gm_fleet_top_run(const struct gm_fleet_top_opts *o, struct gm_err *err);

/* The module's one export. */
#define GM_FLEET_TOP_MODULE_ABI 1
struct gm_fleet_top_module {
    int abi; /* GM_FLEET_TOP_MODULE_ABI */
    int (*run)(const struct gm_fleet_top_opts *o, struct gm_err *err);
};

#endif /* GM_FLEET_FLEET_TOP_H */

/* fleet_top_load.c -- finds and loads gpumon_fleettop.so and forwards
 * gm_fleet_top_run() to it (see fleet_top.h for why the screen is a
 * module). */
#include "../core/modload.h"
#include "fleet_top.h"

#ifndef GM_FLEETTOP_MODULE_INSTALLED
#define GM_FLEETTOP_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_fleettop.so"
#endif

static int accept_fleettop(const void *sym, char *why, size_t wlen)
{
    (void)why;
    (void)wlen;
    return ((const struct gm_fleet_top_module *)sym)->abi == GM_FLEET_TOP_MODULE_ABI ? 0 : -1;
}

int gm_fleet_top_run(const struct gm_fleet_top_opts *o, struct gm_err *err)
{
    char why[512] = "";
    const struct gm_fleet_top_module *m =
        gm_module_load("GPUMON_FLEETTOP_MODULE", "gpumon_fleettop.so", GM_FLEETTOP_MODULE_INSTALLED,
                       "gm_fleet_top_module", "fleet top", accept_fleettop, why, sizeof(why));
    if (!m)
        return gm_err_set(err, GM_E_NOTFOUND,
                          "cannot load the fleet's full-screen view: %s" GM_MODULE_HINT(
                              "gpumon_fleettop.so", "libncursesw.so.6", "libncursesw6"),
                          why);
    return m->run(o, err);
}

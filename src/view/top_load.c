/* top_load.c -- finds and loads gpumon_top.so and forwards gm_top_run() to
 * it (see top.h for why the full-screen view is a module). */
#include "../core/modload.h"
#include "top.h"

#ifndef GM_TOP_MODULE_INSTALLED
#define GM_TOP_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_top.so"
#endif

static int accept_top(const void *sym, char *why, size_t wlen)
{
    (void)why;
    (void)wlen;
    return ((const struct gm_top_module *)sym)->abi == GM_TOP_MODULE_ABI ? 0 : -1;
}

int gm_top_run(const struct gm_top_opts *o, struct gm_err *err)
{
    char why[512] = "";
    const struct gm_top_module *m =
        gm_module_load("GPUMON_TOP_MODULE", "gpumon_top.so", GM_TOP_MODULE_INSTALLED,
                       "gm_top_module", "top", accept_top, why, sizeof(why));
    if (!m)
        return gm_err_set(err, GM_E_NOTFOUND,
                          "cannot load the full-screen view's module: %s" GM_MODULE_HINT(
                              "gpumon_top.so", "libncursesw.so.6", "libncursesw6"),
                          why);
    return m->run(o, err);
}

/* plot_load.c -- finds and loads gpumon_plot.so and forwards
 * gm_plot_render() to it (see plot.h for why the drawing is a module). */
#include "../core/modload.h"
#include "plot.h"

#ifndef GM_PLOT_MODULE_INSTALLED
#define GM_PLOT_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_plot.so"
#endif

static int accept_plot(const void *sym, char *why, size_t wlen)
{
    (void)why;
    (void)wlen;
    return ((const struct gm_plot_module *)sym)->abi == GM_PLOT_MODULE_ABI ? 0 : -1;
}

int gm_plot_render(const struct gm_plot_data *d, const struct gm_plot_opts *o, int fd,
                   struct gm_err *err)
{
    char why[512] = "";
    const struct gm_plot_module *m =
        gm_module_load("GPUMON_PLOT_MODULE", "gpumon_plot.so", GM_PLOT_MODULE_INSTALLED,
                       "gm_plot_module", "plot", accept_plot, why, sizeof(why));
    if (!m)
        return gm_err_set(err, GM_E_NOTFOUND,
                          "cannot load the chart module: %s" GM_MODULE_HINT(
                              "gpumon_plot.so", "libcairo.so.2", "libcairo2"),
                          why);
    return m->render(d, o, fd, err);
}

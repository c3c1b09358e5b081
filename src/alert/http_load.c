/* http_load.c -- finds and loads gpumon_notify.so, the notifier's HTTP
 * client (see http_module.h for why it is a module).
 *
 * Where it looks: $GPUMON_NOTIFY_MODULE, the executable's directory, then
 * GM_NOTIFY_MODULE_INSTALLED (core/modload.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../core/modload.h"
#include "notify_impl.h"

#ifndef GM_NOTIFY_MODULE_INSTALLED
#define GM_NOTIFY_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_notify.so"
#endif

static const struct gm_notify_http_module *mod;
static pthread_mutex_t mod_mu = PTHREAD_MUTEX_INITIALIZER;

static int accept_http(const void *sym, char *why, size_t wlen)
{
    const struct gm_notify_http_module *m = sym;
    if (m->abi != GM_NOTIFY_HTTP_ABI)
        return -1;
    return m->init(why, wlen) != 0 ? -1 : 0;
}

const struct gm_notify_http_module *gm_notify_http_load(struct gm_err *err)
{
    pthread_mutex_lock(&mod_mu);
    char why[512] = "";
    if (!mod)
        mod = gm_module_load("GPUMON_NOTIFY_MODULE", "gpumon_notify.so", GM_NOTIFY_MODULE_INSTALLED,
                             "gm_notify_http_module", "notifier", accept_http, why, sizeof(why));
    const struct gm_notify_http_module *m = mod;
    pthread_mutex_unlock(&mod_mu);
    if (!m)
        gm_err_set(
            err, GM_E_NOLIB,
            "cannot load the notifier's HTTP module (webhooks, Alertmanager): %s" GM_MODULE_HINT(
                "gpumon_notify.so", "libcurl.so.4", "libcurl4"),
            why);
    return m;
}

/* http_load.c -- finds and loads gpumon_notify.so, the notifier's HTTP
 * client (see http_module.h for why it is a module).
 *
 * Where it looks, in order: $GPUMON_NOTIFY_MODULE (tests, unusual
 * installs; nothing else is tried when it is set), the directory of the
 * running executable (a build tree), then the installed path
 * GM_NOTIFY_MODULE_INSTALLED (set by the build from its prefix and libdir).
 * A loaded module stays loaded for the life of the process.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notify_impl.h"

#ifndef GM_NOTIFY_MODULE_INSTALLED
#define GM_NOTIFY_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_notify.so"
#endif

static const struct gm_notify_http_module *mod;
static pthread_mutex_t mod_mu = PTHREAD_MUTEX_INITIALIZER;

static const struct gm_notify_http_module *try_open(const char *path, char *why, size_t wlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, wlen, "%s", e ? e : path);
        return NULL;
    }
    const struct gm_notify_http_module *m = dlsym(h, "gm_notify_http_module");
    if (!m || m->abi != GM_NOTIFY_HTTP_ABI) {
        snprintf(why, wlen, "%s is not a gpumon notifier module of this version", path);
        dlclose(h);
        return NULL;
    }
    if (m->init(why, wlen) != 0) {
        dlclose(h);
        return NULL;
    }
    return m;
}

const struct gm_notify_http_module *gm_notify_http_load(struct gm_err *err)
{
    pthread_mutex_lock(&mod_mu);
    if (mod) {
        pthread_mutex_unlock(&mod_mu);
        return mod;
    }
    char why[512] = "";
    const char *env = getenv("GPUMON_NOTIFY_MODULE");
    if (env && *env) {
        mod = try_open(env, why, sizeof(why));
    } else {
        char exe[PATH_MAX], path[PATH_MAX + 32];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0) {
            exe[n] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash) {
                *slash = '\0';
                snprintf(path, sizeof(path), "%s/gpumon_notify.so", exe);
                if (access(path, R_OK) == 0)
                    mod = try_open(path, why, sizeof(why));
            }
        }
        if (!mod)
            mod = try_open(GM_NOTIFY_MODULE_INSTALLED, why, sizeof(why));
    }
    const struct gm_notify_http_module *m = mod;
    pthread_mutex_unlock(&mod_mu);
    if (!m)
        gm_err_set(err, GM_E_NOLIB,
                   "cannot load the notifier's HTTP module (webhooks, Alertmanager): %s", why);
    return m;
}

/* top_load.c -- finds and loads gpumon_top.so and forwards gm_top_run() to
 * it (see top.h for why the full-screen view is a module). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top.h"

#ifndef GM_TOP_MODULE_INSTALLED
#define GM_TOP_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_top.so"
#endif

static const struct gm_top_module *try_open(const char *path, char *why, size_t wlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, wlen, "%s", e ? e : path);
        return NULL;
    }
    const struct gm_top_module *m = dlsym(h, "gm_top_module");
    if (!m || m->abi != GM_TOP_MODULE_ABI) {
        snprintf(why, wlen, "%s is not a gpumon top module of this version", path);
        dlclose(h);
        return NULL;
    }
    return m; /* stays loaded for the life of the process */
}

int gm_top_run(const struct gm_top_opts *o, struct gm_err *err)
{
    char why[512] = "", path[PATH_MAX + 32];
    const struct gm_top_module *m = NULL;
    const char *env = getenv("GPUMON_TOP_MODULE");
    if (env && *env) {
        m = try_open(env, why, sizeof(why));
    } else {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0) {
            exe[n] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash) {
                *slash = '\0';
                snprintf(path, sizeof(path), "%s/gpumon_top.so", exe);
                if (access(path, R_OK) == 0)
                    m = try_open(path, why, sizeof(why));
            }
        }
        if (!m)
            m = try_open(GM_TOP_MODULE_INSTALLED, why, sizeof(why));
    }
    if (!m)
        return gm_err_set(err, GM_E_NOTFOUND, "cannot load the full-screen view's module: %s", why);
    return m->run(o, err);
}

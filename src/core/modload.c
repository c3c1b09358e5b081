/* modload.c -- see modload.h. */
#include "modload.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const void *try_open(const char *path, const char *symbol, const char *what,
                            gm_module_accept_fn accept, char *why, size_t wlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, wlen, "%s", e ? e : path);
        return NULL;
    }
    const void *sym = dlsym(h, symbol);
    why[0] = '\0';
    if (!sym || accept(sym, why, wlen) != 0) {
        if (!why[0])
            snprintf(why, wlen, "%s is not a gpumon %s module of this version", path, what);
        dlclose(h);
        return NULL;
    }
    return sym;
}

/* dir of the running executable + "/" + file into buf, when readable. */
static int beside_exe(const char *file, char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    if ((size_t)snprintf(buf, len, "%s/%s", exe, file) >= len)
        return 0;
    return access(buf, R_OK) == 0;
}

const char *gm_module_find(const char *env_var, const char *file, const char *installed, char *buf,
                           size_t len)
{
    const char *env = getenv(env_var);
    if (env && *env)
        return env;
    if (beside_exe(file, buf, len))
        return buf;
    return installed;
}

const void *gm_module_load(const char *env_var, const char *file, const char *installed,
                           const char *symbol, const char *what, gm_module_accept_fn accept,
                           char *why, size_t wlen)
{
    const char *env = getenv(env_var);
    if (env && *env)
        return try_open(env, symbol, what, accept, why, wlen);
    const void *sym = NULL;
    char path[PATH_MAX + 64];
    if (beside_exe(file, path, sizeof(path)))
        sym = try_open(path, symbol, what, accept, why, wlen);
    if (!sym)
        sym = try_open(installed, symbol, what, accept, why, wlen);
    return sym;
}

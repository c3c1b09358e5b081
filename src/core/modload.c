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

/* dir of the running executable + "/" + rel + file into buf, when readable;
 * with a non-empty rel, file's last component only (the simulator, which a
 * build tree has in ../sim/, is beside the modules when installed). */
static int near_exe(const char *rel, const char *file, char *buf, size_t len)
{
    if (*rel && strrchr(file, '/'))
        file = strrchr(file, '/') + 1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    if ((size_t)snprintf(buf, len, "%s/%s%s", exe, rel, file) >= len)
        return 0;
    return access(buf, R_OK) == 0;
}

/* The two places beside the executable, in order: the build tree (the file
 * beside it) and a relocated install (PREFIX/bin/gpumon with its modules in
 * PREFIX/lib/gpumon/, the release tarball's install.sh --prefix). */
static const char *const near_dirs[] = {"", "../lib/gpumon/"};

const char *gm_module_find(const char *env_var, const char *file, const char *installed, char *buf,
                           size_t len)
{
    const char *env = getenv(env_var);
    if (env && *env)
        return env;
    for (size_t i = 0; i < sizeof(near_dirs) / sizeof(near_dirs[0]); i++)
        if (near_exe(near_dirs[i], file, buf, len))
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
    /* A module that is there but fails to load (a library it needs is
     * missing: "libcairo.so.2: cannot open shared object file") says more
     * than the absence of the next candidate, so its reason is kept. */
    char path[PATH_MAX + 64];
    char later[512] = "";
    int kept = 0;
    for (size_t i = 0; i < sizeof(near_dirs) / sizeof(near_dirs[0]); i++) {
        if (!near_exe(near_dirs[i], file, path, sizeof(path)))
            continue;
        const void *sym =
            try_open(path, symbol, what, accept, kept ? later : why, kept ? sizeof(later) : wlen);
        if (sym)
            return sym;
        kept = 1;
    }
    return try_open(installed, symbol, what, accept, kept ? later : why,
                    kept ? sizeof(later) : wlen);
}

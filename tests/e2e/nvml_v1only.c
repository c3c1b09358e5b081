/* nvml_v1only.c -- a test-only NVML library with the process lists of an
 * old driver: it exports the unversioned (v1, 16-byte entry) process calls
 * and none of the _v2/_v3 ones, forwarding to the simulator named by
 * $NVML_V1ONLY_SIM (dlopened privately, so its other symbols stay hidden).
 *
 * gpumon picks the newest process-list symbol a library has; against the
 * simulator itself that is always _v2 or _v3, so only this library drives
 * gpumon's v1 path (16-byte entries widened to 24) with lists of any length
 * (tests/e2e/procs_many.py).  Only what that path needs is exported: init,
 * enumeration, names and UUIDs, the v1 lists and process names.  Everything
 * else reads as missing (gpumon: not supported).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "source/nvml_abi.h"

static void *sim(const char *name)
{
    static void *h;
    if (!h) {
        const char *path = getenv("NVML_V1ONLY_SIM");
        h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (!h) {
            fprintf(stderr, "nvml_v1only: cannot load $NVML_V1ONLY_SIM (%s)\n",
                    path ? dlerror() : "unset");
            abort();
        }
    }
    void *f = dlsym(h, name);
    if (!f) {
        fprintf(stderr, "nvml_v1only: the simulator lacks %s\n", name);
        abort();
    }
    return f;
}

/* NOLINTBEGIN(bugprone-macro-parentheses): params and args are lists */
#define FWD(name, params, args)                                                                    \
    __attribute__((visibility("default"))) nvmlReturn_t name params                                \
    {                                                                                              \
        static __typeof__(name) *f;                                                                \
        if (!f)                                                                                    \
            f = (__typeof__(name) *)sim(#name);                                                    \
        return f args;                                                                             \
    }
/* NOLINTEND(bugprone-macro-parentheses) */

FWD(nvmlInit_v2, (void), ())
FWD(nvmlShutdown, (void), ())
FWD(nvmlDeviceGetCount_v2, (unsigned int *n), (n))
FWD(nvmlDeviceGetHandleByIndex_v2, (unsigned int i, nvmlDevice_t *d), (i, d))
FWD(nvmlDeviceGetName, (nvmlDevice_t d, char *s, unsigned int len), (d, s, len))
FWD(nvmlDeviceGetUUID, (nvmlDevice_t d, char *s, unsigned int len), (d, s, len))
FWD(nvmlSystemGetProcessName, (unsigned int pid, char *s, unsigned int len), (pid, s, len))
FWD(nvmlDeviceGetComputeRunningProcesses,
    (nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p), (d, n, p))
FWD(nvmlDeviceGetGraphicsRunningProcesses,
    (nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_v1_t *p), (d, n, p))

/* xidwatch.c -- the NVML event thread (see xidwatch.h). */
#include "xidwatch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/err.h"
#include "../core/timeutil.h"
#include "../source/nvml_abi.h"
#include "../core/log.h"

#define WAIT_MS 250
#define RECHECK_NS (30LL * 1000000000LL) /* look for added/removed GPUs this often */
#define BACKOFF_MAX_NS (60LL * 1000000000LL)

struct fns {
    __typeof__(nvmlInit_v2) *init;
    __typeof__(nvmlShutdown) *shutdown;
    __typeof__(nvmlDeviceGetCount_v2) *count;
    __typeof__(nvmlDeviceGetHandleByIndex_v2) *handle;
    __typeof__(nvmlDeviceGetUUID) *uuid;
    __typeof__(nvmlDeviceGetSupportedEventTypes) *supported;
    __typeof__(nvmlEventSetCreate) *create;
    __typeof__(nvmlDeviceRegisterEvents) *reg;
    __typeof__(nvmlEventSetWait_v2) *wait2;
    __typeof__(nvmlEventSetWait) *wait1;
    __typeof__(nvmlEventSetFree) *free_set;
};

struct gpu {
    nvmlDevice_t h;
    int index;
    char uuid[96];
};

struct gm_xid_watch {
    pthread_t thread;
    atomic_int stop;
    atomic_int done;
    atomic_int ngpus;
    char lib[512];
    gm_xid_fn fn;
    void *arg;
    void *dl;
    struct fns f;
    int inited;
    nvmlEventSet_t set;
    int n;
    struct gpu *gpus;
    unsigned count; /* GPU count when the set was built */
};

static void teardown(struct gm_xid_watch *w)
{
    if (w->set && w->f.free_set)
        w->f.free_set(w->set);
    w->set = NULL;
    if (w->inited && w->f.shutdown)
        w->f.shutdown();
    w->inited = 0;
    free(w->gpus);
    w->gpus = NULL;
    w->n = 0;
    atomic_store(&w->ngpus, -1);
}

/* Returns 0 when watching (possibly 0 GPUs), or the NVML error. */
static int setup(struct gm_xid_watch *w, int *logged_unsupported)
{
    if (!w->dl) {
        w->dl = dlopen(w->lib, RTLD_NOW | RTLD_LOCAL);
        if (!w->dl)
            return NVML_ERROR_LIBRARY_NOT_FOUND;
        w->f.init = (__typeof__(w->f.init))dlsym(w->dl, "nvmlInit_v2");
        w->f.shutdown = (__typeof__(w->f.shutdown))dlsym(w->dl, "nvmlShutdown");
        w->f.count = (__typeof__(w->f.count))dlsym(w->dl, "nvmlDeviceGetCount_v2");
        w->f.handle = (__typeof__(w->f.handle))dlsym(w->dl, "nvmlDeviceGetHandleByIndex_v2");
        w->f.uuid = (__typeof__(w->f.uuid))dlsym(w->dl, "nvmlDeviceGetUUID");
        w->f.supported =
            (__typeof__(w->f.supported))dlsym(w->dl, "nvmlDeviceGetSupportedEventTypes");
        w->f.create = (__typeof__(w->f.create))dlsym(w->dl, "nvmlEventSetCreate");
        w->f.reg = (__typeof__(w->f.reg))dlsym(w->dl, "nvmlDeviceRegisterEvents");
        w->f.wait2 = (__typeof__(w->f.wait2))dlsym(w->dl, "nvmlEventSetWait_v2");
        w->f.wait1 = (__typeof__(w->f.wait1))dlsym(w->dl, "nvmlEventSetWait");
        w->f.free_set = (__typeof__(w->f.free_set))dlsym(w->dl, "nvmlEventSetFree");
    }
    if (!w->f.init || !w->f.shutdown || !w->f.count || !w->f.handle || !w->f.create || !w->f.reg ||
        (!w->f.wait2 && !w->f.wait1) || !w->f.free_set)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    nvmlReturn_t rc = w->f.init();
    if (rc != NVML_SUCCESS)
        return rc;
    w->inited = 1;
    unsigned count = 0;
    if ((rc = w->f.count(&count)) != NVML_SUCCESS)
        return rc;
    if ((rc = w->f.create(&w->set)) != NVML_SUCCESS)
        return rc;
    w->count = count;
    w->gpus = calloc(count ? count : 1, sizeof(*w->gpus));
    if (!w->gpus)
        return NVML_ERROR_MEMORY;
    int unsupported = 0;
    for (unsigned i = 0; i < count; i++) {
        nvmlDevice_t h;
        if (w->f.handle(i, &h) != NVML_SUCCESS)
            continue; /* a lost GPU sends nothing; the sampler reports it */
        unsigned long long types = nvmlEventTypeXidCriticalError;
        if (w->f.supported && w->f.supported(h, &types) == NVML_SUCCESS &&
            !(types & nvmlEventTypeXidCriticalError)) {
            unsupported++;
            continue;
        }
        rc = w->f.reg(h, nvmlEventTypeXidCriticalError, w->set);
        if (rc == NVML_ERROR_NOT_SUPPORTED) {
            unsupported++;
            continue;
        }
        if (rc != NVML_SUCCESS)
            continue;
        struct gpu *g = &w->gpus[w->n++];
        g->h = h;
        g->index = (int)i;
        if (!w->f.uuid || w->f.uuid(h, g->uuid, sizeof(g->uuid)) != NVML_SUCCESS)
            g->uuid[0] = '\0';
    }
    if (unsupported && !*logged_unsupported) {
        gm_log(GM_LOG_NOTICE,
               "Xid events: %d of %u GPUs do not support them (GeForce boards and some "
               "drivers); Xid errors on those GPUs reach only dmesg",
               unsupported, count);
        *logged_unsupported = 1;
    }
    atomic_store(&w->ngpus, w->n);
    return NVML_SUCCESS;
}

static void *run(void *arg)
{
    struct gm_xid_watch *w = arg;
    int64_t backoff = 0, retry_at = 0, built_at = 0;
    int logged_unsupported = 0, logged_down = 0;
    while (!atomic_load(&w->stop)) {
        if (!w->set) {
            int64_t now = gm_mono_ns();
            if (now < retry_at) {
                struct timespec ts = {0, 100000000};
                nanosleep(&ts, NULL);
                continue;
            }
            int rc = setup(w, &logged_unsupported);
            if (rc != NVML_SUCCESS) {
                teardown(w);
                if (rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
                    gm_log(GM_LOG_NOTICE, "Xid events: this NVML library has no event API");
                    break;
                }
                if (!logged_down)
                    gm_log(GM_LOG_INFO, "Xid events: NVML not available (error %d); retrying", rc);
                logged_down = 1;
                backoff = backoff ? backoff * 2 : 1000000000LL;
                if (backoff > BACKOFF_MAX_NS)
                    backoff = BACKOFF_MAX_NS;
                retry_at = gm_mono_ns() + backoff;
                continue;
            }
            if (logged_down || w->n)
                gm_log(GM_LOG_INFO, "Xid events: watching %d GPU%s", w->n, w->n == 1 ? "" : "s");
            logged_down = 0;
            backoff = 0;
            built_at = gm_mono_ns();
        }
        nvmlEventData_t d;
        memset(&d, 0, sizeof(d));
        nvmlReturn_t rc =
            w->f.wait2 ? w->f.wait2(w->set, &d, WAIT_MS) : w->f.wait1(w->set, &d, WAIT_MS);
        if (rc == NVML_SUCCESS) {
            if (!(d.eventType & nvmlEventTypeXidCriticalError))
                continue;
            int index = -1;
            const char *uuid = "";
            for (int i = 0; i < w->n; i++)
                if (w->gpus[i].h == d.device) {
                    index = w->gpus[i].index;
                    uuid = w->gpus[i].uuid;
                }
            if (!atomic_load(&w->stop))
                w->fn(w->arg, index, uuid, d.eventData, gm_wall_ns());
            continue;
        }
        if (rc == NVML_ERROR_TIMEOUT) {
            /* a GPU added or removed (driver reload, hot plug): rebuild the set */
            if (gm_mono_ns() - built_at > RECHECK_NS) {
                unsigned count = 0;
                built_at = gm_mono_ns();
                if (w->f.count(&count) != NVML_SUCCESS || count != w->count)
                    teardown(w);
            }
            continue;
        }
        /* GPU lost, driver gone, ...: start again */
        gm_log(GM_LOG_INFO, "Xid events: waiting failed (error %d); re-registering", rc);
        teardown(w);
        backoff = backoff ? backoff * 2 : 1000000000LL;
        if (backoff > BACKOFF_MAX_NS)
            backoff = BACKOFF_MAX_NS;
        retry_at = gm_mono_ns() + backoff;
    }
    teardown(w);
    atomic_store(&w->done, 1);
    return NULL;
}

struct gm_xid_watch *gm_xid_watch_start(const char *lib_path, gm_xid_fn fn, void *arg)
{
    struct gm_xid_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    if (!lib_path || !*lib_path)
        lib_path = getenv("GPUMON_NVML_LIB");
    gm_strlcpy(w->lib, lib_path && *lib_path ? lib_path : "libnvidia-ml.so.1", sizeof(w->lib));
    w->fn = fn;
    w->arg = arg;
    atomic_init(&w->stop, 0);
    atomic_init(&w->done, 0);
    atomic_init(&w->ngpus, -1);
    if (pthread_create(&w->thread, NULL, run, w) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

void gm_xid_watch_request_stop(struct gm_xid_watch *w)
{
    if (w)
        atomic_store(&w->stop, 1);
}

int gm_xid_watch_gpus(struct gm_xid_watch *w)
{
    return w ? atomic_load(&w->ngpus) : -1;
}

void gm_xid_watch_stop(struct gm_xid_watch *w, int64_t timeout_ns)
{
    if (!w)
        return;
    atomic_store(&w->stop, 1);
    int64_t deadline = gm_mono_ns() + timeout_ns;
    while (!atomic_load(&w->done) && gm_mono_ns() < deadline) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    if (!atomic_load(&w->done)) {
        pthread_detach(w->thread); /* stuck in the driver: leave it */
        return;
    }
    pthread_join(w->thread, NULL);
    if (w->dl)
        dlclose(w->dl);
    free(w);
}

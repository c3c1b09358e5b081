/* api_core.c -- library state, init/shutdown, errors, system queries and
 * device enumeration.
 *
 * State is one mutex-protected record: the init refcount, the loaded
 * scenario and the time configuration.  nvmlInit* (any variant) loads the
 * scenario named by GPUSIM_SCENARIO when the refcount goes from 0 to 1 and the
 * last nvmlShutdown frees it, so a process can re-init after editing a file.
 * A scenario that cannot be loaded makes init return NVML_ERROR_UNKNOWN and
 * print one "gpusim: ..." line on stderr (the only output the library ever
 * produces; repeated identical failures print once).  Driver faults
 * (driver_not_loaded, version_mismatch) make init fail with their NVML code
 * during their window, and every call of an already initialised session
 * return that code until the window ends: the model of a driver that went
 * away underneath a running client.
 *
 * The same start of a session reads GPUSIM_FAIL (failures injected on
 * purpose: sim/failrules.c) and GPUSIM_TRACE (a file that receives one line
 * per call those rules count); the prologue applies both.  A bad value fails
 * init like a bad scenario file.  It also settles the session's privilege
 * (GPUSIM_ROOT, else the effective uid: gs_privileged), which the setters of
 * sim/api_set.c check.
 *
 * GPUSIM_COUNT names a file that counts every call of every function (the
 * benchmark's "NVML calls per GPU per sample"): created by the start of a
 * session that names it, one fixed-size record per exported function (its
 * name, NUL padded, and a 64-bit count in the host's byte order), mapped
 * shared so that another process reads the counts while this one runs.  A
 * later session naming the same file goes on counting in it (the agent's
 * reconnects); another name starts a new file; unset stops counting.  Counting is
 * one increment under the lock the prologue already holds; the function's
 * record is found by its __func__ pointer in a small cache, so a counted
 * call costs no name search after the first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_refcount;
static struct gs_scenario *g_scn;
static struct gs_timecfg g_tc;
static double g_first_init; /* wall time of the process's first nvmlInit*, 0 before */
static char g_last_msg[640];
static struct gs_fail g_fail;         /* GPUSIM_FAIL of this session, with its counters */
static int g_trace_fd = -1;           /* GPUSIM_TRACE of this session, -1 when unset */
static bool g_root;                   /* the session runs as root (GPUSIM_ROOT or geteuid) */
static struct gs_count_rec *g_counts; /* GPUSIM_COUNT's records, NULL when unset */
static size_t g_counts_bytes;         /* their size, for munmap */
static char g_counts_path[512];       /* the file they are mapped from */

static struct nvmlDevice_st g_phys[GS_MAX_GPUS];
static struct nvmlDevice_st g_migs[GS_MAX_GPUS][GS_MAX_MIG];

#ifdef GPUSIM_LEGACY
/* An R450-era driver, unless the scenario names its own versions. */
#define GS_DEFAULT_DRIVER "450.80.02"
#define GS_DEFAULT_CUDA 11000
#endif

/* ------------------------------------------------------------- handles */

nvmlDevice_t gs_handle(unsigned gpu, int mig)
{
    return mig < 0 ? &g_phys[gpu] : &g_migs[gpu][mig];
}

bool gs_decode(const struct gs_scenario *s, nvmlDevice_t d, unsigned *gpu, int *mig)
{
    uintptr_t p = (uintptr_t)d;
    uintptr_t b = (uintptr_t)g_phys;
    const size_t sz = sizeof(struct nvmlDevice_st);

    if (!s || !d)
        return false;
    if (p >= b && p < b + sizeof(g_phys)) {
        if ((p - b) % sz)
            return false;
        *gpu = (unsigned)((p - b) / sz);
        *mig = -1;
        return *gpu < s->ngpus;
    }
    b = (uintptr_t)g_migs;
    if (p >= b && p < b + sizeof(g_migs)) {
        if ((p - b) % sz)
            return false;
        size_t idx = (p - b) / sz;
        *gpu = (unsigned)(idx / GS_MAX_MIG);
        *mig = (int)(idx % GS_MAX_MIG);
        return *gpu < s->ngpus && (unsigned)*mig < s->gpus[*gpu].nmig;
    }
    return false;
}

nvmlReturn_t gs_copy_out(char *dst, unsigned len, const char *src)
{
    size_t n = strlen(src);
    if (n == 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (n + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, n + 1);
    return NVML_SUCCESS;
}

/* ---------------------------------------------------------- call counts */

/* One record of the GPUSIM_COUNT file (docs/simulator.md). */
struct gs_count_rec {
    char name[GS_COUNT_NAME];
    uint64_t calls;
};
_Static_assert(sizeof(struct gs_count_rec) == GS_COUNT_REC, "a count record is 64 bytes");

/* __func__ pointer -> gs_names index, open addressing; a full cache falls
 * back to the name search. */
#define COUNT_CACHE 1024
static struct {
    const char *fn;
    int idx;
} g_count_cache[COUNT_CACHE];

static int count_index(const char *fn)
{
    size_t h = ((uintptr_t)fn >> 3) % COUNT_CACHE;
    for (size_t k = 0; k < COUNT_CACHE; k++, h = (h + 1) % COUNT_CACHE) {
        if (g_count_cache[h].fn == fn)
            return g_count_cache[h].idx;
        if (!g_count_cache[h].fn) {
            g_count_cache[h].fn = fn;
            g_count_cache[h].idx = gs_name_index(fn);
            return g_count_cache[h].idx;
        }
    }
    return gs_name_index(fn);
}

/* Maps GPUSIM_COUNT at the start of a session (above).  0, or -1 with err
 * set.  A planted symlink is refused (O_NOFOLLOW), not followed. */
static int counts_open(char *err, size_t len)
{
    const char *path = getenv("GPUSIM_COUNT");
    if (g_counts && path && strcmp(path, g_counts_path) == 0)
        return 0;
    if (g_counts)
        munmap(g_counts, g_counts_bytes);
    g_counts = NULL;
    g_counts_path[0] = '\0';
    if (!path || !*path)
        return 0;
    if (strlen(path) >= sizeof(g_counts_path)) {
        snprintf(err, len, "GPUSIM_COUNT: path longer than %zu bytes", sizeof(g_counts_path) - 1);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < gs_name_count; i++)
        n += gs_names[i].kind == GS_NAME_FUNCTION;
    size_t bytes = n * sizeof(struct gs_count_rec);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, len, "GPUSIM_COUNT: cannot open '%.400s': %s", path, strerror(errno));
        return -1;
    }
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
        snprintf(err, len, "GPUSIM_COUNT: cannot map '%.400s': %s", path, strerror(e));
        return -1;
    }
    g_counts = m;
    g_counts_bytes = bytes;
    snprintf(g_counts_path, sizeof(g_counts_path), "%s", path);
    for (size_t i = 0, k = 0; i < gs_name_count; i++)
        if (gs_names[i].kind == GS_NAME_FUNCTION)
            snprintf(g_counts[k++].name, GS_COUNT_NAME, "%s", gs_names[i].name);
    return 0;
}

/* Counts one call of fn (with the lock held).  Functions come first in
 * gs_names, so a function's index is its record's. */
static void count_call(const char *fn)
{
    int i = count_index(fn);
    if (i >= 0 && gs_names[i].kind == GS_NAME_FUNCTION)
        g_counts[i].calls++;
}

/* -------------------------------------------------------- call prologue */

static void sleep_seconds(double secs)
{
    struct timespec ts = {.tv_sec = (time_t)secs,
                          .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Checks that hold before and after a hang: initialised, driver present,
 * device valid.  Returns with the lock held on success. */
static nvmlReturn_t check_session(struct gs_call *c, enum gs_hkind kind, nvmlDevice_t device,
                                  unsigned index)
{
    if (g_refcount == 0)
        return NVML_ERROR_UNINITIALIZED;
    c->s = g_scn;
    c->tc = &g_tc;
    c->t = gs_time_now(&g_tc);
    nvmlReturn_t r = gs_fault_driver(g_scn, c->t);
    if (r != NVML_SUCCESS)
        return r;
    c->gpu = 0;
    c->mig = -1;
    c->g = NULL;
    if (kind == GS_H_INDEX) {
        if (index >= g_scn->ngpus)
            return NVML_ERROR_INVALID_ARGUMENT;
        c->gpu = index;
        c->g = &g_scn->gpus[index];
    } else if (kind == GS_H_PHYS || kind == GS_H_ANY) {
        if (!gs_decode(g_scn, device, &c->gpu, &c->mig))
            return NVML_ERROR_INVALID_ARGUMENT;
        c->g = &g_scn->gpus[c->gpu];
    }
    return NVML_SUCCESS;
}

/* One GPUSIM_TRACE line: "FUNCTION[@GPU][ CODE]\n", CODE when a GPUSIM_FAIL
 * rule failed the call.  One write() with O_APPEND: lines of several
 * threads or processes do not interleave. */
static void trace(const char *fn, int gpu, nvmlReturn_t r)
{
    char line[200];
    char at[16] = "";
    if (gpu != GS_NO_GPU)
        snprintf(at, sizeof(at), "@%d", gpu);
    const char *code = r == NVML_SUCCESS ? NULL : gs_return_name(r);
    int n = snprintf(line, sizeof(line), "%s%s%s%s\n", fn, at, code ? " " : "", code ? code : "");
    if (n > 0 && (size_t)n < sizeof(line)) {
        ssize_t w = write(g_trace_fd, line, (size_t)n);
        (void)w; /* a full disk loses trace lines, never a call's answer */
    }
}

nvmlReturn_t gs_enter(struct gs_call *c, const char *fn, enum gs_hkind kind, nvmlDevice_t device,
                      unsigned index, int args_ok)
{
    pthread_mutex_lock(&g_lock);
    if (g_counts)
        count_call(fn);
    nvmlReturn_t r = check_session(c, kind, device, index);
    if (r != NVML_SUCCESS)
        goto fail;
    if (c->s->ndyn)
        gs_proc_refresh(c->s); /* pid_file processes: who they are now */
    if (!args_ok) {
        r = NVML_ERROR_INVALID_ARGUMENT;
        goto fail;
    }
    if (c->g) {
        r = gs_fault_gpu(c->s, c->gpu, c->t);
        if (r != NVML_SUCCESS)
            goto fail;
        if (kind == GS_H_PHYS && c->mig >= 0) {
            r = NVML_ERROR_NOT_SUPPORTED;
            goto fail;
        }
    }
    int fn_idx = -1;
    if ((c->g && c->g->has_unsupported) || c->s->nfaults)
        fn_idx = gs_name_index(fn);
    if (c->g && c->g->has_unsupported && fn_idx >= 0 && c->g->unsupported[fn_idx]) {
        r = NVML_ERROR_NOT_SUPPORTED;
        goto fail;
    }
    if (g_fail.n || g_trace_fd >= 0) {
        /* Calls that got this far are the ones GPUSIM_FAIL counts (and
         * GPUSIM_TRACE lists): a call that already failed above keeps its
         * error and is not counted. */
        if (fn_idx < 0)
            fn_idx = gs_name_index(fn);
        int gpu = c->g ? (int)c->gpu : GS_NO_GPU;
        r = g_fail.n ? gs_fail_call(&g_fail, fn_idx, gpu) : NVML_SUCCESS;
        if (g_trace_fd >= 0)
            trace(fn, gpu, r);
        if (r != NVML_SUCCESS)
            goto fail;
    }
    double hang =
        c->s->nfaults ? gs_fault_hang(c->s, c->g ? (int)c->gpu : GS_NO_GPU, fn_idx, c->t) : 0;
    if (hang > 0) {
        pthread_mutex_unlock(&g_lock);
        sleep_seconds(hang);
        pthread_mutex_lock(&g_lock);
        /* The world may have changed while we slept (shutdown, re-init). */
        r = check_session(c, kind, device, index);
        if (r != NVML_SUCCESS)
            goto fail;
    }
    return NVML_SUCCESS;
fail:
    pthread_mutex_unlock(&g_lock);
    return r;
}

bool gs_privileged(void)
{
    return g_root;
}

nvmlReturn_t gs_relock(struct gs_call *c)
{
    pthread_mutex_lock(&g_lock);
    nvmlReturn_t r = check_session(c, GS_H_NONE, NULL, 0);
    if (r != NVML_SUCCESS)
        pthread_mutex_unlock(&g_lock);
    return r;
}

nvmlReturn_t gs_end(struct gs_call *c, nvmlReturn_t r)
{
    (void)c;
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* --------------------------------------------------------- init / shutdown */

static void report(const char *msg)
{
    /* Clients retry init (gpumon's agent reconnects): say it once. */
    if (strcmp(msg, g_last_msg) == 0)
        return;
    snprintf(g_last_msg, sizeof(g_last_msg), "%s", msg);
    fprintf(stderr, "gpusim: %s\n", msg);
}

static nvmlReturn_t do_init(unsigned flags)
{
    char err[600];
    (void)flags; /* NO_GPUS / NO_ATTACH change nothing here: init never fails
                  * for lack of GPUs and there is nothing to attach to. */

    pthread_mutex_lock(&g_lock);
    if (g_first_init == 0)
        g_first_init = gs_wall_now();
    if (g_refcount > 0) {
        nvmlReturn_t r = gs_fault_driver(g_scn, gs_time_now(&g_tc));
        if (r == NVML_SUCCESS)
            g_refcount++;
        pthread_mutex_unlock(&g_lock);
        return r;
    }

    if (counts_open(err, sizeof(err)) != 0) {
        report(err);
        goto unknown;
    }
    const char *path = getenv("GPUSIM_SCENARIO");
    struct gs_timecfg tc;
    struct gs_scenario *s = NULL;
    if (!path || !*path) {
        report("GPUSIM_SCENARIO is not set; point it at a scenario file (see docs/simulator.md)");
        goto unknown;
    }
    if (gs_timecfg_from_env(&tc, g_first_init, err, sizeof(err)) != 0) {
        report(err);
        goto unknown;
    }
    if (gs_scenario_load(path, &s, err, sizeof(err)) != 0) {
        report(err);
        goto unknown;
    }
    /* [machine] start: the session begins that far into the story, unless
     * the environment names the timeline (GPUSIM_EPOCH) or the instant
     * (GPUSIM_TIME) itself. */
    const char *epoch_env = getenv("GPUSIM_EPOCH");
    if (s->start > 0 && !tc.pinned && (!epoch_env || !*epoch_env))
        tc.epoch = g_first_init - s->start / tc.speed;
    struct gs_fail fails;
    if (gs_fail_parse(getenv("GPUSIM_FAIL"), s->ngpus, &fails, err, sizeof(err)) != 0) {
        report(err);
        gs_scenario_free(s);
        goto unknown;
    }
    int trace_fd = -1;
    const char *trace_path = getenv("GPUSIM_TRACE");
    if (trace_path && *trace_path) {
        trace_fd = open(trace_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (trace_fd < 0) {
            snprintf(err, sizeof(err), "GPUSIM_TRACE: cannot open '%.400s': %s", trace_path,
                     strerror(errno));
            report(err);
            gs_scenario_free(s);
            goto unknown;
        }
    }
    /* Root or not: real NVML asks the kernel driver, which checks the
     * caller's privilege; GPUSIM_ROOT=0/1 overrides the effective uid so
     * tests can see both answers whoever runs them. */
    bool root = geteuid() == 0;
    const char *root_env = getenv("GPUSIM_ROOT");
    if (root_env && *root_env) {
        if (strcmp(root_env, "0") != 0 && strcmp(root_env, "1") != 0) {
            snprintf(err, sizeof(err), "GPUSIM_ROOT: '%.40s' is not 0 or 1", root_env);
            report(err);
            if (trace_fd >= 0)
                close(trace_fd);
            gs_scenario_free(s);
            goto unknown;
        }
        root = root_env[0] == '1';
    }
#ifdef GPUSIM_LEGACY
    if (!s->driver_version_set)
        snprintf(s->driver_version, sizeof(s->driver_version), "%s", GS_DEFAULT_DRIVER);
    if (!s->cuda_version_set)
        s->cuda_version = GS_DEFAULT_CUDA;
    if (!s->nvml_version_set)
        snprintf(s->nvml_version, sizeof(s->nvml_version), "%d.%.60s", s->cuda_version / 1000,
                 s->driver_version);
#endif
    nvmlReturn_t r = gs_fault_driver(s, gs_time_now(&tc));
    if (r != NVML_SUCCESS) {
        if (trace_fd >= 0)
            close(trace_fd);
        gs_scenario_free(s);
        pthread_mutex_unlock(&g_lock);
        return r;
    }
    for (unsigned i = 0; i < GS_MAX_GPUS; i++) {
        g_phys[i] = (struct nvmlDevice_st){.gpu = i, .mig = -1};
        for (int m = 0; m < GS_MAX_MIG; m++)
            g_migs[i][m] = (struct nvmlDevice_st){.gpu = i, .mig = m};
    }
    g_scn = s;
    g_tc = tc;
    g_fail = fails;
    g_trace_fd = trace_fd;
    g_root = root;
    g_refcount = 1;
    g_last_msg[0] = '\0';
    pthread_mutex_unlock(&g_lock);
    return NVML_SUCCESS;
unknown:
    pthread_mutex_unlock(&g_lock);
    return NVML_ERROR_UNKNOWN;
}

GS_EXPORT nvmlReturn_t nvmlInit(void)
{
    return do_init(0);
}

GS_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    return do_init(0);
}

GS_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    return do_init(flags);
}

GS_EXPORT nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&g_lock);
    if (g_refcount == 0) {
        pthread_mutex_unlock(&g_lock);
        return NVML_ERROR_UNINITIALIZED;
    }
    if (--g_refcount == 0) {
        gs_events_reset();
        gs_scenario_free(g_scn);
        g_scn = NULL;
        g_fail.n = 0;
        if (g_trace_fd >= 0)
            close(g_trace_fd);
        g_trace_fd = -1;
    }
    pthread_mutex_unlock(&g_lock);
    return NVML_SUCCESS;
}

GS_EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    /* Static strings: valid forever, including after nvmlShutdown. */
    switch (result) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED:
        return "Already Initialized";
    case NVML_ERROR_NOT_FOUND:
        return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER:
        return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT:
        return "Timeout";
    case NVML_ERROR_IRQ_ISSUE:
        return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
        return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND:
        return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM:
        return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED:
        return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM:
        return "The operating system has blocked the request.";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        return "Driver/library version mismatch";
    case NVML_ERROR_IN_USE:
        return "In use by another client";
    case NVML_ERROR_MEMORY:
        return "Insufficient Memory";
    case NVML_ERROR_NO_DATA:
        return "No data";
    case NVML_ERROR_VGPU_ECC_NOT_SUPPORTED:
        return "The requested vgpu operation is not available on target device, because ECC is "
               "enabled";
    case NVML_ERROR_INSUFFICIENT_RESOURCES:
        return "Insufficient resources";
    case NVML_ERROR_FREQ_NOT_SUPPORTED:
        return "Frequency not supported";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
        return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED:
        return "Deprecated";
    case NVML_ERROR_NOT_READY:
        return "Not ready";
    case NVML_ERROR_GPU_NOT_FOUND:
        return "GPU not found";
    case NVML_ERROR_INVALID_STATE:
        return "Invalid state";
    case NVML_ERROR_RESET_TYPE_NOT_SUPPORTED:
        return "Reset type not supported";
    case NVML_ERROR_UNKNOWN:
        return "Unknown Error";
    }
    return "Unknown Error";
}

/* --------------------------------------------------------------- system */

GS_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, version != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(version, length, c.s->driver_version));
}

GS_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, version != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, gs_copy_out(version, length, c.s->nvml_version));
}

static nvmlReturn_t cuda_version(const char *fn, int *out)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, out != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *out = c.s->cuda_version;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    return cuda_version(__func__, cudaDriverVersion);
}

GS_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    return cuda_version(__func__, cudaDriverVersion);
}

GS_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, name != NULL && length > 0);
    if (r != NVML_SUCCESS)
        return r;
    const struct gs_process *p = gs_proc_by_pid(c.s, pid);
    if (!p)
        return gs_end(&c, NVML_ERROR_NOT_FOUND);
    /* Unlike the device string getters, this one crops. */
    size_t n = strlen(p->name);
    if (n >= length)
        n = length - 1;
    memcpy(name, p->name, n);
    name[n] = '\0';
    return gs_end(&c, NVML_SUCCESS);
}

/* ---------------------------------------------------------- enumeration */

static nvmlReturn_t get_count(const char *fn, unsigned int *count)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    /* Lost and forbidden GPUs are still counted. */
    *count = c.s->ngpus;
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
    return get_count(__func__, deviceCount);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    return get_count(__func__, deviceCount);
}

static nvmlReturn_t by_index(const char *fn, unsigned int index, nvmlDevice_t *device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_INDEX, NULL, index, device != NULL);
    if (r != NVML_SUCCESS)
        return r;
    *device = gs_handle(index, -1);
    return gs_end(&c, NVML_SUCCESS);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    return by_index(__func__, index, device);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    return by_index(__func__, index, device);
}

/* Ends a lookup: the found GPU's faults apply as for GetHandleByIndex. */
static nvmlReturn_t found(struct gs_call *c, unsigned gpu, int mig, nvmlDevice_t *device)
{
    nvmlReturn_t r = gs_fault_gpu(c->s, gpu, c->t);
    if (r == NVML_SUCCESS)
        *device = gs_handle(gpu, mig);
    return gs_end(c, r);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, uuid != NULL && device != NULL);
    if (r != NVML_SUCCESS)
        return r;
    for (unsigned i = 0; i < c.s->ngpus; i++) {
        const struct gs_gpu *g = &c.s->gpus[i];
        if (strcasecmp(g->uuid, uuid) == 0)
            return found(&c, i, -1, device);
        for (unsigned m = 0; m < g->nmig; m++) {
            char old[160];
            /* The pre-R470 form MIG-GPU-<uuid>/<gi>/<ci> is accepted too. */
            snprintf(old, sizeof(old), "MIG-%s/%u/%u", g->uuid, g->mig[m].gi_id, g->mig[m].ci_id);
            if (strcasecmp(g->mig[m].uuid, uuid) == 0 || strcasecmp(old, uuid) == 0)
                return found(&c, i, (int)m, device);
        }
    }
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

static nvmlReturn_t by_bus_id(const char *fn, const char *bus_id, nvmlDevice_t *device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, fn, GS_H_NONE, NULL, 0, bus_id != NULL && device != NULL);
    if (r != NVML_SUCCESS)
        return r;
    unsigned dom, bus, dev;
    if (gs_parse_bus_id(bus_id, &dom, &bus, &dev) != 0)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    for (unsigned i = 0; i < c.s->ngpus; i++) {
        const struct gs_gpu *g = &c.s->gpus[i];
        if (g->pci_domain == dom && g->pci_bus == bus && g->pci_device == dev)
            return found(&c, i, -1, device);
    }
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
    return by_bus_id(__func__, pciBusId, device);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    return by_bus_id(__func__, pciBusId, device);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, serial != NULL && device != NULL);
    if (r != NVML_SUCCESS)
        return r;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        if (c.s->gpus[i].serial[0] && strcmp(c.s->gpus[i].serial, serial) == 0)
            return found(&c, i, -1, device);
    return gs_end(&c, NVML_ERROR_NOT_FOUND);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_ANY, device, 0, index != NULL);
    if (r != NVML_SUCCESS)
        return r;
    /* For a MIG handle: its index within the parent. */
    *index = c.mig >= 0 ? (unsigned)c.mig : c.gpu;
    return gs_end(&c, NVML_SUCCESS);
}

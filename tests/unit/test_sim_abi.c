/* test_sim_abi.c -- the simulator as a client sees it: dlopen the built
 * libnvidia-ml.so.1 (SIM_LIB_PATH) and check NVML's ABI behaviours, the way
 * pynvml, nvtop and go-nvml call it.
 *
 * Covered: UNINITIALIZED before init, init refcounting, the three process
 * sizing patterns (fact sheet 2.15), per-symbol process stride against a
 * poisoned buffer, MemoryInfo_v2 versioning and v1/v2 "used", string buffer
 * sizes, the GetSamples / ProcessUtilization sizing calls, invalid handles,
 * fault windows (pinned with GPUSIM_TIME, or live with GPUSIM_EPOCH), hangs
 * that do not block other threads, events, field values, MIG, the exported
 * symbol set, the legacy (R450-era) variant's missing symbols, and failures
 * injected with GPUSIM_FAIL (a function of every family honours a rule; what
 * is counted; bad values refused) with the GPUSIM_TRACE that lists them;
 * GPM: struct layouts, versions, two-sample windows, pre-Hopper GPUs, a
 * heartbeat's SM activity inside and between bursts, MIG instances.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock_abi.h"
#include "gpm_abi.h"
#include "gpusim.h"

#if !defined(SIM_LIB_PATH) || !defined(SIM_LEGACY_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH, SIM_LEGACY_LIB_PATH and SCENARIO_DIR"
#endif

/* The entry points the tests call, resolved with dlsym. */
#define GS_FUNCS(X)                                                                                \
    X(nvmlInit)                                                                                    \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlInitWithFlags)                                                                           \
    X(nvmlShutdown)                                                                                \
    X(nvmlErrorString)                                                                             \
    X(nvmlSystemGetDriverVersion)                                                                  \
    X(nvmlSystemGetCudaDriverVersion)                                                              \
    X(nvmlSystemGetProcessName)                                                                    \
    X(nvmlDeviceGetCount_v2)                                                                       \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetHandleByUUID)                                                                   \
    X(nvmlDeviceGetHandleByPciBusId_v2)                                                            \
    X(nvmlDeviceGetIndex)                                                                          \
    X(nvmlDeviceGetName)                                                                           \
    X(nvmlDeviceGetUUID)                                                                           \
    X(nvmlDeviceGetSerial)                                                                         \
    X(nvmlDeviceGetPciInfo)                                                                        \
    X(nvmlDeviceGetPciInfo_v3)                                                                     \
    X(nvmlDeviceGetMemoryInfo)                                                                     \
    X(nvmlDeviceGetMemoryInfo_v2)                                                                  \
    X(nvmlDeviceGetTemperature)                                                                    \
    X(nvmlDeviceGetTemperatureV)                                                                   \
    X(nvmlDeviceGetTemperatureThreshold)                                                           \
    X(nvmlDeviceGetPowerUsage)                                                                     \
    X(nvmlDeviceGetEnforcedPowerLimit)                                                             \
    X(nvmlDeviceGetFanSpeed)                                                                       \
    X(nvmlDeviceGetUtilizationRates)                                                               \
    X(nvmlDeviceGetSamples)                                                                        \
    X(nvmlDeviceGetProcessUtilization)                                                             \
    X(nvmlDeviceGetComputeRunningProcesses)                                                        \
    X(nvmlDeviceGetComputeRunningProcesses_v2)                                                     \
    X(nvmlDeviceGetComputeRunningProcesses_v3)                                                     \
    X(nvmlDeviceGetGraphicsRunningProcesses_v3)                                                    \
    X(nvmlDeviceGetMPSComputeRunningProcesses_v3)                                                  \
    X(nvmlDeviceGetTotalEccErrors)                                                                 \
    X(nvmlDeviceGetRetiredPages)                                                                   \
    X(nvmlDeviceGetRetiredPagesPendingStatus)                                                      \
    X(nvmlDeviceGetRemappedRows)                                                                   \
    X(nvmlDeviceGetFieldValues)                                                                    \
    X(nvmlDeviceGetMigMode)                                                                        \
    X(nvmlDeviceGetMaxMigDeviceCount)                                                              \
    X(nvmlDeviceGetMigDeviceHandleByIndex)                                                         \
    X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle)                                                \
    X(nvmlDeviceGetGpuInstanceId)                                                                  \
    X(nvmlDeviceIsMigDeviceHandle)                                                                 \
    X(nvmlEventSetCreate)                                                                          \
    X(nvmlDeviceRegisterEvents)                                                                    \
    X(nvmlDeviceGetSupportedEventTypes)                                                            \
    X(nvmlEventSetWait)                                                                            \
    X(nvmlEventSetWait_v2)                                                                         \
    X(nvmlEventSetFree)                                                                            \
    X(nvmlDeviceGetClockInfo)                                                                      \
    X(nvmlDeviceGetCurrentClocksEventReasons)                                                      \
    X(nvmlDeviceGetPerformanceState)                                                               \
    X(nvmlDeviceGetViolationStatus)                                                                \
    X(nvmlDeviceGetTotalEnergyConsumption)                                                         \
    X(nvmlGpmQueryDeviceSupport)                                                                   \
    X(nvmlGpmSampleAlloc)                                                                          \
    X(nvmlGpmSampleFree)                                                                           \
    X(nvmlGpmSampleGet)                                                                            \
    X(nvmlGpmMigSampleGet)                                                                         \
    X(nvmlGpmMetricsGet)                                                                           \
    X(nvmlGpmQueryIfStreamingEnabled)                                                              \
    X(nvmlGpmSetStreamingEnabled)                                                                  \
    X(nvmlDeviceGetClock)                                                                          \
    X(nvmlDeviceGetApplicationsClock)                                                              \
    X(nvmlDeviceGetDefaultApplicationsClock)                                                       \
    X(nvmlDeviceGetAccountingMode)                                                                 \
    X(nvmlDeviceGetAccountingPids)                                                                 \
    X(nvmlDeviceGetAccountingStats)                                                                \
    X(nvmlDeviceGetMemoryErrorCounter)

#include "simlib.h"

static char g_base[128]; /* the common scenario */

/* The common scenario: three GPUs of different generations, processes on
 * GPU 0 and 1, an ECC burst on the V100 at t = 10. */
static const char base_scenario[] =
    "[machine]\ngpus = 3\ndriver_version = 550.54.15\ncuda_version = 12.4\n"
    "[gpu]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
    "[gpu.1]\nmodel = RTX-4090\n"
    "[gpu.2]\nmodel = V100-SXM2-32GB\nworkload = idle\n"
    "[process.p1]\ngpu = 0\npid = 1001\nname = python3 train.py\nused_memory = 10GiB\n"
    "[process.p2]\ngpu = 0\npid = 1002\nname = worker-with-a-long-name\nused_memory = na\n"
    "[process.p3]\ngpu = 0\npid = 1003\ntype = compute+graphics\nused_memory = 1GiB\n"
    "[process.g]\ngpu = 1\npid = 2001\ntype = graphics\nname = Xorg\nused_memory = 300MiB\n"
    "[fault.ecc]\ntype = ecc\ngpu = 2\nat = 10\ncorrected = 4\nuncorrected = 3\n";

static int group_setup(void **state)
{
    (void)state;
    if (simlib_open("/tmp/gs-abi-XXXXXX") != 0)
        return -1;
    snprintf(g_base, sizeof(g_base), "%s/base.ini", g_dir);
    FILE *f = fopen(g_base, "w");
    if (!f || fputs(base_scenario, f) < 0 || fclose(f) != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return simlib_close();
}

/* Writes a scenario into the temp dir; returns its path in out. */
static void write_scenario(const char *name, const char *text, char *out, size_t outlen)
{
    simlib_write(name, text, out, outlen);
}

/* Starts a session on path with scenario time pinned to t (t < 0: live). */
static void start(const char *path, double t)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%.3f", t);
    simlib_start(path, t >= 0 ? buf : NULL);
}

static void stop(void)
{
    assert_int_equal(CALL(nvmlShutdown), NVML_SUCCESS);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs fn with stderr captured into buf. */
static nvmlReturn_t with_stderr(nvmlReturn_t (*fn)(void), char *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/stderr.txt", g_dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(path, "w+");
    assert_non_null(f);
    dup2(fileno(f), 2);
    nvmlReturn_t r = fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return r;
}

/* ----------------------------------------------------------- init, errors */

static void test_uninitialized(void **state)
{
    unsigned n = 7;
    nvmlDevice_t d;
    (void)state;
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(n, 7);
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 0, &d), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlShutdown), NVML_ERROR_UNINITIALIZED);
    assert_string_equal(CALL(nvmlErrorString, NVML_ERROR_UNINITIALIZED), "Uninitialized");
}

static void test_init_failures(void **state)
{
    char out[1024], path[256];
    (void)state;
    unsetenv("GPUSIM_SCENARIO");
    assert_int_equal(with_stderr(p_nvmlInit_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(out, "gpusim: GPUSIM_SCENARIO is not set"));

    write_scenario("bad.ini", "[gpu.0]\nmodel = H100-SXM5-80GB\nutil = lots\n", path, sizeof(path));
    setenv("GPUSIM_SCENARIO", path, 1);
    assert_int_equal(with_stderr(p_nvmlInit, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    char expect[512];
    snprintf(expect, sizeof(expect), "gpusim: %s:3: bad value 'lots' for 'util'", path);
    assert_memory_equal(out, expect, strlen(expect));
    unsigned n;
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_ERROR_UNINITIALIZED);

    setenv("GPUSIM_SCENARIO", "/nonexistent/scenario.ini", 1);
    assert_int_equal(with_stderr(p_nvmlInit_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(out, "gpusim: /nonexistent/scenario.ini: cannot open scenario"));

    setenv("GPUSIM_SCENARIO", g_base, 1);
    setenv("GPUSIM_TIME", "soon", 1);
    assert_int_equal(with_stderr(p_nvmlInit_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    assert_non_null(strstr(out, "gpusim: GPUSIM_TIME: bad value 'soon'"));
    unsetenv("GPUSIM_TIME");
}

static void test_refcount(void **state)
{
    unsigned n = 0;
    (void)state;
    start(g_base, 5);
    assert_int_equal(CALL(nvmlInit), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlInitWithFlags, 0), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlShutdown), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlShutdown), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(CALL(nvmlShutdown), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(CALL(nvmlShutdown), NVML_ERROR_UNINITIALIZED);
}

static void test_error_strings(void **state)
{
    static const struct {
        nvmlReturn_t code;
        const char *text;
    } t[] = {
        {NVML_SUCCESS, "Success"},
        {NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument"},
        {NVML_ERROR_NOT_SUPPORTED, "Not Supported"},
        {NVML_ERROR_NO_PERMISSION, "Insufficient Permissions"},
        {NVML_ERROR_NOT_FOUND, "Not Found"},
        {NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size"},
        {NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"},
        {NVML_ERROR_TIMEOUT, "Timeout"},
        {NVML_ERROR_GPU_IS_LOST, "GPU is lost"},
        {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "Driver/library version mismatch"},
        {NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found"},
        {NVML_ERROR_UNKNOWN, "Unknown Error"},
        {(nvmlReturn_t)12345, "Unknown Error"},
    };
    (void)state;
    start(g_base, 1);
    const char *kept = CALL(nvmlErrorString, NVML_ERROR_GPU_IS_LOST);
    stop();
    /* Static strings stay valid after shutdown (go-nvml keeps them). */
    assert_string_equal(kept, "GPU is lost");
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        assert_string_equal(CALL(nvmlErrorString, t[i].code), t[i].text);
}

/* -------------------------------------------------------------- processes */

static void test_process_sizing(void **state)
{
    (void)state;
    start(g_base, 30);
    nvmlDevice_t d0 = dev(0), d2 = dev(2);
    nvmlProcessInfo_t buf[64];
    unsigned count;

    /* pynvml: count=0, infos=NULL, then count*2+5. */
    count = 0;
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses_v3, d0, &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 3);
    count = count * 2 + 5;
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses_v3, d0, &count, buf), NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_int_equal(buf[0].pid, 1001);
    assert_true(buf[0].usedGpuMemory == 10ULL << 30);
    assert_true(buf[1].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL);
    assert_int_equal(buf[2].gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(buf[2].computeInstanceId, 0xFFFFFFFFu);

    /* nvtop: starts at 0, NULL buffer, grows by a fixed step until SUCCESS,
     * ignoring the returned count. */
    unsigned size = 0, tries = 0;
    nvmlReturn_t r;
    for (;;) {
        count = size;
        r = CALL(nvmlDeviceGetComputeRunningProcesses_v3, d0, &count, size ? buf : NULL);
        if (r != NVML_ERROR_INSUFFICIENT_SIZE)
            break;
        size += 2;
        assert_true(++tries < 10);
    }
    assert_int_equal(r, NVML_SUCCESS);
    assert_int_equal(count, 3);

    /* go-nvml: count=1 with a one-element buffer, doubling. */
    size = 1;
    for (;;) {
        count = size;
        r = CALL(nvmlDeviceGetComputeRunningProcesses_v3, d0, &count, buf);
        if (r != NVML_ERROR_INSUFFICIENT_SIZE)
            break;
        assert_int_equal(count, 3);
        size *= 2;
    }
    assert_int_equal(r, NVML_SUCCESS);
    assert_int_equal(size, 4);

    /* No processes: SUCCESS and 0, even with NULL. */
    count = 0;
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses_v3, d2, &count, NULL), NVML_SUCCESS);
    assert_int_equal(count, 0);
    count = 5;
    assert_int_equal(CALL(nvmlDeviceGetMPSComputeRunningProcesses_v3, d0, &count, NULL),
                     NVML_SUCCESS);
    assert_int_equal(count, 0);
    count = 0;
    assert_int_equal(CALL(nvmlDeviceGetGraphicsRunningProcesses_v3, d0, &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 1); /* p3 is compute+graphics */
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses_v3, d0, NULL, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    stop();
}

static void check_untouched(const unsigned char *b, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (b[i] != 0xA5)
            fail_msg("byte %zu written past the last entry", i);
}

static void test_process_stride(void **state)
{
    (void)state;
    start(g_base, 30);
    nvmlDevice_t d0 = dev(0);
    unsigned char buf[64 * 24];
    unsigned count;

    memset(buf, 0xA5, sizeof(buf));
    count = 64;
    assert_int_equal(
        CALL(nvmlDeviceGetComputeRunningProcesses, d0, &count, (nvmlProcessInfo_v1_t *)buf),
        NVML_SUCCESS);
    assert_int_equal(count, 3);
    check_untouched(buf, 3 * 16, sizeof(buf));
    nvmlProcessInfo_v1_t v1[3];
    memcpy(v1, buf, sizeof(v1));
    assert_int_equal(v1[0].pid, 1001);
    assert_int_equal(v1[2].pid, 1003);
    assert_true(v1[0].usedGpuMemory == 10ULL << 30);
    assert_true(v1[2].usedGpuMemory == 1ULL << 30);

    memset(buf, 0xA5, sizeof(buf));
    count = 64;
    assert_int_equal(
        CALL(nvmlDeviceGetComputeRunningProcesses_v2, d0, &count, (nvmlProcessInfo_v2_t *)buf),
        NVML_SUCCESS);
    check_untouched(buf, 3 * 24, sizeof(buf));
    nvmlProcessInfo_v2_t v2[3];
    memcpy(v2, buf, sizeof(v2));
    assert_int_equal(v2[2].pid, 1003);
    assert_int_equal(v2[2].gpuInstanceId, 0xFFFFFFFFu);

    memset(buf, 0xA5, sizeof(buf));
    count = 64;
    assert_int_equal(
        CALL(nvmlDeviceGetComputeRunningProcesses_v3, d0, &count, (nvmlProcessInfo_t *)buf),
        NVML_SUCCESS);
    check_untouched(buf, 3 * 24, sizeof(buf));
    stop();
}

static void test_process_names(void **state)
{
    char name[64];
    (void)state;
    start(g_base, 30);
    assert_int_equal(CALL(nvmlSystemGetProcessName, 1001, name, sizeof(name)), NVML_SUCCESS);
    assert_string_equal(name, "python3 train.py");
    /* Crops instead of failing. */
    assert_int_equal(CALL(nvmlSystemGetProcessName, 1002, name, 8), NVML_SUCCESS);
    assert_string_equal(name, "worker-");
    assert_int_equal(CALL(nvmlSystemGetProcessName, 1003, name, sizeof(name)), NVML_SUCCESS);
    assert_string_equal(name, "p3"); /* the section name is the default */
    assert_int_equal(CALL(nvmlSystemGetProcessName, 4242, name, sizeof(name)),
                     NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlSystemGetProcessName, 1001, NULL, 8), NVML_ERROR_INVALID_ARGUMENT);
    stop();
}

/* ------------------------------------------------------- the /proc view */

/* gpusimProcRead (sim/procview.c): /proc files of simulated pids (>=
 * 4194304) that NVML lists and that are alive; ENOENT for the dead, for
 * host pids, outside a process's window and without a session. */
static void test_proc_view(void **state)
{
    (void)state;
    int (*rd)(unsigned, const char *, char *, size_t);
    void *sym = dlsym(g_lib, "gpusimProcRead");
    assert_non_null(sym);
    memcpy(&rd, &sym, sizeof(rd));
    char buf[512];
    simlib_start_text("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                      "[process.a]\ngpu = 0\npid = 4194400\nname = /usr/bin/python3\n"
                      "cmdline = python3 train.py  --rank 0\ncpu = 50%\nrss = 8MiB\nstart = 10\n"
                      "[process.dead]\ngpu = 0\npid = 4194304\nalive = no\n"
                      "[process.late]\ngpu = 0\npid = 4194500\nstart = 100\n"
                      "[process.host]\ngpu = 0\npid = 1001\n");
    long tck = sysconf(_SC_CLK_TCK);
    int n = rd(4194400, "stat", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    unsigned pid;
    char comm[32], st;
    unsigned long long utime, rss;
    assert_int_equal(sscanf(buf,
                            "%u (%31[^)]) %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
                            "%*u %*d %*d %*d %*d %*d %*d %*u %*u %llu",
                            &pid, comm, &st, &utime, &rss),
                     5);
    assert_int_equal(pid, 4194400);
    assert_string_equal(comm, "python3"); /* the last component of the name */
    assert_int_equal(st, 'S');
    assert_int_equal(utime, (unsigned long long)(0.5 * 50 * (double)tck)); /* 50 s at 50 % */
    assert_int_equal(rss * (unsigned long long)sysconf(_SC_PAGESIZE), 8ULL << 20);
    n = rd(4194400, "status", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    char want[64];
    snprintf(want, sizeof(want), "\nUid:\t%u\t", (unsigned)getuid());
    assert_non_null(strstr(buf, want));
    n = rd(4194400, "cmdline", buf, sizeof(buf));
    assert_int_equal(n, 26);
    assert_memory_equal(buf,
                        "python3\0train.py\0--rank\0"
                        "0\0",
                        26);
    n = rd(4194400, "cgroup", buf, sizeof(buf));
    assert_true(n > 0);
    assert_int_equal(rd(4194400, "exe", buf, sizeof(buf)), -ENOENT);
    assert_int_equal(rd(4194400, "environ", buf, sizeof(buf)), -EINVAL);
    assert_int_equal(rd(4194400, "stat", buf, 0), -EINVAL);
    /* cut at cap, like a short read */
    assert_int_equal(rd(4194400, "cmdline", buf, 5), 5);
    assert_int_equal(rd(4194304, "stat", buf, sizeof(buf)), -ENOENT); /* alive = no */
    assert_int_equal(rd(4194500, "stat", buf, sizeof(buf)), -ENOENT); /* not started */
    assert_int_equal(rd(1001, "stat", buf, sizeof(buf)), -ENOENT);    /* a host pid */
    assert_int_equal(rd(4194999, "stat", buf, sizeof(buf)), -ENOENT); /* not in the scenario */
    /* the dead process is listed (its memory is held) but has no
     * utilisation sample: it runs nothing */
    unsigned count = 0;
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses, dev(0), &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 3);
    nvmlProcessUtilizationSample_t us[8];
    count = 8;
    assert_int_equal(CALL(nvmlDeviceGetProcessUtilization, dev(0), us, &count, 0), NVML_SUCCESS);
    assert_int_equal(count, 2);
    for (unsigned k = 0; k < count; k++) {
        assert_true(us[k].pid == 4194400 || us[k].pid == 1001);
        assert_in_range(us[k].smUtil, 1, 100); /* the two live ones share the GPU */
    }
    stop();
    assert_int_equal(rd(4194400, "stat", buf, sizeof(buf)), -ENOENT); /* no session */

    /* [machine] start: without GPUSIM_TIME/EPOCH the session begins 600 s
     * into the story (seen in the CPU time of a process started at 0) */
    char path[128];
    simlib_write("start.ini",
                 "[machine]\nstart = 10min\n[gpu.0]\nmodel = H100-SXM5-80GB\n"
                 "[process.a]\ngpu = 0\npid = 4194400\n",
                 path, sizeof(path));
    simlib_start(path, NULL);
    n = rd(4194400, "stat", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    assert_int_equal(sscanf(buf, "%u (%31[^)]) %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu",
                            &pid, comm, &st, &utime),
                     4);
    assert_true(utime >= 600ULL * (unsigned long long)tck);
    assert_true(utime < 3600ULL * (unsigned long long)tck);
    stop();
}

/* gpusimHostRead (sim/hostside.c): the host side of simulated pids with
 * host keys and of their workers, from memory; ENOENT for a process with no
 * host side, a dead one, a host pid, a worker past `workers`; EINVAL for
 * another file. */
static void test_host_view(void **state)
{
    (void)state;
    int (*rd)(unsigned, const char *, char *, size_t);
    void *sym = dlsym(g_lib, "gpusimHostRead");
    assert_non_null(sym);
    memcpy(&rd, &sym, sizeof(rd));
    char buf[512];
    simlib_start_text("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                      "[process.feed]\ngpu = 0\npid = 4194400\nname = python3\nworkers = 2\n"
                      "worker_cpu = 30%\niowait = 40%\npsi_io = 25%\n"
                      "[process.plain]\ngpu = 0\npid = 4194401\n"
                      "[process.dead]\ngpu = 0\npid = 4194402\nalive = no\nworkers = 1\n"
                      "[process.host]\ngpu = 0\npid = 1001\nworkers = 1\n");
    int n = rd(4194400, "stat", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    unsigned pid, ppid;
    char comm[32];
    assert_int_equal(sscanf(buf, "%u (%31[^)]) S %u", &pid, comm, &ppid), 3);
    assert_int_equal(pid, 4194400);
    assert_string_equal(comm, "python3");
    /* the block-I/O delay ticks (field 42) are there */
    int last = 2; /* the number of the last field: 2 is the name */
    for (char *q = strchr(buf, ')'); *q; q++)
        last += *q == ' ';
    assert_true(last >= 42);
    n = rd(4194400, "children", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    unsigned w0, w1;
    assert_int_equal(sscanf(buf, "%u %u", &w0, &w1), 2);
    assert_int_equal(w1, w0 + 1);
    n = rd(w1, "stat", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    assert_int_equal(sscanf(buf, "%u (%31[^)]) S %u", &pid, comm, &ppid), 3);
    assert_int_equal(pid, w1);
    assert_int_equal(ppid, 4194400);
    assert_int_equal(rd(w1 + 1, "stat", buf, sizeof(buf)), -ENOENT); /* a third worker */
    assert_int_equal(rd(w1, "cgroup", buf, sizeof(buf)), -ENOENT);   /* workers: stat only */
    n = rd(4194400, "cgroup", buf, sizeof(buf));
    assert_int_equal(n, (int)strlen("0::/gpusim/feed\n"));
    assert_memory_equal(buf, "0::/gpusim/feed\n", (size_t)n);
    n = rd(4194400, "io.pressure", buf, sizeof(buf));
    assert_true(n > 0 && n < (int)sizeof(buf));
    buf[n] = '\0';
    assert_non_null(strstr(buf, "some avg10=25.00 "));
    assert_int_equal(rd(4194400, "status", buf, sizeof(buf)), -EINVAL);
    assert_int_equal(rd(4194400, "stat", buf, 0), -EINVAL);
    assert_int_equal(rd(4194400, "stat", buf, 5), 5);                 /* cut at cap */
    assert_int_equal(rd(4194401, "stat", buf, sizeof(buf)), -ENOENT); /* no host side */
    assert_int_equal(rd(4194402, "stat", buf, sizeof(buf)), -ENOENT); /* alive = no */
    assert_int_equal(rd(1001, "stat", buf, sizeof(buf)), -ENOENT);    /* a host pid */
    stop();
    assert_int_equal(rd(4194400, "stat", buf, sizeof(buf)), -ENOENT); /* no session */
}

/* ---------------------------------------------------------------- memory */

static void test_memory_info(void **state)
{
    (void)state;
    start(g_base, 30);
    nvmlDevice_t d0 = dev(0);
    nvmlMemory_v2_t m2;
    nvmlMemory_t m1;

    memset(&m2, 0, sizeof(m2));
    m2.version = 2; /* what nvtop passes */
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo_v2, d0, &m2), NVML_ERROR_FUNCTION_NOT_FOUND);
    m2.version = 0;
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo_v2, d0, &m2), NVML_ERROR_FUNCTION_NOT_FOUND);
    assert_int_equal(nvmlMemory_v2, 0x02000028u);
    m2.version = nvmlMemory_v2;
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo_v2, d0, &m2), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo, d0, &m1), NVML_SUCCESS);
    assert_true(m1.total == m2.total);
    assert_true(m2.reserved > 0);
    assert_true(m1.used == m2.used + m2.reserved);
    assert_true(m1.free == m2.free);
    assert_true(m2.total == m2.reserved + m2.used + m2.free);
    /* used covers the processes: 10 GiB + 1 GiB + a share for the 'na' one. */
    assert_true(m2.used >= 11ULL << 30);
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo_v2, d0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    stop();
}

/* --------------------------------------------------------- string getters */

static void test_strings(void **state)
{
    char buf[96];
    (void)state;
    start(g_base, 30);
    nvmlDevice_t d0 = dev(0), d1 = dev(1);
    const char *h100 = "NVIDIA H100 80GB HBM3";

    assert_int_equal(CALL(nvmlDeviceGetName, d0, buf, 10), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvmlDeviceGetName, d0, buf, (unsigned)strlen(h100)),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvmlDeviceGetName, d0, buf, (unsigned)strlen(h100) + 1), NVML_SUCCESS);
    assert_string_equal(buf, h100);
    assert_int_equal(CALL(nvmlDeviceGetName, d1, buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "NVIDIA GeForce RTX 4090");
    assert_int_equal(CALL(nvmlDeviceGetUUID, d0, buf, 40), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvmlDeviceGetUUID, d0, buf, 41), NVML_SUCCESS);
    assert_memory_equal(buf, "GPU-", 4);
    assert_int_equal(CALL(nvmlDeviceGetSerial, d0, buf, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvmlDeviceGetSerial, d0, buf, 30), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetSerial, d1, buf, 30), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlSystemGetDriverVersion, buf, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvmlSystemGetDriverVersion, buf, 80), NVML_SUCCESS);
    assert_string_equal(buf, "550.54.15");
    int cuda = 0;
    assert_int_equal(CALL(nvmlSystemGetCudaDriverVersion, &cuda), NVML_SUCCESS);
    assert_int_equal(cuda, 12040);
    stop();
}

static void test_pci(void **state)
{
    (void)state;
    start(g_base, 30);
    nvmlDevice_t d0 = dev(0), found = NULL;
    nvmlPciInfo_t pci;
    unsigned char raw[sizeof(nvmlPciInfo_t)];

    assert_int_equal(CALL(nvmlDeviceGetPciInfo_v3, d0, &pci), NVML_SUCCESS);
    assert_string_equal(pci.busId, "00000000:18:00.0");
    assert_string_equal(pci.busIdLegacy, "0000:18:00.0");
    assert_int_equal(pci.pciDeviceId, 0x233010DEu);
    assert_int_equal(pci.bus, 0x18);
    /* The v1 symbol fills only the original 52-byte struct. */
    memset(raw, 0xA5, sizeof(raw));
    assert_int_equal(CALL(nvmlDeviceGetPciInfo, d0, (nvmlPciInfo_t *)raw), NVML_SUCCESS);
    check_untouched(raw, 52, sizeof(raw));
    assert_string_equal((const char *)raw, "0000:18:00.0");

    assert_int_equal(CALL(nvmlDeviceGetHandleByPciBusId_v2, "0000:18:00.0", &found), NVML_SUCCESS);
    assert_ptr_equal(found, d0);
    assert_int_equal(CALL(nvmlDeviceGetHandleByPciBusId_v2, "00000000:2A:00.0", &found),
                     NVML_SUCCESS);
    assert_ptr_equal(found, dev(1));
    assert_int_equal(CALL(nvmlDeviceGetHandleByPciBusId_v2, "0000:77:00.0", &found),
                     NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlDeviceGetHandleByPciBusId_v2, "garbage", &found),
                     NVML_ERROR_INVALID_ARGUMENT);
    char uuid[96];
    assert_int_equal(CALL(nvmlDeviceGetUUID, dev(2), uuid, sizeof(uuid)), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetHandleByUUID, uuid, &found), NVML_SUCCESS);
    assert_ptr_equal(found, dev(2));
    assert_int_equal(CALL(nvmlDeviceGetHandleByUUID, "GPU-nope", &found), NVML_ERROR_NOT_FOUND);
    unsigned idx;
    assert_int_equal(CALL(nvmlDeviceGetIndex, found, &idx), NVML_SUCCESS);
    assert_int_equal(idx, 2);
    stop();
}

/* ------------------------------------------------------ sampled history */

static void test_samples_sizing(void **state)
{
    (void)state;
    start(g_base, 100);
    nvmlDevice_t d0 = dev(0), d2 = dev(2);
    nvmlValueType_t type;
    unsigned count = 0;
    nvmlSample_t samples[200];

    /* pynvml's first call: samples=NULL must succeed with the count. */
    assert_int_equal(
        CALL(nvmlDeviceGetSamples, d0, NVML_GPU_UTILIZATION_SAMPLES, 0, &type, &count, NULL),
        NVML_SUCCESS);
    assert_int_equal(count, 120);
    assert_int_equal(type, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_int_equal(
        CALL(nvmlDeviceGetSamples, d0, NVML_GPU_UTILIZATION_SAMPLES, 0, &type, &count, samples),
        NVML_SUCCESS);
    assert_int_equal(count, 120);
    for (unsigned i = 1; i < count; i++) {
        /* 1/6 s apart, in order */
        long long step = (long long)(samples[i].timeStamp - samples[i - 1].timeStamp);
        assert_true(step >= 166666 && step <= 166668);
        assert_in_range(samples[i].sampleValue.uiVal, 85, 100);
    }
    unsigned long long last = samples[count - 1].timeStamp;
    assert_int_equal(
        CALL(nvmlDeviceGetSamples, d0, NVML_GPU_UTILIZATION_SAMPLES, last, &type, &count, NULL),
        NVML_ERROR_NOT_FOUND);
    count = 4; /* a small buffer gets the newest samples */
    assert_int_equal(
        CALL(nvmlDeviceGetSamples, d0, NVML_TOTAL_POWER_SAMPLES, 0, &type, &count, samples),
        NVML_SUCCESS);
    assert_int_equal(count, 4);
    assert_true(samples[3].timeStamp == last);
    /* An idle GPU has no utilisation samples, but power samples. */
    assert_int_equal(
        CALL(nvmlDeviceGetSamples, d2, NVML_GPU_UTILIZATION_SAMPLES, 0, &type, &count, NULL),
        NVML_ERROR_NOT_FOUND);
    assert_int_equal(
        CALL(nvmlDeviceGetSamples, d2, NVML_TOTAL_POWER_SAMPLES, 0, &type, &count, NULL),
        NVML_SUCCESS);
    stop();
}

static void test_process_utilization_sizing(void **state)
{
    (void)state;
    start(g_base, 100);
    nvmlDevice_t d0 = dev(0), d2 = dev(2);
    nvmlProcessUtilizationSample_t u[8];
    unsigned count = 0;

    /* pynvml/nvtop expect INSUFFICIENT_SIZE from the sizing call. */
    assert_int_equal(CALL(nvmlDeviceGetProcessUtilization, d0, NULL, &count, 0),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 3);
    count = 8;
    assert_int_equal(CALL(nvmlDeviceGetProcessUtilization, d0, u, &count, 0), NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_int_equal(u[0].pid, 1001);
    assert_true(u[0].smUtil <= 100 && u[0].timeStamp > 0);
    assert_int_equal(CALL(nvmlDeviceGetProcessUtilization, d0, u, &count, u[0].timeStamp),
                     NVML_ERROR_NOT_FOUND);
    count = 8;
    assert_int_equal(CALL(nvmlDeviceGetProcessUtilization, d2, u, &count, 0), NVML_ERROR_NOT_FOUND);
    stop();
}

/* ------------------------------------------------------------- handles */

static void test_invalid_handles(void **state)
{
    (void)state;
    start(g_base, 30);
    nvmlDevice_t d0 = dev(0), d;
    char name[96];
    unsigned temp;
    int on_stack;
    nvmlDevice_t bogus[] = {
        NULL,
        (nvmlDevice_t)(uintptr_t)0x1234,
        (nvmlDevice_t)(void *)&on_stack,
        (nvmlDevice_t)((char *)d0 + 1), /* misaligned inside our table */
        (nvmlDevice_t)((char *)d0 + 3 * ((char *)dev(1) - (char *)d0)), /* index 3 of 3 */
    };
    for (size_t i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++) {
        assert_int_equal(CALL(nvmlDeviceGetName, bogus[i], name, sizeof(name)),
                         NVML_ERROR_INVALID_ARGUMENT);
        assert_int_equal(CALL(nvmlDeviceGetTemperature, bogus[i], NVML_TEMPERATURE_GPU, &temp),
                         NVML_ERROR_INVALID_ARGUMENT);
    }
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 3, &d), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetTemperature, d0, NVML_TEMPERATURE_GPU, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetTemperature, d0, (nvmlTemperatureSensors_t)5, &temp),
                     NVML_ERROR_INVALID_ARGUMENT);
    stop();
}

/* -------------------------------------------------------------- sensors */

static void test_sensors(void **state)
{
    (void)state;
    start(g_base, 600);
    nvmlDevice_t d0 = dev(0), d1 = dev(1);
    unsigned v, limit;
    nvmlTemperature_t tv;

    assert_int_equal(CALL(nvmlDeviceGetTemperature, d0, NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
    assert_in_range(v, 40, 85);
    memset(&tv, 0, sizeof(tv));
    tv.version = 1;
    assert_int_equal(CALL(nvmlDeviceGetTemperatureV, d0, &tv),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    tv.version = nvmlTemperature_v1;
    assert_int_equal(CALL(nvmlDeviceGetTemperatureV, d0, &tv), NVML_SUCCESS);
    assert_int_equal(tv.temperature, (int)v);
    assert_int_equal(
        CALL(nvmlDeviceGetTemperatureThreshold, d0, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v),
        NVML_SUCCESS);
    assert_int_equal(v, 89);
    assert_int_equal(
        CALL(nvmlDeviceGetTemperatureThreshold, d1, NVML_TEMPERATURE_THRESHOLD_MEM_MAX, &v),
        NVML_ERROR_NOT_SUPPORTED);

    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, d0, &v), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetEnforcedPowerLimit, d0, &limit), NVML_SUCCESS);
    assert_int_equal(limit, 700000);
    assert_true(v > 300000 && v <= limit);
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed, d0, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetFanSpeed, d1, &v), NVML_SUCCESS);
    assert_in_range(v, 30, 100);

    nvmlUtilization_t u;
    assert_int_equal(CALL(nvmlDeviceGetUtilizationRates, d0, &u), NVML_SUCCESS);
    assert_in_range(u.gpu, 90, 100);
    assert_int_equal(CALL(nvmlDeviceGetClockInfo, d0, NVML_CLOCK_SM, &v), NVML_SUCCESS);
    assert_int_equal(v, 1980);
    nvmlPstates_t ps;
    assert_int_equal(CALL(nvmlDeviceGetPerformanceState, d0, &ps), NVML_SUCCESS);
    assert_int_equal(ps, NVML_PSTATE_0);
    assert_int_equal(CALL(nvmlDeviceGetPerformanceState, dev(2), &ps), NVML_SUCCESS);
    assert_int_equal(ps, 8);
    unsigned long long reasons = 99;
    assert_int_equal(CALL(nvmlDeviceGetCurrentClocksEventReasons, dev(2), &reasons), NVML_SUCCESS);
    assert_true(reasons == nvmlClocksEventReasonGpuIdle);
    unsigned long long e1, e2;
    assert_int_equal(CALL(nvmlDeviceGetTotalEnergyConsumption, d0, &e1), NVML_SUCCESS);
    stop();
    start(g_base, 700);
    assert_int_equal(CALL(nvmlDeviceGetTotalEnergyConsumption, dev(0), &e2), NVML_SUCCESS);
    assert_true(e2 > e1 + 100ULL * 300 * 1000); /* > 300 W over 100 s, in mJ */
    nvmlViolationTime_t vt;
    assert_int_equal(CALL(nvmlDeviceGetViolationStatus, dev(0), NVML_PERF_POLICY_THERMAL, &vt),
                     NVML_SUCCESS);
    assert_true(vt.violationTime == 0 && vt.referenceTime > 0);
    stop();
}

static void test_field_values(void **state)
{
    (void)state;
    start(g_base, 60);
    nvmlFieldValue_t f[6];
    const unsigned ids[6] = {NVML_FI_DEV_MEMORY_TEMP,         NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
                             NVML_FI_DEV_PCIE_REPLAY_COUNTER, NVML_FI_DEV_POWER_AVERAGE,
                             NVML_FI_DEV_ECC_CURRENT,         9999};
    memset(f, 0, sizeof(f));
    for (int i = 0; i < 6; i++)
        f[i].fieldId = ids[i];
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(0), 6, f), NVML_SUCCESS);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(f[i].nvmlReturn, NVML_SUCCESS);
        assert_true(f[i].timestamp > 1000000000000000LL); /* microseconds since 1970 */
    }
    assert_int_equal(f[5].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_in_range(f[0].value.uiVal, 40, 95);
    assert_int_equal(f[1].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    assert_int_equal(f[4].value.uiVal, 1);
    /* The RTX 4090 has neither a memory sensor nor ECC. */
    f[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    f[1].fieldId = NVML_FI_DEV_ECC_CURRENT;
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(1), 2, f), NVML_SUCCESS);
    assert_int_equal(f[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (230): NONE (0) on every board, as
     * nvidia-smi prints gpu_recovery_action "None" on GeForce, L40S, H100
     * and H200 (drivers 590-595, utkuozdemir/nvidia_gpu_exporter
     * internal/captures/) */
    for (unsigned i = 0; i < 2; i++) {
        memset(f, 0xab, sizeof(f[0]));
        f[0].fieldId = 230;
        f[0].scopeId = 0;
        assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(i), 1, f), NVML_SUCCESS);
        assert_int_equal(f[0].nvmlReturn, NVML_SUCCESS);
        assert_int_equal(f[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
        assert_int_equal(f[0].value.uiVal, 0);
    }
    stop();
}

/* NVML_FI_DEV_POWER_INSTANT (gpumon's power.draw.instant): milliwatts as an
 * unsigned int, a little around the one-second average of
 * nvmlDeviceGetPowerUsage (the model scatters it by up to 3 %), never above
 * 1.02 x the enforced limit; a scenario's `unsupported =` names the field,
 * and then the call succeeds with the entry NOT_SUPPORTED. */
static void test_field_power_instant(void **state)
{
    (void)state;
    for (int t = 60; t <= 64; t++) {
        start(g_base, t);
        for (unsigned i = 0; i < 3; i++) {
            unsigned avg = 0, lim = 0;
            assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(i), &avg), NVML_SUCCESS);
            assert_int_equal(CALL(nvmlDeviceGetEnforcedPowerLimit, dev(i), &lim), NVML_SUCCESS);
            nvmlFieldValue_t f;
            memset(&f, 0, sizeof(f));
            f.fieldId = NVML_FI_DEV_POWER_INSTANT;
            assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(i), 1, &f), NVML_SUCCESS);
            assert_int_equal(f.nvmlReturn, NVML_SUCCESS);
            assert_int_equal(f.valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
            assert_true(f.timestamp > 1000000000000000LL);
            assert_true(f.value.uiVal >= avg * 0.965 && f.value.uiVal <= avg * 1.035 + 1);
            assert_true(f.value.uiVal <= lim * 1.02 + 1);
        }
        stop();
    }
    char path[256];
    write_scenario("no-instant.ini",
                   "[gpu.0]\nmodel = A100-SXM4-80GB\nunsupported = NVML_FI_DEV_POWER_INSTANT\n",
                   path, sizeof(path));
    start(path, 10);
    nvmlFieldValue_t f[2];
    memset(f, 0, sizeof(f));
    f[0].fieldId = NVML_FI_DEV_POWER_INSTANT;
    f[1].fieldId = NVML_FI_DEV_POWER_AVERAGE;
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(0), 2, f), NVML_SUCCESS);
    assert_int_equal(f[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(f[1].nvmlReturn, NVML_SUCCESS);
    stop();
}

/* Power fields in the module (1) and memory (2) scopes: NOT_SUPPORTED on
 * every preset (none is a Grace Hopper module) while the call succeeds and
 * the GPU scope (0) still answers. */
static void test_field_power_scopes(void **state)
{
    (void)state;
    start(g_base, 60);
    for (unsigned i = 0; i < 3; i++) {
        nvmlFieldValue_t f[4];
        memset(f, 0, sizeof(f));
        f[0].fieldId = NVML_FI_DEV_POWER_AVERAGE;
        f[1].fieldId = NVML_FI_DEV_POWER_AVERAGE;
        f[1].scopeId = 1;
        f[2].fieldId = NVML_FI_DEV_POWER_INSTANT;
        f[2].scopeId = 2;
        f[3].fieldId = 190; /* NVML_FI_DEV_POWER_CURRENT_LIMIT */
        f[3].scopeId = 1;
        assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(i), 4, f), NVML_SUCCESS);
        assert_int_equal(f[0].nvmlReturn, NVML_SUCCESS);
        assert_int_equal(f[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(f[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
        assert_int_equal(f[3].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    }
    stop();
}

/* ECC by location: H100 (Hopper) counts DRAM (2) and SRAM (7) only, the
 * V100 (GPU 2 of the base scenario) each unit 0-6 and not SRAM; ECC off
 * (the RTX 4090) NOT_SUPPORTED everywhere. */
static void test_ecc_locations(void **state)
{
    (void)state;
    start(g_base, 60);
    for (unsigned loc = 0; loc <= 7; loc++) {
        unsigned long long n = 99;
        nvmlReturn_t h = CALL(nvmlDeviceGetMemoryErrorCounter, dev(0),
                              NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, loc, &n);
        assert_int_equal(h, loc == 2 || loc == 7 ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED);
        nvmlReturn_t v = CALL(nvmlDeviceGetMemoryErrorCounter, dev(2),
                              NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, loc, &n);
        assert_int_equal(v, loc == 7 ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS);
        assert_int_equal(CALL(nvmlDeviceGetMemoryErrorCounter, dev(1),
                              NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, loc, &n),
                         NVML_ERROR_NOT_SUPPORTED);
    }
    stop();
}

/* Accounting: off by default (mode disabled, lists NOT_SUPPORTED); with
 * `accounting = on` the compute processes started by t, running or ended,
 * through the sizing protocol, their stats, NOT_FOUND for another PID. */
static void test_accounting(void **state)
{
    (void)state;
    start(g_base, 60);
    nvmlEnableState_t mode = NVML_FEATURE_ENABLED;
    unsigned cnt = 0, pids[8];
    nvmlAccountingStats_t st;
    assert_int_equal(CALL(nvmlDeviceGetAccountingMode, dev(0), &mode), NVML_SUCCESS);
    assert_int_equal(mode, NVML_FEATURE_DISABLED);
    assert_int_equal(CALL(nvmlDeviceGetAccountingPids, dev(0), &cnt, NULL),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetAccountingStats, dev(0), 1, &st), NVML_ERROR_NOT_SUPPORTED);
    stop();

    char path[256];
    write_scenario("acct.ini",
                   "[machine]\ngpus = 2\n[gpu]\nmodel = A100-SXM4-80GB\n[gpu.0]\naccounting = on\n"
                   "[process.a]\ngpu = 0\npid = 501\ntype = compute\nused_memory = 2GiB\n"
                   "sm_util = 40%\nstart = 10s\nend = 20s\n"
                   "[process.b]\ngpu = 0\npid = 502\ntype = compute\nused_memory = 4GiB\n"
                   "start = 15s\n"
                   "[process.c]\ngpu = 0\npid = 503\ntype = graphics\nused_memory = 1GiB\n"
                   "[process.d]\ngpu = 0\npid = 504\ntype = compute\nused_memory = 1GiB\n"
                   "start = 100s\n"
                   "[process.e]\ngpu = 1\npid = 505\ntype = compute\nused_memory = 1GiB\n",
                   path, sizeof(path));
    start(path, 30);
    assert_int_equal(CALL(nvmlDeviceGetAccountingMode, dev(0), &mode), NVML_SUCCESS);
    assert_int_equal(mode, NVML_FEATURE_ENABLED);
    assert_int_equal(CALL(nvmlDeviceGetAccountingMode, dev(1), &mode), NVML_SUCCESS);
    assert_int_equal(mode, NVML_FEATURE_DISABLED);
    cnt = 0;
    assert_int_equal(CALL(nvmlDeviceGetAccountingPids, dev(0), &cnt, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(cnt, 2); /* a (ended) and b; not the graphics c, not d (later) */
    cnt = 1;
    assert_int_equal(CALL(nvmlDeviceGetAccountingPids, dev(0), &cnt, pids),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    cnt = 8;
    assert_int_equal(CALL(nvmlDeviceGetAccountingPids, dev(0), &cnt, pids), NVML_SUCCESS);
    assert_int_equal(cnt, 2);
    assert_int_equal(pids[0], 501);
    assert_int_equal(pids[1], 502);
    assert_int_equal(CALL(nvmlDeviceGetAccountingStats, dev(0), 501, &st), NVML_SUCCESS);
    assert_int_equal(st.isRunning, 0);
    assert_int_equal(st.time, 10000); /* 10 s from start to end */
    assert_int_equal(st.maxMemoryUsage, 2ULL << 30);
    assert_in_range(st.gpuUtilization, 38, 42);
    assert_int_equal(CALL(nvmlDeviceGetAccountingStats, dev(0), 502, &st), NVML_SUCCESS);
    assert_int_equal(st.isRunning, 1);
    assert_int_equal(st.time, 0);
    assert_int_equal(st.maxMemoryUsage, 4ULL << 30);
    assert_int_equal(CALL(nvmlDeviceGetAccountingStats, dev(0), 503, &st), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlDeviceGetAccountingStats, dev(0), 504, &st), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlDeviceGetAccountingStats, dev(0), 501, NULL),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetAccountingPids, dev(1), &cnt, pids),
                     NVML_ERROR_NOT_SUPPORTED);
    stop();
}

static void test_ecc_and_pages(void **state)
{
    (void)state;
    unsigned long long n;
    unsigned count;
    unsigned long long addr[8];
    nvmlEnableState_t pending;

    start(g_base, 5); /* before the ECC burst at t=10 */
    nvmlDevice_t v100 = dev(2);
    assert_int_equal(CALL(nvmlDeviceGetTotalEccErrors, v100, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                          NVML_VOLATILE_ECC, &n),
                     NVML_SUCCESS);
    assert_true(n == 0);
    count = 0;
    assert_int_equal(CALL(nvmlDeviceGetRetiredPages, v100,
                          NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &count, NULL),
                     NVML_SUCCESS);
    assert_int_equal(count, 0);
    stop();

    start(g_base, 20);
    v100 = dev(2);
    assert_int_equal(CALL(nvmlDeviceGetTotalEccErrors, v100, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                          NVML_AGGREGATE_ECC, &n),
                     NVML_SUCCESS);
    assert_true(n == 3);
    assert_int_equal(CALL(nvmlDeviceGetTotalEccErrors, v100, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                          NVML_VOLATILE_ECC, &n),
                     NVML_SUCCESS);
    assert_true(n == 4);
    count = 0; /* size query */
    assert_int_equal(CALL(nvmlDeviceGetRetiredPages, v100,
                          NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &count, NULL),
                     NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(count, 3);
    assert_int_equal(CALL(nvmlDeviceGetRetiredPages, v100,
                          NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &count, addr),
                     NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_true(addr[0] % 4096 == 0);
    count = 8;
    assert_int_equal(CALL(nvmlDeviceGetRetiredPages, v100,
                          NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &count, addr),
                     NVML_SUCCESS);
    assert_int_equal(count, 2);
    assert_int_equal(CALL(nvmlDeviceGetRetiredPagesPendingStatus, v100, &pending), NVML_SUCCESS);
    assert_int_equal(pending, NVML_FEATURE_ENABLED);
    /* Ampere+ remaps rows instead; GeForce has no ECC at all. */
    assert_int_equal(CALL(nvmlDeviceGetRetiredPages, dev(0),
                          NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &count, addr),
                     NVML_ERROR_NOT_SUPPORTED);
    unsigned c, u, p, f;
    assert_int_equal(CALL(nvmlDeviceGetRemappedRows, dev(0), &c, &u, &p, &f), NVML_SUCCESS);
    assert_true(c == 0 && u == 0 && p == 0 && f == 0);
    assert_int_equal(CALL(nvmlDeviceGetRemappedRows, dev(1), &c, &u, &p, &f),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetTotalEccErrors, dev(1), NVML_MEMORY_ERROR_TYPE_CORRECTED,
                          NVML_VOLATILE_ECC, &n),
                     NVML_ERROR_NOT_SUPPORTED);
    stop();
}

/* ---------------------------------------------------------------- faults */

static void test_fault_windows(void **state)
{
    (void)state;
    const char *faults = SCENARIO_DIR "/faults.ini";
    nvmlDevice_t d;
    unsigned n;
    char name[96];

    start(faults, 30);
    nvmlDevice_t gpu1 = dev(1), gpu2 = dev(2);
    stop();

    start(faults, 90); /* GPU 1 lost 60-120 */
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_SUCCESS);
    assert_int_equal(n, 4);
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 1, &d), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(CALL(nvmlDeviceGetName, gpu1, name, sizeof(name)), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(CALL(nvmlDeviceGetName, dev(0), name, sizeof(name)), NVML_SUCCESS);
    stop();

    start(faults, 130); /* back after `until` */
    assert_int_equal(CALL(nvmlDeviceGetName, dev(1), name, sizeof(name)), NVML_SUCCESS);
    stop();

    start(faults, 190); /* ECC burst on GPU 0 at 180 */
    unsigned long long e;
    assert_int_equal(CALL(nvmlDeviceGetTotalEccErrors, dev(0), NVML_MEMORY_ERROR_TYPE_CORRECTED,
                          NVML_VOLATILE_ECC, &e),
                     NVML_SUCCESS);
    assert_true(e == 12);
    unsigned c, u, p, f;
    assert_int_equal(CALL(nvmlDeviceGetRemappedRows, dev(0), &c, &u, &p, &f), NVML_SUCCESS);
    assert_true(u == 2 && p == 1 && f == 0);
    stop();

    start(faults, 215); /* GPU 2 forbidden 210-230 */
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 2, &d), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlDeviceGetName, gpu2, name, sizeof(name)), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_SUCCESS);
    assert_int_equal(n, 4);
    stop();

    setenv("GPUSIM_TIME", "250", 1);
    assert_int_equal(CALL(nvmlInit_v2), NVML_ERROR_DRIVER_NOT_LOADED);
    assert_int_equal(CALL(nvmlInitWithFlags, 0), NVML_ERROR_DRIVER_NOT_LOADED);
    setenv("GPUSIM_TIME", "320", 1);
    assert_int_equal(CALL(nvmlInit), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_ERROR_UNINITIALIZED);
    start(faults, 400); /* healthy again */
    stop();
}

static void test_fault_files(void **state)
{
    (void)state;
    unsigned n;
    nvmlDevice_t d;
    setenv("GPUSIM_SCENARIO", SCENARIO_DIR "/fault-driver-not-loaded.ini", 1);
    unsetenv("GPUSIM_TIME");
    assert_int_equal(CALL(nvmlInit_v2), NVML_ERROR_DRIVER_NOT_LOADED);
    setenv("GPUSIM_SCENARIO", SCENARIO_DIR "/fault-version-mismatch.ini", 1);
    assert_int_equal(CALL(nvmlInit_v2), NVML_ERROR_LIB_RM_VERSION_MISMATCH);
    start(SCENARIO_DIR "/fault-no-permission.ini", -1);
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 0, &d), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 1, &d), NVML_ERROR_NO_PERMISSION);
    stop();
}

/* A driver that goes away under a running session: every call returns the
 * fault's code until the window ends.  Each call is bracketed by the scenario
 * time read before and after it, and what it returned must match: success
 * before the window, the fault's code inside it, success after.  A call that
 * straddles an edge says nothing.  Calls go on until one was seen inside the
 * window and one after it; if a loaded machine let none land inside (the
 * window is 1.2 s), the session is tried again with the window 4 and 16 times
 * as long.  No duration is asserted. */
static void test_driver_goes_away(void **state)
{
    (void)state;
    static const double scales[] = {1, 4, 16};
    int inside = 0, after = 0;
    for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]) && !(inside && after); k++) {
        char path[256], epoch[64], text[256];
        const double at = 0.3 * scales[k], until = 1.5 * scales[k];
        unsigned n;
        snprintf(text, sizeof(text),
                 "[machine]\ngpus = 1\n[gpu]\nmodel = L40S\n"
                 "[fault.gone]\ntype = driver_not_loaded\nat = %g\nuntil = %g\n",
                 at, until);
        write_scenario("gone.ini", text, path, sizeof(path));
        setenv("GPUSIM_SCENARIO", path, 1);
        unsetenv("GPUSIM_TIME");
        const double t0 = gs_wall_now();
        snprintf(epoch, sizeof(epoch), "%.6f", t0);
        setenv("GPUSIM_EPOCH", epoch, 1);
        assert_int_equal(CALL(nvmlInit_v2), NVML_SUCCESS);
        inside = after = 0;
        while (!after) {
            double before = gs_wall_now() - t0;
            nvmlReturn_t r = CALL(nvmlDeviceGetCount_v2, &n);
            double end = gs_wall_now() - t0;
            if (end < at) {
                assert_int_equal(r, NVML_SUCCESS);
            } else if (before >= at && end < until) {
                assert_int_equal(r, NVML_ERROR_DRIVER_NOT_LOADED);
                inside = 1;
            } else if (before >= until) {
                assert_int_equal(r, NVML_SUCCESS);
                after = 1;
            }
            usleep(20000);
        }
        assert_int_equal(CALL(nvmlShutdown), NVML_SUCCESS);
        unsetenv("GPUSIM_EPOCH");
    }
    assert_true(inside && after);
}

struct hang_arg {
    nvmlDevice_t d;
    double seconds;
    nvmlReturn_t r;
    atomic_int done;
};

static void *hang_thread(void *p)
{
    struct hang_arg *a = p;
    unsigned mw;
    double t0 = mono();
    a->r = CALL(nvmlDeviceGetPowerUsage, a->d, &mw);
    a->seconds = mono() - t0;
    atomic_store(&a->done, 1);
    return NULL;
}

/* Other calls (and the same call on another GPU) proceed while one call
 * hangs: they return before the hung call does (the order of events; the
 * hang is 3 s, so that a slow machine still orders them right).  They are
 * made once GPUSIM_TRACE lists the hung call, which it does just before the
 * hang. */
static void test_hang_does_not_block_others(void **state)
{
    (void)state;
    char path[256];
    write_scenario("hang.ini",
                   "[machine]\ngpus = 2\n[gpu]\nmodel = H100-SXM5-80GB\n"
                   "[fault.h]\ntype = hang\ngpu = 0\ncall = nvmlDeviceGetPowerUsage\n"
                   "seconds = 3\n",
                   path, sizeof(path));
    char trace[256];
    snprintf(trace, sizeof(trace), "%s/hang-trace.txt", g_dir);
    unlink(trace);
    setenv("GPUSIM_TRACE", trace, 1);
    start(path, 10);
    unsetenv("GPUSIM_TRACE"); /* read at the start of the session */
    struct hang_arg a = {.d = dev(0)};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, hang_thread, &a), 0);
    double until = mono() + 60;
    for (;;) {
        char text[4096] = "";
        FILE *f = fopen(trace, "r");
        if (f) {
            text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
            fclose(f);
        }
        if (strstr(text, "nvmlDeviceGetPowerUsage@0\n"))
            break; /* into the hang */
        if (mono() > until)
            fail_msg("the hung call is not in GPUSIM_TRACE after 60 s: \"%s\"", text);
        usleep(1000);
    }
    unsigned v;
    assert_int_equal(CALL(nvmlDeviceGetTemperature, dev(0), NVML_TEMPERATURE_GPU, &v),
                     NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(1), &v), NVML_SUCCESS);
    assert_int_equal(atomic_load(&a.done), 0);
    pthread_join(th, NULL);
    assert_int_equal(a.r, NVML_SUCCESS);
    assert_true(a.seconds >= 2.99);
    stop();
}

/* ------------------------------------------------------- GPUSIM_FAIL */

/* One call of function k of the table below with valid arguments (the
 * common scenario's GPU 2, a V100 with ECC, processes on GPU 0). */
static nvmlReturn_t call_one(int k)
{
    char buf[96];
    unsigned u = 0;
    unsigned long long ull = 0;
    nvmlDevice_t d = NULL;
    nvmlPciInfo_t pci;
    nvmlFieldValue_t fv;
    nvmlProcessInfo_v2_t procs[8];
    nvmlEventSet_t set = NULL;
    nvmlValueType_t vt;
    nvmlReturn_t r;
    switch (k) {
    case 0:
        return CALL(nvmlSystemGetDriverVersion, buf, sizeof(buf));
    case 1:
        return CALL(nvmlDeviceGetCount_v2, &u);
    case 2:
        return CALL(nvmlDeviceGetHandleByIndex_v2, 2, &d);
    case 3:
        CALL(nvmlDeviceGetUUID, dev(2), buf, sizeof(buf));
        return CALL(nvmlDeviceGetHandleByUUID, buf, &d);
    case 4:
        return CALL(nvmlDeviceGetIndex, dev(2), &u);
    case 5:
        return CALL(nvmlDeviceGetName, dev(2), buf, sizeof(buf));
    case 6:
        return CALL(nvmlDeviceGetPciInfo_v3, dev(2), &pci);
    case 7:
        return CALL(nvmlDeviceGetTemperature, dev(2), NVML_TEMPERATURE_GPU, &u);
    case 8:
        return CALL(nvmlDeviceGetPowerUsage, dev(2), &u);
    case 9:
        return CALL(nvmlDeviceGetClockInfo, dev(2), NVML_CLOCK_SM, &u);
    case 10:
        return CALL(nvmlDeviceGetTotalEccErrors, dev(2), NVML_MEMORY_ERROR_TYPE_CORRECTED,
                    NVML_VOLATILE_ECC, &ull);
    case 11:
        memset(&fv, 0, sizeof(fv));
        fv.fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
        return CALL(nvmlDeviceGetFieldValues, dev(2), 1, &fv);
    case 12:
        u = 8;
        return CALL(nvmlDeviceGetComputeRunningProcesses_v3, dev(0), &u, procs);
    case 13:
        u = 0;
        return CALL(nvmlDeviceGetSamples, dev(0), NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &u, NULL);
    case 14:
        return CALL(nvmlDeviceGetMigMode, dev(2), &u, &u);
    case 15:
        r = CALL(nvmlEventSetCreate, &set);
        if (r == NVML_SUCCESS)
            CALL(nvmlEventSetFree, set);
        return r;
    case 16: {
        nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
        return CALL(nvmlGpmQueryDeviceSupport, dev(0), &sup);
    }
    case 17:
        return CALL(nvmlDeviceGetApplicationsClock, dev(0), NVML_CLOCK_SM, &u);
    }
    return NVML_ERROR_UNKNOWN;
}

static const char *const one_fn[] = {
    "nvmlSystemGetDriverVersion",
    "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex_v2",
    "nvmlDeviceGetHandleByUUID",
    "nvmlDeviceGetIndex",
    "nvmlDeviceGetName",
    "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetTemperature",
    "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetClockInfo",
    "nvmlDeviceGetTotalEccErrors",
    "nvmlDeviceGetFieldValues",
    "nvmlDeviceGetComputeRunningProcesses_v3",
    "nvmlDeviceGetSamples",
    "nvmlDeviceGetMigMode",
    "nvmlEventSetCreate",
    "nvmlGpmQueryDeviceSupport",
    "nvmlDeviceGetApplicationsClock",
};

/* A function of every api_*.c family honours a rule: its first call fails
 * with the rule's code (one nothing else returns here), the second answers
 * as without the rule. */
static void test_fail_every_family(void **state)
{
    (void)state;
    for (int k = 0; k < (int)(sizeof(one_fn) / sizeof(one_fn[0])); k++) {
        char rule[128];
        snprintf(rule, sizeof(rule), "%s:1:NVML_ERROR_IN_USE", one_fn[k]);
        setenv("GPUSIM_FAIL", rule, 1);
        start(g_base, 20);
        nvmlReturn_t first = call_one(k), second = call_one(k);
        stop();
        unsetenv("GPUSIM_FAIL");
        start(g_base, 20);
        nvmlReturn_t plain = call_one(k);
        stop();
        if (first != NVML_ERROR_IN_USE || second != plain || plain == NVML_ERROR_IN_USE)
            fail_msg("%s: first call %d (want %d), second %d (want %d as without the rule)",
                     one_fn[k], first, NVML_ERROR_IN_USE, second, plain);
    }
}

/* Counting: per rule, per GPU filter; calls refused earlier (a bad argument)
 * are not counted; MIG handles count for their parent GPU; a new session
 * counts from 1 again, a nested init does not. */
static void test_fail_counting(void **state)
{
    (void)state;
    unsigned mw;
    setenv("GPUSIM_FAIL", "nvmlDeviceGetPowerUsage@1:2+:UNKNOWN,nvmlDeviceGetName:2:NOT_FOUND", 1);
    start(g_base, 20);
    nvmlDevice_t g0 = dev(0), g1 = dev(1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g0, &mw), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_ERROR_UNKNOWN);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_ERROR_UNKNOWN);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g0, &mw), NVML_SUCCESS);
    char name[96];
    assert_int_equal(CALL(nvmlDeviceGetName, g1, name, 4), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(CALL(nvmlDeviceGetName, g0, name, sizeof(name)), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlDeviceGetName, g0, name, sizeof(name)), NVML_SUCCESS);
    /* a nested init keeps the session and its counts */
    assert_int_equal(CALL(nvmlInit_v2), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_ERROR_UNKNOWN);
    stop();
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_ERROR_UNKNOWN);
    stop();
    /* a new session counts from 1 */
    start(g_base, 20);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, g1, &mw), NVML_ERROR_UNKNOWN);
    stop();

    /* a MIG device's calls are its parent GPU's */
    setenv("GPUSIM_FAIL", "nvmlDeviceGetName@0:*:NO_PERMISSION", 1);
    start(SCENARIO_DIR "/a100-mig.ini", 60);
    nvmlDevice_t m;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, dev(0), 0, &m), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetName, m, name, sizeof(name)), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(CALL(nvmlDeviceGetName, dev(1), name, sizeof(name)), NVML_SUCCESS);
    stop();
    unsetenv("GPUSIM_FAIL");
}

static nvmlReturn_t init_v2(void)
{
    return CALL(nvmlInit_v2);
}

/* A bad GPUSIM_FAIL or GPUSIM_TRACE fails init with one line that says why;
 * GPUSIM_TRACE lists the calls GPUSIM_FAIL counts, with the code of those
 * it failed. */
static void test_fail_errors_and_trace(void **state)
{
    (void)state;
    char out[1024];
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    setenv("GPUSIM_SCENARIO", g_base, 1);
    setenv("GPUSIM_TIME", "20", 1);
    setenv("GPUSIM_FAIL", "nvmlDeviceGetPowerUsage@3:1:UNKNOWN", 1);
    assert_int_equal(with_stderr(init_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    assert_string_equal(out, "gpusim: GPUSIM_FAIL: no GPU 3 in rule "
                             "'nvmlDeviceGetPowerUsage@3:1:UNKNOWN' (the scenario has 3)\n");
    unsigned n;
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_ERROR_UNINITIALIZED);
    setenv("GPUSIM_FAIL", "nvmlDeviceGetPowerUsage:1:UNKNOWN,", 1);
    assert_int_equal(with_stderr(init_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    assert_string_equal(out, "gpusim: GPUSIM_FAIL: an empty rule in "
                             "'nvmlDeviceGetPowerUsage:1:UNKNOWN,' (rules are separated by one "
                             "comma)\n");

    char trace[256], bad[256];
    snprintf(trace, sizeof(trace), "%s/trace.txt", g_dir);
    snprintf(bad, sizeof(bad), "%s/no/such/dir/trace.txt", g_dir);
    unlink(trace);
    setenv("GPUSIM_FAIL", "nvmlDeviceGetPowerUsage@1:2:GPU_IS_LOST", 1);
    setenv("GPUSIM_TRACE", bad, 1);
    assert_int_equal(with_stderr(init_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    char expect[512];
    snprintf(expect, sizeof(expect),
             "gpusim: GPUSIM_TRACE: cannot open '%s': No such file or directory\n", bad);
    assert_string_equal(out, expect);

    setenv("GPUSIM_TRACE", trace, 1);
    assert_int_equal(with_stderr(init_v2, out, sizeof(out)), NVML_SUCCESS);
    assert_string_equal(out, "");
    unsigned mw;
    nvmlDevice_t d;
    assert_int_equal(CALL(nvmlDeviceGetCount_v2, &n), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, 1, &d), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, d, &mw), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, d, &mw), NVML_ERROR_GPU_IS_LOST);
    stop();
    unsetenv("GPUSIM_TRACE");
    unsetenv("GPUSIM_FAIL");
    unsetenv("GPUSIM_TIME");
    FILE *f = fopen(trace, "r");
    assert_non_null(f);
    size_t len = fread(out, 1, sizeof(out) - 1, f);
    out[len] = '\0';
    fclose(f);
    assert_string_equal(out, "nvmlDeviceGetCount_v2\n"
                             "nvmlDeviceGetHandleByIndex_v2@1\n"
                             "nvmlDeviceGetPowerUsage@1\n"
                             "nvmlDeviceGetPowerUsage@1 NVML_ERROR_GPU_IS_LOST\n");
}

/* ---------------------------------------------------------- GPUSIM_COUNT */

/* The calls GPUSIM_COUNT's file (path) holds for function fn; -1 when the
 * file has no record of that name. */
static long long counted(const char *path, const char *fn)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char rec[GS_COUNT_REC];
    long long found = -1;
    while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
        if (memchr(rec, 0, GS_COUNT_NAME) && strcmp((const char *)rec, fn) == 0) {
            uint64_t c;
            memcpy(&c, rec + GS_COUNT_NAME, sizeof(c));
            found = (long long)c;
        }
    }
    fclose(f);
    return found;
}

/* Every call is counted per function (refused ones too), readable while the
 * session runs; a new session on the same file goes on counting, another
 * file starts from 0; a planted symlink is refused, not followed. */
static void test_call_counts(void **state)
{
    (void)state;
    char path[256], other[256], link[256], out[1024];
    snprintf(path, sizeof(path), "%s/counts.bin", g_dir);
    snprintf(other, sizeof(other), "%s/counts2.bin", g_dir);
    snprintf(link, sizeof(link), "%s/counts-link.bin", g_dir);
    unlink(path);
    unlink(other);
    unlink(link);
    setenv("GPUSIM_COUNT", path, 1);
    start(g_base, 20);
    unsigned mw;
    char name[96];
    for (int i = 0; i < 3; i++)
        assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(0), &mw), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(1), NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetName, dev(1), name, sizeof(name)), NVML_SUCCESS);
    assert_int_equal(counted(path, "nvmlDeviceGetPowerUsage"), 4);
    assert_int_equal(counted(path, "nvmlDeviceGetName"), 1);
    assert_int_equal(counted(path, "nvmlDeviceGetFanSpeed"), 0);
    assert_int_equal(counted(path, "nvmlDeviceGetHandleByIndex_v2"), 5);
    stop();
    start(g_base, 20);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(0), &mw), NVML_SUCCESS);
    assert_int_equal(counted(path, "nvmlDeviceGetPowerUsage"), 5);
    stop();
    setenv("GPUSIM_COUNT", other, 1);
    start(g_base, 20);
    assert_int_equal(CALL(nvmlDeviceGetPowerUsage, dev(0), &mw), NVML_SUCCESS);
    assert_int_equal(counted(other, "nvmlDeviceGetPowerUsage"), 1);
    assert_int_equal(counted(path, "nvmlDeviceGetPowerUsage"), 5);
    stop();

    assert_int_equal(symlink(other, link), 0);
    setenv("GPUSIM_COUNT", link, 1);
    setenv("GPUSIM_SCENARIO", g_base, 1);
    assert_int_equal(with_stderr(init_v2, out, sizeof(out)), NVML_ERROR_UNKNOWN);
    char expect[600];
    snprintf(expect, sizeof(expect),
             "gpusim: GPUSIM_COUNT: cannot open '%s': Too many levels of symbolic links\n", link);
    assert_string_equal(out, expect);
    assert_int_equal(counted(other, "nvmlDeviceGetPowerUsage"), 1);
    unsetenv("GPUSIM_COUNT");
}

/* ---------------------------------------------------------------- events */

static void test_events(void **state)
{
    (void)state;
    char path[256], epoch[64];
    write_scenario("events.ini",
                   "[machine]\ngpus = 2\n[gpu]\nmodel = H100-SXM5-80GB\n"
                   "[fault.x]\ntype = xid\ngpu = 1\nxid = 79\nat = 0.5\n"
                   "[fault.e]\ntype = ecc\ngpu = 1\ncorrected = 3\nuncorrected = 1\nat = 0.6\n"
                   "[fault.other]\ntype = xid\ngpu = 0\nxid = 13\nat = 0.55\n"
                   "[fault.old]\ntype = xid\ngpu = 1\nxid = 31\nat = 0\n",
                   path, sizeof(path));
    setenv("GPUSIM_SCENARIO", path, 1);
    unsetenv("GPUSIM_TIME");
    double epoch_s = gs_wall_now();
    snprintf(epoch, sizeof(epoch), "%.6f", epoch_s);
    setenv("GPUSIM_EPOCH", epoch, 1);
    assert_int_equal(CALL(nvmlInit_v2), NVML_SUCCESS);

    nvmlDevice_t d1 = dev(1);
    nvmlEventSet_t set;
    unsigned long long types;
    assert_int_equal(CALL(nvmlEventSetCreate, &set), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetSupportedEventTypes, d1, &types), NVML_SUCCESS);
    assert_true(types & nvmlEventTypeXidCriticalError);
    assert_true(types & nvmlEventTypeDoubleBitEccError);
    assert_int_equal(CALL(nvmlDeviceRegisterEvents, d1, 0x80 /* power source */, set),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceRegisterEvents, d1,
                          nvmlEventTypeXidCriticalError | nvmlEventTypeSingleBitEccError |
                              nvmlEventTypeDoubleBitEccError,
                          set),
                     NVML_SUCCESS);

    nvmlEventData_t ev;
    double t0 = mono();
    /* The Xid at t=0 happened before the set existed and is not replayed;
     * GPU 0's Xid 13 is not registered. */
    assert_int_equal(CALL(nvmlEventSetWait_v2, set, &ev, 3000), NVML_SUCCESS);
    assert_ptr_equal(ev.device, d1);
    assert_true(ev.eventType == nvmlEventTypeXidCriticalError);
    assert_true(ev.eventData == 79);
    assert_int_equal(ev.gpuInstanceId, 0xFFFFFFFFu);
    /* not before its scenario time (0.5 s after the epoch), however late
     * this test got here on a busy machine; the 3 s timeout bounds it */
    assert_true(gs_wall_now() - epoch_s >= 0.5 - 0.002);
    assert_int_equal(CALL(nvmlEventSetWait_v2, set, &ev, 3000), NVML_SUCCESS);
    assert_true(ev.eventType == nvmlEventTypeSingleBitEccError);
    /* The legacy wait fills only the first 24 bytes. */
    unsigned char raw[sizeof(nvmlEventData_t)];
    memset(raw, 0xA5, sizeof(raw));
    assert_int_equal(CALL(nvmlEventSetWait, set, (nvmlEventData_t *)raw, 3000), NVML_SUCCESS);
    check_untouched(raw, 24, sizeof(raw));
    memcpy(&ev, raw, 24);
    assert_true(ev.eventType == nvmlEventTypeDoubleBitEccError);
    t0 = mono();
    assert_int_equal(CALL(nvmlEventSetWait_v2, set, &ev, 150), NVML_ERROR_TIMEOUT);
    assert_true(mono() - t0 >= 0.14);
    assert_int_equal(CALL(nvmlEventSetFree, set), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlEventSetWait_v2, set, &ev, 10), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlEventSetFree, set), NVML_ERROR_INVALID_ARGUMENT);
    stop();
    unsetenv("GPUSIM_EPOCH");
}

/* ------------------------------------------------------------------- MIG */

static void test_mig(void **state)
{
    (void)state;
    start(SCENARIO_DIR "/a100-mig.ini", 60);
    nvmlDevice_t g0 = dev(0), g1 = dev(1), m, parent;
    unsigned cur, pend, count, id, is_mig;
    char name[96];

    assert_int_equal(CALL(nvmlDeviceGetMigMode, g0, &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_DEVICE_MIG_ENABLE);
    assert_int_equal(CALL(nvmlDeviceGetMigMode, g1, &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_DEVICE_MIG_DISABLE);
    assert_int_equal(CALL(nvmlDeviceGetMaxMigDeviceCount, g0, &count), NVML_SUCCESS);
    assert_int_equal(count, 7);
    /* nvitop's loop: dense from 0, stops at the first error. */
    unsigned found = 0;
    for (unsigned i = 0; i < count; i++) {
        if (CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, i, &m) != NVML_SUCCESS)
            break;
        found++;
    }
    assert_int_equal(found, 4);
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, 4, &m), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g0, 0, &m), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceIsMigDeviceHandle, m, &is_mig), NVML_SUCCESS);
    assert_int_equal(is_mig, 1);
    assert_int_equal(CALL(nvmlDeviceIsMigDeviceHandle, g0, &is_mig), NVML_SUCCESS);
    assert_int_equal(is_mig, 0);
    assert_int_equal(CALL(nvmlDeviceGetName, m, name, sizeof(name)), NVML_SUCCESS);
    assert_string_equal(name, "NVIDIA A100-SXM4-80GB MIG 3g.40gb");
    assert_int_equal(CALL(nvmlDeviceGetUUID, m, name, sizeof(name)), NVML_SUCCESS);
    assert_memory_equal(name, "MIG-", 4);
    assert_int_equal(CALL(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, m, &parent), NVML_SUCCESS);
    assert_ptr_equal(parent, g0);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceId, m, &id), NVML_SUCCESS);
    assert_int_equal(id, 1);
    assert_int_equal(CALL(nvmlDeviceGetIndex, m, &id), NVML_SUCCESS);
    assert_int_equal(id, 0);

    nvmlMemory_v2_t mem = {.version = nvmlMemory_v2};
    assert_int_equal(CALL(nvmlDeviceGetMemoryInfo_v2, m, &mem), NVML_SUCCESS);
    assert_true(mem.total < 41ULL << 30 && mem.used >= 31ULL << 30);

    nvmlUtilization_t u;
    assert_int_equal(CALL(nvmlDeviceGetUtilizationRates, g0, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlDeviceGetUtilizationRates, g1, &u), NVML_SUCCESS);
    count = 8;
    nvmlProcessUtilizationSample_t pu[8];
    assert_int_equal(CALL(nvmlDeviceGetProcessUtilization, g0, pu, &count, 0),
                     NVML_ERROR_NOT_SUPPORTED);
    unsigned c, uu, p, f;
    assert_int_equal(CALL(nvmlDeviceGetRemappedRows, g0, &c, &uu, &p, &f),
                     NVML_ERROR_NOT_SUPPORTED);

    nvmlProcessInfo_t procs[8];
    count = 8;
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses_v3, g0, &count, procs),
                     NVML_SUCCESS);
    assert_int_equal(count, 3);
    assert_true(procs[0].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL);
    assert_int_equal(procs[0].gpuInstanceId, 1);
    assert_int_equal(procs[0].computeInstanceId, 0);
    count = 8; /* through a MIG handle: only its own processes */
    assert_int_equal(CALL(nvmlDeviceGetComputeRunningProcesses_v3, m, &count, procs), NVML_SUCCESS);
    assert_int_equal(count, 1);
    stop();
}

/* ------------------------------------------------------------------ GPM */

static void test_gpm_layout(void **state)
{
    (void)state;
    /* reference/nvml-abi.md 2.19, LP64 */
    assert_int_equal(sizeof(nvmlGpmMetric_t), 40);
    assert_int_equal(offsetof(nvmlGpmMetric_t, nvmlReturn), 4);
    assert_int_equal(offsetof(nvmlGpmMetric_t, value), 8);
    assert_int_equal(offsetof(nvmlGpmMetric_t, metricInfo), 16);
    assert_int_equal(offsetof(nvmlGpmMetricsGet_t, numMetrics), 4);
    assert_int_equal(offsetof(nvmlGpmMetricsGet_t, sample1), 8);
    assert_int_equal(offsetof(nvmlGpmMetricsGet_t, sample2), 16);
    assert_int_equal(offsetof(nvmlGpmMetricsGet_t, metrics), 24);
    assert_int_equal(sizeof(nvmlGpmMetricsGet_t), 3944);
    assert_int_equal(sizeof(nvmlGpmSupport_t), 8);
    assert_int_equal(NVML_GPM_METRICS_GET_VERSION, 1);
    assert_int_equal(NVML_GPM_SUPPORT_VERSION, 1);
}

/* Two samples at the call's scenario time, metrics ids[0..n-1] into mg. */
static nvmlReturn_t gpm_get(nvmlGpmSample_t a, nvmlGpmSample_t b, const unsigned *ids, unsigned n,
                            nvmlGpmMetricsGet_t *mg)
{
    memset(mg, 0, sizeof(*mg));
    mg->version = NVML_GPM_METRICS_GET_VERSION;
    mg->numMetrics = n;
    mg->sample1 = a;
    mg->sample2 = b;
    for (unsigned i = 0; i < n; i++)
        mg->metrics[i].metricId = ids[i];
    return CALL(nvmlGpmMetricsGet, mg);
}

static void test_gpm_support(void **state)
{
    (void)state;
    start(g_base, 100);
    nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
    assert_int_equal(CALL(nvmlGpmQueryDeviceSupport, dev(0), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 1); /* H100, cc 9.0 */
    assert_int_equal(CALL(nvmlGpmQueryDeviceSupport, dev(1), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 0); /* RTX 4090, cc 8.9 */
    assert_int_equal(CALL(nvmlGpmQueryDeviceSupport, dev(2), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 0); /* V100 */
    sup.version = 2;
    assert_int_equal(CALL(nvmlGpmQueryDeviceSupport, dev(0), &sup),
                     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);

    nvmlGpmSample_t a = NULL, b = NULL;
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(1), a), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(2), a), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), NULL), NVML_ERROR_INVALID_ARGUMENT);
    unsigned st = 9;
    assert_int_equal(CALL(nvmlGpmQueryIfStreamingEnabled, dev(1), &st), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGpmSetStreamingEnabled, dev(0), 1), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmQueryIfStreamingEnabled, dev(0), &st), NVML_SUCCESS);
    assert_int_equal(st, 1);
    assert_int_equal(CALL(nvmlGpmSetStreamingEnabled, dev(0), 0), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSetStreamingEnabled, dev(0), 2), NVML_ERROR_INVALID_ARGUMENT);

    /* Samples never taken are not a window. */
    nvmlGpmMetricsGet_t mg;
    const unsigned sm = 2;
    assert_int_equal(gpm_get(a, b, &sm, 1, &mg), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlGpmSampleFree, a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleFree, b), NVML_SUCCESS);
    stop();
}

static void test_gpm_two_samples(void **state)
{
    (void)state;
    char path[256];
    /* A 5 s window of scenario time: the samples are taken in sessions
     * pinned 5 s apart (a sample outlives nvmlShutdown), not 50 ms of wall
     * clock apart at 100x, which a loaded machine stretches. */
    write_scenario("gpm.ini",
                   "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\nutil = 95\n"
                   "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = idle\n",
                   path, sizeof(path));
    start(path, 1000);

    nvmlGpmSample_t a, b, c;
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &c), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), a), NVML_SUCCESS);
    start(path, 1005);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(1), c), NVML_SUCCESS);

    static const unsigned ids[] = {1,  2,  3,  5,  7,  6,  10, 11, 12, 13,  20,
                                   21, 60, 61, 62, 97, 14, 30, 36, 37, 166, 999};
    const unsigned n = sizeof(ids) / sizeof(ids[0]);
    nvmlGpmMetricsGet_t mg;
    /* A poisoned slot after the last requested metric stays untouched. */
    assert_int_equal(gpm_get(a, b, ids, n, &mg), NVML_SUCCESS);
    memset(&mg.metrics[n], 0xA5, sizeof(mg.metrics[n]));
    mg.metrics[n].metricId = 2;
    assert_int_equal(CALL(nvmlGpmMetricsGet, &mg), NVML_SUCCESS);
    const unsigned char *tail = (const unsigned char *)&mg.metrics[n];
    for (size_t i = sizeof(unsigned); i < sizeof(nvmlGpmMetric_t); i++)
        assert_int_equal(tail[i], 0xA5);

    for (unsigned i = 0; i < n; i++) {
        const nvmlGpmMetric_t *m = &mg.metrics[i];
        bool want = i < 16 || ids[i] == 30 || ids[i] == 36;
        if (!want) { /* 14, NVDEC 7 and NVENC on an H100, unknown ids */
            assert_int_equal(m->nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
            assert_null(m->metricInfo.shortName);
            continue;
        }
        assert_int_equal(m->nvmlReturn, NVML_SUCCESS);
        assert_non_null(m->metricInfo.shortName);
        assert_non_null(m->metricInfo.unit);
    }
    assert_string_equal(mg.metrics[1].metricInfo.shortName, "sm_util");
    assert_string_equal(mg.metrics[1].metricInfo.unit, "%");
    assert_string_equal(mg.metrics[10].metricInfo.unit, "MiB/s");
    /* Training defaults on a busy GPU (utilisation 95 %, busy every period):
     * SM 0.80, occupancy 0.45, tensor 0.55 (HMMA), DRAM 0.40, FP64 0,
     * FP32 0.15, FP16 0.30, each +-2 %. */
    assert_true(mg.metrics[0].value > 90 && mg.metrics[0].value <= 100);
    assert_true(mg.metrics[1].value > 78.4 && mg.metrics[1].value < 81.6);
    assert_true(mg.metrics[2].value > 44.1 && mg.metrics[2].value < 45.9);
    assert_true(mg.metrics[3].value > 53.9 && mg.metrics[3].value < 56.1);
    assert_true(fabs(mg.metrics[4].value - mg.metrics[3].value) < 1e-9); /* HMMA = tensor */
    assert_true(mg.metrics[5].value == 0.0);                             /* DFMA */
    assert_true(mg.metrics[6].value > 39.2 && mg.metrics[6].value < 40.8);
    assert_true(mg.metrics[7].value == 0.0);
    assert_true(mg.metrics[8].value > 14.7 && mg.metrics[8].value < 15.3);
    assert_true(mg.metrics[9].value > 29.4 && mg.metrics[9].value < 30.6);
    assert_true(mg.metrics[11].value > 10); /* PCIe RX, MiB/s */
    /* NVLink: 18 links share the total. */
    assert_true(mg.metrics[12].value > 30000);
    assert_true(fabs(mg.metrics[14].value * 18 - mg.metrics[12].value) < 1e-6);

    /* sample2 before sample1, samples of different GPUs, a bad version,
     * too many metrics: refused. */
    assert_int_equal(gpm_get(b, a, ids, 2, &mg), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gpm_get(a, c, ids, 2, &mg), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gpm_get(a, b, ids, 2, &mg), NVML_SUCCESS);
    mg.version = 2;
    assert_int_equal(CALL(nvmlGpmMetricsGet, &mg), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    mg.version = 1;
    mg.numMetrics = 334;
    assert_int_equal(CALL(nvmlGpmMetricsGet, &mg), NVML_ERROR_INVALID_ARGUMENT);

    /* The idle GPU: everything measured, nothing active. */
    nvmlGpmSample_t d;
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &d), NVML_SUCCESS);
    start(path, 1007);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(1), d), NVML_SUCCESS);
    assert_int_equal(gpm_get(c, d, ids, 16, &mg), NVML_SUCCESS);
    for (unsigned i = 0; i < 10; i++) {
        assert_int_equal(mg.metrics[i].nvmlReturn, NVML_SUCCESS);
        assert_true(mg.metrics[i].value == 0.0);
    }
    assert_true(mg.metrics[12].value == 0.0); /* NVLink idle */

    CALL(nvmlGpmSampleFree, a);
    CALL(nvmlGpmSampleFree, b);
    CALL(nvmlGpmSampleFree, c);
    CALL(nvmlGpmSampleFree, d);
    stop();
}

/* SM activity of GPU gpu over the sample period at pinned scenario time t. */
static double gpm_sm_at(const char *path, unsigned gpu, double t)
{
    start(path, t);
    nvmlGpmSample_t a, b;
    nvmlGpmMetricsGet_t mg;
    const unsigned sm = 2;
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(gpu), a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(gpu), b), NVML_SUCCESS);
    assert_int_equal(gpm_get(a, b, &sm, 1, &mg), NVML_SUCCESS);
    assert_int_equal(mg.metrics[0].nvmlReturn, NVML_SUCCESS);
    CALL(nvmlGpmSampleFree, a);
    CALL(nvmlGpmSampleFree, b);
    stop();
    return mg.metrics[0].value;
}

static void test_gpm_heartbeat(void **state)
{
    (void)state;
    static const char text[] = "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\n"
                               "heartbeat_period = 2\nheartbeat_duty = 0.25\n";
    char path[256], err[256];
    write_scenario("gpm-hb.ini", text, path, sizeof(path));
    struct gs_scenario *s = NULL;
    assert_int_equal(gs_scenario_load(path, &s, err, sizeof(err)), 0);
    /* Find a period inside a burst and one between bursts from the model. */
    double t_in = -1, t_out = -1;
    for (int k = 60; k < 600 && (t_in < 0 || t_out < 0); k++) {
        struct gs_state st;
        double t = (k + 0.5) / GS_SAMPLE_HZ;
        gs_model_eval(s, 0, t, &st);
        if (st.busy >= 1 && t_in < 0)
            t_in = t;
        if (st.busy <= 0 && t_out < 0)
            t_out = t;
    }
    gs_scenario_free(s);
    assert_true(t_in > 0 && t_out > 0);
    double in = gpm_sm_at(path, 0, t_in), out = gpm_sm_at(path, 0, t_out);
    assert_true(in > 78.4 && in < 81.6); /* 0.80 inside a burst */
    assert_true(out < 1);
}

static void test_gpm_mig(void **state)
{
    (void)state;
    char path[256];
    write_scenario("gpm-mig.ini",
                   "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                   "mig = 3g.40gb, 2g.20gb\n"
                   "[process.a]\ngpu = 0\nmig = 0\npid = 4242\nused_memory = 1GiB\n",
                   path, sizeof(path));
    start(path, 50);
    nvmlDevice_t g = dev(0), m0, m1;
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g, 0, &m0), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetMigDeviceHandleByIndex, g, 1, &m1), NVML_SUCCESS);
    unsigned gi0, gi1;
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceId, m0, &gi0), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlDeviceGetGpuInstanceId, m1, &gi1), NVML_SUCCESS);

    nvmlGpmSample_t a, b, w;
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &w), NVML_SUCCESS);
    static const unsigned ids[] = {2, 21, 60};
    nvmlGpmMetricsGet_t mg;

    /* GPU instance with the process: the workload's activity. */
    assert_int_equal(CALL(nvmlGpmMigSampleGet, g, gi0, a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmMigSampleGet, g, gi0, b), NVML_SUCCESS);
    assert_int_equal(gpm_get(a, b, ids, 3, &mg), NVML_SUCCESS);
    assert_int_equal(mg.metrics[0].nvmlReturn, NVML_SUCCESS);
    assert_true(mg.metrics[0].value > 70);
    /* Device-wide link counters are not per instance. */
    assert_int_equal(mg.metrics[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(mg.metrics[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    /* The same through the MIG device handle. */
    assert_int_equal(CALL(nvmlGpmSampleGet, m0, b), NVML_SUCCESS);
    double sm0 = mg.metrics[0].value;
    assert_int_equal(gpm_get(a, b, ids, 1, &mg), NVML_SUCCESS);
    assert_true(fabs(mg.metrics[0].value - sm0) < 1e-9);
    /* The empty instance is idle. */
    assert_int_equal(CALL(nvmlGpmMigSampleGet, g, gi1, a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, m1, b), NVML_SUCCESS);
    assert_int_equal(gpm_get(a, b, ids, 1, &mg), NVML_SUCCESS);
    assert_true(mg.metrics[0].value == 0.0);
    /* Whole-GPU sample against an instance sample: not one window. */
    assert_int_equal(CALL(nvmlGpmSampleGet, g, w), NVML_SUCCESS);
    assert_int_equal(gpm_get(w, b, ids, 1, &mg), NVML_ERROR_INVALID_ARGUMENT);
    /* No such GPU instance; MIG handles are not parents. */
    assert_int_equal(CALL(nvmlGpmMigSampleGet, g, 12, a), NVML_ERROR_NOT_FOUND);
    assert_int_equal(CALL(nvmlGpmMigSampleGet, m0, gi0, a), NVML_ERROR_NOT_SUPPORTED);
    CALL(nvmlGpmSampleFree, a);
    CALL(nvmlGpmSampleFree, b);
    CALL(nvmlGpmSampleFree, w);
    stop();
}

static void test_gpm_unsupported_key(void **state)
{
    (void)state;
    char path[256];
    write_scenario("gpm-unsup.ini",
                   "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                   "unsupported = nvmlGpmMigSampleGet, nvmlGpmQueryDeviceSupport\n"
                   "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                   "unsupported = nvmlGpmMetricsGet\n",
                   path, sizeof(path));
    start(path, 5);
    nvmlGpmSample_t a, b;
    nvmlGpmMetricsGet_t mg;
    const unsigned sm = 2;
    nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmMigSampleGet, dev(0), 1, a), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGpmQueryDeviceSupport, dev(0), &sup), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(1), a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(1), b), NVML_SUCCESS);
    assert_int_equal(gpm_get(a, b, &sm, 1, &mg), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), b), NVML_SUCCESS);
    assert_int_equal(gpm_get(a, b, &sm, 1, &mg), NVML_SUCCESS);
    CALL(nvmlGpmSampleFree, a);
    CALL(nvmlGpmSampleFree, b);
    stop();
}

static void test_gpm_gpu_lost(void **state)
{
    (void)state;
    char path[256];
    write_scenario("gpm-lost.ini",
                   "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                   "[fault.lost]\ntype = gpu_lost\ngpu = 0\nat = 10\n",
                   path, sizeof(path));
    nvmlGpmSample_t a, b;
    nvmlGpmMetricsGet_t mg;
    const unsigned sm = 2;
    start(path, 5);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleAlloc, &b), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), a), NVML_SUCCESS);
    assert_int_equal(CALL(nvmlGpmSampleGet, dev(0), b), NVML_SUCCESS);
    stop();
    start(path, 20); /* samples taken before the GPU was lost */
    assert_int_equal(gpm_get(a, b, &sm, 1, &mg), NVML_ERROR_GPU_IS_LOST);
    CALL(nvmlGpmSampleFree, a);
    CALL(nvmlGpmSampleFree, b);
    stop();
}

/* ------------------------------------------------- application clocks */

static void test_app_clocks_api(void **state)
{
    (void)state;
    char path[256];
    write_scenario("appclk.ini",
                   "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\napp_clock_graphics = 1410\n"
                   "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                   "[fault.slow]\ntype = hw_slowdown\ngpu = 1\nat = 10\nuntil = 20\n"
                   "power_brake = on\n",
                   path, sizeof(path));
    start(path, 15);
    unsigned mhz = 0;
    unsigned long long reasons = 0;
    assert_int_equal(CALL(nvmlDeviceGetApplicationsClock, dev(0), NVML_CLOCK_GRAPHICS, &mhz),
                     NVML_SUCCESS);
    assert_int_equal(mhz, 1410);
    assert_int_equal(CALL(nvmlDeviceGetApplicationsClock, dev(0), NVML_CLOCK_SM, &mhz),
                     NVML_SUCCESS);
    assert_int_equal(mhz, 1410);
    assert_int_equal(CALL(nvmlDeviceGetDefaultApplicationsClock, dev(0), NVML_CLOCK_GRAPHICS, &mhz),
                     NVML_SUCCESS);
    assert_int_equal(mhz, 1980);
    assert_int_equal(CALL(nvmlDeviceGetClock, dev(0), NVML_CLOCK_SM, GS_CLOCK_ID_CURRENT, &mhz),
                     NVML_SUCCESS);
    assert_int_equal(mhz, 1410);
    assert_int_equal(
        CALL(nvmlDeviceGetClock, dev(0), NVML_CLOCK_SM, GS_CLOCK_ID_APP_CLOCK_TARGET, &mhz),
        NVML_SUCCESS);
    assert_int_equal(mhz, 1410);
    assert_int_equal(
        CALL(nvmlDeviceGetClock, dev(0), NVML_CLOCK_SM, GS_CLOCK_ID_APP_CLOCK_DEFAULT, &mhz),
        NVML_SUCCESS);
    assert_int_equal(mhz, 1980);
    assert_int_equal(CALL(nvmlDeviceGetClock, dev(0), NVML_CLOCK_SM, 4, &mhz),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetApplicationsClock, dev(0), NVML_CLOCK_COUNT, &mhz),
                     NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(CALL(nvmlDeviceGetCurrentClocksEventReasons, dev(0), &reasons), NVML_SUCCESS);
    assert_true(reasons & nvmlClocksEventReasonApplicationsClocksSetting);
    /* GPU 1 in its hw_slowdown window, with power brake. */
    assert_int_equal(CALL(nvmlDeviceGetCurrentClocksEventReasons, dev(1), &reasons), NVML_SUCCESS);
    assert_true((reasons & 0x88) == 0x88);
    assert_false(reasons & nvmlClocksEventReasonApplicationsClocksSetting);
    assert_int_equal(CALL(nvmlDeviceGetClockInfo, dev(1), NVML_CLOCK_SM, &mhz), NVML_SUCCESS);
    assert_true(mhz < 700);
    /* Time in HW power brake slowdown so far: 5 s of the 10 s window. */
    nvmlFieldValue_t fv[1];
    memset(fv, 0, sizeof(fv));
    fv[0].fieldId = 271;
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(1), 1, fv), NVML_SUCCESS);
    assert_int_equal(fv[0].nvmlReturn, NVML_SUCCESS);
    assert_true(fv[0].value.ullVal == 5000000000ULL);
    assert_int_equal(CALL(nvmlDeviceGetFieldValues, dev(0), 1, fv), NVML_SUCCESS);
    assert_true(fv[0].value.ullVal == 0);
    stop();
}

/* Every sample type follows the model: one entry per 1/6 s period since
 * lastSeenTimeStamp, at most 120 (20 s), for the new workloads and knobs. */
static unsigned samples_of(nvmlDevice_t d, nvmlSamplingType_t type, unsigned long long last,
                           nvmlSample_t *out, unsigned *vmin, unsigned *vmax)
{
    nvmlValueType_t vt;
    unsigned n = 0;
    assert_int_equal(CALL(nvmlDeviceGetSamples, d, type, last, &vt, &n, NULL), NVML_SUCCESS);
    assert_int_equal(vt, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_true(n <= 120);
    unsigned got = n;
    assert_int_equal(CALL(nvmlDeviceGetSamples, d, type, last, &vt, &got, out), NVML_SUCCESS);
    assert_int_equal(got, n);
    *vmin = ~0u;
    *vmax = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i > 0) {
            long long step = (long long)(out[i].timeStamp - out[i - 1].timeStamp);
            assert_true(step >= 166666 && step <= 166668);
        }
        assert_true(out[i].timeStamp > last);
        *vmin = out[i].sampleValue.uiVal < *vmin ? out[i].sampleValue.uiVal : *vmin;
        *vmax = out[i].sampleValue.uiVal > *vmax ? out[i].sampleValue.uiVal : *vmax;
    }
    return n;
}

static void test_samples_every_type(void **state)
{
    (void)state;
    char path[256];
    write_scenario("samples.ini",
                   "[gpu.0]\nmodel = L40S\nworkload = encode\n"
                   "[gpu.1]\nmodel = L40S\nworkload = decode\n"
                   "[gpu.2]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\nheartbeat_floor = 20\n"
                   "[gpu.3]\nmodel = H100-SXM5-80GB\nworkload = membound\n"
                   "app_clock_graphics = 1410\n"
                   "[fault.slow]\ntype = hw_slowdown\ngpu = 3\nat = 95\nuntil = 200\n",
                   path, sizeof(path));
    start(path, 100);
    nvmlSample_t sm[120];
    unsigned lo, hi;

    assert_int_equal(samples_of(dev(0), NVML_ENC_UTILIZATION_SAMPLES, 0, sm, &lo, &hi), 120);
    assert_true(lo >= 93 && hi <= 97);
    assert_int_equal(samples_of(dev(0), NVML_GPU_UTILIZATION_SAMPLES, 0, sm, &lo, &hi), 120);
    assert_true(lo >= 10 && hi <= 14);
    samples_of(dev(1), NVML_DEC_UTILIZATION_SAMPLES, 0, sm, &lo, &hi);
    assert_true(lo >= 93 && hi <= 97);
    samples_of(dev(0), NVML_DEC_UTILIZATION_SAMPLES, 0, sm, &lo, &hi);
    assert_true(hi == 0);

    /* The heartbeat's idle phase reads the floor, never 0. */
    samples_of(dev(2), NVML_GPU_UTILIZATION_SAMPLES, 0, sm, &lo, &hi);
    assert_true(lo >= 18 && lo <= 22 && hi >= 94);

    /* membound: memory controller ~88 %; application clocks until the
     * hw_slowdown at 95 s pulls them to 35 %. */
    samples_of(dev(3), NVML_MEMORY_UTILIZATION_SAMPLES, 0, sm, &lo, &hi);
    assert_true(lo >= 85 && hi <= 91);
    unsigned n = samples_of(dev(3), NVML_PROCESSOR_CLK_SAMPLES, 0, sm, &lo, &hi);
    assert_int_equal(n, 120);
    assert_int_equal(hi, 1410);
    assert_true(lo < 500);
    assert_int_equal(sm[0].sampleValue.uiVal, 1410); /* t = 80.2 s */
    assert_true(sm[n - 1].sampleValue.uiVal < 500);  /* t = 100 s */
    samples_of(dev(3), NVML_MEMORY_CLK_SAMPLES, 0, sm, &lo, &hi);
    assert_true(lo == 2619 && hi == 2619);
    n = samples_of(dev(3), NVML_TOTAL_POWER_SAMPLES, 0, sm, &lo, &hi);
    assert_true(sm[n - 1].sampleValue.uiVal < sm[0].sampleValue.uiVal / 2);

    /* One entry per period since lastSeenTimeStamp. */
    samples_of(dev(0), NVML_ENC_UTILIZATION_SAMPLES, 0, sm, &lo, &hi);
    unsigned long long last = sm[99].timeStamp;
    assert_int_equal(samples_of(dev(0), NVML_ENC_UTILIZATION_SAMPLES, last, sm, &lo, &hi), 20);
    stop();
}

/* -------------------------------------------------------------- symbols */

static void test_exported_symbols(void **state)
{
    (void)state;
    for (size_t i = 0; i < gs_name_count; i++)
        if (gs_names[i].kind == GS_NAME_FUNCTION && !dlsym(g_lib, gs_names[i].name))
            fail_msg("%s is not exported", gs_names[i].name);
    /* Internals stay hidden; families the simulator does not model are
     * absent.  ConfComputeMemSizeInfo is exported only beside the detail
     * list: that pair tells nvitop the _v3 entries are 24 bytes (with
     * MemSizeInfo alone it would read 32-byte entries). */
    assert_null(dlsym(g_lib, "gs_begin"));
    assert_null(dlsym(g_lib, "gs_scenario_load"));
    assert_non_null(dlsym(g_lib, "nvmlDeviceGetRunningProcessDetailList"));
    assert_non_null(dlsym(g_lib, "nvmlDeviceGetConfComputeMemSizeInfo"));
    assert_null(dlsym(g_lib, "nvmlGpmSampleGetTimestamp"));
    assert_null(dlsym(g_lib, "nvmlDeviceCreateGpuInstance")); /* MIG layout: the scenario's */
    assert_non_null(dlsym(g_lib, "nvmlDeviceSetPowerManagementLimit")); /* sim/api_set.c */
}

static void test_legacy_variant(void **state)
{
    (void)state;
    static const char *const absent[] = {
        "nvmlDeviceGetMemoryInfo_v2",
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
        "nvmlDeviceGetTemperatureV",
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetSupportedClocksEventReasons",
        "nvmlGpmSampleGet",
        "nvmlGpmMetricsGet",
    };
    static const char *const present[] = {
        "nvmlDeviceGetMemoryInfo",
        "nvmlDeviceGetComputeRunningProcesses",
        "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetGraphicsRunningProcesses_v2",
        "nvmlDeviceGetTemperature",
        "nvmlDeviceGetCurrentClocksThrottleReasons",
        "nvmlDeviceGetSupportedClocksThrottleReasons",
        "nvmlInit_v2",
        "nvmlEventSetWait",
    };
    void *h = dlopen(SIM_LEGACY_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
        if (dlsym(h, absent[i]))
            fail_msg("legacy variant exports %s", absent[i]);
    for (size_t i = 0; i < sizeof(present) / sizeof(present[0]); i++)
        if (!dlsym(h, present[i]))
            fail_msg("legacy variant lacks %s", present[i]);

    __typeof__(nvmlInit_v2) *init = (__typeof__(nvmlInit_v2) *)dlsym(h, "nvmlInit_v2");
    __typeof__(nvmlShutdown) *shut = (__typeof__(nvmlShutdown) *)dlsym(h, "nvmlShutdown");
    __typeof__(nvmlSystemGetDriverVersion) *drv =
        (__typeof__(nvmlSystemGetDriverVersion) *)dlsym(h, "nvmlSystemGetDriverVersion");
    char path[256], ver[80];
    write_scenario("legacy.ini", "[gpu.0]\nmodel = A100-SXM4-80GB\n", path, sizeof(path));
    setenv("GPUSIM_SCENARIO", path, 1);
    setenv("GPUSIM_TIME", "1", 1);
    assert_int_equal(init(), NVML_SUCCESS);
    assert_int_equal(drv(ver, sizeof(ver)), NVML_SUCCESS);
    assert_string_equal(ver, "450.80.02");
    assert_int_equal(shut(), NVML_SUCCESS);
    dlclose(h);
}

/* -------------------------------------------------------------- threads */

static void *hammer(void *p)
{
    long bad = 0;
    (void)p;
    for (int i = 0; i < 2000; i++) {
        nvmlDevice_t d;
        unsigned v;
        nvmlMemory_t m;
        unsigned count = 8;
        nvmlProcessInfo_t procs[8];
        double e;
        if (CALL(nvmlDeviceGetHandleByIndex_v2, (unsigned)i % 3, &d) != NVML_SUCCESS)
            bad++;
        bad += CALL(nvmlDeviceGetTemperature, d, NVML_TEMPERATURE_GPU, &v) != NVML_SUCCESS;
        bad += CALL(nvmlDeviceGetMemoryInfo, d, &m) != NVML_SUCCESS;
        bad += CALL(nvmlDeviceGetComputeRunningProcesses_v3, d, &count, procs) != NVML_SUCCESS;
        unsigned long long energy;
        bad += CALL(nvmlDeviceGetTotalEnergyConsumption, d, &energy) != NVML_SUCCESS;
        e = (double)energy;
        (void)e;
    }
    return (void *)bad;
}

static void test_threads(void **state)
{
    (void)state;
    start(g_base, -1);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        assert_null(bad);
    }
    stop();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_init_failures),
        cmocka_unit_test(test_refcount),
        cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_process_sizing),
        cmocka_unit_test(test_process_stride),
        cmocka_unit_test(test_process_names),
        cmocka_unit_test(test_proc_view),
        cmocka_unit_test(test_host_view),
        cmocka_unit_test(test_memory_info),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_pci),
        cmocka_unit_test(test_samples_sizing),
        cmocka_unit_test(test_process_utilization_sizing),
        cmocka_unit_test(test_invalid_handles),
        cmocka_unit_test(test_sensors),
        cmocka_unit_test(test_field_values),
        cmocka_unit_test(test_ecc_and_pages),
        cmocka_unit_test(test_fault_windows),
        cmocka_unit_test(test_fault_files),
        cmocka_unit_test(test_driver_goes_away),
        cmocka_unit_test(test_hang_does_not_block_others),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_mig),
        cmocka_unit_test(test_exported_symbols),
        cmocka_unit_test(test_legacy_variant),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_fail_every_family),
        cmocka_unit_test(test_fail_counting),
        cmocka_unit_test(test_fail_errors_and_trace),
        cmocka_unit_test(test_call_counts),
        cmocka_unit_test(test_field_power_instant),
        cmocka_unit_test(test_field_power_scopes),
        cmocka_unit_test(test_ecc_locations),
        cmocka_unit_test(test_accounting),
        cmocka_unit_test(test_gpm_layout),
        cmocka_unit_test(test_gpm_support),
        cmocka_unit_test(test_gpm_two_samples),
        cmocka_unit_test(test_gpm_heartbeat),
        cmocka_unit_test(test_gpm_mig),
        cmocka_unit_test(test_gpm_unsupported_key),
        cmocka_unit_test(test_app_clocks_api),
        cmocka_unit_test(test_gpm_gpu_lost),
        cmocka_unit_test(test_samples_every_type),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

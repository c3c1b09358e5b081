/* bench_snapshot.c -- how long one whole snapshot takes: gm_collector_sample()
 * on the NVML simulator, every default read group, processes listed and
 * enriched from /proc.
 *
 * Opens one collector, takes a few warm-up samples (the first reads the
 * static facts and each process's rarely changing /proc files), then times N
 * samples one by one with CLOCK_MONOTONIC (wall) and CLOCK_THREAD_CPUTIME_ID
 * (CPU of this thread: gpumon, the simulator, libc and the kernel's share of
 * the syscalls).  Prints median, p90, p99 and min of each as "key value"
 * lines that scripts/bench.sh reads.  With --pair a second collector, which
 * skips /proc, samples right after each timed sample, so the two costs are
 * measured under the same machine conditions (np_* keys).
 *
 * The CPU time includes the simulator, a stand-in for the driver; gpumon's
 * own share is separated with callgrind (docs/BENCHMARKS.md).  Under
 * callgrind the program marks its phases with client requests: the counters
 * are zeroed before the first sample and dumped after it ("first"), zeroed
 * again after the warm-up and dumped after the N timed samples ("steady"),
 * so each dump holds exactly those samples.  Outside valgrind the requests
 * are a few no-op instructions.
 *
 * With --no-timing the loop only samples: callgrind and strace then see
 * gpumon and the simulator alone, not the benchmark's clock reads (the
 * thread CPU clock is a system call, not a vDSO read).
 *
 * Samples run on the calling thread (no watchdog timeout) unless --timeout
 * is given: the CLI's path, where a worker thread samples and this thread
 * waits; the CPU column is then the whole process's (CLOCK_PROCESS_CPUTIME_ID).
 *
 * Leaves out: output rendering (see the whole-process benchmarks in
 * scripts/bench.sh) and anything the agent does after the sample.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(what)
#endif

#include "agent/collector.h"
#include "core/snapshot.h"
#include "core/timeutil.h"
#include "source/nvml.h"

#ifndef BENCH_SIM_LIB
#define BENCH_SIM_LIB "libnvidia-ml.so.1"
#endif
#ifndef BENCH_SCENARIO
#define BENCH_SCENARIO "scenarios/h100x8-training.ini"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_snapshot [OPTIONS]\n\n"
            "Times gm_collector_sample() on the NVML simulator.\n\n"
            "  -n, --samples N      timed samples (default 2000)\n"
            "  -w, --warmup N       untimed samples before them (default 20)\n"
            "      --lib PATH       NVML library (default: $GPUMON_NVML_LIB, else the built sim)\n"
            "      --no-procfs      list processes but do not read /proc\n"
            "      --no-procs       do not list processes at all\n"
            "      --pcie           also read PCIe throughput (not in the default groups)\n"
            "      --timeout MS     sample through the watchdog thread, as the CLI does\n"
            "      --no-timing      no clock reads around each sample (for callgrind, strace)\n"
            "      --pair           alternate with a second collector that skips /proc and\n"
            "                       report it as np_* (same moment, same machine state)\n"
            "      --expect-gpus N  fail unless the snapshot has N GPUs\n"
            "      --expect-alive N fail unless N processes are alive in /proc\n"
            "  -h, --help           this help\n\n"
            "Scenario: $GPUSIM_SCENARIO, else %s.\n",
            BENCH_SCENARIO);
}

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static int64_t pct(const int64_t *v, size_t n, double p)
{
    size_t k = (size_t)(p / 100.0 * (double)n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

static void report(const char *what, int64_t *v, size_t n)
{
    double sum = 0;
    qsort(v, n, sizeof(*v), cmp_i64);
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    printf("%s_median_us %.2f\n", what, pct(v, n, 50) / 1e3);
    printf("%s_p90_us %.2f\n", what, pct(v, n, 90) / 1e3);
    printf("%s_p99_us %.2f\n", what, pct(v, n, 99) / 1e3);
    printf("%s_min_us %.2f\n", what, v[0] / 1e3);
    printf("%s_mean_us %.2f\n", what, sum / (double)n / 1e3);
}

static long parse_count(const char *s, const char *flag)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0 || v > 100000000) {
        fprintf(stderr, "bench_snapshot: %s: '%s' is not a count\n", flag, s);
        exit(2);
    }
    return v;
}

static int sample(struct gm_collector *c, struct gm_snapshot *s, int64_t timeout_ns)
{
    struct gm_err err = {0};
    int rc = gm_collector_sample(c, s, timeout_ns, &err);
    if (rc != 0) {
        fprintf(stderr, "bench_snapshot: sample failed: %s\n", err.msg);
        return -1;
    }
    if (s->driver != GM_DRV_OK) {
        fprintf(stderr, "bench_snapshot: driver state %s: %s\n",
                gm_driver_state_name((enum gm_driver_state)s->driver), s->driver_msg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    enum {
        O_LIB = 256,
        O_NOPROCFS,
        O_NOPROCS,
        O_PCIE,
        O_TIMEOUT,
        O_NOTIMING,
        O_PAIR,
        O_EGPUS,
        O_EALIVE
    };
    static const struct option opts[] = {
        {"samples", required_argument, NULL, 'n'},
        {"warmup", required_argument, NULL, 'w'},
        {"lib", required_argument, NULL, O_LIB},
        {"no-procfs", no_argument, NULL, O_NOPROCFS},
        {"no-procs", no_argument, NULL, O_NOPROCS},
        {"pcie", no_argument, NULL, O_PCIE},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"no-timing", no_argument, NULL, O_NOTIMING},
        {"pair", no_argument, NULL, O_PAIR},
        {"expect-gpus", required_argument, NULL, O_EGPUS},
        {"expect-alive", required_argument, NULL, O_EALIVE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    long n = 2000, warmup = 20, expect_gpus = -1, expect_alive = -1;
    int64_t timeout_ns = 0;
    int timing = 1, pair = 0;
    const char *lib = getenv("GPUMON_NVML_LIB");
    struct gm_collector_opts co = {.procs = 1, .procfs = 1};
    int c;

    if (!lib || !*lib)
        lib = BENCH_SIM_LIB;
    while ((c = getopt_long(argc, argv, "n:w:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            n = parse_count(optarg, "--samples");
            break;
        case 'w':
            warmup = parse_count(optarg, "--warmup");
            break;
        case O_LIB:
            lib = optarg;
            break;
        case O_NOPROCFS:
            co.procfs = 0;
            break;
        case O_NOPROCS:
            co.procs = 0;
            co.procfs = 0;
            break;
        case O_PCIE:
            co.groups = gm_nvml_groups_default();
            gm_rgset_add(&co.groups, GM_RG_PCIE_TPUT);
            break;
        case O_TIMEOUT:
            timeout_ns = parse_count(optarg, "--timeout") * INT64_C(1000000);
            break;
        case O_NOTIMING:
            timing = 0;
            break;
        case O_PAIR:
            pair = 1;
            break;
        case O_EGPUS:
            expect_gpus = parse_count(optarg, "--expect-gpus");
            break;
        case O_EALIVE:
            expect_alive = parse_count(optarg, "--expect-alive");
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || n < 1) {
        usage(stderr);
        return 2;
    }
    if (!getenv("GPUSIM_SCENARIO"))
        setenv("GPUSIM_SCENARIO", BENCH_SCENARIO, 1);
    co.lib_path = lib;

    struct gm_err err = {0};
    struct gm_collector *col, *col_np = NULL;
    if (gm_collector_open(&col, &co, &err) != 0) {
        fprintf(stderr, "bench_snapshot: %s\n", err.msg);
        gm_collector_close(col);
        return 1;
    }
    if (pair) {
        struct gm_collector_opts co_np = co;
        co_np.procfs = 0;
        if (gm_collector_open(&col_np, &co_np, &err) != 0) {
            fprintf(stderr, "bench_snapshot: %s\n", err.msg);
            return 1;
        }
    }
    struct gm_snapshot *s = gm_snapshot_new(), *s_np = gm_snapshot_new();
    int64_t *wall = calloc((size_t)n, sizeof(*wall)), *cpu = calloc((size_t)n, sizeof(*cpu));
    int64_t *np_wall = calloc((size_t)n, sizeof(*wall)), *np_cpu = calloc((size_t)n, sizeof(*cpu));
    if (!wall || !cpu || !np_wall || !np_cpu) {
        fprintf(stderr, "bench_snapshot: out of memory\n");
        return 1;
    }
    clockid_t cpu_clock = timeout_ns > 0 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
    int rc = 0;

    /* The first sample: static facts, /proc info files, user names. */
    CALLGRIND_ZERO_STATS;
    int64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(cpu_clock);
    if (sample(col, s, timeout_ns) != 0)
        return 1;
    int64_t first_wall = clock_ns(CLOCK_MONOTONIC) - w0, first_cpu = clock_ns(cpu_clock) - c0;
    CALLGRIND_DUMP_STATS_AT("first");

    for (long i = 0; i < warmup; i++)
        if (sample(col, s, timeout_ns) != 0 || (pair && sample(col_np, s_np, timeout_ns) != 0))
            return 1;

    CALLGRIND_ZERO_STATS;
    int64_t t_start = clock_ns(CLOCK_MONOTONIC);
    for (long i = 0; i < n && rc == 0; i++) {
        if (!timing) {
            rc = sample(col, s, timeout_ns);
            continue;
        }
        w0 = clock_ns(CLOCK_MONOTONIC);
        c0 = clock_ns(cpu_clock);
        rc = sample(col, s, timeout_ns);
        cpu[i] = clock_ns(cpu_clock) - c0;
        wall[i] = clock_ns(CLOCK_MONOTONIC) - w0;
        if (pair && rc == 0) {
            /* the same measurement without /proc, right after: what the
             * machine was doing affects both alike */
            w0 = clock_ns(CLOCK_MONOTONIC);
            c0 = clock_ns(cpu_clock);
            rc = sample(col_np, s_np, timeout_ns);
            np_cpu[i] = clock_ns(cpu_clock) - c0;
            np_wall[i] = clock_ns(CLOCK_MONOTONIC) - w0;
        }
    }
    int64_t t_total = clock_ns(CLOCK_MONOTONIC) - t_start;
    CALLGRIND_DUMP_STATS_AT("steady");
    if (rc)
        return 1;

    /* What the last snapshot held: the benchmark measured what it claims. */
    uint32_t alive = 0, enriched = 0;
    for (uint32_t i = 0; i < s->nproc; i++) {
        alive += s->procs[i].host_state == GM_HS_ALIVE;
        enriched += s->procs[i].host_state != GM_HS_UNKNOWN;
    }
    printf("samples %ld\n", n);
    printf("warmup %ld\n", warmup);
    printf("cpu_clock %s\n", timeout_ns > 0 ? "process" : "thread");
    printf("gpus %" PRIu32 "\n", s->ngpu);
    printf("procs %" PRIu32 "\n", s->nproc);
    printf("procs_enriched %" PRIu32 "\n", enriched);
    printf("procs_alive %" PRIu32 "\n", alive);
    printf("first_wall_us %.2f\n", first_wall / 1e3);
    printf("first_cpu_us %.2f\n", first_cpu / 1e3);
    printf("loop_wall_s %.3f\n", t_total / 1e9);
    if (timing) {
        report("wall", wall, (size_t)n);
        report("cpu", cpu, (size_t)n);
    }
    if (timing && pair) {
        report("np_wall", np_wall, (size_t)n);
        report("np_cpu", np_cpu, (size_t)n);
    }

    if (expect_gpus >= 0 && s->ngpu != (uint32_t)expect_gpus) {
        fprintf(stderr, "bench_snapshot: expected %ld GPUs, the snapshot has %" PRIu32 "\n",
                expect_gpus, s->ngpu);
        rc = 1;
    }
    if (expect_alive >= 0 && alive != (uint32_t)expect_alive) {
        fprintf(stderr,
                "bench_snapshot: expected %ld live processes in /proc, found %" PRIu32
                " (export GPUSIM_PID_RANK0..7 with the PIDs of running processes)\n",
                expect_alive, alive);
        rc = 1;
    }
    free(wall);
    free(cpu);
    free(np_wall);
    free(np_cpu);
    gm_snapshot_free(s);
    gm_snapshot_free(s_np);
    gm_collector_close(col);
    gm_collector_close(col_np);
    return rc;
}

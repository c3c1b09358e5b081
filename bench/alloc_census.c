/* alloc_census.c -- how many allocations one steady-state sample makes, and where.
 *
 *     alloc_census [-n SAMPLES] [--slow]
 *
 * Issue 30 asks that a sample in steady state allocate nothing; this counts
 * what it allocates now, so the work towards it can be measured (a
 * benchmark: it prints, it never fails on a count).  The collector is
 * opened as the agent opens it (src/agent/daemon.c: every default read
 * group, processes, /proc enrichment, the host side; the slow groups every
 * 10 s, or every sample with --slow) on the NVML simulator and the 8-GPU
 * training scenario, two of whose ranks are live children of this program so
 * that /proc is read for real.  After three warm samples, SAMPLES more (20)
 * are counted.
 *
 * Counting: this program defines malloc, calloc, realloc, aligned_alloc and
 * posix_memalign in place of the C library's (glibc routes its own
 * internal calls, strdup's included, through them) and passes each on to
 * glibc's __libc_* function.  Only calls on the sampling thread while a
 * sample runs count; each is put down to the object that called it
 * (dladdr): the simulator's own allocations are reported apart.  Every
 * other call site is printed as its call chain, OBJECT+OFFSET frames
 * innermost first, with how many times it allocated; `addr2line -f -e
 * OBJECT OFFSET-1` names each frame.  It leaves out the sampler's own
 * snapshot (src/agent/sampler.c makes a new one per sample) and what sinks
 * allocate on their threads.
 *
 * Not for AddressSanitizer builds, whose allocator these would replace.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/collector.h"
#include "core/snapshot.h"
#include "source/nvml.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t k);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t a, size_t n);
extern void __libc_free(void *p);

#define SITES 64
#define FRAMES 4

struct site {
    char where[FRAMES * 48];
    long n;
};

static __thread int t_counting; /* this thread is in a sample being counted */
static __thread int t_inside;   /* in our own bookkeeping: not counted */
static long g_ours, g_sim;
static struct site g_site[SITES];
static int g_nsite;

static void count(void *caller)
{
    Dl_info info;
    void *bt[FRAMES + 2];
    char where[sizeof g_site[0].where];
    size_t off = 0;

    if (!t_counting || t_inside)
        return;
    t_inside = 1;
    if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "libnvidia-ml")) {
        g_sim++;
        t_inside = 0;
        return;
    }
    g_ours++;
    /* frames 0 and 1 are count() and the allocator */
    int nb = backtrace(bt, FRAMES + 2);
    where[0] = '\0';
    for (int b = 2; b < nb && off + 1 < sizeof where; b++) {
        Dl_info bi;
        if (!dladdr(bt[b], &bi) || !bi.dli_fname)
            break;
        const char *base = strrchr(bi.dli_fname, '/');
        int w =
            snprintf(where + off, sizeof where - off, " %s+%#lx", base ? base + 1 : bi.dli_fname,
                     (unsigned long)((char *)bt[b] - (char *)bi.dli_fbase));
        if (w < 0)
            break;
        off += (size_t)w;
    }
    int k;
    for (k = 0; k < g_nsite && strcmp(g_site[k].where, where) != 0; k++)
        ;
    if (k == g_nsite && g_nsite < SITES)
        memcpy(g_site[g_nsite++].where, where, sizeof where);
    if (k < g_nsite)
        g_site[k].n++;
    t_inside = 0;
}

void *malloc(size_t n)
{
    count(__builtin_return_address(0));
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t k)
{
    count(__builtin_return_address(0));
    return __libc_calloc(n, k);
}

void *realloc(void *p, size_t n)
{
    count(__builtin_return_address(0));
    return __libc_realloc(p, n);
}

void *aligned_alloc(size_t a, size_t n)
{
    count(__builtin_return_address(0));
    return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n)
{
    count(__builtin_return_address(0));
    *out = __libc_memalign(a, n);
    return *out ? 0 : 12; /* ENOMEM */
}

void free(void *p)
{
    __libc_free(p);
}

int main(int argc, char **argv)
{
    int n = 20, slow_every = 0, c;
    static const struct option lo[] = {{"slow", no_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
    pid_t kids[2];

    while ((c = getopt_long(argc, argv, "n:", lo, NULL)) != -1) {
        if (c == 'n')
            n = atoi(optarg);
        else if (c == 's')
            slow_every = 1;
        else
            return 2;
    }
    if (n < 1) {
        fprintf(stderr, "alloc_census: -n wants a count of samples, at least 1\n");
        return 2;
    }
    for (int k = 0; k < 2; k++) {
        char pid[16];
        kids[k] = fork();
        if (kids[k] < 0) {
            perror("alloc_census: fork");
            return 1;
        }
        if (kids[k] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a crashed run */
            pause();
            _exit(0);
        }
        snprintf(pid, sizeof pid, "%d", (int)kids[k]);
        setenv(k ? "GPUSIM_PID_RANK1" : "GPUSIM_PID_RANK0", pid, 1);
    }
    setenv("GPUSIM_SCENARIO", BENCH_SCENARIO, 1);
    unsetenv("GPUSIM_TIME"); /* the clock moves: values change between samples */
    unsetenv("GPUMON_HOST_ROOT");

    struct gm_collector_opts co = {.lib_path = BENCH_SIM_LIB,
                                   .groups = gm_nvml_groups_default(),
                                   .slow_ns = slow_every ? 0 : 10LL * 1000000000LL,
                                   .procs = 1,
                                   .procfs = 1,
                                   .hostside = 1};
    struct gm_collector *col;
    struct gm_err err = {0};
    struct gm_snapshot *s = gm_snapshot_new();
    int rc = 0;

    if (gm_collector_open(&col, &co, &err) != 0) {
        fprintf(stderr, "alloc_census: %s\n", err.msg);
        rc = 1;
    } else {
        for (int k = 0; k < 3; k++)
            gm_collector_sample(col, s, 0, &err);
        unsigned ngpu = s->ngpu, nproc = s->nproc;
        for (int k = 0; k < n; k++) {
            t_counting = 1;
            gm_collector_sample(col, s, 0, &err);
            t_counting = 0;
            usleep(20000); /* the simulator's clock moves on */
        }
        printf("%d samples (%u GPUs, %u processes, slow groups %s): %.1f allocations per "
               "sample by gpumon, %.1f by the simulator\n",
               n, ngpu, nproc, slow_every ? "every sample" : "every 10 s", (double)g_ours / n,
               (double)g_sim / n);
        for (int k = 0; k < g_nsite; k++)
            printf("%6.2f per sample:%s\n", (double)g_site[k].n / n, g_site[k].where);
    }
    gm_snapshot_free(s);
    gm_collector_close(col);
    for (int k = 0; k < 2; k++) {
        kill(kids[k], SIGKILL);
        waitpid(kids[k], NULL, 0);
    }
    return rc;
}

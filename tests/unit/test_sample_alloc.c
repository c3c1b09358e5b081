/* test_sample_alloc.c -- a sample in steady state allocates nothing (issue 30).
 *
 * The agent's sampler thread (src/agent/sampler.c) runs the collector as
 * the agent opens it (src/agent/daemon.c: every default read group,
 * processes, /proc enrichment, the host side; the slow groups every sample,
 * then every 10 s) on the NVML simulator and the 8-GPU training scenario,
 * two of whose ranks are live children of this test so that /proc is read
 * for real, and pushes each snapshot to a sink that counts it.  A virtual
 * clock (struct gm_sampler_clock) marks each sample on the sampler thread:
 * its now() is read as a sample starts and as it ends, and its
 * sleep_until() waits (up to 30 s) for the sink to have let go of every
 * snapshot so far, so the sampler's pool is used in the same order on a
 * loaded machine as on an idle one.  After the warm
 * samples, every allocation the sampler thread makes between those two
 * reads is counted, through the malloc family this file defines in place
 * of the C library's (as bench/alloc_census.c does; glibc routes its own
 * internal calls, strdup's included, through them).  The simulator's own
 * allocations are its business: reported, not asserted.  Known limit: a
 * process's user, command line and executable are read again 30-60 s
 * after the last read (source/procfs.c), into new strings; the samples
 * here come about 20 ms apart, so none falls due unless a run lasts 30 s.
 * The cgroup's re-read (5-10 s) finds it unchanged and allocates nothing.
 *
 * Not built with AddressSanitizer, whose allocator these would replace.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/collector.h"
#include "agent/sampler.h"
#include "agent/sink.h"
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

/* The virtual clock: real time (the simulator's values move), samples
 * counted from the warm-th on, the sampler held after the last. */
struct vclock {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int warm, n; /* samples not counted, then counted */
    int k;       /* samples started */
    int sampling;
    int parked, released;
    struct gm_sink *sink; /* each sample waits for it to have let go of the last */
};

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t v_now(void *arg)
{
    struct vclock *c = arg;
    /* called on the sampler thread: the flag is that thread's */
    if (c->sampling == 1) { /* the read as a sample starts */
        c->sampling = 2;
        t_counting = c->k >= c->warm;
    } else if (c->sampling == 2) { /* the read as it ends */
        t_counting = 0;
        c->sampling = 0;
        c->k++;
    }
    return real_ns();
}

static void v_sleep_until(void *arg, int64_t deadline)
{
    struct vclock *c = arg;
    (void)deadline;
    pthread_mutex_lock(&c->mu);
    if (c->k == c->warm + c->n) {
        c->parked = 1;
        pthread_cond_broadcast(&c->cv);
        while (!c->released)
            pthread_cond_wait(&c->cv, &c->mu);
        pthread_mutex_unlock(&c->mu);
        return;
    }
    pthread_mutex_unlock(&c->mu);
    /* The sink has written (and let go of) every snapshot so far, so the
     * sampler fills its pooled snapshots again in a fixed order, whatever
     * the machine's load; a deadline of tens of seconds, then on anyway. */
    int64_t give_up = real_ns() + 30LL * 1000000000;
    for (;;) {
        struct gm_sink_stats st;
        gm_sink_stats(c->sink, &st);
        if ((int64_t)(st.snapshots + st.dropped) >= c->k || real_ns() > give_up)
            break;
        usleep(1000);
    }
    usleep(20000); /* the simulator's clock moves on */
    c->sampling = 1;
}

static int count_write(void *ctx, const struct gm_snapshot *s)
{
    (void)s;
    __atomic_add_fetch((long *)ctx, 1, __ATOMIC_RELAXED);
    return 0;
}

static void count_close(void *ctx)
{
    (void)ctx;
}

static const struct gm_sink_ops count_ops = {
    .name = "count", .write = count_write, .close = count_close};

static pid_t g_kids[2];

static int setup(void **state)
{
    char pid[16];

    (void)state;
    for (int k = 0; k < 2; k++) {
        g_kids[k] = fork();
        if (g_kids[k] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a crashed run */
            pause();
            _exit(0);
        }
        snprintf(pid, sizeof pid, "%d", (int)g_kids[k]);
        setenv(k ? "GPUSIM_PID_RANK1" : "GPUSIM_PID_RANK0", pid, 1);
    }
    setenv("GPUSIM_SCENARIO", SCENARIO_DIR "/h100x8-training.ini", 1);
    unsetenv("GPUSIM_TIME"); /* the clock moves: values change between samples */
    unsetenv("GPUMON_HOST_ROOT");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        kill(g_kids[k], SIGKILL);
        waitpid(g_kids[k], NULL, 0);
    }
    return 0;
}

/* Runs the sampler for warm + n samples; our allocations in the last n. */
static long sampler_allocs(int64_t slow_ns, int warm, int n)
{
    struct gm_collector_opts co = {.lib_path = SIM_LIB_PATH,
                                   .groups = gm_nvml_groups_default(),
                                   .slow_ns = slow_ns,
                                   .procs = 1,
                                   .procfs = 1,
                                   .hostside = 1};
    struct gm_collector *col;
    struct gm_err err = {0};
    struct vclock c = {.warm = warm, .n = n};
    long written = 0;

    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    assert_int_equal(gm_collector_open(&col, &co, &err), 0);
    struct gm_sink *sink = gm_sink_start(&count_ops, &written, 64);
    assert_non_null(sink);
    c.sink = sink;
    struct gm_sampler_opts o = {.clock = {v_now, v_sleep_until, &c}};
    g_ours = g_sim = 0;
    g_nsite = 0;
    memset(g_site, 0, sizeof g_site);
    struct gm_sampler *sp = gm_sampler_start_opts(col, 1000000000, &sink, 1, &o);
    assert_non_null(sp);

    pthread_mutex_lock(&c.mu);
    while (!c.parked)
        pthread_cond_wait(&c.cv, &c.mu);
    pthread_mutex_unlock(&c.mu);
    long ours = g_ours, sim = g_sim;

    struct gm_snapshot *s = gm_sampler_latest(sp);
    assert_non_null(s);
    assert_int_equal(s->driver, GM_DRV_OK);
    assert_int_equal(s->ngpu, 8);
    assert_true(s->nproc >= 9);
    int alive = 0;
    for (uint32_t i = 0; i < s->nproc; i++)
        alive += s->procs[i].host_state == GM_HS_ALIVE && s->procs[i].cmdline != NULL;
    assert_true(alive >= 2); /* the live ranks were read from /proc */
    gm_snapshot_unref(s);

    pthread_mutex_lock(&c.mu);
    c.released = 1;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);
    assert_int_equal(gm_sampler_stop(sp, 30LL * 1000000000), 0);
    assert_int_equal(gm_sink_stop(sink, 30LL * 1000000000), 0);
    assert_true(written >= warm + n - 1); /* the sink saw the samples */

    for (int k = 0; k < g_nsite; k++)
        print_message("allocated %ld times in %d samples by:%s\n", g_site[k].n, n, g_site[k].where);
    print_message("%d samples: %ld allocations by gpumon, %ld by the simulator\n", n, ours, sim);
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
    return ours;
}

/* The slow groups read in every sample: every reader runs in each. */
static void test_every_group(void **state)
{
    (void)state;
    assert_int_equal(sampler_allocs(0, 5, 20), 0);
}

/* As the agent runs: the slow groups every 10 s. */
static void test_agent_cadence(void **state)
{
    (void)state;
    assert_int_equal(sampler_allocs(10LL * 1000000000LL, 5, 20), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_group),
        cmocka_unit_test(test_agent_cadence),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

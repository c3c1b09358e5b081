/* test_hostside.c -- unit tests for the host side of GPU processes
 * (src/source/hostside.c).
 *
 * The parsers on a table of stat lines (hostile names with spaces and ')',
 * truncated lines, a kernel without field 42) and pressure files; then a
 * root directory made here (proc/PID/stat, task/PID/children, cgroup, the
 * cgroup's and the node's pressure) read twice a second apart: CPU % of
 * the process and its workers, I/O wait, pressure from the cgroup or else
 * the node, a reused pid starting over, a gone process and a planted
 * symlink left unread; a simulated pid read through a stand-in for the
 * simulator's gpusimHostRead instead of the root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/snapshot.h"
#include "source/hostside.h"

#define S (1000000000LL)

static void test_parse_stat(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int rc, ppid;
        unsigned long long utime, stime, start;
        long long blkio;
    } cases[] = {
        {"42 (python3) R 1 42 42 0 -1 4194304 100 0 0 0 250 30 0 0 20 0 9 0 5000 1 2 3 4 5 6 7 "
         "8 9 10 11 12 13 14 15 16 17 18 19 77 0 0\n",
         0, 1, 250, 30, 5000, 77},
        /* a hostile name: spaces and ')' inside, the last ')' ends it */
        {"43 (a) (b c) d) S 7 43 43 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 1 2 3 4 5 6 7 8 9 10 11 "
         "12 13 14 15 16 17 18 19 3 0 0",
         0, 7, 5, 6, 99, 3},
        /* an old kernel: no field 42 */
        {"44 (x) S 2 0 0 0 0 0 0 0 0 0 1 2 0 0 0 0 0 0 10 1", 0, 2, 1, 2, 10, -1},
        {"45 (x) S 2 0 0 0 0 0 0 0 0 0 1 2", GM_E_INVAL, 0, 0, 0, 0, 0}, /* no starttime */
        {"46 (x S 2", GM_E_INVAL, 0, 0, 0, 0, 0},                        /* no ')' */
        {"47 (x) S 2 0 0 0 0 0 0 0 0 0 lots 2 0 0 0 0 0 0 10", GM_E_INVAL, 0, 0, 0, 0, 0},
        {"", GM_E_INVAL, 0, 0, 0, 0, 0},
        /* as Linux writes it: rsslim 2^64-1 and addresses past LLONG_MAX */
        {"8419 (cat) R 8417 8417 6949 0 -1 4194304 100 0 0 0 7 3 0 0 20 0 1 0 354007 3133440 "
         "414 18446744073709551615 94834464948224 94834464968105 140720779445488 0 0 0 0 0 0 0 0 "
         "0 17 1 0 0 12 0 0 94834464984112 94834464985728 94834920017920 140720779451019 "
         "140720779451039 140720779451039 140720779452395 0\n",
         0, 8417, 7, 3, 354007, 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gm_hs_stat st;
        int rc = gm_hs_parse_stat(cases[i].line, strlen(cases[i].line), &st);
        if (rc != cases[i].rc) {
            fprintf(stderr, "case %zu: rc %d, want %d\n", i, rc, cases[i].rc);
            fail();
        }
        if (rc)
            continue;
        assert_int_equal(st.ppid, cases[i].ppid);
        assert_int_equal(st.utime, cases[i].utime);
        assert_int_equal(st.stime, cases[i].stime);
        assert_int_equal(st.starttime, cases[i].start);
        assert_int_equal(st.blkio, cases[i].blkio);
    }
}

static void test_parse_pressure(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc;
        double some;
    } cases[] = {
        {"some avg10=12.50 avg60=3.00 avg300=1.00 total=123\nfull avg10=1.00 avg60=0 avg300=0 "
         "total=4\n",
         0, 12.5},
        {"full avg10=9.00 avg60=0 avg300=0 total=4\nsome avg10=0.00 avg60=0 avg300=0 total=1\n", 0,
         0},
        {"some avg10=abc avg60=0\n", GM_E_INVAL, 0},
        {"some avg10=250.00 avg60=0\n", GM_E_INVAL, 0},
        {"nothing here\n", GM_E_INVAL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -1;
        assert_int_equal(gm_hs_parse_pressure(cases[i].text, strlen(cases[i].text), &v),
                         cases[i].rc);
        if (!cases[i].rc)
            assert_true(fabs(v - cases[i].some) < 1e-9);
    }
}

static void put(const char *root, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    /* make the directories on the way */
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void put_stat(const char *root, unsigned pid, unsigned ppid, unsigned long long ticks,
                     unsigned long long start, long long blkio)
{
    char rel[64], line[512];
    snprintf(rel, sizeof rel, "proc/%u/stat", pid);
    snprintf(line, sizeof line,
             "%u (py thon) x) S %u 1 1 0 -1 0 0 0 0 0 %llu 0 0 0 20 0 1 0 %llu 1 2 3 4 5 6 7 8 9 "
             "10 11 12 13 14 15 16 17 18 19 %lld 0 0\n",
             pid, ppid, ticks, start, blkio);
    put(root, rel, line);
}

static struct gm_snapshot *snap(int64_t mono, uint32_t pid, uint8_t hs)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->mono_ns = mono;
    gm_snapshot_set_gpus(s, 1);
    struct gm_proc p;
    memset(&p, 0, sizeof p);
    p.pid = pid;
    p.type = GM_PT_COMPUTE;
    p.host_state = hs;
    gm_snapshot_add_proc_take(s, &p);
    s->gpus[0].nproc = 1;
    return s;
}

/* The workers' list is kept: a worker started later shows at the latest
 * 5 s after the list was read, one that exits stops counting at once, and
 * a process with many children and several GPUs is read once per sample. */
static void test_workers_kept(void **state)
{
    (void)state;
    char root[] = "/tmp/gm_hs_XXXXXX";
    assert_non_null(mkdtemp(root));
    put_stat(root, 200, 1, 0, 6000, 0);
    put_stat(root, 201, 200, 0, 6001, 0);
    put(root, "proc/200/task/200/children", "201 ");
    put(root, "proc/pressure/cpu", "some avg10=1.00 avg60=0 avg300=0 total=1\n");

    struct gm_hostside *hs = gm_hostside_new(root);
    struct gm_snapshot *s = snap(10 * S, 200, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.workers, 1);
    gm_snapshot_free(s);

    /* a second worker: kept list for the first 2.5 s, seen by 5 s */
    put_stat(root, 202, 200, 0, 6002, 0);
    put(root, "proc/200/task/200/children", "201 202 ");
    int64_t at = 10 * S + S / 2;
    for (; at < 12 * S + S / 2; at += S / 2) {
        s = snap(at, 200, GM_HS_ALIVE);
        gm_hostside_enrich(hs, s);
        assert_int_equal(s->procs[0].host.workers, 1);
        gm_snapshot_free(s);
    }
    int seen = 0;
    for (; at <= 15 * S && !seen; at += S / 2) {
        s = snap(at, 200, GM_HS_ALIVE);
        gm_hostside_enrich(hs, s);
        seen = s->procs[0].host.workers == 2;
        gm_snapshot_free(s);
    }
    assert_true(seen);

    /* worker 201 exits (its stat goes; the list still names it until it
     * is read again): counted out at once, the rates of the other kept */
    char path[512];
    snprintf(path, sizeof path, "%s/proc/201/stat", root);
    assert_int_equal(unlink(path), 0);
    put(root, "proc/200/task/200/children", "202 ");
    s = snap(at, 200, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.workers, 1);
    assert_false(isnan(s->procs[0].host.workers_cpu_pct));
    gm_snapshot_free(s);
    s = snap(at + S, 200, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.workers, 1);
    gm_snapshot_free(s);

    gm_hostside_free(hs);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

static void test_enrich(void **state)
{
    (void)state;
    char root[] = "/tmp/gm_hs_XXXXXX";
    assert_non_null(mkdtemp(root));
    double hz = (double)sysconf(_SC_CLK_TCK);
    unsigned long long h = (unsigned long long)hz;
    /* the main process (pid 100) with two DataLoader workers */
    put_stat(root, 100, 1, 10 * h, 5000, 0);
    put_stat(root, 101, 100, 0, 5001, 0);
    put_stat(root, 102, 100, 0, 5002, 0);
    put(root, "proc/100/task/100/children", "101 102 ");
    put(root, "proc/100/cgroup", "0::/slurm/job_7\n");
    put(root, "sys/fs/cgroup/slurm/job_7/cpu.pressure",
        "some avg10=4.00 avg60=0 avg300=0 total=1\nfull avg10=0 avg60=0 avg300=0 total=0\n");
    put(root, "sys/fs/cgroup/slurm/job_7/io.pressure",
        "some avg10=35.00 avg60=0 avg300=0 total=1\nfull avg10=0 avg60=0 avg300=0 total=0\n");
    put(root, "proc/pressure/cpu", "some avg10=1.00 avg60=0 avg300=0 total=1\n");
    put(root, "proc/pressure/io", "some avg10=2.00 avg60=0 avg300=0 total=1\n");

    struct gm_hostside *hs = gm_hostside_new(root);
    struct gm_snapshot *s = snap(10 * S, 100, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    const struct gm_host_side *o = &s->procs[0].host;
    assert_int_equal(o->read, 1);
    assert_true(isnan(o->cpu_pct)); /* first sight: no rate yet */
    assert_int_equal(o->workers, 2);
    assert_int_equal(o->psi_scope, GM_PSI_CGROUP);
    assert_true(fabs(o->psi_io - 35) < 1e-9);
    assert_true(fabs(o->psi_cpu - 4) < 1e-9);
    gm_snapshot_free(s);

    /* one second later: the main process used a whole core, one worker half
     * a core, the other waited 40 % of the time on block I/O */
    put_stat(root, 100, 1, 11 * h, 5000, 0);
    put_stat(root, 101, 100, h / 2, 5001, 0);
    put_stat(root, 102, 100, 0, 5002, (long long)(h * 2 / 5));
    s = snap(11 * S, 100, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    o = &s->procs[0].host;
    assert_true(fabs(o->cpu_pct - 100) < 1.5);
    assert_true(fabs(o->workers_cpu_pct - 50) < 1.5);
    assert_true(fabs(o->workers_cpu_max - 50) < 1.5);
    assert_true(fabs(o->iowait_pct - 40) < 1.5);
    gm_snapshot_free(s);

    /* the pid reused by another process (a new start time): starts over;
     * no children file now: workers unknown; cgroup path with "..": the
     * node's pressure */
    put_stat(root, 100, 1, 50 * h, 9000, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/proc/100/task/100/children", root);
    unlink(path);
    put(root, "proc/100/cgroup", "0::/../../etc\n");
    gm_hostside_free(hs); /* the cgroup is kept per process: a new reader */
    hs = gm_hostside_new(root);
    s = snap(12 * S, 100, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    o = &s->procs[0].host;
    assert_int_equal(o->read, 1);
    assert_true(isnan(o->cpu_pct));
    assert_int_equal(o->workers, -1);
    assert_true(isnan(o->workers_cpu_pct));
    assert_int_equal(o->psi_scope, GM_PSI_NODE);
    assert_true(fabs(o->psi_io - 2) < 1e-9);
    gm_snapshot_free(s);

    /* a process known to be gone is not read; a pid with no stat is not */
    s = snap(13 * S, 100, GM_HS_GONE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.read, 0);
    assert_int_equal(s->procs[0].host.workers, -1);
    gm_snapshot_free(s);
    s = snap(13 * S, 555, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.read, 0);
    gm_snapshot_free(s);

    /* a planted symlink in place of a stat file is not followed */
    put(root, "proc/777/target", "777 (evil) S 1 0 0 0 0 0 0 0 0 0 1 1 0 0 0 0 0 0 10 1\n");
    snprintf(path, sizeof path, "%s/proc/777/stat", root);
    char target[512];
    snprintf(target, sizeof target, "%s/proc/777/target", root);
    assert_int_equal(symlink(target, path), 0);
    s = snap(14 * S, 777, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.read, 0);
    gm_snapshot_free(s);
    gm_hostside_free(hs);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* The real /proc: this test's own process, read twice while it burns CPU,
 * with a child it forked (a real node's worker). */
static void test_real_proc(void **state)
{
    (void)state;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        alarm(60); /* never outlives a failed test by long */
        pause();
        _exit(0);
    }
    struct gm_hostside *hs = gm_hostside_new(NULL);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct gm_snapshot *s =
        snap((int64_t)t0.tv_sec * S + t0.tv_nsec, (uint32_t)getpid(), GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.read, 1);
    gm_snapshot_free(s);
    /* burn some CPU so the rate has something to count (not asserted: a
     * loaded machine may not schedule us) */
    volatile double x = 0;
    for (long i = 0; i < 20000000; i++)
        x += (double)i;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s = snap((int64_t)t1.tv_sec * S + t1.tv_nsec, (uint32_t)getpid(), GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    const struct gm_host_side *o = &s->procs[0].host;
    assert_int_equal(o->read, 1);
    assert_false(isnan(o->cpu_pct));
    assert_true(o->cpu_pct >= 0);
    /* the children file exists where the kernel has CONFIG_PROC_CHILDREN */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    if (access(path, R_OK) == 0)
        assert_true(o->workers >= 1);
    else
        assert_int_equal(o->workers, -1);
    gm_snapshot_free(s);
    gm_hostside_free(hs);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
}

/* Delay accounting off (kernel.task_delayacct = 0): the blkio ticks stay
 * 0 whatever the process waits, so the I/O wait is unknown, not 0 %. */
static void test_delayacct_off(void **state)
{
    (void)state;
    char root[] = "/tmp/gm_hs_XXXXXX";
    assert_non_null(mkdtemp(root));
    unsigned long long h = (unsigned long long)sysconf(_SC_CLK_TCK);
    for (int on = 0; on < 2; on++) {
        put(root, "proc/sys/kernel/task_delayacct", on ? "1\n" : "0\n");
        put_stat(root, 300, 1, 0, 77, 0);
        struct gm_hostside *hs = gm_hostside_new(root);
        struct gm_snapshot *s = snap(1 * S, 300, GM_HS_ALIVE);
        gm_hostside_enrich(hs, s);
        gm_snapshot_free(s);
        put_stat(root, 300, 1, h, 77, 0);
        s = snap(2 * S, 300, GM_HS_ALIVE);
        gm_hostside_enrich(hs, s);
        const struct gm_host_side *o = &s->procs[0].host;
        assert_int_equal(o->read, 1);
        assert_true(fabs(o->cpu_pct - 100) < 1.5);
        if (on)
            assert_true(fabs(o->iowait_pct) < 1e-9);
        else
            assert_true(isnan(o->iowait_pct));
        gm_snapshot_free(s);
        gm_hostside_free(hs);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* A stand-in for the simulator's gpusimHostRead: pid 4194400 with one
 * worker 4194500, their ticks set by the test. */
static unsigned long long g_sim_ticks, g_sim_blkio, g_sim_wticks;
static int g_sim_calls;

static int fake_sim(unsigned int pid, const char *file, char *buf, size_t cap)
{
    char text[512];
    g_sim_calls++;
    if (pid == 4194400 && strcmp(file, "stat") == 0)
        snprintf(text, sizeof text,
                 "4194400 (python3) S 1 1 1 0 -1 0 0 0 0 0 %llu 0 0 0 20 0 1 0 1000 1 2 3 4 5 6 "
                 "7 8 9 10 11 12 13 14 15 16 17 18 19 %llu 0 0\n",
                 g_sim_ticks, g_sim_blkio);
    else if (pid == 4194500 && strcmp(file, "stat") == 0)
        snprintf(text, sizeof text,
                 "4194500 (pt_data_worker) S 4194400 1 1 0 -1 0 0 0 0 0 %llu 0 0 0 20 0 1 0 1001 "
                 "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 0 0 0\n",
                 g_sim_wticks);
    else if (pid == 4194400 && strcmp(file, "children") == 0)
        snprintf(text, sizeof text, "4194500 ");
    else if (pid == 4194400 && strcmp(file, "cgroup") == 0)
        snprintf(text, sizeof text, "0::/gpusim/feed\n");
    else if (pid == 4194400 && strcmp(file, "cpu.pressure") == 0)
        snprintf(text, sizeof text, "some avg10=12.00 avg60=0 avg300=0 total=0\n");
    else if (pid == 4194400 && strcmp(file, "io.pressure") == 0)
        snprintf(text, sizeof text, "some avg10=34.00 avg60=0 avg300=0 total=0\n");
    else
        return -2; /* -ENOENT */
    size_t n = strlen(text);
    if (n > cap)
        n = cap;
    memcpy(buf, text, n);
    return (int)n;
}

/* On the simulator (gm_hostside_set_sim) a simulated pid is read from it,
 * not from the root: its CPU, workers and I/O wait (whatever the host's
 * delay accounting says) and its cgroup's pressure, never the node's; a
 * host pid is still read from the root; unset, the root again. */
static void test_sim(void **state)
{
    (void)state;
    char root[] = "/tmp/gm_hs_XXXXXX";
    assert_non_null(mkdtemp(root));
    unsigned long long h = (unsigned long long)sysconf(_SC_CLK_TCK);
    put(root, "proc/sys/kernel/task_delayacct", "0\n");
    put(root, "proc/pressure/cpu", "some avg10=77.00 avg60=0 avg300=0 total=0\n");
    put(root, "proc/pressure/io", "some avg10=77.00 avg60=0 avg300=0 total=0\n");
    put_stat(root, 4194400, 1, 0, 1000, 0); /* planted: never read while the sim is set */
    put_stat(root, 300, 1, 0, 77, 0);
    struct gm_hostside *hs = gm_hostside_new(root);
    gm_hostside_set_sim(hs, fake_sim);
    g_sim_ticks = g_sim_blkio = g_sim_wticks = 0;
    struct gm_snapshot *s = snap(1 * S, 4194400, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    gm_snapshot_free(s);
    g_sim_ticks = h;      /* a core */
    g_sim_blkio = h / 2;  /* half the time waiting for I/O */
    g_sim_wticks = h / 4; /* the worker at 25 % */
    s = snap(2 * S, 4194400, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    const struct gm_host_side *o = &s->procs[0].host;
    assert_int_equal(o->read, 1);
    assert_true(fabs(o->cpu_pct - 100) < 1.5);
    assert_true(fabs(o->iowait_pct - 50) < 1.5);
    assert_int_equal(o->workers, 1);
    assert_true(fabs(o->workers_cpu_pct - 25) < 1.5);
    assert_int_equal(o->psi_scope, GM_PSI_CGROUP);
    assert_true(fabs(o->psi_cpu - 12) < 1e-9 && fabs(o->psi_io - 34) < 1e-9);
    gm_snapshot_free(s);
    /* a host pid: from the root, its pressure the node's */
    int calls = g_sim_calls;
    s = snap(3 * S, 300, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.read, 1);
    assert_int_equal(s->procs[0].host.psi_scope, GM_PSI_NODE);
    assert_int_equal(g_sim_calls, calls);
    gm_snapshot_free(s);
    /* no simulator: the simulated pid from the root (the planted file) */
    gm_hostside_set_sim(hs, NULL);
    s = snap(4 * S, 4194400, GM_HS_ALIVE);
    gm_hostside_enrich(hs, s);
    assert_int_equal(s->procs[0].host.read, 1);
    assert_int_equal(s->procs[0].host.psi_scope, GM_PSI_NODE);
    assert_int_equal(g_sim_calls, calls);
    gm_snapshot_free(s);
    gm_hostside_free(hs);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_stat),   cmocka_unit_test(test_parse_pressure),
        cmocka_unit_test(test_workers_kept), cmocka_unit_test(test_enrich),
        cmocka_unit_test(test_real_proc),    cmocka_unit_test(test_delayacct_off),
        cmocka_unit_test(test_sim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

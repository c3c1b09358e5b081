/* test_sim_pidfile.c -- scenario processes whose pid is read at run time
 * (`pid_file`, sim/pidfile.c and sim/scenario.c): the section's rules, the
 * bounded and non-following read of the file, the liveness check (a zombie
 * is not live), and what a refresh makes of the process list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpusim.h"

static char dir[] = "/tmp/gs-pidfile-XXXXXX";

static void put(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static unsigned rd(const char *name)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return gs_pid_file_read(p);
}

static void test_read(void **state)
{
    (void)state;
    put("a", "1234\n");
    assert_int_equal(rd("a"), 1234);
    put("b", "  77  \n");
    assert_int_equal(rd("b"), 77);
    put("c", "12 13\n"); /* two numbers */
    assert_int_equal(rd("c"), 0);
    put("d", "0\n");
    assert_int_equal(rd("d"), 0);
    put("e", "4294967296\n"); /* past 32 bits */
    assert_int_equal(rd("e"), 0);
    put("f", "");
    assert_int_equal(rd("f"), 0);
    put("g", "-5");
    assert_int_equal(rd("g"), 0);
    /* more than 63 bytes: only the first 63 are read, so a long file of
     * spaces before the number is not a pid */
    put("h", "                                                                    9\n");
    assert_int_equal(rd("h"), 0);
    assert_int_equal(rd("missing"), 0);
    char p[256], t[256];
    /* a symbolic link is not followed, a FIFO not waited on, a directory
     * not read */
    snprintf(t, sizeof(t), "%s/a", dir);
    snprintf(p, sizeof(p), "%s/link", dir);
    assert_int_equal(symlink(t, p), 0);
    assert_int_equal(rd("link"), 0);
    snprintf(p, sizeof(p), "%s/fifo", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(rd("fifo"), 0);
    snprintf(p, sizeof(p), "%s/sub", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(rd("sub"), 0);
}

static void test_alive(void **state)
{
    (void)state;
    assert_true(gs_pid_alive((unsigned)getpid()));
    assert_false(gs_pid_alive(4194305)); /* above PID_MAX_LIMIT */
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0)
        _exit(0);
    /* a zombie until reaped: not live */
    for (int i = 0; i < 200; i++) {
        char p[64], buf[256];
        snprintf(p, sizeof(p), "/proc/%d/stat", (int)c);
        FILE *f = fopen(p, "r");
        size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = '\0';
        char *rp = strrchr(buf, ')');
        if (rp && rp[2] == 'Z')
            break;
        usleep(10000);
    }
    assert_false(gs_pid_alive((unsigned)c));
    waitpid(c, NULL, 0);
    assert_false(gs_pid_alive((unsigned)c));
}

static void test_scenario(void **state)
{
    (void)state;
    char text[1024], err[600];
    struct gs_scenario *s = NULL;
    snprintf(text, sizeof(text),
             "[machine]\ngpus = 2\n[gpu]\nmodel = A100-SXM4-80GB\n"
             "[process.fixed]\ngpu = 1\npid = 4194400\n"
             "[process.dyn]\ngpu = 0\npid_file = %s/run.pid\nname = python3\n",
             dir);
    assert_int_equal(gs_scenario_parse_string("t.ini", text, &s, err, sizeof(err)), 0);
    assert_int_equal(s->ndyn, 1);
    const struct gs_process *dyn = &s->procs[s->dyn[0]];
    /* no file yet: not there */
    gs_proc_refresh(s);
    assert_false(gs_proc_on(dyn, 0, 1.0));
    assert_null(gs_proc_by_pid(s, (unsigned)getpid()));
    assert_non_null(gs_proc_by_pid(s, 4194400));
    /* this process writes its pid: listed, found by pid */
    char pid[32];
    snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
    put("run.pid", pid);
    gs_proc_refresh(s);
    assert_true(gs_proc_on(dyn, 0, 1.0));
    assert_false(gs_proc_on(dyn, 1, 1.0));
    assert_int_equal(dyn->pid, (unsigned)getpid());
    assert_ptr_equal(gs_proc_by_pid(s, (unsigned)getpid()), dyn);
    /* a pid that no process has: gone again */
    put("run.pid", "4194305\n");
    gs_proc_refresh(s);
    assert_false(gs_proc_on(dyn, 0, 1.0));
    assert_null(gs_proc_by_pid(s, 4194305));
    gs_scenario_free(s);

    static const struct {
        const char *text, *expect;
    } bad[] = {
        {"[machine]\ngpus = 1\n[gpu]\nmodel = L40S\n[process.p]\ngpu = 0\npid = 5\n"
         "pid_file = /x\n",
         "t.ini:8: [process.p]: give either 'pid' or 'pid_file', not both"},
        {"[machine]\ngpus = 1\n[gpu]\nmodel = L40S\n[process.p]\ngpu = 0\npid_file = /x\n"
         "count = 2\n",
         "t.ini:7: [process.p]: 'pid_file' stands for one process ('count' must be 1)"},
        {"[machine]\ngpus = 1\n[gpu]\nmodel = L40S\n[process.p]\ngpu = 0\n",
         "t.ini:5: [process.p]: missing required key 'pid' (or 'pid_file')"},
        {"[machine]\ngpus = 1\n[gpu]\nmodel = L40S\n[process.p]\ngpu = 0\npid_file =\n",
         "t.ini:7: bad value '' for 'pid_file'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        s = NULL;
        err[0] = '\0';
        int rc = gs_scenario_parse_string("t.ini", bad[i].text, &s, err, sizeof(err));
        if (rc == 0 || strncmp(err, bad[i].expect, strlen(bad[i].expect)) != 0)
            fail_msg("case %zu: expected '%s', got rc=%d '%s'", i, bad[i].expect, rc, err);
    }
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_alive),
        cmocka_unit_test(test_scenario),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

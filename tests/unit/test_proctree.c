/* test_proctree.c -- the process tree under one process
 * (src/source/proctree.c): the walk over (pid, ppid) pairs, the stat line
 * parser with hostile process names, and a scan of a fixture /proc.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source/proctree.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void want_set(const struct gm_pidset *s, const uint32_t *want, size_t n)
{
    assert_int_equal(s->n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(s->pid[i], want[i]);
}

static void test_descendants(void **state)
{
    (void)state;
    /* 100 is the root: children 101, 102; 101's child 103 (which reparented
     * a daemon 104 to the root, as a subreaper's tree does); 200 is not
     * ours, nor its child 201 */
    const uint32_t pid[] = {1, 100, 101, 102, 103, 104, 200, 201, 105};
    const uint32_t ppid[] = {0, 1, 100, 100, 101, 100, 1, 200, 103};
    struct gm_pidset s = {0};
    gm_proctree_descendants(pid, ppid, N(pid), 100, &s);
    const uint32_t want[] = {101, 102, 103, 104, 105};
    want_set(&s, want, N(want));
    assert_true(gm_pidset_has(&s, 105));
    assert_false(gm_pidset_has(&s, 100));
    assert_false(gm_pidset_has(&s, 201));
    /* a leaf: nothing below it */
    gm_proctree_descendants(pid, ppid, N(pid), 102, &s);
    assert_int_equal(s.n, 0);
    /* bad input: a cycle through the root, a pid listed twice, a self-loop */
    const uint32_t cp[] = {5, 6, 7, 5, 8, 9, 9};
    const uint32_t cpp[] = {7, 5, 6, 9, 8, 6, 6};
    gm_proctree_descendants(cp, cpp, N(cp), 5, &s);
    const uint32_t want2[] = {6, 7, 9};
    want_set(&s, want2, N(want2));
    /* nothing at all */
    gm_proctree_descendants(NULL, NULL, 0, 1, &s);
    assert_int_equal(s.n, 0);
    gm_pidset_free(&s);
    /* a set that never held a pid (its array NULL), for a root without
     * children: nothing is sorted (UBSan caught qsort(NULL, 0) here) */
    struct gm_pidset empty = {0};
    gm_proctree_descendants(pid, ppid, N(pid), 102, &empty);
    assert_int_equal(empty.n, 0);
    gm_pidset_free(&empty);
}

static void test_parse_ppid(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int rc;
        uint32_t ppid;
    } cases[] = {
        {"42 (bash) S 17 42 42 0 -1", 0, 17},
        {"42 (a) b) c) R 9 1 1", 0, 9}, /* ')' in the name: the last one counts */
        {"42 (x\n) y) S 3 4\n", 0, 3},  /* a line break in the name */
        {"42 (sp ace) Z 0 0", 0, 0},    /* a zombie, parent 0 */
        {"42 (q) S 4294967295 1", 0, 4294967295u},
        {"42 (q) S 4294967296 1", -1, 0}, /* past 32 bits */
        {"42 (q) S", -1, 0},              /* cut short */
        {"42 (q) S x1 1", -1, 0},         /* not a number */
        {"42 (q) S 12a 1", -1, 0},
        {"42 q S 1 2", -1, 0}, /* no ')' */
        {"", -1, 0},
    };
    for (size_t i = 0; i < N(cases); i++) {
        uint32_t pp = 12345;
        int rc = gm_proctree_parse_ppid(cases[i].line, strlen(cases[i].line), &pp);
        assert_int_equal(rc, cases[i].rc);
        if (rc == 0)
            assert_int_equal(pp, cases[i].ppid);
    }
}

static void put(const char *dir, const char *pid, const char *stat)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, pid);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/%s/stat", dir, pid);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(stat, f);
    fclose(f);
}

static void test_scan(void **state)
{
    (void)state;
    char dir[] = "/tmp/gm-proctree-XXXXXX";
    assert_non_null(mkdtemp(dir));
    put(dir, "10", "10 (run) S 1 10 10");
    put(dir, "11", "11 (python3) S 10 10 10");
    put(dir, "12", "12 (worker) x) S 11 10 10"); /* hostile name */
    put(dir, "13", "13 (garbage");               /* malformed: skipped */
    put(dir, "14", "14 (other) S 1 14 14");
    put(dir, "self", "99 (self) S 10 1 1"); /* not a pid directory */
    char p[512];
    snprintf(p, sizeof(p), "%s/15", dir);
    mkdir(p, 0755); /* no stat: gone meanwhile */
    struct gm_pidset s = {0};
    struct gm_err err = {0};
    assert_int_equal(gm_proctree_scan(dir, 10, &s, &err), 0);
    const uint32_t want[] = {11, 12};
    want_set(&s, want, N(want));
    gm_pidset_free(&s);
    assert_int_not_equal(gm_proctree_scan("/nonexistent-proc", 1, &s, &err), 0);
    assert_non_null(strstr(err.msg, "/nonexistent-proc"));
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_scan_real(void **state)
{
    (void)state;
    /* this process's own child shows up under it in the real /proc */
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        pause();
        _exit(0);
    }
    struct gm_pidset s = {0};
    assert_int_equal(gm_proctree_scan(NULL, (uint32_t)getpid(), &s, NULL), 0);
    assert_true(gm_pidset_has(&s, (uint32_t)c));
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    gm_pidset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descendants),
        cmocka_unit_test(test_parse_ppid),
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_scan_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

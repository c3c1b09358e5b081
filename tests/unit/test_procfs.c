/* test_procfs.c -- unit tests for src/source/procfs.c.
 *
 * Three kinds: gm_proc_parse_stat() against a table of hostile and broken
 * stat lines (each copied into a heap buffer of exactly its length, with no
 * NUL, so the sanitizers catch any over-read); gm_procfs_enrich() against the
 * fixture tree in fixtures/proc/ (one PID per case: see the table) and against
 * temporary trees written between calls (CPU %, PID reuse, caching, exe
 * symlinks); and checks against the real /proc: the test's own PID, a child
 * that lives, turns zombie and is reaped, and a PID nobody has.  The "hidden"
 * test drops to uid 65534 in a child process when run as root, since root is
 * never refused by file permissions.
 *
 * Fixture trees cannot show a process vanishing after its first sample:
 * procfs keeps /proc/PID/stat open, and a regular file stays readable after
 * it is removed, so that case is tested on the real /proc only.
 *
 * Runs with the working directory set to tests/unit (meson's workdir).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/snapshot.h"
#include "source/procfs.h"

#define FIXTURES "fixtures/proc"
#define BTIME INT64_C(1700000000) /* fixtures/proc/stat */
#define NS INT64_C(1000000000)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static uint64_t clk_tck(void)
{
    return (uint64_t)sysconf(_SC_CLK_TCK);
}

static uint64_t page_size(void)
{
    return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* What procfs.c should make of a tick count since boot (fixture btime). */
static uint64_t start_ns(uint64_t ticks)
{
    return (uint64_t)BTIME * NS + ticks / clk_tck() * NS + ticks % clk_tck() * NS / clk_tck();
}

/* Login name of uid, or the number, as procfs.c should report it. */
static void user_of(uint32_t uid, char *out, size_t len)
{
    struct passwd *pw = getpwuid(uid);

    if (pw && pw->pw_name[0])
        snprintf(out, len, "%.32s", pw->pw_name);
    else
        snprintf(out, len, "%u", uid);
}

/* Open descriptors of this process (to prove procfs closes what it keeps). */
static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static struct gm_snapshot *snap_new(int64_t mono_ns, int64_t wall_ns)
{
    struct gm_snapshot *s = gm_snapshot_new();

    s->mono_ns = mono_ns;
    s->wall_ns = wall_ns;
    return s;
}

/* Adds a process as the NVML source would: pid, GPU, NVML's name. */
static struct gm_proc *snap_add(struct gm_snapshot *s, uint32_t gpu, uint32_t pid)
{
    struct gm_proc p;

    memset(&p, 0, sizeof p);
    p.gpu = gpu;
    p.pid = pid;
    p.type = GM_PT_COMPUTE;
    p.gpu_instance_id = GM_NO_INSTANCE;
    p.compute_instance_id = GM_NO_INSTANCE;
    snprintf(p.name, sizeof p.name, "nvml-name-%u", pid);
    return gm_snapshot_add_proc_take(s, &p);
}

/* A temporary /proc-like tree; files are written between enrich calls. */
struct tmproot {
    char dir[64];
};

static void tmp_init(struct tmproot *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/gm_procfs_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
}

static void tmp_path(const struct tmproot *t, const char *rel, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/%s", t->dir, rel);
    assert_true(n > 0 && (size_t)n < len);
}

/* Writes len bytes (may contain NULs) to ROOT/rel, creating ROOT/PID/. */
static void tmp_write(const struct tmproot *t, const char *rel, const char *data, size_t len)
{
    char path[256], tmp[256];
    char *slash;
    int fd;

    tmp_path(t, rel, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s", path);
    slash = strrchr(tmp, '/');
    *slash = '\0';
    if (mkdir(tmp, 0755) < 0)
        assert_int_equal(errno, EEXIST);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void tmp_puts(const struct tmproot *t, const char *rel, const char *text)
{
    tmp_write(t, rel, text, strlen(text));
}

/* Writes ROOT/PID/stat with the fields the tests vary. */
static void tmp_stat(const struct tmproot *t, uint32_t pid, const char *comm, char state,
                     unsigned long long utime, unsigned long long stime,
                     unsigned long long starttime, unsigned long long rss)
{
    char rel[32], line[512];

    snprintf(rel, sizeof rel, "%u/stat", pid);
    snprintf(line, sizeof line,
             "%u (%s) %c 1 %u %u 0 -1 4194560 10 0 0 0 %llu %llu 0 0 20 0 4 0 %llu 999999 %llu "
             "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
             pid, comm, state, pid, pid, utime, stime, starttime, rss);
    tmp_puts(t, rel, line);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* rm -r of the temporary tree (symlinks are removed, not followed). */
static void tmp_cleanup(struct tmproot *t)
{
    assert_int_equal(nftw(t->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

static void tmp_root_stat(const struct tmproot *t)
{
    tmp_puts(t, "stat", "cpu  1 2 3 4\nintr 5 6 7\nctxt 8\nbtime 1700000000\nprocesses 9\n");
}

/* ------------------------------------------------------------------------ */
/* gm_proc_parse_stat                                                        */

/* Fields 4..24 and a few more, with utime 111, stime 222, starttime 333, rss 444. */
#define TAIL " S 1 42 42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1000 444 18446 0 0\n"
#define OK_STAT(comm) "42 (" comm ")" TAIL

struct parse_case {
    const char *what;
    const char *in;
    size_t len; /* 0: strlen(in) */
    int rc;
    const char *comm; /* expected when rc == 0 */
    char state;
};

static const struct parse_case parse_cases[] = {
    {"plain", OK_STAT("python3"), 0, 0, "python3", 'S'},
    {"space", OK_STAT("a b"), 0, 0, "a b", 'S'},
    {"parens inside", OK_STAT("x) (y"), 0, 0, "x) (y", 'S'},
    {"open parens", OK_STAT("(("), 0, 0, "((", 'S'},
    {"close paren", OK_STAT(")"), 0, 0, ")", 'S'},
    {"mimics fields", OK_STAT(") R 1 2 3"), 0, 0, ") R 1 2 3", 'S'},
    {"newline", OK_STAT("a\nb"), 0, 0, "a\nb", 'S'},
    {"empty name", OK_STAT(""), 0, 0, "", 'S'},
    {"15 chars", OK_STAT("0123456789abcde"), 0, 0, "0123456789abcde", 'S'},
    {"70 chars cut to 63",
     OK_STAT("0123456789012345678901234567890123456789012345678901234567890123456789"), 0, 0,
     "012345678901234567890123456789012345678901234567890123456789012", 'S'},
    {"zombie", "7 (z) Z 1 1 1 0 -1 0 0 0 0 0 111 222 0 0 20 0 1 0 333 0 444\n", 0, 0, "z", 'Z'},
    {"ends after rss with space", "7 (z) Z 1 1 1 0 -1 0 0 0 0 0 111 222 0 0 20 0 1 0 333 0 444 ", 0,
     0, "z", 'Z'},
    {"empty", "", 0, GM_E_INVAL, NULL, 0},
    {"only pid", "42", 0, GM_E_INVAL, NULL, 0},
    {"no open paren", "42 python3) S 1", 0, GM_E_INVAL, NULL, 0},
    {"no close paren", "42 (python3 S 1 42 42 0 -1 4194304 100 0 0 0 111 222", 0, GM_E_INVAL, NULL,
     0},
    {"unterminated name", "42 (", 0, GM_E_INVAL, NULL, 0},
    {"no pid", "(python3)" TAIL, 0, GM_E_INVAL, NULL, 0},
    {"pid not numeric", "4x (python3)" TAIL, 0, GM_E_INVAL, NULL, 0},
    {"two spaces before name", "42  (python3)" TAIL, 0, GM_E_INVAL, NULL, 0},
    {"no state", "42 (python3)", 0, GM_E_INVAL, NULL, 0},
    {"state not a letter", "42 (p) 1 1 42 42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1 4\n",
     0, GM_E_INVAL, NULL, 0},
    {"missing fields", "42 (python3) S 1 42 42\n", 0, GM_E_INVAL, NULL, 0},
    {"truncated before rss",
     "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1000", 0, GM_E_INVAL, NULL,
     0},
    {"truncated inside rss",
     "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1000 44", 0, GM_E_INVAL,
     NULL, 0},
    {"double space", "42 (p) S 1 42  42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1 4\n", 0,
     GM_E_INVAL, NULL, 0},
    {"utime not numeric", "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 1x1 222 0 0 20 0 1 0 333 1 4\n",
     0, GM_E_INVAL, NULL, 0},
    {"other field not numeric",
     "42 (p) S 1 42 42 0 -1 flags 100 0 0 0 111 222 0 0 20 0 1 0 333 1 4\n", 0, GM_E_INVAL, NULL,
     0},
    {"negative utime", "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 -111 222 0 0 20 0 1 0 333 1 4\n", 0,
     GM_E_INVAL, NULL, 0},
    {"ppid beyond 32 bits",
     "42 (p) S 4294967296 42 42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1 4\n", 0,
     GM_E_INVAL, NULL, 0},
    {"lone minus", "42 (p) S 1 42 42 0 - 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1 4\n", 0,
     GM_E_INVAL, NULL, 0},
    {"utime overflows",
     "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 99999999999999999999999 222 0 0 "
     "20 0 1 0 333 1 4\n",
     0, GM_E_INVAL, NULL, 0},
    {"rss beyond long long",
     "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 111 222 0 0 20 0 1 0 333 1 "
     "9223372036854775808\n",
     0, GM_E_INVAL, NULL, 0},
    {"NUL inside fields",
     "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 111\0 222 0 0 20 0 1 0 333 1 4\n",
     sizeof "42 (p) S 1 42 42 0 -1 4194304 100 0 0 0 111\0 222 0 0 20 0 1 0 333 1 4\n" - 1,
     GM_E_INVAL, NULL, 0},
};

static void test_parse_stat_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const struct parse_case *c = &parse_cases[i];
        size_t len = c->len ? c->len : strlen(c->in);
        /* Exactly len bytes and no terminator: an over-read is a sanitizer error. */
        char *buf = malloc(len ? len : 1);
        struct gm_proc_stat st;
        int rc;

        assert_non_null(buf);
        memcpy(buf, c->in, len);
        memset(&st, 0x5a, sizeof st);
        rc = gm_proc_parse_stat(buf, len, &st);
        if (rc != c->rc)
            fail_msg("case '%s': rc %d, want %d", c->what, rc, c->rc);
        if (rc == 0) {
            if (strcmp(st.comm, c->comm) != 0)
                fail_msg("case '%s': comm '%s', want '%s'", c->what, st.comm, c->comm);
            if (st.state != c->state)
                fail_msg("case '%s': state %c, want %c", c->what, st.state, c->state);
            /* ppid 1 everywhere; session 42 (TAIL), 1 in the zombie rows */
            if (st.ppid != 1 || st.session != (c->state == 'Z' ? 1u : 42u))
                fail_msg("case '%s': ppid %u session %u", c->what, st.ppid, st.session);
            if (st.utime != 111 || st.stime != 222 || st.starttime != 333 || st.rss_pages != 444)
                fail_msg("case '%s': utime %llu stime %llu starttime %llu rss %lld", c->what,
                         st.utime, st.stime, st.starttime, st.rss_pages);
        }
        free(buf);
    }
}

static void test_parse_stat_null(void **state)
{
    struct gm_proc_stat st;

    (void)state;
    assert_int_equal(gm_proc_parse_stat(NULL, 10, &st), GM_E_INVAL);
    assert_int_equal(gm_proc_parse_stat("1 (a) S", 7, NULL), GM_E_INVAL);
}

/* A valid line whose length argument stops short of the end is truncated. */
static void test_parse_stat_every_prefix(void **state)
{
    static const char line[] = OK_STAT("a) b");
    struct gm_proc_stat st;
    size_t full = sizeof line - 1;

    (void)state;
    /* Every cut before the space or newline that ends rss must be rejected. */
    const char *rss_end = strstr(line, " 444 ") + 4;
    for (size_t len = 0; len < (size_t)(rss_end - line); len++) {
        char *buf = malloc(len ? len : 1);
        assert_non_null(buf);
        memcpy(buf, line, len);
        if (gm_proc_parse_stat(buf, len, &st) != GM_E_INVAL)
            fail_msg("prefix of %zu bytes accepted", len);
        free(buf);
    }
    for (size_t len = (size_t)(rss_end - line) + 1; len <= full; len++) {
        char *buf = malloc(len);
        assert_non_null(buf);
        memcpy(buf, line, len);
        if (gm_proc_parse_stat(buf, len, &st) != 0)
            fail_msg("prefix of %zu bytes rejected", len);
        assert_int_equal(st.rss_pages, 444);
        free(buf);
    }
}

/* ------------------------------------------------------------------------ */
/* Fixture tree                                                              */

struct fixture_case {
    uint32_t pid;
    enum gm_host_state hs;
    char state_char;
    const char *name;    /* expected name */
    uint32_t uid;        /* expected uid (user is computed from it); ~0u: not checked */
    const char *cmdline; /* NULL: expect NULL */
    const char *cgroup;  /* NULL: expect NULL */
    uint64_t starttime;  /* ticks; checked when the values are OK */
    uint64_t rss_pages;
    enum gm_vstatus vs; /* status of start_time, elapsed, rss */
};

static const struct fixture_case fixture_cases[] = {
    /* Real uid 0 although the effective uid is 65534; exe readlink fails (no link). */
    {100, GM_HS_ALIVE, 'S', "python3", 0, "python3 train.py --lr 0.1",
     "/user.slice/user-1000.slice/session-3.scope", 12345, 2560, GM_VS_OK},
    {101, GM_HS_ZOMBIE, 'Z', "my job", 0, NULL, "/system.slice/trainer.service", 20000, 0,
     GM_VS_OK},
    {102, GM_HS_ALIVE, 'I', "kworker/0:1-events", 0, NULL, "/", 10, 0, GM_VS_OK},
    {103, GM_HS_ALIVE, 'R', "x) (y", 0, "./run --name  a b", "/", 12345, 2560, GM_VS_OK},
    {104, GM_HS_ALIVE, 'S', "ghost", 3999999999u, "ghost", "/", 12345, 2560, GM_VS_OK},
    {105, GM_HS_ALIVE, 'S', "srun", 0, "srun", "/slurm/uid_1000/job_42/step_0", 12345, 2560,
     GM_VS_OK},
    /* Exists but its stat is truncated: values are errors, not zeros. */
    {106, GM_HS_ALIVE, 0, "nvml-name-106", ~0u, NULL, NULL, 0, 0, GM_VS_ERROR},
    {107, GM_HS_ZOMBIE, 'X', "dying", 0, NULL, NULL, 12345, 2560, GM_VS_OK},
    /* No such PID: the NVML name stays, values are NA. */
    {999, GM_HS_GONE, 0, "nvml-name-999", ~0u, NULL, NULL, 0, 0, GM_VS_NA},
};

static void check_fixture(const struct gm_proc *p, const struct fixture_case *c, int64_t wall_ns)
{
    if (p->host_state != c->hs)
        fail_msg("pid %u: host_state %s, want %s", c->pid, gm_host_state_name(p->host_state),
                 gm_host_state_name(c->hs));
    assert_int_equal(p->state_char, c->state_char);
    /* the name shown: /proc's comm when known, else the name NVML reported */
    assert_string_equal(p->comm[0] ? p->comm : p->name, c->name);
    if (c->uid != ~0u) {
        char user[40];
        assert_int_equal(p->uid, c->uid);
        user_of(c->uid, user, sizeof user);
        assert_string_equal(p->user, user);
    } else {
        assert_string_equal(p->user, "");
    }
    if (c->cmdline)
        assert_string_equal(p->cmdline, c->cmdline);
    else
        assert_null(p->cmdline);
    if (c->cgroup)
        assert_string_equal(p->cgroup, c->cgroup);
    else
        assert_null(p->cgroup);
    assert_null(p->exe); /* no exe links in the committed tree */

    assert_int_equal(p->start_time.status, c->vs);
    assert_int_equal(p->elapsed.status, c->vs);
    assert_int_equal(p->rss.status, c->vs);
    if (c->vs == GM_VS_OK) {
        assert_int_equal(p->start_time.v.u, start_ns(c->starttime));
        assert_true(p->elapsed.type == GM_VT_F64);
        double want = (double)(wall_ns - (int64_t)start_ns(c->starttime)) / 1e9;
        assert_true(p->elapsed.v.d > want - 1e-6 && p->elapsed.v.d < want + 1e-6);
        assert_int_equal(p->rss.v.u, c->rss_pages * page_size());
        assert_int_equal(p->cpu.status, GM_VS_NA); /* first sight */
    } else {
        assert_int_equal(p->cpu.status, c->vs);
    }
}

static void test_fixture_table(void **state)
{
    const size_t n = sizeof fixture_cases / sizeof fixture_cases[0];
    const int64_t wall = (BTIME + 86400) * NS;
    const int fds = count_fds();
    struct gm_procfs *pf = gm_procfs_new(FIXTURES);
    struct gm_snapshot *s = snap_new(5 * NS, wall);

    (void)state;
    for (size_t i = 0; i < n; i++)
        snap_add(s, (uint32_t)(i % 2), fixture_cases[i].pid);
    gm_procfs_enrich(pf, s);
    assert_int_equal(s->nproc, n);
    for (size_t i = 0; i < n; i++)
        check_fixture(&s->procs[i], &fixture_cases[i], wall);

    /* A second pass over the same snapshot replaces the strings (no leak, no
     * double free under the sanitizers) and now has CPU % for the living. */
    s->mono_ns += 2 * NS;
    gm_procfs_enrich(pf, s);
    for (size_t i = 0; i < n; i++) {
        const struct gm_proc *p = &s->procs[i];
        if (fixture_cases[i].vs == GM_VS_OK) {
            assert_int_equal(p->cpu.status, GM_VS_OK);
            assert_true(p->cpu.v.d == 0.0); /* the files did not change */
        }
        if (fixture_cases[i].cmdline)
            assert_string_equal(p->cmdline, fixture_cases[i].cmdline);
    }
    gm_snapshot_free(s);

    /* Stat files stay open between calls; a call without those PIDs, and
     * then free, close every descriptor procfs opened. */
    assert_true(count_fds() > fds);
    s = snap_new(9 * NS, wall);
    gm_procfs_enrich(pf, s);
    gm_snapshot_free(s);
    assert_int_equal(count_fds(), fds + 1); /* the root directory */
    gm_procfs_free(pf);
    assert_int_equal(count_fds(), fds);
}

/* One process on two GPUs, and a gone one in between: /proc is read once
 * per PID, and every entry gets its own copy of the strings. */
static void test_same_pid_two_gpus(void **state)
{
    struct gm_procfs *pf = gm_procfs_new(FIXTURES);
    struct gm_snapshot *s = snap_new(NS, (BTIME + 100) * NS);

    (void)state;
    snap_add(s, 0, 100);
    snap_add(s, 1, 999);
    snap_add(s, 1, 100);
    snap_add(s, 2, 999);
    gm_procfs_enrich(pf, s);

    const struct gm_proc *a = &s->procs[0], *b = &s->procs[2];
    assert_int_equal(b->gpu, 1);
    assert_int_equal(b->host_state, GM_HS_ALIVE);
    assert_string_equal(b->comm, "python3");
    assert_string_equal(b->user, a->user);
    assert_int_equal(b->state_char, 'S');
    assert_int_equal(b->rss.status, GM_VS_OK);
    assert_int_equal(b->rss.v.u, a->rss.v.u);
    assert_int_equal(b->start_time.v.u, a->start_time.v.u);
    assert_string_equal(b->cmdline, a->cmdline);
    assert_string_equal(b->cgroup, a->cgroup);
    assert_ptr_not_equal(b->cmdline, a->cmdline);
    assert_ptr_not_equal(b->cgroup, a->cgroup);

    /* The gone PID's second entry keeps its own NVML name. */
    assert_int_equal(s->procs[3].host_state, GM_HS_GONE);
    assert_int_equal(s->procs[3].rss.status, GM_VS_NA);
    assert_string_equal(s->procs[3].name, "nvml-name-999");

    gm_snapshot_free(s);
    gm_procfs_free(pf);
}

/* exe links are made at test time: git fixtures hold no symlinks. */
static void test_exe_symlink(void **state)
{
    static const char *const files[] = {"stat", "status", "cmdline", "cgroup"};
    struct tmproot t;
    char cwd[PATH_MAX], src[PATH_MAX + 64], dst[256];

    (void)state;
    tmp_init(&t);
    assert_non_null(getcwd(cwd, sizeof cwd));
    tmp_root_stat(&t);
    tmp_puts(&t, "100/.keep", "");
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(src, sizeof src, "%s/" FIXTURES "/100/%s", cwd, files[i]);
        snprintf(dst, sizeof dst, "%s/100/%s", t.dir, files[i]);
        assert_int_equal(symlink(src, dst), 0);
    }
    snprintf(dst, sizeof dst, "%s/100/exe", t.dir);
    assert_int_equal(symlink("/opt/conda/envs/train/bin/python3.11 (deleted)", dst), 0);

    struct gm_procfs *pf = gm_procfs_new(t.dir);
    struct gm_snapshot *s = snap_new(NS, (BTIME + 100) * NS);
    snap_add(s, 0, 100);
    gm_procfs_enrich(pf, s);
    assert_int_equal(s->procs[0].host_state, GM_HS_ALIVE);
    assert_string_equal(s->procs[0].exe, "/opt/conda/envs/train/bin/python3.11 (deleted)");
    assert_string_equal(s->procs[0].cmdline, "python3 train.py --lr 0.1");
    gm_snapshot_free(s);
    gm_procfs_free(pf);
    tmp_cleanup(&t);
}

/* ------------------------------------------------------------------------ */
/* CPU %, PID reuse, forgetting, caching                                     */

static struct gm_proc enrich_one_pid(struct gm_procfs *pf, uint32_t pid, int64_t mono_ns,
                                     char *cmdline, size_t cmdlen)
{
    struct gm_snapshot *s = snap_new(mono_ns, (BTIME + 1000) * NS + mono_ns);
    struct gm_proc out;

    snap_add(s, 0, pid);
    gm_procfs_enrich(pf, s);
    out = s->procs[0];
    if (cmdline)
        snprintf(cmdline, cmdlen, "%s", out.cmdline ? out.cmdline : "(null)");
    out.cmdline = out.exe = out.cgroup = NULL; /* freed with s */
    gm_snapshot_free(s);
    return out;
}

static void test_cpu_percent(void **state)
{
    const unsigned long long hz = clk_tck();
    struct tmproot t;
    struct gm_procfs *pf;
    struct gm_proc p;

    (void)state;
    tmp_init(&t);
    tmp_root_stat(&t);
    tmp_puts(&t, "200/status", "Name:\tw\nUid:\t0\t0\t0\t0\n");

    pf = gm_procfs_new(t.dir);

    /* First sight: NA, not 0. */
    tmp_stat(&t, 200, "worker", 'R', 100, 50, 5000, 10);
    p = enrich_one_pid(pf, 200, 10 * NS, NULL, 0);
    assert_int_equal(p.host_state, GM_HS_ALIVE);
    assert_int_equal(p.cpu.status, GM_VS_NA);

    /* One second of CPU (utime + stime) in two seconds: 50 %. */
    tmp_stat(&t, 200, "worker", 'R', 100 + hz / 2, 50 + hz / 2, 5000, 10);
    p = enrich_one_pid(pf, 200, 12 * NS, NULL, 0);
    assert_int_equal(p.cpu.status, GM_VS_OK);
    assert_int_equal(p.cpu.type, GM_VT_F64);
    assert_true(p.cpu.v.d > 49.999 && p.cpu.v.d < 50.001);

    /* Four cores busy for half a second: 400 % (percent of one core). */
    tmp_stat(&t, 200, "worker", 'R', 100 + hz / 2 + hz, 50 + hz / 2 + hz, 5000, 10);
    p = enrich_one_pid(pf, 200, 12 * NS + NS / 2, NULL, 0);
    assert_int_equal(p.cpu.status, GM_VS_OK);
    assert_true(p.cpu.v.d > 399.99 && p.cpu.v.d < 400.01);

    /* The PID was reused (another starttime): NA again, even though the new
     * process's counters are larger. */
    tmp_stat(&t, 200, "worker", 'R', 100000, 100000, 9000, 10);
    p = enrich_one_pid(pf, 200, 14 * NS, NULL, 0);
    assert_int_equal(p.cpu.status, GM_VS_NA);
    assert_int_equal(p.start_time.v.u, start_ns(9000));

    /* ... and the new process is measured from there on. */
    tmp_stat(&t, 200, "worker", 'R', 100000 + hz, 100000, 9000, 10);
    p = enrich_one_pid(pf, 200, 16 * NS, NULL, 0);
    assert_int_equal(p.cpu.status, GM_VS_OK);
    assert_true(p.cpu.v.d > 49.999 && p.cpu.v.d < 50.001);

    /* Same monotonic time twice (no interval): NA rather than a division by 0. */
    p = enrich_one_pid(pf, 200, 16 * NS, NULL, 0);
    assert_int_equal(p.cpu.status, GM_VS_NA);

    /* A call without the PID forgets it: when it comes back, NA again. */
    p = enrich_one_pid(pf, 201, 17 * NS, NULL, 0);
    assert_int_equal(p.host_state, GM_HS_GONE);
    assert_int_equal(p.cpu.status, GM_VS_NA);
    p = enrich_one_pid(pf, 200, 18 * NS, NULL, 0);
    assert_int_equal(p.cpu.status, GM_VS_NA);

    gm_procfs_free(pf);
    tmp_cleanup(&t);
}

/* uid, cmdline and exe are read once per process life and again at the
 * latest 60 s later; the cgroup at the latest 10 s later (procfs.c); an exec
 * (comm changes) and PID reuse read everything at once.  Until half the
 * period has passed the kept values are used, files or no files. */
static void test_info_cache(void **state)
{
    struct tmproot t;
    struct gm_procfs *pf;
    struct gm_proc p;
    char cmd[128];

    (void)state;
    tmp_init(&t);
    tmp_root_stat(&t);
    tmp_puts(&t, "300/status", "Uid:\t0\t0\t0\t0\n");
    tmp_write(&t, "300/cmdline", "python\0a.py\0", 12);
    tmp_stat(&t, 300, "python", 'S', 1, 1, 7000, 1);
    pf = gm_procfs_new(t.dir);

    p = enrich_one_pid(pf, 300, 100 * NS, cmd, sizeof cmd);
    assert_int_equal(p.host_state, GM_HS_ALIVE);
    assert_string_equal(cmd, "python a.py");

    /* setproctitle-style change: the kept one for the first 30 s, the new
     * one at the latest 60 s after the last read. */
    tmp_write(&t, "300/cmdline", "ray::Worker\0", 12);
    for (int64_t at = 101; at < 130; at += 7) {
        p = enrich_one_pid(pf, 300, at * NS, cmd, sizeof cmd);
        assert_int_equal(p.cpu.status, GM_VS_OK);
        assert_string_equal(cmd, "python a.py");
    }
    p = enrich_one_pid(pf, 300, 160 * NS, cmd, sizeof cmd);
    assert_int_equal(p.cpu.status, GM_VS_OK);
    assert_string_equal(cmd, "ray::Worker");

    /* exec: comm changes, everything is read again at once. */
    tmp_write(&t, "300/cmdline", "/usr/bin/sleep\0inf\0", 19);
    tmp_stat(&t, 300, "sleep", 'S', 1, 1, 7000, 1);
    p = enrich_one_pid(pf, 300, 161 * NS, cmd, sizeof cmd);
    assert_string_equal(cmd, "/usr/bin/sleep inf");
    assert_string_equal(p.comm, "sleep");

    /* PID reuse with the same comm: read again. */
    tmp_write(&t, "300/cmdline", "sleep\0forever\0", 14);
    tmp_stat(&t, 300, "sleep", 'S', 1, 1, 8000, 1);
    p = enrich_one_pid(pf, 300, 162 * NS, cmd, sizeof cmd);
    assert_string_equal(cmd, "sleep forever");
    assert_int_equal(p.cpu.status, GM_VS_NA);

    gm_procfs_free(pf);
    tmp_cleanup(&t);
}

/* A pid reused by a new process (another start time) inherits nothing of
 * the old entry: not its user, command line, cgroup, job or CPU history,
 * even when the new one's files are missing and would otherwise be "kept",
 * and whatever the pid (the re-read periods are spread by pid). */
static void test_pid_reuse_fresh(void **state)
{
    static const uint32_t pids[] = {400, 401, 402, 4093, 65535};
    struct tmproot t;

    (void)state;
    tmp_init(&t);
    tmp_root_stat(&t);
    for (size_t k = 0; k < sizeof pids / sizeof pids[0]; k++) {
        const uint32_t pid = pids[k];
        char rel[64];
        struct gm_procfs *pf = gm_procfs_new(t.dir);
        struct gm_snapshot *s;

        snprintf(rel, sizeof rel, "%u/status", pid);
        tmp_puts(&t, rel, "Uid:\t0\t0\t0\t0\n");
        snprintf(rel, sizeof rel, "%u/cmdline", pid);
        tmp_write(&t, rel, "old\0job\0", 8);
        snprintf(rel, sizeof rel, "%u/cgroup", pid);
        tmp_puts(&t, rel, "0::/slurm/uid_0/job_4242/step_0/task_0\n");
        tmp_stat(&t, pid, "python", 'S', 10, 10, 7000, 1);
        s = snap_new(100 * NS, (BTIME + 1000) * NS);
        snap_add(s, 0, pid);
        gm_procfs_enrich(pf, s);
        assert_string_equal(s->procs[0].cmdline, "old job");
        assert_string_equal(s->procs[0].attrib.slurm_job, "4242");
        assert_string_equal(s->procs[0].cgroup, "/slurm/uid_0/job_4242/step_0/task_0");
        gm_snapshot_free(s);

        /* one second later the pid is another process, same comm, whose
         * status, cmdline and cgroup cannot be read */
        snprintf(rel, sizeof rel, "%u/status", pid);
        tmp_puts(&t, rel, "");
        snprintf(rel, sizeof rel, "%u/cmdline", pid);
        tmp_write(&t, rel, "", 0);
        snprintf(rel, sizeof rel, "%u/cgroup", pid);
        tmp_puts(&t, rel, "");
        tmp_stat(&t, pid, "python", 'S', 50, 50, 7100, 1);
        s = snap_new(101 * NS, (BTIME + 1001) * NS);
        snap_add(s, 0, pid);
        gm_procfs_enrich(pf, s);
        assert_int_equal(s->procs[0].host_state, GM_HS_ALIVE);
        assert_null(s->procs[0].cmdline);
        assert_null(s->procs[0].cgroup);
        assert_string_equal(s->procs[0].attrib.slurm_job, "");
        assert_string_equal(s->procs[0].user, "");
        assert_int_equal(s->procs[0].cpu.status, GM_VS_NA);
        assert_int_equal(s->procs[0].start_time.v.u, start_ns(7100));
        gm_snapshot_free(s);
        gm_procfs_free(pf);
    }
    tmp_cleanup(&t);
}

/* A process moved into a job's cgroup (a Slurm step adopting it, a
 * container runtime) is attributed to the job at the latest 10 s after the
 * move, and the cgroup is not read in every sample before that: for the
 * first 5 s after a read the kept one is used. */
static void test_cgroup_move(void **state)
{
    static const uint32_t pids[] = {500, 501, 502, 777, 65000};
    struct tmproot t;

    (void)state;
    tmp_init(&t);
    tmp_root_stat(&t);
    for (size_t k = 0; k < sizeof pids / sizeof pids[0]; k++) {
        const uint32_t pid = pids[k];
        char rel[64];
        struct gm_procfs *pf = gm_procfs_new(t.dir);
        struct gm_snapshot *s;
        int64_t at;

        snprintf(rel, sizeof rel, "%u/status", pid);
        tmp_puts(&t, rel, "Uid:\t1001\t1001\t1001\t1001\n");
        snprintf(rel, sizeof rel, "%u/cgroup", pid);
        tmp_puts(&t, rel, "0::/user.slice/user-1001.slice/session-3.scope\n");
        tmp_stat(&t, pid, "python", 'S', 10, 10, 7000, 1);
        s = snap_new(100 * NS, (BTIME + 1000) * NS);
        snap_add(s, 0, pid);
        gm_procfs_enrich(pf, s);
        assert_string_equal(s->procs[0].attrib.slurm_job, "");
        gm_snapshot_free(s);

        snprintf(rel, sizeof rel, "%u/cgroup", pid);
        tmp_puts(&t, rel, "0::/slurm/uid_1001/job_99/step_0/task_0\n");
        for (at = 100 * NS + NS / 2; at < 105 * NS; at += NS) {
            s = snap_new(at, (BTIME + 1000) * NS + at - 100 * NS);
            snap_add(s, 0, pid);
            gm_procfs_enrich(pf, s);
            assert_string_equal(s->procs[0].attrib.slurm_job, ""); /* kept */
            gm_snapshot_free(s);
        }
        /* a sample a second: the move shows in the first sample 10 s after
         * the first read, or before */
        int seen = 0;
        for (; at < 111 * NS && !seen; at += NS) {
            s = snap_new(at, (BTIME + 1000) * NS + at - 100 * NS);
            snap_add(s, 0, pid);
            gm_procfs_enrich(pf, s);
            seen = strcmp(s->procs[0].attrib.slurm_job, "99") == 0;
            if (seen)
                assert_string_equal(s->procs[0].cgroup, "/slurm/uid_1001/job_99/step_0/task_0");
            gm_snapshot_free(s);
        }
        assert_true(seen);
        /* read again unchanged: still the job; then out of it (no cgroup
         * file): seen within another 10 s */
        int64_t last = at;
        for (; at < last + 6 * NS; at += NS) {
            s = snap_new(at, (BTIME + 1000) * NS + at - 100 * NS);
            snap_add(s, 0, pid);
            gm_procfs_enrich(pf, s);
            assert_string_equal(s->procs[0].attrib.slurm_job, "99");
            gm_snapshot_free(s);
        }
        snprintf(rel, sizeof rel, "%u/cgroup", pid);
        tmp_puts(&t, rel, "");
        seen = 0;
        for (; at < last + 17 * NS && !seen; at += NS) {
            s = snap_new(at, (BTIME + 1000) * NS + at - 100 * NS);
            snap_add(s, 0, pid);
            gm_procfs_enrich(pf, s);
            seen = s->procs[0].cgroup == NULL && s->procs[0].attrib.slurm_job[0] == '\0';
            gm_snapshot_free(s);
        }
        assert_true(seen);
        gm_procfs_free(pf);
    }
    tmp_cleanup(&t);
}

/* Hundreds of short-lived processes, fifty alive in each sample: the
 * cache holds those of the last sample only, and keeps no descriptor of a
 * process that has gone. */
static void test_cache_bounded(void **state)
{
    struct tmproot t;
    struct gm_procfs *pf;
    const int fds = count_fds();

    (void)state;
    tmp_init(&t);
    tmp_root_stat(&t);
    pf = gm_procfs_new(t.dir);
    for (uint32_t round = 0; round < 10; round++) {
        struct gm_snapshot *s = snap_new((100 + round) * NS, (BTIME + 1000 + round) * NS);
        for (uint32_t k = 0; k < 50; k++) {
            uint32_t pid = 1000 + round * 50 + k;
            tmp_stat(&t, pid, "short", 'S', 1, 1, 7000 + round, 1);
            snap_add(s, k % 8, pid);
        }
        gm_procfs_enrich(pf, s);
        for (uint32_t k = 0; k < 50; k++)
            assert_int_equal(s->procs[k].host_state, GM_HS_ALIVE);
        gm_snapshot_free(s);
        assert_int_equal(gm_procfs_tracked(pf), 50);
        assert_true(count_fds() <= fds + 1 + 50); /* the root, a stat file each */
        /* this round's processes exit */
        for (uint32_t k = 0; k < 50; k++) {
            char rel[32], path[256];
            snprintf(rel, sizeof rel, "%u", 1000 + round * 50 + k);
            tmp_path(&t, rel, path, sizeof path);
            assert_int_equal(nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
        }
    }
    /* a sample with none of them: nothing kept */
    struct gm_snapshot *s = snap_new(200 * NS, (BTIME + 1100) * NS);
    gm_procfs_enrich(pf, s);
    gm_snapshot_free(s);
    assert_int_equal(gm_procfs_tracked(pf), 0);
    assert_int_equal(count_fds(), fds + 1);
    gm_procfs_free(pf);
    tmp_cleanup(&t);
}

/* Without ROOT/stat the boot time comes from the clocks; without the root
 * directory everything is an error, not a GONE. */
static void test_missing_root(void **state)
{
    struct tmproot t;
    struct gm_procfs *pf;
    struct gm_proc p;
    char missing[128];

    (void)state;
    tmp_init(&t);
    tmp_stat(&t, 400, "x", 'S', 1, 1, 100, 1);
    pf = gm_procfs_new(t.dir);
    p = enrich_one_pid(pf, 400, NS, NULL, 0);
    assert_int_equal(p.host_state, GM_HS_ALIVE);
    assert_int_equal(p.start_time.status, GM_VS_OK);
    struct timespec rt, bt;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_BOOTTIME, &bt);
    int64_t boot = (rt.tv_sec - bt.tv_sec) * NS + (rt.tv_nsec - bt.tv_nsec);
    int64_t want = boot + (int64_t)(100 * NS / (int64_t)clk_tck());
    assert_true(llabs((long long)p.start_time.v.u - want) < NS / 10);
    assert_string_equal(p.user, ""); /* no status file */
    gm_procfs_free(pf);

    snprintf(missing, sizeof missing, "%s/nope", t.dir);
    pf = gm_procfs_new(missing);
    p = enrich_one_pid(pf, 400, NS, NULL, 0);
    assert_int_equal(p.host_state, GM_HS_UNKNOWN);
    assert_int_equal(p.rss.status, GM_VS_ERROR);
    assert_int_equal(p.cpu.status, GM_VS_ERROR);
    gm_procfs_free(pf);
    tmp_cleanup(&t);
}

/* Long command lines go past the 4 KiB stack buffer. */
static void test_long_cmdline(void **state)
{
    enum { ARGS = 2000 };
    struct tmproot t;
    struct gm_procfs *pf;
    struct gm_snapshot *s;
    char *raw = malloc(ARGS * 5);
    size_t len = 0;

    (void)state;
    assert_non_null(raw);
    for (int i = 0; i < ARGS; i++) {
        memcpy(raw + len, "arg", 3);
        raw[len + 3] = (char)('0' + i % 10);
        raw[len + 4] = '\0';
        len += 5;
    }
    tmp_init(&t);
    tmp_root_stat(&t);
    tmp_stat(&t, 500, "many", 'S', 1, 1, 100, 1);
    tmp_write(&t, "500/cmdline", raw, len);
    pf = gm_procfs_new(t.dir);
    s = snap_new(NS, NS);
    snap_add(s, 0, 500);
    gm_procfs_enrich(pf, s);
    assert_non_null(s->procs[0].cmdline);
    assert_int_equal(strlen(s->procs[0].cmdline), len - 1);
    assert_memory_equal(s->procs[0].cmdline, "arg0 arg1 arg2 ", 15);
    assert_string_equal(s->procs[0].cmdline + len - 5, "arg9");
    gm_snapshot_free(s);

    /* Past 32 KiB the command line is cut (and still terminated). */
    free(raw);
    raw = malloc(40000);
    assert_non_null(raw);
    memset(raw, 'x', 40000);
    tmp_write(&t, "500/cmdline", raw, 40000);
    s = snap_new(100 * NS, NS);
    snap_add(s, 0, 500);
    gm_procfs_enrich(pf, s);
    assert_non_null(s->procs[0].cmdline);
    assert_int_equal(strlen(s->procs[0].cmdline), 32 * 1024 - 1);
    gm_snapshot_free(s);

    gm_procfs_free(pf);
    tmp_cleanup(&t);
    free(raw);
}

/* ------------------------------------------------------------------------ */
/* Access denied                                                             */

/* Runs in a child with a uid that cannot enter a mode-0700 directory: returns
 * a bit mask of failed checks (0 = all passed). */
static int hidden_checks(const char *root, uid_t owner)
{
    char want[40];
    int bad = 0;
    struct gm_procfs *pf = gm_procfs_new(root);
    struct gm_snapshot *s = snap_new(NS, (BTIME + 100) * NS);
    struct gm_proc *p;

    snap_add(s, 0, 600);
    gm_procfs_enrich(pf, s);
    p = &s->procs[0];
    user_of(owner, want, sizeof want);
    bad |= (p->host_state != GM_HS_HIDDEN) << 0;
    bad |= (p->rss.status != GM_VS_NOPERM) << 1;
    bad |= (p->cpu.status != GM_VS_NOPERM) << 2;
    bad |= (p->start_time.status != GM_VS_NOPERM) << 3;
    bad |= (strcmp(p->name, "nvml-name-600") != 0) << 4;
    bad |= (strcmp(p->user, want) != 0) << 5; /* the directory's owner */
    bad |= (p->cmdline != NULL) << 6;
    gm_snapshot_free(s);
    gm_procfs_free(pf);

    /* The real init process: readable, but its exe link is refused (EACCES),
     * which is no error.  Only meaningful when init is not ours. */
    struct stat st;
    if (stat("/proc/1", &st) == 0 && st.st_uid != getuid()) {
        pf = gm_procfs_new("/proc");
        s = snap_new(NS, (BTIME + 100) * NS);
        snap_add(s, 0, 1);
        gm_procfs_enrich(pf, s);
        p = &s->procs[0];
        bad |= (p->host_state != GM_HS_ALIVE) << 7;
        bad |= (p->exe != NULL) << 8;
        bad |= (p->rss.status != GM_VS_OK) << 9;
        gm_snapshot_free(s);
        gm_procfs_free(pf);
    }
    return bad;
}

static void test_hidden(void **state)
{
    struct tmproot t;
    char dir[256];
    pid_t child;
    int status;

    (void)state;
    tmp_init(&t);
    tmp_root_stat(&t);
    tmp_stat(&t, 600, "secret", 'S', 1, 1, 100, 1);
    assert_int_equal(chmod(t.dir, 0755), 0);
    tmp_path(&t, "600", dir, sizeof dir);
    assert_int_equal(chmod(dir, geteuid() == 0 ? 0700 : 0), 0);

    uid_t owner = geteuid(); /* of the directory: the child may change uid */
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        if (owner == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
            _exit(100);
        _exit(hidden_checks(t.dir, owner));
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("hidden checks failed: mask 0x%x", WEXITSTATUS(status));

    assert_int_equal(chmod(dir, 0755), 0);
    tmp_cleanup(&t);
}

/* ------------------------------------------------------------------------ */
/* The real /proc                                                            */

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void test_real_self(void **state)
{
    struct gm_procfs *pf = gm_procfs_new("/proc");
    struct gm_snapshot *s;
    struct gm_proc *p;
    struct passwd *pw = getpwuid(getuid());
    volatile double sink = 0;

    (void)state;
    s = snap_new(clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME));
    snap_add(s, 0, (uint32_t)getpid());
    gm_procfs_enrich(pf, s);
    p = &s->procs[0];
    assert_int_equal(p->host_state, GM_HS_ALIVE);
    assert_int_equal(p->state_char, 'R');
    assert_int_equal(p->uid, getuid());
    assert_non_null(pw);
    assert_string_equal(p->user, pw->pw_name);
    assert_non_null(p->cmdline);
    assert_non_null(strstr(p->cmdline, "test_procfs"));
    assert_non_null(p->exe);
    /* Under an emulator (make check-arm64: meson's exe wrapper,
     * qemu-aarch64-static) the kernel's /proc/PID/exe is the emulator:
     * what gpumon reads is then exactly that file. */
    const char *wrapper = getenv("MESON_EXE_WRAPPER");
    if (wrapper && *wrapper && !strchr(wrapper, ' '))
        assert_string_equal(p->exe, wrapper);
    else
        assert_non_null(strstr(p->exe, "test_procfs"));
    assert_non_null(p->cgroup);
    assert_int_equal(p->cgroup[0], '/');
    assert_int_equal(p->cpu.status, GM_VS_NA);
    assert_int_equal(p->rss.status, GM_VS_OK);
    assert_true(p->rss.v.u > 0);
    assert_int_equal(p->start_time.status, GM_VS_OK);
    assert_true((int64_t)p->start_time.v.u <= s->wall_ns + NS);
    assert_true(p->elapsed.v.d >= 0 && p->elapsed.v.d < 3600);
    gm_snapshot_free(s);

    /* Burn 50 ms of CPU (not of wall clock, which a loaded machine fills
     * with others' work) so the second sample has something to measure. */
    int64_t until = clock_ns(CLOCK_PROCESS_CPUTIME_ID) + 50 * 1000000;
    while (clock_ns(CLOCK_PROCESS_CPUTIME_ID) < until)
        for (int i = 0; i < 1000; i++)
            sink += i * 0.5;
    assert_true(sink > 0);

    s = snap_new(clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME));
    snap_add(s, 0, (uint32_t)getpid());
    gm_procfs_enrich(pf, s);
    p = &s->procs[0];
    assert_int_equal(p->cpu.status, GM_VS_OK);
    /* 50 ms of CPU is 5 clock ticks: some share was measured */
    assert_true(p->cpu.v.d > 0 && p->cpu.v.d < 100.0 * (double)sysconf(_SC_NPROCESSORS_ONLN) + 1);
    gm_snapshot_free(s);
    gm_procfs_free(pf);
}

/* A child's life on the real /proc: ALIVE, then ZOMBIE until reaped, then
 * GONE.  The stat file kept open between samples must notice each step. */
static void test_real_child_lifecycle(void **state)
{
    struct gm_procfs *pf = gm_procfs_new("/proc");
    struct gm_proc p;
    int pipefd[2];
    char c = 0;
    pid_t child;

    (void)state;
    assert_int_equal(pipe(pipefd), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(pipefd[1]);
        while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(pipefd[0]);

    /* Wait until the child blocks in read(): state S (a loaded machine may
     * take its time to run it: the deadline is 60 s, not 2). */
    int64_t until = clock_ns(CLOCK_MONOTONIC) + 60 * NS;
    for (;;) {
        p = enrich_one_pid(pf, (uint32_t)child, clock_ns(CLOCK_MONOTONIC), NULL, 0);
        if (p.state_char == 'S' || clock_ns(CLOCK_MONOTONIC) > until)
            break;
        usleep(10000);
    }
    assert_int_equal(p.host_state, GM_HS_ALIVE);
    assert_int_equal(p.state_char, 'S');
    assert_int_equal(p.rss.status, GM_VS_OK);

    /* Let it exit, unreaped. */
    assert_int_equal(write(pipefd[1], &c, 1), 1);
    close(pipefd[1]);
    until = clock_ns(CLOCK_MONOTONIC) + 60 * NS;
    for (;;) {
        p = enrich_one_pid(pf, (uint32_t)child, clock_ns(CLOCK_MONOTONIC), NULL, 0);
        if (p.host_state == GM_HS_ZOMBIE || clock_ns(CLOCK_MONOTONIC) > until)
            break;
        usleep(10000);
    }
    assert_int_equal(p.host_state, GM_HS_ZOMBIE);
    assert_int_equal(p.state_char, 'Z');
    assert_int_equal(p.cpu.status, GM_VS_OK); /* same process as in the last sample */

    /* Reaped: the PID no longer exists. */
    assert_int_equal(waitpid(child, NULL, 0), child);
    p = enrich_one_pid(pf, (uint32_t)child, clock_ns(CLOCK_MONOTONIC), NULL, 0);
    assert_int_equal(p.host_state, GM_HS_GONE);
    assert_int_equal(p.state_char, 0);
    assert_int_equal(p.cpu.status, GM_VS_NA);
    assert_int_equal(p.rss.status, GM_VS_NA);
    gm_procfs_free(pf);
}

/* A PID nobody has (kill says ESRCH) is GONE on the real /proc too. */
static void test_real_gone(void **state)
{
    struct gm_procfs *pf = gm_procfs_new("/proc");
    struct gm_snapshot *s = snap_new(clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME));
    pid_t pid = 4194303;

    (void)state;
    while (pid > 2 && !(kill(pid, 0) < 0 && errno == ESRCH))
        pid--;
    snap_add(s, 0, (uint32_t)pid);
    gm_procfs_enrich(pf, s);
    assert_int_equal(s->procs[0].host_state, GM_HS_GONE);
    assert_int_equal(s->procs[0].rss.status, GM_VS_NA);
    assert_null(s->procs[0].cmdline);
    gm_snapshot_free(s);
    gm_procfs_free(pf);
}

/* ------------------------------------------------------------------------ */
/* The simulator's view (procfs.h: gm_procfs_set_sim)                        */

static unsigned fake_calls;

/* A view that knows 4194400 (alive) and nothing else; it also answers for
 * 100, which must never be asked (host pids come from the root). */
static int fake_view(unsigned int pid, const char *file, char *buf, size_t cap)
{
    static const struct {
        const char *file, *text;
        size_t len;
    } files[] = {
        {"stat",
         "4194400 (python3) S 1 4194400 4194400 0 -1 4194560 0 0 0 0 300 0 0 0 20 0 1 0 "
         "12345 0 512\n",
         0},
        {"status", "Name:\tpython3\nUid:\t4242\t4242\t4242\t4242\nNSpid:\t4194400\n", 0},
        {"cmdline",
         "python3\0train.py\0--rank\0"
         "0\0",
         25},
        {"cgroup", "0::/user.slice/user-4242.slice/session-gpusim.scope\n", 0},
    };
    fake_calls++;
    if (pid != 4194400 && pid != 100)
        return -ENOENT;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (strcmp(file, files[i].file) != 0)
            continue;
        size_t len = files[i].len ? files[i].len : strlen(files[i].text);
        if (len > cap)
            len = cap;
        memcpy(buf, files[i].text, len);
        return (int)len;
    }
    return -ENOENT;
}

/* Pids >= GM_PID_SIM_MIN are read through the view (alive, or gone when it
 * says ENOENT), marked simulated; lower pids still come from the root, and
 * without a view a simulated pid is gone as before. */
static void test_sim_view(void **state)
{
    const int64_t wall = (BTIME + 86400) * NS;
    struct gm_procfs *pf = gm_procfs_new(FIXTURES);
    struct gm_snapshot *s = snap_new(5 * NS, wall);
    char user[40];

    (void)state;
    snap_add(s, 0, 4194400);
    snap_add(s, 1, 4194304);
    snap_add(s, 2, 100);
    gm_procfs_set_sim(pf, fake_view);
    fake_calls = 0;
    gm_procfs_enrich(pf, s);

    const struct gm_proc *a = &s->procs[0], *g = &s->procs[1], *h = &s->procs[2];
    assert_int_equal(a->host_state, GM_HS_ALIVE);
    assert_int_equal(a->simulated, 1);
    assert_int_equal(a->state_char, 'S');
    assert_string_equal(a->comm, "python3");
    assert_int_equal(a->uid, 4242);
    user_of(4242, user, sizeof user);
    assert_string_equal(a->user, user);
    assert_string_equal(a->cmdline, "python3 train.py --rank 0");
    assert_string_equal(a->cgroup, "/user.slice/user-4242.slice/session-gpusim.scope");
    assert_null(a->exe);
    assert_int_equal(a->nspid, 4194400);
    assert_int_equal(a->start_time.v.u, start_ns(12345));
    assert_int_equal(a->rss.v.u, 512 * page_size());

    assert_int_equal(g->host_state, GM_HS_GONE);
    assert_int_equal(g->simulated, 1);
    assert_int_equal(g->rss.status, GM_VS_NA);
    assert_null(g->cmdline);

    /* pid 100 is the fixture tree's, not the view's */
    assert_int_equal(h->host_state, GM_HS_ALIVE);
    assert_int_equal(h->simulated, 0);
    assert_string_equal(h->cmdline, "python3 train.py --lr 0.1");
    assert_true(fake_calls > 0);

    /* without the view, the same pids are what the root says: gone */
    gm_procfs_set_sim(pf, NULL);
    s->mono_ns += NS;
    gm_procfs_enrich(pf, s);
    assert_int_equal(s->procs[0].host_state, GM_HS_GONE);
    assert_int_equal(s->procs[0].simulated, 0);
    gm_snapshot_free(s);
    gm_procfs_free(pf);
}

static void test_free_null(void **state)
{
    (void)state;
    gm_procfs_free(NULL);
    gm_procfs_enrich(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_stat_table),
        cmocka_unit_test(test_parse_stat_null),
        cmocka_unit_test(test_parse_stat_every_prefix),
        cmocka_unit_test(test_fixture_table),
        cmocka_unit_test(test_same_pid_two_gpus),
        cmocka_unit_test(test_exe_symlink),
        cmocka_unit_test(test_cpu_percent),
        cmocka_unit_test(test_info_cache),
        cmocka_unit_test(test_pid_reuse_fresh),
        cmocka_unit_test(test_cgroup_move),
        cmocka_unit_test(test_cache_bounded),
        cmocka_unit_test(test_missing_root),
        cmocka_unit_test(test_long_cmdline),
        cmocka_unit_test(test_hidden),
        cmocka_unit_test(test_real_self),
        cmocka_unit_test(test_real_child_lifecycle),
        cmocka_unit_test(test_real_gone),
        cmocka_unit_test(test_sim_view),
        cmocka_unit_test(test_free_null),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

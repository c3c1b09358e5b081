/* test_safefile.c -- unit tests for src/core/safefile.c: files in
 * directories that other users may write to.
 *
 * Each test works in a fresh temporary directory.  For every kind of thing
 * an attacker can leave at a name gpumon writes (a symbolic link to a
 * victim, a hard link to it, a FIFO that would block the open, a
 * directory), the append, read and lock opens refuse with a message naming
 * the file, and the victim keeps its bytes; a rewrite through a temporary
 * replaces a planted link instead of writing through it and leaves no
 * temporary behind; a linked-in file never replaces an existing one;
 * directory modes are accepted or refused by the documented rule; a lock
 * taken twice in one process is counted, and a second process (a fork) is
 * told the holder's PID, for a lock file and for a directory lock; and a
 * file a user named is not followed through another user's link in a
 * shared sticky directory, and one that is not a regular file is written
 * in place when it is ours (a FIFO with a reader, /dev/null), refused at
 * once when our FIFO has no reader, and refused when it is another user's
 * FIFO (the parts that need a second user run as root only).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/safefile.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define VICTIM "precious bytes\n"

static char g_dir[256];
static int g_dfd = -1;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof(g_dir), "/tmp/gm_safefile.XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    g_dfd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return g_dfd < 0 ? -1 : 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    close(g_dfd);
    nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", g_dir, name);
}

static void put_file(const char *name, const char *content)
{
    char p[512];
    path_of(p, sizeof(p), name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(content, f);
    assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *name)
{
    static char buf[4096];
    char p[512];
    path_of(p, sizeof(p), name);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return buf;
}

static int count_entries(void)
{
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* What an attacker leaves at `name`; the victim is "victim" beside it. */
enum plant { P_NONE, P_SYMLINK, P_DANGLING, P_HARDLINK, P_FIFO, P_DIR };

static void plant(enum plant p, const char *name)
{
    char at[512], victim[512];
    path_of(at, sizeof(at), name);
    path_of(victim, sizeof(victim), "victim");
    put_file("victim", VICTIM);
    switch (p) {
    case P_NONE:
        break;
    case P_SYMLINK:
        assert_int_equal(symlink(victim, at), 0);
        break;
    case P_DANGLING:
        path_of(victim, sizeof(victim), "nothing-here");
        assert_int_equal(symlink(victim, at), 0);
        break;
    case P_HARDLINK:
        assert_int_equal(link(victim, at), 0);
        break;
    case P_FIFO:
        assert_int_equal(mkfifo(at, 0644), 0);
        break;
    case P_DIR:
        assert_int_equal(mkdir(at, 0755), 0);
        break;
    }
}

static void victim_untouched(void)
{
    assert_string_equal(slurp("victim"), VICTIM);
    char p[512];
    path_of(p, sizeof(p), "nothing-here");
    assert_int_equal(access(p, F_OK), -1);
}

/* ------------------------------------------------------------ directories */

static void test_dir_modes(void **state)
{
    (void)state;
    static const struct {
        mode_t mode;
        int refused;
    } rows[] = {
        {0755, 0}, {0750, 0}, {0775, 0}, {0770, 0}, {01777, 0}, {01773, 0},
        {0777, 1}, {0757, 1}, {0773, 1}, {0703, 1}, {02777, 1},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char p[512], name[32];
        snprintf(name, sizeof(name), "d%zu", i);
        path_of(p, sizeof(p), name);
        assert_int_equal(mkdir(p, 0700), 0);
        assert_int_equal(chmod(p, rows[i].mode), 0);
        struct gm_err err = {0};
        int dfd = -1;
        int rc = gm_safefile_dir_open(p, &dfd, &err);
        if (!rows[i].refused) {
            if (rc != 0)
                fail_msg("mode %04o refused: %s", (unsigned)rows[i].mode, err.msg);
            close(dfd);
            continue;
        }
        assert_int_equal(rc, GM_E_NOPERM);
        assert_int_equal(errno, EPERM);
        char want[600];
        snprintf(want, sizeof(want), "%s is writable by every user (mode %04o)", p,
                 (unsigned)rows[i].mode);
        if (!strstr(err.msg, want))
            fail_msg("row %zu: \"%s\" lacks \"%s\"", i, err.msg, want);
        /* mkdirs of an existing loose directory refuses it too */
        memset(&err, 0, sizeof(err));
        assert_int_equal(gm_safefile_mkdirs(p, 0755, &err), GM_E_NOPERM);
        assert_non_null(strstr(err.msg, p));
    }
}

static void test_mkdirs_and_parent(void **state)
{
    (void)state;
    char p[512];
    struct gm_err err = {0};
    path_of(p, sizeof(p), "a/b/c");
    assert_int_equal(gm_safefile_mkdirs(p, 0755, &err), 0);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* a file where a directory should be */
    put_file("plain", "x");
    path_of(p, sizeof(p), "plain");
    assert_int_equal(gm_safefile_mkdirs(p, 0755, &err), GM_E_IO);
    assert_non_null(strstr(err.msg, "plain"));

    static const struct {
        const char *path, *base;
    } rows[] = {{"a/b/file", "file"}, {"x", "x"},    {"/tmp", "tmp"}, {"a/", NULL},
                {"a/..", NULL},       {"a/.", NULL}, {"", NULL}};
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(g_dir), 0);
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char base[64] = "";
        int dfd = -1;
        int rc = gm_safefile_parent_open(rows[i].path, &dfd, base, sizeof(base), &err);
        if (!rows[i].base) {
            assert_int_equal(rc, GM_E_INVAL);
            continue;
        }
        if (rc != 0)
            fail_msg("%s: %s", rows[i].path, err.msg);
        assert_string_equal(base, rows[i].base);
        close(dfd);
    }
    assert_int_equal(chdir(cwd), 0);
}

/* ------------------------------------------------------------------ files */

static const struct {
    enum plant p;
    int ok;
    const char *why; /* in the message when refused */
} opens[] = {
    {P_NONE, 1, NULL},
    {P_SYMLINK, 0, "symbolic link"},
    {P_DANGLING, 0, "symbolic link"},
    {P_HARDLINK, 0, "2 hard links"},
    {P_FIFO, 0, "not a regular file"},
    {P_DIR, 0, ""},
};

static void test_open_append(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(opens); i++) {
        char name[32], shown[512];
        snprintf(name, sizeof(name), "log%zu", i);
        path_of(shown, sizeof(shown), name);
        plant(opens[i].p, name);
        struct gm_err err = {0};
        int fd = gm_safefile_open_append(g_dfd, name, 0640, shown, &err);
        if (opens[i].ok) {
            if (fd < 0)
                fail_msg("row %zu: %s", i, err.msg);
            assert_int_equal(write(fd, "one\n", 4), 4);
            close(fd);
            fd = gm_safefile_open_append(g_dfd, name, 0640, shown, &err);
            assert_true(fd >= 0);
            assert_int_equal(write(fd, "two\n", 4), 4);
            close(fd);
            assert_string_equal(slurp(name), "one\ntwo\n");
        } else {
            assert_true(fd < 0);
            if (!strstr(err.msg, shown) || !strstr(err.msg, opens[i].why))
                fail_msg("row %zu: \"%s\" lacks \"%s\" or the path", i, err.msg, opens[i].why);
        }
        victim_untouched();
    }
}

static void test_open_read(void **state)
{
    (void)state;
    struct gm_err err = {0};
    assert_int_equal(gm_safefile_open_read(g_dfd, "absent", "absent", &err), GM_E_NOTFOUND);
    for (size_t i = 0; i < N_ELEM(opens); i++) {
        char name[32];
        snprintf(name, sizeof(name), "st%zu", i);
        plant(opens[i].p, name);
        if (opens[i].p == P_NONE)
            put_file(name, "state\n");
        int fd = gm_safefile_open_read(g_dfd, name, name, &err);
        if (opens[i].p == P_NONE || opens[i].p == P_HARDLINK) {
            /* reading a second name of a file is harmless */
            assert_true(fd >= 0);
            close(fd);
        } else {
            assert_true(fd < 0); /* and the FIFO did not block */
        }
    }
}

/* ------------------------------------------------------------ temporaries */

static void test_write_replaces(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(opens); i++) {
        if (opens[i].p == P_DIR)
            continue; /* rename over a directory fails; tested below */
        char name[32], shown[512];
        snprintf(name, sizeof(name), "out%zu.prom", i);
        path_of(shown, sizeof(shown), name);
        plant(opens[i].p, name);
        int before = count_entries();
        struct gm_err err = {0};
        if (gm_safefile_write(g_dfd, name, "new\n", 4, 0644, shown, &err) != 0)
            fail_msg("row %zu: %s", i, err.msg);
        struct stat st;
        assert_int_equal(lstat(shown, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_nlink, 1);
        assert_string_equal(slurp(name), "new\n");
        victim_untouched();
        assert_int_equal(count_entries(), before + (opens[i].p == P_NONE)); /* no temporary */
    }
    /* a directory in the way: an error naming it, no temporary left */
    plant(P_DIR, "blocked");
    int before = count_entries();
    struct gm_err err = {0};
    assert_int_equal(gm_safefile_write(g_dfd, "blocked", "x", 1, 0644, "DIR/blocked", &err),
                     GM_E_IO);
    assert_non_null(strstr(err.msg, "DIR/blocked"));
    assert_int_equal(count_entries(), before);
}

static void test_tmp_names(void **state)
{
    (void)state;
    struct gm_safefile_tmp a, b;
    struct gm_err err = {0};
    assert_int_equal(gm_safefile_tmp_open(&a, g_dfd, "gpumon.prom", 0644, 0, &err), 0);
    assert_int_equal(gm_safefile_tmp_open(&b, g_dfd, "gpumon.prom", 0644, 0, &err), 0);
    /* ".gpumon.prom.<12 random>.tmp": hidden, not *.prom, unguessable */
    assert_int_equal(strlen(a.name), strlen(".gpumon.prom.") + 12 + 4);
    assert_int_equal(strncmp(a.name, ".gpumon.prom.", 13), 0);
    assert_string_equal(a.name + strlen(a.name) - 4, ".tmp");
    assert_string_not_equal(a.name, b.name);
    char pid[32];
    snprintf(pid, sizeof(pid), ".%d.", (int)getpid());
    assert_null(strstr(a.name, pid));
    gm_safefile_tmp_discard(&a);
    gm_safefile_tmp_discard(&b);
    gm_safefile_tmp_discard(&b); /* twice is fine */
    assert_int_equal(count_entries(), 0);
}

static void test_tmp_link(void **state)
{
    (void)state;
    for (int anon = 0; anon <= 1; anon++) {
        char name[32];
        snprintf(name, sizeof(name), "day%d.csv.gz", anon);
        struct gm_safefile_tmp t;
        struct gm_err err = {0};
        assert_int_equal(gm_safefile_tmp_open(&t, g_dfd, name, 0644, anon, &err), 0);
        assert_int_equal(write(t.fd, "gz", 2), 2);
        assert_int_equal(gm_safefile_tmp_link(&t, name, &err), 0);
        assert_string_equal(slurp(name), "gz");
        /* never over an existing file, nor through a link */
        plant(P_SYMLINK, "linked.gz");
        const char *targets[] = {name, "linked.gz"};
        for (size_t k = 0; k < N_ELEM(targets); k++) {
            int before = count_entries();
            assert_int_equal(gm_safefile_tmp_open(&t, g_dfd, targets[k], 0644, anon, &err), 0);
            assert_int_equal(write(t.fd, "other", 5), 5);
            assert_int_equal(gm_safefile_tmp_link(&t, targets[k], &err), GM_E_IO);
            assert_int_equal(errno, EEXIST);
            assert_non_null(strstr(err.msg, targets[k]));
            assert_int_equal(count_entries(), before);
        }
        assert_string_equal(slurp(name), "gz");
        victim_untouched();
        char p[512];
        path_of(p, sizeof(p), "linked.gz");
        unlink(p);
    }
}

/* ------------------------------------------------------------------ locks */

/* In a child process: the result of taking the lock, and the holder. */
static void child_take(const char *name, int *rc, long *holder)
{
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct gm_safefile_lock *l;
        long h = -1;
        int r[2];
        r[0] = gm_safefile_lock(g_dfd, name, "lock", &l, &h, NULL);
        r[1] = (int)h;
        ssize_t w = write(pfd[1], r, sizeof(r));
        _exit(w == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(pfd[1]);
    int r[2] = {99, 99};
    assert_int_equal(read(pfd[0], r, sizeof(r)), (ssize_t)sizeof(r));
    close(pfd[0]);
    int status;
    waitpid(pid, &status, 0);
    *rc = r[0];
    *holder = r[1];
}

static void test_lock(void **state)
{
    (void)state;
    static const char *const names[] = {"agent.lock", NULL}; /* a file, the directory */
    for (size_t i = 0; i < N_ELEM(names); i++) {
        struct gm_safefile_lock *a, *b;
        long holder = -1;
        struct gm_err err = {0};
        assert_int_equal(gm_safefile_lock(g_dfd, names[i], "lock", &a, &holder, &err), 0);
        assert_int_equal(gm_safefile_lock(g_dfd, names[i], "lock", &b, &holder, &err), 0);
        assert_ptr_equal(a, b); /* counted, not a second flock */
        if (names[i]) {
            char want[32];
            snprintf(want, sizeof(want), "%d\n", (int)getpid());
            assert_string_equal(slurp(names[i]), want);
        }
        int rc;
        child_take(names[i], &rc, &holder);
        assert_int_equal(rc, GM_E_BUSY);
        assert_int_equal(holder, getpid());
        gm_safefile_unlock(a);
        child_take(names[i], &rc, &holder); /* one take still holds it */
        assert_int_equal(rc, GM_E_BUSY);
        gm_safefile_unlock(b);
        child_take(names[i], &rc, &holder);
        assert_int_equal(rc, 0);
        gm_safefile_unlock(NULL);
    }
    /* a lock file that is a link, a hard link or a FIFO is refused */
    for (size_t i = 1; i < N_ELEM(opens); i++) {
        char name[32], shown[512];
        snprintf(name, sizeof(name), "l%zu.lock", i);
        path_of(shown, sizeof(shown), name);
        plant(opens[i].p, name);
        struct gm_safefile_lock *l = NULL;
        struct gm_err err = {0};
        assert_true(gm_safefile_lock(g_dfd, name, shown, &l, NULL, &err) < 0);
        assert_null(l);
        if (!strstr(err.msg, shown) || !strstr(err.msg, opens[i].why))
            fail_msg("row %zu: \"%s\" lacks \"%s\" or the path", i, err.msg, opens[i].why);
        victim_untouched();
    }
}

/* ---------------------------------------------------- a file a user named */

static void test_output(void **state)
{
    (void)state;
    struct gm_err err = {0};
    char p[512];
    /* not truncated at open; emptied on demand */
    put_file("out.csv", "old results\n");
    path_of(p, sizeof(p), "out.csv");
    int fd = gm_safefile_open_output(p, &err);
    assert_true(fd >= 0);
    assert_string_equal(slurp("out.csv"), "old results\n");
    assert_int_equal(gm_safefile_output_truncate(fd, p, &err), 0);
    assert_int_equal(write(fd, "new\n", 4), 4);
    close(fd);
    assert_string_equal(slurp("out.csv"), "new\n");
    /* our own link in our own directory is followed */
    plant(P_SYMLINK, "mine.csv");
    path_of(p, sizeof(p), "mine.csv");
    fd = gm_safefile_open_output(p, &err);
    assert_true(fd >= 0);
    close(fd);

    if (geteuid() != 0) {
        print_message("(skipping the shared-directory cases: they need root)\n");
        return;
    }
    /* another user's link, file and hard link in a sticky shared directory */
    char shared[512], victim[512];
    path_of(shared, sizeof(shared), "shared");
    path_of(victim, sizeof(victim), "victim");
    assert_int_equal(mkdir(shared, 01777), 0);
    assert_int_equal(chmod(shared, 01777), 0);
    static const struct {
        const char *name;
        int kind; /* 0 link, 1 file, 2 hard link (ours) */
        const char *why;
    } rows[] = {{"link.csv", 0, "not following the symbolic link"},
                {"theirs.csv", 1, "belongs to another user"},
                {"hard.csv", 2, "more than one hard link"}};
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char sub[64];
        snprintf(sub, sizeof(sub), "shared/%s", rows[i].name);
        path_of(p, sizeof(p), sub);
        put_file("victim", VICTIM);
        if (rows[i].kind == 0) {
            assert_int_equal(symlink(victim, p), 0);
            assert_int_equal(lchown(p, 65534, 65534), 0);
        } else if (rows[i].kind == 1) {
            int f = open(p, O_WRONLY | O_CREAT | O_EXCL, 0666);
            assert_true(f >= 0);
            assert_int_equal(write(f, VICTIM, strlen(VICTIM)), (ssize_t)strlen(VICTIM));
            close(f);
            assert_int_equal(chown(p, 65534, 65534), 0);
        } else {
            assert_int_equal(link(victim, p), 0);
        }
        memset(&err, 0, sizeof(err));
        assert_int_equal(gm_safefile_open_output(p, &err), GM_E_NOPERM);
        if (!strstr(err.msg, p) || !strstr(err.msg, rows[i].why))
            fail_msg("%s: \"%s\" lacks \"%s\" or the path", rows[i].name, err.msg, rows[i].why);
        victim_untouched();
    }
}

/* Files a user named that are not regular: which are written in place,
 * and which gm_safefile_open_output refuses without blocking. */
static void test_output_special(void **state)
{
    (void)state;
    struct gm_err err = {0};
    char p[512], fifo[512];
    put_file("reg", "x");
    path_of(fifo, sizeof(fifo), "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    path_of(p, sizeof(p), "dir");
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(symlinkat("reg", g_dfd, "to-reg"), 0);
    assert_int_equal(symlinkat("fifo", g_dfd, "to-fifo"), 0);
    assert_int_equal(symlinkat("/dev/null", g_dfd, "to-null"), 0);
    static const struct {
        const char *name;
        int in_place;
    } rows[] = {{"none", 0}, {"reg", 0},     {"dir", 0},    {"to-reg", 0},
                {"fifo", 1}, {"to-fifo", 1}, {"to-null", 1}};
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        path_of(p, sizeof(p), rows[i].name);
        if (gm_safefile_output_in_place(g_dfd, rows[i].name, p) != rows[i].in_place)
            fail_msg("%s: in place should be %d", rows[i].name, rows[i].in_place);
    }

    /* our FIFO without a reader: refused at once, never waited for */
    int fd = gm_safefile_open_output(fifo, &err);
    assert_true(fd < 0);
    if (!strstr(err.msg, fifo) || !strstr(err.msg, "no reader"))
        fail_msg("our FIFO without a reader: \"%s\"", err.msg);
    /* with a reader: written into, blocking again */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    fd = gm_safefile_open_output(fifo, &err);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    assert_int_equal(write(fd, "row\n", 4), 4);
    char got[8] = "";
    assert_int_equal(read(rd, got, sizeof(got) - 1), 4);
    assert_string_equal(got, "row\n");
    close(fd);
    /* a device of root's */
    fd = gm_safefile_open_output("/dev/null", &err);
    assert_true(fd >= 0);
    close(fd);

    if (geteuid() != 0) {
        close(rd);
        print_message("(skipping another user's FIFO: it needs root)\n");
        return;
    }
    /* another user's FIFO, with a reader: refused, nothing written */
    assert_int_equal(chown(fifo, 65534, 65534), 0);
    memset(&err, 0, sizeof(err));
    assert_int_equal(gm_safefile_open_output(fifo, &err), GM_E_NOPERM);
    if (!strstr(err.msg, fifo) || !strstr(err.msg, "another user (uid 65534)"))
        fail_msg("another user's FIFO: \"%s\"", err.msg);
    assert_int_equal(read(rd, got, sizeof(got) - 1), 0); /* empty, and no writer has it open */
    close(rd);
    /* and without one */
    memset(&err, 0, sizeof(err));
    assert_int_equal(gm_safefile_open_output(fifo, &err), GM_E_NOPERM);
    if (!strstr(err.msg, fifo) || !strstr(err.msg, "another user (uid 65534)"))
        fail_msg("another user's FIFO without a reader: \"%s\"", err.msg);
}

/* gm_safefile_chmodat: the mode of a file and of a socket (the agent's
 * control socket) set by name; a link at the name refused (ELOOP), its
 * target's mode kept; on glibc 2.31 (make check-arm64) all of it takes the
 * O_PATH fallback, on newer ones the link does */
static void test_chmodat(void **state)
{
    (void)state;
    char p[512];
    struct stat st;
    put_file("f", "x");
    path_of(p, sizeof(p), "f");
    assert_int_equal(chmod(p, 0600), 0);
    assert_int_equal(gm_safefile_chmodat(g_dfd, "f", 0640), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);

    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    path_of(p, sizeof(p), "s.sock");
    assert_true(strlen(p) < sizeof(sa.sun_path));
    memcpy(sa.sun_path, p, strlen(p) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(gm_safefile_chmodat(g_dfd, "s.sock", 0660), 0);
    assert_int_equal(lstat(sa.sun_path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0660);
    close(fd);

    plant(P_SYMLINK, "l");
    path_of(p, sizeof(p), "victim");
    assert_int_equal(chmod(p, 0600), 0);
    errno = 0;
    assert_int_equal(gm_safefile_chmodat(g_dfd, "l", 0666), GM_E_IO);
    assert_int_equal(errno, ELOOP);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    victim_untouched();

    errno = 0;
    assert_int_equal(gm_safefile_chmodat(g_dfd, "nothing-here", 0600), GM_E_IO);
    assert_int_equal(errno, ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dir_modes, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_mkdirs_and_parent, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_open_append, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_open_read, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_write_replaces, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_tmp_names, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_tmp_link, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_lock, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_output, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_output_special, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_chmodat, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

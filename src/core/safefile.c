/* safefile.c -- files in directories others may write to (see safefile.h).
 *
 * Sections: messages and checks, directories, files, temporaries, locks,
 * files a user named.  The locks keep a process-wide list of the files this
 * process holds (by device and inode), so that a second take of the same
 * file in this process counts instead of failing: flock(2) locks belong to
 * an open file description, and a second open of the same file in the same
 * process would conflict with the first.
 */
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------- messages and checks */

static int open_error(struct gm_err *err, int e, const char *what, const char *shown)
{
    if (e == ELOOP)
        return gm_err_set(err, GM_E_NOPERM,
                          "%s is a symbolic link; gpumon does not follow links where it writes "
                          "(remove it)",
                          shown);
    if (e == ENXIO)
        return gm_err_set(err, GM_E_NOPERM, "%s is not a regular file (a FIFO or socket?)", shown);
    return gm_err_set(err,
                      e == ENOENT                                  ? GM_E_NOTFOUND
                      : e == EACCES                                ? GM_E_NOPERM
                      : (e == ENOSPC || e == EDQUOT || e == EFBIG) ? GM_E_NOSPC
                                                                   : GM_E_IO,
                      "cannot %s %s: %s", what, shown, strerror(e));
}

/* A file we append to, lock or read: regular, and (unless links_ok) not
 * also another file by a second name. */
static int check_regular(int fd, int links_ok, const char *shown, struct gm_err *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gm_err_set(err, GM_E_IO, "cannot stat %s: %s", shown, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return gm_err_set(err, GM_E_NOPERM, "%s is not a regular file; gpumon writes only to one",
                          shown);
    if (!links_ok && st.st_nlink > 1)
        return gm_err_set(err, GM_E_NOPERM,
                          "%s has %lu hard links; gpumon writes only to a file of its own "
                          "(remove it)",
                          shown, (unsigned long)st.st_nlink);
    return 0;
}

/* Clears O_NONBLOCK (set on open so that a FIFO cannot block it). */
static void blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* ------------------------------------------------------------ directories */

int gm_safefile_dir_check(int dfd, const char *path, struct gm_err *err)
{
    struct stat st;
    if (fstat(dfd, &st) != 0)
        return gm_err_set(err, GM_E_IO, "cannot stat %s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        gm_err_set(err, GM_E_IO, "%s: not a directory", path);
        errno = ENOTDIR;
        return GM_E_IO;
    }
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
        gm_err_set(err, GM_E_NOPERM,
                   "%s is writable by every user (mode %04o) and not sticky: anyone could "
                   "replace the files gpumon keeps there, so it refuses the directory "
                   "(chmod o-w %s, or chmod +t %s for a shared one)",
                   path, (unsigned)(st.st_mode & 07777), path, path);
        errno = EPERM;
        return GM_E_NOPERM;
    }
    return 0;
}

int gm_safefile_dir_open(const char *path, int *dfd, struct gm_err *err)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return gm_err_set(err,
                          errno == ENOENT   ? GM_E_NOTFOUND
                          : errno == EACCES ? GM_E_NOPERM
                                            : GM_E_IO,
                          "cannot open the directory %s: %s", path, strerror(errno));
    int rc = gm_safefile_dir_check(fd, path, err);
    if (rc != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return rc;
    }
    *dfd = fd;
    return 0;
}

int gm_safefile_mkdirs(const char *path, mode_t mode, struct gm_err *err)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof(buf))
        return gm_err_set(err, GM_E_INVAL, "%s: %s", len ? path : "\"\"",
                          len ? "path too long" : "no directory given");
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char save = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return gm_err_set(err, errno == EACCES ? GM_E_NOPERM : GM_E_IO, "cannot create %s: %s",
                              buf, strerror(errno));
        buf[i] = save;
    }
    int dfd = -1;
    int rc = gm_safefile_dir_open(path, &dfd, err);
    if (rc == 0)
        close(dfd);
    return rc;
}

int gm_safefile_parent_open(const char *path, int *dfd, char *base, size_t blen, struct gm_err *err)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    if (!*b || !strcmp(b, ".") || !strcmp(b, ".."))
        return gm_err_set(err, GM_E_INVAL, "%s: not a file name", path);
    if (strlen(b) >= blen || (size_t)(b - path) >= sizeof(dir))
        return gm_err_set(err, GM_E_INVAL, "%s: path too long", path);
    if (!slash) {
        gm_strlcpy(dir, ".", sizeof(dir));
    } else if (slash == path) {
        gm_strlcpy(dir, "/", sizeof(dir));
    } else {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
    gm_strlcpy(base, b, blen);
    return gm_safefile_dir_open(dir, dfd, err);
}

/* ------------------------------------------------------------------ files */

int gm_safefile_open_append(int dfd, const char *name, mode_t mode, const char *shown,
                            struct gm_err *err)
{
    int fd = openat(dfd, name,
                    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                    mode);
    if (fd < 0)
        return open_error(err, errno, "open", shown);
    int rc = check_regular(fd, 0, shown, err);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    blocking(fd);
    return fd;
}

int gm_safefile_open_read(int dfd, const char *name, const char *shown, struct gm_err *err)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP)
            return gm_err_set(err, GM_E_NOPERM,
                              "%s is a symbolic link; gpumon does not follow links in its own "
                              "directories (remove it)",
                              shown);
        return open_error(err, errno, "open", shown);
    }
    int rc = check_regular(fd, 1, shown, err);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    blocking(fd);
    return fd;
}

/* ------------------------------------------------------------ temporaries */

/* 12 characters of [0-9a-z] nobody can guess: getrandom, or (should it
 * fail, early at boot) the clock, the PID and a counter mixed. */
static void random_tag(char out[13])
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    static uint64_t counter;
    unsigned char r[12];
    if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                     ((uint64_t)getpid() << 48) ^
                     __atomic_add_fetch(&counter, 0x9e3779b97f4a7c15ULL, __ATOMIC_RELAXED);
        for (size_t i = 0; i < sizeof(r); i++) {
            x ^= x >> 31; /* splitmix64's finaliser, a step per byte */
            x *= 0xbf58476d1ce4e5b9ULL;
            x ^= x >> 27;
            r[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < sizeof(r); i++)
        out[i] = digits[r[i] % 36];
    out[12] = '\0';
}

static void tmp_name(char *buf, size_t len, const char *final)
{
    char tag[13];
    random_tag(tag);
    snprintf(buf, len, ".%.200s.%s.tmp", final, tag);
}

int gm_safefile_tmp_open(struct gm_safefile_tmp *t, int dfd, const char *final, mode_t mode,
                         int anon, struct gm_err *err)
{
    t->fd = -1;
    t->dfd = dfd;
    t->name[0] = '\0';
    /* an anonymous file is linked in through /proc/self/fd (linkat's
     * AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH) */
    if (anon && access("/proc/self/fd", X_OK) == 0) {
        t->fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (t->fd >= 0)
            return 0;
        /* EOPNOTSUPP, EISDIR (no O_TMPFILE here): a named one instead */
    }
    for (int tries = 0; tries < 100; tries++) {
        tmp_name(t->name, sizeof(t->name), final);
        t->fd = openat(dfd, t->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (t->fd >= 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    t->name[0] = '\0';
    int code = e == EACCES ? GM_E_NOPERM : GM_E_IO;
    gm_err_set(err, code, "cannot create a temporary for %s: %s", final, strerror(e));
    errno = e;
    return code;
}

/* Gives the anonymous t the name `name` in its directory. */
static int link_anon(struct gm_safefile_tmp *t, const char *name)
{
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", t->fd);
    return linkat(AT_FDCWD, proc, t->dfd, name, AT_SYMLINK_FOLLOW);
}

int gm_safefile_tmp_replace(struct gm_safefile_tmp *t, const char *final, struct gm_err *err)
{
    int e = 0;
    if (!t->name[0]) {
        for (int tries = 0; tries < 100; tries++) {
            tmp_name(t->name, sizeof(t->name), final);
            if (link_anon(t, t->name) == 0)
                break;
            e = errno;
            t->name[0] = '\0';
            if (e != EEXIST)
                break;
        }
    }
    if (!t->name[0]) {
        gm_safefile_tmp_discard(t);
        return gm_err_set(err, GM_E_IO, "cannot write %s: %s", final, strerror(e ? e : EEXIST));
    }
    if (close(t->fd) != 0)
        e = errno;
    t->fd = -1;
    if (e == 0 && renameat(t->dfd, t->name, t->dfd, final) != 0)
        e = errno;
    if (e != 0) {
        unlinkat(t->dfd, t->name, 0);
        t->name[0] = '\0';
        return gm_err_set(err, e == ENOSPC || e == EDQUOT ? GM_E_NOSPC : GM_E_IO,
                          "cannot write %s: %s", final, strerror(e));
    }
    t->name[0] = '\0';
    return 0;
}

int gm_safefile_tmp_link(struct gm_safefile_tmp *t, const char *final, struct gm_err *err)
{
    int e = 0;
    if (!t->name[0]) {
        if (link_anon(t, final) != 0)
            e = errno;
        if (close(t->fd) != 0 && e == 0) {
            e = errno;
            unlinkat(t->dfd, final, 0);
        }
        t->fd = -1;
    } else {
        if (close(t->fd) != 0)
            e = errno;
        t->fd = -1;
        if (e == 0 && linkat(t->dfd, t->name, t->dfd, final, 0) != 0)
            e = errno;
        unlinkat(t->dfd, t->name, 0);
        t->name[0] = '\0';
    }
    if (e != 0) {
        int code = e == ENOSPC || e == EDQUOT ? GM_E_NOSPC : GM_E_IO;
        gm_err_set(err, code, "cannot create %s: %s", final, strerror(e));
        errno = e;
        return code;
    }
    return 0;
}

void gm_safefile_tmp_discard(struct gm_safefile_tmp *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    if (t->name[0])
        unlinkat(t->dfd, t->name, 0);
    t->name[0] = '\0';
}

int gm_safefile_write(int dfd, const char *name, const void *p, size_t len, mode_t mode,
                      const char *shown, struct gm_err *err)
{
    struct gm_safefile_tmp t;
    struct gm_err e = {0};
    if (gm_safefile_tmp_open(&t, dfd, name, mode, 0, &e) != 0)
        return gm_err_set(err, e.code, "%s: %s", shown, e.msg);
    const char *s = p;
    size_t off = 0;
    int rc = 0;
    while (off < len) {
        ssize_t w = write(t.fd, s + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            rc = -errno;
            break;
        }
        off += (size_t)w;
    }
    if (rc == 0 && fsync(t.fd) != 0)
        rc = -errno;
    if (rc != 0) {
        gm_safefile_tmp_discard(&t);
        return gm_err_set(err, rc == -ENOSPC || rc == -EDQUOT ? GM_E_NOSPC : GM_E_IO,
                          "cannot write %s: %s", shown, strerror(-rc));
    }
    if (gm_safefile_tmp_replace(&t, name, &e) != 0)
        return gm_err_set(err, e.code, "%s: %s", shown, e.msg);
    return 0;
}

/* ------------------------------------------------------------------ locks */

struct gm_safefile_lock {
    dev_t dev;
    ino_t ino;
    int fd;
    int refs;
    pid_t pid; /* the process that took it (a forked child inherits the list, not the lock) */
    struct gm_safefile_lock *next;
};

static pthread_mutex_t locks_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gm_safefile_lock *locks;

/* The PID that holds the flock on (dev, ino), from /proc/locks; 0 when
 * not found. */
static long proc_locks_holder(dev_t dev, ino_t ino)
{
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    char line[256];
    long found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        char type[16];
        long pid;
        unsigned maj, min;
        unsigned long long in;
        if (strstr(line, "->")) /* a waiter, not the holder */
            continue;
        // NOLINTNEXTLINE(cert-err34-c): the kernel's own format
        if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", type, &pid, &maj, &min, &in) == 5 &&
            !strcmp(type, "FLOCK") && maj == major(dev) && min == minor(dev) &&
            in == (unsigned long long)ino)
            found = pid;
    }
    fclose(f);
    return found;
}

/* The holder's PID as it wrote it into the lock file; 0 when unreadable. */
static long file_holder(int fd)
{
    char buf[32] = "";
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    return end != buf && (*end == '\n' || *end == '\0') && pid > 0 ? pid : 0;
}

int gm_safefile_lock(int dfd, const char *name, const char *shown, struct gm_safefile_lock **out,
                     long *holder, struct gm_err *err)
{
    *out = NULL;
    if (holder)
        *holder = 0;
    int fd = name ? openat(dfd, name,
                           O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644)
                  : openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return open_error(err, errno, "open", shown);
    int rc = name ? check_regular(fd, 0, shown, err) : 0;
    struct stat st;
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = gm_err_set(err, GM_E_IO, "cannot stat %s: %s", shown, strerror(errno));
    if (rc != 0) {
        close(fd);
        return rc;
    }

    pthread_mutex_lock(&locks_mu);
    for (struct gm_safefile_lock *l = locks; l; l = l->next)
        if (l->dev == st.st_dev && l->ino == st.st_ino && l->pid == getpid()) {
            l->refs++;
            pthread_mutex_unlock(&locks_mu);
            close(fd);
            *out = l;
            return 0;
        }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        pthread_mutex_unlock(&locks_mu);
        if (e == EWOULDBLOCK) {
            long pid = name ? file_holder(fd) : 0;
            if (pid == 0)
                pid = proc_locks_holder(st.st_dev, st.st_ino);
            close(fd);
            if (holder)
                *holder = pid;
            return GM_E_BUSY;
        }
        close(fd);
        return gm_err_set(err, GM_E_IO, "cannot lock %s: %s", shown, strerror(e));
    }
    if (name) {
        char pid[32];
        int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
            int e = errno;
            pthread_mutex_unlock(&locks_mu);
            close(fd);
            return gm_err_set(err, GM_E_IO, "cannot write %s: %s", shown, strerror(e));
        }
    }
    struct gm_safefile_lock *l = gm_xcalloc(1, sizeof(*l));
    l->dev = st.st_dev;
    l->ino = st.st_ino;
    l->fd = fd;
    l->refs = 1;
    l->pid = getpid();
    l->next = locks;
    locks = l;
    pthread_mutex_unlock(&locks_mu);
    *out = l;
    return 0;
}

void gm_safefile_unlock(struct gm_safefile_lock *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&locks_mu);
    if (--l->refs > 0) {
        pthread_mutex_unlock(&locks_mu);
        return;
    }
    for (struct gm_safefile_lock **p = &locks; *p; p = &(*p)->next)
        if (*p == l) {
            *p = l->next;
            break;
        }
    pthread_mutex_unlock(&locks_mu);
    close(l->fd); /* the last descriptor of its open file: the flock goes with it */
    free(l);
}

/* ---------------------------------------------------- a file a user named */

/* Whether dir is a shared directory (sticky, writable by every user): its
 * stat in *st. */
static int shared_dir(const char *path, struct stat *st)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        gm_strlcpy(dir, ".", sizeof(dir));
    else if (slash == path)
        gm_strlcpy(dir, "/", sizeof(dir));
    else if ((size_t)(slash - path) < sizeof(dir)) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    } else {
        return 0;
    }
    return stat(dir, st) == 0 && (st->st_mode & S_ISVTX) && (st->st_mode & S_IWOTH);
}

/* "a FIFO", "a socket", ...: what st is, for messages. */
static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISDIR(m)  ? "a directory"
                         : "not a regular file";
}

/* Whether the file fd (st), not a regular one, may be written to: it is
 * ours or root's (a device such as /dev/null), or an anonymous pipe or
 * socket (our own stdout reached through /dev/stdout: nobody can plant one
 * of those at a name). */
static int special_ok(int fd, const struct stat *st)
{
    if (st->st_uid == geteuid() || st->st_uid == 0)
        return 1;
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && (sf.f_type == PIPEFS_MAGIC || sf.f_type == SOCKFS_MAGIC);
}

/* The message for an open that failed with ENXIO: a FIFO without a reader
 * or a socket at path (which stat tells, when it still can). */
static int no_reader(const char *path, struct gm_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_uid != geteuid() && st.st_uid != 0)
        return gm_err_set(err, GM_E_NOPERM,
                          "not writing to %s: it is a FIFO that belongs to another user (uid %u), "
                          "not a regular file; remove it or name another file",
                          path, (unsigned)st.st_uid);
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        return gm_err_set(err, GM_E_NOPERM,
                          "not writing to %s: it is a socket, not a file; name another file", path);
    return gm_err_set(err, GM_E_IO,
                      "not writing to %s: it is a FIFO with no reader, and gpumon does not wait "
                      "for one (start the reader first, or name a regular file)",
                      path);
}

int gm_safefile_open_output(const char *path, struct gm_err *err)
{
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of blocking */
    const int flags = O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    struct stat dst, lst;
    int fd = -1, e = 0;
    for (int tries = 0; tries < 3 && fd < 0; tries++) {
        fd = open(path, flags | O_NOFOLLOW, 0644);
        e = errno;
        /* a link: ELOOP, or EACCES where the kernel refuses O_CREAT over it */
        if (fd >= 0 || (e != ELOOP && e != EACCES))
            break;
        if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode)) {
            if (e == EACCES)
                break;
            continue; /* replaced since: look again */
        }
        if (shared_dir(path, &dst) && lst.st_uid != geteuid() && lst.st_uid != dst.st_uid)
            return gm_err_set(err, GM_E_NOPERM,
                              "not following the symbolic link %s: it belongs to another user "
                              "(uid %u) in a shared directory (sticky, writable by every user); "
                              "remove it or name another file",
                              path, (unsigned)lst.st_uid);
        /* ours, or the directory owner's: nobody else can swap it (sticky) */
        fd = open(path, flags, 0644);
        e = errno;
        break;
    }
    if (fd < 0 && e == ENXIO)
        return no_reader(path, err);
    if (fd < 0)
        return gm_err_set(err, e == EACCES ? GM_E_NOPERM : GM_E_IO, "cannot open %s: %s", path,
                          strerror(e));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return gm_err_set(err, GM_E_IO, "cannot stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode) && !special_ok(fd, &st)) {
        close(fd);
        return gm_err_set(err, GM_E_NOPERM,
                          "not writing to %s: it is %s that belongs to another user (uid %u), "
                          "not a regular file; remove it or name another file",
                          path, kind_of(st.st_mode), (unsigned)st.st_uid);
    }
    if (S_ISREG(st.st_mode) && shared_dir(path, &dst)) {
        /* fs.protected_regular and fs.protected_hardlinks, whatever their setting */
        const char *why = st.st_uid != geteuid() && st.st_uid != dst.st_uid
                              ? "it belongs to another user"
                          : st.st_nlink > 1 ? "it has more than one hard link"
                                            : NULL;
        if (why) {
            close(fd);
            return gm_err_set(err, GM_E_NOPERM,
                              "not writing to %s: %s in a shared directory (sticky, writable by "
                              "every user); remove it or name another file",
                              path, why);
        }
    }
    blocking(fd);
    return fd;
}

int gm_safefile_output_in_place(int dfd, const char *base, const char *path)
{
    struct stat st, dst, t;
    if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISREG(st.st_mode) ||
        S_ISDIR(st.st_mode))
        return 0;
    if (!S_ISLNK(st.st_mode))
        return 1;
    /* a link that gm_safefile_open_output would follow, to a FIFO or a
     * device (/dev/stdout): written through; any other link is replaced */
    if (shared_dir(path, &dst) && st.st_uid != geteuid() && st.st_uid != dst.st_uid)
        return 0;
    return fstatat(dfd, base, &t, 0) == 0 && !S_ISREG(t.st_mode) && !S_ISDIR(t.st_mode);
}

int gm_safefile_output_write(int dfd, const char *base, const char *path, const void *p, size_t len,
                             struct gm_err *err)
{
    if (!gm_safefile_output_in_place(dfd, base, path))
        return gm_safefile_write(dfd, base, p, len, 0644, path, err);
    int fd = gm_safefile_open_output(path, err);
    if (fd < 0)
        return fd;
    int rc = gm_safefile_output_truncate(fd, path, err);
    for (size_t off = 0; rc == 0 && off < len;) {
        ssize_t w = write(fd, (const char *)p + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            rc = gm_err_set(err, errno == ENOSPC ? GM_E_NOSPC : GM_E_IO, "cannot write %s: %s",
                            path, strerror(errno));
        else
            off += (size_t)w;
    }
    if (close(fd) != 0 && rc == 0)
        rc = gm_err_set(err, GM_E_IO, "cannot write %s: %s", path, strerror(errno));
    return rc;
}

int gm_safefile_output_truncate(int fd, const char *shown, struct gm_err *err)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0)
        return gm_err_set(err, GM_E_IO, "cannot truncate %s: %s", shown, strerror(errno));
    return 0;
}

/* ------------------------------------------------------------- chmod by name */

int gm_safefile_chmodat(int dfd, const char *name, mode_t mode)
{
    if (fchmodat(dfd, name, mode, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    if (errno != ENOTSUP && errno != EOPNOTSUPP)
        return GM_E_IO;
    /* glibc 2.31 (no fchmodat2 emulation), or name is a link, which newer
     * glibc also answers with ENOTSUP: the inode itself, then the mode */
    int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return GM_E_IO;
    struct stat st;
    int rc = GM_E_IO;
    if (fstat(fd, &st) == 0) {
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        if (S_ISLNK(st.st_mode))
            errno = ELOOP;
        else if (chmod(proc, mode) == 0)
            rc = 0;
    }
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* procfs_read.c -- reading and parsing single /proc files for procfs.c:
 * /proc/PID/stat (gm_proc_parse_stat, procfs.h), status (the real uid and
 * the PID in the innermost namespace), cmdline, cgroup (the path that
 * attribution reads), the exe link, and /proc/stat's btime.  Each file is
 * read with one read into a bounded buffer (procfs.c says why that is
 * enough); the parsers take the buffer and its length, never a NUL. */
#include "procfs.h"
#include "procfs_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "../core/err.h"

/* ------------------------------------------------------------------------ */
/* Parsing /proc/PID/stat                                                    */

/* Parses an unsigned decimal at *pp (before end) into *out; advances *pp.
 * Fails on no digits or overflow. */
static int parse_ull(const char **pp, const char *end, unsigned long long *out)
{
    const char *p = *pp;
    unsigned long long v = 0;

    /* The buffer was filled by read(2), which the static analyzer does not
     * model: NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
    if (p >= end || *p < '0' || *p > '9')
        return GM_E_INVAL;
    while (p < end && *p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10)
            return GM_E_INVAL;
        v = v * 10 + d;
        p++;
    }
    *pp = p;
    *out = v;
    return 0;
}

/* Same, with an optional leading '-' (fields like tty_nr, priority, nice). */
static int skip_signed(const char **pp, const char *end)
{
    unsigned long long ignored;

    if (*pp < end && **pp == '-')
        (*pp)++;
    return parse_ull(pp, end, &ignored);
}

int gm_proc_parse_stat(const char *buf, size_t len, struct gm_proc_stat *out)
{
    const char *end, *open, *close, *p;
    unsigned long long v, pid;
    size_t clen;

    if (!buf || !out)
        return GM_E_INVAL;
    end = buf + len;

    /* "PID (" -- the pid, one space, then the comm's opening parenthesis. */
    p = buf;
    if (parse_ull(&p, end, &pid) < 0 || p + 1 >= end || p[0] != ' ' || p[1] != '(')
        return GM_E_INVAL;
    open = p + 1;
    close = memrchr(open + 1, ')', (size_t)(end - open - 1));
    if (!close)
        return GM_E_INVAL;

    clen = (size_t)(close - open - 1);
    if (clen >= sizeof out->comm)
        clen = sizeof out->comm - 1;
    memcpy(out->comm, open + 1, clen);
    out->comm[clen] = '\0';

    /* ") S" -- field 3. */
    p = close + 1;
    if (end - p < 2 || p[0] != ' ')
        return GM_E_INVAL;
    if (!((p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z')))
        return GM_E_INVAL;
    out->state = p[1];
    p += 2;

    /* Fields 4..24, each after exactly one space. */
    for (int field = 4; field <= 24; field++) {
        if (p >= end || *p != ' ')
            return GM_E_INVAL;
        p++;
        switch (field) {
        case 4:
        case 6:
            if (parse_ull(&p, end, &v) < 0 || v > UINT32_MAX)
                return GM_E_INVAL;
            if (field == 4)
                out->ppid = (uint32_t)v;
            else
                out->session = (uint32_t)v;
            break;
        case 14:
        case 15:
        case 22:
        case 24:
            if (parse_ull(&p, end, &v) < 0)
                return GM_E_INVAL;
            if (field == 14)
                out->utime = v;
            else if (field == 15)
                out->stime = v;
            else if (field == 22)
                out->starttime = v;
            else if (v > LLONG_MAX)
                return GM_E_INVAL;
            else
                out->rss_pages = (long long)v;
            break;
        default:
            if (skip_signed(&p, end) < 0)
                return GM_E_INVAL;
        }
    }
    /* Field 24 must be complete: a truncated "12" might have been "1234". */
    if (p >= end || (*p != ' ' && *p != '\n'))
        return GM_E_INVAL;
    /* Field 42 (delayacct_blkio_ticks) when the line goes that far; older
     * kernels and cut lines leave it unknown, which is no error. */
    out->blkio = -1;
    for (int field = 25; field <= 42; field++) {
        if (p >= end || *p != ' ')
            return 0;
        p++;
        if (field < 42) {
            if (skip_signed(&p, end) < 0)
                return 0;
        } else if (parse_ull(&p, end, &v) == 0 && v <= LLONG_MAX && p < end &&
                   (*p == ' ' || *p == '\n')) {
            out->blkio = (long long)v;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading files                                                             */

/* Reads root-relative path into buf (up to cap bytes) with a single read:
 * see the top of the file.  Returns the length, or -errno. */
ssize_t gm_pf_read(int dirfd, const char *path, char *buf, size_t cap)
{
    ssize_t n;
    int fd, e;

    fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    do
        n = read(fd, buf, cap);
    while (n < 0 && errno == EINTR);
    e = errno;
    close(fd);
    return n < 0 ? -e : n;
}

/* The command line read into res[len] (big: the heap buffer res is, or
 * NULL when res is on the caller's stack): NULs become spaces, trailing NULs
 * go.  NULL when empty. */
char *gm_pf_cmdline_text(char *res, size_t len, char *big)
{
    while (len > 0 && res[len - 1] == '\0')
        len--;
    if (len == PF_CMDLINE_MAX)
        len--; /* room for the terminator */
    for (size_t i = 0; i < len; i++)
        if (res[i] == '\0')
            res[i] = ' ';
    if (len == 0) {
        free(big);
        return NULL;
    }
    if (big) {
        big[len] = '\0';
        return big;
    }
    return gm_xstrndup(res, len);
}

/* /proc/PID/cmdline: NULs become spaces, trailing NULs go.  NULL when empty
 * (kernel threads, zombies) or unreadable. */
char *gm_pf_read_cmdline(int dirfd, const char *path)
{
    char sbuf[4096];
    char *big = NULL;
    size_t len;
    ssize_t n;
    int fd;

    fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    do
        n = read(fd, sbuf, sizeof sbuf);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        close(fd);
        return NULL;
    }
    len = (size_t)n;
    if (len == sizeof sbuf) {
        /* Long command line: continue into a heap buffer, up to the cap. */
        big = gm_xmalloc(PF_CMDLINE_MAX);
        memcpy(big, sbuf, len);
        while (len < PF_CMDLINE_MAX) {
            n = read(fd, big + len, PF_CMDLINE_MAX - len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            len += (size_t)n;
        }
    }
    close(fd);
    return gm_pf_cmdline_text(big ? big : sbuf, len, big);
}

/* The path part (after the second ':') of one "ID:CONTROLLERS:PATH" line. */
static int pf_cgroup_path(const char *line, const char *eol, const char **path)
{
    const char *c1 = memchr(line, ':', (size_t)(eol - line));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;

    if (!c2 || c2 + 1 >= eol)
        return -1;
    *path = c2 + 1;
    return 0;
}

/* /proc/PID/cgroup: on cgroup v2 the single "0::/path" line gives "/path".
 * On v1 and hybrid hosts, where most hierarchies often say just "/", the
 * most specific of the lines wins: the v2 line if not "/", else the first
 * line with a path other than "/", else the first line's path. */
/* The cgroup path gm_pf_parse_cgroup would copy: *len bytes at the returned
 * pointer into buf, or NULL. */
const char *gm_pf_cgroup_best(const char *buf, ssize_t n, size_t *len)
{
    const char *best = NULL, *best_end = NULL, *p, *end, *eol, *cp;
    int v2_specific = 0;

    if (n <= 0)
        return NULL;
    end = buf + n;
    for (p = buf; p < end && !v2_specific; p = eol < end ? eol + 1 : end) {
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (pf_cgroup_path(p, eol, &cp) < 0)
            continue;
        int is_root = (eol - cp == 1 && *cp == '/');
        int is_v2 = (eol - p >= 3 && memcmp(p, "0::", 3) == 0);
        if (!best || (!is_root && (best_end - best == 1 && *best == '/')) || (!is_root && is_v2)) {
            best = cp;
            best_end = eol;
            v2_specific = !is_root && is_v2;
        }
    }
    if (best)
        *len = (size_t)(best_end - best);
    return best;
}

char *gm_pf_parse_cgroup(const char *buf, ssize_t n)
{
    size_t len = 0;
    const char *best = gm_pf_cgroup_best(buf, n, &len);
    return best ? gm_xstrndup(best, len) : NULL;
}

/* The real uid from /proc/PID/status ("Uid:\tREAL\tEFFECTIVE\t..."), read
 * into buf[n] (n < 0: unreadable). */
int gm_pf_parse_uid(const char *buf, ssize_t n, uint32_t *uid, uint32_t *nspid)
{
    const char *p, *end;
    unsigned long long v;
    int have_uid = 0;

    *nspid = 0;
    if (n <= 0)
        return -1;
    end = buf + n;
    for (p = buf; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (!have_uid && eol - p > 4 && memcmp(p, "Uid:", 4) == 0) {
            p += 4;
            /* read(2)-filled, see parse_ull:
             * NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
            while (p < eol && (*p == '\t' || *p == ' '))
                p++;
            if (parse_ull(&p, eol, &v) < 0 || v > UINT32_MAX)
                return -1;
            *uid = (uint32_t)v;
            have_uid = 1;
        } else if (eol - p > 6 && memcmp(p, "NSpid:", 6) == 0) {
            /* "NSpid:\t4711\t1": the PID in each namespace, outermost
             * first; the last is the process's own */
            p += 6;
            for (;;) {
                /* read(2)-filled, see parse_ull:
                 * NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
                while (p < eol && (*p == '\t' || *p == ' '))
                    p++;
                if (p >= eol)
                    break;
                if (parse_ull(&p, eol, &v) < 0 || v > UINT32_MAX || v == 0) {
                    *nspid = 0;
                    break;
                }
                *nspid = (uint32_t)v;
            }
        }
        p = eol < end ? eol + 1 : end;
    }
    return have_uid ? 0 : -1;
}

char *gm_pf_read_exe(int dirfd, const char *path)
{
    char buf[PATH_MAX];
    ssize_t n = readlinkat(dirfd, path, buf, sizeof buf);

    if (n <= 0)
        return NULL; /* EACCES for other users' processes, ENOENT for kernel threads */
    if ((size_t)n == sizeof buf)
        n--; /* cut, as readlink does not say how long the target is */
    return gm_xstrndup(buf, (size_t)n);
}

/* Boot time from the "btime SECONDS" line of ROOT/stat, read in chunks (on
 * big machines the intr line before it runs to many kilobytes).  Returns 0
 * and *ns, or -1. */
int gm_pf_read_btime(int rootfd, int64_t *ns)
{
    static const char key[] = "btime ";
    char buf[4096];
    unsigned long long v = 0;
    size_t matched = 0; /* chars of key matched at the start of this line; SIZE_MAX: no */
    int digits = 0, fd, rc = -1;
    ssize_t n;

    fd = openat(rootfd, "stat", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    for (;;) {
        n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            char c = buf[i];
            if (c == '\n') {
                if (matched == sizeof key - 1 && digits > 0) {
                    rc = 0;
                    goto out;
                }
                matched = 0;
                v = 0;
                digits = 0;
            } else if (matched == SIZE_MAX) {
                continue;
            } else if (matched < sizeof key - 1) {
                matched = (c == key[matched]) ? matched + 1 : SIZE_MAX;
            } else if (c >= '0' && c <= '9' && v < ULLONG_MAX / 20) {
                v = v * 10 + (unsigned)(c - '0');
                digits++;
            } else {
                matched = SIZE_MAX;
            }
        }
    }
    if (matched == sizeof key - 1 && digits > 0)
        rc = 0; /* last line without a newline */
out:
    close(fd);
    if (rc == 0) {
        if (v > (unsigned long long)(INT64_MAX / PF_NS))
            return -1;
        *ns = (int64_t)v * PF_NS;
    }
    return rc;
}

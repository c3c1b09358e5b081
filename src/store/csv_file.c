/* csv_file.c -- the CSV log writer's files (see csv.c and csv_int.h):
 * their names, headers and torn-tail repair, choosing and opening the
 * file of a kind and day (never through a symbolic link, never a second
 * name of another file), and writing rows with one write(2) each, cutting
 * back a failed write and accounting its rows as lost (logged per kind of
 * file, at most once a minute).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "csv_int.h"

/* mkdir -p with mode 0755; errno says why it failed. */
static int mkdirs(const char *dir)
{
    return gm_safefile_mkdirs(dir, 0755, NULL) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ files */

static const char *const kind_infix[K__N] = {"_", "_procs_", "_events_"};

static void file_name(const struct gm_csv *c, int kind, const char *day, int n, const char *ext,
                      char *buf, size_t len)
{
    if (n <= 1)
        snprintf(buf, len, "%s%s%s%s", c->task, kind_infix[kind], day, ext);
    else
        snprintf(buf, len, "%s%s%s-%d%s", c->task, kind_infix[kind], day, n, ext);
}

int gm_cv_parse_name(const struct gm_csv *c, const char *name, int *kind, char *day, int *n,
                     int *ext)
{
    size_t tl = strlen(c->task);
    if (strncmp(name, c->task, tl) != 0)
        return -1;
    const char *p = name + tl;
    for (int k = K__N - 1; k >= 0; k--) {
        size_t il = strlen(kind_infix[k]);
        if (strncmp(p, kind_infix[k], il) != 0)
            continue;
        const char *q = p + il;
        for (int i = 0; i < 8; i++)
            if (q[i] < '0' || q[i] > '9')
                return -1;
        int y = (q[0] - '0') * 1000 + (q[1] - '0') * 100 + (q[2] - '0') * 10 + (q[3] - '0');
        int mo = (q[4] - '0') * 10 + (q[5] - '0');
        int d = (q[6] - '0') * 10 + (q[7] - '0');
        if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31)
            return -1;
        memcpy(day, q, 8);
        day[8] = '\0';
        q += 8;
        int num = 1;
        if (*q == '-') {
            q++;
            if (*q < '1' || *q > '9')
                return -1;
            num = 0;
            while (*q >= '0' && *q <= '9') {
                num = num * 10 + (*q - '0');
                if (num > MAX_SUFFIX)
                    return -1;
                q++;
            }
            if (num < 2)
                return -1;
        }
        if (strcmp(q, ".csv") == 0)
            *ext = EXT_CSV;
        else if (strcmp(q, ".csv.gz") == 0)
            *ext = EXT_GZ;
        else if (strcmp(q, ".csv.gz.tmp") == 0)
            *ext = EXT_TMP;
        else
            return -1;
        *kind = k;
        *n = num;
        return 0;
    }
    return -1;
}

/* Whether an existing file may be appended to: its first line is the header
 * we would write, or it is empty, or it is a torn prefix of that header
 * (which the tail repair cuts back to an empty file). */
static int header_matches(int fd, const char *h, size_t hlen)
{
    char *buf = gm_xmalloc(hlen + 1);
    ssize_t n = pread(fd, buf, hlen + 1, 0);
    int ok;
    if (n < 0) {
        ok = 0;
    } else if (n == 0) {
        ok = 1;
    } else {
        const char *nl = memchr(buf, '\n', (size_t)n);
        if (nl)
            ok = (size_t)(nl - buf) + 1 == hlen && memcmp(buf, h, hlen) == 0;
        else
            ok = (size_t)n <= hlen && memcmp(buf, h, (size_t)n) == 0;
    }
    free(buf);
    return ok;
}

/* Sets f->known_* for the open file fd (st: its fstat): scans it from the
 * start, unless the last scan or write left this file at this size. */
static int scan_file(struct cfile *f, int fd, const struct stat *st)
{
    if (f->known && f->known_dev == st->st_dev && f->known_ino == st->st_ino &&
        f->known_size == st->st_size)
        return 0;
    enum { CHUNK = 65536 };
    struct gm_csv_scan sc;
    gm_csv_scan_init(&sc);
    char *buf = gm_xmalloc(CHUNK);
    off_t pos = 0;
    int rc = 0;
    while (pos < st->st_size) {
        size_t want = st->st_size - pos > CHUNK ? CHUNK : (size_t)(st->st_size - pos);
        ssize_t r = pread(fd, buf, want, pos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -errno;
            break;
        }
        if (r == 0)
            break; /* shorter than fstat said: scan what there is */
        gm_csv_scan_feed(&sc, buf, (size_t)r);
        pos += r;
    }
    free(buf);
    if (rc < 0) {
        f->known = 0;
        return rc;
    }
    f->known = 1;
    f->known_dev = st->st_dev;
    f->known_ino = st->st_ino;
    f->known_size = pos;
    f->known_valid = (off_t)sc.valid;
    return 0;
}

/* Whether the existing file `name` (open as fd, st its fstat) for kind k
 * may be appended to as far as its records go: what follows its last whole
 * record is no longer than a torn row can be.  A read error says yes (the
 * repair reports it). */
static int tail_ok(struct gm_csv *c, int k, int fd, const struct stat *st, const char *name)
{
    struct cfile *f = &c->f[k];
    if (scan_file(f, fd, st) < 0 || f->known_size - f->known_valid <= (off_t)GM_CSV_MAX_TORN)
        return 1;
    csv_log(c, 4,
            "csv: %s/%s: its last %lld bytes are not whole records (an unbalanced quote?), "
            "more than a torn row leaves; leaving the file as it is and starting another",
            c->dir, name, (long long)(f->known_size - f->known_valid));
    return 0;
}

/* Cuts a torn last record (left by a crash or a full disk) back to the end
 * of the last whole record.  -EBADMSG, cutting nothing, when that would be
 * more than GM_CSV_MAX_TORN bytes. */
static int repair_tail(struct gm_csv *c, struct cfile *f)
{
    struct stat st;
    if (fstat(f->fd, &st) < 0)
        return -errno;
    if (st.st_size == 0)
        return 0;
    int rc = scan_file(f, f->fd, &st);
    if (rc < 0)
        return rc;
    off_t keep = f->known_valid, end = f->known_size;
    if (keep == end)
        return 0;
    if (end - keep > (off_t)GM_CSV_MAX_TORN)
        return -EBADMSG;
    if (ftruncate(f->fd, keep) < 0)
        return -errno;
    f->known_size = keep;
    c->st.torn_repaired++;
    csv_log(c, 4, "csv: %s: cut %lld bytes of a torn last line (left by a crash or a full disk)",
            f->path, (long long)(end - keep));
    return 0;
}

int gm_cv_fsync_file(struct cfile *f)
{
    if (f->fd < 0 || !f->dirty)
        return 0;
    if (fdatasync(f->fd) < 0)
        return -errno;
    f->dirty = 0;
    return 0;
}

void gm_cv_file_close(struct gm_csv *c, int k)
{
    struct cfile *f = &c->f[k];
    if (f->fd < 0)
        return;
    if (c->sync != GM_CSV_SYNC_NONE)
        gm_cv_fsync_file(f);
    close(f->fd);
    f->fd = -1;
    f->dirty = 0;
    pthread_mutex_lock(&c->mu);
    f->name[0] = '\0';
    pthread_mutex_unlock(&c->mu);
}

/* Highest suffix among this kind's files of day (.csv or .csv.gz; a .tmp
 * without its .csv is stale); 0 when there are none. */
static int highest_suffix(struct gm_csv *c, int dfd, int k, const char *day)
{
    int fd2 = dup(dfd);
    DIR *d = fd2 < 0 ? NULL : fdopendir(fd2);
    if (!d) {
        if (fd2 >= 0)
            close(fd2);
        return -1;
    }
    int maxn = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int kind, n, ext;
        char fday[9];
        if (gm_cv_parse_name(c, de->d_name, &kind, fday, &n, &ext) == 0 && kind == k &&
            ext != EXT_TMP && strcmp(fday, day) == 0 && n > maxn)
            maxn = n;
    }
    closedir(d);
    return maxn;
}

/* Chooses and opens the file of kind k for day, with c->mu held: the
 * highest existing plain .csv whose header matches (and which the janitor
 * is not compressing and has not compressed), else a new suffix. */
static int choose_and_open(struct gm_csv *c, int dfd, int k, const char *day, char *name,
                           size_t nlen)
{
    int maxn = highest_suffix(c, dfd, k, day);
    if (maxn < 0)
        return -errno;
    char gz[NAME_LEN];
    for (int n = maxn; n >= 1; n--) {
        file_name(c, k, day, n, ".csv", name, nlen);
        if (strcmp(name, c->busy) == 0)
            continue;
        file_name(c, k, day, n, ".csv.gz", gz, sizeof(gz));
        if (faccessat(dfd, gz, F_OK, 0) == 0)
            continue;
        int fd = openat(dfd, name, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        struct stat st; /* a regular file of ours, not a second name of another */
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
            header_matches(fd, c->header[k], c->hlen[k]) && tail_ok(c, k, fd, &st, name))
            return fd;
        close(fd);
    }
    for (int n = maxn + 1; n <= MAX_SUFFIX; n++) {
        file_name(c, k, day, n, ".csv", name, nlen);
        int fd =
            openat(dfd, name, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd >= 0 ? fd : -errno;
    }
    return -EMFILE;
}

int gm_cv_file_open(struct gm_csv *c, int k, const char *day)
{
    struct cfile *f = &c->f[k];
    char name[NAME_LEN];
    gm_cv_file_close(c, k);
    /* the directory is looked up afresh: it may have been removed or
     * replaced since the last file was opened (it is made again) */
    int dfd = -1;
    if (gm_safefile_dir_open(c->dir, &dfd, NULL) != 0 && errno == ENOENT && mkdirs(c->dir) == 0)
        gm_safefile_dir_open(c->dir, &dfd, NULL);
    int fd = -errno;
    if (dfd >= 0) {
        pthread_mutex_lock(&c->mu);
        fd = choose_and_open(c, dfd, k, day, name, sizeof(name));
        if (fd >= 0)
            gm_strlcpy(f->name, name, sizeof(f->name));
        pthread_mutex_unlock(&c->mu);
        close(dfd);
    }
    if (fd < 0) {
        /* name the file we wanted, for the message */
        file_name(c, k, day, 1, ".csv", name, sizeof(name));
        snprintf(f->path, sizeof(f->path), "%s/%s", c->dir, name);
        return fd;
    }
    f->fd = fd;
    f->dirty = 0;
    f->failed = 0;
    gm_strlcpy(f->day, day, sizeof(f->day));
    snprintf(f->path, sizeof(f->path), "%s/%s", c->dir, name);
    c->st.files_opened++;
    int rc = repair_tail(c, f);
    if (rc < 0)
        f->failed = 1; /* retried before the next write */
    return 0;
}

/* ----------------------------------------------------- writing and errors */

/* Failures and recoveries are each file's own (per kind of file): a small
 * events row that still fits does not end the GPU file's outage. */
static void note_failure(struct gm_csv *c, struct cfile *f, int e, uint64_t nrows)
{
    char eb[128];
    c->st.rows_lost += nrows;
    c->st.last_errno = e;
    f->outage_lost += nrows;
    int64_t now = gm_mono_ns();
    if (!f->fail_logged || now - f->last_fail_log >= MINUTE_NS) {
        /* at most once a minute per kind of file */
        csv_log(c, 3, "csv: cannot write %s: %s; %" PRIu64 " rows lost so far", f->path,
                strerror_r(e, eb, sizeof(eb)), f->outage_lost);
        f->last_fail_log = now;
        f->fail_logged = 1;
    }
    f->failing = 1;
}

static void note_success(struct gm_csv *c, struct cfile *f)
{
    if (f->failing) {
        csv_log(c, 6, "csv: writing again after %" PRIu64 " rows lost (%s)", f->outage_lost,
                f->path);
        f->failing = 0;
        f->outage_lost = 0;
    }
    int failing = 0;
    for (int k = 0; k < K__N; k++)
        failing |= c->f[k].failing;
    if (!failing)
        c->st.last_errno = 0;
}

void gm_cv_sync_due(struct gm_csv *c)
{
    if (c->sync != GM_CSV_SYNC_SECOND)
        return;
    int64_t now = gm_mono_ns();
    if (now - c->last_sync < 1000000000LL)
        return;
    c->last_sync = now;
    for (int k = 0; k < K__N; k++)
        gm_cv_fsync_file(&c->f[k]);
}

/* Appends rows (nrows rows in c->rows) to the file of kind k for day with a
 * single write(2); a failed or short write is cut back so no torn row stays.
 * Returns 0 or a negative GM_E code (the rows are then counted as lost). */
int gm_cv_write_rows(struct gm_csv *c, int k, const char *day, uint64_t nrows)
{
    struct cfile *f = &c->f[k];
    struct stat st;
    int e = 0, have_st = 0;
    if (f->fd >= 0 && strcmp(f->day, day) == 0) {
        if (fstat(f->fd, &st) < 0) {
            e = errno;
            note_failure(c, f, e, nrows);
            return errno_code(e);
        }
        have_st = 1;
        if (st.st_nlink == 0) {
            /* deleted under us (rm, or the directory removed): rows written
             * to it would be gone, so the path is made again */
            csv_log(c, 4, "csv: %s was deleted; starting it again", f->path);
            gm_cv_file_close(c, k);
            have_st = 0;
        }
    }
    if (f->fd < 0 || strcmp(f->day, day) != 0) {
        int rc = gm_cv_file_open(c, k, day);
        if (rc < 0) {
            note_failure(c, f, -rc, nrows);
            return errno_code(-rc);
        }
        have_st = 0;
    }
    if (f->failed) {
        int rc = repair_tail(c, f);
        if (rc == -EBADMSG) { /* not whole records any more: another file */
            rc = gm_cv_file_open(c, k, day);
            if (rc == 0 && f->failed)
                rc = -EIO;
        }
        if (rc < 0) {
            note_failure(c, f, -rc, nrows);
            return errno_code(-rc);
        }
        have_st = 0;
    }
    if (!have_st && fstat(f->fd, &st) < 0) {
        e = errno;
        note_failure(c, f, e, nrows);
        return errno_code(e);
    }
    /* The header goes with the first rows, in the same write: a file is
     * never left with a header and nothing, nor rows without a header
     * (also after copytruncate emptied it). */
    const char *p = c->rows.p;
    size_t len = c->rows.len;
    if (st.st_size == 0) {
        gm_buf_reset(&c->out);
        gm_buf_put(&c->out, c->header[k], c->hlen[k]);
        gm_buf_put(&c->out, c->rows.p, c->rows.len);
        p = c->out.p;
        len = c->out.len;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(f->fd, p + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            break;
        }
        if (w == 0) {
            e = EIO;
            break;
        }
        off += (size_t)w; /* a short write is retried once more and then fails */
    }
    if (e) {
        if (off > 0 && ftruncate(f->fd, st.st_size) < 0)
            f->failed = 1;
        else if (off > 0)
            f->failed = 0;
        note_failure(c, f, e, nrows);
        return errno_code(e);
    }
    c->st.bytes += len;
    f->dirty = 1;
    f->known = 1;
    f->known_dev = st.st_dev;
    f->known_ino = st.st_ino;
    f->known_size = f->known_valid = st.st_size + (off_t)len;
    note_success(c, f);
    if (c->sync == GM_CSV_SYNC_SAMPLE)
        gm_cv_fsync_file(f);
    else
        gm_cv_sync_due(c);
    return 0;
}

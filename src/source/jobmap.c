/* jobmap.c -- reads the job-mapping directory each sample (see jobmap.h).
 *
 * Per GPU index it keeps what the file said and the identity of the file
 * it said it from (inode, size, mtime); an unchanged file is not read
 * again.  Warnings name the file and go to the log callback once per
 * change of the file, not once per sample.
 */
#include "jobmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/err.h"

#define SLOTS 64 /* GPU indexes 0..63, as everywhere else (GPU masks) */

struct slot {
    int seen;  /* the file was looked at */
    int known; /* ids below are what the file says (or: no file) */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime,
        ctime; /* ctime also changes on a chmod of a file that could not be read */
    struct gm_jobmap_ids ids;
};

struct gm_jobmap {
    char *dir;
    gm_log_fn log;
    void *log_arg;
    int dir_failed; /* the last open of the directory failed (warned) */
    struct slot slot[SLOTS];
};

struct gm_jobmap *gm_jobmap_new(const char *dir, gm_log_fn log, void *log_arg)
{
    struct gm_jobmap *m = gm_xcalloc(1, sizeof(*m));
    m->dir = gm_xstrdup(dir);
    m->log = log;
    m->log_arg = log_arg;
    return m;
}

void gm_jobmap_free(struct gm_jobmap *m)
{
    if (!m)
        return;
    free(m->dir);
    free(m);
}

static int id_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == ':' || c == '@' || c == '-';
}

static void add_line(const char *p, size_t n, struct gm_jobmap_ids *out)
{
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    if (!n)
        return; /* blank lines are nothing, as a trailing newline is */
    int ok = n < GM_HPC_JOB_LEN;
    for (size_t i = 0; ok && i < n; i++)
        ok = id_char((unsigned char)p[i]);
    if (!ok) {
        out->bad++;
        return;
    }
    for (int k = 0; k < out->n; k++)
        if (strlen(out->id[k]) == n && memcmp(out->id[k], p, n) == 0)
            return; /* the same job twice is one job */
    if (out->n >= GM_HPC_JOBS_MAX) {
        if (out->dropped < UINT16_MAX)
            out->dropped++;
        return;
    }
    memcpy(out->id[out->n], p, n);
    out->id[out->n][n] = '\0';
    out->n++;
}

void gm_jobmap_parse(const char *data, size_t len, struct gm_jobmap_ids *out)
{
    memset(out, 0, sizeof(*out));
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (data + i)) : len - i;
        add_line(data + i, n, out);
        i += n + 1;
    }
}

/* The path of file name in the directory, for warnings (the directory
 * comes from the configuration; the name is a GPU index). */
static void warn(struct gm_jobmap *m, const char *name, const char *fmt, const char *what)
{
    gm_logf(m->log, m->log_arg, GM_LOG_WARNING, "job-mapping file %s/%s: %s%s", m->dir, name, fmt,
            what ? what : "");
}

/* Reads the file of GPU index idx into sl when it changed. */
static void read_slot(struct gm_jobmap *m, int dfd, uint32_t idx, struct slot *sl)
{
    char name[16];
    snprintf(name, sizeof(name), "%u", idx);
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) { /* no file: the GPU holds no job */
            memset(sl, 0, sizeof(*sl));
            sl->seen = sl->known = 1;
            return;
        }
        if (!sl->seen || sl->known)
            warn(m, name, "cannot be read: ", strerror(errno));
        memset(sl, 0, sizeof(*sl));
        sl->seen = 1;
        return;
    }
    if (sl->seen && st.st_dev == sl->dev && st.st_ino == sl->ino && st.st_size == sl->size &&
        st.st_mtim.tv_sec == sl->mtime.tv_sec && st.st_mtim.tv_nsec == sl->mtime.tv_nsec &&
        st.st_ctim.tv_sec == sl->ctime.tv_sec && st.st_ctim.tv_nsec == sl->ctime.tv_nsec)
        return; /* unchanged: what it said still holds */
    memset(sl, 0, sizeof(*sl));
    sl->seen = 1;
    sl->dev = st.st_dev;
    sl->ino = st.st_ino;
    sl->size = st.st_size;
    sl->mtime = st.st_mtim;
    sl->ctime = st.st_ctim;
    if (!S_ISREG(st.st_mode)) {
        /* a symbolic link could point anywhere (a FIFO would block): the
         * GPU's jobs are then unknown, not none */
        warn(m, name,
             S_ISLNK(st.st_mode) ? "is a symbolic link; not followed, the GPU's jobs are unknown"
                                 : "is not a regular file; ignored, the GPU's jobs are unknown",
             NULL);
        return;
    }
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat fst;
    if (fd >= 0 && (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode))) {
        /* replaced by something else between the fstatat and the open */
        close(fd);
        warn(m, name, "is not a regular file; ignored, the GPU's jobs are unknown", NULL);
        return;
    }
    if (fd < 0) {
        warn(m, name, "cannot be read: ", strerror(errno));
        return;
    }
    char *buf = gm_xmalloc(GM_JOBMAP_MAX_BYTES);
    size_t len = 0;
    ssize_t r = 0;
    while (len < GM_JOBMAP_MAX_BYTES && (r = read(fd, buf + len, GM_JOBMAP_MAX_BYTES - len)) > 0)
        len += (size_t)r;
    int err = r < 0 ? errno : 0;
    char more = 0;
    int truncated = len == GM_JOBMAP_MAX_BYTES && read(fd, &more, 1) == 1;
    close(fd);
    if (err) {
        free(buf);
        warn(m, name, "cannot be read: ", strerror(err));
        return;
    }
    if (truncated) {
        /* the last line may be cut in the middle: leave it out */
        char *nl = memrchr(buf, '\n', len);
        len = nl ? (size_t)(nl - buf) : 0;
        warn(m, name, "is larger than 64 KiB; only the lines of its first 64 KiB are read", NULL);
    }
    gm_jobmap_parse(buf, len, &sl->ids);
    free(buf);
    sl->known = 1;
    char what[160];
    if (sl->ids.bad) {
        snprintf(what, sizeof(what),
                 "%u line(s) are not job ids (1-63 characters of A-Z a-z 0-9 . _ + : @ -); "
                 "skipped",
                 sl->ids.bad);
        warn(m, name, what, NULL);
    }
    if (sl->ids.dropped) {
        snprintf(what, sizeof(what), "names %u more jobs than the %d kept; the rest are left out",
                 (unsigned)sl->ids.dropped, GM_HPC_JOBS_MAX);
        warn(m, name, what, NULL);
    }
}

void gm_jobmap_apply(struct gm_jobmap *m, struct gm_snapshot *s)
{
    for (uint32_t i = 0; i < s->ngpu; i++)
        s->gpus[i].hpc_read = 1; /* unknown from here on means unreadable */
    int dfd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        if (!m->dir_failed)
            gm_logf(m->log, m->log_arg, GM_LOG_WARNING,
                    "job-mapping directory %s cannot be read: %s; GPUs' jobs from it are unknown",
                    m->dir, strerror(errno));
        m->dir_failed = 1;
        memset(m->slot, 0, sizeof(m->slot));
        return; /* every GPU stays unknown (hpc_known 0 from gm_snapshot_set_gpus) */
    }
    m->dir_failed = 0;
    for (uint32_t i = 0; i < s->ngpu; i++) {
        struct gm_gpu *g = &s->gpus[i];
        if (g->index >= SLOTS)
            continue;
        struct slot *sl = &m->slot[g->index];
        read_slot(m, dfd, g->index, sl);
        g->hpc_known = (uint8_t)sl->known;
        g->nhpc_jobs = sl->known ? sl->ids.n : 0;
        g->hpc_dropped = sl->known ? sl->ids.dropped : 0;
        memcpy(g->hpc_jobs, sl->ids.id, sizeof(g->hpc_jobs));
    }
    close(dfd);
}

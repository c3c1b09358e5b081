/* csv_janitor.c -- the CSV log writer's janitor (see csv.c and
 * csv_int.h): a thread that deletes this task's files past the retention,
 * gzips finished days (into an anonymous file linked in, never replacing
 * one) and removes stale temporaries, with all signals blocked.  Its
 * messages wait in a short queue for the sink thread (gm_csv_tick,
 * gm_csv_close), so the log callback is only called from the thread that
 * calls gm_csv_*; gm_csv_maintain runs a pass on the caller's thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../core/err.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "csv_int.h"

/* The janitor's messages wait here for the sink thread (gm_csv_tick,
 * gm_csv_close), so the log callback is only ever called from the thread
 * that calls gm_csv_*. */
static void jlog(struct gm_csv *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void jlog(struct gm_csv *c, int level, const char *fmt, ...)
{
    if (!c->log)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (c->pass_inline) {
        c->log(c->log_arg, level, text); /* on the caller's thread already */
        return;
    }
    size_t len = strlen(text);
    struct jmsg *m = gm_xmalloc(sizeof(*m) + len + 1);
    m->next = NULL;
    m->level = level;
    memcpy(m->text, text, len + 1);
    pthread_mutex_lock(&c->mu);
    if (c->nmsgs >= MAX_MSGS) {
        c->msgs_dropped++;
        free(m);
    } else {
        *c->msgs_tail = m;
        c->msgs_tail = &m->next;
        c->nmsgs++;
    }
    pthread_mutex_unlock(&c->mu);
}

void gm_cv_janitor_drain_log(struct gm_csv *c)
{
    pthread_mutex_lock(&c->mu);
    struct jmsg *m = c->msgs;
    uint64_t dropped = c->msgs_dropped;
    c->msgs = NULL;
    c->msgs_tail = &c->msgs;
    c->nmsgs = 0;
    c->msgs_dropped = 0;
    pthread_mutex_unlock(&c->mu);
    while (m) {
        struct jmsg *next = m->next;
        if (c->log)
            c->log(c->log_arg, m->level, m->text);
        free(m);
        m = next;
    }
    if (dropped)
        csv_log(c, 4, "csv: %" PRIu64 " janitor messages dropped", dropped);
}

/* Whether the sink thread has name open (c->mu held). */
static int is_open(const struct gm_csv *c, const char *name)
{
    for (int k = 0; k < K__N; k++)
        if (strcmp(c->f[k].name, name) == 0)
            return 1;
    return 0;
}

/* Wall time (ns) of the local midnight that ends day (YYYYMMDD). */
static int64_t day_end_ns(const char *day)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    tm.tm_year =
        (day[0] - '0') * 1000 + (day[1] - '0') * 100 + (day[2] - '0') * 10 + (day[3] - '0') - 1900;
    tm.tm_mon = (day[4] - '0') * 10 + (day[5] - '0') - 1;
    tm.tm_mday = (day[6] - '0') * 10 + (day[7] - '0') + 1; /* mktime normalises */
    tm.tm_isdst = -1;
    return (int64_t)mktime(&tm) * NS_PER_S;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Deflates in (from its start) into out as one gzip member. */
static int gzip_fd(struct gm_csv *c, int in, int out)
{
    enum { CHUNK = 65536 };
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -ENOMEM;
    unsigned char *ib = gm_xmalloc(CHUNK), *ob = gm_xmalloc(CHUNK);
    int rc = 0, flush = Z_NO_FLUSH;
    while (rc == 0 && flush != Z_FINISH) {
        if (__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
            rc = -ECANCELED; /* gm_csv_close is waiting; the .tmp is removed */
            break;
        }
        ssize_t r = read(in, ib, CHUNK);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        flush = r == 0 ? Z_FINISH : Z_NO_FLUSH;
        z.next_in = ib;
        z.avail_in = (uInt)r;
        do {
            z.next_out = ob;
            z.avail_out = CHUNK;
            if (deflate(&z, flush) == Z_STREAM_ERROR) {
                rc = -EIO;
                break;
            }
            rc = write_all(out, ob, CHUNK - z.avail_out);
        } while (rc == 0 && z.avail_out == 0);
    }
    deflateEnd(&z);
    free(ib);
    free(ob);
    return rc;
}

/* Gzips a finished day's name.csv into an anonymous file (O_TMPFILE; where
 * the file system has none, a temporary with a name nobody can guess),
 * fsyncs it, links it in as name.csv.gz (never replacing a file of that
 * name) and unlinks the .csv.  A crash leaves the intact .csv (and at worst,
 * without O_TMPFILE, a stray temporary).  name.csv.gz.tmp is the name older
 * versions used; the janitor still removes those. */
static void compress_one(struct gm_csv *c, int dfd, const char *name)
{
    char gz[NAME_LEN + 16], eb[128];
    snprintf(gz, sizeof(gz), "%s.gz", name);

    pthread_mutex_lock(&c->mu);
    if (is_open(c, name) || faccessat(dfd, gz, F_OK, 0) == 0) {
        /* open again (a late row for an old day), or a .gz of that name
         * already exists (the writer then never appends to the .csv) */
        pthread_mutex_unlock(&c->mu);
        return;
    }
    gm_strlcpy(c->busy, name, sizeof(c->busy));
    pthread_mutex_unlock(&c->mu);

    int rc = 0;
    struct stat st, gst;
    memset(&st, 0, sizeof(st));
    memset(&gst, 0, sizeof(gst));
    int in = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct gm_safefile_tmp t = {.fd = -1};
    struct gm_err te = {0};
    if (in < 0 || fstat(in, &st) < 0)
        rc = -errno;
    else if (!S_ISREG(st.st_mode))
        rc = -EINVAL; /* a FIFO would block the read */
    if (rc == 0 && gm_safefile_tmp_open(&t, dfd, gz, 0644, 1, &te) != 0)
        rc = -errno;
    int out = t.fd;
    if (rc == 0)
        rc = gzip_fd(c, in, out);
    if (rc == 0) {
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        futimens(out, times); /* the .gz keeps the day's modification time */
        if (fsync(out) < 0 || fstat(out, &gst) < 0)
            rc = -errno;
    }
    if (in >= 0)
        close(in);
    if (rc == 0 && gm_safefile_tmp_link(&t, gz, &te) != 0)
        rc = -errno;
    if (rc == 0) {
        fsync(dfd); /* the .gz is durable before the .csv goes */
        if (unlinkat(dfd, name, 0) < 0)
            jlog(c, 4, "csv: compressed %s/%s but cannot remove it: %s", c->dir, name,
                 strerror_r(errno, eb, sizeof(eb)));
        fsync(dfd);
        __atomic_add_fetch(&c->files_compressed, 1, __ATOMIC_RELAXED);
        jlog(c, 6, "csv: compressed %s/%s (%lld -> %lld bytes)", c->dir, name,
             (long long)st.st_size, (long long)gst.st_size);
    } else {
        gm_safefile_tmp_discard(&t);
        if (rc != -ECANCELED)
            jlog(c, 4, "csv: cannot compress %s/%s: %s", c->dir, name,
                 strerror_r(-rc, eb, sizeof(eb)));
    }

    pthread_mutex_lock(&c->mu);
    c->busy[0] = '\0';
    pthread_mutex_unlock(&c->mu);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One pass over this task's files in dir, as of wall time now. */
void gm_cv_janitor_pass(struct gm_csv *c, int64_t now)
{
    char eb[128], today[16];
    int dfd = -1;
    gm_safefile_dir_open(c->dir, &dfd, NULL);
    DIR *d = dfd < 0 ? NULL : fdopendir(dup(dfd));
    if (!d) {
        jlog(c, 4, "csv: janitor cannot read %s: %s", c->dir, strerror_r(errno, eb, sizeof(eb)));
        if (dfd >= 0)
            close(dfd);
        return;
    }
    /* names first: the pass renames and deletes while it goes */
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int kind, num, ext;
        char day[9];
        if (gm_cv_parse_name(c, de->d_name, &kind, day, &num, &ext) < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            names = gm_xrealloc(names, cap * sizeof(*names));
        }
        names[n++] = gm_xstrdup(de->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp_str); /* stale .tmp files sort after their .csv */

    gm_time_day(now, today, sizeof(today));
    for (size_t i = 0; i < n && !__atomic_load_n(&c->stop, __ATOMIC_RELAXED); i++) {
        const char *name = names[i];
        int kind, num, ext;
        char day[9];
        gm_cv_parse_name(c, name, &kind, day, &num, &ext);
        if (ext == EXT_TMP) {
            /* nothing is being compressed between passes: it is stale */
            if (unlinkat(dfd, name, 0) == 0)
                jlog(c, 4, "csv: removed %s/%s left by an interrupted compression", c->dir, name);
            continue;
        }
        int64_t age = now - day_end_ns(day);
        if (c->retention_ns > 0 && age > c->retention_ns) {
            pthread_mutex_lock(&c->mu);
            int gone = !is_open(c, name) && unlinkat(dfd, name, 0) == 0;
            pthread_mutex_unlock(&c->mu);
            if (gone) {
                __atomic_add_fetch(&c->files_deleted, 1, __ATOMIC_RELAXED);
                jlog(c, 6, "csv: deleted %s/%s (older than the retention)", c->dir, name);
            }
            continue;
        }
        if (ext == EXT_CSV && c->compress_after_ns >= 0 && age > c->compress_after_ns &&
            strcmp(day, today) != 0)
            compress_one(c, dfd, name);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    close(dfd);
}

static void *janitor_main(void *arg)
{
    struct gm_csv *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->wake && !c->stop)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->stop)
            break;
        c->wake = 0;
        int64_t now = c->wake_now;
        pthread_mutex_unlock(&c->mu);
        pthread_mutex_lock(&c->pass_mu);
        gm_cv_janitor_pass(c, now);
        __atomic_add_fetch(&c->janitor_runs, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&c->pass_mu);
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

void gm_cv_janitor_start(struct gm_csv *c)
{
    /* signals (SIGHUP, SIGTERM, SIGXFSZ of a write it makes) stay with the
     * agent's threads: the janitor runs with all of them blocked */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&c->thread, NULL, janitor_main, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        char eb[128];
        csv_log(c, 3, "csv: cannot start the janitor thread (no retention or gzip): %s",
                strerror_r(rc, eb, sizeof(eb)));
        return;
    }
    c->janitor_started = 1;
}

void gm_cv_janitor_wake(struct gm_csv *c, int64_t now_wall_ns)
{
    pthread_mutex_lock(&c->mu);
    c->wake = 1;
    c->wake_now = now_wall_ns;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void gm_cv_janitor_stop(struct gm_csv *c)
{
    if (!c->janitor_started)
        return;
    pthread_mutex_lock(&c->mu);
    __atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    c->janitor_started = 0;
}

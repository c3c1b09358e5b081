/* csv.c -- the agent's daily CSV log writer (see csv.h): rows, files,
 * headers, rotation at local midnight, torn-line repair and disk-full
 * accounting, and the janitor thread that applies retention and gzips
 * finished days.  Sections: the state, columns, small tools, the record
 * scanner, files (names, headers, tail repair, choosing and opening), the
 * janitor, writing and errors, rows, lifecycle.
 *
 * Flush policy: every sample is written with one write(2) on an O_APPEND
 * file descriptor (the whole chunk, header included when the file is new, is
 * built in a gm_buf first); there is no stdio buffering, so kill -9 loses
 * nothing that was already written.  fsync follows the sync option: never
 * (the kernel writes back), after every sample, or at most once a second;
 * gm_csv_flush and gm_csv_close always fsync.
 *
 * One writer per directory: gm_csv_open takes a lock on the directory
 * itself (flock, safefile.h) for the life of the writer, so a second agent
 * pointed at the same directory is refused instead of interleaving rows.
 * Files are opened relative to the directory, never through a symbolic
 * link, and the gzip of a finished day is made anonymously and linked in.
 *
 * What it leaves out: it never rewrites old rows.
 */
#include "csv.h"

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

#include "../core/buf.h"
#include "../core/fmt.h"
#include "../core/log.h"
#include "../core/metrics.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"

/* -------------------------------------------------------------- the state */

#define NS_PER_S INT64_C(1000000000)
#define MINUTE_NS (60 * NS_PER_S)
#define DAY_NS (86400 * NS_PER_S)
#define MAX_SUFFIX 9999 /* <task>_<day>-9999.csv at most */
#define NAME_LEN 256    /* a file name in dir (the task name is at most 128) */
#define MAX_MSGS 32     /* janitor messages waiting for the sink thread */

/* The three kinds of file, each with at most one open descriptor. */
enum { K_GPU = 0, K_PROCS, K_EVENTS, K__N };

/* What the janitor finds in dir. */
enum { EXT_CSV = 0, EXT_GZ, EXT_TMP };

struct cfile {
    int fd;              /* -1 when closed */
    int dirty;           /* written since the last fsync */
    int failed;          /* the last write failed: check the tail before the next */
    char day[16];        /* YYYYMMDD of the open file */
    char name[NAME_LEN]; /* open file's name in dir ("" when closed); under mu */
    char path[NAME_LEN + 4096];
    /* What the last scan or write found: the file (dev, ino) was size bytes
     * long, its first valid bytes whole records.  Lets a reopen of the same
     * file skip the scan. */
    /* a run of failed writes of this kind of file, logged for itself */
    int failing;           /* in a run of failed writes */
    uint64_t outage_lost;  /* rows lost in this run */
    int fail_logged;       /* last_fail_log is set */
    int64_t last_fail_log; /* monotonic */
    int known;
    dev_t known_dev;
    ino_t known_ino;
    off_t known_size, known_valid;
};

struct jmsg {
    struct jmsg *next;
    int level;
    char text[];
};

struct gm_csv {
    /* options (copied) */
    char *dir, *task, *host;
    struct gm_safefile_lock *lock; /* on dir, for the writer's life */
    int *cols, ncols;
    int procs, sync;
    int64_t retention_ns, compress_after_ns;
    void (*log)(void *arg, int level, const char *msg);
    void *log_arg;

    /* the sink thread's side */
    char *header[K__N];
    size_t hlen[K__N];
    struct cfile f[K__N];
    struct gm_buf rows, out, status;
    struct gm_csv_stats st; /* all but the janitor's counters */
    int64_t last_sync;      /* monotonic */
    int64_t tick_last;      /* wall time of the last janitor wake-up */
    char tick_day[16];

    /* shared with the janitor: mu guards f[].name, busy, wake, stop, msgs;
     * pass_mu is held for a whole pass (janitor or gm_csv_maintain) */
    pthread_mutex_t pass_mu;
    int pass_inline; /* under pass_mu: the pass runs in gm_csv_maintain (log directly) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int janitor_started;
    int wake, stop;
    int64_t wake_now;
    char busy[NAME_LEN]; /* the file being compressed */
    struct jmsg *msgs, **msgs_tail;
    int nmsgs;
    uint64_t msgs_dropped;
    uint64_t files_compressed, files_deleted, janitor_runs; /* atomics */
};

static void janitor_start(struct gm_csv *c);
static void janitor_wake(struct gm_csv *c, int64_t now_wall_ns);
static void janitor_stop(struct gm_csv *c);
static void janitor_drain_log(struct gm_csv *c);

/* ---------------------------------------------------------------- columns */

static const int default_columns[] = {
    GM_M_INDEX,    GM_M_UUID,      GM_M_NAME,       GM_M_UTIL_GPU,    GM_M_UTIL_MEM,
    GM_M_MEM_USED, GM_M_MEM_TOTAL, GM_M_POWER_DRAW, GM_M_POWER_LIMIT, GM_M_TEMP_GPU,
    GM_M_CLK_SM,   GM_M_CLK_MEM,   GM_M_CER_ACTIVE,
};

/* The processes file: GPU identity, then these process fields. */
static const int proc_gpu_columns[] = {GM_M_INDEX, GM_M_UUID};
static const int proc_columns[] = {GM_P_PID,         GM_P_USER, GM_P_NAME, GM_P_CMDLINE,
                                   GM_P_USED_MEMORY, GM_P_TYPE, GM_P_STATE};

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

const int *gm_csv_default_columns(int *n)
{
    if (n)
        *n = N_ELEM(default_columns);
    return default_columns;
}

int gm_csv_parse_columns(const char *list, int *ids, int max, int *n, struct gm_err *err)
{
    int count = 0;
    if (n)
        *n = 0;
    if (!list || !*list)
        return gm_err_set(err, GM_E_INVAL, "--columns: empty list");
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len == 0)
            return gm_err_set(err, GM_E_INVAL, "--columns: empty field in \"%s\"", list);
        char name[128];
        int id = -1;
        if (len < sizeof(name)) {
            memcpy(name, p, len);
            name[len] = '\0';
            id = gm_metric_by_name(name, 0);
        }
        if (id < 0)
            return gm_err_set(err, GM_E_INVAL, "--columns: unknown field \"%.*s\"", (int)len, p);
        /* The time is always the first column; nvidia-smi habits put
         * "timestamp" in the list, which would repeat it. */
        if (id != GM_M_TIMESTAMP) {
            for (int i = 0; i < count; i++)
                if (ids[i] == id)
                    return gm_err_set(err, GM_E_INVAL, "--columns: field \"%.*s\" given twice",
                                      (int)len, p);
            if (count >= max)
                return gm_err_set(err, GM_E_INVAL, "--columns: too many fields (at most %d)", max);
            ids[count++] = id;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (count == 0)
        return gm_err_set(err, GM_E_INVAL, "--columns: no field besides the time");
    if (n)
        *n = count;
    return 0;
}

/* ------------------------------------------------------------ small tools */

#define csv_log(c, level, ...) gm_logf((c)->log, (c)->log_arg, (level), __VA_ARGS__)

static int errno_code(int e)
{
    return (e == ENOSPC || e == EFBIG || e == EDQUOT) ? GM_E_NOSPC : GM_E_IO;
}

/* mkdir -p with mode 0755; errno says why it failed. */
static int mkdirs(const char *dir)
{
    return gm_safefile_mkdirs(dir, 0755, NULL) == 0 ? 0 : -1;
}

/* Task names become file-name prefixes: [A-Za-z0-9._-]+, and not ending in
 * "_procs" or "_events", so that no task's files can be mistaken for the
 * processes or events files of another task (the janitor deletes by name). */
static int task_ok(const char *t)
{
    size_t len = strlen(t);
    if (len == 0 || len > 128 || strcmp(t, ".") == 0 || strcmp(t, "..") == 0)
        return 0;
    for (const char *p = t; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            return 0;
    static const char *const bad[] = {"_procs", "_events"};
    for (int i = 0; i < 2; i++) {
        size_t bl = strlen(bad[i]);
        if (len >= bl && strcmp(t + len - bl, bad[i]) == 0)
            return 0;
    }
    return 1;
}

/* One CSV cell of gpumon's own text or a number, quoted per RFC 4180 when it
 * holds a comma or quote (gm_text_csv: one line, valid UTF-8). */
static void put_cell(struct gm_buf *b, const char *s)
{
    gm_text_csv(b, s, strlen(s), 0);
}

/* One CSV cell of text from outside (names, UUIDs, command lines, marks):
 * also the formula rule, a ' before = + - @ ' (docs/store.md). */
static void put_text(struct gm_buf *b, const char *s)
{
    gm_text_csv(b, s, strlen(s), GM_TEXT_CSV_OUTSIDE);
}

/* A metric's cell: text metrics are outside text. */
static void put_metric(struct gm_buf *b, int id, const char *s)
{
    if (gm_metrics[id].fmt == GM_F_STR)
        put_text(b, s);
    else
        put_cell(b, s);
}

static void put_col_name(struct gm_buf *b, int id)
{
    char name[128];
    gm_buf_putc(b, ',');
    gm_buf_puts(b, gm_metric_csv_col(id, name, sizeof(name)));
}

static void build_headers(struct gm_csv *c)
{
    char tcol[32];
    gm_metric_csv_col(GM_M_TIMESTAMP, tcol, sizeof(tcol));
    for (int k = 0; k < K__N; k++) {
        struct gm_buf b = GM_BUF_INIT;
        gm_buf_printf(&b, "%s,host,task_id", tcol);
        switch (k) {
        case K_GPU:
            for (int i = 0; i < c->ncols; i++)
                put_col_name(&b, c->cols[i]);
            gm_buf_puts(&b, ",status");
            break;
        case K_PROCS:
            for (int i = 0; i < N_ELEM(proc_gpu_columns); i++)
                put_col_name(&b, proc_gpu_columns[i]);
            for (int i = 0; i < N_ELEM(proc_columns); i++)
                put_col_name(&b, proc_columns[i]);
            /* who it belongs to: docs/jobs.md; its process tree: docs/diagnose.md */
            gm_buf_puts(&b, ",job_id,ns_pid,ppid,sid");
            break;
        default:
            gm_buf_puts(&b, ",type,gpu,uuid,code,text");
            break;
        }
        gm_buf_putc(&b, '\n');
        c->header[k] = b.p;
        c->hlen[k] = b.len;
    }
}

/* ------------------------------------------------------ the record scanner */

/* Where the scanner is: at the start of a field, in an unquoted field, in a
 * quoted field, or just after a '"' in a quoted field (a doubled quote or
 * the closing one: the next byte says which). */
enum { SC_FIELD = 0, SC_PLAIN, SC_QUOTED, SC_QUOTE };

void gm_csv_scan_init(struct gm_csv_scan *s)
{
    memset(s, 0, sizeof(*s));
    s->state = SC_FIELD;
}

void gm_csv_scan_feed(struct gm_csv_scan *s, const char *p, size_t n)
{
    int st = s->state;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (st == SC_QUOTED) {
            /* most bytes of a quoted cell: skip to its next quote */
            const char *q = memchr(p + i, '"', n - i);
            if (!q)
                break; /* the cell goes on past this chunk */
            i = (size_t)(q - p);
            st = SC_QUOTE;
            continue;
        }
        if (st == SC_QUOTE && ch == '"') {
            st = SC_QUOTED; /* "" inside a quoted cell */
            continue;
        }
        if (ch == '\n') {
            s->valid = s->fed + i + 1;
            st = SC_FIELD;
        } else if (ch == ',' || ch == '\r') {
            st = SC_FIELD; /* a bare '\r' ends a record for Python's reader */
        } else if (ch == '"' && st == SC_FIELD) {
            st = SC_QUOTED;
        } else {
            st = SC_PLAIN; /* also after a closing quote: read on as Python does */
        }
    }
    s->fed += n;
    s->state = st;
}

size_t gm_csv_valid_prefix(const char *p, size_t n)
{
    struct gm_csv_scan s;
    gm_csv_scan_init(&s);
    if (n > 0)
        gm_csv_scan_feed(&s, p, n);
    return (size_t)s.valid;
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

static int parse_name(const struct gm_csv *c, const char *name, int *kind, char *day, int *n,
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

static int fsync_file(struct cfile *f)
{
    if (f->fd < 0 || !f->dirty)
        return 0;
    if (fdatasync(f->fd) < 0)
        return -errno;
    f->dirty = 0;
    return 0;
}

static void file_close(struct gm_csv *c, int k)
{
    struct cfile *f = &c->f[k];
    if (f->fd < 0)
        return;
    if (c->sync != GM_CSV_SYNC_NONE)
        fsync_file(f);
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
        if (parse_name(c, de->d_name, &kind, fday, &n, &ext) == 0 && kind == k && ext != EXT_TMP &&
            strcmp(fday, day) == 0 && n > maxn)
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

static int file_open(struct gm_csv *c, int k, const char *day)
{
    struct cfile *f = &c->f[k];
    char name[NAME_LEN];
    file_close(c, k);
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

/* ------------------------------------------------------------ the janitor */

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

static void janitor_drain_log(struct gm_csv *c)
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
static void janitor_pass(struct gm_csv *c, int64_t now)
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
        if (parse_name(c, de->d_name, &kind, day, &num, &ext) < 0)
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
        parse_name(c, name, &kind, day, &num, &ext);
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
        janitor_pass(c, now);
        __atomic_add_fetch(&c->janitor_runs, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&c->pass_mu);
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

static void janitor_start(struct gm_csv *c)
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

static void janitor_wake(struct gm_csv *c, int64_t now_wall_ns)
{
    pthread_mutex_lock(&c->mu);
    c->wake = 1;
    c->wake_now = now_wall_ns;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void janitor_stop(struct gm_csv *c)
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

static void sync_due(struct gm_csv *c)
{
    if (c->sync != GM_CSV_SYNC_SECOND)
        return;
    int64_t now = gm_mono_ns();
    if (now - c->last_sync < 1000000000LL)
        return;
    c->last_sync = now;
    for (int k = 0; k < K__N; k++)
        fsync_file(&c->f[k]);
}

/* Appends rows (nrows rows in c->rows) to the file of kind k for day with a
 * single write(2); a failed or short write is cut back so no torn row stays.
 * Returns 0 or a negative GM_E code (the rows are then counted as lost). */
static int write_rows(struct gm_csv *c, int k, const char *day, uint64_t nrows)
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
            file_close(c, k);
            have_st = 0;
        }
    }
    if (f->fd < 0 || strcmp(f->day, day) != 0) {
        int rc = file_open(c, k, day);
        if (rc < 0) {
            note_failure(c, f, -rc, nrows);
            return errno_code(-rc);
        }
        have_st = 0;
    }
    if (f->failed) {
        int rc = repair_tail(c, f);
        if (rc == -EBADMSG) { /* not whole records any more: another file */
            rc = file_open(c, k, day);
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
        fsync_file(f);
    else
        sync_due(c);
    return 0;
}

/* ------------------------------------------------------------------- rows */

static void row_start(struct gm_buf *b, const char *iso, const char *host, const char *task)
{
    put_cell(b, iso);
    gm_buf_putc(b, ',');
    put_text(b, host);
    gm_buf_putc(b, ',');
    put_text(b, task); /* a mark's task comes from whoever can reach the socket */
}

/* A GPU cell: gm_fmt_csv, except that clock event reasons are names joined
 * by '|' ("none" when there are none) instead of a hex mask. */
static const char *gpu_cell(const struct gm_snapshot *s, const struct gm_gpu *g, int id, char *buf,
                            size_t len)
{
    if (id != GM_M_CER_ACTIVE)
        return gm_fmt_csv(s, g, NULL, id, buf, len);
    const struct gm_value *v = gm_fmt_value(s, g, NULL, id);
    if (!gm_v_ok(v)) {
        buf[0] = '\0';
        return buf;
    }
    gm_reasons_format(v->v.u, buf, len);
    for (char *q = buf; *q; q++)
        if (*q == ',')
            *q = '|';
    return buf;
}

static const char *why_absent(const struct gm_value *v)
{
    if (v->status == GM_VS_NA && v->code == GM_CODE_NOT_COLLECTED)
        return "not_collected";
    return gm_vstatus_name((enum gm_vstatus)v->status);
}

static const char *gpu_state_word(int state)
{
    switch (state) {
    case GM_GPU_LOST:
        return "gpu_lost";
    case GM_GPU_NOPERM:
        return "no_permission";
    default:
        return "error";
    }
}

/* One GPU row (g == NULL: the row that stands for no GPUs, with `status`). */
static void gpu_row(struct gm_csv *c, const struct gm_snapshot *s, const struct gm_gpu *g,
                    const char *iso, const char *status)
{
    char cell[512], col[128];
    struct gm_buf *b = &c->rows;
    row_start(b, iso, c->host, c->task);
    gm_buf_reset(&c->status);
    int missing = 0;
    for (int i = 0; i < c->ncols; i++) {
        int id = c->cols[i];
        gm_buf_putc(b, ',');
        put_metric(b, id, gpu_cell(s, g, id, cell, sizeof(cell)));
        const struct gm_value *v = gm_fmt_value(s, g, NULL, id);
        if (g && g->state == GM_GPU_OK && !gm_v_ok(v)) {
            gm_buf_printf(&c->status, "%s%s:%s",
                          missing ? "," : "ok;missing=", gm_metric_csv_col(id, col, sizeof(col)),
                          why_absent(v));
            missing++;
        }
    }
    gm_buf_putc(b, ',');
    if (!g)
        put_cell(b, status ? status : "");
    else if (g->state != GM_GPU_OK)
        put_cell(b, gpu_state_word(g->state));
    else
        put_cell(b, missing ? c->status.p : "ok");
    gm_buf_putc(b, '\n');
}

static void proc_row(struct gm_csv *c, const struct gm_snapshot *s, const struct gm_proc *p,
                     const char *iso)
{
    char cell[512];
    struct gm_buf *b = &c->rows;
    const struct gm_gpu *g = p->gpu < s->ngpu ? &s->gpus[p->gpu] : NULL;
    row_start(b, iso, c->host, c->task);
    for (int i = 0; i < N_ELEM(proc_gpu_columns); i++) {
        gm_buf_putc(b, ',');
        put_metric(b, proc_gpu_columns[i],
                   gm_fmt_csv(s, g, NULL, proc_gpu_columns[i], cell, sizeof(cell)));
    }
    for (int i = 0; i < N_ELEM(proc_columns); i++) {
        int id = proc_columns[i];
        gm_buf_putc(b, ',');
        if (id == GM_P_CMDLINE) {
            /* the command line can be longer than any fixed cell */
            const char *cmd = gm_fmt_string(s, g, p, id);
            put_text(b, cmd ? cmd : "");
        } else {
            put_metric(b, id, gm_fmt_csv(s, g, p, id, cell, sizeof(cell)));
        }
    }
    /* job_id: ids from the cgroup in their own alphabets or a unit name
     * (core/attrib.c); quoted like any text all the same */
    gm_buf_putc(b, ',');
    put_text(b, gm_attrib_job(&p->attrib, cell, sizeof(cell)));
    gm_buf_putc(b, ',');
    if (p->nspid)
        gm_buf_printf(b, "%" PRIu32, p->nspid);
    gm_buf_putc(b, ',');
    if (p->ppid)
        gm_buf_printf(b, "%" PRIu32, p->ppid);
    gm_buf_putc(b, ',');
    if (p->sid)
        gm_buf_printf(b, "%" PRIu32, p->sid);
    gm_buf_putc(b, '\n');
}

int gm_csv_write(struct gm_csv *c, const struct gm_snapshot *s)
{
    char iso[64], day[16];
    gm_time_iso(s->wall_ns, iso, sizeof(iso));
    gm_time_day(s->wall_ns, day, sizeof(day));

    gm_buf_reset(&c->rows);
    uint64_t nrows = 0;
    if (s->ngpu == 0) {
        /* one explicit row, never a blank line or the last values again */
        gpu_row(c, s, NULL, iso,
                s->driver != GM_DRV_OK ? gm_driver_state_name((enum gm_driver_state)s->driver)
                                       : "no_gpus");
        nrows = 1;
    } else {
        for (uint32_t i = 0; i < s->ngpu; i++)
            gpu_row(c, s, &s->gpus[i], iso, NULL);
        nrows = s->ngpu;
    }
    int rc = write_rows(c, K_GPU, day, nrows);
    if (rc == 0)
        c->st.rows += nrows;

    if (c->procs && s->nproc > 0) {
        gm_buf_reset(&c->rows);
        for (uint32_t i = 0; i < s->nproc; i++)
            proc_row(c, s, &s->procs[i], iso);
        int prc = write_rows(c, K_PROCS, day, s->nproc);
        if (prc == 0)
            c->st.proc_rows += s->nproc;
        else if (rc == 0)
            rc = prc;
    }
    return rc;
}

static void copy_field(char *dst, const char *src, size_t srclen)
{
    size_t n = strnlen(src, srclen);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int gm_csv_event(struct gm_csv *c, const struct gm_event *e)
{
    char iso[64], day[16], num[32];
    gm_time_iso(e->wall_ns, iso, sizeof(iso));
    gm_time_day(e->wall_ns, day, sizeof(day));
    /* the fixed arrays may arrive unterminated; copy them bounded */
    char task[sizeof(e->task) + 1], uuid[sizeof(e->uuid) + 1], text[sizeof(e->text) + 1];
    copy_field(task, e->task, sizeof(e->task));
    copy_field(uuid, e->uuid, sizeof(e->uuid));
    copy_field(text, e->text, sizeof(e->text));

    struct gm_buf *b = &c->rows;
    gm_buf_reset(b);
    row_start(b, iso, c->host, task[0] ? task : c->task);
    gm_buf_putc(b, ',');
    put_cell(b, gm_event_type_name((enum gm_event_type)e->type));
    gm_buf_putc(b, ',');
    if (e->gpu >= 0)
        gm_buf_printf(b, "%" PRId32, e->gpu);
    gm_buf_putc(b, ',');
    put_text(b, uuid);
    snprintf(num, sizeof(num), "%" PRId64, e->code);
    gm_buf_putc(b, ',');
    gm_buf_puts(b, num);
    gm_buf_putc(b, ',');
    put_text(b, text);
    gm_buf_putc(b, '\n');
    int rc = write_rows(c, K_EVENTS, day, 1);
    if (rc == 0)
        c->st.event_rows++;
    return rc;
}

/* ------------------------------------------------------------- lifecycle */

/* One writer per directory: the lock is on the directory itself (no file
 * of ours beside the day files), taken again on a reload by this process. */
static int lock_dir(const char *dir, struct gm_safefile_lock **out, struct gm_err *err)
{
    int dfd = -1;
    struct gm_err de = {0};
    if (gm_safefile_dir_open(dir, &dfd, &de) != 0)
        return gm_err_set(err, de.code, "csv: %s", de.msg);
    long pid = 0;
    int rc = gm_safefile_lock(dfd, NULL, dir, out, &pid, &de);
    close(dfd);
    if (rc == GM_E_BUSY) {
        char who[32] = "unknown";
        if (pid > 0)
            snprintf(who, sizeof(who), "%ld", pid);
        return gm_err_set(err, GM_E_BUSY,
                          "csv: another gpumon agent (PID %s) is already writing the CSV "
                          "directory %s; one agent per CSV directory keeps rows from interleaving "
                          "(stop it, or give this one another --csv-dir)",
                          who, dir);
    }
    if (rc != 0)
        return gm_err_set(err, rc, "csv: %s", de.msg);
    return 0;
}

struct gm_csv *gm_csv_open(const struct gm_csv_opts *o, struct gm_err *err)
{
    char eb[128];
    if (!o || !o->dir || !*o->dir) {
        gm_err_set(err, GM_E_INVAL, "csv: no directory given");
        return NULL;
    }
    if (!o->task || !task_ok(o->task)) {
        gm_err_set(err, GM_E_INVAL,
                   "csv: task name \"%s\" must be letters, digits, '.', '_' and '-' and not end "
                   "in _procs or _events",
                   o->task ? o->task : "");
        return NULL;
    }
    int n = o->ncolumns;
    const int *cols = o->columns;
    if (n <= 0 || !cols)
        cols = gm_csv_default_columns(&n);
    for (int i = 0; i < n; i++)
        if (cols[i] < 0 || cols[i] >= GM_M__GPU_END) {
            gm_err_set(err, GM_E_INVAL, "csv: column %d is not a GPU or host metric", cols[i]);
            return NULL;
        }
    struct gm_err de = {0};
    if (gm_safefile_mkdirs(o->dir, 0755, &de) != 0) {
        gm_err_set(err, de.code, "csv: %s", de.msg);
        return NULL;
    }
    if (access(o->dir, W_OK | X_OK) < 0) {
        int e = errno;
        gm_err_set(err, e == EACCES || e == EPERM ? GM_E_NOPERM : GM_E_IO, "csv: %s: %s", o->dir,
                   strerror_r(e, eb, sizeof(eb)));
        return NULL;
    }
    struct gm_safefile_lock *lock = NULL;
    if (lock_dir(o->dir, &lock, err) != 0)
        return NULL;

    struct gm_csv *c = gm_xcalloc(1, sizeof(*c));
    c->lock = lock;
    c->dir = gm_xstrdup(o->dir);
    c->task = gm_xstrdup(o->task);
    if (o->host && *o->host) {
        c->host = gm_xstrdup(o->host);
    } else {
        char h[256] = "";
        gethostname(h, sizeof(h) - 1);
        c->host = gm_xstrdup(h);
    }
    c->ncols = n;
    c->cols = gm_xmalloc((size_t)n * sizeof(int));
    memcpy(c->cols, cols, (size_t)n * sizeof(int));
    c->procs = o->procs;
    c->retention_ns = o->retention_ns > 0 ? o->retention_ns : 0;
    c->compress_after_ns = o->compress_after_ns == 0 ? DAY_NS : o->compress_after_ns;
    c->sync = o->sync;
    c->log = o->log;
    c->log_arg = o->log_arg;
    for (int k = 0; k < K__N; k++)
        c->f[k].fd = -1;
    build_headers(c);
    c->last_sync = gm_mono_ns();
    c->msgs_tail = &c->msgs;
    pthread_mutex_init(&c->pass_mu, NULL);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (c->retention_ns > 0 || c->compress_after_ns >= 0)
        janitor_start(c);
    return c;
}

int gm_csv_flush(struct gm_csv *c)
{
    int rc = 0;
    for (int k = 0; k < K__N; k++) {
        int r = fsync_file(&c->f[k]);
        if (r < 0 && rc == 0) {
            char eb[128];
            csv_log(c, 3, "csv: fsync %s: %s", c->f[k].path, strerror_r(-r, eb, sizeof(eb)));
            rc = GM_E_IO;
        }
    }
    c->last_sync = gm_mono_ns();
    return rc;
}

int gm_csv_reopen(struct gm_csv *c)
{
    int rc = 0;
    for (int k = 0; k < K__N; k++) {
        struct cfile *f = &c->f[k];
        if (f->fd < 0)
            continue;
        char day[16];
        gm_strlcpy(day, f->day, sizeof(day));
        int r = file_open(c, k, day); /* closes the old descriptor first */
        if (r < 0 && rc == 0) {
            char eb[128];
            csv_log(c, 3, "csv: reopen %s: %s", f->path, strerror_r(-r, eb, sizeof(eb)));
            rc = errno_code(-r);
        }
    }
    return rc;
}

void gm_csv_tick(struct gm_csv *c, int64_t now_wall_ns)
{
    janitor_drain_log(c);
    sync_due(c);
    if (!c->janitor_started)
        return;
    char day[16];
    gm_time_day(now_wall_ns, day, sizeof(day));
    if (c->tick_last != 0 && now_wall_ns >= c->tick_last &&
        now_wall_ns - c->tick_last < MINUTE_NS && strcmp(day, c->tick_day) == 0)
        return;
    c->tick_last = now_wall_ns;
    gm_strlcpy(c->tick_day, day, sizeof(c->tick_day));
    janitor_wake(c, now_wall_ns);
}

void gm_csv_maintain(struct gm_csv *c, int64_t now_wall_ns)
{
    if (c->retention_ns > 0 || c->compress_after_ns >= 0) {
        janitor_drain_log(c); /* what the janitor said before, first */
        pthread_mutex_lock(&c->pass_mu);
        c->pass_inline = 1;
        janitor_pass(c, now_wall_ns);
        c->pass_inline = 0;
        __atomic_add_fetch(&c->janitor_runs, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&c->pass_mu);
    }
    janitor_drain_log(c);
}

void gm_csv_stats(const struct gm_csv *c, struct gm_csv_stats *out)
{
    *out = c->st;
    out->files_compressed = __atomic_load_n(&c->files_compressed, __ATOMIC_RELAXED);
    out->files_deleted = __atomic_load_n(&c->files_deleted, __ATOMIC_RELAXED);
    out->janitor_runs = __atomic_load_n(&c->janitor_runs, __ATOMIC_ACQUIRE);
}

void gm_csv_close(struct gm_csv *c)
{
    if (!c)
        return;
    janitor_stop(c);
    gm_csv_flush(c);
    for (int k = 0; k < K__N; k++) {
        file_close(c, k);
        free(c->header[k]);
    }
    janitor_drain_log(c);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    pthread_mutex_destroy(&c->pass_mu);
    gm_buf_free(&c->rows);
    gm_buf_free(&c->out);
    gm_buf_free(&c->status);
    free(c->cols);
    free(c->dir);
    free(c->task);
    free(c->host);
    gm_safefile_unlock(c->lock);
    free(c);
}

/* ------------------------------------------------------------------- sink */

static int sink_write(void *ctx, const struct gm_snapshot *s)
{
    return gm_csv_write(ctx, s);
}
static int sink_event(void *ctx, const struct gm_event *e)
{
    return gm_csv_event(ctx, e);
}
static int sink_flush(void *ctx)
{
    return gm_csv_flush(ctx);
}
static int sink_reopen(void *ctx)
{
    return gm_csv_reopen(ctx);
}
static void sink_tick(void *ctx, int64_t now)
{
    gm_csv_tick(ctx, now);
}
static void sink_close(void *ctx)
{
    gm_csv_close(ctx);
}
static void sink_close_once(void *ctx)
{
    gm_csv_maintain(ctx, gm_wall_ns());
    gm_csv_close(ctx);
}

const struct gm_sink_ops gm_csv_sink_ops = {"csv",       sink_write, sink_event, sink_flush,
                                            sink_reopen, sink_tick,  sink_close};
const struct gm_sink_ops gm_csv_once_sink_ops = {
    "csv", sink_write, sink_event, sink_flush, sink_reopen, sink_tick, sink_close_once};

/* csv.c -- the agent's daily CSV log writer (see csv.h): rows, files,
 * headers, rotation at local midnight, torn-line repair and disk-full
 * accounting, and the janitor thread that applies retention and gzips
 * finished days.  Sections: columns, small tools, the record scanner,
 * rows, lifecycle, the sink.  The files (names, headers, tail repair,
 * choosing and opening) and the writing and its errors are csv_file.c, the
 * janitor csv_janitor.c, and what they share (the state) csv_int.h.
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

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fmt.h"
#include "../core/log.h"
#include "../core/metrics.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "csv_int.h"

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

/* Whether v is a slow read group's value reused from an earlier read
 * (value.h's age_ms; the agent reads those groups every 10 s): its cell is
 * left empty, "between_reads", so that only the row of the sample that
 * read it shows it (docs/store.md, "Slow groups in the CSV log"). */
static int between_reads(const struct gm_value *v)
{
    return gm_v_ok(v) && v->age_ms > 0;
}

static const char *why_absent(const struct gm_value *v)
{
    if (between_reads(v))
        return "between_reads";
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
        /* a copy: gm_fmt_csv may reuse the thread's slot gm_fmt_value returned */
        struct gm_value v = *gm_fmt_value(s, g, NULL, id);
        int held = g && between_reads(&v);
        gm_buf_putc(b, ',');
        if (!held)
            put_metric(b, id, gpu_cell(s, g, id, cell, sizeof(cell)));
        if (g && g->state == GM_GPU_OK && (!gm_v_ok(&v) || held)) {
            gm_buf_printf(&c->status, "%s%s:%s",
                          missing ? "," : "ok;missing=", gm_metric_csv_col(id, col, sizeof(col)),
                          why_absent(&v));
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
    int rc = gm_cv_write_rows(c, K_GPU, day, nrows);
    if (rc == 0)
        c->st.rows += nrows;

    if (c->procs && s->nproc > 0) {
        gm_buf_reset(&c->rows);
        for (uint32_t i = 0; i < s->nproc; i++)
            proc_row(c, s, &s->procs[i], iso);
        int prc = gm_cv_write_rows(c, K_PROCS, day, s->nproc);
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
    int rc = gm_cv_write_rows(c, K_EVENTS, day, 1);
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
        gm_cv_janitor_start(c);
    return c;
}

int gm_csv_flush(struct gm_csv *c)
{
    int rc = 0;
    for (int k = 0; k < K__N; k++) {
        int r = gm_cv_fsync_file(&c->f[k]);
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
        int r = gm_cv_file_open(c, k, day); /* closes the old descriptor first */
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
    gm_cv_janitor_drain_log(c);
    gm_cv_sync_due(c);
    if (!c->janitor_started)
        return;
    char day[16];
    gm_time_day(now_wall_ns, day, sizeof(day));
    if (c->tick_last != 0 && now_wall_ns >= c->tick_last &&
        now_wall_ns - c->tick_last < MINUTE_NS && strcmp(day, c->tick_day) == 0)
        return;
    c->tick_last = now_wall_ns;
    gm_strlcpy(c->tick_day, day, sizeof(c->tick_day));
    gm_cv_janitor_wake(c, now_wall_ns);
}

void gm_csv_maintain(struct gm_csv *c, int64_t now_wall_ns)
{
    if (c->retention_ns > 0 || c->compress_after_ns >= 0) {
        gm_cv_janitor_drain_log(c); /* what the janitor said before, first */
        pthread_mutex_lock(&c->pass_mu);
        c->pass_inline = 1;
        gm_cv_janitor_pass(c, now_wall_ns);
        c->pass_inline = 0;
        __atomic_add_fetch(&c->janitor_runs, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&c->pass_mu);
    }
    gm_cv_janitor_drain_log(c);
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
    gm_cv_janitor_stop(c);
    gm_csv_flush(c);
    for (int k = 0; k < K__N; k++) {
        gm_cv_file_close(c, k);
        free(c->header[k]);
    }
    gm_cv_janitor_drain_log(c);
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

/* store.c -- the SQLite history store's writer (see store.h, docs/store.md).
 *
 * One connection, used by one thread (the agent's store sink).  Each
 * snapshot becomes one row per GPU in `samples` (integer-scaled, NULL for
 * what the GPU could not say, a status for a lost GPU or a driver that went
 * away) plus its processes; rows collect in an open transaction that is
 * committed at least every commit_interval_ns (and on flush/close), so a
 * reader (WAL snapshot) sees whole batches or nothing.
 *
 * Rollups are kept incrementally: each sample adds to an in-memory delta per
 * (tier, period, GPU, task); each commit upserts the deltas (additive ON
 * CONFLICT DO UPDATE) in the same transaction as the raw rows, then forgets
 * them.  So a restart, a second writer or a rolled-back batch never leave
 * the rollups disagreeing with the raw rows.  Time-based quantities (energy,
 * seconds throttled per reason) belong to the interval between a GPU's
 * sample and its next one, capped at twice the usual interval so that a gap
 * (agent stopped, GPU lost) is not counted as observed time; an interval
 * that crosses a period boundary is split between the periods.
 *
 * Events (marks, state changes, alerts) are rarer and not repeated by the
 * next sample, so a rolled-back batch does not lose them: each is kept in
 * memory (at most PEND_MAX) until the batch that holds it commits, and the
 * next batch writes again those of a batch that was rolled back (a full
 * disk); what does not fit, or is still waiting at close, is counted
 * (events_lost) and logged.
 *
 * Retention runs from gm_store_tick at most every RETENTION_EVERY_NS, in
 * chunks of its own short transactions within a time budget per tick, so the
 * writer never stalls for long; what is left continues on the next tick.
 *
 * Text from outside (GPU names and UUIDs, process and user names, marks,
 * alert summaries) is stored as valid UTF-8: bind_utf8 replaces each invalid
 * byte with U+FFFD (core/text.h) and keeps control characters, which are
 * data.  SQLite would store the raw bytes as TEXT, but its readers would
 * not cope (Python's sqlite3 raises on such a row; docs/store.md).
 *
 * Leaves out: MIG devices (the physical GPU's values only), per-process
 * utilisation and command lines (the CSV log and `status --json` have them).
 *
 * This file opens (path checks, schema, statements), closes, retains and
 * is the sink; the schema and statements are store_sql.c, the transaction
 * and the rows store_write.c, the rollups store_rollup.c, and what they
 * share store_int.h.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/safefile.h"
#include "store_int.h"

/* ------------------------------------------------------------- retention */

struct tier_table {
    const char *table;
    int tier; /* 0 raw, 1 one-minute, 2 one-hour */
};

static const struct tier_table retention_tables[] = {
    {"samples", 0},   {"procs", 0},     {"gpm", 0},    {"hostside", 0}, {"states", 1},
    {"rollup_1m", 1}, {"rollup_1h", 2}, {"events", 2}, {"alerts", 2},   {"usage_1h", 2},
};

/* Deletes rows older than cutoff from one table, a chunk per transaction,
 * until none are left (returns 1) or the deadline passes (returns 0). */
static int retain_table(struct gm_store *st, const char *table, int64_t cutoff_ms, int64_t deadline)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "DELETE FROM %s WHERE ts < ?1 AND ts <= coalesce((SELECT ts FROM %s ORDER BY ts"
             " LIMIT 1 OFFSET ?2), ?1)",
             table, table);
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
        fail(st, SQLITE_ERROR, "retention");
        return 1;
    }
    int done = 0;
    while (!done) {
        if (gm_mono_ns() >= deadline)
            break;
        int rc = step_done(st->st_begin);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(q, 1, cutoff_ms);
            sqlite3_bind_int(q, 2, RETENTION_CHUNK - 1);
            rc = step_done(q);
        }
        int n = rc == SQLITE_OK ? sqlite3_changes(st->db) : 0;
        if (rc == SQLITE_OK)
            rc = step_done(st->st_commit);
        if (rc != SQLITE_OK) {
            fail(st, rc, "retention");
            if (!sqlite3_get_autocommit(st->db))
                step_done(st->st_rollback);
            done = 1; /* try again at the next retention run */
            break;
        }
        stat_add(&st->stats.deleted, (uint64_t)n);
        if (n == 0)
            done = 1;
    }
    sqlite3_finalize(q);
    return done;
}

static void retention(struct gm_store *st, int64_t now_wall_ns)
{
    const int64_t keep[3] = {st->o.retention_raw_ns, st->o.retention_1m_ns, st->o.retention_1h_ns};
    int64_t deadline = gm_mono_ns() + RETENTION_BUDGET_NS;
    int all_done = 1;
    for (size_t i = 0; i < sizeof(retention_tables) / sizeof(retention_tables[0]); i++) {
        int64_t k = keep[retention_tables[i].tier];
        if (k <= 0)
            continue;
        int64_t cutoff = (now_wall_ns - k) / NS_PER_MS;
        if (!retain_table(st, retention_tables[i].table, cutoff, deadline)) {
            all_done = 0;
            break;
        }
    }
    st->retention_more = !all_done;
    st->next_retention_ns = now_wall_ns + RETENTION_EVERY_NS;
}

void gm_store_tick(struct gm_store *st, int64_t now_wall_ns)
{
    gm_st_commit_if_due(st);
    if (st->retention_more || now_wall_ns >= st->next_retention_ns ||
        now_wall_ns < st->next_retention_ns - 2 * RETENTION_EVERY_NS) {
        if (gm_st_batch_commit(st) == 0)
            retention(st, now_wall_ns);
    }
}

/* ------------------------------------------------------------ open/close */

void gm_store_stats(const struct gm_store *st, struct gm_store_stats *out)
{
    out->samples = __atomic_load_n(&st->stats.samples, __ATOMIC_RELAXED);
    out->proc_rows = __atomic_load_n(&st->stats.proc_rows, __ATOMIC_RELAXED);
    out->events = __atomic_load_n(&st->stats.events, __ATOMIC_RELAXED);
    out->commits = __atomic_load_n(&st->stats.commits, __ATOMIC_RELAXED);
    out->lost = __atomic_load_n(&st->stats.lost, __ATOMIC_RELAXED);
    out->deleted = __atomic_load_n(&st->stats.deleted, __ATOMIC_RELAXED);
    out->events_lost = __atomic_load_n(&st->stats.events_lost, __ATOMIC_RELAXED);
    out->repeated = __atomic_load_n(&st->stats.repeated, __ATOMIC_RELAXED);
}

/* Creates path's directory (mkdir -p), checks it (safefile.h), takes the
 * one-writer lock <path>.lock beside the database and sets st->real to the
 * path with that directory resolved (realpath), so that SQLite's
 * SQLITE_OPEN_NOFOLLOW refuses only a symbolic link at the database itself
 * or its -wal and -shm files, not a data directory that is a link. */
static int prepare_path(struct gm_store *st, struct gm_err *err)
{
    char dir[PATH_MAX], base[256], real[PATH_MAX], lockname[272], shown[PATH_MAX + 8];
    struct gm_err e = {0};
    const char *slash = strrchr(st->path, '/');
    const char *b = slash ? slash + 1 : st->path;
    if (!*b || strlen(b) >= sizeof(base) || (slash && (size_t)(slash - st->path) >= sizeof(dir)))
        return gm_err_set(err, GM_E_INVAL, "store %s: not a file name", st->path);
    if (!slash)
        gm_strlcpy(dir, ".", sizeof(dir));
    else if (slash == st->path)
        gm_strlcpy(dir, "/", sizeof(dir));
    else {
        memcpy(dir, st->path, (size_t)(slash - st->path));
        dir[slash - st->path] = '\0';
    }
    gm_strlcpy(base, b, sizeof(base));
    if (gm_safefile_mkdirs(dir, 0755, &e) != 0)
        return gm_err_set(err, e.code, "store %s: %s", st->path, e.msg);
    if (!realpath(dir, real))
        return gm_err_set(err, GM_E_IO, "store %s: %s: %s", st->path, dir, strerror(errno));
    int dfd = -1;
    if (gm_safefile_dir_open(real, &dfd, &e) != 0)
        return gm_err_set(err, e.code, "store %s: %s", st->path, e.msg);
    snprintf(lockname, sizeof(lockname), "%s.lock", base);
    snprintf(shown, sizeof(shown), "%s.lock", st->path);
    long pid = 0;
    int rc = gm_safefile_lock(dfd, lockname, shown, &st->lock, &pid, &e);
    struct stat fs;
    if (rc == 0 && fstatat(dfd, base, &fs, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(fs.st_mode) &&
        (!S_ISREG(fs.st_mode) || fs.st_nlink > 1))
        rc = gm_err_set(&e, GM_E_NOPERM,
                        "%s is not a regular file of its own (%s); gpumon does not write "
                        "into it",
                        st->path,
                        S_ISREG(fs.st_mode) ? "more than one hard link" : "a special file");
    close(dfd);
    if (rc == GM_E_BUSY) {
        char who[32] = "unknown";
        if (pid > 0)
            snprintf(who, sizeof(who), "%ld", pid);
        return gm_err_set(err, GM_E_BUSY,
                          "store %s: another gpumon agent (PID %s) is already writing it; one "
                          "agent per store keeps rows from interleaving (stop it, or give this "
                          "one another --store-path)",
                          st->path, who);
    }
    if (rc != 0)
        return gm_err_set(err, rc, "store %s: %s", st->path, e.msg);
    size_t n = strlen(real);
    st->real = gm_xmalloc(n + strlen(base) + 2);
    memcpy(st->real, real, n);
    st->real[n] = '/';
    memcpy(st->real + n + 1, base, strlen(base) + 1);
    if (n == 1) /* "/" */
        memmove(st->real + 1, st->real + 2, strlen(base) + 1);
    return 0;
}

/* After SQLite could not open the store: names a symbolic link it refused
 * (SQLite's own message says only "unable to open database file"). */
static const char *link_refused(const struct gm_store *st, char *buf, size_t len)
{
    static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; st->real && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        char p[PATH_MAX + 16];
        struct stat ls;
        snprintf(p, sizeof(p), "%s%s", st->real, sfx[i]);
        if (lstat(p, &ls) == 0 && S_ISLNK(ls.st_mode)) {
            snprintf(buf, len,
                     "%s%s is a symbolic link; gpumon does not follow links where it writes "
                     "(remove it)",
                     st->path, sfx[i]);
            return buf;
        }
    }
    return NULL;
}

/* A failed gm_store_open: the message names a symbolic link SQLite refused
 * (at any step: the -shm file is first opened by the first read), then st
 * is freed. */
static void store_free(struct gm_store *st);

static struct gm_store *open_failed(struct gm_store *st, struct gm_err *err)
{
    char why[PATH_MAX + 128];
    if (link_refused(st, why, sizeof(why)))
        gm_err_set(err, GM_E_NOPERM, "store %s: %s", st->path, why);
    store_free(st);
    return NULL;
}

static void finalize_all(struct gm_store *st)
{
    sqlite3_stmt **all[] = {
        &st->st_begin,    &st->st_commit,  &st->st_rollback,  &st->st_sample,   &st->st_proc,
        &st->st_event,    &st->st_up[0],   &st->st_up[1],     &st->st_alert,    &st->st_gpu_find,
        &st->st_gpu_ins,  &st->st_gpu_upd, &st->st_task_find, &st->st_task_ins, &st->st_sample_dup,
        &st->st_proc_dup, &st->st_state,   &st->st_gpm,       &st->st_usage,    &st->st_host};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        sqlite3_finalize(*all[i]);
        *all[i] = NULL;
    }
}

static void store_free(struct gm_store *st)
{
    finalize_all(st);
    sqlite3_close(st->db);
    for (size_t i = 0; i < st->ng; i++)
        free(st->g[i]);
    free(st->g);
    free(st->acc);
    free(st->uacc);
    free(st->pend);
    free(st->path);
    free(st->real);
    free(st->task);
    gm_safefile_unlock(st->lock);
    free(st);
}

struct gm_store *gm_store_open(const struct gm_store_opts *o, struct gm_err *err)
{
    if (!o || !o->path || !o->path[0]) {
        gm_err_set(err, GM_E_INVAL, "store: no database path");
        return NULL;
    }
    struct gm_store *st = gm_xcalloc(1, sizeof(*st));
    st->o = *o;
    st->path = gm_xstrdup(o->path);
    st->task = gm_xstrdup(o->task && o->task[0] ? o->task : "default");
    st->o.path = st->path;
    st->o.task = st->task;
    if (st->o.commit_interval_ns <= 0)
        st->o.commit_interval_ns = DEFAULT_COMMIT_NS;

    if (prepare_path(st, err) != 0) {
        store_free(st);
        return NULL;
    }
    int rc = sqlite3_open_v2(
        st->real, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc != SQLITE_OK) {
        gm_err_set(err, sql_code(rc), "store %s: cannot open: %s", st->path,
                   st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
        return open_failed(st, err);
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, WRITER_BUSY_MS);

    /* WAL: readers see the last committed batch and never block the writer */
    sqlite3_stmt *q = NULL;
    char mode[16] = "";
    if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
        gm_strlcpy(mode, (const char *)sqlite3_column_text(q, 0), sizeof(mode));
    rc = sqlite3_errcode(st->db);
    sqlite3_finalize(q);
    if (mode[0] == '\0') {
        gm_err_set(err, sql_code(rc), "store %s: cannot open: %s", st->path,
                   sqlite3_errmsg(st->db));
        return open_failed(st, err);
    }
    if (strcmp(mode, "wal") != 0)
        slog(st, 4,
             "store %s: WAL mode is not available here (journal mode %s; a network file "
             "system?): readers may briefly block the writer",
             st->path, mode);
    char pragmas[160];
    snprintf(pragmas, sizeof(pragmas),
             "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 67108864;"
             " PRAGMA foreign_keys = OFF; PRAGMA cache_size = -%d",
             WRITER_CACHE_KIB);
    if (gm_st_exec_sql(st->db, pragmas, err, st->path) != SQLITE_OK ||
        gm_st_schema_ensure(st, err) != 0 || gm_st_prepare_all(st, err) != 0) {
        return open_failed(st, err);
    }
    if (gm_st_exec_sql(st->db, "BEGIN IMMEDIATE", err, st->path) != SQLITE_OK) {
        return open_failed(st, err);
    }
    rc = gm_st_task_resolve(st, st->task, gm_wall_ns() / NS_PER_MS, &st->task_id);
    if (rc != SQLITE_OK) {
        gm_err_set(err, sql_code(rc), "store %s: %s", st->path, sqlite3_errmsg(st->db));
        gm_st_exec_sql(st->db, "ROLLBACK", NULL, st->path);
        return open_failed(st, err);
    }
    if (gm_st_exec_sql(st->db, "COMMIT", err, st->path) != SQLITE_OK) {
        return open_failed(st, err);
    }
    gm_st_load_last_gpus(st);
    return st;
}

void gm_store_close(struct gm_store *st)
{
    if (!st)
        return;
    if (st->npend > st->pend_in_batch)
        gm_st_batch_open(st); /* kept events of a rolled-back batch: one more try */
    gm_st_batch_commit(st);
    if (st->npend) {
        stat_add(&st->stats.events_lost, st->npend);
        slog(st, 3,
             "store %s: %zu event%s kept in memory could not be written before the close "
             "and %s lost",
             st->path, st->npend, st->npend == 1 ? "" : "s", st->npend == 1 ? "is" : "are");
    }
    sqlite3_exec(st->db, "PRAGMA optimize", NULL, NULL, NULL);
    store_free(st);
}

/* ------------------------------------------------------------------- sink */

static int sink_write(void *ctx, const struct gm_snapshot *s)
{
    return gm_store_write(ctx, s);
}

static int sink_event(void *ctx, const struct gm_event *e)
{
    return gm_store_event(ctx, e);
}

static int sink_flush(void *ctx)
{
    return gm_store_flush(ctx);
}

static void sink_tick(void *ctx, int64_t now)
{
    gm_store_tick(ctx, now);
}

static void sink_close(void *ctx)
{
    gm_store_close(ctx);
}

static void sink_close_once(void *ctx)
{
    gm_store_tick(ctx, gm_wall_ns()); /* its first call applies the retention */
    gm_store_close(ctx);
}

const struct gm_sink_ops gm_store_sink_ops = {"store", sink_write, sink_event, sink_flush,
                                              NULL,    sink_tick,  sink_close};

const struct gm_sink_ops gm_store_once_sink_ops = {"store", sink_write, sink_event,     sink_flush,
                                                   NULL,    sink_tick,  sink_close_once};

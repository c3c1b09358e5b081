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
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/log.h"
#include "../core/metrics.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "store_schema.h"

#define MS_PER_MIN INT64_C(60000)
#define MS_PER_HOUR INT64_C(3600000)
#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)

#define DEFAULT_COMMIT_NS NS_PER_S
#define BATCH_MAX_ROWS 8192                   /* commit early beyond this many rows */
#define WRITER_BUSY_MS 2000                   /* wait for another writer at most this long */
#define RETENTION_EVERY_NS (300 * NS_PER_S)   /* at most every 5 minutes */
#define RETENTION_BUDGET_NS (100 * NS_PER_MS) /* per tick */
#define RETENTION_CHUNK 4096                  /* rows per delete transaction */
#define ERROR_LOG_EVERY_NS (60 * NS_PER_S)    /* repeated failures: once a minute */
#define NDELTA 7                              /* intervals for the usual-interval median */
#define PEND_MAX 1024                         /* events kept until their batch commits */
#define UG_MAX 16 /* process groups per GPU and sample in usage_1h; the rest are "(other)" */

/* The metrics of the states table, in column order. */
#define STATE_ID(id) id,
static const int state_ids[] = {GM_STORE_STATES(STATE_ID)};
#undef STATE_ID
#define NSTATE ((int)(sizeof(state_ids) / sizeof(state_ids[0])))

/* Rolled-up metrics (sum/min/max/count): order of the columns in the schema. */
enum { RM_UTIL, RM_MEM, RM_POWER, RM_TEMP, RM_SM, RM__COUNT };
static const char *const rm_stem[RM__COUNT] = {"util", "mem", "power", "temp", "sm"};
/* ... of these metrics' samples columns, in their stored scale */
static const int rm_metric[RM__COUNT] = {GM_M_UTIL_GPU, GM_M_MEM_USED, GM_M_POWER_DRAW,
                                         GM_M_TEMP_GPU, GM_M_CLK_SM};

/* The clock event reason bits of throttle reason k (GM_STORE_THROTTLE). */
static uint64_t thr_bits(int k)
{
#define THR_BITS(stem, bits, name) bits,
    const uint64_t bits[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_BITS)};
#undef THR_BITS
    return bits[k];
}
#define THR_STEM(stem, bits, name) #stem,
static const char *const thr_stem[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_STEM)};
#undef THR_STEM

/* ------------------------------------------------------------------ state */

/* A GPU this session has written (or an event named). */
struct gstate {
    char uuid[GM_STR_MAX];
    int64_t id; /* gpus.id; 0 = not resolved in the database yet */
    uint32_t index;
    char name[GM_STR_MAX];
    int64_t mem_total_mib; /* -1 = unknown */
    int64_t last_seen;     /* ms of its newest row */
    int dirty;             /* the gpus row needs an update at commit */
    int in_last;           /* in the newest snapshot that had GPUs */
    /* the previous sample, for the interval to the next one */
    int have_prev;
    int64_t prev_ts;
    int prev_reasons_ok, prev_energy_ok, prev_power_ok;
    uint64_t prev_reasons;
    int64_t prev_energy_mj;
    int64_t prev_power_cw;
    int64_t delta[NDELTA]; /* recent intervals, ms */
    int ndelta, delta_pos;
    /* the process groups (job, user, process) of the previous sample: the
     * usage_1h accounting gives them the interval that follows it */
    struct ugroup {
        char job[128], user[33], proc[64];
        int mem_ok;
        int64_t mem_mib;
        int vanished; /* its processes are gone or zombies on the host */
    } ug[UG_MAX];
    int nug, ug_known;
    int prev_util_ok;
    int64_t prev_util;
    /* the states row last written (store_schema.h, GM_STORE_STATES) */
    int state_have; /* 0: none written in this session or batch */
    int64_t state_ts;
    int state_ok[NSTATE];
    int64_t state_v[NSTATE];
};

/* Pending rollup deltas of one (tier, period, GPU, task) since the last commit. */
struct racc {
    int tier; /* 0 = 1 minute, 1 = 1 hour */
    int64_t ts, gpu, task;
    int64_t n, n_down;
    int64_t mn[RM__COUNT], msum[RM__COUNT], mmin[RM__COUNT], mmax[RM__COUNT];
    int64_t dur_ms;
    int energy_set, energy_src;
    double energy_j;
    int thr_set;
    int64_t thr[GM_THR__COUNT];
};

/* Pending usage_1h deltas of one (hour, GPU, task, group) since the last commit. */
struct uacc {
    int64_t ts, gpu, task;
    char job[128], user[33], proc[64];
    double gpu_ms, energy_j, util_sum, util_ms, thr_ms;
    int energy_set, mem_set;
    int64_t mem_max, first, last;
};

struct gm_store {
    struct gm_store_opts o;
    char *path;
    char *real;                    /* path with its directory resolved: what SQLite opens */
    struct gm_safefile_lock *lock; /* <path>.lock, for the writer's life */
    char *task;
    sqlite3 *db;
    sqlite3_stmt *st_begin, *st_commit, *st_rollback;
    sqlite3_stmt *st_sample, *st_proc, *st_event, *st_alert, *st_up[2];
    sqlite3_stmt *st_sample_dup, *st_proc_dup; /* the next dup of a key already stored */
    sqlite3_stmt *st_state, *st_gpm, *st_usage, *st_host;
    sqlite3_stmt *st_gpu_find, *st_gpu_ins, *st_gpu_upd, *st_task_find, *st_task_ins;
    int64_t task_id;   /* 0 = not resolved yet (after gm_store_reconfigure, or a rollback) */
    int task_in_batch; /* task_id was resolved inside the open batch */

    struct gstate **g; /* each allocated on its own: pointers stay valid */
    size_t ng, gcap;
    struct racc *acc;
    size_t nacc, acap;
    struct uacc *uacc;
    size_t nuacc, ucap;

    int in_txn;
    int64_t batch_mono;
    uint64_t batch_samples, batch_procs, batch_events;
    /* events not committed yet: pend[0 .. pend_in_batch) are in the open
     * batch, the rest wait for the next one (their batch was rolled back);
     * batch_unkept: events in the open batch that did not fit in pend */
    struct gm_event *pend;
    size_t npend, pend_in_batch;
    uint64_t batch_unkept;
    int pend_logged; /* the wait was logged in this run of failures */

    int64_t next_retention_ns; /* wall clock */
    int retention_more;        /* the last run ran out of budget */

    int failing;
    int64_t last_err_log;
    struct gm_store_stats stats; /* updated with __atomic, read by gm_store_stats */
};

static void stat_add(uint64_t *p, uint64_t n)
{
    __atomic_add_fetch(p, n, __ATOMIC_RELAXED);
}

#define slog(st, level, ...) gm_logf((st)->o.log, (st)->o.log_arg, (level), __VA_ARGS__)

/* SQLite result code -> GM_E_*. */
static int sql_code(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_FULL:
        return GM_E_NOSPC;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return GM_E_BUSY;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
        return GM_E_NOPERM;
    case SQLITE_NOMEM:
        return GM_E_NOMEM;
    default:
        return GM_E_IO;
    }
}

/* Records a write failure: logged on the change from success to failure,
 * then at most once a minute. */
static int fail_msg(struct gm_store *st, int rc, const char *what, const char *why)
{
    int64_t now = gm_mono_ns();
    if (!st->failing || now - st->last_err_log >= ERROR_LOG_EVERY_NS) {
        slog(st, 3, "store %s: %s failed: %s (%" PRIu64 " GPU-samples lost so far)", st->path, what,
             why, __atomic_load_n(&st->stats.lost, __ATOMIC_RELAXED));
        st->last_err_log = now;
    }
    st->failing = 1;
    return sql_code(rc);
}

static int fail(struct gm_store *st, int rc, const char *what)
{
    return fail_msg(st, rc, what, sqlite3_errmsg(st->db));
}

static void succeed(struct gm_store *st, size_t kept)
{
    if (st->failing && kept)
        slog(st, 6, "store %s: writing again (with the %zu event%s kept in memory)", st->path, kept,
             kept == 1 ? "" : "s");
    else if (st->failing)
        slog(st, 6, "store %s: writing again", st->path);
    st->failing = 0;
    st->pend_logged = 0;
}

/* Steps a write statement to completion and resets it. */
static int step_done(sqlite3_stmt *q)
{
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static void bind_opt(sqlite3_stmt *q, int i, int ok, int64_t v)
{
    if (ok)
        sqlite3_bind_int64(q, i, v);
    else
        sqlite3_bind_null(q, i);
}

/* Binds s[0..n) (text from outside) as valid UTF-8: each invalid byte
 * becomes U+FFFD; controls are kept. */
static void bind_utf8(sqlite3_stmt *q, int i, const char *s, size_t n)
{
    if (gm_text_is_utf8(s, n)) {
        sqlite3_bind_text(q, i, s, (int)n, SQLITE_TRANSIENT);
        return;
    }
    struct gm_buf b = GM_BUF_INIT;
    gm_text_utf8(&b, s, n);
    sqlite3_bind_text(q, i, b.p, (int)b.len, SQLITE_TRANSIENT);
    gm_buf_free(&b);
}

static void bind_text_or_null(sqlite3_stmt *q, int i, const char *s)
{
    if (s && *s)
        bind_utf8(q, i, s, strlen(s));
    else
        sqlite3_bind_null(q, i);
}

static int64_t floor_to(int64_t t, int64_t p)
{
    int64_t r = t % p;
    return r < 0 ? t - r - p : t - r;
}

/* --------------------------------------------------------------- schema */

static const char *const code_rows =
    "INSERT OR REPLACE INTO codes VALUES"
    " ('status', 0, 'ok', 'the GPU answered; NULL values are not supported or not available'),"
    " ('status', 1, 'gpu_lost', 'the GPU fell off the bus (NVML_ERROR_GPU_IS_LOST)'),"
    " ('status', 2, 'gpu_no_permission', 'no permission to open the GPU'),"
    " ('status', 3, 'gpu_error', 'the GPU could not be opened'),"
    " ('status', 4, 'value_error', 'the GPU answered, but reading at least one stored value "
    "failed'),"
    " ('status', 11, 'driver_no_library', 'libnvidia-ml.so.1 could not be loaded'),"
    " ('status', 12, 'driver_not_loaded', 'the NVIDIA kernel driver is not loaded'),"
    " ('status', 13, 'driver_no_permission', 'no permission to talk to the driver'),"
    " ('status', 14, 'driver_version_mismatch', 'NVML and kernel driver versions differ'),"
    " ('status', 15, 'driver_error', 'NVML could not be initialised'),"
    " ('host_state', 0, 'unknown', 'not looked up'),"
    " ('host_state', 1, 'alive', 'the process exists'),"
    " ('host_state', 2, 'zombie', 'exited but not reaped: its GPU memory may never be freed'),"
    " ('host_state', 3, 'gone', 'no such PID: memory held by a process that does not exist'),"
    " ('host_state', 4, 'hidden', '/proc denies access'),"
    " ('proc_type', 1, 'C', 'compute'), ('proc_type', 2, 'G', 'graphics'),"
    " ('proc_type', 3, 'C+G', 'compute and graphics'),"
    " ('energy_src', 1, 'counter', 'differences of the GPU energy counter'),"
    " ('energy_src', 2, 'power', 'power draw x time (no usable energy counter)'),"
    " ('energy_src', 3, 'mixed', 'counter for some intervals, power x time for others');";

static int exec_sql(sqlite3 *db, const char *sql, struct gm_err *err, const char *path)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        gm_err_set(err, sql_code(rc), "store %s: %s", path, msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
    }
    return rc;
}

static int64_t pragma_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *q = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

/* The metrics the samples table keeps, in column order (gm_metrics[].store_col);
 * returns how many. */
static int samples_metrics(int ids[GM_M__GPU_END])
{
    int n = 0;
    for (int col = 1, found = 1; found; col++) {
        found = 0;
        for (int id = 0; id < GM_M__GPU_END && !found; id++)
            if (gm_metrics[id].store && gm_metrics[id].store_col == col) {
                ids[n++] = id;
                found = 1;
            }
    }
    return n;
}

/* Whether table has a column of this name. */
static int has_column(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *q = NULL;
    int has = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &q,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, col, -1, SQLITE_STATIC);
        has = sqlite3_step(q) == SQLITE_ROW;
    }
    sqlite3_finalize(q);
    return has;
}

/* The samples columns but dup, comma-separated: the key and status, then
 * the registry's columns (those table has, when table is not NULL). */
static void samples_cols(sqlite3 *db, const char *table, struct gm_buf *b)
{
    int ids[GM_M__GPU_END], n = samples_metrics(ids);
    char col[64];
    gm_buf_puts(b, "ts, gpu, task, status");
    for (int i = 0; i < n; i++) {
        gm_metric_store_col(ids[i], col, sizeof(col));
        if (!table || has_column(db, table, col))
            gm_buf_printf(b, ", %s", col);
    }
}

/* CREATE TABLE samples: (ts, gpu, dup, task, status), then one integer
 * column per metric the registry stores; keyed (ts, gpu, dup), WITHOUT ROWID. */
static void samples_table_sql(struct gm_buf *b)
{
    int ids[GM_M__GPU_END], n = samples_metrics(ids);
    char col[64];
    gm_buf_puts(b, "CREATE TABLE IF NOT EXISTS samples (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"
                   " dup INTEGER NOT NULL DEFAULT 0, task INTEGER NOT NULL,"
                   " status INTEGER NOT NULL");
    for (int i = 0; i < n; i++)
        gm_buf_printf(b, ", %s INTEGER", gm_metric_store_col(ids[i], col, sizeof(col)));
    gm_buf_puts(b, ", PRIMARY KEY (ts, gpu, dup)) WITHOUT ROWID;\n");
    /* the host side of the process feeding each GPU (source/hostside.h),
     * keyed like its sample; percentages in hundredths */
    gm_buf_puts(b, "CREATE TABLE IF NOT EXISTS hostside (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"
                   " dup INTEGER NOT NULL DEFAULT 0, pid INTEGER NOT NULL, cpu_cpct INTEGER,"
                   " workers INTEGER, workers_cpu_cpct INTEGER, iowait_cpct INTEGER,"
                   " psi_cpu_cpct INTEGER, psi_io_cpct INTEGER, psi_scope INTEGER,"
                   " PRIMARY KEY (ts, gpu, dup)) WITHOUT ROWID;\n");
}

/* CREATE VIEW samples_v: samples in display units.  The time in ISO 8601,
 * the GPU's index and UUID, the task's and status's names, then each
 * column: a scaled one divided back into its unit (power_cw / 100.0 AS
 * power_w), a bit mask in hex, the others as stored; gpus.mem_total_mib
 * (kept per GPU: it rarely changes) beside memory used; ts last. */
static void samples_view_sql(struct gm_buf *b)
{
    int ids[GM_M__GPU_END], n = samples_metrics(ids);
    char col[64], name[64];
    gm_buf_puts(b, "CREATE VIEW IF NOT EXISTS samples_v AS SELECT strftime('%Y-%m-%dT%H:%M:%fZ',"
                   " s.ts / 1000.0, 'unixepoch') AS time, g.gpu_index AS gpu, g.uuid AS uuid,"
                   " t.name AS task, c.name AS status");
    for (int i = 0; i < n; i++) {
        const struct gm_metric *m = &gm_metrics[ids[i]];
        gm_metric_store_col(ids[i], col, sizeof(col));
        if (m->fmt == GM_F_HEX64)
            gm_buf_printf(b,
                          ", CASE WHEN s.%s IS NULL THEN NULL ELSE printf('0x%%x', s.%s) END AS %s",
                          col, col, col);
        else if (m->store_scale != 1)
            gm_buf_printf(b, ", s.%s / %u.0 AS %s", col, (unsigned)m->store_scale,
                          gm_metric_store_view_col(ids[i], name, sizeof(name)));
        else
            gm_buf_printf(b, ", s.%s", col);
        if (ids[i] == GM_M_MEM_USED)
            gm_buf_puts(b, ", g.mem_total_mib");
    }
    gm_buf_puts(b,
                ", s.ts AS ts FROM samples s JOIN gpus g ON g.id = s.gpu JOIN tasks t ON"
                " t.id = s.task LEFT JOIN codes c ON c.kind = 'status' AND c.code = s.status;\n");
}

/* The metrics of the opt-in gpm table: the registry's GPM rows, in id order. */
static int gpm_metrics(int ids[GM_M__GPU_END])
{
    int n = 0;
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (gm_metrics[id].rg == GM_RG_GPM)
            ids[n++] = id;
    return n;
}

/* A gpm column: the metric's CSV stem and its stored unit: hundredths of a
 * percent (activities, "gpm_sm_active_cpct") or whole MiB/s
 * ("gpm_pcie_tx_mibps"). */
static const char *gpm_col(int id, char *buf, size_t len)
{
    const struct gm_metric *m = &gm_metrics[id];
    snprintf(buf, len, "%s_%s", m->csv, m->unit == GM_U_BYTES_PER_S ? "mibps" : "cpct");
    return buf;
}

/* CREATE TABLE states and gpm (store_schema.h: GM_STORE_STATES; the GPM
 * values when the store keeps them, `store-gpm`). */
static void states_gpm_sql(struct gm_buf *b)
{
    char col[64];
    gm_buf_puts(b, "CREATE TABLE IF NOT EXISTS states (gpu INTEGER NOT NULL, ts INTEGER NOT NULL");
    for (int i = 0; i < NSTATE; i++)
        gm_buf_printf(b, ", %s INTEGER", gm_metric_csv_col(state_ids[i], col, sizeof(col)));
    gm_buf_puts(b, ", PRIMARY KEY (gpu, ts)) WITHOUT ROWID;\n"
                   "CREATE INDEX IF NOT EXISTS states_ts ON states (ts);\n");
    int ids[GM_M__GPU_END], n = gpm_metrics(ids);
    gm_buf_puts(b, "CREATE TABLE IF NOT EXISTS gpm (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"
                   " dup INTEGER NOT NULL DEFAULT 0");
    for (int i = 0; i < n; i++)
        gm_buf_printf(b, ", %s INTEGER", gpm_col(ids[i], col, sizeof(col)));
    gm_buf_puts(b, ", PRIMARY KEY (ts, gpu, dup)) WITHOUT ROWID;\n");
}

/* The schema's tables (store_schema.h and the samples table above). */
static char *schema_tables_sql(void)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, GM_STORE_SCHEMA_BEFORE_SAMPLES);
    samples_table_sql(&b);
    states_gpm_sql(&b);
    gm_buf_puts(&b, GM_STORE_SCHEMA_AFTER_SAMPLES);
    return b.p;
}

/* After the tables: the registry's samples columns that an existing store
 * lacks (metrics stored since it was made) added at the end of samples, and
 * then the view, made again when a column was added.  Names the added
 * columns in *added ("" when none). */
static char *columns_and_view_sql(sqlite3 *db, struct gm_buf *added)
{
    int ids[GM_M__GPU_END], n = samples_metrics(ids);
    struct gm_buf b = GM_BUF_INIT;
    char col[64];
    gm_buf_puts(added, "");
    for (int i = 0; i < n; i++) {
        gm_metric_store_col(ids[i], col, sizeof(col));
        if (has_column(db, "samples", col))
            continue;
        gm_buf_printf(&b, "ALTER TABLE samples ADD COLUMN %s INTEGER;\n", col);
        gm_buf_printf(added, "%s%s", added->len ? ", " : "", col);
    }
    /* procs.job_id came after schema 3 too (docs/jobs.md) */
    if (!has_column(db, "procs", "job_id"))
        gm_buf_puts(&b, "ALTER TABLE procs ADD COLUMN job_id TEXT;\n");
    /* procs.ppid and sid (the process tree, for diagnosis's jobs) came later still */
    if (!has_column(db, "procs", "ppid"))
        gm_buf_puts(&b, "ALTER TABLE procs ADD COLUMN ppid INTEGER;\n");
    if (!has_column(db, "procs", "sid"))
        gm_buf_puts(&b, "ALTER TABLE procs ADD COLUMN sid INTEGER;\n");
    if (added->len)
        gm_buf_puts(&b, "DROP VIEW IF EXISTS samples_v;\n");
    samples_view_sql(&b);
    return b.p;
}

/* Schema 1 and 2 to 3, after the schema: the rows of the tables that
 * GM_STORE_MIGRATE_3_BEFORE put aside, copied with dup 0. */
static char *migrate_3_after_sql(sqlite3 *db)
{
    struct gm_buf cols = GM_BUF_INIT, b = GM_BUF_INIT;
    samples_cols(db, "samples_v2", &cols);
    gm_buf_printf(&b, "INSERT INTO samples (%s) SELECT %s FROM samples_v2;\n", cols.p, cols.p);
    gm_buf_puts(&b, "DROP TABLE samples_v2;\n" GM_STORE_MIGRATE_3_AFTER_PROCS);
    gm_buf_free(&cols);
    return b.p;
}

/* Whether an existing database needs schema 3's migration: its samples
 * table is there without dup (schema 1 and 2 have samples and procs). */
static int needs_migrate_3(struct gm_store *st)
{
    return pragma_int(st->db, "SELECT count(*) FROM pragma_table_info('samples')") > 0 &&
           pragma_int(st->db, "SELECT count(*) FROM pragma_table_info('samples')"
                              " WHERE name = 'dup'") == 0;
}

/* Creates the schema in an empty database, or checks an existing one's version. */
static int schema_ensure(struct gm_store *st, struct gm_err *err)
{
    if (exec_sql(st->db, "BEGIN IMMEDIATE", err, st->path) != SQLITE_OK)
        return err ? err->code : GM_E_IO;
    int64_t ver = pragma_int(st->db, "PRAGMA user_version");
    int64_t ntab = pragma_int(st->db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'");
    if (ver > GM_STORE_SCHEMA_VERSION) {
        exec_sql(st->db, "ROLLBACK", NULL, st->path);
        return gm_err_set(err, GM_E_INVAL,
                          "store %s: schema version %" PRId64
                          " was written by a newer gpumon (this one knows version %d)",
                          st->path, ver, GM_STORE_SCHEMA_VERSION);
    }
    if (ver == 0 && ntab > 0) {
        exec_sql(st->db, "ROLLBACK", NULL, st->path);
        return gm_err_set(err, GM_E_INVAL,
                          "store %s: an SQLite database that is not a gpumon store (no schema "
                          "version); give the store a path of its own",
                          st->path);
    }
    int migrate = ver > 0 && ver < 3 && needs_migrate_3(st);
    if (migrate) {
        slog(st, 6,
             "store %s: schema %" PRId64 " to 3: copying %" PRId64
             " raw rows once into tables keyed with dup",
             st->path, ver,
             pragma_int(st->db, "SELECT (SELECT count(*) FROM samples) +"
                                " (SELECT count(*) FROM procs)"));
        if (exec_sql(st->db, GM_STORE_MIGRATE_3_BEFORE, err, st->path) != SQLITE_OK) {
            exec_sql(st->db, "ROLLBACK", NULL, st->path);
            return err ? err->code : GM_E_IO;
        }
    }
    char version_sql[256];
    snprintf(version_sql, sizeof(version_sql),
             "INSERT OR REPLACE INTO meta VALUES ('schema_version', '%d');"
             " INSERT OR IGNORE INTO meta VALUES ('created_ms', '%" PRId64 "');"
             " PRAGMA user_version = %d;",
             GM_STORE_SCHEMA_VERSION, gm_wall_ns() / NS_PER_MS, GM_STORE_SCHEMA_VERSION);
    char *tables = schema_tables_sql();
    char *after = migrate ? migrate_3_after_sql(st->db) : NULL;
    char *view = NULL;
    struct gm_buf added = GM_BUF_INIT;
    int ok = exec_sql(st->db, tables, err, st->path) == SQLITE_OK &&
             (!migrate || exec_sql(st->db, after, err, st->path) == SQLITE_OK);
    if (ok) {
        view = columns_and_view_sql(st->db, &added);
        if (added.len)
            slog(st, 6,
                 "store %s: adding the column%s %s to samples (metrics stored since the store "
                 "was made; its older rows have NULL there)",
                 st->path, strchr(added.p, ',') ? "s" : "", added.p);
        ok = exec_sql(st->db, view, err, st->path) == SQLITE_OK &&
             exec_sql(st->db, code_rows, err, st->path) == SQLITE_OK &&
             exec_sql(st->db, version_sql, err, st->path) == SQLITE_OK &&
             exec_sql(st->db, "COMMIT", err, st->path) == SQLITE_OK;
    }
    int rc = 0;
    if (!ok) {
        exec_sql(st->db, "ROLLBACK", NULL, st->path);
        rc = err ? err->code : GM_E_IO;
    }
    free(tables);
    free(after);
    free(view);
    gm_buf_free(&added);
    return rc;
}

/* The rollup upsert: counts and sums add, min/max combine, NULL means
 * "nothing known" on either side. */
static char *upsert_sql(const char *table)
{
    struct gm_buf cols = GM_BUF_INIT, set = GM_BUF_INIT, sql = GM_BUF_INIT;
    int np = 0;
    gm_buf_puts(&cols, "ts, gpu, task, n, n_down");
    np = 5;
    gm_buf_puts(&set, "n = n + excluded.n, n_down = n_down + excluded.n_down");
    for (int m = 0; m < RM__COUNT; m++) {
        const char *s = rm_stem[m];
        gm_buf_printf(&cols, ", %s_n, %s_sum, %s_min, %s_max", s, s, s, s);
        np += 4;
        gm_buf_printf(&set,
                      ", %s_n = %s_n + excluded.%s_n"
                      ", %s_sum = coalesce(%s_sum + excluded.%s_sum, %s_sum, excluded.%s_sum)"
                      ", %s_min = min(coalesce(%s_min, excluded.%s_min),"
                      " coalesce(excluded.%s_min, %s_min))"
                      ", %s_max = max(coalesce(%s_max, excluded.%s_max),"
                      " coalesce(excluded.%s_max, %s_max))",
                      s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s);
    }
    gm_buf_puts(&cols, ", dur_ms, energy_j, energy_src");
    np += 3;
    gm_buf_puts(&set, ", dur_ms = dur_ms + excluded.dur_ms"
                      ", energy_j = coalesce(energy_j + excluded.energy_j, energy_j,"
                      " excluded.energy_j)"
                      ", energy_src = energy_src | excluded.energy_src");
    for (int k = 0; k < GM_THR__COUNT; k++) {
        const char *s = thr_stem[k];
        gm_buf_printf(&cols, ", thr_%s_ms", s);
        np++;
        gm_buf_printf(&set,
                      ", thr_%s_ms = coalesce(thr_%s_ms + excluded.thr_%s_ms, thr_%s_ms,"
                      " excluded.thr_%s_ms)",
                      s, s, s, s, s);
    }
    gm_buf_printf(&sql, "INSERT INTO %s (%s) VALUES (", table, cols.p);
    for (int i = 1; i <= np; i++)
        gm_buf_printf(&sql, "%s?%d", i > 1 ? ", " : "", i);
    gm_buf_printf(&sql, ") ON CONFLICT (ts, gpu, task) DO UPDATE SET %s", set.p);
    gm_buf_free(&cols);
    gm_buf_free(&set);
    return sql.p;
}

static int prepare(struct gm_store *st, sqlite3_stmt **q, const char *sql, struct gm_err *err)
{
    int rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, q, NULL);
    if (rc != SQLITE_OK)
        return gm_err_set(err, sql_code(rc), "store %s: preparing a statement: %s", st->path,
                          sqlite3_errmsg(st->db));
    return 0;
}

/* The samples insert: the columns of samples_cols, then dup, as ?1 ... */
static char *sample_insert_sql(void)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "INSERT OR IGNORE INTO samples (");
    samples_cols(NULL, NULL, &b);
    gm_buf_puts(&b, ", dup) VALUES (");
    int ids[GM_M__GPU_END], nparam = 4 + samples_metrics(ids) + 1;
    for (int i = 1; i <= nparam; i++)
        gm_buf_printf(&b, "%s?%d", i > 1 ? ", " : "", i);
    gm_buf_puts(&b, ")");
    return b.p;
}

/* The states insert (a row at the same millisecond replaces the older) and
 * the gpm insert (keyed like its sample). */
static char *state_insert_sql(void)
{
    struct gm_buf b = GM_BUF_INIT;
    char col[64];
    gm_buf_puts(&b, "INSERT OR REPLACE INTO states (gpu, ts");
    for (int i = 0; i < NSTATE; i++)
        gm_buf_printf(&b, ", %s", gm_metric_csv_col(state_ids[i], col, sizeof(col)));
    gm_buf_puts(&b, ") VALUES (?1, ?2");
    for (int i = 0; i < NSTATE; i++)
        gm_buf_printf(&b, ", ?%d", 3 + i);
    gm_buf_puts(&b, ")");
    return b.p;
}

static char *gpm_insert_sql(void)
{
    struct gm_buf b = GM_BUF_INIT;
    char col[64];
    int ids[GM_M__GPU_END], n = gpm_metrics(ids);
    gm_buf_puts(&b, "INSERT OR REPLACE INTO gpm (ts, gpu, dup");
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, ", %s", gpm_col(ids[i], col, sizeof(col)));
    gm_buf_puts(&b, ") VALUES (?1, ?2, ?3");
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, ", ?%d", 4 + i);
    gm_buf_puts(&b, ")");
    return b.p;
}

static int prepare_all(struct gm_store *st, struct gm_err *err)
{
    char *up1m = upsert_sql("rollup_1m"), *up1h = upsert_sql("rollup_1h");
    char *ins = sample_insert_sql(), *sins = state_insert_sql(), *gins = gpm_insert_sql();
    int rc = 0;
    if ((rc = prepare(st, &st->st_begin, "BEGIN IMMEDIATE", err)) ||
        (rc = prepare(st, &st->st_commit, "COMMIT", err)) ||
        (rc = prepare(st, &st->st_rollback, "ROLLBACK", err)) ||
        (rc = prepare(st, &st->st_sample, ins, err)) ||
        (rc = prepare(st, &st->st_state, sins, err)) ||
        (rc = prepare(st, &st->st_gpm, gins, err)) ||
        (rc = prepare(st, &st->st_host,
                      "INSERT OR REPLACE INTO hostside (ts, gpu, dup, pid, cpu_cpct, workers,"
                      " workers_cpu_cpct, iowait_cpct, psi_cpu_cpct, psi_io_cpct, psi_scope)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                      err)) ||
        (rc = prepare(st, &st->st_usage,
                      "INSERT INTO usage_1h (ts, gpu, task, job, user, process, gpu_ms, energy_j,"
                      " util_sum, util_ms, mem_max_mib, thr_ms, first_ts, last_ts) VALUES (?1, ?2,"
                      " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT (ts, gpu,"
                      " task, job, user, process) DO UPDATE SET gpu_ms = gpu_ms + excluded.gpu_ms,"
                      " energy_j = coalesce(energy_j + excluded.energy_j, energy_j,"
                      " excluded.energy_j), util_sum = util_sum + excluded.util_sum,"
                      " util_ms = util_ms + excluded.util_ms, mem_max_mib ="
                      " max(coalesce(mem_max_mib, excluded.mem_max_mib),"
                      " coalesce(excluded.mem_max_mib, mem_max_mib)), thr_ms = thr_ms +"
                      " excluded.thr_ms, first_ts = min(first_ts, excluded.first_ts), last_ts ="
                      " max(last_ts, excluded.last_ts)",
                      err)) ||
        (rc = prepare(st, &st->st_proc,
                      "INSERT OR IGNORE INTO procs (" GM_PROCS_COLS ", dup, job_id, ppid, sid)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                      err)) ||
        (rc = prepare(st, &st->st_sample_dup,
                      "SELECT coalesce(max(dup), -1) + 1 FROM samples WHERE ts = ?1 AND gpu = ?2",
                      err)) ||
        (rc = prepare(st, &st->st_proc_dup,
                      "SELECT coalesce(max(dup), -1) + 1 FROM procs"
                      " WHERE ts = ?1 AND gpu = ?2 AND pid = ?3",
                      err)) ||
        (rc = prepare(st, &st->st_event,
                      "INSERT INTO events (ts, type, gpu, task, code, text)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                      err)) ||
        (rc = prepare(st, &st->st_alert,
                      "INSERT INTO alerts (ts, rule, severity, state, repeat, gpu, value, summary,"
                      " fingerprint, active_ts, fired_ts)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                      err)) ||
        (rc = prepare(st, &st->st_up[0], up1m, err)) ||
        (rc = prepare(st, &st->st_up[1], up1h, err)) ||
        (rc = prepare(
             st, &st->st_gpu_find,
             "SELECT id, gpu_index, name, mem_total_mib, last_seen FROM gpus WHERE uuid = ?1",
             err)) ||
        (rc = prepare(st, &st->st_gpu_ins,
                      "INSERT INTO gpus (uuid, name, gpu_index, mem_total_mib, first_seen,"
                      " last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                      err)) ||
        (rc = prepare(st, &st->st_gpu_upd,
                      "UPDATE gpus SET name = coalesce(?2, name), gpu_index = ?3,"
                      " mem_total_mib = coalesce(?4, mem_total_mib),"
                      " last_seen = max(last_seen, ?5) WHERE id = ?1",
                      err)) ||
        (rc = prepare(st, &st->st_task_find, "SELECT id FROM tasks WHERE name = ?1", err)) ||
        (rc = prepare(st, &st->st_task_ins, "INSERT INTO tasks (name, first_seen) VALUES (?1, ?2)",
                      err))) {
    }
    free(up1m);
    free(up1h);
    free(ins);
    free(sins);
    free(gins);
    return rc;
}

/* ---------------------------------------------------------- GPUs, tasks */

static struct gstate *gstate_by_uuid(struct gm_store *st, const char *uuid)
{
    for (size_t i = 0; i < st->ng; i++)
        if (strcmp(st->g[i]->uuid, uuid) == 0)
            return st->g[i];
    return NULL;
}

/* The GPU most recently seen at NVML index idx, or NULL. */
static struct gstate *gstate_by_index(struct gm_store *st, uint32_t idx)
{
    struct gstate *best = NULL;
    for (size_t i = 0; i < st->ng; i++)
        if (st->g[i]->index == idx && (!best || st->g[i]->last_seen > best->last_seen))
            best = st->g[i];
    return best;
}

static struct gstate *gstate_add(struct gm_store *st, const char *uuid, uint32_t idx)
{
    if (st->ng == st->gcap) {
        st->gcap = st->gcap ? st->gcap * 2 : 8;
        st->g = gm_xrealloc(st->g, st->gcap * sizeof(struct gstate *));
    }
    struct gstate *g = gm_xcalloc(1, sizeof(*g));
    st->g[st->ng++] = g;
    gm_strlcpy(g->uuid, uuid, sizeof(g->uuid));
    g->index = idx;
    g->mem_total_mib = -1;
    g->last_seen = INT64_MIN;
    return g;
}

/* Makes sure g has a gpus row (inside the open transaction). */
static int gstate_resolve(struct gm_store *st, struct gstate *g, int64_t ts)
{
    if (g->id)
        return SQLITE_OK;
    sqlite3_stmt *q = st->st_gpu_find;
    bind_utf8(q, 1, g->uuid, strlen(g->uuid));
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        g->id = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
        g->dirty = 1;
        return SQLITE_OK;
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return rc;
    q = st->st_gpu_ins;
    bind_utf8(q, 1, g->uuid, strlen(g->uuid));
    bind_text_or_null(q, 2, g->name);
    sqlite3_bind_int64(q, 3, g->index);
    bind_opt(q, 4, g->mem_total_mib >= 0, g->mem_total_mib);
    sqlite3_bind_int64(q, 5, ts);
    rc = step_done(q);
    if (rc == SQLITE_OK)
        g->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

static int task_resolve(struct gm_store *st, const char *name, int64_t ts, int64_t *id)
{
    sqlite3_stmt *q = st->st_task_find;
    bind_utf8(q, 1, name, strlen(name));
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
        return SQLITE_OK;
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return rc;
    q = st->st_task_ins;
    bind_utf8(q, 1, name, strlen(name));
    sqlite3_bind_int64(q, 2, ts);
    rc = step_done(q);
    if (rc == SQLITE_OK)
        *id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

/* Makes sure the agent's task has its id (inside the open transaction). */
static int task_ensure(struct gm_store *st, int64_t ts)
{
    if (st->task_id)
        return SQLITE_OK;
    int rc = task_resolve(st, st->task, ts, &st->task_id);
    if (rc == SQLITE_OK)
        st->task_in_batch = 1;
    else
        st->task_id = 0;
    return rc;
}

/* The GPUs of the newest snapshot written before this session, so that a
 * session that starts with the driver down still records status rows. */
static void load_last_gpus(struct gm_store *st)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(
            st->db,
            "SELECT id, uuid, gpu_index, name, mem_total_mib, last_seen FROM gpus"
            " WHERE last_seen = (SELECT max(last_seen) FROM gpus) ORDER BY gpu_index",
            -1, &q, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *uuid = (const char *)sqlite3_column_text(q, 1);
        struct gstate *g = gstate_add(st, uuid ? uuid : "", (uint32_t)sqlite3_column_int64(q, 2));
        g->id = sqlite3_column_int64(q, 0);
        const char *name = (const char *)sqlite3_column_text(q, 3);
        gm_strlcpy(g->name, name ? name : "", sizeof(g->name));
        g->mem_total_mib =
            sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 4);
        g->last_seen = sqlite3_column_int64(q, 5);
        g->in_last = 1;
    }
    sqlite3_finalize(q);
}

/* ---------------------------------------------------------- transactions */

/* After a rollback nothing created in the batch exists: GPU rows are looked
 * up again, pending rollup deltas are dropped. */
static void batch_discard(struct gm_store *st)
{
    if (st->in_txn && !sqlite3_get_autocommit(st->db))
        step_done(st->st_rollback);
    st->in_txn = 0;
    stat_add(&st->stats.lost, st->batch_samples);
    if (st->batch_unkept) {
        stat_add(&st->stats.events_lost, st->batch_unkept);
        slog(st, 3,
             "store %s: %" PRIu64 " event%s lost with a rolled-back batch (more than %d "
             "waiting)",
             st->path, st->batch_unkept, st->batch_unkept == 1 ? "" : "s", PEND_MAX);
    }
    if (st->npend && !st->pend_logged) {
        slog(st, 4,
             "store %s: keeping %zu event%s of the rolled-back batch in memory (at most %d)"
             " to write with the next batch",
             st->path, st->npend, st->npend == 1 ? "" : "s", PEND_MAX);
        st->pend_logged = 1;
    }
    st->pend_in_batch = 0; /* the next batch writes them again */
    st->batch_unkept = 0;
    st->batch_samples = st->batch_procs = st->batch_events = 0;
    st->nacc = 0;
    st->nuacc = 0;
    for (size_t i = 0; i < st->ng; i++) {
        st->g[i]->id = 0;
        st->g[i]->dirty = 1;
        st->g[i]->state_have = 0; /* its states row went with the batch */
    }
    if (st->task_in_batch)
        st->task_id = 0; /* a task row made in the batch is gone with it */
    st->task_in_batch = 0;
}

static int batch_begin(struct gm_store *st)
{
    if (st->in_txn)
        return SQLITE_OK;
    int rc = step_done(st->st_begin);
    if (rc != SQLITE_OK)
        return rc;
    st->in_txn = 1;
    st->batch_mono = gm_mono_ns();
    return SQLITE_OK;
}

static int flush_rollups(struct gm_store *st)
{
    for (size_t i = 0; i < st->nacc; i++) {
        const struct racc *a = &st->acc[i];
        sqlite3_stmt *q = st->st_up[a->tier];
        int p = 1;
        sqlite3_bind_int64(q, p++, a->ts);
        sqlite3_bind_int64(q, p++, a->gpu);
        sqlite3_bind_int64(q, p++, a->task);
        sqlite3_bind_int64(q, p++, a->n);
        sqlite3_bind_int64(q, p++, a->n_down);
        for (int m = 0; m < RM__COUNT; m++) {
            int have = a->mn[m] > 0;
            sqlite3_bind_int64(q, p++, a->mn[m]);
            bind_opt(q, p++, have, a->msum[m]);
            bind_opt(q, p++, have, a->mmin[m]);
            bind_opt(q, p++, have, a->mmax[m]);
        }
        sqlite3_bind_int64(q, p++, a->dur_ms);
        if (a->energy_set)
            sqlite3_bind_double(q, p++, a->energy_j);
        else
            sqlite3_bind_null(q, p++);
        sqlite3_bind_int64(q, p++, a->energy_src);
        for (int k = 0; k < GM_THR__COUNT; k++)
            bind_opt(q, p++, a->thr_set, a->thr[k]);
        int rc = step_done(q);
        if (rc != SQLITE_OK)
            return rc;
    }
    st->nacc = 0;
    for (size_t i = 0; i < st->nuacc; i++) {
        const struct uacc *u = &st->uacc[i];
        sqlite3_stmt *q = st->st_usage;
        sqlite3_bind_int64(q, 1, u->ts);
        sqlite3_bind_int64(q, 2, u->gpu);
        sqlite3_bind_int64(q, 3, u->task);
        bind_utf8(q, 4, u->job, strlen(u->job));
        bind_utf8(q, 5, u->user, strlen(u->user));
        bind_utf8(q, 6, u->proc, strlen(u->proc));
        sqlite3_bind_int64(q, 7, llround(u->gpu_ms));
        if (u->energy_set)
            sqlite3_bind_double(q, 8, u->energy_j);
        else
            sqlite3_bind_null(q, 8);
        sqlite3_bind_int64(q, 9, llround(u->util_sum));
        sqlite3_bind_int64(q, 10, llround(u->util_ms));
        bind_opt(q, 11, u->mem_set, u->mem_max);
        sqlite3_bind_int64(q, 12, llround(u->thr_ms));
        sqlite3_bind_int64(q, 13, u->first);
        sqlite3_bind_int64(q, 14, u->last);
        int rc = step_done(q);
        if (rc != SQLITE_OK)
            return rc;
    }
    st->nuacc = 0;
    return SQLITE_OK;
}

static int flush_gpus(struct gm_store *st)
{
    for (size_t i = 0; i < st->ng; i++) {
        struct gstate *g = st->g[i];
        if (!g->dirty || !g->id || g->last_seen == INT64_MIN)
            continue;
        sqlite3_stmt *q = st->st_gpu_upd;
        sqlite3_bind_int64(q, 1, g->id);
        bind_text_or_null(q, 2, g->name);
        sqlite3_bind_int64(q, 3, g->index);
        bind_opt(q, 4, g->mem_total_mib >= 0, g->mem_total_mib);
        sqlite3_bind_int64(q, 5, g->last_seen);
        int rc = step_done(q);
        if (rc != SQLITE_OK)
            return rc;
        g->dirty = 0;
    }
    return SQLITE_OK;
}

/* Commits the open batch (rollups and GPU rows first).  On failure the
 * batch is rolled back and its samples are counted as lost. */
static int batch_commit(struct gm_store *st)
{
    if (!st->in_txn)
        return 0;
    int rc = flush_rollups(st);
    if (rc == SQLITE_OK)
        rc = flush_gpus(st);
    if (rc == SQLITE_OK)
        rc = step_done(st->st_commit);
    if (rc != SQLITE_OK) {
        /* count the lost batch before the message that reports the count */
        const char *why = sqlite3_errmsg(st->db);
        char msg[256];
        snprintf(msg, sizeof(msg), "%s", why);
        batch_discard(st);
        return fail_msg(st, rc, "commit", msg);
    }
    st->in_txn = 0;
    st->task_in_batch = 0;
    stat_add(&st->stats.samples, st->batch_samples);
    stat_add(&st->stats.proc_rows, st->batch_procs);
    stat_add(&st->stats.events, st->batch_events);
    stat_add(&st->stats.commits, 1);
    st->batch_samples = st->batch_procs = st->batch_events = 0;
    size_t done = st->pend_in_batch;
    if (done && st->npend > done)
        memmove(st->pend, st->pend + done, (st->npend - done) * sizeof(*st->pend));
    st->npend -= done;
    st->pend_in_batch = 0;
    st->batch_unkept = 0;
    succeed(st, st->pend_logged ? done : 0);
    return 0;
}

static int commit_if_due(struct gm_store *st)
{
    if (st->in_txn && (gm_mono_ns() - st->batch_mono >= st->o.commit_interval_ns ||
                       st->batch_samples + st->batch_procs >= BATCH_MAX_ROWS))
        return batch_commit(st);
    return 0;
}

/* --------------------------------------------------------------- rollups */

static struct racc *acc_get(struct gm_store *st, int tier, int64_t ts, int64_t gpu, int64_t task)
{
    for (size_t i = st->nacc; i-- > 0;) {
        struct racc *a = &st->acc[i];
        if (a->ts == ts && a->gpu == gpu && a->tier == tier && a->task == task)
            return a;
    }
    if (st->nacc == st->acap) {
        st->acap = st->acap ? st->acap * 2 : 32;
        st->acc = gm_xrealloc(st->acc, st->acap * sizeof(*st->acc));
    }
    struct racc *a = &st->acc[st->nacc++];
    memset(a, 0, sizeof(*a));
    a->tier = tier;
    a->ts = ts;
    a->gpu = gpu;
    a->task = task;
    return a;
}

static int64_t tier_period(int tier)
{
    return tier ? MS_PER_HOUR : MS_PER_MIN;
}

/* One sample's own values, into its minute and hour. */
struct rsample {
    int down;
    int ok[RM__COUNT];
    int64_t v[RM__COUNT];
};

static void roll_sample(struct gm_store *st, const struct gstate *g, int64_t ts,
                        const struct rsample *r)
{
    for (int tier = 0; tier < 2; tier++) {
        struct racc *a = acc_get(st, tier, floor_to(ts, tier_period(tier)), g->id, st->task_id);
        a->n++;
        a->n_down += r->down;
        for (int m = 0; m < RM__COUNT; m++) {
            if (!r->ok[m])
                continue;
            int64_t v = r->v[m];
            if (a->mn[m] == 0 || v < a->mmin[m])
                a->mmin[m] = v;
            if (a->mn[m] == 0 || v > a->mmax[m])
                a->mmax[m] = v;
            a->mn[m]++;
            a->msum[m] += v;
        }
    }
}

/* The interval [t0, t0 + d) of one sample: observed time, seconds throttled
 * per reason and energy, split over the periods it covers. */
static void roll_interval(struct gm_store *st, const struct gstate *g, int64_t t0, int64_t d,
                          int reasons_ok, uint64_t reasons, int energy_ok, double energy_j,
                          int esrc)
{
    for (int tier = 0; tier < 2; tier++) {
        int64_t p = tier_period(tier);
        for (int64_t a0 = t0, end = t0 + d; a0 < end;) {
            int64_t b = floor_to(a0, p);
            int64_t a1 = b + p < end ? b + p : end;
            int64_t len = a1 - a0;
            struct racc *a = acc_get(st, tier, b, g->id, st->task_id);
            a->dur_ms += len;
            if (reasons_ok) {
                a->thr_set = 1;
                for (int k = 0; k < GM_THR__COUNT; k++)
                    if (reasons & thr_bits(k))
                        a->thr[k] += len;
            }
            if (energy_ok) {
                a->energy_set = 1;
                a->energy_j += len == d ? energy_j : energy_j * (double)len / (double)d;
                a->energy_src |= esrc;
            }
            a0 = a1;
        }
    }
}

/* The usual interval between a GPU's samples: the configured one, else the
 * median of its recent intervals (robust to the odd gap). */
static int64_t usual_interval(const struct gm_store *st, const struct gstate *g)
{
    if (st->o.interval_ns > 0)
        return st->o.interval_ns / NS_PER_MS > 0 ? st->o.interval_ns / NS_PER_MS : 1;
    int64_t v[NDELTA];
    int n = g->ndelta;
    memcpy(v, g->delta, sizeof(v));
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

/* The sample at ts closes the interval that began at the GPU's previous
 * sample; then ts becomes the previous sample. */
struct rnow {
    int reasons_ok, energy_ok, power_ok, util_ok;
    uint64_t reasons;
    int64_t energy_mj, power_cw, util;
};

/* The usage_1h accumulator of (hour of ts, GPU, task, group). */
static struct uacc *uacc_get(struct gm_store *st, int64_t ts, int64_t gpu, const struct ugroup *u)
{
    int64_t hour = floor_to(ts, MS_PER_HOUR);
    for (size_t i = st->nuacc; i-- > 0;) {
        struct uacc *a = &st->uacc[i];
        if (a->ts == hour && a->gpu == gpu && a->task == st->task_id && !strcmp(a->job, u->job) &&
            !strcmp(a->user, u->user) && !strcmp(a->proc, u->proc))
            return a;
    }
    if (st->nuacc == st->ucap) {
        st->ucap = st->ucap ? st->ucap * 2 : 32;
        st->uacc = gm_xrealloc(st->uacc, st->ucap * sizeof(*st->uacc));
    }
    struct uacc *a = &st->uacc[st->nuacc++];
    memset(a, 0, sizeof(*a));
    a->ts = hour;
    a->gpu = gpu;
    a->task = st->task_id;
    gm_strlcpy(a->job, u->job, sizeof a->job);
    gm_strlcpy(a->user, u->user, sizeof a->user);
    gm_strlcpy(a->proc, u->proc, sizeof a->proc);
    a->first = INT64_MAX;
    a->last = INT64_MIN;
    return a;
}

/* The interval [t0, t0 + d) after g's previous sample, energy e (when
 * energy_ok), given in equal parts to the process groups of that sample --
 * to its live groups only when there are any: a vanished process does no
 * work, so it is charged no time, energy, utilisation or throttling, only
 * its memory and the moments it was seen (docs/jobs.md). */
static void usage_interval(struct gm_store *st, const struct gstate *g, int64_t t0, int64_t d,
                           int energy_ok, double e, int reasons_ok, uint64_t reasons)
{
    if (!g->ug_known || g->nug == 0 || d <= 0)
        return;
    const uint64_t thr = thr_bits(GM_THR_thermal) | thr_bits(GM_THR_power_cap) |
                         thr_bits(GM_THR_power_brake) | thr_bits(GM_THR_hw_slowdown);
    int nlive = 0;
    for (int i = 0; i < g->nug; i++)
        nlive += !g->ug[i].vanished;
    for (int i = 0; i < g->nug; i++) {
        const struct ugroup *u = &g->ug[i];
        struct uacc *a = uacc_get(st, t0, g->id, u);
        /* a vanished group beside live ones: seen, holding memory, charged nothing */
        double share = nlive && u->vanished ? 0 : 1.0 / (nlive ? nlive : g->nug);
        a->gpu_ms += (double)d * share;
        if (energy_ok) {
            a->energy_j += e * share;
            a->energy_set = 1;
        }
        if (g->prev_util_ok && share > 0) {
            a->util_sum += (double)g->prev_util * (double)d * share;
            a->util_ms += (double)d * share;
        }
        if (reasons_ok && (reasons & thr))
            a->thr_ms += (double)d * share;
        if (u->mem_ok && (!a->mem_set || u->mem_mib > a->mem_max)) {
            a->mem_max = u->mem_mib;
            a->mem_set = 1;
        }
        if (t0 < a->first)
            a->first = t0;
        if (t0 + d > a->last)
            a->last = t0 + d;
    }
}

static void roll_advance(struct gm_store *st, struct gstate *g, int64_t ts, const struct rnow *c)
{
    if (g->have_prev && ts > g->prev_ts) {
        int64_t dt = ts - g->prev_ts;
        g->delta[g->delta_pos] = dt;
        g->delta_pos = (g->delta_pos + 1) % NDELTA;
        if (g->ndelta < NDELTA)
            g->ndelta++;
        int64_t cap = 2 * usual_interval(st, g);
        int64_t d = dt < cap ? dt : cap;
        int energy_ok = 0, esrc = 0;
        double e = 0;
        if (g->prev_energy_ok && c->energy_ok && c->energy_mj >= g->prev_energy_mj) {
            /* the counter's energy over dt, of which d was observed */
            e = (double)(c->energy_mj - g->prev_energy_mj) / gm_metrics[GM_M_ENERGY].store_scale;
            if (d < dt)
                e = e * (double)d / (double)dt;
            energy_ok = 1;
            esrc = GM_ESRC_COUNTER;
        } else if (g->prev_power_ok) {
            /* no counter, or it went backwards (driver reload): power x time */
            e = (double)g->prev_power_cw / gm_metrics[GM_M_POWER_DRAW].store_scale * (double)d /
                1000.0;
            energy_ok = 1;
            esrc = GM_ESRC_POWER;
        }
        roll_interval(st, g, g->prev_ts, d, g->prev_reasons_ok, g->prev_reasons, energy_ok, e,
                      esrc);
        usage_interval(st, g, g->prev_ts, d, energy_ok, e, g->prev_reasons_ok, g->prev_reasons);
    }
    if (!g->have_prev || ts > g->prev_ts) {
        g->have_prev = 1;
        g->prev_ts = ts;
        g->prev_reasons_ok = c->reasons_ok;
        g->prev_reasons = c->reasons;
        g->prev_energy_ok = c->energy_ok;
        g->prev_energy_mj = c->energy_mj;
        g->prev_power_ok = c->power_ok;
        g->prev_power_cw = c->power_cw;
        g->prev_util_ok = c->util_ok;
        g->prev_util = c->util;
    }
}

/* ------------------------------------------------------------------ write */

/* A value as an integer in the stored scale: round(v * mul).  Returns 0
 * when the value is not available. */
static int scaled(const struct gm_value *v, double mul, int64_t *out)
{
    if (!gm_v_ok(v))
        return 0;
    double d = gm_v_as_double(v) * mul;
    if (!isfinite(d) || d > 9.2e18 || d < -9.2e18)
        return 0;
    *out = llround(d);
    return 1;
}

/* A value in whole units of div (bytes to MiB), rounded down as nvidia-smi
 * does.  Returns 0 when the value is not available. */
static int whole(const struct gm_value *v, double div, int64_t *out)
{
    if (!gm_v_ok(v))
        return 0;
    if (v->type == GM_VT_U64) {
        *out = (int64_t)(v->v.u / (uint64_t)div);
        return 1;
    }
    double d = floor(gm_v_as_double(v) / div);
    if (!isfinite(d) || d < 0 || d > 9.2e18)
        return 0;
    *out = (int64_t)d;
    return 1;
}

static int mib(const struct gm_value *v, int64_t *out)
{
    return whole(v, gm_units[GM_U_BYTES].smi_div, out);
}

/* Metric id's value as its samples column keeps it (metrics.h: store,
 * store_scale): a bit mask as it is, a unit with a divisor in its whole
 * nvidia-smi units, else round(value * store_scale).  Returns 0 when the
 * value is not available. */
static int store_value(int id, const struct gm_value *v, int64_t *out)
{
    const struct gm_metric *m = &gm_metrics[id];
    double div = gm_units[m->unit].smi_div;
    if (m->fmt == GM_F_HEX64) {
        if (!gm_v_ok(v))
            return 0;
        *out = v->type == GM_VT_U64 ? (int64_t)v->v.u : (int64_t)gm_v_as_double(v);
        return 1;
    }
    if (div != 1)
        return whole(v, div, out);
    return scaled(v, m->store_scale, out);
}

/* The next dup for a key that already has rows (pid < 0: a samples key). */
static int next_dup(sqlite3_stmt *q, int64_t ts, int64_t gpu, int64_t pid, int64_t *dup)
{
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, gpu);
    if (pid >= 0)
        sqlite3_bind_int64(q, 3, pid);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        *dup = sqlite3_column_int64(q, 0);
    sqlite3_reset(q);
    return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* g's states row when a state changed since the last one written, or none
 * was written in this session (or batch), or GM_STORE_STATES_REFRESH_MS
 * passed (the wall clock stepping back counts as passed). */
static int write_states(struct gm_store *st, struct gstate *g, int64_t ts, const struct gm_gpu *gpu)
{
    int ok[NSTATE], changed = !g->state_have || ts - g->state_ts >= GM_STORE_STATES_REFRESH_MS ||
                              ts < g->state_ts;
    int64_t v[NSTATE];
    for (int i = 0; i < NSTATE; i++) {
        v[i] = 0;
        ok[i] = scaled(&gpu->m[state_ids[i]], 1, &v[i]);
        if (ok[i] != g->state_ok[i] || (ok[i] && v[i] != g->state_v[i]))
            changed = 1;
    }
    if (!changed)
        return SQLITE_OK;
    sqlite3_stmt *q = st->st_state;
    sqlite3_bind_int64(q, 1, g->id);
    sqlite3_bind_int64(q, 2, ts);
    for (int i = 0; i < NSTATE; i++)
        bind_opt(q, 3 + i, ok[i], v[i]);
    int rc = step_done(q);
    if (rc != SQLITE_OK)
        return rc;
    g->state_have = 1;
    g->state_ts = ts;
    memcpy(g->state_ok, ok, sizeof ok);
    memcpy(g->state_v, v, sizeof v);
    return SQLITE_OK;
}

/* g's GPM values beside its sample (same ts and dup), when it has any. */
static int write_gpm(struct gm_store *st, struct gstate *g, int64_t ts, int64_t dup,
                     const struct gm_gpu *gpu)
{
    int ids[GM_M__GPU_END], n = gpm_metrics(ids), any = 0;
    sqlite3_stmt *q = st->st_gpm;
    for (int i = 0; i < n; i++) {
        const struct gm_value *x = &gpu->m[ids[i]];
        int64_t v = 0;
        int ok = gm_metrics[ids[i]].unit == GM_U_BYTES_PER_S
                     ? whole(x, gm_units[GM_U_BYTES_PER_S].smi_div, &v)
                     : scaled(x, 100, &v);
        bind_opt(q, 4 + i, ok, v);
        any |= ok;
    }
    if (!any) {
        sqlite3_reset(q);
        sqlite3_clear_bindings(q);
        return SQLITE_OK;
    }
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_int64(q, 3, dup);
    return step_done(q);
}

/* The host side of the process feeding gpu beside its sample, when read. */
static int write_host(struct gm_store *st, struct gstate *g, int64_t ts, int64_t dup,
                      const struct gm_snapshot *s, const struct gm_gpu *gpu)
{
    const struct gm_proc *p = gm_gpu_feeder(s, gpu);
    if (!p)
        return SQLITE_OK;
    const struct gm_host_side *h = &p->host;
    sqlite3_stmt *q = st->st_host;
    double pct[] = {h->cpu_pct, h->workers_cpu_pct, h->iowait_pct, h->psi_cpu, h->psi_io};
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_int64(q, 3, dup);
    sqlite3_bind_int64(q, 4, p->pid);
    bind_opt(q, 6, h->workers >= 0, h->workers);
    for (int k = 0; k < 5; k++)
        bind_opt(q, k == 0 ? 5 : 6 + k, !isnan(pct[k]),
                 isnan(pct[k]) ? 0 : (int64_t)llround(pct[k] * 100));
    sqlite3_bind_int(q, 11, h->psi_scope);
    return step_done(q);
}

/* Writes one samples row for g: values from gpu (NULL: all NULL); with s,
 * the host side of its feeding process too. */
static int write_gpu_row(struct gm_store *st, struct gstate *g, int64_t ts, int status,
                         const struct gm_gpu *gpu, const struct gm_snapshot *s)
{
    int ids[GM_M__GPU_END], ncol = samples_metrics(ids);
    int ok[GM_M__GPU_END] = {0}; /* by metric id: the stored columns' values */
    int64_t v[GM_M__GPU_END] = {0};
    for (int c = 0; gpu && c < ncol; c++) {
        const struct gm_value *x = &gpu->m[ids[c]];
        ok[ids[c]] = store_value(ids[c], x, &v[ids[c]]);
        if (status == GM_SST_OK && x->status == GM_VS_ERROR)
            status = GM_SST_VALUE_ERROR;
    }
    sqlite3_stmt *q = st->st_sample;
    sqlite3_bind_int64(q, 1, ts);
    sqlite3_bind_int64(q, 2, g->id);
    sqlite3_bind_int64(q, 3, st->task_id);
    sqlite3_bind_int(q, 4, status);
    for (int c = 0; c < ncol; c++)
        bind_opt(q, 5 + c, ok[ids[c]], v[ids[c]]);
    sqlite3_bind_int64(q, 5 + ncol, 0);
    int rc = step_done(q);
    int64_t dup = 0;
    if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0) {
        /* a row for this GPU at this millisecond exists (the wall clock
         * stepped back): this one is kept beside it, with the next dup */
        rc = next_dup(st->st_sample_dup, ts, g->id, -1, &dup);
        sqlite3_bind_int64(q, 5 + ncol, dup);
        if (rc == SQLITE_OK)
            rc = step_done(q);
        if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0)
            rc = SQLITE_CONSTRAINT; /* cannot happen; fail (and count) rather than drop */
        if (rc == SQLITE_OK)
            stat_add(&st->stats.repeated, 1);
    }
    if (rc == SQLITE_OK && gpu)
        rc = write_states(st, g, ts, gpu);
    if (rc == SQLITE_OK && gpu && st->o.gpm)
        rc = write_gpm(st, g, ts, dup, gpu);
    if (rc == SQLITE_OK && gpu && s)
        rc = write_host(st, g, ts, dup, s, gpu);
    if (rc != SQLITE_OK)
        return rc;
    st->batch_samples++;
    if (ts > g->last_seen) {
        g->last_seen = ts;
        g->dirty = 1;
    }

    struct rsample r = {0};
    r.down = status != GM_SST_OK && status != GM_SST_VALUE_ERROR;
    for (int m = 0; m < RM__COUNT; m++) {
        r.ok[m] = ok[rm_metric[m]];
        r.v[m] = v[rm_metric[m]];
    }
    roll_sample(st, g, ts, &r);
    struct rnow c = {
        .reasons_ok = ok[GM_M_CER_ACTIVE],
        .reasons = (uint64_t)v[GM_M_CER_ACTIVE],
        .energy_ok = ok[GM_M_ENERGY],
        .energy_mj = v[GM_M_ENERGY],
        .power_ok = ok[GM_M_POWER_DRAW],
        .power_cw = v[GM_M_POWER_DRAW],
        .util_ok = ok[GM_M_UTIL_GPU],
        .util = v[GM_M_UTIL_GPU],
    };
    roll_advance(st, g, ts, &c);
    return SQLITE_OK;
}

/* The session's GPU for snapshot GPU gpu: by UUID; a GPU whose UUID could
 * not be read keeps the UUID last seen at its index, else "index-N". */
static struct gstate *gstate_for(struct gm_store *st, const struct gm_gpu *gpu)
{
    const char *uuid = gpu->str[GM_S_UUID];
    struct gstate *g = NULL;
    if (uuid[0]) {
        g = gstate_by_uuid(st, uuid);
        if (!g)
            g = gstate_add(st, uuid, gpu->index);
    } else {
        g = gstate_by_index(st, gpu->index);
        if (!g) {
            char pseudo[32];
            snprintf(pseudo, sizeof(pseudo), "index-%" PRIu32, gpu->index);
            g = gstate_by_uuid(st, pseudo);
            if (!g)
                g = gstate_add(st, pseudo, gpu->index);
        }
    }
    if (g->index != gpu->index) {
        g->index = gpu->index;
        g->dirty = 1;
    }
    const char *name = gpu->str[GM_S_NAME];
    if (name[0] && strcmp(name, g->name) != 0) {
        gm_strlcpy(g->name, name, sizeof(g->name));
        g->dirty = 1;
    }
    int64_t total;
    if (mib(&gpu->m[GM_M_MEM_TOTAL], &total) && total != g->mem_total_mib) {
        g->mem_total_mib = total;
        g->dirty = 1;
    }
    return g;
}

/* g's process groups in this sample, for the interval that follows it
 * (usage_interval): one per (job, user, process name); unknown when NVML
 * did not list the processes. */
static void usage_groups(struct gstate *g, const struct gm_snapshot *s, const struct gm_gpu *gpu)
{
    g->nug = 0;
    g->ug_known = gpu && gpu->state == GM_GPU_OK && gpu->procs_listed;
    if (!g->ug_known)
        return;
    for (uint32_t k = gpu->proc_first; k < gpu->proc_first + gpu->nproc && k < s->nproc; k++) {
        const struct gm_proc *p = &s->procs[k];
        struct ugroup u;
        memset(&u, 0, sizeof u);
        /* a process without a job of its own counts to the job the
         * job-mapping directory names first for its GPU (docs/jobs.md) */
        if (!gm_attrib_job(&p->attrib, u.job, sizeof u.job)[0] && gpu->hpc_known && gpu->nhpc_jobs)
            gm_hpc_job_key(gpu->hpc_jobs[0], u.job, sizeof u.job);
        gm_strlcpy(u.user, p->user, sizeof u.user);
        /* a vanished process is nobody's user any more, and its own job is
         * gone with it: one group per process name, user "(vanished)", job
         * the GPU's mapped job or "(vanished)" (docs/jobs.md) */
        u.vanished = p->host_state == GM_HS_GONE || p->host_state == GM_HS_ZOMBIE;
        if (u.vanished) {
            if (gpu->hpc_known && gpu->nhpc_jobs)
                gm_hpc_job_key(gpu->hpc_jobs[0], u.job, sizeof u.job);
            else
                gm_strlcpy(u.job, "(vanished)", sizeof u.job);
            gm_strlcpy(u.user, "(vanished)", sizeof u.user);
        }
        const char *name = p->comm[0] ? p->comm : p->name;
        const char *base = strrchr(name, '/');
        gm_strlcpy(u.proc, base && base[1] ? base + 1 : name, sizeof u.proc);
        int64_t mem = 0;
        int mem_ok = mib(&p->used_memory, &mem);
        int i = 0;
        while (i < g->nug &&
               (strcmp(g->ug[i].job, u.job) != 0 || strcmp(g->ug[i].user, u.user) != 0 ||
                strcmp(g->ug[i].proc, u.proc) != 0))
            i++;
        if (i == g->nug) {
            if (g->nug == UG_MAX) { /* the rest, together */
                i = UG_MAX - 1;
                snprintf(g->ug[i].job, sizeof g->ug[i].job, "(other)");
                g->ug[i].user[0] = g->ug[i].proc[0] = '\0';
                g->ug[i].vanished = 0;
            } else {
                g->ug[g->nug++] = u;
                g->ug[i].mem_ok = 0;
                g->ug[i].mem_mib = 0;
            }
        }
        if (mem_ok) {
            g->ug[i].mem_mib += mem;
            g->ug[i].mem_ok = 1;
        }
    }
}

static int write_procs(struct gm_store *st, const struct gm_snapshot *s, int64_t ts,
                       struct gstate *const *gmap)
{
    sqlite3_stmt *q = st->st_proc;
    for (uint32_t i = 0; i < s->nproc; i++) {
        const struct gm_proc *p = &s->procs[i];
        if (p->gpu >= s->ngpu || !gmap[p->gpu])
            continue;
        int64_t mem = 0;
        int mem_ok = mib(&p->used_memory, &mem);
        sqlite3_bind_int64(q, 1, ts);
        sqlite3_bind_int64(q, 2, gmap[p->gpu]->id);
        sqlite3_bind_int64(q, 3, p->pid);
        sqlite3_bind_int(q, 4, p->type);
        bind_text_or_null(q, 5, p->name[0] ? p->name : p->comm);
        bind_text_or_null(q, 6, p->user);
        bind_opt(q, 7, mem_ok, mem);
        sqlite3_bind_int(q, 8, p->host_state);
        sqlite3_bind_int64(q, 9, 0);
        char job[128];
        bind_text_or_null(q, 10, gm_attrib_job(&p->attrib, job, sizeof job));
        bind_opt(q, 11, p->ppid != 0, p->ppid); /* 0: not read */
        bind_opt(q, 12, p->sid != 0, p->sid);
        int rc = step_done(q);
        if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0) {
            /* the same process at the same millisecond: the clock stepped back */
            int64_t dup = 0;
            rc = next_dup(st->st_proc_dup, ts, gmap[p->gpu]->id, p->pid, &dup);
            sqlite3_bind_int64(q, 9, dup);
            if (rc == SQLITE_OK)
                rc = step_done(q);
            if (rc == SQLITE_OK && sqlite3_changes(st->db) == 0)
                rc = SQLITE_CONSTRAINT;
        }
        if (rc != SQLITE_OK)
            return rc;
        st->batch_procs++;
    }
    return SQLITE_OK;
}

static int write_snapshot(struct gm_store *st, const struct gm_snapshot *s, int64_t ts)
{
    int rc = SQLITE_OK;
    if (s->ngpu == 0) {
        if (s->driver == GM_DRV_OK)
            return SQLITE_OK;
        /* the driver is down: a status row for each GPU of the last good snapshot */
        for (size_t i = 0; i < st->ng && rc == SQLITE_OK; i++) {
            struct gstate *g = st->g[i];
            if (!g->in_last)
                continue;
            rc = gstate_resolve(st, g, ts);
            if (rc == SQLITE_OK)
                rc = write_gpu_row(st, g, ts, GM_SST_DRIVER_BASE + s->driver, NULL, NULL);
            usage_groups(g, s, NULL);
        }
        return rc;
    }
    struct gstate *stack_map[16];
    struct gstate **gmap = s->ngpu <= 16 ? stack_map : gm_xcalloc(s->ngpu, sizeof(struct gstate *));
    for (uint32_t i = 0; i < s->ngpu; i++)
        gmap[i] = gstate_for(st, &s->gpus[i]);
    for (size_t i = 0; i < st->ng; i++)
        st->g[i]->in_last = 0;
    for (uint32_t i = 0; i < s->ngpu && rc == SQLITE_OK; i++) {
        const struct gm_gpu *gpu = &s->gpus[i];
        struct gstate *g = gmap[i];
        g->in_last = 1;
        rc = gstate_resolve(st, g, ts);
        if (rc != SQLITE_OK)
            break;
        switch (gpu->state) {
        case GM_GPU_OK:
            rc = write_gpu_row(st, g, ts, GM_SST_OK, gpu, s);
            usage_groups(g, s, gpu);
            break;
        case GM_GPU_LOST:
            rc = write_gpu_row(st, g, ts, GM_SST_GPU_LOST, NULL, NULL);
            break;
        case GM_GPU_NOPERM:
            rc = write_gpu_row(st, g, ts, GM_SST_GPU_NOPERM, NULL, NULL);
            break;
        default:
            rc = write_gpu_row(st, g, ts, GM_SST_GPU_ERROR, NULL, NULL);
        }
        if (gpu->state != GM_GPU_OK)
            usage_groups(g, s, NULL); /* nobody is known to hold it after this sample */
    }
    if (rc == SQLITE_OK && st->o.procs)
        rc = write_procs(st, s, ts, gmap);
    if (gmap != stack_map)
        free(gmap);
    return rc;
}

/* The GPU-samples a snapshot makes. */
static uint64_t snapshot_rows(const struct gm_store *st, const struct gm_snapshot *s)
{
    if (s->ngpu > 0 || s->driver == GM_DRV_OK)
        return s->ngpu;
    uint64_t n = 0;
    for (size_t i = 0; i < st->ng; i++)
        n += (uint64_t)st->g[i]->in_last;
    return n;
}

/* Inserts an event (and its alerts row) into the open batch. */
static int insert_event(struct gm_store *st, const struct gm_event *e)
{
    int64_t ts = e->wall_ns / NS_PER_MS;
    int rc = SQLITE_OK;
    struct gstate *g = NULL;
    if (e->uuid[0]) {
        g = gstate_by_uuid(st, e->uuid);
        if (!g)
            g = gstate_add(st, e->uuid, e->gpu >= 0 ? (uint32_t)e->gpu : 0);
    } else if (e->gpu >= 0) {
        g = gstate_by_index(st, (uint32_t)e->gpu);
    }
    if (g)
        rc = gstate_resolve(st, g, ts);
    if (rc == SQLITE_OK)
        rc = task_ensure(st, ts);
    int64_t task = st->task_id;
    if (rc == SQLITE_OK && e->task[0] && strcmp(e->task, st->task) != 0)
        rc = task_resolve(st, e->task, ts, &task);
    if (rc == SQLITE_OK) {
        sqlite3_stmt *q = st->st_event;
        sqlite3_bind_int64(q, 1, ts);
        sqlite3_bind_text(q, 2, gm_event_type_name((enum gm_event_type)e->type), -1, SQLITE_STATIC);
        bind_opt(q, 3, g != NULL, g ? g->id : 0);
        sqlite3_bind_int64(q, 4, task);
        sqlite3_bind_int64(q, 5, e->code);
        bind_utf8(q, 6, e->text, strnlen(e->text, sizeof(e->text)));
        rc = step_done(q);
    }
    if (rc == SQLITE_OK && e->type == GM_EV_ALERT) {
        sqlite3_stmt *q = st->st_alert;
        sqlite3_bind_int64(q, 1, ts);
        bind_utf8(q, 2, e->rule, strnlen(e->rule, sizeof(e->rule)));
        sqlite3_bind_text(q, 3, gm_alert_severity_name(e->severity), -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, gm_alert_state_name(e->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 5, e->repeat);
        bind_opt(q, 6, g != NULL, g ? g->id : 0);
        bind_utf8(q, 7, e->value, strnlen(e->value, sizeof(e->value)));
        size_t off = e->summary_off < sizeof(e->text) ? e->summary_off : 0;
        bind_utf8(q, 8, e->text + off, strnlen(e->text + off, sizeof(e->text) - off));
        sqlite3_bind_text(q, 9, e->fingerprint,
                          (int)strnlen(e->fingerprint, sizeof(e->fingerprint)), SQLITE_TRANSIENT);
        bind_opt(q, 10, e->active_ns != 0, e->active_ns / NS_PER_MS);
        bind_opt(q, 11, e->fired_ns != 0, e->fired_ns / NS_PER_MS);
        rc = step_done(q);
    }
    if (rc == SQLITE_OK)
        st->batch_events++;
    return rc;
}

/* Begins a batch if none is open and writes into it the kept events that
 * are not in it yet (those of a rolled-back batch). */
static int batch_open(struct gm_store *st)
{
    int rc = batch_begin(st);
    while (rc == SQLITE_OK && st->pend_in_batch < st->npend) {
        rc = insert_event(st, &st->pend[st->pend_in_batch]);
        if (rc == SQLITE_OK)
            st->pend_in_batch++;
    }
    return rc;
}

int gm_store_write(struct gm_store *st, const struct gm_snapshot *s)
{
    int64_t ts = s->wall_ns / NS_PER_MS;
    uint64_t batch_before = st->batch_samples;
    uint64_t rows = snapshot_rows(st, s);
    int rc = batch_open(st);
    if (rc == SQLITE_OK)
        rc = task_ensure(st, ts);
    if (rc == SQLITE_OK)
        rc = write_snapshot(st, s, ts);
    if (rc != SQLITE_OK) {
        /* rows of this snapshot not yet counted in the batch are lost too */
        uint64_t counted = st->batch_samples - batch_before;
        stat_add(&st->stats.lost, rows > counted ? rows - counted : 0);
        int code = fail(st, rc, "write");
        batch_discard(st);
        return code;
    }
    return commit_if_due(st);
}

int gm_store_event(struct gm_store *st, const struct gm_event *e)
{
    int kept = st->npend < PEND_MAX;
    if (kept) {
        if (!st->pend)
            st->pend = gm_xmalloc(PEND_MAX * sizeof(*st->pend));
        st->pend[st->npend++] = *e; /* batch_open writes it */
    }
    int rc = batch_open(st);
    if (rc == SQLITE_OK && !kept) {
        st->batch_unkept++; /* lost if this batch is rolled back */
        rc = insert_event(st, e);
    }
    if (rc != SQLITE_OK) {
        int code = fail(st, rc, "event");
        batch_discard(st);
        return code;
    }
    return commit_if_due(st);
}

int gm_store_flush(struct gm_store *st)
{
    return batch_commit(st);
}

void gm_store_reconfigure(struct gm_store *st, const struct gm_store_opts *o)
{
    batch_commit(st); /* a failure is counted and logged there */
    const char *task = o->task && o->task[0] ? o->task : "default";
    if (strcmp(task, st->task) != 0) {
        free(st->task);
        st->task = gm_xstrdup(task);
        st->task_id = 0;
        st->task_in_batch = 0;
    }
    st->o.task = st->task;
    if (o->retention_raw_ns != st->o.retention_raw_ns ||
        o->retention_1m_ns != st->o.retention_1m_ns || o->retention_1h_ns != st->o.retention_1h_ns)
        st->next_retention_ns = 0; /* apply the new retention soon */
    st->o.retention_raw_ns = o->retention_raw_ns;
    st->o.retention_1m_ns = o->retention_1m_ns;
    st->o.retention_1h_ns = o->retention_1h_ns;
    st->o.interval_ns = o->interval_ns;
    st->o.procs = o->procs;
    st->o.gpm = o->gpm;
}

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
    commit_if_due(st);
    if (st->retention_more || now_wall_ns >= st->next_retention_ns ||
        now_wall_ns < st->next_retention_ns - 2 * RETENTION_EVERY_NS) {
        if (batch_commit(st) == 0)
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
    if (exec_sql(st->db,
                 "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 67108864;"
                 " PRAGMA foreign_keys = OFF",
                 err, st->path) != SQLITE_OK ||
        schema_ensure(st, err) != 0 || prepare_all(st, err) != 0) {
        return open_failed(st, err);
    }
    if (exec_sql(st->db, "BEGIN IMMEDIATE", err, st->path) != SQLITE_OK) {
        return open_failed(st, err);
    }
    rc = task_resolve(st, st->task, gm_wall_ns() / NS_PER_MS, &st->task_id);
    if (rc != SQLITE_OK) {
        gm_err_set(err, sql_code(rc), "store %s: %s", st->path, sqlite3_errmsg(st->db));
        exec_sql(st->db, "ROLLBACK", NULL, st->path);
        return open_failed(st, err);
    }
    if (exec_sql(st->db, "COMMIT", err, st->path) != SQLITE_OK) {
        return open_failed(st, err);
    }
    load_last_gpus(st);
    return st;
}

void gm_store_close(struct gm_store *st)
{
    if (!st)
        return;
    if (st->npend > st->pend_in_batch)
        batch_open(st); /* kept events of a rolled-back batch: one more try */
    batch_commit(st);
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

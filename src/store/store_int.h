/* store_int.h -- what the SQLite store's files share (private to
 * src/store/; store.h is the contract): the writer's constants, the
 * per-GPU state and the handle (struct gm_store), the rollups' in-memory
 * accumulators, the small helpers (logging a failure once, stepping and
 * binding statements), and the functions one file defines for another,
 * named gm_st_*.  store.c opens, closes and retains; store_sql.c holds the
 * schema and the statements; store_write.c the transaction and the rows;
 * store_rollup.c the rollups.
 */
#ifndef GM_STORE_STORE_INT_H
#define GM_STORE_STORE_INT_H

#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/log.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "store.h"
#include "store_schema.h"
#include "../core/usage_acct.h"

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
#define PEND_MAX 1024                         /* events kept until their batch commits */

/* The writer's page cache, KiB (PRAGMA cache_size = -N): it appends at the
 * tables' ends and reads little, so SQLite's default 2 MiB would only keep
 * resident in the agent pages the OS caches anyway (docs/store.md). */
#define WRITER_CACHE_KIB 512

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
static inline uint64_t thr_bits(int k)
{
#define THR_BITS(stem, bits, name) bits,
    const uint64_t bits[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_BITS)};
#undef THR_BITS
    return bits[k];
}
#define THR_STEM(stem, bits, name) #stem,
static const char *const thr_stem[GM_THR__COUNT] = {GM_STORE_THROTTLE(THR_STEM)};
#undef THR_STEM

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
    struct gm_uacct_gaps gaps; /* recent intervals, ms */
    /* the process groups (job, user, process) of the previous sample: the
     * usage_1h accounting gives them the interval that follows it */
    struct gm_uacct_group ug[GM_UACCT_GROUPS];
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

static inline void stat_add(uint64_t *p, uint64_t n)
{
    __atomic_add_fetch(p, n, __ATOMIC_RELAXED);
}

#define slog(st, level, ...) gm_logf((st)->o.log, (st)->o.log_arg, (level), __VA_ARGS__)

/* SQLite result code -> GM_E_*. */
static inline int sql_code(int rc)
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
static inline int fail_msg(struct gm_store *st, int rc, const char *what, const char *why)
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

static inline int fail(struct gm_store *st, int rc, const char *what)
{
    return fail_msg(st, rc, what, sqlite3_errmsg(st->db));
}

static inline void succeed(struct gm_store *st, size_t kept)
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
static inline int step_done(sqlite3_stmt *q)
{
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static inline void bind_opt(sqlite3_stmt *q, int i, int ok, int64_t v)
{
    if (ok)
        sqlite3_bind_int64(q, i, v);
    else
        sqlite3_bind_null(q, i);
}

/* Binds s[0..n) (text from outside) as valid UTF-8: each invalid byte
 * becomes U+FFFD; controls are kept. */
static inline void bind_utf8(sqlite3_stmt *q, int i, const char *s, size_t n)
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

static inline void bind_text_or_null(sqlite3_stmt *q, int i, const char *s)
{
    if (s && *s)
        bind_utf8(q, i, s, strlen(s));
    else
        sqlite3_bind_null(q, i);
}

static inline int64_t floor_to(int64_t t, int64_t p)
{
    int64_t r = t % p;
    return r < 0 ? t - r - p : t - r;
}

/* One sample's own values, into its minute and hour. */
struct rsample {
    int down;
    int ok[RM__COUNT];
    int64_t v[RM__COUNT];
};

/* The sample at ts closes the interval that began at the GPU's previous
 * sample; then ts becomes the previous sample. */
struct rnow {
    int reasons_ok, energy_ok, power_ok, util_ok;
    uint64_t reasons;
    int64_t energy_mj, power_cw, util;
};

/* ------------------------------------------- functions shared between files */

/* store_sql.c */
/* Runs sql (no rows); a failure is reported into err with the path. */
int gm_st_exec_sql(sqlite3 *db, const char *sql, struct gm_err *err, const char *path);
/* The metrics the samples table keeps, in column order; returns how many. */
int gm_st_samples_metrics(int ids[GM_M__GPU_END]);
/* The metrics of the opt-in gpm table, in id order; returns how many. */
int gm_st_gpm_metrics(int ids[GM_M__GPU_END]);
/* Creates the schema in an empty database, or checks (and migrates) an
 * existing one. */
int gm_st_schema_ensure(struct gm_store *st, struct gm_err *err);
/* Prepares every statement the writer uses. */
int gm_st_prepare_all(struct gm_store *st, struct gm_err *err);

/* store_rollup.c */
/* Adds GPU g's sample at ts (its values r) to the rollup deltas. */
void gm_st_roll_sample(struct gm_store *st, const struct gstate *g, int64_t ts,
                       const struct rsample *r);
/* Credits the interval since g's previous sample (what c says was true
 * then) to the rollups and usage, and makes ts g's previous sample. */
void gm_st_roll_advance(struct gm_store *st, struct gstate *g, int64_t ts, const struct rnow *c);

/* store_write.c */
/* The id of task name (made at ts if new) into *id. */
int gm_st_task_resolve(struct gm_store *st, const char *name, int64_t ts, int64_t *id);
/* The GPUs of the newest snapshot written before this session. */
void gm_st_load_last_gpus(struct gm_store *st);
/* Commits the open batch (rollups and GPU rows first); on failure rolls it
 * back and counts its samples as lost. */
int gm_st_batch_commit(struct gm_store *st);
/* Commits the open batch when its interval or size says so. */
int gm_st_commit_if_due(struct gm_store *st);
/* Begins a batch if none is open, with the kept events not in it yet. */
int gm_st_batch_open(struct gm_store *st);

#endif /* GM_STORE_STORE_INT_H */

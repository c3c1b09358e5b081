/* test_store.c -- unit tests for the SQLite store (src/store/store.c) and
 * its report (src/store/report.c).
 *
 * Every test works in a fresh temporary directory and checks the database
 * with plain SQL on a connection of its own: the schema and its version
 * (and refusing a foreign or newer database), the migrations (schema 2, and
 * the samples columns of metrics stored since a store was made); rows
 * round-trip with their
 * scaling, NULL for what a GPU could not say and a status for a lost GPU,
 * a value error and a driver that went away; processes and events; the
 * rollups of 3 GPUs x 180 samples crossing minute and hour boundaries,
 * against a reference model and hand-counted figures (counts, sums, min/max,
 * seconds throttled per reason, energy from the counter, across a counter
 * reset and from power x time); an interval split across a period boundary
 * and a gap capped at twice the interval; a reader that opens mid-batch sees
 * only committed batches, and an open reader does not block the writer; a
 * writer locked out, or whose files hit a size limit (EFBIG, like a full
 * disk), loses and counts its batch whole, logs once and recovers, with the
 * rollups still agreeing with the raw rows, and writes the batch's events
 * and alerts with the next batch (beyond 1024 kept, and at a close while
 * still full, they are counted and logged); retention per
 * tier in chunks, at most every 5 minutes; the report in each form compared
 * exactly (TZ=UTC), the --task and --gpu filters, local days in a +05:30
 * zone, the missing-database and unknown-task errors; and the bytes per
 * GPU-sample after 100k GPU-samples (printed, asserted <= 64).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <ftw.h>
#include <signal.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/event.h"
#include "alert/alert.h"
#include "core/buf.h"
#include "core/cause.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "core/timeutil.h"
#include "store/store.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
#define S_MS INT64_C(1000)
#define MS_NS INT64_C(1000000)
#define S_NS INT64_C(1000000000)
/* 2026-07-14T00:00:00Z */
#define DAY0 INT64_C(1783987200)
/* 2026-07-14T10:58:30Z, in ms */
#define T0_MS ((DAY0 + 10 * 3600 + 58 * 60 + 30) * S_MS)
#define H10_MS ((DAY0 + 10 * 3600) * S_MS)
#define H11_MS ((DAY0 + 11 * 3600) * S_MS)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static char g_dir[256];
static char g_db[300];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup_dir(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof(g_dir), "%s/gm_store_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir))
        return -1;
    snprintf(g_db, sizeof(g_db), "%s/data/gpumon.db", g_dir);
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static struct gm_store_opts opts(const char *task)
{
    struct gm_store_opts o = {
        .path = g_db,
        .task = task,
        .commit_interval_ns = 3600 * S_NS, /* the tests flush themselves */
    };
    return o;
}

static struct gm_store *open_store(const struct gm_store_opts *o)
{
    struct gm_err err = {0};
    struct gm_store *st = gm_store_open(o, &err);
    if (!st)
        fail_msg("gm_store_open: %s", err.msg);
    return st;
}

static void uuid_of(char *buf, size_t len, int g)
{
    snprintf(buf, len, "GPU-%08x-1111-2222-3333-44445555666%d", 0xabc0 + g, g);
}

/* A snapshot at ts_ms with n healthy GPUs (every value NA until set). */
static struct gm_snapshot *snap(int64_t ts_ms, uint32_t n)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->wall_ns = ts_ms * MS_NS;
    s->mono_ns = ts_ms * MS_NS;
    gm_snapshot_set_gpus(s, n);
    for (uint32_t i = 0; i < n; i++) {
        struct gm_gpu *g = &s->gpus[i];
        uuid_of(g->str[GM_S_UUID], sizeof(g->str[GM_S_UUID]), (int)i);
        g->m[GM_M_UUID] = gm_v_u64(0);
        snprintf(g->str[GM_S_NAME], sizeof(g->str[GM_S_NAME]), "NVIDIA H100 80GB HBM3");
        g->m[GM_M_NAME] = gm_v_u64(0);
        g->m[GM_M_MEM_TOTAL] = gm_v_u64(81559 * MIB);
    }
    return s;
}

static void write_free(struct gm_store *st, struct gm_snapshot *s)
{
    assert_int_equal(gm_store_write(st, s), 0);
    gm_snapshot_free(s);
}

static sqlite3 *reader(void)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(g_db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

/* The first column of the first row of a printf-built query; the cell's
 * type in *type (SQLITE_NULL when there is no row). */
static sqlite3_stmt *q_row(sqlite3 *db, const char *fmt, va_list ap)
{
    char sql[2048];
    vsnprintf(sql, sizeof(sql), fmt, ap);
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        fail_msg("SQL %s: %s", sql, sqlite3_errmsg(db));
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_msg("SQL %s: %s", sql, sqlite3_errmsg(db));
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(q);
        return NULL;
    }
    return q;
}

static int64_t q_int(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *q = q_row(db, fmt, ap);
    va_end(ap);
    if (!q)
        fail_msg("no row");
    if (sqlite3_column_type(q, 0) == SQLITE_NULL)
        fail_msg("NULL where a number was expected");
    int64_t v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

static double q_dbl(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static double q_dbl(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *q = q_row(db, fmt, ap);
    va_end(ap);
    if (!q)
        fail_msg("no row");
    if (sqlite3_column_type(q, 0) == SQLITE_NULL)
        fail_msg("NULL where a number was expected");
    double v = sqlite3_column_double(q, 0);
    sqlite3_finalize(q);
    return v;
}

static int q_null(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int q_null(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *q = q_row(db, fmt, ap);
    va_end(ap);
    if (!q)
        fail_msg("no row");
    int isnull = sqlite3_column_type(q, 0) == SQLITE_NULL;
    sqlite3_finalize(q);
    return isnull;
}

/* Text result, copied to buf ("" for NULL or no row). */
static const char *q_text(sqlite3 *db, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static const char *q_text(sqlite3 *db, char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *q = q_row(db, fmt, ap);
    va_end(ap);
    buf[0] = '\0';
    if (q) {
        const unsigned char *t = sqlite3_column_text(q, 0);
        snprintf(buf, len, "%s", t ? (const char *)t : "");
        sqlite3_finalize(q);
    }
    return buf;
}

static void set_tz(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

/* ------------------------------------------------------------------------ */
/* Schema                                                                    */

static void test_schema(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o); /* also creates data/ */
    gm_store_close(st);

    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "PRAGMA user_version"), 3);
    char buf[256];
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT value FROM meta WHERE key = "
                               "'schema_version'"),
                        "3");
    assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA journal_mode"), "wal");
    static const char *const tables[] = {"meta",  "codes",  "gpus",      "tasks",     "samples",
                                         "procs", "events", "rollup_1m", "rollup_1h", "alerts"};
    for (size_t i = 0; i < N_ELEM(tables); i++)
        assert_int_equal(
            q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = '%s'", tables[i]), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'samples_v'"), 1);
    assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT name FROM tasks"), "train");
    assert_string_equal(
        q_text(db, buf, sizeof(buf), "SELECT name FROM codes WHERE kind = 'status' AND code = 12"),
        "driver_not_loaded");
    /* samples: WITHOUT ROWID, keyed (ts, gpu, dup); procs (ts, gpu, pid, dup);
     * the rollups (ts, gpu, task) */
    assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_index_list('samples')"
                               " WHERE origin = 'pk'"),
                     1);
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(name) FROM pragma_index_info("
                               "(SELECT name FROM pragma_index_list('samples')"
                               " WHERE origin = 'pk'))"),
                        "ts,gpu,dup");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(name) FROM pragma_index_info("
                               "(SELECT name FROM pragma_index_list('procs')"
                               " WHERE origin = 'pk'))"),
                        "ts,gpu,pid,dup");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(name) FROM pragma_index_info("
                               "(SELECT name FROM pragma_index_list('rollup_1h')"
                               " WHERE origin = 'pk'))"),
                        "ts,gpu,task");
    sqlite3_close(db);

    /* reopening keeps everything; a second task is added */
    o.task = "eval";
    st = open_store(&o);
    gm_store_close(st);
    db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM tasks"), 2);
    sqlite3_close(db);

    /* a newer schema is refused */
    sqlite3 *w = NULL;
    assert_int_equal(sqlite3_open(g_db, &w), SQLITE_OK);
    assert_int_equal(sqlite3_exec(w, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(w);
    struct gm_err err = {0};
    assert_null(gm_store_open(&o, &err));
    assert_int_equal(err.code, GM_E_INVAL);
    assert_non_null(strstr(err.msg, "newer"));

    /* a database that is not ours is refused, not written into */
    char other[400];
    snprintf(other, sizeof(other), "%s/other.db", g_dir);
    assert_int_equal(sqlite3_open(other, &w), SQLITE_OK);
    assert_int_equal(sqlite3_exec(w, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(w);
    o.path = other;
    memset(&err, 0, sizeof(err));
    assert_null(gm_store_open(&o, &err));
    assert_int_equal(err.code, GM_E_INVAL);
    assert_non_null(strstr(err.msg, "not a gpumon store"));

    o.path = NULL;
    assert_null(gm_store_open(&o, &err));
    assert_int_equal(err.code, GM_E_INVAL);
    gm_store_close(NULL);
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                      */

static void fill_gpu0(struct gm_gpu *g)
{
    g->m[GM_M_UTIL_GPU] = gm_v_u64(57);
    g->m[GM_M_UTIL_MEM] = gm_v_u64(23);
    g->m[GM_M_MEM_USED] = gm_v_u64(5213 * MIB + 12345); /* floor to MiB */
    g->m[GM_M_POWER_DRAW] = gm_v_f64(281.374);          /* 28137 cW */
    g->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(61);
    g->m[GM_M_CLK_SM] = gm_v_u64(1980);
    g->m[GM_M_CLK_MEM] = gm_v_u64(2619);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x4 | 0x40);
    g->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, 3); /* H100: no fan */
    g->m[GM_M_ENERGY] = gm_v_f64(123456.789);           /* J -> 123456789 mJ */
}

static void test_rows_roundtrip(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    o.procs = 1;
    struct gm_store *st = open_store(&o);
    int64_t t = T0_MS;

    /* 1: GPU 0 healthy with two processes, GPU 1 lost */
    struct gm_snapshot *s = snap(t, 2);
    fill_gpu0(&s->gpus[0]);
    s->gpus[1].state = GM_GPU_LOST;
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (id != GM_M_UUID && id != GM_M_NAME && id != GM_M_MEM_TOTAL)
            s->gpus[1].m[id] = gm_v_status(GM_VS_LOST, 15);
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = 0;
    p.pid = 4242;
    p.type = GM_PT_COMPUTE;
    p.host_state = GM_HS_ALIVE;
    p.used_memory = gm_v_u64(5000 * MIB);
    snprintf(p.name, sizeof(p.name), "python3");
    snprintf(p.user, sizeof(p.user), "alice");
    gm_snapshot_add_proc_take(s, &p);
    p.pid = 777;
    p.host_state = GM_HS_GONE;
    p.used_memory = gm_v_status(GM_VS_NA, 0);
    p.name[0] = '\0';
    snprintf(p.comm, sizeof(p.comm), "ghost");
    p.user[0] = '\0';
    gm_snapshot_add_proc_take(s, &p);
    write_free(st, s);

    /* 2: the driver went away: a status row for each GPU seen last */
    s = snap(t + 1000, 0);
    s->driver = GM_DRV_NOT_LOADED;
    write_free(st, s);

    /* 3: GPU 0 back, but one value failed to read; GPU 1 still lost */
    s = snap(t + 2000, 2);
    fill_gpu0(&s->gpus[0]);
    s->gpus[0].m[GM_M_TEMP_GPU] = gm_v_status(GM_VS_ERROR, 999);
    s->gpus[1].state = GM_GPU_LOST;
    write_free(st, s);

    /* 4: a GPU without a readable UUID keeps the UUID last seen at its index */
    s = snap(t + 3000, 1);
    s->gpus[0].str[GM_S_UUID][0] = '\0';
    s->gpus[0].m[GM_M_UUID] = gm_v_status(GM_VS_ERROR, 999);
    s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(5);
    write_free(st, s);
    assert_int_equal(gm_store_flush(st), 0);

    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.samples, 7);
    assert_int_equal(ss.proc_rows, 2);
    assert_int_equal(ss.lost, 0);
    assert_int_equal(ss.commits, 1);
    gm_store_close(st);

    sqlite3 *db = reader();
    char buf[512];
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 7);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gpus"), 2);
    int64_t g0 = q_int(db, "SELECT id FROM gpus WHERE gpu_index = 0");
    int64_t g1 = q_int(db, "SELECT id FROM gpus WHERE gpu_index = 1");
    assert_string_equal(
        q_text(db, buf, sizeof(buf), "SELECT uuid FROM gpus WHERE id = %" PRId64, g0),
        "GPU-0000abc0-1111-2222-3333-444455556660");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT name || '|' || mem_total_mib || '|' || first_seen || '|' ||"
                               " last_seen FROM gpus WHERE id = %" PRId64,
                               g0),
                        "NVIDIA H100 80GB HBM3|81559|1784026710000|1784026713000");
    assert_int_equal(q_int(db, "SELECT last_seen FROM gpus WHERE id = %" PRId64, g1), T0_MS + 2000);

    /* the healthy row: every column in its scale; the fan NULL */
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT quote(task) || ',' || status || ',' || util_gpu_pct || ',' ||"
               " util_mem_pct || ',' || mem_used_mib || ',' || power_cw || ',' ||"
               " power_limit_cw || ',' || temp_c || ',' || clk_sm_mhz || ',' || clk_mem_mhz"
               " || ',' || reasons || ',' || quote(fan_pct) || ',' || energy_mj FROM samples"
               " WHERE ts = %" PRId64 " AND gpu = %" PRId64,
               T0_MS, g0),
        "1,0,57,23,5213,28137,70000,61,1980,2619,68,NULL,123456789");
    /* the lost GPU: status 1, every value NULL, not 0 */
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT status || ',' || quote(util_gpu_pct) || quote(mem_used_mib) ||"
               " quote(power_cw) || quote(temp_c) || quote(reasons) || quote(energy_mj)"
               " FROM samples WHERE ts = %" PRId64 " AND gpu = %" PRId64,
               T0_MS, g1),
        "1,NULLNULLNULLNULLNULLNULL");
    /* driver down: both GPUs, status 12 (10 + driver_not_loaded), NULLs */
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(status || ':' || quote(util_gpu_pct)) FROM"
                               " (SELECT * FROM samples WHERE ts = %" PRId64 " ORDER BY gpu)",
                               T0_MS + 1000),
                        "12:NULL,12:NULL");
    /* a failed read: status 4, that value NULL, the others there */
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT status || ',' || quote(temp_c) || ',' || util_gpu_pct FROM"
                               " samples WHERE ts = %" PRId64 " AND gpu = %" PRId64,
                               T0_MS + 2000, g0),
                        "4,NULL,57");
    assert_int_equal(q_int(db,
                           "SELECT status FROM samples WHERE ts = %" PRId64 " AND gpu = %" PRId64,
                           T0_MS + 2000, g1),
                     1);
    assert_int_equal(
        q_int(db, "SELECT util_gpu_pct FROM samples WHERE ts = %" PRId64 " AND gpu = %" PRId64,
              T0_MS + 3000, g0),
        5);
    /* the view spells it out */
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT time || ' ' || gpu || ' ' || task || ' ' || status || ' ' || power_w ||"
               " ' ' || reasons || ' ' || quote(fan_pct) FROM samples_v WHERE ts = %" PRId64
               " AND gpu = 0",
               T0_MS),
        "2026-07-14T10:58:30.000Z 0 train ok 281.37 0x44 NULL");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT status || ' ' || quote(reasons) FROM samples_v WHERE ts = "
                               "%" PRId64 " AND gpu = 1",
                               T0_MS + 1000),
                        "driver_not_loaded NULL");
    /* processes: name falls back to comm, NULL memory and user */
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT group_concat(pid || ',' || type || ',' || name || ',' || quote(user) ||"
               " ',' || quote(mem_used_mib) || ',' || host_state, ';') FROM (SELECT * FROM"
               " procs WHERE gpu = %" PRId64 " ORDER BY pid)",
               g0),
        "777,1,ghost,NULL,NULL,3;4242,1,python3,'alice',5000,1");
    /* rollups: down samples are counted as such */
    assert_int_equal(q_int(db, "SELECT n FROM rollup_1m WHERE gpu = %" PRId64, g1), 3);
    assert_int_equal(q_int(db, "SELECT n_down FROM rollup_1m WHERE gpu = %" PRId64, g1), 3);
    assert_int_equal(q_int(db, "SELECT util_n FROM rollup_1m WHERE gpu = %" PRId64, g1), 0);
    assert_true(q_null(db, "SELECT util_max FROM rollup_1m WHERE gpu = %" PRId64, g1));
    assert_int_equal(q_int(db, "SELECT n_down FROM rollup_1m WHERE gpu = %" PRId64, g0), 1);
    sqlite3_close(db);

    /* a new session that starts with the driver down still writes status rows */
    st = open_store(&o);
    s = snap(t + 10000, 0);
    s->driver = GM_DRV_NOLIB;
    write_free(st, s);
    gm_store_close(st);
    db = reader();
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(status) FROM samples WHERE ts = %" PRId64,
                               T0_MS + 10000),
                        "11");
    sqlite3_close(db);
}

static void test_events(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 2));
    struct gm_event e = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (T0_MS + 500) * MS_NS};
    snprintf(e.text, sizeof(e.text), "epoch 3 start");
    assert_int_equal(gm_store_event(st, &e), 0);
    struct gm_event x = {.type = GM_EV_XID, .gpu = 1, .wall_ns = (T0_MS + 600) * MS_NS, .code = 79};
    snprintf(x.text, sizeof(x.text), "GPU has fallen off the bus");
    assert_int_equal(gm_store_event(st, &x), 0);
    struct gm_event m = {.type = GM_EV_MARK, .gpu = 0, .wall_ns = (T0_MS + 700) * MS_NS};
    uuid_of(m.uuid, sizeof(m.uuid), 0);
    snprintf(m.task, sizeof(m.task), "other");
    snprintf(m.text, sizeof(m.text), "checkpoint");
    assert_int_equal(gm_store_event(st, &m), 0);
    gm_store_close(st);

    sqlite3 *db = reader();
    char buf[512];
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT group_concat((e.ts - %" PRId64 ") || ' ' || e.type || ' ' ||"
               " coalesce(g.gpu_index, '-') || ' ' || t.name || ' ' || e.code || ' ' || e.text,"
               " '|') FROM (SELECT * FROM events ORDER BY ts) e LEFT JOIN gpus g ON g.id ="
               " e.gpu JOIN tasks t ON t.id = e.task",
               T0_MS),
        "500 mark - train 0 epoch 3 start|600 xid 1 train 79 GPU has fallen off the bus|"
        "700 mark 0 other 0 checkpoint");
    sqlite3_close(db);
}

/* ------------------------------------------------------------------------ */
/* Rollups                                                                   */

#define NG 3
#define NS 180

static int64_t gen_util(int g, int i)
{
    return (i * 7 + g * 13) % 101;
}
static int64_t gen_mem(int g, int i)
{
    return 1000 + i + g * 100;
}
static int64_t gen_power_cw(int g, int i)
{
    return (100 + g * 10 + i % 10) * 100;
}
static int64_t gen_temp(int g, int i)
{
    return 40 + i % 30 + g;
}
static int64_t gen_sm(int g, int i)
{
    return 1000 + 5 * i + g;
}
/* clock event reasons: -1 = not supported */
static int64_t gen_reasons(int g, int i)
{
    if (g == 0)
        return i >= 60 && i < 90 ? 0x20 : i >= 100 && i < 130 ? 0x4 : 0;
    if (g == 1)
        return i % 2 == 0 ? 0x44 : 0x1;
    return -1;
}
/* energy counter, mJ: GPU 0 follows power exactly, GPU 1 reads 0.5 J/s more
 * and is reset (driver reload) at sample 120, GPU 2 has none (-1) */
static int64_t gen_energy(int g, int i)
{
    int64_t e = g == 0 ? 1000000 : 50000000;
    if (g == 2)
        return -1;
    int from = 0;
    if (g == 1 && i >= 120) {
        e = 5000;
        from = 120;
    }
    for (int k = from; k < i; k++)
        e += gen_power_cw(g, k) * 10 + (g == 1 ? 500 : 0);
    return e;
}

static struct gm_snapshot *gen_snap(int i)
{
    struct gm_snapshot *s = snap(T0_MS + i * S_MS, NG);
    for (int g = 0; g < NG; g++) {
        struct gm_gpu *x = &s->gpus[g];
        x->m[GM_M_UTIL_GPU] = gm_v_u64((uint64_t)gen_util(g, i));
        x->m[GM_M_MEM_USED] = gm_v_u64((uint64_t)gen_mem(g, i) * MIB);
        x->m[GM_M_POWER_DRAW] = gm_v_f64((double)gen_power_cw(g, i) / 100.0);
        x->m[GM_M_TEMP_GPU] = gm_v_u64((uint64_t)gen_temp(g, i));
        x->m[GM_M_CLK_SM] = gm_v_u64((uint64_t)gen_sm(g, i));
        int64_t r = gen_reasons(g, i);
        x->m[GM_M_CER_ACTIVE] = r < 0 ? gm_v_status(GM_VS_UNSUPPORTED, 3) : gm_v_u64((uint64_t)r);
        int64_t e = gen_energy(g, i);
        x->m[GM_M_ENERGY] =
            e < 0 ? gm_v_status(GM_VS_UNSUPPORTED, 3) : gm_v_f64((double)e / 1000.0);
    }
    return s;
}

/* The reference model: what one period of one GPU must hold. */
struct expect {
    int64_t n, usum, umin, umax, msum, mmin, mmax, psum, pmin, pmax, tsum, tmin, tmax, ssum, smin,
        smax, dur, thr_thermal, thr_power;
    double energy;
    int src;
};

static void expect_period(int g, int64_t from_ms, int64_t to_ms, struct expect *x)
{
    memset(x, 0, sizeof(*x));
    x->umin = x->mmin = x->pmin = x->tmin = x->smin = INT64_MAX;
    x->umax = x->mmax = x->pmax = x->tmax = x->smax = INT64_MIN;
    for (int i = 0; i < NS; i++) {
        int64_t ts = T0_MS + i * S_MS;
        if (ts < from_ms || ts >= to_ms)
            continue;
        x->n++;
#define ACC(sum, mn, mx, v)                                                                        \
    do {                                                                                           \
        int64_t v_ = (v);                                                                          \
        x->sum += v_;                                                                              \
        if (v_ < x->mn)                                                                            \
            x->mn = v_;                                                                            \
        if (v_ > x->mx)                                                                            \
            x->mx = v_;                                                                            \
    } while (0)
        ACC(usum, umin, umax, gen_util(g, i));
        ACC(msum, mmin, mmax, gen_mem(g, i));
        ACC(psum, pmin, pmax, gen_power_cw(g, i));
        ACC(tsum, tmin, tmax, gen_temp(g, i));
        ACC(ssum, smin, smax, gen_sm(g, i));
#undef ACC
        if (i == NS - 1)
            continue; /* the last sample has no next: no duration */
        x->dur += 1000;
        int64_t r = gen_reasons(g, i);
        if (r > 0 && (r & 0x60))
            x->thr_thermal += 1000;
        if (r > 0 && (r & 0x4))
            x->thr_power += 1000;
        int64_t e0 = gen_energy(g, i), e1 = gen_energy(g, i + 1);
        if (e0 >= 0 && e1 >= e0) {
            x->energy += (double)(e1 - e0) / 1000.0;
            x->src |= 1;
        } else {
            x->energy += (double)gen_power_cw(g, i) / 100.0;
            x->src |= 2;
        }
    }
}

static void check_period(sqlite3 *db, const char *table, int g, int64_t start, int64_t len)
{
    struct expect x;
    expect_period(g, start, start + len, &x);
    int64_t gid = q_int(db, "SELECT id FROM gpus WHERE gpu_index = %d", g);
    char where[160];
    snprintf(where, sizeof(where), "FROM %s WHERE ts = %" PRId64 " AND gpu = %" PRId64, table,
             start, gid);
    char sql[512];
#define CHECK(col, v)                                                                              \
    do {                                                                                           \
        snprintf(sql, sizeof(sql), "SELECT %s %s", col, where);                                    \
        int64_t got = q_int(db, "%s", sql);                                                        \
        if (got != (int64_t)(v))                                                                   \
            fail_msg("GPU %d %s @%" PRId64 " %s: got %" PRId64 ", want %" PRId64, g, table, start, \
                     col, got, (int64_t)(v));                                                      \
    } while (0)
    CHECK("n", x.n);
    CHECK("n_down", 0);
    CHECK("util_n", x.n);
    CHECK("util_sum", x.usum);
    CHECK("util_min", x.umin);
    CHECK("util_max", x.umax);
    CHECK("mem_n", x.n);
    CHECK("mem_sum", x.msum);
    CHECK("mem_min", x.mmin);
    CHECK("mem_max", x.mmax);
    CHECK("power_sum", x.psum);
    CHECK("power_min", x.pmin);
    CHECK("power_max", x.pmax);
    CHECK("temp_sum", x.tsum);
    CHECK("temp_min", x.tmin);
    CHECK("temp_max", x.tmax);
    CHECK("sm_n", x.n);
    CHECK("sm_sum", x.ssum);
    CHECK("sm_min", x.smin);
    CHECK("sm_max", x.smax);
    CHECK("dur_ms", x.dur);
    CHECK("energy_src", x.src);
    if (g == 2) {
        /* reasons not supported: throttle time unknown, not 0 */
        snprintf(sql, sizeof(sql), "SELECT thr_thermal_ms %s", where);
        assert_true(q_null(db, "%s", sql));
        snprintf(sql, sizeof(sql), "SELECT thr_power_cap_ms %s", where);
        assert_true(q_null(db, "%s", sql));
    } else {
        CHECK("thr_thermal_ms", x.thr_thermal);
        CHECK("thr_power_cap_ms", x.thr_power);
        CHECK("thr_power_brake_ms", 0);
        CHECK("thr_hw_slowdown_ms", 0);
        CHECK("thr_sync_boost_ms", 0);
        CHECK("thr_app_clocks_ms", 0);
    }
#undef CHECK
    snprintf(sql, sizeof(sql), "SELECT energy_j %s", where);
    double e = q_dbl(db, "%s", sql);
    if (fabs(e - x.energy) > 1e-6)
        fail_msg("GPU %d %s @%" PRId64 " energy: got %.6f, want %.6f", g, table, start, e,
                 x.energy);
}

static void test_rollups(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    for (int i = 0; i < NS; i++) {
        write_free(st, gen_snap(i));
        if (i % 37 == 36) /* several batches: the upserts must add up */
            assert_int_equal(gm_store_flush(st), 0);
    }
    gm_store_close(st);

    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), NG * NS);
    /* 10:58:30 + 180 s: minutes 10:58 (30), 10:59 (60), 11:00 (60), 11:01 (30) */
    assert_int_equal(q_int(db, "SELECT count(*) FROM rollup_1m"), NG * 4);
    assert_int_equal(q_int(db, "SELECT count(*) FROM rollup_1h"), NG * 2);
    char buf[256];
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(n) FROM (SELECT n FROM rollup_1m WHERE gpu = 1"
                               " ORDER BY ts)"),
                        "30,60,60,30");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(n) FROM (SELECT n FROM rollup_1h WHERE gpu = 1"
                               " ORDER BY ts)"),
                        "90,90");
    /* hand-counted: GPU 0 is thermal-throttled for samples 60..89 (10:59:30-10:59:59)
     * and power-capped for 100..129 (11:00:10-11:00:39) */
    int64_t g0 = q_int(db, "SELECT id FROM gpus WHERE gpu_index = 0");
    int64_t m1059 = H10_MS + 59 * 60000, m1100 = H11_MS;
    assert_int_equal(
        q_int(db, "SELECT thr_thermal_ms FROM rollup_1m WHERE gpu = %" PRId64 " AND ts = %" PRId64,
              g0, m1059),
        30000);
    assert_int_equal(q_int(db,
                           "SELECT thr_power_cap_ms FROM rollup_1h WHERE gpu = %" PRId64
                           " AND ts = %" PRId64,
                           g0, H11_MS),
                     30000);
    assert_int_equal(
        q_int(db, "SELECT thr_thermal_ms FROM rollup_1h WHERE gpu = %" PRId64 " AND ts = %" PRId64,
              g0, H11_MS),
        0);
    /* the last sample (11:01:59) closes no interval: 29 s observed in 11:01 */
    assert_int_equal(q_int(db,
                           "SELECT dur_ms FROM rollup_1m WHERE gpu = %" PRId64 " AND ts = %" PRId64,
                           g0, H11_MS + 60000),
                     29000);
    /* GPU 1's counter reset at sample 120 (11:00:30): that interval by power x time */
    int64_t g1 = q_int(db, "SELECT id FROM gpus WHERE gpu_index = 1");
    assert_int_equal(
        q_int(db, "SELECT energy_src FROM rollup_1m WHERE gpu = %" PRId64 " AND ts = %" PRId64, g1,
              m1100),
        3);
    assert_int_equal(
        q_int(db, "SELECT energy_src FROM rollup_1m WHERE gpu = %" PRId64 " AND ts = %" PRId64, g1,
              m1059),
        1);
    /* GPU 0, 10:58: samples 0..29, power 100..109 W repeating: 3 x 1045 W x 1 s */
    assert_float_equal(
        q_dbl(db, "SELECT energy_j FROM rollup_1m WHERE gpu = %" PRId64 " AND ts = %" PRId64, g0,
              H10_MS + 58 * 60000),
        3135.0, 1e-9);
    for (int g = 0; g < NG; g++) {
        for (int m = 0; m < 4; m++)
            check_period(db, "rollup_1m", g, H10_MS + (58 + m) * 60000, 60000);
        check_period(db, "rollup_1h", g, H10_MS, 3600000);
        check_period(db, "rollup_1h", g, H11_MS, 3600000);
    }
    /* the averages the report uses */
    assert_float_equal(
        q_dbl(db,
              "SELECT sum(util_sum) * 1.0 / sum(util_n) FROM rollup_1h WHERE"
              " gpu = %" PRId64,
              g0),
        (double)q_int(db, "SELECT sum(util_gpu_pct) FROM samples WHERE gpu = %" PRId64, g0) / NS,
        1e-9);
    sqlite3_close(db);
}

/* An interval that crosses a minute and hour boundary is split; a gap is
 * capped at twice the usual interval. */
static void test_split_and_gap(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    /* 10:59:59, 11:00:01, 11:00:03 (2 s cadence), then 11:01:03 (a 60 s gap), 11:01:05 */
    const int64_t ts[] = {H11_MS - 1000, H11_MS + 1000, H11_MS + 3000, H11_MS + 63000,
                          H11_MS + 65000};
    const int64_t energy_mj[] = {0, 2000, 4000, 64000, 66000}; /* 1 W by the counter */
    for (size_t i = 0; i < N_ELEM(ts); i++) {
        struct gm_snapshot *s = snap(ts[i], 1);
        s->gpus[0].m[GM_M_CER_ACTIVE] = gm_v_u64(0x4);
        s->gpus[0].m[GM_M_ENERGY] = gm_v_f64((double)energy_mj[i] / 1000.0);
        s->gpus[0].m[GM_M_POWER_DRAW] = gm_v_f64(1.0);
        write_free(st, s);
    }
    gm_store_close(st);
    sqlite3 *db = reader();
    char buf[256];
    /* minute 10:59 gets 1 s of the first interval, 11:00 the other 1 s, the next
     * 2 s and 4 s of the gap (the 11:00:03 sample counts twice the usual 2 s, not
     * 60 s, and 60 J x 4/60 of the counter); 11:01 the last 2 s interval */
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(dur_ms || '/' || thr_power_cap_ms || '/' ||"
                               " energy_j, ' ') FROM (SELECT * FROM rollup_1m ORDER BY ts)"),
                        "1000/1000/1.0 7000/7000/7.0 2000/2000/2.0");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(dur_ms || '/' || thr_power_cap_ms || '/' ||"
                               " energy_j, ' ') FROM (SELECT * FROM rollup_1h ORDER BY ts)"),
                        "1000/1000/1.0 9000/9000/9.0");
    sqlite3_close(db);
}

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */

static void test_reader_mid_batch(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    for (int i = 0; i < 5; i++)
        write_free(st, snap(T0_MS + i * 1000, 4));
    assert_int_equal(gm_store_flush(st), 0);
    for (int i = 5; i < 8; i++)
        write_free(st, snap(T0_MS + i * 1000, 4));

    /* a reader opened now sees the committed batch only, rollups included */
    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 20);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1m"), 20);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1h"), 20);

    /* a reader inside a read transaction does not block the writer's commit,
     * and keeps its snapshot until it ends */
    assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 20);
    int64_t t0 = gm_mono_ns();
    assert_int_equal(gm_store_flush(st), 0);
    assert_true(gm_mono_ns() - t0 < 500 * MS_NS);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 20);
    assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 32);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1m"), 32);

    /* commit_interval: a batch older than the interval is committed on the
     * next write or tick */
    gm_store_close(st);
    o.commit_interval_ns = MS_NS;
    st = open_store(&o);
    write_free(st, snap(T0_MS + 100000, 4));
    usleep(3000);
    gm_store_tick(st, gm_wall_ns());
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 36);
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.commits, 1);
    assert_int_equal(ss.samples, 4);
    sqlite3_close(db);
    gm_store_close(st);
}

struct logbuf {
    int n;
    int levels[16];
    char msgs[16][256];
};

static void log_cb(void *arg, int level, const char *msg)
{
    struct logbuf *l = arg;
    if (l->n < 16) {
        l->levels[l->n] = level;
        snprintf(l->msgs[l->n], sizeof(l->msgs[l->n]), "%s", msg);
    }
    l->n++;
}

/* Another writer holds the lock past the busy timeout: the batch is lost and
 * counted, logged once, and the store writes again when the lock is gone. */
static void test_locked_out(void **state)
{
    (void)state;
    struct logbuf lb = {0};
    struct gm_store_opts o = opts("train");
    o.log = log_cb;
    o.log_arg = &lb;
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 2));
    assert_int_equal(gm_store_flush(st), 0);

    sqlite3 *w = NULL;
    assert_int_equal(sqlite3_open(g_db, &w), SQLITE_OK);
    assert_int_equal(sqlite3_exec(w, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    struct gm_snapshot *s = snap(T0_MS + 1000, 2);
    assert_int_equal(gm_store_write(st, s), GM_E_BUSY);
    gm_snapshot_free(s);
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.lost, 2);
    assert_int_equal(lb.n, 1);
    assert_int_equal(lb.levels[0], 3);
    assert_non_null(strstr(lb.msgs[0], "write failed"));
    assert_int_equal(sqlite3_exec(w, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(w);

    write_free(st, snap(T0_MS + 2000, 2));
    assert_int_equal(gm_store_flush(st), 0);
    assert_int_equal(lb.n, 2);
    assert_int_equal(lb.levels[1], 6);
    gm_store_stats(st, &ss);
    assert_int_equal(ss.samples, 4);
    assert_int_equal(ss.lost, 2);
    gm_store_close(st);

    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 4);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1h"), 4);
    assert_int_equal(q_int(db, "SELECT last_seen FROM gpus WHERE gpu_index = 1"), T0_MS + 2000);
    sqlite3_close(db);
}

/* One process on GPU 0 of s. */
static void add_proc(struct gm_snapshot *s, uint32_t pid)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = 0;
    p.pid = pid;
    p.type = GM_PT_COMPUTE;
    p.host_state = GM_HS_ALIVE;
    p.used_memory = gm_v_u64(100 * MIB);
    snprintf(p.name, sizeof(p.name), "python3");
    gm_snapshot_add_proc_take(s, &p);
}

/* The wall clock stepped back: samples (and processes) at a millisecond
 * already stored are kept beside the first rows, numbered by dup, counted
 * as repeated and not as lost, and the rollups count every sample. */
static void test_repeated_time(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    o.procs = 1;
    struct gm_store *st = open_store(&o);
    /* seconds 0, 1, 2, then the clock steps back 2 s: 0, 1, 2 again, then 0 a third time */
    static const int secs[] = {0, 1, 2, 0, 1, 2, 0};
    for (size_t i = 0; i < N_ELEM(secs); i++) {
        struct gm_snapshot *s = snap(T0_MS + secs[i] * S_MS, 2);
        s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(10 + i); /* which sample a row is */
        add_proc(s, 4242);
        write_free(st, s);
    }
    assert_int_equal(gm_store_flush(st), 0);
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.samples, 2 * N_ELEM(secs));
    assert_int_equal(ss.repeated, 2 * 4);
    assert_int_equal(ss.lost, 0);
    assert_int_equal(ss.proc_rows, N_ELEM(secs));
    gm_store_close(st);

    sqlite3 *db = reader();
    char buf[64];
    assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA integrity_check"), "ok");
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 2 * (int64_t)N_ELEM(secs));
    static const struct {
        int sec, dup, util;
    } want[] = {{0, 0, 10}, {0, 1, 13}, {0, 2, 16}, {1, 0, 11}, {1, 1, 14}, {2, 0, 12}, {2, 1, 15}};
    for (size_t i = 0; i < N_ELEM(want); i++)
        assert_int_equal(q_int(db,
                               "SELECT s.util_gpu_pct FROM samples s JOIN gpus g ON g.id = s.gpu"
                               " WHERE g.gpu_index = 0 AND s.ts = %" PRId64 " AND s.dup = %d",
                               T0_MS + want[i].sec * S_MS, want[i].dup),
                         want[i].util);
    assert_int_equal(q_int(db, "SELECT count(*) FROM procs"), (int64_t)N_ELEM(secs));
    assert_int_equal(q_int(db, "SELECT max(dup) FROM procs WHERE ts = %" PRId64, T0_MS), 2);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1m"), 2 * (int64_t)N_ELEM(secs));
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples_v"), 2 * (int64_t)N_ELEM(secs));
    sqlite3_close(db);
}

/* A schema 2 database (samples keyed (ts, gpu), procs (ts, gpu, pid)) is
 * migrated once at open: its rows are kept with dup 0, the keys and the
 * view are schema 3's, and a repeated time is then kept. */
static void test_migrate_v2(void **state)
{
    (void)state;
    char dir[300];
    snprintf(dir, sizeof(dir), "%s/data", g_dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    sqlite3 *w = NULL;
    assert_int_equal(sqlite3_open(g_db, &w), SQLITE_OK);
    static const char v2[] =
        "PRAGMA journal_mode = WAL;"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('schema_version', '2');"
        "CREATE TABLE gpus (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT,"
        " gpu_index INTEGER, mem_total_mib INTEGER, first_seen INTEGER NOT NULL,"
        " last_seen INTEGER NOT NULL);"
        "INSERT INTO gpus VALUES (1, 'GPU-old', 'NVIDIA A100', 0, 81920, 1000, 2000);"
        "CREATE TABLE tasks (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
        " first_seen INTEGER NOT NULL);"
        "INSERT INTO tasks VALUES (1, 'train', 1000);"
        "CREATE TABLE samples (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"
        " task INTEGER NOT NULL, status INTEGER NOT NULL, util_gpu_pct INTEGER,"
        " util_mem_pct INTEGER, mem_used_mib INTEGER, power_cw INTEGER, power_limit_cw INTEGER,"
        " temp_c INTEGER, clk_sm_mhz INTEGER, clk_mem_mhz INTEGER, reasons INTEGER,"
        " fan_pct INTEGER, energy_mj INTEGER, PRIMARY KEY (ts, gpu)) WITHOUT ROWID;"
        "INSERT INTO samples VALUES (1000, 1, 1, 0, 50, 20, 4000, 30000, 40000, 60, 1410, 1593,"
        " 0, NULL, 123456);"
        "INSERT INTO samples VALUES (2000, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
        " NULL, NULL, NULL, NULL);"
        "CREATE TABLE procs (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"
        " pid INTEGER NOT NULL, type INTEGER NOT NULL, name TEXT, user TEXT, mem_used_mib INTEGER,"
        " host_state INTEGER NOT NULL, PRIMARY KEY (ts, gpu, pid)) WITHOUT ROWID;"
        "INSERT INTO procs VALUES (1000, 1, 4242, 1, 'python3', 'alice', 3900, 1);"
        "CREATE VIEW samples_v AS SELECT s.ts AS ts FROM samples s;"
        "PRAGMA user_version = 2;";
    char *msg = NULL;
    if (sqlite3_exec(w, v2, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("v2 schema: %s", msg);
    sqlite3_close(w);

    struct logbuf lb = {0};
    struct gm_store_opts o = opts("train");
    o.procs = 1;
    o.log = log_cb;
    o.log_arg = &lb;
    struct gm_store *st = open_store(&o);
    assert_int_equal(lb.n, 1);
    assert_non_null(strstr(lb.msgs[0], "schema 2 to 3: copying 3 raw rows"));
    struct gm_snapshot *s = snap(1000, 1);
    snprintf(s->gpus[0].str[GM_S_UUID], sizeof(s->gpus[0].str[GM_S_UUID]), "GPU-old");
    add_proc(s, 4242);
    write_free(st, s); /* the time of the first old row again */
    gm_store_close(st);

    sqlite3 *db = reader();
    char buf[256];
    assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA integrity_check"), "ok");
    assert_int_equal(q_int(db, "PRAGMA user_version"), 3);
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(name) FROM pragma_index_info("
                               "(SELECT name FROM pragma_index_list('samples')"
                               " WHERE origin = 'pk'))"),
                        "ts,gpu,dup");
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%%_v2'"), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 3);
    assert_int_equal(q_int(db, "SELECT energy_mj FROM samples WHERE ts = 1000 AND dup = 0"),
                     123456);
    assert_int_equal(q_int(db, "SELECT status FROM samples WHERE ts = 2000 AND dup = 0"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples WHERE ts = 1000 AND dup = 1"), 1);
    assert_string_equal(
        q_text(db, buf, sizeof(buf), "SELECT user FROM procs WHERE ts = 1000 AND dup = 0"),
        "alice");
    assert_int_equal(q_int(db, "SELECT count(*) FROM procs WHERE ts = 1000 AND dup = 1"), 1);
    /* the schema's own view, made again */
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples_v WHERE status = 'gpu_lost'"), 1);
    sqlite3_close(db);
}

/* A store made before some metrics were stored (simulated: a samples table
 * without their columns, an old row in it, a view without them) gets the
 * columns at open, once, at the end of samples: the old row keeps its
 * values with NULL in the new columns, new rows fill them, the view is the
 * one a new store has, and the version is recorded (meta and user_version).
 * A schema-2 store without a column is copied into a full schema-3 table. */
static void test_migrate_columns(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        int version;          /* the old store's: 3, or 2 (keyed without dup) */
        const char *lack[2];  /* schema 3 columns it does not have */
        const char *log_cols; /* what the log names as added (NULL: no log) */
    } cases[] = {
        {"schema 3 without fan_pct", 3, {"fan_pct", NULL}, "column fan_pct "},
        {"schema 3 without util_gpu_pct and energy_mj",
         3,
         {"util_gpu_pct", "energy_mj"},
         "columns util_gpu_pct, energy_mj "},
        {"schema 2 without fan_pct", 2, {"fan_pct", NULL}, NULL},
    };
    static const char *const v3_cols[] = {
        "util_gpu_pct", "util_mem_pct", "mem_used_mib", "power_cw",     "power_limit_cw",
        "temp_c",       "clk_sm_mhz",   "clk_mem_mhz",  "reasons",      "fan_pct",
        "energy_mj",    "util_enc_pct", "util_dec_pct", "pcie_rx_mibps"};
    char fresh[320], buf[1024], want_view[1024];

    /* what a new store has */
    snprintf(fresh, sizeof(fresh), "%s/fresh.db", g_dir);
    struct gm_store_opts o = opts("train");
    o.path = fresh;
    gm_store_close(open_store(&o));
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(fresh, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    q_text(db, want_view, sizeof(want_view),
           "SELECT group_concat(name) FROM pragma_table_info('samples_v')");
    int ncols = (int)q_int(db, "SELECT count(*) FROM pragma_table_info('samples')");
    sqlite3_close(db);
    assert_int_equal(ncols, 5 + (int)N_ELEM(v3_cols)); /* ts, gpu, dup, task, status */

    for (size_t i = 0; i < N_ELEM(cases); i++) {
        print_message("%s\n", cases[i].what);
        teardown_dir(NULL);
        assert_int_equal(setup_dir(NULL), 0);
        snprintf(buf, sizeof(buf), "%s/data", g_dir);
        assert_int_equal(mkdir(buf, 0755), 0);

        /* the old store: a new one whose samples table is made again without the columns */
        struct gm_store_opts oo = opts("train");
        gm_store_close(open_store(&oo));
        struct gm_buf sql = GM_BUF_INIT, cols = GM_BUF_INIT;
        gm_buf_puts(&sql, "DROP VIEW samples_v; DROP TABLE samples;"
                          " CREATE TABLE samples (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,");
        if (cases[i].version >= 3)
            gm_buf_puts(&sql, " dup INTEGER NOT NULL DEFAULT 0,");
        gm_buf_puts(&sql, " task INTEGER NOT NULL, status INTEGER NOT NULL");
        gm_buf_puts(&cols, "ts, gpu, task, status");
        for (size_t c = 0; c < N_ELEM(v3_cols); c++) {
            if ((cases[i].lack[0] && strcmp(v3_cols[c], cases[i].lack[0]) == 0) ||
                (cases[i].lack[1] && strcmp(v3_cols[c], cases[i].lack[1]) == 0))
                continue;
            gm_buf_printf(&sql, ", %s INTEGER", v3_cols[c]);
            gm_buf_printf(&cols, ", %s", v3_cols[c]);
        }
        gm_buf_printf(
            &sql,
            ", PRIMARY KEY (ts, gpu%s)) WITHOUT ROWID;"
            " INSERT INTO gpus VALUES (1, 'GPU-old', 'NVIDIA A100', 0, 81920, 1000, 1000);"
            " INSERT INTO samples (ts, gpu, task, status, util_mem_pct, clk_sm_mhz)"
            " VALUES (1000, 1, 1, 0, 20, 1410);"
            " CREATE VIEW samples_v AS SELECT %s FROM samples s;"
            " INSERT OR REPLACE INTO meta VALUES ('schema_version', '%d');"
            " PRAGMA user_version = %d;",
            cases[i].version >= 3 ? ", dup" : "", cols.p, cases[i].version, cases[i].version);
        sqlite3 *w = NULL;
        char *msg = NULL;
        assert_int_equal(sqlite3_open(g_db, &w), SQLITE_OK);
        if (sqlite3_exec(w, sql.p, NULL, NULL, &msg) != SQLITE_OK)
            fail_msg("%s: old store: %s", cases[i].what, msg);
        sqlite3_close(w);
        gm_buf_free(&sql);
        gm_buf_free(&cols);

        struct logbuf lb = {0};
        oo.log = log_cb;
        oo.log_arg = &lb;
        struct gm_store *st = open_store(&oo);
        if (cases[i].log_cols) {
            assert_int_equal(lb.n, 1);
            assert_int_equal(lb.levels[0], 6);
            assert_non_null(strstr(lb.msgs[0], cases[i].log_cols));
        } else {
            assert_int_equal(lb.n, 1); /* only the copy of schema 2 to 3 */
            assert_non_null(strstr(lb.msgs[0], "schema 2 to 3"));
        }
        struct gm_snapshot *s = snap(T0_MS, 1);
        snprintf(s->gpus[0].str[GM_S_UUID], sizeof(s->gpus[0].str[GM_S_UUID]), "GPU-old");
        s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(77);
        s->gpus[0].m[GM_M_FAN] = gm_v_u64(41);
        s->gpus[0].m[GM_M_ENERGY] = gm_v_f64(12.3456);
        write_free(st, s);
        gm_store_close(st);

        db = reader();
        assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA integrity_check"), "ok");
        assert_int_equal(q_int(db, "PRAGMA user_version"), 3);
        assert_string_equal(
            q_text(db, buf, sizeof(buf), "SELECT value FROM meta WHERE key = 'schema_version'"),
            "3");
        assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_info('samples')"), ncols);
        for (int k = 0; k < 2 && cases[i].lack[k]; k++) {
            /* at the end of the table (schema 3), or in its place (copied from schema 2) */
            int64_t cid =
                q_int(db, "SELECT cid FROM pragma_table_info('samples') WHERE name = '%s'",
                      cases[i].lack[k]);
            if (cases[i].version >= 3)
                assert_true(cid >= ncols - 2);
            assert_true(q_null(db, "SELECT %s FROM samples WHERE ts = 1000", cases[i].lack[k]));
        }
        /* the old row kept its values; the new row has every column */
        assert_int_equal(q_int(db, "SELECT clk_sm_mhz FROM samples WHERE ts = 1000"), 1410);
        assert_int_equal(q_int(db, "SELECT util_gpu_pct FROM samples WHERE ts = %" PRId64, T0_MS),
                         77);
        assert_int_equal(q_int(db, "SELECT fan_pct FROM samples WHERE ts = %" PRId64, T0_MS), 41);
        assert_int_equal(q_int(db, "SELECT energy_mj FROM samples WHERE ts = %" PRId64, T0_MS),
                         12346);
        /* the view of a new store, and it reads the new columns */
        assert_string_equal(q_text(db, buf, sizeof(buf),
                                   "SELECT group_concat(name) FROM pragma_table_info('samples_v')"),
                            want_view);
        assert_int_equal(q_int(db, "SELECT fan_pct FROM samples_v WHERE ts = %" PRId64, T0_MS), 41);
        assert_int_equal(q_int(db, "SELECT count(*) FROM samples_v"), 2);
        sqlite3_close(db);

        /* once: opening again adds nothing */
        lb.n = 0;
        gm_store_close(open_store(&oo));
        assert_int_equal(lb.n, 0);
    }
}

/* A reload's new settings on the open connection (gm_store_reconfigure):
 * rows before keep the old task, rows and events after get the new one; a
 * batch that fails after the switch (the file locked by another writer)
 * takes the new task's row with it, and the next batch makes it again, once;
 * the rollups count each task's samples. */
static void test_reconfigure(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 2));
    write_free(st, snap(T0_MS + 1000, 2));

    struct gm_store_opts n = opts("eval");
    n.path = NULL; /* not used */
    n.retention_raw_ns = 3 * 86400 * S_NS;
    gm_store_reconfigure(st, &n);

    /* the old batch was committed by the switch: a writer may lock the file */
    sqlite3 *w = NULL;
    assert_int_equal(sqlite3_open(g_db, &w), SQLITE_OK);
    assert_int_equal(sqlite3_exec(w, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    struct gm_snapshot *s = snap(T0_MS + 2000, 2);
    assert_int_equal(gm_store_write(st, s), GM_E_BUSY);
    gm_snapshot_free(s);
    assert_int_equal(sqlite3_exec(w, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(w);

    write_free(st, snap(T0_MS + 3000, 2));
    struct gm_event e = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (T0_MS + 3500) * MS_NS};
    snprintf(e.text, sizeof(e.text), "after the reload");
    assert_int_equal(gm_store_event(st, &e), 0);
    write_free(st, snap(T0_MS + 4000, 2));
    gm_store_close(st);

    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM tasks"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM tasks WHERE name = 'eval'"), 1);
    static const struct {
        int64_t ts;
        const char *task;
    } want[] = {
        {T0_MS, "train"}, {T0_MS + 1000, "train"}, {T0_MS + 3000, "eval"}, {T0_MS + 4000, "eval"}};
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 2 * (int64_t)N_ELEM(want));
    for (size_t i = 0; i < N_ELEM(want); i++) {
        assert_int_equal(q_int(db,
                               "SELECT count(*) FROM samples s JOIN tasks t ON t.id = s.task"
                               " WHERE s.ts = %" PRId64 " AND t.name = '%s'",
                               want[i].ts, want[i].task),
                         2);
    }
    char buf[64];
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT t.name FROM events e JOIN tasks t ON t.id = e.task"
                               " WHERE e.type = 'mark'"),
                        "eval");
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1m r JOIN tasks t ON t.id = r.task"
                               " WHERE t.name = 'train'"),
                     4);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1m r JOIN tasks t ON t.id = r.task"
                               " WHERE t.name = 'eval'"),
                     4);
    sqlite3_close(db);
}

/* Writes fail (a file size limit: EFBIG, as a full disk fails them): each
 * failed batch is rolled back whole and counted lost, the failure is logged
 * once, the rollups keep agreeing with the raw rows, and writing resumes by
 * itself when space returns. */
static void test_write_error(void **state)
{
    (void)state;
    struct logbuf lb = {0};
    struct gm_store_opts o = opts("train");
    o.log = log_cb;
    o.log_arg = &lb;
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 8));
    assert_int_equal(gm_store_flush(st), 0);

    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 256 * 1024;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int ok = 1, failed = 0, i = 1;
    for (; i < 400 && failed < 5; i++) {
        struct gm_snapshot *s = snap(T0_MS + i * S_MS, 8);
        int rc = gm_store_write(st, s);
        if (rc == 0)
            rc = gm_store_flush(st);
        gm_snapshot_free(s);
        if (rc == 0)
            ok++;
        else
            failed++;
    }
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(failed, 5);
    assert_true(ok > 2); /* it failed because the files grew, not from the start */
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.lost, 5 * 8);
    assert_int_equal(lb.n, 1); /* logged once, not once per failure */
    assert_int_equal(lb.levels[0], 3);

    write_free(st, snap(T0_MS + i * S_MS, 8));
    assert_int_equal(gm_store_flush(st), 0);
    ok++;
    assert_int_equal(lb.n, 2);
    assert_int_equal(lb.levels[1], 6);
    gm_store_close(st);

    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), ok * 8);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1m"), ok * 8);
    assert_int_equal(q_int(db, "SELECT sum(n) FROM rollup_1h"), ok * 8);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gpus"), 8);
    assert_int_equal(
        q_int(db, "SELECT count(*) FROM gpus WHERE last_seen = %" PRId64, T0_MS + i * S_MS), 8);
    sqlite3_close(db);
}

static struct gm_event alert_ev(int64_t ms, int state)
{
    struct gm_event e = {.type = GM_EV_ALERT, .gpu = 0, .wall_ns = ms * MS_NS};
    uuid_of(e.uuid, sizeof(e.uuid), 0);
    snprintf(e.rule, sizeof(e.rule), "gpu-hot");
    e.severity = GM_SEV_CRITICAL;
    e.state = (uint8_t)state;
    snprintf(e.text, sizeof(e.text), "%s gpu-hot (critical): GPU 0 is hot",
             state == GM_AL_FIRING ? "firing" : "resolved");
    e.summary_off = (uint16_t)(strchr(e.text, ':') - e.text + 2);
    snprintf(e.value, sizeof(e.value), "90 C");
    snprintf(e.fingerprint, sizeof(e.fingerprint), "0123456789abcdef");
    return e;
}

/* Issue 30: an alert's value from a slow read group (ECC, PCIe link, ...:
 * read every 10 s by the agent) is stored with its age (alerts.value_age_ms;
 * NULL without a number) and `alerts --history --json` shows it; a store
 * made before the column gets it at open, its older notices' ages null. */
static void test_alert_value_age(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 1));
    struct gm_event fire = alert_ev(T0_MS + 100, GM_AL_FIRING);
    fire.value_ok = 1;
    fire.value_age_ms = 7250;
    struct gm_event res = alert_ev(T0_MS + 200, GM_AL_RESOLVED);
    res.value_ok = 0; /* no number: no age */
    res.value_age_ms = 999;
    gm_store_event(st, &fire);
    gm_store_event(st, &res);
    assert_int_equal(gm_store_flush(st), 0);
    gm_store_close(st);
    sqlite3 *db = reader();
    char buf[512];
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat(coalesce(value_age_ms, 'null'), '|') FROM "
                               "(SELECT * FROM alerts ORDER BY ts)"),
                        "7250|null");
    sqlite3_close(db);
    struct gm_alert_history_opts ho = {.path = g_db, .json = 1};
    struct gm_buf b = GM_BUF_INIT;
    struct gm_err err = {0};
    assert_int_equal(gm_store_alert_history(&ho, &b, &err), 0);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value\":\"90 C\",\"value_age_seconds\":7.25,"));
    assert_non_null(strstr(b.p, "\"value\":\"90 C\",\"value_age_seconds\":null,"));
    struct gm_alert_rec *rec = NULL;
    size_t nrec = 0;
    assert_int_equal(gm_store_alert_list(&ho, &rec, &nrec, &err), 0); /* the HTML report's */
    assert_int_equal(nrec, 2);
    assert_int_equal(rec[0].value_age_ms, 7250);
    assert_int_equal(rec[1].value_age_ms, -1);
    gm_alert_recs_free(rec, nrec);

    /* a store from before the column: its alerts table made again without it */
    assert_int_equal(sqlite3_open(g_db, &db), SQLITE_OK);
    static const char old_alerts[] =
        "DROP TABLE alerts; CREATE TABLE alerts (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
        " rule TEXT NOT NULL, severity TEXT NOT NULL, state TEXT NOT NULL,"
        " repeat INTEGER NOT NULL, gpu INTEGER, value TEXT, summary TEXT NOT NULL,"
        " fingerprint TEXT NOT NULL, active_ts INTEGER, fired_ts INTEGER);"
        " INSERT INTO alerts (ts, rule, severity, state, repeat, value, summary, fingerprint)"
        " VALUES (1, 'old', 'warning', 'firing', 0, '3', 'before', 'ffffffffffffffff');";
    assert_int_equal(sqlite3_exec(db, old_alerts, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    gm_buf_reset(&b);
    assert_int_equal(gm_store_alert_history(&ho, &b, &err), 0); /* read as it is */
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value\":\"3\",\"value_age_seconds\":null,"));
    assert_int_equal(gm_store_alert_list(&ho, &rec, &nrec, &err), 0);
    assert_int_equal(nrec, 1);
    assert_int_equal(rec[0].value_age_ms, -1);
    gm_alert_recs_free(rec, nrec);
    st = open_store(&o); /* the writer adds the column */
    fire.wall_ns = (T0_MS + 300) * MS_NS;
    gm_store_event(st, &fire);
    write_free(st, snap(T0_MS + 1000, 1));
    assert_int_equal(gm_store_flush(st), 0);
    gm_store_close(st);
    gm_buf_reset(&b);
    assert_int_equal(gm_store_alert_history(&ho, &b, &err), 0);
    gm_buf_putc(&b, '\0');
    assert_non_null(strstr(b.p, "\"value\":\"3\",\"value_age_seconds\":null,"));
    assert_non_null(strstr(b.p, "\"value\":\"90 C\",\"value_age_seconds\":7.25,"));
    gm_buf_free(&b);
}

/* Drives the store's files to their size limit; returns the next sample index. */
static int fill_until_failing(struct gm_store *st, struct rlimit *old)
{
    struct rlimit lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, old), 0);
    signal(SIGXFSZ, SIG_IGN);
    lim = *old;
    lim.rlim_cur = 256 * 1024;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int i = 1;
    for (; i < 400; i++) {
        struct gm_snapshot *s = snap(T0_MS + i * S_MS, 8);
        int rc = gm_store_write(st, s);
        if (rc == 0)
            rc = gm_store_flush(st);
        gm_snapshot_free(s);
        if (rc != 0)
            return i + 1;
    }
    fail_msg("the store never hit the size limit");
    return i;
}

/* Events and alerts of batches rolled back on a full disk are kept and
 * written with the next batch that commits, once each; more than the store
 * keeps, and what is still unwritten at close, is counted and logged. */
static void test_events_disk_full(void **state)
{
    (void)state;
    struct logbuf lb = {0};
    struct gm_store_opts o = opts("train");
    o.log = log_cb;
    o.log_arg = &lb;
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 8));
    assert_int_equal(gm_store_flush(st), 0);

    struct rlimit old;
    int i = fill_until_failing(st, &old);
    int64_t t_fire = T0_MS + i * S_MS;
    struct gm_event fire = alert_ev(t_fire, GM_AL_FIRING);
    gm_store_event(st, &fire);
    assert_int_not_equal(gm_store_flush(st), 0);
    struct gm_event m = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (t_fire + 100) * MS_NS};
    snprintf(m.text, sizeof(m.text), "epoch 2");
    gm_store_event(st, &m);
    struct gm_snapshot *sn = snap(t_fire + 200, 8);
    gm_store_write(st, sn);
    gm_snapshot_free(sn);
    assert_int_not_equal(gm_store_flush(st), 0);
    struct gm_event res = alert_ev(t_fire + 300, GM_AL_RESOLVED);
    gm_store_event(st, &res);
    assert_int_not_equal(gm_store_flush(st), 0);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);

    /* space is back: the next batch writes them */
    write_free(st, snap(t_fire + 1000, 8));
    assert_int_equal(gm_store_flush(st), 0);
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.events_lost, 0);
    assert_int_equal(ss.events, 3);
    int keeping = 0, again = 0;
    for (int k = 0; k < lb.n && k < 16; k++) {
        keeping += strstr(lb.msgs[k], "keeping 1 event of the rolled-back batch in memory") != NULL;
        again += strstr(lb.msgs[k], "writing again (with the 3 events kept in memory)") != NULL;
    }
    assert_int_equal(keeping, 1);
    assert_int_equal(again, 1);
    gm_store_close(st);

    sqlite3 *db = reader();
    char buf[512];
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT group_concat((ts - %" PRId64 ") || ' ' || rule || ' ' || "
               "state || ' ' || summary || ' ' || value, '|') FROM (SELECT * FROM "
               "alerts ORDER BY ts)",
               t_fire),
        "0 gpu-hot firing GPU 0 is hot 90 C|300 gpu-hot resolved GPU 0 is hot 90 C");
    assert_string_equal(q_text(db, buf, sizeof(buf),
                               "SELECT group_concat((ts - %" PRId64 ") || ' ' || type, '|') FROM "
                               "(SELECT * FROM events ORDER BY ts)",
                               t_fire),
                        "0 alert|100 mark|300 alert");
    sqlite3_close(db);
}

/* More events than the store keeps while it cannot write, and a close
 * while it still cannot: counted, logged, never written twice. */
static void test_events_lost(void **state)
{
    (void)state;
    struct logbuf lb = {0};
    struct gm_store_opts o = opts("train");
    o.log = log_cb;
    o.log_arg = &lb;
    struct gm_store *st = open_store(&o);
    write_free(st, snap(T0_MS, 8));
    assert_int_equal(gm_store_flush(st), 0);
    struct rlimit old;
    int i = fill_until_failing(st, &old);
    int64_t t = T0_MS + i * S_MS;
    for (int k = 0; k < 1030; k++) {
        struct gm_event m = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (t + k) * MS_NS};
        snprintf(m.text, sizeof(m.text), "m%d", k);
        gm_store_event(st, &m);
    }
    assert_int_not_equal(gm_store_flush(st), 0);
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);
    assert_int_equal(ss.events_lost, 6); /* 1024 kept */
    gm_store_close(st);                  /* the disk is still full */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    int lost_msgs = 0, close_msgs = 0;
    for (int k = 0; k < lb.n && k < 16; k++) {
        lost_msgs += strstr(lb.msgs[k], "6 events lost with a rolled-back batch") != NULL;
        close_msgs += strstr(lb.msgs[k], "1024 events kept in memory could not be written") != NULL;
    }
    assert_int_equal(lost_msgs, 1);
    assert_int_equal(close_msgs, 1);
    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM events WHERE ts >= %" PRId64, t), 0);
    sqlite3_close(db);
}

/* ------------------------------------------------------------------------ */
/* Retention                                                                 */

/* The states table: a row at a GPU's first sample, at each change of a
 * state, and after an hour without one; NULL for a state not read.  The gpm
 * table: only with opts.gpm, only for samples with a GPM value, beside the
 * sample (same ts and dup), in hundredths of a percent and whole MiB/s. */
static void set_states(struct gm_gpu *g, int mode, int gen)
{
    g->m[GM_M_COMPUTE_MODE] = gm_v_u64((uint64_t)mode);
    g->m[GM_M_PCIE_GEN_CUR] = gm_v_u64((uint64_t)gen);
    g->m[GM_M_PCIE_GEN_MAX] = gm_v_u64(5);
    g->m[GM_M_PCIE_WIDTH_CUR] = gm_v_u64(16);
    g->m[GM_M_PCIE_WIDTH_MAX] = gm_v_u64(16);
    g->m[GM_M_REMAP_PENDING] = gm_v_u64(0);
}

static void test_states_gpm(void **state)
{
    (void)state;
    for (int gpm = 0; gpm <= 1; gpm++) {
        teardown_dir(NULL);
        assert_int_equal(setup_dir(NULL), 0);
        struct gm_store_opts o = opts("train");
        o.gpm = gpm;
        struct gm_store *st = open_store(&o);
        for (int i = 0; i < 10; i++) {
            struct gm_snapshot *s = snap(T0_MS + i * S_MS, 1);
            struct gm_gpu *g = &s->gpus[0];
            /* compute mode changes at 4; the link drops at 7, is back at 8 */
            set_states(g, i < 4 ? 0 : 3, i == 7 ? 3 : 5);
            if (i > 0) { /* the first sample has no GPM interval */
                g->m[GM_M_GPM_SM_ACTIVE] = gm_v_f64(42.125);
                g->m[GM_M_GPM_PCIE_RX] = gm_v_f64(3.5 * MIB);
            }
            write_free(st, s);
        }
        /* an hour and a half later with nothing changed: a refresh row */
        struct gm_snapshot *s = snap(T0_MS + 5400 * S_MS, 1);
        set_states(&s->gpus[0], 3, 5);
        write_free(st, s);
        gm_store_close(st);

        sqlite3 *db = reader();
        char buf[256];
        assert_string_equal(
            q_text(db, buf, sizeof(buf),
                   "SELECT group_concat(((ts - %" PRId64 ") / 1000) || ':' || compute_mode || ':'"
                   " || pcie_link_gen_current, ' ') FROM (SELECT * FROM states ORDER BY ts)",
                   (int64_t)T0_MS),
            "0:0:5 4:3:5 7:3:3 8:3:5 5400:3:5");
        assert_int_equal(q_int(db, "SELECT count(*) FROM states WHERE ecc_uncorrected_volatile"
                                   " IS NULL AND remapped_rows_pending = 0"),
                         5);
        if (!gpm) {
            assert_int_equal(q_int(db, "SELECT count(*) FROM gpm"), 0);
        } else {
            assert_int_equal(q_int(db, "SELECT count(*) FROM gpm"), 9);
            assert_int_equal(q_int(db, "SELECT min(gpm_sm_active_cpct) FROM gpm"), 4213);
            assert_int_equal(q_int(db, "SELECT max(gpm_pcie_rx_mibps) FROM gpm"), 3);
            assert_int_equal(q_int(db, "SELECT count(*) FROM gpm WHERE gpm_dram_active_cpct"
                                       " IS NOT NULL"),
                             0);
            assert_int_equal(q_int(db, "SELECT count(*) FROM gpm m JOIN samples s ON s.ts = m.ts"
                                       " AND s.gpu = m.gpu AND s.dup = m.dup"),
                             9);
        }
        sqlite3_close(db);
    }
}

/* Issue 30: the agent reads the states' slow read groups (compute mode,
 * PCIe link, ECC counts, remapped and retired pages) every 10 s and reuses
 * them between, each with its age.  A states row is written only from a
 * sample that read them, so its ts is when they were seen: the hourly
 * refresh that falls due between two reads waits for the next read instead
 * of stamping a held value with this sample's time.  A change is always
 * seen by a read; when the groups' reads fell out of step (a failed read is
 * asked again at the next sample), the row of the group that read the
 * change is written at once, the other held values beside it. */
static void set_age(struct gm_gpu *g, uint32_t mode_age, uint32_t link_age)
{
    g->m[GM_M_COMPUTE_MODE].age_ms = mode_age;
    g->m[GM_M_REMAP_PENDING].age_ms = mode_age;
    g->m[GM_M_PCIE_GEN_CUR].age_ms = link_age;
    g->m[GM_M_PCIE_WIDTH_CUR].age_ms = link_age;
}

static void test_states_slow_groups(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    struct gm_store *st = open_store(&o);
    static const struct {
        int64_t at_s;
        uint32_t mode_age, link_age; /* ms */
        int gen;
    } rows[] = {
        {0, 0, 0, 5},          {1, 1000, 1000, 5},    {9, 9000, 9000, 5},
        {10, 0, 0, 5},         {5400, 3000, 3000, 5}, /* refresh due, values held: no row yet */
        {5401, 4000, 4000, 5}, {5407, 0, 0, 5},       /* read: the refresh row */
        {5410, 3000, 0, 3},                           /* out of step: the link read a change */
        {5411, 4000, 1000, 3},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gm_snapshot *s = snap(T0_MS + rows[i].at_s * S_MS, 1);
        s->slow_ns = 10 * S_NS;
        set_states(&s->gpus[0], 0, rows[i].gen);
        set_age(&s->gpus[0], rows[i].mode_age, rows[i].link_age);
        write_free(st, s);
    }
    gm_store_close(st);
    sqlite3 *db = reader();
    char buf[256];
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT group_concat(((ts - %" PRId64 ") / 1000) || ':' || compute_mode || ':'"
               " || pcie_link_gen_current, ' ') FROM (SELECT * FROM states ORDER BY ts)",
               (int64_t)T0_MS),
        "0:0:5 5407:0:5 5410:0:3");
    sqlite3_close(db);
}

/* usage_1h: the intervals after each sample go to the process groups of
 * that sample, in equal parts (two jobs share GPU 0: half each); energy
 * from power x time, utilisation weighted by time, throttled time from the
 * reasons, peak memory per group; a GPU whose processes were not listed
 * has no rows; the first and last moment seen. */
static void test_usage(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    o.interval_ns = S_NS;
    struct gm_store *st = open_store(&o);
    for (int i = 0; i < 10; i++) {
        struct gm_snapshot *s = snap(T0_MS + i * S_MS, 2);
        struct gm_gpu *g = &s->gpus[0];
        g->m[GM_M_UTIL_GPU] = gm_v_u64(80);
        g->m[GM_M_POWER_DRAW] = gm_v_f64(300);
        g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x4);      /* sw power cap */
        s->gpus[1].m[GM_M_UTIL_GPU] = gm_v_u64(10); /* processes not listed */
        struct gm_proc p;
        memset(&p, 0, sizeof(p));
        p.gpu = 0;
        p.type = GM_PT_COMPUTE;
        p.host_state = GM_HS_ALIVE;
        for (int k = 0; k < 3; k++) {
            p.pid = 100 + (uint32_t)k;
            p.used_memory = gm_v_u64((k == 2 ? 3000 : 2500) * MIB);
            snprintf(p.name, sizeof(p.name), k == 2 ? "/usr/bin/serve" : "python3");
            snprintf(p.user, sizeof(p.user), k == 2 ? "bob" : "alice");
            gm_attrib_parse(k == 2 ? "/kubepods/pod2f1e3c4d-5b6a-4789-8abc-def012345678/"
                                     "0123456789abcdef"
                                   : "/slurm/uid_1000/job_7/step_0",
                            1000, &p.attrib);
            gm_snapshot_add_proc_take(s, &p);
        }
        g->proc_first = 0;
        g->nproc = 3;
        g->procs_listed = 1;
        write_free(st, s);
    }
    gm_store_close(st);
    sqlite3 *db = reader();
    char buf[512];
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT group_concat(job || '/' || user || '/' || process || ' ' || gpu_ms || ' ' ||"
               " round(energy_j) || ' ' || (util_sum / util_ms) || ' ' || thr_ms || ' ' ||"
               " mem_max_mib || ' ' || (first_ts - %" PRId64 ") || '-' || (last_ts - %" PRId64
               "), '; ') FROM (SELECT * FROM usage_1h ORDER BY job)",
               (int64_t)T0_MS, (int64_t)T0_MS),
        "pod:2f1e3c4d-5b6a-4789-8abc-def012345678/bob/serve 4500 1350.0 80 4500 3000 0-9000; "
        "slurm:7/alice/python3 4500 1350.0 80 4500 5000 0-9000");
    assert_int_equal(q_int(db, "SELECT count(*) FROM usage_1h u JOIN gpus g ON g.id = u.gpu"
                               " WHERE g.gpu_index = 1"),
                     0);
    sqlite3_close(db);
}

/* usage_1h and vanished processes (docs/jobs.md): beside a live process a
 * gone one is charged no time, energy, utilisation or throttling, only its
 * memory, under job and user "(vanished)" (the demo's GPU 7: before, the
 * dead pid got half the GPU as user "(unknown)"); alone on a GPU it holds
 * the GPU, and the interval is its. */
static void test_usage_vanished(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    o.interval_ns = S_NS;
    struct gm_store *st = open_store(&o);
    for (int i = 0; i < 10; i++) {
        struct gm_snapshot *s = snap(T0_MS + i * S_MS, 2);
        for (uint32_t gi = 0; gi < 2; gi++) {
            struct gm_gpu *g = &s->gpus[gi];
            g->m[GM_M_UTIL_GPU] = gm_v_u64(gi == 0 ? 95 : 0);
            g->m[GM_M_POWER_DRAW] = gm_v_f64(gi == 0 ? 600 : 60);
            g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x20); /* sw thermal slowdown */
            g->procs_listed = 1;
        }
        struct gm_proc p;
        for (int k = 0; k < 3; k++) {
            memset(&p, 0, sizeof(p));
            p.gpu = k == 2 ? 1 : 0;
            p.type = GM_PT_COMPUTE;
            p.pid = k == 0 ? 4194407 : 4194304 + (uint32_t)k;
            p.host_state = k == 0 ? GM_HS_ALIVE : GM_HS_GONE;
            p.used_memory = gm_v_u64((k == 0 ? 45568 : k == 1 ? 30720 : 20480) * MIB);
            snprintf(p.name, sizeof(p.name), "python3");
            if (k == 0)
                snprintf(p.user, sizeof(p.user), "alice");
            gm_snapshot_add_proc_take(s, &p);
        }
        s->gpus[0].proc_first = 0;
        s->gpus[0].nproc = 2;
        s->gpus[1].proc_first = 2;
        s->gpus[1].nproc = 1;
        write_free(st, s);
    }
    gm_store_close(st);
    sqlite3 *db = reader();
    char buf[512];
    assert_string_equal(
        q_text(db, buf, sizeof(buf),
               "SELECT group_concat(g.gpu_index || ' ' || job || '/' || user || '/' || process ||"
               " ' ' || gpu_ms || ' ' || round(energy_j) || ' ' ||"
               " coalesce(util_sum / nullif(util_ms, 0), 'N/A') || ' ' || thr_ms || ' ' ||"
               " mem_max_mib, '; ') FROM (SELECT * FROM usage_1h ORDER BY gpu, job) u"
               " JOIN gpus g ON g.id = u.gpu"),
        "0 /alice/python3 9000 5400.0 95 9000 45568; "
        "0 (vanished)/(vanished)/python3 0 0.0 N/A 0 30720; "
        "1 (vanished)/(vanished)/python3 9000 540.0 0 9000 20480");
    sqlite3_close(db);
}

static void test_retention(void **state)
{
    (void)state;
    const int64_t day = 86400 * S_MS;
    const int64_t now = T0_MS + 3600 * S_MS; /* "now", ms */
    struct gm_store_opts o = opts("train");
    o.retention_raw_ns = 7 * day * MS_NS;
    o.retention_1m_ns = 90 * day * MS_NS;
    o.retention_1h_ns = 3 * 365 * day * MS_NS;
    o.interval_ns = S_NS;
    struct gm_store *st = open_store(&o);
    const int64_t old3 = now - 4 * 365 * day, old2 = now - 100 * day, old1 = now - 8 * day;
    struct gm_event e = {.type = GM_EV_MARK, .gpu = -1};
    e.wall_ns = old3 * MS_NS;
    snprintf(e.text, sizeof(e.text), "ancient");
    assert_int_equal(gm_store_event(st, &e), 0);
    write_free(st, snap(old3, 2));
    write_free(st, snap(old2, 2));
    /* more raw rows than one delete chunk holds */
    for (int i = 0; i < 2600; i++)
        write_free(st, snap(old1 + i * S_MS, 2));
    write_free(st, snap(now - 60 * S_MS, 2));
    e.wall_ns = (now - 30 * S_MS) * MS_NS;
    snprintf(e.text, sizeof(e.text), "recent");
    assert_int_equal(gm_store_event(st, &e), 0);
    assert_int_equal(gm_store_flush(st), 0);

    gm_store_tick(st, now * MS_NS);
    struct gm_store_stats ss;
    gm_store_stats(st, &ss);

    sqlite3 *db = reader();
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 2);
    assert_int_equal(q_int(db, "SELECT min(ts) FROM samples"), now - 60 * S_MS);
    /* 1-minute: old1 (8 d, 44 minutes of samples) and now are kept; old2 and old3 not */
    assert_int_equal(
        q_int(db, "SELECT count(*) FROM rollup_1m WHERE ts < %" PRId64, now - 90 * day), 0);
    assert_int_equal(q_int(db, "SELECT count(DISTINCT ts) FROM rollup_1m"), 44 + 1);
    /* 1-hour: old2, old1 (2 hours), now kept; old3 gone */
    assert_int_equal(q_int(db, "SELECT count(DISTINCT ts) FROM rollup_1h"), 1 + 2 + 1);
    assert_int_equal(q_int(db, "SELECT min(ts) FROM rollup_1h"), (old2 / 3600000) * 3600000);
    char buf[64];
    assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT group_concat(text) FROM events"),
                        "recent");
    /* samples: old3, old2 and 2600 x old1, for 2 GPUs; 1-minute: the minutes of
     * old3 and old2 (2 GPUs); 1-hour: old3's hour (2 GPUs); the ancient mark;
     * states (kept like the 1-minute tier): the rows of old3 and old2 (2 GPUs) */
    assert_int_equal(ss.deleted, 2 * 2602 + 4 + 2 + 1 + 4);
    assert_int_equal(q_int(db, "SELECT count(*) FROM states WHERE ts < %" PRId64, old1), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM states WHERE ts = %" PRId64, old1), 2);

    /* retention runs at most every 5 minutes */
    write_free(st, snap(old1 + 5000 * S_MS, 2));
    assert_int_equal(gm_store_flush(st), 0);
    gm_store_tick(st, (now + 60 * S_MS) * MS_NS);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 4);
    gm_store_tick(st, (now + 301 * S_MS) * MS_NS);
    assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 2);
    sqlite3_close(db);
    gm_store_close(st);
}

/* ------------------------------------------------------------------------ */
/* Report                                                                    */

/* Two GPUs, task "train", every 10 s from 10:59:00 to 11:00:50; then task
 * "other" on GPU 0 at 11:01:00 and 11:01:10; marks for all GPUs, for GPU 1,
 * and of the other task. */
static void build_report_store(void)
{
    struct gm_store_opts o = opts("train");
    o.interval_ns = 10 * S_NS;
    struct gm_store *st = open_store(&o);
    const int64_t t0 = H11_MS - 60 * S_MS;
    for (int i = 0; i < 12; i++) {
        struct gm_snapshot *s = snap(t0 + i * 10 * S_MS, 2);
        struct gm_gpu *a = &s->gpus[0], *b = &s->gpus[1];
        a->m[GM_M_UTIL_GPU] = gm_v_u64(50 + (uint64_t)i);
        a->m[GM_M_MEM_USED] = gm_v_u64((1000 + 10 * (uint64_t)i) * MIB);
        a->m[GM_M_POWER_DRAW] = gm_v_f64(200.0 + i);
        a->m[GM_M_TEMP_GPU] = gm_v_u64(60 + (uint64_t)i);
        a->m[GM_M_CER_ACTIVE] = gm_v_u64(i == 3 ? 0x4 : i == 7 ? 0x20 : 0);
        /* counter: (200 + k) W for 10 s per interval k */
        double e = 0;
        for (int k = 0; k < i; k++)
            e += (200.0 + k) * 10.0;
        a->m[GM_M_ENERGY] = gm_v_f64(1000.0 + e);
        b->m[GM_M_UTIL_GPU] = gm_v_status(GM_VS_UNSUPPORTED, 3);
        b->m[GM_M_MEM_USED] = gm_v_u64(2000 * MIB);
        b->m[GM_M_TEMP_GPU] = gm_v_u64(40);
        write_free(st, s);
    }
    struct gm_event e = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (t0 + 30 * S_MS) * MS_NS};
    snprintf(e.text, sizeof(e.text), "epoch 3 start");
    assert_int_equal(gm_store_event(st, &e), 0);
    e.gpu = 1;
    uuid_of(e.uuid, sizeof(e.uuid), 1);
    e.wall_ns = (H11_MS + 10 * S_MS) * MS_NS;
    snprintf(e.text, sizeof(e.text), "eval \"quick\", fast");
    assert_int_equal(gm_store_event(st, &e), 0);
    /* findings: GPU 0 input-starved from 10:59:20 to 11:00:30 (both hours),
     * GPU 1 thermal from 11:00:40 on (never ended) */
    struct gm_event d = {.type = GM_EV_DIAG, .gpu = 0, .code = GM_CAUSE_INPUT_STARVED};
    uuid_of(d.uuid, sizeof(d.uuid), 0);
    d.wall_ns = (t0 + 20 * S_MS) * MS_NS;
    snprintf(d.text, sizeof(d.text), "input-starved began");
    assert_int_equal(gm_store_event(st, &d), 0);
    d.wall_ns = (H11_MS + 30 * S_MS) * MS_NS;
    d.code = GM_CAUSE_INPUT_STARVED | GM_CAUSE_EV_ENDED;
    snprintf(d.text, sizeof(d.text), "input-starved ended");
    assert_int_equal(gm_store_event(st, &d), 0);
    d.gpu = 1;
    uuid_of(d.uuid, sizeof(d.uuid), 1);
    d.wall_ns = (H11_MS + 40 * S_MS) * MS_NS;
    d.code = GM_CAUSE_THERMAL;
    snprintf(d.text, sizeof(d.text), "thermal-throttle began");
    assert_int_equal(gm_store_event(st, &d), 0);
    gm_store_close(st);

    o.task = "other";
    st = open_store(&o);
    for (int i = 0; i < 2; i++) {
        struct gm_snapshot *s = snap(H11_MS + (60 + i * 10) * S_MS, 1);
        s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(90);
        write_free(st, s);
    }
    struct gm_event m = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (H11_MS + 65 * S_MS) * MS_NS};
    snprintf(m.text, sizeof(m.text), "other job");
    assert_int_equal(gm_store_event(st, &m), 0);
    gm_store_close(st);
}

static char *report(int by, int format, const char *task, int gpu, int64_t from_ns, int64_t to_ns)
{
    struct gm_report_opts ro = {.path = g_db,
                                .from_ns = from_ns,
                                .to_ns = to_ns,
                                .by = by,
                                .task = task,
                                .gpu = gpu,
                                .format = format};
    struct gm_buf out = GM_BUF_INIT;
    struct gm_err err = {0};
    int rc = gm_store_report(&ro, &out, &err);
    if (rc != 0)
        fail_msg("gm_store_report: %d %s", rc, err.msg);
    gm_buf_putc(&out, '\0');
    return out.p;
}

#define ALL_TIME 0, 0

static void expect_text(char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        fail_msg("report:\n%s\nwant:\n%s", got, want);
    free(got);
}

static void test_report_formats(void **state)
{
    (void)state;
    set_tz("UTC");
    build_report_store();

    /* GPU 0, hour 10: samples 0..5, util 50..55, power 200..205 W, energy of
     * intervals 0..5 = 10 s x (200+..+205) W = 12150 J = 3.375 Wh, power cap
     * for sample 3 (10 s).  Hour 11: train samples 6..11 and other's 2 (util
     * 90, no power), so util avg (56+..+61+90+90)/8 = 66.4, power avg
     * (206+..+211)/6 = 208.5, energy of intervals 6..10 = 10 x 1040 J = 2.89 Wh
     * (sample 11 closes no interval; other's power is unknown), thermal for
     * sample 7.  GPU 1: no utilisation, power or clock reasons. */
    expect_text(report(GM_REPORT_HOUR, GM_REPORT_TABLE, NULL, -1, ALL_TIME),
                "period                  gpu  samples  util_avg%  util_max%  mem_max_MiB  "
                "power_avg_W  energy_Wh  temp_max_C  throttled        findings          marks\n"
                "2026-07-14T10:00+00:00    0        6       52.5         55         1050  "
                "      202.5       3.38          65  power_cap 10.0s  input-starved     "
                "10:59 epoch 3 start\n"
                "2026-07-14T10:00+00:00    1        6        N/A        N/A         2000  "
                "        N/A        N/A          40  N/A              -                 "
                "10:59 epoch 3 start\n"
                "2026-07-14T11:00+00:00    0        8       66.4         90         1110  "
                "      208.5       2.89          71  thermal 10.0s    input-starved     "
                "11:01 other job\n"
                "2026-07-14T11:00+00:00    1        6        N/A        N/A         2000  "
                "        N/A        N/A          40  N/A              thermal-throttle  "
                "11:00 eval \"quick\", fast; 11:01 other job\n");

    expect_text(report(GM_REPORT_HOUR, GM_REPORT_CSV, NULL, -1, ALL_TIME),
                "period,gpu,uuid,name,samples,util_avg_pct,util_max_pct,mem_max_mib,power_avg_w,"
                "energy_wh,temp_max_c,thr_thermal_s,thr_power_cap_s,thr_power_brake_s,"
                "thr_hw_slowdown_s,thr_sync_boost_s,thr_app_clocks_s,findings,marks\n"
                "2026-07-14T10:00+00:00,0,GPU-0000abc0-1111-2222-3333-444455556660,"
                "NVIDIA H100 80GB HBM3,6,52.5,55,1050,202.5,3.38,65,0.0,10.0,0.0,0.0,0.0,0.0,"
                "input-starved,10:59 epoch 3 start\n"
                "2026-07-14T10:00+00:00,1,GPU-0000abc1-1111-2222-3333-444455556661,"
                "NVIDIA H100 80GB HBM3,6,,,2000,,,40,,,,,,,,10:59 epoch 3 start\n"
                "2026-07-14T11:00+00:00,0,GPU-0000abc0-1111-2222-3333-444455556660,"
                "NVIDIA H100 80GB HBM3,8,66.4,90,1110,208.5,2.89,71,10.0,0.0,0.0,0.0,0.0,0.0,"
                "input-starved,11:01 other job\n"
                "2026-07-14T11:00+00:00,1,GPU-0000abc1-1111-2222-3333-444455556661,"
                "NVIDIA H100 80GB HBM3,6,,,2000,,,40,,,,,,,thermal-throttle,"
                "\"11:00 eval \"\"quick\"\", fast; 11:01 other job\"\n");

    /* --task train --gpu 0: other's samples and mark are left out */
    expect_text(report(GM_REPORT_HOUR, GM_REPORT_JSON, "train", 0, ALL_TIME),
                "[\n"
                "  {\n"
                "    \"period\": \"2026-07-14T10:00+00:00\",\n"
                "    \"gpu\": 0,\n"
                "    \"uuid\": \"GPU-0000abc0-1111-2222-3333-444455556660\",\n"
                "    \"name\": \"NVIDIA H100 80GB HBM3\",\n"
                "    \"samples\": 6,\n"
                "    \"util_avg_pct\": 52.5,\n"
                "    \"util_max_pct\": 55,\n"
                "    \"mem_max_mib\": 1050,\n"
                "    \"power_avg_w\": 202.5,\n"
                "    \"energy_wh\": 3.38,\n"
                "    \"temp_max_c\": 65,\n"
                "    \"thr_thermal_s\": 0,\n"
                "    \"thr_power_cap_s\": 10,\n"
                "    \"thr_power_brake_s\": 0,\n"
                "    \"thr_hw_slowdown_s\": 0,\n"
                "    \"thr_sync_boost_s\": 0,\n"
                "    \"thr_app_clocks_s\": 0,\n"
                "    \"findings\": [\n"
                "      \"input-starved\"\n"
                "    ],\n"
                "    \"marks\": [\n"
                "      {\n"
                "        \"time\": \"2026-07-14T10:59:30.000+00:00\",\n"
                "        \"gpu\": null,\n"
                "        \"task\": \"train\",\n"
                "        \"text\": \"epoch 3 start\"\n"
                "      }\n"
                "    ]\n"
                "  },\n"
                "  {\n"
                "    \"period\": \"2026-07-14T11:00+00:00\",\n"
                "    \"gpu\": 0,\n"
                "    \"uuid\": \"GPU-0000abc0-1111-2222-3333-444455556660\",\n"
                "    \"name\": \"NVIDIA H100 80GB HBM3\",\n"
                "    \"samples\": 6,\n"
                "    \"util_avg_pct\": 58.5,\n"
                "    \"util_max_pct\": 61,\n"
                "    \"mem_max_mib\": 1110,\n"
                "    \"power_avg_w\": 208.5,\n"
                "    \"energy_wh\": 2.89,\n"
                "    \"temp_max_c\": 71,\n"
                "    \"thr_thermal_s\": 10,\n"
                "    \"thr_power_cap_s\": 0,\n"
                "    \"thr_power_brake_s\": 0,\n"
                "    \"thr_hw_slowdown_s\": 0,\n"
                "    \"thr_sync_boost_s\": 0,\n"
                "    \"thr_app_clocks_s\": 0,\n"
                "    \"findings\": [\n"
                "      \"input-starved\"\n"
                "    ],\n"
                "    \"marks\": []\n"
                "  }\n"
                "]\n");

    /* GPU 1 in JSON: null for what is unknown; its own mark names it */
    char *j = report(GM_REPORT_HOUR, GM_REPORT_JSON, "train", 1, H11_MS * MS_NS, 0);
    assert_non_null(strstr(j, "\"util_avg_pct\": null,\n"));
    assert_non_null(strstr(j, "\"energy_wh\": null,\n"));
    assert_non_null(strstr(j, "\"thr_thermal_s\": null,\n"));
    assert_non_null(strstr(j, "\"gpu\": 1,\n        \"task\": \"train\",\n"
                              "        \"text\": \"eval \\\"quick\\\", fast\"\n"));
    assert_null(strstr(j, "10:00+00:00"));
    free(j);

    /* --by day: both hours in one day */
    expect_text(report(GM_REPORT_DAY, GM_REPORT_CSV, "train", 0, ALL_TIME),
                "period,gpu,uuid,name,samples,util_avg_pct,util_max_pct,mem_max_mib,power_avg_w,"
                "energy_wh,temp_max_c,thr_thermal_s,thr_power_cap_s,thr_power_brake_s,"
                "thr_hw_slowdown_s,thr_sync_boost_s,thr_app_clocks_s,findings,marks\n"
                "2026-07-14,0,GPU-0000abc0-1111-2222-3333-444455556660,NVIDIA H100 80GB HBM3,12,"
                "55.5,61,1110,205.5,6.26,71,10.0,10.0,0.0,0.0,0.0,0.0,input-starved,"
                "10:59 epoch 3 start\n");

    /* a window with nothing in it: headers only, [] */
    expect_text(report(GM_REPORT_HOUR, GM_REPORT_JSON, NULL, -1, 1, 2), "[]\n");
    char *t = report(GM_REPORT_HOUR, GM_REPORT_TABLE, NULL, 5, ALL_TIME);
    assert_int_equal(strchr(t, '\n') - t + 1, (long)strlen(t));
    free(t);
}

/* The rows of an hour are summed over its tasks and put in GPU index
 * order, whatever order the GPUs were first seen in: here the GPU seen
 * first (store id 1) is index 1, and task "b" adds samples, a higher
 * utilisation and a first energy reading to task "a"'s hour.  The table's
 * columns are as wide as their widest cell, wherever it is. */
static void test_report_tasks_order(void **state)
{
    (void)state;
    set_tz("UTC");
    static const struct {
        const char *task;
        int64_t t_s;
        uint64_t util;
        double power, energy; /* < 0: not read */
    } in[] = {
        {"a", 0, 40, 100.0, -1},   {"a", 10, 42, 102.0, -1},  {"a", 20, 44, 104.0, -1},
        {"b", 60, 90, -1, 5000.0}, {"b", 70, 91, -1, 5720.0}, {"b", 3600, 7, -1, 6000.0},
    };
    struct gm_store *st = NULL;
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        if (i == 0 || strcmp(in[i].task, in[i - 1].task) != 0) {
            gm_store_close(st);
            struct gm_store_opts o = opts(in[i].task);
            o.interval_ns = 10 * S_NS;
            st = open_store(&o);
        }
        struct gm_snapshot *s = snap(H10_MS + in[i].t_s * S_MS, 2);
        s->gpus[0].index = 1; /* first seen, index 1 */
        s->gpus[1].index = 0;
        s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(in[i].util);
        s->gpus[1].m[GM_M_UTIL_GPU] = gm_v_u64(in[i].util / 2);
        if (in[i].power >= 0)
            s->gpus[0].m[GM_M_POWER_DRAW] = gm_v_f64(in[i].power);
        if (in[i].energy >= 0)
            s->gpus[0].m[GM_M_ENERGY] = gm_v_f64(in[i].energy);
        write_free(st, s);
    }
    gm_store_close(st);
    expect_text(report(GM_REPORT_HOUR, GM_REPORT_TABLE, NULL, -1, ALL_TIME),
                "period                  gpu  samples  util_avg%  util_max%  mem_max_MiB  "
                "power_avg_W  energy_Wh  temp_max_C  throttled  findings  marks\n"
                "2026-07-14T10:00+00:00    0        5       30.6         45          N/A  "
                "        N/A        N/A         N/A  N/A        -\n"
                "2026-07-14T10:00+00:00    1        5       61.4         91          N/A  "
                "      102.0       0.76         N/A  N/A        -\n"
                "2026-07-14T11:00+00:00    0        1        3.0          3          N/A  "
                "        N/A        N/A         N/A  N/A        -\n"
                "2026-07-14T11:00+00:00    1        1        7.0          7          N/A  "
                "        N/A        N/A         N/A  N/A        -\n");
    expect_text(report(GM_REPORT_DAY, GM_REPORT_CSV, NULL, -1, ALL_TIME),
                "period,gpu,uuid,name,samples,util_avg_pct,util_max_pct,mem_max_mib,power_avg_w,"
                "energy_wh,temp_max_c,thr_thermal_s,thr_power_cap_s,thr_power_brake_s,"
                "thr_hw_slowdown_s,thr_sync_boost_s,thr_app_clocks_s,findings,marks\n"
                "2026-07-14,0,GPU-0000abc1-1111-2222-3333-444455556661,NVIDIA H100 80GB HBM3,6,"
                "26.0,45,,,,,,,,,,,,\n"
                "2026-07-14,1,GPU-0000abc0-1111-2222-3333-444455556660,NVIDIA H100 80GB HBM3,6,"
                "52.3,91,,102.0,0.76,,,,,,,,,\n");
}

/* Local days in a +05:30 zone: the hours that start before local midnight
 * belong to the day before. */
static void test_report_local_day(void **state)
{
    (void)state;
    set_tz("IST-5:30");
    struct gm_store_opts o = opts("train");
    o.interval_ns = 600 * S_NS;
    struct gm_store *st = open_store(&o);
    const int64_t h18 = (DAY0 + 18 * 3600) * S_MS; /* 23:30 IST on the 14th */
    for (int i = 0; i < 12; i++) {
        struct gm_snapshot *s = snap(h18 + i * 600 * S_MS, 1);
        s->gpus[0].m[GM_M_UTIL_GPU] = gm_v_u64(i < 6 ? 10 : 30);
        write_free(st, s);
    }
    struct gm_event e = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = (h18 + 70 * 60 * S_MS) * MS_NS};
    snprintf(e.text, sizeof(e.text), "after midnight");
    assert_int_equal(gm_store_event(st, &e), 0);
    gm_store_close(st);

    expect_text(report(GM_REPORT_HOUR, GM_REPORT_TABLE, NULL, -1, ALL_TIME),
                "period                  gpu  samples  util_avg%  util_max%  mem_max_MiB  "
                "power_avg_W  energy_Wh  temp_max_C  throttled  findings  marks\n"
                "2026-07-14T23:30+05:30    0        6       10.0         10          N/A  "
                "        N/A        N/A         N/A  N/A        -\n"
                "2026-07-15T00:30+05:30    0        6       30.0         30          N/A  "
                "        N/A        N/A         N/A  N/A        -         00:40 after midnight\n");
    expect_text(report(GM_REPORT_DAY, GM_REPORT_TABLE, NULL, -1, ALL_TIME),
                "period      gpu  samples  util_avg%  util_max%  mem_max_MiB  power_avg_W  "
                "energy_Wh  temp_max_C  throttled  findings  marks\n"
                "2026-07-14    0        6       10.0         10          N/A          N/A  "
                "      N/A         N/A  N/A        -\n"
                "2026-07-15    0        6       30.0         30          N/A          N/A  "
                "      N/A         N/A  N/A        -         00:40 after midnight\n");
    set_tz("UTC");
    expect_text(report(GM_REPORT_DAY, GM_REPORT_CSV, NULL, -1, ALL_TIME),
                "period,gpu,uuid,name,samples,util_avg_pct,util_max_pct,mem_max_mib,power_avg_w,"
                "energy_wh,temp_max_c,thr_thermal_s,thr_power_cap_s,thr_power_brake_s,"
                "thr_hw_slowdown_s,thr_sync_boost_s,thr_app_clocks_s,findings,marks\n"
                "2026-07-14,0,GPU-0000abc0-1111-2222-3333-444455556660,NVIDIA H100 80GB HBM3,12,"
                "20.0,30,,,,,,,,,,,,19:10 after midnight\n");
}

static void test_report_errors(void **state)
{
    (void)state;
    struct gm_report_opts ro = {.path = g_db, .gpu = -1};
    struct gm_buf out = GM_BUF_INIT;
    struct gm_err err = {0};
    assert_int_equal(gm_store_report(&ro, &out, &err), GM_E_NOTFOUND);
    assert_non_null(strstr(err.msg, g_db));
    assert_non_null(strstr(err.msg, "no such history database"));
    assert_int_equal(out.len, 0);

    struct gm_store_opts o = opts("train");
    gm_store_close(open_store(&o));
    ro.task = "trian";
    assert_int_equal(gm_store_report(&ro, &out, &err), GM_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "no task named 'trian'"));
    assert_non_null(strstr(err.msg, "tasks: train"));

    char other[400];
    snprintf(other, sizeof(other), "%s/not-a-db", g_dir);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fputs("hello, this is not SQLite\n", f);
    fclose(f);
    ro.path = other;
    ro.task = NULL;
    assert_int_not_equal(gm_store_report(&ro, &out, &err), 0);
    assert_int_equal(out.len, 0);
    gm_buf_free(&out);
}

/* ------------------------------------------------------------------------ */
/* Size                                                                      */

static void test_bytes_per_sample(void **state)
{
    (void)state;
    struct gm_store_opts o = opts("train");
    o.commit_interval_ns = S_NS;
    struct gm_store *st = open_store(&o);
    const int ngpu = 8, nsamp = 100000 / 8;
    uint64_t x = 88172645463325252ull; /* xorshift: plausible, varying values */
    int64_t energy[8] = {0};
    for (int g = 0; g < ngpu; g++)
        energy[g] = 3000000000 + g * 1000000;
    int64_t t0 = gm_mono_ns();
    for (int i = 0; i < nsamp; i++) {
        struct gm_snapshot *s = snap(T0_MS + i * S_MS + (int64_t)(x % 40), (uint32_t)ngpu);
        for (int g = 0; g < ngpu; g++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            struct gm_gpu *gg = &s->gpus[g];
            uint64_t util = x % 101, mem = 20000 + (x >> 8) % 60000;
            double power = 80.0 + (double)((x >> 20) % 62000) / 100.0;
            energy[g] += (int64_t)(power * 1000.0);
            gg->m[GM_M_UTIL_GPU] = gm_v_u64(util);
            gg->m[GM_M_UTIL_MEM] = gm_v_u64(util / 3);
            gg->m[GM_M_MEM_USED] = gm_v_u64(mem * MIB);
            gg->m[GM_M_POWER_DRAW] = gm_v_f64(power);
            gg->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
            gg->m[GM_M_TEMP_GPU] = gm_v_u64(35 + (x >> 40) % 50);
            gg->m[GM_M_CLK_SM] = gm_v_u64(1980 - (x >> 30) % 600);
            gg->m[GM_M_CLK_MEM] = gm_v_u64(2619);
            gg->m[GM_M_CER_ACTIVE] = gm_v_u64((x >> 50) % 4 == 0 ? 0x4 : 0);
            gg->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, 3);
            gg->m[GM_M_ENERGY] = gm_v_f64((double)energy[g] / 1000.0);
        }
        write_free(st, s);
    }
    int64_t dt = gm_mono_ns() - t0;
    gm_store_close(st); /* checkpoints and removes the WAL */
    struct stat sb;
    assert_int_equal(stat(g_db, &sb), 0);
    char wal[400];
    snprintf(wal, sizeof(wal), "%s-wal", g_db);
    struct stat wb;
    assert_int_not_equal(stat(wal, &wb), 0);
    double per = (double)sb.st_size / (double)(ngpu * nsamp);
    printf("store: %d GPU-samples, %lld bytes on disk, %.1f bytes per GPU-sample "
           "(rollups included); %.0f GPU-samples/s written\n",
           ngpu * nsamp, (long long)sb.st_size, per, (double)(ngpu * nsamp) * 1e9 / (double)dt);
    assert_true(per <= 64.0);
}

int main(void)
{
    set_tz("UTC");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schema, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rows_roundtrip, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_events, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rollups, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_split_and_gap, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_reader_mid_batch, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_locked_out, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_reconfigure, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_repeated_time, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_migrate_v2, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_migrate_columns, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_alert_value_age, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_write_error, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_events_disk_full, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_events_lost, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_states_gpm, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_states_slow_groups, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_usage, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_usage_vanished, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_retention, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_report_formats, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_report_local_day, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_report_tasks_order, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_report_errors, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_bytes_per_sample, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

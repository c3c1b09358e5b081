/* history.c -- the store's samples back as per-GPU rows for diagnosis.
 *
 * Reads the raw tier (samples, with the processes of each sample counted
 * from procs) of a time window, GPU by GPU in time order; when the window
 * has no raw rows (retention removed them) it reads the 1-minute rollups
 * instead, whose min/max keep a heartbeat's swing visible.  Read-only: the
 * agent may be writing (WAL).  Each row carries the GPU's states (compute
 * mode, PCIe link, pending ECC repairs) from the states table: its newest
 * row at or before the sample, when not older than two refresh periods; the
 * GPM values from the gpm table where the agent kept them (store-gpm).  A
 * store made by an older gpumon may lack those tables and columns: their
 * values are then unknown, not an error.
 */
#include "history.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/buf.h"
#include "store_schema.h"

#define MIB 1048576.0

static double col_d(sqlite3_stmt *st, int i, double scale)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i) * scale;
}

static const char *col_s(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

static int fail(sqlite3 *db, struct gm_err *err, const char *path, const char *what)
{
    return gm_err_set(err, GM_E_IO, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "?");
}

/* Processes of the sample (ts, gpu): recorded at all in the window? */
#define PROCS_SQL                                                                                  \
    "(SELECT count(*) FROM procs p WHERE p.ts = s.ts AND p.gpu = s.gpu AND p.dup = s.dup), "       \
    "(SELECT count(*) FROM procs p WHERE p.ts = s.ts AND p.gpu = s.gpu AND p.dup = s.dup "         \
    "AND p.host_state IN (2, 3)), "                                                                \
    "(SELECT sum(p.mem_used_mib) FROM procs p WHERE p.ts = s.ts AND p.gpu = s.gpu AND "            \
    "p.dup = s.dup), "                                                                             \
    "(SELECT %s FROM procs p WHERE p.ts = s.ts AND p.gpu = s.gpu AND p.dup = s.dup AND "           \
    "(p.type & 1) AND p.host_state NOT IN (2, 3) ORDER BY p.pid LIMIT 1) "

/* Whether the store has table (and column, when not NULL). */
static int has(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *q = NULL;
    int yes = 0;
    if (sqlite3_prepare_v2(db,
                           col ? "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2"
                               : "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                           -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
        if (col)
            sqlite3_bind_text(q, 2, col, -1, SQLITE_STATIC);
        yes = sqlite3_step(q) == SQLITE_ROW;
    }
    sqlite3_finalize(q);
    return yes;
}

/* The columns after the fixed ones, in this order: the states, then (raw
 * rows) encoder, decoder, PCIe RX and three GPM values. */
static const char *const state_cols[] = {"compute_mode",          "pcie_link_gen_current",
                                         "pcie_link_gen_max",     "pcie_link_width_current",
                                         "pcie_link_width_max",   "ecc_uncorrected_volatile",
                                         "remapped_rows_pending", "retired_pages_pending"};
#define NSTATE_COLS 8
static const char *const raw_cols[] = {"util_enc_pct", "util_dec_pct", "pcie_rx_mibps"};
static const char *const gpm_cols[] = {"gpm_sm_active_cpct", "gpm_dram_active_cpct",
                                       "gpm_pcie_rx_mibps"};

/* ", st.col" for each state column the store has (NULL for the others),
 * and the join that finds the row (the GPU's newest at or before the
 * row's time, at most two refresh periods older). */
static void states_sql(sqlite3 *db, const char *alias, struct gm_buf *cols, struct gm_buf *join)
{
    int tab = has(db, "states", NULL);
    for (int i = 0; i < NSTATE_COLS; i++)
        gm_buf_printf(cols, tab && has(db, "states", state_cols[i]) ? ", st.%s" : ", NULL",
                      state_cols[i]);
    if (tab)
        gm_buf_printf(join,
                      " LEFT JOIN states st ON st.gpu = %s.gpu AND st.ts = (SELECT max(x.ts) FROM"
                      " states x WHERE x.gpu = %s.gpu AND x.ts <= %s.ts AND x.ts >= %s.ts - %lld)",
                      alias, alias, alias, alias, 2 * GM_STORE_STATES_REFRESH_MS);
}

static char *raw_sql(sqlite3 *db)
{
    struct gm_buf b = GM_BUF_INIT, join = GM_BUF_INIT;
    gm_buf_puts(&b, "SELECT s.ts, g.gpu_index, g.uuid, g.name, g.mem_total_mib, s.status, "
                    "s.util_gpu_pct, s.util_mem_pct, s.mem_used_mib, s.power_cw, s.power_limit_cw,"
                    " s.temp_c, s.clk_sm_mhz, s.clk_mem_mhz, s.reasons, ");
    /* the job: gm_attrib_job_key (core/attrib.h) in SQL -- the one the process
     * belongs to (procs.job_id) when known, else its launcher parent (procs.ppid
     * when it is not init and not its session's leader), else the process itself;
     * never its name (every trainer is "python3"), nor a login session's
     * "user:<UID>".  A store made before a column lacks it: its rule is left out. */
    char key[512];
    /* CASE WHEN 0 ...: SQL wants one WHEN at least, and a column a store
     * lacks must not be named at all */
    snprintf(key, sizeof key, "CASE WHEN 0 THEN NULL %s%s ELSE 'pid:' || p.pid END",
             has(db, "procs", "job_id")
                 ? "WHEN p.job_id IS NOT NULL AND p.job_id <> '' AND p.job_id NOT LIKE 'user:%' "
                   "THEN p.job_id "
                 : "",
             has(db, "procs", "ppid") && has(db, "procs", "sid")
                 ? "WHEN p.ppid > 1 AND p.ppid IS NOT coalesce(p.sid, 0) THEN 'parent:' || p.ppid"
                 : "");
    gm_buf_printf(&b, PROCS_SQL, key);
    states_sql(db, "s", &b, &join);
    for (size_t i = 0; i < sizeof raw_cols / sizeof raw_cols[0]; i++)
        gm_buf_printf(&b, has(db, "samples", raw_cols[i]) ? ", s.%s" : ", NULL", raw_cols[i]);
    int gpm = has(db, "gpm", NULL);
    for (size_t i = 0; i < sizeof gpm_cols / sizeof gpm_cols[0]; i++)
        gm_buf_printf(&b, gpm && has(db, "gpm", gpm_cols[i]) ? ", m.%s" : ", NULL", gpm_cols[i]);
    /* the host side (a store made before it has no hostside table) */
    int host = has(db, "hostside", NULL);
    gm_buf_puts(&b, host ? ", h.pid, h.cpu_cpct, h.workers, h.workers_cpu_cpct, h.iowait_cpct,"
                           " h.psi_cpu_cpct, h.psi_io_cpct, h.psi_scope"
                         : ", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL");
    /* last: the memory of the processes gone or zombie on the host */
    gm_buf_puts(&b, ", (SELECT sum(p.mem_used_mib) FROM procs p WHERE p.ts = s.ts AND "
                    "p.gpu = s.gpu AND p.dup = s.dup AND p.host_state IN (2, 3))");
    gm_buf_puts(&b,
                " FROM samples s JOIN gpus g ON g.id = s.gpu LEFT JOIN tasks t ON t.id = s.task");
    gm_buf_puts(&b, join.p ? join.p : "");
    if (gpm)
        gm_buf_puts(&b, " LEFT JOIN gpm m ON m.ts = s.ts AND m.gpu = s.gpu AND m.dup = s.dup");
    if (host)
        gm_buf_puts(&b, " LEFT JOIN hostside h ON h.ts = s.ts AND h.gpu = s.gpu AND h.dup = s.dup");
    gm_buf_puts(&b, " WHERE s.ts >= ?1 AND s.ts <= ?2 AND (?3 IS NULL OR t.name = ?3)"
                    " ORDER BY g.gpu_index, s.ts, s.dup");
    gm_buf_free(&join);
    return b.p;
}

static char *roll_sql(sqlite3 *db, const char *table)
{
    struct gm_buf b = GM_BUF_INIT, join = GM_BUF_INIT;
    gm_buf_puts(&b, "SELECT r.ts, g.gpu_index, g.uuid, g.name, g.mem_total_mib, "
                    "CASE WHEN r.n_down = r.n THEN 1 ELSE 0 END, "
                    "r.util_sum * 1.0 / r.util_n, r.util_min, r.util_max, r.mem_max, "
                    "r.power_sum * 1.0 / r.power_n, r.temp_max, r.sm_sum * 1.0 / r.sm_n, r.dur_ms, "
                    "r.thr_thermal_ms, r.thr_power_cap_ms, r.thr_power_brake_ms, "
                    "r.thr_hw_slowdown_ms, r.thr_app_clocks_ms");
    states_sql(db, "r", &b, &join);
    gm_buf_printf(&b, " FROM %s r JOIN gpus g ON g.id = r.gpu LEFT JOIN tasks t ON t.id = r.task",
                  table);
    gm_buf_puts(&b, join.p ? join.p : "");
    gm_buf_puts(&b, " WHERE r.ts >= ?1 AND r.ts <= ?2 AND (?3 IS NULL OR t.name = ?3)"
                    " ORDER BY g.gpu_index, r.ts");
    gm_buf_free(&join);
    return b.p;
}

/* The states of a row from column i on (states_sql's order). */
static void read_states(sqlite3_stmt *st, int i, struct gm_hist_row *r)
{
    int *ints[] = {&r->compute_mode, &r->pcie_gen, &r->pcie_gen_max, &r->pcie_width,
                   &r->pcie_width_max};
    for (int k = 0; k < 5; k++)
        *ints[k] =
            sqlite3_column_type(st, i + k) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i + k);
    r->ecc_uncorrected = col_d(st, i + 5, 1);
    r->remap_pending = col_d(st, i + 6, 1);
    r->retired_pending = col_d(st, i + 7, 1);
}

static void row_init(struct gm_hist_row *r)
{
    memset(r, 0, sizeof *r);
    r->util = r->util_min = r->util_max = r->util_mem = NAN;
    r->mem_used_b = r->mem_total_b = r->power_w = r->power_limit_w = NAN;
    r->temp_c = r->clk_sm_mhz = r->clk_mem_mhz = r->proc_mem_b = r->dead_mem_b = NAN;
    r->reasons = -1;
    r->nproc = r->nproc_dead = -1;
    r->enc_util = r->dec_util = r->pcie_rx_Bps = r->sm_active = r->dram_active = NAN;
    r->ecc_uncorrected = r->remap_pending = r->retired_pending = NAN;
    r->compute_mode = r->pcie_gen = r->pcie_gen_max = r->pcie_width = r->pcie_width_max = -1;
    r->uuid = r->name = r->job = "";
    r->host_workers = -1;
    r->host_cpu_pct = r->host_workers_cpu_pct = r->host_iowait_pct = r->psi_cpu = r->psi_io = NAN;
}

static int bind_window(sqlite3_stmt *st, int64_t from_ns, int64_t to_ns, const char *task)
{
    sqlite3_bind_int64(st, 1, from_ns / 1000000);
    sqlite3_bind_int64(st, 2, to_ns / 1000000);
    if (task)
        return sqlite3_bind_text(st, 3, task, -1, SQLITE_TRANSIENT);
    return sqlite3_bind_null(st, 3);
}

static int read_raw(sqlite3 *db, const char *path, int64_t from_ns, int64_t to_ns, const char *task,
                    int has_procs, gm_hist_fn fn, void *arg, size_t *nrows, struct gm_err *err)
{
    sqlite3_stmt *st = NULL;
    char *sql = raw_sql(db);
    int prc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    free(sql);
    if (prc != SQLITE_OK)
        return fail(db, err, path, "cannot read samples");
    bind_window(st, from_ns, to_ns, task);
    int rc = 0, s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        struct gm_hist_row r;
        row_init(&r);
        r.ts_ns = sqlite3_column_int64(st, 0) * 1000000;
        r.gpu_index = (uint32_t)sqlite3_column_int(st, 1);
        r.uuid = col_s(st, 2);
        r.name = col_s(st, 3);
        r.mem_total_b = col_d(st, 4, MIB);
        int status = sqlite3_column_int(st, 5);
        r.down = status == 1 ? 1 : (status == 0 || status == 4) ? 0 : 2;
        r.util = col_d(st, 6, 1);
        r.util_mem = col_d(st, 7, 1);
        r.mem_used_b = col_d(st, 8, MIB);
        r.power_w = col_d(st, 9, 0.01);
        r.power_limit_w = col_d(st, 10, 0.01);
        r.temp_c = col_d(st, 11, 1);
        r.clk_sm_mhz = col_d(st, 12, 1);
        r.clk_mem_mhz = col_d(st, 13, 1);
        if (sqlite3_column_type(st, 14) != SQLITE_NULL)
            r.reasons = sqlite3_column_int64(st, 14);
        if (has_procs && !r.down) {
            r.nproc = sqlite3_column_int(st, 15);
            r.nproc_dead = sqlite3_column_int(st, 16);
            r.proc_mem_b = r.nproc ? col_d(st, 17, MIB) : 0;
            /* the dead processes' memory: the last column (raw_sql) */
            r.dead_mem_b = r.nproc_dead ? col_d(st, sqlite3_column_count(st) - 1, MIB) : 0;
            r.job = col_s(st, 18);
        }
        if (!r.down) {
            read_states(st, 19, &r);
            r.enc_util = col_d(st, 19 + NSTATE_COLS, 1);
            r.dec_util = col_d(st, 20 + NSTATE_COLS, 1);
            r.pcie_rx_Bps = col_d(st, 21 + NSTATE_COLS, MIB);
            r.sm_active = col_d(st, 22 + NSTATE_COLS, 1e-4);
            r.dram_active = col_d(st, 23 + NSTATE_COLS, 1e-4);
            /* PCIe RX: the counter's (agent option pcie), else GPM's (store-gpm) */
            if (isnan(r.pcie_rx_Bps))
                r.pcie_rx_Bps = col_d(st, 24 + NSTATE_COLS, MIB);
            int h = 25 + NSTATE_COLS;
            if (sqlite3_column_type(st, h) != SQLITE_NULL) {
                r.host_pid = (uint32_t)sqlite3_column_int64(st, h);
                r.host_cpu_pct = col_d(st, h + 1, 0.01);
                if (sqlite3_column_type(st, h + 2) != SQLITE_NULL)
                    r.host_workers = sqlite3_column_int(st, h + 2);
                r.host_workers_cpu_pct = col_d(st, h + 3, 0.01);
                r.host_iowait_pct = col_d(st, h + 4, 0.01);
                r.psi_cpu = col_d(st, h + 5, 0.01);
                r.psi_io = col_d(st, h + 6, 0.01);
                r.psi_scope = sqlite3_column_int(st, h + 7);
            }
        }
        (*nrows)++;
        if ((rc = fn(arg, &r)) != 0)
            break;
    }
    if (rc == 0 && s != SQLITE_DONE)
        rc = fail(db, err, path, "cannot read samples");
    sqlite3_finalize(st);
    return rc;
}

/* The rollups of one table (hour: rollup_1h, else rollup_1m) whose
 * periods overlap [from_ns, to_ns]. */
static int read_rollups_of(sqlite3 *db, const char *path, int hour, int64_t from_ns, int64_t to_ns,
                           const char *task, gm_hist_fn fn, void *arg, size_t *nrows,
                           struct gm_err *err)
{
    const char *table = hour ? "rollup_1h" : "rollup_1m";
    sqlite3_stmt *st = NULL;
    char *sql = roll_sql(db, table);
    int prc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    free(sql);
    if (prc != SQLITE_OK)
        return fail(db, err, path, hour ? "cannot read rollup_1h" : "cannot read rollup_1m");
    bind_window(st, from_ns - (hour ? 3600000000000LL : 60000000000LL), to_ns, task);
    int rc = 0, s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        struct gm_hist_row r;
        row_init(&r);
        r.rollup = 1;
        r.ts_ns = sqlite3_column_int64(st, 0) * 1000000;
        r.gpu_index = (uint32_t)sqlite3_column_int(st, 1);
        r.uuid = col_s(st, 2);
        r.name = col_s(st, 3);
        r.mem_total_b = col_d(st, 4, MIB);
        r.down = sqlite3_column_int(st, 5) ? 2 : 0;
        r.util = col_d(st, 6, 1);
        r.util_min = col_d(st, 7, 1);
        r.util_max = col_d(st, 8, 1);
        r.mem_used_b = col_d(st, 9, MIB);
        r.power_w = col_d(st, 10, 0.01);
        r.temp_c = col_d(st, 11, 1);
        r.clk_sm_mhz = col_d(st, 12, 1);
        double dur = col_d(st, 13, 1);
        /* a reason counts for the minute when active a fifth of its observed time */
        static const int64_t bit[] = {0x40, 0x4, 0x80, 0x8, 0x2};
        if (dur > 0) {
            r.reasons = 0;
            for (int k = 0; k < 5; k++) {
                double ms = col_d(st, 14 + k, 1);
                if (!isnan(ms) && ms >= 0.2 * dur)
                    r.reasons |= bit[k];
            }
        }
        if (!r.down)
            read_states(st, 19, &r);
        (*nrows)++;
        if ((rc = fn(arg, &r)) != 0)
            break;
    }
    if (rc == 0 && s != SQLITE_DONE)
        rc = fail(db, err, path, hour ? "cannot read rollup_1h" : "cannot read rollup_1m");
    sqlite3_finalize(st);
    return rc;
}

static int read_rollups(sqlite3 *db, const char *path, int64_t from_ns, int64_t to_ns,
                        const char *task, gm_hist_fn fn, void *arg, size_t *nrows,
                        struct gm_err *err)
{
    return read_rollups_of(db, path, 0, from_ns, to_ns, task, fn, arg, nrows, err);
}

static int count(sqlite3 *db, const char *sql, int64_t from_ns, int64_t to_ns, const char *task,
                 int64_t *n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    bind_window(st, from_ns, to_ns, task);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    *n = rc == 0 ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc;
}

int gm_hist_read_store(const char *path, int64_t from_ns, int64_t to_ns, const char *task,
                       gm_hist_fn fn, void *arg, size_t *nrows, struct gm_err *err)
{
    *nrows = 0;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return gm_err_set(err, errno == ENOENT ? GM_E_NOTFOUND : GM_E_IO,
                          "%s: %s (the agent writes it when its store is enabled; see "
                          "docs/store.md)",
                          path, errno == ENOENT ? "no such history database" : strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return gm_err_set(err, GM_E_INVAL, "%s: not a regular file", path);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = fail(db, err, path, "cannot open");
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 5000);
    int64_t nraw = 0, nproc = 0;
    /* whether there are any (a count of 30 days of raw rows takes seconds) */
    static const char any_raw[] =
        "SELECT count(*) FROM (SELECT 1 FROM samples s LEFT JOIN tasks t ON t.id = s.task "
        "WHERE s.ts >= ?1 AND s.ts <= ?2 AND (?3 IS NULL OR t.name = ?3) LIMIT 1)";
    int rc = count(db, any_raw, from_ns, to_ns, task, &nraw);
    if (rc == 0)
        rc = count(db,
                   "SELECT count(*) FROM (SELECT 1 FROM procs WHERE ts >= ?1 AND ts <= ?2 "
                   "AND (?3 IS NULL OR ?3 = ?3) LIMIT 1)",
                   from_ns, to_ns, task, &nproc);
    int64_t split = to_ns - GM_HIST_RAW_RECENT_NS, nrecent = 0;
    if (rc != 0) {
        rc = gm_err_set(err, GM_E_INVAL, "%s: not a gpumon history database (%s)", path,
                        sqlite3_errmsg(db));
    } else if (to_ns - from_ns > GM_HIST_RAW_SPAN_NS) {
        /* a long window: its 1-minute rollups (the minutes that end before
         * the last hour), then the last hour's raw samples where there are
         * any -- millions of raw rows would cost seconds and gigabytes */
        /* and windows of days: the hours before the last day from rollup_1h */
        int64_t mid = from_ns;
        if (to_ns - from_ns > GM_HIST_MINUTES_SPAN_NS) {
            mid = to_ns - GM_HIST_MINUTES_SPAN_NS;
            rc = read_rollups_of(db, path, 1, from_ns, mid - 3600000000000LL, task, fn, arg, nrows,
                                 err);
        }
        if (rc == 0)
            rc = read_rollups(db, path, mid, split - 60000000000LL, task, fn, arg, nrows, err);
        if (rc == 0)
            rc = count(db, any_raw, split, to_ns, task, &nrecent);
        if (rc == 0 && nrecent > 0)
            rc = read_raw(db, path, split, to_ns, task, nproc > 0, fn, arg, nrows, err);
        else if (rc == 0)
            rc = read_rollups(db, path, split, to_ns, task, fn, arg, nrows, err);
    } else if (nraw > 0) {
        rc = read_raw(db, path, from_ns, to_ns, task, nproc > 0, fn, arg, nrows, err);
    } else {
        rc = read_rollups(db, path, from_ns, to_ns, task, fn, arg, nrows, err);
    }
    sqlite3_close(db);
    return rc;
}

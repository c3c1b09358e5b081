/* store_sql.c -- the SQLite store's schema and statements (see store.c
 * and store_int.h): the tables and the samples view, made or migrated at
 * open (gm_st_schema_ensure, columns the registry newly stores added to an
 * existing store), and every prepared statement the writer uses.
 */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/timeutil.h"

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

int gm_st_exec_sql(sqlite3 *db, const char *sql, struct gm_err *err, const char *path)
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
int gm_st_samples_metrics(int ids[GM_M__GPU_END])
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
    int ids[GM_M__GPU_END], n = gm_st_samples_metrics(ids);
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
    int ids[GM_M__GPU_END], n = gm_st_samples_metrics(ids);
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
    int ids[GM_M__GPU_END], n = gm_st_samples_metrics(ids);
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
int gm_st_gpm_metrics(int ids[GM_M__GPU_END])
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
    int ids[GM_M__GPU_END], n = gm_st_gpm_metrics(ids);
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
    int ids[GM_M__GPU_END], n = gm_st_samples_metrics(ids);
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
    /* alerts.value_age_ms: how old a slow read group's value was (issue 30) */
    if (!has_column(db, "alerts", "value_age_ms"))
        gm_buf_puts(&b, "ALTER TABLE alerts ADD COLUMN value_age_ms INTEGER;\n");
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
int gm_st_schema_ensure(struct gm_store *st, struct gm_err *err)
{
    if (gm_st_exec_sql(st->db, "BEGIN IMMEDIATE", err, st->path) != SQLITE_OK)
        return err ? err->code : GM_E_IO;
    int64_t ver = pragma_int(st->db, "PRAGMA user_version");
    int64_t ntab = pragma_int(st->db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'");
    if (ver > GM_STORE_SCHEMA_VERSION) {
        gm_st_exec_sql(st->db, "ROLLBACK", NULL, st->path);
        return gm_err_set(err, GM_E_INVAL,
                          "store %s: schema version %" PRId64
                          " was written by a newer gpumon (this one knows version %d)",
                          st->path, ver, GM_STORE_SCHEMA_VERSION);
    }
    if (ver == 0 && ntab > 0) {
        gm_st_exec_sql(st->db, "ROLLBACK", NULL, st->path);
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
        if (gm_st_exec_sql(st->db, GM_STORE_MIGRATE_3_BEFORE, err, st->path) != SQLITE_OK) {
            gm_st_exec_sql(st->db, "ROLLBACK", NULL, st->path);
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
    int ok = gm_st_exec_sql(st->db, tables, err, st->path) == SQLITE_OK &&
             (!migrate || gm_st_exec_sql(st->db, after, err, st->path) == SQLITE_OK);
    if (ok) {
        view = columns_and_view_sql(st->db, &added);
        if (added.len)
            slog(st, 6,
                 "store %s: adding the column%s %s to samples (metrics stored since the store "
                 "was made; its older rows have NULL there)",
                 st->path, strchr(added.p, ',') ? "s" : "", added.p);
        ok = gm_st_exec_sql(st->db, view, err, st->path) == SQLITE_OK &&
             gm_st_exec_sql(st->db, code_rows, err, st->path) == SQLITE_OK &&
             gm_st_exec_sql(st->db, version_sql, err, st->path) == SQLITE_OK &&
             gm_st_exec_sql(st->db, "COMMIT", err, st->path) == SQLITE_OK;
    }
    int rc = 0;
    if (!ok) {
        gm_st_exec_sql(st->db, "ROLLBACK", NULL, st->path);
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
    int ids[GM_M__GPU_END], nparam = 4 + gm_st_samples_metrics(ids) + 1;
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
    int ids[GM_M__GPU_END], n = gm_st_gpm_metrics(ids);
    gm_buf_puts(&b, "INSERT OR REPLACE INTO gpm (ts, gpu, dup");
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, ", %s", gpm_col(ids[i], col, sizeof(col)));
    gm_buf_puts(&b, ") VALUES (?1, ?2, ?3");
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, ", ?%d", 4 + i);
    gm_buf_puts(&b, ")");
    return b.p;
}

int gm_st_prepare_all(struct gm_store *st, struct gm_err *err)
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
                      " fingerprint, active_ts, fired_ts, value_age_ms)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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

/* store_schema.h -- the SQLite store's schema, shared by the writer
 * (store*.c) and the report (report.c).  Private to src/store/.
 *
 * docs/store.md describes every table and column with its unit and scale;
 * change both together, and bump GM_STORE_SCHEMA_VERSION (with a migration
 * in store_sql.c) for anything an existing database would not already have,
 * but one thing: a samples column for a metric the registry newly stores.
 * store_sql.c adds those to an existing store by itself (ALTER TABLE ... ADD
 * COLUMN, the view made again) and records the version as for any open; the
 * version stays, since a gpumon that does not know the column writes and
 * reads such a store as before (it names the columns it uses).
 *
 * Scaling of the raw table: integers in small units so that SQLite's
 * variable-length integer encoding keeps a GPU-sample near 55 bytes on disk:
 * milliseconds since the epoch (UTC), MiB, centiwatts, millijoules, MHz,
 * whole percent and degrees Celsius.  The samples columns, their scale and
 * the view over them come from the metric registry (gm_metrics[].store,
 * store_scale, store_col; store_sql.c makes the SQL).  NULL means "not
 * available" (principle 3); the status column says whether the GPU or the
 * driver was down.
 */
#ifndef GM_STORE_SCHEMA_H
#define GM_STORE_SCHEMA_H

/* 2: the alerts table; 3: dup in the keys of samples and procs (the rows of
 * a wall clock that stepped back are kept, not ignored) */
#define GM_STORE_SCHEMA_VERSION 3

/* Row status codes (samples.status; also in the `codes` table). */
enum gm_store_status {
    GM_SST_OK = 0,           /* GPU answered; NULL values are not supported/not available */
    GM_SST_GPU_LOST = 1,     /* the GPU fell off the bus */
    GM_SST_GPU_NOPERM = 2,   /* no permission to open the GPU */
    GM_SST_GPU_ERROR = 3,    /* the GPU could not be opened for another reason */
    GM_SST_VALUE_ERROR = 4,  /* GPU ok, but at least one stored value failed to read */
    GM_SST_DRIVER_BASE = 10, /* + enum gm_driver_state: 11 no library ... 15 driver error */
};

/* Bits of rollup_*.energy_src: how the period's energy was obtained. */
enum { GM_ESRC_COUNTER = 1, GM_ESRC_POWER = 2 };

/* Throttle reasons summed in the rollups: X(column stem, clock event reason
 * bits (the registry's, gm_metrics[].bit; not a constant expression), report
 * name). */
#define GM_CER_BIT(id) gm_metrics[GM_M_CER_##id].bit
#define GM_STORE_THROTTLE(X)                                                                       \
    X(thermal, GM_CER_BIT(HW_THERMAL) | GM_CER_BIT(SW_THERMAL), "thermal")                         \
    X(power_cap, GM_CER_BIT(SW_POWER_CAP), "power_cap")                                            \
    X(power_brake, GM_CER_BIT(HW_POWER_BRAKE), "power_brake")                                      \
    X(hw_slowdown, GM_CER_BIT(HW_SLOWDOWN), "hw_slowdown")                                         \
    X(sync_boost, GM_CER_BIT(SYNC_BOOST), "sync_boost")                                            \
    X(app_clocks, GM_CER_BIT(APP_CLOCKS), "app_clocks")

#define GM_THR_ENUM(stem, bits, name) GM_THR_##stem,
enum { GM_STORE_THROTTLE(GM_THR_ENUM) GM_THR__COUNT };
#undef GM_THR_ENUM

/* The states table: GPU facts that change seldom (compute mode, PCIe link,
 * pending ECC repairs), a row per GPU when one of them changes, at a
 * store's first sample of the GPU, and at least hourly -- not a column per
 * sample, which would cost each GPU-sample a byte or two per fact.  The
 * value at a time is the GPU's newest row at or before it.  Columns: the
 * registry's CSV names (gm_metric_csv_col) of these metrics, as integers. */
#define GM_STORE_STATES(X)                                                                         \
    X(GM_M_COMPUTE_MODE)                                                                           \
    X(GM_M_PCIE_GEN_CUR)                                                                           \
    X(GM_M_PCIE_GEN_MAX)                                                                           \
    X(GM_M_PCIE_WIDTH_CUR)                                                                         \
    X(GM_M_PCIE_WIDTH_MAX)                                                                         \
    X(GM_M_ECC_UNCORR_VOL)                                                                         \
    X(GM_M_REMAP_PENDING)                                                                          \
    X(GM_M_RETIRED_PENDING)
/* A GPU's states row is written again after this long without a change, so
 * that a window never starts far from its GPU's last states row. */
#define GM_STORE_STATES_REFRESH_MS (3600LL * 1000)

/* The columns of rollup_1m and rollup_1h after (ts, gpu, task), in order. */
#define GM_ROLLUP_COLUMNS                                                                          \
    "n INTEGER NOT NULL, n_down INTEGER NOT NULL,"                                                 \
    " util_n INTEGER NOT NULL, util_sum INTEGER, util_min INTEGER, util_max INTEGER,"              \
    " mem_n INTEGER NOT NULL, mem_sum INTEGER, mem_min INTEGER, mem_max INTEGER,"                  \
    " power_n INTEGER NOT NULL, power_sum INTEGER, power_min INTEGER, power_max INTEGER,"          \
    " temp_n INTEGER NOT NULL, temp_sum INTEGER, temp_min INTEGER, temp_max INTEGER,"              \
    " sm_n INTEGER NOT NULL, sm_sum INTEGER, sm_min INTEGER, sm_max INTEGER,"                      \
    " dur_ms INTEGER NOT NULL, energy_j REAL, energy_src INTEGER NOT NULL,"                        \
    " thr_thermal_ms INTEGER, thr_power_cap_ms INTEGER, thr_power_brake_ms INTEGER,"               \
    " thr_hw_slowdown_ms INTEGER, thr_sync_boost_ms INTEGER, thr_app_clocks_ms INTEGER"

/* Who used each GPU, per hour (docs/store.md, docs/jobs.md): a row per
 * (hour, GPU, task, job, user, process name) with the GPU time, energy,
 * utilisation and throttled time of the intervals that group held the GPU
 * (a GPU shared by N groups gives each 1/N), its peak memory, and the first
 * and last moment seen.  job is core/attrib.h's key ("slurm:42", "pod:...",
 * "container:...", "unit:...", "user:..."), "" when the process is in none. */
#define GM_USAGE_TABLE                                                                             \
    "CREATE TABLE IF NOT EXISTS usage_1h (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"              \
    " task INTEGER NOT NULL, job TEXT NOT NULL, user TEXT NOT NULL, process TEXT NOT NULL,"        \
    " gpu_ms INTEGER NOT NULL, energy_j REAL, util_sum INTEGER NOT NULL, util_ms INTEGER NOT "     \
    "NULL,"                                                                                        \
    " mem_max_mib INTEGER, thr_ms INTEGER NOT NULL, first_ts INTEGER NOT NULL,"                    \
    " last_ts INTEGER NOT NULL, PRIMARY KEY (ts, gpu, task, job, user, process)) WITHOUT ROWID;\n"

#define GM_ROLLUP_TABLE(name)                                                                      \
    "CREATE TABLE IF NOT EXISTS " name " (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"              \
    " task INTEGER NOT NULL, " GM_ROLLUP_COLUMNS ", PRIMARY KEY (ts, gpu, task)) WITHOUT ROWID;\n"

/* The procs table's columns but dup, in the order of schema 1 and 2.  dup
 * follows the columns before it in the key: SQLite 3.40.0-3.41.0's
 * integrity_check reports false NULLs in WITHOUT ROWID tables whose key
 * columns are not declared first, in key order.  The samples table is made
 * from the registry (store_sql.c): (ts, gpu, dup, task, status), then one column
 * per metric with a store column (metrics.h), in store_col order. */
#define GM_PROCS_COLS "ts, gpu, pid, type, name, user, mem_used_mib, host_state"

/* Schema 1 and 2 to 3, around the schema in one transaction: a WITHOUT
 * ROWID key cannot change in place, so the raw tables (and the view over
 * samples, which the schema makes again) step aside before the schema
 * makes them keyed with dup, and their rows are copied after (dup 0; the
 * samples columns both tables have, store_sql.c). */
#define GM_STORE_MIGRATE_3_BEFORE                                                                  \
    "DROP VIEW IF EXISTS samples_v;\n"                                                             \
    "ALTER TABLE samples RENAME TO samples_v2;\n"                                                  \
    "ALTER TABLE procs RENAME TO procs_v2;\n"
#define GM_STORE_MIGRATE_3_AFTER_PROCS                                                             \
    "INSERT INTO procs (" GM_PROCS_COLS ") SELECT " GM_PROCS_COLS " FROM procs_v2;\n"              \
    "DROP TABLE procs_v2;\n"

/* The schema, idempotent (IF NOT EXISTS), run in one transaction: the
 * tables before samples, samples (store_sql.c), the tables after it, and last
 * the view samples_v (store_sql.c). */
#define GM_STORE_SCHEMA_BEFORE_SAMPLES                                                             \
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"               \
    "CREATE TABLE IF NOT EXISTS codes (kind TEXT NOT NULL, code INTEGER NOT NULL,"                 \
    " name TEXT NOT NULL, description TEXT NOT NULL, PRIMARY KEY (kind, code)) WITHOUT ROWID;\n"   \
    "CREATE TABLE IF NOT EXISTS gpus (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,"          \
    " name TEXT, gpu_index INTEGER, mem_total_mib INTEGER, first_seen INTEGER NOT NULL,"           \
    " last_seen INTEGER NOT NULL);\n"                                                              \
    "CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"         \
    " first_seen INTEGER NOT NULL);\n"
#define GM_STORE_SCHEMA_AFTER_SAMPLES                                                              \
    "CREATE TABLE IF NOT EXISTS procs (ts INTEGER NOT NULL, gpu INTEGER NOT NULL,"                 \
    " pid INTEGER NOT NULL, dup INTEGER NOT NULL DEFAULT 0,"                                       \
    " type INTEGER NOT NULL, name TEXT, user TEXT, mem_used_mib INTEGER,"                          \
    " host_state INTEGER NOT NULL, job_id TEXT, ppid INTEGER, sid INTEGER,"                        \
    " PRIMARY KEY (ts, gpu, pid, dup)) WITHOUT ROWID;\n"                                           \
    "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"              \
    " type TEXT NOT NULL, gpu INTEGER, task INTEGER, code INTEGER, text TEXT NOT NULL);\n"         \
    "CREATE INDEX IF NOT EXISTS events_ts ON events (ts);\n"                                       \
    "CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"              \
    " rule TEXT NOT NULL, severity TEXT NOT NULL, state TEXT NOT NULL, repeat INTEGER NOT NULL,"   \
    " gpu INTEGER, value TEXT, summary TEXT NOT NULL, fingerprint TEXT NOT NULL,"                  \
    " active_ts INTEGER, fired_ts INTEGER, value_age_ms INTEGER);\n"                               \
    "CREATE INDEX IF NOT EXISTS alerts_ts ON alerts (ts);\n" GM_USAGE_TABLE GM_ROLLUP_TABLE(       \
        "rollup_1m") GM_ROLLUP_TABLE("rollup_1h")

#endif /* GM_STORE_SCHEMA_H */

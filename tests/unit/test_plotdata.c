/* test_plotdata.c -- the chart's reader (src/store/plotdata.c): --metrics
 * parsing, the tier chosen by the window and its fallback, rollups of two
 * tasks merged (lowest min, highest max, summed averages), down rows,
 * throttle reasons from bits and from rollup times, marks by task, fired
 * alerts without repeats, the median step that a gap does not move. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/metrics.h"
#include "store/plotdata.h"
#include "store/store_schema.h"

#define S 1000000000LL
#define T0 1767225600000LL /* ms: 2026-01-01 00:00 UTC */

static void test_parse_metrics(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int ok;
        unsigned mask;
        const char *bad;
    } cases[] = {
        {"util", 1, 1u << GM_PM_UTIL, ""},
        {"power,util", 1, (1u << GM_PM_UTIL) | (1u << GM_PM_POWER), ""},
        {"util,memutil,mem,power,temp,clocks", 1, (1u << GM_PM__COUNT) - 1, ""},
        {"util,bogus", 0, 0, "bogus"},
        {"", 0, 0, ""},
        {"util,", 0, 0, ""},
        {"utilx", 0, 0, "utilx"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned mask = 0;
        char bad[80] = "?";
        int rc = gm_plot_parse_metrics(cases[i].in, &mask, bad, sizeof bad);
        assert_int_equal(rc == 0, cases[i].ok);
        if (cases[i].ok)
            assert_int_equal(mask, cases[i].mask);
        else
            assert_string_equal(bad, cases[i].bad);
    }
}

static char db_path[64];

static void exec(sqlite3 *db, const char *sql)
{
    char *e = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK)
        fail_msg("%s: %s", sql, e);
}

/* A store of two GPUs: raw samples of GPU 0 every second for 10 s with a
 * 20 s gap and a lost row; 1-minute rollups of two tasks; a 1-hour rollup
 * far back; marks of two tasks; an alert firing, repeating, resolving. */
static void make_store(void)
{
    snprintf(db_path, sizeof db_path, "/tmp/gmplotdata.%d.db", (int)getpid());
    unlink(db_path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    exec(db, GM_STORE_SCHEMA_BEFORE_SAMPLES);
    exec(db, "CREATE TABLE samples (ts INTEGER, gpu INTEGER, dup INTEGER, task INTEGER, status "
             "INTEGER, util_gpu_pct INTEGER, util_mem_pct INTEGER, mem_used_mib INTEGER, power_cw "
             "INTEGER, power_limit_cw INTEGER, temp_c INTEGER, clk_sm_mhz INTEGER, reasons "
             "INTEGER);");
    exec(db, GM_STORE_SCHEMA_AFTER_SAMPLES);
    exec(db, "INSERT INTO gpus VALUES (1, 'GPU-a', 'H100', 0, 81920, 0, 0),"
             " (2, 'GPU-b', 'H100', 1, 81920, 0, 0);"
             "INSERT INTO tasks VALUES (1, 'default', 0), (2, 'run42', 0);");
    char sql[2048];
    for (int i = 0; i < 10; i++) {
        int64_t ts = T0 + (i < 5 ? i : i + 20) * 1000;
        snprintf(sql, sizeof sql,
                 "INSERT INTO samples VALUES (%lld, 1, 0, 1, %d, %d, 40, 1024, 50000, 70000, 60, "
                 "1980, %d);",
                 (long long)ts, i == 7 ? 1 : 0, 90 + i, i == 3 ? 0x40 : 0x4);
        exec(db, sql);
    }
    /* two tasks in the same minute of GPU 1, 3 h before T0 */
    const char *cols = "(ts, gpu, task, n, n_down, util_n, util_sum, util_min, util_max, mem_n, "
                       "mem_sum, mem_min, mem_max, power_n, power_sum, power_min, power_max, "
                       "temp_n, temp_sum, temp_min, temp_max, sm_n, sm_sum, sm_min, sm_max, "
                       "dur_ms, energy_j, energy_src, thr_thermal_ms, thr_power_cap_ms, "
                       "thr_power_brake_ms, thr_hw_slowdown_ms, thr_sync_boost_ms, "
                       "thr_app_clocks_ms)";
    snprintf(sql, sizeof sql,
             "INSERT INTO rollup_1m %s VALUES (%lld, 2, 1, 30, 0, 30, 1500, 10, 90, 30, 30720, "
             "1024, 1024, 30, 900000, 10000, 40000, 30, 1500, 40, 60, 30, 30000, 1000, 1000, "
             "30000, NULL, 0, 7000, 0, 0, 0, 0, 0);",
             cols, (long long)(T0 - 3 * 3600000));
    exec(db, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO rollup_1m %s VALUES (%lld, 2, 2, 30, 0, 30, 2700, 5, 100, 30, 30720, "
             "1024, 1024, 30, 900000, 10000, 40000, 30, 1500, 40, 70, 30, 30000, 1000, 1000, "
             "30000, NULL, 0, 6000, 0, 0, 0, 0, 0);",
             cols, (long long)(T0 - 3 * 3600000));
    exec(db, sql);
    /* a 1-hour rollup 20 days back, the GPU down all of it */
    snprintf(sql, sizeof sql,
             "INSERT INTO rollup_1h %s VALUES (%lld, 2, 1, 10, 10, 0, NULL, NULL, NULL, 0, NULL, "
             "NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, "
             "NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL);",
             cols, (long long)(T0 - 20 * 86400000LL));
    exec(db, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO events (ts, type, gpu, task, code, text) VALUES "
             "(%lld, 'mark', NULL, 1, NULL, 'epoch 1'), (%lld, 'mark', NULL, 2, NULL, 'run42 "
             "start'), (%lld, 'gpu', 1, 1, 0, 'not a mark');",
             (long long)T0 + 2000, (long long)T0 + 3000, (long long)T0 + 4000);
    exec(db, sql);
    snprintf(sql, sizeof sql,
             "INSERT INTO alerts (ts, rule, severity, state, repeat, gpu, value, summary, "
             "fingerprint) VALUES (%lld, 'hot', 'warning', 'firing', 0, 1, '90', 's', 'f'),"
             " (%lld, 'hot', 'warning', 'firing', 1, 1, '90', 's', 'f'),"
             " (%lld, 'hot', 'warning', 'resolved', 0, 1, '80', 's', 'f'),"
             " (%lld, 'other', 'warning', 'firing', 0, 2, '1', 's', 'g');",
             (long long)T0 + 1000, (long long)T0 + 2000, (long long)T0 + 3000,
             (long long)T0 + 4000);
    exec(db, sql);
    sqlite3_close(db);
}

static void test_raw(void **state)
{
    (void)state;
    make_store();
    struct gm_plot_data d;
    struct gm_err err = {0};
    int64_t to = T0 * 1000000 + 60 * S;
    assert_int_equal(gm_plot_read_store(&d, db_path, to - 3600 * S, to, NULL, 0, &err), 0);
    assert_int_equal(d.tier, GM_PTIER_RAW);
    assert_int_equal(d.ngpu, 1); /* GPU 1 has no raw rows in the window */
    const struct gm_plot_gpu *g = &d.gpu[0];
    assert_int_equal(g->n, 10);
    assert_int_equal(g->step_ns, S); /* the 20 s gap does not move the median */
    assert_true(g->p[7].down && isnan(g->p[7].avg[GM_PM_UTIL]));
    assert_true(fabs(g->p[0].avg[GM_PM_POWER] - 500) < 1e-9);
    assert_true(fabs(g->power_limit_w - 700) < 1e-9);
    assert_true(fabs(g->mem_total_b - 81920.0 * 1048576) < 1);
    assert_int_equal(g->p[3].throttle, 1 << GM_PT_THERMAL);
    assert_int_equal(g->p[0].throttle, 1 << GM_PT_POWER_CAP);
    assert_true(isnan(g->temp_slowdown_c));
    /* events: two marks (not the gpu event), one fired alert per alert (no repeat, no resolve) */
    int marks = 0, alerts = 0;
    for (size_t i = 0; i < d.nev; i++) {
        marks += d.ev[i].kind == GM_PE_MARK;
        alerts += d.ev[i].kind == GM_PE_ALERT;
    }
    assert_int_equal(marks, 2);
    assert_int_equal(alerts, 2);
    assert_string_equal(d.ev[0].text, "hot (GPU 0)");
    gm_plot_data_free(&d);

    /* --task run42: its mark only, and no raw rows (all are the default task's) */
    assert_int_equal(gm_plot_read_store(&d, db_path, to - 3600 * S, to, "run42", 0, &err), 0);
    assert_int_equal(gm_plot_data_points(&d), 0);
    gm_plot_data_free(&d);

    /* --id 1: GPU 0's alert left out, GPU 1's kept */
    assert_int_equal(gm_plot_read_store(&d, db_path, to - 3600 * S, to, NULL, 2, &err), 0);
    alerts = 0;
    for (size_t i = 0; i < d.nev; i++)
        alerts += d.ev[i].kind == GM_PE_ALERT;
    assert_int_equal(alerts, 1);
    gm_plot_data_free(&d);
    unlink(db_path);
}

static void test_rollups(void **state)
{
    (void)state;
    make_store();
    struct gm_plot_data d;
    struct gm_err err = {0};
    int64_t to = T0 * 1000000 + 60 * S;
    /* 12 h: the 1-minute rollups; the two tasks' rows are one point */
    assert_int_equal(gm_plot_read_store(&d, db_path, to - 12 * 3600 * S, to, NULL, 0, &err), 0);
    assert_int_equal(d.tier, GM_PTIER_1M);
    assert_int_equal(d.ngpu, 1);
    const struct gm_plot_gpu *g = &d.gpu[0];
    assert_int_equal(g->index, 1);
    assert_int_equal(g->n, 1);
    assert_true(fabs(g->p[0].avg[GM_PM_UTIL] - 70) < 1e-9); /* (1500 + 2700) / 60 */
    assert_true(fabs(g->p[0].lo[GM_PM_UTIL] - 5) < 1e-9);
    assert_true(fabs(g->p[0].hi[GM_PM_UTIL] - 100) < 1e-9);
    assert_true(fabs(g->p[0].hi[GM_PM_TEMP] - 70) < 1e-9);
    assert_true(isnan(g->p[0].avg[GM_PM_MEMUTIL])); /* not in the rollups */
    /* 13 s of thermal in 60 s observed: over a fifth */
    assert_int_equal(g->p[0].throttle, 1 << GM_PT_THERMAL);
    assert_int_equal(g->step_ns, 60 * S);
    gm_plot_data_free(&d);

    /* 30 days: the 1-hour rollups; the down hour is a down point */
    assert_int_equal(gm_plot_read_store(&d, db_path, to - 30 * 86400 * S, to, NULL, 0, &err), 0);
    assert_int_equal(d.tier, GM_PTIER_1H);
    assert_int_equal(gm_plot_data_points(&d), 1);
    assert_true(d.gpu[0].p[0].down);
    gm_plot_data_free(&d);

    /* 7 days with no 1-minute rows but the hour: falls back to the hours */
    assert_int_equal(gm_plot_read_store(&d, db_path, T0 * 1000000 - 25 * 86400 * S,
                                        T0 * 1000000 - 18 * 86400 * S, NULL, 0, &err),
                     0);
    assert_int_equal(d.tier, GM_PTIER_1H);
    assert_int_equal(gm_plot_data_points(&d), 1);
    gm_plot_data_free(&d);
    unlink(db_path);
}

static void test_errors(void **state)
{
    (void)state;
    struct gm_plot_data d;
    struct gm_err err = {0};
    assert_int_equal(gm_plot_read_store(&d, "/nonexistent/gpumon.db", 0, S, NULL, 0, &err),
                     GM_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/gpumon.db: no such history database"));
    gm_plot_data_free(&d);
    char p[64];
    snprintf(p, sizeof p, "/tmp/gmplotdata.%d.txt", (int)getpid());
    FILE *f = fopen(p, "w");
    fputs("not a database at all, just some text that is long enough to be read\n", f);
    fclose(f);
    assert_int_not_equal(gm_plot_read_store(&d, p, 0, S, NULL, 0, &err), 0);
    assert_non_null(strstr(err.msg, p));
    gm_plot_data_free(&d);
    unlink(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_metrics),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_rollups),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

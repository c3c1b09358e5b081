/* test_diag_history.c -- unit tests for the CSV history reader of
 * `diagnose --csv` (src/store/history_csv.c).
 *
 * Files written here: the agent's header with rows that quote a hostile GPU
 * name (comma, quote, newline), empty cells (not recorded: NAN, never 0),
 * reason names, a lost GPU, a window; the same gzip-compressed; and bad
 * input (no time column, a bad time, a non-numeric value) whose errors must
 * name the file and the line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>
#include <zlib.h>

#include "core/snapshot.h"
#include "store/history.h"
#include "store/store.h"

static const char header[] =
    "time,host,task_id,gpu,uuid,name,utilization_gpu_percent,utilization_memory_percent,"
    "memory_used_mib,memory_total_mib,power_draw_w,power_limit_w,temperature_gpu_c,"
    "clocks_sm_mhz,clocks_mem_mhz,clocks_event_reasons,status\n";

static const char rows[] =
    "2026-12-03T12:00:00.000+00:00,h,t,0,GPU-a,\"evil, \"\"name\"\"\nline2\",97,40,1024,81559,"
    "600.5,700.00,63,1980,2619,sw_power_cap|hw_slowdown,ok\n"
    "2026-12-03T12:00:01.500+00:00,h,t,0,GPU-a,x,,,,81559,,700.00,,,,,value_error\n"
    "2026-12-03T20:00:02.000+08:00,h,t,1,GPU-b,y,,,,,,,,,,,gpu_lost\n";

struct got {
    size_t n;
    struct gm_hist_row r[8];
    char name0[64];
};

static int collect(void *arg, const struct gm_hist_row *r)
{
    struct got *g = arg;
    if (g->n == 0)
        snprintf(g->name0, sizeof g->name0, "%s", r->name);
    if (g->n < 8)
        g->r[g->n] = *r;
    g->n++;
    return 0;
}

static char *write_tmp(const char *a, const char *b, int gz)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gm_dgh_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    if (gz) {
        gzFile z = gzopen(path, "wb");
        gzputs(z, a);
        gzputs(z, b);
        gzclose(z);
    } else {
        FILE *f = fopen(path, "w");
        fputs(a, f);
        fputs(b, f);
        fclose(f);
    }
    return path;
}

static void test_rows(void **state)
{
    (void)state;
    for (int gz = 0; gz < 2; gz++) {
        char *p = write_tmp(header, rows, gz);
        struct got g = {0};
        size_t n = 0;
        struct gm_err err = {0};
        assert_int_equal(gm_hist_read_csv(p, 0, 0, collect, &g, &n, &err), 0);
        assert_int_equal(n, 3);
        assert_string_equal(g.name0, "evil, \"name\"\nline2");
        assert_int_equal(g.r[0].ts_ns, 1796299200LL * 1000000000LL);
        assert_true(fabs(g.r[0].util - 97) < 1e-9);
        assert_true(fabs(g.r[0].mem_used_b - 1024.0 * 1048576) < 1);
        assert_true(fabs(g.r[0].power_w - 600.5) < 1e-9);
        assert_int_equal(g.r[0].reasons, 0x4 | 0x8);
        assert_int_equal(g.r[0].nproc, -1);
        assert_int_equal(g.r[0].down, 0);
        /* empty cells are not recorded: NAN, never 0 */
        assert_true(isnan(g.r[1].util));
        assert_true(isnan(g.r[1].power_w));
        assert_int_equal(g.r[1].reasons, -1);
        assert_int_equal(g.r[1].ts_ns, 1796299201500LL * 1000000LL);
        assert_int_equal(g.r[1].down, 0);
        /* +08:00 */
        assert_int_equal(g.r[2].ts_ns, 1796299202LL * 1000000000LL);
        assert_int_equal(g.r[2].gpu_index, 1);
        assert_int_equal(g.r[2].down, 1);
        /* a window */
        struct got w = {0};
        assert_int_equal(gm_hist_read_csv(p, 1796299201LL * 1000000000LL, 0, collect, &w, &n, &err),
                         0);
        assert_int_equal(n, 2);
        unlink(p);
    }
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *head, *body, *want;
    } cases[] = {
        {"gpu,util\n", "0,1\n", ":1: not a gpumon GPU log"},
        {header, "2026-12-03 12:00:00,h,t,0,u,n,1,1,1,1,1,1,1,1,1,none,ok\n", ":2: bad time"},
        {header, "2026-12-03T12:00:00Z,h,t,x,u,n,1,1,1,1,1,1,1,1,1,none,ok\n", ":2: bad gpu"},
        {header,
         "2026-12-03T12:00:00Z,h,t,0,u,n,1,1,1,1,1,1,1,1,1,none,ok\n"
         "2026-12-03T12:00:01Z,h,t,0,u,n,lots,1,1,1,1,1,1,1,1,none,ok\n",
         ":3: column utilization_gpu_percent: not a number 'lots'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = write_tmp(cases[i].head, cases[i].body, 0);
        struct got g = {0};
        size_t n = 0;
        struct gm_err err = {0};
        assert_int_not_equal(gm_hist_read_csv(p, 0, 0, collect, &g, &n, &err), 0);
        if (!strstr(err.msg, cases[i].want) || strncmp(err.msg, p, strlen(p)) != 0) {
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, err.msg, cases[i].want);
            fail();
        }
        unlink(p);
    }
    struct gm_err err = {0};
    size_t n = 0;
    assert_int_equal(gm_hist_read_csv("/nonexistent/x.csv", 0, 0, collect, NULL, &n, &err),
                     GM_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/x.csv"));
}

/* The columns diagnosis reads beyond the default set (states as the log
 * writes them: Default/Exclusive_Process, Yes/No), a status with a missing
 * list, and the processes file of the same task and day beside the log
 * (plain and compressed): per sample the count, the dead ones, the memory
 * and the job (the live compute process with the lowest pid); a sample
 * without rows there has no processes (0), and a bad pid names the file. */
static void test_diag_columns_procs(void **state)
{
    (void)state;
    static const char dhead[] =
        "time,host,task_id,gpu,utilization_gpu_percent,utilization_encoder_percent,"
        "pcie_rx_mibps,pcie_link_gen_current,pcie_link_gen_max,pcie_link_width_current,"
        "pcie_link_width_max,compute_mode,ecc_uncorrected_volatile,remapped_rows_pending,"
        "gpm_sm_active_percent,gpm_pcie_rx_mibps,status\n";
    static const char drows[] =
        "2026-12-03T12:00:00.000+00:00,h,t,0,50,96,,3,5,8,16,Exclusive_Process,2,Yes,41.5,1000,"
        "\"ok;missing=pcie_rx_mibps:not_collected\"\n"
        "2026-12-03T12:00:01.000+00:00,h,t,0,50,,2000,5,5,16,16,Default,0,No,,,ok\n";
    static const char phead[] = "time,host,task_id,gpu,uuid,pid,user,process_name,command,"
                                "used_memory_mib,type,host_state\n";
    static const char prows[] =
        "2026-12-03T12:00:00.000+00:00,h,t,0,u,900,r,\"b,ad\",c,100,C,alive\n"
        "2026-12-03T12:00:00.000+00:00,h,t,0,u,77,r,dead,c,200,C,gone\n"
        "2026-12-03T12:00:00.000+00:00,h,t,0,u,800,r,\"tr\"\"ain\",c,50,C,"
        "alive\n";
    char dir[] = "/tmp/gm_dgc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (int gz = 0; gz < 2; gz++) {
        char log[128], procs[128];
        snprintf(log, sizeof log, "%s/t_20261203.csv", dir);
        snprintf(procs, sizeof procs, "%s/t_procs_20261203.csv%s", dir, gz ? ".gz" : "");
        FILE *f = fopen(log, "w");
        fputs(dhead, f);
        fputs(drows, f);
        fclose(f);
        if (gz) {
            gzFile z = gzopen(procs, "wb");
            gzputs(z, phead);
            gzputs(z, prows);
            gzclose(z);
        } else {
            f = fopen(procs, "w");
            fputs(phead, f);
            fputs(prows, f);
            fclose(f);
        }
        struct got g = {0};
        size_t n = 0;
        struct gm_err err = {0};
        assert_int_equal(gm_hist_read_csv(log, 0, 0, collect, &g, &n, &err), 0);
        assert_int_equal(n, 2);
        const struct gm_hist_row *a = &g.r[0], *b = &g.r[1];
        assert_int_equal(a->down, 0);
        assert_true(fabs(a->enc_util - 96) < 1e-9);
        assert_true(fabs(a->pcie_rx_Bps - 1000.0 * 1048576) < 1); /* GPM's, the counter empty */
        assert_true(fabs(b->pcie_rx_Bps - 2000.0 * 1048576) < 1);
        assert_int_equal(a->pcie_gen, 3);
        assert_int_equal(a->pcie_gen_max, 5);
        assert_int_equal(a->pcie_width, 8);
        assert_int_equal(a->compute_mode, 3);
        assert_int_equal(b->compute_mode, 0);
        assert_true(fabs(a->ecc_uncorrected - 2) < 1e-9);
        assert_true(fabs(a->remap_pending - 1) < 1e-9 && fabs(b->remap_pending) < 1e-9);
        assert_true(isnan(a->retired_pending)); /* no column: not recorded */
        assert_true(fabs(a->sm_active - 0.415) < 1e-9);
        assert_true(isnan(b->sm_active));
        assert_true(isnan(b->enc_util));
        assert_int_equal(a->nproc, 3);
        assert_int_equal(a->nproc_dead, 1);
        assert_true(fabs(a->proc_mem_b - 350.0 * 1048576) < 1);
        assert_true(fabs(a->dead_mem_b - 200.0 * 1048576) < 1); /* the gone pid 77's own */
        assert_int_equal(b->nproc, 0);
        assert_int_equal(b->nproc_dead, 0);
        assert_true(b->dead_mem_b == 0);
        unlink(procs);
    }
    /* a bad pid in the processes file: the error names that file and the line */
    char log[128], procs[128];
    snprintf(log, sizeof log, "%s/t_20261203.csv", dir);
    snprintf(procs, sizeof procs, "%s/t_procs_20261203.csv", dir);
    FILE *f = fopen(procs, "w");
    fputs(phead, f);
    fputs("2026-12-03T12:00:00.000+00:00,h,t,0,u,12x,r,n,c,1,C,alive\n", f);
    fclose(f);
    struct got g = {0};
    size_t n = 0;
    struct gm_err err = {0};
    assert_int_not_equal(gm_hist_read_csv(log, 0, 0, collect, &g, &n, &err), 0);
    assert_non_null(strstr(err.msg, "t_procs_20261203.csv:2: bad pid '12x'"));
    unlink(procs);
    unlink(log);
    rmdir(dir);
}

/* Issue 30: the agent writes a slow read group's value (ECC counts, PCIe
 * link: read every 10 s) only on the row that read it; the rows between
 * have an empty cell whose status says "between_reads".  Those rows take
 * the GPU's last read value, as the store's states table gives it; an
 * empty cell for any other reason stays unknown, and a GPU never takes
 * another GPU's values. */
static void test_between_reads(void **state)
{
    (void)state;
    static const char head[] = "time,host,task_id,gpu,utilization_gpu_percent,"
                               "pcie_link_gen_current,ecc_uncorrected_volatile,status\n";
    static const char body[] =
        "2026-12-03T12:00:00.000+00:00,h,t,0,50,5,2,ok\n"
        "2026-12-03T12:00:00.000+00:00,h,t,1,50,,7,"
        "ok;missing=pcie_link_gen_current:not_supported\n"
        "2026-12-03T12:00:01.000+00:00,h,t,0,51,,,"
        "\"ok;missing=pcie_link_gen_current:between_reads,ecc_uncorrected_volatile:between_"
        "reads\"\n"
        "2026-12-03T12:00:01.000+00:00,h,t,1,51,,,"
        "\"ok;missing=pcie_link_gen_current:not_supported,ecc_uncorrected_volatile:between_"
        "reads\"\n"
        "2026-12-03T12:00:02.000+00:00,h,t,0,52,,,"
        "\"ok;missing=pcie_link_gen_current:between_reads,ecc_uncorrected_volatile:error\"\n"
        "2026-12-03T12:00:03.000+00:00,h,t,0,53,4,,"
        "\"ok;missing=ecc_uncorrected_volatile:between_reads\"\n";
    char *p = write_tmp(head, body, 0);
    struct got g = {0};
    size_t n = 0;
    struct gm_err err = {0};
    assert_int_equal(gm_hist_read_csv(p, 0, 0, collect, &g, &n, &err), 0);
    unlink(p);
    assert_int_equal(n, 6);
    static const struct {
        uint32_t gpu;
        int gen;
        double ecc; /* NAN: unknown */
    } want[] = {{0, 5, 2}, {1, -1, 7}, {0, 5, 2}, {1, -1, 7}, {0, 5, NAN}, {0, 4, NAN}};
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(g.r[i].gpu_index, want[i].gpu);
        assert_int_equal(g.r[i].pcie_gen, want[i].gen);
        if (isnan(want[i].ecc))
            assert_true(isnan(g.r[i].ecc_uncorrected));
        else
            assert_true(fabs(g.r[i].ecc_uncorrected - want[i].ecc) < 1e-9);
        assert_true(fabs(g.r[i].util - (50 + (i < 4 ? (double)(i / 2) : (double)i - 2))) < 1e-9);
    }
}

static int job_of(void *arg, const struct gm_hist_row *r)
{
    if (r->nproc > 0)
        snprintf(arg, 64, "%s", r->job);
    return 0;
}

/* The job of a sample is its live compute process with the lowest pid: its
 * job id when the log has one, else its launcher parent ("parent:<PPID>",
 * when the log has ppid and sid), else "pid:<PID>" -- never its name (issue
 * 25, point 1: every trainer is "python3"), and not a login session's
 * "user:<UID>" (one person's unrelated jobs). */
static void test_job_name(void **state)
{
    (void)state;
    static const struct {
        const char *header, *rows, *want;
    } cases[] = {
        {"time,gpu,pid,process_name,type,host_state\n",
         "2026-12-03T12:00:00Z,0,900,\"b,ad\",C,alive\n"
         "2026-12-03T12:00:00Z,0,77,dead,C,gone\n"
         "2026-12-03T12:00:00Z,0,800,\"tr\"\"ain\",C,alive\n"
         "2026-12-03T12:00:00Z,0,5,gfx,G,alive\n",
         "pid:800"},
        {"time,gpu,pid,process_name,type,host_state,job_id\n",
         "2026-12-03T12:00:00Z,0,900,python3,C,alive,slurm:9\n"
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,slurm:42\n",
         "slurm:42"},
        {"time,gpu,pid,process_name,type,host_state,job_id\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,user:1000\n", "pid:800"},
        /* the process tree (issue 25, point 3): a rank whose parent is a
         * launcher (not init, not its session's leader) is the launcher's job */
        {"time,gpu,pid,process_name,type,host_state,job_id,ns_pid,ppid,sid\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,user:1000,,700,600\n", "parent:700"},
        {"time,gpu,pid,process_name,type,host_state,job_id,ns_pid,ppid,sid\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,,,600,600\n", "pid:800"},
        {"time,gpu,pid,process_name,type,host_state,job_id,ns_pid,ppid,sid\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,,,1,1\n", "pid:800"},
        {"time,gpu,pid,process_name,type,host_state,job_id,ns_pid,ppid,sid\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,slurm:42,,700,600\n", "slurm:42"},
        /* a bad parent or session stops the reading, naming the file and line
         * ("!" + the message's tail) */
        {"time,gpu,pid,process_name,type,host_state,job_id,ns_pid,ppid,sid\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,,,7x,600\n", "!:2: bad ppid '7x'"},
        {"time,gpu,pid,process_name,type,host_state,job_id,ns_pid,ppid,sid\n",
         "2026-12-03T12:00:00Z,0,800,python3,C,alive,,,700,-1\n", "!:2: bad sid '-1'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[] = "/tmp/gm_dgj_XXXXXX";
        assert_non_null(mkdtemp(dir));
        char log[128], procs[128], job[64] = "";
        snprintf(log, sizeof log, "%s/run_20261203.csv", dir);
        snprintf(procs, sizeof procs, "%s/run_procs_20261203.csv", dir);
        FILE *f = fopen(log, "w");
        fputs("time,gpu,status\n2026-12-03T12:00:00Z,0,ok\n", f);
        fclose(f);
        f = fopen(procs, "w");
        fputs(cases[i].header, f);
        fputs(cases[i].rows, f);
        fclose(f);
        size_t n = 0;
        struct gm_err err = {0};
        int rc = gm_hist_read_csv(log, 0, 0, job_of, job, &n, &err);
        if (cases[i].want[0] == '!') {
            if (rc == 0 || !strstr(err.msg, procs) || !strstr(err.msg, cases[i].want + 1))
                fail_msg("case %zu: rc %d '%s', want '%s' in %s", i, rc, err.msg, cases[i].want + 1,
                         procs);
        } else if (rc != 0 || strcmp(job, cases[i].want) != 0) {
            fail_msg("case %zu: rc %d '%s', job '%s', want '%s'", i, rc, err.msg, job,
                     cases[i].want);
        }
        unlink(procs);
        unlink(log);
        rmdir(dir);
    }
}

struct jobs_seen {
    char job[2][64];
};

static int job_per_gpu(void *arg, const struct gm_hist_row *r)
{
    struct jobs_seen *s = arg;
    if (r->gpu_index < 2 && r->nproc > 0)
        snprintf(s->job[r->gpu_index], sizeof s->job[0], "%s", r->job);
    return 0;
}
/* The store keeps each process's parent and session (procs.ppid, sid), so
 * history groups a job by its process tree as live does (issue 25, point
 * 3): ranks of one launcher read "parent:<PPID>", a process whose parent is
 * its session's leader reads "pid:<PID>".  A store from before those
 * columns (dropped here) is read without them: "pid:<PID>", not an error. */
static void test_store_job_tree(void **state)
{
    (void)state;
    char dir[] = "/tmp/gm_dgt_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[128];
    snprintf(db, sizeof db, "%s/h.db", dir);
    struct gm_store_opts o = {
        .path = db, .task = "t", .commit_interval_ns = 3600 * 1000000000LL, .procs = 1};
    struct gm_err err = {0};
    struct gm_store *st = gm_store_open(&o, &err);
    if (!st)
        fail_msg("gm_store_open: %s", err.msg);
    static const struct {
        uint32_t pid, ppid, sid;
    } procs[] = {{800, 700, 600}, {900, 600, 600}};
    int64_t t0 = (int64_t)1764763200 * 1000000000LL;
    for (int k = 0; k < 3; k++) {
        struct gm_snapshot *s = gm_snapshot_new();
        s->wall_ns = s->mono_ns = t0 + k * 1000000000LL;
        gm_snapshot_set_gpus(s, 2);
        for (uint32_t g = 0; g < 2; g++) {
            snprintf(s->gpus[g].str[GM_S_UUID], GM_STR_MAX, "GPU-%u", g);
            s->gpus[g].m[GM_M_UUID] = gm_v_u64(0);
            s->gpus[g].m[GM_M_UTIL_GPU] = gm_v_u64(90);
            struct gm_proc p;
            memset(&p, 0, sizeof p);
            p.gpu = g;
            p.pid = procs[g].pid;
            p.ppid = procs[g].ppid;
            p.sid = procs[g].sid;
            p.type = GM_PT_COMPUTE;
            p.host_state = GM_HS_ALIVE;
            p.used_memory = gm_v_u64(1 << 30);
            snprintf(p.name, sizeof p.name, "python3");
            gm_snapshot_add_proc_take(s, &p);
        }
        assert_int_equal(gm_store_write(st, s), 0);
        gm_snapshot_free(s);
    }
    gm_store_close(st);
    for (int old = 0; old < 2; old++) {
        if (old) {
            sqlite3 *w = NULL;
            char *msg = NULL;
            assert_int_equal(sqlite3_open(db, &w), SQLITE_OK);
            /* the table as a store from before the process tree wrote it:
             * rebuilt without ppid and sid (ALTER TABLE ... DROP COLUMN
             * needs SQLite 3.35; the release build's Debian 11 has 3.34) */
            char cols[1024] = "";
            sqlite3_stmt *q = NULL;
            assert_int_equal(sqlite3_prepare_v2(w, "PRAGMA table_info(procs)", -1, &q, NULL),
                             SQLITE_OK);
            while (sqlite3_step(q) == SQLITE_ROW) {
                const char *c = (const char *)sqlite3_column_text(q, 1);
                if (strcmp(c, "ppid") == 0 || strcmp(c, "sid") == 0)
                    continue;
                size_t l = strlen(cols);
                snprintf(cols + l, sizeof cols - l, "%s\"%s\"", l ? ", " : "", c);
            }
            sqlite3_finalize(q);
            char sql[1400];
            snprintf(sql, sizeof sql,
                     "CREATE TABLE procs_old AS SELECT %s FROM procs; DROP TABLE procs; "
                     "ALTER TABLE procs_old RENAME TO procs",
                     cols);
            if (sqlite3_exec(w, sql, NULL, NULL, &msg) != SQLITE_OK)
                fail_msg("dropping the columns: %s", msg);
            sqlite3_close(w);
        }
        struct jobs_seen seen = {{"", ""}};
        size_t n = 0;
        memset(&err, 0, sizeof err);
        if (gm_hist_read_store(db, t0 - 1000000000LL, t0 + 10 * 1000000000LL, NULL, job_per_gpu,
                               &seen, &n, &err) != 0)
            fail_msg("%s store: %s", old ? "old" : "new", err.msg);
        assert_int_equal(n, 6);
        assert_string_equal(seen.job[0], old ? "pid:800" : "parent:700");
        assert_string_equal(seen.job[1], "pid:900");
    }
    char path[160];
    static const char *const files[] = {"h.db", "h.db-wal", "h.db-shm"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* The seeds' logger (the first article's gpu_monitor.sh): its own header,
 * local time without an offset ("date '+%Y-%m-%d %H:%M:%S'", or with
 * "%z"), the cells as `IFS=, read` leaves them (a space before each
 * value), nvidia-smi's "[N/A]" for absent values, and its error line
 * "$TS,$TASK_ID,ERROR,nvidia-smi failed" for a failed sample. */
static const char seeds_header[] =
    "time,task_id,gpu_id,gpu_name,utilization_percent,memory_used_mib,memory_total_mib,"
    "power_draw_w,temperature_c,sm_clock_mhz,mem_clock_mhz\n";

static void test_seeds_logger(void **state)
{
    (void)state;
    static const char body[] =
        "2025-06-01 10:00:00,training_run1,0,NVIDIAGeForceRTX4090, 35, 6000, 24564, 120.50, 60, "
        "2520, 10501\n"
        "2025-06-01 10:00:00,training_run1,1,NVIDIAGeForceRTX4090, 0, 1, 24564, [N/A], 41, 210, "
        "405\n"
        "2025-06-01 10:00:10,training_run1,ERROR,nvidia-smi failed\n"
        "2025-06-01 10:00:20 +0000,training_run1,0,NVIDIAGeForceRTX4090, 38, 6010, 24564, "
        "121.00, 61, 2520, 10501\n";
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "CST-8", 1); /* the logger's local time: UTC+8 */
    tzset();
    char *p = write_tmp(seeds_header, body, 0);
    struct got g = {0};
    size_t n = 0;
    struct gm_err err = {0};
    int rc = gm_hist_read_csv(p, 0, 0, collect, &g, &n, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(n, 3); /* the error line is a sample not taken, not a row */
    assert_string_equal(g.name0, "NVIDIAGeForceRTX4090");
    /* 10:00:00 at UTC+8 is 02:00:00Z */
    assert_int_equal(g.r[0].ts_ns, 1748743200LL * 1000000000LL);
    assert_int_equal(g.r[0].gpu_index, 0);
    assert_true(fabs(g.r[0].util - 35) < 1e-9);
    assert_true(fabs(g.r[0].mem_used_b - 6000.0 * 1048576) < 1);
    assert_true(fabs(g.r[0].mem_total_b - 24564.0 * 1048576) < 1);
    assert_true(fabs(g.r[0].power_w - 120.5) < 1e-9);
    assert_true(fabs(g.r[0].temp_c - 60) < 1e-9);
    assert_true(fabs(g.r[0].clk_sm_mhz - 2520) < 1e-9);
    assert_true(fabs(g.r[0].clk_mem_mhz - 10501) < 1e-9);
    /* what the logger has no column for is not recorded, never 0 */
    assert_true(isnan(g.r[0].power_limit_w));
    assert_true(isnan(g.r[0].util_mem));
    assert_int_equal(g.r[0].reasons, -1);
    assert_int_equal(g.r[0].nproc, -1);
    /* [N/A] is absent */
    assert_int_equal(g.r[1].gpu_index, 1);
    assert_true(isnan(g.r[1].power_w));
    /* an explicit offset wins over the local zone */
    assert_int_equal(g.r[2].ts_ns, 1748772020LL * 1000000000LL);
    unlink(p);

    /* errors still name the file and line */
    static const struct {
        const char *body, *want;
    } bad[] = {
        {"2025-06-01T10:00:00,t,0,n,1,1,1,1,1,1,1\n", ":2: bad time '2025-06-01T10:00:00'"},
        {"2025-06-01 10:00:00,t,0,n,1,1,1,1,1,1,1\n2025-06-01 10:00:01,t,0,n, x,1,1,1,1,1,1\n",
         ":3: column utilization_percent: not a number 'x'"},
        {"2025-06-01 25:00:00,t,0,n,1,1,1,1,1,1,1\n", ":2: bad time"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = write_tmp(seeds_header, bad[i].body, 0);
        struct got b = {0};
        assert_int_not_equal(gm_hist_read_csv(p, 0, 0, collect, &b, &n, &err), 0);
        if (!strstr(err.msg, bad[i].want) || strncmp(err.msg, p, strlen(p)) != 0) {
            fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, err.msg, bad[i].want);
            fail();
        }
        unlink(p);
    }
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_diag_columns_procs),
        cmocka_unit_test(test_between_reads),
        cmocka_unit_test(test_job_name),
        cmocka_unit_test(test_store_job_tree),
        cmocka_unit_test(test_seeds_logger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

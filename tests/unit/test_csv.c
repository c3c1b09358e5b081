/* test_csv.c -- unit tests for src/store/csv.c, the agent's daily CSV log.
 *
 * Every test works in a fresh temporary directory and compares whole files:
 * exact rows for a hand-built two-GPU snapshot (quoting, the status column
 * for missing values, a lost GPU, the driver-down row), the header written
 * once across close/reopen and across a crash that left a torn line, the
 * record scanner behind the repair (a table of RFC 4180 inputs, each also
 * fed in pieces) and torn quoted records cut exactly (or, past
 * GM_CSV_MAX_TORN, left alone for a "-2" file), a header that does not match
 * (a "-2" file), rotation at local midnight by the data's own time (also
 * under a 50 Hz stress across midnight), the processes and events files,
 * retention, gzip of finished days (checked by inflating it back), the
 * janitor's pass run on the caller's thread (gm_csv_maintain), and a full
 * disk made with RLIMIT_FSIZE and, when the test may mount, a 64 KiB tmpfs:
 * rows are counted lost, no torn line remains, each file logs its own
 * failure and recovery, and writing resumes by itself.
 *
 * TZ is fixed to UTC+8 without DST ("CST-8", no tzdata needed) for the
 * whole file, so the times and day names below are exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/event.h"
#include "core/buf.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "core/timeutil.h"
#include "store/csv.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
#define S_NS INT64_C(1000000000)
/* 2026-12-02T10:00:00.000+08:00 */
#define T0 (INT64_C(1796176800) * S_NS)
/* 2026-12-03T00:00:00.000+08:00: local midnight after T0 */
#define MIDNIGHT (INT64_C(1796227200) * S_NS)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static char g_dir[256];

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
    snprintf(g_dir, sizeof(g_dir), "%s/gm_csv_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", g_dir, name);
}

/* The whole file as a string (NULL if it does not exist). */
static char *slurp(const char *name)
{
    char path[512];
    path_of(path, sizeof(path), name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct gm_buf b = GM_BUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gm_buf_put(&b, chunk, n);
    fclose(f);
    gm_buf_putc(&b, '\0');
    return b.p;
}

static void put_file(const char *name, const char *content)
{
    char path[512];
    path_of(path, sizeof(path), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

static void append_file(const char *name, const char *content)
{
    char path[512];
    path_of(path, sizeof(path), name);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

static int exists(const char *name)
{
    char path[512];
    path_of(path, sizeof(path), name);
    return access(path, F_OK) == 0;
}

static off_t size_of(const char *name)
{
    char path[512];
    struct stat st;
    path_of(path, sizeof(path), name);
    return stat(path, &st) == 0 ? st.st_size : -1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int count_substr(const char *s, const char *needle)
{
    int n = 0;
    size_t l = strlen(needle);
    for (const char *p = strstr(s, needle); p; p = strstr(p + l, needle))
        n++;
    return n;
}

/* Log messages, as the agent's log would get them. */
struct logcap {
    int n;
    int level[64];
    char msg[64][600];
};

static void cap_log(void *arg, int level, const char *msg)
{
    struct logcap *l = arg;
    if (l->n < 64) {
        l->level[l->n] = level;
        snprintf(l->msg[l->n], sizeof(l->msg[0]), "%s", msg);
    }
    l->n++;
}

static int log_count(const struct logcap *l, const char *needle)
{
    int n = 0;
    for (int i = 0; i < l->n && i < 64; i++)
        n += strstr(l->msg[i], needle) != NULL;
    return n;
}

static struct gm_csv_opts base_opts(struct logcap *l)
{
    struct gm_csv_opts o;
    memset(&o, 0, sizeof(o));
    o.dir = g_dir;
    o.task = "train";
    o.host = "node1";
    o.compress_after_ns = -1;
    o.log = cap_log;
    o.log_arg = l;
    return o;
}

static struct gm_csv *open_ok(const struct gm_csv_opts *o)
{
    struct gm_err err = {0};
    struct gm_csv *c = gm_csv_open(o, &err);
    if (!c)
        fail_msg("gm_csv_open: %s", err.msg);
    return c;
}

static void set_str(struct gm_gpu *g, int slot, const char *s)
{
    snprintf(g->str[slot], sizeof(g->str[slot]), "%s", s);
}

/* Two GPUs: GPU 0 with every default column; GPU 1 with a name that needs
 * quoting, power draw not supported and the SM clock not collected. */
static struct gm_snapshot *snap2(int64_t wall_ns)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->seq = 1;
    s->wall_ns = wall_ns;
    snprintf(s->hostname, sizeof(s->hostname), "ignored-host");
    s->driver = GM_DRV_OK;
    gm_snapshot_set_gpus(s, 2);

    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_INDEX] = gm_v_u64(0);
    g->m[GM_M_UUID] = gm_v_u64(0);
    set_str(g, GM_S_UUID, "GPU-aaaa");
    g->m[GM_M_NAME] = gm_v_u64(0);
    set_str(g, GM_S_NAME, "NVIDIA H100 80GB HBM3");
    g->m[GM_M_UTIL_GPU] = gm_v_u64(95);
    g->m[GM_M_UTIL_MEM] = gm_v_u64(40);
    g->m[GM_M_MEM_USED] = gm_v_u64(1024 * MIB);
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(81559 * MIB);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(280.12);
    g->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(65);
    g->m[GM_M_CLK_SM] = gm_v_u64(1980);
    g->m[GM_M_CLK_MEM] = gm_v_u64(2619);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x4 | 0x40);

    g = &s->gpus[1];
    g->m[GM_M_INDEX] = gm_v_u64(1);
    g->m[GM_M_UUID] = gm_v_u64(0);
    set_str(g, GM_S_UUID, "GPU-bbbb");
    g->m[GM_M_NAME] = gm_v_u64(0);
    set_str(g, GM_S_NAME, "Tesla V100, \"special\"");
    g->m[GM_M_UTIL_GPU] = gm_v_u64(10);
    g->m[GM_M_UTIL_MEM] = gm_v_u64(5);
    g->m[GM_M_MEM_USED] = gm_v_u64(0);
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(16384 * MIB);
    g->m[GM_M_POWER_DRAW] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    g->m[GM_M_POWER_LIMIT] = gm_v_f64(70.0);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(40);
    g->m[GM_M_CLK_SM] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->m[GM_M_CLK_MEM] = gm_v_u64(877);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0);
    return s;
}

/* GPU 1 of snap2 fell off the bus: identity kept, live values lost. */
static struct gm_snapshot *snap2_lost(int64_t wall_ns)
{
    struct gm_snapshot *s = snap2(wall_ns);
    struct gm_gpu *g = &s->gpus[1];
    g->state = GM_GPU_LOST;
    g->state_code = 15;
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (id != GM_M_NAME && id != GM_M_UUID && id != GM_M_INDEX)
            g->m[id] = gm_v_status(GM_VS_LOST, 15);
    return s;
}

static struct gm_snapshot *snap_driver_down(int64_t wall_ns)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->wall_ns = wall_ns;
    s->driver = GM_DRV_NOT_LOADED;
    s->driver_code = 9;
    return s;
}

static void write_snap(struct gm_csv *c, struct gm_snapshot *s, int expect_rc)
{
    assert_int_equal(gm_csv_write(c, s), expect_rc);
    gm_snapshot_free(s);
}

static const char HEADER[] =
    "time,host,task_id,gpu,uuid,name,utilization_gpu_percent,utilization_memory_percent,"
    "memory_used_mib,memory_total_mib,power_draw_w,power_limit_w,temperature_gpu_c,"
    "clocks_sm_mhz,clocks_mem_mhz,clocks_event_reasons,status\n";

static const char ROW0[] = ",node1,train,0,GPU-aaaa,NVIDIA H100 80GB HBM3,95,40,1024,81559,280.12,"
                           "700.00,65,1980,2619,sw_power_cap|hw_thermal_slowdown,ok\n";
static const char ROW1[] =
    ",node1,train,1,GPU-bbbb,\"Tesla V100, \"\"special\"\"\",10,5,0,16384,,70.00,40,,877,none,"
    "\"ok;missing=power_draw_w:not_supported,clocks_sm_mhz:not_collected\"\n";

/* The two rows of snap2 at time iso. */
static void rows2(struct gm_buf *b, const char *iso)
{
    gm_buf_puts(b, iso);
    gm_buf_puts(b, ROW0);
    gm_buf_puts(b, iso);
    gm_buf_puts(b, ROW1);
}

static void wait_janitor(struct gm_csv *c, uint64_t runs)
{
    struct gm_csv_stats st;
    for (int i = 0; i < 1000; i++) {
        gm_csv_stats(c, &st);
        if (st.janitor_runs >= runs)
            return;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    fail_msg("janitor did not finish a pass");
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                   */

static void test_default_columns(void **state)
{
    (void)state;
    static const int want[] = {GM_M_INDEX,       GM_M_UUID,     GM_M_NAME,      GM_M_UTIL_GPU,
                               GM_M_UTIL_MEM,    GM_M_MEM_USED, GM_M_MEM_TOTAL, GM_M_POWER_DRAW,
                               GM_M_POWER_LIMIT, GM_M_TEMP_GPU, GM_M_CLK_SM,    GM_M_CLK_MEM,
                               GM_M_CER_ACTIVE};
    int n = 0;
    const int *ids = gm_csv_default_columns(&n);
    assert_int_equal(n, (int)N_ELEM(want));
    assert_memory_equal(ids, want, sizeof(want));
}

static void test_parse_columns(void **state)
{
    (void)state;
    static const struct {
        const char *list;
        int max;
        int rc;
        int n;
        int ids[4];
        const char *msg; /* substring of the error */
    } cases[] = {
        {"index,uuid,memory.used", 8, 0, 3, {GM_M_INDEX, GM_M_UUID, GM_M_MEM_USED}, NULL},
        {" index , temperature.gpu ", 8, 0, 2, {GM_M_INDEX, GM_M_TEMP_GPU}, NULL},
        /* JSON keys and CSV columns */
        {"memory_used_bytes,power_draw_w", 8, 0, 2, {GM_M_MEM_USED, GM_M_POWER_DRAW}, NULL},
        /* aliases */
        {"clocks.sm,gpu_name", 8, 0, 2, {GM_M_CLK_SM, GM_M_NAME}, NULL},
        /* the time is always there */
        {"timestamp,index", 8, 0, 1, {GM_M_INDEX}, NULL},
        {"index,bogus.field", 8, GM_E_INVAL, 0, {0}, "\"bogus.field\""},
        {"pid", 8, GM_E_INVAL, 0, {0}, "\"pid\""}, /* a process field is no GPU column */
        {"", 8, GM_E_INVAL, 0, {0}, "empty"},
        {"index,,uuid", 8, GM_E_INVAL, 0, {0}, "empty field"},
        {"index,index", 8, GM_E_INVAL, 0, {0}, "twice"},
        {"index,gpu", 8, GM_E_INVAL, 0, {0}, "twice"}, /* "gpu" is index's CSV column */
        {"index,uuid,name", 2, GM_E_INVAL, 0, {0}, "at most 2"},
        {"timestamp", 8, GM_E_INVAL, 0, {0}, "no field"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        int ids[8] = {0}, n = -1;
        struct gm_err err = {0};
        int rc = gm_csv_parse_columns(cases[i].list, ids, cases[i].max, &n, &err);
        if (rc != cases[i].rc)
            fail_msg("case %zu (%s): rc %d, want %d (%s)", i, cases[i].list, rc, cases[i].rc,
                     err.msg);
        if (rc == 0) {
            assert_int_equal(n, cases[i].n);
            assert_memory_equal(ids, cases[i].ids, (size_t)n * sizeof(int));
        } else {
            assert_int_equal(err.code, GM_E_INVAL);
            if (!strstr(err.msg, cases[i].msg))
                fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err.msg, cases[i].msg);
        }
    }
}

static void test_open_errors(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_err err = {0};
    static const char *const bad_tasks[] = {"", "a/b", "..", "x y", "t_procs", "t_events"};
    for (size_t i = 0; i < N_ELEM(bad_tasks); i++) {
        struct gm_csv_opts o = base_opts(&l);
        o.task = bad_tasks[i];
        assert_null(gm_csv_open(&o, &err));
        assert_int_equal(err.code, GM_E_INVAL);
    }
    struct gm_csv_opts o = base_opts(&l);
    int cols[] = {GM_M_INDEX, GM_P_PID};
    o.columns = cols;
    o.ncolumns = 2;
    assert_null(gm_csv_open(&o, &err));
    assert_int_equal(err.code, GM_E_INVAL);

    /* dir is a file */
    put_file("plain", "x");
    char path[512];
    path_of(path, sizeof(path), "plain");
    o = base_opts(&l);
    o.dir = path;
    assert_null(gm_csv_open(&o, &err));
    assert_true(strstr(err.msg, "plain") != NULL);

    /* a missing dir is created with its parents */
    path_of(path, sizeof(path), "a/b/c");
    o.dir = path;
    struct gm_csv *c = open_ok(&o);
    gm_csv_close(c);
    assert_true(exists("a/b/c"));
    gm_csv_close(NULL);
    assert_int_equal(l.n, 0);
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                      */

static void test_exact_contents(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    write_snap(c, snap2_lost(T0 + 1 * S_NS), 0);
    write_snap(c, snap_driver_down(T0 + 2 * S_NS + 250000000), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    gm_buf_puts(&want, "2026-12-02T10:00:01.000+08:00");
    gm_buf_puts(&want, ROW0);
    gm_buf_puts(&want, "2026-12-02T10:00:01.000+08:00,node1,train,1,GPU-bbbb,"
                       "\"Tesla V100, \"\"special\"\"\",,,,,,,,,,,gpu_lost\n");
    gm_buf_puts(&want,
                "2026-12-02T10:00:02.250+08:00,node1,train,,,,,,,,,,,,,,driver_not_loaded\n");
    char *got = slurp("train_20261202.csv");
    assert_non_null(got);
    assert_string_equal(got, want.p);
    assert_int_equal(st.rows, 5);
    assert_int_equal(st.rows_lost, 0);
    assert_int_equal(st.bytes, strlen(want.p));
    assert_int_equal(st.files_opened, 1);
    assert_int_equal(l.n, 0);
    free(got);
    gm_buf_free(&want);
}

static void test_custom_columns_and_no_gpus(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    int cols[] = {GM_M_INDEX, GM_M_DRIVER_VERSION, GM_M_CER_ACTIVE, GM_M_PCIE_TX};
    o.columns = cols;
    o.ncolumns = 4;
    o.host = NULL; /* gethostname() */
    struct gm_csv *c = open_ok(&o);
    struct gm_snapshot *s = snap2(T0);
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "590.48.01");
    s->gpus[0].m[GM_M_CER_ACTIVE] = gm_v_u64(0x1 | 0x1000); /* an unknown bit is in hex */
    s->gpus[0].m[GM_M_PCIE_TX] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    s->gpus[1].m[GM_M_CER_ACTIVE] = gm_v_status(GM_VS_NOPERM, 4);
    s->gpus[1].m[GM_M_PCIE_TX] = gm_v_u64(2 * MIB);
    write_snap(c, s, 0);
    s = gm_snapshot_new();
    s->wall_ns = T0 + S_NS;
    s->driver = GM_DRV_OK; /* a driver with no GPUs: still a row */
    write_snap(c, s, 0);
    gm_csv_close(c);

    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, "time,host,task_id,gpu,driver_version,clocks_event_reasons,"
                       "pcie_tx_mibps,status\n");
    gm_buf_printf(&want,
                  "2026-12-02T10:00:00.000+08:00,%s,train,0,590.48.01,gpu_idle|0x1000,,"
                  "ok;missing=pcie_tx_mibps:not_collected\n",
                  host);
    gm_buf_printf(&want,
                  "2026-12-02T10:00:00.000+08:00,%s,train,1,590.48.01,,2,"
                  "ok;missing=clocks_event_reasons:not_permitted\n",
                  host);
    gm_buf_printf(&want, "2026-12-02T10:00:01.000+08:00,%s,train,,,,,no_gpus\n", host);
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    free(got);
    gm_buf_free(&want);
}

/* Issue 30: a slow read group's value (ECC counts, PCIe link: read every
 * 10 s by the agent and reused between, value.h's age_ms) is written only
 * on the row of the sample that read it; between reads its cell is empty
 * and the status says why (between_reads), so no row passes a 9 s old
 * value off as this sample's.  A fast column keeps its value every row, and
 * a held value that is not ok is still named by its own status. */
static void test_slow_group_between_reads(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    int cols[] = {GM_M_INDEX, GM_M_UTIL_GPU, GM_M_ECC_UNCORR_VOL, GM_M_PCIE_GEN_CUR};
    o.columns = cols;
    o.ncolumns = 4;
    struct gm_csv *c = open_ok(&o);
    static const uint32_t age[] = {0, 1000, 9000, 0};
    for (size_t k = 0; k < N_ELEM(age); k++) {
        struct gm_snapshot *s = snap2(T0 + (int64_t)k * S_NS);
        s->slow_ns = 10 * S_NS;
        for (uint32_t i = 0; i < 2; i++) {
            struct gm_gpu *g = &s->gpus[i];
            g->m[GM_M_ECC_UNCORR_VOL] = gm_v_u64(2 + k);
            g->m[GM_M_ECC_UNCORR_VOL].age_ms = age[k];
            g->m[GM_M_PCIE_GEN_CUR] = i == 1 ? gm_v_status(GM_VS_UNSUPPORTED, 3) : gm_v_u64(5);
            g->m[GM_M_PCIE_GEN_CUR].age_ms = age[k];
        }
        write_snap(c, s, 0);
    }
    gm_csv_close(c);
    static const char want[] =
        "time,host,task_id,gpu,utilization_gpu_percent,ecc_uncorrected_volatile,"
        "pcie_link_gen_current,status\n"
        "2026-12-02T10:00:00.000+08:00,node1,train,0,95,2,5,ok\n"
        "2026-12-02T10:00:00.000+08:00,node1,train,1,10,2,,"
        "ok;missing=pcie_link_gen_current:not_supported\n"
        "2026-12-02T10:00:01.000+08:00,node1,train,0,95,,,"
        "\"ok;missing=ecc_uncorrected_volatile:between_reads,"
        "pcie_link_gen_current:between_reads\"\n"
        "2026-12-02T10:00:01.000+08:00,node1,train,1,10,,,"
        "\"ok;missing=ecc_uncorrected_volatile:between_reads,"
        "pcie_link_gen_current:not_supported\"\n"
        "2026-12-02T10:00:02.000+08:00,node1,train,0,95,,,"
        "\"ok;missing=ecc_uncorrected_volatile:between_reads,"
        "pcie_link_gen_current:between_reads\"\n"
        "2026-12-02T10:00:02.000+08:00,node1,train,1,10,,,"
        "\"ok;missing=ecc_uncorrected_volatile:between_reads,"
        "pcie_link_gen_current:not_supported\"\n"
        "2026-12-02T10:00:03.000+08:00,node1,train,0,95,5,5,ok\n"
        "2026-12-02T10:00:03.000+08:00,node1,train,1,10,5,,"
        "ok;missing=pcie_link_gen_current:not_supported\n";
    char *got = slurp("train_20261202.csv");
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static struct gm_proc mkproc(uint32_t gpu, uint32_t pid, uint8_t type, const char *name,
                             const char *user, const char *cmd, struct gm_value mem,
                             uint8_t host_state)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = gpu;
    p.pid = pid;
    p.type = type;
    p.host_state = host_state;
    p.gpu_instance_id = p.compute_instance_id = GM_NO_INSTANCE;
    p.used_memory = mem;
    p.sm_util = p.mem_util = p.enc_util = p.dec_util = gm_v_status(GM_VS_NA, 0);
    p.start_time = p.elapsed = p.cpu = p.rss = gm_v_status(GM_VS_NA, 0);
    snprintf(p.name, sizeof(p.name), "%s", name);
    snprintf(p.user, sizeof(p.user), "%s", user);
    p.cmdline = cmd ? strdup(cmd) : NULL;
    return p;
}

static void test_procs_file(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.procs = 1;
    struct gm_csv *c = open_ok(&o);
    for (int i = 0; i < 2; i++) {
        struct gm_snapshot *s = snap2(T0 + i * S_NS);
        struct gm_proc p =
            mkproc(0, 4242, GM_PT_COMPUTE, "python", "alice", "python train.py --tag \"a,b\"",
                   gm_v_u64(2048 * MIB), GM_HS_ALIVE);
        /* docs/jobs.md */
        gm_attrib_parse("/slurm/uid_1000/job_77/step_0/task_0", 1000, &p.attrib);
        p.nspid = 3;
        p.ppid = 4200; /* its launcher and session: the process tree (docs/diagnose.md) */
        p.sid = 4100;
        gm_snapshot_add_proc_take(s, &p);
        p = mkproc(1, 77, GM_PT_COMPUTE | GM_PT_GRAPHICS, "Xorg", "", NULL,
                   gm_v_status(GM_VS_NA, 0), GM_HS_UNKNOWN);
        gm_snapshot_add_proc_take(s, &p);
        write_snap(c, s, 0);
    }
    /* no processes: no rows (the file stays as it is) */
    write_snap(c, snap2(T0 + 2 * S_NS), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, "time,host,task_id,gpu,uuid,pid,user,process_name,command,"
                       "used_memory_mib,type,host_state,job_id,ns_pid,ppid,sid\n");
    for (int i = 0; i < 2; i++) {
        gm_buf_printf(&want,
                      "2026-12-02T10:00:0%d.000+08:00,node1,train,0,GPU-aaaa,4242,alice,python,"
                      "\"python train.py --tag \"\"a,b\"\"\",2048,C,alive,slurm:77,3,4200,4100\n",
                      i);
        gm_buf_printf(&want,
                      "2026-12-02T10:00:0%d.000+08:00,node1,train,1,GPU-bbbb,77,,Xorg,,,C+G,,,,,\n",
                      i);
    }
    char *got = slurp("train_procs_20261202.csv");
    assert_non_null(got);
    assert_string_equal(got, want.p);
    assert_int_equal(st.proc_rows, 4);
    assert_int_equal(st.rows, 6);
    free(got);
    gm_buf_free(&want);
}

/* Text from outside (GPU and process names, users, command lines) is one
 * line of valid UTF-8 per cell, and a cell that a spreadsheet would run as a
 * formula gets a leading '; numbers, negative ones included, never do
 * (docs/store.md, docs/security-text.md). */
static void test_outside_text(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.procs = 1;
    struct gm_csv *c = open_ok(&o);
    struct gm_snapshot *s = snap2(T0);
    set_str(&s->gpus[0], GM_S_NAME, "=cmd|' /C calc'!A0\x1b[2J\xff");
    s->gpus[0].m[GM_M_TEMP_GPU] = gm_v_i64(-5);
    struct gm_proc p = mkproc(0, 4242, GM_PT_COMPUTE, "@SUM(1+1)", "+x", "-bash\n-i\x07\xc2\x9b,z",
                              gm_v_u64(2048 * MIB), GM_HS_ALIVE);
    gm_snapshot_add_proc_take(s, &p);
    p = mkproc(1, 77, GM_PT_COMPUTE, "'quoted", "bob", "python3", gm_v_u64(0), GM_HS_ALIVE);
    gm_snapshot_add_proc_take(s, &p);
    write_snap(c, s, 0);
    gm_csv_close(c);

    char *got = slurp("train_20261202.csv");
    assert_non_null(got);
    const char *row0 = strchr(got, '\n') + 1;
    const char *want0 = "2026-12-02T10:00:00.000+08:00,node1,train,0,GPU-aaaa,"
                        "'=cmd|' /C calc'!A0\xEF\xBF\xBD[2J\xEF\xBF\xBD,95,40,1024,81559,280.12,"
                        "700.00,-5,1980,";
    if (strncmp(row0, want0, strlen(want0)) != 0)
        fail_msg("GPU row: got %.140s", row0);
    free(got);
    got = slurp("train_procs_20261202.csv");
    assert_non_null(got);
    assert_string_equal(got, "time,host,task_id,gpu,uuid,pid,user,process_name,command,"
                             "used_memory_mib,type,host_state,job_id,ns_pid,ppid,sid\n"
                             "2026-12-02T10:00:00.000+08:00,node1,train,0,GPU-aaaa,4242,'+x,"
                             "'@SUM(1+1),\"'-bash\xEF\xBF\xBD-i\xEF\xBF\xBD\xEF\xBF\xBD,z\",2048,"
                             "C,alive,,,,\n"
                             "2026-12-02T10:00:00.000+08:00,node1,train,1,GPU-bbbb,77,bob,''quoted,"
                             "python3,0,C,alive,,,,\n");
    free(got);
}

static void test_events_file(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    struct gm_event e;
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_MARK;
    e.gpu = -1;
    e.wall_ns = T0 + 500000000;
    snprintf(e.text, sizeof(e.text), "epoch 3, start\n\"warm\"");
    assert_int_equal(gm_csv_event(c, &e), 0);
    memset(&e, 0, sizeof(e));
    e.type = GM_EV_GPU;
    e.gpu = 1;
    e.wall_ns = T0 + S_NS;
    e.code = 15;
    snprintf(e.task, sizeof(e.task), "other");
    snprintf(e.uuid, sizeof(e.uuid), "GPU-bbbb");
    snprintf(e.text, sizeof(e.text), "GPU is lost");
    assert_int_equal(gm_csv_event(c, &e), 0);
    /* an event of the next day goes to the next day's file */
    e.type = GM_EV_AGENT;
    e.gpu = -1;
    e.wall_ns = MIDNIGHT;
    e.code = 0;
    memset(e.task, 0, sizeof(e.task));
    memset(e.uuid, 0, sizeof(e.uuid));
    memset(e.text, 'x', sizeof(e.text)); /* unterminated: every byte is the text */
    assert_int_equal(gm_csv_event(c, &e), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    char *got = slurp("train_events_20261202.csv");
    assert_non_null(got);
    assert_string_equal(
        got, "time,host,task_id,type,gpu,uuid,code,text\n"
             "2026-12-02T10:00:00.500+08:00,node1,train,mark,,,0,"
             "\"epoch 3, start\xEF\xBF\xBD\"\"warm\"\"\"\n"
             "2026-12-02T10:00:01.000+08:00,node1,other,gpu,1,GPU-bbbb,15,GPU is lost\n");
    free(got);
    got = slurp("train_events_20261203.csv");
    assert_non_null(got);
    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, "time,host,task_id,type,gpu,uuid,code,text\n"
                       "2026-12-03T00:00:00.000+08:00,node1,train,agent,,,0,");
    gm_buf_fill(&want, 'x', sizeof(e.text));
    gm_buf_putc(&want, '\n');
    assert_string_equal(got, want.p);
    assert_int_equal(st.event_rows, 3);
    free(got);
    gm_buf_free(&want);
}

/* ------------------------------------------------------------------------ */
/* Headers, restarts, crashes                                                */

static void test_header_once_across_reopen(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.sync = GM_CSV_SYNC_SAMPLE;
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    gm_csv_close(c);
    o.sync = GM_CSV_SYNC_SECOND;
    c = open_ok(&o); /* a restart */
    write_snap(c, snap2(T0 + S_NS), 0);
    assert_int_equal(gm_csv_reopen(c), 0); /* SIGHUP */
    write_snap(c, snap2(T0 + 2 * S_NS), 0);
    assert_int_equal(gm_csv_flush(c), 0);
    gm_csv_close(c);

    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    rows2(&want, "2026-12-02T10:00:01.000+08:00");
    rows2(&want, "2026-12-02T10:00:02.000+08:00");
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    assert_false(exists("train_20261202-2.csv"));
    assert_int_equal(l.n, 0);
    free(got);
    gm_buf_free(&want);
}

static void test_crash_torn_line(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    gm_csv_close(c);
    /* kill -9 in the middle of a write(2) (or a full disk) left half a row */
    static const char torn[] = "2026-12-02T10:00:01.000+08:00,node1,tr";
    append_file("train_20261202.csv", torn);

    c = open_ok(&o);
    write_snap(c, snap2(T0 + S_NS), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    rows2(&want, "2026-12-02T10:00:01.000+08:00");
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    assert_int_equal(st.torn_repaired, 1);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.level[0], 4);
    assert_non_null(strstr(l.msg[0], "train_20261202.csv"));
    char cut[64];
    snprintf(cut, sizeof(cut), "cut %zu bytes", strlen(torn));
    assert_non_null(strstr(l.msg[0], cut));
    free(got);

    /* a crash during the very first write: only part of the header */
    put_file("train_20261203.csv", "time,host,task_id,gp");
    c = open_ok(&o);
    write_snap(c, snap2(MIDNIGHT), 0);
    gm_csv_close(c);
    got = slurp("train_20261203.csv");
    gm_buf_reset(&want);
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-03T00:00:00.000+08:00");
    assert_string_equal(got, want.p);
    assert_false(exists("train_20261203-2.csv"));
    free(got);
    gm_buf_free(&want);
}

/* gm_csv_valid_prefix: the end of the last whole record.  Each input is
 * also fed to the incremental scanner split at every point and byte by
 * byte, which must agree; and the prefix found is its own valid prefix. */
static void test_valid_prefix(void **state)
{
    (void)state;
#define VP(what, lit, want)                                                                        \
    {                                                                                              \
        what, lit, sizeof(lit) - 1, want                                                           \
    }
    static const struct {
        const char *what;
        const char *in;
        size_t len;
        size_t want;
    } cases[] = {
        VP("empty file", "", 0),
        VP("header only", "time,host,gpu\n", 14),
        VP("torn header", "time,host,gp", 0),
        VP("no final newline", "a,b\nc,d", 4),
        VP("empty lines are whole records", "\n\n", 2),
        VP("quoted newline inside a whole record", "a,b\n1,\"x\ny\",2\n", 14),
        VP("torn inside a quoted cell after its newline", "a,b\n1,\"py\nth", 4),
        VP("torn right after a quoted newline", "a,b\n1,\"py\n", 4),
        VP("an open quote at the end", "x\n\"", 2),
        VP("torn right after a comma", "a\nb,", 2),
        VP("doubled quotes", "a,\"say \"\"hi\"\"\"\n", 15),
        VP("doubled quote then newline: still quoted", "a\n\"x\"\"\n", 2),
        VP("closing quote without the newline", "a\n\"x\ny\"", 2),
        VP("CRLF", "a,b\r\nc,d\r\n", 10),
        VP("torn between CR and LF", "a,b\r\nc,d\r", 5),
        VP("quoted CRLF", "\"a\r\nb\",c\r\n", 10),
        VP("a bare CR ends a record: the quote after it opens a cell", "a\r\"b\n", 0),
        VP("... which may then close", "x\na\r\"b\n\"\n", 9),
        VP("a quote inside an unquoted cell is a byte", "ab\"c,d\n", 7),
        VP("bytes after a closing quote", "\"a\"b,\"c\nd\"\n", 11),
        VP("a comma in a quoted cell", "\"a,b\n\",c\n", 9),
        VP("NUL bytes after the last record", "a\n\0\0\0", 2),
        VP("NUL bytes inside a record", "a\0b\n", 4),
        VP("three records, the last torn", "h\n1\n2\n\"3", 6),
    };
#undef VP
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        const char *in = cases[i].in;
        size_t n = cases[i].len;
        size_t got = gm_csv_valid_prefix(in, n);
        if (got != cases[i].want)
            fail_msg("%s: valid prefix %zu, want %zu", cases[i].what, got, cases[i].want);
        assert_int_equal(gm_csv_valid_prefix(in, got), got);
        for (size_t cut = 0; cut <= n; cut++) {
            struct gm_csv_scan sc;
            gm_csv_scan_init(&sc);
            gm_csv_scan_feed(&sc, in, cut);
            gm_csv_scan_feed(&sc, in + cut, n - cut);
            if (sc.valid != got || sc.fed != n)
                fail_msg("%s: split at %zu gives %llu", cases[i].what, cut,
                         (unsigned long long)sc.valid);
        }
        struct gm_csv_scan sc;
        gm_csv_scan_init(&sc);
        for (size_t k = 0; k < n; k++)
            gm_csv_scan_feed(&sc, in + k, 1);
        assert_int_equal(sc.valid, got);
    }
    assert_int_equal(gm_csv_valid_prefix(NULL, 0), 0);
}

/* Torn records with RFC 4180 quoting: a quoted cell may hold a line break,
 * so the repair cuts back to the end of the last complete record, not to
 * the last '\n'.  Each case: complete records already in the file (kept as
 * they are) and the torn partial record after them (cut exactly). */
static void test_torn_quoted_record(void **state)
{
    (void)state;
    static const char T[] = "2026-12-02T10:00:01.000+08:00,node1,train,";
    /* a whole record whose name cell holds a line break and doubled quotes */
    static const char QNL[] = "2026-12-02T09:00:00.000+08:00,node1,train,0,GPU-aaaa,\"NVIDIA\n"
                              "\"\"H100\"\"\",1,2,3,4,5.00,6.00,7,8,9,none,ok\n";
    static const struct {
        const char *what;
        const char *whole; /* after the header */
        const char *torn;  /* "" = nothing to cut */
    } cases[] = {
        {"torn inside a quoted cell, after its line break", QNL, "0,GPU-aaaa,\"NVIDIA\nH1"},
        {"torn right after a quoted line break (the file ends in '\\n')", QNL,
         "0,GPU-aaaa,\"NVIDIA\n"},
        {"torn after a doubled quote", "", "0,GPU-aaaa,\"say \"\"hi\"\""},
        {"torn after a closing quote, before the line break", QNL, "0,GPU-aaaa,\"a\nb\""},
        {"torn in an unquoted cell", QNL, "0,GPU-aa"},
        {"whole records with CRLF and a quoted CRLF are kept", "x,\"a\r\nb\",c\r\ny,z\r\n", ""},
        {"a quote inside an unquoted cell is an ordinary byte", "x,ab\"c,d\n", "0,GPU-a\"a"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct logcap l = {0};
        struct gm_csv_opts o = base_opts(&l);
        struct gm_buf before = GM_BUF_INIT, torn = GM_BUF_INIT;
        gm_buf_puts(&before, HEADER);
        gm_buf_puts(&before, cases[i].whole);
        if (cases[i].torn[0]) {
            gm_buf_puts(&torn, T);
            gm_buf_puts(&torn, cases[i].torn);
        }
        gm_buf_putc(&torn, '\0');
        gm_buf_putc(&before, '\0');
        put_file("train_20261202.csv", before.p);
        append_file("train_20261202.csv", torn.p);

        struct gm_csv *c = open_ok(&o);
        write_snap(c, snap2(T0 + 2 * S_NS), 0);
        struct gm_csv_stats st;
        gm_csv_stats(c, &st);
        gm_csv_close(c);

        struct gm_buf want = GM_BUF_INIT;
        gm_buf_puts(&want, before.p);
        rows2(&want, "2026-12-02T10:00:02.000+08:00");
        char *got = slurp("train_20261202.csv");
        if (strcmp(got, want.p) != 0)
            fail_msg("%s: got\n%s\nwant\n%s", cases[i].what, got, want.p);
        int cut = cases[i].torn[0] != '\0';
        if ((int)st.torn_repaired != cut || l.n != cut)
            fail_msg("%s: %d repairs, %d log lines", cases[i].what, (int)st.torn_repaired, l.n);
        if (cut) {
            char msg[64];
            snprintf(msg, sizeof(msg), "cut %zu bytes", strlen(torn.p));
            if (!strstr(l.msg[0], msg))
                fail_msg("%s: log \"%s\" does not say \"%s\"", cases[i].what, l.msg[0], msg);
        }
        assert_false(exists("train_20261202-2.csv"));
        free(got);
        gm_buf_free(&want);
        gm_buf_free(&before);
        gm_buf_free(&torn);
        char path[512];
        path_of(path, sizeof(path), "train_20261202.csv");
        unlink(path);
    }
}

/* An unbalanced quote far back (a file not written whole by this writer):
 * more than any torn record would be cut, so the file is left as it is and
 * the rows go to a new "-2" file. */
static void test_torn_too_long(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_buf old = GM_BUF_INIT;
    gm_buf_puts(&old, HEADER);
    gm_buf_puts(&old, "2026-12-02T09:00:00.000+08:00,node1,train,0,\"unbalanced\n");
    while (old.len < (size_t)1100 * 1024)
        gm_buf_printf(&old, "2026-12-02T09:00:00.000+08:00%s", ROW0);
    gm_buf_putc(&old, '\0');
    put_file("train_20261202.csv", old.p);

    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, old.p); /* untouched */
    free(got);
    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    got = slurp("train_20261202-2.csv");
    assert_non_null(got);
    assert_string_equal(got, want.p);
    assert_int_equal(st.torn_repaired, 0);
    assert_int_equal(log_count(&l, "train_20261202.csv: its last "), 1);
    free(got);
    gm_buf_free(&want);
    gm_buf_free(&old);
}

static void test_header_mismatch(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    static const char old[] = "time,host,task_id,gpu,status\n2026-12-02T09:00:00.000+08:00,"
                              "node1,train,0,ok\n";
    put_file("train_20261202.csv", old);

    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    gm_csv_close(c);
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, old); /* never appended to */
    free(got);
    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    got = slurp("train_20261202-2.csv");
    assert_non_null(got);
    assert_string_equal(got, want.p);
    free(got);

    /* a newer file with yet another header: the highest matching one is used */
    put_file("train_20261202-3.csv", "time,host,task_id,uuid,status\n");
    c = open_ok(&o);
    write_snap(c, snap2(T0 + S_NS), 0);
    gm_csv_close(c);
    rows2(&want, "2026-12-02T10:00:01.000+08:00");
    got = slurp("train_20261202-2.csv");
    assert_string_equal(got, want.p);
    free(got);
    assert_false(exists("train_20261202-4.csv"));

    /* other columns: none matches, so a new file after the highest */
    int cols[] = {GM_M_INDEX, GM_M_TEMP_GPU};
    o.columns = cols;
    o.ncolumns = 2;
    c = open_ok(&o);
    write_snap(c, snap2(T0 + 2 * S_NS), 0);
    gm_csv_close(c);
    got = slurp("train_20261202-4.csv");
    assert_non_null(got);
    assert_string_equal(got, "time,host,task_id,gpu,temperature_gpu_c,status\n"
                             "2026-12-02T10:00:02.000+08:00,node1,train,0,65,ok\n"
                             "2026-12-02T10:00:02.000+08:00,node1,train,1,40,ok\n");
    free(got);
    gm_buf_free(&want);
}

static void test_reopen_after_move(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    char from[512], to[512];
    path_of(from, sizeof(from), "train_20261202.csv");
    path_of(to, sizeof(to), "train_20261202.csv.1");
    assert_int_equal(rename(from, to), 0); /* logrotate without copytruncate */
    write_snap(c, snap2(T0 + S_NS), 0);    /* still to the moved file: nothing lost */
    assert_int_equal(gm_csv_reopen(c), 0);
    write_snap(c, snap2(T0 + 2 * S_NS), 0); /* to the path */
    gm_csv_close(c);

    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    rows2(&want, "2026-12-02T10:00:01.000+08:00");
    char *got = slurp("train_20261202.csv.1");
    assert_string_equal(got, want.p);
    free(got);
    gm_buf_reset(&want);
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:02.000+08:00");
    got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    free(got);

    /* copytruncate emptied the file under us: the header comes back */
    c = open_ok(&o);
    write_snap(c, snap2(T0 + 3 * S_NS), 0);
    assert_int_equal(truncate(from, 0), 0);
    write_snap(c, snap2(T0 + 4 * S_NS), 0);
    gm_csv_close(c);
    gm_buf_reset(&want);
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:04.000+08:00");
    got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    free(got);
    gm_buf_free(&want);
}

static void test_deleted_under_us(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    char sub[512];
    path_of(sub, sizeof(sub), "logs");
    o.dir = sub;
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    char path[600];
    snprintf(path, sizeof(path), "%s/train_20261202.csv", sub);
    assert_int_equal(unlink(path), 0); /* rm of today's file */
    write_snap(c, snap2(T0 + S_NS), 0);
    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:01.000+08:00");
    char *got = slurp("logs/train_20261202.csv");
    assert_non_null(got);
    assert_string_equal(got, want.p);
    free(got);
    assert_int_equal(log_count(&l, "was deleted"), 1);

    /* the whole directory goes (rm -rf): it is made again */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(sub), 0);
    write_snap(c, snap2(T0 + 2 * S_NS), 0);
    gm_csv_close(c);
    gm_buf_reset(&want);
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:02.000+08:00");
    got = slurp("logs/train_20261202.csv");
    assert_non_null(got);
    assert_string_equal(got, want.p);
    free(got);
    gm_buf_free(&want);
}

/* kill -9 of a writer loses none of the samples it had written. */
static void test_kill9(void **state)
{
    (void)state;
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        struct gm_csv_opts o = base_opts(NULL);
        o.log = NULL;
        struct gm_csv *c = gm_csv_open(&o, NULL);
        if (!c)
            _exit(1);
        for (uint32_t i = 0;; i++) {
            struct gm_snapshot *s = snap2(T0 + (int64_t)i * 1000000);
            if (gm_csv_write(c, s) != 0)
                _exit(2);
            gm_snapshot_free(s);
            if (write(pfd[1], &i, sizeof(i)) != (ssize_t)sizeof(i))
                _exit(3);
        }
    }
    close(pfd[1]);
    uint32_t v, last = 0;
    int acks = 0;
    while (acks < 300 && read(pfd[0], &v, sizeof(v)) == (ssize_t)sizeof(v)) {
        last = v;
        acks++;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    while (read(pfd[0], &v, sizeof(v)) == (ssize_t)sizeof(v))
        last = v;
    close(pfd[0]);
    assert_int_equal(acks, 300);

    /* the restart repairs whatever the kill left and goes on */
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0 + 10 * S_NS), 0);
    gm_csv_close(c);
    char *got = slurp("train_20261202.csv");
    assert_int_equal(count_substr(got, "time,host"), 1);
    assert_true(count_lines(got) >= 1 + 2 * ((int)last + 1) + 2);
    char iso[64], needle[128];
    for (uint32_t i = 0; i <= last; i += (last / 16) + 1) {
        gm_time_iso(T0 + (int64_t)i * 1000000, iso, sizeof(iso));
        snprintf(needle, sizeof(needle), "\n%s,node1,train,1,", iso);
        if (!strstr(got, needle))
            fail_msg("acknowledged sample %u is missing", i);
    }
    gm_time_iso(T0 + (int64_t)last * 1000000, iso, sizeof(iso));
    snprintf(needle, sizeof(needle), "\n%s,node1,train,1,", iso);
    assert_non_null(strstr(got, needle));
    free(got);
}

/* ------------------------------------------------------------------------ */
/* Rotation                                                                  */

static void test_rotation_midnight(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(MIDNIGHT - 500000000), 0);
    write_snap(c, snap2(MIDNIGHT + 500000000), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T23:59:59.500+08:00");
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    free(got);
    gm_buf_reset(&want);
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-03T00:00:00.500+08:00");
    got = slurp("train_20261203.csv");
    assert_string_equal(got, want.p);
    free(got);
    assert_int_equal(st.files_opened, 2);
    assert_int_equal(st.rows, 4);
    gm_buf_free(&want);
}

/* Descriptors this process holds on files in the test directory. */
static int open_files_in_dir(void)
{
    char prefix[300];
    snprintf(prefix, sizeof(prefix), "%s/", g_dir);
    int n = 0;
    for (int fd = 0; fd < 1024; fd++) {
        char link[64], target[512];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t r = readlink(link, target, sizeof(target) - 1);
        if (r <= 0)
            continue;
        target[r] = '\0';
        n += strncmp(target, prefix, strlen(prefix)) == 0;
    }
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_rotation_stress_50hz(void **state)
{
    (void)state;
    enum { N = 1000, NGPU = 2 };
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    int cols[] = {GM_M_INDEX, GM_M_TEMP_GPU};
    o.columns = cols;
    o.ncolumns = 2;
    struct gm_csv *c = open_ok(&o);
    int64_t start = MIDNIGHT - 10 * S_NS + 7000000; /* 500 samples before midnight */
    int max_open = 0;
    for (int i = 0; i < N; i++) {
        write_snap(c, snap2(start + (int64_t)i * 20000000), 0);
        if (i % 50 == 0 || (i >= 495 && i <= 505)) {
            int n = open_files_in_dir();
            max_open = n > max_open ? n : max_open;
        }
    }
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);
    assert_int_equal(max_open, 1);
    assert_int_equal(st.rows, N * NGPU);
    assert_int_equal(st.files_opened, 2);

    static const char *const files[] = {"train_20261202.csv", "train_20261203.csv"};
    static const char *const days[] = {"2026-12-02T", "2026-12-03T"};
    char **keys = calloc(N * NGPU + 1, sizeof(char *));
    int nkeys = 0, per_file[2] = {0, 0};
    for (int f = 0; f < 2; f++) {
        char *got = slurp(files[f]);
        assert_non_null(got);
        char *save = NULL;
        int line = 0;
        for (char *row = strtok_r(got, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
            if (line++ == 0) {
                assert_string_equal(row, "time,host,task_id,gpu,temperature_gpu_c,status");
                continue;
            }
            assert_int_not_equal(strncmp(row, "time,", 5), 0); /* no second header */
            if (strncmp(row, days[f], strlen(days[f])) != 0)
                fail_msg("%s holds a row of another day: %s", files[f], row);
            assert_true(nkeys < N * NGPU);
            /* key: time and gpu */
            char *c1 = strchr(row, ',');
            char *c3 = c1 ? strchr(strchr(c1 + 1, ',') + 1, ',') : NULL;
            assert_non_null(c3);
            char *c4 = strchr(c3 + 1, ',');
            assert_non_null(c4);
            size_t tl = (size_t)(c1 - row), gl = (size_t)(c4 - c3 - 1);
            char *k = malloc(tl + gl + 2);
            memcpy(k, row, tl);
            k[tl] = '#';
            memcpy(k + tl + 1, c3 + 1, gl);
            k[tl + 1 + gl] = '\0';
            keys[nkeys++] = k;
            per_file[f]++;
        }
        free(got);
    }
    assert_int_equal(nkeys, N * NGPU);
    assert_int_equal(per_file[0], 500 * NGPU);
    assert_int_equal(per_file[1], 500 * NGPU);
    qsort(keys, (size_t)nkeys, sizeof(char *), cmp_str);
    for (int i = 1; i < nkeys; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            fail_msg("row %s written twice", keys[i]);
    for (int i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
}

/* ------------------------------------------------------------------------ */
/* The janitor                                                               */

static void test_retention(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.retention_ns = 7 * 86400 * S_NS;
    /* now = T0 (2026-12-02 10:00): days up to 20261124 ended more than 7 days ago */
    static const char *const old[] = {"train_20261120.csv", "train_20261121.csv.gz",
                                      "train_procs_20261120.csv", "train_events_20261119-2.csv",
                                      "train_20261124-3.csv.gz"};
    static const char *const keep[] = {
        "train_20261125.csv", /* ended 7 days - 10 h ago */
        "train_20261201.csv",    "train_20261130.csv.gz", "train_procs_20261127.csv",
        "other_20261120.csv",   /* another task */
        "train_x_20261120.csv", /* task train_x */
        "train_20261120.txt",    "train_2026112.csv",     "train_20261120-1.csv",
        "train_20261120-02.csv", "xtrain_20261120.csv",
    };
    for (size_t i = 0; i < N_ELEM(old); i++)
        put_file(old[i], "x\n");
    for (size_t i = 0; i < N_ELEM(keep); i++)
        put_file(keep[i], "x\n");
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    gm_csv_tick(c, T0);
    wait_janitor(c, 1);
    gm_csv_tick(c, T0 + S_NS); /* within the minute: no second pass */
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    assert_int_equal(st.files_deleted, N_ELEM(old));
    assert_int_equal(st.files_compressed, 0);
    for (size_t i = 0; i < N_ELEM(old); i++)
        if (exists(old[i]))
            fail_msg("%s was not deleted", old[i]);
    for (size_t i = 0; i < N_ELEM(keep); i++)
        if (!exists(keep[i]))
            fail_msg("%s was deleted", keep[i]);
    assert_true(exists("train_20261202.csv"));

    /* the next pass (a new day): 20261125 ended 7 days + 1 h before T0 + 15 h */
    gm_csv_tick(c, T0 + 15 * 3600 * S_NS);
    wait_janitor(c, 2);
    assert_false(exists("train_20261125.csv"));
    assert_true(exists("train_20261201.csv"));
    gm_csv_stats(c, &st);
    assert_int_equal(st.janitor_runs, 2);
    gm_csv_close(c);
    assert_int_equal(log_count(&l, "deleted"), (int)N_ELEM(old) + 1);
}

/* gm_csv_maintain: the janitor's pass on the caller's thread, at once (what
 * record --once runs before it exits): more files than the janitor's message
 * queue holds, each deletion logged, nothing dropped, the open file kept. */
static void test_maintain(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.retention_ns = 7 * 86400 * S_NS;
    o.compress_after_ns = 2 * 86400 * S_NS;
    char name[64];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "train_201001%02d-%d.csv", 1 + i % 28, 2 + i);
        put_file(name, "x\n");
    }
    put_file("train_20261129.csv", HEADER); /* ended 2 days + 10 h before T0: gzipped */
    put_file("train_20261130.csv", HEADER); /* 1 day + 10 h: kept */
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    gm_csv_maintain(c, T0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    assert_int_equal(st.files_deleted, 40);
    assert_int_equal(st.files_compressed, 1);
    assert_int_equal(st.janitor_runs, 1);
    assert_int_equal(log_count(&l, "csv: deleted "), 40);
    assert_int_equal(log_count(&l, "dropped"), 0);
    assert_true(exists("train_20261129.csv.gz"));
    assert_false(exists("train_20261129.csv"));
    assert_true(exists("train_20261130.csv"));
    assert_true(exists("train_20261202.csv"));
    /* the janitor thread still works afterwards */
    put_file("train_20100101.csv", "x\n");
    gm_csv_tick(c, T0 + S_NS);
    wait_janitor(c, 2);
    assert_false(exists("train_20100101.csv"));
    gm_csv_close(c);
}

/* Inflates a .gz file (all members) into a string. */
static char *gunzip(const char *name)
{
    char path[512];
    path_of(path, sizeof(path), name);
    gzFile z = gzopen(path, "rb");
    if (!z)
        return NULL;
    struct gm_buf b = GM_BUF_INIT;
    char chunk[4096];
    int n;
    while ((n = gzread(z, chunk, sizeof(chunk))) > 0)
        gm_buf_put(&b, chunk, (size_t)n);
    int errnum = 0;
    gzerror(z, &errnum);
    gzclose(z);
    if (n < 0 || errnum != Z_OK) {
        gm_buf_free(&b);
        return NULL;
    }
    gm_buf_putc(&b, '\0');
    return b.p;
}

static void test_gzip(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.compress_after_ns = 0; /* the default: one day after the day ended */
    o.procs = 1;

    /* yesterday's file by the agent itself, a bigger file two days back */
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0 - 86400 * S_NS), 0);
    gm_csv_close(c);
    char *yesterday = slurp("train_20261201.csv");
    struct gm_buf big = GM_BUF_INIT;
    gm_buf_puts(&big, HEADER);
    for (int i = 0; i < 20000; i++)
        gm_buf_printf(&big, "2026-11-30T10:00:%02d.000+08:00%s", i % 60, ROW0);
    put_file("train_20261130.csv", big.p);
    put_file("train_procs_20261129.csv", "time\n");
    put_file("train_20261129.csv.gz.tmp", "half a gzip"); /* a crash mid-compression */
    put_file("other_20261129.csv", "not ours\n");

    c = open_ok(&o);
    /* the agent is writing a late row for 20261129: that file stays open */
    write_snap(c, snap2(T0 - 3 * 86400 * S_NS), 0);
    gm_csv_tick(c, T0);
    wait_janitor(c, 1);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    assert_int_equal(st.files_compressed, 2);
    assert_false(exists("train_20261129.csv.gz.tmp"));
    assert_false(exists("train_20261130.csv"));
    assert_false(exists("train_procs_20261129.csv"));
    assert_true(exists("train_procs_20261129.csv.gz"));
    assert_true(exists("train_20261201.csv")); /* ended only 10 h ago */
    assert_true(exists("train_20261129.csv")); /* open */
    assert_false(exists("train_20261129.csv.gz"));
    assert_true(exists("other_20261129.csv"));
    char *got = gunzip("train_20261130.csv.gz");
    assert_non_null(got);
    assert_string_equal(got, big.p);
    free(got);
    assert_true(size_of("train_20261130.csv.gz") < (off_t)big.len / 10);
    if (system("command -v gzip >/dev/null 2>&1") == 0) {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "gzip -t '%s/train_20261130.csv.gz'", g_dir);
        assert_int_equal(system(cmd), 0);
    }

    /* the agent moves on to today; a day later yesterday's file goes too */
    write_snap(c, snap2(T0), 0);
    gm_csv_tick(c, T0 + 86400 * S_NS);
    wait_janitor(c, 2);
    assert_true(exists("train_20261129.csv.gz"));
    assert_false(exists("train_20261129.csv"));
    assert_true(exists("train_20261201.csv.gz"));
    assert_true(exists("train_20261202.csv")); /* today's and open */
    got = gunzip("train_20261201.csv.gz");
    assert_string_equal(got, yesterday);
    free(got);

    /* a late row for a day that is already compressed starts a "-2" file */
    write_snap(c, snap2(T0 - 86400 * S_NS + S_NS), 0);
    gm_csv_close(c);
    assert_true(exists("train_20261201-2.csv"));
    got = gunzip("train_20261201.csv.gz"); /* untouched */
    assert_string_equal(got, yesterday);
    free(got);
    assert_int_equal(log_count(&l, "compressed"), 4);
    assert_int_equal(log_count(&l, "interrupted compression"), 1);
    free(yesterday);
    gm_buf_free(&big);
}

/* ------------------------------------------------------------------------ */
/* Full disk                                                                 */

static void test_disk_full_rlimit(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);
    off_t size1 = size_of("train_20261202.csv");
    char *before = slurp("train_20261202.csv");

    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t)size1 + 100; /* room for part of a row, not for a sample */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    write_snap(c, snap2(T0 + S_NS), GM_E_NOSPC);
    write_snap(c, snap2(T0 + 2 * S_NS), GM_E_NOSPC);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    char *during = slurp("train_20261202.csv");
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, oldsig);

    assert_int_equal(st.rows_lost, 4);
    assert_int_equal(st.last_errno, EFBIG);
    assert_int_equal(st.rows, 2);
    assert_string_equal(during, before); /* cut back: no torn row */
    assert_int_equal(l.n, 1);            /* at most once a minute */
    assert_int_equal(l.level[0], 3);
    assert_non_null(strstr(l.msg[0], "2 rows lost so far"));
    assert_non_null(strstr(l.msg[0], "train_20261202.csv"));

    /* space is back: the next sample is written by itself */
    write_snap(c, snap2(T0 + 3 * S_NS), 0);
    gm_csv_stats(c, &st);
    gm_csv_close(c);
    assert_int_equal(st.last_errno, 0);
    assert_int_equal(st.rows_lost, 4);
    assert_int_equal(st.rows, 4);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.level[1], 6);
    assert_non_null(strstr(l.msg[1], "writing again after 4 rows lost"));
    struct gm_buf want = GM_BUF_INIT;
    gm_buf_puts(&want, HEADER);
    rows2(&want, "2026-12-02T10:00:00.000+08:00");
    rows2(&want, "2026-12-02T10:00:03.000+08:00");
    char *got = slurp("train_20261202.csv");
    assert_string_equal(got, want.p);
    free(got);
    free(before);
    free(during);
    gm_buf_free(&want);
}

static void mark(struct gm_event *e, int64_t wall_ns)
{
    memset(e, 0, sizeof(*e));
    e->type = GM_EV_MARK;
    e->gpu = -1;
    e->wall_ns = wall_ns;
    snprintf(e->text, sizeof(e->text), "m");
}

/* Each file fails and recovers for itself: an events row that still fits
 * while the GPU file cannot be written says nothing of the GPU file; each
 * says "writing again" with its own count only when it is written again. */
static void test_disk_full_per_file(void **state)
{
    (void)state;
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    struct gm_csv *c = open_ok(&o);
    struct gm_event e;
    write_snap(c, snap2(T0), 0);
    mark(&e, T0);
    assert_int_equal(gm_csv_event(c, &e), 0);
    off_t gpu_size = size_of("train_20261202.csv");
    off_t ev_size = size_of("train_events_20261202.csv");
    assert_true(ev_size + 200 < gpu_size);

    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t)gpu_size + 100; /* the GPU file is full, the events file has room */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    write_snap(c, snap2(T0 + S_NS), GM_E_NOSPC);
    mark(&e, T0 + S_NS);
    int ev_ok = gm_csv_event(c, &e);
    int n_after_event = l.n;
    lim.rlim_cur = (rlim_t)ev_size + 10; /* now the events file is full too */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    mark(&e, T0 + 2 * S_NS);
    int ev_full = gm_csv_event(c, &e);
    write_snap(c, snap2(T0 + 2 * S_NS), GM_E_NOSPC);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, oldsig);
    /* space is back: the events file is written first, then the GPU file */
    mark(&e, T0 + 3 * S_NS);
    int ev_back = gm_csv_event(c, &e);
    int n_after_ev_back = l.n;
    write_snap(c, snap2(T0 + 3 * S_NS), 0);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    assert_int_equal(ev_ok, 0);
    assert_int_equal(ev_full, GM_E_NOSPC);
    assert_int_equal(ev_back, 0);
    assert_int_equal(st.rows_lost, 5);
    for (int i = 0; i < l.n && i < 64; i++)
        if (strstr(l.msg[i], "writing again") && !strstr(l.msg[i], ".csv)"))
            fail_msg("a recovery message that names no file: %s", l.msg[i]);
    /* the events row that fitted ended nothing */
    assert_int_equal(n_after_event, 1);
    assert_int_equal(log_count(&l, "cannot write"), 2);
    assert_int_equal(log_count(&l, "train_20261202.csv: File too large; 2 rows lost so far"), 1);
    assert_int_equal(log_count(&l, "train_events_20261202.csv: File too large; 1 rows lost so far"),
                     1);
    assert_int_equal(log_count(&l, "writing again after 1 rows lost ("), 1);
    assert_int_equal(log_count(&l, "writing again after 4 rows lost ("), 1);
    char want[600];
    snprintf(want, sizeof(want),
             "csv: writing again after 1 rows lost (%s/train_events_20261202.csv)", g_dir);
    assert_string_equal(l.msg[n_after_ev_back - 1], want);
    snprintf(want, sizeof(want), "csv: writing again after 4 rows lost (%s/train_20261202.csv)",
             g_dir);
    assert_string_equal(l.msg[l.n - 1], want);
    assert_int_equal(l.n, 4);
    assert_int_equal(st.last_errno, 0);
}

static void test_disk_full_tmpfs(void **state)
{
    (void)state;
    char mnt[512];
    path_of(mnt, sizeof(mnt), "small");
    assert_int_equal(mkdir(mnt, 0755), 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0) {
        rmdir(mnt);
        skip(); /* not root, or no mount in this container */
        return;
    }
    struct logcap l = {0};
    struct gm_csv_opts o = base_opts(&l);
    o.dir = mnt;
    struct gm_csv *c = open_ok(&o);
    write_snap(c, snap2(T0), 0);

    /* fill the rest of the file system */
    char filler[600];
    snprintf(filler, sizeof(filler), "%s/filler", mnt);
    int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    char zeros[512];
    memset(zeros, 'z', sizeof(zeros));
    while (write(fd, zeros, sizeof(zeros)) > 0)
        ;
    while (write(fd, zeros, 1) > 0) /* every last byte */
        ;
    close(fd);

    /* the file's last page has some room: samples go on until it is full */
    int failures = 0, i;
    for (i = 1; i <= 60 && failures < 3; i++) {
        struct gm_snapshot *s = snap2(T0 + i * S_NS);
        int rc = gm_csv_write(c, s);
        gm_snapshot_free(s);
        if (rc != 0) {
            assert_int_equal(rc, GM_E_NOSPC);
            failures++;
        }
    }
    assert_int_equal(failures, 3);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    assert_int_equal(st.rows_lost, 6);
    assert_int_equal(st.last_errno, ENOSPC);
    assert_int_equal(log_count(&l, "rows lost so far"), 1);
    char *got = slurp("small/train_20261202.csv");
    assert_non_null(got);
    size_t len = strlen(got);
    assert_true(len > 0 && got[len - 1] == '\n'); /* no torn row */
    assert_int_equal(count_lines(got), 1 + (int)st.rows);
    free(got);

    /* space comes back */
    assert_int_equal(unlink(filler), 0);
    write_snap(c, snap2(T0 + i * S_NS), 0);
    gm_csv_stats(c, &st);
    gm_csv_close(c);
    assert_int_equal(st.last_errno, 0);
    assert_int_equal(log_count(&l, "writing again after 6 rows lost"), 1);
    got = slurp("small/train_20261202.csv");
    assert_int_equal(count_lines(got), 1 + (int)st.rows);
    assert_int_equal(count_substr(got, "time,host"), 1);
    char last[64];
    snprintf(last, sizeof(last), "2026-12-02T10:%02d:%02d.000+08:00,node1,train,1,", i / 60,
             i % 60);
    assert_non_null(strstr(got, last));
    free(got);
    umount2(mnt, MNT_DETACH);
    rmdir(mnt);
}

/* ------------------------------------------------------------------------ */

int main(void)
{
    setenv("TZ", "CST-8", 1);
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_columns),
        cmocka_unit_test(test_parse_columns),
        cmocka_unit_test_setup_teardown(test_open_errors, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_exact_contents, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_custom_columns_and_no_gpus, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_slow_group_between_reads, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_procs_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_events_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_outside_text, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_header_once_across_reopen, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_crash_torn_line, setup_dir, teardown_dir),
        cmocka_unit_test(test_valid_prefix),
        cmocka_unit_test_setup_teardown(test_torn_quoted_record, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_torn_too_long, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_header_mismatch, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_reopen_after_move, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_deleted_under_us, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_kill9, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rotation_midnight, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rotation_stress_50hz, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_retention, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_gzip, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_maintain, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_disk_full_rlimit, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_disk_full_per_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_disk_full_tmpfs, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_dmon.c -- unit tests for the dmon and pmon tables (src/view/dmon.c,
 * src/view/pmon.c).
 *
 * On hand-made snapshots: nvidia-smi's exact line geometry (83-character
 * lines with the trailing blank, the header's '#', pmon's misaligned header
 * of 78/75 characters), '-' for every kind of absent value and for a lost
 * GPU (never 0), integer watts rounded down, the -s order and duplicates,
 * the violation rates across two samples (first sample, a counter reset,
 * the 100 % cap), -o date/time cells, CSV with noheader/nounit, and the
 * parsers' error messages.  TZ is UTC for the whole file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "source/nvml.h"
#include "view/dmon.h"
#include "view/pmon.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
#define WALL_NS (INT64_C(1784016758) * 1000000000 + 696000000) /* 2026-07-14T08:12:38.696Z */

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                 */

/* Two GPUs: 0 healthy and busy, 1 lost. */
static struct gm_snapshot *two_gpus(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->wall_ns = WALL_NS;
    s->mono_ns = INT64_C(5000000000);
    gm_snapshot_set_gpus(s, 2);
    struct gm_gpu *g = &s->gpus[0];
    g->index = 0;
    g->m[GM_M_POWER_DRAW] = gm_v_f64(69.85);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(41);
    g->m[GM_M_TEMP_MEM] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    g->m[GM_M_UTIL_GPU] = gm_v_u64(100);
    g->m[GM_M_UTIL_MEM] = gm_v_u64(10);
    g->m[GM_M_UTIL_ENC] = gm_v_u64(0);
    g->m[GM_M_UTIL_DEC] = gm_v_status(GM_VS_NOPERM, 4);
    g->m[GM_M_CLK_MEM] = gm_v_u64(11251);
    g->m[GM_M_CLK_SM] = gm_v_u64(1980);
    g->m[GM_M_MEM_USED] = gm_v_u64(2847 * MIB + MIB / 2);
    g->m[GM_M_BAR1_USED] = gm_v_u64(39 * MIB);
    g->m[GM_M_ECC_CORR_AGG] = gm_v_u64(12);
    g->m[GM_M_ECC_UNCORR_AGG] = gm_v_u64(2);
    g->m[GM_M_PCIE_REPLAY] = gm_v_u64(0);
    g->m[GM_M_PCIE_RX] = gm_v_u64(1468 * MIB + 5);
    g->m[GM_M_PCIE_TX] = gm_v_u64(281 * MIB);
    g->m[GM_M_VIOL_POWER] = gm_v_f64(10.0);
    g->m[GM_M_VIOL_THERMAL] = gm_v_f64(3.0);
    g = &s->gpus[1];
    g->index = 1;
    g->state = GM_GPU_LOST;
    g->state_code = 15;
    g->m[GM_M_POWER_DRAW] = gm_v_f64(300); /* must not show: the GPU is lost */
    return s;
}

static void add_proc(struct gm_snapshot *s, uint32_t gpu, uint32_t pid, uint8_t type,
                     const char *name, struct gm_value mem, struct gm_value sm)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = gpu;
    p.pid = pid;
    p.type = type;
    p.gpu_instance_id = p.compute_instance_id = GM_NO_INSTANCE;
    p.used_memory = mem;
    p.sm_util = sm;
    p.mem_util = gm_v_status(GM_VS_NA, 0);
    p.enc_util = gm_v_u64(15);
    p.dec_util = gm_v_status(GM_VS_UNSUPPORTED, 3);
    p.start_time = p.elapsed = p.cpu = p.rss = gm_v_status(GM_VS_NA, 0);
    snprintf(p.name, sizeof(p.name), "%s", name);
    struct gm_proc *q = gm_snapshot_add_proc_take(s, &p);
    struct gm_gpu *g = &s->gpus[gpu];
    if (g->nproc == 0)
        g->proc_first = (uint32_t)(q - s->procs);
    g->nproc++;
}

/* Splits out into lines (without the newlines). */
static int lines_of(const char *text, char lines[][256], int max)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        assert_true(len < 256);
        memcpy(lines[n], p, len);
        lines[n][len] = '\0';
        n++;
        p += len + (nl ? 1 : 0);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* dmon                                                                      */

static void test_dmon_default_layout(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_dmon d;
    assert_int_equal(gm_dmon_init(&d, NULL, &lay, NULL), 0);
    struct gm_snapshot *s = two_gpus();
    struct gm_buf b = GM_BUF_INIT;
    gm_dmon_header(&d, &b);
    gm_dmon_rows(&d, s, 3, &b);
    char l[8][256];
    assert_int_equal(lines_of(b.p, l, 8), 4);
    assert_string_equal(l[0], "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa"
                              "   mclk   pclk ");
    assert_string_equal(l[1], "# Idx      W      C      C      %      %      %      %      %      %"
                              "    MHz    MHz ");
    /* 69.85 W -> 69 (rounded down); unsupported, no permission, unreadable -> '-' */
    assert_string_equal(l[2], "    0     69     41      -    100     10      0      -      -      -"
                              "  11251   1980 ");
    assert_string_equal(l[3], "    1      -      -      -      -      -      -      -      -      -"
                              "      -      - ");
    for (int i = 0; i < 4; i++)
        assert_int_equal(strlen(l[i]), 83); /* nvidia-smi's width */
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

static const struct {
    const char *sel;
    const char *header; /* without the "# gpu" cell and the trailing blank */
} selections[] = {
    {"p", "    pwr  gtemp  mtemp"},
    {"u", "     sm    mem    enc    dec    jpg    ofa"},
    {"c", "   mclk   pclk"},
    {"v", "  pviol  tviol"},
    {"m", "     fb   bar1   ccpm"},
    {"e", "  sbecc  dbecc    pci"},
    {"t", "  rxpci  txpci"},
    {"tp", "  rxpci  txpci    pwr  gtemp  mtemp"},
    {"ptp", "    pwr  gtemp  mtemp  rxpci  txpci"},
};

static void test_dmon_selections(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    for (size_t i = 0; i < N_ELEM(selections); i++) {
        struct gm_dmon d;
        assert_int_equal(gm_dmon_init(&d, selections[i].sel, &lay, NULL), 0);
        struct gm_buf b = GM_BUF_INIT;
        gm_dmon_header(&d, &b);
        char want[256];
        snprintf(want, sizeof(want), "# gpu%s \n", selections[i].header);
        assert_memory_equal(b.p, want, strlen(want));
        gm_buf_free(&b);
    }
}

static void test_dmon_values_m_e_t(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_dmon d;
    assert_int_equal(gm_dmon_init(&d, "met", &lay, NULL), 0);
    struct gm_snapshot *s = two_gpus();
    struct gm_buf b = GM_BUF_INIT;
    gm_dmon_rows(&d, s, 1, &b);
    /* MiB rounded down; ccpm is never read: '-' */
    assert_string_equal(b.p, "    0   2847     39      -     12      2      0   1468    281 \n");
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

static void test_dmon_violation_rates(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_dmon d;
    assert_int_equal(gm_dmon_init(&d, "v", &lay, NULL), 0);
    struct gm_snapshot *s = two_gpus();
    struct gm_buf b = GM_BUF_INIT;
    gm_dmon_rows(&d, s, 1, &b); /* first sample: no interval yet */
    assert_string_equal(b.p, "    0      -      - \n");

    static const struct {
        double dt, dpow, dthm;
        const char *want;
    } steps[] = {
        {1.0, 0.5, 0.0, "    0     50      0 \n"},   /* half the second power-capped */
        {2.0, 0.5, 0.1, "    0     25      1 \n"},   /* any thermal time: 1 */
        {1.0, 1.5, 0.0, "    0    100      0 \n"},   /* capped at 100 % */
        {1.0, -20.0, 0.0, "    0      -      0 \n"}, /* counter went back: no rate */
    };
    for (size_t i = 0; i < N_ELEM(steps); i++) {
        s->mono_ns += (int64_t)(steps[i].dt * 1e9);
        s->gpus[0].m[GM_M_VIOL_POWER].v.d += steps[i].dpow;
        s->gpus[0].m[GM_M_VIOL_THERMAL].v.d += steps[i].dthm;
        gm_buf_reset(&b);
        gm_dmon_rows(&d, s, 1, &b);
        assert_string_equal(b.p, steps[i].want);
    }
    /* a value that becomes unreadable, then readable: '-' for one sample */
    s->mono_ns += 1000000000;
    s->gpus[0].m[GM_M_VIOL_POWER] = gm_v_status(GM_VS_ERROR, 999);
    gm_buf_reset(&b);
    gm_dmon_rows(&d, s, 1, &b);
    assert_string_equal(b.p, "    0      -      0 \n");
    s->mono_ns += 1000000000;
    s->gpus[0].m[GM_M_VIOL_POWER] = gm_v_f64(0);
    gm_buf_reset(&b);
    gm_dmon_rows(&d, s, 1, &b);
    assert_string_equal(b.p, "    0      -      0 \n");
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

static void test_dmon_date_time(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    assert_int_equal(gm_mon_parse_options("DT", &lay, NULL), 0);
    struct gm_dmon d;
    assert_int_equal(gm_dmon_init(&d, "p", &lay, NULL), 0);
    struct gm_snapshot *s = two_gpus();
    struct gm_buf b = GM_BUF_INIT;
    gm_dmon_header(&d, &b);
    gm_dmon_rows(&d, s, 1, &b);
    char l[4][256];
    assert_int_equal(lines_of(b.p, l, 4), 3);
    assert_string_equal(l[0], "#Date        Time         gpu    pwr  gtemp  mtemp ");
    assert_string_equal(l[1], "#YYYYMMDD    HH:MM:SS     Idx      W      C      C ");
    assert_string_equal(l[2], " 20260714    08:12:38       0     69     41      - ");

    struct gm_mon_layout t = {0};
    assert_int_equal(gm_mon_parse_options("t", &t, NULL), 0);
    assert_int_equal(gm_dmon_init(&d, "c", &t, NULL), 0);
    gm_buf_reset(&b);
    gm_dmon_header(&d, &b);
    gm_dmon_rows(&d, s, 1, &b);
    assert_int_equal(lines_of(b.p, l, 4), 3);
    assert_string_equal(l[0], "#Time         gpu   mclk   pclk ");
    assert_string_equal(l[1], "#HH:MM:SS     Idx    MHz    MHz ");
    assert_string_equal(l[2], " 08:12:38       0  11251   1980 ");
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

static void test_dmon_csv(void **state)
{
    (void)state;
    static const struct {
        const char *format, *options, *want;
    } cases[] = {
        {"csv", NULL, "#gpu, pwr, gtemp, mtemp\n#Idx, W, C, C\n 0, 69, 41, -\n 1, -, -, -\n"},
        {"csv,nounit", "D",
         "#Date, gpu, pwr, gtemp, mtemp\n 20260714, 0, 69, 41, -\n"
         " 20260714, 1, -, -, -\n"},
        {"nounits,csv,noheader", "T", " 08:12:38, 0, 69, 41, -\n 08:12:38, 1, -, -, -\n"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_mon_layout lay = {0};
        assert_int_equal(gm_mon_parse_format(cases[i].format, &lay, NULL), 0);
        if (cases[i].options)
            assert_int_equal(gm_mon_parse_options(cases[i].options, &lay, NULL), 0);
        struct gm_dmon d;
        assert_int_equal(gm_dmon_init(&d, "p", &lay, NULL), 0);
        struct gm_snapshot *s = two_gpus();
        struct gm_buf b = GM_BUF_INIT;
        gm_dmon_header(&d, &b);
        gm_dmon_rows(&d, s, 3, &b);
        assert_string_equal(b.p, cases[i].want);
        gm_buf_free(&b);
        gm_snapshot_free(s);
    }
}

static void test_dmon_parse_errors(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_dmon d;
    struct gm_err err = {0};
    assert_int_equal(gm_dmon_init(&d, "pux", &lay, &err), GM_E_INVAL);
    assert_string_equal(err.msg,
                        "invalid -s 'pux': 'x' is not a metric group (p, u, c, v, m, e, t)");
    assert_int_equal(gm_dmon_init(&d, "", &lay, &err), GM_E_INVAL);
    assert_int_equal(gm_dmon_init(&d, "pucvmetpucvmet", &lay, NULL), 0);
    assert_int_equal(d.ncol, 21);
    assert_int_equal(gm_mon_parse_options("DX", &lay, &err), GM_E_INVAL);
    assert_string_equal(err.msg, "invalid -o 'DX': 'X' is not an option (D: date, T: time)");
    assert_int_equal(gm_mon_parse_options("", &lay, &err), GM_E_INVAL);
    static const char *const bad_formats[] = {"", "json", "csv,,noheader", "noheader", "csv,units"};
    for (size_t i = 0; i < N_ELEM(bad_formats); i++) {
        struct gm_mon_layout l = {0};
        assert_int_equal(gm_mon_parse_format(bad_formats[i], &l, &err), GM_E_INVAL);
        assert_non_null(strstr(err.msg, "--format"));
    }
}

static void test_dmon_groups(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_dmon d;
    assert_int_equal(gm_dmon_init(&d, "t", &lay, NULL), 0);
    unsigned flags = 0;
    struct gm_rgset g = gm_dmon_groups(&d, &flags);
    assert_true(gm_rgset_has(&g, GM_RG_PCIE_TPUT)); /* costly: read only when asked for */
    assert_false(gm_rgset_has(&g, GM_RG_POWER));
    assert_int_equal(gm_dmon_init(&d, "puc", &lay, NULL), 0);
    g = gm_dmon_groups(&d, &flags);
    assert_false(gm_rgset_has(&g, GM_RG_PCIE_TPUT));
    assert_true(gm_rgset_has(&g, GM_RG_POWER));
    assert_true(gm_rgset_has(&g, GM_RG_CLOCKS));
    assert_true(gm_rgset_has(&g, GM_RG_UTIL));
}

/* ------------------------------------------------------------------------ */
/* pmon                                                                      */

static void test_pmon_layout(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_pmon p;
    assert_int_equal(gm_pmon_init(&p, NULL, &lay, NULL), 0);
    struct gm_snapshot *s = two_gpus();
    add_proc(s, 0, 11345, GM_PT_COMPUTE, "/usr/bin/gpu_burn", gm_v_u64(512 * MIB), gm_v_u64(99));
    add_proc(s, 0, 2165, GM_PT_COMPUTE | GM_PT_GRAPHICS, "xwaylandvideobridge",
             gm_v_status(GM_VS_NA, 0), gm_v_status(GM_VS_NA, 0));
    add_proc(s, 0, 77, GM_PT_COMPUTE | GM_PT_MPS, "", gm_v_u64(0), gm_v_u64(0));
    struct gm_buf b = GM_BUF_INIT;
    gm_pmon_header(&p, &b);
    gm_pmon_rows(&p, s, 3, &b);
    assert_int_equal(gm_pmon_nlines(s, 3), 4);
    char l[8][256];
    assert_int_equal(lines_of(b.p, l, 8), 6);
    assert_string_equal(l[0], "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa"
                              "    command ");
    assert_string_equal(l[1], "# Idx           #    C/G      %      %      %      %      %      %"
                              "    name ");
    assert_int_equal(strlen(l[0]), 78);
    assert_int_equal(strlen(l[1]), 75);
    assert_string_equal(l[2], "    0      11345     C     99      -     15      -      -      -"
                              "    gpu_burn       ");
    assert_string_equal(l[3], "    0       2165   C+G      -      -     15      -      -      -"
                              "    xwaylandvideobr");
    assert_string_equal(l[4], "    0         77     M      0      -     15      -      -      -"
                              "    -              ");
    /* a GPU without processes: one line of '-' */
    assert_string_equal(l[5], "    1          -     -      -      -      -      -      -      -"
                              "    -              ");
    for (int i = 2; i < 6; i++)
        assert_int_equal(strlen(l[i]), 83);
    gm_buf_free(&b);
    gm_snapshot_free(s);
}

/* Process names are text from outside: in the table, controls and bad bytes
 * are U+FFFD ('?' in ASCII) and the name is cut to 15 characters, not bytes;
 * in csv the name is one field (quoted when it holds a comma) and a formula
 * gets a leading '. */
static void test_pmon_outside_names(void **state)
{
    (void)state;
    struct gm_snapshot *s = two_gpus();
    add_proc(s, 0, 7, GM_PT_COMPUTE, "ev\xff\xfe\n\x1b[2Jx", gm_v_u64(0), gm_v_u64(1));
    add_proc(s, 0, 8, GM_PT_COMPUTE, "=SUM(1,2)*abcd\xe8\xae\xadxyz", gm_v_u64(0), gm_v_u64(2));
    add_proc(s, 0, 9, GM_PT_COMPUTE, "", gm_v_u64(0), gm_v_u64(3));
#define R "\xEF\xBF\xBD"
    static const struct {
        struct gm_mon_layout lay;
        const char *want[3];
    } t[] = {
        {{0}, {"ev" R R R R "[2Jx     ", "=SUM(1,2)*abcd\xe8\xae\xad", "-              "}},
        {{.ascii = 1}, {"ev????[2Jx     ", "=SUM(1,2)*abcd?", "-              "}},
        {{.csv = 1}, {"ev" R R R R "[2Jx", "\"'=SUM(1,2)*abcd\xe8\xae\xadxyz\"", "-"}},
    };
#undef R
    for (size_t k = 0; k < N_ELEM(t); k++) {
        struct gm_pmon p;
        assert_int_equal(gm_pmon_init(&p, "u", &t[k].lay, NULL), 0);
        struct gm_buf b = GM_BUF_INIT;
        gm_pmon_rows(&p, s, 1, &b);
        char l[8][256];
        assert_int_equal(lines_of(b.p, l, 8), 3);
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(l[i]), w = strlen(t[k].want[i]);
            if (n < w || strcmp(l[i] + n - w, t[k].want[i]) != 0)
                fail_msg("layout %zu, process %d: line \"%s\" does not end in \"%s\"", k, i, l[i],
                         t[k].want[i]);
        }
        gm_buf_free(&b);
    }
    gm_snapshot_free(s);
}

static void test_pmon_memory_and_csv(void **state)
{
    (void)state;
    struct gm_mon_layout lay = {0};
    struct gm_pmon p;
    assert_int_equal(gm_pmon_init(&p, "mum", &lay, NULL), 0);
    assert_int_equal(p.ncol, 8);
    struct gm_snapshot *s = two_gpus();
    add_proc(s, 0, 740204, GM_PT_GRAPHICS, "ollama", gm_v_u64(5830 * MIB + 7), gm_v_u64(3));
    struct gm_buf b = GM_BUF_INIT;
    gm_pmon_header(&p, &b);
    gm_pmon_rows(&p, s, 1, &b);
    char l[4][256];
    assert_int_equal(lines_of(b.p, l, 4), 3);
    assert_string_equal(l[0], "# gpu         pid   type     fb   ccpm     sm    mem    enc    dec"
                              "    jpg    ofa    command ");
    assert_string_equal(l[2], "    0     740204     G   5830      -      3      -     15      -"
                              "      -      -    ollama         ");

    struct gm_mon_layout csv = {0};
    assert_int_equal(gm_mon_parse_format("csv", &csv, NULL), 0);
    assert_int_equal(gm_mon_parse_options("T", &csv, NULL), 0);
    assert_int_equal(gm_pmon_init(&p, "m", &csv, NULL), 0);
    gm_buf_reset(&b);
    gm_pmon_header(&p, &b);
    gm_pmon_rows(&p, s, 3, &b);
    assert_string_equal(b.p, "#Time, gpu, pid, type, fb, ccpm, command\n"
                             "#HH:MM:SS, Idx, #, C/G, MB, MB, name\n"
                             " 08:12:38, 0, 740204, G, 5830, -, ollama\n"
                             " 08:12:38, 1, -, -, -, -, -\n");
    gm_buf_free(&b);
    gm_snapshot_free(s);

    struct gm_err err = {0};
    assert_int_equal(gm_pmon_init(&p, "p", &lay, &err), GM_E_INVAL);
    assert_non_null(strstr(err.msg, "'p' is not a metric group"));
    assert_int_equal(gm_pmon_init(&p, "", &lay, &err), GM_E_INVAL);
}

/* --gpm-metrics: nvidia-smi's ids become columns after the -s groups, in the
 * order given, each once; bad lists are refused with a message naming the
 * part; GPM columns bring the GPM read group and the one-shot prime. */
static void test_dmon_gpm_metrics(void **state)
{
    (void)state;
    static const struct {
        const char *list;
        const char *header; /* after "# gpu" and the -s u columns; NULL: refused */
        const char *msg;    /* part of the error */
    } rows[] = {
        {"1,2,3,5,10", "  gract  smact  smocc  tenac dramac", NULL},
        {"10,1", " dramac  gract", NULL},
        {"2,2,2", "  smact", NULL},
        {"20,21,61,60", "  pcitx  pcirx  nvltx  nvlrx", NULL},
        {"4,11,12,13", "  intac  fp64a  fp32a  fp16a", NULL},
        {"7", NULL, "does not read GPM metric 7"},
        {"1,x", NULL, "'x' is not a metric id"},
        {"1,", NULL, "a comma at the end"},
        {"", NULL, "needs metric ids"},
        {"-1", NULL, "'-1' is not a metric id"},
        {"99999999999999999999", NULL, "is not a metric id"},
    };
    struct gm_mon_layout lay = {0};
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_dmon d;
        struct gm_err err = {0};
        assert_int_equal(gm_dmon_init(&d, "u", &lay, NULL), 0);
        unsigned before = 0;
        gm_dmon_groups(&d, &before);
        int rc = gm_dmon_add_gpm(&d, rows[i].list, &err);
        if (!rows[i].header) {
            assert_int_equal(rc, GM_E_INVAL);
            if (!strstr(err.msg, rows[i].msg))
                fail_msg("%s: message %s lacks %s", rows[i].list, err.msg, rows[i].msg);
            assert_false(before & GM_NVML_GPM_PRIME);
            continue;
        }
        assert_int_equal(rc, 0);
        struct gm_buf b = GM_BUF_INIT;
        gm_dmon_header(&d, &b);
        char want[256];
        snprintf(want, sizeof(want), "# gpu     sm    mem    enc    dec    jpg    ofa%s \n",
                 rows[i].header);
        if (b.len < strlen(want) || memcmp(b.p, want, strlen(want)) != 0)
            fail_msg("%s: header %.*s, want %s", rows[i].list, (int)b.len, b.p, want);
        gm_buf_free(&b);
        unsigned flags = 0;
        struct gm_rgset g = gm_dmon_groups(&d, &flags);
        assert_true(gm_rgset_has(&g, GM_RG_GPM));
        assert_true(flags & GM_NVML_GPM_PRIME);
    }
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dmon_default_layout),
        cmocka_unit_test(test_dmon_selections),
        cmocka_unit_test(test_dmon_gpm_metrics),
        cmocka_unit_test(test_dmon_values_m_e_t),
        cmocka_unit_test(test_dmon_violation_rates),
        cmocka_unit_test(test_dmon_date_time),
        cmocka_unit_test(test_dmon_csv),
        cmocka_unit_test(test_dmon_parse_errors),
        cmocka_unit_test(test_dmon_groups),
        cmocka_unit_test(test_pmon_layout),
        cmocka_unit_test(test_pmon_memory_and_csv),
        cmocka_unit_test(test_pmon_outside_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

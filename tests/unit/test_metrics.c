/* test_metrics.c -- unit tests for the metric registry (src/core/metrics.c).
 *
 * Two kinds.  Invariants over the whole table, so that a new row that breaks
 * a rule fails here rather than in some output far away: every row names
 * itself for every output, names are unique within their scope (GPU and host
 * metrics share one namespace, per-process metrics another), Prometheus names
 * are legal and counters carry no _total, the per-reason rows form one
 * family whose bits match NVML's.  And table-driven lookups: nvidia-smi keys
 * and aliases, full JSON keys and CSV columns, scope rules, and the clock
 * event reason names and mask formatting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/metrics.h"
#include "source/nvml_abi.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* GPU- and host-scope metrics share the per-GPU namespace (query fields,
 * status JSON); per-process metrics have their own. */
static int ns_of(int id)
{
    return gm_metrics[id].scope == GM_SC_PROC;
}

static const char *scope_name(int id)
{
    return ns_of(id) ? "proc" : "gpu/host";
}

/* [a-z_][a-z0-9_]* */
static int is_snake(const char *s)
{
    if (!s || !*s)
        return 0;
    if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Calls fn(id, key, len) for the nvidia-smi key and each alias of a row. */
typedef void (*key_fn)(int id, const char *key, size_t len, void *ctx);
static void each_smi_key(int id, key_fn fn, void *ctx)
{
    const struct gm_metric *m = &gm_metrics[id];
    if (m->smi)
        fn(id, m->smi, strlen(m->smi), ctx);
    for (const char *a = m->smi_alias; a && *a;) {
        const char *e = strchr(a, ',');
        size_t len = e ? (size_t)(e - a) : strlen(a);
        int own = *a == '='; /* "=key": a separate nvidia-smi field with the same value */
        fn(id, a + own, len - (size_t)own, ctx);
        a = e ? e + 1 : NULL;
    }
}

/* ------------------------------------------------------------ invariants */

static void test_every_row_is_named(void **state)
{
    (void)state;
    int bad = 0;
    for (int id = 0; id < GM_M__COUNT; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (!m->desc || !*m->desc || !m->csv || !*m->csv || !m->json || !*m->json) {
            print_error("metric %d has no desc, csv or json stem\n", id);
            bad++;
            continue;
        }
        if (!is_snake(m->csv) || !is_snake(m->json)) {
            print_error("metric %d: csv \"%s\" / json \"%s\" not [a-z_][a-z0-9_]*\n", id, m->csv,
                        m->json);
            bad++;
        }
        if (m->unit >= GM_U__COUNT) {
            print_error("metric %s: unit %u out of range\n", m->json, m->unit);
            bad++;
        }
        /* words, hex, strings and times carry no unit: nvidia-smi's header
         * and value get " [unit]" only for numbers */
        if (m->fmt != GM_F_NUM && m->unit != GM_U_NONE) {
            print_error("metric %s: non-numeric format with a unit\n", m->json);
            bad++;
        }
        if (m->prom && (!m->prom_help || !*m->prom_help)) {
            print_error("metric %s: Prometheus name without help\n", m->json);
            bad++;
        }
        if (m->fmt == GM_F_STR && m->scope == GM_SC_GPU && m->sslot >= GM_S__COUNT) {
            print_error("metric %s: string slot %u out of range\n", m->json, m->sslot);
            bad++;
        }
        /* the enum's split: per-GPU rows first, then per-process rows */
        if ((id >= GM_M__GPU_END) != (m->scope == GM_SC_PROC)) {
            print_error("metric %s: scope does not match its place in the enum\n", m->json);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_units_table(void **state)
{
    (void)state;
    for (int u = 0; u < GM_U__COUNT; u++) {
        const struct gm_unit_info *ui = &gm_units[u];
        assert_non_null(ui->smi);
        assert_non_null(ui->csv);
        assert_non_null(ui->json);
        assert_non_null(ui->prom);
        assert_true(ui->smi_div > 0);
        assert_true(ui->prom_mul > 0);
        assert_non_null(ui->store);
        assert_true(!*ui->store || is_snake(ui->store));
    }
    /* the conversions nvidia-smi's output depends on */
    assert_string_equal(gm_units[GM_U_BYTES].smi, "MiB");
    assert_true(gm_units[GM_U_BYTES].smi_div == 1048576.0);
    assert_int_equal(gm_units[GM_U_WATTS].smi_decimals, 2);
    assert_string_equal(gm_units[GM_U_CELSIUS].smi, ""); /* temperatures carry no unit */
    assert_string_equal(gm_units[GM_U_PERCENT].smi, "%");
    assert_string_equal(gm_units[GM_U_MHZ].smi, "MHz");
    assert_string_equal(gm_units[GM_U_US].smi, "us"); /* clocks_event_reasons_counters.* */
    assert_true(gm_units[GM_U_US].smi_div == 1e-6);
    assert_string_equal(gm_units[GM_U_MS].smi, "ms"); /* power_smoothing.window_multiplier */
    assert_true(gm_units[GM_U_MS].smi_div == 1e-3);
    assert_string_equal(gm_units[GM_U_PERCENT2].smi, "%"); /* edpp_multiplier: 100.00 % */
    assert_int_equal(gm_units[GM_U_PERCENT2].smi_decimals, 2);
}

/* dcgm-exporter's units, as its help texts name them and its values use. */
static void test_units_dcgm(void **state)
{
    (void)state;
    static const struct {
        int unit;
        const char *dcgm; /* NULL: no unit in the help text */
        double mul;       /* base value * mul = dcgm-exporter's value */
    } rows[] = {
        {GM_U_NONE, NULL, 1},
        {GM_U_PERCENT, "%", 1},
        {GM_U_BYTES, "MiB", 1.0 / 1048576.0},
        {GM_U_BYTES_PER_S, "B/s", 1},
        {GM_U_WATTS, "W", 1},
        {GM_U_JOULES, "mJ", 1000},
        {GM_U_CELSIUS, "C", 1},
        {GM_U_MHZ, "MHz", 1},
        {GM_U_SECONDS, "ns", 1e9},
        {GM_U_ACTIVITY, "ratio", 0.01}, /* the DCGM_FI_PROF_* activities: 0-1 */
        {GM_U_US, "ns", 1e9},           /* a duration: seconds inside, us in nvidia-smi's CSV */
        {GM_U_MS, "ns", 1e9},           /* the same, ms in nvidia-smi's CSV */
        {GM_U_PERCENT2, "%", 1},        /* edpp_multiplier: 100.00 % in nvidia-smi's CSV */
    };
    assert_int_equal(N_ELEM(rows), GM_U__COUNT);
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const struct gm_unit_info *u = &gm_units[rows[i].unit];
        if (rows[i].dcgm)
            assert_string_equal(u->dcgm, rows[i].dcgm);
        else
            assert_null(u->dcgm);
        assert_true(u->dcgm_mul == rows[i].mul);
    }
}

/* The GPM rows: NVML's metric ids, the dcgm-exporter PROF names (ratios for
 * the activities, bytes/s for the links), their own read group, and out of
 * `status --json`. */
static void test_gpm_rows(void **state)
{
    (void)state;
    static const struct {
        int id;
        unsigned nvml;
        const char *smi;
        const char *dcgm;
        int unit;
    } rows[] = {
        {GM_M_GPM_GR_ACTIVE, NVML_GPM_METRIC_GRAPHICS_UTIL, "gpm.graphics_active",
         "DCGM_FI_PROF_GR_ENGINE_ACTIVE", GM_U_ACTIVITY},
        {GM_M_GPM_SM_ACTIVE, NVML_GPM_METRIC_SM_UTIL, "gpm.sm_active", "DCGM_FI_PROF_SM_ACTIVE",
         GM_U_ACTIVITY},
        {GM_M_GPM_SM_OCCUPANCY, NVML_GPM_METRIC_SM_OCCUPANCY, "gpm.sm_occupancy",
         "DCGM_FI_PROF_SM_OCCUPANCY", GM_U_ACTIVITY},
        {GM_M_GPM_INT_ACTIVE, NVML_GPM_METRIC_INTEGER_UTIL, "gpm.integer_active", NULL,
         GM_U_ACTIVITY},
        {GM_M_GPM_TENSOR_ACTIVE, NVML_GPM_METRIC_ANY_TENSOR_UTIL, "gpm.tensor_active",
         "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", GM_U_ACTIVITY},
        {GM_M_GPM_DRAM_ACTIVE, NVML_GPM_METRIC_DRAM_BW_UTIL, "gpm.dram_active",
         "DCGM_FI_PROF_DRAM_ACTIVE", GM_U_ACTIVITY},
        {GM_M_GPM_FP64_ACTIVE, NVML_GPM_METRIC_FP64_UTIL, "gpm.fp64_active",
         "DCGM_FI_PROF_PIPE_FP64_ACTIVE", GM_U_ACTIVITY},
        {GM_M_GPM_FP32_ACTIVE, NVML_GPM_METRIC_FP32_UTIL, "gpm.fp32_active",
         "DCGM_FI_PROF_PIPE_FP32_ACTIVE", GM_U_ACTIVITY},
        {GM_M_GPM_FP16_ACTIVE, NVML_GPM_METRIC_FP16_UTIL, "gpm.fp16_active",
         "DCGM_FI_PROF_PIPE_FP16_ACTIVE", GM_U_ACTIVITY},
        /* DCGM's PROF PCIe fields are profiling counters: GPM, not nvmlDeviceGetPcieThroughput */
        {GM_M_GPM_PCIE_TX, NVML_GPM_METRIC_PCIE_TX_PER_SEC, "gpm.pcie_tx",
         "DCGM_FI_PROF_PCIE_TX_BYTES", GM_U_BYTES_PER_S},
        {GM_M_GPM_PCIE_RX, NVML_GPM_METRIC_PCIE_RX_PER_SEC, "gpm.pcie_rx",
         "DCGM_FI_PROF_PCIE_RX_BYTES", GM_U_BYTES_PER_S},
        {GM_M_GPM_NVLINK_TX, NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, "gpm.nvlink_tx",
         "DCGM_FI_PROF_NVLINK_TX_BYTES", GM_U_BYTES_PER_S},
        {GM_M_GPM_NVLINK_RX, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, "gpm.nvlink_rx",
         "DCGM_FI_PROF_NVLINK_RX_BYTES", GM_U_BYTES_PER_S},
    };
    assert_int_equal(N_ELEM(rows), GM_GPM_COUNT);
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const struct gm_metric *m = &gm_metrics[rows[i].id];
        assert_int_equal(rows[i].id, GM_GPM_FIRST + (int)i);
        assert_int_equal(m->gpm_id, rows[i].nvml);
        assert_int_equal(gm_metric_by_gpm_id(rows[i].nvml), rows[i].id);
        assert_string_equal(m->smi, rows[i].smi);
        assert_int_equal(gm_metric_by_smi(rows[i].smi, strlen(rows[i].smi), 0), rows[i].id);
        if (rows[i].dcgm)
            assert_string_equal(m->dcgm, rows[i].dcgm);
        else
            assert_null(m->dcgm);
        assert_int_equal(m->unit, rows[i].unit);
        assert_int_equal(m->rg, GM_RG_GPM);
        assert_true(m->flags & GM_MF_NOT_IN_STATUS);
        assert_null(m->store); /* not a samples column: the opt-in gpm table (store.c) */
    }
    assert_null(gm_metrics[GM_M_PCIE_TX].dcgm); /* one source per dcgm-exporter name */
    assert_null(gm_metrics[GM_M_PCIE_RX].dcgm);
    assert_int_equal(gm_metric_by_gpm_id(8), -1); /* DMMA: not read */
    assert_int_equal(gm_metric_by_gpm_id(0), -1);
    /* dcgm-exporter's PROF ratios keep their fraction; whole MiB do not */
    assert_true(gm_units[GM_U_ACTIVITY].dcgm_frac);
    assert_false(gm_units[GM_U_BYTES].dcgm_frac);
}

/* The store's columns: places 1..N without gaps or repeats (an existing
 * store gets new columns at its end, in this order), legal and unique
 * names, a scale with a prefix, and a whole-unit divisor only unscaled. */
static void test_store_columns(void **state)
{
    (void)state;
    int bad = 0, n = 0, maxcol = 0;
    int seen[256] = {0};
    char col[64], other[64];
    for (int id = 0; id < GM_M__COUNT; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (!m->store) {
            if (m->store_col || m->store_scale) {
                print_error("metric %s: a store place or scale without a column\n", m->json);
                bad++;
            }
            continue;
        }
        n++;
        if (m->scope != GM_SC_GPU) {
            print_error("metric %s: only GPU metrics have samples columns\n", m->json);
            bad++;
        }
        if (!gm_metric_store_col(id, col, sizeof(col)) || !is_snake(col)) {
            print_error("metric %s: store column stem \"%s\" scale %u: no legal name\n", m->json,
                        m->store, m->store_scale);
            bad++;
            continue;
        }
        if (m->store_col == 0 || seen[m->store_col]++) {
            print_error("metric %s: store place %u is 0 or taken\n", m->json, m->store_col);
            bad++;
        }
        maxcol = m->store_col > maxcol ? m->store_col : maxcol;
        if (gm_units[m->unit].smi_div != 1 && m->store_scale != 1) {
            print_error("metric %s: whole %s are stored unscaled\n", m->json,
                        gm_units[m->unit].smi);
            bad++;
        }
        static const char *const taken[] = {"ts", "gpu", "dup", "task", "status"};
        for (size_t k = 0; k < N_ELEM(taken); k++)
            if (strcmp(col, taken[k]) == 0) {
                print_error("metric %s: store column %s is a key column\n", m->json, col);
                bad++;
            }
        for (int o = 0; o < id; o++)
            if (gm_metric_store_col(o, other, sizeof(other)) && strcmp(col, other) == 0) {
                print_error("store column %s on ids %d and %d\n", col, o, id);
                bad++;
            }
    }
    assert_int_equal(bad, 0);
    assert_int_equal(maxcol, n); /* 1..n, each once */
    assert_true(n >= 11);        /* schema 3's columns */
}

/* Store column names as schema 3 spells them, and the view's. */
static void test_store_names(void **state)
{
    (void)state;
    static const struct {
        int id;
        const char *col, *view; /* NULL: not stored */
    } rows[] = {
        {GM_M_UTIL_GPU, "util_gpu_pct", "util_gpu_pct"},
        {GM_M_UTIL_MEM, "util_mem_pct", "util_mem_pct"},
        {GM_M_MEM_USED, "mem_used_mib", "mem_used_mib"},
        {GM_M_POWER_DRAW, "power_cw", "power_w"},
        {GM_M_POWER_LIMIT, "power_limit_cw", "power_limit_w"},
        {GM_M_TEMP_GPU, "temp_c", "temp_c"},
        {GM_M_CLK_SM, "clk_sm_mhz", "clk_sm_mhz"},
        {GM_M_CLK_MEM, "clk_mem_mhz", "clk_mem_mhz"},
        {GM_M_CER_ACTIVE, "reasons", "reasons"},
        {GM_M_FAN, "fan_pct", "fan_pct"},
        {GM_M_ENERGY, "energy_mj", "energy_j"},
        {GM_M_MEM_TOTAL, NULL, NULL}, /* kept per GPU in the gpus table */
        {GM_M_NAME, NULL, NULL},
    };
    char buf[64];
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *col = gm_metric_store_col(rows[i].id, buf, sizeof(buf));
        if (!rows[i].col) {
            assert_null(col);
            assert_null(gm_metric_store_view_col(rows[i].id, buf, sizeof(buf)));
            continue;
        }
        assert_non_null(col);
        assert_string_equal(col, rows[i].col);
        assert_string_equal(gm_metric_store_view_col(rows[i].id, buf, sizeof(buf)), rows[i].view);
    }
    /* schema 3's order */
    for (size_t i = 0; i + 2 < N_ELEM(rows); i++)
        assert_int_equal(gm_metrics[rows[i].id].store_col, (int)i + 1);
}

static void test_sslots_unique(void **state)
{
    (void)state;
    int owner[GM_S__COUNT];
    for (int i = 0; i < GM_S__COUNT; i++)
        owner[i] = -1;
    for (int id = 0; id < GM_M__GPU_END; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (m->fmt != GM_F_STR || m->scope != GM_SC_GPU)
            continue;
        if (owner[m->sslot] >= 0)
            fail_msg("string slot %u used by %s and %s", m->sslot, gm_metrics[owner[m->sslot]].json,
                     m->json);
        owner[m->sslot] = id;
    }
    for (int i = 0; i < GM_S__COUNT; i++)
        if (owner[i] < 0)
            fail_msg("string slot %d has no metric", i);
}

static void test_json_keys_unique(void **state)
{
    (void)state;
    char a[128], b[128];
    int bad = 0;
    for (int i = 0; i < GM_M__COUNT; i++) {
        gm_metric_json_key(i, a, sizeof(a));
        for (int k = i + 1; k < GM_M__COUNT; k++) {
            if (ns_of(i) != ns_of(k))
                continue;
            if (strcmp(a, gm_metric_json_key(k, b, sizeof(b))) == 0) {
                print_error("JSON key \"%s\" used twice in scope %s (ids %d, %d)\n", a,
                            scope_name(i), i, k);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

static void test_csv_columns_unique(void **state)
{
    (void)state;
    char a[128], b[128];
    int bad = 0;
    for (int i = 0; i < GM_M__COUNT; i++) {
        gm_metric_csv_col(i, a, sizeof(a));
        for (int k = i + 1; k < GM_M__COUNT; k++) {
            if (ns_of(i) != ns_of(k))
                continue;
            if (strcmp(a, gm_metric_csv_col(k, b, sizeof(b))) == 0) {
                print_error("CSV column \"%s\" used twice in scope %s (ids %d, %d)\n", a,
                            scope_name(i), i, k);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

/* Every nvidia-smi key and alias, with its owner, for the uniqueness check. */
struct keylist {
    int n;
    int id[512];
    char key[512][96];
    int bad;
};

static void collect_key(int id, const char *key, size_t len, void *ctx)
{
    struct keylist *kl = ctx;
    if (len == 0 || len >= sizeof(kl->key[0]) || memchr(key, ' ', len)) {
        print_error("metric %d: malformed nvidia-smi key or alias \"%.*s\"\n", id, (int)len, key);
        kl->bad++;
        return;
    }
    for (int i = 0; i < kl->n; i++) {
        if (ns_of(kl->id[i]) == ns_of(id) && strlen(kl->key[i]) == len &&
            memcmp(kl->key[i], key, len) == 0) {
            print_error("nvidia-smi key \"%.*s\" used by ids %d and %d (scope %s)\n", (int)len, key,
                        kl->id[i], id, scope_name(id));
            kl->bad++;
        }
    }
    assert_true(kl->n < (int)N_ELEM(kl->id));
    kl->id[kl->n] = id;
    memcpy(kl->key[kl->n], key, len);
    kl->key[kl->n][len] = '\0';
    kl->n++;
}

static void test_smi_keys_unique(void **state)
{
    (void)state;
    static struct keylist kl;
    memset(&kl, 0, sizeof(kl));
    for (int id = 0; id < GM_M__COUNT; id++)
        each_smi_key(id, collect_key, &kl);
    assert_int_equal(kl.bad, 0);
    assert_true(kl.n > 50); /* the walk really saw the table */
}

/* Each key and alias finds its own row back (and nothing earlier shadows it). */
static void lookup_key(int id, const char *key, size_t len, void *ctx)
{
    int *bad = ctx;
    int got = gm_metric_by_smi(key, len, ns_of(id));
    if (got != id) {
        print_error("gm_metric_by_smi(\"%.*s\") = %d, want %d\n", (int)len, key, got, id);
        (*bad)++;
    }
}

static void test_every_smi_key_round_trips(void **state)
{
    (void)state;
    int bad = 0;
    for (int id = 0; id < GM_M__COUNT; id++)
        each_smi_key(id, lookup_key, &bad);
    assert_int_equal(bad, 0);
}

/* "=key" aliases keep their own header; ordinary aliases use the canonical one. */
static void test_own_header_aliases(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        int id;
        int own;
    } cases[] = {
        {"pcie.link.gen.gpucurrent", GM_M_PCIE_GEN_CUR, 1},
        {"pcie.link.gen.current", GM_M_PCIE_GEN_CUR, 0},
        {"clocks.sm", GM_M_CLK_SM, 0},
        {"gpu_name", GM_M_NAME, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = strlen(cases[i].key);
        assert_int_equal(gm_metric_by_smi(cases[i].key, len, 0), cases[i].id);
        assert_int_equal(gm_metric_smi_own_header(cases[i].id, cases[i].key, len), cases[i].own);
    }
}

static void test_every_name_round_trips(void **state)
{
    (void)state;
    char buf[128];
    int bad = 0;
    for (int id = 0; id < GM_M__COUNT; id++) {
        int proc = ns_of(id);
        const char *k = gm_metric_json_key(id, buf, sizeof(buf));
        int got = gm_metric_by_name(k, proc);
        if (got != id) {
            print_error("gm_metric_by_name(\"%s\") = %d, want %d\n", k, got, id);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_read_groups(void **state)
{
    (void)state;
    int bad = 0;
    for (int id = 0; id < GM_M__COUNT; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (m->rg >= GM_RG__COUNT) {
            print_error("metric %s: read group %u >= GM_RG__COUNT\n", m->json, m->rg);
            bad++;
        } else if (m->scope != GM_SC_GPU && m->rg != GM_RG_NONE) {
            /* host facts and processes are not read per GPU by a group */
            print_error("metric %s: %s scope with a read group\n", m->json, scope_name(id));
            bad++;
        }
    }
    for (int rg = 0; rg < GM_RG__COUNT; rg++) {
        const struct gm_read_group_info *r = &gm_read_groups[rg];
        /* a group reads an NVML function, or (pcie.link.gen.hostmax, which NVML
         * does not have) a sysfs file */
        if (!r->name || (rg != GM_RG_NONE && (!r->nvml || (strncmp(r->nvml, "nvml", 4) != 0 &&
                                                           strncmp(r->nvml, "/sys/", 5) != 0)))) {
            print_error("read group %d has no name or NVML symbol\n", rg);
            bad++;
        }
        /* every group but NONE fills at least one metric */
        int used = rg == GM_RG_NONE;
        for (int id = 0; id < GM_M__COUNT && !used; id++)
            used = gm_metrics[id].rg == rg;
        if (!used) {
            print_error("read group %s fills no metric\n", r->name ? r->name : "?");
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_prom_names(void **state)
{
    (void)state;
    int bad = 0, nexported = 0;
    for (int id = 0; id < GM_M__COUNT; id++) {
        const struct gm_metric *m = &gm_metrics[id];
        if (!m->prom)
            continue;
        nexported++;
        if (!is_snake(m->prom)) {
            print_error("Prometheus name \"%s\" is not [a-z_][a-z0-9_]*\n", m->prom);
            bad++;
        }
        /* the exporter appends the unit and, for counters, _total itself */
        if (m->kind == GM_K_COUNTER && ends_with(m->prom, "_total")) {
            print_error("counter \"%s\" already ends in _total\n", m->prom);
            bad++;
        }
        if (!is_snake(gm_units[m->unit].prom) && *gm_units[m->unit].prom) {
            print_error("unit suffix \"%s\" of %s is not a legal name part\n",
                        gm_units[m->unit].prom, m->prom);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    assert_true(nexported > 20);
}

/* Prometheus names are unique except within one declared family (the
 * per-reason rows, which differ by a label). */
static void test_prom_names_unique_outside_families(void **state)
{
    (void)state;
    int bad = 0;
    for (int i = 0; i < GM_M__COUNT; i++) {
        for (int k = i + 1; k < GM_M__COUNT; k++) {
            const struct gm_metric *a = &gm_metrics[i], *b = &gm_metrics[k];
            if (!a->prom || !b->prom || strcmp(a->prom, b->prom) != 0)
                continue;
            if (a->bit && b->bit)
                continue; /* the reason family */
            print_error("Prometheus name \"%s\" on ids %d and %d\n", a->prom, i, k);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_reason_rows(void **state)
{
    (void)state;
    static const struct {
        int id;
        uint64_t bit; /* from nvml_abi.h, itself pinned by test_nvml_abi */
        const char *name;
    } rows[] = {
        {GM_M_CER_GPU_IDLE, nvmlClocksEventReasonGpuIdle, "gpu_idle"},
        {GM_M_CER_APP_CLOCKS, nvmlClocksEventReasonApplicationsClocksSetting,
         "applications_clocks_setting"},
        {GM_M_CER_SW_POWER_CAP, nvmlClocksEventReasonSwPowerCap, "sw_power_cap"},
        {GM_M_CER_HW_SLOWDOWN, nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
        {GM_M_CER_HW_THERMAL, nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
        {GM_M_CER_HW_POWER_BRAKE, nvmlClocksThrottleReasonHwPowerBrakeSlowdown,
         "hw_power_brake_slowdown"},
        {GM_M_CER_SW_THERMAL, nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
        {GM_M_CER_SYNC_BOOST, nvmlClocksEventReasonSyncBoost, "sync_boost"},
        {GM_M_CER_DISPLAY_CLOCK, nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting"},
    };
    const char *family = gm_metrics[rows[0].id].prom;
    assert_non_null(family);
    uint64_t all = 0;
    int nbits = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const struct gm_metric *m = &gm_metrics[rows[i].id];
        char smi[96], alias[96];
        snprintf(smi, sizeof(smi), "clocks_event_reasons.%s", rows[i].name);
        snprintf(alias, sizeof(alias), "clocks_throttle_reasons.%s", rows[i].name);
        assert_true(m->bit == rows[i].bit);
        assert_string_equal(m->smi, smi);
        assert_string_equal(m->smi_alias, alias);
        assert_non_null(m->prom);
        assert_string_equal(m->prom, family); /* one family, the reason is a label */
        assert_int_equal(m->fmt, GM_F_ACTIVE);
        assert_int_equal(m->rg, GM_RG_CLOCK_REASONS);
        assert_string_equal(gm_reason_name(rows[i].bit), rows[i].name);
        all |= m->bit;
    }
    assert_true(all == nvmlClocksEventReasonAll);
    /* no other row claims a reason bit */
    for (int id = 0; id < GM_M__COUNT; id++)
        nbits += gm_metrics[id].bit != 0;
    assert_int_equal(nbits, (int)N_ELEM(rows));
}

/* --------------------------------------------------------------- lookups */

static void test_lookup_by_smi(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        int proc;
        int want;
    } rows[] = {
        {"memory.used", 0, GM_M_MEM_USED},
        {"utilization.gpu", 0, GM_M_UTIL_GPU},
        {"temperature.gpu", 0, GM_M_TEMP_GPU},
        {"clocks.current.sm", 0, GM_M_CLK_SM},
        {"clocks.sm", 0, GM_M_CLK_SM}, /* alias */
        {"clocks.mem", 0, GM_M_CLK_MEM},
        {"clocks.gr", 0, GM_M_CLK_GR},
        {"clocks_event_reasons.hw_slowdown", 0, GM_M_CER_HW_SLOWDOWN},
        {"clocks_throttle_reasons.hw_slowdown", 0, GM_M_CER_HW_SLOWDOWN},
        {"clocks_throttle_reasons.active", 0, GM_M_CER_ACTIVE},
        {"name", 0, GM_M_NAME},
        {"gpu_name", 0, GM_M_NAME},
        {"gpu_uuid", 0, GM_M_UUID},
        {"gpu_bus_id", 0, GM_M_PCI_BUS_ID},
        {"remapped_rows.sbe", 0, GM_M_REMAP_CORR},
        {"remapped_rows.dbe", 0, GM_M_REMAP_UNCORR},
        {"retired_pages.sbe", 0, GM_M_RETIRED_SBE},
        {"timestamp", 0, GM_M_TIMESTAMP},
        {"index", 0, GM_M_INDEX},
        /* not found: case matters, no prefixes, no JSON keys here */
        {"Memory.Used", 0, -1},
        {"memory.use", 0, -1},
        {"memory.used ", 0, -1},
        {"clocks.s", 0, -1},
        {"memory_used_bytes", 0, -1},
        {"foo", 0, -1},
        {"", 0, -1},
        /* processes: their own namespace */
        {"pid", 1, GM_P_PID},
        {"process_name", 1, GM_P_NAME},
        {"name", 1, GM_P_NAME}, /* alias of process_name among processes */
        {"used_gpu_memory", 1, GM_P_USED_MEMORY},
        {"used_memory", 1, GM_P_USED_MEMORY},
        {"pid", 0, -1},
        {"process_name", 0, -1},
        {"memory.used", 1, -1},
        {"gpu_name", 1, -1},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        int got = gm_metric_by_smi(rows[i].key, strlen(rows[i].key), rows[i].proc);
        if (got != rows[i].want) {
            print_error("gm_metric_by_smi(\"%s\", proc=%d) = %d, want %d\n", rows[i].key,
                        rows[i].proc, got, rows[i].want);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* The key is given by length: it need not be NUL-terminated (a field list). */
static void test_lookup_by_smi_length(void **state)
{
    (void)state;
    const char *list = "clocks.sm,memory.used,name";
    assert_int_equal(gm_metric_by_smi(list, 9, 0), GM_M_CLK_SM);
    assert_int_equal(gm_metric_by_smi(list + 10, 11, 0), GM_M_MEM_USED);
    assert_int_equal(gm_metric_by_smi(list + 10, 10, 0), -1); /* "memory.use" */
    assert_int_equal(gm_metric_by_smi(list + 22, 4, 0), GM_M_NAME);
    assert_int_equal(gm_metric_by_smi(list, 6, 0), -1); /* "clocks" */
}

static void test_lookup_by_name(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int proc;
        int want;
    } rows[] = {
        {"memory.used", 0, GM_M_MEM_USED},       /* nvidia-smi key */
        {"memory_used_bytes", 0, GM_M_MEM_USED}, /* full JSON key */
        {"memory_used_mib", 0, GM_M_MEM_USED},   /* full CSV column */
        {"energy_joules", 0, GM_M_ENERGY},
        {"pcie_tx_bytes_per_second", 0, GM_M_PCIE_TX},
        {"temperature_gpu_celsius", 0, GM_M_TEMP_GPU},
        {"temperature_gpu_c", 0, GM_M_TEMP_GPU},
        {"power_draw_watts", 0, GM_M_POWER_DRAW},
        {"clocks.sm", 0, GM_M_CLK_SM},
        {"gpu_name", 0, GM_M_NAME},
        {"memory_used", 0, -1}, /* a stem is not a key */
        {"memory_used_bytes_x", 0, -1},
        {"nosuchmetric", 0, -1},
        {"", 0, -1},
        {"host_state", 1, GM_P_STATE},
        {"used_memory_bytes", 1, GM_P_USED_MEMORY},
        {"used_memory_mib", 1, GM_P_USED_MEMORY},
        {"name", 1, GM_P_NAME},
        {"process_name", 1, GM_P_NAME},
        {"memory_used_bytes", 1, -1},
        {"host_state", 0, -1},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        int got = gm_metric_by_name(rows[i].name, rows[i].proc);
        if (got != rows[i].want) {
            print_error("gm_metric_by_name(\"%s\", proc=%d) = %d, want %d\n", rows[i].name,
                        rows[i].proc, got, rows[i].want);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_full_names(void **state)
{
    (void)state;
    static const struct {
        int id;
        const char *json;
        const char *csv;
    } rows[] = {
        {GM_M_MEM_USED, "memory_used_bytes", "memory_used_mib"},
        {GM_M_TEMP_GPU, "temperature_gpu_celsius", "temperature_gpu_c"},
        {GM_M_UTIL_GPU, "utilization_gpu_percent", "utilization_gpu_percent"},
        {GM_M_POWER_DRAW, "power_draw_watts", "power_draw_w"},
        {GM_M_CLK_SM, "clocks_sm_mhz", "clocks_sm_mhz"},
        {GM_M_INDEX, "index", "gpu"},
        {GM_M_NAME, "name", "name"},
        {GM_P_USED_MEMORY, "used_memory_bytes", "used_memory_mib"},
        {GM_P_NAME, "name", "process_name"},
    };
    char buf[128];
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        assert_string_equal(gm_metric_json_key(rows[i].id, buf, sizeof(buf)), rows[i].json);
        assert_string_equal(gm_metric_csv_col(rows[i].id, buf, sizeof(buf)), rows[i].csv);
    }
    /* a short buffer truncates and stays terminated */
    char small[8];
    memset(small, 'X', sizeof(small));
    assert_string_equal(gm_metric_json_key(GM_M_MEM_USED, small, 7), "memory");
    assert_int_equal(small[7], 'X');
}

/* -------------------------------------------------------- reason names */

static void test_reason_name(void **state)
{
    (void)state;
    static const struct {
        uint64_t bit;
        const char *name; /* NULL: not a (single) known reason */
    } rows[] = {
        {0x1, "gpu_idle"},
        {0x2, "applications_clocks_setting"},
        {0x4, "sw_power_cap"},
        {0x8, "hw_slowdown"},
        {0x10, "sync_boost"},
        {0x20, "sw_thermal_slowdown"},
        {0x40, "hw_thermal_slowdown"},
        {0x80, "hw_power_brake_slowdown"},
        {0x100, "display_clock_setting"},
        {0x0, NULL},
        {0x200, NULL},
        {0x3, NULL}, /* two bits at once */
        {UINT64_C(1) << 63, NULL},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = gm_reason_name(rows[i].bit);
        if (!rows[i].name)
            assert_null(got);
        else
            assert_string_equal(got, rows[i].name);
    }
}

/* gm_reason_bit lists the registry's reason bits lowest first: the order
 * the exporter's by-reason series and the store's masks are read in. */
static void test_reason_bit_order(void **state)
{
    (void)state;
    static const uint64_t want[] = {0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100};
    assert_int_equal(GM_REASON_COUNT, N_ELEM(want));
    for (int k = 0; k < GM_REASON_COUNT; k++)
        assert_true(gm_reason_bit(k) == want[k]);
    assert_true(gm_reason_bit(-1) == 0);
    assert_true(gm_reason_bit(GM_REASON_COUNT) == 0);
}

static void test_reasons_format(void **state)
{
    (void)state;
    static const struct {
        uint64_t mask;
        const char *want;
    } rows[] = {
        {0x0, "none"},
        {0x1, "gpu_idle"},
        {0x4 | 0x40, "sw_power_cap,hw_thermal_slowdown"},
        {0x40 | 0x4, "sw_power_cap,hw_thermal_slowdown"}, /* bit order, not argument order */
        {0x1FF,
         "gpu_idle,applications_clocks_setting,sw_power_cap,hw_slowdown,sync_boost,"
         "sw_thermal_slowdown,hw_thermal_slowdown,hw_power_brake_slowdown,display_clock_setting"},
        {0x200, "0x200"}, /* unknown bits in hex */
        {0x4 | 0x1000, "sw_power_cap,0x1000"},
        {UINT64_C(1) << 63, "0x8000000000000000"},
        {0x8 | (UINT64_C(1) << 40), "hw_slowdown,0x10000000000"},
    };
    char buf[512];
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = gm_reasons_format(rows[i].mask, buf, sizeof(buf));
        assert_ptr_equal(got, buf);
        assert_string_equal(got, rows[i].want);
    }
}

/* A buffer too small for the whole list: the result is NUL-terminated inside
 * the buffer, nothing past len is touched, and what is there is a prefix of
 * the full text made of whole names (never half a name). */
static void test_reasons_format_truncation(void **state)
{
    (void)state;
    static const uint64_t masks[] = {0x0, 0x4 | 0x40, 0x1FF, 0x200 | 0x400, 0x8};
    char full[512];
    for (size_t m = 0; m < N_ELEM(masks); m++) {
        gm_reasons_format(masks[m], full, sizeof(full));
        size_t flen = strlen(full);
        for (size_t len = 1; len <= flen + 1; len++) {
            char buf[600];
            memset(buf, 'X', sizeof(buf));
            gm_reasons_format(masks[m], buf, len);
            size_t got = strnlen(buf, len);
            assert_true(got < len); /* terminated inside the buffer */
            for (size_t k = len; k < sizeof(buf); k++)
                assert_int_equal(buf[k], 'X');
            assert_memory_equal(buf, full, got); /* a prefix */
            if (len == flen + 1)
                assert_string_equal(buf, full); /* exactly enough room */
            else if (masks[m] != 0)
                /* whole names only: the prefix ends where an item ends */
                assert_true(got == 0 || full[got] == ',');
        }
    }
    /* len 0: nothing written at all */
    char guard = 'G';
    assert_ptr_equal(gm_reasons_format(0x4, &guard, 0), &guard);
    assert_int_equal(guard, 'G');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_named),
        cmocka_unit_test(test_units_table),
        cmocka_unit_test(test_units_dcgm),
        cmocka_unit_test(test_gpm_rows),
        cmocka_unit_test(test_store_columns),
        cmocka_unit_test(test_store_names),
        cmocka_unit_test(test_sslots_unique),
        cmocka_unit_test(test_json_keys_unique),
        cmocka_unit_test(test_csv_columns_unique),
        cmocka_unit_test(test_smi_keys_unique),
        cmocka_unit_test(test_every_smi_key_round_trips),
        cmocka_unit_test(test_own_header_aliases),
        cmocka_unit_test(test_every_name_round_trips),
        cmocka_unit_test(test_read_groups),
        cmocka_unit_test(test_prom_names),
        cmocka_unit_test(test_prom_names_unique_outside_families),
        cmocka_unit_test(test_reason_rows),
        cmocka_unit_test(test_lookup_by_smi),
        cmocka_unit_test(test_lookup_by_smi_length),
        cmocka_unit_test(test_lookup_by_name),
        cmocka_unit_test(test_full_names),
        cmocka_unit_test(test_reason_name),
        cmocka_unit_test(test_reason_bit_order),
        cmocka_unit_test(test_reasons_format),
        cmocka_unit_test(test_reasons_format_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_fmt.c -- unit tests for src/core/fmt.c: how a registry value is
 * spelled for nvidia-smi CSV, our CSV log and JSON.
 *
 * A hand-built snapshot (two GPUs, the second one lost, three processes) and
 * tables: value -> nvidia-smi text (units, decimals, MiB truncation, words,
 * hex widths, compute capability, CUDA version, timestamp), status ->
 * nvidia-smi's absent spellings ([N/A], the bare N/A of temperature.memory,
 * [GPU is lost], [Insufficient Permissions], [Unknown Error]), header cells,
 * CSV log cells and JSON values (null when absent, numbers as numbers,
 * booleans for Enabled-style metrics), and process fields.  Expected texts
 * follow /tmp/ref/nvidia-smi-facts.md section 0 and section 3.
 *
 * TZ is set to UTC for the whole file so the timestamps are fixed.
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
#include "core/fmt.h"
#include "core/json.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "source/nvml_abi.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
/* 2026-07-14 08:12:38.696 UTC */
#define WALL_NS (INT64_C(1784016758) * 1000000000 + 696000000)

/* ------------------------------------------------------------------------ */
/* The snapshot                                                              */

static void set_str(struct gm_gpu *g, int slot, const char *s)
{
    snprintf(g->str[slot], sizeof(g->str[slot]), "%s", s);
}

static struct gm_proc mkproc(uint32_t gpu, uint32_t pid, uint8_t type, const char *name,
                             struct gm_value mem, uint8_t host_state)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = gpu;
    p.pid = pid;
    p.type = type;
    p.host_state = host_state;
    p.gpu_instance_id = GM_NO_INSTANCE;
    p.compute_instance_id = GM_NO_INSTANCE;
    p.used_memory = mem;
    p.sm_util = p.mem_util = p.enc_util = p.dec_util = gm_v_status(GM_VS_NA, 0);
    p.start_time = p.elapsed = p.cpu = p.rss = gm_v_status(GM_VS_NA, 0);
    snprintf(p.name, sizeof(p.name), "%s", name);
    return p;
}

/* GPU 0: an H100 with typical values and a few absent ones; GPU 1: lost
 * (identity kept, everything else GM_VS_LOST, as nvml.c marks it). */
static struct gm_snapshot *build(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->seq = 1;
    s->wall_ns = WALL_NS;
    snprintf(s->hostname, sizeof(s->hostname), "node1");
    s->driver = GM_DRV_OK;
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "590.48.01");
    s->nvml_version = gm_v_u64(0);
    snprintf(s->nvml_version_s, sizeof(s->nvml_version_s), "13.590.48.01");
    s->cuda_version = gm_v_u64(12040);
    gm_snapshot_set_gpus(s, 2);

    struct gm_gpu *g = &s->gpus[0];
    set_str(g, GM_S_NAME, "NVIDIA H100 80GB HBM3");
    set_str(g, GM_S_UUID, "GPU-11111111-2222-3333-4444-555555555555");
    set_str(g, GM_S_SERIAL, "1650123456789");
    set_str(g, GM_S_PCI_BUS_ID, "00000000:18:00.0");
    set_str(g, GM_S_VBIOS, "96.00.A5.00.01");
    set_str(g, GM_S_BOARD_PART, "692-2G520-0200-000");
    for (int id = GM_M_NAME; id <= GM_M_UUID; id++)
        g->m[id] = gm_v_u64(0);
    g->m[GM_M_PCI_BUS_ID] = g->m[GM_M_VBIOS] = g->m[GM_M_BOARD_PART] = gm_v_u64(0);
    g->m[GM_M_INDEX] = gm_v_u64(0);
    g->m[GM_M_MINOR] = gm_v_u64(3);
    g->m[GM_M_PCI_DOMAIN] = gm_v_u64(0);
    g->m[GM_M_PCI_BUS] = gm_v_u64(0x18);
    g->m[GM_M_PCI_DEVICE] = gm_v_u64(0);
    g->m[GM_M_PCI_DEVICE_ID] = gm_v_u64(0x233010DE);
    g->m[GM_M_PCI_SUB_DEVICE_ID] = gm_v_u64(0x16C110DE);
    g->m[GM_M_COMPUTE_CAP] = gm_v_u64(90);
    g->m[GM_M_PERSISTENCE] = gm_v_u64(1);
    g->m[GM_M_COMPUTE_MODE] = gm_v_u64(0);
    g->m[GM_M_DISPLAY_MODE] = gm_v_u64(0);
    g->m[GM_M_DISPLAY_ACTIVE] = gm_v_u64(0);
    g->m[GM_M_MIG_CURRENT] = gm_v_u64(0);
    g->m[GM_M_MIG_PENDING] = gm_v_u64(0);
    g->m[GM_M_PSTATE] = gm_v_u64(0);
    g->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(61);
    g->m[GM_M_TEMP_MEM] = gm_v_status(GM_VS_NA, 0);
    g->m[GM_M_TEMP_SLOWDOWN] = gm_v_u64(87);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(280.12);
    g->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
    g->m[GM_M_ENERGY] = gm_v_f64(12345.678);
    g->m[GM_M_UTIL_GPU] = gm_v_u64(98);
    g->m[GM_M_UTIL_MEM] = gm_v_u64(40);
    g->m[GM_M_UTIL_ENC] = gm_v_status(GM_VS_NOPERM, NVML_ERROR_NO_PERMISSION);
    g->m[GM_M_UTIL_DEC] = gm_v_status(GM_VS_ERROR, NVML_ERROR_UNKNOWN);
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(81559 * MIB);
    g->m[GM_M_MEM_RESERVED] = gm_v_u64(479 * MIB);
    g->m[GM_M_MEM_USED] = gm_v_u64(5213 * MIB + MIB - 1); /* 5213.999 MiB */
    g->m[GM_M_MEM_FREE] = gm_v_u64(75867 * MIB);
    g->m[GM_M_CLK_SM] = gm_v_u64(1980);
    g->m[GM_M_CLK_MEM] = gm_v_u64(2619);
    g->m[GM_M_CLK_VIDEO] = gm_v_status(GM_VS_LOST, NVML_ERROR_GPU_IS_LOST);
    g->m[GM_M_CER_SUPPORTED] = gm_v_u64(0x1FF);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x1);
    g->m[GM_M_CER_GPU_IDLE] = gm_v_u64(1);
    g->m[GM_M_CER_SW_POWER_CAP] = gm_v_u64(0);
    g->m[GM_M_PCIE_GEN_CUR] = gm_v_u64(5);
    g->m[GM_M_PCIE_WIDTH_CUR] = gm_v_u64(16);
    g->m[GM_M_ECC_CUR] = gm_v_u64(1);
    g->m[GM_M_RETIRED_PENDING] = gm_v_u64(0);
    g->m[GM_M_REMAP_PENDING] = gm_v_u64(1);

    struct gm_gpu *l = &s->gpus[1];
    l->state = GM_GPU_LOST;
    l->state_code = NVML_ERROR_GPU_IS_LOST;
    set_str(l, GM_S_NAME, "NVIDIA H100 80GB HBM3");
    set_str(l, GM_S_UUID, "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
    set_str(l, GM_S_PCI_BUS_ID, "00000000:2A:00.0");
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (gm_metrics[id].scope == GM_SC_GPU)
            l->m[id] = gm_v_status(GM_VS_LOST, NVML_ERROR_GPU_IS_LOST);
    l->m[GM_M_INDEX] = gm_v_u64(1);
    l->m[GM_M_NAME] = l->m[GM_M_UUID] = l->m[GM_M_PCI_BUS_ID] = gm_v_u64(0);
    l->m[GM_M_PCI_BUS] = gm_v_u64(0x2A);

    struct gm_proc p =
        mkproc(0, 1234, GM_PT_COMPUTE, "/usr/bin/python3", gm_v_u64(2566 * MIB), GM_HS_ALIVE);
    snprintf(p.user, sizeof(p.user), "alice");
    p.cmdline = strdup("python3 train.py --epochs 3");
    p.start_time = gm_v_i64(WALL_NS - INT64_C(3600) * 1000000000);
    p.elapsed = gm_v_f64(3600.25);
    p.sm_util = gm_v_u64(87);
    gm_snapshot_add_proc_take(s, &p);
    p = mkproc(0, 2345, GM_PT_GRAPHICS, "/usr/lib/xorg/Xorg", gm_v_u64(25 * MIB), GM_HS_ZOMBIE);
    gm_snapshot_add_proc_take(s, &p);
    p = mkproc(0, 3456, GM_PT_COMPUTE | GM_PT_GRAPHICS, "ffmpeg", gm_v_status(GM_VS_NA, 0),
               GM_HS_GONE);
    p.gpu_instance_id = 1;
    p.compute_instance_id = 0;
    gm_snapshot_add_proc_take(s, &p);
    p = mkproc(0, 4567, GM_PT_COMPUTE, "", gm_v_u64(0), GM_HS_UNKNOWN);
    gm_snapshot_add_proc_take(s, &p);
    g->proc_first = 0;
    g->nproc = 4;
    l->proc_first = 4;
    l->nproc = 0;
    return s;
}

static int setup(void **state)
{
    setenv("TZ", "UTC0", 1);
    tzset();
    *state = build();
    return 0;
}

static int teardown(void **state)
{
    gm_snapshot_free(*state);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static const char *smi(const struct gm_snapshot *s, int gpu, int proc, int id, int nounits)
{
    static char buf[256];
    memset(buf, 'X', sizeof(buf));
    return gm_fmt_smi(s, gpu >= 0 ? &s->gpus[gpu] : NULL, proc >= 0 ? &s->procs[proc] : NULL, id,
                      nounits, buf, sizeof(buf));
}

static const char *json_of(const struct gm_snapshot *s, int gpu, int proc, int id)
{
    static char out[512];
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    gm_fmt_json(&j, s, gpu >= 0 ? &s->gpus[gpu] : NULL, proc >= 0 ? &s->procs[proc] : NULL, id);
    snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
    gm_buf_free(&b);
    return out;
}

/* ------------------------------------------------------------------------ */
/* nvidia-smi text for values                                                */

/* Each row puts one value into GPU 0 and checks the nvidia-smi text with and
 * without units. */
static void test_smi_values(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int id;
        int type; /* 0 u64, 1 f64 */
        uint64_t u;
        double d;
        const char *want, *want_nounits;
    } rows[] = {
        /* memory: bytes / 1048576, truncated */
        {GM_M_MEM_USED, 0, 5213 * MIB + MIB - 1, 0, "5213 MiB", "5213"},
        {GM_M_MEM_USED, 0, 5213 * MIB, 0, "5213 MiB", "5213"},
        {GM_M_MEM_USED, 0, 0, 0, "0 MiB", "0"},
        {GM_M_MEM_USED, 0, MIB - 1, 0, "0 MiB", "0"},
        {GM_M_MEM_TOTAL, 0, 81559 * MIB, 0, "81559 MiB", "81559"},
        {GM_M_MEM_TOTAL, 0, 143771 * MIB, 0, "143771 MiB", "143771"},
        /* power: always 2 decimals, W */
        {GM_M_POWER_DRAW, 1, 0, 280.12, "280.12 W", "280.12"},
        {GM_M_POWER_DRAW, 1, 0, 69.85, "69.85 W", "69.85"},
        {GM_M_POWER_DRAW, 1, 0, 0.0, "0.00 W", "0.00"},
        {GM_M_POWER_LIMIT, 1, 0, 700.0, "700.00 W", "700.00"},
        {GM_M_POWER_ENFORCED, 1, 0, 26.2, "26.20 W", "26.20"},
        /* percent */
        {GM_M_UTIL_GPU, 0, 98, 0, "98 %", "98"},
        {GM_M_UTIL_GPU, 0, 0, 0, "0 %", "0"},
        {GM_M_UTIL_GPU, 0, 100, 0, "100 %", "100"},
        {GM_M_FAN, 0, 37, 0, "37 %", "37"},
        /* temperatures carry no unit */
        {GM_M_TEMP_GPU, 0, 61, 0, "61", "61"},
        {GM_M_TEMP_MEM, 0, 48, 0, "48", "48"},
        /* clocks */
        {GM_M_CLK_SM, 0, 1980, 0, "1980 MHz", "1980"},
        {GM_M_CLK_MEM, 0, 2619, 0, "2619 MHz", "2619"},
        {GM_M_CLK_MAX_GR, 0, 345, 0, "345 MHz", "345"},
        /* plain numbers */
        {GM_M_PCIE_GEN_CUR, 0, 5, 0, "5", "5"},
        {GM_M_PCIE_WIDTH_CUR, 0, 16, 0, "16", "16"},
        {GM_M_ECC_CORR_VOL, 0, 0, 0, "0", "0"},
        {GM_M_INDEX, 0, 7, 0, "7", "7"},
        /* words */
        {GM_M_PSTATE, 0, 0, 0, "P0", "P0"},
        {GM_M_PSTATE, 0, 8, 0, "P8", "P8"},
        {GM_M_PSTATE, 0, 15, 0, "P15", "P15"},
        {GM_M_PSTATE, 0, 32, 0, "Unknown", "Unknown"},
        {GM_M_PERSISTENCE, 0, 1, 0, "Enabled", "Enabled"},
        {GM_M_PERSISTENCE, 0, 0, 0, "Disabled", "Disabled"},
        {GM_M_DISPLAY_ACTIVE, 0, 0, 0, "Disabled", "Disabled"},
        {GM_M_ECC_CUR, 0, 1, 0, "Enabled", "Enabled"},
        {GM_M_MIG_CURRENT, 0, 1, 0, "Enabled", "Enabled"},
        {GM_M_CER_GPU_IDLE, 0, 1, 0, "Active", "Active"},
        {GM_M_CER_SW_POWER_CAP, 0, 0, 0, "Not Active", "Not Active"},
        {GM_M_CER_HW_THERMAL, 0, 1, 0, "Active", "Active"},
        {GM_M_DISPLAY_MODE, 0, 1, 0, "Yes", "Yes"},
        {GM_M_DISPLAY_MODE, 0, 0, 0, "No", "No"},
        {GM_M_REMAP_PENDING, 0, 1, 0, "Yes", "Yes"},
        {GM_M_RETIRED_PENDING, 0, 0, 0, "No", "No"},
        {GM_M_COMPUTE_MODE, 0, 0, 0, "Default", "Default"},
        {GM_M_COMPUTE_MODE, 0, 1, 0, "Exclusive_Thread", "Exclusive_Thread"},
        {GM_M_COMPUTE_MODE, 0, 2, 0, "Prohibited", "Prohibited"},
        {GM_M_COMPUTE_MODE, 0, 3, 0, "Exclusive_Process", "Exclusive_Process"},
        /* hex: 0x + upper-case digits, fixed widths */
        {GM_M_CER_ACTIVE, 0, 0x1, 0, "0x0000000000000001", "0x0000000000000001"},
        {GM_M_CER_ACTIVE, 0, 0, 0, "0x0000000000000000", "0x0000000000000000"},
        {GM_M_CER_SUPPORTED, 0, 0x1FF, 0, "0x00000000000001FF", "0x00000000000001FF"},
        {GM_M_PCI_DOMAIN, 0, 0, 0, "0x0000", "0x0000"},
        {GM_M_PCI_BUS, 0, 0x18, 0, "0x18", "0x18"},
        {GM_M_PCI_BUS, 0, 0x0C, 0, "0x0C", "0x0C"},
        {GM_M_PCI_BUS, 0, 0x83, 0, "0x83", "0x83"},
        {GM_M_PCI_DEVICE, 0, 0x09, 0, "0x09", "0x09"},
        {GM_M_PCI_DEVICE_ID, 0, 0x233010DE, 0, "0x233010DE", "0x233010DE"},
        {GM_M_PCI_DEVICE_ID, 0, 0x1E8110DE, 0, "0x1E8110DE", "0x1E8110DE"},
        {GM_M_PCI_SUB_DEVICE_ID, 0, 0x16C110DE, 0, "0x16C110DE", "0x16C110DE"},
        /* compute capability */
        {GM_M_COMPUTE_CAP, 0, 90, 0, "9.0", "9.0"},
        {GM_M_COMPUTE_CAP, 0, 89, 0, "8.9", "8.9"},
        {GM_M_COMPUTE_CAP, 0, 75, 0, "7.5", "7.5"},
        {GM_M_COMPUTE_CAP, 0, 100, 0, "10.0", "10.0"},
    };
    struct gm_gpu *g = &s->gpus[0];
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_value saved = g->m[rows[i].id];
        g->m[rows[i].id] = rows[i].type ? gm_v_f64(rows[i].d) : gm_v_u64(rows[i].u);
        const char *got = smi(s, 0, -1, rows[i].id, 0);
        if (strcmp(got, rows[i].want) != 0) {
            print_error("row %zu (%s): got \"%s\", want \"%s\"\n", i, gm_metrics[rows[i].id].json,
                        got, rows[i].want);
            bad++;
        }
        got = smi(s, 0, -1, rows[i].id, 1);
        if (strcmp(got, rows[i].want_nounits) != 0) {
            print_error("row %zu (%s) nounits: got \"%s\", want \"%s\"\n", i,
                        gm_metrics[rows[i].id].json, got, rows[i].want_nounits);
            bad++;
        }
        g->m[rows[i].id] = saved;
    }
    assert_int_equal(bad, 0);
}

static void test_smi_strings_and_host(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int gpu;
        int id;
        const char *want;
    } rows[] = {
        {0, GM_M_NAME, "NVIDIA H100 80GB HBM3"},
        {0, GM_M_UUID, "GPU-11111111-2222-3333-4444-555555555555"},
        {0, GM_M_PCI_BUS_ID, "00000000:18:00.0"},
        {0, GM_M_SERIAL, "1650123456789"},
        {0, GM_M_VBIOS, "96.00.A5.00.01"},
        {0, GM_M_DRIVER_VERSION, "590.48.01"},
        {0, GM_M_CUDA_VERSION, "12.4"},
        {0, GM_M_NVML_VERSION, "13.590.48.01"},
        {0, GM_M_TIMESTAMP, "2026/07/14 08:12:38.696"},
        {0, GM_M_COUNT, "2"},
        /* host facts need no GPU */
        {-1, GM_M_DRIVER_VERSION, "590.48.01"},
        {-1, GM_M_TIMESTAMP, "2026/07/14 08:12:38.696"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++)
        assert_string_equal(smi(s, rows[i].gpu, -1, rows[i].id, 0), rows[i].want);
}

static void test_cuda_versions(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        uint64_t v;
        const char *want;
    } rows[] = {
        {12040, "12.4"}, {12020, "12.2"}, {11080, "11.8"}, {13000, "13.0"}, {13010, "13.1"}};
    struct gm_value saved = s->cuda_version;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        s->cuda_version = gm_v_u64(rows[i].v);
        assert_string_equal(smi(s, 0, -1, GM_M_CUDA_VERSION, 0), rows[i].want);
    }
    s->cuda_version = saved;
}

/* nvidia-smi's spellings of an absent value, by status. */
static void test_smi_absent(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int id;
        int status;
        int code;
        const char *want;
    } rows[] = {
        {GM_M_MEM_USED, GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED, "[N/A]"},
        {GM_M_MEM_USED, GM_VS_NA, 0, "[N/A]"},
        {GM_M_FAN, GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED, "[N/A]"},
        {GM_M_POWER_DRAW, GM_VS_NA, NVML_ERROR_NOT_FOUND, "[N/A]"},
        /* temperature.memory alone prints a bare N/A */
        {GM_M_TEMP_MEM, GM_VS_NA, 0, "N/A"},
        {GM_M_TEMP_MEM, GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED, "N/A"},
        {GM_M_TEMP_GPU, GM_VS_NA, 0, "[N/A]"},
        /* lost, permission and other errors */
        {GM_M_POWER_DRAW, GM_VS_LOST, NVML_ERROR_GPU_IS_LOST, "[GPU is lost]"},
        {GM_M_TEMP_MEM, GM_VS_LOST, NVML_ERROR_GPU_IS_LOST, "[GPU is lost]"},
        {GM_M_PSTATE, GM_VS_LOST, NVML_ERROR_GPU_IS_LOST, "[GPU is lost]"},
        {GM_M_UTIL_GPU, GM_VS_NOPERM, NVML_ERROR_NO_PERMISSION, "[Insufficient Permissions]"},
        {GM_M_PERSISTENCE, GM_VS_NOPERM, NVML_ERROR_NO_PERMISSION, "[Insufficient Permissions]"},
        {GM_M_UTIL_GPU, GM_VS_ERROR, NVML_ERROR_UNKNOWN, "[Unknown Error]"},
        {GM_M_CLK_SM, GM_VS_ERROR, 12345, "[Unknown Error]"}, /* a code we do not know */
        {GM_M_NAME, GM_VS_ERROR, NVML_ERROR_UNKNOWN, "[Unknown Error]"},
    };
    struct gm_gpu *g = &s->gpus[0];
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_value saved = g->m[rows[i].id];
        g->m[rows[i].id] = gm_v_status((enum gm_vstatus)rows[i].status, rows[i].code);
        for (int nounits = 0; nounits <= 1; nounits++) {
            /* no unit is ever appended to an absent value */
            const char *got = smi(s, 0, -1, rows[i].id, nounits);
            if (strcmp(got, rows[i].want) != 0) {
                print_error("row %zu (%s, nounits=%d): got \"%s\", want \"%s\"\n", i,
                            gm_metrics[rows[i].id].json, nounits, got, rows[i].want);
                bad++;
            }
        }
        /* the CSV log leaves the cell empty; JSON says null */
        char buf[64];
        gm_fmt_csv(s, g, NULL, rows[i].id, buf, sizeof(buf));
        if (buf[0] != '\0') {
            print_error("row %zu: CSV cell \"%s\", want empty\n", i, buf);
            bad++;
        }
        if (strcmp(json_of(s, 0, -1, rows[i].id), "null") != 0) {
            print_error("row %zu: JSON %s, want null\n", i, json_of(s, 0, -1, rows[i].id));
            bad++;
        }
        assert_null(gm_fmt_string(s, g, NULL, rows[i].id));
        g->m[rows[i].id] = saved;
    }
    assert_int_equal(bad, 0);
}

/* The hand-built snapshot as it stands: the absent values it was built with
 * and the lost GPU (identity kept, live values "[GPU is lost]"). */
static void test_snapshot_cells(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int gpu;
        int id;
        const char *want;
    } rows[] = {
        {0, GM_M_FAN, "[N/A]"},
        {0, GM_M_TEMP_MEM, "N/A"},
        {0, GM_M_UTIL_ENC, "[Insufficient Permissions]"},
        {0, GM_M_UTIL_DEC, "[Unknown Error]"},
        {0, GM_M_CLK_VIDEO, "[GPU is lost]"},
        {0, GM_M_MEM_USED, "5213 MiB"},
        {1, GM_M_INDEX, "1"},
        {1, GM_M_NAME, "NVIDIA H100 80GB HBM3"},
        {1, GM_M_PCI_BUS_ID, "00000000:2A:00.0"},
        {1, GM_M_PCI_BUS, "0x2A"},
        {1, GM_M_UTIL_GPU, "[GPU is lost]"},
        {1, GM_M_MEM_USED, "[GPU is lost]"},
        {1, GM_M_TEMP_MEM, "[GPU is lost]"},
        {1, GM_M_SERIAL, "[GPU is lost]"},
        {1, GM_M_DRIVER_VERSION, "590.48.01"}, /* host facts stay */
        {1, GM_M_TIMESTAMP, "2026/07/14 08:12:38.696"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = smi(s, rows[i].gpu, -1, rows[i].id, 0);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("GPU %d %s: got \"%s\", want \"%s\"", rows[i].gpu, gm_metrics[rows[i].id].json,
                     got, rows[i].want);
    }
}

/* A short output buffer truncates and stays terminated; nothing past len. */
static void test_smi_short_buffer(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int id;
        size_t len;
        const char *want;
    } rows[] = {
        {GM_M_MEM_USED, 4, "521"},   {GM_M_MEM_USED, 6, "5213 "},  {GM_M_MEM_USED, 7, "5213 M"},
        {GM_M_MEM_USED, 1, ""},      {GM_M_POWER_DRAW, 5, "280."}, {GM_M_NAME, 7, "NVIDIA"},
        {GM_M_PSTATE, 2, "P"},       {GM_M_FAN, 3, "[N"},          {GM_M_CER_ACTIVE, 5, "0x00"},
        {GM_M_UTIL_DEC, 6, "[Unkn"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char buf[64];
        memset(buf, 'X', sizeof(buf));
        gm_fmt_smi(s, &s->gpus[0], NULL, rows[i].id, 0, buf, rows[i].len);
        assert_string_equal(buf, rows[i].want);
        assert_int_equal(buf[rows[i].len], 'X');
    }
}

/* ------------------------------------------------------------------------ */
/* Headers                                                                   */

static void test_smi_headers(void **state)
{
    (void)state;
    static const struct {
        int id;
        const char *want;
    } rows[] = {
        {GM_M_MEM_USED, "memory.used [MiB]"},
        {GM_M_MEM_TOTAL, "memory.total [MiB]"},
        {GM_M_POWER_DRAW, "power.draw [W]"},
        {GM_M_POWER_LIMIT, "power.limit [W]"},
        {GM_M_POWER_ENFORCED, "enforced.power.limit [W]"},
        {GM_M_CLK_SM, "clocks.current.sm [MHz]"}, /* canonical key, whatever was asked */
        {GM_M_CLK_MEM, "clocks.current.memory [MHz]"},
        {GM_M_CLK_MAX_SM, "clocks.max.sm [MHz]"},
        {GM_M_UTIL_GPU, "utilization.gpu [%]"},
        {GM_M_FAN, "fan.speed [%]"},
        {GM_M_TEMP_GPU, "temperature.gpu"}, /* no unit */
        {GM_M_TEMP_MEM, "temperature.memory"},
        {GM_M_PSTATE, "pstate"},
        {GM_M_NAME, "name"},
        {GM_M_INDEX, "index"},
        {GM_M_TIMESTAMP, "timestamp"},
        {GM_M_PCI_BUS_ID, "pci.bus_id"},
        {GM_M_PCI_DEVICE_ID, "pci.device_id"},
        {GM_M_CER_ACTIVE, "clocks_event_reasons.active"},
        {GM_M_CER_GPU_IDLE, "clocks_event_reasons.gpu_idle"},
        {GM_M_PCIE_GEN_CUR, "pcie.link.gen.current"},
        {GM_M_ECC_CORR_VOL, "ecc.errors.corrected.volatile.total"},
        {GM_M_COMPUTE_CAP, "compute_cap"},
        {GM_P_PID, "pid"},
        {GM_P_NAME, "process_name"},
        {GM_P_USED_MEMORY, "used_gpu_memory [MiB]"},
    };
    char buf[160];
    for (size_t i = 0; i < N_ELEM(rows); i++)
        assert_string_equal(gm_fmt_smi_header(rows[i].id, buf, sizeof(buf)), rows[i].want);
}

/* ------------------------------------------------------------------------ */
/* CSV log cells and JSON values                                             */

static void test_csv_cells(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int gpu;
        int id;
        const char *want;
    } rows[] = {
        {0, GM_M_MEM_USED, "5213"}, /* the column is memory_used_mib */
        {0, GM_M_POWER_DRAW, "280.12"},
        {0, GM_M_TEMP_GPU, "61"},
        {0, GM_M_UTIL_GPU, "98"},
        {0, GM_M_PERSISTENCE, "Enabled"},
        {0, GM_M_PSTATE, "P0"},
        {0, GM_M_CER_ACTIVE, "0x0000000000000001"},
        {0, GM_M_NAME, "NVIDIA H100 80GB HBM3"},
        {0, GM_M_COMPUTE_CAP, "9.0"},
        {0, GM_M_TIMESTAMP, "2026-07-14T08:12:38.696+00:00"}, /* ISO, with offset */
        {0, GM_M_FAN, ""},
        {0, GM_M_TEMP_MEM, ""},
        {0, GM_M_UTIL_DEC, ""},
        {1, GM_M_UTIL_GPU, ""},
        {1, GM_M_NAME, "NVIDIA H100 80GB HBM3"},
    };
    char buf[128];
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        gm_fmt_csv(s, &s->gpus[rows[i].gpu], NULL, rows[i].id, buf, sizeof(buf));
        if (strcmp(buf, rows[i].want) != 0)
            fail_msg("CSV GPU %d %s: got \"%s\", want \"%s\"", rows[i].gpu,
                     gm_metrics[rows[i].id].json, buf, rows[i].want);
    }
}

static void test_json_values(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int gpu;
        int id;
        const char *want;
    } rows[] = {
        {0, GM_M_MEM_USED, "5467275263"}, /* bytes, a number */
        {0, GM_M_MEM_TOTAL, "85520809984"},
        {0, GM_M_POWER_DRAW, "280.12"},
        {0, GM_M_POWER_LIMIT, "700"},
        {0, GM_M_ENERGY, "12345.678"},
        {0, GM_M_TEMP_GPU, "61"},
        {0, GM_M_UTIL_GPU, "98"},
        {0, GM_M_INDEX, "0"},
        {0, GM_M_PSTATE, "0"},
        {0, GM_M_CER_ACTIVE, "1"},
        {0, GM_M_CER_SUPPORTED, "511"},
        {0, GM_M_PCI_DEVICE_ID, "590352606"},
        {0, GM_M_PERSISTENCE, "true"}, /* Enabled-style metrics are booleans */
        {0, GM_M_DISPLAY_ACTIVE, "false"},
        {0, GM_M_CER_GPU_IDLE, "true"},
        {0, GM_M_CER_SW_POWER_CAP, "false"},
        {0, GM_M_REMAP_PENDING, "true"},
        {0, GM_M_RETIRED_PENDING, "false"},
        {0, GM_M_NAME, "\"NVIDIA H100 80GB HBM3\""},
        {0, GM_M_COMPUTE_MODE, "\"Default\""},
        {0, GM_M_COMPUTE_CAP, "\"9.0\""},
        {0, GM_M_CUDA_VERSION, "\"12.4\""},
        {0, GM_M_DRIVER_VERSION, "\"590.48.01\""},
        {0, GM_M_TIMESTAMP, "\"2026-07-14T08:12:38.696+00:00\""},
        {0, GM_M_COUNT, "2"},
        /* absent: null, whatever the reason */
        {0, GM_M_FAN, "null"},
        {0, GM_M_TEMP_MEM, "null"},
        {0, GM_M_UTIL_ENC, "null"},
        {0, GM_M_UTIL_DEC, "null"},
        {0, GM_M_CLK_VIDEO, "null"},
        {1, GM_M_UTIL_GPU, "null"},
        {1, GM_M_PERSISTENCE, "null"},
        {1, GM_M_INDEX, "1"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = json_of(s, rows[i].gpu, -1, rows[i].id);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("JSON GPU %d %s: got %s, want %s", rows[i].gpu, gm_metrics[rows[i].id].json,
                     got, rows[i].want);
    }
    /* pstate Unknown has no number: null */
    struct gm_value saved = s->gpus[0].m[GM_M_PSTATE];
    s->gpus[0].m[GM_M_PSTATE] = gm_v_u64(32);
    assert_string_equal(json_of(s, 0, -1, GM_M_PSTATE), "null");
    s->gpus[0].m[GM_M_PSTATE] = saved;
}

/* GPU count follows the driver: unknown when the driver is not working. */
static void test_count_without_driver(void **state)
{
    struct gm_snapshot *s = *state;
    s->driver = GM_DRV_NOT_LOADED;
    s->driver_code = NVML_ERROR_DRIVER_NOT_LOADED;
    assert_string_equal(json_of(s, -1, -1, GM_M_COUNT), "null");
    assert_string_equal(smi(s, -1, -1, GM_M_COUNT, 0), "[Driver Not Loaded]");
    s->driver = GM_DRV_OK;
    s->driver_code = 0;
    assert_string_equal(smi(s, -1, -1, GM_M_COUNT, 0), "2");
}

/* ------------------------------------------------------------------------ */
/* Processes                                                                 */

static void test_process_fields(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int proc;
        int id;
        const char *smi, *json;
    } rows[] = {
        {0, GM_P_PID, "1234", "1234"},
        {0, GM_P_TYPE, "C", "\"C\""},
        {1, GM_P_TYPE, "G", "\"G\""},
        {2, GM_P_TYPE, "C+G", "\"C+G\""},
        {0, GM_P_NAME, "/usr/bin/python3", "\"/usr/bin/python3\""},
        {2, GM_P_NAME, "ffmpeg", "\"ffmpeg\""},
        {3, GM_P_NAME, "[N/A]", "null"}, /* no name known */
        {0, GM_P_USED_MEMORY, "2566 MiB", "2690646016"},
        {1, GM_P_USED_MEMORY, "25 MiB", "26214400"},
        {2, GM_P_USED_MEMORY, "[N/A]", "null"}, /* NVML_VALUE_NOT_AVAILABLE */
        {3, GM_P_USED_MEMORY, "0 MiB", "0"},
        {0, GM_P_STATE, "alive", "\"alive\""},
        {1, GM_P_STATE, "zombie", "\"zombie\""},
        {2, GM_P_STATE, "gone", "\"gone\""},
        {3, GM_P_STATE, "[N/A]", "null"}, /* not looked up */
        {0, GM_P_GPU_INSTANCE, "[N/A]", "null"},
        {2, GM_P_GPU_INSTANCE, "1", "1"},
        {2, GM_P_COMPUTE_INSTANCE, "0", "0"},
        {0, GM_P_USER, "alice", "\"alice\""},
        {1, GM_P_USER, "[N/A]", "null"},
        {0, GM_P_CMDLINE, "python3 train.py --epochs 3", "\"python3 train.py --epochs 3\""},
        {1, GM_P_CMDLINE, "[N/A]", "null"},
        {0, GM_P_SM_UTIL, "87 %", "87"},
        {1, GM_P_SM_UTIL, "[N/A]", "null"},
        {0, GM_P_ELAPSED, "3600.250 s", "3600.25"},
        {0, GM_P_START_TIME, "2026/07/14 07:12:38.696", "\"2026-07-14T07:12:38.696+00:00\""},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = smi(s, 0, rows[i].proc, rows[i].id, 0);
        if (strcmp(got, rows[i].smi) != 0)
            fail_msg("proc %d %s: smi \"%s\", want \"%s\"", rows[i].proc,
                     gm_metrics[rows[i].id].json, got, rows[i].smi);
        got = json_of(s, 0, rows[i].proc, rows[i].id);
        if (strcmp(got, rows[i].json) != 0)
            fail_msg("proc %d %s: JSON %s, want %s", rows[i].proc, gm_metrics[rows[i].id].json, got,
                     rows[i].json);
    }
    /* a process field without a process is simply not available */
    assert_string_equal(smi(s, 0, -1, GM_P_PID, 0), "[N/A]");
    assert_string_equal(json_of(s, 0, -1, GM_P_NAME), "null");
    /* GPU facts on a process row come from its GPU */
    assert_string_equal(smi(s, 0, 0, GM_M_NAME, 0), "NVIDIA H100 80GB HBM3");
    assert_string_equal(smi(s, 0, 0, GM_M_UUID, 0), "GPU-11111111-2222-3333-4444-555555555555");
}

/* ------------------------------------------------------------------------ */
/* Lookups and the human forms                                               */

static void test_value_lookup(void **state)
{
    struct gm_snapshot *s = *state;
    /* out-of-range ids are simply not available */
    assert_int_equal(gm_fmt_value(s, &s->gpus[0], NULL, -1)->status, GM_VS_NA);
    assert_int_equal(gm_fmt_value(s, &s->gpus[0], NULL, GM_M__COUNT)->status, GM_VS_NA);
    /* host values come from the snapshot, not the GPU */
    const struct gm_value *v = gm_fmt_value(s, &s->gpus[1], NULL, GM_M_CUDA_VERSION);
    assert_int_equal(v->status, GM_VS_OK);
    assert_true(v->v.u == 12040);
    v = gm_fmt_value(s, NULL, NULL, GM_M_TIMESTAMP);
    assert_int_equal(v->status, GM_VS_OK);
    assert_true(v->v.i == WALL_NS);
    /* strings */
    assert_string_equal(gm_fmt_string(s, &s->gpus[0], NULL, GM_M_UUID),
                        "GPU-11111111-2222-3333-4444-555555555555");
    assert_string_equal(gm_fmt_string(s, NULL, NULL, GM_M_DRIVER_VERSION), "590.48.01");
    assert_null(gm_fmt_string(s, &s->gpus[1], NULL, GM_M_SERIAL)); /* lost */
}

static void test_human(void **state)
{
    (void)state;
    static const struct {
        struct gm_value v;
        int unit;
        const char *want;
    } rows[] = {
        {{.status = GM_VS_OK, .type = GM_VT_F64, .v.d = 412.4}, GM_U_WATTS, "412 W"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 87}, GM_U_CELSIUS, "87 C"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 1980}, GM_U_MHZ, "1980 MHz"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 95}, GM_U_PERCENT, "95 %"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 5213 * MIB}, GM_U_BYTES, "5213MiB"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 80 * 1024 * MIB}, GM_U_BYTES, "80.0GiB"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 10239 * MIB + MIB - 1},
         GM_U_BYTES,
         "10239MiB"},
        {{.status = GM_VS_OK, .type = GM_VT_U64, .v.u = 3}, GM_U_NONE, "3"},
        {{.status = GM_VS_LOST}, GM_U_WATTS, "lost"},
        {{.status = GM_VS_NOPERM}, GM_U_WATTS, "denied"},
        {{.status = GM_VS_NA}, GM_U_WATTS, "N/A"},
        {{.status = GM_VS_UNSUPPORTED}, GM_U_PERCENT, "N/A"},
    };
    char buf[64];
    for (size_t i = 0; i < N_ELEM(rows); i++)
        assert_string_equal(gm_fmt_human(&rows[i].v, rows[i].unit, buf, sizeof(buf)), rows[i].want);
}

static void test_cell(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(gm_fmt_cell(b, sizeof(b), "89 °C", 8), "89 °C   ");
    assert_string_equal(gm_fmt_cell(b, sizeof(b), "abc", 3), "abc");
    assert_string_equal(gm_fmt_cell(b, sizeof(b), "abcd", 3), "ab\xE2\x80\xA6");
    assert_string_equal(gm_fmt_cell(b, sizeof(b), "", 2), "  ");
    assert_string_equal(gm_fmt_cell(b, sizeof(b), "温度高", 2), "温\xE2\x80\xA6");
    assert_string_equal(gm_fmt_cell(b, 4, "abcdef", 10), "abc"); /* the buffer bounds it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smi_values),     cmocka_unit_test(test_smi_strings_and_host),
        cmocka_unit_test(test_cuda_versions),  cmocka_unit_test(test_smi_absent),
        cmocka_unit_test(test_snapshot_cells), cmocka_unit_test(test_smi_short_buffer),
        cmocka_unit_test(test_smi_headers),    cmocka_unit_test(test_csv_cells),
        cmocka_unit_test(test_json_values),    cmocka_unit_test(test_count_without_driver),
        cmocka_unit_test(test_process_fields), cmocka_unit_test(test_value_lookup),
        cmocka_unit_test(test_human),          cmocka_unit_test(test_cell),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_query.c -- unit tests for the nvidia-smi compatible query view
 * (src/view/query.c).
 *
 * Field lists (the seeds' own --query-gpu and --query-compute-apps lists,
 * aliases, spaces, unknown and empty fields, the field limit) with their
 * exact header lines; --format parsing; -i/--id selection by index, list,
 * UUID (any case), MIG UUID and PCI bus id in its long and short forms; and
 * the exact CSV rows for a hand-made two-GPU snapshot whose second GPU is
 * lost, including compute-apps rows, which list compute (C, C+G) processes
 * only.  Expected texts follow /tmp/ref/nvidia-smi-facts.md sections 0, 3
 * and 6.  TZ is UTC for the whole file.
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
#include "core/err.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "source/nvml_abi.h"
#include "view/query.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
#define WALL_NS (INT64_C(1784016758) * 1000000000 + 696000000) /* 2026/07/14 08:12:38.696 */

#define UUID0 "GPU-11111111-2222-3333-4444-555555555555"
#define UUID1 "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
#define MIGUUID "MIG-01234567-89ab-cdef-0123-456789abcdef"

/* ------------------------------------------------------------------------ */
/* The snapshot: GPU 0 healthy (one MIG device, four processes), GPU 1 lost. */

static void set_str(struct gm_gpu *g, int slot, const char *s)
{
    snprintf(g->str[slot], sizeof(g->str[slot]), "%s", s);
}

static void add_proc(struct gm_snapshot *s, uint32_t gpu, uint32_t pid, uint8_t type,
                     const char *name, struct gm_value mem)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.gpu = gpu;
    p.pid = pid;
    p.type = type;
    p.gpu_instance_id = p.compute_instance_id = GM_NO_INSTANCE;
    p.used_memory = mem;
    p.sm_util = p.mem_util = p.enc_util = p.dec_util = gm_v_status(GM_VS_NA, 0);
    p.start_time = p.elapsed = p.cpu = p.rss = gm_v_status(GM_VS_NA, 0);
    snprintf(p.name, sizeof(p.name), "%s", name);
    gm_snapshot_add_proc_take(s, &p);
}

static struct gm_snapshot *build(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->wall_ns = WALL_NS;
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "590.48.01");
    s->cuda_version = gm_v_u64(13010);
    gm_snapshot_set_gpus(s, 2);

    struct gm_gpu *g = &s->gpus[0];
    set_str(g, GM_S_NAME, "NVIDIA H100 80GB HBM3");
    set_str(g, GM_S_UUID, UUID0);
    set_str(g, GM_S_SERIAL, "1650123456789");
    set_str(g, GM_S_PCI_BUS_ID, "00000000:18:00.0");
    g->m[GM_M_NAME] = g->m[GM_M_UUID] = g->m[GM_M_SERIAL] = g->m[GM_M_PCI_BUS_ID] = gm_v_u64(0);
    g->m[GM_M_INDEX] = gm_v_u64(0);
    g->m[GM_M_UTIL_GPU] = gm_v_u64(98);
    g->m[GM_M_MEM_USED] = gm_v_u64(5213 * MIB + 4096);
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(81559 * MIB);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(280.12);
    g->m[GM_M_TEMP_GPU] = gm_v_u64(61);
    g->m[GM_M_CLK_SM] = gm_v_u64(1980);
    g->m[GM_M_CLK_MEM] = gm_v_u64(2619);
    g->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    g->m[GM_M_PSTATE] = gm_v_u64(0);
    g->nmig = 1;
    g->mig[0].index = 0;
    g->mig[0].gpu_instance_id = 1;
    g->mig[0].compute_instance_id = 0;
    snprintf(g->mig[0].uuid, sizeof(g->mig[0].uuid), "%s", MIGUUID);

    struct gm_gpu *l = &s->gpus[1];
    l->state = GM_GPU_LOST;
    l->state_code = NVML_ERROR_GPU_IS_LOST;
    set_str(l, GM_S_NAME, "NVIDIA H100 80GB HBM3");
    set_str(l, GM_S_UUID, UUID1);
    set_str(l, GM_S_PCI_BUS_ID, "00000000:2A:00.0");
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (gm_metrics[id].scope == GM_SC_GPU)
            l->m[id] = gm_v_status(GM_VS_LOST, NVML_ERROR_GPU_IS_LOST);
    l->m[GM_M_INDEX] = gm_v_u64(1);
    l->m[GM_M_NAME] = l->m[GM_M_UUID] = l->m[GM_M_PCI_BUS_ID] = gm_v_u64(0);

    add_proc(s, 0, 11327, GM_PT_COMPUTE, "/root/tools/memhog", gm_v_u64(2566 * MIB));
    add_proc(s, 0, 2165, GM_PT_GRAPHICS, "/usr/bin/kwin_wayland", gm_v_u64(25 * MIB));
    add_proc(s, 0, 5022, GM_PT_COMPUTE | GM_PT_GRAPHICS, "ffmpeg", gm_v_u64(503 * MIB));
    add_proc(s, 0, 11345, GM_PT_COMPUTE, "./gpu_burn", gm_v_status(GM_VS_NA, 0));
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

/* A struct gm_query is large (header cells): keep it off the stack. */
static struct gm_query q;

/* ------------------------------------------------------------------------ */
/* Field lists                                                               */

static void test_parse_fields_headers(void **state)
{
    (void)state;
    static const struct {
        int kind;
        const char *fields;
        const char *header;
    } rows[] = {
        /* the seeds' lists */
        {GM_QUERY_GPU, "index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu",
         "index, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], "
         "temperature.gpu\n"},
        {GM_QUERY_GPU, "timestamp,name,utilization.gpu,memory.used,temperature.gpu,power.draw",
         "timestamp, name, utilization.gpu [%], memory.used [MiB], temperature.gpu, power.draw "
         "[W]\n"},
        {GM_QUERY_GPU,
         "index,name,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,clocks."
         "sm,clocks.mem",
         "index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw "
         "[W], temperature.gpu, clocks.current.sm [MHz], clocks.current.memory [MHz]\n"},
        {GM_QUERY_APPS, "pid,process_name,used_memory",
         "pid, process_name, used_gpu_memory [MiB]\n"},
        /* facts §6: the captured compute-apps list */
        {GM_QUERY_APPS,
         "timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory",
         "timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, "
         "used_gpu_memory [MiB]\n"},
        {GM_QUERY_APPS, "pid,name", "pid, process_name\n"}, /* alias -> canonical */
        /* aliases print their canonical name */
        {GM_QUERY_GPU, "gpu_name,gpu_uuid,gpu_bus_id", "name, uuid, pci.bus_id\n"},
        {GM_QUERY_GPU, "clocks_throttle_reasons.active", "clocks_event_reasons.active\n"},
        /* spaces around names are tolerated */
        {GM_QUERY_GPU, " index , memory.used,\tpower.draw ",
         "index, memory.used [MiB], power.draw [W]\n"},
        /* extensions, by JSON key */
        {GM_QUERY_GPU, "energy_joules", "energy_joules [J]\n"},
        {GM_QUERY_GPU, "memory_used_bytes", "memory.used [MiB]\n"},
        {GM_QUERY_APPS, "pid,host_state,user", "pid, host_state, user\n"},
        {GM_QUERY_GPU, "pstate,fan.speed", "pstate, fan.speed [%]\n"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_err err = {0};
        int rc = gm_query_parse_fields(&q, rows[i].kind, rows[i].fields, &err);
        if (rc != 0)
            fail_msg("\"%s\": rc %d (%s)", rows[i].fields, rc, err.msg);
        q.noheader = q.nounits = 0;
        struct gm_buf b = GM_BUF_INIT;
        gm_query_header(&q, &b);
        if (strcmp(b.p, rows[i].header) != 0)
            fail_msg("\"%s\": header\n  got  \"%s\"\n  want \"%s\"", rows[i].fields, b.p,
                     rows[i].header);
        gm_buf_free(&b);
    }
}

static void test_parse_fields_errors(void **state)
{
    (void)state;
    static const struct {
        int kind;
        const char *fields;
        const char *msg; /* exact */
    } rows[] = {
        {GM_QUERY_GPU, "foo", "Field \"foo\" is not a valid field to query."},
        {GM_QUERY_GPU, "index,foo,name", "Field \"foo\" is not a valid field to query."},
        {GM_QUERY_GPU, "index, foo ", "Field \"foo\" is not a valid field to query."},
        /* names are case-sensitive, as nvidia-smi's; the nearest is suggested */
        {GM_QUERY_GPU, "Memory.Used",
         "Field \"Memory.Used\" is not a valid field to query. Did you mean \"memory.used\"?"},
        {GM_QUERY_GPU, "pid", "Field \"pid\" is not a valid field to query."},
        {GM_QUERY_GPU, "process_name", "Field \"process_name\" is not a valid field to query."},
        {GM_QUERY_APPS, "memory.used", "Field \"memory.used\" is not a valid field to query."},
        {GM_QUERY_APPS, "pid,utilization.gpu",
         "Field \"utilization.gpu\" is not a valid field to query."},
        {GM_QUERY_GPU, "index,,name", "empty field name in \"index,,name\""},
        {GM_QUERY_GPU, "index,", "empty field name in \"index,\""},
        {GM_QUERY_GPU, ",index", "empty field name in \",index\""},
        {GM_QUERY_GPU, "index, ,name", "empty field name in \"index, ,name\""},
        {GM_QUERY_GPU, "", "no fields given to query"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_err err = {0};
        int rc = gm_query_parse_fields(&q, rows[i].kind, rows[i].fields, &err);
        if (rc != GM_E_INVAL)
            fail_msg("\"%s\": rc %d, want GM_E_INVAL", rows[i].fields, rc);
        assert_int_equal(err.code, GM_E_INVAL);
        if (strcmp(err.msg, rows[i].msg) != 0)
            fail_msg("\"%s\": message\n  got  '%s'\n  want '%s'", rows[i].fields, err.msg,
                     rows[i].msg);
    }
    /* NULL list, and a NULL err is allowed */
    assert_int_equal(gm_query_parse_fields(&q, GM_QUERY_GPU, NULL, NULL), GM_E_INVAL);
    assert_int_equal(gm_query_parse_fields(&q, GM_QUERY_GPU, "nope", NULL), GM_E_INVAL);
}

/* A very long unknown name is reported whole, not truncated or overrun. */
static void test_parse_fields_long_name(void **state)
{
    (void)state;
    char name[400], want[512];
    memset(name, 'x', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    struct gm_err err = {0};
    assert_int_equal(gm_query_parse_fields(&q, GM_QUERY_GPU, name, &err), GM_E_INVAL);
    snprintf(want, sizeof(want), "Field \"%s\" is not a valid field to query.", name);
    assert_string_equal(err.msg, want);
}

static void test_parse_fields_limit(void **state)
{
    (void)state;
    struct gm_buf list = GM_BUF_INIT;
    for (int i = 0; i < GM_QUERY_MAX_FIELDS; i++)
        gm_buf_puts(&list, i ? ",index" : "index");
    struct gm_err err = {0};
    assert_int_equal(gm_query_parse_fields(&q, GM_QUERY_GPU, list.p, &err), 0);
    assert_int_equal(q.n, GM_QUERY_MAX_FIELDS);
    gm_buf_puts(&list, ",name");
    assert_int_equal(gm_query_parse_fields(&q, GM_QUERY_GPU, list.p, &err), GM_E_INVAL);
    char want[64];
    snprintf(want, sizeof(want), "too many fields (at most %d)", GM_QUERY_MAX_FIELDS);
    assert_string_equal(err.msg, want);
    gm_buf_free(&list);
}

static void test_parse_format(void **state)
{
    (void)state;
    static const struct {
        const char *fmt;
        int rc, noheader, nounits;
    } rows[] = {
        {"csv", 0, 0, 0},
        {"csv,noheader", 0, 1, 0},
        {"csv,nounits", 0, 0, 1},
        {"csv,noheader,nounits", 0, 1, 1},
        {"noheader,csv", 0, 1, 0},
        {"nounits,noheader,csv", 0, 1, 1},
        {"json", GM_E_INVAL, 0, 0},
        {"", GM_E_INVAL, 0, 0},
        {"noheader", GM_E_INVAL, 0, 0},
        {"csv,header", GM_E_INVAL, 0, 0},
        {"csvx", GM_E_INVAL, 0, 0},
        {"csv,,noheader", GM_E_INVAL, 0, 0},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_err err = {0};
        q.noheader = q.nounits = 7; /* parse resets them */
        int rc = gm_query_parse_format(&q, rows[i].fmt, &err);
        if (rc != rows[i].rc)
            fail_msg("--format=%s: rc %d, want %d", rows[i].fmt, rc, rows[i].rc);
        if (rc == 0 && (q.noheader != rows[i].noheader || q.nounits != rows[i].nounits))
            fail_msg("--format=%s: noheader %d nounits %d", rows[i].fmt, q.noheader, q.nounits);
        if (rc != 0 && err.msg[0] == '\0')
            fail_msg("--format=%s: error without a message", rows[i].fmt);
    }
    assert_int_equal(gm_query_parse_format(&q, NULL, NULL), GM_E_INVAL);
}

static void test_groups(void **state)
{
    (void)state;
    int need = -1;
    assert_int_equal(
        gm_query_parse_fields(&q, GM_QUERY_GPU, "memory.used,power.draw,timestamp", NULL), 0);
    unsigned flags = 0;
    struct gm_rgset g = gm_query_groups(&q, &need, &flags);
    struct gm_rgset want = GM_RGSET_OF(GM_RG_MEMORY, GM_RG_POWER);
    assert_true(gm_rgset_equal(&g, &want));
    assert_int_equal(flags, 0);
    assert_int_equal(need, 0);
    assert_int_equal(gm_query_parse_fields(&q, GM_QUERY_APPS, "gpu_name,pid,used_memory", NULL), 0);
    g = gm_query_groups(&q, &need, &flags);
    want = GM_RGSET_OF(GM_RG_NAME);
    assert_true(gm_rgset_equal(&g, &want));
    assert_int_equal(need, 1);
}

/* ------------------------------------------------------------------------ */
/* GPU selection                                                             */

static void test_select(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        const char *ids;
        uint64_t mask;
    } rows[] = {
        {NULL, 0x3},
        {"", 0x3},
        {"0", 0x1},
        {"1", 0x2},
        {"0,1", 0x3},
        {"1,0", 0x3},
        {"0,0", 0x1},
        {UUID0, 0x1},
        {UUID1, 0x2},
        {"gpu-11111111-2222-3333-4444-555555555555", 0x1}, /* any case */
        {"GPU-AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE", 0x2},
        {MIGUUID, 0x1}, /* a MIG device selects its GPU */
        {"mig-01234567-89AB-CDEF-0123-456789ABCDEF", 0x1},
        {"00000000:18:00.0", 0x1}, /* PCI bus id, as NVML prints it */
        {"0000:18:00.0", 0x1},     /* short domain */
        {"18:00.0", 0x1},          /* no domain */
        {"00000000:2A:00.0", 0x2},
        {"2a:00.0", 0x2},
        {"0," UUID1, 0x3},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        uint64_t mask = 0xdead;
        struct gm_err err = {0};
        int rc = gm_query_select(s, rows[i].ids, &mask, &err);
        if (rc != 0 || mask != rows[i].mask)
            fail_msg("-i %s: rc %d mask 0x%llx, want 0x%llx (%s)",
                     rows[i].ids ? rows[i].ids : "(null)", rc, (unsigned long long)mask,
                     (unsigned long long)rows[i].mask, err.msg);
    }
}

static void test_select_errors(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        const char *ids;
        const char *msg;
    } rows[] = {
        {"2", "no GPU matches id \"2\" (give an index 0-1, a UUID or a PCI bus id)"},
        {"0,7", "no GPU matches id \"7\" (give an index 0-1, a UUID or a PCI bus id)"},
        {"GPU-deadbeef", "no GPU matches id \"GPU-deadbeef\" (give an index 0-1, a UUID or a PCI "
                         "bus id)"},
        {"MIG-00000000-0000-0000-0000-000000000000",
         "no GPU matches id \"MIG-00000000-0000-0000-0000-000000000000\" (give an index 0-1, a "
         "UUID or a PCI bus id)"},
        {"19:00.0", "no GPU matches id \"19:00.0\" (give an index 0-1, a UUID or a PCI bus id)"},
        {"0001:18:00.0",
         "no GPU matches id \"0001:18:00.0\" (give an index 0-1, a UUID or a PCI bus id)"},
        {"abc", "no GPU matches id \"abc\" (give an index 0-1, a UUID or a PCI bus id)"},
        {"-1", "no GPU matches id \"-1\" (give an index 0-1, a UUID or a PCI bus id)"},
        {"0,,1", "invalid GPU id list \"0,,1\""},
        {"0,", "invalid GPU id list \"0,\""},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        uint64_t mask = 0xdead;
        struct gm_err err = {0};
        int rc = gm_query_select(s, rows[i].ids, &mask, &err);
        if (rc != GM_E_INVAL)
            fail_msg("-i %s: rc %d, want GM_E_INVAL", rows[i].ids, rc);
        if (mask != 0xdead)
            fail_msg("-i %s: mask changed on error", rows[i].ids);
        if (strcmp(err.msg, rows[i].msg) != 0)
            fail_msg("-i %s: message\n  got  '%s'\n  want '%s'", rows[i].ids, err.msg, rows[i].msg);
    }
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                      */

static const char *run_query(const struct gm_snapshot *s, int kind, const char *fields,
                             const char *format, uint64_t mask)
{
    static char out[4096];
    struct gm_err err = {0};
    if (gm_query_parse_fields(&q, kind, fields, &err) != 0)
        fail_msg("fields %s: %s", fields, err.msg);
    if (gm_query_parse_format(&q, format, &err) != 0)
        fail_msg("format %s: %s", format, err.msg);
    struct gm_buf b = GM_BUF_INIT;
    gm_query_header(&q, &b);
    gm_query_rows(&q, s, mask, &b);
    snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
    gm_buf_free(&b);
    return out;
}

static void test_rows(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        int kind;
        const char *fields, *format;
        uint64_t mask;
        const char *want;
    } rows[] = {
        {GM_QUERY_GPU,
         "index,name,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,clocks."
         "sm,clocks.mem",
         "csv", 0x3,
         "index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw "
         "[W], temperature.gpu, clocks.current.sm [MHz], clocks.current.memory [MHz]\n"
         "0, NVIDIA H100 80GB HBM3, 98 %, 5213 MiB, 81559 MiB, 280.12 W, 61, 1980 MHz, 2619 MHz\n"
         /* lost: identity kept, every live value says so */
         "1, NVIDIA H100 80GB HBM3, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], "
         "[GPU is lost], [GPU is lost], [GPU is lost]\n"},
        {GM_QUERY_GPU, "index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu",
         "csv,noheader,nounits", 0x3,
         "0, 98, 5213, 81559, 280.12, 61\n"
         "1, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]\n"},
        {GM_QUERY_GPU, "timestamp,name,utilization.gpu,memory.used,temperature.gpu,power.draw",
         "csv,nounits", 0x1,
         "timestamp, name, utilization.gpu [%], memory.used [MiB], temperature.gpu, power.draw "
         "[W]\n"
         "2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 98, 5213, 61, 280.12\n"},
        {GM_QUERY_GPU, "uuid,pci.bus_id,fan.speed,pstate,driver_version", "csv,noheader", 0x3,
         UUID0 ", 00000000:18:00.0, [N/A], P0, 590.48.01\n" UUID1
               ", 00000000:2A:00.0, [GPU is lost], [GPU is lost], 590.48.01\n"},
        {GM_QUERY_GPU, "index,memory.used", "csv,noheader", 0x2, "1, [GPU is lost]\n"},
        {GM_QUERY_GPU, "index", "csv", 0x0, "index\n"},
        /* compute apps: C and C+G only, not G; none on the lost GPU */
        {GM_QUERY_APPS, "pid,process_name,used_memory", "csv", 0x3,
         "pid, process_name, used_gpu_memory [MiB]\n"
         "11327, /root/tools/memhog, 2566 MiB\n"
         "5022, ffmpeg, 503 MiB\n"
         "11345, ./gpu_burn, [N/A]\n"},
        {GM_QUERY_APPS,
         "timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory",
         "csv", 0x1,
         "timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, "
         "used_gpu_memory [MiB]\n"
         "2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 1650123456789, " UUID0
         ", 11327, /root/tools/memhog, 2566 MiB\n"
         "2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 1650123456789, " UUID0
         ", 5022, ffmpeg, 503 MiB\n"
         "2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 1650123456789, " UUID0
         ", 11345, ./gpu_burn, [N/A]\n"},
        {GM_QUERY_APPS, "pid,used_memory", "csv,nounits,noheader", 0x1,
         "11327, 2566\n5022, 503\n11345, [N/A]\n"},
        /* no processes: the header only */
        {GM_QUERY_APPS, "pid,process_name,used_memory", "csv", 0x2,
         "pid, process_name, used_gpu_memory [MiB]\n"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = run_query(s, rows[i].kind, rows[i].fields, rows[i].format, rows[i].mask);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("row %zu (%s --format=%s)\n--- got:\n%s--- want:\n%s", i, rows[i].fields,
                     rows[i].format, got, rows[i].want);
    }
}

/* Text values are text from outside: a normal name is printed as nvidia-smi
 * prints it; one with a comma or quote is quoted so that it stays one field,
 * controls and bad bytes become U+FFFD, and a formula gets a leading '.
 * Numbers (negative ones too) and gpumon's own words are never changed. */
static void test_rows_outside_text(void **state)
{
    (void)state;
    struct gm_snapshot *s = build();
    set_str(&s->gpus[0], GM_S_NAME, "=HYPERLINK(\"x\",\"y\")\n\x1b[2J\xff");
    s->gpus[0].m[GM_M_TEMP_GPU] = gm_v_i64(-3);
    snprintf(s->procs[0].name, sizeof(s->procs[0].name), "-bash, \"login\"");
    snprintf(s->procs[2].name, sizeof(s->procs[2].name), "ev\xc2\x9b\x07x");
#define R "\xEF\xBF\xBD"
    assert_string_equal(
        run_query(s, GM_QUERY_GPU, "index,name,temperature.gpu,fan.speed", "csv,noheader", 0x1),
        "0, \"'=HYPERLINK(\"\"x\"\",\"\"y\"\")" R R "[2J" R "\", -3, [N/A]\n");
    assert_string_equal(
        run_query(s, GM_QUERY_APPS, "pid,process_name,used_memory", "csv,noheader,nounits", 0x1),
        "11327, \"'-bash, \"\"login\"\"\", 2566\n"
        "5022, ev" R R "x, 503\n"
        "11345, ./gpu_burn, [N/A]\n");
#undef R
    gm_snapshot_free(s);
}

/* The rows come out in snapshot order, whatever order the ids were given. */
static void test_rows_after_select(void **state)
{
    struct gm_snapshot *s = *state;
    uint64_t mask = 0;
    assert_int_equal(gm_query_select(s, "1,0", &mask, NULL), 0);
    assert_string_equal(run_query(s, GM_QUERY_GPU, "index", "csv,noheader", mask), "0\n1\n");
}

static void test_help(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_query_help(GM_QUERY_GPU, &b);
    assert_memory_equal(
        b.p, "List of valid properties to query for the switch \"--query-gpu\":\n\n", 63);
    assert_non_null(
        strstr(b.p, "\n\"clocks.current.sm\" or \"clocks.sm\"\nCurrent SM clock, MHz.\n\n"));
    assert_non_null(strstr(b.p, "\n\"name\" or \"gpu_name\"\n"));
    assert_non_null(strstr(b.p, "\n\"energy_joules\"\n"));
    assert_null(strstr(b.p, "\"pid\""));
    gm_buf_reset(&b);
    gm_query_help(GM_QUERY_APPS, &b);
    assert_non_null(strstr(b.p, "\"--query-compute-apps\""));
    assert_non_null(strstr(b.p, "\n\"gpu_name\"\n"));
    assert_non_null(strstr(b.p, "\n\"used_gpu_memory\" or \"used_memory\"\n"));
    assert_null(strstr(b.p, "\"memory.used\""));
    gm_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_fields_headers),
        cmocka_unit_test(test_parse_fields_errors),
        cmocka_unit_test(test_parse_fields_long_name),
        cmocka_unit_test(test_parse_fields_limit),
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_select_errors),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_rows_after_select),
        cmocka_unit_test(test_rows_outside_text),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_status.c -- unit tests for the status view (src/view/status.c).
 *
 * The text form without colour, line by line, on a hand-made snapshot: the
 * host line, a healthy GPU with a throttle marker and its processes (one
 * that is gone, one zombie, one without a name), a lost GPU, a GPU that
 * could not be opened, a GPU with every value absent; the show-processes,
 * full-command, mask, colour and UTF-8 options; names with escape
 * sequences, newlines and bad bytes (text from outside).  The JSON form is parsed by
 * python3's json module, which also rejects duplicate keys and checks the
 * values, nulls and "unavailable" reasons; and the throttle label table.
 * TZ is UTC for the whole file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/metrics.h"
#include "core/snapshot.h"
#include "source/nvml_abi.h"
#include "core/text.h"
#include "view/status.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIB UINT64_C(1048576)
#define WALL_NS (INT64_C(1784016758) * 1000000000 + 696000000) /* 2026-07-14T08:12:38.696Z */

/* ------------------------------------------------------------------------ */
/* The snapshot                                                              */

static void set_str(struct gm_gpu *g, int slot, const char *s)
{
    snprintf(g->str[slot], sizeof(g->str[slot]), "%s", s);
}

static struct gm_proc *add_proc(struct gm_snapshot *s, uint32_t gpu, uint32_t pid, uint8_t type,
                                const char *name, struct gm_value mem, uint8_t host_state)
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
    return gm_snapshot_add_proc_take(s, &p);
}

static void mark_down(struct gm_gpu *g, int state, int code, enum gm_vstatus st)
{
    g->state = (uint8_t)state;
    g->state_code = (int16_t)code;
    for (int id = 0; id < GM_M__GPU_END; id++)
        if (gm_metrics[id].scope == GM_SC_GPU &&
            !(gm_metrics[id].kind == GM_K_INFO && gm_v_ok(&g->m[id])))
            g->m[id] = gm_v_status(st, code);
}

/* GPU 0 healthy and hot (thermal slowdown), 4 processes, 1 MIG device;
 * GPU 1 lost; GPU 2 no permission; GPU 3 healthy but every live value absent. */
static struct gm_snapshot *build(void)
{
    struct gm_snapshot *s = gm_snapshot_new();
    s->seq = 7;
    s->wall_ns = WALL_NS;
    s->duration_ns = 12345678;
    snprintf(s->hostname, sizeof(s->hostname), "node1");
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "590.48.01");
    s->nvml_version = gm_v_u64(0);
    snprintf(s->nvml_version_s, sizeof(s->nvml_version_s), "13.590.48.01");
    s->cuda_version = gm_v_u64(13010);
    gm_snapshot_set_gpus(s, 4);

    static const char *const uuids[] = {
        "GPU-00000000-0000-0000-0000-000000000000", "GPU-11111111-1111-1111-1111-111111111111",
        "GPU-22222222-2222-2222-2222-222222222222", "GPU-33333333-3333-3333-3333-333333333333"};
    for (uint32_t i = 0; i < 4; i++) {
        struct gm_gpu *g = &s->gpus[i];
        set_str(g, GM_S_NAME, i == 3 ? "Tesla T4" : "NVIDIA H100 80GB HBM3");
        set_str(g, GM_S_UUID, uuids[i]);
        char bus[32];
        snprintf(bus, sizeof(bus), "00000000:%02X:00.0", 0x18 + i);
        set_str(g, GM_S_PCI_BUS_ID, bus);
        g->m[GM_M_NAME] = g->m[GM_M_UUID] = g->m[GM_M_PCI_BUS_ID] = gm_v_u64(0);
        g->m[GM_M_INDEX] = gm_v_u64(i);
    }

    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_TEMP_GPU] = gm_v_u64(83);
    g->m[GM_M_TEMP_SLOWDOWN] = gm_v_u64(87);
    g->m[GM_M_TEMP_MEM] = gm_v_status(GM_VS_NA, 0);
    g->m[GM_M_FAN] = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    g->m[GM_M_UTIL_GPU] = gm_v_u64(98);
    g->m[GM_M_UTIL_ENC] = gm_v_status(GM_VS_NOPERM, NVML_ERROR_NO_PERMISSION);
    g->m[GM_M_UTIL_DEC] = gm_v_status(GM_VS_ERROR, NVML_ERROR_UNKNOWN);
    g->m[GM_M_MEM_USED] = gm_v_u64(5213 * MIB + 4096);
    g->m[GM_M_MEM_TOTAL] = gm_v_u64(81559 * MIB);
    g->m[GM_M_POWER_DRAW] = gm_v_f64(280.12);
    g->m[GM_M_POWER_LIMIT] = gm_v_f64(700.0);
    g->m[GM_M_PERSISTENCE] = gm_v_u64(1);
    g->m[GM_M_PSTATE] = gm_v_u64(0);
    g->m[GM_M_CER_ACTIVE] = gm_v_u64(0x1 | 0x40); /* idle bit + hw thermal */
    g->m[GM_M_CER_HW_THERMAL] = gm_v_u64(1);
    g->m[GM_M_PCIE_TX] = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
    g->nmig = 1;
    g->mig[0].index = 0;
    g->mig[0].gpu_instance_id = 1;
    g->mig[0].compute_instance_id = 0;
    snprintf(g->mig[0].uuid, sizeof(g->mig[0].uuid), "MIG-01234567-89ab-cdef-0123-456789abcdef");
    snprintf(g->mig[0].name, sizeof(g->mig[0].name), "NVIDIA H100 80GB HBM3 MIG 1g.10gb");
    snprintf(g->mig[0].profile, sizeof(g->mig[0].profile), "1g.10gb");
    g->mig[0].mem_total = gm_v_u64(9856 * MIB);
    g->mig[0].mem_used = gm_v_u64(13 * MIB);
    g->mig[0].mem_free = gm_v_status(GM_VS_NA, 0);
    g->mig[0].mem_reserved = gm_v_u64(0);
    g->mig[0].bar1_total = gm_v_u64(16384 * MIB);
    g->mig[0].bar1_used = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);

    struct gm_proc *p = add_proc(s, 0, 1234, GM_PT_COMPUTE, "/usr/bin/python3",
                                 gm_v_u64(2566 * MIB + 5), GM_HS_ALIVE);
    snprintf(p->user, sizeof(p->user), "alice");
    snprintf(p->comm, sizeof(p->comm), "python3");
    p->cmdline = strdup("python3 train.py --epochs 3");
    p->cgroup = strdup("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                       "2f1e3c4d_5b6a_4789_8abc_def012345678.slice/cri-containerd-"
                       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope");
    gm_attrib_parse(p->cgroup, p->uid, &p->attrib);
    p->nspid = 7;
    p = add_proc(s, 0, 2345, GM_PT_GRAPHICS, "/usr/lib/xorg/Xorg", gm_v_u64(25 * MIB),
                 GM_HS_ZOMBIE);
    snprintf(p->user, sizeof(p->user), "root");
    p = add_proc(s, 0, 3456, GM_PT_COMPUTE | GM_PT_GRAPHICS, "/opt/bin/ffmpeg",
                 gm_v_status(GM_VS_NA, 0), GM_HS_GONE);
    p = add_proc(s, 0, 4567, GM_PT_COMPUTE, "", gm_v_u64(0), GM_HS_UNKNOWN);
    g->proc_first = 0;
    g->nproc = 4;

    mark_down(&s->gpus[1], GM_GPU_LOST, NVML_ERROR_GPU_IS_LOST, GM_VS_LOST);
    mark_down(&s->gpus[2], GM_GPU_NOPERM, NVML_ERROR_NO_PERMISSION, GM_VS_NOPERM);
    /* GPU 3: state OK, values left NA by gm_snapshot_set_gpus */
    for (uint32_t i = 1; i < 4; i++)
        s->gpus[i].proc_first = 4;
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

static char *text_of(const struct gm_snapshot *s, const struct gm_status_opts *o)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_status_text(s, o, &b);
    char *r = strdup(b.p ? b.p : "");
    gm_buf_free(&b);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Text                                                                      */

#define HOST_LINE "node1  2026-07-14 08:12:38 +00:00  driver 590.48.01  CUDA 13.1\n"
#define GPU0_HEAD                                                                                  \
    "[0] NVIDIA H100 80GB HBM3 |  83C,  98 % |   5213 /  81559 MiB |  280 /  700 W [thermal] "     \
    "MIG x1 |"
#define GPU0_PROCS                                                                                 \
    " alice:python3/1234(2566M)[pod:2f1e3c4d] root:Xorg/2345(25M,zombie) "                         \
    "?:ffmpeg/3456(?M,process gone) "                                                              \
    "?:?/4567(0M)"
#define GPU1_LINE                                                                                  \
    "[1] NVIDIA H100 80GB HBM3 | GPU is lost: it fell off the bus or became inaccessible (check "  \
    "dmesg for Xid 79; a reset or reboot is needed)\n"
#define GPU2_LINE                                                                                  \
    "[2] NVIDIA H100 80GB HBM3 | no permission to open this GPU (check /dev/nvidia* "              \
    "permissions)\n"
#define GPU3_LINE                                                                                  \
    "[3] Tesla T4              |  N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W |\n"

static void test_text(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        const char *name;
        struct gm_status_opts o;
        const char *want;
    } rows[] = {
        {"all GPUs, processes",
         {.show_procs = 1, .mask = 0xF},
         HOST_LINE GPU0_HEAD GPU0_PROCS "\n" GPU1_LINE GPU2_LINE GPU3_LINE},
        {"no processes", {.mask = 0xF}, HOST_LINE GPU0_HEAD "\n" GPU1_LINE GPU2_LINE GPU3_LINE},
        {"full command lines",
         {.show_procs = 1, .full_cmd = 1, .mask = 0x1},
         HOST_LINE "[0] NVIDIA H100 80GB HBM3 |  83C,  98 % |   5213 /  81559 MiB |  280 /  700 W "
                   "[thermal] MIG x1 | alice:python3 train.py --epochs 3/1234(2566M)[pod:2f1e3c4d] "
                   "root:Xorg/2345(25M,zombie) ?:ffmpeg/3456(?M,process gone) ?:?/4567(0M)\n"},
        {"mask: lost GPU only", {.show_procs = 1, .mask = 0x2}, HOST_LINE GPU1_LINE},
        {"mask: none", {.show_procs = 1, .mask = 0}, HOST_LINE},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char *got = text_of(s, &rows[i].o);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("%s\n--- got:\n%s--- want:\n%s", rows[i].name, got, rows[i].want);
        free(got);
    }
}

/* Processes the snapshot does not hold are never silently none: a GPU with
 * more processes than the snapshot keeps says how many were left out, and
 * one whose list could not be read says so and why (with the processes
 * shown or not: a GPU that lists none must not read as idle). */
static void test_text_procs_not_listed(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        const char *name;
        int gpu;
        uint32_t dropped;
        int list_status, list_code; /* 0: the list was read */
        int procs;
        const char *want;
    } rows[] = {
        {"two left out", 0, 2, 0, 0, 1, GPU0_HEAD GPU0_PROCS " [+2 processes not listed]\n"},
        {"one left out", 0, 1, 0, 0, 1, GPU0_HEAD GPU0_PROCS " [+1 process not listed]\n"},
        {"left out, processes not shown", 0, 70000, 0, 0, 0,
         GPU0_HEAD " [+70000 processes not listed]\n"},
        {"list not read", 3, 0, GM_VS_ERROR, NVML_ERROR_INSUFFICIENT_SIZE, 1,
         "[3] Tesla T4              |  N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W | "
         "[process list incomplete: Insufficient Size]\n"},
        {"list not permitted, processes not shown", 3, 0, GM_VS_NOPERM, NVML_ERROR_NO_PERMISSION, 0,
         "[3] Tesla T4              |  N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W | "
         "[process list incomplete: Insufficient Permissions]\n"},
        {"not collected says nothing", 3, 0, GM_VS_NA, GM_CODE_NOT_COLLECTED, 1, GPU3_LINE},
        {"read whole", 3, 0, 0, 0, 1, GPU3_LINE},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_gpu *g = &s->gpus[rows[i].gpu];
        struct gm_gpu saved = *g;
        g->proc_dropped = rows[i].dropped;
        if (rows[i].list_status)
            g->proc_list = gm_v_status((enum gm_vstatus)rows[i].list_status, rows[i].list_code);
        else
            g->proc_list = gm_v_u64(0);
        struct gm_status_opts o = {.show_procs = rows[i].procs, .mask = UINT64_C(1) << rows[i].gpu};
        char *got = text_of(s, &o);
        *g = saved;
        const char *body = strchr(got, '\n') + 1; /* after the host line */
        if (strcmp(body, rows[i].want) != 0)
            fail_msg("%s\n--- got:\n%s--- want:\n%s", rows[i].name, body, rows[i].want);
        free(got);
    }
}

/* The JSON document counts the processes left out (0 when none). */
static void test_json_procs_not_listed(void **state)
{
    struct gm_snapshot *s = *state;
    s->gpus[0].proc_dropped = 3;
    struct gm_buf b = GM_BUF_INIT;
    gm_status_json(s, 0x9, 0, &b);
    s->gpus[0].proc_dropped = 0;
    const char *k0 = strstr(b.p, "\"processes_not_listed\":3");
    assert_non_null(k0);
    assert_non_null(strstr(k0 + 1, "\"processes_not_listed\":0"));
    gm_buf_free(&b);
}

/* A GPU whose state is an error other than lost/permission names the error. */
static void test_text_gpu_error(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_gpu saved = s->gpus[2];
    mark_down(&s->gpus[2], GM_GPU_ERROR, NVML_ERROR_UNKNOWN, GM_VS_ERROR);
    struct gm_status_opts o = {.mask = 0x4};
    char *got = text_of(s, &o);
    assert_string_equal(got, HOST_LINE "[2] NVIDIA H100 80GB HBM3 | GPU error: Unknown Error\n");
    free(got);
    s->gpus[2] = saved;
}

/* The host line leaves out what is not known. */
static void test_text_host_line(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_value dv = s->driver_version, cv = s->cuda_version;
    s->driver_version = gm_v_status(GM_VS_ERROR, NVML_ERROR_UNKNOWN);
    s->cuda_version = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND);
    struct gm_status_opts o = {.mask = 0};
    char *got = text_of(s, &o);
    assert_string_equal(got, "node1  2026-07-14 08:12:38 +00:00\n");
    free(got);
    s->driver_version = dv;
    s->cuda_version = cv;
    setenv("TZ", "CST-8", 1);
    tzset();
    got = text_of(s, &o);
    assert_string_equal(got, "node1  2026-07-14 16:12:38 +08:00  driver 590.48.01  CUDA 13.1\n");
    free(got);
    setenv("TZ", "UTC0", 1);
    tzset();
}

/* Throttle markers by reason, on GPU 0. */
static void test_text_throttle_marker(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        struct gm_value v;
        const char *tail; /* what follows the power cell */
    } rows[] = {
        {{.status = GM_VS_OK, .v.u = 0x0}, " MIG x1 |\n"},
        {{.status = GM_VS_OK, .v.u = 0x1}, " MIG x1 |\n"}, /* idle is not a limit */
        {{.status = GM_VS_OK, .v.u = 0x4}, " [power cap] MIG x1 |\n"},
        {{.status = GM_VS_OK, .v.u = 0x20}, " [thermal] MIG x1 |\n"},
        {{.status = GM_VS_OK, .v.u = 0x4 | 0x80}, " [power brake] MIG x1 |\n"},
        {{.status = GM_VS_NOPERM}, " MIG x1 |\n"},
    };
    struct gm_value saved = s->gpus[0].m[GM_M_CER_ACTIVE];
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        s->gpus[0].m[GM_M_CER_ACTIVE] = rows[i].v;
        struct gm_status_opts o = {.mask = 0x1};
        char *got = text_of(s, &o);
        char want[512];
        snprintf(want, sizeof(want),
                 HOST_LINE "[0] NVIDIA H100 80GB HBM3 |  83C,  98 %% |   5213 /  81559 MiB |  280 "
                           "/  700 W%s",
                 rows[i].tail);
        if (strcmp(got, want) != 0)
            fail_msg("reasons row %zu\n--- got:\n%s--- want:\n%s", i, got, want);
        free(got);
    }
    s->gpus[0].m[GM_M_CER_ACTIVE] = saved;
}

/* Colour only when asked; the degree sign only with UTF-8, and the absent
 * temperature keeps the column width either way. */
static void test_text_color_and_utf8(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_status_opts o = {.show_procs = 1, .mask = 0xF};
    char *plain = text_of(s, &o);
    assert_null(strchr(plain, '\033'));
    o.color = 1;
    char *color = text_of(s, &o);
    assert_non_null(strstr(color, "\033[0m"));
    /* without the escapes it is the plain text */
    struct gm_buf b = GM_BUF_INIT;
    for (const char *c = color; *c;) {
        if (*c == '\033') {
            c = strchr(c, 'm');
            assert_non_null(c);
            c++;
        } else {
            gm_buf_putc(&b, *c++);
        }
    }
    assert_string_equal(b.p, plain);
    gm_buf_free(&b);
    free(color);
    free(plain);

    o.color = 0;
    o.utf8 = 1;
    o.mask = 0x9;
    o.show_procs = 0;
    char *u = text_of(s, &o);
    assert_string_equal(u, HOST_LINE "[0] NVIDIA H100 80GB HBM3 |  83\xC2\xB0"
                                     "C,  98 % |   5213 /  81559 MiB |  280 /  700 W [thermal] MIG "
                                     "x1 |\n"
                                     "[3] Tesla T4              |   N/A,   N/A |    N/A /    N/A "
                                     "MiB |  N/A /  N/A W |\n");
    free(u);
}

/* Names are text from outside: a process or GPU named with escape
 * sequences, newlines and bytes that are not UTF-8 is shown with U+FFFD on
 * a UTF-8 terminal and '?' on another, on its one line, and the GPU names
 * are padded by the characters shown. */
static void test_text_outside(void **state)
{
    (void)state;
    struct gm_snapshot *s = gm_snapshot_new();
    s->wall_ns = INT64_C(1784016758000000000);
    snprintf(s->hostname, sizeof(s->hostname), "n\x1b]0;x\x07");
    s->driver_version = gm_v_u64(0);
    snprintf(s->driver_version_s, sizeof(s->driver_version_s), "550\n");
    s->cuda_version = gm_v_status(GM_VS_NA, 0);
    gm_snapshot_set_gpus(s, 2);
    for (int i = 0; i < 2; i++) {
        s->gpus[i].index = (uint32_t)i;
        s->gpus[i].m[GM_M_NAME] = gm_v_u64(0);
    }
    set_str(&s->gpus[0], GM_S_NAME, "ev\xff\n\x1b[2Jx");
    set_str(&s->gpus[1], GM_S_NAME, "T4");
    s->gpus[0].proc_first = 0;
    s->gpus[0].nproc = 1;
    struct gm_proc *p =
        add_proc(s, 0, 7, GM_PT_COMPUTE, "/bin/x\r\xc2\x9b", gm_v_u64(1048576), GM_HS_ALIVE);
    snprintf(p->user, sizeof(p->user), "u\t");
    p->cmdline = strdup("run \x1b[31m\xe8\xae");
    s->gpus[1].proc_first = 1;
    struct gm_status_opts o = {.show_procs = 1, .mask = 0x3, .utf8 = 1};
#define R "\xEF\xBF\xBD"
    static const char *const want[3] = {
        /* UTF-8 */
        "n" R "]0;x" R "  2026-07-14 08:12:38 +00:00  driver 550" R "\n"
        "[0] ev" R R R "[2Jx |   N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W | u" R ":x" R R
        "/7(1M)\n"
        "[1] T4        |   N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W |\n",
        /* not UTF-8 */
        "n?]0;x?  2026-07-14 08:12:38 +00:00  driver 550?\n"
        "[0] ev???[2Jx |  N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W | u?:x?"
        "?/7(1M)\n"
        "[1] T4        |  N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W |\n",
        /* full command line */
        "n" R "]0;x" R "  2026-07-14 08:12:38 +00:00  driver 550" R "\n"
        "[0] ev" R R R "[2Jx |   N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W | u" R ":run " R
        "[31m" R R "/7(1M)\n"
        "[1] T4        |   N/A,   N/A |    N/A /    N/A MiB |  N/A /  N/A W |\n",
    };
#undef R
    for (int k = 0; k < 3; k++) {
        o.utf8 = k != 1;
        o.full_cmd = k == 2;
        char *got = text_of(s, &o);
        if (strcmp(got, want[k]) != 0)
            fail_msg("case %d\n--- got:\n%s--- want:\n%s", k, got, want[k]);
        free(got);
    }
    gm_snapshot_free(s);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */

/* python3 -c 'import json'; 0 if it cannot run here. */
static int have_python(void)
{
    int rc = system("python3 -c 'import json' >/dev/null 2>&1");
    return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

/* Runs script (python3) with the document on stdin; returns its output and
 * exit status.  The script prints "OK" when every check holds. */
static int run_python(const char *script, const char *doc, char *out, size_t outlen)
{
    char spath[] = "/tmp/gm_test_status_XXXXXX.py";
    char dpath[] = "/tmp/gm_test_status_XXXXXX.json";
    int sfd = mkstemps(spath, 3), dfd = mkstemps(dpath, 5);
    assert_true(sfd >= 0 && dfd >= 0);
    assert_int_equal(write(sfd, script, strlen(script)), (ssize_t)strlen(script));
    assert_int_equal(write(dfd, doc, strlen(doc)), (ssize_t)strlen(doc));
    close(sfd);
    close(dfd);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "python3 %s < %s 2>&1", spath, dpath);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, outlen - 1, f);
    out[n] = '\0';
    int st = pclose(f);
    unlink(spath);
    unlink(dpath);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Loads the document rejecting duplicate keys, then checks it. */
static const char json_checks[] =
    "import json, sys\n"
    "def pairs(kv):\n"
    "    keys = [k for k, _ in kv]\n"
    "    dup = {k for k in keys if keys.count(k) > 1}\n"
    "    assert not dup, 'duplicate keys %s' % dup\n"
    "    return dict(kv)\n"
    "d = json.load(sys.stdin, object_pairs_hook=pairs)\n"
    "def eq(a, b):\n"
    "    assert a == b, '%r != %r' % (a, b)\n"
    "eq(d['schema'], 'gpumon.status/1')\n"
    "eq(d['hostname'], 'node1')\n"
    "eq(d['time'], '2026-07-14T08:12:38.696+00:00')\n"
    "eq(d['time_unix_ns'], 1784016758696000000)\n"
    "eq(d['sample_duration_seconds'], 0.012346)\n"
    "eq(d['driver'], {'status': 'ok', 'message': None, 'driver_version': '590.48.01',\n"
    "                 'cuda_driver_version': '13.1', 'nvml_version': '13.590.48.01'})\n"
    "eq(d['gpu_count'], 4)\n"
    "eq([g['index'] for g in d['gpus']], [0, 1, 2, 3])\n"
    "g = d['gpus'][0]\n"
    "eq(g['status'], 'ok'); eq(g['error'], None)\n"
    "eq(g['name'], 'NVIDIA H100 80GB HBM3')\n"
    "eq(g['uuid'], 'GPU-00000000-0000-0000-0000-000000000000')\n"
    "eq(g['pci_bus_id'], '00000000:18:00.0')\n"
    "eq(g['memory_used_bytes'], 5213 * 1048576 + 4096)\n"
    "eq(g['memory_total_bytes'], 81559 * 1048576)\n"
    "eq(g['power_draw_watts'], 280.12)\n"
    "eq(g['temperature_gpu_celsius'], 83)\n"
    "eq(g['utilization_gpu_percent'], 98)\n"
    "eq(g['persistence_mode'], True)\n"
    "eq(g['pstate'], 0)\n"
    "eq(g['clocks_event_reasons'], 0x41)\n"
    "eq(g['clocks_event_reason_hw_thermal_slowdown'], True)\n"
    "eq(g['clocks_event_reasons_active_names'], ['gpu_idle', 'hw_thermal_slowdown'])\n"
    "eq(g['throttle'], 'thermal')\n"
    "# absent values: null, with the reason under 'unavailable'\n"
    "u = g['unavailable']\n"
    "for k, why in [('fan_speed_percent', 'not_supported'),\n"
    "               ('temperature_memory_celsius', 'not_available'),\n"
    "               ('utilization_encoder_percent', 'not_permitted'),\n"
    "               ('utilization_decoder_percent', 'error'),\n"
    "               ('pcie_tx_bytes_per_second', 'not_collected'),\n"
    "               ('serial', 'not_available')]:\n"
    "    eq(g[k], None); eq(u[k], why)\n"
    "for k, v in g.items():\n"
    "    if v is None and k not in ('error', 'throttle'):\n"
    "        assert k in u, 'null %s has no reason' % k\n"
    "for k in u:\n"
    "    eq(g[k], None)\n"
    "for k in ('memory_used_bytes', 'name', 'index', 'driver_version', 'time'):\n"
    "    assert k not in u, k\n"
    "eq(g['mig_devices'], [{'index': 0, 'gpu_instance_id': 1, 'compute_instance_id': 0,\n"
    "    'uuid': 'MIG-01234567-89ab-cdef-0123-456789abcdef',\n"
    "    'name': 'NVIDIA H100 80GB HBM3 MIG 1g.10gb', 'profile': '1g.10gb',\n"
    "    'memory_total_bytes': 9856 * 1048576, 'memory_used_bytes': 13 * 1048576,\n"
    "    'memory_free_bytes': None, 'memory_reserved_bytes': 0,\n"
    "    'bar1_total_bytes': 17179869184, 'bar1_used_bytes': None}])\n"
    "ps = g['processes']\n"
    "eq([p['pid'] for p in ps], [1234, 2345, 3456, 4567])\n"
    "eq([p['type'] for p in ps], ['C', 'G', 'C+G', 'C'])\n"
    "eq([p['host_state'] for p in ps], ['alive', 'zombie', 'gone', None])\n"
    "eq([p['used_memory_bytes'] for p in ps], [2566 * 1048576 + 5, 25 * 1048576, None, 0])\n"
    "eq(ps[0]['name'], '/usr/bin/python3'); eq(ps[0]['comm'], 'python3')\n"
    "eq(ps[0]['user'], 'alice'); eq(ps[0]['command'], 'python3 train.py --epochs 3')\n"
    "eq(ps[2]['unavailable']['used_memory_bytes'], 'not_available')\n"
    "eq(ps[3]['unavailable']['host_state'], 'not_available')\n"
    "eq(ps[3]['name'], None); eq(ps[3]['comm'], None)\n"
    "# who the process belongs to, from its cgroup\n"
    "eq(ps[0]['ns_pid'], 7); eq(ps[0]['job'], 'pod:2f1e3c4d-5b6a-4789-8abc-def012345678')\n"
    "eq(ps[0]['container_runtime'], 'containerd'); eq(ps[0]['pod_qos'], 'Burstable')\n"
    "eq(ps[0]['container_id'], '0123456789abcdef' * 4); eq(ps[0]['slurm_job'], None)\n"
    "eq(ps[0]['slurm_uid'], None); eq(ps[0]['systemd_unit'], None)\n"
    "eq(ps[3]['job'], None); eq(ps[3]['ns_pid'], None); eq(ps[3]['slurm_uid'], None)\n"
    "for p in ps:\n"
    "    for k, v in p.items():\n"
    "        if v is None and k not in ('comm', 'cgroup', 'ns_pid', 'job', 'container_runtime',\n"
    "                                       'container_id', 'pod_uid', 'pod_qos', 'slurm_job',\n"
    "                                       'slurm_step', 'slurm_uid', 'systemd_unit'):\n"
    "            assert k in p['unavailable'], 'process null %s has no reason' % k\n"
    "# the lost GPU: identity kept, live values null with the reason\n"
    "l = d['gpus'][1]\n"
    "eq(l['status'], 'lost'); eq(l['error'], 'GPU is lost')\n"
    "eq(l['name'], 'NVIDIA H100 80GB HBM3')\n"
    "eq(l['uuid'], 'GPU-11111111-1111-1111-1111-111111111111')\n"
    "eq(l['utilization_gpu_percent'], None)\n"
    "eq(l['unavailable']['utilization_gpu_percent'], 'gpu_lost')\n"
    "eq(l['unavailable']['memory_used_bytes'], 'gpu_lost')\n"
    "eq(l['clocks_event_reasons_active_names'], None); eq(l['throttle'], None)\n"
    "eq(l['processes'], []); eq(l['mig_devices'], [])\n"
    "n = d['gpus'][2]\n"
    "eq(n['status'], 'no_permission'); eq(n['error'], 'Insufficient Permissions')\n"
    "eq(n['unavailable']['temperature_gpu_celsius'], 'not_permitted')\n"
    "t = d['gpus'][3]\n"
    "eq(t['status'], 'ok'); eq(t['name'], 'Tesla T4')\n"
    "eq(t['unavailable']['power_draw_watts'], 'not_available')\n"
    "print('OK')\n";

static void test_json(void **state)
{
    struct gm_snapshot *s = *state;
    if (!have_python()) {
        print_message("python3 is not available: the JSON checks cannot run\n");
        skip();
    }
    for (int pretty = 0; pretty <= 1; pretty++) {
        struct gm_buf b = GM_BUF_INIT;
        gm_status_json(s, 0xF, pretty, &b);
        assert_int_equal(b.p[b.len - 1], '\n');
        char out[4096];
        int rc = run_python(json_checks, b.p, out, sizeof(out));
        if (rc != 0 || strcmp(out, "OK\n") != 0)
            fail_msg("pretty=%d: python3 checks failed (exit %d):\n%s\ndocument:\n%s", pretty, rc,
                     out, b.p);
        gm_buf_free(&b);
    }
}

/* The checks above must be able to fail: a document with a wrong value and
 * one that is not JSON both make the script say so. */
static void test_json_checker_fails(void **state)
{
    struct gm_snapshot *s = *state;
    if (!have_python())
        skip();
    char out[4096];
    assert_int_not_equal(run_python(json_checks, "{\"schema\": 1,", out, sizeof(out)), 0);
    struct gm_buf b = GM_BUF_INIT;
    struct gm_value saved = s->gpus[0].m[GM_M_FAN];
    s->gpus[0].m[GM_M_FAN] = gm_v_u64(40); /* the script wants it absent */
    gm_status_json(s, 0xF, 0, &b);
    s->gpus[0].m[GM_M_FAN] = saved;
    assert_int_not_equal(run_python(json_checks, b.p, out, sizeof(out)), 0);
    gm_buf_free(&b);
}

/* GM_STATUS_JSON_NO_COMMAND (the agent's API without auth): every
 * process's command null with the reason "withheld", nothing else changed. */
static void test_json_no_command(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_buf full = GM_BUF_INIT, cut = GM_BUF_INIT;
    gm_status_json_opt(s, 0x1, 0, 0, &full);
    gm_status_json_opt(s, 0x1, 0, GM_STATUS_JSON_NO_COMMAND, &cut);
    assert_non_null(strstr(full.p, "\"command\":\"python3 train.py --epochs 3\""));
    assert_null(strstr(cut.p, "train.py"));
    assert_non_null(strstr(cut.p, "\"host_state\":\"alive\",\"command\":null,"));
    assert_non_null(strstr(cut.p, "\"command\":\"withheld\""));
    assert_null(strstr(full.p, "withheld"));
    assert_non_null(strstr(cut.p, "\"user\":\"alice\""));
    gm_buf_free(&full);
    gm_buf_free(&cut);
}

/* Compact form: spot checks that need no python, and the mask. */
static void test_json_compact(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_buf b = GM_BUF_INIT;
    gm_status_json(s, 0x2, 0, &b);
    assert_memory_equal(b.p, "{\"schema\":\"gpumon.status/1\",\"hostname\":\"node1\",", 46);
    assert_non_null(strstr(b.p, "\"gpu_count\":4,\"gpus\":[{\"index\":1,\"status\":\"lost\","
                                "\"error\":\"GPU is lost\","));
    assert_non_null(strstr(b.p, "\"utilization_gpu_percent\":null"));
    assert_non_null(strstr(b.p, "\"unavailable\":{"));
    assert_non_null(strstr(b.p, "\"utilization_gpu_percent\":\"gpu_lost\""));
    assert_null(strstr(b.p, "\"index\":0"));              /* GPU 0 is not selected */
    assert_ptr_equal(strchr(b.p, '\n'), b.p + b.len - 1); /* one line */
    gm_buf_free(&b);
}

/* The slow groups' ages: "value_ages_seconds" only when the snapshot's
 * slow groups are read on a cadence, with each real value of a slow group
 * by its key (0 for one read in this sample) and no fast or missing one. */
static void test_json_value_ages(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_gpu *g = &s->gpus[0];
    struct gm_value keep_ecc = g->m[GM_M_ECC_CORR_VOL], keep_gen = g->m[GM_M_PCIE_GEN_CUR];
    struct gm_value keep_ret = g->m[GM_M_RETIRED_SBE];
    g->m[GM_M_ECC_CORR_VOL] = gm_v_u64(3);
    g->m[GM_M_PCIE_GEN_CUR] = gm_v_u64(5);
    g->m[GM_M_RETIRED_SBE] = gm_v_status(GM_VS_UNSUPPORTED, 3);
    struct gm_buf b = GM_BUF_INIT;
    gm_status_json(s, 0x1, 0, &b); /* every value read afresh: no ages */
    assert_null(strstr(b.p, "value_ages_seconds"));
    gm_buf_reset(&b);
    g->m[GM_M_ECC_CORR_VOL].age_ms = 2500;
    s->slow_ns = 10000000000LL;
    gm_status_json(s, 0x1, 0, &b);
    char ecc[128], gen[128], ret[128], temp[128], want[300];
    gm_metric_json_key(GM_M_ECC_CORR_VOL, ecc, sizeof(ecc));
    gm_metric_json_key(GM_M_PCIE_GEN_CUR, gen, sizeof(gen));
    gm_metric_json_key(GM_M_RETIRED_SBE, ret, sizeof(ret));
    gm_metric_json_key(GM_M_TEMP_GPU, temp, sizeof(temp));
    const char *ages = strstr(b.p, "\"value_ages_seconds\":{");
    assert_non_null(ages);
    const char *end = strchr(ages, '}');
    assert_non_null(end);
    snprintf(want, sizeof(want), "\"%s\":0,", gen);
    const char *at = strstr(ages, want);
    assert_true(at && at < end);
    snprintf(want, sizeof(want), "\"%s\":2.5", ecc);
    at = strstr(ages, want);
    assert_true(at && at < end);
    snprintf(want, sizeof(want), "\"%s\":", ret);
    at = strstr(ages, want);
    assert_true(!at || at > end);
    snprintf(want, sizeof(want), "\"%s\":", temp);
    at = strstr(ages, want);
    assert_true(!at || at > end);
    gm_buf_free(&b);
    s->slow_ns = 0;
    g->m[GM_M_ECC_CORR_VOL] = keep_ecc;
    g->m[GM_M_PCIE_GEN_CUR] = keep_gen;
    g->m[GM_M_RETIRED_SBE] = keep_ret;
}

/* Issue 30: without a cadence (`status -i S --json`), the NVLink states and
 * error counters are still read only every 10 s and reused between: a
 * document that shows such a held value has "value_ages_seconds" too, on
 * every GPU it lists (also one whose values are all fresh); GPUs not
 * selected do not count. */
static void test_json_value_ages_loop(void **state)
{
    struct gm_snapshot *s = *state;
    assert_int_equal(s->slow_ns, 0);
    assert_true(s->ngpu >= 2);
    struct gm_value keep0 = s->gpus[0].m[GM_M_NVLINK_DOWN];
    struct gm_value keep1 = s->gpus[1].m[GM_M_NVLINK_DOWN];
    s->gpus[0].m[GM_M_NVLINK_DOWN] = gm_v_u64(1);
    s->gpus[0].m[GM_M_NVLINK_DOWN].age_ms = 3000;
    s->gpus[1].m[GM_M_NVLINK_DOWN] = gm_v_u64(0);
    char down[128], want[160];
    gm_metric_json_key(GM_M_NVLINK_DOWN, down, sizeof(down));
    struct gm_buf b = GM_BUF_INIT;
    gm_status_json(s, 0x3, 0, &b);
    const char *a0 = strstr(b.p, "\"value_ages_seconds\":{");
    assert_non_null(a0);
    snprintf(want, sizeof(want), "\"%s\":3", down);
    const char *at = strstr(a0, want);
    assert_true(at && at < strchr(a0, '}'));
    const char *a1 = strstr(a0 + 1, "\"value_ages_seconds\":{");
    assert_non_null(a1); /* GPU 1's, all read in this sample */
    snprintf(want, sizeof(want), "\"%s\":0", down);
    at = strstr(a1, want);
    assert_true(at && at < strchr(a1, '}'));
    gm_buf_reset(&b);
    gm_status_json(s, 0x2, 0, &b); /* only GPU 1: nothing held */
    assert_null(strstr(b.p, "value_ages_seconds"));
    gm_buf_free(&b);
    s->gpus[0].m[GM_M_NVLINK_DOWN] = keep0;
    s->gpus[1].m[GM_M_NVLINK_DOWN] = keep1;
}

/* --nvlink: each link with its values or the reason of each missing one;
 * an empty list that says why; nothing of it without the flag. */
static void test_json_nvlinks(void **state)
{
    struct gm_snapshot *s = *state;
    struct gm_gpu *g = &s->gpus[0];
    g->nnvlink = 2;
    g->nvlink = calloc(2, sizeof(g->nvlink[0])); /* the snapshot frees it */
    assert_non_null(g->nvlink);
    g->nvlink[0].link = 0;
    g->nvlink[0].up = gm_v_u64(1);
    g->nvlink[0].version = gm_v_u64(4);
    g->nvlink[0].remote = gm_v_u64(0);
    snprintf(g->nvlink[0].remote_pci, sizeof(g->nvlink[0].remote_pci), "00000000:E0:00.0");
    g->nvlink[0].tx = gm_v_u64(2048);
    g->nvlink[0].rx = gm_v_u64(1024);
    for (int e = 0; e < 4; e++)
        g->nvlink[0].err[e] = gm_v_u64((uint64_t)e);
    /* link 1: its state failed, so nothing of it is known */
    g->nvlink[1].link = 1;
    struct gm_value fail = gm_v_status(GM_VS_ERROR, 999);
    g->nvlink[1].up = g->nvlink[1].version = g->nvlink[1].remote = fail;
    g->nvlink[1].tx = g->nvlink[1].rx = fail;
    for (int e = 0; e < 4; e++)
        g->nvlink[1].err[e] = fail;
    g->nvlink_list = gm_v_status(GM_VS_ERROR, 999);
    s->gpus[3].nvlink_list = gm_v_status(GM_VS_UNSUPPORTED, 3);

    struct gm_buf b = GM_BUF_INIT;
    gm_status_json_opt(s, 0x9, 0, GM_STATUS_JSON_NVLINK, &b);
    assert_non_null(strstr(b.p,
                           "\"nvlinks\":[{\"link\":0,\"state\":\"up\",\"remote_pci_bus_id\":"
                           "\"00000000:E0:00.0\",\"version\":4,\"tx_bytes\":2048,\"rx_bytes\":"
                           "1024,\"replay_errors\":0,\"recovery_errors\":1,\"crc_flit_errors\":"
                           "2,\"crc_data_errors\":3,\"unavailable\":{}},{\"link\":1,\"state\":"
                           "null,\"remote_pci_bus_id\":null,\"version\":null,"));
    assert_non_null(strstr(b.p, "\"unavailable\":{\"state\":\"error\",\"remote_pci_bus_id\":"
                                "\"error\",\"version\":\"error\",\"tx_bytes\":\"error\","));
    assert_non_null(strstr(b.p, "\"nvlinks\":\"error\""));         /* GPU 0's list */
    assert_non_null(strstr(b.p, "\"nvlinks\":[],\"processes\""));  /* GPU 3: none */
    assert_non_null(strstr(b.p, "\"nvlinks\":\"not_supported\"")); /* ... and why */
    gm_buf_reset(&b);
    gm_status_json(s, 0x9, 0, &b);
    assert_null(strstr(b.p, "nvlinks"));
    gm_buf_free(&b);
    /* a copy has its own links */
    struct gm_snapshot *c = gm_snapshot_copy(s);
    assert_ptr_not_equal(c->gpus[0].nvlink, g->nvlink);
    assert_string_equal(c->gpus[0].nvlink[0].remote_pci, "00000000:E0:00.0");
    gm_snapshot_free(c);
    free(g->nvlink);
    g->nvlink = NULL;
    g->nnvlink = 0;
    g->nvlink_list = s->gpus[3].nvlink_list = gm_v_status(GM_VS_NA, GM_CODE_NOT_COLLECTED);
}

/* ------------------------------------------------------------------------ */
/* Throttle label                                                            */

static void test_throttle_label(void **state)
{
    (void)state;
    static const struct {
        uint64_t reasons;
        const char *label; /* NULL: none */
    } rows[] = {
        {0x0, NULL},
        {0x1, NULL}, /* gpu_idle */
        {0x2, "app clocks"},
        {0x4, "power cap"},
        {0x8, "hw slowdown"},
        {0x10, "sync boost"},
        {0x20, "thermal"},
        {0x40, "thermal"},
        {0x80, "power brake"},
        {0x100, NULL}, /* display clock setting */
        {0x200, NULL}, /* unknown */
        /* several at once: the strongest explanation wins */
        {0x4 | 0x40, "thermal"},
        {0x8 | 0x40, "thermal"},
        {0x4 | 0x80, "power brake"},
        {0x8 | 0x80, "power brake"},
        {0x4 | 0x8, "power cap"},
        {0x1 | 0x4, "power cap"},
        {0x2 | 0x10, "sync boost"},
        {0x1FF, "thermal"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const char *got = gm_status_throttle_label(rows[i].reasons);
        if (!rows[i].label) {
            if (got)
                fail_msg("0x%llx: \"%s\", want none", (unsigned long long)rows[i].reasons, got);
        } else if (!got || strcmp(got, rows[i].label) != 0) {
            fail_msg("0x%llx: \"%s\", want \"%s\"", (unsigned long long)rows[i].reasons,
                     got ? got : "(none)", rows[i].label);
        }
    }
}

/* The flags: only from values NVML reported; a PCIe link below its maximum
 * only under load (an idle GPU lowers its link to save power). */
static void test_flags(void **state)
{
    (void)state;
    const struct gm_value na = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    static const struct {
        int mode;                                 /* compute mode, -1 = not supported */
        int gen, gen_max, width, width_max, util; /* -1 = not supported */
        const char *want[2];
    } rows[] = {
        {0, 4, 4, 16, 16, 95, {NULL, NULL}},
        {3, 4, 4, 16, 16, 95, {"exclusive-process", NULL}},
        {1, 4, 4, 16, 16, 95, {"exclusive-thread", NULL}},
        {2, 4, 4, 16, 16, 95, {NULL, NULL}}, /* prohibited: not in this list */
        {-1, 4, 4, 16, 16, 95, {NULL, NULL}},
        {0, 4, 4, 8, 16, 95, {"pcie gen4 x8 of gen4 x16", NULL}},
        {0, 3, 4, 16, 16, 50, {"pcie gen3 x16 of gen4 x16", NULL}},
        {0, 3, 4, 16, 16, 49, {NULL, NULL}}, /* not under load */
        {0, 1, 4, 16, 16, 0, {NULL, NULL}},  /* idle power saving */
        {0, 1, 4, 16, 16, -1, {NULL, NULL}}, /* load unknown: no guess */
        {0, -1, 4, 8, 16, 95, {NULL, NULL}}, /* current gen unknown: no guess */
        {0, 4, -1, 8, 16, 95, {NULL, NULL}},
        {0, 4, 4, 8, -1, 95, {NULL, NULL}},
        {3, 4, 4, 8, 16, 95, {"exclusive-process", "pcie gen4 x8 of gen4 x16"}},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_gpu g;
        memset(&g, 0, sizeof(g));
        for (int id = 0; id < GM_M__GPU_END; id++)
            g.m[id] = na;
#define SETV(id, x) g.m[id] = (x) < 0 ? na : gm_v_u64((uint64_t)(x))
        SETV(GM_M_COMPUTE_MODE, rows[i].mode);
        SETV(GM_M_PCIE_GEN_CUR, rows[i].gen);
        SETV(GM_M_PCIE_GEN_MAX, rows[i].gen_max);
        SETV(GM_M_PCIE_WIDTH_CUR, rows[i].width);
        SETV(GM_M_PCIE_WIDTH_MAX, rows[i].width_max);
        SETV(GM_M_UTIL_GPU, rows[i].util);
#undef SETV
        char labels[4][GM_STATUS_FLAG_MAX];
        int n = gm_status_flags(&g, labels, 4);
        int want = (rows[i].want[0] != NULL) + (rows[i].want[1] != NULL);
        if (n != want)
            fail_msg("row %zu: %d labels, want %d", i, n, want);
        for (int k = 0; k < n; k++)
            if (strcmp(labels[k], rows[i].want[k]) != 0)
                fail_msg("row %zu: label %d \"%s\", want \"%s\"", i, k, labels[k], rows[i].want[k]);
        /* max bounds the count */
        if (want && gm_status_flags(&g, labels, 0) != 0)
            fail_msg("row %zu: labels written with max 0", i);
    }
}

/* Memory used with no process listed: only when NVML answered the lists. */
static void test_flags_orphan_memory(void **state)
{
    (void)state;
    static const struct {
        int listed, nproc;
        uint64_t used; /* UINT64_MAX: not reported */
        const char *want;
    } rows[] = {
        {1, 0, UINT64_C(12) << 30, "12.0 GiB used, no process"},
        {1, 0, UINT64_C(1) << 30, "1.0 GiB used, no process"},
        {1, 0, (UINT64_C(1) << 30) - 1, NULL}, /* under 1 GiB: driver housekeeping */
        {1, 1, UINT64_C(12) << 30, NULL},      /* a process is listed */
        {0, 0, UINT64_C(12) << 30, NULL},      /* the lists were not answered */
        {1, 0, UINT64_MAX, NULL},              /* memory not reported */
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_gpu g;
        memset(&g, 0, sizeof(g));
        for (int id = 0; id < GM_M__GPU_END; id++)
            g.m[id] = gm_v_status(GM_VS_NA, 0);
        g.procs_listed = (uint8_t)rows[i].listed;
        g.nproc = (uint32_t)rows[i].nproc;
        if (rows[i].used != UINT64_MAX)
            g.m[GM_M_MEM_USED] = gm_v_u64(rows[i].used);
        char labels[4][GM_STATUS_FLAG_MAX];
        int n = gm_status_flags(&g, labels, 4);
        if (n != (rows[i].want != NULL) || (n && strcmp(labels[0], rows[i].want) != 0))
            fail_msg("row %zu: %d labels (\"%s\"), want %s", i, n, n ? labels[0] : "",
                     rows[i].want ? rows[i].want : "none");
    }
}

/* The marks in the text line: after the throttle marker, before the processes. */
static void test_text_flags(void **state)
{
    struct gm_snapshot *s = gm_snapshot_copy(*state);
    struct gm_gpu *g = &s->gpus[0];
    g->m[GM_M_COMPUTE_MODE] = gm_v_u64(3);
    g->m[GM_M_PCIE_GEN_CUR] = gm_v_u64(5);
    g->m[GM_M_PCIE_GEN_MAX] = gm_v_u64(5);
    g->m[GM_M_PCIE_WIDTH_CUR] = gm_v_u64(8);
    g->m[GM_M_PCIE_WIDTH_MAX] = gm_v_u64(16);
    struct gm_status_opts o = {.mask = 1, .show_procs = 0};
    char *t = text_of(s, &o);
    assert_non_null(
        strstr(t, " W [thermal] [exclusive-process] [pcie gen5 x8 of gen5 x16] MIG x1 |\n"));
    free(t);
    gm_snapshot_free(s);
}

/* ------------------------------------------------------------------------ */
/* Temperature colour and fitting a width                                    */

/* The colour written just before GPU 0's temperature: by the distance to
 * its slowdown threshold (none below 15 degrees of it, yellow within 15,
 * bold red within 5), or 75/85 degrees without a threshold; a cool GPU is
 * not red (every temperature was red, 63 C read like 89 C). */
static void test_text_temp_colour(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        unsigned temp;
        int slowdown;     /* -1: not reported */
        const char *want; /* the bytes before " NNC" ("" : the separator itself) */
    } rows[] = {
        {63, 89, "| "},
        {73, 89, "| "},
        {74, 89, "\033[33m"},
        {83, 89, "\033[33m"},
        {84, 89, "\033[1m\033[31m"},
        {89, 89, "\033[1m\033[31m"},
        {95, 89, "\033[1m\033[31m"},
        {40, 50, "\033[33m"},
        {70, -1, "| "},
        {75, -1, "\033[33m"},
        {85, -1, "\033[1m\033[31m"},
    };
    struct gm_gpu saved = s->gpus[0];
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        s->gpus[0].m[GM_M_TEMP_GPU] = gm_v_u64(rows[i].temp);
        s->gpus[0].m[GM_M_TEMP_SLOWDOWN] = rows[i].slowdown < 0
                                               ? gm_v_status(GM_VS_UNSUPPORTED, 0)
                                               : gm_v_u64((uint64_t)rows[i].slowdown);
        struct gm_status_opts o = {.mask = 0x1, .color = 1};
        char *got = text_of(s, &o);
        char cell[16];
        snprintf(cell, sizeof cell, "%3uC", rows[i].temp);
        const char *at = strstr(got, cell);
        assert_non_null(at);
        size_t wl = strlen(rows[i].want);
        if ((size_t)(at - got) < wl || memcmp(at - wl, rows[i].want, wl) != 0)
            fail_msg("%u C, slowdown %d: want %s before the temperature in\n%s", rows[i].temp,
                     rows[i].slowdown, rows[i].want[0] == '\033' ? "that colour" : "no colour",
                     got);
        free(got);
    }
    s->gpus[0] = saved;
}

/* got without colour sequences. */
static char *plain_of(const char *got)
{
    struct gm_buf b = GM_BUF_INIT;
    for (const char *c = got; *c;) {
        if (*c == '\033') {
            c = strchr(c, 'm');
            assert_non_null(c);
            c++;
        } else {
            gm_buf_putc(&b, *c++);
        }
    }
    char *r = strdup(b.p ? b.p : "");
    gm_buf_free(&b);
    return r;
}

/* With a width, no line is wider (colour or not, UTF-8 or not), and each
 * mark and process is whole on one line: the terminal never splits one. */
static void test_text_width_fits(void **state)
{
    struct gm_snapshot *s = *state;
    static const char *const whole[] = {"[thermal]",
                                        "MIG x1",
                                        "alice:python3/1234(2566M)[pod:2f1e3c4d]",
                                        "root:Xorg/2345(25M,zombie)",
                                        "?:ffmpeg/3456(?M,process gone)",
                                        "?:?/4567(0M)",
                                        "inaccessible",
                                        "permissions)",
                                        "[3]"};
    static const unsigned widths[] = {48, 55, 60, 72, 80, 100, 132};
    for (size_t w = 0; w < N_ELEM(widths); w++) {
        for (int v = 0; v < 4; v++) {
            struct gm_status_opts o = {
                .mask = 0xF, .show_procs = 1, .color = v & 1, .utf8 = v >> 1, .width = widths[w]};
            char *got = text_of(s, &o);
            char *plain = plain_of(got);
            char *save = NULL;
            char *copy = strdup(plain);
            for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (gm_text_width(line) > widths[w])
                    fail_msg("width %u (colour %d, utf8 %d): %zu columns:\n%s\n--- all:\n%s",
                             widths[w], v & 1, v >> 1, gm_text_width(line), line, plain);
            free(copy);
            for (size_t k = 0; k < N_ELEM(whole); k++)
                if (!strstr(plain, whole[k]))
                    fail_msg("width %u: %s is not whole on a line:\n%s", widths[w], whole[k],
                             plain);
            free(plain);
            free(got);
        }
    }
}

/* What is left out or shortened, step by step, on GPU 0 and the lost GPU
 * 1; without a width nothing changes (test_text). */
static void test_text_width_forms(void **state)
{
    struct gm_snapshot *s = *state;
    static const struct {
        unsigned width;
        uint64_t mask;
        const char *want;
    } rows[] = {
        {220, 0x1, HOST_LINE GPU0_HEAD GPU0_PROCS "\n"},
        {100, 0x1,
         HOST_LINE "[0] NVIDIA H100 80GB HBM3 |  83C,  98 % |   5213 /  81559 MiB |  280 /  700 W "
                   "[thermal] MIG x1 |\n"
                   "    alice:python3/1234(2566M)[pod:2f1e3c4d] root:Xorg/2345(25M,zombie)\n"
                   "    ?:ffmpeg/3456(?M,process gone) ?:?/4567(0M)\n"},
        {80, 0x1,
         HOST_LINE "[0] H100 80GB HBM3 |  83C  98% |   5.1/79.6G |  280/700W [thermal] MIG x1 |\n"
                   "    alice:python3/1234(2566M)[pod:2f1e3c4d] root:Xorg/2345(25M,zombie)\n"
                   "    ?:ffmpeg/3456(?M,process gone) ?:?/4567(0M)\n"},
        {60, 0x3,
         "node1  2026-07-14 08:12:38 +00:00  driver 590.48.01\n"
         "[0] H100 80GB H~ |  83C  98% |   5.1/79.6G |  280/700W\n"
         "    [thermal] MIG x1 |\n"
         "    alice:python3/1234(2566M)[pod:2f1e3c4d]\n"
         "    root:Xorg/2345(25M,zombie)\n"
         "    ?:ffmpeg/3456(?M,process gone) ?:?/4567(0M)\n"
         "[1] H100 80GB H~ | GPU is lost: it fell off the bus or\n"
         "    became inaccessible (check dmesg for Xid 79; a reset or\n"
         "    reboot is needed)\n"},
        {48, 0x1,
         "node1  2026-07-14 08:12:38 +00:00\n"
         "[0] |  83C  98% |   5.1/79.6G |  280/700W\n"
         "    [thermal] MIG x1 |\n"
         "    alice:python3/1234(2566M)[pod:2f1e3c4d]\n"
         "    root:Xorg/2345(25M,zombie)\n"
         "    ?:ffmpeg/3456(?M,process gone) ?:?/4567(0M)\n"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_status_opts o = {.mask = rows[i].mask, .show_procs = 1, .width = rows[i].width};
        char *got = text_of(s, &o);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("width %u\n--- got:\n%s--- want:\n%s", rows[i].width, got, rows[i].want);
        free(got);
    }
    /* a host name too long for the line is cut, its last column an ellipsis */
    char saved[sizeof s->hostname];
    memcpy(saved, s->hostname, sizeof saved);
    snprintf(s->hostname, sizeof s->hostname, "%s",
             "node-with-a-very-long-name.cluster.example.org");
    struct gm_status_opts o = {.mask = 0, .width = 50};
    char *got = text_of(s, &o);
    assert_string_equal(got, "node-with-a-very-long~  2026-07-14 08:12:38 +00:00\n");
    free(got);
    memcpy(s->hostname, saved, sizeof saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_text_gpu_error),
        cmocka_unit_test(test_text_procs_not_listed),
        cmocka_unit_test(test_json_procs_not_listed),
        cmocka_unit_test(test_text_host_line),
        cmocka_unit_test(test_text_throttle_marker),
        cmocka_unit_test(test_text_color_and_utf8),
        cmocka_unit_test(test_text_outside),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_checker_fails),
        cmocka_unit_test(test_json_compact),
        cmocka_unit_test(test_json_value_ages),
        cmocka_unit_test(test_json_value_ages_loop),
        cmocka_unit_test(test_json_no_command),
        cmocka_unit_test(test_json_nvlinks),
        cmocka_unit_test(test_throttle_label),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_flags_orphan_memory),
        cmocka_unit_test(test_text_flags),
        cmocka_unit_test(test_text_temp_colour),
        cmocka_unit_test(test_text_width_fits),
        cmocka_unit_test(test_text_width_forms),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

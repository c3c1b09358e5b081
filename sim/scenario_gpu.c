/* scenario_gpu.c -- builds each simulated GPU from [gpu] and [gpu.N].
 *
 * A GPU starts as its model preset (presets.c) with identity derived from the
 * scenario seed and its index (UUID, serial, PCI bus), then the [gpu]
 * defaults are applied, then its own [gpu.N] keys; a key in [gpu.N] replaces
 * the same key from [gpu].  Workload parameters left unset get defaults that
 * depend on the workload type and on the (possibly overridden) limits, so
 * they are resolved last.  Validation errors point at the line of the key
 * that caused them, or at the section header when a required key is missing.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario_int.h"

#define MIB 1048576.0
#define GIB 1073741824.0

/* Keys whose defaults depend on whether they were given. */
struct gpu_aux {
    bool power_limit_set, ecc_pending_set, display_mode_set, cooling_set;
    double demand_pct; /* NAN unless power_demand was a percentage */
};

typedef int (*gs_special_fn)(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                             const struct gs_ini_entry *e, const char *v);

enum gk {
    GK_STR,      /* char[size] */
    GK_WATTS,    /* double W */
    GK_CLOCK,    /* unsigned MHz */
    GK_TEMP,     /* unsigned degC threshold, "na" = 0 (not supported) */
    GK_SIZE_U64, /* unsigned long long bytes */
    GK_SIZE_D,   /* double bytes */
    GK_PCT,      /* double 0..100 */
    GK_SEC,      /* double seconds >= 0 */
    GK_BOOL,     /* bool */
    GK_UINT,     /* unsigned <= max */
    GK_RATE,     /* double bytes/s */
    GK_CELSIUS,  /* double degC */
    GK_FRACTION, /* double 0..1, "35%" allowed */
    GK_NONNEG,   /* double >= 0 */
    GK_SPECIAL,
};

struct gkey {
    const char *key;
    enum gk kind;
    size_t off;
    unsigned long long max; /* GK_STR: buffer size; GK_UINT: largest value */
    gs_special_fn fn;
};

#define OFF(f) offsetof(struct gs_gpu, f)

/* ------------------------------------------------------------ specials */

static int sp_noop(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                   const struct gs_ini_entry *e, const char *v)
{
    (void)c, (void)g, (void)aux, (void)e, (void)v;
    return 0; /* model and workload are read before the other keys */
}

static int sp_uuid(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                   const struct gs_ini_entry *e, const char *v)
{
    (void)aux;
    if (strncmp(v, "GPU-", 4) != 0 || strlen(v) < 8)
        return gs_bad_value(c, e, v, "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
    return gs_set_string(c, e, v, g->uuid, sizeof(g->uuid));
}

static int sp_pci_bus_id(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                         const struct gs_ini_entry *e, const char *v)
{
    (void)aux;
    if (gs_parse_bus_id(v, &g->pci_domain, &g->pci_bus, &g->pci_device) != 0)
        return gs_bad_value(c, e, v, "DOMAIN:BUS:DEVICE.0 in hex, such as 00000000:18:00.0");
    return 0;
}

static int sp_pci_device_id(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                            const struct gs_ini_entry *e, const char *v)
{
    unsigned long long id;
    (void)aux;
    if (gs_parse_uint(v, 0xFFFFFFFFULL, &id) != 0)
        return gs_bad_value(c, e, v, "a PCI device id such as 0x2330 (or 0x233010DE)");
    g->pci_device_id = id <= 0xFFFF ? (unsigned)(id << 16 | 0x10DE) : (unsigned)id;
    return 0;
}

struct named {
    const char *name;
    unsigned value;
};

static int lookup_named(const struct named *t, const char *v, unsigned *out)
{
    for (size_t i = 0; t[i].name; i++) {
        if (strcasecmp(t[i].name, v) == 0) {
            *out = t[i].value;
            return 0;
        }
    }
    return -1;
}

static int sp_brand(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                    const struct gs_ini_entry *e, const char *v)
{
    static const struct named t[] = {
        {"unknown", GS_BRAND_UNKNOWN},       {"quadro", GS_BRAND_QUADRO},
        {"tesla", GS_BRAND_TESLA},           {"nvs", GS_BRAND_NVS},
        {"geforce", GS_BRAND_GEFORCE},       {"titan", GS_BRAND_TITAN},
        {"quadro_rtx", GS_BRAND_QUADRO_RTX}, {"nvidia_rtx", GS_BRAND_NVIDIA_RTX},
        {"nvidia", GS_BRAND_NVIDIA},         {NULL, 0},
    };
    (void)aux;
    if (lookup_named(t, v, &g->brand) != 0)
        return gs_bad_value(c, e, v,
                            "unknown, quadro, tesla, nvs, geforce, titan, quadro_rtx, nvidia_rtx "
                            "or nvidia");
    return 0;
}

static int sp_arch(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                   const struct gs_ini_entry *e, const char *v)
{
    static const struct named t[] = {
        {"kepler", GS_ARCH_KEPLER},
        {"maxwell", GS_ARCH_MAXWELL},
        {"pascal", GS_ARCH_PASCAL},
        {"volta", GS_ARCH_VOLTA},
        {"turing", GS_ARCH_TURING},
        {"ampere", GS_ARCH_AMPERE},
        {"ada", GS_ARCH_ADA},
        {"hopper", GS_ARCH_HOPPER},
        {"blackwell", GS_ARCH_BLACKWELL},
        {NULL, 0},
    };
    (void)aux;
    if (lookup_named(t, v, &g->arch) != 0)
        return gs_bad_value(c, e, v,
                            "kepler, maxwell, pascal, volta, turing, ampere, ada, hopper or "
                            "blackwell");
    return 0;
}

static int sp_cc(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                 const struct gs_ini_entry *e, const char *v)
{
    unsigned major, minor;
    (void)aux;
    if (gs_parse_major_minor(v, false, &major, &minor) != 0 || major < 1 || major > 99 || minor > 9)
        return gs_bad_value(c, e, v, "MAJOR.MINOR such as 9.0");
    g->cc_major = (int)major;
    g->cc_minor = (int)minor;
    return 0;
}

static int sp_compute_mode(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                           const struct gs_ini_entry *e, const char *v)
{
    static const struct named t[] = {
        {"default", NVML_COMPUTEMODE_DEFAULT},
        {"exclusive_thread", NVML_COMPUTEMODE_EXCLUSIVE_THREAD},
        {"prohibited", NVML_COMPUTEMODE_PROHIBITED},
        {"exclusive_process", NVML_COMPUTEMODE_EXCLUSIVE_PROCESS},
        {NULL, 0},
    };
    (void)aux;
    if (lookup_named(t, v, &g->compute_mode) != 0)
        return gs_bad_value(c, e, v, "default, exclusive_thread, prohibited or exclusive_process");
    return 0;
}

static int sp_power_demand(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                           const struct gs_ini_entry *e, const char *v)
{
    double x;
    size_t n = strlen(v);
    if (n > 1 && v[n - 1] == '%') {
        char num[64];
        snprintf(num, sizeof(num), "%.*s", (int)(n - 1), v);
        if (gs_parse_double(num, &x) != 0 || x <= 0 || x > 1000)
            return gs_bad_value(c, e, v, "watts such as 820W, or a percentage of power_limit");
        aux->demand_pct = x;
        g->wl.power_demand = NAN;
        return 0;
    }
    if (gs_parse_watts(v, &x) != 0 || x <= 0)
        return gs_bad_value(c, e, v, "watts such as 820W, or a percentage of power_limit");
    aux->demand_pct = NAN;
    g->wl.power_demand = x;
    return 0;
}

static int sp_mem_temp_offset(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                              const struct gs_ini_entry *e, const char *v)
{
    double x;
    (void)aux;
    if (strcasecmp(v, "na") == 0) {
        g->mem_temp = false;
        return 0;
    }
    if (gs_parse_celsius(v, &x) != 0 || x < -30 || x > 50)
        return gs_bad_value(c, e, v, "degrees above the GPU temperature such as 6, or na");
    g->mem_temp = true;
    g->mem_temp_offset = x;
    return 0;
}

static int sp_pcie_gen(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                       const struct gs_ini_entry *e, const char *v)
{
    unsigned long long x;
    (void)aux;
    if (gs_parse_uint(v, 6, &x) != 0 || x == 0)
        return gs_bad_value(c, e, v, "a PCIe generation from 1 to 6");
    if (strcmp(e->key, "pcie_gen") == 0)
        g->pcie_gen = (unsigned)x;
    else
        g->pcie_gen_load = (unsigned)x;
    return 0;
}

static int sp_pcie_width(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                         const struct gs_ini_entry *e, const char *v)
{
    unsigned long long x;
    (void)aux;
    if (gs_parse_uint(v, 32, &x) != 0 ||
        !(x == 1 || x == 2 || x == 4 || x == 8 || x == 12 || x == 16 || x == 32))
        return gs_bad_value(c, e, v, "a link width of 1, 2, 4, 8, 12, 16 or 32 lanes");
    if (strcmp(e->key, "pcie_width") == 0)
        g->pcie_width = (unsigned)x;
    else
        g->pcie_width_cur = (unsigned)x;
    return 0;
}

static int sp_flag(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                   const struct gs_ini_entry *e, const char *v)
{
    bool b;
    if (gs_parse_bool(v, &b) != 0)
        return gs_bad_value(c, e, v, "on or off");
    if (strcmp(e->key, "ecc_pending") == 0) {
        g->ecc_pending = b;
        aux->ecc_pending_set = true;
    } else {
        g->display_mode = b;
        aux->display_mode_set = true;
    }
    return 0;
}

static int sp_cooling(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                      const struct gs_ini_entry *e, const char *v)
{
    double x;
    if (gs_parse_double(v, &x) != 0 || x < 0.05 || x > 10)
        return gs_bad_value(c, e, v, "a factor from 0.05 to 10 (1 = the board's design)");
    g->cooling = x;
    aux->cooling_set = true;
    return 0;
}

static int sp_power_limit(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                          const struct gs_ini_entry *e, const char *v)
{
    if (gs_parse_watts(v, &g->power_limit) != 0 || g->power_limit <= 0)
        return gs_bad_value(c, e, v, "watts such as 700W");
    aux->power_limit_set = true;
    return 0;
}

/* A function that takes a device handle (only those can be unsupported per GPU).
 * nvmlGpmMetricsGet counts as one: it answers for the GPU its samples were
 * taken on. */
static bool per_device(const char *fn)
{
    if (strncmp(fn, "nvmlGpm", 7) == 0)
        return strcmp(fn, "nvmlGpmSampleAlloc") != 0 && strcmp(fn, "nvmlGpmSampleFree") != 0;
    return strncmp(fn, "nvmlDevice", 10) == 0 && strncmp(fn, "nvmlDeviceGetCount", 18) != 0 &&
           strncmp(fn, "nvmlDeviceGetHandleBy", 21) != 0;
}

static int sp_unsupported(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                          const struct gs_ini_entry *e, const char *v)
{
    char item[96];
    const char *cur = v;
    (void)aux;

    /* [gpu.N] replaces the list from [gpu]; it does not add to it. */
    memset(g->unsupported, 0, sizeof(g->unsupported));
    g->has_unsupported = false;
    while (gs_next_item(&cur, item, sizeof(item))) {
        if (!*item)
            continue;
        int idx = gs_name_index(item);
        if (idx < 0)
            return gs_fail(c, e->line,
                           "unsupported: unknown NVML function or field '%s' (see "
                           "docs/simulator.md for the exported names)",
                           item);
        if (gs_names[idx].kind == GS_NAME_FUNCTION && !per_device(item))
            return gs_fail(c, e->line,
                           "unsupported: '%s' does not take a device handle, so it cannot be "
                           "unsupported for one GPU",
                           item);
        g->unsupported[idx] = 1;
        g->has_unsupported = true;
    }
    return 0;
}

/* nvlink_down = 3,7: links that are down (of a GPU that has links at all:
 * sim/topo.c); "none" or empty: every link up. */
static int sp_nvlink_down(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                          const struct gs_ini_entry *e, const char *v)
{
    char item[32];
    const char *cur = v;
    (void)aux;

    g->nvlink_down = 0; /* [gpu.N] replaces the list from [gpu] */
    if (strcasecmp(v, "none") == 0)
        return 0;
    while (gs_next_item(&cur, item, sizeof(item))) {
        if (!*item)
            continue;
        char *end = NULL;
        errno = 0;
        unsigned long l = strtoul(item, &end, 10);
        if (errno || end == item || *end || item[0] == '-' || l >= NVML_NVLINK_MAX_LINKS)
            return gs_fail(c, e->line,
                           "nvlink_down: bad link '%s' (expected link numbers 0-%d such as 3,7, "
                           "or none)",
                           item, NVML_NVLINK_MAX_LINKS - 1);
        g->nvlink_down |= UINT32_C(1) << l;
    }
    return 0;
}

static int sp_mig(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                  const struct gs_ini_entry *e, const char *v)
{
    char item[32];
    const char *cur = v;
    unsigned slices = 0;
    bool used_gi[16] = {false};
    (void)aux;

    g->nmig = 0;
    if (strcasecmp(v, "off") == 0 || strcasecmp(v, "none") == 0 || !*v)
        return 0;
    while (gs_next_item(&cur, item, sizeof(item))) {
        unsigned s, gb;
        /* "+me": the 1g profile with the media engines (1g.10gb+me). */
        size_t len = strlen(item);
        bool me = len > 3 && strcasecmp(item + len - 3, "+me") == 0;
        if (me)
            item[len - 3] = '\0';
        if (gs_parse_mig_profile(item, &s, &gb) != 0 || (me && s != 1))
            return gs_fail(c, e->line,
                           "mig: bad profile '%s%s' (expected profiles such as "
                           "3g.40gb,1g.10gb,1g.10gb+me)",
                           item, me ? "+me" : "");
        if (g->nmig == GS_MAX_MIG || slices + s > 7)
            return gs_fail(c, e->line, "mig: profiles use more than the GPU's 7 slices");
        /* GPU instance ids as the driver places them on A100/H100. */
        static const unsigned cand[8][8] = {
            [1] = {7, 8, 9, 10, 11, 12, 13}, [2] = {3, 4, 5}, [3] = {1, 2}, [4] = {1}, [7] = {0},
        };
        unsigned gi = 99;
        for (unsigned k = 0; k < 8; k++) {
            unsigned id = cand[s][k];
            if ((id != 0 || (s == 7 && k == 0)) && !used_gi[id]) {
                gi = id;
                break;
            }
        }
        if (gi == 99)
            return gs_fail(c, e->line, "mig: no GPU instance placement left for '%s'", item);
        used_gi[gi] = true;
        struct gs_mig_dev *m = &g->mig[g->nmig++];
        memset(m, 0, sizeof(*m));
        snprintf(m->profile, sizeof(m->profile), "%ug.%ugb%s", s, gb, me ? "+me" : "");
        m->slices = s;
        m->mem_total = 0; /* the board profile's, set by gs_mig_layout() */
        m->gi_id = gi;
        m->ci_id = 0;
        slices += s;
    }
    return 0;
}

static int sp_workload_check(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                             const struct gs_ini_entry *e, const char *v);

/* --------------------------------------------------------------- table */

static const struct gkey gpu_keys[] = {
    {"model", GK_SPECIAL, 0, 0, sp_noop},
    {"workload", GK_SPECIAL, 0, 0, sp_workload_check},
    {"name", GK_STR, OFF(name), sizeof(((struct gs_gpu *)0)->name), NULL},
    {"uuid", GK_SPECIAL, 0, 0, sp_uuid},
    {"serial", GK_STR, OFF(serial), sizeof(((struct gs_gpu *)0)->serial), NULL},
    {"pci_bus_id", GK_SPECIAL, 0, 0, sp_pci_bus_id},
    {"pci_device_id", GK_SPECIAL, 0, 0, sp_pci_device_id},
    {"pci_subsystem_id", GK_UINT, OFF(pci_subsystem_id), 0xFFFFFFFFULL, NULL},
    {"board_part_number", GK_STR, OFF(part_number), sizeof(((struct gs_gpu *)0)->part_number),
     NULL},
    {"vbios", GK_STR, OFF(vbios), sizeof(((struct gs_gpu *)0)->vbios), NULL},
    {"brand", GK_SPECIAL, 0, 0, sp_brand},
    {"architecture", GK_SPECIAL, 0, 0, sp_arch},
    {"compute_capability", GK_SPECIAL, 0, 0, sp_cc},
    {"minor_number", GK_UINT, OFF(minor), 255, NULL},
    {"memory_total", GK_SIZE_U64, OFF(mem_total), 0, NULL},
    {"memory_reserved", GK_SIZE_U64, OFF(mem_reserved), 0, NULL},
    {"bar1_total", GK_SIZE_U64, OFF(bar1_total), 0, NULL},
    {"power_limit", GK_SPECIAL, 0, 0, sp_power_limit},
    {"power_default_limit", GK_WATTS, OFF(power_default), 0, NULL},
    {"power_min_limit", GK_WATTS, OFF(power_min), 0, NULL},
    {"power_max_limit", GK_WATTS, OFF(power_max), 0, NULL},
    {"power_idle", GK_WATTS, OFF(power_idle), 0, NULL},
    {"power_demand", GK_SPECIAL, 0, 0, sp_power_demand},
    {"max_clock_graphics", GK_CLOCK, OFF(clock_max[NVML_CLOCK_GRAPHICS]), 0, NULL},
    {"max_clock_sm", GK_CLOCK, OFF(clock_max[NVML_CLOCK_SM]), 0, NULL},
    {"max_clock_mem", GK_CLOCK, OFF(clock_max[NVML_CLOCK_MEM]), 0, NULL},
    {"max_clock_video", GK_CLOCK, OFF(clock_max[NVML_CLOCK_VIDEO]), 0, NULL},
    {"idle_clock_graphics", GK_CLOCK, OFF(clock_idle[NVML_CLOCK_GRAPHICS]), 0, NULL},
    {"idle_clock_sm", GK_CLOCK, OFF(clock_idle[NVML_CLOCK_SM]), 0, NULL},
    {"idle_clock_mem", GK_CLOCK, OFF(clock_idle[NVML_CLOCK_MEM]), 0, NULL},
    {"idle_clock_video", GK_CLOCK, OFF(clock_idle[NVML_CLOCK_VIDEO]), 0, NULL},
    {"temp_shutdown", GK_TEMP, OFF(temp_shutdown), 0, NULL},
    {"temp_slowdown", GK_TEMP, OFF(temp_slowdown), 0, NULL},
    {"temp_gpu_max", GK_TEMP, OFF(temp_gpu_max), 0, NULL},
    {"temp_mem_max", GK_TEMP, OFF(temp_mem_max), 0, NULL},
    {"memory_temp_offset", GK_SPECIAL, 0, 0, sp_mem_temp_offset},
    {"ambient", GK_CELSIUS, OFF(ambient), 0, NULL},
    {"cooling", GK_SPECIAL, 0, 0, sp_cooling},
    {"thermal_tau", GK_SEC, OFF(tau), 0, NULL},
    {"temp_start", GK_CELSIUS, OFF(temp_start), 0, NULL},
    {"pcie_gen", GK_SPECIAL, 0, 0, sp_pcie_gen},
    {"pcie_width", GK_SPECIAL, 0, 0, sp_pcie_width},
    {"pcie_width_current", GK_SPECIAL, 0, 0, sp_pcie_width},
    {"pcie_gen_current", GK_SPECIAL, 0, 0, sp_pcie_gen},
    {"app_clock_graphics", GK_CLOCK, OFF(app_clock[NVML_CLOCK_GRAPHICS]), 0, NULL},
    {"app_clock_mem", GK_CLOCK, OFF(app_clock[NVML_CLOCK_MEM]), 0, NULL},
    {"pcie_rx", GK_RATE, OFF(wl.pcie_rx), 0, NULL},
    {"pcie_tx", GK_RATE, OFF(wl.pcie_tx), 0, NULL},
    {"pcie_replays_per_hour", GK_NONNEG, OFF(pcie_replays_per_hour), 0, NULL},
    {"fans", GK_UINT, OFF(fans), 8, NULL},
    {"persistence", GK_BOOL, OFF(persistence), 0, NULL},
    {"display_active", GK_BOOL, OFF(display_active), 0, NULL},
    {"display_mode", GK_SPECIAL, 0, 0, sp_flag},
    {"ecc", GK_BOOL, OFF(ecc), 0, NULL},
    {"ecc_pending", GK_SPECIAL, 0, 0, sp_flag},
    {"accounting", GK_BOOL, OFF(accounting), 0, NULL},
    {"compute_mode", GK_SPECIAL, 0, 0, sp_compute_mode},
    {"unsupported", GK_SPECIAL, 0, 0, sp_unsupported},
    {"nvlink_down", GK_SPECIAL, 0, 0, sp_nvlink_down},
    {"mig", GK_SPECIAL, 0, 0, sp_mig},
    {"util", GK_PCT, OFF(wl.util), 0, NULL},
    {"mem_util", GK_PCT, OFF(wl.mem_util), 0, NULL},
    {"enc_util", GK_PCT, OFF(wl.enc_util), 0, NULL},
    {"dec_util", GK_PCT, OFF(wl.dec_util), 0, NULL},
    {"memory_used", GK_SIZE_D, OFF(wl.memory_used), 0, NULL},
    {"heartbeat_period", GK_SEC, OFF(wl.hb_period), 0, NULL},
    {"heartbeat_duty", GK_FRACTION, OFF(wl.hb_duty), 0, NULL},
    {"heartbeat_jitter", GK_FRACTION, OFF(wl.hb_jitter), 0, NULL},
    {"ramp_from", GK_PCT, OFF(wl.ramp_from), 0, NULL},
    {"ramp_to", GK_PCT, OFF(wl.ramp_to), 0, NULL},
    {"ramp_start", GK_SEC, OFF(wl.ramp_start), 0, NULL},
    {"ramp_duration", GK_SEC, OFF(wl.ramp_duration), 0, NULL},
    {"leak_rate", GK_RATE, OFF(wl.leak_rate), 0, NULL},
    {"heartbeat_floor", GK_PCT, OFF(wl.hb_floor), 0, NULL},
    {"util_noise", GK_PCT, OFF(wl.util_noise), 0, NULL},
    {"sm_activity", GK_FRACTION, OFF(wl.sm_activity), 0, NULL},
    {"sm_occupancy", GK_FRACTION, OFF(wl.sm_occupancy), 0, NULL},
    {"tensor_activity", GK_FRACTION, OFF(wl.tensor_activity), 0, NULL},
    {"dram_activity", GK_FRACTION, OFF(wl.dram_activity), 0, NULL},
    {"fp64_activity", GK_FRACTION, OFF(wl.fp64_activity), 0, NULL},
    {"fp32_activity", GK_FRACTION, OFF(wl.fp32_activity), 0, NULL},
    {"fp16_activity", GK_FRACTION, OFF(wl.fp16_activity), 0, NULL},
    {"nvlink_rx", GK_RATE, OFF(wl.nvlink_rx), 0, NULL},
    {"nvlink_tx", GK_RATE, OFF(wl.nvlink_tx), 0, NULL},
};

#define NKEYS (sizeof(gpu_keys) / sizeof(gpu_keys[0]))

bool gs_gpu_key_known(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(gpu_keys[i].key, key) == 0)
            return true;
    return false;
}

static const char *const workload_names[] = {
    [GS_WL_IDLE] = "idle",           [GS_WL_STEADY] = "steady",
    [GS_WL_HEARTBEAT] = "heartbeat", [GS_WL_RAMP] = "ramp",
    [GS_WL_LEAK] = "leak",           [GS_WL_THERMAL] = "thermal",
    [GS_WL_POWERCAP] = "powercap",   [GS_WL_LOWINTENSITY] = "lowintensity",
    [GS_WL_MEMBOUND] = "membound",   [GS_WL_TRANSFER] = "transfer",
    [GS_WL_ENCODE] = "encode",       [GS_WL_DECODE] = "decode",
    [GS_WL_INFERENCE] = "inference",
};

#define WORKLOAD_LIST                                                                              \
    "idle, steady, heartbeat, ramp, leak, thermal, powercap, lowintensity, membound, transfer, "   \
    "encode, decode or inference"

static int parse_workload(const char *v, enum gs_workload_kind *k)
{
    for (size_t i = 0; i < sizeof(workload_names) / sizeof(workload_names[0]); i++) {
        if (strcasecmp(v, workload_names[i]) == 0) {
            *k = (enum gs_workload_kind)i;
            return 0;
        }
    }
    return -1;
}

static int sp_workload_check(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                             const struct gs_ini_entry *e, const char *v)
{
    enum gs_workload_kind k;
    (void)g, (void)aux;
    if (parse_workload(v, &k) != 0)
        return gs_bad_value(c, e, v, WORKLOAD_LIST);
    return 0;
}

static int apply_key(struct gs_pctx *c, struct gs_gpu *g, struct gpu_aux *aux,
                     const struct gs_ini_entry *e)
{
    char buf[1100];
    const struct gkey *k = NULL;

    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(gpu_keys[i].key, e->key) == 0)
            k = &gpu_keys[i];
    if (!k)
        return gs_fail(c, e->line,
                       "unknown key '%s' in [%s] (see docs/simulator.md for the "
                       "[gpu] keys)",
                       e->key, c->ini.sections[e->section].name);
    const char *v = gs_entry_value(c, e, buf, sizeof(buf));
    if (!v)
        return -1;
    void *p = (char *)g + k->off;
    double d;
    unsigned long long u;
    bool b;

    switch (k->kind) {
    case GK_STR:
        return gs_set_string(c, e, v, p, (size_t)k->max);
    case GK_WATTS:
        if (gs_parse_watts(v, &d) != 0)
            return gs_bad_value(c, e, v, "watts such as 700W");
        *(double *)p = d;
        return 0;
    case GK_CLOCK:
        if (gs_parse_clock(v, (unsigned *)p) != 0)
            return gs_bad_value(c, e, v, "a clock in MHz such as 1980 or 1980MHz");
        return 0;
    case GK_TEMP:
        if (strcasecmp(v, "na") == 0) {
            *(unsigned *)p = 0;
            return 0;
        }
        if (gs_parse_celsius(v, &d) != 0 || d < 1)
            return gs_bad_value(c, e, v, "degrees Celsius such as 89, or na");
        *(unsigned *)p = (unsigned)lround(d);
        return 0;
    case GK_SIZE_U64:
    case GK_SIZE_D:
        if (gs_parse_size(v, &d) != 0 || d > 1e15)
            return gs_bad_value(c, e, v, "a size such as 80GiB, 512MiB or 1.5GB");
        if (k->kind == GK_SIZE_U64)
            *(unsigned long long *)p = (unsigned long long)llround(d);
        else
            *(double *)p = d;
        return 0;
    case GK_PCT:
        if (gs_parse_percent(v, (double *)p) != 0)
            return gs_bad_value(c, e, v, "a percentage from 0 to 100");
        return 0;
    case GK_SEC:
        if (gs_parse_seconds(v, &d) != 0 || d < 0)
            return gs_bad_value(c, e, v, "a duration such as 0.5, 500ms, 60s or 5min");
        *(double *)p = d;
        return 0;
    case GK_BOOL:
        if (gs_parse_bool(v, &b) != 0)
            return gs_bad_value(c, e, v, "on or off");
        *(bool *)p = b;
        return 0;
    case GK_UINT:
        if (gs_parse_uint(v, k->max, &u) != 0)
            return gs_bad_value(c, e, v, "an unsigned integer");
        *(unsigned *)p = (unsigned)u;
        return 0;
    case GK_RATE:
        if (gs_parse_rate(v, &d) != 0)
            return gs_bad_value(c, e, v, "a rate such as 20MiB/min, 1.5GB/s or 2GiB/h");
        *(double *)p = d;
        return 0;
    case GK_CELSIUS:
        if (gs_parse_celsius(v, &d) != 0)
            return gs_bad_value(c, e, v, "degrees Celsius such as 25");
        *(double *)p = d;
        return 0;
    case GK_FRACTION: {
        size_t n = strlen(v);
        if (n > 1 && v[n - 1] == '%') {
            if (gs_parse_percent(v, &d) != 0)
                return gs_bad_value(c, e, v, "a fraction from 0 to 1, or a percentage");
            d /= 100.0;
        } else if (gs_parse_double(v, &d) != 0 || d < 0 || d > 1) {
            return gs_bad_value(c, e, v, "a fraction from 0 to 1, or a percentage");
        }
        *(double *)p = d;
        return 0;
    }
    case GK_NONNEG:
        if (gs_parse_double(v, &d) != 0 || d < 0)
            return gs_bad_value(c, e, v, "a number of at least 0");
        *(double *)p = d;
        return 0;
    case GK_SPECIAL:
        return k->fn(c, g, aux, e, v);
    }
    return 0;
}

/* ------------------------------------------------------------ building */

/* Entry for key in [gpu.i], else in [gpu]. */
static const struct gs_ini_entry *gpu_entry(const struct gs_pctx *c, unsigned i, const char *key)
{
    const struct gs_ini_entry *e = gs_find_entry(c, c->gpu_sec[i], key);
    return e ? e : gs_find_entry(c, c->defaults_sec, key);
}

/* The line to blame for a problem with key on gpu i. */
static int key_line(const struct gs_pctx *c, unsigned i, const char *key)
{
    const struct gs_ini_entry *e = key ? gpu_entry(c, i, key) : NULL;
    if (e)
        return e->line;
    if (c->gpu_sec[i] >= 0)
        return c->ini.sections[c->gpu_sec[i]].line;
    if (c->defaults_sec >= 0)
        return c->ini.sections[c->defaults_sec].line;
    return c->machine_gpus_line;
}

static void apply_preset(struct gs_scenario *s, struct gs_gpu *g, const struct gs_preset *p,
                         unsigned i)
{
    /* DGX H100 / HGX bus numbers for the first eight GPUs, then a plain series. */
    static const unsigned bus[8] = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};
    uint64_t h1 = gs_hash(s->seed, i, 1, 0), h2 = gs_hash(s->seed, i, 2, 0);

    g->preset = p;
    snprintf(g->name, sizeof(g->name), "%s", p->name);
    snprintf(g->uuid, sizeof(g->uuid), "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned)(h1 >> 32),
             (unsigned)(h1 >> 16) & 0xFFFF, (unsigned)h1 & 0xFFFF, (unsigned)(h2 >> 48),
             (unsigned long long)(h2 & 0xFFFFFFFFFFFFULL));
    /* GeForce boards report no serial number. */
    if (p->brand == GS_BRAND_GEFORCE)
        g->serial[0] = '\0';
    else
        snprintf(g->serial, sizeof(g->serial), "1654%09llu",
                 (unsigned long long)(gs_hash(s->seed, i, 3, 0) % 1000000000ULL));
    snprintf(g->part_number, sizeof(g->part_number), "%s", p->part_number ? p->part_number : "");
    snprintf(g->vbios, sizeof(g->vbios), "%s", p->vbios);
    g->pci_domain = 0;
    g->pci_bus = i < 8 ? bus[i] : (0x10 + 0x8 * i) & 0xFF;
    g->pci_device = 0;
    g->pci_device_id = p->pci_device_id << 16 | 0x10DE;
    g->pci_subsystem_id = p->pci_subsystem_id;
    g->minor = i;
    g->brand = p->brand;
    g->arch = p->arch;
    g->cc_major = p->cc_major;
    g->cc_minor = p->cc_minor;
    g->mem_total = (unsigned long long)p->mem_total_mib << 20;
    g->mem_reserved = (unsigned long long)p->mem_reserved_mib << 20;
    g->bar1_total = (unsigned long long)p->bar1_total_mib << 20;
    g->power_default = p->power_default;
    g->power_min = p->power_min;
    g->power_max = p->power_max;
    g->power_idle = p->power_idle;
    g->power_limit = p->power_default;
    memcpy(g->clock_max, p->clock_max, sizeof(g->clock_max));
    memcpy(g->clock_idle, p->clock_idle, sizeof(g->clock_idle));
    g->temp_shutdown = p->temp_shutdown;
    g->temp_slowdown = p->temp_slowdown;
    g->temp_gpu_max = p->temp_gpu_max;
    g->temp_mem_max = p->temp_mem_max;
    g->mem_temp = p->mem_temp_offset > -100;
    g->mem_temp_offset = g->mem_temp ? p->mem_temp_offset : 0;
    g->ambient = 25;
    g->cooling = 1;
    g->thermal_r = (p->temp_nominal - 25) / p->power_default;
    g->tau = 60;
    g->temp_start = NAN;
    g->pcie_gen = p->pcie_gen;
    g->pcie_width = p->pcie_width;
    g->pcie_width_cur = 0;
    g->fans = p->fans;
    g->ecc_capable = p->ecc;
    g->ecc = p->ecc;
    g->persistence = p->brand != GS_BRAND_GEFORCE;
    g->display_active = p->display;
    g->mig_capable = p->mig;
    g->compute_mode = NVML_COMPUTEMODE_DEFAULT;
}

static double link_bytes_per_s(const struct gs_gpu *g)
{
    static const double lane[7] = {0, 250e6, 500e6, 985e6, 1969e6, 3938e6, 7563e6};
    return lane[g->pcie_gen_load] * g->pcie_width_cur;
}

/* Default power_demand as a fraction of the power limit.  lowintensity and
 * membound draw about 35 % and 70 % of the limit at their ~97 %
 * utilisation; transfer's power load is its constant copy traffic (see
 * model.c), so its demand is what it draws, 40 %. */
static double demand_default(enum gs_workload_kind k)
{
    switch (k) {
    case GS_WL_POWERCAP:
        return 1.25;
    case GS_WL_LOWINTENSITY:
        return 0.35;
    case GS_WL_MEMBOUND:
        return 0.72;
    case GS_WL_TRANSFER:
        return 0.40;
    default:
        return 0.92;
    }
}

static void workload_defaults(struct gs_gpu *g, const struct gpu_aux *aux)
{
    struct gs_workload *w = &g->wl;
    double util_dflt = 95;

    switch (w->kind) {
    case GS_WL_IDLE:
        util_dflt = 0;
        break;
    case GS_WL_STEADY:
        util_dflt = 95;
        break;
    case GS_WL_HEARTBEAT:
        util_dflt = 97;
        break;
    case GS_WL_RAMP:
        util_dflt = 100;
        break;
    case GS_WL_LEAK:
        util_dflt = 30;
        break;
    case GS_WL_THERMAL:
    case GS_WL_POWERCAP:
        util_dflt = 98;
        break;
    case GS_WL_LOWINTENSITY:
    case GS_WL_MEMBOUND:
        util_dflt = 97;
        break;
    case GS_WL_TRANSFER:
        util_dflt = 35;
        break;
    case GS_WL_ENCODE:
    case GS_WL_DECODE:
    case GS_WL_INFERENCE:
        util_dflt = 12;
        break;
    }
    if (isnan(w->util) || w->kind == GS_WL_IDLE)
        w->util = util_dflt;
    if (isnan(w->ramp_from))
        w->ramp_from = 0;
    if (isnan(w->ramp_to))
        w->ramp_to = 100;
    if (isnan(w->ramp_start))
        w->ramp_start = 0;
    if (isnan(w->ramp_duration))
        w->ramp_duration = 300;
    if (w->kind == GS_WL_RAMP)
        w->util = fmax(w->ramp_from, w->ramp_to);
    if (isnan(w->mem_util))
        w->mem_util = w->kind == GS_WL_LOWINTENSITY ? 10
                      : w->kind == GS_WL_MEMBOUND   ? 88
                                                    : 0.45 * w->util;
    if (isnan(w->enc_util))
        w->enc_util = w->kind == GS_WL_ENCODE ? 95 : 0;
    if (isnan(w->dec_util))
        w->dec_util = w->kind == GS_WL_DECODE ? 95 : 0;
    if (isnan(w->memory_used))
        w->memory_used = w->kind == GS_WL_LEAK ? 2 * GIB
                         : w->kind == GS_WL_INFERENCE
                             ? fmin(16 * GIB, 0.5 * (double)(g->mem_total - g->mem_reserved))
                             : 0;
    if (isnan(w->hb_period))
        w->hb_period = 0.5;
    if (isnan(w->hb_duty))
        w->hb_duty = 0.35;
    if (isnan(w->hb_jitter))
        w->hb_jitter = 1.0;
    if (isnan(w->hb_floor))
        w->hb_floor = 0;
    if (isnan(w->util_noise))
        w->util_noise = 1.5;
    if (isnan(w->leak_rate))
        w->leak_rate = w->kind == GS_WL_LEAK ? 100 * MIB / 60 : 0;
    if (!isnan(aux->demand_pct))
        w->power_demand = aux->demand_pct / 100 * g->power_limit;
    else if (isnan(w->power_demand))
        w->power_demand = demand_default(w->kind) * g->power_limit;
    double bw = link_bytes_per_s(g);
    if (isnan(w->pcie_rx))
        w->pcie_rx = w->kind == GS_WL_IDLE        ? 20e3
                     : w->kind == GS_WL_HEARTBEAT ? fmin(12e9, 0.6 * bw)
                     : w->kind == GS_WL_TRANSFER  ? 0.85 * bw
                     : w->kind == GS_WL_INFERENCE ? fmin(200e6, 0.02 * bw)
                                                  : fmin(1.5e9, 0.3 * bw);
    if (isnan(w->pcie_tx))
        w->pcie_tx = w->kind == GS_WL_IDLE        ? 10e3
                     : w->kind == GS_WL_INFERENCE ? fmin(50e6, 0.01 * bw)
                                                  : fmin(0.3e9, 0.1 * bw);
    if (!aux->cooling_set && w->kind == GS_WL_THERMAL)
        g->cooling = 0.35;
    gs_gpm_defaults(w);
}

static int validate_gpu(struct gs_pctx *c, unsigned i, struct gs_gpu *g)
{
    const struct gs_workload *w = &g->wl;

    if (g->mem_reserved >= g->mem_total)
        return gs_fail(c, key_line(c, i, "memory_reserved"),
                       "gpu %u: memory_reserved must be below memory_total", i);
    if (w->memory_used > (double)(g->mem_total - g->mem_reserved))
        return gs_fail(c, key_line(c, i, "memory_used"),
                       "gpu %u: memory_used (%.0f MiB) exceeds the usable memory (%llu MiB)", i,
                       w->memory_used / MIB, (g->mem_total - g->mem_reserved) >> 20);
    if (g->power_min > g->power_max)
        return gs_fail(c, key_line(c, i, "power_min_limit"),
                       "gpu %u: power_min_limit is above power_max_limit", i);
    if (g->power_limit < g->power_min - 1e-9 || g->power_limit > g->power_max + 1e-9)
        return gs_fail(c, key_line(c, i, "power_limit"),
                       "gpu %u: power_limit %.0f W is outside the board's range %.0f-%.0f W", i,
                       g->power_limit, g->power_min, g->power_max);
    if (g->power_idle >= g->power_limit)
        return gs_fail(c, key_line(c, i, "power_idle"),
                       "gpu %u: power_idle must be below power_limit", i);
    for (int k = 0; k < NVML_CLOCK_COUNT; k++)
        if (g->clock_idle[k] > g->clock_max[k] || g->clock_max[k] == 0)
            return gs_fail(c, key_line(c, i, NULL),
                           "gpu %u: idle clocks must be at most the max clocks (and max > 0)", i);
    if (g->temp_slowdown && g->temp_shutdown && g->temp_slowdown >= g->temp_shutdown)
        return gs_fail(c, key_line(c, i, "temp_slowdown"),
                       "gpu %u: temp_slowdown must be below temp_shutdown", i);
    if (g->pcie_width_cur > g->pcie_width)
        return gs_fail(c, key_line(c, i, "pcie_width_current"),
                       "gpu %u: pcie_width_current is above pcie_width", i);
    if (g->ecc && !g->ecc_capable)
        return gs_fail(c, key_line(c, i, "ecc"), "gpu %u: model %s has no ECC memory", i,
                       g->preset->key);
    if (g->ecc_pending && !g->ecc_capable)
        return gs_fail(c, key_line(c, i, "ecc_pending"), "gpu %u: model %s has no ECC memory", i,
                       g->preset->key);
    if (g->nmig && !g->mig_capable)
        return gs_fail(c, key_line(c, i, "mig"), "gpu %u: model %s does not support MIG", i,
                       g->preset->key);
    char mig_err[256];
    if (gs_mig_layout(g, mig_err, sizeof(mig_err)) != 0)
        return gs_fail(c, key_line(c, i, "mig"), "gpu %u: mig: %s", i, mig_err);
    unsigned long long mig_mem = 0;
    for (unsigned m = 0; m < g->nmig; m++)
        mig_mem += g->mig[m].mem_total;
    if (mig_mem > g->mem_total)
        return gs_fail(c, key_line(c, i, "mig"),
                       "gpu %u: MIG profiles need more memory than the GPU has", i);
    if (w->kind == GS_WL_HEARTBEAT && (w->hb_period < 0.05 || w->hb_duty <= 0))
        return gs_fail(c, key_line(c, i, "heartbeat_period"),
                       "gpu %u: heartbeat needs heartbeat_period >= 0.05 s and heartbeat_duty > 0",
                       i);
    if (w->kind == GS_WL_HEARTBEAT && w->hb_floor >= w->util)
        return gs_fail(c, key_line(c, i, "heartbeat_floor"),
                       "gpu %u: heartbeat_floor (%.0f %%) must be below util (%.0f %%)", i,
                       w->hb_floor, w->util);
    if (g->pcie_gen_load > g->pcie_gen)
        return gs_fail(c, key_line(c, i, "pcie_gen_current"),
                       "gpu %u: pcie_gen_current (%u) is above pcie_gen (%u)", i, g->pcie_gen_load,
                       g->pcie_gen);
    static const struct {
        int clock;
        const char *key, *max_key;
    } app[] = {{NVML_CLOCK_GRAPHICS, "app_clock_graphics", "max_clock_graphics"},
               {NVML_CLOCK_MEM, "app_clock_mem", "max_clock_mem"}};
    for (size_t k = 0; k < sizeof(app) / sizeof(app[0]); k++) {
        unsigned a = g->app_clock[app[k].clock], lo = g->clock_idle[app[k].clock],
                 hi = g->clock_max[app[k].clock];
        if (a < lo || a > hi)
            return gs_fail(c, key_line(c, i, app[k].key),
                           "gpu %u: %s (%u MHz) must be between the idle clock (%u MHz) and "
                           "%s (%u MHz)",
                           i, app[k].key, a, lo, app[k].max_key, hi);
    }
    if (w->kind == GS_WL_RAMP && w->ramp_duration <= 0)
        return gs_fail(c, key_line(c, i, "ramp_duration"), "gpu %u: ramp_duration must be > 0", i);
    if (g->tau <= 0)
        return gs_fail(c, key_line(c, i, "thermal_tau"), "gpu %u: thermal_tau must be > 0", i);
    if (w->kind == GS_WL_THERMAL) {
        if (!g->temp_slowdown)
            return gs_fail(c, key_line(c, i, "workload"),
                           "gpu %u: workload thermal needs a temp_slowdown threshold", i);
        /* As model.c draws it: application clocks below max lower the power. */
        double ratio =
            (double)g->app_clock[NVML_CLOCK_GRAPHICS] / g->clock_max[NVML_CLOCK_GRAPHICS];
        double p = fmin(g->power_idle + (w->power_demand - g->power_idle) * w->util / 100 * ratio,
                        g->power_limit);
        double teq = g->ambient + g->thermal_r / g->cooling * p;
        if (teq <= g->temp_slowdown)
            return gs_fail(c, key_line(c, i, "cooling"),
                           "gpu %u: workload thermal never reaches temp_slowdown (%u C): the "
                           "equilibrium is %.0f C; lower cooling or raise ambient",
                           i, g->temp_slowdown, teq);
    }
    if (w->kind == GS_WL_POWERCAP && w->power_demand <= g->power_limit)
        return gs_fail(c, key_line(c, i, "power_demand"),
                       "gpu %u: workload powercap needs power_demand above power_limit (%.0f W)", i,
                       g->power_limit);
    return 0;
}

static void finish_mig(struct gs_scenario *s, unsigned i, struct gs_gpu *g)
{
    for (unsigned m = 0; m < g->nmig; m++) {
        struct gs_mig_dev *d = &g->mig[m];
        uint64_t h1 = gs_hash(s->seed, i, 100 + m, 0), h2 = gs_hash(s->seed, i, 200 + m, 0);
        char profile[sizeof(d->profile)];
        memcpy(profile, d->profile, sizeof(profile));
        snprintf(d->name, sizeof(d->name), "%.70s MIG %s", g->name, profile);
        snprintf(d->uuid, sizeof(d->uuid), "MIG-%08x-%04x-%04x-%04x-%012llx", (unsigned)(h1 >> 32),
                 (unsigned)(h1 >> 16) & 0xFFFF, (unsigned)h1 & 0xFFFF, (unsigned)(h2 >> 48),
                 (unsigned long long)(h2 & 0xFFFFFFFFFFFFULL));
    }
}

static int build_gpu(struct gs_pctx *c, unsigned i)
{
    struct gs_scenario *s = c->s;
    struct gs_gpu *g = &s->gpus[i];
    struct gpu_aux aux = {.demand_pct = NAN};
    char buf[1100];

    const struct gs_ini_entry *me = gpu_entry(c, i, "model");
    if (!me)
        return gs_fail(c, key_line(c, i, NULL),
                       "gpu %u: missing required key 'model' (set it in [gpu.%u] or [gpu])", i, i);
    const char *mv = gs_entry_value(c, me, buf, sizeof(buf));
    if (!mv)
        return -1;
    const struct gs_preset *p = gs_preset_find(mv);
    if (!p) {
        char known[256] = "";
        size_t pos = 0;
        for (size_t k = 0; k < gs_preset_count && pos < sizeof(known); k++)
            pos += (size_t)snprintf(known + pos, sizeof(known) - pos, "%s%s", k ? ", " : "",
                                    gs_presets[k].key);
        return gs_fail(c, me->line, "unknown model '%s' (known: %s)", mv, known);
    }
    apply_preset(s, g, p, i);

    g->wl = (struct gs_workload){
        .kind = GS_WL_IDLE,
        .util = NAN,
        .mem_util = NAN,
        .enc_util = NAN,
        .dec_util = NAN,
        .memory_used = NAN,
        .hb_period = NAN,
        .hb_duty = NAN,
        .hb_jitter = NAN,
        .ramp_from = NAN,
        .ramp_to = NAN,
        .ramp_start = NAN,
        .ramp_duration = NAN,
        .leak_rate = NAN,
        .power_demand = NAN,
        .pcie_rx = NAN,
        .pcie_tx = NAN,
        .sm_activity = NAN,
        .sm_occupancy = NAN,
        .tensor_activity = NAN,
        .dram_activity = NAN,
        .fp64_activity = NAN,
        .fp32_activity = NAN,
        .fp16_activity = NAN,
        .nvlink_rx = NAN,
        .nvlink_tx = NAN,
        .hb_floor = NAN,
        .util_noise = NAN,
    };
    g->pcie_gen_load = 0;
    memset(g->app_clock, 0, sizeof(g->app_clock));
    const struct gs_ini_entry *we = gpu_entry(c, i, "workload");
    if (we) {
        const char *wv = gs_entry_value(c, we, buf, sizeof(buf));
        if (!wv)
            return -1;
        if (parse_workload(wv, &g->wl.kind) != 0)
            return gs_bad_value(c, we, wv, WORKLOAD_LIST);
    }

    const long secs[2] = {c->defaults_sec, c->gpu_sec[i]};
    for (int k = 0; k < 2; k++) {
        if (secs[k] < 0)
            continue;
        for (size_t j = 0; j < c->ini.nentries; j++) {
            const struct gs_ini_entry *e = &c->ini.entries[j];
            if ((long)e->section == secs[k] && apply_key(c, g, &aux, e) != 0)
                return -1;
        }
    }

    if (!aux.power_limit_set)
        g->power_limit = g->power_default;
    if (!aux.ecc_pending_set)
        g->ecc_pending = g->ecc;
    if (!aux.display_mode_set)
        g->display_mode = g->display_active;
    if (g->pcie_width_cur == 0)
        g->pcie_width_cur = g->pcie_width;
    if (g->pcie_gen_load == 0)
        g->pcie_gen_load = g->pcie_gen;
    /* Application clocks: unset (0) means the max; SM follows graphics, video
     * stays at its max. */
    if (g->app_clock[NVML_CLOCK_GRAPHICS] == 0)
        g->app_clock[NVML_CLOCK_GRAPHICS] = g->clock_max[NVML_CLOCK_GRAPHICS];
    if (g->app_clock[NVML_CLOCK_MEM] == 0)
        g->app_clock[NVML_CLOCK_MEM] = g->clock_max[NVML_CLOCK_MEM];
    g->app_clock[NVML_CLOCK_SM] =
        g->app_clock[NVML_CLOCK_GRAPHICS] >= g->clock_max[NVML_CLOCK_GRAPHICS]
            ? g->clock_max[NVML_CLOCK_SM]
            : (unsigned)fmin(g->app_clock[NVML_CLOCK_GRAPHICS], g->clock_max[NVML_CLOCK_SM]);
    g->app_clock[NVML_CLOCK_VIDEO] = g->clock_max[NVML_CLOCK_VIDEO];
    workload_defaults(g, &aux);
    finish_mig(s, i, g);
    return validate_gpu(c, i, g);
}

int gs_build_gpus(struct gs_pctx *c)
{
    struct gs_scenario *s = c->s;

    s->gpus = calloc(s->ngpus ? s->ngpus : 1, sizeof(*s->gpus));
    if (!s->gpus)
        return gs_fail(c, 0, "out of memory");
    for (unsigned i = 0; i < s->ngpus; i++)
        if (build_gpu(c, i) != 0)
            return -1;
    /* Unknown keys in an unused [gpu] section are still errors. */
    if (s->ngpus == 0 && c->defaults_sec >= 0) {
        for (size_t j = 0; j < c->ini.nentries; j++) {
            const struct gs_ini_entry *e = &c->ini.entries[j];
            if ((long)e->section == c->defaults_sec && !gs_gpu_key_known(e->key))
                return gs_fail(c, e->line, "unknown key '%s' in [gpu]", e->key);
        }
    }
    for (unsigned i = 0; i < s->ngpus; i++) {
        for (unsigned j = 0; j < i; j++) {
            const struct gs_gpu *a = &s->gpus[i], *b = &s->gpus[j];
            if (a->pci_domain == b->pci_domain && a->pci_bus == b->pci_bus &&
                a->pci_device == b->pci_device)
                return gs_fail(c, key_line(c, i, "pci_bus_id"),
                               "gpu %u has the same PCI bus id as gpu %u", i, j);
            if (strcmp(a->uuid, b->uuid) == 0)
                return gs_fail(c, key_line(c, i, "uuid"), "gpu %u has the same uuid as gpu %u", i,
                               j);
        }
    }
    return 0;
}

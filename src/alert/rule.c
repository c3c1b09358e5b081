/* rule.c -- alert rules: the condition language, operand values, the
 * [alert.NAME] keys, and the default rule set (see rule.h).
 *
 * Conditions compile to postfix node arrays and evaluate with three-valued
 * logic, so a value that is not known (N/A, unsupported, a lost GPU) can
 * neither start nor end an alert on its own.  A window function's value
 * comes from the caller (struct gm_rule_ctx's window callback: the
 * engine's history, window.h); without one it is unknown.
 */
#include "rule.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/err.h"
#include "../core/metrics.h"
#include "../core/timeutil.h"

#define SEC 1000000000LL
#define MIN (60 * SEC)

/* -------------------------------------------------------------- operands */

const struct gm_rule_operand_info gm_rule_operands[] = {
    {GM_OP_MEM_FREE_PCT, "memory.free_pct", GM_U_PERCENT, GM_SC_GPU,
     "free memory as a percentage of the total (memory.free / memory.total)"},
    {GM_OP_MEM_USED_PCT, "memory.used_pct", GM_U_PERCENT, GM_SC_GPU,
     "used memory as a percentage of the total"},
    {GM_OP_POWER_PCT, "power.draw_pct", GM_U_PERCENT, GM_SC_GPU,
     "power draw as a percentage of the enforced power limit"},
    {GM_OP_TEMP_MARGIN, "temperature.margin", GM_U_CELSIUS, GM_SC_GPU,
     "degrees below the GPU's own slowdown threshold (temperature.gpu.slowdown - "
     "temperature.gpu); 0 or less means the GPU slows itself down"},
    {GM_OP_THROTTLE_THERMAL, "throttle.thermal", GM_U_NONE, GM_SC_GPU,
     "1 while software or hardware thermal slowdown is active, else 0"},
    {GM_OP_THROTTLE_POWER_BRAKE, "throttle.power_brake", GM_U_NONE, GM_SC_GPU,
     "1 while the hardware power brake (external power-supply signal) is active, else 0"},
    {GM_OP_THROTTLE_POWER_CAP, "throttle.power_cap", GM_U_NONE, GM_SC_GPU,
     "1 while clocks are held down by the software power cap, else 0"},
    {GM_OP_ECC_NEW, "ecc.uncorrected.new", GM_U_NONE, GM_SC_GPU,
     "uncorrectable ECC errors counted since the previous sample (aggregate counter, else "
     "volatile); unknown on the first sample"},
    {GM_OP_GPU_LOST, "gpu.lost", GM_U_NONE, GM_SC_GPU,
     "1 when the GPU has fallen off the bus or stopped answering (NVML: GPU is lost), else 0"},
    {GM_OP_DRIVER_LOST, "driver.lost", GM_U_NONE, GM_SC_HOST,
     "1 when NVML cannot talk to the driver (not loaded, version mismatch, no library), else 0"},
    {GM_OP_PROCS, "procs.count", GM_U_NONE, GM_SC_GPU, "processes using the GPU"},
    {GM_OP_DEAD_MEM, "procs.dead_memory", GM_U_BYTES, GM_SC_GPU,
     "GPU memory held by processes that no longer exist (gone from /proc, or zombies); "
     "unknown when gpumon runs in a nested PID namespace, where it cannot tell; PIDs above "
     "the kernel's pid_max are not counted, unless the NVML simulator's /proc view says "
     "they are gone (docs/simulator.md)"},
    {GM_OP_XID, "xid", GM_U_NONE, GM_SC_GPU,
     "the Xid number of an NVML Xid event, at the moment it arrives; 0 at every sample"},
#define DIAG_OP(c, name)                                                                           \
    {                                                                                              \
        GM_OP_DIAG + GM_CAUSE_##c, "diagnosis." name, GM_U_NONE, GM_SC_GPU,                        \
            "1 while the agent's diagnosis finds " name " on the GPU (docs/diagnose.md), else 0"   \
    }
    DIAG_OP(INPUT_STARVED, "input-starved"),
    DIAG_OP(THERMAL, "thermal-throttle"),
    DIAG_OP(POWER_CAPPED, "power-capped"),
    DIAG_OP(HW_SLOWDOWN, "hw-slowdown"),
    DIAG_OP(LOW_INTENSITY, "low-intensity"),
    DIAG_OP(MEMORY_BOUND, "memory-bound"),
    DIAG_OP(MEMORY_SQUATTED, "memory-squatted"),
    DIAG_OP(MEMORY_ORPHANED, "memory-orphaned"),
    DIAG_OP(MEMORY_GROWTH, "memory-growth"),
    DIAG_OP(STRAGGLER, "straggler"),
    DIAG_OP(EXCLUSIVE, "exclusive-blocking"),
    DIAG_OP(ECC_RISK, "ecc-risk"),
    DIAG_OP(TRANSFER_BOUND, "transfer-bound"),
    DIAG_OP(PCIE_DEGRADED, "pcie-degraded"),
    DIAG_OP(CODEC_BOUND, "codec-bound"),
    DIAG_OP(APP_CLOCKS, "app-clocks"),
    DIAG_OP(GPU_LOST, "gpu-lost"),
#undef DIAG_OP
};
const int gm_rule_noperands = (int)(sizeof(gm_rule_operands) / sizeof(gm_rule_operands[0]));

static const struct gm_rule_operand_info *derived(int id)
{
    for (int i = 0; i < gm_rule_noperands; i++)
        if (gm_rule_operands[i].id == id)
            return &gm_rule_operands[i];
    return NULL;
}

const char *gm_rule_operand_name(int operand)
{
    if (operand >= 0 && operand < GM_M__GPU_END)
        return gm_metrics[operand].smi ? gm_metrics[operand].smi : gm_metrics[operand].json;
    const struct gm_rule_operand_info *d = derived(operand);
    return d ? d->name : "?";
}

int gm_rule_operand_unit(int operand)
{
    if (operand >= 0 && operand < GM_M__GPU_END)
        return gm_metrics[operand].unit;
    const struct gm_rule_operand_info *d = derived(operand);
    return d ? d->unit : GM_U_NONE;
}

static int operand_scope(int operand)
{
    if (operand >= 0 && operand < GM_M__GPU_END)
        return gm_metrics[operand].scope;
    const struct gm_rule_operand_info *d = derived(operand);
    return d ? d->scope : GM_SC_GPU;
}

static int operand_lookup(const char *name)
{
    for (int i = 0; i < gm_rule_noperands; i++)
        if (strcmp(gm_rule_operands[i].name, name) == 0)
            return gm_rule_operands[i].id;
    int id = gm_metric_by_name(name, 0);
    if (id >= 0 && id < GM_M__GPU_END)
        return id;
    return -1;
}

/* The kernel's largest PID.  NVML reports host PIDs; one above pid_max was
 * not issued by this kernel (a simulated process, or another namespace's
 * numbering), so its absence from /proc says nothing about it -- unless the
 * simulator's /proc view answered for it (gm_proc.simulated). */
static unsigned long pid_max(void)
{
    static unsigned long cached;
    if (cached)
        return cached;
    unsigned long v = 4194304; /* the 64-bit limit, if /proc does not say */
    FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
    if (f) {
        char line[32];
        if (fgets(line, sizeof(line), f)) {
            char *end;
            errno = 0;
            unsigned long x = strtoul(line, &end, 10);
            if (!errno && end != line && x > 0)
                v = x;
        }
        fclose(f);
    }
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    return v;
}

static int vstatus(const struct gm_value *v, double *out)
{
    if (v->status != GM_VS_OK)
        return v->status;
    *out = gm_v_as_double(v);
    return GM_VS_OK;
}

static int reason_active(const struct gm_rule_ctx *cx, uint64_t bits, double *out)
{
    const struct gm_value *v = gm_gpu_value(cx->s, cx->g, GM_M_CER_ACTIVE);
    if (v->status != GM_VS_OK)
        return v->status;
    *out = (v->v.u & bits) ? 1 : 0;
    return GM_VS_OK;
}

int gm_rule_operand_value(int operand, const struct gm_rule_ctx *cx, double *out)
{
    const struct gm_gpu *g = cx->g;
    if (operand == GM_OP_DRIVER_LOST) {
        *out = cx->s->driver != GM_DRV_OK;
        return GM_VS_OK;
    }
    if (operand == GM_OP_XID) {
        *out = cx->xid;
        return GM_VS_OK;
    }
    if (!g) {
        if (operand >= 0 && operand < GM_M__GPU_END && gm_metrics[operand].scope == GM_SC_HOST)
            return GM_VS_NA; /* host metrics are read per GPU row; no GPU, no value */
        return GM_VS_NA;
    }
    if (operand == GM_OP_GPU_LOST) {
        if (g->state == GM_GPU_LOST) {
            *out = 1;
            return GM_VS_OK;
        }
        if (g->state != GM_GPU_OK)
            return GM_VS_ERROR; /* no permission or another failure: not known */
        *out = 0;
        return GM_VS_OK;
    }
    if (operand >= 0 && operand < GM_M__GPU_END)
        return vstatus(gm_gpu_value(cx->s, g, operand), out);
    if (operand >= GM_OP_DIAG && operand <= GM_OP_DIAG_LAST) {
        if (!g->diag_known)
            return GM_VS_NA; /* no diagnosis runs here: unknown, not "not found" */
        *out = (g->diag >> (operand - GM_OP_DIAG)) & 1u;
        return GM_VS_OK;
    }

    double a, b;
    int st;
    switch (operand) {
    case GM_OP_MEM_FREE_PCT:
    case GM_OP_MEM_USED_PCT:
        if ((st = vstatus(
                 gm_gpu_value(cx->s, g,
                              operand == GM_OP_MEM_FREE_PCT ? GM_M_MEM_FREE : GM_M_MEM_USED),
                 &a)) != GM_VS_OK)
            return st;
        if ((st = vstatus(gm_gpu_value(cx->s, g, GM_M_MEM_TOTAL), &b)) != GM_VS_OK)
            return st;
        if (b <= 0)
            return GM_VS_NA;
        *out = a / b * 100.0;
        return GM_VS_OK;
    case GM_OP_POWER_PCT: {
        if ((st = vstatus(gm_gpu_value(cx->s, g, GM_M_POWER_DRAW), &a)) != GM_VS_OK)
            return st;
        if (vstatus(gm_gpu_value(cx->s, g, GM_M_POWER_ENFORCED), &b) != GM_VS_OK &&
            (st = vstatus(gm_gpu_value(cx->s, g, GM_M_POWER_LIMIT), &b)) != GM_VS_OK)
            return st;
        if (b <= 0)
            return GM_VS_NA;
        *out = a / b * 100.0;
        return GM_VS_OK;
    }
    case GM_OP_TEMP_MARGIN:
        if ((st = vstatus(gm_gpu_value(cx->s, g, GM_M_TEMP_SLOWDOWN), &a)) != GM_VS_OK)
            return st;
        if ((st = vstatus(gm_gpu_value(cx->s, g, GM_M_TEMP_GPU), &b)) != GM_VS_OK)
            return st;
        *out = a - b;
        return GM_VS_OK;
    case GM_OP_THROTTLE_THERMAL:
        return reason_active(
            cx, gm_metrics[GM_M_CER_SW_THERMAL].bit | gm_metrics[GM_M_CER_HW_THERMAL].bit, out);
    case GM_OP_THROTTLE_POWER_BRAKE:
        return reason_active(cx, gm_metrics[GM_M_CER_HW_POWER_BRAKE].bit, out);
    case GM_OP_THROTTLE_POWER_CAP:
        return reason_active(cx, gm_metrics[GM_M_CER_SW_POWER_CAP].bit, out);
    case GM_OP_ECC_NEW: {
        const struct gm_value *agg = gm_gpu_value(cx->s, g, GM_M_ECC_UNCORR_AGG);
        const struct gm_value *vol = gm_gpu_value(cx->s, g, GM_M_ECC_UNCORR_VOL);
        if (agg->status == GM_VS_OK && cx->prev_agg_ok) {
            double d = gm_v_as_double(agg) - cx->prev_agg;
            *out = d > 0 ? d : 0;
            return GM_VS_OK;
        }
        if (vol->status == GM_VS_OK && cx->prev_vol_ok) {
            double cur = gm_v_as_double(vol);
            /* the volatile counter restarts at 0 with the driver: what it holds
             * after a reset is all new */
            *out = cur >= cx->prev_vol ? cur - cx->prev_vol : cur;
            return GM_VS_OK;
        }
        if (agg->status != GM_VS_OK && vol->status != GM_VS_OK)
            return agg->status;
        return GM_VS_NA; /* the first sample: nothing to compare with */
    }
    case GM_OP_PROCS:
        if (g->state != GM_GPU_OK)
            return GM_VS_LOST;
        *out = g->nproc;
        return GM_VS_OK;
    case GM_OP_DEAD_MEM: {
        if (g->state != GM_GPU_OK)
            return GM_VS_LOST;
        if (cx->pid_ns_nested)
            return GM_VS_NA;
        double sum = 0;
        for (uint32_t i = 0; i < g->nproc; i++) {
            const struct gm_proc *p = &cx->s->procs[g->proc_first + i];
            if (p->host_state == GM_HS_UNKNOWN)
                return GM_VS_NA; /* /proc was not looked at */
            if (p->host_state != GM_HS_GONE && p->host_state != GM_HS_ZOMBIE)
                continue;
            if (p->pid > pid_max() && !p->simulated)
                continue; /* not a PID of this kernel: cannot tell (the simulator's
                             view of its own processes can: procfs.h) */
            if (p->used_memory.status == GM_VS_OK)
                sum += gm_v_as_double(&p->used_memory);
        }
        *out = sum;
        return GM_VS_OK;
    }
    default:
        return GM_VS_ERROR;
    }
}

/* The age of the oldest real value among metrics ids[0..n). */
static uint32_t oldest(const struct gm_rule_ctx *cx, const int *ids, int n)
{
    uint32_t age = 0;
    for (int i = 0; i < n; i++) {
        const struct gm_value *v = gm_gpu_value(cx->s, cx->g, ids[i]);
        if (v->status == GM_VS_OK && v->age_ms > age)
            age = v->age_ms;
    }
    return age;
}

uint32_t gm_rule_operand_age_ms(int operand, const struct gm_rule_ctx *cx)
{
    if (operand >= 0x10000) /* a window: its newest value is this sample's */
        operand = (int16_t)(operand & 0xffff);
    if (!cx || !cx->s || !cx->g)
        return 0;
    if (operand >= 0 && operand < GM_M__GPU_END)
        return oldest(cx, &operand, 1);
    static const int mem_free[] = {GM_M_MEM_FREE, GM_M_MEM_TOTAL};
    static const int mem_used[] = {GM_M_MEM_USED, GM_M_MEM_TOTAL};
    static const int power[] = {GM_M_POWER_DRAW, GM_M_POWER_ENFORCED, GM_M_POWER_LIMIT};
    static const int margin[] = {GM_M_TEMP_SLOWDOWN, GM_M_TEMP_GPU};
    static const int reasons[] = {GM_M_CER_ACTIVE};
    static const int ecc[] = {GM_M_ECC_UNCORR_AGG, GM_M_ECC_UNCORR_VOL};
#define OLDEST(a) oldest(cx, (a), (int)(sizeof(a) / sizeof((a)[0])))
    switch (operand) {
    case GM_OP_MEM_FREE_PCT:
        return OLDEST(mem_free);
    case GM_OP_MEM_USED_PCT:
        return OLDEST(mem_used);
    case GM_OP_POWER_PCT:
        return OLDEST(power);
    case GM_OP_TEMP_MARGIN:
        return OLDEST(margin);
    case GM_OP_THROTTLE_THERMAL:
    case GM_OP_THROTTLE_POWER_BRAKE:
    case GM_OP_THROTTLE_POWER_CAP:
        return OLDEST(reasons);
    case GM_OP_ECC_NEW:
        return OLDEST(ecc);
    default:
        return 0;
    }
#undef OLDEST
}

/* ---------------------------------------------------------------- values */

static void human_bytes(double v, char *out, size_t len)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (fabs(v) >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    snprintf(out, len, i ? "%.2f %s" : "%.0f %s", v, u[i]);
}

void gm_rule_value_text(int operand, double v, const struct gm_rule_ctx *cx, char *out, size_t len)
{
    if (operand >= 0x10000) { /* a window: its function's value, in the operand's unit */
        int fn = operand >> 16, base = (int16_t)(operand & 0xffff);
        if (fn == GM_WF_SLOPE) {
            int u = gm_rule_operand_unit(base);
            if (u == GM_U_BYTES)
                human_bytes(v, out, len);
            else if (u == GM_U_PERCENT)
                snprintf(out, len, "%.2f %%", v);
            else
                snprintf(out, len, "%.4g", v);
            if (strlen(out) + 5 <= len)
                memcpy(out + strlen(out), "/min", 5);
            return;
        }
        if (fn == GM_WF_STDDEV && gm_rule_operand_unit(base) == GM_U_PERCENT) {
            snprintf(out, len, "%.1f %%", v); /* not a throttle flag's "active" */
            return;
        }
        switch (base) {
        case GM_OP_XID:
        case GM_OP_GPU_LOST:
        case GM_OP_DRIVER_LOST:
        case GM_OP_THROTTLE_THERMAL:
        case GM_OP_THROTTLE_POWER_BRAKE:
        case GM_OP_THROTTLE_POWER_CAP:
        case GM_OP_ECC_NEW:
            snprintf(out, len, "%.3g", v); /* a fraction or a count, not a state */
            return;
        default:
            operand = base;
            cx = NULL;
            break;
        }
    }
    switch (operand) {
    case GM_OP_XID:
        snprintf(out, len, "Xid %.0f", v);
        return;
    case GM_OP_GPU_LOST:
        snprintf(out, len, "%s", v != 0 ? "lost" : "present");
        return;
    case GM_OP_DRIVER_LOST:
        if (v != 0 && cx && cx->s)
            snprintf(out, len, "%s", gm_driver_state_name((enum gm_driver_state)cx->s->driver));
        else
            snprintf(out, len, "%s", v != 0 ? "lost" : "ok");
        return;
    case GM_OP_THROTTLE_THERMAL:
    case GM_OP_THROTTLE_POWER_BRAKE:
    case GM_OP_THROTTLE_POWER_CAP:
        if (cx && cx->g) {
            const struct gm_value *r = gm_gpu_value(cx->s, cx->g, GM_M_CER_ACTIVE);
            if (r->status == GM_VS_OK) {
                uint64_t mask = r->v.u & ~(uint64_t)0x1; /* idle is not a slowdown */
                if (mask) {
                    gm_reasons_format(mask, out, len);
                    return;
                }
            }
        }
        snprintf(out, len, "%s", v != 0 ? "active" : "none");
        return;
    case GM_OP_ECC_NEW:
        snprintf(out, len, "%.0f new", v);
        return;
    default:
        break;
    }
    switch (gm_rule_operand_unit(operand)) {
    case GM_U_PERCENT:
        snprintf(out, len, "%.1f %%", v);
        return;
    case GM_U_BYTES:
        human_bytes(v, out, len);
        return;
    case GM_U_BYTES_PER_S:
        human_bytes(v, out, len);
        if (strlen(out) + 3 <= len)
            memcpy(out + strlen(out), "/s", 3);
        return;
    case GM_U_WATTS:
        snprintf(out, len, "%.1f W", v);
        return;
    case GM_U_JOULES:
        snprintf(out, len, "%.0f J", v);
        return;
    case GM_U_CELSIUS:
        snprintf(out, len, "%.0f °C", v);
        return;
    case GM_U_MHZ:
        snprintf(out, len, "%.0f MHz", v);
        return;
    case GM_U_SECONDS:
        snprintf(out, len, "%.1f s", v);
        return;
    default:
        snprintf(out, len, "%.15g", v);
        return;
    }
}

/* ---------------------------------------------------------------- parser */

struct parser {
    const char *src;
    const char *p;
    int scope;
    struct gm_rule_expr *e;
    char *why;
    size_t wlen;
    int failed;
};

static int fail(struct parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = 1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(ps->why, ps->wlen, "%s (at column %d of \"%s\")", msg, (int)(at - ps->src) + 1,
             ps->src);
    return -1;
}

static void skip_ws(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}
static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* The end of the name that starts at p: identifier characters, and a '-'
 * between a letter or digit and a letter (diagnosis.input-starved; the
 * language has no subtraction, and a number never follows a name). */
static const char *ident_end(const char *p)
{
    while (is_ident(*p) ||
           (*p == '-' && isalnum((unsigned char)p[-1]) && isalpha((unsigned char)p[1])))
        p++;
    return p;
}

/* Whether the next token is the word w (and, or, not). */
static int word(struct parser *ps, const char *w)
{
    skip_ws(ps);
    size_t n = strlen(w);
    if (strncmp(ps->p, w, n) == 0 && !is_ident(ps->p[n])) {
        ps->p += n;
        return 1;
    }
    return 0;
}

static int emit(struct parser *ps, struct gm_rule_node nd)
{
    if (ps->e->n >= GM_RULE_NODES)
        return fail(ps, ps->p, "condition too long (at most %d terms and operators)",
                    GM_RULE_NODES);
    ps->e->node[ps->e->n++] = nd;
    return 0;
}

static int parse_number(struct parser *ps, int operand, double *out)
{
    const char *start = ps->p;
    char *end;
    errno = 0;
    double v = strtod(ps->p, &end);
    if (end == ps->p || errno || !isfinite(v))
        return fail(ps, start, "expected a number");
    ps->p = end;
    /* a unit goes right after the number ("2GiB", "85C"): with a blank in
     * between it would read as the next word, and an error that says
     * "unexpected" or "give the number a unit" would puzzle whoever wrote
     * "2 GiB" -- say what is wrong instead */
    if (*ps->p == ' ' || *ps->p == '\t') {
        static const char *const units[] = {"B",  "KiB", "MiB", "GiB", "TiB", "KB",  "MB",
                                            "GB", "TB",  "%",   "W",   "C",   "MHz", "s"};
        const char *q = ps->p;
        while (*q == ' ' || *q == '\t')
            q++;
        size_t wl = 0;
        while (isalpha((unsigned char)q[wl]) || q[wl] == '%')
            wl++;
        for (size_t i = 0; wl && !is_ident(q[wl]) && i < sizeof(units) / sizeof(units[0]); i++)
            if (strlen(units[i]) == wl && !strncmp(q, units[i], wl)) {
                int size = gm_rule_operand_unit(operand) == GM_U_BYTES ||
                           gm_rule_operand_unit(operand) == GM_U_BYTES_PER_S;
                return fail(ps, q,
                            "%s%swrite the unit right after the number (%.*s%.*s, "
                            "without a blank)",
                            size ? gm_rule_operand_name(operand) : "", size ? " is a size: " : "",
                            (int)(ps->p - start), start, (int)wl, q);
            }
    }
    char suffix[16];
    size_t n = 0;
    while ((isalpha((unsigned char)*ps->p) || *ps->p == '%') && n < sizeof(suffix) - 1)
        suffix[n++] = *ps->p++;
    suffix[n] = '\0';
    int unit = gm_rule_operand_unit(operand);
    static const struct {
        const char *s;
        double mul;
    } sizes[] = {{"B", 1},
                 {"KiB", 1024.0},
                 {"MiB", 1048576.0},
                 {"GiB", 1073741824.0},
                 {"TiB", 1099511627776.0},
                 {"KB", 1e3},
                 {"MB", 1e6},
                 {"GB", 1e9},
                 {"TB", 1e12}};
    if (unit == GM_U_BYTES || unit == GM_U_BYTES_PER_S) {
        const char *want = unit == GM_U_BYTES ? "" : "/s";
        if (n == 0 && v == 0) { /* zero needs no unit */
            *out = 0;
            return 0;
        }
        for (size_t i = 0; n && i < sizeof(sizes) / sizeof(sizes[0]); i++)
            if (strcmp(suffix, sizes[i].s) == 0) {
                if (*want && strncmp(ps->p, want, 2) == 0)
                    ps->p += 2;
                *out = v * sizes[i].mul;
                return 0;
            }
        return fail(ps, start,
                    "%s is a size: give the number a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB; "
                    "e.g. 2GiB)",
                    gm_rule_operand_name(operand));
    }
    if (n == 0) {
        *out = v;
        return 0;
    }
    const char *ok = unit == GM_U_PERCENT   ? "%"
                     : unit == GM_U_WATTS   ? "W"
                     : unit == GM_U_CELSIUS ? "C"
                     : unit == GM_U_MHZ     ? "MHz"
                     : unit == GM_U_SECONDS ? "s"
                                            : NULL;
    if (ok && strcmp(suffix, ok) == 0) {
        *out = v;
        return 0;
    }
    return fail(ps, start, "unit \"%s\" does not fit %s (%s)", suffix,
                gm_rule_operand_name(operand), ok ? ok : "a plain number");
}

/* One duration argument of a window function, up to ',' or ')'. */
static int parse_window_duration(struct parser *ps, const char *what, int64_t max_s, int32_t *out)
{
    skip_ws(ps);
    const char *at = ps->p;
    size_t n = strcspn(ps->p, ",) \t");
    char d[32];
    if (n == 0)
        return fail(ps, at, "expected a %s (e.g. 5m, 1h)", what);
    if (n >= sizeof(d))
        return fail(ps, at, "invalid %s \"%.*s\" (examples: 30s, 5m, 6h)", what, (int)n, at);
    memcpy(d, at, n);
    d[n] = '\0';
    int64_t ns;
    if (gm_parse_duration(d, &ns) != 0 || ns <= 0)
        return fail(ps, at, "invalid %s \"%s\" (examples: 30s, 5m, 6h)", what, d);
    if (ns % SEC != 0)
        return fail(ps, at, "%s \"%s\" is not a whole number of seconds", what, d);
    if (ns / SEC > max_s)
        return fail(ps, at, "%s \"%s\" is longer than %lldh", what, d, (long long)(max_s / 3600));
    ps->p += n;
    *out = (int32_t)(ns / SEC);
    return 0;
}

/* fn(OPERAND, WINDOW) or predict(OPERAND, WINDOW, HORIZON), the function's
 * name already read (fname, at fat) and ps->p at '('.  The operand's name
 * goes to name, where it starts to *opat. */
static int parse_window(struct parser *ps, const char *fat, const char *fname,
                        struct gm_rule_node *nd, char *name, size_t nlen, const char **opat)
{
    int fn = gm_window_fn_lookup(fname, strlen(fname));
    if (fn < 0)
        return fail(ps, fat, "unknown function \"%s\" (avg, min, max, stddev, slope, predict)",
                    fname);
    if (ps->scope == GM_RS_HOST)
        return fail(ps, fat, "%s(): window functions are per GPU; this rule has scope = host",
                    fname);
    ps->p++; /* ( */
    skip_ws(ps);
    const char *at = ps->p;
    if (!is_ident_start(*ps->p))
        return fail(ps, at, "expected a metric name inside %s()", fname);
    ps->p = ident_end(ps->p);
    size_t len = (size_t)(ps->p - at);
    if (len >= nlen)
        return fail(ps, at, "name too long");
    memcpy(name, at, len);
    name[len] = '\0';
    *opat = at;
    skip_ws(ps);
    if (*ps->p == '(')
        return fail(ps, at, "window functions take a metric, not another function");
    if (*ps->p != ',')
        return fail(ps, *ps->p ? ps->p : at, "expected ',' and a window length (e.g. %s(%s, 5m))",
                    fname, name);
    ps->p++;
    if (parse_window_duration(ps, "window length", GM_RULE_WINDOW_MAX_S, &nd->window_s) != 0)
        return -1;
    skip_ws(ps);
    if (fn == GM_WF_PREDICT) {
        if (*ps->p != ',')
            return fail(ps, *ps->p ? ps->p : at,
                        "expected ',' and how far ahead (e.g. predict(memory.free, 1h, 24h))");
        ps->p++;
        if (parse_window_duration(ps, "horizon", GM_RULE_HORIZON_MAX_S, &nd->horizon_s) != 0)
            return -1;
        skip_ws(ps);
    }
    if (*ps->p != ')')
        return fail(ps, *ps->p ? ps->p : at, "missing ')' after %s(...)", fname);
    ps->p++;
    nd->fn = (uint8_t)fn;
    return 0;
}

static int parse_or(struct parser *ps);

static int parse_primary(struct parser *ps)
{
    skip_ws(ps);
    if (*ps->p == '(') {
        const char *open = ps->p++;
        if (parse_or(ps) != 0)
            return -1;
        skip_ws(ps);
        if (*ps->p != ')')
            return fail(ps, *ps->p ? ps->p : open, "missing ')'");
        ps->p++;
        return 0;
    }
    if (!is_ident_start(*ps->p))
        return fail(ps, ps->p, *ps->p ? "expected a metric name" : "condition ends too early");
    const char *start = ps->p;
    ps->p = ident_end(ps->p);
    char name[128];
    size_t len = (size_t)(ps->p - start);
    if (len >= sizeof(name))
        return fail(ps, start, "name too long");
    memcpy(name, start, len);
    name[len] = '\0';
    if (!strcmp(name, "and") || !strcmp(name, "or") || !strcmp(name, "not"))
        return fail(ps, start, "expected a metric name before \"%s\"", name);
    struct gm_rule_node win = {0};
    skip_ws(ps);
    if (*ps->p == '(') {
        const char *opat = start;
        char fname[sizeof(name)];
        memcpy(fname, name, sizeof(fname));
        if (parse_window(ps, start, fname, &win, name, sizeof(name), &opat) != 0)
            return -1;
        start = opat;
    }
    int operand = operand_lookup(name);
    if (operand < 0)
        return fail(ps, start,
                    "unknown metric \"%s\" (see gpumon metrics, and the derived values in "
                    "docs/alerts.md)",
                    name);
    if (operand < GM_M__GPU_END &&
        (gm_metrics[operand].fmt == GM_F_STR || gm_metrics[operand].fmt == GM_F_TIME))
        return fail(ps, start, "%s is not a number", name);
    if (ps->scope == GM_RS_HOST && operand_scope(operand) != GM_SC_HOST)
        return fail(ps, start, "%s is a per-GPU value; this rule has scope = host", name);
    if (win.fn && operand == GM_OP_XID)
        return fail(ps, start, "xid is an event, not a value over time: it cannot be in a window");
    skip_ws(ps);
    static const struct {
        const char *s;
        uint8_t op;
    } ops[] = {{">=", GM_CMP_GE}, {"<=", GM_CMP_LE}, {"==", GM_CMP_EQ},
               {"!=", GM_CMP_NE}, {">", GM_CMP_GT},  {"<", GM_CMP_LT}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        size_t n = strlen(ops[i].s);
        if (strncmp(ps->p, ops[i].s, n) != 0)
            continue;
        ps->p += n;
        skip_ws(ps);
        struct gm_rule_node nd = win;
        nd.kind = GM_N_CMP;
        nd.op = ops[i].op;
        nd.operand = (int16_t)operand;
        if (parse_number(ps, operand, &nd.number) != 0)
            return -1;
        /* a slope is per minute; saying so is allowed ("20MiB/min") */
        if (nd.fn == GM_WF_SLOPE && strncmp(ps->p, "/min", 4) == 0 && !is_ident(ps->p[4]))
            ps->p += 4;
        return emit(ps, nd);
    }
    if (*ps->p == '=')
        return fail(ps, ps->p, "use == to compare");
    /* a bare operand is true when it is not 0 (gpu.lost, throttle.thermal) */
    struct gm_rule_node nd = win;
    nd.kind = GM_N_TRUTH;
    nd.operand = (int16_t)operand;
    return emit(ps, nd);
}

static int parse_unary(struct parser *ps)
{
    if (word(ps, "not")) {
        if (parse_unary(ps) != 0)
            return -1;
        return emit(ps, (struct gm_rule_node){.kind = GM_N_NOT});
    }
    return parse_primary(ps);
}

static int parse_and(struct parser *ps)
{
    if (parse_unary(ps) != 0)
        return -1;
    while (word(ps, "and")) {
        if (parse_unary(ps) != 0)
            return -1;
        if (emit(ps, (struct gm_rule_node){.kind = GM_N_AND}) != 0)
            return -1;
    }
    return 0;
}

static int parse_or(struct parser *ps)
{
    if (parse_and(ps) != 0)
        return -1;
    while (word(ps, "or")) {
        if (parse_and(ps) != 0)
            return -1;
        if (emit(ps, (struct gm_rule_node){.kind = GM_N_OR}) != 0)
            return -1;
    }
    return 0;
}

int gm_rule_parse(const char *text, int scope, struct gm_rule_expr *out, char *why, size_t wlen)
{
    memset(out, 0, sizeof(*out));
    /* normalise whitespace for the stored text (it is shown in notices) */
    size_t o = 0;
    int space = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            space = o > 0;
            continue;
        }
        if (space && o < sizeof(out->text) - 1)
            out->text[o++] = ' ';
        space = 0;
        if (o < sizeof(out->text) - 1)
            out->text[o++] = *p;
    }
    out->text[o] = '\0';
    if (strlen(text) >= sizeof(out->text) * 2 || o >= sizeof(out->text) - 1) {
        snprintf(why, wlen, "condition too long (at most %zu characters)", sizeof(out->text) - 2);
        return -1;
    }
    if (!o) {
        snprintf(why, wlen, "empty condition");
        return -1;
    }
    struct parser ps = {
        .src = out->text, .p = out->text, .scope = scope, .e = out, .why = why, .wlen = wlen};
    if (parse_or(&ps) != 0)
        return -1;
    skip_ws(&ps);
    if (*ps.p) {
        fail(&ps, ps.p, "unexpected \"%s\" (conditions join comparisons with and, or, not)", ps.p);
        return -1;
    }
    return 0;
}

int32_t gm_rule_window_need(const struct gm_rule_expr *e, int operand)
{
    int32_t w = 0;
    for (int i = 0; i < e->n; i++)
        if ((e->node[i].kind == GM_N_CMP || e->node[i].kind == GM_N_TRUTH) && e->node[i].fn &&
            e->node[i].operand == operand && e->node[i].window_s > w)
            w = e->node[i].window_s;
    return w;
}

int gm_rule_uses(const struct gm_rule_expr *e, int operand)
{
    for (int i = 0; i < e->n; i++)
        if ((e->node[i].kind == GM_N_CMP || e->node[i].kind == GM_N_TRUTH) &&
            e->node[i].operand == operand)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ evaluation */

/* three-valued: 1 true, 0 false, -1 unknown */
int gm_rule_eval(const struct gm_rule_expr *e, const struct gm_rule_ctx *cx, double *first,
                 int *first_op, int *first_ok)
{
    int stack[GM_RULE_NODES] = {0};
    int sp = 0, have_first = 0;
    if (first_ok)
        *first_ok = 0;
    for (int i = 0; i < e->n; i++) {
        const struct gm_rule_node *nd = &e->node[i];
        int r;
        switch (nd->kind) {
        case GM_N_CMP:
        case GM_N_TRUTH: {
            double v = 0;
            int st;
            if (!nd->fn)
                st = gm_rule_operand_value(nd->operand, cx, &v);
            else if (cx->window)
                st = cx->window(cx->window_arg, nd, &v);
            else
                st = GM_VS_NA; /* no history: not known */
            if (!have_first) {
                have_first = 1;
                if (first_op)
                    *first_op = nd->fn ? GM_RULE_WINDOWED_OP(nd->fn, nd->operand) : nd->operand;
                if (first)
                    *first = v;
                if (first_ok)
                    *first_ok = st == GM_VS_OK;
            }
            if (st == GM_VS_UNSUPPORTED) {
                /* a value this GPU never reports cannot meet a comparison:
                 * false, not unknown, or `x or unsupported` would never end */
                r = 0;
            } else if (st != GM_VS_OK) {
                r = -1;
            } else if (nd->kind == GM_N_TRUTH) {
                r = v != 0;
            } else {
                switch (nd->op) {
                case GM_CMP_GT:
                    r = v > nd->number;
                    break;
                case GM_CMP_GE:
                    r = v >= nd->number;
                    break;
                case GM_CMP_LT:
                    r = v < nd->number;
                    break;
                case GM_CMP_LE:
                    r = v <= nd->number;
                    break;
                case GM_CMP_EQ:
                    r = v == nd->number;
                    break;
                default:
                    r = v != nd->number;
                    break;
                }
            }
            stack[sp++] = r;
            break;
        }
        case GM_N_NOT:
            if (sp < 1)
                return -1;
            if (stack[sp - 1] >= 0)
                stack[sp - 1] = !stack[sp - 1];
            break;
        case GM_N_AND:
        case GM_N_OR: {
            if (sp < 2)
                return -1;
            int b = stack[--sp], a = stack[--sp];
            if (nd->kind == GM_N_AND)
                r = (a == 0 || b == 0) ? 0 : (a < 0 || b < 0) ? -1 : 1;
            else
                r = (a == 1 || b == 1) ? 1 : (a < 0 || b < 0) ? -1 : 0;
            stack[sp++] = r;
            break;
        }
        default:
            return -1;
        }
    }
    return sp == 1 ? stack[0] : -1;
}

/* ----------------------------------------------------------------- keys */

enum {
    K_WHEN,
    K_CLEAR,
    K_FOR,
    K_SAMPLES,
    K_KEEP,
    K_REPEAT,
    K_SEVERITY,
    K_SCOPE,
    K_SUMMARY,
    K_LABELS,
    K_ENABLED,
    K__N
};

static const struct {
    const char *key;
    const char *arg;
    const char *def;
    const char *help;
} keys[K__N] = {
    [K_WHEN] = {"when", "CONDITION", "(required)",
                "the condition: comparisons of a metric, or of a window over it "
                "(`avg(utilization.gpu, 5m)`), with a number, joined by and, or, not, ( )"},
    [K_CLEAR] = {"clear", "CONDITION", "not when",
                 "hysteresis: a firing alert resolves only when this holds (e.g. "
                 "`temperature.gpu < 80` for `when = temperature.gpu > 85`)"},
    [K_FOR] = {"for", "DURATION", "0",
               "the condition must hold this long (on consecutive samples) before the alert "
               "fires; until then it is pending"},
    [K_SAMPLES] = {"samples", "N", "1",
                   "instead of `for`: the condition must hold on N consecutive samples (the "
                   "seeds' \"3 runs in a row\" from cron)"},
    [K_KEEP] = {"keep-firing-for", "DURATION", "0",
                "stay firing this long after the condition stopped holding (for events such as "
                "Xid errors that are true only for an instant)"},
    [K_REPEAT] = {"repeat", "DURATION", "4h",
                  "notify again while the alert keeps firing, this often (0 = only once)"},
    [K_SEVERITY] = {"severity", "warning or critical", "warning", "how urgent"},
    [K_SCOPE] = {"scope", "gpu or host", "gpu",
                 "evaluate per GPU, or once for the host (driver.lost and host metrics only)"},
    [K_SUMMARY] = {"summary", "TEXT", "(see below)",
                   "one line for people; placeholders {{rule}}, {{severity}}, {{gpu}}, {{name}}, "
                   "{{uuid}}, {{bus}}, {{host}}, {{value}}, {{condition}}"},
    [K_LABELS] = {"labels", "NAME=VALUE,...", "",
                  "extra labels for Alertmanager and the notices (e.g. team=ml,room=b2)"},
    [K_ENABLED] = {"enabled", "BOOL", "true", "false turns the rule off (also a default rule)"},
};

static int find_key(const char *key)
{
    for (int i = 0; i < K__N; i++)
        if (strcmp(keys[i].key, key) == 0)
            return i;
    return -1;
}

static const char default_summary[] =
    "{{rule}} on GPU {{gpu}} ({{name}}): {{condition}}, now {{value}}";

static void rule_init(struct gm_rule *r, const char *name)
{
    memset(r, 0, sizeof(*r));
    gm_strlcpy(r->name, name, sizeof(r->name));
    r->enabled = 1;
    r->repeat_ns = 4LL * 60 * MIN;
    r->severity = GM_SEV_WARNING;
    r->scope = GM_RS_GPU;
    gm_strlcpy(r->summary, default_summary, sizeof(r->summary));
}

static int set_key(struct gm_rule *r, int k, const char *value, char *why, size_t wlen)
{
    int64_t ns;
    switch (k) {
    case K_WHEN:
    case K_CLEAR: {
        struct gm_rule_expr *e = k == K_WHEN ? &r->when : &r->clear;
        return gm_rule_parse(value, r->scope, e, why, wlen);
    }
    case K_FOR:
    case K_KEEP:
    case K_REPEAT:
        if (gm_parse_duration(value, &ns) != 0 || ns < 0) {
            snprintf(why, wlen, "invalid duration \"%s\" (examples: 30s, 5m, 1h)", value);
            return -1;
        }
        if (ns > 365LL * 86400 * SEC) {
            snprintf(why, wlen, "%s \"%s\" is longer than a year", keys[k].key, value);
            return -1;
        }
        if (k == K_FOR)
            r->for_ns = ns;
        else if (k == K_KEEP)
            r->keep_firing_ns = ns;
        else
            r->repeat_ns = ns;
        return 0;
    case K_SAMPLES: {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (errno || end == value || *end || v < 1 || v > 100000) {
            snprintf(why, wlen, "invalid sample count \"%s\" (1 to 100000)", value);
            return -1;
        }
        r->samples = (unsigned)v;
        return 0;
    }
    case K_SEVERITY:
        if (!strcmp(value, "warning"))
            r->severity = GM_SEV_WARNING;
        else if (!strcmp(value, "critical"))
            r->severity = GM_SEV_CRITICAL;
        else {
            snprintf(why, wlen, "invalid severity \"%s\" (warning or critical)", value);
            return -1;
        }
        return 0;
    case K_SCOPE:
        if (!strcmp(value, "gpu"))
            r->scope = GM_RS_GPU;
        else if (!strcmp(value, "host"))
            r->scope = GM_RS_HOST;
        else {
            snprintf(why, wlen, "invalid scope \"%s\" (gpu or host)", value);
            return -1;
        }
        return 0;
    case K_SUMMARY:
        if (strlen(value) >= sizeof(r->summary)) {
            snprintf(why, wlen, "summary too long (at most %zu bytes)", sizeof(r->summary) - 1);
            return -1;
        }
        gm_strlcpy(r->summary, value, sizeof(r->summary));
        return 0;
    case K_LABELS: {
        r->nlabels = 0;
        const char *p = value;
        while (*p) {
            while (*p == ' ' || *p == ',')
                p++;
            if (!*p)
                break;
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            const char *eq = memchr(p, '=', len);
            if (!eq || eq == p) {
                snprintf(why, wlen, "invalid label \"%.*s\" (NAME=VALUE)", (int)len, p);
                return -1;
            }
            size_t nl = (size_t)(eq - p), vl = len - nl - 1;
            while (nl && p[nl - 1] == ' ')
                nl--;
            const char *v = eq + 1;
            while (vl && *v == ' ') {
                v++;
                vl--;
            }
            while (vl && v[vl - 1] == ' ')
                vl--;
            if (r->nlabels == GM_ALERT_MAX_LABELS) {
                snprintf(why, wlen, "too many labels (at most %d)", GM_ALERT_MAX_LABELS);
                return -1;
            }
            struct gm_alert_label *l = &r->labels[r->nlabels];
            if (nl >= sizeof(l->name) || vl >= sizeof(l->value)) {
                snprintf(why, wlen, "label \"%.*s\" too long", (int)len, p);
                return -1;
            }
            /* Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]*, not __reserved */
            if (!(isalpha((unsigned char)p[0]) || p[0] == '_') ||
                (nl >= 2 && !strncmp(p, "__", 2))) {
                snprintf(why, wlen, "invalid label name \"%.*s\"", (int)nl, p);
                return -1;
            }
            for (size_t i = 0; i < nl; i++)
                if (!isalnum((unsigned char)p[i]) && p[i] != '_') {
                    snprintf(why, wlen, "invalid label name \"%.*s\" (letters, digits, _)", (int)nl,
                             p);
                    return -1;
                }
            static const char *const reserved[] = {"alertname", "severity", "gpu", "uuid",
                                                   "instance",  "hostname", "name"};
            for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
                if (strlen(reserved[i]) == nl && !strncmp(p, reserved[i], nl)) {
                    snprintf(why, wlen, "label \"%s\" is set by gpumon itself", reserved[i]);
                    return -1;
                }
            memcpy(l->name, p, nl);
            l->name[nl] = '\0';
            memcpy(l->value, v, vl);
            l->value[vl] = '\0';
            r->nlabels++;
            p += len;
        }
        return 0;
    }
    case K_ENABLED:
        if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "on") ||
            !strcmp(value, "1"))
            r->enabled = 1;
        else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "off") ||
                 !strcmp(value, "0"))
            r->enabled = 0;
        else {
            snprintf(why, wlen, "invalid boolean \"%s\" (true or false)", value);
            return -1;
        }
        return 0;
    }
    return -1;
}

/* -------------------------------------------------------- default rules */

struct def_rule {
    const char *name;
    const char *kv[12]; /* key, value pairs, NULL-terminated */
    const char *why;    /* docs/alerts.md */
};

/* the summaries and reasons are long literals split over lines, on purpose */
// NOLINTBEGIN(bugprone-suspicious-missing-comma)
static const struct def_rule defaults[] = {
    {"gpu-temperature-high",
     {"when", "temperature.gpu > 85", "clear", "temperature.gpu < 80", "for", "1m", "severity",
      "warning", "summary", "GPU {{gpu}} ({{name}}) has been above 85 °C for a minute: {{value}}",
      NULL},
     "Most boards start to clock down in the 83-93 °C range; a minute above 85 °C is a cooling "
     "problem, not a spike.  It resolves below 80 °C so that a GPU hovering at 85 °C does not "
     "page on and off."},
    {"gpu-memory-low",
     {"when", "memory.free < 2GiB and memory.free_pct < 10", "for", "5m", "severity", "warning",
      "summary",
      "GPU {{gpu}} ({{name}}) has had less than 10 % and 2 GiB of memory free for 5 minutes: "
      "{{value}} free",
      NULL},
     "Both limits, because 10 % of an 80 GiB card is plenty and 2 GiB of a 6 GiB card is "
     "not; for five minutes, because frameworks allocate in bursts at start-up."},
    {"gpu-power-at-limit",
     {"when", "power.draw_pct >= 98", "for", "5m", "severity", "warning", "summary",
      "GPU {{gpu}} ({{name}}) has been at its power limit for 5 minutes: {{value}} of the limit",
      NULL},
     "A GPU pinned at its power cap runs at lower clocks than it could; harmless for a "
     "moment, a capacity question when it lasts."},
    {"gpu-throttled",
     {"when", "throttle.thermal or throttle.power_brake", "for", "2m", "severity", "warning",
      "summary", "GPU {{gpu}} ({{name}}) has been slowed down for 2 minutes: {{value}}", NULL},
     "Thermal slowdown and the hardware power brake cut clocks whatever the utilisation says "
     "(the seeds' \"100 % busy but slow\"); the software power cap is left to "
     "gpu-power-at-limit."},
    {"gpu-power-zero",
     {"when", "power.draw == 0 and procs.count > 0", "for", "1m", "severity", "warning", "summary",
      "GPU {{gpu}} ({{name}}) reports 0 W while processes hold it: the GPU or driver may be "
      "failing",
      NULL},
     "A loaded GPU never draws 0 W; a reading of 0 with processes on it goes with a card "
     "dropping off or a driver in trouble (the seeds' third hardware signal)."},
    {"gpu-temperature-critical",
     {"when", "temperature.gpu >= 92 or temperature.margin <= 0", "clear",
      "temperature.gpu < 90 and not temperature.margin < 3", "severity", "critical", "summary",
      "GPU {{gpu}} ({{name}}) is at {{value}}, at or past its slowdown temperature or 92 °C", NULL},
     "At 92 °C, or at the GPU's own slowdown threshold, the card is protecting itself; "
     "no waiting period.  A GPU at its threshold is held there by its own throttling, a "
     "degree up and down, so the alert resolves only below 90 °C and 3 °C under the "
     "threshold (or where the GPU reports no threshold), not at every dip."},
    {"gpu-ecc-uncorrectable",
     {"when", "ecc.uncorrected.new > 0", "keep-firing-for", "1h", "severity", "critical", "summary",
      "GPU {{gpu}} ({{name}}) reported {{value}} uncorrectable ECC errors: memory is failing",
      NULL},
     "New uncorrectable errors mean corrupted data and usually a row remap or a board to "
     "replace; it stays firing for an hour after the last new error."},
    {"gpu-lost",
     {"when", "gpu.lost", "severity", "critical", "summary",
      "GPU {{gpu}} ({{uuid}}, {{bus}}) is lost: it fell off the bus or stopped answering", NULL},
     "NVML's \"GPU is lost\": the jobs on it are dead; dmesg usually shows Xid 79."},
    {"driver-lost",
     {"when", "driver.lost", "scope", "host", "severity", "critical", "summary",
      "gpumon on {{host}} cannot talk to the NVIDIA driver: {{value}} (run 'gpumon doctor' "
      "there)",
      NULL},
     "Nothing can be monitored or run: the driver is not loaded, was upgraded under a "
     "running system (version mismatch), or libnvidia-ml.so.1 is missing."},
    {"gpu-xid",
     {"when", "xid > 0 and xid != 13 and xid != 31 and xid != 43 and xid != 45", "keep-firing-for",
      "15m", "severity", "critical", "summary", "GPU {{gpu}} ({{name}}) reported {{value}}", NULL},
     "Xid errors are the driver's own error reports, delivered as NVML events the moment they "
     "happen.  Xid 13, 31, 43 and 45 are usually caused by the application (illegal "
     "instruction, page fault, stopped or killed job) and are left out; the rest (48 double-bit "
     "ECC, 63/64 row remapping, 74 NVLink, 79 fallen off the bus, 92/94/95 ECC, 119/120 GSP, "
     "...) point at hardware or driver trouble."},
    {"gpu-dead-process-memory",
     {"when", "procs.dead_memory > 0", "for", "10m", "severity", "critical", "summary",
      "GPU {{gpu}} ({{name}}): {{value}} held by processes that no longer exist, for 10 "
      "minutes",
      NULL},
     "A crashed job whose memory is never released blocks the next one (the seeds' zombie "
     "child of a dead scheduler).  gpumon only reports it: it never kills anything."},
    {"gpu-memory-growth",
     {"when", "predict(memory.free, 1h, 24h) < 0 and slope(memory.used, 10m) > 0", "for", "15m",
      "severity", "warning", "summary",
      "GPU {{gpu}} ({{name}}): memory is growing and will run out within a day at the rate of "
      "the last hour (free memory in 24 h: {{value}})",
      NULL},
     "A leak warns while there is time to act, not when the card is full: the least-squares "
     "line through the last hour of free memory reaches 0 within 24 h, and memory is still "
     "growing over the last 10 minutes.  In scenarios/alerts/memory-growth.ini a 20 MiB/min "
     "leak on an 80 GiB card warns 22 hours before gpu-memory-low does.  The 10-minute slope "
     "and the 15 minutes of `for` keep a job that allocates a large block once (a model "
     "loaded at start-up) from firing it: its memory stops growing within the 15 minutes.  "
     "Known once an hour of samples is half covered."},
    {"gpu-input-starved",
     {"when",
      "avg(utilization.gpu, 5m) < 50 and stddev(utilization.gpu, 5m) > 20 and procs.count > 0",
      "for", "5m", "severity", "warning", "summary",
      "GPU {{gpu}} ({{name}}) has a job but computes in short bursts, {{value}} busy on "
      "average over 5 minutes: it is waiting for its input (data loader, storage, network)",
      NULL},
     "A job starved by its input runs the GPU in bursts between long waits: each sample reads "
     "either busy or idle, so a condition on the current value never holds for long.  Over 5 "
     "minutes the average is low and the spread high; a GPU that is idle with a job on it "
     "(an open notebook) has no spread and is left alone, as is a busy one."},
};
// NOLINTEND(bugprone-suspicious-missing-comma)
#define NDEFAULTS (sizeof(defaults) / sizeof(defaults[0]))

/* Default rule i, as the file finds it. */
static void default_rule(size_t i, struct gm_rule *x)
{
    rule_init(x, defaults[i].name);
    x->builtin = 1;
    /* scope first: the conditions are checked against it */
    for (int k = 0; defaults[i].kv[k]; k += 2)
        if (!strcmp(defaults[i].kv[k], "scope"))
            set_key(x, K_SCOPE, defaults[i].kv[k + 1], NULL, 0);
    for (int k = 0; defaults[i].kv[k]; k += 2) {
        char why[256];
        if (set_key(x, find_key(defaults[i].kv[k]), defaults[i].kv[k + 1], why, sizeof(why)) != 0) {
            fprintf(stderr, "gpumon: bug: default rule %s: %s\n", x->name, why);
            abort();
        }
    }
    x->set = 0; /* keys given in a file override these once each */
}

void gm_rules_defaults(struct gm_rules *r)
{
    gm_zero_sparse(r, sizeof(*r)); /* the unused rules stay unwritten */
    r->defaults = 1;
    for (size_t i = 0; i < NDEFAULTS; i++)
        default_rule(i, &r->rule[r->n++]);
}

int gm_rules_set(struct gm_rules *r, const char *name, const char *key, const char *value,
                 char *why, size_t wlen)
{
    size_t nlen = strlen(name);
    if (nlen == 0 || nlen >= sizeof(r->rule[0].name) ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != nlen) {
        snprintf(why, wlen, "invalid rule name \"%s\" (1-63 letters, digits, '_', '-')", name);
        return -1;
    }
    int k = find_key(key);
    if (k < 0) {
        snprintf(why, wlen,
                 "unknown key \"%s\" in [alert.%s] (one of: when, clear, for, samples, "
                 "keep-firing-for, repeat, severity, scope, summary, labels, enabled)",
                 key, name);
        return -1;
    }
    struct gm_rule *x = NULL;
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->rule[i].name, name))
            x = &r->rule[i];
    if (!x) {
        if (r->n == GM_RULES_MAX) {
            snprintf(why, wlen, "too many rules (at most %d)", GM_RULES_MAX);
            return -1;
        }
        x = &r->rule[r->n++];
        rule_init(x, name);
    }
    if (x->set & (1u << k)) {
        snprintf(why, wlen, "duplicate key \"%s\" in [alert.%s]", key, name);
        return -1;
    }
    /* scope changes what a condition may use: re-check them afterwards */
    if (set_key(x, k, value, why, wlen) != 0)
        return -1;
    x->set |= 1u << k;
    if (k == K_SCOPE) {
        char w2[256];
        struct gm_rule_expr tmp;
        if (x->when.n && gm_rule_parse(x->when.text, x->scope, &tmp, w2, sizeof(w2)) != 0) {
            snprintf(why, wlen, "scope = %s does not fit when: %s", value, w2);
            return -1;
        }
        if (x->clear.n && gm_rule_parse(x->clear.text, x->scope, &tmp, w2, sizeof(w2)) != 0) {
            snprintf(why, wlen, "scope = %s does not fit clear: %s", value, w2);
            return -1;
        }
    }
    return 0;
}

static int summary_check(const char *t, char *bad, size_t blen)
{
    static const char *const ph[] = {"rule", "severity", "gpu",   "name",     "uuid",
                                     "bus",  "host",     "value", "condition"};
    for (const char *p = strstr(t, "{{"); p; p = strstr(p + 2, "{{")) {
        const char *e = strstr(p + 2, "}}");
        if (!e) {
            snprintf(bad, blen, "unterminated \"{{\"");
            return -1;
        }
        size_t n = (size_t)(e - p - 2);
        int ok = 0;
        for (size_t i = 0; i < sizeof(ph) / sizeof(ph[0]); i++)
            ok |= strlen(ph[i]) == n && !strncmp(ph[i], p + 2, n);
        if (!ok) {
            snprintf(bad, blen, "unknown placeholder \"{{%.*s}}\"", (int)n, p + 2);
            return -1;
        }
    }
    return 0;
}

int gm_rule_check(const struct gm_rule *x, char *why, size_t wlen)
{
    if (!x->when.n) {
        snprintf(why, wlen, "[alert.%s] has no \"when\" condition", x->name);
        return -1;
    }
    if ((x->set & (1u << K_FOR)) && (x->set & (1u << K_SAMPLES))) {
        snprintf(why, wlen, "[alert.%s]: give either \"for\" or \"samples\", not both", x->name);
        return -1;
    }
    if (gm_rule_uses(&x->when, GM_OP_XID) && (x->for_ns > 0 || x->samples > 1)) {
        snprintf(why, wlen,
                 "[alert.%s]: xid is true only at the instant of the event; such a rule "
                 "cannot wait (drop \"for\"/\"samples\", use keep-firing-for)",
                 x->name);
        return -1;
    }
    if (x->clear.n && gm_rule_uses(&x->clear, GM_OP_XID)) {
        snprintf(why, wlen, "[alert.%s]: clear cannot use xid", x->name);
        return -1;
    }
    char bad[128];
    if (summary_check(x->summary, bad, sizeof(bad)) != 0) {
        snprintf(why, wlen, "[alert.%s] summary: %s", x->name, bad);
        return -1;
    }
    return 0;
}

int gm_rules_check(const struct gm_rules *r, char *why, size_t wlen)
{
    for (int i = 0; i < r->n; i++)
        if (gm_rule_check(&r->rule[i], why, wlen) != 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- output */

static void dur_text(int64_t ns, char *b, size_t n)
{
    if (ns == 0)
        snprintf(b, n, "0");
    else if (ns % (3600 * SEC) == 0)
        snprintf(b, n, "%lldh", (long long)(ns / (3600 * SEC)));
    else if (ns % MIN == 0)
        snprintf(b, n, "%lldm", (long long)(ns / MIN));
    else if (ns % SEC == 0)
        snprintf(b, n, "%llds", (long long)(ns / SEC));
    else
        gm_duration_fine(ns, b, n);
}

void gm_rule_dump_one(const struct gm_rule *x, struct gm_buf *out)
{
    char d[32];
    /* A key is left out only where its value is what the section starts
     * with when the file is read: a default rule's own (keep-firing-for =
     * 1h of gpu-ecc-uncorrectable, scope = host of driver-lost), else a new
     * rule's.  Leaving out "keep-firing-for = 0" of a default rule that
     * has it made the dump read back as another rule. */
    struct gm_rule base;
    rule_init(&base, x->name);
    for (size_t i = 0; x->builtin && i < NDEFAULTS; i++)
        if (!strcmp(defaults[i].name, x->name))
            default_rule(i, &base);
    gm_buf_printf(out, "[alert.%s]\n", x->name);
    if (!x->enabled)
        gm_buf_puts(out, "enabled = false\n");
    if (x->scope != base.scope || x->scope == GM_RS_HOST)
        gm_buf_printf(out, "scope = %s\n", x->scope == GM_RS_HOST ? "host" : "gpu");
    gm_buf_printf(out, "when = %s\n", x->when.text);
    if (x->clear.n)
        gm_buf_printf(out, "clear = %s\n", x->clear.text);
    if (x->samples) {
        gm_buf_printf(out, "samples = %u\n", x->samples);
    } else {
        dur_text(x->for_ns, d, sizeof(d));
        gm_buf_printf(out, "for = %s\n", d);
    }
    if (x->keep_firing_ns || base.keep_firing_ns) {
        dur_text(x->keep_firing_ns, d, sizeof(d));
        gm_buf_printf(out, "keep-firing-for = %s\n", d);
    }
    dur_text(x->repeat_ns, d, sizeof(d));
    gm_buf_printf(out, "repeat = %s\n", d);
    gm_buf_printf(out, "severity = %s\n", gm_alert_severity_name(x->severity));
    if (x->nlabels) {
        gm_buf_puts(out, "labels = ");
        for (int i = 0; i < x->nlabels; i++)
            gm_buf_printf(out, "%s%s=%s", i ? "," : "", x->labels[i].name, x->labels[i].value);
        gm_buf_putc(out, '\n');
    }
    gm_buf_ini_kv(out, "summary", x->summary);
}

void gm_rules_dump(const struct gm_rules *r, struct gm_buf *out)
{
    for (int i = 0; i < r->n; i++) {
        gm_buf_putc(out, '\n');
        gm_rule_dump_one(&r->rule[i], out);
    }
}

void gm_rules_markdown_keys(struct gm_buf *out)
{
    gm_buf_puts(out, "| key | value | default | meaning |\n|---|---|---|---|\n");
    for (int k = 0; k < K__N; k++)
        gm_buf_printf(out, "| `%s` | %s | %s | %s |\n", keys[k].key, keys[k].arg,
                      keys[k].def[0] ? keys[k].def : "(none)", keys[k].help);
    gm_buf_printf(out, "\nThe default summary is `%s`.\n", default_summary);
}

void gm_rules_markdown(struct gm_buf *out)
{
    gm_buf_puts(out, "### Keys of an `[alert.NAME]` section\n\n");
    gm_rules_markdown_keys(out);
    gm_buf_puts(out, "\n### Derived values\n\nBesides every numeric metric of `gpumon metrics` "
                     "(nvidia-smi's names, compared in the registry's base units: bytes, W, °C, "
                     "MHz, %), conditions can use:\n\n| name | unit | scope | meaning |\n"
                     "|---|---|---|---|\n");
    for (int i = 0; i < gm_rule_noperands; i++) {
        const struct gm_rule_operand_info *o = &gm_rule_operands[i];
        gm_buf_printf(out, "| `%s` | %s | %s | %s |\n", o->name,
                      o->unit == GM_U_PERCENT   ? "%"
                      : o->unit == GM_U_BYTES   ? "bytes"
                      : o->unit == GM_U_CELSIUS ? "°C"
                                                : "number",
                      o->scope == GM_SC_HOST ? "host" : "GPU", o->help);
    }
    gm_buf_puts(out, "\n### The default rule set\n\n");
    struct gm_rules r;
    gm_rules_defaults(&r);
    for (int i = 0; i < r.n; i++) {
        gm_buf_printf(out, "#### %s (%s)\n\n%s\n\n```ini\n", r.rule[i].name,
                      gm_alert_severity_name(r.rule[i].severity), defaults[i].why);
        gm_rule_dump_one(&r.rule[i], out);
        gm_buf_puts(out, "```\n\n");
    }
}

void gm_rule_summary(const struct gm_rule *r, const struct gm_alert *a, char *out, size_t len)
{
    size_t o = 0;
    const char *t = r->summary;
    if (!len)
        return;
    while (*t && o < len - 1) {
        if (t[0] == '{' && t[1] == '{') {
            const char *e = strstr(t + 2, "}}");
            if (e) {
                char name[32], val[600] = "";
                size_t n = (size_t)(e - t - 2);
                if (n < sizeof(name)) {
                    memcpy(name, t + 2, n);
                    name[n] = '\0';
                    if (!strcmp(name, "rule"))
                        snprintf(val, sizeof(val), "%s", a->rule);
                    else if (!strcmp(name, "severity"))
                        snprintf(val, sizeof(val), "%s", gm_alert_severity_name(a->severity));
                    else if (!strcmp(name, "gpu"))
                        snprintf(val, sizeof(val), a->gpu >= 0 ? "%d" : "(host)", (int)a->gpu);
                    else if (!strcmp(name, "name"))
                        snprintf(val, sizeof(val), "%s", a->gpu_name[0] ? a->gpu_name : "?");
                    else if (!strcmp(name, "uuid"))
                        snprintf(val, sizeof(val), "%s", a->uuid[0] ? a->uuid : "?");
                    else if (!strcmp(name, "bus"))
                        snprintf(val, sizeof(val), "%s", a->pci_bus_id[0] ? a->pci_bus_id : "?");
                    else if (!strcmp(name, "host"))
                        snprintf(val, sizeof(val), "%s", a->host);
                    else if (!strcmp(name, "value")) {
                        /* a slow read group's value says how old it is */
                        char age[48] = "";
                        if (a->value_text[0] && a->value_ok)
                            gm_alert_age_text(a->value_age_ms, age, sizeof(age));
                        snprintf(val, sizeof(val), "%s%s", a->value_text[0] ? a->value_text : "N/A",
                                 age);
                    } else if (!strcmp(name, "condition"))
                        snprintf(val, sizeof(val), "%s", a->condition);
                    size_t vl = strlen(val);
                    if (vl > len - 1 - o)
                        vl = len - 1 - o;
                    memcpy(out + o, val, vl);
                    o += vl;
                    t = e + 2;
                    continue;
                }
            }
        }
        out[o++] = *t++;
    }
    out[o] = '\0';
}

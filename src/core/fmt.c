/* fmt.c -- spelling registry values for nvidia-smi CSV, our CSV log and JSON
 * (see fmt.h).  Unit conversions come from gm_units[] in metrics.c, process
 * values from the per-process field table (procfield.c). */
#include "fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "procfield.h"
#include "timeutil.h"

static const struct gm_value v_na = {.status = GM_VS_NA};

static _Thread_local struct gm_value tls_tmp;

const struct gm_value *gm_fmt_value(const struct gm_snapshot *s, const struct gm_gpu *g,
                                    const struct gm_proc *p, int id)
{
    if (id < 0 || id >= GM_M__COUNT)
        return &v_na;
    if (gm_metrics[id].scope == GM_SC_PROC)
        return gm_proc_value(p, id, &tls_tmp); /* NA without p */
    if (id == GM_M_TIMESTAMP) {
        tls_tmp = gm_v_i64(s->wall_ns);
        return &tls_tmp;
    }
    if (id == GM_M_COUNT) {
        tls_tmp =
            s->driver == GM_DRV_OK ? gm_v_u64(s->ngpu) : gm_v_status(GM_VS_ERROR, s->driver_code);
        return &tls_tmp;
    }
    return gm_gpu_value(s, g, id);
}

const char *gm_fmt_string(const struct gm_snapshot *s, const struct gm_gpu *g,
                          const struct gm_proc *p, int id)
{
    const struct gm_value *v = gm_fmt_value(s, g, p, id);
    if (!gm_v_ok(v))
        return NULL;
    switch (id) {
    case GM_M_DRIVER_VERSION:
    case GM_M_KMD_VERSION:
        return s->driver_version_s;
    case GM_M_NVML_VERSION:
        return s->nvml_version_s;
    default:
        break;
    }
    if (gm_metrics[id].scope == GM_SC_PROC)
        return gm_proc_text(p, id);
    if (gm_metrics[id].fmt == GM_F_STR && g)
        return g->str[gm_metrics[id].sslot];
    return NULL;
}

const char *gm_fmt_smi_absent(int id, const struct gm_value *v)
{
    switch (v->status) {
    case GM_VS_NOPERM:
        return "[Insufficient Permissions]";
    case GM_VS_LOST:
        return "[GPU is lost]";
    case GM_VS_ERROR: {
        static _Thread_local char b[64];
        snprintf(b, sizeof(b), "[%s]", gm_nvml_error_text(v->code));
        return b;
    }
    default:
        /* modern nvidia-smi prints [N/A] for "not supported" too */
        return gm_metrics[id].smi_na ? gm_metrics[id].smi_na : "[N/A]";
    }
}

static const char *enum_text(int fmt, uint64_t u)
{
    switch (fmt) {
    case GM_F_ENABLED:
        return u ? "Enabled" : "Disabled";
    case GM_F_ACTIVE:
        return u ? "Active" : "Not Active";
    case GM_F_YESNO:
        return u ? "Yes" : "No";
    case GM_F_COMPUTE_MODE:
        switch (u) {
        case 0:
            return "Default";
        case 1:
            return "Exclusive_Thread";
        case 2:
            return "Prohibited";
        case 3:
            return "Exclusive_Process";
        default:
            return "Unknown";
        }
    case GM_F_HOSTSTATE:
        return gm_host_state_name((enum gm_host_state)u);
    case GM_F_DRIVER_MODEL:
        return u == 0 ? "WDDM" : u == 1 ? "TCC" : u == 2 ? "MCDM" : "Unknown";
    case GM_F_GOM:
        return u == 0 ? "All On" : u == 1 ? "Compute" : u == 2 ? "Low Double Precision" : "Unknown";
    case GM_F_FABRIC_STATE:
        return u == 0   ? "Not Supported"
               : u == 1 ? "Not Started"
               : u == 2 ? "In Progress"
               : u == 3 ? "Completed"
                        : "Unknown";
    case GM_F_NVML_RC:
        return u == 0 ? "Success" : gm_nvml_error_text((int)u);
    case GM_F_VALID:
        return u ? "valid" : "invalid";
    case GM_F_ADDR_MODE:
        return u == 0 ? "None" : u == 1 ? "HMM" : u == 2 ? "ATS" : "Unknown";
    case GM_F_FABRIC_HEALTH: /* NVML_GPU_FABRIC_HEALTH_SUMMARY_* (0, not supported, is absent) */
        return u == 1 ? "Healthy" : u == 2 ? "Unhealthy" : u == 3 ? "Limited Capacity" : "Unknown";
    case GM_F_FABRIC_BW: /* NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_TRUE/_FALSE */
        return u == 1 ? "Degraded" : u == 2 ? "Full" : "Unknown";
    case GM_F_TRUE_FALSE: /* the other NVML_GPU_FABRIC_HEALTH_MASK_*_TRUE/_FALSE */
        return u == 1 ? "True" : u == 2 ? "False" : "Unknown";
    case GM_F_FABRIC_CONFIG: /* NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_* */
        switch (u) {
        case 1:
            return "None";
        case 2:
            return "Incorrect SysGUID";
        case 3:
            return "Incorrect Chassis Serial Number";
        case 4:
            return "No Partition";
        case 5:
            return "Insufficient NVLinks";
        case 6:
            return "Incompatible GPU Firmware";
        case 7:
            return "Invalid Location";
        case 8:
            return "GPU State Invalid";
        default:
            return "Unknown";
        }
    case GM_F_PEER_TYPE: /* 0 as every capture prints it; 1 derived (docs/compat.md) */
        return u == 0 ? "Direct Connected" : u == 1 ? "Switch Connected" : "Unknown";
    case GM_F_RECOVERY: /* nvmlDeviceGpuRecoveryAction_t; only "None" is seen in a capture */
        return u == 0   ? "None"
               : u == 1 ? "GPU Reset"
               : u == 2 ? "Node Reboot"
               : u == 3 ? "Drain P2P"
               : u == 4 ? "Drain and Reset"
                        : "Unknown";
    case GM_F_PTYPE:
        return u == (GM_PT_COMPUTE | GM_PT_GRAPHICS) ? "C+G" : (u & GM_PT_GRAPHICS) ? "G" : "C";
    default:
        return NULL;
    }
}

/* The number of v in the unit's nvidia-smi scale, with its decimals. */
static void smi_number(const struct gm_value *v, int unit, char *buf, size_t len)
{
    const struct gm_unit_info *u = &gm_units[unit];
    if (u->smi_decimals == 0 && v->type != GM_VT_F64 && u->smi_div == 1) {
        if (v->type == GM_VT_I64)
            snprintf(buf, len, "%" PRId64, v->v.i);
        else
            snprintf(buf, len, "%" PRIu64, v->v.u);
        return;
    }
    double x = gm_v_as_double(v) / u->smi_div;
    if (u->smi_decimals == 0)
        x = floor(x + 1e-9); /* nvidia-smi truncates MiB */
    snprintf(buf, len, "%.*f", u->smi_decimals, x);
}

/* Common text of a value that is available: enum words, hex, strings,
 * numbers (without unit). Returns NULL if the metric needs its unit added. */
static const char *text_of(const struct gm_snapshot *s, const struct gm_gpu *g,
                           const struct gm_proc *p, int id, const struct gm_value *v, char *buf,
                           size_t len, int smi_time)
{
    const struct gm_metric *m = &gm_metrics[id];
    const char *e = enum_text(m->fmt, v->v.u);
    if (e)
        return e;
    switch (m->fmt) {
    case GM_F_STR: {
        const char *str = gm_fmt_string(s, g, p, id);
        return str ? str : "";
    }
    case GM_F_PSTATE:
        if (v->v.u <= 15)
            snprintf(buf, len, "P%" PRIu64, v->v.u);
        else
            snprintf(buf, len, "Unknown");
        return buf;
    case GM_F_HEX64:
        snprintf(buf, len, "0x%016" PRIX64, v->v.u);
        return buf;
    case GM_F_HEX32:
        snprintf(buf, len, "0x%08" PRIX64, v->v.u);
        return buf;
    case GM_F_HEX16:
        snprintf(buf, len, "0x%04" PRIX64, v->v.u);
        return buf;
    case GM_F_HEX8:
        snprintf(buf, len, "0x%02" PRIX64, v->v.u);
        return buf;
    case GM_F_HEX:
        snprintf(buf, len, "0x%" PRIX64, v->v.u);
        return buf;
    case GM_F_CC:
        snprintf(buf, len, "%" PRIu64 ".%" PRIu64, v->v.u / 10, v->v.u % 10);
        return buf;
    case GM_F_CUDA:
        snprintf(buf, len, "%" PRIu64 ".%" PRIu64, v->v.u / 1000, (v->v.u % 1000) / 10);
        return buf;
    case GM_F_TIME:
        if (smi_time)
            return gm_time_smi(v->v.i, buf, len);
        return gm_time_iso(v->v.i, buf, len);
    default:
        smi_number(v, m->unit, buf, len);
        return NULL;
    }
}

const char *gm_fmt_smi(const struct gm_snapshot *s, const struct gm_gpu *g, const struct gm_proc *p,
                       int id, int nounits, char *buf, size_t len)
{
    if (!buf || len == 0)
        return "";
    const struct gm_value *v = gm_fmt_value(s, g, p, id);
    if (!gm_v_ok(v)) {
        gm_strlcpy(buf, gm_fmt_smi_absent(id, v), len);
        return buf;
    }
    const char *t = text_of(s, g, p, id, v, buf, len, 1);
    if (t) {
        if (t != buf)
            gm_strlcpy(buf, t, len);
        return buf;
    }
    const char *unit = gm_units[gm_metrics[id].unit].smi;
    if (!nounits && *unit) {
        size_t l = strlen(buf);
        snprintf(buf + l, len > l ? len - l : 0, " %s", unit);
    }
    return buf;
}

const char *gm_fmt_smi_header(int id, char *buf, size_t len)
{
    const struct gm_metric *m = &gm_metrics[id];
    const char *unit = gm_units[m->unit].smi;
    const char *key = m->smi ? m->smi : m->json;
    if (*unit && (m->fmt == GM_F_NUM))
        snprintf(buf, len, "%s [%s]", key, unit);
    else
        snprintf(buf, len, "%s", key);
    return buf;
}

const char *gm_fmt_csv(const struct gm_snapshot *s, const struct gm_gpu *g, const struct gm_proc *p,
                       int id, char *buf, size_t len)
{
    const struct gm_value *v = gm_fmt_value(s, g, p, id);
    if (!gm_v_ok(v)) {
        if (len)
            buf[0] = '\0';
        return buf;
    }
    const char *t = text_of(s, g, p, id, v, buf, len, 0);
    if (t && t != buf)
        gm_strlcpy(buf, t, len);
    return buf;
}

void gm_fmt_json(struct gm_json *j, const struct gm_snapshot *s, const struct gm_gpu *g,
                 const struct gm_proc *p, int id)
{
    const struct gm_metric *m = &gm_metrics[id];
    const struct gm_value *v = gm_fmt_value(s, g, p, id);
    char buf[128];
    if (!gm_v_ok(v)) {
        gm_json_null(j);
        return;
    }
    switch (m->fmt) {
    case GM_F_NUM:
        if (v->type == GM_VT_F64)
            gm_json_f64(j, v->v.d, m->unit == GM_U_WATTS ? 3 : -1);
        else if (v->type == GM_VT_I64)
            gm_json_i64(j, v->v.i);
        else
            gm_json_u64(j, v->v.u);
        return;
    case GM_F_ENABLED:
    case GM_F_ACTIVE:
    case GM_F_YESNO:
    case GM_F_VALID:
        gm_json_bool(j, v->v.u != 0);
        return;
    case GM_F_HEX64:
    case GM_F_HEX32:
    case GM_F_HEX16:
    case GM_F_HEX8:
    case GM_F_HEX:
        gm_json_u64(j, v->v.u);
        return;
    case GM_F_PSTATE:
        if (v->v.u <= 15)
            gm_json_u64(j, v->v.u);
        else
            gm_json_null(j);
        return;
    default: {
        const char *t = text_of(s, g, p, id, v, buf, sizeof(buf), 0);
        gm_json_str(j, t ? t : buf);
        return;
    }
    }
}

const char *gm_fmt_bytes(double bytes, char *buf, size_t len)
{
    double mib = bytes / 1048576.0;
    if (mib >= 10240)
        snprintf(buf, len, "%.1fGiB", mib / 1024.0);
    else
        snprintf(buf, len, "%.0fMiB", floor(mib));
    return buf;
}

const char *gm_fmt_human(const struct gm_value *v, int unit, char *buf, size_t len)
{
    if (!gm_v_ok(v)) {
        gm_strlcpy(buf,
                   v->status == GM_VS_LOST     ? "lost"
                   : v->status == GM_VS_NOPERM ? "denied"
                                               : "N/A",
                   len);
        return buf;
    }
    double x = gm_v_as_double(v);
    switch (unit) {
    case GM_U_BYTES:
        return gm_fmt_bytes(x, buf, len);
    case GM_U_WATTS:
        snprintf(buf, len, "%.0f W", x);
        return buf;
    case GM_U_CELSIUS:
        snprintf(buf, len, "%.0f C", x);
        return buf;
    case GM_U_MHZ:
        snprintf(buf, len, "%.0f MHz", x);
        return buf;
    case GM_U_PERCENT:
        snprintf(buf, len, "%.0f %%", x);
        return buf;
    case GM_U_BYTES_PER_S:
        snprintf(buf, len, "%.0f MiB/s", x / 1048576.0);
        return buf;
    case GM_U_SECONDS:
        snprintf(buf, len, "%.1f s", x);
        return buf;
    case GM_U_JOULES:
        snprintf(buf, len, "%.0f J", x);
        return buf;
    default:
        snprintf(buf, len, "%.0f", x);
        return buf;
    }
}

const char *gm_fmt_cell(char *dst, size_t len, const char *s, int width)
{
    if (!len)
        return dst;
    int chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        chars += (*p & 0xC0) != 0x80;
    size_t o = 0;
    int col = 0;
    const unsigned char *p = (const unsigned char *)s;
    int keep = chars > width ? width - 1 : chars; /* characters copied */
    while (*p && col < keep) {
        size_t n = 1; /* the bytes of this character */
        while ((p[n] & 0xC0) == 0x80)
            n++;
        if (o + n >= len)
            break;
        memcpy(dst + o, p, n);
        o += n;
        p += n;
        col++;
    }
    if (chars > width && width > 0 && o + 3 < len) {
        memcpy(dst + o, "\xE2\x80\xA6", 3); /* … */
        o += 3;
        col++;
    }
    while (col < width && o + 1 < len) {
        dst[o++] = ' ';
        col++;
    }
    dst[o] = '\0';
    return dst;
}

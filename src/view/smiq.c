/* smiq.c -- nvidia-smi's `-q` report and its `-x` XML from one description.
 *
 * The report is written through a tiny tree writer (open a block, a
 * key/value line, close) that either prints nvidia-smi's text (4 spaces per
 * level, the colon in column 42) or its XML (a tab per level, the element
 * names of nvsmi_device_v12.dtd).  The order, labels and element names
 * follow nvidia-smi 535.54.03's output on an A100 (the XML reference cited
 * in tests/e2e/cases/smiq-*.t and docs/compat-q.md).
 *
 * Values come from the snapshot through the registry's formatter
 * (core/fmt.h), and the report-only ones (brand, inforom, application
 * clocks, per-location ECC, supported clocks, ...) from source/nvml_q.h's
 * struct: nothing here converts units except appending the unit text
 * nvidia-smi prints after a number in -q ("C", "x", "KB/s").  The few blocks
 * gpumon does not read at all (voltage, fabric, bridge chip, ...) print N/A
 * leaf by leaf; docs/compat-q.md lists them.  Out of scope: the unit
 * (S-class) report, vGPU blocks, NVLink.
 */
#include "smiq.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../core/fmt.h"
#include "../core/metrics.h"
#include "../core/text.h"

static const char *const section_names[GM_SMIQ__COUNT] = {
    [GM_SMIQ_MEMORY] = "MEMORY",
    [GM_SMIQ_UTILIZATION] = "UTILIZATION",
    [GM_SMIQ_ECC] = "ECC",
    [GM_SMIQ_TEMPERATURE] = "TEMPERATURE",
    [GM_SMIQ_POWER] = "POWER",
    [GM_SMIQ_CLOCK] = "CLOCK",
    [GM_SMIQ_COMPUTE] = "COMPUTE",
    [GM_SMIQ_PIDS] = "PIDS",
    [GM_SMIQ_PERFORMANCE] = "PERFORMANCE",
    [GM_SMIQ_SUPPORTED_CLOCKS] = "SUPPORTED_CLOCKS",
    [GM_SMIQ_PAGE_RETIREMENT] = "PAGE_RETIREMENT",
    [GM_SMIQ_ACCOUNTING] = "ACCOUNTING",
    [GM_SMIQ_ENCODER_STATS] = "ENCODER_STATS",
    [GM_SMIQ_SUPPORTED_GPU_TARGET_TEMP] = "SUPPORTED_GPU_TARGET_TEMP",
    [GM_SMIQ_VOLTAGE] = "VOLTAGE",
    [GM_SMIQ_FBC_STATS] = "FBC_STATS",
    [GM_SMIQ_ROW_REMAPPER] = "ROW_REMAPPER",
    [GM_SMIQ_RESET_STATUS] = "RESET_STATUS",
    [GM_SMIQ_GSP_FIRMWARE_VERSION] = "GSP_FIRMWARE_VERSION",
};

const char *gm_smiq_section_name(int section)
{
    return section >= 0 && section < GM_SMIQ__COUNT ? section_names[section] : "?";
}

int gm_smiq_parse_sections(const char *list, uint32_t *mask, struct gm_err *err)
{
    *mask = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int found = -1;
        for (int k = 0; k < GM_SMIQ__COUNT && n > 0; k++)
            if (strlen(section_names[k]) == n && strncasecmp(section_names[k], p, n) == 0)
                found = k;
        if (found < 0) {
            char names[512] = "";
            size_t used = 0;
            for (int k = 0; k < GM_SMIQ__COUNT && used < sizeof(names); k++)
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", k ? ", " : "",
                                         section_names[k]);
            /* the name is user input: keep only printable ASCII in the message */
            char shown[64];
            size_t m = 0;
            for (size_t i = 0; i < n && m + 1 < sizeof(shown); i++)
                shown[m++] = isprint((unsigned char)p[i]) ? p[i] : '?';
            shown[m] = 0;
            return gm_err_set(err, GM_E_INVAL, "-d: unknown display section '%s' (one of: %s)",
                              shown, names);
        }
        *mask |= UINT32_C(1) << found;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* ---- the tree writer ---------------------------------------------------- */

struct w {
    struct gm_buf *b;
    int xml;
    int depth;
};

#define LABEL_COL 42 /* nvidia-smi's text puts the colon in this column */

/* XML 1.0 character data: the text sanitised for a line (no controls, valid
 * UTF-8), then the five special characters as entities and the two
 * non-characters U+FFFE/U+FFFF (valid UTF-8 but not XML) replaced. */
static void xml_text(struct gm_buf *b, const char *s)
{
    struct gm_buf t = GM_BUF_INIT;
    gm_text_line(&t, s, strlen(s));
    for (size_t i = 0; i < t.len; i++) {
        char c = t.p[i];
        if (c == '&')
            gm_buf_puts(b, "&amp;");
        else if (c == '<')
            gm_buf_puts(b, "&lt;");
        else if (c == '>')
            gm_buf_puts(b, "&gt;");
        else if (c == '"')
            gm_buf_puts(b, "&quot;");
        else if (c == '\'')
            gm_buf_puts(b, "&apos;");
        else if ((unsigned char)c == 0xEF && i + 2 < t.len && (unsigned char)t.p[i + 1] == 0xBF &&
                 ((unsigned char)t.p[i + 2] == 0xBE || (unsigned char)t.p[i + 2] == 0xBF)) {
            gm_buf_puts(b, GM_TEXT_REPL);
            i += 2;
        } else
            gm_buf_putc(b, c);
    }
    gm_buf_free(&t);
}

static void indent(struct w *w)
{
    if (w->xml)
        gm_buf_fill(w->b, '\t', (size_t)w->depth);
    else
        gm_buf_fill(w->b, ' ', 4 * (size_t)(w->depth - 1));
}

static void label_col(struct w *w, const char *label)
{
    size_t used = 4 * (size_t)(w->depth - 1) + strlen(label);
    gm_buf_puts(w->b, label);
    gm_buf_fill(w->b, ' ', used < LABEL_COL ? LABEL_COL - used : 1);
    gm_buf_puts(w->b, ": ");
}

/* A leaf: "Label   : value" or <tag>value</tag>.  A leaf that exists in
 * only one form passes NULL for the other form's name (never printed). */
static void kv(struct w *w, const char *label, const char *tag, const char *val)
{
    label = label ? label : "";
    tag = tag ? tag : "value";
    indent(w);
    if (w->xml) {
        gm_buf_printf(w->b, "<%s>", tag);
        xml_text(w->b, val);
        gm_buf_printf(w->b, "</%s>\n", tag);
    } else {
        label_col(w, label);
        gm_text_line(w->b, val, strlen(val));
        gm_buf_putc(w->b, '\n');
    }
}

static void open_blk(struct w *w, const char *label, const char *tag)
{
    indent(w);
    if (w->xml)
        gm_buf_printf(w->b, "<%s>\n", tag ? tag : "value");
    else
        gm_buf_printf(w->b, "%s\n", label ? label : "");
    w->depth++;
}

static void close_blk(struct w *w, const char *tag)
{
    w->depth--;
    if (w->xml) {
        indent(w);
        gm_buf_printf(w->b, "</%s>\n", tag);
    }
}

/* ---- values --------------------------------------------------------------- */

struct ctx {
    struct w w;
    const struct gm_snapshot *s;
    const struct gm_gpu *g;
    const struct gm_q_gpu *q; /* the GPU's report-only values, or NULL */
    uint32_t mask;
};

#define NA "N/A"

/* What -q prints for a value that is not there. */
static const char *absent(const struct gm_value *v)
{
    switch (v->status) {
    case GM_VS_NOPERM:
        return "Insufficient Permissions";
    case GM_VS_LOST:
        return "GPU is lost";
    case GM_VS_ERROR:
        /* NVML_ERROR_DEPRECATED: nvidia-smi spells out the driver's sentence */
        if (v->code == 26)
            return "Requested functionality has been deprecated";
        return gm_nvml_error_text(v->code);
    default:
        return NA; /* not supported, not available */
    }
}

/* The value of metric id as -q prints it: the registry's nvidia-smi text
 * without its unit, then suffix (" MiB", " W", " C", ...). */
static const char *val(struct ctx *x, int id, const char *suffix, char *buf, size_t len)
{
    const struct gm_value *v = gm_fmt_value(x->s, x->g, NULL, id);
    if (!gm_v_ok(v))
        return absent(v);
    gm_fmt_smi(x->s, x->g, NULL, id, 1, buf, len);
    size_t l = strlen(buf);
    if (suffix && l < len)
        snprintf(buf + l, len - l, "%s", suffix);
    return buf;
}

/* How a report-only value (source/nvml_q.h) is spelled. */
enum qfmt {
    Q_NUM,
    Q_MHZ,
    Q_PCT,
    Q_C,
    Q_HEX,
    Q_YESNO,
    Q_ENABLED,
    Q_ONOFF,
    Q_BANKS,
    Q_BRAND,
    Q_ARCH,
    Q_DM,
    Q_GOM,
    Q_VIRT,
    Q_STR
};

static const char *enum_name(const char *const *names, size_t n, uint64_t u, char *buf, size_t len)
{
    if (u < n && names[u])
        return names[u];
    snprintf(buf, len, "Unknown (%llu)", (unsigned long long)u);
    return buf;
}

static const char *qtext(const struct ctx *x, int id, enum qfmt f, char *buf, size_t len)
{
    if (!x->q)
        return NA;
    const struct gm_value *v = &x->q->v[id];
    if (!gm_v_ok(v))
        return absent(v);
    unsigned long long u = (unsigned long long)v->v.u;
    /* nvmlBrandType_t, nvmlDeviceArchitecture_t, nvmlDriverModel_t,
     * nvmlGpuOperationMode_t, nvmlGpuVirtualizationMode_t as nvidia-smi
     * names them */
    static const char *const brand[] = {
        "Unknown",
        "Quadro",
        "Tesla",
        "NVS",
        "GRID",
        "GeForce",
        "Titan",
        "NVIDIA Virtual Applications",
        "NVIDIA Virtual PC",
        "NVIDIA Virtual Compute Server",
        "NVIDIA RTX Virtual Workstation",
        "NVIDIA Cloud Gaming",
        "Quadro RTX",
        "NVIDIA RTX",
        "NVIDIA",
        "GeForce RTX",
        "TITAN RTX",
    };
    static const char *const arch[] = {NULL,           NULL,     "Kepler",   "Maxwell",
                                       "Pascal",       "Volta",  "Turing",   "Ampere",
                                       "Ada Lovelace", "Hopper", "Blackwell"};
    static const char *const dm[] = {"WDDM", "TCC", "MCDM"};
    static const char *const gom[] = {"All On", "Compute", "Low Double Precision"};
    static const char *const virt[] = {"None", "Pass-Through", "VGPU", "Host VGPU", "Host VSGA"};
    switch (f) {
    case Q_MHZ:
        snprintf(buf, len, "%llu MHz", u);
        return buf;
    case Q_PCT:
        snprintf(buf, len, "%llu %%", u);
        return buf;
    case Q_C:
        snprintf(buf, len, "%llu C", u);
        return buf;
    case Q_HEX:
        snprintf(buf, len, "0x%llx", u);
        return buf;
    case Q_YESNO:
        return u ? "Yes" : "No";
    case Q_ENABLED:
        return u ? "Enabled" : "Disabled";
    case Q_ONOFF:
        return u ? "On" : "Off";
    case Q_BANKS:
        snprintf(buf, len, "%llu bank(s)", u);
        return buf;
    case Q_BRAND:
        return enum_name(brand, sizeof(brand) / sizeof(brand[0]), u, buf, len);
    case Q_ARCH:
        return enum_name(arch, sizeof(arch) / sizeof(arch[0]), u, buf, len);
    case Q_DM:
        return enum_name(dm, sizeof(dm) / sizeof(dm[0]), u, buf, len);
    case Q_GOM:
        return enum_name(gom, sizeof(gom) / sizeof(gom[0]), u, buf, len);
    case Q_VIRT:
        return enum_name(virt, sizeof(virt) / sizeof(virt[0]), u, buf, len);
    case Q_STR:
        return gm_q_str(x->q, id);
    case Q_NUM:
    default:
        snprintf(buf, len, "%llu", u);
        return buf;
    }
}

/* A leaf from a report-only value. */
static void kvq(struct ctx *x, const char *label, const char *tag, int id, enum qfmt f)
{
    char buf[128];
    kv(&x->w, label, tag, qtext(x, id, f, buf, sizeof(buf)));
}

/* A leaf from metric id. */
static void kvm(struct ctx *x, const char *label, const char *tag, int id, const char *suffix)
{
    char buf[256];
    kv(&x->w, label, tag, val(x, id, suffix, buf, sizeof(buf)));
}

/* The hex fields without 0x in XML (<pci_bus>18</pci_bus>), with it in text. */
static void kvm_hex(struct ctx *x, const char *label, const char *tag, int id)
{
    char buf[64];
    const char *t = val(x, id, NULL, buf, sizeof(buf));
    if (x->w.xml && t == buf && strncmp(buf, "0x", 2) == 0)
        t = buf + 2;
    kv(&x->w, label, tag, t);
}

/* A block of leaves that gpumon does not read: every one N/A. */
static void na_block(struct ctx *x, const char *label, const char *tag, const char *const *leaves)
{
    open_blk(&x->w, label, tag);
    for (size_t i = 0; leaves[i]; i += 2)
        kv(&x->w, leaves[i], leaves[i + 1], NA);
    close_blk(&x->w, tag);
}

static int want(const struct ctx *x, int section)
{
    return x->mask == 0 || (x->mask & (UINT32_C(1) << section));
}

/* The two sections nvidia-smi's text prints only when -d names them
 * (SUPPORTED_CLOCKS, SUPPORTED_GPU_TARGET_TEMP: no real `nvidia-smi -q`
 * from driver 384 to 595 has them by default, docs/compat-q.md), while its
 * XML has them in the full report too. */
static int want_listed(const struct ctx *x, int section)
{
    return x->w.xml ? want(x, section) : (x->mask & (UINT32_C(1) << section)) != 0;
}

/* ---- the per-GPU report -------------------------------------------------- */

static void identity(struct ctx *x)
{
    struct w *w = &x->w;
    kvm(x, "Product Name", "product_name", GM_M_NAME, NULL);
    kvq(x, "Product Brand", "product_brand", GM_Q_BRAND, Q_BRAND);
    kvq(x, "Product Architecture", "product_architecture", GM_Q_ARCH, Q_ARCH);
    /* the registry spells display_mode Yes/No (--query-gpu); -q says Enabled */
    const struct gm_value *dm = gm_fmt_value(x->s, x->g, NULL, GM_M_DISPLAY_MODE);
    kv(w, "Display Mode", "display_mode",
       gm_v_ok(dm) ? (gm_v_as_double(dm) != 0 ? "Enabled" : "Disabled") : absent(dm));
    kvm(x, "Display Active", "display_active", GM_M_DISPLAY_ACTIVE, NULL);
    kvm(x, "Persistence Mode", "persistence_mode", GM_M_PERSISTENCE, NULL);
    kvm(x, "Addressing Mode", "addressing_mode", GM_M_ADDRESSING_MODE, NULL);
    open_blk(w, "MIG Mode", "mig_mode");
    kvm(x, "Current", "current_mig", GM_M_MIG_CURRENT, NULL);
    kvm(x, "Pending", "pending_mig", GM_M_MIG_PENDING, NULL);
    close_blk(w, "mig_mode");
}

static void mig_devices(struct ctx *x)
{
    struct w *w = &x->w;
    const struct gm_gpu *g = x->g;
    if (g->nmig == 0) {
        /* nvidia-smi's text leaves the block out; its XML says None */
        if (w->xml)
            kv(w, NULL, "mig_devices", "None");
        return;
    }
    static const char *const attrs[6][2] = {
        {"Multiprocessor count", "multiprocessor_count"},
        {"Copy Engine count", "copy_engine_count"},
        {"Encoder count", "encoder_count"},
        {"Decoder count", "decoder_count"},
        {"OFA count", "ofa_count"},
        {"JPG count", "jpg_count"},
    };
    static const struct gm_value unread = {.status = GM_VS_NA};
    static const char *const bar1[3][2] = {{"Total", "total"}, {"Used", "used"}, {"Free", "free"}};
    open_blk(w, "MIG Devices", "mig_devices");
    for (uint32_t k = 0; k < g->nmig; k++) {
        const struct gm_mig *m = &g->mig[k];
        char buf[64];
        open_blk(w, "MIG Device", "mig_device");
        snprintf(buf, sizeof(buf), "%u", m->index);
        kv(w, "Index", "index", buf);
        snprintf(buf, sizeof(buf), "%u", m->gpu_instance_id);
        kv(w, "GPU Instance ID", "gpu_instance_id", buf);
        snprintf(buf, sizeof(buf), "%u", m->compute_instance_id);
        kv(w, "Compute Instance ID", "compute_instance_id", buf);
        int qi = x->q && m->index < GM_MIG_MAX ? (int)m->index : -1;
        const struct gm_value *av = qi >= 0 ? &x->q->mig_attr[qi] : &unread;
        open_blk(w, "Device Attributes", "device_attributes");
        open_blk(w, "Shared", "shared");
        for (int a = 0; a < 6; a++) {
            if (gm_v_ok(av))
                snprintf(buf, sizeof(buf), "%u", x->q->mig_counts[qi][a]);
            kv(w, attrs[a][0], attrs[a][1], gm_v_ok(av) ? buf : absent(av));
        }
        close_blk(w, "shared");
        close_blk(w, "device_attributes");
        open_blk(w, "ECC Errors", "ecc_error_count");
        open_blk(w, "Volatile", "volatile_count");
        const struct gm_value *sv = qi >= 0 ? &x->q->mig_sram_unc[qi] : &unread;
        if (gm_v_ok(sv))
            snprintf(buf, sizeof(buf), "%.0f", gm_v_as_double(sv));
        kv(w, "SRAM Uncorrectable", "sram_uncorrectable", gm_v_ok(sv) ? buf : absent(sv));
        close_blk(w, "volatile_count");
        close_blk(w, "ecc_error_count");
        open_blk(w, "FB Memory Usage", "fb_memory_usage");
        const struct gm_value *mv[3] = {&m->mem_total, &m->mem_used, &m->mem_free};
        static const char *const lab[3][2] = {
            {"Total", "total"}, {"Used", "used"}, {"Free", "free"}};
        for (int i = 0; i < 3; i++) {
            if (i == 1) {
                const struct gm_value *rv = qi >= 0 ? &x->q->mig_reserved[qi] : &unread;
                if (gm_v_ok(rv))
                    snprintf(buf, sizeof(buf), "%.0f MiB", floor(gm_v_as_double(rv) / 1048576.0));
                kv(w, "Reserved", "reserved", gm_v_ok(rv) ? buf : absent(rv));
            }
            if (gm_v_ok(mv[i]))
                snprintf(buf, sizeof(buf), "%.0f MiB", floor(gm_v_as_double(mv[i]) / 1048576.0));
            kv(w, lab[i][0], lab[i][1], gm_v_ok(mv[i]) ? buf : absent(mv[i]));
        }
        close_blk(w, "fb_memory_usage");
        const struct gm_value *bv = qi >= 0 ? &x->q->mig_bar1[qi] : &unread;
        open_blk(w, "BAR1 Memory Usage", "bar1_memory_usage");
        for (int i = 0; i < 3; i++) {
            if (gm_v_ok(bv)) {
                uint64_t t = x->q->mig_bar1_total[qi] / 1048576,
                         u = x->q->mig_bar1_used[qi] / 1048576;
                snprintf(buf, sizeof(buf), "%llu MiB",
                         (unsigned long long)(i == 0   ? t
                                              : i == 1 ? u
                                                       : t - u));
            }
            kv(w, bar1[i][0], bar1[i][1], gm_v_ok(bv) ? buf : absent(bv));
        }
        close_blk(w, "bar1_memory_usage");
        close_blk(w, "mig_device");
    }
    close_blk(w, "mig_devices");
}

static void accounting_mode(struct ctx *x)
{
    kvq(x, "Accounting Mode", "accounting_mode", GM_Q_ACCOUNTING, Q_ENABLED);
    kvq(x, "Accounting Mode Buffer Size", "accounting_mode_buffer_size", GM_Q_ACCOUNTING_BUF,
        Q_NUM);
}

static void board(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "Driver Model", "driver_model");
    kvq(x, "Current", "current_dm", GM_Q_DM_CUR, Q_DM);
    kvq(x, "Pending", "pending_dm", GM_Q_DM_PEND, Q_DM);
    close_blk(w, "driver_model");
    kvm(x, "Serial Number", "serial", GM_M_SERIAL, NULL);
    kvm(x, "GPU UUID", "uuid", GM_M_UUID, NULL);
    kvm(x, "Minor Number", "minor_number", GM_M_MINOR, NULL);
    kvm(x, "VBIOS Version", "vbios_version", GM_M_VBIOS, NULL);
    kvq(x, "MultiGPU Board", "multigpu_board", GM_Q_MULTIGPU, Q_YESNO);
    kvq(x, "Board ID", "board_id", GM_Q_BOARD_ID, Q_HEX);
    kvm(x, "Board Part Number", "board_part_number", GM_M_BOARD_PART, NULL);
    kv(w, "GPU Part Number", "gpu_part_number", NA);
    kv(w, "FRU Part Number", "gpu_fru_part_number", NA);
    kvq(x, "Module ID", "gpu_module_id", GM_Q_MODULE_ID, Q_NUM);
    open_blk(w, "Inforom Version", "inforom_version");
    kvq(x, "Image Version", "img_version", GM_Q_INFOROM_IMG, Q_STR);
    kvq(x, "OEM Object", "oem_object", GM_Q_INFOROM_OEM, Q_STR);
    kvq(x, "ECC Object", "ecc_object", GM_Q_INFOROM_ECC, Q_STR);
    kvq(x, "Power Management Object", "pwr_object", GM_Q_INFOROM_PWR, Q_STR);
    close_blk(w, "inforom_version");
    open_blk(w, "GPU Operation Mode", "gpu_operation_mode");
    kvq(x, "Current", "current_gom", GM_Q_GOM_CUR, Q_GOM);
    kvq(x, "Pending", "pending_gom", GM_Q_GOM_PEND, Q_GOM);
    close_blk(w, "gpu_operation_mode");
}

static void gsp(struct ctx *x)
{
    kvq(x, "GSP Firmware Version", "gsp_firmware_version", GM_Q_GSP_FW, Q_STR);
}

static void virt(struct ctx *x)
{
    open_blk(&x->w, "GPU Virtualization Mode", "gpu_virtualization_mode");
    kvq(x, "Virtualization Mode", "virtualization_mode", GM_Q_VIRT, Q_VIRT);
    kv(&x->w, "Host VGPU Mode", "host_vgpu_mode", NA);
    close_blk(&x->w, "gpu_virtualization_mode");
}

static void reset_status(struct ctx *x)
{
    static const char *const rs[] = {"Reset Required", "reset_required",
                                     "Drain and Reset Recommended", "drain_and_reset_recommended",
                                     NULL};
    na_block(x, "GPU Reset Status", "gpu_reset_status", rs);
}

static void ibmnpu(struct ctx *x)
{
    static const char *const npu[] = {"Relaxed Ordering Mode", "relaxed_ordering_mode", NULL};
    na_block(x, "IBMNPU", "ibmnpu", npu);
}

/* PCIe throughput: the registry holds bytes/s; -q prints KB/s (1000s,
 * nvidia-smi's NVML counter unit). */
static void kv_kbps(struct ctx *x, const char *label, const char *tag, int id)
{
    const struct gm_value *v = gm_fmt_value(x->s, x->g, NULL, id);
    char buf[64];
    if (gm_v_ok(v))
        snprintf(buf, sizeof(buf), "%.0f KB/s", floor(gm_v_as_double(v) / 1000.0));
    kv(&x->w, label, tag, gm_v_ok(v) ? buf : absent(v));
}

static void pci(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "PCI", "pci");
    kvm_hex(x, "Bus", "pci_bus", GM_M_PCI_BUS);
    kvm_hex(x, "Device", "pci_device", GM_M_PCI_DEVICE);
    kvm_hex(x, "Domain", "pci_domain", GM_M_PCI_DOMAIN);
    kvm_hex(x, "Device Id", "pci_device_id", GM_M_PCI_DEVICE_ID);
    kvm(x, "Bus Id", "pci_bus_id", GM_M_PCI_BUS_ID, NULL);
    kvm_hex(x, "Sub System Id", "pci_sub_system_id", GM_M_PCI_SUB_DEVICE_ID);
    open_blk(w, "GPU Link Info", "pci_gpu_link_info");
    open_blk(w, "PCIe Generation", "pcie_gen");
    kvm(x, "Max", "max_link_gen", GM_M_PCIE_GEN_MAX, NULL);
    kvm(x, "Current", "current_link_gen", GM_M_PCIE_GEN_CUR, NULL);
    kvm(x, "Device Current", "device_current_link_gen", GM_M_PCIE_GEN_CUR, NULL);
    kvq(x, "Device Max", "max_device_link_gen", GM_Q_PCIE_GEN_DEV_MAX, Q_NUM);
    kvm(x, "Host Max", "max_host_link_gen", GM_M_PCIE_GEN_HOSTMAX, NULL); /* sysfs */
    close_blk(w, "pcie_gen");
    open_blk(w, "Link Width", "link_widths");
    kvm(x, "Max", "max_link_width", GM_M_PCIE_WIDTH_MAX, "x");
    kvm(x, "Current", "current_link_width", GM_M_PCIE_WIDTH_CUR, "x");
    close_blk(w, "link_widths");
    close_blk(w, "pci_gpu_link_info");
    static const char *const bridge[] = {"Type", "bridge_chip_type", "Firmware", "bridge_chip_fw",
                                         NULL};
    na_block(x, "Bridge Chip", "pci_bridge_chip", bridge);
    kvm(x, "Replays Since Reset", "replay_counter", GM_M_PCIE_REPLAY, NULL);
    kv(w, "Replay Number Rollovers", "replay_rollover_counter", NA);
    kv_kbps(x, "Tx Throughput", "tx_util", GM_M_PCIE_TX);
    kv_kbps(x, "Rx Throughput", "rx_util", GM_M_PCIE_RX);
    /* the XML has inbound first; the text prints outbound first (nvidia-smi -q
     * pasted in ollama/ollama issue 10393) */
    if (w->xml)
        kv(w, NULL, "atomic_caps_inbound", NA);
    kv(w, "Atomic Caps Outbound", "atomic_caps_outbound", NA);
    if (!w->xml)
        kv(w, "Atomic Caps Inbound", NULL, NA);
    close_blk(w, "pci");
}

static void performance(struct ctx *x)
{
    struct w *w = &x->w;
    kvm(x, "Performance State", "performance_state", GM_M_PSTATE, NULL);
    open_blk(w, "Clocks Event Reasons", "clocks_event_reasons");
    static const struct {
        const char *label, *tag;
        int id, sub;
    } r[] = {
        {"Idle", "clocks_event_reason_gpu_idle", GM_M_CER_GPU_IDLE, 0},
        {"Applications Clocks Setting", "clocks_event_reason_applications_clocks_setting",
         GM_M_CER_APP_CLOCKS, 0},
        {"SW Power Cap", "clocks_event_reason_sw_power_cap", GM_M_CER_SW_POWER_CAP, 0},
        {"HW Slowdown", "clocks_event_reason_hw_slowdown", GM_M_CER_HW_SLOWDOWN, 0},
        {"HW Thermal Slowdown", "clocks_event_reason_hw_thermal_slowdown", GM_M_CER_HW_THERMAL, 1},
        {"HW Power Brake Slowdown", "clocks_event_reason_hw_power_brake_slowdown",
         GM_M_CER_HW_POWER_BRAKE, 1},
        {"Sync Boost", "clocks_event_reason_sync_boost", GM_M_CER_SYNC_BOOST, 0},
        {"SW Thermal Slowdown", "clocks_event_reason_sw_thermal_slowdown", GM_M_CER_SW_THERMAL, 0},
        {"Display Clock Setting", "clocks_event_reason_display_clocks_setting",
         GM_M_CER_DISPLAY_CLOCK, 0},
    };
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
        w->depth += r[i].sub && !w->xml; /* the two HW causes sit under HW Slowdown in text */
        kvm(x, r[i].label, r[i].tag, r[i].id, NULL);
        w->depth -= r[i].sub && !w->xml;
    }
    close_blk(w, "clocks_event_reasons");
    kv(w, "Sparse Operation Mode", "sparse_operation_mode", NA);
}

static void memory(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "FB Memory Usage", "fb_memory_usage");
    kvm(x, "Total", "total", GM_M_MEM_TOTAL, " MiB");
    kvm(x, "Reserved", "reserved", GM_M_MEM_RESERVED, " MiB");
    kvm(x, "Used", "used", GM_M_MEM_USED, " MiB");
    kvm(x, "Free", "free", GM_M_MEM_FREE, " MiB");
    close_blk(w, "fb_memory_usage");
    open_blk(w, "BAR1 Memory Usage", "bar1_memory_usage");
    kvm(x, "Total", "total", GM_M_BAR1_TOTAL, " MiB");
    kvm(x, "Used", "used", GM_M_BAR1_USED, " MiB");
    const struct gm_value *t = gm_fmt_value(x->s, x->g, NULL, GM_M_BAR1_TOTAL);
    const struct gm_value *u = gm_fmt_value(x->s, x->g, NULL, GM_M_BAR1_USED);
    char buf[64];
    if (gm_v_ok(t) && gm_v_ok(u))
        snprintf(buf, sizeof(buf), "%.0f MiB",
                 floor(gm_v_as_double(t) / 1048576.0) - floor(gm_v_as_double(u) / 1048576.0));
    kv(w, "Free", "free", gm_v_ok(t) && gm_v_ok(u) ? buf : absent(gm_v_ok(t) ? u : t));
    close_blk(w, "bar1_memory_usage");
    open_blk(w, "Conf Compute Protected Memory Usage", "cc_protected_memory_usage");
    kvm(x, "Total", "total", GM_M_PROT_MEM_TOTAL, " MiB");
    kvm(x, "Used", "used", GM_M_PROT_MEM_USED, " MiB");
    kvm(x, "Free", "free", GM_M_PROT_MEM_FREE, " MiB");
    close_blk(w, "cc_protected_memory_usage");
}

static void utilization(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "Utilization", "utilization");
    kvm(x, "Gpu", "gpu_util", GM_M_UTIL_GPU, " %");
    kvm(x, "Memory", "memory_util", GM_M_UTIL_MEM, " %");
    kvm(x, "Encoder", "encoder_util", GM_M_UTIL_ENC, " %");
    kvm(x, "Decoder", "decoder_util", GM_M_UTIL_DEC, " %");
    kvq(x, "JPEG", "jpeg_util", GM_Q_JPG_UTIL, Q_PCT);
    kvq(x, "OFA", "ofa_util", GM_Q_OFA_UTIL, Q_PCT);
    close_blk(w, "utilization");
}

/* Encoder Stats / FBC Stats: first is GM_Q_ENC_SESSIONS or GM_Q_FBC_SESSIONS */
static void session_stats(struct ctx *x, const char *label, const char *tag, int first)
{
    open_blk(&x->w, label, tag);
    kvq(x, "Active Sessions", "session_count", first, Q_NUM);
    kvq(x, "Average FPS", "average_fps", first + 1, Q_NUM);
    kvq(x, "Average Latency", "average_latency", first + 2, Q_NUM);
    close_blk(&x->w, tag);
}

static void ecc(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "ECC Mode", "ecc_mode");
    kvm(x, "Current", "current_ecc", GM_M_ECC_CUR, NULL);
    kvm(x, "Pending", "pending_ecc", GM_M_ECC_PENDING, NULL);
    close_blk(w, "ecc_mode");
    /* 535+ prints the per-location counters (nvmlDeviceGetMemoryErrorCounter,
     * SRAM and DRAM), not the totals */
    static const char *const loc[4][2] = {
        {"SRAM Correctable", "sram_correctable"},
        {"SRAM Uncorrectable", "sram_uncorrectable"},
        {"DRAM Correctable", "dram_correctable"},
        {"DRAM Uncorrectable", "dram_uncorrectable"},
    };
    open_blk(w, "ECC Errors", "ecc_errors");
    for (int c = 0; c < 2; c++) {
        open_blk(w, c ? "Aggregate" : "Volatile", c ? "aggregate" : "volatile");
        for (int k = 0; k < 4; k++)
            kvq(x, loc[k][0], loc[k][1], GM_Q_ECC_VOL_SRAM_CORR + 4 * c + k, Q_NUM);
        close_blk(w, c ? "aggregate" : "volatile");
    }
    close_blk(w, "ecc_errors");
}

static void retired_pages(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "Retired Pages", "retired_pages");
    if (w->xml) {
        open_blk(w, NULL, "multiple_single_bit_retirement");
        kvm(x, NULL, "retired_count", GM_M_RETIRED_SBE, NULL);
        kv(w, NULL, "retired_pagelist", NA);
        close_blk(w, "multiple_single_bit_retirement");
        open_blk(w, NULL, "double_bit_retirement");
        kvm(x, NULL, "retired_count", GM_M_RETIRED_DBE, NULL);
        kv(w, NULL, "retired_pagelist", NA);
        close_blk(w, "double_bit_retirement");
        kvm(x, NULL, "pending_blacklist", GM_M_RETIRED_PENDING, NULL);
        kvm(x, NULL, "pending_retirement", GM_M_RETIRED_PENDING, NULL);
    } else {
        kvm(x, "Single Bit ECC", NULL, GM_M_RETIRED_SBE, NULL);
        kvm(x, "Double Bit ECC", NULL, GM_M_RETIRED_DBE, NULL);
        kvm(x, "Pending Page Blacklist", NULL, GM_M_RETIRED_PENDING, NULL);
    }
    close_blk(w, "retired_pages");
}

static void remapped_rows(struct ctx *x)
{
    struct w *w = &x->w;
    const struct gm_value *c = gm_fmt_value(x->s, x->g, NULL, GM_M_REMAP_CORR);
    if (!gm_v_ok(c)) {
        /* a board without row remapping: one line, as nvidia-smi */
        kv(w, "Remapped Rows", "remapped_rows", absent(c));
        return;
    }
    open_blk(w, "Remapped Rows", "remapped_rows");
    kvm(x, "Correctable Error", "remapped_row_corr", GM_M_REMAP_CORR, NULL);
    kvm(x, "Uncorrectable Error", "remapped_row_unc", GM_M_REMAP_UNCORR, NULL);
    kvm(x, "Pending", "remapped_row_pending", GM_M_REMAP_PENDING, NULL);
    kvm(x, "Remapping Failure Occurred", "remapped_row_failure", GM_M_REMAP_FAILURE, NULL);
    open_blk(w, "Bank Remap Availability Histogram", "row_remapper_histogram");
    kvq(x, "Max", "row_remapper_histogram_max", GM_Q_HIST_MAX, Q_BANKS);
    kvq(x, "High", "row_remapper_histogram_high", GM_Q_HIST_HIGH, Q_BANKS);
    kvq(x, "Partial", "row_remapper_histogram_partial", GM_Q_HIST_PARTIAL, Q_BANKS);
    kvq(x, "Low", "row_remapper_histogram_low", GM_Q_HIST_LOW, Q_BANKS);
    kvq(x, "None", "row_remapper_histogram_none", GM_Q_HIST_NONE, Q_BANKS);
    close_blk(w, "row_remapper_histogram");
    close_blk(w, "remapped_rows");
}

static void temperature(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "Temperature", "temperature");
    kvm(x, "GPU Current Temp", "gpu_temp", GM_M_TEMP_GPU, " C");
    kvm(x, "GPU T.Limit Temp", "gpu_temp_tlimit", GM_M_TEMP_TLIMIT, " C");
    kvm(x, "GPU Shutdown Temp", "gpu_temp_max_threshold", GM_M_TEMP_SHUTDOWN, " C");
    kvm(x, "GPU Slowdown Temp", "gpu_temp_slow_threshold", GM_M_TEMP_SLOWDOWN, " C");
    kvm(x, "GPU Max Operating Temp", "gpu_temp_max_gpu_threshold", GM_M_TEMP_GPU_MAX, " C");
    kvq(x, "GPU Target Temperature", "gpu_target_temperature", GM_Q_TARGET_TEMP, Q_C);
    kvm(x, "Memory Current Temp", "memory_temp", GM_M_TEMP_MEM, " C");
    kvm(x, "Memory Max Operating Temp", "gpu_temp_max_mem_threshold", GM_M_TEMP_MEM_MAX, " C");
    close_blk(w, "temperature");
}

static void target_temp(struct ctx *x)
{
    open_blk(&x->w, "Supported GPU Target Temp", "supported_gpu_target_temp");
    kvq(x, "GPU Target Temp Min", "gpu_target_temp_min", GM_Q_TARGET_MIN, Q_C);
    kvq(x, "GPU Target Temp Max", "gpu_target_temp_max", GM_Q_TARGET_MAX, Q_C);
    close_blk(&x->w, "supported_gpu_target_temp");
}

static void power(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "GPU Power Readings", "gpu_power_readings");
    if (w->xml)
        kvm(x, NULL, "power_state", GM_M_PSTATE, NULL);
    kvm(x, "Power Draw", "power_draw", GM_M_POWER_DRAW, " W");
    kvm(x, "Current Power Limit", "current_power_limit", GM_M_POWER_ENFORCED, " W");
    kvm(x, "Requested Power Limit", "requested_power_limit", GM_M_POWER_LIMIT, " W");
    kvm(x, "Default Power Limit", "default_power_limit", GM_M_POWER_DEFAULT, " W");
    kvm(x, "Min Power Limit", "min_power_limit", GM_M_POWER_MIN, " W");
    kvm(x, "Max Power Limit", "max_power_limit", GM_M_POWER_MAX, " W");
    close_blk(w, "gpu_power_readings");
    open_blk(w, "Module Power Readings", "module_power_readings");
    if (w->xml)
        kvm(x, NULL, "power_state", GM_M_PSTATE, NULL);
    /* the module scope of the power fields (Grace Hopper; N/A elsewhere) */
    kvm(x, "Power Draw", "power_draw", GM_M_MODULE_POWER_AVERAGE, " W");
    kvm(x, "Current Power Limit", "current_power_limit", GM_M_MODULE_POWER_ENFORCED, " W");
    kvm(x, "Requested Power Limit", "requested_power_limit", GM_M_MODULE_POWER_LIMIT, " W");
    kvm(x, "Default Power Limit", "default_power_limit", GM_M_MODULE_POWER_DEFAULT, " W");
    kvm(x, "Min Power Limit", "min_power_limit", GM_M_MODULE_POWER_MIN, " W");
    kvm(x, "Max Power Limit", "max_power_limit", GM_M_MODULE_POWER_MAX, " W");
    close_blk(w, "module_power_readings");
}

static void clocks(struct ctx *x)
{
    struct w *w = &x->w;
    open_blk(w, "Clocks", "clocks");
    kvm(x, "Graphics", "graphics_clock", GM_M_CLK_GR, " MHz");
    kvm(x, "SM", "sm_clock", GM_M_CLK_SM, " MHz");
    kvm(x, "Memory", "mem_clock", GM_M_CLK_MEM, " MHz");
    kvm(x, "Video", "video_clock", GM_M_CLK_VIDEO, " MHz");
    close_blk(w, "clocks");
    open_blk(w, "Applications Clocks", "applications_clocks");
    kvq(x, "Graphics", "graphics_clock", GM_Q_APP_GR, Q_MHZ);
    kvq(x, "Memory", "mem_clock", GM_Q_APP_MEM, Q_MHZ);
    close_blk(w, "applications_clocks");
    open_blk(w, "Default Applications Clocks", "default_applications_clocks");
    kvq(x, "Graphics", "graphics_clock", GM_Q_DEFAPP_GR, Q_MHZ);
    kvq(x, "Memory", "mem_clock", GM_Q_DEFAPP_MEM, Q_MHZ);
    close_blk(w, "default_applications_clocks");
    static const char *const def[] = {"Memory", "mem_clock", NULL};
    na_block(x, "Deferred Clocks", "deferred_clocks", def);
    open_blk(w, "Max Clocks", "max_clocks");
    kvm(x, "Graphics", "graphics_clock", GM_M_CLK_MAX_GR, " MHz");
    kvm(x, "SM", "sm_clock", GM_M_CLK_MAX_SM, " MHz");
    kvm(x, "Memory", "mem_clock", GM_M_CLK_MAX_MEM, " MHz");
    kvm(x, "Video", "video_clock", GM_M_CLK_MAX_VIDEO, " MHz");
    close_blk(w, "max_clocks");
    open_blk(w, "Max Customer Boost Clocks", "max_customer_boost_clocks");
    kvq(x, "Graphics", "graphics_clock", GM_Q_BOOST_GR, Q_MHZ);
    close_blk(w, "max_customer_boost_clocks");
    open_blk(w, "Clock Policy", "clock_policy");
    kvq(x, "Auto Boost", "auto_boost", GM_Q_AUTOBOOST, Q_ONOFF);
    kvq(x, "Auto Boost Default", "auto_boost_default", GM_Q_AUTOBOOST_DEF, Q_ONOFF);
    close_blk(w, "clock_policy");
}

static void voltage(struct ctx *x)
{
    static const char *const v[] = {"Graphics", "graphics_volt", NULL};
    na_block(x, "Voltage", "voltage", v);
}

static void fabric(struct ctx *x)
{
    static const char *const f[] = {"State", "state", "Status", "status", NULL};
    na_block(x, "Fabric", "fabric", f);
}

/* nvidia-smi: each memory clock, then its graphics clocks one level in;
 * one N/A line when the list cannot be read. */
static void supported_clocks(struct ctx *x)
{
    struct w *w = &x->w;
    const struct gm_q_gpu *q = x->q;
    if (!q || !gm_v_ok(&q->supported) || q->nmem == 0) {
        kv(w, "Supported Clocks", "supported_clocks",
           q && !gm_v_ok(&q->supported) ? absent(&q->supported) : NA);
        return;
    }
    char buf[32];
    open_blk(w, "Supported Clocks", "supported_clocks");
    for (uint32_t k = 0; k < q->nmem; k++) {
        snprintf(buf, sizeof(buf), "%u MHz", q->mem[k]);
        if (w->xml) {
            open_blk(w, NULL, "supported_mem_clock");
            kv(w, NULL, "value", buf);
        } else {
            kv(w, "Memory", NULL, buf);
            w->depth++;
        }
        if (!gm_v_ok(&q->gr_status[k]))
            kv(w, "Graphics", "supported_graphics_clock", absent(&q->gr_status[k]));
        for (uint32_t j = 0; j < q->ngr[k]; j++) {
            snprintf(buf, sizeof(buf), "%u MHz", q->gr[k][j]);
            kv(w, "Graphics", "supported_graphics_clock", buf);
        }
        if (w->xml)
            close_blk(w, "supported_mem_clock");
        else
            w->depth--;
    }
    close_blk(w, "supported_clocks");
}

static void processes(struct ctx *x)
{
    struct w *w = &x->w;
    const struct gm_gpu *g = x->g;
    if (!gm_v_ok(&g->proc_list) && g->nproc == 0) {
        kv(w, "Processes", "processes", absent(&g->proc_list));
        return;
    }
    if (g->nproc == 0 && !w->xml) {
        kv(w, "Processes", NULL, "None");
        return;
    }
    open_blk(w, "Processes", "processes");
    for (uint32_t k = 0; k < g->nproc; k++) {
        const struct gm_proc *p = &x->s->procs[g->proc_first + k];
        char buf[64];
        if (w->xml)
            open_blk(w, NULL, "process_info");
        if (p->gpu_instance_id != GM_NO_INSTANCE)
            snprintf(buf, sizeof(buf), "%u", p->gpu_instance_id);
        kv(w, "GPU instance ID", "gpu_instance_id",
           p->gpu_instance_id != GM_NO_INSTANCE ? buf : NA);
        if (p->compute_instance_id != GM_NO_INSTANCE)
            snprintf(buf, sizeof(buf), "%u", p->compute_instance_id);
        kv(w, "Compute instance ID", "compute_instance_id",
           p->compute_instance_id != GM_NO_INSTANCE ? buf : NA);
        snprintf(buf, sizeof(buf), "%u", p->pid);
        kv(w, "Process ID", "pid", buf);
        if (!w->xml)
            w->depth++;
        const char *type = (p->type & GM_PT_COMPUTE) && (p->type & GM_PT_GRAPHICS) ? "C+G"
                           : (p->type & GM_PT_GRAPHICS)                            ? "G"
                           : (p->type & GM_PT_MPS)                                 ? "M+C"
                                                                                   : "C";
        kv(w, "Type", "type", type);
        kv(w, "Name", "process_name",
           p->name[0] ? p->name : (p->name_code ? gm_nvml_error_text(p->name_code) : NA));
        if (gm_v_ok(&p->used_memory))
            snprintf(buf, sizeof(buf), "%.0f MiB",
                     floor(gm_v_as_double(&p->used_memory) / 1048576.0));
        kv(w, "Used GPU Memory", "used_memory",
           gm_v_ok(&p->used_memory) ? buf : absent(&p->used_memory));
        if (!w->xml)
            w->depth--;
        if (w->xml)
            close_blk(w, "process_info");
    }
    close_blk(w, "processes");
}

static void gpu(struct ctx *x)
{
    struct w *w = &x->w;
    const char *busid = gm_fmt_string(x->s, x->g, NULL, GM_M_PCI_BUS_ID);
    char idbuf[32];
    if (!busid) {
        snprintf(idbuf, sizeof(idbuf), "index %u", x->g->index);
        busid = idbuf;
    }
    indent(w);
    if (w->xml) {
        gm_buf_puts(w->b, "<gpu id=\"");
        xml_text(w->b, busid);
        gm_buf_puts(w->b, "\">\n");
    } else {
        gm_buf_puts(w->b, "GPU ");
        gm_text_line(w->b, busid, strlen(busid));
        gm_buf_putc(w->b, '\n');
    }
    w->depth++;
    int all = x->mask == 0;
    if (all) {
        identity(x);
        mig_devices(x);
    }
    if (want(x, GM_SMIQ_ACCOUNTING))
        accounting_mode(x);
    if (all)
        board(x);
    if (want(x, GM_SMIQ_GSP_FIRMWARE_VERSION))
        gsp(x);
    if (all)
        virt(x);
    if (want(x, GM_SMIQ_RESET_STATUS))
        reset_status(x);
    if (all) {
        ibmnpu(x);
        pci(x);
        kvm(x, "Fan Speed", "fan_speed", GM_M_FAN, " %");
    }
    if (want(x, GM_SMIQ_PERFORMANCE))
        performance(x);
    if (want(x, GM_SMIQ_MEMORY))
        memory(x);
    if (want(x, GM_SMIQ_COMPUTE))
        kvm(x, "Compute Mode", "compute_mode", GM_M_COMPUTE_MODE, NULL);
    if (want(x, GM_SMIQ_UTILIZATION))
        utilization(x);
    if (want(x, GM_SMIQ_ENCODER_STATS))
        session_stats(x, "Encoder Stats", "encoder_stats", GM_Q_ENC_SESSIONS);
    if (want(x, GM_SMIQ_FBC_STATS))
        session_stats(x, "FBC Stats", "fbc_stats", GM_Q_FBC_SESSIONS);
    if (want(x, GM_SMIQ_ECC))
        ecc(x);
    if (want(x, GM_SMIQ_PAGE_RETIREMENT))
        retired_pages(x);
    if (want(x, GM_SMIQ_ROW_REMAPPER))
        remapped_rows(x);
    if (want(x, GM_SMIQ_TEMPERATURE))
        temperature(x);
    if (want_listed(x, GM_SMIQ_SUPPORTED_GPU_TARGET_TEMP))
        target_temp(x);
    if (want(x, GM_SMIQ_POWER))
        power(x);
    if (want(x, GM_SMIQ_CLOCK))
        clocks(x);
    if (want(x, GM_SMIQ_VOLTAGE))
        voltage(x);
    if (all)
        fabric(x);
    if (want_listed(x, GM_SMIQ_SUPPORTED_CLOCKS))
        supported_clocks(x);
    if (want(x, GM_SMIQ_PIDS))
        processes(x);
    /* the accounted processes: in the text only with -d ACCOUNTING, as nvidia-smi */
    if ((!all && want(x, GM_SMIQ_ACCOUNTING)) || (all && w->xml))
        kv(w, "Accounted Processes", "accounted_processes", NA);
    w->depth--;
    if (w->xml) {
        indent(w);
        gm_buf_puts(w->b, "</gpu>\n");
    }
}

void gm_smiq_render(const struct gm_snapshot *s, const struct gm_q_gpu *q, uint64_t gpus,
                    uint32_t mask, int xml, struct gm_buf *out)
{
    struct ctx x = {.w = {.b = out, .xml = xml, .depth = 1}, .s = s, .g = NULL, .mask = mask};
    struct w *w = &x.w;
    char ts[64] = NA, drv[96], cuda[32] = NA;
    time_t t = (time_t)(s->wall_ns / 1000000000LL);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(ts, sizeof(ts), "%a %b %e %H:%M:%S %Y", &tm);
    snprintf(drv, sizeof(drv), "%s",
             gm_v_ok(&s->driver_version) ? s->driver_version_s : absent(&s->driver_version));
    if (gm_v_ok(&s->cuda_version)) {
        uint64_t cv = s->cuda_version.v.u;
        snprintf(cuda, sizeof(cuda), "%llu.%llu", (unsigned long long)(cv / 1000),
                 (unsigned long long)(cv % 1000 / 10));
    }
    /* all the GPUs of the system, as nvidia-smi, whatever -i selects */
    char count[16];
    snprintf(count, sizeof(count), "%u", s->ngpu);

    if (xml) {
        gm_buf_puts(out, "<?xml version=\"1.0\" ?>\n"
                         "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
                         "<nvidia_smi_log>\n");
    } else {
        gm_buf_puts(out, "\n==============NVSMI LOG==============\n\n");
    }
    kv(w, "Timestamp", "timestamp", ts);
    kv(w, "Driver Version", "driver_version", drv);
    kv(w, "CUDA Version", "cuda_version", cuda);
    if (!xml)
        gm_buf_putc(out, '\n');
    kv(w, "Attached GPUs", "attached_gpus", count);
    int first = 1;
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((gpus >> i) & 1))
            continue;
        /* text: a blank line between GPU blocks (nvidia-smi also ends with one;
         * gpumon does not: docs/compat-q.md) */
        if (!xml && !first)
            gm_buf_putc(out, '\n');
        first = 0;
        x.g = &s->gpus[i];
        x.q = q ? &q[i] : NULL;
        gpu(&x);
    }
    if (xml)
        gm_buf_puts(out, "</nvidia_smi_log>\n");
}

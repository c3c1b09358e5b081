/* smi_clocks.c -- nvidia-smi's multi-row list queries.
 *
 * --query-retired-pages: fields timestamp, gpu_name, gpu_bus_id, gpu_serial,
 * gpu_uuid, retired_pages.address (addr) and retired_pages.cause, one row
 * per page (the names sosreport's nvidia plugin asks for); the address
 * prints as 0x and 16 hex digits, the cause as "Single Bit ECC" (multiple
 * single-bit errors) or "Double Bit ECC" -- spellings not checked against
 * a pasted output.
 *
 * --query-accounted-apps: fields timestamp, gpu_name, gpu_bus_id,
 * gpu_serial, gpu_uuid, vgpu_instance, pid, gpu_utilization (gpu_util),
 * mem_utilization (mem_util), max_memory_usage and time, one row per
 * process the driver accounted; a GPU with accounting off prints no row
 * (NVML has nothing to give; not checked against nvidia-smi).  Header
 * units as scripts quote nvidia-smi's: "gpu_utilization [%]",
 * "max_memory_usage [MiB]", "time [ms]".
 *
 * --query-supported-clocks CSV: fields
 * timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, memory (mem) and
 * graphics (gr), as nvidia-smi's --help-query-supported-clocks names them;
 * the clocks print as "1980 MHz" ("1980" with nounits), the header as
 * "memory [MHz]".  The GPU's own fields come from the registry and print as
 * in --query-gpu.  (Checked against nvidia-smi's help text, not against a
 * pasted output: none was found.)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/fmt.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/value.h"
#include "smi_clocks.h"
#include "query.h"

enum {
    F_MEM = -1,
    F_GR = -2,
    F_ADDR = -3,
    F_CAUSE = -4,
    F_VGPU = -5,
    F_PID = -6,
    F_AGPU = -7,
    F_AMEM = -8,
    F_AMAX = -9,
    F_ATIME = -10
};

struct field {
    const char *name, *alias, *desc;
    int id; /* a registry metric, or F_MEM, F_GR, F_ADDR, F_CAUSE */
};

static const struct field page_fields[] = {
    {"timestamp", NULL, "The time of the query, YYYY/MM/DD HH:MM:SS.msec.", GM_M_TIMESTAMP},
    {"gpu_name", "name", "The product name of the GPU.", GM_M_NAME},
    {"gpu_bus_id", "pci.bus_id", "The PCI bus id of the GPU.", GM_M_PCI_BUS_ID},
    {"gpu_serial", "serial", "The serial number of the board.", GM_M_SERIAL},
    {"gpu_uuid", "uuid", "The globally unique id of the GPU.", GM_M_UUID},
    {"retired_pages.address", "retired_pages.addr", "The address of a retired page.", F_ADDR},
    {"retired_pages.cause", NULL,
     "Why the page was retired: Single Bit ECC (multiple single-bit errors) or Double Bit ECC.",
     F_CAUSE},
};

/* --query-remapped-rows: the field names scripts ask nvidia-smi for
 * (gpu_name, gpu_bus_id, gpu_uuid and the four remapped_rows.* values; e.g.
 * sosreport-style collectors and node health checks). */
static const struct field remap_fields[] = {
    {"timestamp", NULL, "The time of the query, YYYY/MM/DD HH:MM:SS.msec.", GM_M_TIMESTAMP},
    {"gpu_name", "name", "The product name of the GPU.", GM_M_NAME},
    {"gpu_bus_id", "pci.bus_id", "The PCI bus id of the GPU.", GM_M_PCI_BUS_ID},
    {"gpu_serial", "serial", "The serial number of the board.", GM_M_SERIAL},
    {"gpu_uuid", "uuid", "The globally unique id of the GPU.", GM_M_UUID},
    {"remapped_rows.correctable", NULL, "Rows remapped for correctable errors.", GM_M_REMAP_CORR},
    {"remapped_rows.uncorrectable", NULL, "Rows remapped for uncorrectable errors.",
     GM_M_REMAP_UNCORR},
    {"remapped_rows.pending", NULL, "Whether a remap waits for the next GPU reset (Yes/No).",
     GM_M_REMAP_PENDING},
    {"remapped_rows.failure", NULL, "Whether a remap failed: no spare row was left (Yes/No).",
     GM_M_REMAP_FAILURE},
};

static const struct field clock_fields[] = {
    {"timestamp", NULL, "The time of the query, YYYY/MM/DD HH:MM:SS.msec.", GM_M_TIMESTAMP},
    {"gpu_name", "name", "The product name of the GPU.", GM_M_NAME},
    {"gpu_bus_id", "pci.bus_id", "The PCI bus id of the GPU.", GM_M_PCI_BUS_ID},
    {"gpu_serial", "serial", "The serial number of the board.", GM_M_SERIAL},
    {"gpu_uuid", "uuid", "The globally unique id of the GPU.", GM_M_UUID},
    {"memory", "mem", "A supported memory clock, MHz.", F_MEM},
    {"graphics", "gr", "A supported graphics clock with that memory clock, MHz.", F_GR},
};
/* --query-accounted-apps: nvidia-smi's --help-query-accounted-apps names,
 * the header units as nvidia-smi prints them ("gpu_utilization [%]",
 * "max_memory_usage [MiB]", "time [ms]"). */
static const struct field acct_fields[] = {
    {"timestamp", NULL, "The time of the query, YYYY/MM/DD HH:MM:SS.msec.", GM_M_TIMESTAMP},
    {"gpu_name", "name", "The product name of the GPU.", GM_M_NAME},
    {"gpu_bus_id", "pci.bus_id", "The PCI bus id of the GPU.", GM_M_PCI_BUS_ID},
    {"gpu_serial", "serial", "The serial number of the board.", GM_M_SERIAL},
    {"gpu_uuid", "uuid", "The globally unique id of the GPU.", GM_M_UUID},
    {"vgpu_instance", NULL, "The vGPU instance the process ran in ([N/A] on bare metal).", F_VGPU},
    {"pid", NULL, "Process id of the accounted compute application.", F_PID},
    {"gpu_utilization", "gpu_util",
     "Share of the process's life during which a kernel of it ran on the GPU, %.", F_AGPU},
    {"mem_utilization", "mem_util",
     "Share of the process's life during which device memory was read or written, %.", F_AMEM},
    {"max_memory_usage", NULL, "Most device memory the process held at once, MiB.", F_AMAX},
    {"time", NULL, "How long the process's context was active, ms (0 while it runs).", F_ATIME},
};
#define NACCT (sizeof(acct_fields) / sizeof(acct_fields[0]))
#define NCLOCK (sizeof(clock_fields) / sizeof(clock_fields[0]))
#define NPAGE (sizeof(page_fields) / sizeof(page_fields[0]))
#define NREMAP (sizeof(remap_fields) / sizeof(remap_fields[0]))

static const struct field *table(int kind, size_t *n)
{
    switch (kind) {
    case GM_SCLK_PAGES:
        *n = NPAGE;
        return page_fields;
    case GM_SCLK_REMAP:
        *n = NREMAP;
        return remap_fields;
    case GM_SCLK_ACCOUNTED:
        *n = NACCT;
        return acct_fields;
    default:
        *n = NCLOCK;
        return clock_fields;
    }
}

const char *gm_sclk_field_name(int kind, size_t i)
{
    size_t n;
    const struct field *t = table(kind, &n);
    for (size_t k = 0; k < n; k++) {
        if (i == 0)
            return t[k].name;
        if (t[k].alias && --i == 0)
            return t[k].alias;
        i--;
    }
    return NULL;
}

static const char *switch_name(int kind)
{
    return kind == GM_SCLK_PAGES       ? "--query-retired-pages"
           : kind == GM_SCLK_REMAP     ? "--query-remapped-rows"
           : kind == GM_SCLK_ACCOUNTED ? "--query-accounted-apps"
                                       : "--query-supported-clocks";
}

int gm_sclk_parse(struct gm_sclk_query *q, int kind, const char *list, const char *format,
                  struct gm_err *err)
{
    memset(q, 0, sizeof(*q));
    q->kind = kind;
    size_t nf;
    const struct field *fields = table(kind, &nf);
    struct gm_query fq; /* --format is parsed as for --query-gpu */
    memset(&fq, 0, sizeof(fq));
    if (gm_query_parse_format(&fq, format, err) != 0)
        return GM_E_INVAL;
    q->noheader = fq.noheader;
    q->nounits = fq.nounits;
    const char *p = list;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        int found = -1;
        for (size_t i = 0; i < nf && found < 0; i++)
            if ((strlen(fields[i].name) == len && strncmp(fields[i].name, p, len) == 0) ||
                (fields[i].alias && strlen(fields[i].alias) == len &&
                 strncmp(fields[i].alias, p, len) == 0))
                found = (int)i;
        if (found < 0 || q->n == GM_SCLK_MAX_FIELDS) {
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)(len < 100 ? len : 100), p);
            char safe[160];
            gm_text_term_s(safe, sizeof(safe), name, 1);
            return gm_err_set(err, GM_E_INVAL, "Field \"%s\" is not a valid field to query.",
                              found < 0 ? safe : "(too many fields)");
        }
        q->field[q->n++] = found;
        p = e ? e + 1 : NULL;
    }
    if (q->n == 0)
        return gm_err_set(err, GM_E_INVAL, "no field given to %s", switch_name(kind));
    return 0;
}

void gm_sclk_header(const struct gm_sclk_query *q, struct gm_buf *out)
{
    if (q->noheader)
        return;
    size_t nf;
    const struct field *fields = table(q->kind, &nf);
    for (int i = 0; i < q->n; i++) {
        int f = q->field[i];
        if (i)
            gm_buf_puts(out, ", ");
        gm_buf_puts(out, fields[f].name);
        const char *unit = fields[f].id == F_MEM || fields[f].id == F_GR      ? "MHz"
                           : fields[f].id == F_AGPU || fields[f].id == F_AMEM ? "%"
                           : fields[f].id == F_AMAX                           ? "MiB"
                           : fields[f].id == F_ATIME                          ? "ms"
                                                                              : NULL;
        if (unit)
            gm_buf_printf(out, " [%s]", unit);
    }
    gm_buf_putc(out, '\n');
}

/* A process cell of --query-accounted-apps ([N/A] where NVML did not know
 * the value). */
static void acct_cell(const struct gm_sclk_query *q, const struct gm_accounted *a, int id,
                      struct gm_buf *out)
{
    const char *u = "";
    switch (id) {
    case F_PID:
        gm_buf_printf(out, "%" PRIu32, a->pid);
        return;
    case F_AGPU:
    case F_AMEM:
        if (!(id == F_AGPU ? a->have_gpu_util : a->have_mem_util)) {
            gm_buf_puts(out, "[N/A]");
            return;
        }
        gm_buf_printf(out, "%" PRIu32 "%s", id == F_AGPU ? a->gpu_util : a->mem_util,
                      q->nounits ? "" : " %");
        return;
    case F_AMAX:
        if (!a->have_max_memory) {
            gm_buf_puts(out, "[N/A]");
            return;
        }
        u = q->nounits ? "" : " MiB";
        gm_buf_printf(out, "%" PRIu64 "%s", a->max_memory / (UINT64_C(1) << 20), u);
        return;
    case F_ATIME:
        gm_buf_printf(out, "%" PRIu64 "%s", a->time_ms, q->nounits ? "" : " ms");
        return;
    default: /* F_VGPU: gpumon reads bare-metal and passthrough GPUs, no vGPU instances */
        gm_buf_puts(out, "[N/A]");
        return;
    }
}

/* One row: pair for clocks, page for pages, acct for accounted processes;
 * none: the reason rc. */
static void one_row(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                    const struct gm_gpu *g, const struct gm_clock_pair *pair,
                    const struct gm_retired_page *page, const struct gm_accounted *acct, int rc,
                    struct gm_buf *out)
{
    char buf[512];
    size_t nf;
    const struct field *fields = table(q->kind, &nf);
    for (int i = 0; i < q->n; i++) {
        int f = q->field[i], id = fields[f].id;
        if (i)
            gm_buf_puts(out, ", ");
        if (id < 0) {
            if (!pair && !page && !acct) {
                struct gm_value v = gm_v_status(gm_v_status_from_nvml(rc), rc);
                gm_buf_puts(out, gm_fmt_smi_absent(GM_M_CLK_MAX_MEM, &v));
            } else if (page && id == F_ADDR) {
                gm_buf_printf(out, "0x%016" PRIx64, page->address);
            } else if (page && id == F_CAUSE) {
                gm_buf_puts(out, page->cause ? "Double Bit ECC" : "Single Bit ECC");
            } else if (acct) {
                acct_cell(q, acct, id, out);
            } else if (pair && (id == F_MEM || id == F_GR)) {
                gm_buf_printf(out, "%u%s", id == F_MEM ? pair->mem_mhz : pair->gr_mhz,
                              q->nounits ? "" : " MHz");
            } else {
                gm_buf_puts(out, "[N/A]"); /* a field of the other table: cannot happen */
            }
            continue;
        }
        const char *text = gm_metrics[id].fmt == GM_F_STR ? gm_fmt_string(s, g, NULL, id) : NULL;
        if (text)
            gm_text_csv(out, text, strlen(text), GM_TEXT_CSV_OUTSIDE);
        else
            gm_buf_puts(out, gm_fmt_smi(s, g, NULL, id, q->nounits, buf, sizeof(buf)));
    }
    gm_buf_putc(out, '\n');
}

void gm_sclk_rows(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                  const struct gm_gpu *g, const struct gm_clock_pair *pairs, size_t n, int rc,
                  struct gm_buf *out)
{
    if (rc != 0) {
        one_row(q, s, g, NULL, NULL, NULL, rc, out);
        return;
    }
    for (size_t k = 0; k < n; k++)
        one_row(q, s, g, &pairs[k], NULL, NULL, 0, out);
}

void gm_sremap_row(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                   const struct gm_gpu *g, struct gm_buf *out)
{
    one_row(q, s, g, NULL, NULL, NULL, 0, out);
}

void gm_spages_rows(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                    const struct gm_gpu *g, const struct gm_retired_page *pages, size_t n, int rc,
                    struct gm_buf *out)
{
    if (rc != 0) {
        one_row(q, s, g, NULL, NULL, NULL, rc, out);
        return;
    }
    for (size_t k = 0; k < n; k++)
        one_row(q, s, g, NULL, &pages[k], NULL, 0, out);
}

void gm_sacct_rows(const struct gm_sclk_query *q, const struct gm_snapshot *s,
                   const struct gm_gpu *g, const struct gm_accounted *procs, size_t n, int rc,
                   struct gm_buf *out)
{
    if (rc != 0 && gm_v_status_from_nvml(rc) == GM_VS_UNSUPPORTED)
        return; /* accounting is off (NOT_SUPPORTED): nothing was accounted */
    if (rc != 0) {
        one_row(q, s, g, NULL, NULL, NULL, rc, out);
        return;
    }
    for (size_t k = 0; k < n; k++)
        one_row(q, s, g, NULL, NULL, &procs[k], 0, out);
}

void gm_sclk_help(int kind, struct gm_buf *out)
{
    size_t nf;
    const struct field *fields = table(kind, &nf);
    gm_buf_printf(out, "List of valid properties to query for the switch \"%s=\":\n\n",
                  switch_name(kind));
    for (size_t i = 0; i < nf; i++) {
        gm_buf_printf(out, "\"%s\"", fields[i].name);
        if (fields[i].alias)
            gm_buf_printf(out, " or \"%s\"", fields[i].alias);
        gm_buf_printf(out, "\n%s\n%s", fields[i].desc, i + 1 < nf ? "\n" : "");
    }
}

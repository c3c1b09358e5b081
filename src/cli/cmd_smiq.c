/* cmd_smiq.c -- `gpumon -q` / `gpumon query -q`: nvidia-smi's full report.
 *
 * nvidia-smi's flags: -q (--query), -x (--xml-format), -d (--display) with
 * its section names, -i (--id) by index, UUID or PCI bus id, -f
 * (--filename).  One sample of every read group (PCIe throughput included,
 * as nvidia-smi -q shows it) and the process list, then the report-only
 * values of the selected GPUs (source/nvml_q.h); the layout is
 * view/smiq.c's.  -l/-lms repeat the report (each one whole, one after the
 * other, as nvidia-smi).  Not done: --dtd, -u (unit report).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/safefile.h"
#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "../source/nvml_q.h"
#include "../view/smiq.h"
#include "cli.h"
#include "optgroups.h"

struct smiq_ctx {
    int loop; /* -l/-lms: go on after a report */
    uint32_t mask;
    int xml;
    int fd;
    const char *file;
};

static int smiq_rows(void *arg, const struct gm_snapshot *s, uint64_t mask, int first)
{
    struct smiq_ctx *x = arg;
    /* the report-only values of the selected GPUs, after the sample (whose
     * watchdog has seen the driver answer) */
    struct gm_q_gpu *q = calloc(s->ngpu ? s->ngpu : 1, sizeof(*q));
    struct gm_q_gpu *one = calloc(1, sizeof(*one));
    if (!q || !one) {
        cli_error("out of memory");
        abort();
    }
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((mask >> i) & 1))
            continue;
        struct gm_err qe = {0};
        gm_q_read(NULL, &s->gpus[i].index, 1, one, &qe); /* failures are in the values */
        q[i] = *one;
    }
    free(one);
    struct gm_buf out = GM_BUF_INIT;
    gm_smiq_render(s, q, mask, x->mask, x->xml, &out);
    free(q);
    struct gm_err err = {0};
    int rc = 0;
    if (first && x->fd != STDOUT_FILENO && gm_safefile_output_truncate(x->fd, x->file, &err) != 0) {
        cli_error("%s", err.msg);
        rc = GM_EXIT_FAIL;
    }
    if (rc == 0)
        rc = cli_write(x->fd, &out);
    gm_buf_free(&out);
    return rc ? rc : x->loop ? 0 : CLI_LOOP_END;
}

struct smiq_args {
    struct cli_gpu g; /* -i, --timeout */
    struct cli_smi s; /* -l, -lms, -f */
    int q, xml;
    uint32_t mask;
};

static int parse_sections(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    uint32_t m = 0;
    if (gm_smiq_parse_sections(v, &m, err) != 0)
        return -1;
    *(uint32_t *)dst |= m;
    return 0;
}

/* -d's text: the section names, comma-separated, in lines that end
 * before column 98 of the help (the text starts at column 26). */
static const char *sections_help(void)
{
    static char text[2048];
    if (text[0])
        return text;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "only these sections, comma-separated:\n");
    int col = 26;
    for (int k = 0; k < GM_SMIQ__COUNT; k++) {
        const char *n = gm_smiq_section_name(k);
        if (k > 0 && col + (int)strlen(n) + 2 > 98) {
            gm_buf_puts(&b, ",\n");
            col = 26;
        } else if (k > 0) {
            gm_buf_puts(&b, ", ");
            col += 2;
        }
        gm_buf_puts(&b, n);
        col += (int)strlen(n);
    }
    snprintf(text, sizeof text, "%s", b.p);
    gm_buf_free(&b);
    return text;
}

#define GPU(n, h)                                                                                  \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_gpu_group, .name = (n),                                  \
        .off = offsetof(struct smiq_args, g), .help = (h)                                          \
    }
#define SMI(n, h)                                                                                  \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_smi_group, .name = (n),                                  \
        .off = offsetof(struct smiq_args, s), .help = (h)                                          \
    }

/* Not const: -d's text is made from the section table at the first use. */
static struct gm_opt smiq_flag_rows[] = {
    {.kind = GM_OPT_SET,
     .name = "query",
     .letter = 'q',
     .val = 1,
     .off = offsetof(struct smiq_args, q),
     .help = "the report (required)"},
    {.kind = GM_OPT_SET,
     .name = "xml-format",
     .letter = 'x',
     .val = 1,
     .off = offsetof(struct smiq_args, xml),
     .help = "XML with nvidia-smi's element names (nvsmi_device_v12.dtd)"},
    {.kind = GM_OPT_FN,
     .name = "display",
     .letter = 'd',
     .arg = "SECTIONS",
     .fn = parse_sections,
     .off = offsetof(struct smiq_args, mask)},
    GPU("id", "only these GPUs: indices, UUIDs or PCI bus ids"),
    SMI("loop", "repeat the report every SEC seconds until interrupted"),
    SMI("loop-ms", "repeat it every MS milliseconds"),
    SMI("filename", NULL),
    GPU("timeout", "give up when an NVML call hangs this long (default 10)"),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd smiq_opts = {
    .name = "query",
    .head = "usage: gpumon query -q [-x] [-d SECTIONS] [-i IDS] [-f FILE]\n"
            "       gpumon -q [...]\n\n"
            "nvidia-smi's full report (nvidia-smi -q), as text or as XML.\n\n",
    .tail = "\nValues the GPU or driver cannot give, and the few gpumon does not read, print N/A\n"
            "(docs/compat-q.md lists them).\n",
    .col = 26,
    .eq = 1,
    .unknown_hint = " with -q",
    .opts = smiq_flag_rows,
};

int cmd_smiq_run(int argc, char **argv);

int cmd_smiq_run(int argc, char **argv)
{
    for (struct gm_opt *o = smiq_flag_rows; o->kind; o++)
        if (o->name && strcmp(o->name, "display") == 0)
            o->help = sections_help();
    struct smiq_args a = {.g.timeout_ns = CLI_DEFAULT_TIMEOUT_NS};
    int prc = cli_opts(&smiq_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    struct smiq_ctx x = {.fd = STDOUT_FILENO, .xml = a.xml, .mask = a.mask, .file = a.s.file};
    const char *ids = a.g.ids;
    int q = a.q;
    int64_t timeout = a.g.timeout_ns, loop = a.s.loop_ns;
    if (!q)
        return cli_usage_error("query", "-x and -d go with -q (the full report)");

    if (x.file) {
        struct gm_err oe = {0};
        x.fd = gm_safefile_open_output(x.file, &oe);
        if (x.fd < 0) {
            cli_error("%s", oe.msg);
            return GM_EXIT_FAIL;
        }
    }
    struct gm_collector_opts co = {0};
    co.groups = gm_nvml_groups_default();
    gm_rgset_add(&co.groups, GM_RG_PCIE_TPUT);
    co.nvml_flags = GM_NVML_EVERY_SAMPLE; /* the form has no place for an age */
    co.procs = 1;
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc == 0) {
        x.loop = loop > 0;
        if (loop)
            cli_catch_stop_signals();
        rc = cli_loop(col, loop, timeout, ids, smiq_rows, &x);
        gm_collector_close(col);
    }
    if (x.fd != STDOUT_FILENO && close(x.fd) != 0 && rc == 0) {
        cli_error("cannot write %s: %s", x.file, strerror(errno));
        rc = GM_EXIT_FAIL;
    }
    return rc;
}

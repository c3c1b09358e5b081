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
#include <getopt.h>
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

static void usage(FILE *f)
{
    fprintf(f, "usage: gpumon query -q [-x] [-d SECTIONS] [-i IDS] [-f FILE]\n"
               "       gpumon -q [...]\n\n"
               "nvidia-smi's full report (nvidia-smi -q), as text or as XML.\n\n"
               "  -q, --query             the report (required)\n"
               "  -x, --xml-format        XML with nvidia-smi's element names "
               "(nvsmi_device_v12.dtd)\n"
               "  -d, --display=SECTIONS  only these sections, comma-separated:\n"
               "                          ");
    int col = 26;
    for (int k = 0; k < GM_SMIQ__COUNT; k++) {
        const char *n = gm_smiq_section_name(k);
        if (k > 0 && col + (int)strlen(n) + 2 > 98) {
            fprintf(f, ",\n                          ");
            col = 26;
        } else if (k > 0)
            col += fprintf(f, ", ");
        col += fprintf(f, "%s", n);
    }
    fprintf(f, "\n");
    fprintf(f, "  -i, --id=IDS            only these GPUs: indices, UUIDs or PCI bus ids\n"
               "  -l, --loop=SEC          repeat the report every SEC seconds until interrupted\n"
               "  -lms, --loop-ms=MS      repeat it every MS milliseconds\n"
               "  -f, --filename=FILE     write to FILE (truncated) instead of stdout\n"
               "      --timeout=SEC       give up when an NVML call hangs this long (default 10)\n"
               "  -h, --help              this help\n\n"
               "Values the GPU or driver cannot give, and the few gpumon does not read, print N/A\n"
               "(docs/compat-q.md lists them).\n");
}

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

int cmd_smiq_run(int argc, char **argv);

int cmd_smiq_run(int argc, char **argv)
{
    enum { O_TIMEOUT = 256, O_LOOPMS };
    static const struct option opts[] = {
        {"query", no_argument, NULL, 'q'},
        {"xml-format", no_argument, NULL, 'x'},
        {"display", required_argument, NULL, 'd'},
        {"id", required_argument, NULL, 'i'},
        {"filename", required_argument, NULL, 'f'},
        {"loop", required_argument, NULL, 'l'},
        {"loop-ms", required_argument, NULL, O_LOOPMS},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct smiq_ctx x = {.fd = STDOUT_FILENO};
    const char *ids = NULL;
    int q = 0;
    int64_t timeout = CLI_DEFAULT_TIMEOUT_NS, loop = 0;
    /* nvidia-smi spells --loop-ms as -lms: rewrite it for getopt */
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "-lms") == 0)
            argv[k] = (char *)"--loop-ms";
        else if (strncmp(argv[k], "-lms=", 5) == 0) {
            static char buf[64];
            snprintf(buf, sizeof(buf), "--loop-ms=%s", argv[k] + 5);
            argv[k] = buf;
        }
    }
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qxd:i:f:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'q':
            q = 1;
            break;
        case 'x':
            x.xml = 1;
            break;
        case 'd': {
            struct gm_err err = {0};
            uint32_t m = 0;
            if (gm_smiq_parse_sections(optarg, &m, &err) != 0)
                return cli_usage_error("query", "%s", err.msg);
            x.mask |= m;
            break;
        }
        case 'i':
            ids = optarg;
            break;
        case 'f':
            x.file = optarg;
            break;
        case 'l':
            if (cli_parse_seconds(optarg, &loop) != 0)
                return cli_usage_error("query", "invalid --loop value '%s' (seconds)", optarg);
            break;
        case O_LOOPMS: {
            char *end;
            errno = 0;
            long ms = strtol(optarg, &end, 10);
            if (errno || *end || ms <= 0)
                return cli_usage_error("query", "invalid --loop-ms value '%s' (milliseconds)",
                                       optarg);
            loop = (int64_t)ms * 1000000LL;
            break;
        }
        case O_TIMEOUT:
            if (gm_parse_duration(optarg, &timeout) != 0)
                return cli_usage_error("query", "invalid --timeout '%s'", optarg);
            break;
        case 'h':
            usage(stdout);
            return GM_EXIT_OK;
        case ':':
            return cli_usage_error("query", "option %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("query", "unknown option %s with -q", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("query", "unexpected argument '%s'", argv[optind]);
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

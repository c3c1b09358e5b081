/* cmd_query.c -- `gpumon query`: nvidia-smi's --query-gpu / --query-compute-apps.
 *
 * Same flags and CSV as nvidia-smi so that shell loggers keep working with
 * `gpumon query` in place of `nvidia-smi`.  Differences (documented in
 * README): -i is --id as in nvidia-smi; a failure of the driver during a
 * -l loop is reported on stderr once and the loop goes on, resuming rows
 * when the driver is back; so is a GPU whose process list cannot be read
 * whole (--query-compute-apps has no row to say it in).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/safefile.h"
#include "../core/snapshot.h"
#include "../core/timeutil.h"
#include "../view/query.h"
#include "../view/smi_clocks.h"
#include "../view/smi_list.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gpumon query --query-gpu=FIELDS|--query-compute-apps=FIELDS --format=csv[,noheader]"
        "[,nounits] [OPTIONS]\n\n"
        "nvidia-smi compatible CSV queries.\n\n"
        "      --query-gpu=FIELDS           GPU fields (see --help-query-gpu)\n"
        "      --query-compute-apps=FIELDS  compute process fields (see "
        "--help-query-compute-apps)\n"
        "      --format=csv[,noheader][,nounits]\n"
        "  -i, --id=IDS                     only these GPUs: indices, UUIDs or PCI bus ids\n"
        "  -l, --loop=SEC                   repeat every SEC seconds until interrupted\n"
        "  -lms, --loop-ms=MS               repeat every MS milliseconds\n"
        "  -f, --filename=FILE              write to FILE (truncated) instead of stdout\n"
        "      --help-query-gpu             list the GPU fields\n"
        "      --help-query-compute-apps    list the process fields\n"
        "  -q, --query                      nvidia-smi's full report instead ('gpumon query -q "
        "-h')\n"
        "      --timeout=SEC                give up when an NVML call hangs this long (default "
        "10)\n"
        "      --query-supported-clocks=FIELDS  supported (memory, graphics) clock pairs\n"
        "      --help-query-supported-clocks    list their fields\n"
        "      --query-retired-pages=FIELDS     retired memory pages (boards before Ampere)\n"
        "      --help-query-retired-pages       list their fields\n"
        "      --query-remapped-rows=FIELDS     remapped memory rows (Ampere and later)\n"
        "      --help-query-remapped-rows       list their fields\n"
        "      --query-accounted-apps=FIELDS    processes accounted while accounting mode is on\n"
        "      --help-query-accounted-apps      list their fields\n"
        "  -L, --list-gpus                  list the GPUs and MIG devices (nvidia-smi -L)\n"
        "  -h, --help                       this help\n");
}

/* A GPU whose process list could not be read whole may lack rows: say so on
 * stderr, once per GPU while it lasts (*warned: the GPUs already reported). */
static void warn_proc_lists(const struct gm_snapshot *s, uint64_t mask, uint64_t *warned)
{
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        const struct gm_value *pl = &s->gpus[i].proc_list;
        uint64_t bit = UINT64_C(1) << i;
        int failed = (mask & bit) && !gm_v_ok(pl) &&
                     !(pl->status == GM_VS_NA && pl->code == GM_CODE_NOT_COLLECTED);
        if (failed && !(*warned & bit))
            cli_warn("GPU %u: the process list could not be read whole (%s); processes may be "
                     "missing",
                     s->gpus[i].index, gm_nvml_error_text(pl->code));
        *warned = failed ? *warned | bit : *warned & ~bit;
    }
}

/* One sample's rows (cli_loop): the header first, -f's file emptied just
 * before its first write. */
struct rows_ctx {
    const struct gm_query *q;
    struct gm_buf *out;
    int fd;
    const char *file;
    uint64_t proc_warned; /* GPUs whose unreadable process list was reported */
};

static int query_rows(void *arg, const struct gm_snapshot *s, uint64_t mask, int first)
{
    struct rows_ctx *x = arg;
    gm_buf_reset(x->out);
    if (first)
        gm_query_header(x->q, x->out);
    gm_query_rows(x->q, s, mask, x->out);
    if (x->q->kind == GM_QUERY_APPS)
        warn_proc_lists(s, mask, &x->proc_warned);
    struct gm_err err = {0};
    if (first && x->fd != STDOUT_FILENO && gm_safefile_output_truncate(x->fd, x->file, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    return cli_write(x->fd, x->out);
}

static int list_rows(void *arg, const struct gm_snapshot *s, uint64_t mask, int first)
{
    (void)first;
    struct gm_buf *out = arg;
    gm_buf_reset(out);
    gm_smi_list(s, mask, out);
    int rc = cli_write(STDOUT_FILENO, out);
    return rc ? rc : CLI_LOOP_END;
}

/* -L: one sample of names, UUIDs and MIG devices.  -f and -l make no sense
 * for a list of devices and are refused (nvidia-smi ignores them). */
static int list_gpus(const char *ids, const char *file, int64_t loop, int64_t timeout)
{
    if (file || loop)
        return cli_usage_error("query", "-L takes no -f or -l");
    struct gm_collector_opts co = {0};
    co.groups = GM_RGSET_OF(GM_RG_NAME, GM_RG_UUID, GM_RG_PCI, GM_RG_MIG_MODE);
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc)
        return rc;
    struct gm_buf out = GM_BUF_INIT;
    rc = cli_loop(col, 0, timeout, ids, list_rows, &out);
    gm_buf_free(&out);
    gm_collector_close(col);
    return rc;
}

struct sclk_ctx {
    struct gm_sclk_query q;
    struct gm_collector *col;
    struct gm_buf out;
    int fd;
    const char *file;
};

static int sclk_rows(void *arg, const struct gm_snapshot *s, uint64_t mask, int first)
{
    struct sclk_ctx *x = arg;
    gm_buf_reset(&x->out);
    if (first)
        gm_sclk_header(&x->q, &x->out);
    for (uint32_t i = 0; i < s->ngpu && i < 64; i++) {
        if (!((mask >> i) & 1))
            continue;
        size_t n = 0;
        /* a GPU the sample could not open (refused, lost) has no handle: its
         * list cells give the sample's reason, not "GPU is lost" */
        int down = s->gpus[i].state != GM_GPU_OK && s->gpus[i].state_code != 0;
        if (down && x->q.kind != GM_SCLK_REMAP) {
            if (x->q.kind == GM_SCLK_ACCOUNTED)
                gm_sacct_rows(&x->q, s, &s->gpus[i], NULL, 0, s->gpus[i].state_code, &x->out);
            else if (x->q.kind == GM_SCLK_PAGES)
                gm_spages_rows(&x->q, s, &s->gpus[i], NULL, 0, s->gpus[i].state_code, &x->out);
            else
                gm_sclk_rows(&x->q, s, &s->gpus[i], NULL, 0, s->gpus[i].state_code, &x->out);
        } else if (x->q.kind == GM_SCLK_REMAP) {
            gm_sremap_row(&x->q, s, &s->gpus[i], &x->out);
        } else if (x->q.kind == GM_SCLK_ACCOUNTED) {
            struct gm_accounted *procs = NULL;
            int rc = gm_collector_nvml_accounted(x->col, s->gpus[i].index, &procs, &n);
            gm_sacct_rows(&x->q, s, &s->gpus[i], procs, n, rc, &x->out);
            free(procs);
        } else if (x->q.kind == GM_SCLK_PAGES) {
            struct gm_retired_page *pages = NULL;
            int rc = gm_collector_nvml_retired_pages(x->col, s->gpus[i].index, &pages, &n);
            gm_spages_rows(&x->q, s, &s->gpus[i], pages, n, rc, &x->out);
            free(pages);
        } else {
            struct gm_clock_pair *pairs = NULL;
            int rc = gm_collector_nvml_supported_clocks(x->col, s->gpus[i].index, &pairs, &n);
            gm_sclk_rows(&x->q, s, &s->gpus[i], pairs, n, rc, &x->out);
            free(pairs);
        }
    }
    struct gm_err err = {0};
    if (first && x->fd != STDOUT_FILENO && gm_safefile_output_truncate(x->fd, x->file, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    return cli_write(x->fd, &x->out);
}

/* --query-supported-clocks / --query-retired-pages / --query-accounted-apps:
 * the GPU's fields from a sample, the clock pairs, pages or accounted
 * processes read for each selected GPU right after. */
static int row_lists(int kind, const char *fields, const char *format, const char *ids,
                     const char *file, int64_t loop, int64_t timeout)
{
    if (!format)
        return cli_usage_error("query", "--format=csv is required (as with nvidia-smi)");
    static struct sclk_ctx x; /* holds the query: keep it off the stack */
    memset(&x, 0, sizeof(x));
    struct gm_err err = {0};
    if (gm_sclk_parse(&x.q, kind, fields, format, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_USAGE;
    }
    x.fd = STDOUT_FILENO;
    x.file = file;
    if (file) {
        struct gm_err oe = {0};
        x.fd = gm_safefile_open_output(file, &oe);
        if (x.fd < 0) {
            cli_error("%s", oe.msg);
            return GM_EXIT_FAIL;
        }
    }
    struct gm_collector_opts co = {0};
    co.groups = GM_RGSET_OF(GM_RG_NAME, GM_RG_UUID, GM_RG_PCI, GM_RG_SERIAL, GM_RG_MIG_MODE,
                            GM_RG_REMAPPED);
    int rc = cli_open(&x.col, &co);
    if (rc == 0) {
        if (loop)
            cli_catch_stop_signals();
        rc = cli_loop(x.col, loop, timeout, ids, sclk_rows, &x);
        gm_collector_close(x.col);
    }
    if (x.fd != STDOUT_FILENO && close(x.fd) != 0 && rc == 0) {
        cli_error("cannot write %s: %s", file, strerror(errno));
        rc = GM_EXIT_FAIL;
    }
    gm_buf_free(&x.out);
    return rc;
}

int cmd_query_run(int argc, char **argv);
int cmd_smiq_run(int argc, char **argv);

int cmd_query_run(int argc, char **argv)
{
    /* nvidia-smi -q (the full report) has its own flags: cmd_smiq.c */
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "-q") == 0 || strcmp(argv[k], "--query") == 0)
            return cmd_smiq_run(argc, argv);
    enum { O_QGPU = 256, O_QAPPS, O_FORMAT, O_HELPGPU, O_HELPAPPS, O_LOOPMS, O_TIMEOUT };
    enum { LIST = 3, SCLK, SPAGES, SREMAP, SACCT }; /* -L and the multi-row list queries */
    enum { O_QSCLK = 300, O_HELPSCLK, O_QPAGES, O_HELPPAGES, O_QREMAP, O_HELPREMAP };
    enum { O_QACCT = 320, O_HELPACCT };
    static const struct option opts[] = {
        {"query-gpu", required_argument, NULL, O_QGPU},
        {"query-compute-apps", required_argument, NULL, O_QAPPS},
        {"format", required_argument, NULL, O_FORMAT},
        {"id", required_argument, NULL, 'i'},
        {"loop", required_argument, NULL, 'l'},
        {"loop-ms", required_argument, NULL, O_LOOPMS},
        {"filename", required_argument, NULL, 'f'},
        {"help-query-gpu", no_argument, NULL, O_HELPGPU},
        {"help-query-compute-apps", no_argument, NULL, O_HELPAPPS},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"list-gpus", no_argument, NULL, 'L'},
        {"query-supported-clocks", required_argument, NULL, O_QSCLK},
        {"help-query-supported-clocks", no_argument, NULL, O_HELPSCLK},
        {"query-retired-pages", required_argument, NULL, O_QPAGES},
        {"help-query-retired-pages", no_argument, NULL, O_HELPPAGES},
        {"query-remapped-rows", required_argument, NULL, O_QREMAP},
        {"help-query-remapped-rows", no_argument, NULL, O_HELPREMAP},
        {"query-accounted-apps", required_argument, NULL, O_QACCT},
        {"help-query-accounted-apps", no_argument, NULL, O_HELPACCT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
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
    const char *fields = NULL, *format = NULL, *ids = NULL, *file = NULL;
    int kind = -1, help = -1;
    int64_t loop = 0, timeout = CLI_DEFAULT_TIMEOUT_NS;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":i:l:f:hL", opts, NULL)) != -1) {
        switch (c) {
        case O_QSCLK:
        case O_QPAGES:
        case O_QREMAP:
        case O_QACCT:
            if (kind >= 0)
                return cli_usage_error("query", "give only one of --query-gpu, "
                                                "--query-compute-apps, "
                                                "--query-supported-clocks, "
                                                "--query-retired-pages, "
                                                "--query-remapped-rows, "
                                                "--query-accounted-apps and -L");
            kind = c == O_QSCLK ? SCLK : c == O_QPAGES ? SPAGES : c == O_QREMAP ? SREMAP : SACCT;
            fields = optarg;
            break;
        case O_HELPSCLK:
            help = SCLK;
            break;
        case O_HELPPAGES:
            help = SPAGES;
            break;
        case O_HELPREMAP:
            help = SREMAP;
            break;
        case O_HELPACCT:
            help = SACCT;
            break;
        case 'L':
            if (kind >= 0 && kind != LIST)
                return cli_usage_error("query", "-L cannot be combined with --query-gpu or "
                                                "--query-compute-apps");
            kind = LIST;
            break;
        case O_QGPU:
        case O_QAPPS:
            if (kind == LIST)
                return cli_usage_error("query", "-L cannot be combined with --query-gpu or "
                                                "--query-compute-apps");
            if (kind >= 0)
                return cli_usage_error("query",
                                       "give only one of --query-gpu and --query-compute-apps");
            kind = c == O_QGPU ? GM_QUERY_GPU : GM_QUERY_APPS;
            fields = optarg;
            break;
        case O_FORMAT:
            format = optarg;
            break;
        case 'i':
            ids = optarg;
            break;
        case 'l': {
            if (cli_parse_seconds(optarg, &loop) != 0)
                return cli_usage_error("query", "invalid --loop value '%s' (seconds)", optarg);
            break;
        }
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
        case 'f':
            file = optarg;
            break;
        case O_HELPGPU:
            help = GM_QUERY_GPU;
            break;
        case O_HELPAPPS:
            help = GM_QUERY_APPS;
            break;
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
            return cli_usage_error("query", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("query", "unexpected argument '%s'", argv[optind]);

    struct gm_buf out = GM_BUF_INIT;
    if (help == SCLK || help == SPAGES || help == SREMAP || help == SACCT) {
        gm_sclk_help(help == SCLK     ? GM_SCLK_CLOCKS
                     : help == SPAGES ? GM_SCLK_PAGES
                     : help == SACCT  ? GM_SCLK_ACCOUNTED
                                      : GM_SCLK_REMAP,
                     &out);
        int rc = cli_write(STDOUT_FILENO, &out);
        gm_buf_free(&out);
        return rc;
    }
    if (help >= 0) {
        gm_query_help(help, &out);
        int rc = cli_write(STDOUT_FILENO, &out);
        gm_buf_free(&out);
        return rc;
    }
    if (kind == LIST)
        return list_gpus(ids, file, loop, timeout);
    if (kind == SCLK || kind == SPAGES || kind == SREMAP || kind == SACCT) {
        gm_buf_free(&out);
        return row_lists(kind == SCLK     ? GM_SCLK_CLOCKS
                         : kind == SPAGES ? GM_SCLK_PAGES
                         : kind == SACCT  ? GM_SCLK_ACCOUNTED
                                          : GM_SCLK_REMAP,
                         fields, format, ids, file, loop, timeout);
    }
    if (kind < 0)
        return cli_usage_error("query", "give --query-gpu=FIELDS or --query-compute-apps=FIELDS");
    if (!format)
        return cli_usage_error("query", "--format=csv is required (as with nvidia-smi)");

    static struct gm_query q; /* large: keep it off the stack */
    struct gm_err err = {0};
    if (gm_query_parse_fields(&q, kind, fields, &err) != 0 ||
        gm_query_parse_format(&q, format, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_USAGE;
    }

    int fd = STDOUT_FILENO;
    if (file) {
        /* emptied only once there is something to write (safefile.h) */
        struct gm_err oe = {0};
        fd = gm_safefile_open_output(file, &oe);
        if (fd < 0) {
            cli_error("%s", oe.msg);
            return GM_EXIT_FAIL;
        }
    }

    int need_procs = 0;
    struct gm_collector_opts co = {0};
    co.groups = gm_query_groups(&q, &need_procs, &co.nvml_flags);
    gm_rgset_add(&co.groups, GM_RG_MIG_MODE); /* -i may name a MIG UUID */
    co.procs = need_procs;
    co.procfs = need_procs;
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc) {
        if (fd != STDOUT_FILENO)
            close(fd);
        return rc;
    }
    if (loop)
        cli_catch_stop_signals();

    struct rows_ctx rx = {.q = &q, .out = &out, .fd = fd, .file = file};
    rc = cli_loop(col, loop, timeout, ids, query_rows, &rx);
    if (fd != STDOUT_FILENO && close(fd) != 0 && rc == 0) {
        cli_error("cannot write %s: %s", file, strerror(errno));
        rc = GM_EXIT_FAIL;
    }
    gm_buf_free(&out);
    gm_collector_close(col);
    return rc;
}

const struct gm_cmd gm_cmd_query = {
    "query", "nvidia-smi compatible --query-gpu / --query-compute-apps", cmd_query_run};

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
#include "optgroups.h"

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

enum { LIST = 3, SCLK, SPAGES, SREMAP, SACCT }; /* -L and the multi-row list queries */

struct query_args {
    struct cli_gpu g; /* -i, --timeout */
    struct cli_smi s; /* -l, -lms, -f */
    const char *fields, *format;
    int kind, help, smiq;
};

/* --query-gpu and --query-compute-apps (.val: the kind). */
static int query_fields(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct query_args *a = dst;
    if (a->kind == LIST)
        return gm_err_set(err, GM_E_INVAL,
                          "-L cannot be combined with --query-gpu or --query-compute-apps");
    if (a->kind >= 0)
        return gm_err_set(err, GM_E_INVAL, "give only one of --query-gpu and --query-compute-apps");
    a->kind = o->val;
    a->fields = v;
    return 0;
}

/* The multi-row list queries (.val: the kind). */
static int query_list(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct query_args *a = dst;
    if (a->kind >= 0)
        return gm_err_set(err, GM_E_INVAL,
                          "give only one of --query-gpu, --query-compute-apps, "
                          "--query-supported-clocks, --query-retired-pages, "
                          "--query-remapped-rows, --query-accounted-apps and -L");
    a->kind = o->val;
    a->fields = v;
    return 0;
}

/* -L: a flag, but it conflicts as the queries do. */
static int query_list_gpus(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct query_args *a = dst;
    if (a->kind >= 0 && a->kind != LIST)
        return gm_err_set(err, GM_E_INVAL,
                          "-L cannot be combined with --query-gpu or --query-compute-apps");
    a->kind = LIST;
    return 0;
}

/* A flag that is a query ("--query-gpu") or a help of one ("--help-query-gpu"). */
#define QUERY(n, fnc, k, h, ...)                                                                   \
    {                                                                                              \
        .kind = GM_OPT_FN, .name = (n), .arg = "FIELDS", .fn = (fnc), .val = (k), .help = (h),     \
        __VA_ARGS__                                                                                \
    }
#define HELPQ(n, k, h, ...)                                                                        \
    {                                                                                              \
        .kind = GM_OPT_SET, .name = (n), .val = (k), .off = offsetof(struct query_args, help),     \
        .help = (h), __VA_ARGS__                                                                   \
    }
#define SMI(n)                                                                                     \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_smi_group, .name = (n),                                  \
        .off = offsetof(struct query_args, s)                                                      \
    }
#define GPU(n, ...)                                                                                \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_gpu_group, .name = (n),                                  \
        .off = offsetof(struct query_args, g), __VA_ARGS__                                         \
    }

static const struct gm_opt query_flag_rows[] = {
    QUERY("query-gpu", query_fields, GM_QUERY_GPU, "GPU fields (see --help-query-gpu)"),
    QUERY("query-compute-apps", query_fields, GM_QUERY_APPS,
          "compute process fields (see --help-query-compute-apps)"),
    {.kind = GM_OPT_STR,
     .name = "format",
     .arg = "csv[,noheader][,nounits]",
     .help = "",
     .off = offsetof(struct query_args, format)},
    GPU("id", .help = "only these GPUs: indices, UUIDs or PCI bus ids"),
    SMI("loop"),
    SMI("loop-ms"),
    SMI("filename"),
    HELPQ("help-query-gpu", GM_QUERY_GPU, "list the GPU fields"),
    HELPQ("help-query-compute-apps", GM_QUERY_APPS, "list the process fields"),
    /* read by cmd_query_run before the parse: it is cmd_smiq.c's command */
    {.kind = GM_OPT_SET,
     .name = "query",
     .letter = 'q',
     .val = 1,
     .off = offsetof(struct query_args, smiq),
     .help = "nvidia-smi's full report instead ('gpumon query -q -h')"},
    GPU("timeout", .help = "give up when an NVML call hangs this long (default 10)"),
    QUERY("query-supported-clocks", query_list, SCLK, "supported (memory, graphics) clock pairs",
          .col = 39),
    HELPQ("help-query-supported-clocks", SCLK, "list their fields", .col = 39),
    QUERY("query-retired-pages", query_list, SPAGES, "retired memory pages (boards before Ampere)",
          .col = 39),
    HELPQ("help-query-retired-pages", SPAGES, "list their fields", .col = 39),
    QUERY("query-remapped-rows", query_list, SREMAP, "remapped memory rows (Ampere and later)",
          .col = 39),
    HELPQ("help-query-remapped-rows", SREMAP, "list their fields", .col = 39),
    QUERY("query-accounted-apps", query_list, SACCT,
          "processes accounted while accounting mode is on", .col = 39),
    HELPQ("help-query-accounted-apps", SACCT, "list their fields", .col = 39),
    {.kind = GM_OPT_FN,
     .name = "list-gpus",
     .letter = 'L',
     .fn = query_list_gpus,
     .help = "list the GPUs and MIG devices (nvidia-smi -L)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd query_opts = {
    .name = "query",
    .head = "usage: gpumon query --query-gpu=FIELDS|--query-compute-apps=FIELDS "
            "--format=csv[,noheader][,nounits] [OPTIONS]\n\n"
            "nvidia-smi compatible CSV queries.\n\n",
    .col = 35,
    .eq = 1,
    .opts = query_flag_rows,
};

int cmd_query_run(int argc, char **argv);
int cmd_smiq_run(int argc, char **argv);

int cmd_query_run(int argc, char **argv)
{
    /* nvidia-smi -q (the full report) has its own flags: cmd_smiq.c */
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "-q") == 0 || strcmp(argv[k], "--query") == 0)
            return cmd_smiq_run(argc, argv);
    struct query_args a = {.kind = -1, .help = -1, .g.timeout_ns = CLI_DEFAULT_TIMEOUT_NS};
    int prc = cli_opts(&query_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    const char *fields = a.fields, *format = a.format, *ids = a.g.ids, *file = a.s.file;
    int kind = a.kind, help = a.help;
    int64_t loop = a.s.loop_ns, timeout = a.g.timeout_ns;

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
    co.nvml_flags |= GM_NVML_EVERY_SAMPLE;    /* the form has no place for an age */
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

const struct gm_cmd gm_cmd_query = {"query",
                                    "nvidia-smi compatible --query-gpu / --query-compute-apps",
                                    cmd_query_run, &query_opts};

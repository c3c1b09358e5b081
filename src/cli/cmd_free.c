/* cmd_free.c -- `gpumon free`: which GPUs (and MIG instances) are free, as
 * a table, an id list, shell code for CUDA_VISIBLE_DEVICES, or JSON.
 *
 * Samples the machine --samples times spread evenly over --window (4 over
 * 1 s: a third of a second apart, so a 0.5 s busy/idle heartbeat is not
 * seen in the same phase every time), then lets view/free.c judge the
 * window.  Exit 1 when fewer than --count are free (docs/free.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "../view/free.h"
#include "cli.h"
#include "optgroups.h"

#define FREE_MAX_SAMPLES 100

enum { FMT_TABLE, FMT_IDS, FMT_ENV, FMT_JSON };

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
    char *end;
    if (!s[0] || s[0] == '-' || s[0] == '+')
        return -1;
    unsigned long x = strtoul(s, &end, 10);
    if (*end || x > max)
        return -1;
    *v = x;
    return 0;
}

struct free_args {
    struct cli_gpu g; /* --timeout */
    struct gm_free_opts fo;
    int64_t window;
    unsigned long count, samples;
    int fmt, by_index, pretty;
};

static int parse_count(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    unsigned long *n = dst;
    if (parse_uint(v, 64UL * (GM_MIG_MAX + 1), n) != 0 || *n == 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s'", o->name, v);
    return 0;
}

static int parse_min_mem(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    return gm_free_parse_min_mem(v, o->name, dst, err) != 0 ? -1 : 0;
}

static int parse_max_util(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    unsigned long u;
    if (parse_uint(v, 100, &u) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (0-100)", o->name, v);
    *(unsigned *)dst = (unsigned)u;
    return 0;
}

static int parse_window(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *w = dst;
    if (strcmp(v, "0") == 0)
        *w = 0;
    else if (cli_parse_seconds(v, w) != 0 || *w > 60000000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (0 to 60 s)", o->name, v);
    return 0;
}

static int parse_samples(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    unsigned long *n = dst;
    if (parse_uint(v, FREE_MAX_SAMPLES, n) != 0 || *n == 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (1-%d)", o->name, v,
                          FREE_MAX_SAMPLES);
    return 0;
}

static const struct gm_opt free_rows[] = {
    {.kind = GM_OPT_FN,
     .name = "count",
     .letter = 'n',
     .arg = "N",
     .fn = parse_count,
     .off = offsetof(struct free_args, count),
     .help = "choose N (the first free ones in index order); exit 1 when\n"
             "fewer are free (default: all that are free)"},
    {.kind = GM_OPT_FN,
     .name = "min-mem",
     .arg = "SIZE",
     .fn = parse_min_mem,
     .off = offsetof(struct free_args, fo),
     .help = "free memory needed: 20G, 512MiB, or a percentage of the\n"
             "total, 50% (default 90%: almost empty)"},
    {.kind = GM_OPT_FN,
     .name = "max-util",
     .arg = "PCT",
     .fn = parse_max_util,
     .off = offsetof(struct free_args, fo.max_util),
     .help = "utilisation allowed in every sample (default 10)"},
    {.kind = GM_OPT_SET,
     .name = "allow-procs",
     .val = 1,
     .off = offsetof(struct free_args, fo.allow_procs),
     .help = "compute processes do not make a GPU busy"},
    {.kind = GM_OPT_FN,
     .name = "window",
     .arg = "SEC",
     .fn = parse_window,
     .off = offsetof(struct free_args, window),
     .help = "judge over this long (default 1; 0 = one sample)"},
    {.kind = GM_OPT_FN,
     .name = "samples",
     .arg = "N",
     .fn = parse_samples,
     .off = offsetof(struct free_args, samples),
     .help = "samples in the window (default 4)"},
    {.kind = GM_OPT_CHOICE,
     .name = "format",
     .letter = 'f',
     .arg = "table|ids|env|json",
     .hint = "table, ids, env, json",
     .off = offsetof(struct free_args, fmt),
     .help = "what to print (default: table)"},
    {.kind = GM_OPT_CHOICE,
     .name = "by",
     .arg = "uuid|index",
     .hint = "uuid, index",
     .off = offsetof(struct free_args, by_index),
     .help = "ids and env name GPUs by uuid (default) or index"},
    {.kind = GM_OPT_SET,
     .name = "compact",
     .val = 0,
     .off = offsetof(struct free_args, pretty),
     .help = "JSON on one line (default: indented)"},
    {.kind = GM_OPT_USE,
     .group = &cli_gpu_group,
     .name = "timeout",
     .off = offsetof(struct free_args, g)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd free_opts = {
    .name = "free",
    .head = "usage: gpumon free [OPTIONS]\n\n"
            "Which GPUs are free: every GPU and MIG instance with its verdict and why, or the\n"
            "chosen ones as ids or CUDA_VISIBLE_DEVICES.  Free means, in every sample of the\n"
            "window: enough free memory, utilisation at most --max-util, no compute process;\n"
            "and not lost, not waiting for a row remap or page retirement, not exclusive-mode\n"
            "with a process, not compute-prohibited.  A MIG GPU's instances count separately.\n\n",
    .tail = "\n  eval \"$(gpumon free --count 2 --format env)\" exports CUDA_VISIBLE_DEVICES by "
            "UUID;\n"
            "  see docs/free.md for why not by index, and for checking the exit status.\n",
    .col = 23,
    .opts = free_rows,
};

static int cmd_free_run(int argc, char **argv)
{
    struct free_args a = {.g.timeout_ns = CLI_DEFAULT_TIMEOUT_NS,
                          .fo = GM_FREE_OPTS_DEFAULT,
                          .window = 1000000000LL,
                          .samples = 4,
                          .fmt = FMT_TABLE,
                          .pretty = 1};
    int prc = cli_opts(&free_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    struct gm_free_opts fo = a.fo;
    int64_t window = a.window, timeout = a.g.timeout_ns;
    unsigned long count = a.count, samples = a.samples;
    int fmt = a.fmt, by_index = a.by_index, pretty = a.pretty;
    struct gm_err err = {0};
    if (window == 0)
        samples = 1;
    if (samples == 1)
        window = 0;

    struct gm_collector_opts co = {
        .procs = 1,
        .groups = GM_RGSET_OF(GM_RG_MEMORY, GM_RG_UTIL, GM_RG_COMPUTE_MODE, GM_RG_MIG_MODE,
                              GM_RG_REMAPPED, GM_RG_RETIRED),
    };
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc != 0)
        return rc;
    cli_catch_stop_signals();

    struct gm_snapshot *snaps[FREE_MAX_SAMPLES];
    size_t n = 0;
    int64_t start = gm_mono_ns();
    for (unsigned long k = 0; k < samples && !cli_stop; k++) {
        if (k) /* evenly spread: k * window / (samples - 1) after the first */
            gm_sleep_until(start + (int64_t)((double)window * (double)k / (double)(samples - 1)),
                           &cli_stop);
        snaps[n] = gm_snapshot_new();
        rc = cli_sample(col, snaps[n++], timeout, 1);
        if (rc != 0)
            break;
    }
    if (rc == 0 && cli_stop)
        rc = GM_EXIT_FAIL;

    struct gm_free_result r = {0};
    struct gm_buf out = GM_BUF_INIT;
    if (rc == 0) {
        gm_free_judge((const struct gm_snapshot *const *)snaps, n, &fo, &r);
        int enough = gm_free_choose(&r, (uint32_t)count) == 0;
        switch (fmt) {
        case FMT_TABLE:
            gm_free_table(&r, &out);
            break;
        case FMT_JSON:
            gm_free_json(&r, &fo, (double)window / 1e9, (unsigned)samples, (uint32_t)count, pretty,
                         &out);
            break;
        case FMT_IDS:
            if (enough)
                gm_free_ids(&r, by_index, &out);
            break;
        case FMT_ENV:
            if (enough && gm_free_env(&r, by_index, &out, &err) != 0) {
                cli_error("%s", err.msg);
                rc = GM_EXIT_FAIL;
            }
            break;
        }
        if (rc == 0)
            rc = cli_write(STDOUT_FILENO, &out);
        if (rc == 0 && !enough) {
            cli_error("too few free GPUs: %u free, --count %lu", r.nfree, count);
            rc = GM_EXIT_FAIL;
        }
    }
    gm_buf_free(&out);
    gm_free_result_clear(&r);
    for (size_t i = 0; i < n; i++)
        gm_snapshot_free(snaps[i]);
    gm_collector_close(col);
    return rc;
}

const struct gm_cmd gm_cmd_free = {"free", "which GPUs are free, and CUDA_VISIBLE_DEVICES for them",
                                   cmd_free_run, &free_opts};

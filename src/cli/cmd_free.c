/* cmd_free.c -- `gpumon free`: which GPUs (and MIG instances) are free, as
 * a table, an id list, shell code for CUDA_VISIBLE_DEVICES, or JSON.
 *
 * Samples the machine --samples times spread evenly over --window (4 over
 * 1 s: a third of a second apart, so a 0.5 s busy/idle heartbeat is not
 * seen in the same phase every time), then lets view/free.c judge the
 * window.  Exit 1 when fewer than --count are free (docs/free.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../core/timeutil.h"
#include "../source/nvml.h"
#include "../view/free.h"
#include "cli.h"

#define FREE_MAX_SAMPLES 100

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gpumon free [OPTIONS]\n\n"
        "Which GPUs are free: every GPU and MIG instance with its verdict and why, or the\n"
        "chosen ones as ids or CUDA_VISIBLE_DEVICES.  Free means, in every sample of the\n"
        "window: enough free memory, utilisation at most --max-util, no compute process;\n"
        "and not lost, not waiting for a row remap or page retirement, not exclusive-mode\n"
        "with a process, not compute-prohibited.  A MIG GPU's instances count separately.\n\n"
        "  -n, --count N        choose N (the first free ones in index order); exit 1 when\n"
        "                       fewer are free (default: all that are free)\n"
        "      --min-mem SIZE   free memory needed: 20G, 512MiB, or a percentage of the\n"
        "                       total, 50%% (default 90%%: almost empty)\n"
        "      --max-util PCT   utilisation allowed in every sample (default 10)\n"
        "      --allow-procs    compute processes do not make a GPU busy\n"
        "      --window SEC     judge over this long (default 1; 0 = one sample)\n"
        "      --samples N      samples in the window (default 4)\n"
        "  -f, --format table|ids|env|json\n"
        "                       what to print (default: table)\n"
        "      --by uuid|index  ids and env name GPUs by uuid (default) or index\n"
        "      --compact        JSON on one line (default: indented)\n"
        "      --timeout SEC    give up when an NVML call hangs this long (default 10; 0 = never)\n"
        "  -h, --help           this help\n\n"
        "  eval \"$(gpumon free --count 2 --format env)\" exports CUDA_VISIBLE_DEVICES by UUID;\n"
        "  see docs/free.md for why not by index, and for checking the exit status.\n");
}

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

static int cmd_free_run(int argc, char **argv)
{
    enum {
        O_MINMEM = 256,
        O_MAXUTIL,
        O_ALLOW,
        O_WINDOW,
        O_SAMPLES,
        O_BY,
        O_COMPACT,
        O_TIMEOUT,
    };
    static const struct option opts[] = {
        {"count", required_argument, NULL, 'n'},
        {"min-mem", required_argument, NULL, O_MINMEM},
        {"max-util", required_argument, NULL, O_MAXUTIL},
        {"allow-procs", no_argument, NULL, O_ALLOW},
        {"window", required_argument, NULL, O_WINDOW},
        {"samples", required_argument, NULL, O_SAMPLES},
        {"format", required_argument, NULL, 'f'},
        {"by", required_argument, NULL, O_BY},
        {"compact", no_argument, NULL, O_COMPACT},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gm_free_opts fo = GM_FREE_OPTS_DEFAULT;
    int64_t window = 1000000000LL, timeout = CLI_DEFAULT_TIMEOUT_NS;
    unsigned long count = 0, samples = 4, v;
    int fmt = FMT_TABLE, by_index = 0, pretty = 1, c;
    struct gm_err err = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (parse_uint(optarg, 64UL * (GM_MIG_MAX + 1), &count) != 0 || count == 0)
                return cli_usage_error("free", "invalid --count '%s'", optarg);
            break;
        case O_MINMEM:
            if (gm_free_parse_min_mem(optarg, &fo, &err) != 0)
                return cli_usage_error("free", "%s", err.msg);
            break;
        case O_MAXUTIL:
            if (parse_uint(optarg, 100, &v) != 0)
                return cli_usage_error("free", "invalid --max-util '%s' (0-100)", optarg);
            fo.max_util = (unsigned)v;
            break;
        case O_ALLOW:
            fo.allow_procs = 1;
            break;
        case O_WINDOW:
            if (strcmp(optarg, "0") == 0)
                window = 0;
            else if (cli_parse_seconds(optarg, &window) != 0 || window > 60000000000LL)
                return cli_usage_error("free", "invalid --window '%s' (0 to 60 s)", optarg);
            break;
        case O_SAMPLES:
            if (parse_uint(optarg, FREE_MAX_SAMPLES, &samples) != 0 || samples == 0)
                return cli_usage_error("free", "invalid --samples '%s' (1-%d)", optarg,
                                       FREE_MAX_SAMPLES);
            break;
        case 'f':
            if (strcmp(optarg, "table") == 0)
                fmt = FMT_TABLE;
            else if (strcmp(optarg, "ids") == 0)
                fmt = FMT_IDS;
            else if (strcmp(optarg, "env") == 0)
                fmt = FMT_ENV;
            else if (strcmp(optarg, "json") == 0)
                fmt = FMT_JSON;
            else
                return cli_usage_error("free", "invalid --format '%s' (table, ids, env, json)",
                                       optarg);
            break;
        case O_BY:
            if (strcmp(optarg, "uuid") == 0)
                by_index = 0;
            else if (strcmp(optarg, "index") == 0)
                by_index = 1;
            else
                return cli_usage_error("free", "invalid --by '%s' (uuid, index)", optarg);
            break;
        case O_COMPACT:
            pretty = 0;
            break;
        case O_TIMEOUT:
            if (gm_parse_duration(optarg, &timeout) != 0)
                return cli_usage_error("free", "invalid --timeout '%s'", optarg);
            break;
        case 'h':
            usage(stdout);
            return GM_EXIT_OK;
        case ':':
            return cli_usage_error("free", "option %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("free", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("free", "unexpected argument '%s'", argv[optind]);
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
                                   cmd_free_run};

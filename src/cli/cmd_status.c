/* cmd_status.c -- `gpumon status`: the gpustat-style quick look and its JSON. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../source/nvml.h"
#include "../core/timeutil.h"
#include "../view/query.h"
#include "../view/status.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gpumon status [OPTIONS]\n\n"
        "One line per GPU: temperature, utilisation, memory, power, the limit that holds its\n"
        "clocks down, and its processes (user:name/pid(memory)).\n\n"
        "  -i, --interval SEC   refresh every SEC seconds (in place on a terminal)\n"
        "      --json           print the JSON document described in docs/json.md\n"
        "      --compact        JSON on one line (default: indented)\n"
        "      --pcie           also read PCIe throughput for --json (costs ~40 ms per GPU\n"
        "                       on real hardware, so it is off by default)\n"
        "      --gpm            also the GPM metrics (gpm_*, Hopper and later) for --json:\n"
        "                       two GPM samples 100 ms apart (docs/json.md)\n"
        "      --nvlink         also each NVLink link (state, version, far end, counters)\n"
        "                       for --json, under \"nvlinks\" (docs/json.md)\n"
        "      --id IDS         only these GPUs (indices, UUIDs or PCI bus ids, comma-separated)\n"
        "  -c, --show-cmd       show full command lines instead of process names\n"
        "      --no-procs       do not list processes\n"
        "      --job-mapping-dir DIR\n"
        "                       dcgm-exporter's job-mapping directory: the jobs each GPU\n"
        "                       index's file names are shown on its line (docs/jobs.md)\n"
        "      --color, --no-color\n"
        "                       force colours on or off (default: on a terminal, unless NO_COLOR)\n"
        "      --timeout SEC    give up when an NVML call hangs this long (default 10; 0 = never)\n"
        "  -h, --help           this help\n");
}

int cmd_status_run(int argc, char **argv);

int cmd_status_run(int argc, char **argv)
{
    enum {
        O_JSON = 256,
        O_COMPACT,
        O_ID,
        O_NOPROCS,
        O_COLOR,
        O_NOCOLOR,
        O_TIMEOUT,
        O_PCIE,
        O_GPM,
        O_JOBMAP,
        O_NVLINK
    };
    static const struct option opts[] = {
        {"interval", required_argument, NULL, 'i'},
        {"json", no_argument, NULL, O_JSON},
        {"compact", no_argument, NULL, O_COMPACT},
        {"id", required_argument, NULL, O_ID},
        {"show-cmd", no_argument, NULL, 'c'},
        {"no-procs", no_argument, NULL, O_NOPROCS},
        {"color", no_argument, NULL, O_COLOR},
        {"no-color", no_argument, NULL, O_NOCOLOR},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"pcie", no_argument, NULL, O_PCIE},
        {"gpm", no_argument, NULL, O_GPM},
        {"job-mapping-dir", required_argument, NULL, O_JOBMAP},
        {"nvlink", no_argument, NULL, O_NVLINK},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int64_t interval = 0, timeout = CLI_DEFAULT_TIMEOUT_NS;
    int json = 0, pretty = 1, color = -1, pcie = 0, gpm = 0, nvlink = 0;
    const char *ids = NULL, *jobmap = NULL;
    struct gm_status_opts so = {.show_procs = 1};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":i:ch", opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (cli_parse_seconds(optarg, &interval) != 0)
                return cli_usage_error("status", "invalid interval '%s'", optarg);
            break;
        case O_JSON:
            json = 1;
            break;
        case O_COMPACT:
            pretty = 0;
            break;
        case O_ID:
            ids = optarg;
            break;
        case 'c':
            so.full_cmd = 1;
            break;
        case O_NOPROCS:
            so.show_procs = 0;
            break;
        case O_COLOR:
            color = 1;
            break;
        case O_NOCOLOR:
            color = 0;
            break;
        case O_PCIE:
            pcie = 1;
            break;
        case O_NVLINK:
            nvlink = 1;
            break;
        case O_GPM:
            gpm = 1;
            break;
        case O_JOBMAP:
            jobmap = optarg;
            break;
        case O_TIMEOUT:
            if (gm_parse_duration(optarg, &timeout) != 0)
                return cli_usage_error("status", "invalid --timeout '%s'", optarg);
            break;
        case 'h':
            usage(stdout);
            return GM_EXIT_OK;
        case ':':
            return cli_usage_error("status", "option %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("status", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("status", "unexpected argument '%s'", argv[optind]);
    if (jobmap) {
        /* given on the command line, a directory that is not there is a
         * mistake (the agent, whose prolog may create it later, warns) */
        DIR *d = opendir(jobmap);
        if (!d) {
            cli_error("--job-mapping-dir %s: %s", jobmap, strerror(errno));
            return GM_EXIT_USAGE;
        }
        closedir(d);
    }

    so.color = json ? 0 : cli_color(color);
    so.utf8 = cli_utf8();
    struct gm_collector_opts co = {
        .procs = 1, .procfs = 1, .job_map_dir = jobmap, .log = cli_log_cb};
    if (!json) {
        /* read only what the text shows, its flags included */
        co.groups = GM_RGSET_OF(GM_RG_TEMP, GM_RG_UTIL, GM_RG_MEMORY, GM_RG_POWER,
                                GM_RG_POWER_LIMIT, GM_RG_CLOCK_REASONS, GM_RG_MIG_MODE,
                                GM_RG_COMPUTE_MODE, GM_RG_PCIE_LINK, GM_RG_MAX_PCIE,
                                GM_RG_PERSISTENCE, GM_RG_DISPLAY, GM_RG_REMAPPED, GM_RG_RETIRED);
    } else {
        /* GPM only with --gpm: it takes two samples 100 ms apart */
        co.groups = gm_nvml_groups_default();
        gm_rgset_del(&co.groups, GM_RG_GPM);
        if (pcie)
            gm_rgset_add(&co.groups, GM_RG_PCIE_TPUT);
        if (gpm) {
            gm_rgset_add(&co.groups, GM_RG_GPM);
            co.nvml_flags |= GM_NVML_GPM_PRIME;
        }
        if (nvlink)
            co.nvml_flags |= GM_NVML_NVLINK_LINKS;
    }
    struct gm_collector *col;
    int rc;
    if (json) {
        /* NVML that cannot start is still a document: the sample reports
         * the driver state (driver.status, docs/json.md) */
        struct gm_err oerr = {0};
        gm_collector_open(&col, &co, &oerr);
    } else if ((rc = cli_open(&col, &co)) != 0) {
        return rc;
    }
    if (interval)
        cli_catch_stop_signals();

    struct gm_snapshot *s = gm_snapshot_new();
    struct gm_buf out = GM_BUF_INIT;
    int tty = isatty(STDOUT_FILENO);
    int64_t next = gm_mono_ns();
    int first = 1;
    do {
        rc = cli_sample(col, s, timeout, 1);
        if (rc && !json)
            break;
        /* with --json a failed sample is printed too (driver.status, the GPUs'
         * status), then the command ends with rc as the text view does */
        uint64_t mask = 0;
        struct gm_err err = {0};
        if (s->driver == GM_DRV_OK && gm_query_select(s, ids, &mask, &err) != 0) {
            rc = cli_usage_error("status", "%s", err.msg);
            break;
        }
        so.mask = mask;
        gm_buf_reset(&out);
        if (interval && tty && !json)
            gm_buf_puts(&out, first ? "\033[H\033[2J" : "\033[H\033[J");
        if (json)
            gm_status_json_opt(
                s, mask, pretty,
                (gpm ? GM_STATUS_JSON_GPM : 0) | (nvlink ? GM_STATUS_JSON_NVLINK : 0), &out);
        else
            gm_status_text(s, &so, &out);
        int wrc = cli_write(STDOUT_FILENO, &out);
        if (wrc != 0 || rc != 0) {
            rc = wrc ? wrc : rc;
            break;
        }
        first = 0;
        if (!interval)
            break;
        next += interval;
        int64_t now = gm_mono_ns();
        if (next < now) /* a slow sample: skip missed ticks instead of bursting */
            next = now + interval - (now - next) % interval;
        gm_sleep_until(next, &cli_stop);
    } while (!cli_stop);
    gm_buf_free(&out);
    gm_snapshot_free(s);
    gm_collector_close(col);
    return rc;
}

const struct gm_cmd gm_cmd_status = {"status", "one line per GPU with its processes (gpustat-like)",
                                     cmd_status_run};

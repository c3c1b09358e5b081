/* cmd_status.c -- `gpumon status`: the gpustat-style quick look and its JSON. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../core/snapshot.h"
#include "../source/nvml.h"
#include "../core/timeutil.h"
#include "../view/query.h"
#include "../view/status.h"
#include "cli.h"
#include "optgroups.h"

struct status_args {
    struct cli_gpu g; /* --id, --timeout */
    int64_t interval;
    int json, pretty, color, pcie, gpm, nvlink;
    const char *jobmap;
    struct gm_status_opts so;
};

static int parse_interval(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (cli_parse_seconds(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid interval '%s'", v);
    return 0;
}

#define SET(n, field, v, ...)                                                                      \
    {                                                                                              \
        .kind = GM_OPT_SET, .name = (n), .val = (v), .off = offsetof(struct status_args, field),   \
        __VA_ARGS__                                                                                \
    }

static const struct gm_opt status_rows[] = {
    {.kind = GM_OPT_FN,
     .name = "interval",
     .letter = 'i',
     .arg = "SEC",
     .fn = parse_interval,
     .off = offsetof(struct status_args, interval),
     .help = "refresh every SEC seconds (in place on a terminal)"},
    SET("json", json, 1, .help = "print the JSON document described in docs/json.md"),
    SET("compact", pretty, 0, .help = "JSON on one line (default: indented)"),
    SET("pcie", pcie, 1,
        .help = "also read PCIe throughput for --json (costs ~40 ms per GPU\n"
                "on real hardware, so it is off by default)"),
    SET("gpm", gpm, 1,
        .help = "also the GPM metrics (gpm_*, Hopper and later) for --json:\n"
                "two GPM samples 100 ms apart (docs/json.md)"),
    SET("nvlink", nvlink, 1,
        .help = "also each NVLink link (state, version, far end, counters)\n"
                "for --json, under \"nvlinks\" (docs/json.md)"),
    {.kind = GM_OPT_USE,
     .group = &cli_gpu_group,
     .name = "id",
     .flags = GM_OPT_NOSHORT,
     .off = offsetof(struct status_args, g)},
    {.kind = GM_OPT_SET,
     .name = "show-cmd",
     .letter = 'c',
     .val = 1,
     .off = offsetof(struct status_args, so.full_cmd),
     .help = "show full command lines instead of process names"},
    SET("no-procs", so.show_procs, 0, .help = "do not list processes"),
    {.kind = GM_OPT_STR,
     .name = "job-mapping-dir",
     .arg = "DIR",
     .off = offsetof(struct status_args, jobmap),
     .help = "dcgm-exporter's job-mapping directory: the jobs each GPU\n"
             "index's file names are shown on its line (docs/jobs.md)"},
    SET("color", color, 1,
        .help = "force colours on or off (default: on a terminal, unless NO_COLOR)"),
    SET("no-color", color, 0, .flags = GM_OPT_JOIN),
    {.kind = GM_OPT_USE,
     .group = &cli_gpu_group,
     .name = "timeout",
     .off = offsetof(struct status_args, g)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd status_opts = {
    .name = "status",
    .head = "usage: gpumon status [OPTIONS]\n\n"
            "One line per GPU: temperature, utilisation, memory, power, the limit that holds its\n"
            "clocks down, and its processes (user:name/pid(memory)).\n\n",
    .col = 23,
    .opts = status_rows,
};

int cmd_status_run(int argc, char **argv);

/* The columns the text view fits (docs/views.md, "status"): the
 * terminal's width when stdout is one, else COLUMNS when it is set to a
 * number (watch(1) sets it), else 0: no limit, so that a pipe, a file or a
 * script gets every line whole. */
static unsigned text_width(int tty)
{
    struct winsize ws;
    if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    char *end;
    unsigned long v = c && *c ? strtoul(c, &end, 10) : 0;
    if (v > 0 && v < 100000 && *end == '\0')
        return (unsigned)v;
    return tty ? 80 : 0;
}

int cmd_status_run(int argc, char **argv)
{
    struct status_args a = {
        .g.timeout_ns = CLI_DEFAULT_TIMEOUT_NS, .pretty = 1, .color = -1, .so = {.show_procs = 1}};
    int prc = cli_opts(&status_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    int64_t interval = a.interval, timeout = a.g.timeout_ns;
    int json = a.json, pretty = a.pretty, color = a.color, pcie = a.pcie, gpm = a.gpm,
        nvlink = a.nvlink;
    const char *ids = a.g.ids, *jobmap = a.jobmap;
    struct gm_status_opts so = a.so;
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
        so.width = text_width(tty); /* again each time: the terminal may be resized */
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
                                     cmd_status_run, &status_opts};

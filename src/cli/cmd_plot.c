/* cmd_plot.c -- `gpumon plot`: a chart of the agent's history (PNG, SVG
 * or PDF), from its store or its daily CSV logs (docs/plot.md).
 *
 * Reads the window (store/plotdata.c), draws it with the cairo module
 * (view/plot.h) into a new file in the output's directory and renames it
 * into place, so a planted symbolic link at the output's name is replaced,
 * never written through, and a failed run leaves the old file.  Prints the
 * path.  Exit status: 0, 1 the history could not be read, had no samples
 * in the window, or the file could not be written, 2 bad usage.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../store/plotdata.h"
#include "../view/plot.h"
#include "cli.h"
#include "optgroups.h"

#define DEFAULT_METRICS "util,mem,power,temp,clocks"
/* The shortest window drawn for a history of a moment (no --since). */
#define MIN_SPAN_NS (10 * 1000000000LL)

/* "0,3" into a mask of NVML indices (0..63). */
static int parse_ids(const char *s, uint64_t *mask)
{
    *mask = 0;
    const char *p = s;
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return -1;
        char *end;
        long v = strtol(p, &end, 10);
        if (v < 0 || v > 63 || (*end != ',' && *end != '\0'))
            return -1;
        *mask |= UINT64_C(1) << v;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

struct plot_args {
    struct cli_hist h;
    const char *out, *metrics;
    uint64_t ids;
    struct gm_plot_opts po;
};

static int parse_id(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (parse_ids(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (NVML indices 0-63, e.g. 0,3)",
                          o->name, v);
    return 0;
}

/* --width and --panel-height: .val is the least, ten times that (and the
 * width's 10000) the most. */
static int parse_size(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    long n = strtol(v, &end, 10);
    long lo = o->val, hi = o->val == 400 ? 10000 : 2000;
    if (end == v || *end || n < lo || n > hi)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (%ld to %ld)", o->name, v, lo, hi);
    *(int *)dst = (int)n;
    return 0;
}

#define HIST(n, ...)                                                                               \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_hist_group, .name = (n),                                 \
        .off = offsetof(struct plot_args, h), __VA_ARGS__                                          \
    }

static const struct gm_opt plot_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "output",
     .letter = 'o',
     .arg = "FILE",
     .off = offsetof(struct plot_args, out),
     .help = "the file to write: .png, .svg or .pdf (by its extension)"},
    HIST("since", .help = "the last DUR up to --until or now (default 24h, or the\n"
                          "history's span when it is shorter)"),
    HIST("until"),
    {.kind = GM_OPT_FN,
     .name = "id",
     .letter = 'i',
     .arg = "LIST",
     .fn = parse_id,
     .off = offsetof(struct plot_args, ids),
     .help = "only these GPUs (NVML indices, e.g. 0,3)"},
    {.kind = GM_OPT_STR,
     .name = "metrics",
     .arg = "LIST",
     .off = offsetof(struct plot_args, metrics),
     .help = "panels, in this order of choice: util, memutil, mem, power,\n"
             "temp, clocks (default " DEFAULT_METRICS ")"},
    HIST("task", .help = "only the rows (and marks) of the agent's task T"),
    HIST("data-dir"),
    HIST("store-path", .arg = "F"),
    HIST("csv", .help = "from the agent's daily CSV logs (GPU files, .gz too) instead"),
    HIST("config"),
    HIST("no-config"),
    {.kind = GM_OPT_FN,
     .name = "width",
     .arg = "N",
     .fn = parse_size,
     .val = 400,
     .off = offsetof(struct plot_args, po.width),
     .help = "width in pixels (PNG) or points (SVG, PDF); default 1200"},
    {.kind = GM_OPT_FN,
     .name = "panel-height",
     .arg = "N",
     .fn = parse_size,
     .val = 80,
     .off = offsetof(struct plot_args, po.panel_height),
     .help = "height of each panel; default 190"},
    {.kind = GM_OPT_SET,
     .name = "utc",
     .val = 1,
     .off = offsetof(struct plot_args, po.utc),
     .help = "times in UTC (default: local time)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd plot_opts = {
    .name = "plot",
    .head = "usage: gpumon plot [--since 24h] [--until TIME] [--id LIST] [--metrics LIST]\n"
            "                   [--task T] [--data-dir DIR | --store-path FILE] [-o FILE]\n"
            "       gpumon plot --csv FILE... [--since DUR] [--until TIME] [-o FILE]\n\n"
            "Draws the agent's history as a chart: one panel per metric, a line per GPU, limits,\n"
            "marks and fired alerts, gaps where nothing was recorded, throttled periods shaded by\n"
            "reason.  Writes gpumon-HOST-DATE.png in the current directory unless -o says where,\n"
            "and prints the file's path.  Details: docs/plot.md.\n\n",
    .tail = "\nExit status: 0 written, 1 the history could not be read or had no samples in the\n"
            "window, or the file could not be written, 2 bad usage.\n",
    .col = 23,
    .opts = plot_rows,
};

static int format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return -1;
    if (strcasecmp(dot, ".png") == 0)
        return GM_PLOT_PNG;
    if (strcasecmp(dot, ".svg") == 0)
        return GM_PLOT_SVG;
    if (strcasecmp(dot, ".pdf") == 0)
        return GM_PLOT_PDF;
    return -1;
}

/* This host's name as a file name part: [A-Za-z0-9._-], others '_'. */
static void host_part(char *out, size_t len)
{
    char h[256] = "";
    if (gethostname(h, sizeof h - 1) != 0 || !h[0])
        snprintf(h, sizeof h, "localhost");
    size_t i = 0;
    for (; h[i] && i + 1 < len; i++)
        out[i] = isalnum((unsigned char)h[i]) || h[i] == '-' || h[i] == '.' ? h[i] : '_';
    out[i] = '\0';
}

static int write_plot(const char *path, const struct gm_plot_data *d, const struct gm_plot_opts *o)
{
    struct gm_err err = {0};
    int dfd = -1;
    char base[256];
    if (gm_safefile_parent_open(path, &dfd, base, sizeof base, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    if (gm_safefile_output_in_place(dfd, base, path)) {
        /* a FIFO or a device of the user's: written into, not replaced */
        close(dfd);
        int fd = gm_safefile_open_output(path, &err);
        if (fd < 0 || gm_safefile_output_truncate(fd, path, &err) != 0) {
            cli_error("%s", err.msg); /* names the path */
            if (fd >= 0)
                close(fd);
            return GM_EXIT_FAIL;
        }
        int rc = gm_plot_render(d, o, fd, &err);
        if (close(fd) != 0 && rc == 0)
            rc = gm_err_set(&err, GM_E_IO, "%s", strerror(errno));
        if (rc != 0) {
            cli_error("%s: %s", path, err.msg);
            return GM_EXIT_FAIL;
        }
        return 0;
    }
    struct gm_safefile_tmp t;
    int rc = gm_safefile_tmp_open(&t, dfd, base, 0644, 0, &err);
    if (rc == 0) {
        rc = gm_plot_render(d, o, t.fd, &err);
        if (rc == 0)
            rc = gm_safefile_tmp_replace(&t, base, &err);
        else
            gm_safefile_tmp_discard(&t);
    }
    close(dfd);
    if (rc != 0) {
        cli_error("%s: %s", path, err.msg);
        return GM_EXIT_FAIL;
    }
    return 0;
}

static int cmd_plot_run(int argc, char **argv)
{
    struct plot_args pa = {.h.since_ns = 24 * 3600LL * 1000000000LL,
                           .metrics = DEFAULT_METRICS,
                           .po = {.width = 1200, .panel_height = 190}};
    int prc = cli_opts(&plot_opts, argc, argv, &pa, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    int64_t since = pa.h.since_ns, until = pa.h.until_ns;
    int since_given = pa.h.since_set;
    const char *out = pa.out, *task = pa.h.task, *metrics = pa.metrics;
    uint64_t ids = pa.ids;
    struct gm_plot_opts po = pa.po;
    const char *const *csv_files = pa.h.csv;
    size_t ncsv = pa.h.ncsv;
    if (ncsv && (task || pa.h.data_dir || pa.h.store_path))
        return cli_usage_error("plot", "--csv reads the files given: not with --task, "
                                       "--data-dir or --store-path");
    char bad[80];
    if (gm_plot_parse_metrics(metrics, &po.metrics, bad, sizeof bad) != 0)
        return cli_usage_error("plot",
                               "unknown metric '%s' in --metrics (util, memutil, mem, "
                               "power, temp, clocks)",
                               bad);
    if (out && format_of(out) < 0)
        return cli_usage_error("plot",
                               "cannot tell the format of '%s': name it .png, .svg or "
                               ".pdf",
                               out);

    int64_t to = until ? until : gm_wall_ns(), from = to - since;
    struct gm_plot_data d;
    struct gm_err err = {0};
    int rc = 0;
    const char *source;
    if (ncsv) {
        gm_plot_data_init(&d);
        int64_t f = since_given || until ? from : 0, t = since_given || until ? to : 0;
        d.from_ns = f;
        d.to_ns = t;
        for (size_t i = 0; i < ncsv && rc == 0; i++)
            rc = gm_plot_read_csv(&d, csv_files[i], f, t, ids, &err);
        if (rc == 0)
            gm_plot_data_finish(&d);
        source = csv_files[0];
    } else {
        struct gm_config cfg;
        rc = cli_config(&cfg, pa.h.config, pa.h.no_config, pa.h.data_dir, pa.h.store_path);
        if (rc != 0)
            return rc;
        rc = gm_plot_read_store(&d, cfg.store_path, from, to, task, ids, &err);
        source = NULL;
        if (rc != 0) {
            cli_error("%s", err.msg);
            gm_plot_data_free(&d);
            return GM_EXIT_FAIL;
        }
        /* no --since: a history younger than the default day is drawn
         * from its first sample to its last, not as a sliver at the right
         * edge of an empty day.  Read again from its first point (the
         * start of a rollup, perhaps) to now, which picks the tier for
         * that span, then once more for the points' own span. */
        int64_t first, last;
        for (int pass = 0; pass < 2 && !since_given && !until; pass++) {
            if (gm_plot_data_span(&d, &first, &last) != 0 || (pass == 0 && first <= from))
                break;
            if (pass == 1) {
                if (d.tier == GM_PTIER_1M || d.tier == GM_PTIER_1H)
                    last += d.ngpu ? d.gpu[0].step_ns : 0; /* a rollup's point is its start */
                if (last - first < MIN_SPAN_NS) {
                    first -= (MIN_SPAN_NS - (last - first)) / 2;
                    last = first + MIN_SPAN_NS;
                }
            } else {
                last = to;
            }
            gm_plot_data_free(&d);
            rc = gm_plot_read_store(&d, cfg.store_path, first, last, task, ids, &err);
            if (rc != 0) {
                cli_error("%s", err.msg);
                gm_plot_data_free(&d);
                return GM_EXIT_FAIL;
            }
        }
        if (gm_plot_data_points(&d) == 0) {
            cli_error("%s: no samples in the window%s%s%s", cfg.store_path,
                      task ? " for task " : "", task ? task : "",
                      ids ? " for the GPUs of --id" : "");
            gm_plot_data_free(&d);
            return GM_EXIT_FAIL;
        }
    }
    if (rc != 0) {
        cli_error("%s", err.msg);
        gm_plot_data_free(&d);
        return GM_EXIT_FAIL;
    }
    if (source && gm_plot_data_points(&d) == 0) {
        cli_error("%s%s: no GPU rows%s", source, ncsv > 1 ? " (and the others)" : "",
                  since_given || until ? " in the window" : "");
        gm_plot_data_free(&d);
        return GM_EXIT_FAIL;
    }

    char host[128], defname[300], title[400];
    host_part(host, sizeof host);
    char day[16];
    time_t te = (time_t)(d.to_ns / 1000000000LL);
    struct tm tm;
    localtime_r(&te, &tm);
    strftime(day, sizeof day, "%Y-%m-%d", &tm);
    if (!out) {
        snprintf(defname, sizeof defname, "gpumon-%s-%s.png", host, day);
        out = defname;
    }
    po.format = format_of(out);
    char a[64], b[64];
    time_t tf = (time_t)(d.from_ns / 1000000000LL);
    struct tm tmf;
    if (po.utc) {
        gmtime_r(&tf, &tmf);
        gmtime_r(&te, &tm);
    } else {
        localtime_r(&tf, &tmf);
        localtime_r(&te, &tm);
    }
    if (d.to_ns - d.from_ns < 3600LL * 1000000000LL) { /* a short window: seconds too */
        strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", &tmf);
        strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
    } else {
        strftime(a, sizeof a, "%Y-%m-%d %H:%M", &tmf);
        strftime(b, sizeof b, "%Y-%m-%d %H:%M", &tm);
    }
    snprintf(title, sizeof title, "%s  %s to %s%s%s", host, a, b, task ? "  task " : "",
             task ? task : "");
    po.title = title;
    rc = write_plot(out, &d, &po);
    gm_plot_data_free(&d);
    if (rc != 0)
        return rc;
    struct gm_buf ob = GM_BUF_INIT;
    gm_text_line(&ob, out, strlen(out));
    gm_buf_putc(&ob, '\n');
    rc = cli_write(1, &ob);
    gm_buf_free(&ob);
    return rc;
}

const struct gm_cmd gm_cmd_plot = {"plot", "a chart of the history: PNG, SVG or PDF", cmd_plot_run,
                                   &plot_opts};

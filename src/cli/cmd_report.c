/* cmd_report.c -- `gpumon report`: per GPU per hour or day from the store.
 *
 * Reads the SQLite store the agent writes (never the running agent itself):
 * average and max utilisation, max memory used, average power, energy, max
 * temperature, time throttled by reason, and the marks of each period.
 * With --html FILE: one self-contained HTML file for the whole period (the
 * summary per GPU, charts, the diagnosis of the same history, the alert
 * notices and the marks; view/report_html.h), written beside FILE and
 * renamed over it, its path printed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/safefile.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../insight/diagnose.h"
#include "../store/history.h"
#include "../store/plotdata.h"
#include "../store/store.h"
#include "../view/dg_history.h"
#include "../view/report_html.h"
#include "cli.h"
#include "optgroups.h"

/* What the command line gives; the store-path, data-dir and config go to
 * cli_config. */
struct report_args {
    struct cli_hist h;
    int64_t from;
    int by;     /* index into "hour|day|period|job|user|task"; -1: not given */
    int format; /* index into "table|csv|json"; -1: not given */
    int gpu;
    const char *html;
};

static int parse_gpu(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    errno = 0;
    long g = strtol(v, &end, 10);
    if (errno || *end || g < 0 || g > 1023)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (a GPU index)", o->name, v);
    *(int *)dst = (int)g;
    return 0;
}

static int parse_html(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (!v[0])
        return gm_err_set(err, GM_E_INVAL, "--%s needs a file name", o->name);
    *(const char **)dst = v;
    return 0;
}

#define HIST(n, ...)                                                                               \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_hist_group, .name = (n),                                 \
        .off = offsetof(struct report_args, h), __VA_ARGS__                                        \
    }

static const struct gm_opt report_rows[] = {
    HIST("since", .arg = "DURATION", .help = "the last DURATION up to --to or now (default 24h)"),
    {.kind = GM_OPT_FN,
     .name = "from",
     .arg = "TIME",
     .fn = cli_opt_time,
     .off = offsetof(struct report_args, from),
     .help = "YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM] (local time without an offset);\n"
             "--until is --to"},
    HIST("to", .use = "until", .flags = GM_OPT_JOIN),
    HIST("until", .flags = GM_OPT_NOHELP),
    {.kind = GM_OPT_CHOICE,
     .name = "by",
     .arg = "hour|day|period|job|user|task",
     .off = offsetof(struct report_args, by)},
    HIST("task", .flags = GM_OPT_NOHELP),
    {.kind = GM_OPT_FN,
     .name = "gpu",
     .arg = "I",
     .fn = parse_gpu,
     .off = offsetof(struct report_args, gpu)},
    {.kind = GM_OPT_CHOICE,
     .name = "format",
     .arg = "table|csv|json",
     .hint = "table, csv, json",
     .off = offsetof(struct report_args, format)},
    {.kind = GM_OPT_FN,
     .name = "html",
     .arg = "FILE",
     .fn = parse_html,
     .off = offsetof(struct report_args, html),
     .help = "one self-contained HTML file for the period: summary per GPU,\n"
             "charts, diagnosis, alerts, marks (docs/report.md)"},
    HIST("data-dir", .flags = GM_OPT_NOHELP),
    HIST("store-path", .flags = GM_OPT_NOHELP),
    HIST("config", .flags = GM_OPT_NOHELP),
    HIST("no-config", .flags = GM_OPT_NOHELP),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {0},
};

static const struct gm_optcmd report_opts = {
    .name = "report",
    .head = "usage: gpumon report [--since DURATION | --from TIME [--to|--until TIME]]\n"
            "                     [--by hour|day|period|job|user|task] [--task T] [--gpu I]\n"
            "                     [--format table|csv|json | --html FILE]\n"
            "                     [--data-dir DIR | --store-path FILE]\n"
            "                     [--config FILE | --no-config]\n\n"
            "Per GPU per hour (or local day, or the whole period): average and max\n"
            "utilisation, max memory used, average power, energy, max temperature, time\n"
            "throttled by reason, and marks.  --by job|user|task: who used the GPUs\n"
            "(GPU-hours, energy, average utilisation, peak memory, time throttled, first and\n"
            "last seen; docs/jobs.md).\n\n",
    .col = 21,
    .msg = GM_OPT_MSG_BARE,
    .opts = report_rows,
};

static struct gm_alert_rec *rec_copy(const struct gm_alert_rec *a)
{
    struct gm_alert_rec *c = gm_xmalloc(sizeof *c);
    *c = *a;
    return c;
}

/* --gpu for the diagnosis: only that GPU's rows. */
struct one_gpu {
    struct gm_dg_feed *f;
    int gpu; /* -1: all */
};

static int feed_one(void *arg, const struct gm_hist_row *r)
{
    struct one_gpu *g = arg;
    if (g->gpu >= 0 && r->gpu_index != (uint32_t)g->gpu)
        return 0;
    return gm_dg_feed_row(g->f, r);
}

static void host_name(char *out, size_t len)
{
    if (gethostname(out, len - 1) != 0 || !out[0])
        snprintf(out, len, "localhost");
    out[len - 1] = '\0';
}

/* Writes b to path: a new file beside it renamed over it, so a symbolic
 * link planted at path is replaced, never followed; or into path itself
 * when it is a FIFO or a device of the user's (gm_safefile_output_write). */
static int write_file(const char *path, const struct gm_buf *b)
{
    struct gm_err err = {0};
    int dfd = -1;
    char base[256];
    if (gm_safefile_parent_open(path, &dfd, base, sizeof base, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    int rc = gm_safefile_output_write(dfd, base, path, b->p, b->len, &err);
    close(dfd);
    if (rc != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    return 0;
}

/* `report --html FILE`: reads the summary, the charts' series, the history
 * for the diagnosis and the alert notices of the period, writes the file
 * and prints its path. */
static int report_html(struct gm_report_opts *o, const char *path)
{
    struct gm_err err = {0};
    struct gm_report_table sum;
    struct gm_plot_data d;
    struct gm_alert_rec *alerts = NULL;
    size_t nalerts = 0;
    struct gm_dg *dg = NULL;
    struct gm_dg_result dgr;
    int have_dgr = 0;
    memset(&d, 0, sizeof d);
    o->by = GM_REPORT_PERIOD;
    int rc = gm_store_report_table(o, &sum, &err);
    if (rc == 0) {
        uint64_t ids = o->gpu >= 0 ? UINT64_C(1) << (o->gpu & 63) : 0;
        if (o->gpu >= 64)
            ids = 0; /* plotdata's mask holds 64 GPUs; the summary still filters */
        rc = gm_plot_read_store(&d, o->path, o->from_ns, o->to_ns, o->task, ids, &err);
    }
    if (rc == 0 && sum.nrow == 0 && gm_plot_data_points(&d) == 0) {
        cli_error("%s: no samples in the period%s%s%s", o->path, o->task ? " for task " : "",
                  o->task ? o->task : "", o->gpu >= 0 ? " for the GPU of --gpu" : "");
        rc = GM_E_NOTFOUND;
        err.msg[0] = '\0';
    }
    if (rc == 0) {
        struct gm_alert_history_opts ao = {
            .path = o->path, .from_ns = o->from_ns, .to_ns = o->to_ns};
        rc = gm_store_alert_list(&ao, &alerts, &nalerts, &err);
        if (rc == 0 && o->gpu >= 0) { /* --gpu: that GPU's alerts and those of no GPU */
            size_t k = 0;
            for (size_t i = 0; i < nalerts; i++) {
                if (alerts[i].gpu < 0 || alerts[i].gpu == o->gpu)
                    alerts[k++] = alerts[i];
                else
                    gm_alert_recs_free(rec_copy(&alerts[i]), 1);
            }
            nalerts = k;
        }
    }
    if (rc == 0) {
        dg = gm_dg_new(NULL);
        struct gm_dg_feed f = {.d = dg};
        struct one_gpu og = {&f, o->gpu};
        size_t nrows = 0;
        rc =
            gm_hist_read_store(o->path, o->from_ns, o->to_ns, o->task, feed_one, &og, &nrows, &err);
        if (rc == 0) {
            gm_dg_feed_flush(&f);
            if (nrows > 0) {
                gm_dg_eval(dg, o->from_ns, o->to_ns, &dgr);
                have_dgr = 1;
            }
        } else {
            gm_dg_feed_discard(&f);
        }
    }
    struct gm_usage_row *usage = NULL;
    size_t nusage = 0;
    if (rc == 0) {
        struct gm_usage_opts uo = {.path = o->path,
                                   .from_ns = o->from_ns,
                                   .to_ns = o->to_ns,
                                   .task = o->task,
                                   .gpu = o->gpu,
                                   .by = GM_USAGE_GPU};
        rc = gm_store_usage_rows(&uo, &usage, &nusage, &err);
    }
    if (rc == 0) {
        char host[256];
        host_name(host, sizeof host);
        struct gm_report_html_in in = {
            .host = host,
            .task = o->task,
            .from_ns = o->from_ns,
            .to_ns = o->to_ns,
            .made_ns = gm_wall_ns(),
            .sum = &sum,
            .plot = &d,
            .dg = have_dgr ? dg : NULL,
            .dgr = have_dgr ? &dgr : NULL,
            .alerts = alerts,
            .nalerts = nalerts,
            .usage = usage,
            .nusage = nusage,
        };
        struct gm_buf b = GM_BUF_INIT;
        gm_report_html(&in, &b);
        rc = write_file(path, &b);
        gm_buf_free(&b);
        if (rc == 0) {
            struct gm_buf ob = GM_BUF_INIT;
            gm_text_line(&ob, path, strlen(path));
            gm_buf_putc(&ob, '\n');
            rc = cli_write(STDOUT_FILENO, &ob);
            gm_buf_free(&ob);
        }
    } else {
        if (err.msg[0])
            cli_error("%s", err.msg);
        rc = GM_EXIT_FAIL;
    }
    free(usage);
    if (have_dgr)
        gm_dg_result_free(&dgr);
    gm_dg_free(dg);
    gm_alert_recs_free(alerts, nalerts);
    gm_plot_data_free(&d);
    gm_report_table_free(&sum);
    return rc;
}

static int cmd_report_run(int argc, char **argv)
{
    struct gm_report_opts o = {.by = GM_REPORT_HOUR, .gpu = -1, .format = GM_REPORT_TABLE};
    struct report_args a = {
        .h.since_ns = 24LL * 3600 * 1000000000LL, .by = -1, .format = -1, .gpu = -1};
    int prc = cli_opts(&report_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    static const int report_by[] = {GM_REPORT_HOUR, GM_REPORT_DAY, GM_REPORT_PERIOD};
    static const int usage_of[] = {GM_USAGE_JOB, GM_USAGE_USER, GM_USAGE_TASK};
    static const int format_of[] = {GM_REPORT_TABLE, GM_REPORT_CSV, GM_REPORT_JSON};
    int usage_by = -1;
    if (a.by >= 3)
        usage_by = usage_of[a.by - 3];
    else if (a.by >= 0)
        o.by = report_by[a.by];
    if (a.format >= 0)
        o.format = format_of[a.format];
    o.task = a.h.task;
    o.gpu = a.gpu;
    int64_t since = a.h.since_ns, from = a.from, to = a.h.until_ns;
    int since_set = a.h.since_set, by_set = a.by >= 0, format_set = a.format >= 0;
    const char *html = a.html;

    struct gm_config c;
    struct gm_err err = {0};
    int crc = cli_config(&c, a.h.config, a.h.no_config, a.h.data_dir, a.h.store_path);
    if (crc != 0)
        return crc;

    if (html && (by_set || format_set))
        return cli_usage_error("report", "--html covers the whole period: not with --by or "
                                         "--format");
    int64_t now = gm_wall_ns();
    if (from) {
        if (since_set)
            return cli_usage_error("report", "--since and --from: give one");
        o.from_ns = from;
        o.to_ns = to ? to : now;
    } else if (to && !since_set) {
        return cli_usage_error("report", "--to needs --from or --since");
    } else {
        o.to_ns = to ? to : now;
        o.from_ns = o.to_ns - since;
    }
    if (o.to_ns <= o.from_ns)
        return cli_usage_error("report", "the period is empty (--to is not after --from)");
    o.path = c.store_path;
    if (html)
        return report_html(&o, html);
    if (usage_by >= 0) {
        struct gm_usage_opts u = {.path = o.path,
                                  .from_ns = o.from_ns,
                                  .to_ns = o.to_ns,
                                  .task = o.task,
                                  .gpu = o.gpu,
                                  .by = usage_by,
                                  .format = o.format};
        struct gm_buf uo = GM_BUF_INIT;
        if (gm_store_usage(&u, &uo, &err) != 0) {
            cli_error("%s", err.msg);
            gm_buf_free(&uo);
            return GM_EXIT_FAIL;
        }
        int wrc = cli_write(STDOUT_FILENO, &uo);
        gm_buf_free(&uo);
        return wrc;
    }

    struct gm_buf out = GM_BUF_INIT;
    int rc = gm_store_report(&o, &out, &err);
    if (rc != 0) {
        cli_error("%s", err.msg);
        gm_buf_free(&out);
        return GM_EXIT_FAIL;
    }
    rc = cli_write(STDOUT_FILENO, &out);
    gm_buf_free(&out);
    return rc;
}

const struct gm_cmd gm_cmd_report = {"report", "history per GPU per hour or day, from the store",
                                     cmd_report_run, &report_opts};

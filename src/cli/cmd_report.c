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

static void usage(FILE *f)
{
    fprintf(f, "usage: gpumon report [--since DURATION | --from TIME [--to TIME]]\n"
               "                     [--by hour|day|period|job|user|task] [--task T] [--gpu I]\n"
               "                     [--format table|csv|json | --html FILE]\n"
               "                     [--data-dir DIR | --store-path FILE] [--config FILE]\n\n"
               "Per GPU per hour (or local day, or the whole period): average and max\n"
               "utilisation, max memory used, average power, energy, max temperature, time\n"
               "throttled by reason, and marks.  --by job|user|task: who used the GPUs\n"
               "(GPU-hours, energy, average utilisation, peak memory, time throttled, first and\n"
               "last seen; docs/jobs.md).\n\n"
               "  --since DURATION   the last DURATION up to --to or now (default 24h)\n"
               "  --from, --to TIME  YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM] (local time without an "
               "offset);\n"
               "                     --until is --to\n"
               "  --html FILE        one self-contained HTML file for the period: summary per "
               "GPU,\n"
               "                     charts, diagnosis, alerts, marks (docs/report.md)\n");
}

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
    int64_t since = 24LL * 3600 * 1000000000LL, from = 0, to = 0;
    const char *config = NULL, *data_dir = NULL, *store_path = NULL;
    int no_config = 0, by_set = 0, format_set = 0, since_set = 0, usage_by = -1;
    const char *html = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return GM_EXIT_OK;
        }
        if (strcmp(a, "--no-config") == 0) {
            no_config = 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        char key[32] = "";
        if (strncmp(a, "--", 2) == 0) {
            size_t kl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            if (kl < sizeof(key)) {
                memcpy(key, a + 2, kl);
                key[kl] = '\0';
            }
            v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        }
        if (!key[0])
            return cli_usage_error("report", "unexpected argument '%s'", a);
        if (!v)
            return cli_usage_error("report", "%s needs a value", a);
        if (strcmp(key, "since") == 0) {
            if (gm_parse_duration(v, &since) != 0 || since <= 0)
                return cli_usage_error("report", "invalid --since '%s' (e.g. 24h, 7d)", v);
            since_set = 1;
        } else if (strcmp(key, "from") == 0) {
            if (cli_parse_time(v, &from) != 0)
                return cli_usage_error("report", "invalid --from '%s'", v);
        } else if (strcmp(key, "to") == 0 || strcmp(key, "until") == 0) {
            if (cli_parse_time(v, &to) != 0)
                return cli_usage_error("report", "invalid --%s '%s'", key, v);
        } else if (strcmp(key, "by") == 0) {
            if (strcmp(v, "hour") == 0)
                o.by = GM_REPORT_HOUR;
            else if (strcmp(v, "day") == 0)
                o.by = GM_REPORT_DAY;
            else if (strcmp(v, "period") == 0)
                o.by = GM_REPORT_PERIOD;
            else if (strcmp(v, "job") == 0)
                usage_by = GM_USAGE_JOB;
            else if (strcmp(v, "user") == 0)
                usage_by = GM_USAGE_USER;
            else if (strcmp(v, "task") == 0)
                usage_by = GM_USAGE_TASK;
            else
                return cli_usage_error(
                    "report", "invalid --by '%s' (hour, day, period, job, user or task)", v);
            by_set = 1;
        } else if (strcmp(key, "format") == 0) {
            if (strcmp(v, "table") == 0)
                o.format = GM_REPORT_TABLE;
            else if (strcmp(v, "csv") == 0)
                o.format = GM_REPORT_CSV;
            else if (strcmp(v, "json") == 0)
                o.format = GM_REPORT_JSON;
            else
                return cli_usage_error("report", "invalid --format '%s' (table, csv, json)", v);
            format_set = 1;
        } else if (strcmp(key, "html") == 0) {
            if (!v[0])
                return cli_usage_error("report", "--html needs a file name");
            html = v;
        } else if (strcmp(key, "task") == 0) {
            o.task = v;
        } else if (strcmp(key, "gpu") == 0) {
            char *end;
            errno = 0;
            long g = strtol(v, &end, 10);
            if (errno || *end || g < 0 || g > 1023)
                return cli_usage_error("report", "invalid --gpu '%s' (a GPU index)", v);
            o.gpu = (int)g;
        } else if (strcmp(key, "config") == 0) {
            config = v;
        } else if (strcmp(key, "data-dir") == 0) {
            data_dir = v;
        } else if (strcmp(key, "store-path") == 0) {
            store_path = v;
        } else {
            return cli_usage_error("report", "unknown option %s", a);
        }
    }

    struct gm_config c;
    struct gm_err err = {0};
    int crc = cli_config(&c, config, no_config, data_dir, store_path);
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
                                     cmd_report_run};

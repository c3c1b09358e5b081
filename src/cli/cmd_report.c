/* cmd_report.c -- `gpumon report`: per GPU per hour or day from the store.
 *
 * Reads the SQLite store the agent writes (never the running agent itself):
 * average and max utilisation, max memory used, average power, energy, max
 * temperature, time throttled by reason, and the marks of each period.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/timeutil.h"
#include "../store/store.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gpumon report [--since DURATION | --from TIME [--to TIME]] [--by hour|day]\n"
               "                     [--task T] [--gpu I] [--format table|csv|json]\n"
               "                     [--data-dir DIR | --store-path FILE] [--config FILE]\n\n"
               "Per GPU per hour (or local day): average and max utilisation, max memory used,\n"
               "average power, energy, max temperature, time throttled by reason, and marks.\n\n"
               "  --since DURATION   the last DURATION up to now (default 24h)\n"
               "  --from, --to TIME  YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM] (local time without an "
               "offset)\n");
}

static int cmd_report_run(int argc, char **argv)
{
    struct gm_report_opts o = {.by = GM_REPORT_HOUR, .gpu = -1, .format = GM_REPORT_TABLE};
    int64_t since = 24LL * 3600 * 1000000000LL, from = 0, to = 0;
    const char *config = NULL, *data_dir = NULL, *store_path = NULL;
    int no_config = 0;
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
        } else if (strcmp(key, "from") == 0) {
            if (cli_parse_time(v, &from) != 0)
                return cli_usage_error("report", "invalid --from '%s'", v);
        } else if (strcmp(key, "to") == 0) {
            if (cli_parse_time(v, &to) != 0)
                return cli_usage_error("report", "invalid --to '%s'", v);
        } else if (strcmp(key, "by") == 0) {
            if (strcmp(v, "hour") == 0)
                o.by = GM_REPORT_HOUR;
            else if (strcmp(v, "day") == 0)
                o.by = GM_REPORT_DAY;
            else
                return cli_usage_error("report", "invalid --by '%s' (hour or day)", v);
        } else if (strcmp(key, "format") == 0) {
            if (strcmp(v, "table") == 0)
                o.format = GM_REPORT_TABLE;
            else if (strcmp(v, "csv") == 0)
                o.format = GM_REPORT_CSV;
            else if (strcmp(v, "json") == 0)
                o.format = GM_REPORT_JSON;
            else
                return cli_usage_error("report", "invalid --format '%s' (table, csv, json)", v);
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

    int64_t now = gm_wall_ns();
    if (from) {
        o.from_ns = from;
        o.to_ns = to ? to : now;
    } else {
        if (to)
            return cli_usage_error("report", "--to needs --from");
        o.from_ns = now - since;
        o.to_ns = now;
    }
    if (o.to_ns <= o.from_ns)
        return cli_usage_error("report", "the period is empty (--to is not after --from)");
    o.path = c.store_path;

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

/* cmd_diagnose.c -- `gpumon diagnose`: why a GPU is slow or wasted.
 *
 * Live (the default): a snapshot every --interval (1 s) for --duration, and
 * between snapshots the contents of NVML's own sample buffers (utilisation,
 * memory utilisation, power, SM clock at ~1/6 s), all handed to the
 * detectors (src/insight/).  History:
 * --since/--until read the agent's store (store/history.c) instead.  Then
 * prints the findings as text or JSON (docs/diagnose.md).  Exit status: 0,
 * or 1 with --fail-on when a finding at or above that severity exists (and
 * on a failure to read), 2 bad usage, 3 NVML unavailable.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../agent/collector.h"
#include "../core/snapshot.h"
#include "../core/timeutil.h"
#include "../insight/diagnose.h"
#include "../source/nvml.h"
#include "../store/history.h"
#include "../view/dg_history.h"
#include "../view/query.h"
#include "cli.h"
#include "optgroups.h"

/* ---- history ------------------------------------------------------------ */

/* ---- live --------------------------------------------------------------- */

#define NS_MAX 512 /* samples of one type per GPU per poll (NVML keeps ~120) */

struct hr {
    int64_t t_ns;
    int type;
    double v;
};

static int cmp_hr(const void *a, const void *b)
{
    const struct hr *x = a, *y = b;
    return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

/* NVML's sample buffers of GPU g since *last_us: utilisation, memory
 * utilisation, power and SM clock at ~1/6 s, as sparse points (one per
 * timestamp) added before the snapshot's point of time snap_ns.  A type the
 * GPU does not sample (NOT_SUPPORTED) stays absent. */
static void add_high_rate(struct gm_dg *d, struct gm_collector *col, const struct gm_gpu *g,
                          uint64_t *last_us, int64_t snap_ns, int64_t *last_added)
{
    static const int types[] = {1, 2, 0, 5}; /* GPU util, mem util, power, SM clock */
    struct hr all[4 * NS_MAX];
    size_t n = 0;
    uint64_t newest = *last_us;
    for (size_t k = 0; k < 4; k++) {
        struct gm_nvml_sample buf[NS_MAX];
        size_t cnt = 0;
        if (gm_collector_nvml_samples(col, g->index, types[k], *last_us, buf, NS_MAX, &cnt) != 0)
            continue;
        for (size_t j = 0; j < cnt; j++) {
            if (buf[j].t_us <= *last_us)
                continue;
            all[n].t_ns = (int64_t)buf[j].t_us * 1000;
            all[n].type = types[k];
            all[n++].v = buf[j].v;
            if (buf[j].t_us > newest)
                newest = buf[j].t_us;
        }
    }
    *last_us = newest;
    qsort(all, n, sizeof *all, cmp_hr);
    for (size_t i = 0; i < n;) {
        struct gm_dg_point p;
        gm_dg_point_init(&p, all[i].t_ns);
        size_t j = i;
        for (; j < n && all[j].t_ns == all[i].t_ns; j++) {
            switch (all[j].type) {
            case 1:
                p.util_gpu = all[j].v;
                break;
            case 2:
                p.util_mem = all[j].v;
                break;
            case 0:
                p.power_w = all[j].v;
                break;
            default:
                p.sm_clock_mhz = all[j].v;
                break;
            }
        }
        /* in time order with the snapshots' points (NVML's clock and ours
         * may differ by a little: a sample older than the last point, or
         * newer than this snapshot, is left out) */
        if (p.t_ns >= *last_added && p.t_ns <= snap_ns) {
            gm_dg_add(d, g->index, &p);
            *last_added = p.t_ns;
        }
        i = j;
    }
}

static int live(struct gm_dg *d, const char *ids, int64_t duration, int64_t interval,
                int64_t timeout)
{
    /* the default groups plus PCIe throughput (transfer-bound, the RX
     * between a starved job's bursts), which costs a ~20 ms NVML call */
    struct gm_collector_opts co = {
        .procs = 1,
        .procfs = 1,
        .hostside = 1, /* CPU, workers, I/O wait and pressure of the GPU processes */
        .groups = gm_nvml_groups_default(),
    };
    gm_rgset_add(&co.groups, GM_RG_PCIE_TPUT);
    struct gm_collector *col;
    int rc = cli_open(&col, &co);
    if (rc != 0)
        return rc;
    cli_catch_stop_signals();
    int64_t start = gm_mono_ns();
    uint64_t mask = 0;
    uint64_t last_us[64] = {0};
    int64_t last_added[64] = {0};
    for (int64_t k = 0; !cli_stop; k++) {
        int64_t at = start + k * interval;
        if (k && at > start + duration)
            break;
        if (k)
            gm_sleep_until(at, &cli_stop);
        if (cli_stop)
            break;
        struct gm_snapshot *s = gm_snapshot_new();
        rc = cli_sample(col, s, timeout, 1);
        if (rc == 0 && k == 0 && ids) {
            struct gm_err err = {0};
            if (gm_query_select(s, ids, &mask, &err) != 0) {
                gm_snapshot_free(s);
                gm_collector_close(col);
                return cli_usage_error("diagnose", "%s", err.msg);
            }
        }
        if (rc == 0) {
            for (uint32_t q = 0; q < s->ngpu && q < 64; q++) {
                const struct gm_gpu *g = &s->gpus[q];
                if ((mask && !(mask & (UINT64_C(1) << q))) || g->index >= 64 ||
                    g->state != GM_GPU_OK)
                    continue;
                if (k == 0) { /* the history NVML already holds: up to one interval */
                    last_us[g->index] = (uint64_t)((s->wall_ns - interval) / 1000);
                    last_added[g->index] = s->wall_ns - interval;
                }
                add_high_rate(d, col, g, &last_us[g->index], s->wall_ns, &last_added[g->index]);
            }
            gm_dg_add_snapshot(d, s, mask);
            for (uint32_t q = 0; q < s->ngpu && q < 64; q++)
                if (s->gpus[q].index < 64)
                    last_added[s->gpus[q].index] = s->wall_ns;
        }
        gm_snapshot_free(s);
        if (rc != 0)
            break;
    }
    gm_collector_close(col);
    return rc;
}

/* ---- the command -------------------------------------------------------- */

struct diagnose_args {
    struct cli_hist h;
    const char *ids;
    int64_t duration, interval, timeout;
    int json, pretty, fail_on;
};

static int parse_duration(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0 || *ns > 86400000000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (e.g. 30s, 5m)", o->name, v);
    return 0;
}

static int parse_interval(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0 || *ns < 10000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (10ms or more)", o->name, v);
    return 0;
}

static int parse_timeout(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    if (gm_parse_duration(v, dst) != 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s'", o->name, v);
    return 0;
}

static int parse_fail_on(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int s = gm_dg_severity_from_name(v);
    if (s < GM_DG_WARNING)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (warning, critical)", o->name, v);
    *(int *)dst = s;
    return 0;
}

#define HIST(n, ...)                                                                               \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_hist_group, .name = (n),                                 \
        .off = offsetof(struct diagnose_args, h), __VA_ARGS__                                      \
    }

static const struct gm_opt diagnose_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "id",
     .letter = 'i',
     .arg = "LIST",
     .off = offsetof(struct diagnose_args, ids),
     .help = "only these GPUs (indices, UUIDs or PCI bus ids; live only)"},
    {.kind = GM_OPT_FN,
     .name = "duration",
     .arg = "DUR",
     .fn = parse_duration,
     .off = offsetof(struct diagnose_args, duration),
     .help = "live: how long to sample (default 30s)"},
    {.kind = GM_OPT_FN,
     .name = "interval",
     .arg = "DUR",
     .fn = parse_interval,
     .off = offsetof(struct diagnose_args, interval),
     .help = "live: time between snapshots (default 1s)"},
    HIST("since", .help = "history: the last DUR up to --until or now (e.g. 2h)"),
    HIST("until", .help = "history: end of the window, YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM]"),
    HIST("task", .help = "history: only the rows of the agent's task T"),
    HIST("data-dir", .help = "history: the agent's data directory (its gpumon.db)"),
    HIST("store-path", .arg = "F", .help = "history: the store file itself"),
    HIST("csv", .help = "history from the agent's daily CSV logs (GPU files, .gz too);\n"
                        "all their rows, or the window of --since/--until"),
    HIST("config"),
    HIST("no-config"),
    {.kind = GM_OPT_SET,
     .name = "json",
     .val = 1,
     .off = offsetof(struct diagnose_args, json),
     .help = "JSON (schema gpumon.diagnose/1) instead of text"},
    {.kind = GM_OPT_SET,
     .name = "compact",
     .val = 0,
     .off = offsetof(struct diagnose_args, pretty),
     .help = "JSON on one line"},
    {.kind = GM_OPT_FN,
     .name = "fail-on",
     .arg = "warning|critical",
     .fn = parse_fail_on,
     .off = offsetof(struct diagnose_args, fail_on),
     .help = "exit 1 when a finding is at least this severe"},
    {.kind = GM_OPT_FN,
     .name = "timeout",
     .arg = "SEC",
     .fn = parse_timeout,
     .off = offsetof(struct diagnose_args, timeout),
     .help = "give up when an NVML call hangs this long (default 10)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd diagnose_opts = {
    .name = "diagnose",
    .head = "usage: gpumon diagnose [--id LIST] [--duration 30s] [--interval 1s]\n"
            "       gpumon diagnose --since 2h [--until TIME] [--task T] [--data-dir DIR]\n"
            "       gpumon diagnose --csv FILE... [--since DUR] [--until TIME]\n\n"
            "Why a GPU is slow or wasted: samples the GPUs (live) or reads the agent's history\n"
            "(--since) and names the causes it finds with evidence, a confidence, a severity and\n"
            "what to do next; a GPU with no finding is healthy-busy, idle or light-load.\n"
            "Causes and their rules: docs/diagnose.md.\n\n",
    .tail = "\nExit status: 0 diagnosed (whatever was found), 1 a finding at or above --fail-on,\n"
            "or the history could not be read, 2 bad usage, 3 NVML or driver unavailable.\n",
    .col = 23,
    .opts = diagnose_rows,
};

static int cmd_diagnose_run(int argc, char **argv)
{
    struct diagnose_args da = {.duration = 30000000000LL,
                               .interval = 1000000000LL,
                               .timeout = CLI_DEFAULT_TIMEOUT_NS,
                               .pretty = 1,
                               .fail_on = -1};
    int prc = cli_opts(&diagnose_opts, argc, argv, &da, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    int64_t duration = da.duration, interval = da.interval, since = da.h.since_ns;
    int64_t until = da.h.until_ns, timeout = da.timeout;
    const char *ids = da.ids, *task = da.h.task;
    int json = da.json, pretty = da.pretty, fail_on = da.fail_on;
    const char *const *csv_files = da.h.csv;
    size_t ncsv = da.h.ncsv;
    int history_flag = until || task || da.h.data_dir || da.h.store_path;
    if (ncsv && (task || da.h.data_dir || da.h.store_path))
        return cli_usage_error("diagnose", "--csv reads the files given: not with --task, "
                                           "--data-dir or --store-path");
    if (ncsv && ids)
        return cli_usage_error("diagnose", "--id is for live diagnosis, not with --csv");
    if (ncsv)
        history_flag = 0;
    if (history_flag && !since)
        return cli_usage_error("diagnose", "--until, --task, --data-dir and --store-path read "
                                           "history: give --since too");
    if (since && ids)
        return cli_usage_error("diagnose", "--id is for live diagnosis, not with --since");

    struct gm_dg *d = gm_dg_new(NULL);
    const char *source = ncsv ? "csv" : since ? "store" : "live";
    int rc;
    int64_t from = 0, to = 0;
    struct gm_dg_feed rs = {.d = d};
    if (ncsv) {
        if (since || until) {
            to = until ? until : gm_wall_ns();
            from = since ? to - since : 0;
        }
        size_t total = 0;
        for (size_t i = 0; i < ncsv; i++) {
            struct gm_err err = {0};
            size_t nrows = 0;
            rc = gm_hist_read_csv(csv_files[i], from, to, gm_dg_feed_row, &rs, &nrows, &err);
            if (rc != 0) {
                cli_error("%s", err.msg);
                gm_dg_feed_discard(&rs);
                gm_dg_free(d);
                return GM_EXIT_FAIL;
            }
            total += nrows;
        }
        if (total == 0) {
            cli_error("%s%s: no GPU rows%s", csv_files[0], ncsv > 1 ? " (and the others)" : "",
                      since || until ? " in the window" : "");
            gm_dg_feed_discard(&rs);
            gm_dg_free(d);
            return GM_EXIT_FAIL;
        }
        gm_dg_feed_flush(&rs);
    } else if (since) {
        struct gm_config cfg;
        rc = cli_config(&cfg, da.h.config, da.h.no_config, da.h.data_dir, da.h.store_path);
        if (rc != 0) {
            gm_dg_free(d);
            return rc;
        }
        to = until ? until : gm_wall_ns();
        from = to - since;
        struct gm_err err = {0};
        size_t nrows = 0;
        rc = gm_hist_read_store(cfg.store_path, from, to, task, gm_dg_feed_row, &rs, &nrows, &err);
        if (rc != 0) {
            cli_error("%s", err.msg);
            gm_dg_feed_discard(&rs);
            gm_dg_free(d);
            return GM_EXIT_FAIL;
        }
        if (nrows == 0) {
            cli_error("%s: no samples between the start and end of the window%s%s", cfg.store_path,
                      task ? " for task " : "", task ? task : "");
            gm_dg_feed_discard(&rs);
            gm_dg_free(d);
            return GM_EXIT_FAIL;
        }
        gm_dg_feed_flush(&rs);
    } else {
        rc = live(d, ids, duration, interval, timeout);
        if (rc != 0) {
            gm_dg_free(d);
            return rc;
        }
    }
    struct gm_dg_result r;
    gm_dg_eval(d, from, to, &r);
    struct gm_buf out = GM_BUF_INIT;
    if (json)
        gm_dg_json(d, &r, source, pretty, &out);
    else
        gm_dg_text(d, &r, source, cli_utf8(), &out);
    rc = cli_write(STDOUT_FILENO, &out);
    if (rc == 0 && fail_on >= 0)
        for (size_t i = 0; i < r.nfinding; i++)
            if ((int)r.findings[i].severity >= fail_on)
                rc = GM_EXIT_FAIL;
    gm_buf_free(&out);
    gm_dg_result_free(&r);
    gm_dg_free(d);
    return rc;
}

const struct gm_cmd gm_cmd_diagnose = {"diagnose",
                                       "why a GPU is slow or wasted: causes with "
                                       "evidence, live or from history",
                                       cmd_diagnose_run, &diagnose_opts};

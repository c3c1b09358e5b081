/* cmd_alerts.c -- `gpumon alerts`: what is pending or firing now (from the
 * running agent), what fired before (--history, from the store), and
 * `gpumon alerts test`: the configured rules run over a simulated timeline
 * so that a rule can be tried without waiting for a GPU to misbehave.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agent/collector.h"
#include "../agent/control.h"
#include "../alert/engine.h"
#include "../agent/config.h"
#include "../core/fmt.h"
#include "../core/json.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../store/store.h"
#include "cli.h"
#include "optgroups.h"

struct args {
    struct cli_hist h;
    int json, history;
    const char *rule;
    int64_t from_ns, to_ns, step_ns;
};

static const char alerts_help[] =
    "usage: gpumon alerts [--json] [--data-dir DIR] [--config FILE | --no-config]\n"
    "       gpumon alerts --history [--since DURATION] [--rule NAME] [--json]\n"
    "                     [--data-dir DIR | --store-path FILE]\n"
    "       gpumon --sim SCENARIO alerts test [--from T] [--to T] [--step DURATION]\n"
    "                     [--json] [--config FILE | --no-config]\n\n"
    "Alerts of the running agent: each rule's pending and firing alerts, and what\n"
    "its notification channels delivered.  --history lists past notices (firing,\n"
    "repeated, resolved) from the agent's store.  `test` evaluates the configured\n"
    "rules on the simulator's timeline from --from to --to (scenario seconds,\n"
    "default 0 to 1h) every --step (default 10s) and prints each notice with the\n"
    "scenario time it happened at.  Rules: docs/alerts.md.\n";

/* alerts test's --from, --to, --step: scenario time, a duration >= 0. */
static int parse_scenario_time(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (gm_parse_duration(v, ns) != 0 || *ns < 0)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (a duration: 90s, 10m, 2h)", o->name,
                          v);
    return 0;
}

#define HIST(n, ...)                                                                               \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &cli_hist_group, .name = (n),                                 \
        .off = offsetof(struct args, h), .flags = GM_OPT_NOHELP, __VA_ARGS__                       \
    }
#define SCENARIO_TIME(n, field)                                                                    \
    {                                                                                              \
        .kind = GM_OPT_FN, .name = (n), .arg = "T", .fn = parse_scenario_time,                     \
        .off = offsetof(struct args, field)                                                        \
    }

/* `alerts test`: the flags of the simulator's timeline instead of the
 * history's; the same help. */
static const struct gm_opt alerts_test_rows[] = {
    SCENARIO_TIME("from", from_ns),
    SCENARIO_TIME("to", to_ns),
    {.kind = GM_OPT_FN,
     .name = "step",
     .arg = "DURATION",
     .fn = parse_scenario_time,
     .off = offsetof(struct args, step_ns)},
    {.kind = GM_OPT_SET, .name = "json", .val = 1, .off = offsetof(struct args, json)},
    HIST("config"),
    HIST("no-config"),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {0},
};

static const struct gm_optcmd alerts_test_opts = {
    .name = "alerts",
    .head = alerts_help,
    .msg = GM_OPT_MSG_BARE,
    .opts = alerts_test_rows,
};

static const struct gm_opt alerts_rows[] = {
    {.kind = GM_OPT_SET, .name = "json", .val = 1, .off = offsetof(struct args, json)},
    HIST("data-dir"),
    HIST("config"),
    HIST("no-config"),
    {.kind = GM_OPT_SET, .name = "history", .val = 1, .off = offsetof(struct args, history)},
    HIST("since", .arg = "DURATION"),
    {.kind = GM_OPT_STR, .name = "rule", .arg = "NAME", .off = offsetof(struct args, rule)},
    HIST("store-path"),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {0},
};

static const struct gm_optcmd alerts_opts = {
    .name = "alerts",
    .head = alerts_help,
    .msg = GM_OPT_MSG_BARE,
    .opts = alerts_rows,
    .subs = "test",
    .sub = &alerts_test_opts,
};

/* ------------------------------------------------------------------ test */

struct test_out {
    int json;
    int64_t from_wall;
    int64_t t_ns; /* of the snapshot being evaluated */
    struct gm_buf *out;
    int notices;
};

static void test_notice(void *arg, const struct gm_alert *a)
{
    struct test_out *o = arg;
    o->notices++;
    if (o->json) {
        /* the alert's JSON with the scenario time in front */
        gm_buf_printf(o->out, "{\"t_seconds\":%.3f,\"alert\":", o->t_ns / 1e9);
        gm_alert_json(a, o->out);
        gm_buf_puts(o->out, "}\n");
        return;
    }
    char t[32], gpu[16] = "-";
    snprintf(t, sizeof(t), "%.3fs", o->t_ns / 1e9);
    if (a->gpu >= 0)
        snprintf(gpu, sizeof(gpu), "%d", (int)a->gpu);
    char rule[128], value[128];
    gm_buf_printf(o->out, "%-10s  %-8s  %-8s  %s  %3s  %s  ", t, gm_alert_state_name(a->state),
                  gm_alert_severity_name(a->severity), gm_fmt_cell(rule, sizeof(rule), a->rule, 26),
                  gpu,
                  gm_fmt_cell(value, sizeof(value), a->value_text[0] ? a->value_text : "-", 14));
    /* the summary names the GPU: text from outside, one line */
    gm_text_line(o->out, a->summary, strnlen(a->summary, sizeof(a->summary)));
    gm_buf_putc(o->out, '\n');
}

static int run_test(const struct args *a, const struct gm_config *c)
{
    if (!getenv("GPUSIM_SCENARIO") || !getenv("GPUMON_NVML_LIB"))
        return cli_usage_error("alerts", "alerts test runs the rules on the simulator: give "
                                         "--sim SCENARIO before the command");
    int64_t to = a->to_ns ? a->to_ns : 3600LL * 1000000000LL;
    int64_t step = a->step_ns ? a->step_ns : 10LL * 1000000000LL;
    if (step < 1000000LL)
        return cli_usage_error("alerts", "--step must be at least 1ms");
    if (to < a->from_ns)
        return cli_usage_error("alerts", "--to is before --from");
    if ((to - a->from_ns) / step > 1000000)
        return cli_usage_error("alerts", "more than a million steps; give a larger --step");

    struct gm_engine *eng = gm_engine_new(&c->rules);
    gm_engine_set_pid_ns_nested(eng, gm_pid_ns_nested());
    struct gm_buf out = GM_BUF_INIT;
    struct test_out to_ = {.json = a->json, .from_wall = gm_wall_ns(), .out = &out};
    if (!a->json)
        gm_buf_printf(&out, "%-10s  %-8s  %-8s  %-26s  %3s  %-14s  %s\n", "TIME", "STATE",
                      "SEVERITY", "RULE", "GPU", "VALUE", "SUMMARY");
    int rc = GM_EXIT_OK;
    for (int64_t t = a->from_ns; t <= to && !rc; t += step) {
        /* a pinned scenario time is read when NVML initialises: one session per step */
        char ts[48];
        snprintf(ts, sizeof(ts), "%lld.%09lld", (long long)(t / 1000000000LL),
                 (long long)(t % 1000000000LL));
        setenv("GPUSIM_TIME", ts, 1);
        struct gm_collector *col = NULL;
        struct gm_collector_opts co = {.procs = 1, .procfs = 1};
        struct gm_err err = {0};
        gm_collector_open(&col, &co, &err); /* a driver fault is data, not a failure */
        struct gm_snapshot *s = gm_snapshot_new();
        if (cli_sample(col, s, CLI_DEFAULT_TIMEOUT_NS, 0) != 0 && s->driver == GM_DRV_OK)
            rc = GM_EXIT_NVML;
        /* the notices carry the simulated time, from the moment the test started */
        s->wall_ns = to_.from_wall + (t - a->from_ns);
        to_.t_ns = t;
        gm_engine_eval(eng, s, t, test_notice, &to_);
        gm_snapshot_unref(s);
        gm_collector_close(col);
    }
    unsetenv("GPUSIM_TIME");
    if (!a->json) {
        gm_buf_puts(&out, "\nstill pending or firing at the end:\n");
        gm_engine_text_at(eng, &out, to_.from_wall, a->from_ns);
    }
    gm_engine_free(eng);
    int wrc = cli_write(STDOUT_FILENO, &out);
    gm_buf_free(&out);
    return rc ? rc : wrc;
}

/* ------------------------------------------------------------------- run */

static int cmd_alerts_run(int argc, char **argv)
{
    struct args a = {.h.since_ns = 24LL * 3600 * 1000000000LL};
    if (argc == 2 && !strcmp(argv[1], "--markdown")) {
        /* the generated part of docs/alerts.md */
        struct gm_buf b = GM_BUF_INIT;
        gm_rules_markdown(&b);
        int wrc = cli_write(STDOUT_FILENO, &b);
        gm_buf_free(&b);
        return wrc;
    }
    int test = argc > 1 && !strcmp(argv[1], "test");
    int rc = test ? cli_opts(&alerts_test_opts, argc - 1, argv + 1, &a, NULL)
                  : cli_opts(&alerts_opts, argc, argv, &a, NULL);
    if (rc != CLI_OPTS_GO)
        return rc;
    if (a.rule && !a.history)
        return cli_usage_error("alerts", "--rule goes with --history");
    struct gm_config *c = gm_xmalloc(sizeof(*c)); /* ~0.5 MB: not on the stack */
    rc = cli_config(c, a.h.config, a.h.no_config, a.h.data_dir, a.h.store_path);
    if (rc) {
        free(c);
        return rc;
    }
    if (test) {
        rc = run_test(&a, c);
        free(c);
        return rc;
    }
    struct gm_buf out = GM_BUF_INIT;
    struct gm_err err = {0};
    if (a.history) {
        int64_t now = gm_wall_ns();
        struct gm_alert_history_opts ho = {
            .path = c->store_path, .from_ns = now - a.h.since_ns, .rule = a.rule, .json = a.json};
        if (gm_store_alert_history(&ho, &out, &err) != 0) {
            cli_error("%s", err.msg);
            gm_buf_free(&out);
            free(c);
            return GM_EXIT_FAIL;
        }
    } else {
        static char reply[1 << 20];
        if (gm_control_request(c->data_dir, a.json ? "ALERTS" : "ALERTS TEXT", reply, sizeof(reply),
                               &err) != 0) {
            cli_error("%s", err.msg);
            free(c);
            return GM_EXIT_FAIL;
        }
        if (!strncmp(reply, "ERR ", 4)) {
            struct gm_buf why = GM_BUF_INIT;
            gm_text_line(&why, reply + 4, strcspn(reply + 4, "\n"));
            cli_error("the agent says: %s", why.p ? why.p : "");
            gm_buf_free(&why);
            free(c);
            return GM_EXIT_FAIL;
        }
        cli_agent_reply(&out, reply);
    }
    free(c);
    rc = cli_write(STDOUT_FILENO, &out);
    gm_buf_free(&out);
    return rc;
}

const struct gm_cmd gm_cmd_alerts = {"alerts", "alerts now (from the agent), --history, test rules",
                                     cmd_alerts_run, &alerts_opts};

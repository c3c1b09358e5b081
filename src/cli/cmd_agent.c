/* cmd_agent.c -- `gpumon agent` (the daemon), its presets `gpumon record`
 * and `gpumon serve`, `gpumon config check|show` and `gpumon mark`.
 *
 * Every option of the configuration table is also a flag with the same
 * name (--interval 5s, --procs / --no-procs); flags override the file.  The
 * flags are rows of one option group made from that table at its first use
 * (config_rows), so that each command's option table (opt.h) parses them
 * and renders them in --help, the completions and the manual pages.  The
 * flags are kept so that a reload on SIGHUP applies them again on top of the
 * re-read file.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../agent/control.h"
#include "../agent/daemon.h"
#include "../core/event.h"
#include "../export/exporter.h"
#include "../agent/config.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../fleet/poll.h"
#include "../source/nvml.h"
#include "../view/status.h"
#include "cli.h"
#include "optgroups.h"

struct flagset {
    const char *config_path; /* --config, NULL for the default path */
    int no_config;           /* --no-config: ignore any config file */
    int once;                /* --once: log-level warning unless the file or a flag sets it */
    int nflags;
    const char *key[64];
    const char *value[64];
};

/* ----------------------------------------------------- the option tables */

/* The GM_OPT_FN of a configuration key's flag: --KEY VALUE, --KEY and
 * --KEY=VALUE for a bool, --no-KEY (o->val 1) for false.  Kept in the
 * flagset at dst in their order, and checked now, so that a bad flag fails
 * before anything starts. */
static int config_flag(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct flagset *fs = dst;
    const char *key = o->val ? o->name + 3 : o->name;
    const char *value = o->val ? "false" : v ? v : "true";
    if (fs->nflags >= 64)
        return gm_err_set(err, GM_E_INVAL, "too many options");
    struct gm_config probe;
    gm_config_defaults(&probe);
    if (gm_config_set(&probe, key, value, err) != 0)
        return -1;
    fs->key[fs->nflags] = key;
    fs->value[fs->nflags] = value;
    fs->nflags++;
    return 0;
}

/* The configuration table's keys as rows (gm_config_key_at), made once:
 * "--interval DURATION", "--procs, --no-procs", "--log-level a|b|c", each
 * with its text and default, at column 39 (32 wide, then one blank). */
static const struct gm_opt *config_rows(void)
{
    static struct gm_opt *rows;
    if (rows)
        return rows;
    struct gm_config_key k;
    size_t n = 0, r = 0;
    while (gm_config_key_at(n, &k) == 0)
        n++;
    rows = gm_xcalloc(2 * n + 1, sizeof(*rows)); /* for the process's life */
    for (size_t i = 0; i < n && gm_config_key_at(i, &k) == 0; i++) {
        struct gm_buf h = GM_BUF_INIT;
        gm_buf_puts(&h, k.help);
        if (k.def[0])
            gm_buf_printf(&h, " [%s]", k.def);
        rows[r++] = (struct gm_opt){.kind = GM_OPT_FN,
                                    .name = k.key,
                                    .arg = k.arg,
                                    .fn = config_flag,
                                    .col = 39,
                                    .flags = GM_OPT_WIDE | (k.arg ? 0 : GM_OPT_OPTARG),
                                    .help = h.p};
        if (k.arg)
            continue;
        size_t len = strlen(k.key) + 4;
        char *no = gm_xmalloc(len);
        snprintf(no, len, "no-%s", k.key);
        rows[r++] = (struct gm_opt){
            .kind = GM_OPT_FN, .name = no, .val = 1, .fn = config_flag, .flags = GM_OPT_JOIN};
    }
    return rows;
}

/* Every key of the configuration table is a flag of the agent's commands
 * (and config show's, mark's), declared once there. */
static const struct gm_optgroup config_group = {.name = "configuration keys", .gen = config_rows};

/* agent, record, serve: the flags, what the run does. */
struct agent_args {
    struct flagset fs;
    int once;
    int status;
    int print; /* serve --print */
};

/* The flags of agent, record and serve besides the configuration's, each
 * declared once; a command takes them with GM_OPT_USE rows. */
static const struct gm_opt agent_own_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "config",
     .arg = "FILE",
     .off = offsetof(struct agent_args, fs.config_path),
     .help = "configuration file (INI; see docs/config.md)"},
    {.kind = GM_OPT_SET,
     .name = "no-config",
     .val = 1,
     .off = offsetof(struct agent_args, fs.no_config),
     .help = "ignore the default configuration file"},
    {.kind = GM_OPT_SET,
     .name = "once",
     .val = 1,
     .off = offsetof(struct agent_args, once),
     .help = "one sample through the same files and locks, then exit (cron;\n"
             "log-level warning unless set: silent when it goes well)"},
    {.kind = GM_OPT_SET,
     .name = "print",
     .val = 1,
     .off = offsetof(struct agent_args, print),
     .help = "one sample to stdout as /metrics would serve it"},
    {.kind = GM_OPT_SET,
     .name = "status",
     .val = 1,
     .off = offsetof(struct agent_args, status),
     .help = "ask the running agent for its counters (JSON)"},
    {0},
};

static const struct gm_optgroup agent_group = {.name = "agent", .opts = agent_own_rows};

#define USE_AGENT(n)                                                                               \
    {                                                                                              \
        .kind = GM_OPT_USE, .group = &agent_group, .name = (n)                                     \
    }

static const struct gm_opt agent_rows[] = {
    USE_AGENT("config"),
    USE_AGENT("no-config"),
    USE_AGENT("once"),
    USE_AGENT("status"),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {.kind = GM_OPT_GROUP, .group = &config_group, .off = offsetof(struct agent_args, fs)},
    {0},
};

static const struct gm_opt serve_rows[] = {
    USE_AGENT("config"),
    USE_AGENT("no-config"),
    USE_AGENT("once"),
    USE_AGENT("print"),
    USE_AGENT("status"),
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {.kind = GM_OPT_GROUP, .group = &config_group, .off = offsetof(struct agent_args, fs)},
    {0},
};

static const struct gm_optcmd agent_opts = {
    .name = "agent",
    .head = "usage: gpumon agent [--config FILE] [OPTIONS] [--once]\n\n"
            "The agent: samples every GPU on a fixed cadence, writes the daily CSV log and the "
            "SQLite\nhistory store under the data directory, and serves Prometheus metrics at "
            "--listen\n(docs/exporter.md).  SIGTERM/SIGINT stop it (flushing everything), SIGHUP "
            "reloads\nthe configuration and reopens files.\n\n"
            "Memory: at 8 GPUs, about 14.5 MiB resident once its windows are full (the live\n"
            "page's hour of samples, an hour after the start at 1 s, and the diagnosis's\n"
            "5 minutes, about 390 bytes per GPU-sample), 7 MiB of it the shared libraries'\n"
            "pages (docs/BENCHMARKS.md).\n\n",
    .col = 35,
    .short_col = 1,
    .msg = GM_OPT_MSG_BARE,
    .opts = agent_rows,
};

static const struct gm_optcmd record_opts = {
    .name = "record",
    .head = "usage: gpumon record [--config FILE] [OPTIONS] [--once]\n\n"
            "The recording agent: the agent without the exporter.  It samples every GPU on a "
            "fixed\ncadence and writes the daily CSV log and the SQLite history store under the "
            "data\ndirectory.  SIGTERM/SIGINT stop it (flushing everything), SIGHUP reloads the\n"
            "configuration and reopens files.\n\n",
    .col = 35,
    .short_col = 1,
    .msg = GM_OPT_MSG_BARE,
    .opts = agent_rows,
};

static const struct gm_optcmd serve_opts = {
    .name = "serve",
    .head = "usage: gpumon serve [--config FILE] [OPTIONS] [--once] [--print]\n\n"
            "The Prometheus exporter: the agent without the CSV log and the store.  It samples "
            "every\nGPU on a fixed cadence and serves the latest sample at "
            "http://127.0.0.1:9842/metrics\n(--listen), with /healthz, in Prometheus's text "
            "format or OpenMetrics (docs/exporter.md).\n--print writes one sample to stdout as "
            "/metrics would serve it; --once with --textfile-dir\nwrites one sample for "
            "node_exporter's textfile collector (cron).  SIGTERM/SIGINT stop\nit, SIGHUP reloads "
            "the configuration (a bad one is logged and the running one kept).\n\n",
    .col = 35,
    .short_col = 1,
    .msg = GM_OPT_MSG_BARE,
    .opts = serve_rows,
};

static int build_config(void *arg, int reload, struct gm_config *c, struct gm_err *err)
{
    const struct flagset *fs = arg;
    gm_config_defaults(c);
    /* cron mails whatever a job prints: a --once run that went well prints
     * nothing (NVML ready, an alert's notice); warnings and errors still go
     * to stderr, and an explicit log-level (file or flag) wins */
    if (fs->once && gm_config_set(c, "log-level", "warning", err) != 0)
        return GM_E_INVAL;
    if (!fs->no_config) {
        char def[4096];
        const char *path =
            fs->config_path ? fs->config_path : gm_config_default_path(def, sizeof(def));
        int rc = gm_config_load(c, path, reload ? GM_CONFIG_REGULAR : 0, err);
        if (rc == GM_E_NOTFOUND && !fs->config_path)
            rc = 0; /* the default file is optional */
        if (rc == GM_E_NOPERM && !fs->config_path) {
            /* HOME not the caller's (sudo -u, setpriv): not theirs to read */
            cli_default_config_unreadable(err->msg);
            rc = 0;
        }
        if (rc != 0)
            return rc;
    }
    for (int i = 0; i < fs->nflags; i++) {
        int rc = gm_config_set(c, fs->key[i], fs->value[i], err);
        if (rc != 0)
            return rc;
    }
    return gm_config_finish(c, err);
}

/* ------------------------------------------------------------------ agent */

/* `gpumon serve --print`: one sample rendered as /metrics would serve it.
 * When NVML is unavailable that is still what /metrics serves (the
 * gpumon_nvml_state series say why), so it is printed too; the error goes
 * to stderr and the exit status says NVML is unavailable (3). */
static int print_metrics(const struct gm_config *c)
{
    /* one sample, so GPM takes its interval now (GM_NVML_GPM_PRIME: 100 ms) */
    struct gm_collector_opts co = {.lib_path = c->nvml_lib[0] ? c->nvml_lib : NULL,
                                   .groups = gm_nvml_groups_default(),
                                   .nvml_flags = GM_NVML_GPM_PRIME,
                                   .procs = c->process_metrics,
                                   .procfs = c->process_metrics,
                                   .job_map_dir = c->job_map_dir,
                                   .log = cli_log_cb};
    struct gm_collector *col;
    struct gm_err err = {0};
    gm_collector_open(&col, &co, &err); /* a failure shows in the sample's driver state */
    struct gm_snapshot *s = gm_snapshot_new();
    int rc = cli_sample(col, s, c->nvml_timeout_ns, 1); /* reports a failure on stderr */
    struct gm_prom_opts po = {.names = c->names,
                              .hostname_label = c->hostname_label,
                              .no_hostname = !c->hostname,
                              .process_metrics = c->process_metrics,
                              .max_process_series = c->max_process_series};
    char why[256];
    if (gm_prom_label_fields(c->dcgm_label_fields, &po.dcgm_labels, why, sizeof why) != 0)
        po.dcgm_labels = 0; /* refused when the configuration was read */
    struct gm_buf b = GM_BUF_INIT;
    gm_prom_render_once(s, &po, &b);
    int wrc = cli_write(STDOUT_FILENO, &b);
    gm_buf_free(&b);
    gm_snapshot_free(s);
    gm_collector_close(col);
    return wrc ? wrc : rc;
}

/* preset: flags applied before the user's (which override them) */
/* The exporter's /api/v1/status: `gpumon status --json`'s document (every
 * GPU, on one line) of the agent's latest snapshot. */
static void api_status_json(const struct gm_snapshot *s, int command_lines, struct gm_buf *out)
{
    gm_status_json_opt(s, UINT64_MAX, 0,
                       GM_STATUS_JSON_DIAG | (command_lines ? 0 : GM_STATUS_JSON_NO_COMMAND),
                       out); /* + "diagnosis" */
}

/* The fleet page's rounds over the hosts of fleet = with the [fleet]
 * section's settings (daemon.h); the basic-auth password is read here,
 * once, from fleet-password-file (its first line), and never printed. */
static void *agent_fleet_start(const struct gm_config *c, struct gm_err *err)
{
    /* fleet-user without fleet-password-file and a bad fleet = list were
     * refused where the configuration was read (gm_config_finish, the
     * registered check of main.c) */
    char pw[1024] = "";
    if (c->fleet_password_file[0]) {
        FILE *pf = fopen(c->fleet_password_file, "re");
        if (!pf) {
            gm_err_set(err, GM_E_IO, "[fleet] fleet-password-file %s: %s", c->fleet_password_file,
                       strerror(errno));
            return NULL;
        }
        if (!fgets(pw, (int)sizeof(pw), pf))
            pw[0] = '\0';
        fclose(pf);
        pw[strcspn(pw, "\r\n")] = '\0';
    }
    struct gm_fleet f = {0};
    struct gm_err e = {0};
    if (gm_fleet_add_list(&f, c->fleet, c->fleet_tls, &e) != 0) {
        gm_err_set(err, GM_E_INVAL, "fleet = in [fleet]: %s", e.msg);
        gm_fleet_clear(&f);
        memset(pw, 0, sizeof(pw));
        return NULL;
    }
    struct gm_fleet_poll_opts po = {
        .nodes = &f,
        .fetch = {.cacert = c->fleet_cacert[0] ? c->fleet_cacert : NULL,
                  .cert = c->fleet_cert[0] ? c->fleet_cert : NULL,
                  .key = c->fleet_key[0] ? c->fleet_key : NULL,
                  .user = c->fleet_user[0] ? c->fleet_user : NULL,
                  .password = c->fleet_user[0] ? pw : NULL,
                  .total_ns = c->fleet_timeout_ns,
                  .node_ns = c->fleet_timeout_ns,
                  .max_body = GM_FLEET_MAX_BODY},
        .interval_ns = c->fleet_interval_ns,
        .stale_ns = 30000000000LL,
    };
    struct gm_fleet_poller *p = gm_fleet_poller_start(&po, err);
    gm_fleet_clear(&f);
    memset(pw, 0, sizeof(pw)); /* the poller keeps its own copy */
    return p;
}

static void agent_fleet_stop(void *p)
{
    gm_fleet_poller_stop(p);
}

static int run_agent_preset(const struct gm_optcmd *t, int argc, char **argv,
                            const char *const *preset)
{
    static struct agent_args a; /* its flagset is kept for reloads for the process's life */
    memset(&a, 0, sizeof(a));
    struct flagset *fs = &a.fs;
    for (; preset && preset[0]; preset += 2) { /* applied before the user's flags */
        fs->key[fs->nflags] = preset[0];
        fs->value[fs->nflags] = preset[1];
        fs->nflags++;
    }
    int rc = cli_opts(t, argc, argv, &a, NULL);
    if (rc != CLI_OPTS_GO)
        return rc;
    fs->once = a.once;
    if (a.print) {
        struct gm_config c;
        struct gm_err perr = {0};
        if (build_config(fs, 0, &c, &perr) != 0) {
            cli_error("%s", perr.msg);
            return GM_EXIT_USAGE;
        }
        return print_metrics(&c);
    }
    struct gm_err err = {0};
    if (a.status) {
        struct gm_config c;
        if (build_config(fs, 0, &c, &err) != 0) {
            cli_error("%s", err.msg);
            return GM_EXIT_USAGE;
        }
        char reply[65536];
        if (gm_control_request(c.data_dir, "STATUS", reply, sizeof(reply), &err) != 0) {
            cli_error("%s", err.msg);
            return GM_EXIT_FAIL;
        }
        if (strncmp(reply, "ERR ", 4) == 0 || reply[0] != '{') {
            cli_agent_refused("STATUS", reply);
            return GM_EXIT_FAIL;
        }
        struct gm_buf out = GM_BUF_INIT;
        cli_agent_reply(&out, reply);
        rc = cli_write(STDOUT_FILENO, &out);
        gm_buf_free(&out);
        return rc;
    }
    struct gm_daemon_opts o = {.build = build_config,
                               .build_arg = fs,
                               .once = a.once,
                               .status_json = api_status_json,
                               .fleet_start = agent_fleet_start,
                               .fleet_json = gm_fleet_poller_json_cb,
                               .fleet_stop = agent_fleet_stop};
    rc = gm_daemon_run(&o, &err);
    if (rc != 0 && err.msg[0])
        cli_error("%s", err.msg);
    return rc;
}

static int cmd_agent_run(int argc, char **argv)
{
    return run_agent_preset(&agent_opts, argc, argv, NULL);
}

/* record: the history (CSV and store), no exporter */
static int cmd_record_run(int argc, char **argv)
{
    static const char *const preset[] = {"exporter", "false", NULL};
    return run_agent_preset(&record_opts, argc, argv, preset);
}

/* serve: the exporter only (no CSV, no store) */
static int cmd_serve_run(int argc, char **argv)
{
    static const char *const preset[] = {"csv", "false", "store", "false", NULL};
    return run_agent_preset(&serve_opts, argc, argv, preset);
}

const struct gm_cmd gm_cmd_serve = {"serve", "the agent's exporter preset: Prometheus /metrics",
                                    cmd_serve_run, &serve_opts};

const struct gm_cmd gm_cmd_agent = {
    "agent", "the daemon: sample on a cadence, record CSV and SQLite", cmd_agent_run, &agent_opts};
const struct gm_cmd gm_cmd_record = {"record", "the agent's recording preset (--once for cron)",
                                     cmd_record_run, &record_opts};

/* ----------------------------------------------------------------- config */

#define CONFIG_HEAD                                                                                \
    "usage: gpumon config check [FILE]   report the first error as FILE:LINE: reason\n"            \
    "                                    (in FILE, or in the web-config file it names)\n"          \
    "       gpumon config show [--config FILE] [OPTIONS]   the effective settings\n"               \
    "       gpumon config --markdown     docs/config.md\n"

/* config show: the agent's flags, as the synopsis names them */
static const struct gm_opt config_show_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "config",
     .arg = "FILE",
     .off = offsetof(struct flagset, config_path)},
    {.kind = GM_OPT_SET,
     .name = "no-config",
     .val = 1,
     .flags = GM_OPT_HIDDEN,
     .off = offsetof(struct flagset, no_config)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {.kind = GM_OPT_GROUP, .group = &config_group, .flags = GM_OPT_HIDDEN},
    {0},
};

static const struct gm_optcmd config_show_opts = {
    .name = "config",
    .head = CONFIG_HEAD,
    .msg = GM_OPT_MSG_BARE,
    .opts = config_show_rows,
};

struct config_args {
    int markdown;
};

static const struct gm_opt config_rows_top[] = {
    {.kind = GM_OPT_SET,
     .name = "markdown",
     .val = 1,
     .off = offsetof(struct config_args, markdown)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {0},
};

static const struct gm_optcmd config_opts = {
    .name = "config",
    .head = CONFIG_HEAD,
    .msg = GM_OPT_MSG_BARE,
    .in_order = 1,
    .opts = config_rows_top,
    .subs = "check|show",
    .sub = &config_show_opts,
    .operands = GM_OPT_OPERANDS_FILE,
};

static int cmd_config_run(int argc, char **argv)
{
    if (argc < 2) {
        cli_opts_help(&config_opts);
        return GM_EXIT_USAGE;
    }
    struct gm_buf b = GM_BUF_INIT;
    int rc = GM_EXIT_OK;
    if (strcmp(argv[1], "check") == 0) {
        if (argc > 3) {
            gm_buf_free(&b);
            return cli_usage_error("config", "check takes at most one file");
        }
        char def[4096];
        const char *path = argc == 3 ? argv[2] : gm_config_default_path(def, sizeof(def));
        struct gm_config c;
        struct gm_err err = {0};
        gm_config_defaults(&c);
        if (gm_config_load_file(&c, path, &err) != 0 || gm_config_finish(&c, &err) != 0 ||
            (c.exporter && c.web_config[0] &&
             gm_exporter_check_web_config(c.web_config, &err) != 0)) {
            fprintf(stderr, "%s\n", err.msg);
            rc = GM_EXIT_USAGE;
        }
    } else if (strcmp(argv[1], "show") == 0) {
        struct flagset fs;
        memset(&fs, 0, sizeof(fs));
        rc = cli_opts(&config_show_opts, argc - 1, argv + 1, &fs, NULL);
        if (rc == CLI_OPTS_GO) {
            struct gm_config c;
            struct gm_err err = {0};
            if (build_config(&fs, 0, &c, &err) != 0) {
                cli_error("%s", err.msg);
                rc = GM_EXIT_USAGE;
            } else {
                gm_config_dump(&c, &b);
                rc = cli_write(STDOUT_FILENO, &b);
            }
        }
    } else {
        struct config_args a = {0};
        int first = argc;
        rc = cli_opts(&config_opts, argc, argv, &a, &first);
        if (rc != CLI_OPTS_GO) {
            /* the help (exit 0) or a usage error */
        } else if (a.markdown) {
            gm_config_markdown(&b);
            rc = cli_write(STDOUT_FILENO, &b);
        } else {
            char shown[256];
            gm_text_term_s(shown, sizeof(shown), first < argc ? argv[first] : "", cli_utf8());
            rc = cli_usage_error("config", "unknown subcommand '%s'", shown);
        }
    }
    gm_buf_free(&b);
    return rc;
}

const struct gm_cmd gm_cmd_config = {"config", "check or show the agent's configuration",
                                     cmd_config_run, &config_opts};

/* ------------------------------------------------------------------- mark */

/* mark: --task, --data-dir and --config as its synopsis names them; the
 * other keys of the configuration are taken too (where the agent's data
 * directory is), unlisted */
static const struct gm_opt mark_rows[] = {
    {.kind = GM_OPT_USE,
     .group = &config_group,
     .name = "task",
     .arg = "T",
     .flags = GM_OPT_NOHELP},
    {.kind = GM_OPT_USE,
     .group = &config_group,
     .name = "data-dir",
     .arg = "DIR",
     .flags = GM_OPT_NOHELP},
    {.kind = GM_OPT_STR,
     .name = "config",
     .arg = "FILE",
     .off = offsetof(struct flagset, config_path)},
    {.kind = GM_OPT_SET,
     .name = "no-config",
     .val = 1,
     .flags = GM_OPT_HIDDEN,
     .off = offsetof(struct flagset, no_config)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
    {.kind = GM_OPT_GROUP, .group = &config_group, .flags = GM_OPT_HIDDEN},
    {0},
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct gm_optcmd mark_opts = {
    .name = "mark",
    .head = "usage: gpumon mark [--task T] [--data-dir DIR] [--config FILE] TEXT...\n\n"
            "Puts a mark (e.g. \"epoch 3 start\") on the running agent's timeline: it appears in "
            "the\nCSV events file, the store and 'gpumon report'.  The words are joined by one "
            "space;\na mark is at most " STR(GM_MARK_MAX) " bytes (a longer one is refused, exit "
                                                          "2).\n",
    .msg = GM_OPT_MSG_BARE,
    .in_order = 1,     /* the text starts at the first word that is no flag, */
    .stop_unknown = 1, /* or at an unknown one: "-5 degrees" is a text */
    .opts = mark_rows,
};

static int cmd_mark_run(int argc, char **argv)
{
    struct flagset fs;
    memset(&fs, 0, sizeof(fs));
    int first_text = argc;
    int rc = cli_opts(&mark_opts, argc, argv, &fs, &first_text);
    if (rc != CLI_OPTS_GO)
        return rc;
    /* a text may start with '-', not with "--" unless after "--" */
    if (first_text < argc && strncmp(argv[first_text], "--", 2) == 0 &&
        strcmp(argv[first_text - 1], "--") != 0)
        return cli_usage_error("mark", "unknown option %s", argv[first_text]);
    if (first_text >= argc)
        return cli_usage_error("mark", "give the text of the mark");
    struct gm_config c;
    struct gm_err err = {0};
    if (build_config(&fs, 0, &c, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_USAGE;
    }
    int task_given = 0;
    for (int i = 0; i < fs.nflags; i++)
        task_given |= strcmp(fs.key[i], "task") == 0;
    /* the text: the words joined by one space, a line break as a space (a
     * mark is one line); refused whole when too long, never cut */
    struct gm_buf text = GM_BUF_INIT;
    for (int i = first_text; i < argc; i++) {
        for (const char *p = argv[i]; *p; p++)
            gm_buf_putc(&text, *p == '\n' || *p == '\r' ? ' ' : *p);
        if (i + 1 < argc)
            gm_buf_putc(&text, ' ');
    }
    if (text.len > GM_MARK_MAX) {
        size_t n = text.len;
        gm_buf_free(&text);
        return cli_usage_error("mark", "the mark is %zu bytes long; a mark is at most %d bytes", n,
                               GM_MARK_MAX);
    }
    struct gm_buf req = GM_BUF_INIT;
    gm_buf_printf(&req, "MARK %lld %s %s", (long long)gm_wall_ns(), task_given ? c.task : "-",
                  text.p ? text.p : "");
    gm_buf_free(&text);
    char reply[256];
    rc = gm_control_request(c.data_dir, req.p, reply, sizeof(reply), &err);
    gm_buf_free(&req);
    if (rc != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    if (strcmp(reply, "OK\n") != 0) {
        cli_agent_refused("the mark", reply);
        return GM_EXIT_FAIL;
    }
    return GM_EXIT_OK;
}

const struct gm_cmd gm_cmd_mark = {"mark", "put a mark on the running agent's timeline",
                                   cmd_mark_run, &mark_opts};

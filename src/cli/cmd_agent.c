/* cmd_agent.c -- `gpumon agent` (the daemon), its preset `gpumon record`,
 * and `gpumon config check|show`.
 *
 * Every option of the configuration table is also a flag with the same
 * name (--interval 5s, --procs / --no-procs); flags override the file.  The
 * flags are kept so that a reload on SIGHUP applies them again on top of the
 * re-read file.
 */
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
#include "../source/nvml.h"
#include "../view/status.h"
#include "cli.h"

struct flagset {
    const char *config_path; /* --config, NULL for the default path */
    int no_config;           /* --no-config: ignore any config file */
    int once;                /* --once: log-level warning unless the file or a flag sets it */
    int nflags;
    const char *key[64];
    const char *value[64];
};

/* Parses config flags out of argv (from index 1).  Non-config arguments are
 * handed to `other`, which returns 1 if it consumed one argument, 2 if two,
 * 0 if it does not know it. */
static int parse_flags(const char *cmd, int argc, char **argv, struct flagset *fs,
                       int (*other)(void *arg, int argc, char **argv, int i), void *arg)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int used = other ? other(arg, argc, argv, i) : 0;
        if (used < 0)
            return GM_EXIT_USAGE;
        if (used) {
            i += used - 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return cli_usage_error(cmd, "unexpected argument '%s'", a);
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        char key[64];
        size_t klen = eq ? (size_t)(eq - name) : strlen(name);
        if (klen >= sizeof(key))
            return cli_usage_error(cmd, "unknown option %s", a);
        memcpy(key, name, klen);
        key[klen] = '\0';
        if (strcmp(key, "config") == 0) {
            if (eq)
                fs->config_path = eq + 1;
            else if (i + 1 < argc)
                fs->config_path = argv[++i];
            else
                return cli_usage_error(cmd, "--config needs a file");
            continue;
        }
        if (strcmp(key, "no-config") == 0) {
            fs->no_config = 1;
            continue;
        }
        int takes = 0;
        const char *value = NULL;
        if (gm_config_has_key(key, &takes)) {
            if (!takes)
                value = eq ? eq + 1 : "true";
            else if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return cli_usage_error(cmd, "--%s needs a value", key);
        } else if (strncmp(key, "no-", 3) == 0 && gm_config_has_key(key + 3, &takes) && !takes &&
                   !eq) {
            memmove(key, key + 3, strlen(key + 3) + 1);
            value = "false";
        } else {
            return cli_usage_error(cmd, "unknown option %s", a);
        }
        if (fs->nflags >= 64)
            return cli_usage_error(cmd, "too many options");
        /* keep a stable copy of the key: argv strings live for the process */
        fs->key[fs->nflags] =
            strncmp(a + 2, "no-", 3) == 0 && strcmp(value, "false") == 0 ? a + 5 : a + 2;
        fs->value[fs->nflags] = value;
        fs->nflags++;
        /* validate now, so a bad flag fails before anything starts */
        struct gm_config probe;
        struct gm_err err = {0};
        gm_config_defaults(&probe);
        if (gm_config_set(&probe, key, value, &err) != 0)
            return cli_usage_error(cmd, "%s", err.msg);
    }
    return 0;
}

/* The key part of a stored flag ("interval=5s" -> "interval"). */
static void flag_key(const char *stored, char *key, size_t len)
{
    size_t n = strcspn(stored, "=");
    if (n >= len)
        n = len - 1;
    memcpy(key, stored, n);
    key[n] = '\0';
}

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
        char key[64];
        flag_key(fs->key[i], key, sizeof(key));
        int rc = gm_config_set(c, key, fs->value[i], err);
        if (rc != 0)
            return rc;
    }
    return gm_config_finish(c, err);
}

/* ------------------------------------------------------------------ agent */

struct agent_args {
    int once;
    int status;
    int help;
    int allow_once;
    int print; /* serve --print */
    int allow_print;
};

static int agent_other(void *arg, int argc, char **argv, int i)
{
    struct agent_args *a = arg;
    (void)argc;
    if (strcmp(argv[i], "--once") == 0 && a->allow_once) {
        a->once = 1;
        return 1;
    }
    if (strcmp(argv[i], "--status") == 0) {
        a->status = 1;
        return 1;
    }
    if (strcmp(argv[i], "--print") == 0 && a->allow_print) {
        a->print = 1;
        return 1;
    }
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
        a->help = 1;
        return 1;
    }
    return 0;
}

static void agent_usage(const char *cmd, int once)
{
    struct gm_buf b = GM_BUF_INIT;
    int serve = strcmp(cmd, "serve") == 0;
    const char *what =
        serve ? "The Prometheus exporter: the agent without the CSV log and the store.  It "
                "samples every\nGPU on a fixed cadence and serves the latest sample at "
                "http://127.0.0.1:9842/metrics\n(--listen), with /healthz, in Prometheus's "
                "text format or OpenMetrics (docs/exporter.md).\n--print writes one sample to "
                "stdout as /metrics would serve it; --once with --textfile-dir\nwrites one "
                "sample for node_exporter's textfile collector (cron).  SIGTERM/SIGINT stop\n"
                "it, SIGHUP reloads the configuration (a bad one is logged and the running one "
                "kept).\n\n"
        : strcmp(cmd, "record") == 0
            ? "The recording agent: the agent without the exporter.  It samples every GPU on a "
              "fixed\ncadence and writes the daily CSV log and the SQLite history store under "
              "the data\ndirectory.  SIGTERM/SIGINT stop it (flushing everything), SIGHUP "
              "reloads the\nconfiguration and reopens files.\n\n"
            : "The agent: samples every GPU on a fixed cadence, writes the daily CSV log and "
              "the SQLite\nhistory store under the data directory, and serves Prometheus "
              "metrics at --listen\n(docs/exporter.md).  SIGTERM/SIGINT stop it (flushing "
              "everything), SIGHUP reloads\nthe configuration and reopens files.\n\n"
              "Memory: at 8 GPUs, about 18 MiB resident once its windows are full (the live\n"
              "page's hour of samples, an hour after the start at 1 s, and the diagnosis's\n"
              "5 minutes, about 470 bytes per GPU-sample; docs/BENCHMARKS.md).\n\n";
    gm_buf_printf(&b,
                  "usage: gpumon %s [--config FILE] [OPTIONS]%s%s\n\n%s"
                  "      --config FILE                configuration file (INI; see "
                  "docs/config.md)\n"
                  "      --no-config                  ignore the default configuration file\n"
                  "%s%s"
                  "      --status                     ask the running agent for its counters "
                  "(JSON)\n",
                  cmd, once ? " [--once]" : "", serve ? " [--print]" : "", what,
                  once ? "      --once                       one sample through the same files "
                         "and locks, then exit (cron;\n"
                         "                                   log-level warning unless set: "
                         "silent when it goes well)\n"
                       : "",
                  serve ? "      --print                      one sample to stdout as /metrics "
                          "would serve it\n"
                        : "");
    gm_config_usage(&b);
    cli_write(STDOUT_FILENO, &b);
    gm_buf_free(&b);
}

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
                              .process_metrics = c->process_metrics,
                              .max_process_series = c->max_process_series};
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

static int run_agent_preset(const char *cmd, int argc, char **argv, int allow_once,
                            const char *const *preset)
{
    static struct flagset fs; /* kept for reloads for the life of the process */
    memset(&fs, 0, sizeof(fs));
    for (; preset && preset[0]; preset += 2) {
        fs.key[fs.nflags] = preset[0];
        fs.value[fs.nflags] = preset[1];
        fs.nflags++;
    }
    struct agent_args a = {.allow_once = allow_once, .allow_print = strcmp(cmd, "serve") == 0};
    int rc = parse_flags(cmd, argc, argv, &fs, agent_other, &a);
    if (rc)
        return rc;
    fs.once = a.once;
    if (a.help) {
        agent_usage(cmd, allow_once);
        return GM_EXIT_OK;
    }
    if (a.print) {
        struct gm_config c;
        struct gm_err perr = {0};
        if (build_config(&fs, 0, &c, &perr) != 0) {
            cli_error("%s", perr.msg);
            return GM_EXIT_USAGE;
        }
        return print_metrics(&c);
    }
    struct gm_err err = {0};
    if (a.status) {
        struct gm_config c;
        if (build_config(&fs, 0, &c, &err) != 0) {
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
    struct gm_daemon_opts o = {
        .build = build_config, .build_arg = &fs, .once = a.once, .status_json = api_status_json};
    rc = gm_daemon_run(&o, &err);
    if (rc != 0 && err.msg[0])
        cli_error("%s", err.msg);
    return rc;
}

static int run_agent(const char *cmd, int argc, char **argv, int allow_once)
{
    return run_agent_preset(cmd, argc, argv, allow_once, NULL);
}

static int cmd_agent_run(int argc, char **argv)
{
    return run_agent("agent", argc, argv, 1);
}

/* record: the history (CSV and store), no exporter */
static int cmd_record_run(int argc, char **argv)
{
    static const char *const preset[] = {"exporter", "false", NULL};
    return run_agent_preset("record", argc, argv, 1, preset);
}

/* serve: the exporter only (no CSV, no store) */
static int cmd_serve_run(int argc, char **argv)
{
    static const char *const preset[] = {"csv", "false", "store", "false", NULL};
    return run_agent_preset("serve", argc, argv, 1, preset);
}

const struct gm_cmd gm_cmd_serve = {"serve", "the agent's exporter preset: Prometheus /metrics",
                                    cmd_serve_run, NULL};

const struct gm_cmd gm_cmd_agent = {
    "agent", "the daemon: sample on a cadence, record CSV and SQLite", cmd_agent_run, NULL};
const struct gm_cmd gm_cmd_record = {"record", "the agent's recording preset (--once for cron)",
                                     cmd_record_run, NULL};

/* ----------------------------------------------------------------- config */

static int cmd_config_run(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        printf("usage: gpumon config check [FILE]   report the first error as FILE:LINE: reason\n"
               "                                    (in FILE, or in the web-config file it names)\n"
               "       gpumon config show [--config FILE] [OPTIONS]   the effective settings\n"
               "       gpumon config --markdown     docs/config.md\n");
        return argc < 2 ? GM_EXIT_USAGE : GM_EXIT_OK;
    }
    struct gm_buf b = GM_BUF_INIT;
    int rc = GM_EXIT_OK;
    if (strcmp(argv[1], "--markdown") == 0) {
        gm_config_markdown(&b);
        rc = cli_write(STDOUT_FILENO, &b);
    } else if (strcmp(argv[1], "check") == 0) {
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
        rc = parse_flags("config", argc - 1, argv + 1, &fs, NULL, NULL);
        if (rc == 0) {
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
        rc = cli_usage_error("config", "unknown subcommand '%s'", argv[1]);
    }
    gm_buf_free(&b);
    return rc;
}

const struct gm_cmd gm_cmd_config = {"config", "check or show the agent's configuration",
                                     cmd_config_run, NULL};

/* ------------------------------------------------------------------- mark */

static int cmd_mark_run(int argc, char **argv)
{
    /* gpumon mark [--task T] [--data-dir DIR] [--config FILE] TEXT... */
    int first_text = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: gpumon mark [--task T] [--data-dir DIR] [--config FILE] TEXT...\n\n"
                   "Puts a mark (e.g. \"epoch 3 start\") on the running agent's timeline: it "
                   "appears in the\nCSV events file, the store and 'gpumon report'.  The words "
                   "are joined by one space;\na mark is at most %d bytes (a longer one is "
                   "refused, exit 2).\n",
                   GM_MARK_MAX);
            return GM_EXIT_OK;
        }
        if (strcmp(argv[i], "--") == 0) {
            first_text = i + 1;
            break;
        }
        if (strncmp(argv[i], "--", 2) != 0) {
            first_text = i;
            break;
        }
        int takes = 0;
        const char *name = argv[i] + 2;
        if (!strchr(name, '=') &&
            (strcmp(name, "config") == 0 || (gm_config_has_key(name, &takes) && takes)))
            i++; /* skip the option's value */
    }
    if (first_text >= argc)
        return cli_usage_error("mark", "give the text of the mark");
    struct flagset fs;
    memset(&fs, 0, sizeof(fs));
    int rc = parse_flags("mark", first_text - (strcmp(argv[first_text - 1], "--") == 0), argv, &fs,
                         NULL, NULL);
    if (rc)
        return rc;
    struct gm_config c;
    struct gm_err err = {0};
    if (build_config(&fs, 0, &c, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_USAGE;
    }
    int task_given = 0;
    for (int i = 0; i < fs.nflags; i++)
        task_given |= strncmp(fs.key[i], "task", 4) == 0;
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
                                   cmd_mark_run, NULL};

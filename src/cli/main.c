/* main.c -- gpumon's entry point: global options and the subcommand table.
 *
 * `gpumon` alone is `gpumon status`.  For drop-in use in nvidia-smi scripts
 * (`alias nvidia-smi=gpumon`), nvidia-smi's top-level forms are accepted
 * too: options before any command, in nvidia-smi's order (smi_form).
 * --version prints gpumon's version and, where NVML answers, nvidia-smi's
 * version block; run through a link named nvidia-smi, the block alone
 * (docs/compat.md "nvidia-smi's top-level forms").
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/modload.h"
#include "../core/text.h"
#include "../fleet/fleet.h"
#include "cli.h"
#include "cmdspec.h"
#include "opt.h"

#ifndef GM_VERSION
#define GM_VERSION "0.0.0"
#endif
#ifndef GM_SIM_LIB_INSTALLED
#define GM_SIM_LIB_INSTALLED "/usr/local/lib/gpumon/sim/libnvidia-ml.so.1"
#endif

static const struct gm_cmd *const commands[] = {
    &gm_cmd_status,   &gm_cmd_query,  &gm_cmd_agent,      &gm_cmd_record,  &gm_cmd_serve,
    &gm_cmd_mark,     &gm_cmd_report, &gm_cmd_alerts,     &gm_cmd_config,  &gm_cmd_metrics,
    &gm_cmd_dmon,     &gm_cmd_pmon,   &gm_cmd_top,        &gm_cmd_free,    &gm_cmd_doctor,
    &gm_cmd_diagnose, &gm_cmd_plot,   &gm_cmd_completion, &gm_cmd_manpage, &gm_cmd_topo,
    &gm_cmd_mig,      &gm_cmd_run,    &gm_cmd_fleet,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* How the parse of the global options ended (a GM_OPT_STOP row's value). */
enum { MAIN_GO = 0, MAIN_VERSION, MAIN_SMI };

struct main_args {
    int stop; /* MAIN_*: the flag the parse stopped at, for main() to act on */
};

static int use_sim(const char *scenario, struct gm_err *err);

/* --sim SCENARIO and --nvml-lib PATH act at once, in their order (the
 * later one's library wins). */
static int opt_sim(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    (void)o;
    (void)dst;
    return use_sim(v, err);
}

static int opt_nvml_lib(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    (void)o;
    (void)dst;
    (void)err;
    setenv("GPUMON_NVML_LIB", v, 1);
    return 0;
}

/* gpumon's own options.  nvidia-smi's top-level forms end the parse
 * (GM_OPT_STOP): main() hands them to query or status as they are. */
static const struct gm_opt main_rows[] = {
    {.kind = GM_OPT_FN,
     .name = "sim",
     .arg = "SCENARIO",
     .fn = opt_sim,
     .help = "run against the NVML simulator with this scenario file\n"
             "(sets GPUMON_NVML_LIB and GPUSIM_SCENARIO)"},
    {.kind = GM_OPT_FN,
     .name = "nvml-lib",
     .arg = "PATH",
     .fn = opt_nvml_lib,
     .help = "load this libnvidia-ml.so instead of the system's"},
    {.kind = GM_OPT_STOP,
     .letter = 'q',
     .val = MAIN_SMI,
     .off = offsetof(struct main_args, stop),
     .label = "-q [-x] [-d S]",
     .help = "nvidia-smi's full report (-x: XML, -d: sections); 'gpumon -q -h'"},
    {.kind = GM_OPT_STOP,
     .letter = 'x',
     .val = MAIN_SMI,
     .off = offsetof(struct main_args, stop),
     .flags = GM_OPT_JOIN},
    {.kind = GM_OPT_STOP,
     .letter = 'd',
     .arg = "S",
     .val = MAIN_SMI,
     .off = offsetof(struct main_args, stop),
     .flags = GM_OPT_JOIN},
    {.kind = GM_OPT_HELP,
     .letter = 'h',
     .name = "help",
     .label = "-h, --help",
     .help = "this help; 'gpumon COMMAND --help' for a command"},
    {.kind = GM_OPT_STOP,
     .name = "version",
     .val = MAIN_VERSION,
     .off = offsetof(struct main_args, stop),
     .help = "print the version, then nvidia-smi's version block\n"
             "(NVIDIA-SMI, NVML, driver and CUDA versions)"},
    {.kind = GM_OPT_STOP,
     .letter = 'i',
     .arg = "IDS",
     .val = MAIN_SMI,
     .off = offsetof(struct main_args, stop),
     .label = "-i IDS, -l SEC, -lms MS",
     .help = "nvidia-smi's top-level forms: with --query-gpu, -q or -L\n"
             "as 'gpumon query'; alone 'gpumon status --id/--interval'"},
    {.kind = GM_OPT_STOP,
     .letter = 'l',
     .arg = "SEC",
     .val = MAIN_SMI,
     .off = offsetof(struct main_args, stop),
     .flags = GM_OPT_JOIN},
    {.kind = GM_OPT_STOP,
     .alias = "-lms",
     .arg = "MS",
     .val = MAIN_SMI,
     .off = offsetof(struct main_args, stop),
     .flags = GM_OPT_JOIN},
    {0},
};

/* The options' part of `gpumon --help`; the commands before it are the
 * command table's (usage()). */
static const struct gm_optcmd main_opts = {
    .name = "gpumon",
    .head = "\nGlobal options:\n",
    .tail = "\nWith no command, gpumon runs 'status'.  Exit status: 0 ok, 1 failure,\n"
            "2 bad usage, 3 NVML or driver unavailable.\n",
    .col = 19,
    .msg = GM_OPT_MSG_BARE,
    .in_order = 1,     /* the command's flags are its own */
    .stop_unknown = 1, /* nvidia-smi's --query-gpu, -L, ...: query's */
    .opts = main_rows,
};

static void usage(FILE *f)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "usage: gpumon [--sim SCENARIO] [--nvml-lib PATH] [COMMAND] [ARGS]\n\n"
                    "GPU monitoring from NVML: a quick look, nvidia-smi compatible queries, and "
                    "more.\n\nCommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        gm_buf_printf(&b, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    gm_opt_help(&main_opts, &b);
    fputs(b.p ? b.p : "", f);
    gm_buf_free(&b);
}

/* The simulator library: $GPUMON_SIM_LIB, the build tree beside this
 * binary, or the installed copy (the module loader's search). */
static const char *find_sim_lib(char *buf, size_t len)
{
    return gm_module_find("GPUMON_SIM_LIB", "../sim/libnvidia-ml.so.1", GM_SIM_LIB_INSTALLED, buf,
                          len);
}

static int use_sim(const char *scenario, struct gm_err *err)
{
    char simlib[PATH_MAX + 32];
    if (access(scenario, R_OK) != 0)
        return gm_err_set(err, GM_E_NOTFOUND, "cannot read scenario file %s", scenario);
    setenv("GPUSIM_SCENARIO", scenario, 1);
    setenv("GPUMON_NVML_LIB", find_sim_lib(simlib, sizeof(simlib)), 1);
    return 0;
}

int cli_use_sim(const char *scenario)
{
    struct gm_err err = {0};
    if (use_sim(scenario, &err) != 0) {
        char shown[sizeof(err.msg) * 2];
        gm_text_term_s(shown, sizeof(shown), err.msg, cli_utf8());
        cli_error("%s", shown);
        return -1;
    }
    return 0;
}

/* An unknown command: named (escaped: it may be anything), with the
 * closest command when it looks like a typo of one, as git does. */
static int unknown_command(const char *word)
{
    char shown[256];
    gm_text_term_s(shown, sizeof(shown), word, cli_utf8());
    struct gm_text_suggest sg;
    gm_text_suggest_init(&sg, word, strlen(word));
    for (size_t k = 0; k < NCOMMANDS; k++)
        gm_text_suggest_add(&sg, commands[k]->name);
    if (sg.best)
        return cli_usage_error(NULL, "unknown command '%s'; did you mean '%s'?", shown, sg.best);
    return cli_usage_error(NULL, "unknown command '%s'", shown);
}

/* Whether argv[from..] holds one of nvidia-smi's query forms: --query-*
 * and --help-query-* (query), -L/--list-gpus, -q/--query (the full
 * report), whatever the order of the flags (gpumon -x -q, gpumon -i 0
 * --query-gpu=..., gpumon -lms 500 --query-gpu=...). */
static int has_query_form(int argc, char **argv, int from)
{
    for (int k = from; k < argc; k++) {
        const char *a = argv[k];
        if (strncmp(a, "--query", 7) == 0 || strncmp(a, "--help-query", 12) == 0 ||
            strcmp(a, "-L") == 0 || strcmp(a, "--list-gpus") == 0 || strcmp(a, "-q") == 0)
            return 1;
    }
    return 0;
}

/* The value of nvidia-smi's option a at argv[*k] when it is SHORT or
 * --LONG (next argument) or --LONG=VALUE; NULL when a is another option.
 * *missing is set when the option is there without its value. */
static const char *smi_value(int argc, char **argv, int *k, const char *shrt, const char *lng,
                             int *missing)
{
    const char *a = argv[*k];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=')
        return a + n + 1;
    if (strcmp(a, shrt) != 0 && strcmp(a, lng) != 0)
        return NULL;
    if (*k + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*k];
}

/* nvidia-smi's default view with its top-level options: nvidia-smi -l 2,
 * -lms 500, -i 0.  gpumon's default view is status, so -i IDS is its --id
 * and -l SEC / -lms MS its --interval; anything else is a usage error. */
static int smi_status_form(int argc, char **argv, int from)
{
    char **av = calloc(2 * (size_t)(argc - from) + 2, sizeof(*av));
    if (!av) {
        cli_error("out of memory");
        abort();
    }
    static char ms[40];
    int n = 0;
    av[n++] = "status";
    for (int k = from; k < argc; k++) {
        int missing = 0;
        const char *a = argv[k], *v;
        if ((v = smi_value(argc, argv, &k, "-i", "--id", &missing))) {
            av[n++] = "--id";
            av[n++] = (char *)v;
        } else if (!missing && (v = smi_value(argc, argv, &k, "-l", "--loop", &missing))) {
            av[n++] = "--interval";
            av[n++] = (char *)v;
        } else if (!missing && (v = smi_value(argc, argv, &k, "-lms", "--loop-ms", &missing))) {
            char *end;
            long m = strtol(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || m <= 0 || m > 86400000L) {
                char shown[64];
                gm_text_term_s(shown, sizeof(shown), v, cli_utf8());
                free(av);
                return cli_usage_error(NULL, "invalid %s value '%s' (milliseconds)", a, shown);
            }
            snprintf(ms, sizeof(ms), "%ldms", m);
            av[n++] = "--interval";
            av[n++] = ms;
        } else {
            char shown[256];
            gm_text_term_s(shown, sizeof(shown), a, cli_utf8());
            free(av);
            if (missing)
                return cli_usage_error(NULL, "%s needs a value", shown);
            if (a[0] != '-')
                return cli_usage_error(NULL,
                                       "unexpected argument '%s' after nvidia-smi's "
                                       "options (a command comes first)",
                                       shown);
            return cli_usage_error(NULL, "unknown option %s", shown);
        }
    }
    av[n] = NULL;
    int rc = gm_cmd_status.run(n, av);
    free(av);
    return rc;
}

/* Whether gpumon runs as nvidia-smi (a link or copy by that name). */
static int run_as_nvidia_smi(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    return strcmp(base, "nvidia-smi") == 0;
}

/* --version.  gpumon: its own line, then nvidia-smi's block where NVML
 * answers (nothing more where it does not: the version of gpumon is
 * always there, exit 0).  As nvidia-smi: the block alone, as nvidia-smi
 * prints it, and a failing NVML is the cause and exit 3. */
static int version(int as_smi)
{
    struct gm_buf b = GM_BUF_INIT;
    int rc = 0;
    if (!as_smi) {
        /* written first: a hung driver (the watchdog's exit) keeps it */
        gm_buf_printf(&b, "gpumon %s\n", GM_VERSION);
        rc = cli_write(STDOUT_FILENO, &b);
        b.len = 0;
    }
    if (rc == 0) {
        int nrc = cli_smi_version(&b, as_smi);
        rc = cli_write(STDOUT_FILENO, &b);
        if (rc == 0 && as_smi)
            rc = nrc;
    }
    gm_buf_free(&b);
    return rc;
}

int main(int argc, char **argv)
{
    struct main_args ma = {MAIN_GO};
    struct gm_err err = {0};
    int i = argc;
    /* the fleet's host list, checked where the configuration is read */
    gm_config_register_check("fleet", gm_fleet_conf_check);
    int prc = gm_opt_parse(&main_opts, argc, argv, &ma, &i, &err);
    if (prc == GM_OPT_WANT_HELP) {
        usage(stdout);
        return GM_EXIT_OK;
    }
    if (prc != GM_OPT_OK) {
        /* the message quotes argv: outside text, shown terminal-safe */
        char shown[sizeof(err.msg) * 2];
        gm_text_term_s(shown, sizeof(shown), err.msg, cli_utf8());
        if (err.code == GM_E_NOTFOUND) { /* --sim's file: no usage error */
            cli_error("%s", shown);
            return GM_EXIT_USAGE;
        }
        return cli_usage_error(NULL, "%s", shown);
    }
    if (i < argc && argv[i][0] == '-') {
        const char *a = argv[i];
        if (ma.stop == MAIN_VERSION)
            return version(run_as_nvidia_smi(argv[0]));
        /* nvidia-smi: gpumon [-i 0] --query-gpu=..., gpumon -L, gpumon -q -x: query's */
        if (!has_query_form(argc, argv, i)) {
            if (strcmp(a, "-i") == 0 || strcmp(a, "-l") == 0 || strcmp(a, "-lms") == 0 ||
                strncmp(a, "--id", 4) == 0 || strncmp(a, "--loop", 6) == 0)
                return smi_status_form(argc, argv, i); /* nvidia-smi -l 2, -i 0 */
            return cli_usage_error(NULL, "unknown option %s", a);
        }
    }

    const struct gm_cmd *cmd = &gm_cmd_status;
    int sub_argc = argc - i + 1;
    char **sub_argv = argv + i - 1;
    if (i < argc && argv[i][0] != '-') {
        cmd = NULL;
        for (size_t k = 0; k < NCOMMANDS; k++)
            if (strcmp(argv[i], commands[k]->name) == 0)
                cmd = commands[k];
        if (!cmd)
            return unknown_command(argv[i]);
        sub_argc = argc - i;
        sub_argv = argv + i;
    } else if (i < argc) {
        cmd = &gm_cmd_query;
    }
    /* sub_argv[0] names the command for getopt messages */
    return cmd->run(sub_argc, sub_argv);
}

/* The table and the global usage, for completions and manual pages
 * (cmdspec.h). */
const struct gm_cmd *const *cli_commands(size_t *n)
{
    *n = NCOMMANDS;
    return commands;
}

void cli_main_usage(FILE *f)
{
    usage(f);
}

const struct gm_optcmd *cli_main_opts(void)
{
    return &main_opts;
}

/* main.c -- gpumon's entry point: global options and the subcommand table.
 *
 * `gpumon` alone is `gpumon status`.  For drop-in use in nvidia-smi scripts,
 * `gpumon --query-gpu=...` (any argument starting with --query or
 * --help-query) is `gpumon query ...`.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/modload.h"
#include "../core/text.h"
#include "cli.h"
#include "cmdspec.h"

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
    &gm_cmd_run,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumon [--sim SCENARIO] [--nvml-lib PATH] [COMMAND] [ARGS]\n\n"
            "GPU monitoring from NVML: a quick look, nvidia-smi compatible queries, and more.\n\n"
            "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nGlobal options:\n"
               "  --sim SCENARIO   run against the NVML simulator with this scenario file\n"
               "                   (sets GPUMON_NVML_LIB and GPUSIM_SCENARIO)\n"
               "  --nvml-lib PATH  load this libnvidia-ml.so instead of the system's\n"
               "  -q [-x] [-d S]   nvidia-smi's full report (-x: XML, -d: sections); "
               "'gpumon -q -h'\n"
               "  -h, --help       this help; 'gpumon COMMAND --help' for a command\n"
               "  --version        print the version\n\n"
               "With no command, gpumon runs 'status'.  Exit status: 0 ok, 1 failure,\n"
               "2 bad usage, 3 NVML or driver unavailable.\n");
}

/* The simulator library: $GPUMON_SIM_LIB, the build tree beside this
 * binary, or the installed copy (the module loader's search). */
static const char *find_sim_lib(char *buf, size_t len)
{
    return gm_module_find("GPUMON_SIM_LIB", "../sim/libnvidia-ml.so.1", GM_SIM_LIB_INSTALLED, buf,
                          len);
}

int cli_use_sim(const char *scenario)
{
    char simlib[PATH_MAX + 32];
    if (access(scenario, R_OK) != 0) {
        cli_error("cannot read scenario file %s", scenario);
        return -1;
    }
    setenv("GPUSIM_SCENARIO", scenario, 1);
    setenv("GPUMON_NVML_LIB", find_sim_lib(simlib, sizeof(simlib)), 1);
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

/* Whether argv[from..] asks for nvidia-smi's full report (-q / --query),
 * whatever the order of its flags (gpumon -x -q, gpumon -i 0 -q). */
static int has_smiq(int argc, char **argv, int from)
{
    for (int k = from; k < argc; k++)
        if (strcmp(argv[k], "-q") == 0 || strcmp(argv[k], "--query") == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return GM_EXIT_OK;
        }
        if (strcmp(a, "--version") == 0) {
            printf("gpumon %s\n", GM_VERSION);
            return GM_EXIT_OK;
        }
        if (strcmp(a, "--sim") == 0 || strncmp(a, "--sim=", 6) == 0 ||
            strcmp(a, "--nvml-lib") == 0 || strncmp(a, "--nvml-lib=", 11) == 0) {
            int is_sim = strncmp(a, "--sim", 5) == 0;
            const char *val = strchr(a, '=');
            if (val)
                val++;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                return cli_usage_error(NULL, "%s needs a value", a);
            if (is_sim) {
                if (cli_use_sim(val) != 0)
                    return GM_EXIT_USAGE;
            } else {
                setenv("GPUMON_NVML_LIB", val, 1);
            }
            i++;
            continue;
        }
        if (strncmp(a, "--query", 7) == 0 || strncmp(a, "--help-query", 12) == 0 ||
            strcmp(a, "-L") == 0 || strcmp(a, "--list-gpus") == 0)
            break; /* nvidia-smi style: gpumon --query-gpu=..., gpumon -L */
        if (has_smiq(argc, argv, i))
            break; /* nvidia-smi style: gpumon -q [-x] [-d ...] [-i ...] */
        return cli_usage_error(NULL, "unknown option %s", a);
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

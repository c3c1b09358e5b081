/* optgroups.h -- option groups several commands share, and running a parse.
 *
 * The history source: where report, plot, diagnose and alerts read what the
 * agent recorded (--since, --until, --task, --data-dir, --store-path, --csv,
 * --config, --no-config).  Each flag is declared once here, with how its
 * value is checked and where it goes (struct cli_hist); a command takes the
 * rows it accepts with GM_OPT_USE rows (opt.h), in the order and, where it
 * words them its own way, with the text of its help.
 *
 * How a command reaches the GPUs (-i/--id, --timeout) is a second group.
 *
 * What it leaves out: what the flags mean together (--csv with --task, a
 * --until without --since) is each command's, after the parse.
 */
#ifndef GM_CLI_OPTGROUPS_H
#define GM_CLI_OPTGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "opt.h"

#define CLI_HIST_MAX_CSV 256

/* The history source's values; zero is "not given" for each. */
struct cli_hist {
    int64_t since_ns; /* --since DUR (> 0) */
    int since_set;
    int64_t until_ns; /* --until TIME */
    const char *task, *data_dir, *store_path, *config;
    int no_config;
    const char *csv[CLI_HIST_MAX_CSV]; /* --csv FILE...: the files, in order */
    size_t ncsv;
};

/* Rows: since, until, task, data-dir, store-path, csv, config, no-config;
 * a USE row's offset is that of its struct cli_hist. */
extern const struct gm_optgroup cli_hist_group;

/* How a command reaches the GPUs: -i/--id IDS (indices, UUIDs or PCI bus
 * ids, as gm_query_select reads them later) and --timeout SEC for a hung
 * NVML call; zero is "not given" for each. */
struct cli_gpu {
    const char *ids;
    int64_t timeout_ns;
};

/* Rows: id, timeout; a USE row's offset is that of its struct cli_gpu.
 * The command sets timeout_ns to CLI_DEFAULT_TIMEOUT_NS before the parse. */
extern const struct gm_optgroup cli_gpu_group;

/* nvidia-smi's repeat and output flags, query's and -q's: -l/--loop SEC,
 * -lms/--loop-ms MS (both into loop_ns), -f/--filename FILE. */
struct cli_smi {
    int64_t loop_ns; /* 0: once */
    const char *file;
};

/* Rows: loop, loop-ms, filename; a USE row's offset is that of its
 * struct cli_smi. */
extern const struct gm_optgroup cli_smi_group;

/* The GM_OPT_FN of --until: a point in time (cli_parse_time) into the
 * int64_t at dst; "invalid --NAME 'v' (YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM])". */
int cli_opt_time(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err);

/* What a command's run does first: parses argv by cmd into opts.  Prints
 * the help on stdout and returns GM_EXIT_OK for --help, prints a usage
 * error and returns GM_EXIT_USAGE for a bad command line, else returns
 * CLI_OPTS_GO (first: as gm_opt_parse). */
#define CLI_OPTS_GO (-1)
int cli_opts(const struct gm_optcmd *cmd, int argc, char **argv, void *opts, int *first);

/* Prints cmd's help to stdout. */
void cli_opts_help(const struct gm_optcmd *cmd);

#endif /* GM_CLI_OPTGROUPS_H */

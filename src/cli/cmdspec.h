/* cmdspec.h -- a command's interface as data, from its option table or its --help.
 *
 * A command with an option table (struct gm_cmd's opts, opt.h) has its
 * flags, their arguments' names and texts, its subcommands and operands
 * read from the table.  For a command not converted yet, this module runs
 * its --help (in a child process, stdout captured) and reads: the synopsis
 * (the "usage:" lines), the subcommands they name, and every flag, with
 * its argument's name and what kind of value that is.  Shell completions
 * (cmd_completion.c) and the manual pages (cmd_manpage.c) are generated
 * from the result, so that a command added to the table in main.c, or a
 * flag added to a table or usage text, appears in both without another
 * edit.  The contract this puts on tables and usage texts is
 * docs/completion.md's.
 *
 * What it leaves out: flags a command without a table accepts but does not
 * print in its --help are unknown here (they are undocumented anyway).
 */
#ifndef GM_CLI_CMDSPEC_H
#define GM_CLI_CMDSPEC_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* What a flag's argument is, from its name in the usage text. */
enum cli_arg {
    CLI_ARG_NONE = 0,   /* the flag takes no argument */
    CLI_ARG_TEXT,       /* anything (N, T, NAME, TIME, ...): nothing to complete */
    CLI_ARG_FILE,       /* FILE, F, PATH, SCENARIO */
    CLI_ARG_DIR,        /* DIR */
    CLI_ARG_GPU_FIELDS, /* FIELDS: nvidia-smi GPU field names, comma-separated */
    CLI_ARG_APP_FIELDS, /* FIELDS of --query-compute-apps: process field names */
    CLI_ARG_DURATION,   /* SEC, MS, DUR, DURATION */
    CLI_ARG_GPU_IDS,    /* IDS, or LIST of --id: GPU indices, UUIDs or PCI bus ids */
    CLI_ARG_ENUM,       /* a|b|c, or csv[,noheader][,nounits]: the values are listed */
    CLI_ARG_LIST,       /* FIELDS of another --query-* family: a comma list of vals */
};

struct cli_flag {
    char *name;  /* "--json", "-i", "-lms" */
    char *meta;  /* the argument's name as the help writes it, NULL for none */
    int arg;     /* enum cli_arg */
    char **vals; /* CLI_ARG_ENUM, CLI_ARG_LIST: the values, NULL-terminated; else NULL */
    char *help;  /* what it does, the lines joined; NULL when only the synopsis names it */
    int group;   /* flags written on one line of the help share a group number */
    int listed;  /* 1 when an option line of the help lists it, 0 for the synopsis only */
};

struct cli_spec {
    char *name;    /* "status"; "gpumon" for the program's own options */
    char *summary; /* the command table's one line */
    char *text;    /* the whole --help output */
    char *prose;   /* the text without the usage lines and the option lines */
    struct cli_flag *flags;
    size_t nflags;
    char *subs[16]; /* subcommands the usage lines name ("check", "show") */
    size_t nsubs;
    int pos_file; /* operands are files: [FILE] in the synopsis, or a FILE... flag */
    int pos_cmd;  /* "-- CMD [ARGS]..." in the synopsis: the words after -- are a command */
};

/* Reads cmd's interface from its option table, else from `gpumon CMD --help`,
 * run in a child process with stdout captured.  Returns 0, or GM_EXIT_FAIL when the help could not
 * be captured or the command did not exit 0 (the message is printed). */
int cli_spec_read(const struct gm_cmd *cmd, struct cli_spec *sp);

/* The same for `gpumon --help` (the global options); name "gpumon". */
int cli_spec_read_main(struct cli_spec *sp);

/* Parses a help text (what cli_spec_read does after capturing it); exposed
 * for tests.  Takes a copy of text. */
void cli_spec_parse(struct cli_spec *sp, const char *name, const char *summary, const char *text);

/* The same from a command's option table (opt.h), for the commands that
 * have one: the help rendered from it, the flags of its rows (those with a
 * help text first, in its order, then the others), its subcommands and
 * operands.  The result is what cli_spec_parse makes of the rendered help,
 * plus the flags the table has and the help does not print. */
struct gm_optcmd;
void cli_spec_from_table(struct cli_spec *sp, const char *name, const char *summary,
                         const struct gm_optcmd *t);

void cli_spec_free(struct cli_spec *sp);

/* The command table of main.c, in its order. */
const struct gm_cmd *const *cli_commands(size_t *n);

/* Prints `gpumon --help` to f. */
void cli_main_usage(FILE *f);

#endif /* GM_CLI_CMDSPEC_H */

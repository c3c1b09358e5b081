/* cmdspec.h -- a command's interface as data, from its option table.
 *
 * Every command has an option table (struct gm_cmd's opts, opt.h), and so
 * has gpumon itself (main.c's global options): its flags, their arguments'
 * names and texts, its subcommands and operands are read from the table.
 * Shell completions (cmd_completion.c) and the manual pages
 * (cmd_manpage.c) are generated from the result, so that a command added
 * to the table in main.c, or a row added to a table, appears in both
 * without another edit.  The contract this puts on tables is
 * docs/completion.md's.
 *
 * cli_spec_parse() reads a --help text into the same form; the tests hold
 * the help a table renders to the table with it.
 *
 * What it leaves out: rows marked GM_OPT_HIDDEN (parsed, never offered).
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

/* Reads cmd's interface from its option table.  Returns 0, or
 * GM_EXIT_FAIL (the message printed) for a command without one. */
int cli_spec_read(const struct gm_cmd *cmd, struct cli_spec *sp);

/* The same for gpumon's global options (main.c's table); name "gpumon". */
int cli_spec_read_main(struct cli_spec *sp);

/* Parses a help text as a person reads it; for the tests, which hold a
 * table's rendered help to the table.  Takes a copy of text. */
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

/* gpumon's global options (main.c). */
const struct gm_optcmd *cli_main_opts(void);

#endif /* GM_CLI_CMDSPEC_H */

/* opt.h -- a command's options as one table: parsing and --help.
 *
 * Each command declares its flags once, as rows of struct gm_opt in a
 * struct gm_optcmd (tmux's cmd_entry, git's parse-options): the long name,
 * the short letter, the argument's name (FILE, DIR, SEC, FIELDS, a|b|c),
 * the help text, the kind of value and where it goes (an offset into the
 * command's options struct, or a function).  gm_opt_parse() parses argv
 * with it (getopt_long underneath, so flags mix with operands, short flags
 * cluster and long ones take "=VALUE" or the next word), gm_opt_help()
 * renders the option lines of --help from it, and cmdspec.c reads it for
 * the completions and manual pages.
 *
 * Flags that several commands share (the history source, cli/optgroups.h)
 * are declared once in a struct gm_optgroup; a command takes a row from it
 * with a GM_OPT_USE row, which gives the row's place in the help and, where
 * the command words it its own way, the help text, or all of its rows with
 * a GM_OPT_GROUP row.  A group may be made from another table at its first
 * use (the agent's flags, one per key of the configuration table).
 *
 * What it leaves out: it never prints and never exits (cli/ does both);
 * the words of --help around the option lines (synopsis, prose, exit
 * status) are the command's own text, kept verbatim in the table.
 */
#ifndef GM_CLI_OPT_H
#define GM_CLI_OPT_H

#include <stddef.h>

#include "../core/buf.h"
#include "../core/err.h"

enum gm_opt_kind {
    GM_OPT_END = 0, /* ends a table */
    GM_OPT_SET,     /* no argument: stores .val in the int at .off */
    GM_OPT_STR,     /* stores the argument (borrowed from argv) in the const char * at .off */
    GM_OPT_CHOICE,  /* the argument is one of .arg's "a|b|c": its index into the int at .off */
    GM_OPT_FN,      /* .fn parses the argument into .off */
    GM_OPT_HELP,    /* no argument: the parse ends and asks for the help */
    GM_OPT_USE,     /* the row .use (or .name) of .group, its value at .off + the row's offset */
    GM_OPT_GROUP,   /* every row of .group here, each one's value at .off + its offset, with
                     * this row's flags added (GM_OPT_HIDDEN: mark's configuration keys) */
    GM_OPT_STOP,    /* no argument taken: the parse ends before this flag, *first at its word,
                     * its .val stored at .off, for the caller to hand on (main.c's nvidia-smi
                     * forms; an in_order table, parsed with first); .arg is shown */
    GM_OPT_REFUSE,  /* hidden: the parse fails with "-x: .help" (mig's -cgi, a write) */
};

/* Row flags. */
#define GM_OPT_JOIN 1u   /* shown on the line of the row before ("--from, --to TIME") */
#define GM_OPT_MANY 2u   /* the operands after the options are more values of it (--csv FILE...) */
#define GM_OPT_HIDDEN 8u /* parsed, but in no help, completion or page (pmon's --gpm-metrics) */
#define GM_OPT_NOSHORT                                                                             \
    16u /* GM_OPT_USE: without the group's short letter (status's -i is not --id) */
#define GM_OPT_NOHELP 4u /* GM_OPT_USE: no option line, whatever help the group's row has */
#define GM_OPT_OPTARG                                                                              \
    32u /* no argument, or one as "--name=VALUE" only (the agent's --procs=false) */
#define GM_OPT_WIDE                                                                                \
    64u /* a left column as wide as the text's column or wider: the text after one blank */

struct gm_opt;

/* Parses v for the row o into dst (the options struct plus the row's
 * offset).  Returns 0, or -1 with the message in err ("invalid --since
 * 'x' (...)"). */
typedef int (*gm_opt_fn)(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err);

struct gm_opt {
    enum gm_opt_kind kind;
    int letter;        /* short name; 0 for none */
    int val;           /* GM_OPT_SET: the value stored; GM_OPT_FN: the row's own, for fn */
    int col;           /* this row's text column; 0: the command's */
    unsigned flags;    /* GM_OPT_JOIN, GM_OPT_MANY, ... */
    const char *name;  /* long name without "--"; NULL for none */
    const char *arg;   /* the argument's name: FILE, DIR, SEC, a|b|c, ...; NULL: takes none */
    const char *help;  /* the help text, lines split by '\n'; "": an option line without one;
                        * NULL: the synopsis names it only
                        * (GM_OPT_USE: NULL takes the group's) */
    size_t off;        /* where the value goes, in the options struct */
    gm_opt_fn fn;      /* GM_OPT_FN */
    const char *hint;  /* GM_OPT_CHOICE: the "(...)" of the error; NULL: the choices */
    const char *label; /* the help's left column when it is not "--name ARG", short
                        * flags included: a row with a label opens no column for them */
    const char *alias; /* another spelling in place of the short letter ("-lms"): shown in
                        * the help before the long name, read as --name */
    const struct gm_optgroup *group; /* GM_OPT_USE: the group */
    const char *use;                 /* GM_OPT_USE: the group's row, when .name renames it */
};

/* Flags shared by several commands, declared once: rows whose offsets are
 * into the group's own struct. */
struct gm_optgroup {
    const char *name;          /* "history source" */
    const struct gm_opt *opts; /* ended by GM_OPT_END; NULL: made by gen */
    /* the rows made from another table: the same rows at every call (made at
     * the first; not thread-safe: the CLI's one thread), ended by
     * GM_OPT_END, living for the process */
    const struct gm_opt *(*gen)(void);
};

/* How the parse words "needs a value": "option --x needs a value" as
 * getopt's commands always did, or "--x needs a value". */
enum { GM_OPT_MSG_OPTION = 0, GM_OPT_MSG_BARE = 1 };

struct gm_optcmd {
    const char *name;         /* "report": the help's "Try 'gpumon report --help'." */
    const char *head;         /* the help before the option lines (synopsis, prose), verbatim */
    const char *tail;         /* the help after them, verbatim; NULL for none */
    int col;                  /* the column of the option lines' text */
    int msg;                  /* GM_OPT_MSG_* */
    const char *unknown_hint; /* after "unknown option -x": " (topo has only -m ...)" */
    int eq;                   /* the help writes "--name=ARG" (nvidia-smi's query) */
    int short_col;    /* the short flags' column is there though no row has one (the agent's) */
    int in_order;     /* the flags end at the first operand (the words after it are a command's) */
    int stop_unknown; /* with in_order: an unknown flag ends them too, as a GM_OPT_STOP does */
    const struct gm_opt *opts; /* ended by GM_OPT_END */
    /* For the completions and manual pages (cmdspec.h): */
    const char *subs;            /* subcommands the synopsis names, "check|show"; NULL: none */
    const struct gm_optcmd *sub; /* the flags of a subcommand ("alerts test"); NULL: none */
    int operands;                /* GM_OPT_OPERANDS_*: what the words after the flags are */
};

/* What a command's operands are, for the completions. */
enum { GM_OPT_OPERANDS_NONE = 0, GM_OPT_OPERANDS_FILE, GM_OPT_OPERANDS_CMD };

/* A row as the parse uses it: a GM_OPT_USE row resolved into the group's
 * row, with the name, help and label of the USE row where it gives them
 * and the offset of both. */
struct gm_opt_row {
    struct gm_opt o;
    const struct gm_opt *decl; /* the row in the table (the USE row itself) */
};

/* Row i of cmd resolved (GM_OPT_USE into its group's row, the rows of a
 * GM_OPT_GROUP counted one by one in its place); returns 0, or -1 past the
 * end or when a USE row names no row of its group. */
int gm_opt_resolve(const struct gm_optcmd *cmd, size_t i, struct gm_opt_row *r);

/* Results of gm_opt_parse. */
#define GM_OPT_OK 0
#define GM_OPT_WANT_HELP 1
#define GM_OPT_BAD (-1)

/* Parses argv[1..argc-1] (argv[0] names the command) into opts by cmd's
 * rows.  Returns GM_OPT_OK when all were parsed (*first: the first
 * operand left, argc when none; an operand that no GM_OPT_MANY row takes
 * is an error unless first is not NULL; a GM_OPT_STOP row, or an unknown
 * flag with stop_unknown, ends the parse there too, *first at its word),
 * GM_OPT_WANT_HELP when a GM_OPT_HELP row was given (the rest is not
 * parsed), or GM_OPT_BAD with the message in err: "unknown option --x",
 * "option --x needs a value", "unexpected argument 'x'", what a
 * GM_OPT_REFUSE row says, or what a row's function said.  The messages
 * quote argv as it is: the caller escapes them (cli_opts). */
int gm_opt_parse(const struct gm_optcmd *cmd, int argc, char **argv, void *opts, int *first,
                 struct gm_err *err);

/* Appends cmd's --help to out: the head, an option line (and its
 * continuation lines) for each row with a help text, the tail. */
void gm_opt_help(const struct gm_optcmd *cmd, struct gm_buf *out);

#endif /* GM_CLI_OPT_H */

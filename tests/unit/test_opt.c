/* test_opt.c -- unit tests for the option tables (src/cli/opt.c).
 *
 * Table-driven: each row is a command line, the parse's result, and the
 * options it must leave (or the exact message of its error): long and short
 * flags, "=value" and a separate value, a clustered short value, a missing
 * argument, unknown flags, choices, repeats, a flag taking the operands
 * after it, rows taken from a shared group, "--" and operands.  Then the
 * --help rendered from a table, byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

struct grp {
    const char *dir;
    int flag;
};

struct t_opts {
    int json, fmt, n;
    const char *out;
    const char *many[8];
    size_t nmany;
    struct grp g;
};

static int parse_n(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 99)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (0 to 99)", o->name, v);
    *(int *)dst = (int)n;
    return 0;
}

static int add_many(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct t_opts *t = (struct t_opts *)((char *)dst - offsetof(struct t_opts, many));
    if (t->nmany == N_ELEM(t->many))
        return gm_err_set(err, GM_E_INVAL, "too many --%s", o->name);
    t->many[t->nmany++] = v;
    return 0;
}

static const struct gm_opt group_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "data-dir",
     .letter = 'D',
     .arg = "DIR",
     .help = "the group's text",
     .off = offsetof(struct grp, dir)},
    {.kind = GM_OPT_SET, .name = "gflag", .val = 7, .off = offsetof(struct grp, flag)},
    {0},
};
static const struct gm_optgroup group = {.name = "test group", .opts = group_rows};

static const struct gm_opt rows[] = {
    {.kind = GM_OPT_STR,
     .name = "output",
     .letter = 'o',
     .arg = "FILE",
     .help = "the file to write",
     .off = offsetof(struct t_opts, out)},
    {.kind = GM_OPT_SET,
     .name = "json",
     .val = 1,
     .help = "JSON instead of text",
     .off = offsetof(struct t_opts, json)},
    {.kind = GM_OPT_CHOICE,
     .name = "format",
     .arg = "table|csv|json",
     .help = "the output format;\nthe second line",
     .off = offsetof(struct t_opts, fmt)},
    {.kind = GM_OPT_FN,
     .name = "n",
     .alias = "-nn",
     .arg = "N",
     .fn = parse_n,
     .help = "a number",
     .off = offsetof(struct t_opts, n)},
    {.kind = GM_OPT_FN,
     .name = "add",
     .arg = "FILE...",
     .fn = add_many,
     .flags = GM_OPT_MANY,
     .help = "these files",
     .off = offsetof(struct t_opts, many)},
    {.kind = GM_OPT_USE,
     .group = &group,
     .name = "data-dir",
     .help = "our own words",
     .flags = GM_OPT_NOSHORT,
     .off = offsetof(struct t_opts, g)},
    {.kind = GM_OPT_USE,
     .group = &group,
     .name = "dir",
     .use = "data-dir",
     .flags = GM_OPT_JOIN | GM_OPT_NOSHORT,
     .off = offsetof(struct t_opts, g)},
    {.kind = GM_OPT_USE, .group = &group, .name = "gflag", .off = offsetof(struct t_opts, g)},
    {.kind = GM_OPT_CHOICE,
     .name = "very-long-flag-name",
     .arg = "a|b",
     .hint = "a or b, nothing else",
     .help = "on a line of its own",
     .off = offsetof(struct t_opts, fmt)},
    {.kind = GM_OPT_STR,
     .name = "width-23-xy",
     .arg = "IDS",
     .help = "as wide as the column:\ntwo blanks",
     .off = offsetof(struct t_opts, out)},
    {.kind = GM_OPT_SET,
     .name = "secret",
     .val = 5,
     .flags = GM_OPT_HIDDEN,
     .help = "never shown",
     .off = offsetof(struct t_opts, n)},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd cmd = {
    .name = "t",
    .head = "usage: gpumon t [OPTIONS]\n\nA test.\n\n",
    .tail = "\nExit status: 0.\n",
    .col = 23,
    .opts = rows,
};
static const struct gm_optcmd cmd_order = {
    .name = "t", .head = "", .col = 10, .in_order = 1, .opts = rows};
static const struct gm_optcmd cmd_bare = {
    .name = "t", .head = "", .col = 10, .msg = GM_OPT_MSG_BARE, .opts = rows};

#define MAXA 8
struct pcase {
    const char *why;
    const char *args[MAXA]; /* after argv[0] */
    int bare;               /* 1: cmd_bare instead of cmd; 2: cmd_order */
    int want_first;         /* operands allowed: *first is checked against first */
    int rc;
    const char *err; /* GM_OPT_BAD: the message */
    int json, fmt, n, first, gflag;
    const char *out, *dir;
    const char *many[4];
};

static const struct pcase cases[] = {
    {.why = "nothing", .args = {NULL}, .bare = 0, .want_first = 0, .rc = GM_OPT_OK},
    {.why = "a flag", .args = {"--json"}, .bare = 0, .want_first = 0, .rc = GM_OPT_OK, .json = 1},
    {.why = "long, separate value",
     .args = {"--output", "f"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "f"},
    {.why = "long, =value",
     .args = {"--output=f"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "f"},
    {.why = "long, =empty value",
     .args = {"--output="},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = ""},
    {.why = "short, separate value",
     .args = {"-o", "f"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "f"},
    {.why = "short, value attached",
     .args = {"-of"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "f"},
    {.why = "a value that looks like a flag",
     .args = {"-o", "--json"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "--json"},
    {.why = "a prefix of a long name",
     .args = {"--out=f"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "f"},
    {.why = "a choice",
     .args = {"--format", "csv"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .fmt = 1},
    {.why = "the last choice",
     .args = {"--format=json"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .fmt = 2},
    {.why = "a choice that is not one",
     .args = {"--format", "xml"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "invalid --format 'xml' (table, csv or json)"},
    {.why = "a prefix of a choice is not one",
     .args = {"--format", "cs"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "invalid --format 'cs' (table, csv or json)"},
    {.why = "a choice with its own hint",
     .args = {"--very-long-flag-name", "c"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "invalid --very-long-flag-name 'c' (a or b, nothing else)"},
    {.why = "a function",
     .args = {"--n", "42"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .n = 42},
    {.why = "a function's error",
     .args = {"--n", "x"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "invalid --n 'x' (0 to 99)"},
    {.why = "missing argument, long",
     .args = {"--json", "--output"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "option --output needs a value",
     .json = 1},
    {.why = "missing argument, short",
     .args = {"-o"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "option -o needs a value"},
    {.why = "missing argument, bare style",
     .args = {"--output"},
     .bare = 1,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "--output needs a value"},
    {.why = "unknown long",
     .args = {"--bogus"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "unknown option --bogus"},
    {.why = "unknown long with a value",
     .args = {"--bogus=1"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "unknown option --bogus=1"},
    {.why = "unknown short",
     .args = {"-x"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "unknown option -x"},
    {.why = "an unknown letter in a cluster is named, not the word before",
     .args = {"--json", "-xo", "f"},
     .rc = GM_OPT_BAD,
     .err = "unknown option -x",
     .json = 1},
    {.why = "a value to a flag that takes none",
     .args = {"--json=1"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "unknown option --json=1"},
    {.why = "repeats: the last wins",
     .args = {"-o", "a", "--output=b"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .out = "b"},
    {.why = "repeats of a list",
     .args = {"--add", "a", "--json", "--add=b"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .json = 1,
     .many = {"a", "b"}},
    {.why = "a list takes the operands",
     .args = {"--add", "a", "b", "--json", "c"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .json = 1,
     .many = {"a", "b", "c"}},
    {.why = "an operand",
     .args = {"--json", "x"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "unexpected argument 'x'",
     .json = 1},
    {.why = "operands allowed",
     .args = {"x", "--json", "y"},
     .bare = 0,
     .want_first = 1,
     .rc = GM_OPT_OK,
     .json = 1,
     .first = 2},
    {.why = "-- ends the flags",
     .args = {"--json", "--", "--output"},
     .bare = 0,
     .want_first = 1,
     .rc = GM_OPT_OK,
     .json = 1,
     .first = 3},
    {.why = "-- then a flag is an operand",
     .args = {"--", "--json"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_BAD,
     .err = "unexpected argument '--json'"},
    {.why = "help stops the parse",
     .args = {"--json", "-h", "--bogus"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_WANT_HELP,
     .json = 1},
    {.why = "help, long", .args = {"--help"}, .bare = 0, .want_first = 0, .rc = GM_OPT_WANT_HELP},
    {.why = "a group's row",
     .args = {"--data-dir", "d"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .dir = "d"},
    {.why = "a group's row renamed",
     .args = {"--dir=e"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .dir = "e"},
    {.why = "a group's letter left out",
     .args = {"-D", "x"},
     .rc = GM_OPT_BAD,
     .err = "unknown option -D"},
    {.why = "an alias", .args = {"-nn", "7"}, .rc = GM_OPT_OK, .n = 7},
    {.why = "an alias with =value", .args = {"-nn=8"}, .rc = GM_OPT_OK, .n = 8},
    {.why = "a longer word is not the alias",
     .args = {"-nnx"},
     .rc = GM_OPT_BAD,
     .err = "unknown option -n"},
    {.why = "a hidden row is parsed", .args = {"--secret"}, .rc = GM_OPT_OK, .n = 5},
    {.why = "a group's row as it is",
     .args = {"--gflag"},
     .bare = 0,
     .want_first = 0,
     .rc = GM_OPT_OK,
     .gflag = 7},
    {.why = "in order: the flags end at the first operand",
     .args = {"--json", "cmd", "-o", "x"},
     .bare = 2,
     .want_first = 1,
     .rc = GM_OPT_OK,
     .json = 1,
     .first = 2},
    {.why = "in order: -- before the command",
     .args = {"-o", "x", "--", "cmd", "--json"},
     .bare = 2,
     .want_first = 1,
     .rc = GM_OPT_OK,
     .out = "x",
     .first = 4},
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        const struct pcase *c = &cases[i];
        char *argv[MAXA + 2];
        int argc = 0;
        argv[argc++] = (char *)"t";
        for (size_t k = 0; k < MAXA && c->args[k]; k++)
            argv[argc++] = (char *)c->args[k];
        argv[argc] = NULL;
        struct t_opts t;
        memset(&t, 0, sizeof t);
        struct gm_err err = {0};
        int first = -1;
        int rc = gm_opt_parse(c->bare == 2 ? &cmd_order
                              : c->bare    ? &cmd_bare
                                           : &cmd,
                              argc, argv, &t, c->want_first ? &first : NULL, &err);
        print_message("case: %s\n", c->why);
        assert_int_equal(rc, c->rc);
        if (c->rc == GM_OPT_BAD)
            assert_string_equal(err.msg, c->err);
        if (c->want_first)
            assert_int_equal(first, c->first);
        assert_int_equal(t.json, c->json);
        assert_int_equal(t.fmt, c->fmt);
        assert_int_equal(t.n, c->n);
        assert_int_equal(t.g.flag, c->gflag);
        if (c->out)
            assert_string_equal(t.out, c->out);
        else
            assert_null(t.out);
        if (c->dir)
            assert_string_equal(t.g.dir, c->dir);
        else
            assert_null(t.g.dir);
        size_t nm = 0;
        while (nm < N_ELEM(c->many) && c->many[nm])
            nm++;
        assert_int_equal(t.nmany, nm);
        for (size_t k = 0; k < nm; k++)
            assert_string_equal(t.many[k], c->many[k]);
    }
}

/* A parse after one that stopped inside a cluster of short flags starts
 * afresh (getopt keeps its place in "-ho" otherwise). */
static void test_parse_again(void **state)
{
    (void)state;
    char *a1[] = {(char *)"t", (char *)"-ho", (char *)"x", NULL};
    char *a2[] = {(char *)"t", (char *)"-o", (char *)"y", NULL};
    struct t_opts t;
    memset(&t, 0, sizeof t);
    assert_int_equal(gm_opt_parse(&cmd, 3, a1, &t, NULL, NULL), GM_OPT_WANT_HELP);
    assert_int_equal(gm_opt_parse(&cmd, 3, a2, &t, NULL, NULL), GM_OPT_OK);
    assert_string_equal(t.out, "y");
}

/* A USE row that names no row of its group is an error, not a crash. */
static void test_bad_table(void **state)
{
    (void)state;
    static const struct gm_opt bad_rows[] = {
        {.kind = GM_OPT_USE, .group = &group, .name = "nope"},
        {0},
    };
    static const struct gm_optcmd bad = {.name = "bad", .head = "", .opts = bad_rows};
    char *argv[] = {(char *)"bad", NULL};
    struct t_opts t;
    struct gm_err err = {0};
    assert_int_equal(gm_opt_parse(&bad, 1, argv, &t, NULL, &err), GM_OPT_BAD);
    assert_string_equal(err.msg, "option table of bad: row 0 names no row");
}

/* ------------------------------------------------ groups, stops, refusals */

/* What the agent's and main.c's tables need: a group made at its first use
 * and taken whole (GM_OPT_GROUP, hidden or not), an optional "=VALUE"
 * (GM_OPT_OPTARG), a flag that ends the parse for the caller (GM_OPT_STOP,
 * stop_unknown), a refused flag (GM_OPT_REFUSE). */
struct k_opts {
    int stop;
    const char *keys[8], *vals[8];
    size_t nkeys;
    struct grp g;
};

static int k_key(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct k_opts *k = dst;
    (void)err;
    if (k->nkeys < N_ELEM(k->keys)) {
        k->keys[k->nkeys] = o->name;
        k->vals[k->nkeys++] = o->val ? "false" : v ? v : "true";
    }
    return 0;
}

static const struct gm_opt *gen_rows(void)
{
    static const struct gm_opt made[] = {
        {.kind = GM_OPT_FN, .name = "level", .arg = "N", .fn = k_key, .help = "a level [1]"},
        {.kind = GM_OPT_FN,
         .name = "procs",
         .fn = k_key,
         .flags = GM_OPT_OPTARG,
         .help = "a bool with a long text beside a wide flag"},
        {.kind = GM_OPT_FN, .name = "no-procs", .val = 1, .fn = k_key, .flags = GM_OPT_JOIN},
        {0},
    };
    return made;
}
static const struct gm_optgroup gen_group = {.name = "made", .gen = gen_rows};

static const struct gm_opt k_rows[] = {
    {.kind = GM_OPT_USE,
     .group = &group,
     .name = "data-dir",
     .flags = GM_OPT_NOSHORT,
     .off = offsetof(struct k_opts, g)},
    {.kind = GM_OPT_STOP,
     .name = "version",
     .val = 2,
     .off = offsetof(struct k_opts, stop),
     .help = "stops"},
    {.kind = GM_OPT_STOP,
     .letter = 'i',
     .arg = "IDS",
     .val = 3,
     .off = offsetof(struct k_opts, stop),
     .label = "-i IDS, -l SEC",
     .help = "a label as wide as the column"},
    {.kind = GM_OPT_STOP,
     .letter = 'l',
     .arg = "SEC",
     .val = 3,
     .flags = GM_OPT_JOIN,
     .off = offsetof(struct k_opts, stop)},
    {.kind = GM_OPT_REFUSE,
     .name = "create-thing",
     .alias = "-ct",
     .help = "a write; this tool only reads"},
    {.kind = GM_OPT_HELP, .letter = 'h', .name = "help", .label = "-h, --help", .help = "help"},
    {.kind = GM_OPT_GROUP, .group = &gen_group, .flags = GM_OPT_WIDE},
    {0},
};

static const struct gm_optcmd k_cmd = {.name = "k",
                                       .head = "usage: k\n",
                                       .col = 16,
                                       .msg = GM_OPT_MSG_BARE,
                                       .in_order = 1,
                                       .stop_unknown = 1,
                                       .opts = k_rows};

struct kcase {
    const char *why;
    const char *args[MAXA];
    int rc, first, stop;
    const char *err;
    const char *keys; /* "key=value,..." in their order */
};

static const struct kcase kcases[] = {
    {"a generated row", {"--level", "3"}, GM_OPT_OK, 3, 0, NULL, "level=3"},
    {"a bool alone, =VALUE, its no- row",
     {"--procs", "--procs=false", "--no-procs"},
     GM_OPT_OK,
     4,
     0,
     NULL,
     "procs=true,procs=false,no-procs=false"},
    {"--no-X=V is no row: it stops", {"--no-procs=x"}, GM_OPT_OK, 1, 0, NULL, ""},
    {"a generated row's missing value", {"--level"}, GM_OPT_BAD, 0, 0, "--level needs a value", ""},
    {"a stop row: its value, its word",
     {"--level", "1", "--version", "--level", "2"},
     GM_OPT_OK,
     3,
     2,
     NULL,
     "level=1"},
    {"a short stop row takes no value", {"-i", "0"}, GM_OPT_OK, 1, 3, NULL, ""},
    {"-lms: the cluster's word", {"--procs", "-lms", "500"}, GM_OPT_OK, 2, 3, NULL, "procs=true"},
    {"an unknown flag stops", {"--query-gpu=x", "--level", "1"}, GM_OPT_OK, 1, 0, NULL, ""},
    {"an operand stops", {"status", "--level", "1"}, GM_OPT_OK, 1, 0, NULL, ""},
    {"a refused alias", {"-ct", "9"}, GM_OPT_BAD, 0, 0, "-ct: a write; this tool only reads", ""},
    {"a refused long name",
     {"--create-thing"},
     GM_OPT_BAD,
     0,
     0,
     "-ct: a write; this tool only reads",
     ""},
    {"a row of a static group", {"--data-dir", "d"}, GM_OPT_OK, 3, 0, NULL, ""},
};

static void test_groups_stops(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(kcases); i++) {
        const struct kcase *c = &kcases[i];
        char *argv[MAXA + 2];
        int argc = 0;
        argv[argc++] = (char *)"k";
        for (size_t j = 0; j < MAXA && c->args[j]; j++)
            argv[argc++] = (char *)c->args[j];
        argv[argc] = NULL;
        struct k_opts k;
        memset(&k, 0, sizeof k);
        struct gm_err err = {0};
        int first = -1;
        print_message("case: %s\n", c->why);
        int rc = gm_opt_parse(&k_cmd, argc, argv, &k, &first, &err);
        assert_int_equal(rc, c->rc);
        if (rc == GM_OPT_BAD) {
            assert_string_equal(err.msg, c->err);
            continue;
        }
        assert_int_equal(first, c->first);
        assert_int_equal(k.stop, c->stop);
        char got[256] = "";
        for (size_t j = 0; j < k.nkeys; j++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s=%s", j ? "," : "",
                     k.keys[j], k.vals[j]);
        assert_string_equal(got, c->keys);
        if (strcmp(c->why, "a row of a static group") == 0)
            assert_string_equal(k.g.dir, "d");
    }
}

/* The help of such a table: labels open no column for short flags, the
 * group's rows in its place, a refused row nowhere, GM_OPT_WIDE's text
 * after one blank. */
static void test_help_groups(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(&k_cmd, &b);
    assert_string_equal(b.p, "usage: k\n"
                             "  --data-dir DIR  the group's text\n"
                             "  --version     stops\n"
                             "  -i IDS, -l SEC  a label as wide as the column\n"
                             "  -h, --help    help\n"
                             "  --level N     a level [1]\n"
                             "  --procs, --no-procs a bool with a long text beside a wide flag\n");
    gm_buf_free(&b);
}

static void test_help(void **state)
{
    (void)state;
    static const char want[] = "usage: gpumon t [OPTIONS]\n\nA test.\n\n"
                               "  -o, --output FILE    the file to write\n"
                               "      --json           JSON instead of text\n"
                               "      --format table|csv|json\n"
                               "                       the output format;\n"
                               "                       the second line\n"
                               "  -nn, --n N           a number\n"
                               "      --add FILE...    these files\n"
                               "      --data-dir, --dir DIR\n"
                               "                       our own words\n"
                               "      --very-long-flag-name a|b\n"
                               "                       on a line of its own\n"
                               "      --width-23-xy IDS  as wide as the column:\n"
                               "                       two blanks\n"
                               "  -h, --help           this help\n"
                               "\nExit status: 0.\n";
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(&cmd, &b);
    assert_string_equal(b.p, want);
    gm_buf_free(&b);
}

/* Without a short flag among the lines, no column is kept for one; a flag
 * one narrower than the column takes one blank, one as wide two. */
static void test_help_no_shorts(void **state)
{
    (void)state;
    static const struct gm_opt r[] = {
        {.kind = GM_OPT_STR, .name = "since", .arg = "DURATION", .help = "the last DURATION"},
        {.kind = GM_OPT_STR,
         .name = "from",
         .arg = "TIME",
         .label = "--from, --to TIME",
         .help = "times"},
        {.kind = GM_OPT_STR, .name = "to", .arg = "TIME"},
        {.kind = GM_OPT_HELP, .name = "help", .letter = 'h'},
        {0},
    };
    static const struct gm_optcmd c = {.name = "r", .head = "usage: r\n\n", .col = 19, .opts = r};
    static const char want[] = "usage: r\n\n"
                               "  --since DURATION the last DURATION\n"
                               "  --from, --to TIME  times\n";
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(&c, &b);
    assert_string_equal(b.p, want);
    gm_buf_free(&b);
}

/* nvidia-smi's layout: "--name=ARG", a line without a text, a spelling in
 * place of the short letter, a row with its own column. */
static void test_help_eq(void **state)
{
    (void)state;
    static const struct gm_opt r[] = {
        {.kind = GM_OPT_STR, .name = "query-gpu", .arg = "FIELDS", .help = "GPU fields"},
        {.kind = GM_OPT_STR, .name = "format", .arg = "csv[,noheader]", .help = ""},
        {.kind = GM_OPT_STR,
         .name = "loop-ms",
         .alias = "-lms",
         .arg = "MS",
         .help = "repeat every MS milliseconds"},
        {.kind = GM_OPT_SET,
         .name = "help-query-supported-clocks",
         .col = 39,
         .help = "list their fields"},
        {0},
    };
    static const struct gm_optcmd c = {
        .name = "q", .head = "usage: q\n\n", .col = 35, .eq = 1, .opts = r};
    static const char want[] = "usage: q\n\n"
                               "      --query-gpu=FIELDS           GPU fields\n"
                               "      --format=csv[,noheader]\n"
                               "  -lms, --loop-ms=MS               repeat every MS milliseconds\n"
                               "      --help-query-supported-clocks    list their fields\n";
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(&c, &b);
    assert_string_equal(b.p, want);
    gm_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),          cmocka_unit_test(test_parse_again),
        cmocka_unit_test(test_bad_table),      cmocka_unit_test(test_help),
        cmocka_unit_test(test_help_no_shorts), cmocka_unit_test(test_help_eq),
        cmocka_unit_test(test_groups_stops),   cmocka_unit_test(test_help_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

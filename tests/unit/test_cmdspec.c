/* test_cmdspec.c -- unit tests for reading a command's interface from its
 * help text (src/cli/cmdspec.c).
 *
 * Table-driven: each row is a help text in the layout of the cmd_*.c usage
 * functions and one flag it must yield (its argument's name, kind, values
 * and text, or that it is absent).  Then subcommands from the usage lines,
 * and the prose that the manual pages keep (no usage, no option lines).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli/cmdspec.h"
#include "cli/opt.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* what cmdspec.c links against in the binary (main.c, cli.c) */
void cli_error(const char *fmt, ...)
{
    (void)fmt;
}
const struct gm_cmd *const *cli_commands(size_t *n)
{
    *n = 0;
    return NULL;
}
void cli_main_usage(FILE *f)
{
    (void)f;
}
static const struct gm_opt no_rows[] = {{0}};
static const struct gm_optcmd no_opts = {.name = "gpumon", .head = "", .opts = no_rows};
const struct gm_optcmd *cli_main_opts(void)
{
    return &no_opts;
}

static const char STATUS[] =
    "usage: gpumon status [OPTIONS]\n\n"
    "One line per GPU.\n\n"
    "  -i, --interval SEC   refresh every SEC seconds (in place on a terminal)\n"
    "      --json           print the JSON document\n"
    "      --pcie           also read PCIe throughput for --json (costs ~40 ms per GPU\n"
    "                       on real hardware)\n"
    "      --color, --no-color\n"
    "                       force colours on or off\n"
    "  -h, --help           this help\n";

static const char REPORT[] =
    "usage: gpumon report [--since DURATION | --from TIME [--to TIME]] [--by hour|day]\n"
    "                     [--format table|csv|json]\n"
    "                     [--data-dir DIR | --store-path FILE] [--config FILE]\n\n"
    "Per GPU per hour.\n\n"
    "  --since DURATION   the last DURATION up to now (default 24h)\n";

static const char QUERY[] =
    "usage: gpumon query --query-gpu=FIELDS|--query-compute-apps=FIELDS --format=csv[,noheader]"
    "[,nounits] [OPTIONS]\n\n"
    "      --query-gpu=FIELDS           GPU fields\n"
    "      --query-compute-apps=FIELDS  compute process fields\n"
    "  -lms, --loop-ms=MS               repeat every MS milliseconds\n"
    "  -f, --filename=FILE              write to FILE\n";

static const char DMON[] = "usage: gpumon dmon [OPTIONS]\n\n"
                           "  -s, --select GROUPS  metric groups [default: puc]\n"
                           "                         p  power (W)\n"
                           "                         v  power violation and\n"
                           "                            thermal violation (0/1)\n"
                           "                         m  memory (MiB)\n"
                           "  -o, --options D|T|DT add the date and/or time\n"
                           "      --format csv[,noheader]\n"
                           "                       comma-separated values\n"
                           "  -i, --id LIST        only these GPUs\n\n"
                           "A value the GPU does not report is '-'.\n";

static const char ALERTS[] = "usage: gpumon alerts [--json] [--config FILE | --no-config]\n"
                             "       gpumon --sim SCENARIO alerts test [--from T] [--step 10s]\n\n"
                             "Alerts of the running agent; see --history.\n";

struct row {
    const char *name; /* the command */
    const char *text;
    const char *flag;
    int present;
    const char *meta; /* NULL: no argument */
    int arg;
    const char *vals; /* the values, joined by ' ' */
    const char *help; /* NULL: not checked */
};

static const struct row rows[] = {
    {"status", STATUS, "-i", 1, "SEC", CLI_ARG_DURATION, NULL,
     "refresh every SEC seconds (in place on a terminal)"},
    {"status", STATUS, "--interval", 1, "SEC", CLI_ARG_DURATION, NULL, NULL},
    {"status", STATUS, "--json", 1, NULL, CLI_ARG_NONE, NULL, "print the JSON document"},
    {"status", STATUS, "--pcie", 1, NULL, CLI_ARG_NONE, NULL,
     "also read PCIe throughput for --json (costs ~40 ms per GPU on real hardware)"},
    {"status", STATUS, "--no-color", 1, NULL, CLI_ARG_NONE, NULL, "force colours on or off"},
    {"status", STATUS, "--help", 1, NULL, CLI_ARG_NONE, NULL, "this help"},
    {"status", STATUS, "--ids", 0, NULL, 0, NULL, NULL},
    {"report", REPORT, "--by", 1, "hour|day", CLI_ARG_ENUM, "hour day", NULL},
    {"report", REPORT, "--format", 1, "table|csv|json", CLI_ARG_ENUM, "table csv json", NULL},
    {"report", REPORT, "--to", 1, "TIME", CLI_ARG_TEXT, NULL, NULL},
    {"report", REPORT, "--data-dir", 1, "DIR", CLI_ARG_DIR, NULL, NULL},
    {"report", REPORT, "--store-path", 1, "FILE", CLI_ARG_FILE, NULL, NULL},
    {"report", REPORT, "--since", 1, "DURATION", CLI_ARG_DURATION, NULL,
     "the last DURATION up to now (default 24h)"},
    {"query", QUERY, "--query-gpu", 1, "FIELDS", CLI_ARG_GPU_FIELDS, NULL, "GPU fields"},
    {"query", QUERY, "--query-compute-apps", 1, "FIELDS", CLI_ARG_APP_FIELDS, NULL, NULL},
    {"query", QUERY, "--format", 1, "csv[,noheader][,nounits]", CLI_ARG_ENUM,
     "csv csv,noheader csv,nounits csv,noheader,nounits", NULL},
    {"query", QUERY, "-lms", 1, "MS", CLI_ARG_DURATION, NULL, NULL},
    {"query", QUERY, "-f", 1, "FILE", CLI_ARG_FILE, NULL, "write to FILE"},
    {"dmon", DMON, "--select", 1, "GROUPS", CLI_ARG_TEXT, NULL,
     "metric groups [default: puc]\np  power (W)\nv  power violation and thermal violation "
     "(0/1)\nm  memory (MiB)"},
    {"dmon", DMON, "-o", 1, "D|T|DT", CLI_ARG_ENUM, "D T DT", "add the date and/or time"},
    {"dmon", DMON, "--format", 1, "csv[,noheader]", CLI_ARG_ENUM, "csv csv,noheader",
     "comma-separated values"},
    {"dmon", DMON, "--id", 1, "LIST", CLI_ARG_GPU_IDS, NULL, NULL},
    {"alerts", ALERTS, "--sim", 0, NULL, 0, NULL, NULL}, /* gpumon's, before the command */
    {"alerts", ALERTS, "--step", 1, "10s", CLI_ARG_DURATION, NULL, NULL},
    {"alerts", ALERTS, "--no-config", 1, NULL, CLI_ARG_NONE, NULL, NULL},
    {"alerts", ALERTS, "--history", 0, NULL, 0, NULL, NULL}, /* prose is not a synopsis */
};

static const struct cli_flag *find(const struct cli_spec *s, const char *name)
{
    for (size_t i = 0; i < s->nflags; i++)
        if (strcmp(s->flags[i].name, name) == 0)
            return &s->flags[i];
    return NULL;
}

static void test_flags(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        const struct row *r = &rows[i];
        struct cli_spec s;
        cli_spec_parse(&s, r->name, "", r->text);
        const struct cli_flag *f = find(&s, r->flag);
        printf("row %zu: %s %s\n", i, r->name, r->flag);
        if (!r->present) {
            assert_null(f);
            cli_spec_free(&s);
            continue;
        }
        assert_non_null(f);
        if (r->meta)
            assert_string_equal(f->meta, r->meta);
        else
            assert_null(f->meta);
        assert_int_equal(f->arg, r->arg);
        char vals[256] = "";
        for (char **v = f->vals; v && *v; v++) {
            strncat(vals, v == f->vals ? "" : " ", sizeof(vals) - strlen(vals) - 1);
            strncat(vals, *v, sizeof(vals) - strlen(vals) - 1);
        }
        assert_string_equal(vals, r->vals ? r->vals : "");
        if (r->help)
            assert_string_equal(f->help, r->help);
        cli_spec_free(&s);
    }
}

static void test_subcommands(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text, *subs;
    } cases[] = {
        {"config",
         "usage: gpumon config check [FILE]   report the first error\n"
         "       gpumon config show [--config FILE] [OPTIONS]   the effective settings\n"
         "       gpumon config --markdown     docs/config.md\n",
         "check show"},
        {"completion", "usage: gpumon completion bash|zsh|fish\n\n  -h, --help  this help\n",
         "bash zsh fish"},
        {"alerts", ALERTS, "test"},
        {"status", STATUS, ""},
        {"top", "usage: gpumon top [OPTIONS]\n\nSee gpumon top in a terminal.\n", ""},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct cli_spec s;
        cli_spec_parse(&s, cases[i].name, "", cases[i].text);
        char subs[128] = "";
        for (size_t k = 0; k < s.nsubs; k++) {
            strncat(subs, k ? " " : "", sizeof(subs) - strlen(subs) - 1);
            strncat(subs, s.subs[k], sizeof(subs) - strlen(subs) - 1);
        }
        printf("case %zu: %s\n", i, cases[i].name);
        assert_string_equal(subs, cases[i].subs);
        cli_spec_free(&s);
    }
}

static void test_prose(void **state)
{
    (void)state;
    struct cli_spec s;
    cli_spec_parse(&s, "dmon", "", DMON);
    assert_string_equal(s.prose, "\n\nA value the GPU does not report is '-'.\n");
    assert_int_equal(s.pos_file, 0);
    cli_spec_free(&s);
    cli_spec_parse(&s, "config", "", "usage: gpumon config check [FILE]   report the error\n");
    assert_int_equal(s.pos_file, 1);
    cli_spec_free(&s);
    cli_spec_parse(&s, "plot", "", "usage: gpumon plot --csv FILE... [-o FILE]\n");
    assert_int_equal(s.pos_file, 1);
    cli_spec_free(&s);
    cli_spec_parse(&s, "report", "", REPORT);
    assert_int_equal(s.pos_file, 0);
    assert_string_equal(s.prose, "\nPer GPU per hour.\n\n");
    /* the option line of REPORT (indent 2) is an option, in the help's order */
    assert_string_equal(s.flags[0].name, "--since");
    assert_int_equal(s.flags[0].listed, 1);
    assert_int_equal(s.flags[1].listed, 0);
    cli_spec_free(&s);
}

/* ------------------------------------------------------- option tables */

/* A table in the layout of the converted commands: short and long flags,
 * a line of two flags, choices, a list inside a text, FILE..., rows the
 * help does not print, a subcommand's table. */
static const struct gm_opt sub_rows[] = {
    {.kind = GM_OPT_STR, .name = "step", .arg = "DURATION"},
    {.kind = GM_OPT_SET, .name = "json"},
    {0},
};
static const struct gm_optcmd sub_cmd = {.name = "t", .head = "", .opts = sub_rows};

static const struct gm_opt t_rows[] = {
    {.kind = GM_OPT_STR, .name = "output", .letter = 'o', .arg = "FILE", .help = "write it here"},
    {.kind = GM_OPT_STR,
     .name = "from",
     .arg = "TIME",
     .help = "YYYY-MM-DD (local time);\n--until is --to"},
    {.kind = GM_OPT_STR, .name = "to", .arg = "TIME", .flags = GM_OPT_JOIN},
    {.kind = GM_OPT_STR,
     .name = "select",
     .letter = 's',
     .arg = "GROUPS",
     .help = "metric groups [default: pu]\n  p  power (W)\n  u  utilisation\n     and more"},
    {.kind = GM_OPT_CHOICE,
     .name = "fail-on",
     .arg = "warning|critical",
     .help = "exit 1 when a finding is at least this severe"},
    {.kind = GM_OPT_STR,
     .name = "csv",
     .arg = "FILE...",
     .flags = GM_OPT_MANY,
     .help = "from these files"},
    {.kind = GM_OPT_STR, .name = "until", .arg = "TIME"},
    {.kind = GM_OPT_STR, .name = "data-dir", .arg = "DIR"},
    {.kind = GM_OPT_SET, .name = "json"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};
static const struct gm_optcmd t_cmd = {
    .name = "t",
    .head = "usage: gpumon t [--from TIME [--to TIME]] [--data-dir DIR] [--json]\n"
            "       gpumon t test [--step DURATION]\n\n"
            "A test command.\n\n",
    .tail = "\nExit status: 0.\n",
    .col = 23,
    .opts = t_rows,
    .subs = "test",
    .sub = &sub_cmd,
};

struct trow {
    const char *flag;
    const char *meta;
    int arg, listed;
    const char *vals;
    const char *help;
};

static const struct trow t_want[] = {
    {"-o", "FILE", CLI_ARG_FILE, 1, NULL, "write it here"},
    {"--output", "FILE", CLI_ARG_FILE, 1, NULL, "write it here"},
    {"--from", "TIME", CLI_ARG_TEXT, 1, NULL, "YYYY-MM-DD (local time); --until is --to"},
    {"--to", "TIME", CLI_ARG_TEXT, 1, NULL, "YYYY-MM-DD (local time); --until is --to"},
    {"-s", "GROUPS", CLI_ARG_TEXT, 1, NULL,
     "metric groups [default: pu]\np  power (W)\nu  utilisation and more"},
    {"--select", "GROUPS", CLI_ARG_TEXT, 1, NULL,
     "metric groups [default: pu]\np  power (W)\nu  utilisation and more"},
    {"--fail-on", "warning|critical", CLI_ARG_ENUM, 1, "warning critical",
     "exit 1 when a finding is at least this severe"},
    {"--csv", "FILE...", CLI_ARG_FILE, 1, NULL, "from these files"},
    {"-h", NULL, CLI_ARG_NONE, 1, NULL, "this help"},
    {"--help", NULL, CLI_ARG_NONE, 1, NULL, "this help"},
    {"--until", "TIME", CLI_ARG_TEXT, 0, NULL, NULL},
    {"--data-dir", "DIR", CLI_ARG_DIR, 0, NULL, NULL},
    {"--json", NULL, CLI_ARG_NONE, 0, NULL, NULL},
    {"--step", "DURATION", CLI_ARG_DURATION, 0, NULL, NULL},
};

/* The spec of a table: every flag it has (those of its option lines first,
 * in their order, with their whole text), the subcommands, the operands;
 * and for the flags of the option lines what the help-text reading makes
 * of the rendered help, which does not know the rows the help leaves out. */
static void test_table(void **state)
{
    (void)state;
    struct cli_spec s, p;
    cli_spec_from_table(&s, "t", "a test", &t_cmd);
    assert_int_equal(s.nflags, N_ELEM(t_want));
    for (size_t i = 0; i < N_ELEM(t_want); i++) {
        const struct trow *w = &t_want[i];
        const struct cli_flag *f = &s.flags[i];
        printf("flag %zu: %s\n", i, w->flag);
        assert_string_equal(f->name, w->flag);
        if (w->meta)
            assert_string_equal(f->meta, w->meta);
        else
            assert_null(f->meta);
        assert_int_equal(f->arg, w->arg);
        assert_int_equal(f->listed, w->listed);
        if (w->help)
            assert_string_equal(f->help, w->help);
        else
            assert_null(f->help);
        char vals[256] = "";
        for (char **v = f->vals; v && *v; v++) {
            strncat(vals, v == f->vals ? "" : " ", sizeof(vals) - strlen(vals) - 1);
            strncat(vals, *v, sizeof(vals) - strlen(vals) - 1);
        }
        assert_string_equal(vals, w->vals ? w->vals : "");
    }
    /* one line, one group: -o with --output, --from with --to */
    assert_int_equal(s.flags[0].group, s.flags[1].group);
    assert_int_equal(s.flags[2].group, s.flags[3].group);
    assert_int_not_equal(s.flags[1].group, s.flags[2].group);
    assert_int_not_equal(s.flags[10].group, s.flags[11].group);
    assert_int_equal(s.nsubs, 1);
    assert_string_equal(s.subs[0], "test");
    assert_int_equal(s.pos_file, 1); /* --csv FILE... */
    assert_int_equal(s.pos_cmd, 0);
    assert_string_equal(s.prose, "\nA test command.\n\n\nExit status: 0.\n");

    cli_spec_parse(&p, "t", "a test", s.text);
    for (size_t i = 0; i < N_ELEM(t_want); i++) {
        if (!t_want[i].listed || strcmp(t_want[i].flag, "--from") == 0 ||
            strcmp(t_want[i].flag, "--to") == 0)
            continue; /* the help-text reading ends --from's text at "--until" */
        const struct cli_flag *f = find(&p, t_want[i].flag);
        assert_non_null(f);
        assert_string_equal(f->help, s.flags[i].help);
        assert_int_equal(f->arg, s.flags[i].arg);
    }
    cli_spec_free(&p);
    cli_spec_free(&s);
}

/* cli_spec_read takes a converted command's interface from its table, not
 * from its --help: a line of its text that starts with a flag ("--until
 * is --to") stays in the flag's text (the help-text reading took it for
 * prose), and the flags the help does not print are there. */
static int t_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct gm_buf b = GM_BUF_INIT;
    gm_opt_help(&t_cmd, &b);
    fputs(b.p, stdout);
    gm_buf_free(&b);
    return 0;
}

static void test_read_table(void **state)
{
    (void)state;
    static const struct gm_cmd cmd = {"t", "a test", t_run, &t_cmd};
    struct cli_spec s;
    assert_int_equal(cli_spec_read(&cmd, &s), 0);
    const struct cli_flag *f = find(&s, "--from");
    assert_non_null(f);
    assert_string_equal(f->help, "YYYY-MM-DD (local time); --until is --to");
    assert_null(strstr(s.prose, "--until"));
    assert_non_null(find(&s, "--until"));
    assert_non_null(find(&s, "--step"));
    cli_spec_free(&s);
}

/* The rows of the agent's and main.c's tables: a generated group's rows in
 * its place (a bool's --no-KEY on its line), a hidden group nowhere, stop
 * rows as flags, refused rows nowhere; a command without a table is an
 * error, not a --help read back. */
static const struct gm_opt *made_rows(void)
{
    static const struct gm_opt made[] = {
        {.kind = GM_OPT_STR, .name = "interval", .arg = "DURATION", .help = "how often [10s]"},
        {.kind = GM_OPT_SET, .name = "procs", .flags = GM_OPT_OPTARG, .help = "processes too"},
        {.kind = GM_OPT_SET, .name = "no-procs", .flags = GM_OPT_JOIN},
        {0},
    };
    return made;
}
static const struct gm_optgroup made_group = {.name = "made", .gen = made_rows};
static const struct gm_opt secret_rows[] = {{.kind = GM_OPT_SET, .name = "secret"}, {0}};
static const struct gm_optgroup secret_group = {.name = "secret", .opts = secret_rows};
static const struct gm_opt k_rows[] = {
    {.kind = GM_OPT_STOP, .letter = 'q', .label = "-q [-x]", .help = "handed on"},
    {.kind = GM_OPT_STOP, .letter = 'x', .flags = GM_OPT_JOIN},
    {.kind = GM_OPT_REFUSE, .name = "create", .alias = "-cgi", .help = "a write"},
    {.kind = GM_OPT_GROUP, .group = &made_group},
    {.kind = GM_OPT_GROUP, .group = &secret_group, .flags = GM_OPT_HIDDEN},
    {0},
};
static const struct gm_optcmd k_cmd = {
    .name = "k", .head = "usage: gpumon k\n", .col = 20, .opts = k_rows};

static void test_table_groups(void **state)
{
    (void)state;
    static const char *const want[] = {"-q", "--interval", "--procs", "--no-procs", "-x"};
    struct cli_spec s;
    cli_spec_from_table(&s, "k", "k", &k_cmd);
    assert_int_equal(s.nflags, N_ELEM(want));
    for (size_t i = 0; i < N_ELEM(want); i++)
        assert_string_equal(s.flags[i].name, want[i]);
    assert_int_equal(s.flags[1].arg, CLI_ARG_DURATION);
    assert_string_equal(s.flags[1].help, "how often [10s]");
    assert_int_equal(s.flags[2].group, s.flags[3].group);
    assert_string_equal(s.flags[3].help, "processes too");
    assert_int_equal(s.flags[4].listed, 0);
    cli_spec_free(&s);

    static const struct gm_cmd none = {"none", "no table", NULL, NULL};
    assert_int_equal(cli_spec_read(&none, &s), 1); /* GM_EXIT_FAIL */
    cli_spec_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags),      cmocka_unit_test(test_subcommands),
        cmocka_unit_test(test_prose),      cmocka_unit_test(test_table),
        cmocka_unit_test(test_read_table), cmocka_unit_test(test_table_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

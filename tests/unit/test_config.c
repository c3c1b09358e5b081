/* test_config.c -- unit tests for the agent's config reader (config.h):
 * gm_config_load_file, gm_config_set, gm_config_finish and the effective
 * configuration gm_config_dump prints.
 *
 * Cases are data: a table of (file content, the values it sets) and a table
 * of (file content, the exact "FILE:LINE: reason"), over every section
 * ([agent], [exporter], [alerts], [alert.NAME], [notify.NAME]) and every
 * kind of key (boolean, duration, enum, number, path, task, column list,
 * listen address), with unknown sections and keys, keys in the wrong
 * section, duplicates, bad values and the syntax itself.  Values are read
 * back through gm_config_dump, so the tests use nothing but config.h's
 * contract (config.h may move to another directory: only the #include
 * changes).  The config has no size-valued key today.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define FILE_NAME "gpumon.conf"

static char g_dir[64];

static int group_setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof(g_dir), "/tmp/gm-config-XXXXXX");
    if (!mkdtemp(g_dir) || chdir(g_dir) != 0)
        return -1;
    /* a web config that exists (its content is the exporter's business) */
    FILE *f = fopen("web.yml", "w");
    if (!f || fclose(f) != 0)
        return -1;
    unsetenv("STATE_DIRECTORY");
    unsetenv("LOGS_DIRECTORY");
    setenv("HOME", g_dir, 1);
    unsetenv("XDG_STATE_HOME");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Loads text as the file FILE_NAME over the defaults. */
static int load(const char *text, struct gm_config *c, struct gm_err *err)
{
    write_file(FILE_NAME, text, strlen(text));
    gm_config_defaults(c);
    memset(err, 0, sizeof(*err));
    return gm_config_load_file(c, FILE_NAME, err);
}

/* Whether gm_config_dump prints "key = value" in [section]; want is
 * "[section] key = value". */
static int dump_has(const struct gm_config *c, const char *want)
{
    struct gm_buf b = GM_BUF_INIT;
    gm_config_dump(c, &b);
    const char *sp = strchr(want, ' ');
    size_t slen = (size_t)(sp - want);
    int found = 0, in = 0;
    for (char *line = b.p; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len && line[0] == '[')
            in = len == slen && strncmp(line, want, slen) == 0;
        else if (in && len == strlen(sp + 1) && strncmp(line, sp + 1, len) == 0)
            found = 1;
        line = nl ? nl + 1 : NULL;
    }
    gm_buf_free(&b);
    return found;
}

/* ------------------------------------------------------------- values */

struct value_case {
    const char *text;
    const char *want[4]; /* "[section] key = value" lines of the dump */
};

static const struct value_case value_cases[] = {
    /* durations: units, fractions, the range's ends; printed in s, ms or d */
    {"[agent]\ninterval = 2m\n", {"[agent] interval = 120s"}},
    {"[agent]\ninterval = 100ms\n", {"[agent] interval = 100ms"}},
    {"[agent]\ninterval = 1.5\n", {"[agent] interval = 1500ms"}},
    {"[agent]\ninterval = 1h\n", {"[agent] interval = 3600s"}},
    {"[agent]\nretention = 0\ncompress-after = 2w\n",
     {"[agent] retention = 0s", "[agent] compress-after = 14d"}},
    {"[agent]\nstore-retention-1h = 3y\nstore-retention-raw = 36h\n",
     {"[agent] store-retention-1h = 1095d", "[agent] store-retention-raw = 129600s"}},
    {"[agent]\nnvml-timeout = 1s\n", {"[agent] nvml-timeout = 1s"}},
    {"[exporter]\nconnection-timeout = 1min\nstale-after = 0\n",
     {"[exporter] connection-timeout = 60s", "[exporter] stale-after = 0s"}},
    /* booleans in every spelling */
    {"[agent]\ncsv = false\nprocs = yes\nstore = off\nexporter = 1\n",
     {"[agent] csv = false", "[agent] procs = true", "[agent] store = false",
      "[agent] exporter = true"}},
    {"[exporter]\nhostname-label = on\nprocess-metrics = true\n[alerts]\nalerts = no\n"
     "default-rules = 0\n",
     {"[exporter] hostname-label = true", "[exporter] process-metrics = true",
      "[alerts] alerts = false", "[alerts] default-rules = false"}},
    /* enums */
    {"[agent]\nlog-level = debug\ncsv-sync = second\n[exporter]\nnames = dcgm\n",
     {"[agent] log-level = debug", "[agent] csv-sync = second", "[exporter] names = dcgm"}},
    {"[agent]\nlog-level = error\n", {"[agent] log-level = error"}},
    /* numbers at their limits */
    {"[agent]\nqueue-size = 2\n[exporter]\nmax-process-series = 100000\nmax-connections = 1\n",
     {"[agent] queue-size = 2", "[exporter] max-process-series = 100000",
      "[exporter] max-connections = 1"}},
    /* paths and names, taken as they are (blanks inside kept) */
    {"[agent]\ndata-dir = /srv/gpu mon\ncsv-dir = rel/csv\nstore-path = /s/g.db\n"
     "nvml-lib = /opt/lib/libnvidia-ml.so.1\n",
     {"[agent] data-dir = /srv/gpu mon", "[agent] csv-dir = rel/csv",
      "[agent] store-path = /s/g.db", "[agent] nvml-lib = /opt/lib/libnvidia-ml.so.1"}},
    {"[exporter]\ntextfile-dir = /var/lib/node\nweb-config = web.yml\n[alerts]\n"
     "alert-log = /l/a.jsonl\nalert-state = /l/a.state\n",
     {"[exporter] textfile-dir = /var/lib/node", "[exporter] web-config = web.yml",
      "[alerts] alert-log = /l/a.jsonl", "[alerts] alert-state = /l/a.state"}},
    {"[agent]\ntask = job-1.a_B\n", {"[agent] task = job-1.a_B"}},
    /* the column list, kept as written */
    {"[agent]\ncolumns = index, name,power.draw , timestamp\n",
     {"[agent] columns = index, name,power.draw , timestamp"}},
    /* listen: an address, or empty for none */
    {"[exporter]\nlisten = [::]:9842\n", {"[exporter] listen = [::]:9842"}},
    {"[exporter]\nlisten =\n", {"[exporter] listen = "}},
    /* syntax: "key: value", comments, blanks, an inline comment, a BOM,
     * sections in any order and repeated */
    {"\xEF\xBB\xBF# a comment\n; another\n\n  [exporter]  \n names: dcgm ; the other set\n"
     "[agent]\n\tinterval=5s\n[exporter]\nlisten = :9000\n",
     {"[exporter] names = dcgm", "[agent] interval = 5s", "[exporter] listen = :9000"}},
    /* a ';' without a blank before it is part of the value */
    {"[agent]\ndata-dir = /a;b\n", {"[agent] data-dir = /a;b"}},
    /* [alert.NAME]: a new rule, and a default rule changed in one key */
    {"[alert.hot]\nwhen = temperature.gpu > 90\nseverity = critical\nfor = 30s\n",
     {"[alert.hot] when = temperature.gpu > 90", "[alert.hot] severity = critical",
      "[alert.hot] for = 30s"}},
    {"[alert.gpu-temperature-high]\nfor = 2m\n",
     {"[alert.gpu-temperature-high] for = 2m", "[alert.gpu-temperature-high] when = "
                                               "temperature.gpu > 85"}},
    /* [notify.NAME] */
    {"[notify.ops]\ntype = webhook\nurl = http://example.invalid/hook\nretries = 5\n"
     "timeout = 2s\nmin-severity = critical\n",
     {"[notify.ops] type = webhook", "[notify.ops] url = http://example.invalid/hook",
      "[notify.ops] retries = 5", "[notify.ops] min-severity = critical"}},
    {"[notify.hook]\ntype = exec\ncommand = /bin/true --x 'a b'\nsend-resolved = false\n",
     {"[notify.hook] type = exec", "[notify.hook] command = /bin/true --x 'a b'",
      "[notify.hook] send-resolved = false"}},
    /* an empty file changes nothing */
    {"", {"[agent] interval = 10s", "[exporter] listen = 127.0.0.1:9842"}},
};

static void test_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(value_cases); i++) {
        struct gm_config c;
        struct gm_err err;
        int rc = load(value_cases[i].text, &c, &err);
        if (rc != 0)
            fail_msg("value case %zu: %s", i, err.msg);
        for (size_t k = 0; k < N_ELEM(value_cases[i].want) && value_cases[i].want[k]; k++)
            if (!dump_has(&c, value_cases[i].want[k])) {
                struct gm_buf b = GM_BUF_INIT;
                gm_config_dump(&c, &b);
                fail_msg("value case %zu: no \"%s\" in the dump:\n%.3000s", i,
                         value_cases[i].want[k], b.p);
            }
    }
}

/* ------------------------------------------------------------- errors */

struct error_case {
    const char *text;
    const char *want; /* the message after "gpumon.conf:" */
};

static const struct error_case error_cases[] = {
    /* sections and keys */
    {"[agent]\ninterval = 5s\n[bogus]\nx = 1\n", "3: unknown section [bogus]"},
    {"[Agent]\n", "1: unknown section [Agent]"},
    {"[alert.]\n", "1: unknown section [alert.]"},
    {"[agent]\nintervall = 5s\n", "2: unknown key \"intervall\" in [agent]"},
    {"[agent]\nlisten = :9000\n", "2: key \"listen\" belongs in [exporter], not [agent]"},
    {"[exporter]\nprocs = true\n", "2: key \"procs\" belongs in [agent], not [exporter]"},
    {"interval = 5s\n", "1: key \"interval\" belongs in [agent], not []"},
    {"[agent]\ninterval = 5s\n\n[agent]\ninterval = 6s\n",
     "5: duplicate key \"interval\" in [agent]"},
    /* an indented line continues the key before it: a second value */
    {"[agent]\ninterval = 5s\n   10s\n", "3: duplicate key \"interval\" in [agent]"},
    /* syntax */
    {"[agent]\ninterval 5s\n", "2: syntax error (expected \"key = value\" or [section])"},
    {"[agent\n", "1: unterminated section header"},
    /* booleans */
    {"[agent]\ncsv = maybe\n", "2: invalid boolean \"maybe\" (true or false)"},
    {"[agent]\nprocs = True\n", "2: invalid boolean \"True\" (true or false)"},
    {"[agent]\nstore =\n", "2: invalid boolean \"\" (true or false)"},
    /* durations */
    {"[agent]\ninterval = 10x\n",
     "2: invalid duration \"10x\" (examples: 500ms, 10s, 1m, 14d, 3y)"},
    {"[agent]\ninterval = -1s\n",
     "2: invalid duration \"-1s\" (examples: 500ms, 10s, 1m, 14d, 3y)"},
    {"[agent]\ninterval = 5 s\n",
     "2: invalid duration \"5 s\" (examples: 500ms, 10s, 1m, 14d, 3y)"},
    {"[agent]\ninterval = 99ms\n", "2: interval \"99ms\" is out of range (0.1 s to 3600 s)"},
    {"[agent]\ninterval = 61m\n", "2: interval \"61m\" is out of range (0.1 s to 3600 s)"},
    {"[agent]\nnvml-timeout = 500ms\n",
     "2: nvml-timeout \"500ms\" is out of range (1 s to 3600 s)"},
    {"[agent]\nretention = 101y\n", "2: retention \"101y\" is out of range (0 s to 3.1536e+09 s)"},
    {"[exporter]\nstale-after = 2h\n", "2: stale-after \"2h\" is out of range (0 s to 3600 s)"},
    /* enums */
    {"[agent]\nlog-level = loud\n",
     "2: invalid value \"loud\" (one of: error|warning|notice|info|debug)"},
    {"[agent]\nlog-level = INFO\n",
     "2: invalid value \"INFO\" (one of: error|warning|notice|info|debug)"},
    {"[agent]\ncsv-sync = always\n", "2: invalid value \"always\" (one of: none|sample|second)"},
    {"[exporter]\nnames = prometheus\n", "2: invalid value \"prometheus\" (one of: native|dcgm)"},
    /* numbers */
    {"[agent]\nqueue-size = 1\n", "2: invalid number \"1\" (2 to 65536)"},
    {"[agent]\nqueue-size = 65537\n", "2: invalid number \"65537\" (2 to 65536)"},
    {"[agent]\nqueue-size = 10k\n", "2: invalid number \"10k\" (2 to 65536)"},
    {"[exporter]\nmax-connections = 0\n", "2: invalid number \"0\" (1 to 65536)"},
    {"[exporter]\nmax-process-series = -5\n", "2: invalid number \"-5\" (1 to 100000)"},
    /* task */
    {"[agent]\ntask = a/b\n",
     "2: invalid task \"a/b\" (1-63 letters, digits, '.', '_', '-'; it is part of file names)"},
    {"[agent]\ntask = .hidden\n",
     "2: invalid task \".hidden\" (1-63 letters, digits, '.', '_', '-'; it is part of file "
     "names)"},
    {"[agent]\ntask =\n",
     "2: invalid task \"\" (1-63 letters, digits, '.', '_', '-'; it is part of file names)"},
    /* the column list */
    {"[agent]\ncolumns = index,bogus.field\n",
     "2: unknown column \"bogus.field\" (see gpumon query --help-query-gpu)"},
    {"[agent]\ncolumns = index,,name\n", "2: empty or overlong column name in \"index,,name\""},
    {"[agent]\ncolumns = name, index, name\n", "2: column \"name\" given twice"},
    {"[agent]\ncolumns = timestamp\n", "2: no column besides the time in \"timestamp\""},
    {"[agent]\ncolumns = pid\n", "2: unknown column \"pid\" (see gpumon query --help-query-gpu)"},
    /* listen and web-config */
    {"[exporter]\nlisten = nowhere\n",
     "2: invalid listen address \"nowhere\": expected ADDRESS:PORT (or :PORT for every "
     "interface)"},
    {"[exporter]\nlisten = \"\"\n",
     "2: invalid listen address \"\": for no HTTP server leave the value empty (\"listen =\")"},
    {"[exporter]\nweb-config = missing.yml\n",
     "2: web-config \"missing.yml\": No such file or directory"},
    /* [alert.NAME] and [notify.NAME]: their own keys, and whole-section
     * checks at the section's header */
    {"[alert.hot]\nwhen = temperature.gpu >\n",
     "2: expected a number (at column 18 of \"temperature.gpu >\")"},
    {"[alert.hot]\nseverity = critical\n", "1: [alert.hot] has no \"when\" condition"},
    {"[alert.hot]\nwhen = power.draw > 1\nseverity = loud\n", "3: "},
    {"[notify.ops]\ntype = pager\n",
     "2: invalid type \"pager\" (one of: exec, webhook, alertmanager)"},
    {"\n[notify.ops]\ntype = webhook\n",
     "2: [notify.ops]: url is missing (type = webhook posts to it)"},
    {"[notify.ops]\ntype = exec\ncommand = /bin/true\ncommand = /bin/false\n", "4: "},
    {"[notify.a/b]\ntype = exec\n",
     "2: invalid channel name \"a/b\" (1-63 letters, digits, '_', '-')"},
    /* the first error is reported, at its line */
    {"[agent]\ninterval = 5s\ncsv = false\nlog-level = x\nqueue-size = 1\n",
     "4: invalid value \"x\" (one of: error|warning|notice|info|debug)"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEM(error_cases); i++) {
        struct gm_config c;
        struct gm_err err;
        char want[600];
        int rc = load(error_cases[i].text, &c, &err);
        snprintf(want, sizeof(want), FILE_NAME ":%s", error_cases[i].want);
        /* a want that ends in ": " checks the place and leaves the reason to
         * the module that gives it (rule.c, notify_conf.c) */
        size_t n = strlen(want);
        int prefix = n >= 2 && want[n - 2] == ':' && want[n - 1] == ' ';
        if (rc != GM_E_INVAL || (prefix ? strncmp(err.msg, want, n) != 0 || strlen(err.msg) <= n
                                        : strcmp(err.msg, want) != 0))
            fail_msg("error case %zu: rc %d, got\n  \"%s\"\nwant\n  \"%s\"%s", i, rc, err.msg, want,
                     prefix ? "..." : "");
    }
}

/* A file with an error changes nothing: all or nothing. */
static void test_all_or_nothing(void **state)
{
    (void)state;
    struct gm_config c, before;
    struct gm_err err = {0};
    gm_config_defaults(&c);
    assert_int_equal(gm_config_set(&c, "interval", "7s", &err), 0);
    before = c;
    const char *text = "[agent]\ninterval = 1m\nprocs = true\n[exporter]\nnames = bogus\n";
    write_file(FILE_NAME, text, strlen(text));
    assert_int_equal(gm_config_load_file(&c, FILE_NAME, &err), GM_E_INVAL);
    assert_memory_equal(&c, &before, sizeof(c));
    /* and a good one applies over what was there */
    text = "[agent]\nprocs = true\n";
    write_file(FILE_NAME, text, strlen(text));
    assert_int_equal(gm_config_load_file(&c, FILE_NAME, &err), 0);
    assert_true(dump_has(&c, "[agent] procs = true"));
    assert_true(dump_has(&c, "[agent] interval = 7s"));
}

/* The file itself: missing, a directory, a NUL byte, too big, long lines. */
static void test_files(void **state)
{
    (void)state;
    struct gm_config c;
    struct gm_err err = {0};
    gm_config_defaults(&c);
    assert_int_equal(gm_config_load_file(&c, "no-such.conf", &err), GM_E_NOTFOUND);
    assert_string_equal(err.msg, "no-such.conf: No such file or directory");
    assert_int_equal(mkdir("a-dir", 0700), 0);
    assert_int_equal(gm_config_load_file(&c, "a-dir", &err), GM_E_IO);
    assert_string_equal(err.msg, "a-dir: Is a directory");

    write_file(FILE_NAME, "[agent]\ncsv = tr\0ue\n", 20);
    assert_int_equal(gm_config_load_file(&c, FILE_NAME, &err), GM_E_INVAL);
    assert_string_equal(err.msg, FILE_NAME ":2: a NUL byte: not a text file");

    /* over 1 MiB: refused as a whole */
    size_t big = 1024 * 1024 + 10;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, '#', big);
    write_file(FILE_NAME, text, big);
    assert_int_equal(gm_config_load_file(&c, FILE_NAME, &err), GM_E_INVAL);
    assert_string_equal(err.msg, FILE_NAME ": larger than 1048576 bytes; not a gpumon config");

    /* a line far longer than inih's 200 bytes is one line: a long comment
     * never becomes a setting, a long value is read whole */
    size_t n = 0;
    n += (size_t)snprintf(text + n, big - n, "[agent]\n# ");
    memset(text + n, 'x', 5000);
    n += 5000;
    n += (size_t)snprintf(text + n, big - n, " interval = 1h\ndata-dir = /");
    memset(text + n, 'd', 3000);
    n += 3000;
    n += (size_t)snprintf(text + n, big - n, "\n");
    write_file(FILE_NAME, text, n);
    gm_config_defaults(&c);
    assert_int_equal(gm_config_load_file(&c, FILE_NAME, &err), 0);
    assert_true(dump_has(&c, "[agent] interval = 10s"));
    free(text);
}

/* The default file: under a systemd unit with ConfigurationDirectory= the
 * service user (not root) reads the unit's directory, the first of several;
 * otherwise its own ~/.config (this test does not run as root for that). */
static void test_default_path(void **state)
{
    (void)state;
    char buf[256], want[256];
    setenv("CONFIGURATION_DIRECTORY", "/etc/gpumon", 1);
    assert_string_equal(gm_config_default_path(buf, sizeof(buf)), "/etc/gpumon/gpumon.conf");
    setenv("CONFIGURATION_DIRECTORY", "/etc/gpumon:/etc/other", 1);
    assert_string_equal(gm_config_default_path(buf, sizeof(buf)), "/etc/gpumon/gpumon.conf");
    unsetenv("CONFIGURATION_DIRECTORY");
    if (geteuid() == 0) {
        assert_string_equal(gm_config_default_path(buf, sizeof(buf)), "/etc/gpumon/gpumon.conf");
        return;
    }
    setenv("XDG_CONFIG_HOME", "/x", 1);
    assert_string_equal(gm_config_default_path(buf, sizeof(buf)), "/x/gpumon/gpumon.conf");
    unsetenv("XDG_CONFIG_HOME");
    snprintf(want, sizeof(want), "%s/.config/gpumon/gpumon.conf", g_dir);
    assert_string_equal(gm_config_default_path(buf, sizeof(buf)), want);
}

/* Flags: the same keys and values, errors named "--key: reason". */
static void test_flags(void **state)
{
    (void)state;
    static const struct {
        const char *key, *value, *want; /* want: "[section] key = value" or the error */
    } cases[] = {
        {"interval", "250ms", "[agent] interval = 250ms"},
        {"names", "dcgm", "[exporter] names = dcgm"},
        {"listen", "", "[exporter] listen = "},
        {"procs", "true", "[agent] procs = true"},
        {"interval", "0", "--interval: interval \"0\" is out of range (0.1 s to 3600 s)"},
        {"colour", "red", "--colour: unknown option"},
        {"queue-size", "x", "--queue-size: invalid number \"x\" (2 to 65536)"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_config c;
        struct gm_err err = {0};
        gm_config_defaults(&c);
        int rc = gm_config_set(&c, cases[i].key, cases[i].value, &err);
        if (cases[i].want[0] == '[') {
            if (rc != 0 || !dump_has(&c, cases[i].want))
                fail_msg("flag case %zu: rc %d (%s), want %s", i, rc, err.msg, cases[i].want);
        } else if (rc != GM_E_INVAL || strcmp(err.msg, cases[i].want) != 0) {
            fail_msg("flag case %zu: rc %d, \"%s\", want \"%s\"", i, rc, err.msg, cases[i].want);
        }
    }
    int takes;
    assert_true(gm_config_has_key("interval", &takes));
    assert_true(takes);
    assert_true(gm_config_has_key("csv", &takes));
    assert_false(takes);
    assert_false(gm_config_has_key("bogus", &takes));
}

/* gm_config_finish: the paths that follow data-dir, and stale-after. */
static void test_finish(void **state)
{
    (void)state;
    struct gm_config c;
    struct gm_err err = {0};
    assert_int_equal(load("[agent]\ndata-dir = /d\ninterval = 20s\n", &c, &err), 0);
    assert_int_equal(gm_config_finish(&c, &err), 0);
    assert_true(dump_has(&c, "[agent] csv-dir = /d/csv"));
    assert_true(dump_has(&c, "[agent] store-path = /d/gpumon.db"));
    assert_true(dump_has(&c, "[alerts] alert-log = /d/alerts.jsonl"));
    assert_true(dump_has(&c, "[alerts] alert-state = /d/alerts.state"));
    assert_true(dump_has(&c, "[exporter] stale-after = 90s")); /* 3 x 20 s + 30 s */
    /* given paths stay */
    assert_int_equal(
        load("[agent]\ndata-dir = /d\ncsv-dir = /c\n[exporter]\nstale-after = 5s\n", &c, &err), 0);
    assert_int_equal(gm_config_finish(&c, &err), 0);
    assert_true(dump_has(&c, "[agent] csv-dir = /c"));
    assert_true(dump_has(&c, "[exporter] stale-after = 5s"));
    /* LOGS_DIRECTORY (systemd) gives the CSV directory, its first entry */
    setenv("LOGS_DIRECTORY", "/var/log/gpumon:/other", 1);
    assert_int_equal(load("[agent]\ndata-dir = /d\n", &c, &err), 0);
    assert_int_equal(gm_config_finish(&c, &err), 0);
    unsetenv("LOGS_DIRECTORY");
    assert_true(dump_has(&c, "[agent] csv-dir = /var/log/gpumon"));
    /* default-rules = false keeps only the rules the file names */
    assert_int_equal(load("[alerts]\ndefault-rules = false\n[alert.gpu-throttled]\nfor = 1m\n"
                          "[alert.mine]\nwhen = power.draw > 100\n",
                          &c, &err),
                     0);
    assert_int_equal(gm_config_finish(&c, &err), 0);
    assert_true(dump_has(&c, "[alert.gpu-throttled] for = 1m"));
    assert_true(dump_has(&c, "[alert.mine] when = power.draw > 100"));
    assert_false(dump_has(&c, "[alert.gpu-temperature-high] for = 1m"));
}

/* The resident kB of the mapping at [lo, hi) (/proc/self/smaps), -1 when
 * not found. */
static long smaps_rss_kb(uintptr_t lo, uintptr_t hi)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    long rss = -1;
    int in = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = a <= lo && hi <= b;
            continue;
        }
        if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
            break;
    }
    fclose(f);
    return rss;
}

/* The defaults written into memory that was never written (the agent's
 * static configuration) leave its unused parts, the notify channels and
 * most of the rules (over 500 kB of it), out of the resident memory: the
 * agent held all of it resident. */
static void test_defaults_sparse(void **state)
{
    (void)state;
    size_t len = (sizeof(struct gm_config) + 4095) / 4096 * 4096;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    madvise(m, len, MADV_NOHUGEPAGE);
    struct gm_config *c = m;
    gm_config_defaults(c);
    long kb = smaps_rss_kb((uintptr_t)m, (uintptr_t)m + len);
    if (kb < 0 || (size_t)kb * 1024 > len / 4)
        fail_msg("the defaults made %ld kB of the %zu kB configuration resident", kb, len / 1024);
    /* and they are the defaults: the same as in memory that was written */
    struct gm_config *d = malloc(sizeof(*d));
    assert_non_null(d);
    memset(d, 0x5a, sizeof(*d));
    gm_config_defaults(d);
    struct gm_buf a = GM_BUF_INIT, b = GM_BUF_INIT;
    gm_config_dump(c, &a);
    gm_config_dump(d, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.p, b.p, a.len);
    assert_int_equal(memcmp(c, d, sizeof(*c)), 0);
    gm_buf_free(&a);
    gm_buf_free(&b);
    free(d);
    munmap(m, len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),         cmocka_unit_test(test_errors),
        cmocka_unit_test(test_all_or_nothing), cmocka_unit_test(test_files),
        cmocka_unit_test(test_flags),          cmocka_unit_test(test_finish),
        cmocka_unit_test(test_default_path),   cmocka_unit_test(test_defaults_sparse),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

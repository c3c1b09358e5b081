/* test_notify.c -- unit tests for the notifier (src/alert/notify*.c,
 * template.c, hook.c, alertmanager.c).
 *
 * Tables: [notify.NAME] keys (every error path of set and check), dump and
 * its round trip, command-line splitting, template expansion with each
 * escaping, the hook environment, the Alertmanager URL and body, what an
 * HTTP answer means, the backoff.
 *
 * Real processes: exec hooks through the notifier (environment, stdin, exit
 * status, retries, spawn failure, a hook that hangs and one that ignores
 * SIGTERM -- killed and reaped, its children too --, hooks that never read
 * or close their stdin with more input than a pipe holds), the alert log
 * (also at a file size limit, waited out with no half line), the channel
 * filters, queue overflow, stop killing a running hook, and
 * start-up errors (log not writable, HTTP module missing, ca-file missing).
 * Webhooks and Alertmanager need HTTP peers: tests/e2e/notify_*.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alert/notify.h"
#include "alert/notify_impl.h"
#include "core/err.h"
#include "core/timeutil.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NS INT64_C(1000000000)
#define MS INT64_C(1000000)
#define T_DEC INT64_C(1796176800) /* 2026-12-02T02:00:00Z */

static char tmpdir[256];

/* ---------------------------------------------------------------- helpers */

static void base_alert(struct gm_alert *a)
{
    memset(a, 0, sizeof(*a));
    gm_strlcpy(a->rule, "gpu_hot", sizeof(a->rule));
    a->severity = GM_SEV_CRITICAL;
    a->state = GM_AL_FIRING;
    a->gpu = 5;
    gm_strlcpy(a->uuid, "GPU-5e1c", sizeof(a->uuid));
    gm_strlcpy(a->gpu_name, "NVIDIA H100 80GB HBM3", sizeof(a->gpu_name));
    gm_strlcpy(a->pci_bus_id, "00000000:8A:00.0", sizeof(a->pci_bus_id));
    gm_strlcpy(a->job, "slurm:4242", sizeof(a->job));
    gm_strlcpy(a->host, "gpu-node-07", sizeof(a->host));
    gm_strlcpy(a->summary, "GPU 5 is hot", sizeof(a->summary));
    gm_strlcpy(a->condition, "temperature.gpu > 85", sizeof(a->condition));
    gm_strlcpy(a->value_text, "89 C", sizeof(a->value_text));
    a->value = 89;
    a->value_ok = 1;
    a->active_ns = T_DEC * NS;
    a->fired_ns = (T_DEC + 30) * NS;
    a->sent_ns = a->fired_ns;
    gm_strlcpy(a->fingerprint, "0123456789abcdef", sizeof(a->fingerprint));
    a->nlabels = 1;
    gm_strlcpy(a->labels[0].name, "team", sizeof(a->labels[0].name));
    gm_strlcpy(a->labels[0].value, "ml", sizeof(a->labels[0].value));
}

/* Fills a conf from "key=value" strings; fails the test on an error. */
static void conf_from(struct gm_notify_conf *c, const char *name, const char *const *kv)
{
    gm_notify_conf_init(c, name);
    for (; *kv; kv++) {
        char key[64], why[512];
        const char *eq = strchr(*kv, '=');
        assert_non_null(eq);
        snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
        if (gm_notify_conf_set(c, key, eq + 1, why, sizeof(why)) != 0)
            fail_msg("set %s: %s", *kv, why);
    }
    char why[512];
    if (gm_notify_conf_check(c, why, sizeof(why)) != 0)
        fail_msg("check [notify.%s]: %s", name, why);
}

static void write_file(const char *path, const char *text, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    struct gm_buf b = GM_BUF_INIT;
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
        gm_buf_put(&b, tmp, n);
    fclose(f);
    if (!b.p)
        gm_buf_puts(&b, "");
    return b.p;
}

static const char *tpath(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
    return p[k];
}

/* Stats of channel idx (0 = the log). */
static struct gm_notify_stats stats_of(struct gm_notifier *nf, int idx)
{
    struct gm_notify_stats st[GM_NOTIFY_MAX + 1];
    int n = gm_notifier_stats(nf, st, GM_NOTIFY_MAX + 1);
    assert_true(idx < n);
    return st[idx];
}

/* A condition the tests wait for holds within a second or so on an idle
 * machine; the deadline is generous so that a loaded one still passes. */
#define WAIT_NS (60 * NS)

/* Waits until channel idx has sent + failed >= n (or WAIT_NS pass). */
static struct gm_notify_stats wait_done(struct gm_notifier *nf, int idx, uint64_t n)
{
    int64_t until = gm_mono_ns() + WAIT_NS;
    struct gm_notify_stats st;
    for (;;) {
        st = stats_of(nf, idx);
        if (st.sent + st.failed >= n || gm_mono_ns() > until)
            return st;
        struct timespec ts = {0, 10 * MS};
        nanosleep(&ts, NULL);
    }
}

/* Waits until channel idx has retried n times (or WAIT_NS pass). */
static struct gm_notify_stats wait_retries(struct gm_notifier *nf, int idx, uint64_t n)
{
    int64_t until = gm_mono_ns() + WAIT_NS;
    struct gm_notify_stats st;
    for (;;) {
        st = stats_of(nf, idx);
        if (st.retries >= n || gm_mono_ns() > until)
            return st;
        struct timespec ts = {0, 10 * MS};
        nanosleep(&ts, NULL);
    }
}

/* No child of ours is left, not even a zombie. */
static void assert_no_children(void)
{
    int st;
    errno = 0;
    assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* Whether pid is gone (or a zombie that is not ours to reap). */
static int gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* ------------------------------------------------------------ conf: set */

static void test_conf_set_errors(void **state)
{
    (void)state;
    char big[5000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    write_file(tpath("body-big.tpl"), big, 0644);
    write_file(tpath("body-bad.tpl"), "{\"text\": \"{{nope}}\"}\n", 0644);
    static const struct {
        const char *pre; /* a key set first ("" for none) */
        const char *key, *value;
        const char *why; /* substring of the reason; NULL: accepted */
    } rows[] = {
        {"", "type", "webhook", NULL},
        {"", "type", "exec", NULL},
        {"", "type", "alertmanager", NULL},
        {"", "type", "slack", "invalid type \"slack\" (one of: exec, webhook, alertmanager)"},
        {"", "type", "", "invalid type"},
        {"", "colour", "red", "unknown key \"colour\" in [notify.t]"},
        {"type=exec", "type", "exec", "duplicate key \"type\" in [notify.t]"},
        {"", "command", "/bin/echo 'a b' \"c d\"", NULL},
        {"", "command", "/bin/echo 'a b", "unbalanced ' quote"},
        {"", "command", "/bin/echo \"a b", "unbalanced \" quote"},
        {"", "command", "/bin/echo a\\", "trailing backslash"},
        {"", "command", "   ", "empty command"},
        {"", "command", "mail -s x root | logger", "\"|\" is shell syntax"},
        {"", "command", "notify > /tmp/x", "\">\" is shell syntax"},
        {"", "command", "echo $HOME", "\"$\" is shell syntax"},
        {"", "command", "echo \"$HOME\"", "\"$\" is shell syntax"},
        {"", "command", "echo '$HOME'", NULL},
        {"", "command", "echo \\$HOME", NULL},
        {"", "url", "http://127.0.0.1:9/hook", NULL},
        {"", "url", "HTTPS://chat.example/hook?key=1", NULL},
        {"", "url", "ftp://x/y", "invalid url \"ftp://x/y\""},
        {"", "url", "127.0.0.1:9093", "invalid url"},
        {"", "url", "http://", "invalid url"},
        {"", "url", "http:///path", "invalid url"},
        {"", "url", "http://a b/", "invalid url"},
        {"", "body", "{\"text\": \"{{summary}}\"}", NULL},
        {"", "body", "{\"text\": \"{{ summary }} {{label.team}}\"}", NULL},
        {"", "body", "{\"text\": \"{{summary}\"}", "unterminated placeholder"},
        {"", "body", "{{nope}}", "unknown placeholder {{nope}} (known: rule, state, severity"},
        {"", "body", "{{label.}}", "unknown placeholder {{label.}}"},
        {"", "body", "{{label.a-b}}", "unknown placeholder {{label.a-b}}"},
        {"body=x", "body-file", "/etc/hostname", "body and body-file are exclusive"},
        {"", "body-file", "/nonexistent/body.tpl", "body-file /nonexistent/body.tpl: No such file"},
        {"", "body-file", "", "body-file is empty"},
        {"", "content-type", "text/plain; charset=utf-8", NULL},
        {"", "content-type", "json", "invalid content-type \"json\""},
        {"", "content-type", "", "invalid content-type"},
        {"", "header", "Authorization: Bearer abc", NULL},
        {"", "header", "Authorization Bearer", "invalid header"},
        {"", "header", ": x", "invalid header"},
        {"", "header", "X-A: b\r\nX-B: c", "invalid header"},
        {"", "header", "content-type: text/plain", "header content-type is set by gpumon"},
        {"", "ca-file", "/etc/ssl/certs/ca-certificates.crt", NULL},
        {"", "ca-file", "", "ca-file is empty"},
        {"", "timeout", "500ms", NULL},
        {"", "timeout", "10x", "invalid duration \"10x\""},
        {"", "timeout", "50ms", "timeout \"50ms\" is out of range (0.1 s to 600 s)"},
        {"", "timeout", "11m", "out of range"},
        {"", "retries", "0", NULL},
        {"", "retries", "20", NULL},
        {"", "retries", "21", "invalid number \"21\" (0 to 20)"},
        {"", "retries", "-1", "invalid number"},
        {"", "retries", "3x", "invalid number"},
        {"", "resend", "30s", NULL},
        {"", "resend", "500ms", "resend \"500ms\" is out of range (1 s to 86400 s)"},
        {"", "min-severity", "critical", NULL},
        {"", "min-severity", "info", "invalid value \"info\" (one of: warning, critical)"},
        {"", "send-resolved", "no", NULL},
        {"", "send-resolved", "maybe", "invalid boolean \"maybe\""},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_notify_conf c;
        char why[512] = "";
        gm_notify_conf_init(&c, "t");
        if (rows[i].pre[0]) {
            char k[32];
            const char *eq = strchr(rows[i].pre, '=');
            snprintf(k, sizeof(k), "%.*s", (int)(eq - rows[i].pre), rows[i].pre);
            assert_int_equal(gm_notify_conf_set(&c, k, eq + 1, why, sizeof(why)), 0);
        }
        int rc = gm_notify_conf_set(&c, rows[i].key, rows[i].value, why, sizeof(why));
        int ok = rows[i].why ? rc == GM_E_INVAL && strstr(why, rows[i].why) : rc == 0;
        if (!ok) {
            print_error("set %s = \"%s\": rc %d, why \"%s\"; want %s\n", rows[i].key, rows[i].value,
                        rc, why, rows[i].why ? rows[i].why : "success");
            bad++;
        }
    }
    /* files: too large, unknown placeholder, and one that works */
    struct gm_notify_conf c;
    char why[512];
    gm_notify_conf_init(&c, "t");
    assert_int_equal(gm_notify_conf_set(&c, "body-file", tpath("body-big.tpl"), why, sizeof(why)),
                     GM_E_INVAL);
    assert_non_null(strstr(why, "is larger than 4095 bytes"));
    gm_notify_conf_init(&c, "t");
    assert_int_equal(gm_notify_conf_set(&c, "body-file", tpath("body-bad.tpl"), why, sizeof(why)),
                     GM_E_INVAL);
    assert_non_null(strstr(why, "unknown placeholder {{nope}}"));
    write_file(tpath("body-ok.tpl"),
               "{\"msgtype\": \"text\",\n \"text\": {\"content\": \"{{summary}}\"}}\n\n", 0644);
    gm_notify_conf_init(&c, "t");
    assert_int_equal(gm_notify_conf_set(&c, "body-file", tpath("body-ok.tpl"), why, sizeof(why)),
                     0);
    assert_string_equal(c.body,
                        "{\"msgtype\": \"text\",\n \"text\": {\"content\": \"{{summary}}\"}}");
    assert_string_equal(c.body_file, tpath("body-ok.tpl"));
    assert_int_equal(bad, 0);
}

/* ---------------------------------------------------------- conf: check */

static void test_conf_check(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *kv[6];
        const char *why; /* NULL: valid */
    } rows[] = {
        {"pager", {"type=exec", "command=/usr/local/bin/page oncall"}, NULL},
        {"slack", {"type=webhook", "url=https://hooks.slack.com/services/T/B/X"}, NULL},
        {"am", {"type=alertmanager", "url=http://127.0.0.1:9093", "resend=30s"}, NULL},
        {"a.b-c_1", {"type=exec", "command=true"}, NULL},
        {"x", {"command=true"}, "type is missing (type = exec, webhook or alertmanager)"},
        {"x", {"type=exec"}, "command is missing"},
        {"x", {"type=webhook"}, "url is missing (type = webhook posts to it)"},
        {"x", {"type=alertmanager"}, "url is missing (type = alertmanager posts to it)"},
        {"x", {"type=exec", "command=true", "url=http://a/"}, "url is not used by type = exec"},
        {"x", {"type=exec", "command=true", "resend=1m"}, "resend is not used by type = exec"},
        {"x",
         {"type=webhook", "url=http://a/", "resend=1m"},
         "resend is not used by type = webhook"},
        {"x", {"type=webhook", "url=http://a/", "command=true"}, "command is not used by type"},
        {"x",
         {"type=alertmanager", "url=http://a/", "body={{summary}}"},
         "body is not used by type = alertmanager"},
        {"x",
         {"type=alertmanager", "url=http://a/", "content-type=text/plain"},
         "content-type is not used by type = alertmanager"},
        {"x", {"type=exec", "command=true", "ca-file=/x"}, "ca-file is not used by type = exec"},
        {"log", {"type=exec", "command=true"}, "the channel name \"log\" is taken"},
        {"", {"type=exec", "command=true"}, "invalid channel name \"\""},
        {"a b", {"type=exec", "command=true"}, "invalid channel name \"a b\""},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_notify_conf c;
        char why[512] = "";
        gm_notify_conf_init(&c, rows[i].name);
        for (const char *const *kv = rows[i].kv; *kv; kv++) {
            char k[32];
            const char *eq = strchr(*kv, '=');
            snprintf(k, sizeof(k), "%.*s", (int)(eq - *kv), *kv);
            assert_int_equal(gm_notify_conf_set(&c, k, eq + 1, why, sizeof(why)), 0);
        }
        int rc = gm_notify_conf_check(&c, why, sizeof(why));
        int ok = rows[i].why ? rc == GM_E_INVAL && strstr(why, rows[i].why) : rc == 0;
        if (!ok) {
            print_error("check row %zu [notify.%s]: rc %d, why \"%s\"; want %s\n", i, rows[i].name,
                        rc, why, rows[i].why ? rows[i].why : "success");
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* Reads dump (one [notify.NAME] section) back line by line, as the config
 * file's reader hands the keys over, and checks it gives c's settings. */
static void read_back(const struct gm_notify_conf *c, const char *dump)
{
    struct gm_notify_conf d, want;
    memcpy(&want, c, sizeof(want)); /* padding too: the structs are compared whole */
    gm_notify_conf_init(&d, c->name);
    char *text = gm_xstrdup(dump);
    char *line = strchr(text, '\n'); /* after the section header */
    assert_non_null(line);
    for (line++; *line;) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        char *eq = strstr(line, " = ");
        if (!eq)
            fail_msg("not \"key = value\": \"%s\"", line);
        *eq = '\0';
        char why[512];
        if (gm_notify_conf_set(&d, line, eq + 3, why, sizeof(why)) != 0)
            fail_msg("%s: %s", line, why);
        line = nl + 1;
    }
    free(text);
    memset(want.set, 0, sizeof(want.set));
    memset(d.set, 0, sizeof(d.set));
    assert_memory_equal(&want, &d, sizeof(d));
}

/* dump writes every key of the type with its effective value (an optional
 * key that is not set is left out), and reading the dump back, every line
 * of it, gives the same settings: it once wrote "header = " and
 * "ca-file = ", which the reader refuses (found by tests/fuzz/fuzz_config). */
static void test_conf_dump(void **state)
{
    (void)state;
    struct gm_notify_conf c;
    static const char *const kv[] = {
        "type=webhook",
        "url=https://oapi.dingtalk.com/robot/send?access_token=T",
        "body={\"msgtype\":\"text\",\"text\":{\"content\":\"{{summary}}\"}}",
        "header=X-Team: ml",
        "timeout=1500ms",
        "retries=5",
        "min-severity=critical",
        "send-resolved=false",
        NULL};
    conf_from(&c, "ding", kv);
    struct gm_buf b = GM_BUF_INIT;
    gm_notify_conf_dump(&c, &b);
    assert_string_equal(b.p,
                        "[notify.ding]\n"
                        "type = webhook\n"
                        "url = https://oapi.dingtalk.com/robot/send?access_token=T\n"
                        "body = {\"msgtype\":\"text\",\"text\":{\"content\":\"{{summary}}\"}}\n"
                        "content-type = application/json\n"
                        "header = X-Team: ml\n"
                        "timeout = 1500ms\n"
                        "retries = 5\n"
                        "min-severity = critical\n"
                        "send-resolved = false\n");
    read_back(&c, b.p);

    static const char *const am[] = {"type=alertmanager", "url=http://am:9093", "resend=2m", NULL};
    conf_from(&c, "am", am);
    gm_buf_reset(&b);
    gm_notify_conf_dump(&c, &b);
    assert_string_equal(b.p, "[notify.am]\ntype = alertmanager\nurl = http://am:9093\n"
                             "timeout = 10s\nretries = 3\nresend = 2m\n"
                             "min-severity = warning\nsend-resolved = true\n");
    read_back(&c, b.p);
    static const char *const ex[] = {"type=exec", "command=/bin/true 'x y'", NULL};
    conf_from(&c, "hook", ex);
    gm_buf_reset(&b);
    gm_notify_conf_dump(&c, &b);
    assert_string_equal(b.p, "[notify.hook]\ntype = exec\ncommand = /bin/true 'x y'\n"
                             "timeout = 10s\nretries = 3\nmin-severity = warning\n"
                             "send-resolved = true\n");
    read_back(&c, b.p);
    gm_buf_free(&b);
}

static void test_markdown(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_notify_markdown(&b);
    static const char *const rows[] = {
        "## [notify.NAME]",
        "| `type` | TYPE |  | all |",
        "| `command` | ARGV |  | exec |",
        "| `url` | URL |  | webhook, alertmanager |",
        "| `body` | TEMPLATE |  | webhook |",
        "| `body-file` | PATH |  | webhook |",
        "| `content-type` | TYPE | `application/json` | webhook |",
        "| `header` |",
        "| `ca-file` | PATH |  | webhook, alertmanager |",
        "| `timeout` | DURATION | `10s` | all |",
        "| `retries` | N | `3` | all |",
        "| `resend` | DURATION | `1m` | alertmanager |",
        "| `min-severity` | LEVEL | `warning` | all |",
        "| `send-resolved` | boolean | `true` | all |",
        "alerts.md#notification-formats",
    };
    for (size_t i = 0; i < N_ELEM(rows); i++)
        if (!strstr(b.p, rows[i]))
            fail_msg("markdown lacks \"%s\":\n%s", rows[i], b.p);
    gm_buf_free(&b);
}

/* The limits the generated docs state are the parser's: each value is cut
 * off where gm_notify_conf_set starts refusing it, and the text says so
 * (it once said "a config line holds at most 199 characters", inih's
 * buffer, long after lines became unbounded). */
static void test_markdown_limits(void **state)
{
    (void)state;
    static const struct {
        const char *key, *type;
        char fill; /* a character valid in the value */
        const char *prefix;
    } keys[] = {
        {"command", "exec", 'x', "/bin/"},
        {"url", "webhook", 'x', "http://h/"},
        {"body", "webhook", 'x', ""},
        {"header", "webhook", 'x', "X-A: "},
    };
    struct gm_buf md = GM_BUF_INIT;
    gm_notify_markdown(&md);
    assert_null(strstr(md.p, "199"));
    static char v[70000];
    for (size_t i = 0; i < N_ELEM(keys); i++) {
        /* the longest value accepted, found by trying */
        size_t ok = 0;
        for (size_t n = strlen(keys[i].prefix) + 1; n < sizeof(v) - 1; n++) {
            memset(v, keys[i].fill, n);
            memcpy(v, keys[i].prefix, strlen(keys[i].prefix));
            v[n] = '\0';
            struct gm_notify_conf c;
            char why[256] = "";
            gm_notify_conf_init(&c, "t");
            assert_int_equal(gm_notify_conf_set(&c, "type", keys[i].type, why, sizeof why), 0);
            if (gm_notify_conf_set(&c, keys[i].key, v, why, sizeof why) != 0) {
                char want[64];
                snprintf(want, sizeof want, "at most %zu bytes", n - 1);
                if (!strstr(why, want))
                    fail_msg("%s of %zu bytes: \"%s\" lacks \"%s\"", keys[i].key, n, why, want);
                break;
            }
            ok = n;
        }
        char want[64];
        snprintf(want, sizeof want, "`%s` %zu", keys[i].key, ok);
        if (ok == 0 || ok >= sizeof(v) - 2 || !strstr(md.p, want))
            fail_msg("%s: longest accepted value %zu bytes; the markdown lacks \"%s\":\n%s",
                     keys[i].key, ok, want, md.p);
    }
    if (!strstr(md.p, "Lines may be of any length"))
        fail_msg("markdown does not say that lines may be of any length:\n%s", md.p);
    gm_buf_free(&md);
}

/* ------------------------------------------------------------ argv split */

static void test_argv_split(void **state)
{
    (void)state;
    static const struct {
        const char *cmd;
        const char *argv[6]; /* expected words; empty: error */
        const char *why;
    } rows[] = {
        {"/bin/echo hello", {"/bin/echo", "hello"}, NULL},
        {"  a\t b  \n c ", {"a", "b", "c"}, NULL},
        {"a 'b c' \"d e\"", {"a", "b c", "d e"}, NULL},
        {"a 'it\"s' \"it's\"", {"a", "it\"s", "it's"}, NULL},
        {"a \"q\\\"q\" \"b\\\\s\" \"\\$x\" \"\\n\"", {"a", "q\"q", "b\\s", "$x", "\\n"}, NULL},
        {"a b\\ c \\'d", {"a", "b c", "'d"}, NULL},
        {"a'b'\"c\"d", {"abcd"}, NULL},
        {"a '' \"\"", {"a", "", ""}, NULL},
        {"echo '|;&<>()$`'", {"echo", "|;&<>()$`"}, NULL},
        {"", {NULL}, "empty command"},
        {"'unclosed", {NULL}, "unbalanced ' quote"},
        {"\"unclosed", {NULL}, "unbalanced \" quote"},
        {"a\\", {NULL}, "trailing backslash"},
        {"a;b", {NULL}, "\";\" is shell syntax"},
        {"a && b", {NULL}, "\"&\" is shell syntax"},
        {"a `b`", {NULL}, "\"`\" is shell syntax"},
        {"a \"`b`\"", {NULL}, "\"`\" is shell syntax"},
        {"(a)", {NULL}, "\"(\" is shell syntax"},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char **argv = NULL, why[256] = "";
        int n = gm_argv_split(rows[i].cmd, &argv, why, sizeof(why));
        if (rows[i].why) {
            if (n != GM_E_INVAL || argv || !strstr(why, rows[i].why)) {
                print_error("split \"%s\": %d \"%s\"; want error %s\n", rows[i].cmd, n, why,
                            rows[i].why);
                bad++;
            }
            continue;
        }
        int want = 0;
        while (want < 6 && rows[i].argv[want])
            want++;
        int same = n == want && argv && argv[n] == NULL;
        for (int k = 0; same && k < n; k++)
            same = strcmp(argv[k], rows[i].argv[k]) == 0;
        if (!same) {
            print_error("split \"%s\": %d words (%s)\n", rows[i].cmd, n, why);
            for (int k = 0; argv && k < n; k++)
                print_error("  [%d] \"%s\"\n", k, argv[k]);
            bad++;
        }
        gm_argv_free(argv);
    }
    assert_int_equal(bad, 0);
}

/* -------------------------------------------------------------- templates */

static void m_none(struct gm_alert *a)
{
    (void)a;
}
static void m_hostile(struct gm_alert *a)
{
    gm_strlcpy(a->summary,
               "GPU 5: \"hot\" & 89\xc2\xb0"
               "C\n<b>\\</b>",
               sizeof(a->summary));
}
static void m_host_resolved(struct gm_alert *a)
{
    a->gpu = -1;
    a->uuid[0] = '\0';
    a->state = GM_AL_RESOLVED;
    a->resolved_ns = (T_DEC + 90) * NS + 5 * MS;
    a->value_text[0] = '\0';
    a->value = 0.25;
    a->repeat = 1;
}

static void test_template(void **state)
{
    (void)state;
    setenv("TZ", "CST-8", 1);
    tzset();
    static const struct {
        const char *tpl;
        int escape;
        void (*mutate)(struct gm_alert *a);
        const char *want;
    } rows[] = {
        {"{\"text\": \"[{{state}}] {{host}} {{target}}: {{summary}}\"}", GM_TPL_JSON, m_none,
         "{\"text\": \"[firing] gpu-node-07 GPU 5: GPU 5 is hot\"}"},
        {"{\"text\": \"{{summary}}\"}", GM_TPL_JSON, m_hostile,
         "{\"text\": \"GPU 5: \\\"hot\\\" & 89\xc2\xb0"
         "C\\n<b>\\\\</b>\"}"},
        {"{{summary}}", GM_TPL_RAW, m_hostile,
         "GPU 5: \"hot\" & 89\xc2\xb0"
         "C\n<b>\\</b>"},
        {"text={{summary}}", GM_TPL_FORM, m_hostile,
         "text=GPU%205%3A%20%22hot%22%20%26%2089%C2%B0C%0A%3Cb%3E%5C%3C%2Fb%3E"},
        {"{{ rule }}|{{severity}}|{{gpu}}|{{uuid}}|{{gpu_name}}|{{pci_bus_id}}", GM_TPL_RAW, m_none,
         "gpu_hot|critical|5|GPU-5e1c|NVIDIA H100 80GB HBM3|00000000:8A:00.0"},
        {"{{condition}}|{{value}}|{{value_number}}|{{fingerprint}}|{{repeat}}", GM_TPL_RAW, m_none,
         "temperature.gpu > 85|89 C|89|0123456789abcdef|false"},
        {"{{active_at}}|{{fired_at}}|{{fired_at_unix_ms}}|{{resolved_at}}|{{sent_at_unix_ms}}",
         GM_TPL_RAW, m_none,
         "2026-12-02T10:00:00.000+08:00|2026-12-02T10:00:30.000+08:00|1796176830000||"
         "1796176830000"},
        {"{{target}}|{{gpu}}|{{uuid}}|{{state}}|{{value}}|{{resolved_at}}|{{resolved_at_unix_ms}}|"
         "{{repeat}}",
         GM_TPL_RAW, m_host_resolved,
         "host|||resolved|0.25|2026-12-02T10:01:30.005+08:00|1796176890005|true"},
        {"{{label.team}}/{{label.missing}}/{{active_at_unix_ms}}", GM_TPL_RAW, m_none,
         "ml//1796176800000"},
        {"{\"alert\": {{json}}}", GM_TPL_JSON, m_none, NULL /* checked below */},
        {"no placeholders }} {{", GM_TPL_RAW, m_none, "no placeholders }} {{"},
        {"{{unknown}} stays", GM_TPL_RAW, m_none, "{{unknown}} stays"},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_alert a;
        struct gm_buf b = GM_BUF_INIT;
        base_alert(&a);
        rows[i].mutate(&a);
        gm_tpl_expand(rows[i].tpl, &a, rows[i].escape, &b);
        const char *want = rows[i].want;
        struct gm_buf w = GM_BUF_INIT;
        if (!want) { /* {{json}} is the alert's JSON, unquoted */
            gm_buf_puts(&w, "{\"alert\": ");
            gm_alert_json(&a, &w);
            gm_buf_puts(&w, "}");
            want = w.p;
        }
        if (strcmp(b.p, want) != 0) {
            print_error("expand \"%s\":\n got %s\nwant %s\n", rows[i].tpl, b.p, want);
            bad++;
        }
        gm_buf_free(&w);
        gm_buf_free(&b);
    }
    assert_int_equal(bad, 0);

    static const struct {
        const char *ct;
        int escape;
    } ct[] = {
        {"application/json", GM_TPL_JSON},
        {"Application/JSON; charset=utf-8", GM_TPL_JSON},
        {"application/vnd.api+json", GM_TPL_JSON},
        {"application/x-www-form-urlencoded", GM_TPL_FORM},
        {"application/x-www-form-urlencoded; charset=utf-8", GM_TPL_FORM},
        {"text/plain", GM_TPL_RAW},
        {"application/xml", GM_TPL_RAW},
    };
    for (size_t i = 0; i < N_ELEM(ct); i++)
        if (gm_tpl_escape_for(ct[i].ct) != ct[i].escape)
            fail_msg("escape for %s: %d", ct[i].ct, gm_tpl_escape_for(ct[i].ct));
}

/* Every placeholder named by gm_tpl_names is accepted by the check. */
static void test_template_names(void **state)
{
    (void)state;
    char names[512], why[512];
    gm_strlcpy(names, gm_tpl_names(), sizeof(names));
    int count = 0;
    for (char *n = names, *e; n; n = e ? e + 2 : NULL) {
        e = strstr(n, ", ");
        if (e)
            *e = '\0';
        char tpl[600];
        snprintf(tpl, sizeof(tpl), "{{%s}}", strcmp(n, "label.NAME") == 0 ? "label.x" : n);
        if (gm_tpl_check(tpl, why, sizeof(why)) != 0)
            fail_msg("%s: %s", tpl, why);
        count++;
    }
    assert_int_equal(count, 27);
}

static void test_env(void **state)
{
    (void)state;
    setenv("TZ", "UTC0", 1);
    tzset();
    setenv("GPUMON_ALERT_STALE", "from the agent's own environment", 1);
    struct gm_alert a;
    base_alert(&a);
    a.nlabels = 2;
    gm_strlcpy(a.labels[1].name, "owner.name", sizeof(a.labels[1].name));
    gm_strlcpy(a.labels[1].value, "alice", sizeof(a.labels[1].value));
    a.value_age_ms = 7250; /* a slow read group's value, read 7.25 s before */
    char **env = gm_alert_env(&a, "pager");
    static const char *const want[] = {
        "GPUMON_ALERT_RULE=gpu_hot",
        "GPUMON_ALERT_STATE=firing",
        "GPUMON_ALERT_SEVERITY=critical",
        "GPUMON_ALERT_REPEAT=false",
        "GPUMON_ALERT_HOST=gpu-node-07",
        "GPUMON_ALERT_GPU=5",
        "GPUMON_ALERT_TARGET=GPU 5",
        "GPUMON_ALERT_UUID=GPU-5e1c",
        "GPUMON_ALERT_GPU_NAME=NVIDIA H100 80GB HBM3",
        "GPUMON_ALERT_PCI_BUS_ID=00000000:8A:00.0",
        "GPUMON_ALERT_JOB_ID=slurm:4242",
        "GPUMON_ALERT_SUMMARY=GPU 5 is hot",
        "GPUMON_ALERT_CONDITION=temperature.gpu > 85",
        "GPUMON_ALERT_VALUE=89 C",
        "GPUMON_ALERT_VALUE_NUMBER=89",
        "GPUMON_ALERT_VALUE_AGE_SECONDS=7.25",
        "GPUMON_ALERT_ACTIVE_AT=2026-12-02T02:00:00.000+00:00",
        "GPUMON_ALERT_ACTIVE_AT_UNIX_MS=1796176800000",
        "GPUMON_ALERT_FIRED_AT=2026-12-02T02:00:30.000+00:00",
        "GPUMON_ALERT_FIRED_AT_UNIX_MS=1796176830000",
        "GPUMON_ALERT_RESOLVED_AT=",
        "GPUMON_ALERT_RESOLVED_AT_UNIX_MS=",
        "GPUMON_ALERT_SENT_AT=2026-12-02T02:00:30.000+00:00",
        "GPUMON_ALERT_SENT_AT_UNIX_MS=1796176830000",
        "GPUMON_ALERT_FINGERPRINT=0123456789abcdef",
        "GPUMON_ALERT_LABEL_TEAM=ml",
        "GPUMON_ALERT_LABEL_OWNER_NAME=alice",
        "GPUMON_NOTIFY_CHANNEL=pager",
    };
    int found[N_ELEM(want)] = {0}, ours = 0, path = 0;
    for (char **e = env; *e; e++) {
        if (strncmp(*e, "GPUMON_ALERT_", 13) == 0 || strncmp(*e, "GPUMON_NOTIFY_", 14) == 0)
            ours++;
        path |= strncmp(*e, "PATH=", 5) == 0 || strncmp(*e, "TZ=UTC0", 7) == 0;
        for (size_t i = 0; i < N_ELEM(want); i++)
            if (strcmp(*e, want[i]) == 0)
                found[i]++;
    }
    for (size_t i = 0; i < N_ELEM(want); i++)
        if (found[i] != 1)
            fail_msg("%s found %d times", want[i], found[i]);
    assert_int_equal(ours, (int)N_ELEM(want)); /* GPUMON_ALERT_STALE is not passed on */
    assert_true(path);                         /* the rest of the environment is */
    gm_alert_env_free(env);
    unsetenv("GPUMON_ALERT_STALE");
}

/* A GPU name and a summary are text from outside: each variable is one line
 * of valid UTF-8 (controls and bad bytes as U+FFFD); a text/plain body gets
 * the bytes repaired and the controls kept; form encoding encodes the
 * repaired bytes. */
static void test_env_and_bodies_outside_text(void **state)
{
    (void)state;
    struct gm_alert a;
    base_alert(&a);
    gm_strlcpy(a.gpu_name, "=H100\n\x1b[2J\xff", sizeof(a.gpu_name));
    gm_strlcpy(a.summary, "GPU 5 (=H100\n\x1b[2J\xff) is hot", sizeof(a.summary));
    char **env = gm_alert_env(&a, "pager");
    int seen = 0;
    for (char **e = env; *e; e++) {
        if (strncmp(*e, "GPUMON_ALERT_GPU_NAME=", 22) == 0) {
            assert_string_equal(*e + 22, "=H100\xEF\xBF\xBD\xEF\xBF\xBD[2J\xEF\xBF\xBD");
            seen++;
        } else if (strncmp(*e, "GPUMON_ALERT_SUMMARY=", 21) == 0) {
            assert_string_equal(*e + 21,
                                "GPU 5 (=H100\xEF\xBF\xBD\xEF\xBF\xBD[2J\xEF\xBF\xBD) is hot");
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    gm_alert_env_free(env);

    struct gm_buf b = GM_BUF_INIT;
    gm_tpl_expand("[{{gpu_name}}]", &a, GM_TPL_RAW, &b);
    assert_string_equal(b.p, "[=H100\n\x1b[2J\xEF\xBF\xBD]");
    gm_buf_reset(&b);
    gm_tpl_expand("n={{gpu_name}}", &a, GM_TPL_FORM, &b);
    assert_string_equal(b.p, "n=%3DH100%0A%1B%5B2J%EF%BF%BD");
    gm_buf_reset(&b);
    gm_tpl_expand("{\"n\": \"{{gpu_name}}\"}", &a, GM_TPL_JSON, &b);
    assert_string_equal(b.p, "{\"n\": \"=H100\\n\\u001b[2J\xEF\xBF\xBD\"}");
    gm_buf_free(&b);
}

/* ----------------------------------------------------------- alertmanager */

static void test_am_url(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        {"http://am:9093", "http://am:9093/api/v2/alerts"},
        {"http://am:9093/", "http://am:9093/api/v2/alerts"},
        {"http://am:9093//", "http://am:9093/api/v2/alerts"},
        {"https://x/prefix", "https://x/prefix/api/v2/alerts"},
        {"http://am:9093/api/v2/alerts", "http://am:9093/api/v2/alerts"},
        {"http://h/p/api/v2/alerts", "http://h/p/api/v2/alerts"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char out[128];
        assert_int_equal(gm_am_url(rows[i].in, out, sizeof(out)), 0);
        assert_string_equal(out, rows[i].out);
    }
    char small[20];
    assert_int_equal(gm_am_url("http://am:9093", small, sizeof(small)), GM_E_INVAL);
}

static void test_am_body(void **state)
{
    (void)state;
    setenv("TZ", "UTC0", 1);
    tzset();
    struct gm_alert f, r, h;
    base_alert(&f);
    /* extra labels: an override of a built-in, a bad name, alertname, a duplicate */
    f.nlabels = 5;
    gm_strlcpy(f.labels[1].name, "severity", sizeof(f.labels[1].name));
    gm_strlcpy(f.labels[1].value, "page", sizeof(f.labels[1].value));
    gm_strlcpy(f.labels[2].name, "bad-name", sizeof(f.labels[2].name));
    gm_strlcpy(f.labels[2].value, "x", sizeof(f.labels[2].value));
    gm_strlcpy(f.labels[3].name, "alertname", sizeof(f.labels[3].name));
    gm_strlcpy(f.labels[3].value, "renamed", sizeof(f.labels[3].value));
    gm_strlcpy(f.labels[4].name, "team", sizeof(f.labels[4].name));
    gm_strlcpy(f.labels[4].value, "second", sizeof(f.labels[4].value));
    f.value_age_ms = 8000; /* a slow read group's value, read 8 s before */
    base_alert(&r);
    r.state = GM_AL_RESOLVED;
    r.resolved_ns = (T_DEC + 600) * NS;
    r.nlabels = 0;
    base_alert(&h);
    h.gpu = -1;
    h.uuid[0] = h.gpu_name[0] = h.job[0] = '\0';
    h.value_text[0] = '\0';
    h.value = 0.5;
    h.fired_ns = 0;
    h.nlabels = 0;
    const struct gm_alert *list[] = {&f, &r, &h};
    struct gm_buf b = GM_BUF_INIT;
    gm_am_body(list, 3, (T_DEC + 1000) * NS, 60 * NS, &b);
    const char *want =
        "[{\"labels\":{\"alertname\":\"gpu_hot\",\"instance\":\"gpu-node-07\","
        "\"hostname\":\"gpu-node-07\",\"gpu\":\"5\",\"uuid\":\"GPU-5e1c\","
        "\"name\":\"NVIDIA H100 80GB HBM3\",\"job_id\":\"slurm:4242\",\"team\":\"ml\","
        "\"severity\":\"page\"},"
        "\"annotations\":{\"summary\":\"GPU 5 is hot\",\"condition\":\"temperature.gpu > 85\","
        "\"value\":\"89 C\",\"value_age_seconds\":\"8\"},"
        "\"startsAt\":\"2026-12-02T02:00:30.000+00:00\","
        "\"endsAt\":\"2026-12-02T02:20:40.000+00:00\"},"
        "{\"labels\":{\"alertname\":\"gpu_hot\",\"severity\":\"critical\","
        "\"instance\":\"gpu-node-07\",\"hostname\":\"gpu-node-07\",\"gpu\":\"5\","
        "\"uuid\":\"GPU-5e1c\",\"name\":\"NVIDIA H100 80GB HBM3\",\"job_id\":\"slurm:4242\"},"
        "\"annotations\":{\"summary\":\"GPU 5 is hot\",\"condition\":\"temperature.gpu > 85\","
        "\"value\":\"89 C\"},\"startsAt\":\"2026-12-02T02:00:30.000+00:00\","
        "\"endsAt\":\"2026-12-02T02:10:00.000+00:00\"},"
        "{\"labels\":{\"alertname\":\"gpu_hot\",\"severity\":\"critical\","
        "\"instance\":\"gpu-node-07\",\"hostname\":\"gpu-node-07\"},"
        "\"annotations\":{\"summary\":\"GPU 5 is hot\",\"condition\":\"temperature.gpu > 85\","
        "\"value\":\"0.5\"},\"startsAt\":\"2026-12-02T02:00:00.000+00:00\","
        "\"endsAt\":\"2026-12-02T02:20:40.000+00:00\"}]";
    if (strcmp(b.p, want) != 0)
        fail_msg("am body:\n got %s\nwant %s", b.p, want);
    gm_buf_reset(&b);
    gm_am_body(list, 0, 0, 0, &b);
    assert_string_equal(b.p, "[]");
    /* endsAt is always after startsAt (Alertmanager refuses the POST
     * otherwise): resolved in the same instant, or fired "in the future" */
    r.resolved_ns = r.fired_ns;
    f.fired_ns = (T_DEC + 5000) * NS;
    const struct gm_alert *odd[] = {&r, &f};
    gm_buf_reset(&b);
    gm_am_body(odd, 2, (T_DEC + 1000) * NS, 60 * NS, &b);
    assert_non_null(strstr(b.p, "\"startsAt\":\"2026-12-02T02:00:30.000+00:00\","
                                "\"endsAt\":\"2026-12-02T02:00:30.001+00:00\""));
    assert_non_null(strstr(b.p, "\"startsAt\":\"2026-12-02T03:23:20.000+00:00\","
                                "\"endsAt\":\"2026-12-02T03:23:20.001+00:00\""));
    gm_buf_free(&b);
}

/* ------------------------------------------------------ HTTP answers etc. */

static void test_http_ok(void **state)
{
    (void)state;
    static const struct {
        long status;
        const char *body;
        const char *why; /* NULL: delivered */
    } rows[] = {
        {200, "", NULL},
        {204, "", NULL},
        {202, "ok", NULL},
        {200, "{\"errcode\":0,\"errmsg\":\"ok\"}", NULL},
        {200, " {\"errcode\" : 0}", NULL},
        {200, "{\"ok\":true}", NULL},
        {200, "not json errcode\":5", NULL},
        {200, "{\"errcode\":310000,\"errmsg\":\"keywords not in content\"}",
         "HTTP 200 with errcode 310000: {\"errcode\":310000,\"errmsg\":\"keywords not in "
         "content\"}"},
        {200, "{\"errcode\": 93000, \"errmsg\": \"invalid webhook url\"}", "errcode 93000"},
        {500, "boom\nline two", "HTTP 500: boom line two"},
        {404, "", "HTTP 404"},
        {302, "", "HTTP 302"},
        {0, "", "HTTP 0"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_http_resp r = {.status = rows[i].status};
        gm_strlcpy(r.body, rows[i].body, sizeof(r.body));
        char why[256] = "";
        int rc = gm_notify_http_ok(&r, why, sizeof(why));
        if (rows[i].why ? rc == 0 || !strstr(why, rows[i].why) : rc != 0)
            fail_msg("%ld \"%s\": rc %d \"%s\"", rows[i].status, rows[i].body, rc, why);
    }
}

static void test_backoff(void **state)
{
    (void)state;
    static const int64_t want[] = {0, 1, 2, 4, 8, 16, 32, 60, 60, 60};
    for (unsigned i = 0; i < N_ELEM(want); i++)
        assert_true(gm_notify_backoff_ns(i) == want[i] * NS);
    assert_true(gm_notify_backoff_ns(1000) == 60 * NS);
}

/* -------------------------------------------------- the notifier: hooks */

/* A hook that records its environment, argv and stdin, then exits with
 * the status in $1. */
static const char record_hook[] = "#!/bin/sh\n"
                                  "out=\"$2\"\n"
                                  "env | grep '^GPUMON_' | sort > \"$out.env\"\n"
                                  "printf '%s\\n' \"$@\" > \"$out.argv\"\n"
                                  "cat > \"$out.stdin\"\n"
                                  "echo \"hook says hi\"\n"
                                  "exit \"$1\"\n";

static void test_exec_hook(void **state)
{
    (void)state;
    setenv("TZ", "UTC0", 1);
    tzset();
    write_file(tpath("record.sh"), record_hook, 0755);
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "command=%s 0 '%s' 'two words'", tpath("record.sh"), tpath("rec"));
    const char *kv[] = {"type=exec", cmd, "timeout=5s", NULL};
    struct gm_notify_conf c;
    conf_from(&c, "rec", kv);
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts.jsonl"), &c, 1, 8, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    gm_notifier_send(nf, &a);
    struct gm_notify_stats st = wait_done(nf, 1, 1);
    assert_int_equal(st.sent, 1);
    assert_int_equal(st.failed, 0);
    assert_int_equal(st.retries, 0);
    assert_true(st.last_ok_ns > 0);
    assert_string_equal(st.name, "rec");
    assert_int_equal(st.type, GM_NT_EXEC);
    gm_notifier_stop(nf, 5 * NS);
    assert_no_children();

    char *env = read_file(tpath("rec.env"));
    char *argv = read_file(tpath("rec.argv"));
    char *in = read_file(tpath("rec.stdin"));
    assert_non_null(env);
    assert_non_null(strstr(env, "GPUMON_ALERT_RULE=gpu_hot\n"));
    assert_non_null(strstr(env, "GPUMON_ALERT_GPU=5\n"));
    assert_non_null(strstr(env, "GPUMON_ALERT_SUMMARY=GPU 5 is hot\n"));
    assert_non_null(strstr(env, "GPUMON_ALERT_FIRED_AT=2026-12-02T02:00:30.000+00:00\n"));
    assert_non_null(strstr(env, "GPUMON_ALERT_LABEL_TEAM=ml\n"));
    assert_non_null(strstr(env, "GPUMON_NOTIFY_CHANNEL=rec\n"));
    char wargv[600];
    snprintf(wargv, sizeof(wargv), "0\n%s\ntwo words\n", tpath("rec"));
    assert_string_equal(argv, wargv);
    struct gm_buf j = GM_BUF_INIT;
    gm_alert_json(&a, &j);
    gm_buf_putc(&j, '\n');
    assert_string_equal(in, j.p);
    /* the alert log got the same line */
    char *log = read_file(tpath("alerts.jsonl"));
    assert_string_equal(log, j.p);
    free(env);
    free(argv);
    free(in);
    free(log);
    gm_buf_free(&j);
}

/* Non-zero exit: retried after 1 s, then counted failed with the status
 * and the start of the hook's output. */
static void test_exec_hook_fails(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "command=%s 3 '%s'", tpath("record.sh"), tpath("fail"));
    const char *kv[] = {"type=exec", cmd, "retries=1", NULL};
    struct gm_notify_conf c;
    conf_from(&c, "failing", kv);
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts-f.jsonl"), &c, 1, 8, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    int64_t t0 = gm_mono_ns();
    gm_notifier_send(nf, &a);
    struct gm_notify_stats st = wait_done(nf, 1, 1);
    int64_t took = gm_mono_ns() - t0;
    assert_int_equal(st.sent, 0);
    assert_int_equal(st.failed, 1);
    assert_int_equal(st.retries, 1);
    assert_non_null(strstr(st.last_error, "exited with status 3: hook says hi"));
    assert_true(took >= 900 * MS); /* the backoff before the retry */
    assert_true(took < 30 * NS);   /* not a backoff in the wrong unit (1000 s) */
    gm_notifier_stop(nf, 5 * NS);
    assert_no_children();
}

static void test_exec_spawn_failure(void **state)
{
    (void)state;
    const char *kv[] = {"type=exec", "command=/nonexistent/gpumon-hook --x", "retries=0", NULL};
    struct gm_notify_conf c;
    conf_from(&c, "missing", kv);
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts-m.jsonl"), &c, 1, 8, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    gm_notifier_send(nf, &a);
    struct gm_notify_stats st = wait_done(nf, 1, 1);
    assert_int_equal(st.failed, 1);
    assert_string_equal(st.last_error,
                        "cannot run /nonexistent/gpumon-hook: No such file or directory");
    gm_notifier_stop(nf, 5 * NS);
    assert_no_children();
}

/* A hook that hangs is killed at its timeout (SIGTERM), its children too,
 * and reaped; one that ignores SIGTERM gets SIGKILL a second later.  The
 * lower bounds are the timeout (and the second); the upper one is what a
 * hook left to run would take (1000 s) with a factor to spare. */
static void test_exec_hook_hangs(void **state)
{
    (void)state;
    static const struct {
        const char *script;
        const char *why;
        int64_t min_ns, max_ns;
    } rows[] = {
        {"#!/bin/sh\nsleep 1000 & echo $! > \"$1\"\nwait\n",
         "timed out after 0.3 s; killed (SIGTERM)", 300 * MS, 30 * NS},
        {"#!/bin/sh\ntrap '' TERM\nsleep 1000 & echo $! > \"$1\"\nwhile :; do wait; done\n",
         "killed (SIGKILL after SIGTERM)", 1300 * MS, 30 * NS},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        write_file(tpath("hang.sh"), rows[i].script, 0755);
        unlink(tpath("hang.pid"));
        char cmd[700];
        snprintf(cmd, sizeof(cmd), "command=%s %s", tpath("hang.sh"), tpath("hang.pid"));
        const char *kv[] = {"type=exec", cmd, "timeout=300ms", "retries=0", NULL};
        struct gm_notify_conf c;
        conf_from(&c, "hang", kv);
        struct gm_err err = {0};
        struct gm_notifier *nf = gm_notifier_start(tpath("alerts-h.jsonl"), &c, 1, 8, &err);
        assert_non_null(nf);
        struct gm_alert a;
        base_alert(&a);
        int64_t t0 = gm_mono_ns();
        gm_notifier_send(nf, &a);
        struct gm_notify_stats st = wait_done(nf, 1, 1);
        int64_t took = gm_mono_ns() - t0;
        print_message("hang row %zu: failed after %.2f s: %s\n", i, (double)took / 1e9,
                      st.last_error);
        assert_int_equal(st.failed, 1);
        if (!strstr(st.last_error, rows[i].why))
            fail_msg("row %zu: \"%s\" lacks \"%s\"", i, st.last_error, rows[i].why);
        assert_true(took >= rows[i].min_ns && took < rows[i].max_ns);
        gm_notifier_stop(nf, 5 * NS);
        assert_no_children();
        /* the hook's own child (same process group) is gone too */
        char *pid = read_file(tpath("hang.pid"));
        assert_non_null(pid);
        pid_t child = (pid_t)atoi(pid);
        assert_true(child > 0);
        int64_t until = gm_mono_ns() + WAIT_NS;
        while (!gone(child) && gm_mono_ns() < until) {
            struct timespec ts = {0, 20 * MS};
            nanosleep(&ts, NULL);
        }
        assert_true(gone(child));
        free(pid);
    }
}

/* Directly: a hook that never reads its stdin, or closes it, while we have
 * far more to write than a pipe holds.  Neither blocks us (the last row's
 * hook would run 1000 s: a write blocked on its stdin would miss the 0.3 s
 * timeout); EPIPE does not kill the process (this test does not ignore
 * SIGPIPE).  The others' timeouts are far beyond what they take. */
static void test_hook_stdin(void **state)
{
    (void)state;
    size_t len = 1 << 20;
    char *input = gm_xmalloc(len);
    memset(input, 'j', len);
    static const struct {
        const char *cmd;
        int64_t timeout;
        int rc, timed_out;
    } rows[] = {
        {"/bin/sh -c 'sleep 0.2; exit 0'", 60 * NS, 0, 0},
        {"/bin/sh -c 'exec 0<&-; sleep 0.2; exit 0'", 60 * NS, 0, 0},
        {"/bin/sh -c 'head -c 1000 > /dev/null; exit 0'", 60 * NS, 0, 0},
        {"/bin/sleep 1000", 300 * MS, GM_E_IO, 1},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char **argv, why[512];
        assert_true(gm_argv_split(rows[i].cmd, &argv, why, sizeof(why)) > 0);
        static char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
        struct gm_hook_result r;
        int64_t t0 = gm_mono_ns();
        int rc = gm_hook_run(argv, envp, input, len, rows[i].timeout, NULL, &r, why, sizeof(why));
        int64_t took = gm_mono_ns() - t0;
        if (rc != rows[i].rc || r.timed_out != rows[i].timed_out || !r.stdin_short)
            fail_msg("%s: rc %d timed_out %d stdin_short %d: %s", rows[i].cmd, rc, r.timed_out,
                     r.stdin_short, why);
        assert_true(took < 30 * NS);
        gm_argv_free(argv);
        assert_no_children();
    }
    /* and one that reads it all */
    char **argv, why[512];
    assert_true(gm_argv_split("/bin/sh -c 'wc -c'", &argv, why, sizeof(why)) > 0);
    struct gm_hook_result r;
    static char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
    assert_int_equal(gm_hook_run(argv, envp, input, len, 5 * NS, NULL, &r, why, sizeof(why)), 0);
    assert_false(r.stdin_short);
    assert_string_equal(r.output, "1048576");
    gm_argv_free(argv);
    free(input);
}

/* gm_notifier_stop kills a hook that is still running and reaps it. */
static void test_stop_kills_hook(void **state)
{
    (void)state;
    write_file(tpath("slow.sh"), "#!/bin/sh\ntouch \"$1\"\nexec sleep 1000\n", 0755);
    unlink(tpath("slow.started"));
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "command=%s %s", tpath("slow.sh"), tpath("slow.started"));
    const char *kv[] = {"type=exec", cmd, "timeout=10m", NULL};
    struct gm_notify_conf c;
    conf_from(&c, "slow", kv);
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts-s.jsonl"), &c, 1, 8, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    gm_notifier_send(nf, &a);
    gm_notifier_send(nf, &a); /* stays queued: lost at the stop */
    int64_t until = gm_mono_ns() + WAIT_NS;
    while (access(tpath("slow.started"), F_OK) != 0 && gm_mono_ns() < until) {
        struct timespec ts = {0, 10 * MS};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(access(tpath("slow.started"), F_OK), 0);
    int64_t t0 = gm_mono_ns();
    gm_notifier_stop(nf, 200 * MS);
    int64_t took = gm_mono_ns() - t0;
    print_message("stop with a running hook took %.2f s\n", (double)took / 1e9);
    /* its 200 ms of grace, then the kill: well before the hook's own end
     * (1000 s, its timeout 10 min) */
    assert_true(took >= 200 * MS && took < 60 * NS);
    assert_no_children();
}

/* The alert log, and which notices go where. */
static void test_log_and_filters(void **state)
{
    (void)state;
    write_file(tpath("count.sh"),
               "#!/bin/sh\necho \"$GPUMON_ALERT_STATE $GPUMON_ALERT_SEVERITY "
               "$GPUMON_ALERT_REPEAT\" >> \"$1\"\n",
               0755);
    unlink(tpath("crit.txt"));
    unlink(tpath("all.txt"));
    unlink(tpath("alerts-l.jsonl"));
    char c1[700], c2[700];
    snprintf(c1, sizeof(c1), "command=%s %s", tpath("count.sh"), tpath("crit.txt"));
    snprintf(c2, sizeof(c2), "command=%s %s", tpath("count.sh"), tpath("all.txt"));
    const char *kv1[] = {"type=exec", c1, "min-severity=critical", "send-resolved=false", NULL};
    const char *kv2[] = {"type=exec", c2, NULL};
    struct gm_notify_conf c[2];
    conf_from(&c[0], "crit", kv1);
    conf_from(&c[1], "all", kv2);
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts-l.jsonl"), c, 2, 16, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    a.severity = GM_SEV_WARNING;
    gm_notifier_send(nf, &a); /* warning firing: all, log */
    a.severity = GM_SEV_CRITICAL;
    gm_notifier_send(nf, &a); /* critical firing: crit, all, log */
    a.repeat = 1;
    gm_notifier_send(nf, &a); /* repeat: crit, all, log */
    a.repeat = 2;
    gm_notifier_send(nf, &a); /* resync: Alertmanager only */
    a.repeat = 0;
    a.state = GM_AL_RESOLVED;
    gm_notifier_send(nf, &a); /* resolved critical: all, log (crit has send-resolved off) */
    a.state = GM_AL_PENDING;
    gm_notifier_send(nf, &a); /* pending: the log only */
    assert_int_equal(wait_done(nf, 0, 5).sent, 5);
    assert_int_equal(wait_done(nf, 1, 2).sent, 2);
    assert_int_equal(wait_done(nf, 2, 4).sent, 4);
    struct gm_notify_stats st[4];
    assert_int_equal(gm_notifier_stats(nf, st, 4), 3);
    assert_string_equal(st[0].name, "log");
    assert_int_equal(st[0].type, GM_NT_NONE);
    gm_notifier_stop(nf, 5 * NS);
    assert_no_children();
    char *crit = read_file(tpath("crit.txt"));
    char *all = read_file(tpath("all.txt"));
    assert_string_equal(crit, "firing critical false\nfiring critical true\n");
    assert_string_equal(all, "firing warning false\nfiring critical false\n"
                             "firing critical true\nresolved critical false\n");
    char *log = read_file(tpath("alerts-l.jsonl"));
    int lines = 0;
    for (char *p = log; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 5);
    assert_non_null(strstr(log, "\"state\":\"pending\""));
    free(crit);
    free(all);
    free(log);
}

/* The alert log on a full disk (RLIMIT_FSIZE: EFBIG, as ENOSPC would be):
 * no half line stays, the notices wait in memory past the retries that
 * would have given up (1 + 2 + 4 s), a queue that overflows meanwhile drops
 * and counts, and when there is room again they are written in order. */
static void test_log_disk_full(void **state)
{
    (void)state;
    unlink(tpath("alerts-full.jsonl"));
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts-full.jsonl"), NULL, 0, 3, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    gm_strlcpy(a.rule, "n0", sizeof(a.rule));
    gm_notifier_send(nf, &a);
    assert_int_equal(wait_done(nf, 0, 1).sent, 1);
    struct stat sb;
    assert_int_equal(stat(tpath("alerts-full.jsonl"), &sb), 0);
    off_t size1 = sb.st_size;

    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t)size1 + 10; /* room for part of a line */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for (int i = 1; i <= 5; i++) { /* one written at a time, three wait, one is dropped */
        snprintf(a.rule, sizeof(a.rule), "n%d", i);
        gm_notifier_send(nf, &a);
        if (i == 1) /* the worker took n1 and its write failed */
            assert_true(wait_retries(nf, 0, 1).retries >= 1);
    }
    /* A fourth retry: past the third, after which a channel that counted
     * these failures would give up (and count the notice failed). */
    struct gm_notify_stats st = wait_retries(nf, 0, 4);
    assert_int_equal(stat(tpath("alerts-full.jsonl"), &sb), 0);
    off_t size_full = sb.st_size;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, oldsig);
    assert_int_equal(st.sent, 1);
    assert_int_equal(st.failed, 0);
    assert_int_equal(st.dropped, 1);
    assert_int_equal(st.queue_len, 3);
    assert_true(st.retries >= 4);
    assert_non_null(strstr(st.last_error, "File too large"));
    assert_int_equal(size_full, size1); /* the short writes were cut back */

    st = wait_done(nf, 0, 5);
    assert_int_equal(st.sent, 5);
    assert_int_equal(st.failed, 0);
    gm_notifier_stop(nf, 5 * NS);
    char *log = read_file(tpath("alerts-full.jsonl"));
    const char *p = log;
    for (int i = 0; i < 5; i++) {
        char want[32];
        snprintf(want, sizeof(want), "{\"rule\":\"n%d\"", i);
        if (strncmp(p, want, strlen(want)) != 0)
            fail_msg("line %d of the alert log: %.60s, want %s", i + 1, p, want);
        p = strchr(p, '\n');
        assert_non_null(p);
        p++;
    }
    assert_string_equal(p, "");
    free(log);
}

/* A full queue drops and counts; gm_notifier_send never waits.  The hook
 * runs 30 s (the stop kills it): a send that waited for room would wait for
 * it, so a third of that is the bound. */
static void test_overflow(void **state)
{
    (void)state;
    const char *kv[] = {"type=exec", "command=/bin/sleep 30", NULL};
    struct gm_notify_conf c;
    conf_from(&c, "slow", kv);
    struct gm_err err = {0};
    struct gm_notifier *nf = gm_notifier_start(tpath("alerts-o.jsonl"), &c, 1, 2, &err);
    assert_non_null(nf);
    struct gm_alert a;
    base_alert(&a);
    int64_t worst = 0;
    for (int i = 0; i < 10; i++) {
        int64_t t0 = gm_mono_ns();
        gm_notifier_send(nf, &a);
        int64_t d = gm_mono_ns() - t0;
        worst = d > worst ? d : worst;
    }
    struct gm_notify_stats st = stats_of(nf, 1);
    print_message("10 sends into a queue of 2: dropped %llu, queued %u, slowest send %.1f us\n",
                  (unsigned long long)st.dropped, st.queue_len, (double)worst / 1e3);
    /* one may already be running; at most two more wait */
    assert_true(st.dropped >= 7 && st.dropped <= 8);
    assert_true(st.dropped + st.queue_len + 1 >= 10);
    assert_true(worst < 10 * NS);
    gm_notifier_stop(nf, 0);
    assert_no_children();
}

static void test_start_errors(void **state)
{
    (void)state;
    struct gm_err err = {0};
    assert_null(gm_notifier_start("/nonexistent/dir/alerts.jsonl", NULL, 0, 8, &err));
    assert_non_null(strstr(err.msg, "cannot open the alert log /nonexistent/dir/alerts.jsonl: "
                                    "No such file or directory"));

    const char *kv[] = {"type=webhook", "url=https://127.0.0.1:9/x", "ca-file=/nonexistent.pem",
                        NULL};
    struct gm_notify_conf c;
    conf_from(&c, "hook", kv);
    memset(&err, 0, sizeof(err));
    assert_null(gm_notifier_start(tpath("alerts-e.jsonl"), &c, 1, 8, &err));
    assert_string_equal(err.msg,
                        "[notify.hook]: ca-file /nonexistent.pem: No such file or directory");

    setenv("GPUMON_NOTIFY_MODULE", "/nonexistent/gpumon_notify.so", 1);
    const char *kv2[] = {"type=alertmanager", "url=http://127.0.0.1:9", NULL};
    conf_from(&c, "am", kv2);
    memset(&err, 0, sizeof(err));
    assert_null(gm_notifier_start(tpath("alerts-e.jsonl"), &c, 1, 8, &err));
    assert_int_equal(err.code, GM_E_NOLIB);
    assert_non_null(strstr(err.msg, "[notify.am]: cannot load the notifier's HTTP module "
                                    "(webhooks, Alertmanager): /nonexistent/gpumon_notify.so"));
    assert_non_null(strstr(err.msg, "; it needs gpumon_notify.so and libcurl.so.4 (Debian and "
                                    "Ubuntu: apt install gpumon-extras; "));
    unsetenv("GPUMON_NOTIFY_MODULE");

    struct gm_notify_conf two[2];
    const char *kv3[] = {"type=exec", "command=true", NULL};
    conf_from(&two[0], "same", kv3);
    conf_from(&two[1], "same", kv3);
    memset(&err, 0, sizeof(err));
    assert_null(gm_notifier_start(tpath("alerts-e.jsonl"), two, 2, 8, &err));
    assert_string_equal(err.msg, "[notify.same] given twice");

    gm_notifier_stop(NULL, 0);
    gm_notifier_send(NULL, NULL);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/gpumon-test-notify-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conf_set_errors),
        cmocka_unit_test(test_conf_check),
        cmocka_unit_test(test_conf_dump),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_markdown_limits),
        cmocka_unit_test(test_argv_split),
        cmocka_unit_test(test_template),
        cmocka_unit_test(test_template_names),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_env_and_bodies_outside_text),
        cmocka_unit_test(test_am_url),
        cmocka_unit_test(test_am_body),
        cmocka_unit_test(test_http_ok),
        cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_exec_hook),
        cmocka_unit_test(test_exec_hook_fails),
        cmocka_unit_test(test_exec_spawn_failure),
        cmocka_unit_test(test_exec_hook_hangs),
        cmocka_unit_test(test_hook_stdin),
        cmocka_unit_test(test_stop_kills_hook),
        cmocka_unit_test(test_log_and_filters),
        cmocka_unit_test(test_log_disk_full),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_start_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* cli.c -- helpers shared by the subcommands (see cli.h). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../agent/config.h"
#include "../core/log.h"
#include "../core/snapshot.h"
#include "../core/text.h"
#include "../core/timeutil.h"
#include "../view/query.h"
#include "cmdspec.h"

volatile sig_atomic_t cli_stop;

__attribute__((format(printf, 2, 0))) static void vmsg(const char *kind, const char *fmt,
                                                       va_list ap)
{
    fprintf(stderr, "gpumon: %s: ", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("error", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning", fmt, ap);
    va_end(ap);
}

void cli_log_cb(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level <= GM_LOG_ERR)
        cli_error("%s", msg);
    else if (level <= GM_LOG_WARNING)
        cli_warn("%s", msg);
}

/* The flag of cmd (NULL: gpumon's own) nearest to opt ("--jsn",
 * "--sinse=1h"), from the flags of its option table (cmdspec.h), or
 * NULL. */
static const char *nearest_flag(const char *cmd, const char *opt, char *out, size_t len)
{
    /* a short flag has too few letters to be a typo of one */
    if (strncmp(opt, "--", 2) != 0)
        return NULL;
    struct cli_spec sp;
    memset(&sp, 0, sizeof(sp));
    int rc = -1;
    if (!cmd) {
        rc = cli_spec_read_main(&sp);
    } else {
        size_t n;
        const struct gm_cmd *const *t = cli_commands(&n);
        for (size_t i = 0; i < n; i++)
            if (strcmp(t[i]->name, cmd) == 0)
                rc = cli_spec_read(t[i], &sp);
    }
    if (rc != 0)
        return NULL;
    struct gm_text_suggest sg;
    gm_text_suggest_init(&sg, opt, strcspn(opt, "="));
    for (size_t i = 0; i < sp.nflags; i++)
        gm_text_suggest_add(&sg, sp.flags[i].name);
    const char *near = NULL;
    size_t word = strcspn(opt, "=");
    /* the flag itself, where it is known but not here ("alerts test
     * --since": a flag of another form of the command) is no suggestion */
    if (sg.best && !(strlen(sg.best) == word && strncmp(sg.best, opt, word) == 0))
        near = gm_strlcpy(out, sg.best, len);
    cli_spec_free(&sp);
    return near;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (strcmp(fmt, "unknown option %s") == 0) {
        /* every command reports an unknown option so: "did you mean" here */
        const char *opt = va_arg(ap, const char *);
        va_end(ap);
        char shown[256], near[64];
        gm_text_term_s(shown, sizeof(shown), opt, cli_utf8());
        if (nearest_flag(cmd, opt, near, sizeof(near)))
            cli_error("unknown option %s; did you mean %s?", shown, near);
        else
            cli_error("unknown option %s", shown);
        fprintf(stderr, "Try 'gpumon %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
        return GM_EXIT_USAGE;
    }
    vmsg("error", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'gpumon %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
    return GM_EXIT_USAGE;
}

int cli_color(int force)
{
    if (force >= 0)
        return force;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    const char *term = getenv("TERM");
    if (!term || strcmp(term, "dumb") == 0)
        return 0;
    return isatty(STDOUT_FILENO);
}

int cli_utf8(void)
{
    static int cached = -1;
    if (cached < 0) {
        setlocale(LC_CTYPE, "");
        const char *cs = nl_langinfo(CODESET);
        cached = cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
    }
    return cached;
}

int cli_write(int fd, const struct gm_buf *b)
{
    int rc = gm_buf_write_fd(b, fd);
    if (rc < 0) {
        if (rc == -EPIPE)
            return GM_EXIT_FAIL;
        cli_error("cannot write output: %s", strerror(-rc));
        return GM_EXIT_FAIL;
    }
    return 0;
}

void cli_agent_reply(struct gm_buf *out, const char *reply)
{
    const char *p = reply;
    while (*p) {
        size_t n = strcspn(p, "\n");
        gm_text_line(out, p, n);
        gm_buf_putc(out, '\n');
        p += n + (p[n] == '\n');
    }
}

void cli_agent_refused(const char *what, const char *reply)
{
    size_t n = strcspn(reply, "\n");
    size_t skip = strncmp(reply, "ERR ", 4) == 0 ? 4 : 0;
    struct gm_buf why = GM_BUF_INIT;
    gm_text_line(&why, reply + skip, n - (skip < n ? skip : n));
    cli_error("the agent refused %s: %s", what, why.p ? why.p : "");
    gm_buf_free(&why);
}

int cli_loop(struct gm_collector *col, int64_t interval_ns, int64_t timeout_ns, const char *ids,
             cli_rows_fn rows, void *arg)
{
    struct gm_snapshot *s = gm_snapshot_new();
    int64_t next = gm_mono_ns();
    int first = 1, failing = 0, rc = 0;
    for (;;) {
        int src = cli_sample(col, s, timeout_ns, first || !failing);
        if (src && first) {
            rc = src;
            break;
        }
        if (src) {
            if (!failing)
                cli_warn("no rows until the driver answers again");
            failing = 1;
        } else {
            if (failing)
                cli_warn("the driver answers again; rows resume");
            failing = 0;
            uint64_t mask;
            struct gm_err err = {0};
            if (gm_query_select(s, ids, &mask, &err) != 0) {
                cli_error("%s", err.msg);
                rc = GM_EXIT_USAGE;
                break;
            }
            int r = rows(arg, s, mask, first);
            if (r != 0) {
                rc = r == CLI_LOOP_END ? 0 : r;
                break;
            }
            first = 0;
        }
        if (!interval_ns || cli_stop)
            break;
        next += interval_ns;
        int64_t now = gm_mono_ns();
        if (next < now) /* a slow sample: skip missed ticks instead of bursting */
            next = now + interval_ns - (now - next) % interval_ns;
        if (gm_sleep_until(next, &cli_stop))
            break;
    }
    gm_snapshot_free(s);
    return rc;
}

int cli_parse_seconds(const char *s, int64_t *ns)
{
    int64_t v;
    if (gm_parse_duration(s, &v) != 0 || v <= 0)
        return GM_E_INVAL;
    *ns = v;
    return 0;
}

int cli_open(struct gm_collector **c, const struct gm_collector_opts *o)
{
    struct gm_err err = {0};
    int rc = gm_collector_open(c, o, &err);
    if (rc == 0)
        return 0;
    cli_error("%s", err.msg);
    gm_collector_close(*c);
    *c = NULL;
    return GM_EXIT_NVML;
}

int cli_sample(struct gm_collector *c, struct gm_snapshot *s, int64_t timeout_ns, int report)
{
    struct gm_err err = {0};
    int rc = gm_collector_sample(c, s, timeout_ns, &err);
    if (rc == GM_E_TIMEOUT) {
        cli_error("%s", err.msg);
        gm_collector_abandon(c);
        /* the stuck thread cannot be joined: leave without running destructors */
        fflush(stdout);
        _exit(GM_EXIT_NVML);
    }
    if (s->driver != GM_DRV_OK) {
        if (report)
            cli_error("%s", s->driver_msg);
        return GM_EXIT_NVML;
    }
    uint32_t denied = 0;
    for (uint32_t i = 0; i < s->ngpu; i++)
        denied += s->gpus[i].state == GM_GPU_NOPERM;
    if (s->ngpu && denied == s->ngpu) {
        if (report)
            cli_error("no permission to open any of the %u GPUs (NVML: Insufficient Permissions); "
                      "check that /dev/nvidiactl and /dev/nvidia0.. exist and that your user may "
                      "open them (ls -l /dev/nvidia*); run 'gpumon doctor' (check 'devnodes')",
                      s->ngpu);
        return GM_EXIT_NVML;
    }
    return 0;
}

static void on_stop(int sig)
{
    (void)sig;
    cli_stop = 1;
}

void cli_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cli_default_config_unreadable(const char *msg)
{
    cli_warn("cannot read the default configuration (%s); going on without it (--config FILE "
             "names one, --no-config reads none)",
             msg);
}

int cli_config(struct gm_config *c, const char *config, int no_config, const char *data_dir,
               const char *store_path)
{
    struct gm_err err = {0};
    gm_config_defaults(c);
    if (!no_config) {
        char def[4096];
        const char *path = config ? config : gm_config_default_path(def, sizeof(def));
        int rc = gm_config_load_file(c, path, &err);
        if (rc == GM_E_NOPERM && !config) {
            cli_default_config_unreadable(err.msg);
        } else if (rc != 0 && !(rc == GM_E_NOTFOUND && !config)) {
            cli_error("%s", err.msg);
            return GM_EXIT_USAGE;
        }
    }
    if ((data_dir && gm_config_set(c, "data-dir", data_dir, &err) != 0) ||
        (store_path && gm_config_set(c, "store-path", store_path, &err) != 0) ||
        gm_config_finish(c, &err) != 0) {
        cli_error("%s", err.msg);
        return GM_EXIT_USAGE;
    }
    return 0;
}

/* Parses "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]" or with a 'T', optionally
 * followed by "Z" or "+HH:MM"/"-HH:MM"; local time without an offset. */
int cli_parse_time(const char *s, int64_t *ns)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    int n = 0;
    // NOLINTNEXTLINE(cert-err34-c): %2d fields cannot overflow; the count checks the form
    if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3)
        return -1;
    const char *p = s + n;
    if (*p == 'T' || *p == ' ') {
        int m = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &m) != 2) // NOLINT(cert-err34-c)
            return -1;
        p += 1 + m;
        if (*p == ':') {
            if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]))
                return -1;
            tm.tm_sec = (p[1] - '0') * 10 + (p[2] - '0');
            p += 3;
        }
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    time_t t;
    if (*p == '\0') {
        tm.tm_isdst = -1;
        t = mktime(&tm);
    } else if (*p == 'Z' && p[1] == '\0') {
        t = timegm(&tm);
    } else if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1]) &&
               isdigit((unsigned char)p[2]) && p[3] == ':' && isdigit((unsigned char)p[4]) &&
               isdigit((unsigned char)p[5]) && p[6] == '\0') {
        int off =
            ((p[1] - '0') * 10 + (p[2] - '0')) * 3600 + ((p[4] - '0') * 10 + (p[5] - '0')) * 60;
        t = timegm(&tm) - (*p == '+' ? off : -off);
    } else {
        return -1;
    }
    *ns = (int64_t)t * 1000000000LL;
    return 0;
}

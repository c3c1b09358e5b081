/* log.c -- journald-friendly stderr logging (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/timeutil.h"

static int max_level = GM_LOG_INFO;
static int under_systemd;

void gm_log_init(int level)
{
    const char *js = getenv("JOURNAL_STREAM");
    const char *inv = getenv("INVOCATION_ID");
    under_systemd = (js && *js) || (inv && *inv);
    max_level = level;
}

void gm_log_set_level(int level)
{
    max_level = level;
}

int gm_log_level_parse(const char *s)
{
    static const struct {
        const char *name;
        int level;
    } names[] = {{"error", GM_LOG_ERR},
                 {"warning", GM_LOG_WARNING},
                 {"notice", GM_LOG_NOTICE},
                 {"info", GM_LOG_INFO},
                 {"debug", GM_LOG_DEBUG}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].level;
    return -1;
}

static const char *level_word(int level)
{
    switch (level) {
    case GM_LOG_ERR:
        return "error";
    case GM_LOG_WARNING:
        return "warning";
    case GM_LOG_NOTICE:
        return "notice";
    case GM_LOG_DEBUG:
        return "debug";
    default:
        return "info";
    }
}

__attribute__((format(printf, 2, 0))) static void vlog(int level, const char *fmt, va_list ap)
{
    if (level > max_level)
        return;
    char line[1024];
    int n;
    if (under_systemd) {
        n = snprintf(line, sizeof(line), "<%d>", level);
    } else {
        char t[48];
        n = snprintf(line, sizeof(line),
                     "%s gpumon[%d]: %s: ", gm_time_iso(gm_wall_ns(), t, sizeof(t)), (int)getpid(),
                     level_word(level));
    }
    if (n < 0)
        return;
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    /* one line per message: newlines inside become spaces */
    for (size_t i = (size_t)n; i < len; i++)
        if (line[i] == '\n')
            line[i] = ' ';
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void gm_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

void gm_log_cb(void *arg, int level, const char *msg)
{
    (void)arg;
    gm_log(level, "%s", msg);
}

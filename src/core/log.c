/* log.c -- journald-friendly stderr logging (see log.h).  Each message is
 * one line of valid UTF-8 (names in it are text from outside). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"
#include "timeutil.h"

/* max_level changes on a reload (gm_log_set_level, the main thread) while
 * other threads log: it is read and written atomically.  under_systemd is
 * set once, before any thread starts. */
static int max_level = GM_LOG_INFO;
static int under_systemd;

void gm_log_init(int level)
{
    const char *js = getenv("JOURNAL_STREAM");
    const char *inv = getenv("INVOCATION_ID");
    under_systemd = (js && *js) || (inv && *inv);
    __atomic_store_n(&max_level, level, __ATOMIC_RELAXED);
}

void gm_log_set_level(int level)
{
    __atomic_store_n(&max_level, level, __ATOMIC_RELAXED);
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
    if (level > __atomic_load_n(&max_level, __ATOMIC_RELAXED))
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
    char msg[1024];
    if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
        return;
    /* one line of valid UTF-8 per message: messages carry process and GPU
     * names (text from outside, core/text.h); a newline becomes a space,
     * other control characters and bad bytes U+FFFD, and the line is cut at
     * a character boundary */
    size_t len = (size_t)n, avail = sizeof(line) - 1;
    for (size_t i = 0, ml = strlen(msg); i < ml;) {
        uint32_t cp;
        size_t l = gm_text_utf8_seq(msg + i, ml - i, &cp);
        const char *piece = msg + i;
        size_t pl = l;
        if (!l) {
            piece = GM_TEXT_REPL;
            pl = 3;
            l = 1;
        } else if (gm_text_is_control(cp)) {
            piece = cp == '\n' ? " " : GM_TEXT_REPL;
            pl = strlen(piece);
        }
        if (len + pl > avail)
            break;
        memcpy(line + len, piece, pl);
        len += pl;
        i += l;
    }
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

void gm_logf(gm_log_fn fn, void *arg, int level, const char *fmt, ...)
{
    if (!fn)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fn(arg, level, msg);
}

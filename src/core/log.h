/* log.h -- the agent's own log, on stderr, journald-friendly.
 *
 * Under systemd (JOURNAL_STREAM or INVOCATION_ID set) lines carry the
 * kernel-style priority prefix "<3>" ... "<7>" that journald understands and
 * no timestamp (the journal adds its own).  Elsewhere lines read
 * "2026-12-02T10:00:00.000+08:00 gpumon[1234]: warning: ...".
 * Thread-safe; one write(2) per line.
 */
#ifndef GM_CORE_LOG_H
#define GM_CORE_LOG_H

enum { GM_LOG_ERR = 3, GM_LOG_WARNING = 4, GM_LOG_NOTICE = 5, GM_LOG_INFO = 6, GM_LOG_DEBUG = 7 };

/* Chooses the format (systemd or not) and the lowest level printed; call
 * it before starting threads.  gm_log_set_level may be called at any time
 * from any thread (a reload), while others log. */
void gm_log_init(int max_level);
void gm_log_set_level(int max_level);
/* Parses "error", "warning", "notice", "info", "debug"; -1 if unknown. */
int gm_log_level_parse(const char *s);

void gm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A log callback: what the modules below the agent (the CSV log, the store,
 * the exporter) take, so that they log without knowing where lines go.
 * level is one of GM_LOG_*; msg is one line without a newline. */
typedef void (*gm_log_fn)(void *arg, int level, const char *msg);

/* Formats a message (at most 1 KiB; longer ones are cut) and hands it to
 * fn(arg, level, msg); nothing when fn is NULL. */
void gm_logf(gm_log_fn fn, void *arg, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* gm_log_fn that writes to this log (arg unused). */
void gm_log_cb(void *arg, int level, const char *msg);

#endif /* GM_CORE_LOG_H */

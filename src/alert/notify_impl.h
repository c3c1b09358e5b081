/* notify_impl.h -- internals shared by the notifier's files (notify.c,
 * notify_conf.c, template.c, hook.c, alertmanager.c, http_load.c) and
 * their unit tests.  Not a contract for other modules: use notify.h.
 */
#ifndef GM_ALERT_NOTIFY_IMPL_H
#define GM_ALERT_NOTIFY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "alert.h"
#include "http_module.h"

/* ------------------------------------------------ template.c: alert fields */

/* How substituted values are escaped, chosen from the content type. */
enum gm_tpl_escape {
    GM_TPL_RAW = 0,  /* as they are (text/plain, ...) */
    GM_TPL_JSON = 1, /* as the inside of a JSON string (any type containing "json") */
    GM_TPL_FORM = 2, /* percent-encoded (application/x-www-form-urlencoded) */
};

int gm_tpl_escape_for(const char *content_type);

/* Checks a body template: every {{...}} closed and known.  Returns 0, or
 * GM_E_INVAL with the reason in why. */
int gm_tpl_check(const char *tpl, char *why, size_t wlen);

/* Appends tpl with its placeholders replaced by a's fields. */
void gm_tpl_expand(const char *tpl, const struct gm_alert *a, int escape, struct gm_buf *out);

/* Appends the value of one placeholder (unescaped); returns -1 for an
 * unknown name. */
int gm_tpl_field(const char *name, size_t len, const struct gm_alert *a, struct gm_buf *out);

/* The names of the placeholders, for messages and docs: "rule, state, ...". */
const char *gm_tpl_names(void);

/* A hook's environment: the process's own, less any GPUMON_ALERT_*, plus
 * GPUMON_ALERT_<FIELD> for every field, GPUMON_ALERT_LABEL_<NAME> for every
 * label and GPUMON_NOTIFY_CHANNEL.  NULL-terminated; free with
 * gm_alert_env_free. */
char **gm_alert_env(const struct gm_alert *a, const char *channel);
void gm_alert_env_free(char **env);

/* ------------------------------------------------------ hook.c: exec hooks */

/* Splits a command line the way sh would split words (blanks separate;
 * '...' is literal; "..." allows \" \\ \$ \`; \ outside quotes escapes the
 * next character) without expanding anything.  Returns argc (> 0) and a
 * NULL-terminated *argv (free with gm_argv_free), or GM_E_INVAL with the
 * reason (unbalanced quote, trailing backslash, empty) in why. */
int gm_argv_split(const char *cmd, char ***argv, char *why, size_t wlen);
void gm_argv_free(char **argv);

struct gm_hook_result {
    int started; /* the program ran (else why says why not) */
    int exited;  /* it exited by itself: status is its exit status */
    int status;
    int signo;       /* it died of this signal (ours or another's) */
    int timed_out;   /* we killed it at its timeout */
    int aborted;     /* we killed it because the notifier is stopping */
    int stdin_short; /* it exited or closed stdin before reading all of it */
    int64_t elapsed_ns;
    char output[256]; /* the start of its stdout and stderr, NUL-terminated */
};

/* Runs argv (PATH searched for argv[0]) with envp, writes input to its
 * stdin without ever blocking on it, captures the start of its output, and
 * waits for it at most timeout_ns: then SIGTERM to its process group,
 * SIGKILL after GM_HOOK_KILL_GRACE_NS, and it is always reaped.  *abort
 * becoming non-zero ends the wait early the same way.  Returns 0 when it
 * exited with status 0, else GM_E_IO and the reason in why. */
#define GM_HOOK_KILL_GRACE_NS 1000000000LL
int gm_hook_run(char *const argv[], char *const envp[], const char *input, size_t len,
                int64_t timeout_ns, const int *abort, struct gm_hook_result *r, char *why,
                size_t wlen);

/* ------------------------------------------------- alertmanager.c: API v2 */

/* <base>/api/v2/alerts, or url itself when it already ends so.  Returns 0,
 * or GM_E_INVAL when the result does not fit. */
int gm_am_url(const char *url, char *out, size_t len);

/* The POST body for /api/v2/alerts: a JSON array with one object per
 * alert.  Firing alerts end at now + 4 x resend (Prometheus's convention: an
 * alert not re-sent by then resolves by itself), resolved ones at their
 * resolved time. */
void gm_am_body(const struct gm_alert *const *alerts, int n, int64_t now_ns, int64_t resend_ns,
                struct gm_buf *out);

/* ----------------------------------------------- http_load.c: the module */

/* Loads gpumon_notify.so (once; thread-safe).  NULL and err when it
 * cannot be found or loaded. */
const struct gm_notify_http_module *gm_notify_http_load(struct gm_err *err);

/* ---------------------------------------------------------------- notify.c */

/* The retry delay before attempt k (k >= 1): 1 s, 2 s, 4 s ... capped at
 * GM_NOTIFY_BACKOFF_MAX_NS. */
#define GM_NOTIFY_BACKOFF_MAX_NS (60 * 1000000000LL)
int64_t gm_notify_backoff_ns(unsigned attempt);

/* Whether an HTTP answer is a delivery: a 2xx status, and no non-zero
 * "errcode" in a JSON body (DingTalk and WeCom robots answer 200 with
 * {"errcode":310000,...} when they refuse a message).  Otherwise writes
 * the reason into why. */
int gm_notify_http_ok(const struct gm_http_resp *r, char *why, size_t wlen);

#endif /* GM_ALERT_NOTIFY_IMPL_H */

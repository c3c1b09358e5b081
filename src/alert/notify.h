/* notify.h -- delivering alerts: the alert log, exec hooks, webhooks and
 * Alertmanager, each on its own worker thread behind a bounded queue.
 *
 * DESIGN principle 2 applied to alerts: nothing here runs on the sampler's
 * or the rule engine's thread.  gm_notifier_send() copies the alert into
 * every channel's queue and returns at once; a full queue drops the alert
 * for that channel and counts it.  A channel's worker retries failed
 * deliveries with exponential backoff, up to its retry count, and never
 * waits longer than its timeout for one attempt.
 *
 * Channels:
 *  - the alert log, always on: one JSON object per line (gm_alert_json) in
 *    <data-dir>/alerts.jsonl, appended and flushed per alert;
 *  - [notify.NAME] sections of the configuration, one channel each:
 *    type = exec (argv, no shell; alert fields as GPUMON_ALERT_* environment
 *    variables and the JSON on stdin; killed at its timeout), webhook (HTTP
 *    POST of the JSON or of a body template), alertmanager (POST to
 *    /api/v2/alerts; firing alerts are re-sent while they fire).
 * Keys and defaults are documented in docs/config.md (gm_notify_markdown);
 * the JSON, the hook's environment, the template placeholders and the
 * Alertmanager body in docs/alerts.md ("Notification formats").
 *
 * HTTP (webhook, alertmanager) goes through libcurl, which lives in the
 * module gpumon_notify.so (like the exporter's gpumon_export.so) so that
 * libcurl and OpenSSL never load into the one-shot commands; it is loaded
 * by gm_notifier_start when a channel needs it.
 */
#ifndef GM_ALERT_NOTIFY_H
#define GM_ALERT_NOTIFY_H

#include <limits.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "alert.h"

#define GM_NOTIFY_MAX 16 /* [notify.NAME] sections */

enum gm_notify_type { GM_NT_NONE = 0, GM_NT_EXEC, GM_NT_WEBHOOK, GM_NT_ALERTMANAGER };

/* One [notify.NAME] section.  Plain data (compared with memcmp to tell
 * whether a reload changed it), zeroed then filled by gm_notify_conf_set. */
struct gm_notify_conf {
    char name[64];
    int type;                 /* enum gm_notify_type */
    char command[1024];       /* exec: the argv, split like a shell would but run without one */
    char url[1024];           /* webhook, alertmanager (base URL or .../api/v2/alerts) */
    char body[4096];          /* webhook: body template ("" = the alert's JSON) */
    char body_file[PATH_MAX]; /* webhook: where body was read from (body-file), or "" */
    char content_type[128];
    char header[512];       /* webhook, alertmanager: one extra header, "Name: value" */
    char ca_file[PATH_MAX]; /* https: extra CA bundle (verification is always on) */
    int64_t timeout_ns;     /* one attempt (exec: until the hook is killed) */
    unsigned retries;       /* attempts after the first */
    int64_t resend_ns;      /* alertmanager: re-send firing alerts this often */
    int min_severity;       /* enum gm_alert_severity: below it is not sent */
    int send_resolved;
    int set[16]; /* internal: which keys were given (duplicate and required checks) */
};

/* Sets the defaults of a new section named name. */
void gm_notify_conf_init(struct gm_notify_conf *c, const char *name);

/* Sets one key of a [notify.NAME] section from the config file.  On error
 * writes the reason (without file:line, the caller adds it) into why. */
int gm_notify_conf_set(struct gm_notify_conf *c, const char *key, const char *value, char *why,
                       size_t wlen);

/* Checks a complete section (a valid name, type given, url or command
 * present, no key the type does not use, template placeholders known).  On
 * error writes the reason (without file or section) into why. */
int gm_notify_conf_check(const struct gm_notify_conf *c, char *why, size_t wlen);

/* Appends the section to an INI dump (gpumon config show): every key of
 * the type with its effective value, leaving out the optional ones that are
 * not set (header, ca-file, body-file), so that the dump reads back. */
void gm_notify_conf_dump(const struct gm_notify_conf *c, struct gm_buf *out);

/* Appends the documentation of the [notify.NAME] keys (docs/config.md). */
void gm_notify_markdown(struct gm_buf *out);

struct gm_notifier;

/* Starts the channels: the alert log at log_path (required) and one per
 * conf (each already accepted by gm_notify_conf_check).  Each queue holds
 * queue_size alerts.  Fails when the log cannot be opened, a channel needs
 * the HTTP module and it cannot be loaded, a ca-file cannot be read, or a
 * worker cannot start (err says which, naming the channel). */
struct gm_notifier *gm_notifier_start(const char *log_path, const struct gm_notify_conf *confs,
                                      int nconfs, unsigned queue_size, struct gm_err *err);

/* Queues a copy of a to every channel whose settings want it (severity,
 * send_resolved; a->repeat == 2 is a resync for Alertmanager only, sent
 * after a reload so that it knows what is still firing).  Never blocks. */
void gm_notifier_send(struct gm_notifier *nf, const struct gm_alert *a);

struct gm_notify_stats {
    char name[64]; /* "log" for the alert log */
    int type;
    uint32_t queue_len;
    /* sent and failed count deliveries: one per alert, except for
     * alertmanager, where one POST (which may carry several alerts) is one */
    uint64_t sent;      /* delivered */
    uint64_t failed;    /* gave up after the retries */
    uint64_t retries;   /* attempts after a failure */
    uint64_t dropped;   /* queue full, or still queued when stopped */
    int64_t last_ok_ns; /* wall time of the last delivery, 0 = none */
    char last_error[256];
};

/* Fills up to max entries (the log first); returns how many channels exist. */
int gm_notifier_stats(struct gm_notifier *nf, struct gm_notify_stats *out, int max);

/* Delivers what is queued within timeout_ns, then stops the workers: an
 * HTTP request still running is aborted, a hook still running is killed
 * and reaped, what is still queued is logged as lost.  A worker stuck in
 * the kernel (a hung disk) is left to the process's exit.  Accepts NULL. */
void gm_notifier_stop(struct gm_notifier *nf, int64_t timeout_ns);

#endif /* GM_ALERT_NOTIFY_H */

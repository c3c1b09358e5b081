/* cli.h -- the command table and what every subcommand shares.
 *
 * cli/ is the only place that parses argv, prints usage or calls exit()
 * (DESIGN).  Each subcommand lives in its own cmd_*.c and exports one
 * struct gm_cmd; main.c lists them.
 *
 * Exit statuses (README "Exit status"):
 *   0  success
 *   1  a runtime failure (cannot write output, I/O error)
 *   2  bad usage: unknown flag or field, bad --format, bad GPU id
 *   3  NVML unavailable: no library, driver not loaded, no permission,
 *      driver/library version mismatch, or a hung driver call
 */
#ifndef GM_CLI_H
#define GM_CLI_H

#include <signal.h>
#include <stdint.h>

#include "../agent/collector.h"
#include "../core/buf.h"
#include "../core/err.h"

enum { GM_EXIT_OK = 0, GM_EXIT_FAIL = 1, GM_EXIT_USAGE = 2, GM_EXIT_NVML = 3 };

struct gm_optcmd;

struct gm_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    const struct gm_optcmd *opts; /* its option table (opt.h): parse, help, completion, page */
};

extern const struct gm_cmd gm_cmd_status;
extern const struct gm_cmd gm_cmd_query;
extern const struct gm_cmd gm_cmd_metrics;
extern const struct gm_cmd gm_cmd_agent;
extern const struct gm_cmd gm_cmd_record;
extern const struct gm_cmd gm_cmd_serve;
extern const struct gm_cmd gm_cmd_config;
extern const struct gm_cmd gm_cmd_mark;
extern const struct gm_cmd gm_cmd_report;
extern const struct gm_cmd gm_cmd_alerts;
extern const struct gm_cmd gm_cmd_dmon;
extern const struct gm_cmd gm_cmd_pmon;
extern const struct gm_cmd gm_cmd_top;
extern const struct gm_cmd gm_cmd_free;
extern const struct gm_cmd gm_cmd_fleet;
extern const struct gm_cmd gm_cmd_doctor;
extern const struct gm_cmd gm_cmd_diagnose;
extern const struct gm_cmd gm_cmd_plot;
extern const struct gm_cmd gm_cmd_completion;
extern const struct gm_cmd gm_cmd_manpage;
extern const struct gm_cmd gm_cmd_topo;
extern const struct gm_cmd gm_cmd_mig;
extern const struct gm_cmd gm_cmd_run;

/* --sim SCENARIO: checks that the file is readable and points
 * GPUSIM_SCENARIO and GPUMON_NVML_LIB at it and at the simulator library;
 * prints the error and returns -1 when it is not readable, else 0. */
int cli_use_sim(const char *scenario);

/* Appends nvidia-smi's `--version` block (NVIDIA-SMI, NVML, DRIVER and
 * CUDA versions, smiver.c) to out from one sample.  Returns 0, or
 * GM_EXIT_NVML with nothing appended when NVML cannot answer (the cause
 * printed when report != 0). */
int cli_smi_version(struct gm_buf *out, int report);

/* "gpumon: error: ..." on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "gpumon: warning: ..." on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A gm_log_fn for modules below the CLI (the collector's job-mapping
 * directory): warnings and errors as cli_warn/cli_error lines, the rest
 * dropped (arg unused). */
void cli_log_cb(void *arg, int level, const char *msg);

/* Usage error: prints the message and "Try 'gpumon CMD --help'."; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether to colour stdout: --color/--no-color (force: 1/0, -1 = auto),
 * NO_COLOR, TERM=dumb, and whether stdout is a terminal. */
int cli_color(int force);
/* Whether the locale's character set is UTF-8. */
int cli_utf8(void);

/* Writes buf to stdout (or fd) completely; on failure prints an error and
 * returns GM_EXIT_FAIL, else 0. */
int cli_write(int fd, const struct gm_buf *b);

/* Appends reply, an answer read from agent.sock, as plain text: each line
 * through gm_text_line (valid UTF-8, no control character: whoever listens
 * on the socket may not be our agent), its newlines kept and one at the
 * end. */
void cli_agent_reply(struct gm_buf *out, const char *reply);

/* Prints "gpumon: error: the agent refused WHAT: REASON" for reply, an
 * answer "ERR REASON" (or anything else that is no answer to WHAT), its
 * first line made plain text as cli_agent_reply does. */
void cli_agent_refused(const char *what, const char *reply);

/* Parses seconds with an optional unit ("2", "0.5", "500ms", "1m") > 0. */
int cli_parse_seconds(const char *s, int64_t *ns);

/* Opens the collector; on an NVML failure prints the cause and returns
 * GM_EXIT_NVML (the collector is closed), else 0. */
int cli_open(struct gm_collector **c, const struct gm_collector_opts *o);

/* One sample with the watchdog.  On a driver failure recorded in the
 * snapshot (driver not loaded, version mismatch, ...) returns GM_EXIT_NVML,
 * printing the cause when report != 0; else 0.  A hung call prints the call
 * and exits the process with GM_EXIT_NVML (the stuck thread cannot be
 * joined). */
int cli_sample(struct gm_collector *c, struct gm_snapshot *s, int64_t timeout_ns, int report);

/* The -l loop of query, dmon and pmon: what each sample does with its
 * snapshot (mask: the GPUs -i selected; first: nothing was written yet).
 * Returns 0 to go on, CLI_LOOP_END to stop with status 0, or an exit
 * status to stop with. */
typedef int (*cli_rows_fn)(void *arg, const struct gm_snapshot *s, uint64_t mask, int first);
#define CLI_LOOP_END (-1)

/* Samples col, then every interval_ns (only once when 0) on an absolute
 * grid that skips the ticks a slow sample missed instead of bursting,
 * until rows says stop, SIGINT/SIGTERM (cli_stop) or a failure.  A driver
 * failure on the first sample ends the loop with its status; later ones
 * are reported once on stderr and rows resume when the driver answers
 * again.  ids is -i's list (gm_query_select).  Returns the exit status. */
int cli_loop(struct gm_collector *col, int64_t interval_ns, int64_t timeout_ns, const char *ids,
             cli_rows_fn rows, void *arg);

/* The agent's configuration for a command that reads what the agent wrote
 * (report, alerts): defaults, then the file (--config FILE, else the default
 * file when it exists; none with no_config), then --data-dir/--store-path
 * when given.  Prints the error and returns GM_EXIT_USAGE, else 0.  A
 * default file we may not read (HOME not the caller's: sudo -u, setpriv)
 * is a warning (cli_default_config_unreadable) and the defaults stay; an
 * unreadable --config FILE is an error. */
struct gm_config;
void cli_default_config_unreadable(const char *msg);
int cli_config(struct gm_config *c, const char *config, int no_config, const char *data_dir,
               const char *store_path);

/* Parses a point in time: YYYY-MM-DD[THH:MM[:SS]] (or a space for the 'T'),
 * optionally followed by Z or +HH:MM/-HH:MM; local time without an offset.
 * report --from/--to, diagnose and plot --until.  Returns 0 or -1. */
int cli_parse_time(const char *s, int64_t *ns);

/* The --timeout default for NVML calls: 10 s. */
#define CLI_DEFAULT_TIMEOUT_NS (10LL * 1000000000LL)

/* Set by SIGINT/SIGTERM in looping commands: the one type C lets a signal
 * handler write and the program read (C11 7.14.1.1). */
extern volatile sig_atomic_t cli_stop;
void cli_catch_stop_signals(void);

#endif /* GM_CLI_H */

/* config.h -- the agent's settings: one table of options that both the
 * config file (INI) and the command line use, with the same names.
 *
 * A flag --NAME sets the key NAME; in the file the key lives in its section
 * ([agent], [exporter], [alerts]).  Alert rules ([alert.NAME], rule.h) and
 * notification channels ([notify.NAME], notify.h) exist only in the file.  Unknown sections,
 * unknown keys, duplicate keys and bad values are errors that name the place: "FILE:LINE: reason"
 * for the file, "--NAME: reason" for flags. docs/config.md is generated from the table (`gpumon
 * config --markdown`).
 */
#ifndef GM_AGENT_CONFIG_H
#define GM_AGENT_CONFIG_H

#include <limits.h>
#include <stdint.h>

#include "../alert/notify.h"
#include "../alert/rule.h"
#include "../core/buf.h"
#include "../core/err.h"

/* The longest task name, in bytes. */
#define GM_TASK_MAX 63

struct gm_config {
    /* [agent] */
    int64_t interval_ns;
    char data_dir[PATH_MAX];
    char task[GM_TASK_MAX + 1];
    char nvml_lib[PATH_MAX];
    int64_t nvml_timeout_ns; /* a sample still running after this is reported as hung */
    int log_level;
    unsigned queue_size;
    /* CSV log */
    int csv;
    char csv_dir[PATH_MAX];
    char columns[2048];
    int procs;
    char job_map_dir[PATH_MAX]; /* dcgm-exporter's job-mapping directory; "" none */
    int pcie;                   /* read PCIe throughput (GM_RG_PCIE_TPUT) every sample */
    int64_t retention_ns;
    int64_t compress_after_ns;
    int csv_sync;
    /* SQLite store */
    int store;
    char store_path[PATH_MAX];
    int64_t store_retention_raw_ns;
    int64_t store_retention_1m_ns;
    int64_t store_retention_1h_ns;
    int store_gpm;
    /* exporter */
    int exporter;
    char listen[256];
    int names; /* enum gm_prom_names: 0 native, 1 dcgm */
    int hostname_label;
    int hostname;                /* dcgm names: Hostname label (default on) */
    char dcgm_label_fields[512]; /* dcgm names: label-type fields on every series */
    int process_metrics;
    unsigned max_process_series;
    char textfile_dir[PATH_MAX];
    char web_config[PATH_MAX];
    char allowed_hosts[1024]; /* comma-separated Host names besides the agent's own */
    int api_command_lines;    /* /api/v1/status with command lines without auth */
    unsigned max_connections;
    int64_t connection_timeout_ns;
    int64_t stale_after_ns; /* 0 = three intervals plus 30 s */
    /* alerts */
    int alerts;                 /* evaluate the rules */
    int default_rules;          /* the seeds' rule set */
    char alert_log[PATH_MAX];   /* default <data-dir>/alerts.jsonl */
    char alert_state[PATH_MAX]; /* default <data-dir>/alerts.state (record --once) */
    struct gm_rules rules;      /* [alert.NAME] sections over the defaults */
    int nnotify;
    struct gm_notify_conf notify[GM_NOTIFY_MAX]; /* [notify.NAME] sections */
    /* diagnosis (docs/diagnose.md) */
    int diagnose;
    int64_t diagnose_window_ns;
    int64_t diagnose_every_ns;
    /* [fleet]: the agents `gpumon fleet` asks without --hosts, and the
     * agent's fleet page's (docs/fleet.md) */
    char fleet[8192];
    int64_t fleet_interval_ns;          /* a round of the fleet page this often */
    int64_t fleet_timeout_ns;           /* every node's answers within this */
    int fleet_tls;                      /* https for hosts without a scheme */
    char fleet_cacert[PATH_MAX];        /* more trusted CAs (PEM), "" none */
    char fleet_cert[PATH_MAX];          /* client certificate (PEM), "" none */
    char fleet_key[PATH_MAX];           /* its key */
    char fleet_user[256];               /* basic auth, "" none */
    char fleet_password_file[PATH_MAX]; /* its password: the file's first line */
};

/* Fills every option with its default.  data-dir defaults to
 * $STATE_DIRECTORY (systemd), else /var/lib/gpumon for root, else
 * $XDG_STATE_HOME/gpumon or ~/.local/state/gpumon. */
void gm_config_defaults(struct gm_config *c);

/* Sets key from a string (a flag).  Errors: "--key: reason". */
int gm_config_set(struct gm_config *c, const char *key, const char *value, struct gm_err *err);

/* Whether s[0..n) is a task name: 1-GM_TASK_MAX letters, digits, '.', '_',
 * '-', not starting with '.' (it is part of file names). */
int gm_config_task_valid(const char *s, size_t n);

/* Whether key names an option, and whether it takes a value (not a bool). */
int gm_config_has_key(const char *key, int *takes_value);

/* Reads an INI file on top of c, all or nothing (c is changed only when the
 * whole file is valid).  The file is read once, whole, so a pipe or FIFO
 * (/dev/stdin) reads like a file (opening a FIFO waits for its writer; a
 * reload uses gm_config_load with GM_CONFIG_REGULAR instead); lines may be
 * of any length.  Errors: "FILE:LINE: reason" (GM_E_INVAL; also a NUL byte); a missing file is
 * GM_E_NOTFOUND ("FILE: No such file or directory"); one we may not open
 * GM_E_NOPERM ("FILE: Permission denied"); a directory or a read error is
 * GM_E_IO ("FILE: Is a directory"); a file over 1 MiB GM_E_INVAL. */
int gm_config_load_file(struct gm_config *c, const char *path, struct gm_err *err);

/* gm_config_load's flags. */
#define GM_CONFIG_REGULAR 1u /* a regular file only, and never wait in open (a reload) */

/* gm_config_load_file with flags: with GM_CONFIG_REGULAR a FIFO, socket or
 * device is GM_E_IO ("FILE: not a regular file (a FIFO); a reload reads
 * only a regular file, ..."), found without blocking (O_NONBLOCK): the
 * agent's SIGHUP reload must not wait for a writer while SIGTERM waits. */
int gm_config_load(struct gm_config *c, const char *path, unsigned flags, struct gm_err *err);

/* The default config file: $CONFIGURATION_DIRECTORY/gpumon.conf under a
 * systemd unit with ConfigurationDirectory= (the first of several), else
 * /etc/gpumon/gpumon.conf for root, else $XDG_CONFIG_HOME/gpumon/gpumon.conf
 * (~/.config/...). */
const char *gm_config_default_path(char *buf, size_t len);

/* A module's check of the string values of its section, for a module in
 * a layer above the agent's (the fleet's host list): key and value as
 * read; 0 when valid, else nonzero with the reason (without the place) in
 * why.  Called wherever such a value is read from a file or a flag, so the
 * error names the place, as for the exporter's own keys.  Register at
 * start-up, before any configuration is read (not thread-safe); a second
 * registration for a section replaces the first; at most four sections. */
typedef int (*gm_config_check_fn)(const char *key, const char *value, char *why, size_t wlen);
void gm_config_register_check(const char *section, gm_config_check_fn check);

/* Derives the dependent defaults (csv-dir, store-path from data-dir) and
 * checks the whole (e.g. both sinks off is allowed; interval in range). */
int gm_config_finish(struct gm_config *c, struct gm_err *err);

/* The effective configuration as an INI file. */
void gm_config_dump(const struct gm_config *c, struct gm_buf *out);

/* docs/config.md. */
void gm_config_markdown(struct gm_buf *out);

/* An option of the table as the agent's flags show it (cli/cmd_agent.c
 * makes one flag of each, --no-KEY too for a bool). */
struct gm_config_key {
    const char *key;  /* "interval" */
    const char *arg;  /* the value's name (DURATION, PATH) or an enum's "a|b|c"; NULL: a bool */
    const char *help; /* one line */
    const char *def;  /* the default as the file writes it, "" for none */
};

/* The i-th option of the table, in its order: 0, or -1 past the end. */
int gm_config_key_at(size_t i, struct gm_config_key *k);

#endif /* GM_AGENT_CONFIG_H */

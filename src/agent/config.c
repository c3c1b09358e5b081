/* config.c -- the option table, INI and flag parsing (see config.h).
 *
 * The INI reader is our own (the reader section): inih, which it replaces,
 * reads lines into a 200-byte buffer and takes the rest of a longer line for
 * a line of its own, so the end of a long comment could become a setting. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../export/listen.h"
#include "../core/metrics.h"
#include "../core/text.h"
#include "../core/timeutil.h"

enum opt_type { T_DURATION, T_BOOL, T_STRING, T_TASK, T_ENUM, T_UINT, T_COLUMNS };

struct opt {
    const char *section;
    const char *key;
    uint8_t type;
    size_t off;
    size_t size;         /* for strings */
    const char *def;     /* default, in the same syntax as the file */
    int64_t min, max;    /* durations (ns) and integers */
    const char *choices; /* enums: "a|b|c" (index is the value) */
    const char *arg;     /* placeholder in help: DURATION, PATH, ... */
    const char *help;
};

#define OFF(f) offsetof(struct gm_config, f), sizeof(((struct gm_config *)0)->f)
#define SEC 1000000000LL
#define DAY (86400LL * SEC)

static const struct opt opts[] = {
    {"agent", "interval", T_DURATION, OFF(interval_ns), "10s", 100000000LL, 3600 * SEC, NULL,
     "DURATION", "sampling interval, 100ms to 1h (units: ms, s, m, h)"},
    {"agent", "data-dir", T_STRING, OFF(data_dir), "", 0, 0, NULL, "DIR",
     "where the agent keeps its data (default: $STATE_DIRECTORY, /var/lib/gpumon as root, "
     "$XDG_STATE_HOME/gpumon otherwise)"},
    {"agent", "task", T_TASK, OFF(task), "default", 0, 0, NULL, "NAME",
     "task id written with every row (letters, digits, '.', '_', '-')"},
    {"agent", "nvml-lib", T_STRING, OFF(nvml_lib), "", 0, 0, NULL, "PATH",
     "libnvidia-ml.so to load (default: $GPUMON_NVML_LIB or the system's libnvidia-ml.so.1)"},
    {"agent", "nvml-timeout", T_DURATION, OFF(nvml_timeout_ns), "10s", SEC, 3600 * SEC, NULL,
     "DURATION", "report a sample as hung when NVML has not answered after this long"},
    {"agent", "log-level", T_ENUM, OFF(log_level), "info", 0, 0, "error|warning|notice|info|debug",
     "LEVEL", "lowest level of the agent's own log (stderr)"},
    {"agent", "queue-size", T_UINT, OFF(queue_size), "64", 2, 65536, NULL, "N",
     "snapshots each sink may have waiting before new ones are dropped (and counted)"},
    {"agent", "csv", T_BOOL, OFF(csv), "true", 0, 0, NULL, NULL, "write the daily CSV log"},
    {"agent", "csv-dir", T_STRING, OFF(csv_dir), "", 0, 0, NULL, "DIR",
     "directory of the CSV files (default: $LOGS_DIRECTORY under systemd, else <data-dir>/csv)"},
    {"agent", "columns", T_COLUMNS, OFF(columns), "", 0, 0, NULL, "FIELDS",
     "CSV columns as nvidia-smi field names, comma-separated (default: the seeds' set, see "
     "docs/config.md)"},
    {"agent", "procs", T_BOOL, OFF(procs), "false", 0, 0, NULL, NULL,
     "also log GPU processes (<task>_procs_<day>.csv and the store)"},
    {"agent", "job-mapping-dir", T_STRING, OFF(job_map_dir), "", 0, 0, NULL, "DIR",
     "dcgm-exporter's --hpc-job-mapping-dir: one file per GPU, named by its index, listing the "
     "ids of the jobs that hold it, read every sample (docs/jobs.md; a change needs a restart)"},
    {"agent", "pcie", T_BOOL, OFF(pcie), "false", 0, 0, NULL, NULL,
     "also read PCIe throughput every sample (nvmlDeviceGetPcieThroughput waits ~20 ms per "
     "counter and GPU on real hardware; a change needs a restart)"},
    {"agent", "retention", T_DURATION, OFF(retention_ns), "14d", 0, 100LL * 365 * DAY, NULL,
     "DURATION", "delete CSV files whose day ended longer ago than this (0 = keep forever)"},
    {"agent", "compress-after", T_DURATION, OFF(compress_after_ns), "1d", 0, 100LL * 365 * DAY,
     NULL, "DURATION", "gzip CSV files whose day ended longer ago than this"},
    {"agent", "csv-sync", T_ENUM, OFF(csv_sync), "none", 0, 0, "none|sample|second", "WHEN",
     "fsync the CSV files: never (the kernel writes them back; kill -9 loses nothing), after "
     "every sample, or at most once a second"},
    {"agent", "store", T_BOOL, OFF(store), "true", 0, 0, NULL, NULL,
     "keep the SQLite history store"},
    {"agent", "store-path", T_STRING, OFF(store_path), "", 0, 0, NULL, "PATH",
     "the SQLite database (default: <data-dir>/gpumon.db)"},
    {"agent", "store-retention-raw", T_DURATION, OFF(store_retention_raw_ns), "7d", 0,
     100LL * 365 * DAY, NULL, "DURATION", "keep raw samples this long (0 = forever)"},
    {"agent", "store-retention-1m", T_DURATION, OFF(store_retention_1m_ns), "90d", 0,
     100LL * 365 * DAY, NULL, "DURATION", "keep 1-minute rollups this long"},
    {"agent", "store-retention-1h", T_DURATION, OFF(store_retention_1h_ns), "3y", 0,
     100LL * 365 * DAY, NULL, "DURATION", "keep 1-hour rollups this long"},
    {"agent", "store-gpm", T_BOOL, OFF(store_gpm), "false", 0, 0, NULL, NULL,
     "also keep the GPM profiling metrics in the store (table gpm, about 25 bytes per "
     "GPU-sample more on GPUs that have GPM)"},
    {"agent", "exporter", T_BOOL, OFF(exporter), "true", 0, 0, NULL, NULL,
     "run the Prometheus exporter (settings in [exporter])"},
    {"exporter", "listen", T_STRING, OFF(listen), "127.0.0.1:9842", 0, 0, NULL, "ADDR:PORT",
     "HTTP address of /metrics: 127.0.0.1:9842, [::]:9842, :9842 for every interface, or "
     "empty for none (textfile only: `listen =` in the file, `--listen \"\"` as a flag)"},
    {"exporter", "names", T_ENUM, OFF(names), "native", 0, 0, "native|dcgm", "SET",
     "metric names: gpumon's own (gpumon_*) or dcgm-exporter's (DCGM_FI_*)"},
    {"exporter", "hostname-label", T_BOOL, OFF(hostname_label), "false", 0, 0, NULL, NULL,
     "add a hostname label to every series (Prometheus already adds instance)"},
    {"exporter", "hostname", T_BOOL, OFF(hostname), "true", 0, 0, NULL, NULL,
     "with names = dcgm, label every series Hostname as dcgm-exporter 4.x does by default; "
     "--no-hostname is dcgm-exporter's flag to leave it out"},
    {"exporter", "dcgm-label-fields", T_STRING, OFF(dcgm_label_fields), "DCGM_FI_DRIVER_VERSION", 0,
     0, NULL, "FIELDS",
     "with names = dcgm, the label-type fields of dcgm-exporter's counters CSV on every series, "
     "comma-separated: DCGM_FI_DRIVER_VERSION, _NVML_VERSION, DCGM_FI_DEV_BRAND, _SERIAL, "
     "_VBIOS_VERSION, _OEM_INFOROM_VER, _ECC_INFOROM_VER, _POWER_INFOROM_VER, "
     "_INFOROM_IMAGE_VER"},
    {"exporter", "process-metrics", T_BOOL, OFF(process_metrics), "false", 0, 0, NULL, NULL,
     "per-process GPU memory and SM utilisation, labelled pid, process and user"},
    {"exporter", "max-process-series", T_UINT, OFF(max_process_series), "256", 1, 100000, NULL, "N",
     "at most this many processes are exported (the rest are counted)"},
    {"exporter", "textfile-dir", T_STRING, OFF(textfile_dir), "", 0, 0, NULL, "DIR",
     "also write DIR/gpumon.prom for node_exporter's textfile collector after every sample"},
    {"exporter", "web-config", T_STRING, OFF(web_config), "", 0, 0, NULL, "FILE",
     "TLS and basic auth, in the Prometheus exporter-toolkit format (docs/exporter.md)"},
    {"exporter", "allowed-hosts", T_STRING, OFF(allowed_hosts), "", 0, 0, NULL, "NAMES",
     "Host names answered besides IP addresses, localhost and the host name, comma-separated "
     "(* for any); without auth others get 421 (DNS rebinding: docs/security.md)"},
    {"exporter", "api-command-lines", T_BOOL, OFF(api_command_lines), "false", 0, 0, NULL, NULL,
     "processes' command lines in /api/v1/status without auth too (they may hold secrets passed "
     "as arguments; with basic auth or verified client certificates they are always there)"},
    {"exporter", "max-connections", T_UINT, OFF(max_connections), "512", 1, 65536, NULL, "N",
     "HTTP connections served at once; more wait in the kernel's queue"},
    {"exporter", "connection-timeout", T_DURATION, OFF(connection_timeout_ns), "10s", SEC,
     3600 * SEC, NULL, "DURATION", "close HTTP connections idle (or slow to send) this long"},
    {"exporter", "stale-after", T_DURATION, OFF(stale_after_ns), "0", 0, 3600 * SEC, NULL,
     "DURATION", "/healthz answers 503 when the latest sample is older (0 = 3 intervals + 30 s)"},
    {"alerts", "alerts", T_BOOL, OFF(alerts), "true", 0, 0, NULL, NULL,
     "evaluate the alert rules ([alert.NAME] sections and the default set; docs/alerts.md)"},
    {"alerts", "default-rules", T_BOOL, OFF(default_rules), "true", 0, 0, NULL, NULL,
     "the default rule set from the seeds (a default rule named in the file is kept either way)"},
    {"alerts", "alert-log", T_STRING, OFF(alert_log), "", 0, 0, NULL, "PATH",
     "the alert log, one JSON object per notice (default: <data-dir>/alerts.jsonl)"},
    {"alerts", "alert-state", T_STRING, OFF(alert_state), "", 0, 0, NULL, "PATH",
     "where `record --once` keeps rule state between runs (default: <data-dir>/alerts.state)"},
    {"diagnose", "diagnose", T_BOOL, OFF(diagnose), "true", 0, 0, NULL, NULL,
     "run the diagnosis on the samples: findings as events, gpumon_diagnosis_active, "
     "diagnosis.<cause> in alert rules (docs/diagnose.md)"},
    {"diagnose", "diagnose-window", T_DURATION, OFF(diagnose_window_ns), "5m", 60 * SEC,
     24LL * 3600 * SEC, NULL, "DURATION",
     "how far back each evaluation looks, 1m to 24h (the points are kept in memory: about "
     "390 bytes per GPU-sample)"},
    {"diagnose", "diagnose-every", T_DURATION, OFF(diagnose_every_ns), "10s", SEC, 3600 * SEC, NULL,
     "DURATION", "how often the diagnosis is evaluated, 1s to 1h"},
    {"fleet", "fleet", T_STRING, OFF(fleet), "", 0, 0, NULL, "HOSTS",
     "the agents `gpumon fleet` asks when given neither --hosts nor --hosts-file: host[:port] "
     "comma-separated (docs/fleet.md); the agent's page server shows them at /fleet"},
    {"fleet", "fleet-interval", T_DURATION, OFF(fleet_interval_ns), "2s", SEC / 10, 3600 * SEC,
     NULL, "DURATION",
     "the fleet page: a round over the nodes this often (after the last one started)"},
    {"fleet", "fleet-timeout", T_DURATION, OFF(fleet_timeout_ns), "2s", SEC / 10, 3600 * SEC, NULL,
     "DURATION", "the fleet page: every node's answers within this, else it is unreachable"},
    {"fleet", "fleet-tls", T_BOOL, OFF(fleet_tls), "false", 0, 0, NULL, NULL,
     "the fleet page: https for the hosts of fleet = given without a scheme"},
    {"fleet", "fleet-cacert", T_STRING, OFF(fleet_cacert), "", 0, 0, NULL, "FILE",
     "the fleet page: trust the CAs of this PEM file too (the system's always)"},
    {"fleet", "fleet-cert", T_STRING, OFF(fleet_cert), "", 0, 0, NULL, "FILE",
     "the fleet page: the client certificate (PEM) shown to the nodes"},
    {"fleet", "fleet-key", T_STRING, OFF(fleet_key), "", 0, 0, NULL, "FILE",
     "the fleet page: the private key (PEM) of fleet-cert"},
    {"fleet", "fleet-user", T_STRING, OFF(fleet_user), "", 0, 0, NULL, "NAME",
     "the fleet page: the nodes' basic auth user (the password from fleet-password-file)"},
    {"fleet", "fleet-password-file", T_STRING, OFF(fleet_password_file), "", 0, 0, NULL, "FILE",
     "the fleet page: the nodes' basic auth password, the file's first line (read at start)"},
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static const struct opt *find(const char *section, const char *key)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (strcmp(opts[i].key, key) == 0 && (!section || strcmp(opts[i].section, section) == 0))
            return &opts[i];
    return NULL;
}

int gm_config_task_valid(const char *s, size_t n)
{
    if (n == 0 || n > GM_TASK_MAX || s[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]) ||
            !s[i])
            return 0;
    return 1;
}

int gm_config_has_key(const char *key, int *takes_value)
{
    const struct opt *o = find(NULL, key);
    if (o && takes_value)
        *takes_value = o->type != T_BOOL;
    return o != NULL;
}

/* A module's own checks of the string values in its section (the
 * exporter's address and web config), made where the file or flag is read
 * so that the error names the place.  One row per module that has any. */
static const struct {
    const char *section;
    int (*check)(const char *key, const char *value, char *why, size_t wlen);
} section_checks[] = {
    {"exporter", gm_exporter_conf_check},
};

/* The same for modules of a layer above the agent's (the fleet's host
 * list): registered at start-up, before any configuration is read. */
#define MAX_REGISTERED_CHECKS 4
static struct {
    const char *section;
    gm_config_check_fn check;
} registered[MAX_REGISTERED_CHECKS];

void gm_config_register_check(const char *section, gm_config_check_fn check)
{
    for (size_t i = 0; i < MAX_REGISTERED_CHECKS; i++) {
        if (!registered[i].section || !strcmp(registered[i].section, section)) {
            registered[i].section = section;
            registered[i].check = check;
            return;
        }
    }
}

static int section_check(const struct opt *o, const char *value, char *why, size_t wlen)
{
    for (size_t i = 0; i < sizeof(section_checks) / sizeof(section_checks[0]); i++)
        if (!strcmp(section_checks[i].section, o->section) &&
            section_checks[i].check(o->key, value, why, wlen) != 0)
            return GM_E_INVAL;
    for (size_t i = 0; i < MAX_REGISTERED_CHECKS && registered[i].section; i++)
        if (!strcmp(registered[i].section, o->section) &&
            registered[i].check(o->key, value, why, wlen) != 0)
            return GM_E_INVAL;
    return 0;
}

/* Parses value for option o into c; on error writes the reason (without
 * location) into why. */
static int apply(struct gm_config *c, const struct opt *o, const char *value, char *why,
                 size_t wlen)
{
    char *field = (char *)c + o->off;
    switch (o->type) {
    case T_DURATION: {
        int64_t ns;
        if (gm_parse_duration(value, &ns) != 0) {
            snprintf(why, wlen, "invalid duration \"%s\" (examples: 500ms, 10s, 1m, 14d, 3y)",
                     value);
            return GM_E_INVAL;
        }
        if (ns < o->min || ns > o->max) {
            char a[32], b[32];
            snprintf(a, sizeof(a), "%g s", o->min / 1e9);
            snprintf(b, sizeof(b), "%g s", o->max / 1e9);
            snprintf(why, wlen, "%s \"%s\" is out of range (%s to %s)", o->key, value, a, b);
            return GM_E_INVAL;
        }
        memcpy(field, &ns, sizeof(ns));
        return 0;
    }
    case T_BOOL: {
        int v;
        if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "on") ||
            !strcmp(value, "1"))
            v = 1;
        else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "off") ||
                 !strcmp(value, "0"))
            v = 0;
        else {
            snprintf(why, wlen, "invalid boolean \"%s\" (true or false)", value);
            return GM_E_INVAL;
        }
        memcpy(field, &v, sizeof(v));
        return 0;
    }
    case T_TASK:
        if (!gm_config_task_valid(value, strlen(value)) || strlen(value) >= o->size) {
            snprintf(why, wlen,
                     "invalid task \"%s\" (1-%zu letters, digits, '.', '_', '-'; it is part of "
                     "file names)",
                     value, o->size - 1);
            return GM_E_INVAL;
        }
        gm_strlcpy(field, value, o->size);
        return 0;
    case T_COLUMNS: {
        int ids[128], nids = 0;
        if (strlen(value) >= o->size) {
            snprintf(why, wlen, "column list too long");
            return GM_E_INVAL;
        }
        const char *p = value;
        while (*p) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char name[128];
            while (len && *p == ' ') {
                p++;
                len--;
            }
            while (len && p[len - 1] == ' ')
                len--;
            if (len == 0 || len >= sizeof(name)) {
                snprintf(why, wlen, "empty or overlong column name in \"%s\"", value);
                return GM_E_INVAL;
            }
            memcpy(name, p, len);
            name[len] = '\0';
            int id = gm_metric_by_name(name, 0);
            if (id < 0 || gm_metrics[id].scope == GM_SC_PROC) {
                snprintf(why, wlen, "unknown column \"%s\" (see gpumon query --help-query-gpu)",
                         name);
                return GM_E_INVAL;
            }
            /* the same rules as the CSV log (gm_csv_parse_columns): the time is
             * always the first column, a field may appear once */
            if (id != GM_M_TIMESTAMP) {
                for (int k = 0; k < nids; k++)
                    if (ids[k] == id) {
                        snprintf(why, wlen, "column \"%s\" given twice", name);
                        return GM_E_INVAL;
                    }
                if (nids == (int)(sizeof(ids) / sizeof(ids[0]))) {
                    snprintf(why, wlen, "too many columns (at most %d)", nids);
                    return GM_E_INVAL;
                }
                ids[nids++] = id;
            }
            if (!e)
                break;
            p = e + 1;
        }
        if (nids == 0 && *value) {
            snprintf(why, wlen, "no column besides the time in \"%s\"", value);
            return GM_E_INVAL;
        }
        gm_strlcpy(field, value, o->size);
        return 0;
    }
    case T_STRING:
        if (strlen(value) >= o->size) {
            snprintf(why, wlen, "value too long (at most %zu bytes)", o->size - 1);
            return GM_E_INVAL;
        }
        if (*value && section_check(o, value, why, wlen) != 0)
            return GM_E_INVAL;
        gm_strlcpy(field, value, o->size);
        return 0;
    case T_ENUM: {
        int idx = gm_text_choice(o->choices, value, 0);
        if (idx >= 0) {
            /* log levels are stored as syslog priorities (error = 3) */
            int v = strcmp(o->key, "log-level") == 0 ? idx + 3 : idx;
            memcpy(field, &v, sizeof(v));
            return 0;
        }
        snprintf(why, wlen, "invalid value \"%s\" (one of: %s)", value, o->choices);
        return GM_E_INVAL;
    }
    case T_UINT: {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (errno || end == value || *end || v < o->min || v > o->max) {
            snprintf(why, wlen, "invalid number \"%s\" (%lld to %lld)", value, (long long)o->min,
                     (long long)o->max);
            return GM_E_INVAL;
        }
        unsigned u = (unsigned)v;
        memcpy(field, &u, sizeof(u));
        return 0;
    }
    }
    return GM_E_INVAL;
}

const char *gm_config_default_path(char *buf, size_t len)
{
    /* systemd's ConfigurationDirectory=: the unit's service user is not root
     * and would otherwise look in its own home */
    const char *cd = getenv("CONFIGURATION_DIRECTORY");
    if (cd && *cd) {
        /* several are colon-separated: the first is ours */
        size_t n = strcspn(cd, ":");
        snprintf(buf, len, "%.*s/gpumon.conf", (int)n, cd);
        return buf;
    }
    if (geteuid() == 0) {
        snprintf(buf, len, "/etc/gpumon/gpumon.conf");
        return buf;
    }
    const char *x = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (x && *x)
        snprintf(buf, len, "%s/gpumon/gpumon.conf", x);
    else
        snprintf(buf, len, "%s/.config/gpumon/gpumon.conf", home ? home : ".");
    return buf;
}

int gm_config_set(struct gm_config *c, const char *key, const char *value, struct gm_err *err)
{
    const struct opt *o = find(NULL, key);
    char why[512];
    if (!o)
        return gm_err_set(err, GM_E_INVAL, "--%s: unknown option", key);
    if (apply(c, o, value, why, sizeof(why)) != 0)
        return gm_err_set(err, GM_E_INVAL, "--%s: %s", key, why);
    return 0;
}

/* ------------------------------------------------------------------ INI */

/* The [notify.NAME] section's settings, created on first use. */
static struct gm_notify_conf *notify_section(struct gm_config *c, const char *name, char *why,
                                             size_t wlen)
{
    for (int i = 0; i < c->nnotify; i++)
        if (!strcmp(c->notify[i].name, name))
            return &c->notify[i];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof(c->notify[0].name) ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n) {
        snprintf(why, wlen, "invalid channel name \"%s\" (1-63 letters, digits, '_', '-')", name);
        return NULL;
    }
    if (c->nnotify == GM_NOTIFY_MAX) {
        snprintf(why, wlen, "too many [notify.NAME] sections (at most %d)", GM_NOTIFY_MAX);
        return NULL;
    }
    struct gm_notify_conf *nc = &c->notify[c->nnotify++];
    gm_notify_conf_init(nc, name);
    return nc;
}

/* ------------------------------------------------------ named sections */

/* Sections named [PREFIX.NAME] belong to a module, which parses, checks,
 * dumps and documents them; the reader only finds the section's owner here
 * (collectd's plugin_register_complex_config, as a table).  A new kind of
 * section is one row. */
struct named_section {
    const char *prefix; /* "alert." */
    /* one key of [PREFIX.NAME]: 0, or an error with the reason in why */
    int (*set)(struct gm_config *c, const char *name, const char *key, const char *value, char *why,
               size_t wlen);
    /* the whole of each section once the file is read: the index of the
     * first invalid one with the reason in why (its name in name), or -1 */
    int (*check)(const struct gm_config *c, char *name, size_t nlen, char *why, size_t wlen);
    void (*defaults)(struct gm_config *c);
    void (*dump)(const struct gm_config *c, struct gm_buf *out);
    void (*markdown)(struct gm_buf *out); /* the section's part of docs/config.md */
    int why_names_section;                /* prefix the reason with "[PREFIX.NAME]: " */
};

static int alert_set(struct gm_config *c, const char *name, const char *key, const char *value,
                     char *why, size_t wlen)
{
    return gm_rules_set(&c->rules, name, key, value, why, wlen);
}

static int alert_check(const struct gm_config *c, char *name, size_t nlen, char *why, size_t wlen)
{
    for (int i = 0; i < c->rules.n; i++)
        if (c->rules.rule[i].set && gm_rule_check(&c->rules.rule[i], why, wlen) != 0) {
            gm_strlcpy(name, c->rules.rule[i].name, nlen);
            return i;
        }
    return -1;
}

static void alert_defaults(struct gm_config *c)
{
    gm_rules_defaults(&c->rules);
}

static void alert_dump(const struct gm_config *c, struct gm_buf *out)
{
    gm_rules_dump(&c->rules, out);
}

static void alert_markdown(struct gm_buf *out)
{
    gm_buf_puts(out, "## [alert.NAME]: alert rules\n\nOne section per rule; a section named "
                     "after a default rule changes only the keys it gives. The condition "
                     "language, the derived values and the default rules are in "
                     "[alerts.md](alerts.md).\n\n");
    gm_rules_markdown_keys(out);
}

static int notify_set(struct gm_config *c, const char *name, const char *key, const char *value,
                      char *why, size_t wlen)
{
    struct gm_notify_conf *nc = notify_section(c, name, why, wlen);
    return nc ? gm_notify_conf_set(nc, key, value, why, wlen) : GM_E_INVAL;
}

static int notify_check(const struct gm_config *c, char *name, size_t nlen, char *why, size_t wlen)
{
    for (int i = 0; i < c->nnotify; i++)
        if (gm_notify_conf_check(&c->notify[i], why, wlen) != 0) {
            gm_strlcpy(name, c->notify[i].name, nlen);
            return i;
        }
    return -1;
}

static void notify_dump(const struct gm_config *c, struct gm_buf *out)
{
    for (int i = 0; i < c->nnotify; i++) {
        gm_buf_putc(out, '\n');
        gm_notify_conf_dump(&c->notify[i], out);
    }
}

static void notify_markdown(struct gm_buf *out)
{
    gm_buf_puts(out, "\n## [notify.NAME]: where notices go\n\n");
    gm_notify_markdown(out);
}

static const struct named_section named[] = {
    {"alert.", alert_set, alert_check, alert_defaults, alert_dump, alert_markdown, 0},
    {"notify.", notify_set, notify_check, NULL, notify_dump, notify_markdown, 1},
};
#define NNAMED (sizeof(named) / sizeof(named[0]))

/* The owner of a section "PREFIX.NAME" (NAME not empty), or NULL. */
static const struct named_section *named_owner(const char *section)
{
    for (size_t i = 0; i < NNAMED; i++) {
        size_t n = strlen(named[i].prefix);
        if (!strncmp(section, named[i].prefix, n) && section[n])
            return &named[i];
    }
    return NULL;
}

void gm_config_defaults(struct gm_config *c)
{
    char why[256];
    /* most of it (the notify channels, the rules) is unused: left unwritten
     * in the agent's static copy, out of its resident memory */
    gm_zero_sparse(c, sizeof(*c));
    for (size_t i = 0; i < NOPTS; i++)
        if (apply(c, &opts[i], opts[i].def, why, sizeof(why)) != 0) {
            /* a default that does not parse is a bug in the table */
            fprintf(stderr, "gpumon: bug: default of %s: %s\n", opts[i].key, why);
            abort();
        }
    for (size_t i = 0; i < NNAMED; i++)
        if (named[i].defaults)
            named[i].defaults(c);
    const char *sd = getenv("STATE_DIRECTORY");
    if (sd && *sd) {
        /* systemd may pass several, colon-separated: the first is ours */
        gm_strlcpy(c->data_dir, sd, sizeof(c->data_dir));
        char *colon = strchr(c->data_dir, ':');
        if (colon)
            *colon = '\0';
    } else if (geteuid() == 0) {
        gm_strlcpy(c->data_dir, "/var/lib/gpumon", sizeof(c->data_dir));
    } else {
        const char *x = getenv("XDG_STATE_HOME");
        const char *home = getenv("HOME");
        if (x && *x)
            snprintf(c->data_dir, sizeof(c->data_dir), "%s/gpumon", x);
        else
            snprintf(c->data_dir, sizeof(c->data_dir), "%s/.local/state/gpumon", home ? home : ".");
    }
}

/* A name from the file in a message: at most 64 bytes of it, then "...".
 * Expands to the arguments of "%.*s%s". */
#define NAME_SHOWN(s) (strlen(s) > 64 ? 64 : (int)strlen(s)), (s), (strlen(s) > 64 ? "..." : "")

struct load_ctx {
    struct gm_config *c;
    const char *path;
    char err[512];
    uint8_t seen[NOPTS];
};

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct load_ctx *x = user;
    if (x->err[0])
        return 0;
    const struct named_section *ns = named_owner(section);
    if (ns) {
        char why[480];
        if (ns->set(x->c, section + strlen(ns->prefix), name, value, why, sizeof(why)) != 0) {
            snprintf(x->err, sizeof(x->err), "%s", why);
            return 0;
        }
        return 1;
    }
    const struct opt *o = find(section, name);
    if (!o) {
        if (!find(NULL, name))
            snprintf(x->err, sizeof(x->err), "unknown key \"%.*s%s\" in [%s]", NAME_SHOWN(name),
                     section);
        else
            snprintf(x->err, sizeof(x->err), "key \"%s\" belongs in [%s], not [%s]", name,
                     find(NULL, name)->section, section);
        return 0;
    }
    size_t idx = (size_t)(o - opts);
    if (x->seen[idx]) {
        snprintf(x->err, sizeof(x->err), "duplicate key \"%s\" in [%s]", name, section);
        return 0;
    }
    x->seen[idx] = 1;
    char why[480];
    if (apply(x->c, o, value, why, sizeof(why)) != 0) {
        snprintf(x->err, sizeof(x->err), "%s", why);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ the reader */

/* The file is read once, whole (a pipe, a FIFO or /dev/stdin reads the same
 * as a file; there is no second pass to rewind for; a reload takes regular
 * files only, GM_CONFIG_REGULAR), and parsed from memory
 * line by line, every line whole however long.  The syntax is inih's, which
 * gpumon used before: "[section]", "key = value" or "key: value", whitespace
 * around names and values ignored, comments on their own line starting with
 * ';' or '#', a ';' after whitespace starting an inline comment, a UTF-8 BOM
 * ignored, and an indented line after a key continuing it (which the keys
 * here refuse as a duplicate).  Unlike inih, a long line is never split
 * into two, section and key names are never truncated, a section without
 * keys is still checked, and parsing stops at the first error. */

#define MAX_CONFIG_BYTES ((size_t)1024 * 1024)

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* Cuts trailing whitespace of [s, end) in place; returns s. */
static char *rstrip(char *s, char *end)
{
    while (end > s && is_space(end[-1]))
        *--end = '\0';
    return s;
}

static char *lskip(char *s)
{
    while (*s && is_space(*s))
        s++;
    return s;
}

/* The first of chars (none when NULL) or of an inline comment (';' after
 * whitespace) in s, else the end of s. */
static char *find_or_comment(char *s, const char *chars)
{
    int was_space = 0;
    while (*s && !(chars && strchr(chars, *s)) && !(was_space && *s == ';')) {
        was_space = is_space(*s);
        s++;
    }
    return s;
}

/* Reads the whole file at path into a NUL-terminated buffer.  Directories
 * and read errors are errors; so is a file over MAX_CONFIG_BYTES.  With
 * GM_CONFIG_REGULAR the open cannot block (O_NONBLOCK, cleared after) and
 * anything but a regular file is refused. */
static int read_config(const char *path, unsigned flags, char **out, size_t *len,
                       struct gm_err *err)
{
    int regular = (flags & GM_CONFIG_REGULAR) != 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (regular ? O_NONBLOCK : 0));
    if (fd < 0)
        return gm_err_set(err,
                          errno == ENOENT                     ? GM_E_NOTFOUND
                          : errno == EACCES || errno == EPERM ? GM_E_NOPERM
                                                              : GM_E_IO,
                          "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
        close(fd);
        return gm_err_set(err, GM_E_IO, "%s: %s", path, strerror(e));
    }
    if (regular && !S_ISREG(st.st_mode)) {
        close(fd);
        return gm_err_set(err, GM_E_IO,
                          "%s: not a regular file (%s); a reload reads only a regular file, it "
                          "does not wait for a writer",
                          path,
                          S_ISFIFO(st.st_mode)   ? "a FIFO"
                          : S_ISSOCK(st.st_mode) ? "a socket"
                                                 : "a device");
    }
    if (regular) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    size_t cap = 8192, n = 0;
    char *buf = gm_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap > MAX_CONFIG_BYTES)
                break;
            cap *= 2;
            buf = gm_xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return gm_err_set(err, GM_E_IO, "%s: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > MAX_CONFIG_BYTES) {
        free(buf);
        return gm_err_set(err, GM_E_INVAL, "%s: larger than %zu bytes; not a gpumon config", path,
                          MAX_CONFIG_BYTES);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* A section gpumon knows: one of the table's, [alert.NAME] or [notify.NAME]. */
static int known_section(const char *name)
{
    if (named_owner(name))
        return 1;
    for (size_t i = 0; i < NOPTS; i++)
        if (strcmp(name, opts[i].section) == 0)
            return 1;
    return 0;
}

/* Where each section header first appears, for errors about a whole section. */
struct header {
    const char *name; /* into the text */
    int line;
};

/* Parses text (modified in place) into x; returns 0 or the line of the
 * first error, with the reason in x->err (empty: a syntax error). */
static int parse_text(char *text, size_t len, struct load_ctx *x, struct header **hdrs,
                      size_t *nhdrs)
{
    const char *section = "", *prev_name = NULL;
    char *p = text, *end = text + len;
    size_t cap = 0;
    for (int lineno = 1; p < end; lineno++) {
        char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
        char *eol = nl ? nl : end;
        if (memchr(line, '\0', (size_t)(eol - line))) {
            snprintf(x->err, sizeof(x->err), "a NUL byte: not a text file");
            return lineno;
        }
        *eol = '\0';
        p = eol + 1;
        char *start = line;
        if (lineno == 1 && (unsigned char)start[0] == 0xEF && (unsigned char)start[1] == 0xBB &&
            (unsigned char)start[2] == 0xBF)
            start += 3;
        start = rstrip(lskip(start), eol);
        if (!*start || *start == ';' || *start == '#')
            continue;
        if (prev_name && start > line) {
            /* an indented line continues the previous key's value */
            char *e = find_or_comment(start, NULL);
            *e = '\0';
            rstrip(start, e);
            if (!handler(x, section, prev_name, start))
                return lineno;
        } else if (*start == '[') {
            char *e = find_or_comment(start + 1, "]");
            if (*e != ']') {
                snprintf(x->err, sizeof(x->err), "unterminated section header");
                return lineno;
            }
            *e = '\0';
            section = start + 1;
            prev_name = NULL;
            if (!known_section(section)) {
                snprintf(x->err, sizeof(x->err), "unknown section [%.*s%s]", NAME_SHOWN(section));
                return lineno;
            }
            size_t i;
            for (i = 0; i < *nhdrs && strcmp((*hdrs)[i].name, section) != 0; i++)
                ;
            if (i == *nhdrs) {
                if (*nhdrs == cap) {
                    cap = cap ? 2 * cap : 16;
                    *hdrs = gm_xrealloc(*hdrs, cap * sizeof(**hdrs));
                }
                (*hdrs)[(*nhdrs)++] = (struct header){section, lineno};
            }
        } else {
            char *e = find_or_comment(start, "=:");
            if (*e != '=' && *e != ':')
                return lineno; /* a syntax error */
            *e = '\0';
            char *name = rstrip(start, e);
            char *value = e + 1;
            e = find_or_comment(value, NULL);
            *e = '\0';
            value = lskip(value);
            rstrip(value, e);
            prev_name = name;
            if (!handler(x, section, name, value))
                return lineno;
        }
    }
    return 0;
}

/* The line of section name's header. */
static int header_line(const struct header *hdrs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(hdrs[i].name, name) == 0)
            return hdrs[i].line;
    return 0;
}

int gm_config_load_file(struct gm_config *c, const char *path, struct gm_err *err)
{
    return gm_config_load(c, path, 0, err);
}

int gm_config_load(struct gm_config *c, const char *path, unsigned flags, struct gm_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_config(path, flags, &text, &len, err);
    if (rc != 0)
        return rc;
    struct gm_config tmp = *c; /* apply only when the whole file is valid */
    struct load_ctx x = {.c = &tmp, .path = path};
    struct header *hdrs = NULL;
    size_t nhdrs = 0;
    int line = parse_text(text, len, &x, &hdrs, &nhdrs);
    if (line != 0) {
        rc = gm_err_set(err, GM_E_INVAL, "%s:%d: %s", path, line,
                        x.err[0] ? x.err : "syntax error (expected \"key = value\" or [section])");
        goto out;
    }
    /* whole-section checks (a rule without a condition, a webhook without a url),
     * reported at the section's header line */
    char why[512];
    for (size_t i = 0; i < NNAMED && rc == 0; i++) {
        char name[80];
        if (!named[i].check || named[i].check(&tmp, name, sizeof(name), why, sizeof(why)) < 0)
            continue;
        char sec[96];
        snprintf(sec, sizeof(sec), "%s%s", named[i].prefix, name);
        if (named[i].why_names_section)
            rc = gm_err_set(err, GM_E_INVAL, "%s:%d: [%s]: %s", path, header_line(hdrs, nhdrs, sec),
                            sec, why);
        else
            rc = gm_err_set(err, GM_E_INVAL, "%s:%d: %s", path, header_line(hdrs, nhdrs, sec), why);
    }
    if (rc == 0)
        *c = tmp;
out:
    free(hdrs);
    free(text);
    return rc;
}

int gm_config_finish(struct gm_config *c, struct gm_err *err)
{
    if (!c->data_dir[0])
        return gm_err_set(err, GM_E_INVAL, "data-dir is empty");
    const char *logs = getenv("LOGS_DIRECTORY"); /* systemd's LogsDirectory= */
    if (!c->csv_dir[0] && logs && *logs) {
        gm_strlcpy(c->csv_dir, logs, sizeof(c->csv_dir));
        char *colon = strchr(c->csv_dir, ':');
        if (colon)
            *colon = '\0';
    }
    if (!c->csv_dir[0] &&
        snprintf(c->csv_dir, sizeof(c->csv_dir), "%s/csv", c->data_dir) >= (int)sizeof(c->csv_dir))
        return gm_err_set(err, GM_E_INVAL, "data-dir is too long");
    if (!c->store_path[0] && snprintf(c->store_path, sizeof(c->store_path), "%s/gpumon.db",
                                      c->data_dir) >= (int)sizeof(c->store_path))
        return gm_err_set(err, GM_E_INVAL, "data-dir is too long");
    if (c->stale_after_ns == 0)
        c->stale_after_ns = 3 * c->interval_ns + 30 * SEC;
    if (!c->alert_log[0] && snprintf(c->alert_log, sizeof(c->alert_log), "%s/alerts.jsonl",
                                     c->data_dir) >= (int)sizeof(c->alert_log))
        return gm_err_set(err, GM_E_INVAL, "data-dir is too long");
    if (!c->alert_state[0] && snprintf(c->alert_state, sizeof(c->alert_state), "%s/alerts.state",
                                       c->data_dir) >= (int)sizeof(c->alert_state))
        return gm_err_set(err, GM_E_INVAL, "data-dir is too long");
    if (!c->fleet_user[0] != !c->fleet_password_file[0])
        return gm_err_set(err, GM_E_INVAL,
                          "[fleet]: fleet-user and fleet-password-file go "
                          "together");
    c->rules.defaults = c->default_rules;
    if (!c->default_rules) {
        /* drop the default rules the file does not mention */
        int k = 0;
        for (int i = 0; i < c->rules.n; i++)
            if (!c->rules.rule[i].builtin || c->rules.rule[i].set)
                c->rules.rule[k++] = c->rules.rule[i];
        c->rules.n = k;
    }
    return 0;
}

/* ----------------------------------------------------------------- output */

static void value_text(const struct gm_config *c, const struct opt *o, char *buf, size_t len)
{
    const char *field = (const char *)c + o->off;
    switch (o->type) {
    case T_DURATION: {
        int64_t ns;
        memcpy(&ns, field, sizeof(ns));
        if (ns % (86400LL * SEC) == 0 && ns)
            snprintf(buf, len, "%lldd", (long long)(ns / (86400LL * SEC)));
        else if (ns % SEC == 0)
            snprintf(buf, len, "%llds", (long long)(ns / SEC));
        else
            gm_duration_fine(ns, buf, len);
        return;
    }
    case T_BOOL: {
        int v;
        memcpy(&v, field, sizeof(v));
        snprintf(buf, len, "%s", v ? "true" : "false");
        return;
    }
    case T_ENUM: {
        int v;
        memcpy(&v, field, sizeof(v));
        if (strcmp(o->key, "log-level") == 0)
            v -= 3;
        const char *p = o->choices;
        for (int i = 0; i < v && p; i++) {
            p = strchr(p, '|');
            if (p)
                p++;
        }
        size_t l = p ? strcspn(p, "|") : 0;
        snprintf(buf, len, "%.*s", (int)l, p ? p : "");
        return;
    }
    case T_UINT: {
        unsigned u;
        memcpy(&u, field, sizeof(u));
        snprintf(buf, len, "%u", u);
        return;
    }
    default:
        snprintf(buf, len, "%s", field);
        return;
    }
}

void gm_config_dump(const struct gm_config *c, struct gm_buf *out)
{
    const char *section = NULL;
    char v[PATH_MAX + 64];
    for (size_t i = 0; i < NOPTS; i++) {
        if (!section || strcmp(section, opts[i].section) != 0) {
            section = opts[i].section;
            gm_buf_printf(out, "%s[%s]\n", i ? "\n" : "", section);
        }
        value_text(c, &opts[i], v, sizeof(v));
        gm_buf_ini_kv(out, opts[i].key, v);
    }
    for (size_t i = 0; i < NNAMED; i++)
        named[i].dump(c, out);
}

int gm_config_key_at(size_t i, struct gm_config_key *k)
{
    if (i >= NOPTS)
        return -1;
    const struct opt *o = &opts[i];
    k->key = o->key;
    k->arg = o->type == T_BOOL ? NULL : o->type == T_ENUM ? o->choices : o->arg;
    k->help = o->help;
    k->def = o->def;
    return 0;
}

void gm_config_markdown(struct gm_buf *out)
{
    gm_buf_puts(out,
                "# Configuration\n\n"
                "<!-- Generated by `gpumon config --markdown` from src/core/config.c; do not edit "
                "by hand (a test fails when this file is stale). -->\n\n"
                "The agent (`gpumon agent`, `gpumon record`) reads its settings from an INI file "
                "and from flags with the same names: `--interval 5s` on the command line is "
                "`interval = 5s` in the file, and the flag wins. The file is `--config FILE`, "
                "else `$CONFIGURATION_DIRECTORY/gpumon.conf` under a systemd unit with "
                "`ConfigurationDirectory=` (the shipped unit: `/etc/gpumon/gpumon.conf`), else "
                "`/etc/gpumon/gpumon.conf` when running as root, else "
                "`$XDG_CONFIG_HOME/gpumon/gpumon.conf` (`~/.config/gpumon/gpumon.conf`); a "
                "missing default file is not an error, a missing `--config` file is. A default "
                "file that cannot be read (`HOME` not the caller's, under `sudo -u` or "
                "`setpriv`) is a warning and the defaults stay; an unreadable `--config` file is "
                "an error.\n\n"
                "Unknown sections, unknown keys, duplicate keys and bad values are errors that "
                "name the place (`gpumon.conf:12: invalid duration \"10x\"`); `gpumon config "
                "check [FILE]` reports the first one and exits 2, or prints nothing and exits 0. "
                "`gpumon config show` prints the effective configuration. After SIGHUP the agent "
                "reads the file again; if the new file is invalid, or a new setting cannot be "
                "applied, it logs why, keeps the old settings and counts it (`reloads_failed` in "
                "`gpumon agent --status`). A reload loses no sample: the CSV log keeps its writer "
                "while its settings stay (and reopens its files), a new writer starts only after "
                "the old one has written everything it had, and the store keeps its one "
                "connection to the same file, taking a new task, retention, interval or `procs` "
                "from the next sample on.\n\n"
                "The syntax: `[section]` headers, `key = value` lines (`key: value` too), "
                "comments on lines of their own starting with `#` or `;`, and after a value a "
                "`;` that follows a space starts a comment. Lines may be of any length. The file "
                "is read once, whole, at most 1 MiB, so `--config /dev/stdin`, a pipe or a FIFO "
                "work (`... | gpumon config check /dev/stdin`); a directory, an unreadable file "
                "or a NUL byte is an error. A reload (SIGHUP) reads only a regular file: a FIFO, "
                "a socket or a device there fails the reload at once (it does not wait for a "
                "writer) and the running configuration stays.\n\n"
                "Durations take a unit: `ms`, `s`, `m`, `h`, `d`, `w`, `y` (a bare number is "
                "seconds). Booleans are `true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`); a "
                "boolean flag `--procs` sets it true and `--no-procs` false.\n\n");
    const char *section = NULL;
    char def[128];
    for (size_t i = 0; i < NOPTS; i++) {
        if (!section || strcmp(section, opts[i].section) != 0) {
            section = opts[i].section;
            gm_buf_printf(out,
                          "## [%s]\n\n| key / flag | value | default | meaning |\n"
                          "|---|---|---|---|\n",
                          section);
        }
        snprintf(def, sizeof(def), "%s", opts[i].def[0] ? opts[i].def : "(see meaning)");
        gm_buf_printf(out, "| `%s` | %s | `%s` | %s |\n", opts[i].key,
                      opts[i].type == T_BOOL ? "boolean" : opts[i].arg, def, opts[i].help);
    }
    gm_buf_puts(out, "\nThe default CSV columns are the seeds' set: `index, uuid, name, "
                     "utilization.gpu, utilization.memory, memory.used, memory.total, power.draw, "
                     "power.limit, temperature.gpu, clocks.sm, clocks.mem, "
                     "clocks_event_reasons.active` (after `time, host, task_id`, and followed by "
                     "`status`).\n\n");
    for (size_t i = 0; i < NNAMED; i++)
        named[i].markdown(out);
    gm_buf_puts(out, "\nAn example file is `contrib/gpumon.conf`.\n");
}

/* cmd_fleet.c -- `gpumon fleet [status|free|diagnose|top|report|serve]`: every
 * node's GPUs at a glance, from each agent's HTTP API or from Prometheus'
 * query API (--prometheus; docs/fleet.md).
 *
 * Parses the flags, builds the node list (--hosts, --hosts-file), loads
 * the HTTP client module (gpumon_fleet.so: libcurl only for this command),
 * asks every node for /api/v1/status and /api/v1/alerts at once within
 * --timeout, hands the answers to src/fleet/ and prints what it renders.
 * `fleet free` judges each node's GPUs with view/free.c's rules, the same
 * code `gpumon free` runs; `fleet top` (cmd_fleet_top.c) repeats the same
 * fetch every --interval behind a full-screen view; `fleet serve` keeps
 * it running in rounds (fleet/poll.h) behind the agent's page server,
 * which serves the fleet page (docs/fleet.md).  The basic-auth password is read from a file or
 * an environment variable, never from the command line, and never
 * printed.  Exit: 0, 1 when no node answered (or too few free GPUs), 2 on
 * bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/json.h"
#include "../core/log.h"
#include "../export/exporter.h"
#include "../core/text.h"
#include "../agent/config.h"
#include "../core/timeutil.h"
#include "../fleet/fetch_module.h"
#include "../fleet/fleet.h"
#include "../fleet/report.h"
#include "../fleet/poll.h"
#include "../view/free.h"
#include "cli.h"
#include "cmd_fleet_report.h"
#include "cmd_fleet_top.h"
#include "opt.h"
#include "optgroups.h"

enum { FMT_TEXT, FMT_ENV, FMT_JSON, FMT_CSV };

struct fleet_args {
    const char *prometheus;
    const char *listen, *web_config, *allowed_hosts; /* serve */
    const char *hosts, *hosts_file, *cacert, *cert, *key, *user, *password_file, *password_env;
    int64_t timeout_ns, node_timeout_ns, stale_ns, interval_ns;
    int tls, insecure, json, gpus, fmt;
    int by;           /* report: enum gm_frep_by */
    int64_t since_ns; /* report: the period */
    unsigned long count;
    struct gm_free_opts fo;
    int fo_set;        /* --min-memory given */
    struct cli_hist h; /* --config, --no-config */
};

static int parse_secs(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t *ns = dst;
    if (cli_parse_seconds(v, ns) != 0 || *ns > 3600LL * 1000000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (a duration up to 1h)", o->name, v);
    return 0;
}

static int parse_count(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *v == '-' || *end || errno || n == 0 || n > 1000000)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s'", o->name, v);
    *(unsigned long *)dst = n;
    return 0;
}

static int parse_since(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    int64_t ns = 0;
    if (gm_parse_duration(v, &ns) != 0 || ns <= 0 || ns > 3660LL * 86400 * 1000000000LL)
        return gm_err_set(err, GM_E_INVAL, "invalid --%s '%s' (a duration: 7d, 24h, 90m)", o->name,
                          v);
    *(int64_t *)dst = ns;
    return 0;
}

static int parse_min_mem(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    struct fleet_args *a = (struct fleet_args *)((char *)dst - offsetof(struct fleet_args, fo));
    a->fo_set = 1;
    return gm_free_parse_min_mem(v, o->name, dst, err) != 0 ? -1 : 0;
}

#define OFF(f) offsetof(struct fleet_args, f)
static const struct gm_opt fleet_rows[] = {
    {.kind = GM_OPT_STR,
     .name = "hosts",
     .arg = "LIST",
     .off = OFF(hosts),
     .help = "the agents: host[:port] comma-separated (port 9842 by default)"},
    {.kind = GM_OPT_STR,
     .name = "hosts-file",
     .arg = "FILE",
     .off = OFF(hosts_file),
     .help = "the agents, one host[:port] a line, # comments"},
    {.kind = GM_OPT_STR,
     .name = "prometheus",
     .arg = "URL",
     .off = OFF(prometheus),
     .help = "read the fleet from this Prometheus, not the agents: one query\n"
             "per metric for all nodes"},
    {.kind = GM_OPT_USE,
     .group = &cli_hist_group,
     .name = "config",
     .off = OFF(h),
     .help = "the configuration file whose [fleet] fleet = names the agents\n"
             "when neither of the two above is given"},
    {.kind = GM_OPT_USE, .group = &cli_hist_group, .name = "no-config", .off = OFF(h)},
    {.kind = GM_OPT_FN,
     .name = "timeout",
     .arg = "SEC",
     .fn = parse_secs,
     .off = OFF(timeout_ns),
     .help = "the command within this, start-up and printing included\n"
             "(default 2; top and serve: each round)"},
    {.kind = GM_OPT_FN,
     .name = "node-timeout",
     .arg = "SEC",
     .fn = parse_secs,
     .off = OFF(node_timeout_ns),
     .help = "one node's answers within this (default: --timeout)"},
    {.kind = GM_OPT_FN,
     .name = "stale",
     .arg = "SEC",
     .fn = parse_secs,
     .off = OFF(stale_ns),
     .help = "a node whose latest sample is older is stale (default 30)"},
    {.kind = GM_OPT_FN,
     .name = "interval",
     .arg = "SEC",
     .fn = parse_secs,
     .off = OFF(interval_ns),
     .help = "top: a round over the nodes this often (default 2)"},
    {.kind = GM_OPT_SET,
     .name = "tls",
     .val = 1,
     .off = OFF(tls),
     .help = "https for hosts given without a scheme"},
    {.kind = GM_OPT_STR,
     .name = "cacert",
     .arg = "FILE",
     .off = OFF(cacert),
     .help = "trust the CAs of this PEM file too"},
    {.kind = GM_OPT_STR,
     .name = "cert",
     .arg = "FILE",
     .off = OFF(cert),
     .help = "client certificate (PEM)"},
    {.kind = GM_OPT_STR,
     .name = "key",
     .arg = "FILE",
     .off = OFF(key),
     .help = "its private key (PEM)"},
    {.kind = GM_OPT_SET,
     .name = "insecure",
     .val = 1,
     .off = OFF(insecure),
     .help = "do not verify the agents' certificates"},
    {.kind = GM_OPT_STR,
     .name = "user",
     .arg = "NAME",
     .off = OFF(user),
     .help = "basic auth user (the password from one of the next two)"},
    {.kind = GM_OPT_STR,
     .name = "password-file",
     .arg = "FILE",
     .off = OFF(password_file),
     .help = "basic auth password: the file's first line"},
    {.kind = GM_OPT_STR,
     .name = "password-env",
     .arg = "VAR",
     .off = OFF(password_env),
     .help = "basic auth password: this environment variable"},
    {.kind = GM_OPT_SET,
     .name = "json",
     .val = 1,
     .off = OFF(json),
     .help = "status, diagnose: the JSON document"},
    {.kind = GM_OPT_SET,
     .name = "gpus",
     .val = 1,
     .off = OFF(gpus),
     .help = "status: every GPU's row, not only the problem ones"},
    {.kind = GM_OPT_FN,
     .name = "count",
     .letter = 'n',
     .arg = "N",
     .fn = parse_count,
     .off = OFF(count),
     .help = "free: choose N; exit 1 when fewer are free"},
    {.kind = GM_OPT_FN,
     .name = "min-memory",
     .arg = "SIZE",
     .fn = parse_min_mem,
     .off = OFF(fo),
     .help = "free: free memory needed (20G, 90%; default 90%)"},
    {.kind = GM_OPT_CHOICE,
     .name = "format",
     .letter = 'f',
     .arg = "text|env|json|csv",
     .hint = "text, env, json, csv",
     .off = OFF(fmt),
     .help = "free (text, env, json), report (text, csv, json): what to\n"
             "print (default text)"},
    {.kind = GM_OPT_CHOICE,
     .name = "by",
     .arg = "user|job|node",
     .hint = "user, job, node",
     .off = OFF(by),
     .help = "report: a line per user (default), job or node"},
    {.kind = GM_OPT_FN,
     .name = "since",
     .arg = "DUR",
     .fn = parse_since,
     .off = OFF(since_ns),
     .help = "report: the period back from now (default 7d)"},
    {.kind = GM_OPT_STR,
     .name = "listen",
     .arg = "ADDR:PORT",
     .off = OFF(listen),
     .help = "serve: the fleet page's address (/fleet, /api/v1/fleet)"},
    {.kind = GM_OPT_STR,
     .name = "web-config",
     .arg = "FILE",
     .off = OFF(web_config),
     .help = "serve: TLS and basic auth, as the agent's (docs/exporter.md)"},
    {.kind = GM_OPT_STR,
     .name = "allowed-hosts",
     .arg = "NAMES",
     .off = OFF(allowed_hosts),
     .help = "serve: Host names answered besides its addresses, localhost and\n"
             "the host name, comma-separated (* any); as the agent's"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd fleet_opts = {
    .name = "fleet",
    .head = "usage: gpumon fleet [status|free|diagnose|top|report|serve] [OPTIONS]\n\n"
            "Every node's GPUs at a glance, from each agent's HTTP API (gpumon agent or\n"
            "serve on every node).  status (the default): a line per node, then the GPUs\n"
            "with a problem; free: the free GPUs of the fleet by gpumon free's rules;\n"
            "diagnose: every node's findings by cause, and a job whose GPUs on one node\n"
            "lag far behind its other nodes'; top: full screen, a cell per GPU and a\n"
            "node list, refreshed every --interval; report: GPU-hours and energy per\n"
            "user, job or node over --since; serve: the fleet page at\n"
            "http://--listen/fleet, its nodes asked every --interval (SIGTERM or SIGINT\n"
            "stop it).\n\n",
    .tail = "\nSee docs/fleet.md for the node states, the JSON documents and security.\n",
    .col = 27,
    .subs = "status|free|diagnose|top|report|serve",
    .opts = fleet_rows,
};

static const struct gm_fleet_fetch_module *fetch_mod;

static int read_password(const struct fleet_args *a, char *pw, size_t len)
{
    pw[0] = '\0';
    if (a->password_file && a->password_env)
        return cli_usage_error("fleet", "--password-file and --password-env: give one");
    if ((a->password_file || a->password_env) && !a->user)
        return cli_usage_error("fleet", "a password needs --user");
    if (a->password_env) {
        const char *v = getenv(a->password_env);
        if (!v) {
            cli_error("fleet: the environment variable %s (--password-env) is not set",
                      a->password_env);
            return GM_EXIT_USAGE;
        }
        if (strlen(v) >= len) {
            cli_error("fleet: the password in %s is longer than %zu bytes", a->password_env,
                      len - 1);
            return GM_EXIT_USAGE;
        }
        gm_strlcpy(pw, v, len);
    } else if (a->password_file) {
        FILE *f = fopen(a->password_file, "re");
        if (!f) {
            cli_error("fleet: cannot read --password-file %s: %s", a->password_file,
                      strerror(errno));
            return GM_EXIT_USAGE;
        }
        if (!fgets(pw, (int)len, f))
            pw[0] = '\0';
        fclose(f);
        pw[strcspn(pw, "\r\n")] = '\0';
    } else if (a->user) {
        return cli_usage_error("fleet", "--user needs --password-file or --password-env");
    }
    return 0;
}

static int load_fetch(void)
{
    char why[256] = "";
    if (fetch_mod)
        return 0;
    fetch_mod = gm_fleet_module_load(why, sizeof(why));
    if (!fetch_mod) {
        cli_error("fleet: cannot load the HTTP client: %s", why);
        return GM_EXIT_FAIL;
    }
    return 0;
}

/* A one-shot command's end (monotonic; 0: rounds, as fleet top and fleet
 * serve): --timeout is then the whole command's, start-up and printing
 * included, so the fetch gets what is left less a reserve to print. */
static int64_t command_deadline_ns;
#define PRINT_RESERVE_NS (100 * 1000000LL)

/* The fetch options of the flags (pw: the password read). */
static void fetch_opts(const struct fleet_args *a, const char *pw, struct gm_fleet_fetch_opts *fo)
{
    *fo = (struct gm_fleet_fetch_opts){
        .cacert = a->cacert,
        .cert = a->cert,
        .key = a->key,
        .user = a->user,
        .password = a->user ? pw : NULL,
        .insecure = a->insecure,
        .total_ns = a->timeout_ns,
        .node_ns = a->node_timeout_ns ? a->node_timeout_ns : a->timeout_ns,
        .max_body = GM_FLEET_MAX_BODY,
    };
    if (command_deadline_ns) {
        int64_t left = command_deadline_ns - gm_mono_ns() - PRINT_RESERVE_NS;
        if (left < a->timeout_ns / 2)
            left = a->timeout_ns / 2; /* a start-up that slow: still a fair try */
        if (left < fo->total_ns)
            fo->total_ns = left;
    }
    if (fo->node_ns > fo->total_ns)
        fo->node_ns = fo->total_ns;
}

/* Asks every node of f (the module loaded) and reads the answers into
 * it.  Prints nothing (fleet top calls it under its screen): 0, or -1
 * with why when nothing could be asked. */
static int fetch_nodes(struct gm_fleet *f, const struct fleet_args *a, const char *pw, char *why,
                       size_t wlen)
{
    struct gm_fleet_fetch_opts fo;
    fetch_opts(a, pw, &fo);
    return gm_fleet_fetch_round(fetch_mod, f, &fo, a->stale_ns, why, wlen);
}

static int fetch_all(struct gm_fleet *f, const struct fleet_args *a, const char *pw)
{
    char why[256] = "";
    int rc = load_fetch();
    if (rc == 0 && fetch_nodes(f, a, pw, why, sizeof(why)) != 0) {
        cli_error("fleet: %s", why);
        rc = GM_EXIT_FAIL;
    }
    return rc;
}

/* fleet top's round: the same fetch on the view's thread. */
struct top_ctx {
    const struct fleet_args *a;
    const char *pw;
};

/* fleet report's fetch (ctx: a struct top_ctx): the transfers with the command's options; prom:
 * Prometheus queries, all at once on its one host. */
static int report_fetch(void *ctx, struct gm_fleet_xfer *x, size_t n, int prom, char *why,
                        size_t wlen)
{
    const struct top_ctx *t = ctx;
    struct gm_fleet_fetch_opts fo;
    fetch_opts(t->a, t->pw, &fo);
    if (prom) {
        fo.node_ns = fo.total_ns;
        fo.max_body = 64u << 20;
        fo.host_connections = (long)n;
    }
    return fetch_mod->fetch(x, n, &fo, why, wlen);
}

/* The Prometheus source: one request per query of gm_fleet_prom_queries
 * (each on its own connection, all at once), then the nodes from their
 * answers (the module loaded).  A query that fails is an error: without it
 * the view would be wrong, not partial.  Prints nothing (fleet top calls
 * it under its screen): 0, or -1 with why. */
static int prom_nodes(struct gm_fleet *f, const struct fleet_args *a, const char *pw, char *why,
                      size_t wlen)
{
    struct gm_fleet_fetch_opts fo;
    fetch_opts(a, pw, &fo);
    struct gm_err err = {0};
    if (gm_fleet_prom_round(fetch_mod, a->prometheus, &fo, a->stale_ns, f, &err) != 0) {
        snprintf(why, wlen, "%s", err.msg);
        return -1;
    }
    return 0;
}

static int fetch_prometheus(struct gm_fleet *f, const struct fleet_args *a, const char *pw)
{
    char why[1400] = "";
    int rc = load_fetch();
    if (rc == 0 && prom_nodes(f, a, pw, why, sizeof(why)) != 0) {
        cli_error("fleet: %s", why);
        rc = GM_EXIT_FAIL;
    }
    return rc;
}

/* fleet top over Prometheus: the nodes are the targets of the first
 * reading (its list is fixed for the run); each round reads Prometheus
 * again and gives each of those nodes what it says now.  A node that is
 * no longer a target is unreachable. */
static int prom_round(const struct top_ctx *t, struct gm_fleet *f, char *why, size_t wlen)
{
    struct gm_fleet got = {0};
    int rc = prom_nodes(&got, t->a, t->pw, why, wlen);
    for (uint32_t i = 0; i < f->n; i++) {
        struct gm_fleet_node *nd = &f->node[i];
        uint32_t k = 0;
        while (k < got.n && strcmp(got.node[k].host, nd->host) != 0)
            k++;
        if (rc != 0 || k == got.n) {
            nd->state = GM_FLEET_UNREACHABLE;
            gm_strlcpy(nd->reason,
                       rc != 0 ? "Prometheus did not answer" : "no longer a target of Prometheus",
                       sizeof(nd->reason));
            continue;
        }
        struct gm_fleet_node keep = *nd; /* holds nothing allocated */
        *nd = got.node[k];
        got.node[k] = keep;
    }
    gm_fleet_clear(&got);
    return rc;
}

static int top_round(void *ctx, struct gm_fleet *f, char *why, size_t wlen)
{
    const struct top_ctx *t = ctx;
    if (t->a->prometheus)
        return prom_round(t, f, why, wlen);
    return fetch_nodes(f, t->a, t->pw, why, wlen);
}

/* Whether u is an http(s) URL without credentials, query or odd bytes. */
static int prom_url_ok(const char *u)
{
    if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
        return 0;
    size_t n = strlen(u);
    if (n > 900)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)u[i];
        if (c <= ' ' || c >= 0x7f || c == '@' || c == '?' || c == '#')
            return 0;
    }
    return 1;
}

/* fleet free: every ok node's GPUs judged by gpumon free's rules, the
 * free ones ranked by free memory (most first), then node order. */
struct pick {
    uint32_t node, unit;
    double mem_free;
};

static int by_mem(const void *a, const void *b)
{
    const struct pick *x = a, *y = b;
    if (x->mem_free != y->mem_free)
        return x->mem_free > y->mem_free ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

static void line_text(struct gm_buf *b, const char *s)
{
    gm_text_line(b, s, strlen(s));
}

static int run_free(struct gm_fleet *f, const struct fleet_args *a, struct gm_buf *out)
{
    struct gm_free_result *r = gm_xcalloc(f->n ? f->n : 1, sizeof(*r));
    struct pick *p = NULL;
    size_t np = 0, cap = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->node[i].state != GM_FLEET_OK || !f->node[i].s)
            continue;
        const struct gm_snapshot *s = f->node[i].s;
        gm_free_judge(&s, 1, &a->fo, &r[i]);
        for (uint32_t k = 0; k < r[i].n; k++) {
            if (!r[i].u[k].free)
                continue;
            if (np == cap) {
                cap = cap ? cap * 2 : 64;
                p = gm_xrealloc(p, cap * sizeof(*p));
            }
            const struct gm_value *mf = &r[i].u[k].mem_free;
            p[np++] = (struct pick){i, k, gm_v_ok(mf) ? gm_v_as_double(mf) : 0};
        }
    }
    if (np) /* qsort of NULL is undefined even for 0 elements */
        qsort(p, np, sizeof(*p), by_mem);
    size_t take = a->count ? (a->count <= np ? a->count : 0) : np;
    if (a->fmt == FMT_JSON) {
        struct gm_json j;
        gm_json_init(&j, out, 1);
        gm_json_obj_begin(&j);
        gm_json_key(&j, "schema");
        gm_json_str(&j, "gpumon.fleet-free/1");
        gm_json_key(&j, "free");
        gm_json_u64(&j, np);
        gm_json_key(&j, "chosen");
        gm_json_arr_begin(&j);
        for (size_t c = 0; c < take; c++) {
            const struct gm_free_unit *u = &r[p[c].node].u[p[c].unit];
            gm_json_obj_begin(&j);
            gm_json_key(&j, "host");
            gm_json_str(&j, f->node[p[c].node].host);
            gm_json_key(&j, "gpu");
            gm_json_u64(&j, u->gpu);
            gm_json_key(&j, "mig");
            if (u->mig >= 0)
                gm_json_u64(&j, (uint64_t)u->mig);
            else
                gm_json_null(&j);
            gm_json_key(&j, "uuid");
            gm_json_str(&j, u->uuid);
            gm_json_key(&j, "name");
            gm_json_str(&j, u->name);
            gm_json_key(&j, "memory_free_bytes");
            gm_json_f64(&j, p[c].mem_free, 0);
            gm_json_obj_end(&j);
        }
        gm_json_arr_end(&j);
        gm_json_key(&j, "nodes_not_ok");
        gm_json_arr_begin(&j);
        for (uint32_t i = 0; i < f->n; i++)
            if (f->node[i].state != GM_FLEET_OK)
                gm_json_str(&j, f->node[i].host);
        gm_json_arr_end(&j);
        gm_json_obj_end(&j);
        gm_buf_putc(out, '\n');
    } else {
        /* a line per node, its chosen GPUs in rank order */
        for (uint32_t i = 0; i < f->n; i++) {
            int first = 1;
            for (size_t c = 0; c < take; c++) {
                if (p[c].node != i)
                    continue;
                const struct gm_free_unit *u = &r[i].u[p[c].unit];
                if (first) {
                    if (a->fmt == FMT_ENV)
                        gm_buf_puts(out, "# ");
                    line_text(out, f->node[i].host);
                    gm_buf_puts(out, a->fmt == FMT_ENV ? "\n" : ": ");
                    gm_buf_puts(out, "CUDA_VISIBLE_DEVICES=");
                    if (a->fmt == FMT_ENV)
                        gm_buf_putc(out, '\'');
                } else {
                    gm_buf_putc(out, ',');
                }
                first = 0;
                /* a UUID is GPU- or MIG- and hex: anything else is refused */
                int clean = strspn(u->uuid, "GPUMI-0123456789abcdefABCDEF") == strlen(u->uuid);
                gm_buf_puts(out, clean && u->uuid[0] ? u->uuid : "invalid-uuid");
            }
            if (!first)
                gm_buf_puts(out, a->fmt == FMT_ENV ? "'\n" : "\n");
        }
    }
    int rc = 0;
    if (a->count && np < a->count) {
        cli_error("fleet: too few free GPUs: %zu free, --count %lu", np, a->count);
        rc = GM_EXIT_FAIL;
    }
    for (uint32_t i = 0; i < f->n; i++)
        gm_free_result_clear(&r[i]);
    free(r);
    free(p);
    return rc;
}

/* fleet serve: the fleet page of the agent's page server (the exporter
 * module, fleet_only) over a poller of f's nodes, until SIGTERM or SIGINT.
 * The signals are blocked before the threads start, so only sigwait takes
 * them. */
static int run_serve(struct gm_fleet *f, const struct fleet_args *a, const char *pw)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct gm_fleet_poll_opts po = {.nodes = f,
                                    .prometheus = a->prometheus,
                                    .interval_ns = a->interval_ns,
                                    .stale_ns = a->stale_ns};
    fetch_opts(a, pw, &po.fetch);
    struct gm_err err = {0};
    struct gm_fleet_poller *p = gm_fleet_poller_start(&po, &err);
    if (!p) {
        cli_error("%s", err.msg);
        return GM_EXIT_FAIL;
    }
    struct gm_exporter_opts eo = {
        .listen = a->listen,
        .web_config = a->web_config,
        .allowed_hosts = a->allowed_hosts ? a->allowed_hosts : "",
        .fleet_json = gm_fleet_poller_json_cb,
        .fleet_arg = p,
        .fleet_only = 1,
        .log = gm_log_cb,
    };
    struct gm_exporter *x = gm_exporter_start(&eo, &err);
    if (!x) {
        cli_error("fleet serve: %s", err.msg);
        gm_fleet_poller_stop(p);
        return GM_EXIT_FAIL;
    }
    char url[300];
    gm_exporter_url(x, url, sizeof(url));
    if (a->prometheus)
        fprintf(stderr, "gpumon fleet serve: the nodes of Prometheus, the page at %s/fleet\n", url);
    else
        fprintf(stderr, "gpumon fleet serve: %u nodes, the page at %s/fleet\n", f->n, url);
    int sig = 0;
    sigwait(&set, &sig);
    gm_exporter_stop(x);
    gm_fleet_poller_stop(p);
    return 0;
}

/* Options that only some subcommands read: given to another, they would
 * be ignored without a word, so they are refused, naming the ones that
 * read them. */
static int sub_opts_ok(const char *sub, const struct fleet_args *a)
{
    const struct {
        const char *opt, *subs, *who; /* subs: space-separated; who: in words */
        int given;
    } t[] = {
        {"json", "status diagnose report", "status, diagnose and report", a->json},
        {"gpus", "status", "status", a->gpus},
        {"count", "free", "free", a->count != 0},
        {"min-memory", "free", "free", a->fo_set},
        {"format", "free report", "free and report", a->fmt >= 0},
        {"by", "report", "report", a->by >= 0},
        {"since", "report", "report", a->since_ns >= 0},
        {"interval", "top serve", "top and serve", a->interval_ns >= 0},
        {"listen", "serve", "serve", a->listen != NULL},
        {"web-config", "serve", "serve", a->web_config != NULL},
        {"allowed-hosts", "serve", "serve", a->allowed_hosts != NULL},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (!t[i].given)
            continue;
        size_t n = strlen(sub);
        const char *p = t[i].subs;
        int found = 0;
        while ((p = strstr(p, sub)) != NULL) {
            if ((p == t[i].subs || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
                found = 1;
                break;
            }
            p += n;
        }
        if (!found) {
            cli_usage_error("fleet", "fleet %s does not read --%s: only fleet %s do%s", sub,
                            t[i].opt, t[i].who, strchr(t[i].subs, ' ') ? "" : "es");
            return -1;
        }
    }
    return 0;
}

static int cmd_fleet_run(int argc, char **argv)
{
    int64_t t0 = gm_mono_ns();
    const char *sub = "status";
    if (argc > 1 && argv[1][0] != '-') {
        sub = argv[1];
        if (strcmp(sub, "status") != 0 && strcmp(sub, "free") != 0 &&
            strcmp(sub, "diagnose") != 0 && strcmp(sub, "top") != 0 && strcmp(sub, "report") != 0 &&
            strcmp(sub, "serve") != 0)
            return cli_usage_error(
                "fleet", "unknown subcommand '%s' (status, free, diagnose, top, report, serve)",
                sub);
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    /* -1: not given, for sub_opts_ok; the defaults are set after it */
    struct fleet_args a = {.timeout_ns = 2000000000LL,
                           .stale_ns = 30000000000LL,
                           .interval_ns = -1,
                           .since_ns = -1,
                           .by = -1,
                           .fo = GM_FREE_OPTS_DEFAULT,
                           .fmt = -1};
    int prc = cli_opts(&fleet_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    if (sub_opts_ok(sub, &a) != 0)
        return GM_EXIT_USAGE;
    if (a.interval_ns < 0)
        a.interval_ns = 2000000000LL;
    if (a.since_ns < 0)
        a.since_ns = 7LL * 86400 * 1000000000LL;
    if (a.by < 0)
        a.by = GM_FREP_USER;
    if (a.fmt < 0)
        a.fmt = FMT_TEXT;
    struct gm_fleet f = {0};
    struct gm_err err = {0};
    if (a.prometheus && (a.hosts || a.hosts_file))
        return cli_usage_error("fleet", "--prometheus or the agents (--hosts, --hosts-file): "
                                        "not both");
    if (strcmp(sub, "report") == 0 && a.fmt == FMT_ENV)
        return cli_usage_error("fleet", "fleet report --format: text, csv or json");
    if (strcmp(sub, "report") != 0 && a.fmt == FMT_CSV)
        return cli_usage_error("fleet", "--format csv is fleet report's");
    if (strcmp(sub, "serve") == 0 && (!a.listen || !a.listen[0]))
        return cli_usage_error("fleet", "fleet serve needs --listen ADDR:PORT");
    if (a.prometheus && !prom_url_ok(a.prometheus))
        return cli_usage_error("fleet", "--prometheus: an http:// or https:// URL without "
                                        "credentials, query or spaces");
    if (a.prometheus) {
        /* the nodes come from Prometheus */
    } else if (!a.hosts && !a.hosts_file) { /* fleet = in the configuration */
        struct gm_config *c = gm_xcalloc(1, sizeof(*c));
        int crc = cli_config(c, a.h.config, a.h.no_config, NULL, NULL);
        if (crc == 0 && c->fleet[0] && gm_fleet_add_list(&f, c->fleet, a.tls, &err) != 0) {
            cli_error("fleet: fleet = in the configuration: %s", err.msg);
            crc = GM_EXIT_USAGE;
        }
        free(c);
        if (crc != 0) {
            gm_fleet_clear(&f);
            return crc;
        }
        if (f.n == 0)
            return cli_usage_error("fleet", "no nodes: give --hosts, --hosts-file, or fleet = "
                                            "in the configuration's [fleet] section");
    }
    if ((a.hosts && gm_fleet_add_list(&f, a.hosts, a.tls, &err) != 0) ||
        (a.hosts_file && gm_fleet_add_file(&f, a.hosts_file, a.tls, &err) != 0)) {
        gm_fleet_clear(&f);
        return cli_usage_error("fleet", "%s", err.msg);
    }
    if (f.n == 0 && !a.prometheus) {
        gm_fleet_clear(&f);
        return cli_usage_error("fleet", "no nodes in the list");
    }
    if (strcmp(sub, "top") != 0 && strcmp(sub, "serve") != 0)
        command_deadline_ns = t0 + a.timeout_ns;
    char pw[1024];
    int rc = read_password(&a, pw, sizeof(pw));
    if (rc == 0 && strcmp(sub, "top") == 0) {
        struct top_ctx t = {&a, pw};
        /* over Prometheus, the nodes are the targets it has now */
        if (a.prometheus && (rc = fetch_prometheus(&f, &a, pw)) == 0 && f.n == 0) {
            cli_error("fleet: Prometheus %s scrapes no gpumon agent", a.prometheus);
            rc = GM_EXIT_FAIL;
        }
        if (rc == 0 && (rc = load_fetch()) == 0)
            rc = cli_fleet_top(&f, a.interval_ns, a.timeout_ns, top_round, &t);
        memset(pw, 0, sizeof(pw));
        gm_fleet_clear(&f);
        return rc;
    }
    if (rc == 0 && strcmp(sub, "report") == 0) {
        struct top_ctx ctx = {&a, pw};
        char base[1024] = "";
        if (a.prometheus) {
            size_t bl = strlen(a.prometheus);
            while (bl && a.prometheus[bl - 1] == '/')
                bl--;
            snprintf(base, sizeof(base), "%.*s", (int)bl, a.prometheus);
        }
        struct cli_fleet_report_opts ro = {.prometheus = a.prometheus ? base : NULL,
                                           .by = a.by,
                                           .since_ns = a.since_ns,
                                           .format = a.fmt == FMT_CSV              ? GM_FREP_CSV
                                                     : a.fmt == FMT_JSON || a.json ? GM_FREP_JSON
                                                                                   : GM_FREP_TEXT};
        if ((rc = load_fetch()) == 0)
            rc = cli_fleet_report(&f, &ro, report_fetch, &ctx);
        memset(pw, 0, sizeof(pw));
        gm_fleet_clear(&f);
        return rc;
    }
    if (rc == 0 && strcmp(sub, "serve") == 0) {
        rc = run_serve(&f, &a, pw);
        memset(pw, 0, sizeof(pw));
        gm_fleet_clear(&f);
        return rc;
    }
    if (rc == 0)
        rc = a.prometheus ? fetch_prometheus(&f, &a, pw) : fetch_all(&f, &a, pw);
    memset(pw, 0, sizeof(pw));
    struct gm_buf out = GM_BUF_INIT;
    if (rc == 0) {
        if (strcmp(sub, "free") == 0) {
            rc = run_free(&f, &a, &out);
        } else if (strcmp(sub, "diagnose") == 0) {
            gm_fleet_render_diagnose(&f, a.json, 1, &out);
        } else {
            struct gm_fleet_view_opts vo = {.gpus = a.gpus};
            if (a.json)
                gm_fleet_render_json(&f, 1, &out);
            else
                gm_fleet_render_status(&f, &vo, &out);
        }
        int wrc = cli_write(STDOUT_FILENO, &out);
        if (wrc != 0)
            rc = wrc;
        uint32_t ok = 0;
        for (uint32_t i = 0; i < f.n; i++)
            ok += f.node[i].state == GM_FLEET_OK;
        if (rc == 0 && ok == 0) {
            cli_error("fleet: no node answered (of %u)", f.n);
            rc = GM_EXIT_FAIL;
        }
    }
    gm_buf_free(&out);
    gm_fleet_clear(&f);
    return rc;
}

const struct gm_cmd gm_cmd_fleet = {"fleet", "many nodes' GPUs: status, free GPUs, diagnosis",
                                    cmd_fleet_run, &fleet_opts};

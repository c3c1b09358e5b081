/* cmd_fleet.c -- `gpumon fleet [status|free|diagnose|top]`: every node's GPUs
 * at a glance, from each agent's HTTP API (docs/fleet.md).
 *
 * Parses the flags, builds the node list (--hosts, --hosts-file), loads
 * the HTTP client module (gpumon_fleet.so: libcurl only for this command),
 * asks every node for /api/v1/status and /api/v1/alerts at once within
 * --timeout, hands the answers to src/fleet/ and prints what it renders.
 * `fleet free` judges each node's GPUs with view/free.c's rules, the same
 * code `gpumon free` runs; `fleet top` (cmd_fleet_top.c) repeats the same
 * fetch every --interval behind a full-screen view.  The basic-auth password is read from a file or
 * an environment variable, never from the command line, and never
 * printed.  Exit: 0, 1 when no node answered (or too few free GPUs), 2 on
 * bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/json.h"
#include "../core/modload.h"
#include "../core/text.h"
#include "../agent/config.h"
#include "../core/timeutil.h"
#include "../fleet/fetch_module.h"
#include "../fleet/fleet.h"
#include "../view/free.h"
#include "cli.h"
#include "cmd_fleet_top.h"
#include "opt.h"
#include "optgroups.h"

#ifndef GM_FLEET_MODULE_INSTALLED
#define GM_FLEET_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_fleet.so"
#endif

enum { FMT_TEXT, FMT_ENV, FMT_JSON };

struct fleet_args {
    const char *prometheus;
    const char *hosts, *hosts_file, *cacert, *cert, *key, *user, *password_file, *password_env;
    int64_t timeout_ns, node_timeout_ns, stale_ns, interval_ns;
    int tls, insecure, json, gpus, fmt;
    unsigned long count;
    struct gm_free_opts fo;
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

static int parse_min_mem(const struct gm_opt *o, const char *v, void *dst, struct gm_err *err)
{
    (void)o;
    return gm_free_parse_min_mem(v, dst, err) != 0 ? -1 : 0;
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
     .help = "read the fleet from this Prometheus (status, diagnose), not the\n"
             "agents: one query per metric for all nodes"},
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
     .help = "every node's answer within this (default 2)"},
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
     .arg = "text|env|json",
     .hint = "text, env, json",
     .off = OFF(fmt),
     .help = "free: what to print (default text)"},
    {.kind = GM_OPT_HELP, .name = "help", .letter = 'h', .help = "this help"},
    {0},
};

static const struct gm_optcmd fleet_opts = {
    .name = "fleet",
    .head = "usage: gpumon fleet [status|free|diagnose|top] [OPTIONS]\n\n"
            "Every node's GPUs at a glance, from each agent's HTTP API (gpumon agent or\n"
            "serve on every node).  status (the default): a line per node, then the GPUs\n"
            "with a problem; free: the free GPUs of the fleet by gpumon free's rules;\n"
            "diagnose: every node's findings by cause, and a job whose GPUs on one node\n"
            "lag far behind its other nodes'; top: full screen, a cell per GPU and a\n"
            "node list, refreshed every --interval.\n\n",
    .tail = "\nSee docs/fleet.md for the node states, the JSON documents and security.\n",
    .col = 27,
    .subs = "status|free|diagnose|top",
    .opts = fleet_rows,
};

static const struct gm_fleet_fetch_module *fetch_mod;

static int accept_fleet(const void *sym, char *why, size_t wlen)
{
    const struct gm_fleet_fetch_module *m = sym;
    if (m->abi != GM_FLEET_FETCH_ABI)
        return -1;
    return m->init(why, wlen);
}

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
    fetch_mod = gm_module_load("GPUMON_FLEET_MODULE", "gpumon_fleet.so", GM_FLEET_MODULE_INSTALLED,
                               "gm_fleet_fetch_module", "fleet", accept_fleet, why, sizeof(why));
    if (!fetch_mod) {
        cli_error("fleet: cannot load the HTTP client: %s", why);
        return GM_EXIT_FAIL;
    }
    return 0;
}

/* Reads one node's answers (its transfer x) into nd. */
static void read_answers(struct gm_fleet_node *nd, const struct gm_fleet_xfer *x, int64_t now,
                         int64_t stale_ns)
{
    nd->fetch_s = (double)x->elapsed_ns / 1e9;
    if (x->fail[0] != GM_FLEET_F_NONE || x->status[0] != 200) {
        gm_fleet_node_failed(nd, x->fail[0], x->status[0], x->error[0]);
        return;
    }
    if (gm_fleet_node_status(nd, x->body[0], x->len[0], now, stale_ns) != 0)
        return;
    if (x->fail[1] == GM_FLEET_F_NONE && x->status[1] == 200)
        gm_fleet_node_alerts(nd, x->body[1], x->len[1]);
    else if (nd->state == GM_FLEET_OK)
        gm_strlcpy(nd->reason, "alerts unknown: /api/v1/alerts did not answer", sizeof(nd->reason));
}

/* What fetch_nodes' node_done reads each node's answers into. */
struct read_ctx {
    struct gm_fleet *f;
    struct gm_fleet_xfer *x;
    int64_t stale_ns;
    unsigned char *read; /* per node: its answers read (and freed) */
};

/* Reads node i's answers as soon as it has them, while the fetch waits
 * for the others, and frees them: with 1000 nodes they are tens of MiB,
 * and a hung node no longer holds the reading of all the rest. */
static void node_done(void *arg, size_t i)
{
    struct read_ctx *c = arg;
    read_answers(&c->f->node[i], &c->x[i], gm_wall_ns(), c->stale_ns);
    for (int k = 0; k < GM_FLEET_MAX_PATHS; k++) {
        free(c->x[i].body[k]);
        c->x[i].body[k] = NULL;
    }
    c->read[i] = 1;
}

/* Asks every node of f (the module loaded) and reads the answers into
 * it.  Prints nothing (fleet top calls it under its screen): 0, or -1
 * with why when nothing could be asked. */
static int fetch_nodes(struct gm_fleet *f, const struct fleet_args *a, const char *pw, char *why,
                       size_t wlen)
{
    struct gm_fleet_xfer *x = gm_xcalloc(f->n, sizeof(*x));
    for (uint32_t i = 0; i < f->n; i++) {
        x[i].base = f->node[i].base;
        x[i].paths[0] = "/api/v1/status";
        x[i].paths[1] = "/api/v1/alerts";
    }
    struct read_ctx rc_ctx = {f, x, a->stale_ns, gm_xcalloc(f->n ? f->n : 1, 1)};
    struct gm_fleet_fetch_opts fo = {
        .cacert = a->cacert,
        .cert = a->cert,
        .key = a->key,
        .user = a->user,
        .password = a->user ? pw : NULL,
        .insecure = a->insecure,
        .total_ns = a->timeout_ns,
        .node_ns = a->node_timeout_ns ? a->node_timeout_ns : a->timeout_ns,
        .max_body = GM_FLEET_MAX_BODY,
        .node_done = node_done,
        .arg = &rc_ctx,
    };
    if (fo.node_ns > fo.total_ns)
        fo.node_ns = fo.total_ns;
    int rc = 0;
    if (fetch_mod->fetch(x, f->n, &fo, why, wlen) != 0)
        rc = -1;
    int64_t now = gm_wall_ns();
    for (uint32_t i = 0; i < f->n; i++) {
        if (rc == 0 && !rc_ctx.read[i]) /* those the total deadline ended */
            read_answers(&f->node[i], &x[i], now, a->stale_ns);
        for (int k = 0; k < GM_FLEET_MAX_PATHS; k++)
            free(x[i].body[k]);
    }
    free(rc_ctx.read);
    free(x);
    return rc;
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

static int top_round(void *ctx, struct gm_fleet *f, char *why, size_t wlen)
{
    const struct top_ctx *t = ctx;
    return fetch_nodes(f, t->a, t->pw, why, wlen);
}

/* The Prometheus source: one request per query of gm_fleet_prom_queries
 * (each on its own connection, all at once), then the nodes from their
 * answers.  A query that fails is an error: without it the view would be
 * wrong, not partial. */
static int fetch_prometheus(struct gm_fleet *f, const struct fleet_args *a, const char *pw)
{
    size_t n = 0;
    while (gm_fleet_prom_queries[n])
        n++;
    char why[256] = "";
    fetch_mod = gm_module_load("GPUMON_FLEET_MODULE", "gpumon_fleet.so", GM_FLEET_MODULE_INSTALLED,
                               "gm_fleet_fetch_module", "fleet", accept_fleet, why, sizeof(why));
    if (!fetch_mod) {
        cli_error("fleet: cannot load the HTTP client: %s", why);
        return GM_EXIT_FAIL;
    }
    char base[1024];
    size_t bl = strlen(a->prometheus);
    while (bl && a->prometheus[bl - 1] == '/')
        bl--;
    snprintf(base, sizeof(base), "%.*s", (int)bl, a->prometheus);
    struct gm_fleet_xfer *x = gm_xcalloc(n, sizeof(*x));
    char **paths = gm_xcalloc(n, sizeof(*paths));
    for (size_t i = 0; i < n; i++) {
        struct gm_buf p = GM_BUF_INIT;
        gm_buf_printf(&p, "/api/v1/query?query=%s", gm_fleet_prom_queries[i]);
        paths[i] = p.p;
        x[i].base = base;
        x[i].paths[0] = paths[i];
    }
    struct gm_fleet_fetch_opts fo = {
        .cacert = a->cacert,
        .cert = a->cert,
        .key = a->key,
        .user = a->user,
        .password = a->user ? pw : NULL,
        .insecure = a->insecure,
        .total_ns = a->timeout_ns,
        .node_ns = a->timeout_ns,
        .max_body = 64u << 20,
        .host_connections = (long)n, /* the queries at once, not one after the other */
    };
    int rc = 0;
    if (fetch_mod->fetch(x, n, &fo, why, sizeof(why)) != 0) {
        cli_error("fleet: %s", why);
        rc = GM_EXIT_FAIL;
    }
    const char **body = gm_xcalloc(n, sizeof(*body));
    size_t *len = gm_xcalloc(n, sizeof(*len));
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (x[i].fail[0] != GM_FLEET_F_NONE || x[i].status[0] != 200) {
            struct gm_fleet_node probe = {0};
            gm_fleet_node_failed(&probe, x[i].fail[0], x[i].status[0], x[i].error[0]);
            cli_error("fleet: Prometheus %s: %s", base, probe.reason);
            rc = GM_EXIT_FAIL;
        }
        body[i] = x[i].body[0];
        len[i] = x[i].len[0];
    }
    struct gm_err err = {0};
    if (rc == 0 && gm_fleet_from_prometheus(f, body, len, a->stale_ns, &err) != 0) {
        cli_error("fleet: Prometheus %s: %s", base, err.msg);
        rc = GM_EXIT_FAIL;
    }
    for (size_t i = 0; i < n; i++) {
        free(x[i].body[0]);
        free(paths[i]);
    }
    free(body);
    free(len);
    free(paths);
    free(x);
    return rc;
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

static int cmd_fleet_run(int argc, char **argv)
{
    const char *sub = "status";
    if (argc > 1 && argv[1][0] != '-') {
        sub = argv[1];
        if (strcmp(sub, "status") != 0 && strcmp(sub, "free") != 0 &&
            strcmp(sub, "diagnose") != 0 && strcmp(sub, "top") != 0)
            return cli_usage_error("fleet", "unknown subcommand '%s' (status, free, diagnose, top)",
                                   sub);
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    struct fleet_args a = {.timeout_ns = 2000000000LL,
                           .stale_ns = 30000000000LL,
                           .interval_ns = 2000000000LL,
                           .fo = GM_FREE_OPTS_DEFAULT,
                           .fmt = FMT_TEXT};
    int prc = cli_opts(&fleet_opts, argc, argv, &a, NULL);
    if (prc != CLI_OPTS_GO)
        return prc;
    struct gm_fleet f = {0};
    struct gm_err err = {0};
    if (a.prometheus && (a.hosts || a.hosts_file))
        return cli_usage_error("fleet", "--prometheus or the agents (--hosts, --hosts-file): "
                                        "not both");
    if (a.prometheus && strcmp(sub, "free") == 0)
        return cli_usage_error("fleet", "fleet free needs the agents (--hosts): the Prometheus "
                                        "series have no processes to judge a GPU by");
    if (a.prometheus && strcmp(sub, "top") == 0)
        return cli_usage_error("fleet", "fleet top needs the agents (--hosts): it does not read "
                                        "Prometheus yet");
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
    char pw[1024];
    int rc = read_password(&a, pw, sizeof(pw));
    if (rc == 0 && strcmp(sub, "top") == 0) {
        struct top_ctx t = {&a, pw};
        if ((rc = load_fetch()) == 0)
            rc = cli_fleet_top(&f, a.interval_ns, a.timeout_ns, top_round, &t);
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

/* load.c -- finds and loads gpumon_export.so and forwards exporter.h's
 * functions to it (see module.h for why the exporter is a module); and the
 * listen-address parser and the [exporter] section's checks (listen.h),
 * which the core needs without the module. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/modload.h"
#include "listen.h"
#include "module.h"
#include "prom.h"

#ifndef GM_EXPORT_MODULE_INSTALLED
#define GM_EXPORT_MODULE_INSTALLED "/usr/local/lib/gpumon/gpumon_export.so"
#endif

static const struct gm_export_module *mod;
static pthread_mutex_t mod_mu = PTHREAD_MUTEX_INITIALIZER;

static int accept_export(const void *sym, char *why, size_t wlen)
{
    (void)why;
    (void)wlen;
    return ((const struct gm_export_module *)sym)->abi == GM_EXPORT_MODULE_ABI ? 0 : -1;
}

static const struct gm_export_module *load(struct gm_err *err)
{
    pthread_mutex_lock(&mod_mu);
    if (!mod) {
        char why[512] = "";
        mod = gm_module_load("GPUMON_EXPORT_MODULE", "gpumon_export.so", GM_EXPORT_MODULE_INSTALLED,
                             "gm_export_module", "exporter", accept_export, why, sizeof(why));
        if (!mod)
            gm_err_set(err, GM_E_NOLIB,
                       "cannot load the exporter module: %s" GM_MODULE_HINT(
                           "gpumon_export.so", "libmicrohttpd.so.12", "libmicrohttpd12"),
                       why);
    }
    const struct gm_export_module *m = mod;
    pthread_mutex_unlock(&mod_mu);
    return m;
}

struct gm_exporter *gm_exporter_start(const struct gm_exporter_opts *o, struct gm_err *err)
{
    const struct gm_export_module *m = load(err);
    return m ? m->start(o, err) : NULL;
}

int gm_exporter_reconfigure(struct gm_exporter *x, const struct gm_exporter_opts *o,
                            struct gm_err *err)
{
    return mod->reconfigure(x, o, err); /* x exists, so the module is loaded */
}

void gm_exporter_set_dropped(struct gm_exporter *x, uint64_t dropped)
{
    mod->set_dropped(x, dropped);
}

void gm_exporter_stop(struct gm_exporter *x)
{
    if (x)
        mod->stop(x);
}

void gm_exporter_url(struct gm_exporter *x, char *buf, size_t len)
{
    mod->url(x, buf, len); /* x exists, so the module is loaded */
}

int gm_exporter_check_web_config(const char *path, struct gm_err *err)
{
    const struct gm_export_module *m = load(err);
    return m ? m->check_web_config(path, err) : GM_E_NOLIB;
}

static int fwd_write(void *ctx, const struct gm_snapshot *s)
{
    return mod->sink_ops->write(ctx, s);
}

static int fwd_event(void *ctx, const struct gm_event *e)
{
    return mod->sink_ops->event ? mod->sink_ops->event(ctx, e) : 0;
}

static void fwd_close(void *ctx)
{
    if (mod->sink_ops->close)
        mod->sink_ops->close(ctx);
}

const struct gm_sink_ops gm_exporter_sink_ops = {
    .name = "exporter", .write = fwd_write, .event = fwd_event, .close = fwd_close};

/* ---------------------------------------------------------------- listen */

int gm_listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *why,
                    size_t wlen)
{
    char host[256];
    const char *port;
    if (s[0] == '[') {
        const char *e = strchr(s, ']');
        if (!e || e[1] != ':' || (size_t)(e - s - 1) >= sizeof(host)) {
            snprintf(why, wlen, "expected [ADDRESS]:PORT");
            return GM_E_INVAL;
        }
        snprintf(host, sizeof(host), "%.*s", (int)(e - s - 1), s + 1);
        port = e + 2;
    } else {
        const char *c = strrchr(s, ':');
        if (!c || (size_t)(c - s) >= sizeof(host)) {
            snprintf(why, wlen, "expected ADDRESS:PORT (or :PORT for every interface)");
            return GM_E_INVAL;
        }
        snprintf(host, sizeof(host), "%.*s", (int)(c - s), s);
        port = c + 1;
    }
    long p = 0;
    const char *d = port;
    while (*d >= '0' && *d <= '9' && p <= 65535)
        p = p * 10 + (*d++ - '0');
    if (!*port || *d || p < 1 || p > 65535) {
        snprintf(why, wlen, "invalid port \"%.16s\" (1 to 65535)", port);
        return GM_E_INVAL;
    }
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (!host[0] && s[0] != '[') {
        a6->sin6_family = AF_INET6; /* every interface, IPv6 and IPv4 */
        a6->sin6_addr = in6addr_any;
        a6->sin6_port = htons((uint16_t)p);
        *len = sizeof(*a6);
        return 0;
    }
    if (s[0] != '[' && inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)p);
        *len = sizeof(*a4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)p);
        *len = sizeof(*a6);
        return 0;
    }
    snprintf(why, wlen, "\"%.64s\" is not a numeric IPv4 or IPv6 address", host);
    return GM_E_INVAL;
}

/* ------------------------------------------------------------ settings */

/* A name of allowed-hosts (n bytes at p): as a Host header carries it
 * (letters, digits, '.', '-', '_'; at most 253), or "*". */
static int host_name_ok(const char *p, size_t n)
{
    if (n == 1 && *p == '*')
        return 1;
    if (n > 253)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)p[i]) && p[i] != '.' && p[i] != '-' && p[i] != '_')
            return 0;
    return 1;
}

int gm_exporter_conf_check(const char *key, const char *value, char *why, size_t wlen)
{
    if (!*value)
        return 0;
    if (!strcmp(key, "listen")) {
        struct sockaddr_storage ss;
        socklen_t len;
        char r[200];
        if (!strcmp(value, "\"\"") || !strcmp(value, "''")) {
            /* quotes are part of a value in the file, unlike on a command line */
            snprintf(why, wlen,
                     "invalid listen address %s: for no HTTP server leave the value empty "
                     "(\"listen =\")",
                     value);
            return GM_E_INVAL;
        }
        if (gm_listen_parse(value, &ss, &len, r, sizeof(r)) != 0) {
            snprintf(why, wlen, "invalid listen address \"%s\": %s", value, r);
            return GM_E_INVAL;
        }
    } else if (!strcmp(key, "dcgm-label-fields")) {
        unsigned mask;
        if (gm_prom_label_fields(value, &mask, why, wlen) != 0)
            return GM_E_INVAL;
    } else if (!strcmp(key, "allowed-hosts")) {
        for (const char *p = value; *p;) {
            p += strspn(p, ", \t");
            size_t n = strcspn(p, ", \t");
            if (n && !host_name_ok(p, n)) {
                snprintf(why, wlen,
                         "allowed-hosts: \"%.*s\" is not a host name (letters, digits, '.', "
                         "'-', '_'; or * for any; no port: every port is allowed)",
                         (int)(n > 64 ? 64 : n), p);
                return GM_E_INVAL;
            }
            p += n;
        }
    } else if (!strcmp(key, "web-config") && access(value, F_OK) != 0 &&
               (errno == ENOENT || errno == ENOTDIR)) {
        snprintf(why, wlen, "web-config \"%s\": %s", value, strerror(errno));
        return GM_E_INVAL;
    }
    return 0;
}

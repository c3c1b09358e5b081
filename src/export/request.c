/* request.c -- the exporter's request decisions (see request.h): the route
 * of a method and path, and content negotiation from Accept and
 * Accept-Encoding.  Moved out of exporter.c unchanged, so that they can be
 * tested and fuzzed without libmicrohttpd.
 *
 * The header lists are read leniently, as RFC 9110's grammar allows and
 * clients write them: elements separated by ',', each a token and ';'
 * parameters, quoted parameter values with backslash escapes; whatever does
 * not parse is skipped rather than refused.
 */
#include "request.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One element of a comma-separated header (Accept, Accept-Encoding): its
 * first token (media range or coding) and its q parameter. */
struct elem {
    const char *tok;
    size_t len;
    double q;
};

static int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* A qvalue (RFC 9110 12.4.2: 0 to 1, at most three decimals); anything
 * else is ignored (q stays 1), so a sloppy client still gets an answer. */
static double parse_q(const char *v, size_t n, double q)
{
    char tmp[8];
    if (n == 0 || n >= sizeof(tmp) || strspn(v, "0123456789.") < n)
        return q;
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    char *end;
    double d = strtod(tmp, &end);
    if (*end || d < 0 || d > 1)
        return q;
    return d;
}

/* Parses the element starting at p; returns where the next one starts, or
 * NULL at the end.  Quoted parameter values may hold ',' and ';'. */
static const char *next_elem(const char *p, struct elem *e)
{
    while (*p == ',' || is_ows(*p))
        p++;
    if (!*p)
        return NULL;
    e->tok = p;
    while (*p && *p != ',' && *p != ';')
        p++;
    e->len = (size_t)(p - e->tok);
    while (e->len && is_ows(e->tok[e->len - 1]))
        e->len--;
    e->q = 1;
    while (*p == ';') {
        p++;
        while (is_ows(*p))
            p++;
        const char *name = p;
        while (*p && *p != '=' && *p != ';' && *p != ',')
            p++;
        size_t nlen = (size_t)(p - name);
        while (nlen && is_ows(name[nlen - 1]))
            nlen--;
        if (*p != '=')
            continue;
        p++;
        while (is_ows(*p))
            p++;
        const char *val = p;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p == '"')
                p++;
        } else {
            while (*p && *p != ';' && *p != ',')
                p++;
        }
        size_t vlen = (size_t)(p - val);
        while (vlen && is_ows(val[vlen - 1]))
            vlen--;
        if (nlen == 1 && (name[0] == 'q' || name[0] == 'Q'))
            e->q = parse_q(val, vlen, e->q);
        while (*p && *p != ';' && *p != ',')
            p++;
    }
    return p;
}

static int tok_is(const struct elem *e, const char *s)
{
    return e->len == strlen(s) && strncasecmp(e->tok, s, e->len) == 0;
}

/* Content negotiation (the contract is in request.h). */
void gm_request_negotiate(const char *accept, const char *encoding, int *om, int *gz)
{
    double q_om = 0, q_text = 0;
    int pos = 0, pos_om = -1, pos_text = -1;
    struct elem e;
    for (const char *p = accept; p && (p = next_elem(p, &e)); pos++) {
        if (tok_is(&e, "application/openmetrics-text") || tok_is(&e, "application/*")) {
            if (pos_om < 0 || e.q > q_om) {
                q_om = e.q;
                pos_om = pos;
            }
        } else if (tok_is(&e, "text/plain") || tok_is(&e, "text/*") || tok_is(&e, "*/*")) {
            if (pos_text < 0 || e.q > q_text) {
                q_text = e.q;
                pos_text = pos;
            }
        }
    }
    *om = pos_om >= 0 && q_om > 0 && (q_om > q_text || (q_om == q_text && pos_om < pos_text));

    double q_gzip = -1, q_star = -1, q_identity = -1;
    for (const char *p = encoding; p && (p = next_elem(p, &e));) {
        if (tok_is(&e, "gzip") || tok_is(&e, "x-gzip"))
            q_gzip = e.q > q_gzip ? e.q : q_gzip;
        else if (tok_is(&e, "*"))
            q_star = e.q;
        else if (tok_is(&e, "identity"))
            q_identity = e.q;
    }
    if (q_gzip < 0)
        q_gzip = q_star;
    *gz = q_gzip > 0 && q_gzip >= q_identity;
}

int gm_request_target_check(const char *target, const char **why)
{
    *why = NULL;
    for (const char *p = target; (p = strchr(p, '%')); p++)
        if (p[1] == '0' && p[2] == '0') {
            *why = GM_REQUEST_WHY_NUL;
            return 400;
        }
    const char *q = strchr(target, '?');
    if (!q)
        return 0;
    unsigned n = 1;
    for (q++; *q; q++)
        if (*q == '&' && ++n > GM_REQUEST_MAX_PARAMS) {
            *why = GM_REQUEST_WHY_PARAMS;
            return 414;
        }
    return 0;
}

/* 1 when the n bytes at a equal the n bytes at b but for ASCII case. */
static int same_name(const char *a, size_t n, const char *b, size_t bn)
{
    return n == bn && n > 0 && strncasecmp(a, b, n) == 0;
}

/* 1 when the n bytes at s are an address of family af. */
static int is_literal(int af, const char *s, size_t n)
{
    char tmp[64];
    unsigned char addr[16];
    if (n == 0 || n >= sizeof(tmp))
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    return inet_pton(af, tmp, addr) == 1;
}

/* 1 when name (n bytes) is one of the comma-separated names of list. */
static int in_list(const char *name, size_t n, const char *list)
{
    for (const char *p = list; p && *p;) {
        while (*p == ',' || is_ows(*p))
            p++;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        size_t len = (size_t)(e - p);
        while (len && is_ows(p[len - 1]))
            len--;
        if (len && p[len - 1] == '.')
            len--;
        if ((len == 1 && *p == '*') || same_name(name, n, p, len))
            return 1;
        p = e;
    }
    return 0;
}

int gm_request_host_ok(const char *host, const char *hostname, const char *allowed)
{
    if (!host)
        return 1;
    size_t len = strlen(host);
    const char *port = NULL;
    if (host[0] == '[') {
        const char *close = strchr(host, ']');
        if (!close || (close[1] && close[1] != ':'))
            return 0;
        if (!is_literal(AF_INET6, host + 1, (size_t)(close - host - 1)))
            return 0;
        port = close[1] ? close + 2 : NULL;
    } else {
        const char *colon = strchr(host, ':');
        if (colon && strchr(colon + 1, ':'))
            return 0; /* an IPv6 address without brackets */
        if (colon) {
            port = colon + 1;
            len = (size_t)(colon - host);
        }
    }
    if (port && (!*port || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port)))
        return 0;
    if (host[0] == '[')
        return 1;
    if (len && host[len - 1] == '.')
        len--;
    if (len == 0)
        return 0;
    if (is_literal(AF_INET, host, len) || same_name(host, len, "localhost", 9))
        return 1;
    if (hostname && *hostname) {
        size_t hn = strlen(hostname);
        if (hostname[hn - 1] == '.')
            hn--;
        size_t first = strcspn(hostname, ".");
        if (same_name(host, len, hostname, hn) || same_name(host, len, hostname, first))
            return 1;
    }
    return in_list(host, len, allowed);
}

int gm_request_get_or_head(const char *method)
{
    return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
}

enum gm_request_route gm_request_route(const char *method, const char *url)
{
    if (!gm_request_get_or_head(method))
        return GM_REQ_NOT_ALLOWED;
    if (strcmp(url, "/metrics") == 0)
        return GM_REQ_METRICS;
    if (strcmp(url, "/healthz") == 0)
        return GM_REQ_HEALTH;
    if (strcmp(url, "/livez") == 0)
        return GM_REQ_LIVE;
    if (strcmp(url, "/") == 0)
        return GM_REQ_INDEX;
    if (strncmp(url, "/static/", 8) == 0)
        return GM_REQ_STATIC;
    if (strcmp(url, "/api/v1/status") == 0)
        return GM_REQ_API_STATUS;
    if (strcmp(url, "/api/v1/history") == 0)
        return GM_REQ_API_HISTORY;
    if (strcmp(url, "/api/v1/alerts") == 0)
        return GM_REQ_API_ALERTS;
    if (strcmp(url, "/api/v1/usage") == 0)
        return GM_REQ_API_USAGE;
    if (strcmp(url, "/fleet") == 0)
        return GM_REQ_FLEET;
    if (strcmp(url, "/api/v1/fleet") == 0)
        return GM_REQ_API_FLEET;
    return GM_REQ_NOT_FOUND;
}

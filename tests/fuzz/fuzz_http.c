/* fuzz_http.c -- libFuzzer harness for the exporter's request path: what
 * it decides from a request before anything is sent (src/export/request.c:
 * the route of the method and path, content negotiation from Accept and
 * Accept-Encoding; src/export/webconfig.c: gm_auth_begin on the
 * Authorization header).
 *
 * The input is a raw HTTP/1.1 request (up to a NUL byte).  libmicrohttpd,
 * which parses requests in the exporter, is not in the loop; the harness
 * splits the input the way it hands a request to the access handler: the
 * method and target from the request line, the path without the query and
 * with %XX decoded, header lines "Name: value" up to the first empty line
 * with blanks around the value dropped, and the first header of a name
 * (case-insensitive) as the one looked up.
 *
 * The checker is built once from a web config with one user, "prom", whose
 * password "secret" (bcrypt cost 4) is verified once at start-up, so it is
 * in the cache: that one request is allowed, everything else is refused
 * or left for the bcrypt half, which the harness never runs.  Checks
 * besides crashes, leaks and undefined behaviour:
 *   - the route is one of enum gm_request_route (the live page's /static/
 *     and /api/v1/ ones included), and 405 exactly for methods other
 *     than GET and HEAD;
 *   - negotiation gives 0 or 1 for each, neither without its header, and
 *     the same answer twice;
 *   - gm_auth_begin sets *pending exactly when it says VERIFY, refuses a
 *     request without Authorization, and allows only "prom" with "secret"
 *     (decoded here with a base64 decoder of the harness's own).
 * Deterministic: the cache holds the one entry from start-up, and no input
 * changes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/err.h"
#include "export/request.h"
#include "export/webconfig.h"
#include "fuzz_tmp.h"

#define MAX_HEADERS 64

static const char web_yml[] =
    "basic_auth_users:\n"
    "  prom: $2y$04$sB/d7atclP5iSSREvSPb1erkXDHcoI.8/rbRkrcYonNZdVPdgV4gS\n";

static struct gm_auth *auth;

static void fatal(const char *what)
{
    fprintf(stderr, "fuzz_http: %s\n", what);
    abort();
}

static void setup(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/web.yml", fuzz_tmp_dir());
    fuzz_tmp_write(path, web_yml, strlen(web_yml));
    struct gm_webconfig *wc;
    struct gm_err err = {0};
    if (gm_webconfig_load(path, &wc, &err) != 0 || gm_auth_new(wc, &auth, &err) != 0) {
        fprintf(stderr, "fuzz_http: %s\n", err.msg);
        abort();
    }
    gm_webconfig_free(wc);
    if (gm_auth_check(auth, "Basic cHJvbTpzZWNyZXQ=") != 1)
        fatal("the start-up credentials were not verified");
}

/* ------------------------------------------------------------ the request */

struct request {
    char *method, *url;
    size_t nh;
    char *name[MAX_HEADERS], *value[MAX_HEADERS];
};

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Cuts the line at *p (ending in "\r\n" or "\n") and moves *p past it;
 * NULL at the end of the text. */
static char *next_line(char **p)
{
    if (!**p)
        return NULL;
    char *line = *p, *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = line + strlen(line);
    }
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
        line[n - 1] = '\0';
    return line;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* Splits text (modified in place); 0, or -1 when there is no request line
 * of three words (libmicrohttpd answers 400 itself). */
static int parse(char *text, struct request *r)
{
    char *p = text, *line = next_line(&p);
    if (!line)
        return -1;
    char *sp1 = strchr(line, ' ');
    if (!sp1)
        return -1;
    *sp1 = '\0';
    char *target = sp1 + 1, *sp2 = strchr(target, ' ');
    if (!sp2 || !*line || sp2 == target)
        return -1;
    *sp2 = '\0';
    r->method = line;
    char *q = strchr(target, '?');
    if (q)
        *q = '\0';
    char *o = target; /* %XX decoded in place */
    for (char *i = target; *i; i++) {
        if (*i == '%' && hex(i[1]) >= 0 && hex(i[2]) >= 0) {
            *o++ = (char)(hex(i[1]) * 16 + hex(i[2]));
            i += 2;
        } else {
            *o++ = *i;
        }
    }
    *o = '\0';
    r->url = target;
    r->nh = 0;
    while ((line = next_line(&p)) && *line && r->nh < MAX_HEADERS) {
        char *colon = strchr(line, ':');
        if (!colon || colon == line)
            continue;
        *colon = '\0';
        r->name[r->nh] = line;
        r->value[r->nh] = trim(colon + 1);
        r->nh++;
    }
    return 0;
}

static const char *header(const struct request *r, const char *name)
{
    for (size_t i = 0; i < r->nh; i++)
        if (strcasecmp(r->name[i], name) == 0)
            return r->value[i];
    return NULL;
}

/* ------------------------------------------------------------------ auth */

static int b64(char c)
{
    const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *at = c ? strchr(abc, c) : NULL;
    return at ? (int)(at - abc) : -1;
}

/* Whether value is "Basic " and the base64 of exactly "prom:secret". */
static int is_prom_secret(const char *value)
{
    while (*value == ' ' || *value == '\t')
        value++;
    if (strncasecmp(value, "Basic ", 6) != 0)
        return 0;
    value += 6;
    while (*value == ' ')
        value++;
    char out[16];
    size_t o = 0, bits = 0;
    unsigned long acc = 0;
    for (const char *p = value; *p && *p != '=' && *p != ' ' && *p != '\t'; p++) {
        int v = b64(*p);
        if (v < 0)
            return 0;
        acc = (acc << 6) | (unsigned long)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o == sizeof(out))
                return 0;
            out[o++] = (char)(acc >> bits);
        }
    }
    return o == 11 && memcmp(out, "prom:secret", 11) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!auth)
        setup();
    char *text = fuzz_cstr(data, size);
    struct request r;
    if (parse(text, &r) != 0) {
        free(text);
        return 0;
    }

    enum gm_request_route route = gm_request_route(r.method, r.url);
    if ((int)route < GM_REQ_METRICS || route > GM_REQ_NOT_ALLOWED)
        fatal("a route out of range");
    if ((route == GM_REQ_NOT_ALLOWED) != !gm_request_get_or_head(r.method))
        fatal("405 for GET or HEAD, or no 405 for another method");

    const char *accept = header(&r, "Accept"), *enc = header(&r, "Accept-Encoding");
    int om = -1, gz = -1, om2 = -1, gz2 = -1;
    gm_request_negotiate(accept, enc, &om, &gz);
    gm_request_negotiate(accept, enc, &om2, &gz2);
    if ((om != 0 && om != 1) || (gz != 0 && gz != 1) || om != om2 || gz != gz2)
        fatal("negotiation not 0 or 1, or not the same twice");
    if ((!accept && om) || (!enc && gz))
        fatal("OpenMetrics or gzip without the header that asks for it");

    const char *authz = header(&r, "Authorization");
    struct gm_auth_pending *p = (struct gm_auth_pending *)1;
    enum gm_auth_verdict v = gm_auth_begin(auth, authz, &p);
    if ((v == GM_AUTH_VERIFY) != (p != NULL))
        fatal("*pending set without VERIFY, or not set with it");
    if (!authz && v != GM_AUTH_DENY)
        fatal("a request without Authorization was not refused");
    if (v == GM_AUTH_ALLOW && !is_prom_secret(authz))
        fatal("allowed credentials other than the verified ones");
    gm_auth_pending_free(p);
    free(text);
    return 0;
}

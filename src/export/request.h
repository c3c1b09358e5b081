/* request.h -- what the exporter answers to a request, decided from the
 * request alone: the request target as sent (malformed: 400, 414), the
 * Host header (DNS rebinding: 421), the method and path (which endpoint, 404 or 405) and the Accept
 * and Accept-Encoding headers (text or OpenMetrics, plain or gzip).
 *
 * Pure functions of their arguments (no libmicrohttpd, no I/O, no state),
 * so that they can be tested and fuzzed apart from the server
 * (tests/unit/test_request.c, tests/fuzz/fuzz_http.c); exporter_http.c calls
 * them from its access handler.  Left out: basic auth (webconfig.h's
 * gm_auth_begin, also pure) and client certificates, which come first.
 */
#ifndef GM_EXPORT_REQUEST_H
#define GM_EXPORT_REQUEST_H

/* Where a request goes, in the order the handler checks: a method other
 * than GET or HEAD is refused whatever the path. */
enum gm_request_route {
    GM_REQ_METRICS = 0, /* /metrics */
    GM_REQ_HEALTH,      /* /healthz */
    GM_REQ_LIVE,        /* /livez */
    GM_REQ_INDEX,       /* / (the live page) */
    GM_REQ_STATIC,      /* /static/NAME (the live page's assets; an unknown NAME is 404) */
    GM_REQ_API_STATUS,  /* /api/v1/status */
    GM_REQ_API_HISTORY, /* /api/v1/history */
    GM_REQ_API_ALERTS,  /* /api/v1/alerts */
    GM_REQ_API_USAGE,   /* /api/v1/usage */
    GM_REQ_FLEET,       /* /fleet (the fleet page) */
    GM_REQ_API_FLEET,   /* /api/v1/fleet (its document) */
    GM_REQ_NOT_FOUND,   /* any other path: 404 */
    GM_REQ_NOT_ALLOWED, /* a method other than GET and HEAD: 405 */
};

/* The most query parameters a request target may have (the API takes
 * three; libmicrohttpd keeps an entry for each in the connection's 32 KiB
 * of memory, and with about 500 it has no room left for the answer). */
#define GM_REQUEST_MAX_PARAMS 32

/* gm_request_target_check's reasons. */
#define GM_REQUEST_WHY_NUL "malformed request: %00 (a NUL byte) in the path or a parameter"
#define GM_REQUEST_WHY_PARAMS "too many query parameters (at most 32)"

/* Checks the request target as the client sent it, before %XX decoding:
 * 0 when it may be served; 400 when it holds %00 (decoding would cut the
 * path or a parameter there: /metrics%00.txt would be /metrics); 414 when
 * its query has more than GM_REQUEST_MAX_PARAMS parameters ('&'-separated,
 * empty ones counted).  *why: a static sentence for the answer, or NULL
 * for 0. */
int gm_request_target_check(const char *target, const char **why);

/* 1 when host, the Host header's value (NULL when the request has none),
 * names this agent, so that a page whose name was rebound to the agent's
 * address cannot read it (docs/security.md, "DNS rebinding"); 0 otherwise
 * (421).  Allowed, each with or without ":PORT" (any port: a port
 * forwarded elsewhere keeps its number):
 *   - no Host at all (HTTP/1.0; a browser always sends one);
 *   - an IPv4 literal or a bracketed IPv6 literal ("[::1]"), any address:
 *     a rebinding page's requests carry its own name, never an address;
 *   - "localhost";
 *   - hostname (gethostname) and its first label, any case;
 *   - each name of allowed, a comma-separated list (blanks around names
 *     ignored; NULL or "" for none), compared whole, any case; "*" allows
 *     every Host.
 * A name may end with one '.' (the root).  An empty Host, an unbracketed
 * IPv6 address, a bad port, anything else: 0. */
int gm_request_host_ok(const char *host, const char *hostname, const char *allowed);

/* 1 when method is exactly "GET" or "HEAD" (methods are case-sensitive). */
int gm_request_get_or_head(const char *method);

/* The route of method and url (the path as the server hands it over,
 * without the query); paths compare exactly. */
enum gm_request_route gm_request_route(const char *method, const char *url);

/* Content negotiation for /metrics; accept and encoding are the headers'
 * values, NULL when absent.  *om = 1 when Accept ranks
 * application/openmetrics-text (any version) or application/asterisk above
 * the text format (text/plain, text/asterisk, asterisk/asterisk), or equal
 * and listed first; text otherwise, also when nothing listed is acceptable.
 * *gz = 1 when Accept-Encoding gives gzip (or x-gzip, or else asterisk) a q
 * above 0 and no lower than identity's.  A q that is not a plain decimal
 * from 0 to 1 (digits and '.', at most 7 characters) is ignored: q stays 1,
 * so a sloppy client still gets an answer. */
void gm_request_negotiate(const char *accept, const char *encoding, int *om, int *gz);

#endif /* GM_EXPORT_REQUEST_H */

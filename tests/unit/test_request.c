/* test_request.c -- the exporter's request decisions without a server
 * (src/export/request.c): routes by method and path, and content
 * negotiation from Accept and Accept-Encoding, the checks of the raw
 * request target (%00, too many parameters), the Host check (DNS
 * rebinding).  The negotiation cases are
 * those tests/e2e/exporter_http.py sends to a running exporter, plus the
 * edges of the element and q-value parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "export/request.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define OM "application/openmetrics-text"

static void test_route(void **state)
{
    (void)state;
    static const struct {
        const char *method, *url;
        enum gm_request_route want;
    } cases[] = {
        {"GET", "/metrics", GM_REQ_METRICS},
        {"HEAD", "/metrics", GM_REQ_METRICS},
        {"GET", "/healthz", GM_REQ_HEALTH},
        {"GET", "/livez", GM_REQ_LIVE},
        {"HEAD", "/livez", GM_REQ_LIVE},
        {"GET", "/livez/", GM_REQ_NOT_FOUND},
        {"POST", "/livez", GM_REQ_NOT_ALLOWED},
        {"GET", "/", GM_REQ_INDEX},
        {"HEAD", "/", GM_REQ_INDEX},
        {"GET", "/static/live.js", GM_REQ_STATIC},
        {"GET", "/static/", GM_REQ_STATIC}, /* 404 from the asset table */
        {"GET", "/api/v1/status", GM_REQ_API_STATUS},
        {"HEAD", "/api/v1/history", GM_REQ_API_HISTORY},
        {"GET", "/api/v1/alerts", GM_REQ_API_ALERTS},
        {"GET", "/api/v1/usage", GM_REQ_API_USAGE},
        {"GET", "/api/v1/usage/", GM_REQ_NOT_FOUND},
        {"GET", "/api/v1/status/", GM_REQ_NOT_FOUND},
        {"GET", "/api/v1", GM_REQ_NOT_FOUND},
        {"GET", "/api/v2/status", GM_REQ_NOT_FOUND},
        {"POST", "/api/v1/status", GM_REQ_NOT_ALLOWED},
        {"DELETE", "/api/v1/alerts", GM_REQ_NOT_ALLOWED},
        {"GET", "/fleet", GM_REQ_FLEET},
        {"HEAD", "/fleet", GM_REQ_FLEET},
        {"GET", "/fleet/", GM_REQ_NOT_FOUND},
        {"POST", "/fleet", GM_REQ_NOT_ALLOWED},
        {"GET", "/api/v1/fleet", GM_REQ_API_FLEET},
        {"GET", "/api/v1/fleet/", GM_REQ_NOT_FOUND},
        {"PUT", "/api/v1/fleet", GM_REQ_NOT_ALLOWED},
        {"GET", "/nope", GM_REQ_NOT_FOUND},
        {"GET", "", GM_REQ_NOT_FOUND},
        {"GET", "/metrics/", GM_REQ_NOT_FOUND},
        {"GET", "/METRICS", GM_REQ_NOT_FOUND},
        {"GET", "//metrics", GM_REQ_NOT_FOUND},
        {"POST", "/metrics", GM_REQ_NOT_ALLOWED},
        {"POST", "/nope", GM_REQ_NOT_ALLOWED},
        {"get", "/metrics", GM_REQ_NOT_ALLOWED}, /* methods are case-sensitive */
        {"GETX", "/metrics", GM_REQ_NOT_ALLOWED},
        {"", "/metrics", GM_REQ_NOT_ALLOWED},
        {"OPTIONS", "*", GM_REQ_NOT_ALLOWED},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        enum gm_request_route got = gm_request_route(cases[i].method, cases[i].url);
        if (got != cases[i].want)
            fail_msg("%s %s: route %d, want %d", cases[i].method, cases[i].url, (int)got,
                     (int)cases[i].want);
    }
    assert_int_equal(gm_request_get_or_head("GET"), 1);
    assert_int_equal(gm_request_get_or_head("HEAD"), 1);
    assert_int_equal(gm_request_get_or_head("PUT"), 0);
}

static void test_target(void **state)
{
    (void)state;
    char many[200] = "/api/v1/history?", more[sizeof(many) + 1];
    size_t n = strlen(many);
    memset(many + n, '&', GM_REQUEST_MAX_PARAMS - 1); /* 32 parameters: the most */
    many[n + GM_REQUEST_MAX_PARAMS - 1] = '\0';
    snprintf(more, sizeof(more), "%s&", many);
    static const struct {
        const char *target;
        int want;
    } cases[] = {
        {"/metrics", 0},
        {"/api/v1/history?since=1m&id=0,1&metric=power.draw", 0},
        {"/api/v1/status%00", 400},
        {"/metrics%00.txt", 400},
        {"/api/v1/history?since=1m%00junk", 400},
        {"/api/v1/history?since%00=1m", 400},
        {"/%00", 400},
        {"%00", 400},
        {"/%2500", 0}, /* a literal "%00" once decoded */
        {"/%0", 0},
        {"/%", 0},
        {"/%01", 0},
        {"/a?b%000", 400},
        {"/&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&", 0}, /* '&' outside a query */
        {"/a?", 0},
        {"", 0},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        const char *why = "unset";
        int got = gm_request_target_check(cases[i].target, &why);
        if (got != cases[i].want)
            fail_msg("%s: %d, want %d", cases[i].target, got, cases[i].want);
        if (got ? why == NULL : why != NULL)
            fail_msg("%s: reason %s", cases[i].target, why ? why : "(null)");
    }
    const char *why;
    assert_int_equal(gm_request_target_check(many, &why), 0);
    assert_int_equal(gm_request_target_check(more, &why), 414);
    assert_string_equal(why, GM_REQUEST_WHY_PARAMS);
    assert_int_equal(gm_request_target_check("/metrics%00", &why), 400);
    assert_string_equal(why, GM_REQUEST_WHY_NUL);
}

static void test_host(void **state)
{
    (void)state;
    static const struct {
        const char *host, *hostname, *allowed;
        int want;
    } cases[] = {
        {NULL, "node7", NULL, 1}, /* HTTP/1.0 without Host */
        {"127.0.0.1", "node7", NULL, 1},
        {"127.0.0.1:9842", "node7", NULL, 1},
        {"10.0.0.5:9100", "node7", NULL, 1},
        {"1.2.3.4.", "node7", NULL, 1},
        {"[::1]", "node7", NULL, 1},
        {"[::1]:9842", "node7", NULL, 1},
        {"[fe80::1]:80", "node7", NULL, 1},
        {"localhost", "node7", NULL, 1},
        {"LocalHost:9842", "node7", NULL, 1},
        {"localhost.", "node7", NULL, 1},
        {"node7", "node7", NULL, 1},
        {"NODE7:9842", "node7", NULL, 1},
        {"node7.", "node7", NULL, 1},
        {"node7", "node7.cluster.example", NULL, 1}, /* the first label */
        {"node7.cluster.example", "node7.cluster.example", NULL, 1},
        {"gpu.example", "node7", "a.example, GPU.example.", 1},
        {"gpu.example:443", "node7", "a.example,gpu.example", 1},
        {"anything.example", "node7", "a.example, *", 1},
        {"evil.example", "node7", NULL, 0},
        {"evil.example:9842", "node7", "", 0},
        {"127.0.0.1.evil.example", "node7", NULL, 0},
        {"localhost.evil.example", "node7", NULL, 0},
        {"node7.evil.example", "node7", NULL, 0},
        {"cluster.example", "node7.cluster.example", NULL, 0},
        {"node", "node7", NULL, 0},
        {"gpu.example.evil", "node7", "gpu.example", 0},
        {"example", "node7", "gpu.example", 0},
        {"", "node7", NULL, 0},
        {":9842", "node7", NULL, 0},
        {".", "node7", NULL, 0},
        {"::1", "node7", NULL, 0}, /* IPv6 without brackets */
        {"[::1", "node7", NULL, 0},
        {"[::1]x", "node7", NULL, 0},
        {"[::1]:", "node7", NULL, 0},
        {"[evil]:80", "node7", NULL, 0},
        {"[]", "node7", NULL, 0},
        {"127.0.0.1:", "node7", NULL, 0},
        {"127.0.0.1:x", "node7", NULL, 0},
        {"127.0.0.1:123456", "node7", NULL, 0},
        {"1.2.3", "node7", NULL, 0},
        {"*", "node7", NULL, 0},
        {"node7", "", NULL, 0},
        {"node7", NULL, NULL, 0},
        {"x", "node7", ",,", 0},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        int got = gm_request_host_ok(cases[i].host, cases[i].hostname, cases[i].allowed);
        if (got != cases[i].want)
            fail_msg("Host %s (hostname %s, allowed %s): %d, want %d",
                     cases[i].host ? cases[i].host : "(none)",
                     cases[i].hostname ? cases[i].hostname : "(null)",
                     cases[i].allowed ? cases[i].allowed : "(null)", got, cases[i].want);
    }
}

static void test_encoding(void **state)
{
    (void)state;
    static const struct {
        const char *value; /* NULL: no header */
        int gz;
    } cases[] = {
        {NULL, 0},
        {"gzip", 1},
        {"gzip;q=0", 0},
        {"gzip; q=0.0", 0},
        {"gzip;q=0, identity", 0},
        {"identity;q=1, gzip;q=0.5", 0},
        {"identity;q=0.5, gzip;q=1", 1},
        {"*", 1},
        {"*;q=0", 0},
        {"x-gzip", 1},
        {"GZIP", 1},
        {"deflate, br", 0},
        {"gzip;q=0.001", 1},
        {"deflate;q=1, gzip;q=0.8", 1},
        {"*;q=0.5, gzip;q=0", 0},
        {"", 0},
        {"gzip;q=2", 1},          /* out of range: ignored, q stays 1 */
        {"gzip;q=-1", 1},         /* not a plain decimal: ignored */
        {"gzip;q=0.00000001", 1}, /* too long: ignored */
        {"gzip;q=", 1},
        {"gzip;q", 1},
        {"gzip;Q=0", 0},
        {" , ,gzip ,", 1},
        {"gzip;x=\"a;q=0\"", 1},     /* a quoted ';' is inside the value */
        {"gzip;x=\"\\\"q=0", 1},     /* an escaped quote, then the value runs on */
        {"gzip;q=0;q=1", 1},         /* the last q counts */
        {"gzip;q=0.5, gzip;q=0", 1}, /* the highest gzip counts */
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        int om = -1, gz = -1;
        gm_request_negotiate(NULL, cases[i].value, &om, &gz);
        if (gz != cases[i].gz || om != 0)
            fail_msg("Accept-Encoding: %s: gz %d om %d, want gz %d", cases[i].value, gz, om,
                     cases[i].gz);
    }
}

static void test_accept(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int om;
    } cases[] = {
        {NULL, 0},
        {"", 0},
        {OM ";version=1.0.0", 1},
        {OM ";q=0", 0},
        {OM ";version=1.0.0;q=0,text/plain;version=0.0.4;q=0.5", 0},
        {"text/plain;q=0.5, " OM ";q=0.6", 1},
        {"text/plain, " OM, 0},
        {OM ", text/plain", 1},
        {"*/*", 0},
        {"application/json", 0},
        {"application/*", 1},
        {"text/plain;version=0.0.4", 0},
        /* Prometheus 2 */
        {OM ";version=1.0.0," OM ";version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
         1},
        /* Prometheus 3 */
        {OM ";version=1.0.0;escaping=allow-utf-8;q=0.5," OM ";version=0.0.1;q=0.4,"
            "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,"
            "*/*;q=0.1",
         1},
        {OM ";foo=\"a,b;q=0\";q=0.9, text/plain;q=0.1", 1},
        {"text/plain;q=0.9, " OM ";bar=\"x, text/plain\";q=0.2", 0},
        {"APPLICATION/OPENMETRICS-TEXT", 1},
        {OM " ; q = 0.5 , text/plain ; q=0.4", 1},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        int om = -1, gz = -1;
        gm_request_negotiate(cases[i].value, NULL, &om, &gz);
        if (om != cases[i].om || gz != 0)
            fail_msg("Accept: %s: om %d gz %d, want om %d", cases[i].value, om, gz, cases[i].om);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route),    cmocka_unit_test(test_target), cmocka_unit_test(test_host),
        cmocka_unit_test(test_encoding), cmocka_unit_test(test_accept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

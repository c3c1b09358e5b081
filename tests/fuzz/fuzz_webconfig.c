/* fuzz_webconfig.c -- libFuzzer harness for the exporter's --web-config
 * reader (src/export/webconfig.c: libyaml's parser and loader behind the
 * shape check, the walker over the three sections, the certificate, key
 * and bcrypt-hash checks), and the basic-auth checker built from what
 * loaded.
 *
 * The input is the YAML file; gm_webconfig_load reads only from a path, so
 * it is written to web.yml in the harness's temporary directory, next to
 * server.crt, server.key and ca.crt (a throwaway P-256 test CA and server,
 * valid until 2126, below): relative cert_file, key_file and client_ca_file
 * names resolve there, so inputs can reach the TLS settings past the file
 * checks.  Checks besides crashes, leaks and undefined behaviour:
 *   - a failed load returns GM_E_INVAL (GM_E_IO is only for the file
 *     itself, which exists), leaves *out NULL and says "PATH...: reason";
 *   - a file that loads loads again to an equal configuration
 *     (gm_webconfig_equal, gm_webconfig_tls_equal), every accessor answers
 *     consistently, and a checker built from it refuses a request without
 *     credentials and allows none it has not verified (no bcrypt is run).
 * Deterministic except for the checker's random cache salt, which decides
 * nothing here (the cache stays empty).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "export/webconfig.h"
#include "fuzz_tmp.h"

static const char server_crt[] =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBhTCCASqgAwIBAgIUZryF3qI/aMxRbtwTq4+VY7yYhM0wCgYIKoZIzj0EAwIw\n"
    "GTEXMBUGA1UEAwwOZ3B1bW9uLWZ1enotY2EwIBcNMjYxMjAzMDgxNzQyWhgPMjEy\n"
    "NjExMDkwODE3NDJaMBQxEjAQBgNVBAMMCWxvY2FsaG9zdDBZMBMGByqGSM49AgEG\n"
    "CCqGSM49AwEHA0IABJqEeQSnxAvaUi9Ut4OSlVEyWa52pOmsp82q8MeDt2Mv3B0n\n"
    "p+g9rfWvdg+hgCJv4fhb7BG+iFJTzy70NiCX1uqjUzBRMB0GA1UdDgQWBBSJmrwH\n"
    "Wy4W7Qzx95yCqZ/YoILnWjAfBgNVHSMEGDAWgBSEiyZ38tjrvloqCNiW8raHcTRK\n"
    "uzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQCMeU2KHQ3ie4Tn\n"
    "rEtimXsQIKgqgeFc5UqTE6u48a1kvgIhAJOKlKKkoyNmw0wc+4fOOZsh903731U+\n"
    "4Qk/tO5PLGoo\n"
    "-----END CERTIFICATE-----\n";
static const char server_key[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSASCs3hX5J8lFQpA\n"
    "7V4/8AGkM2BhkV+ojJJWiwV/bLahRANCAASahHkEp8QL2lIvVLeDkpVRMlmudqTp\n"
    "rKfNqvDHg7djL9wdJ6foPa31r3YPoYAib+H4W+wRvohSU88u9DYgl9bq\n"
    "-----END PRIVATE KEY-----\n";
static const char ca_crt[] = "-----BEGIN CERTIFICATE-----\n"
                             "MIIBiDCCAS+gAwIBAgIUXWhLVKqy0djpOy2CH+2lSoa+UNMwCgYIKoZIzj0EAwIw\n"
                             "GTEXMBUGA1UEAwwOZ3B1bW9uLWZ1enotY2EwIBcNMjYxMjAzMDgxNzQyWhgPMjEy\n"
                             "NjExMDkwODE3NDJaMBkxFzAVBgNVBAMMDmdwdW1vbi1mdXp6LWNhMFkwEwYHKoZI\n"
                             "zj0CAQYIKoZIzj0DAQcDQgAEGarKqdd1WXztRfxbfKoNdcs3UxdYnyjbEwf6WRq1\n"
                             "IV+qPbRu9NFotlW9edU1oEQ46JM5BizTuwj6nBKuuyRndaNTMFEwHQYDVR0OBBYE\n"
                             "FISLJnfy2Ou+WioI2JbytodxNEq7MB8GA1UdIwQYMBaAFISLJnfy2Ou+WioI2Jby\n"
                             "todxNEq7MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgMR4ktzdB\n"
                             "FXPj0I6KanXvhEnLssPYSJFVSbkb2o6ybx4CIEW7Yvy+Fm6CgzSDrpQJ2YDHbOJe\n"
                             "dbf77xw7kC3KcCsD\n"
                             "-----END CERTIFICATE-----\n";

static char path[4200];

static void fatal(const char *what, const struct gm_err *err)
{
    fprintf(stderr, "fuzz_webconfig: %s (%s)\n", what, err ? err->msg : "");
    abort();
}

static void setup(void)
{
    static const struct {
        const char *name, *pem;
    } files[] = {{"server.crt", server_crt}, {"server.key", server_key}, {"ca.crt", ca_crt}};
    char p[4200];
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", fuzz_tmp_dir(), files[i].name);
        fuzz_tmp_write(p, files[i].pem, strlen(files[i].pem));
    }
    snprintf(path, sizeof(path), "%s/web.yml", fuzz_tmp_dir());
}

static void accessors(const struct gm_webconfig *wc)
{
    int tls = gm_webconfig_tls(wc);
    if (tls && (!gm_webconfig_cert_pem(wc) || !gm_webconfig_key_pem(wc)))
        fatal("TLS on without a certificate and key", NULL);
    if (!gm_webconfig_tls_priorities(wc))
        fatal("no TLS priority string", NULL);
    (void)gm_webconfig_client_ca_pem(wc);
    (void)gm_webconfig_cert_file(wc);
    (void)gm_webconfig_key_file(wc);
    (void)gm_webconfig_client_ca_file(wc);
    if (gm_webconfig_min_version(wc) > gm_webconfig_max_version(wc))
        fatal("min_version above max_version", NULL);
    if (!gm_webconfig_client_auth_name(gm_webconfig_client_auth(wc)))
        fatal("no name for the client auth type", NULL);
    size_t n = gm_webconfig_header_count(wc);
    const char *name, *value;
    for (size_t i = 0; i < n; i++) {
        if (gm_webconfig_header(wc, i, &name, &value) != 0)
            fatal("a counted header is missing", NULL);
        for (const char *v = value; *v; v++)
            if (((unsigned char)*v < 0x20 && *v != '\t') || *v == 0x7f)
                fatal("a header value with a control character", NULL);
    }
    if (gm_webconfig_header(wc, n, &name, &value) != -1)
        fatal("a header past the count", NULL);
    if (gm_webconfig_basic_auth(wc) != (gm_webconfig_user_count(wc) > 0))
        fatal("basic auth on without users, or off with users", NULL);
}

static void auth(const struct gm_webconfig *wc)
{
    struct gm_auth *a = NULL;
    struct gm_err err = {0};
    if (gm_auth_new(wc, &a, &err) != 0)
        fatal("gm_auth_new failed", &err);
    struct gm_auth_pending *p = (struct gm_auth_pending *)1;
    if (gm_auth_begin(a, NULL, &p) != GM_AUTH_DENY || p)
        fatal("a request without credentials was not refused", NULL);
    /* nothing was verified, so nothing is allowed from the cache */
    if (gm_auth_begin(a, "Basic dXNlcjpwYXNz", &p) == GM_AUTH_ALLOW)
        fatal("credentials never verified were allowed", NULL);
    gm_auth_pending_free(p);
    gm_auth_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0])
        setup();
    fuzz_tmp_write(path, data, size);
    struct gm_webconfig *wc = (struct gm_webconfig *)1, *again = NULL;
    struct gm_err err = {0};
    int rc = gm_webconfig_load(path, &wc, &err);
    if (rc != 0) {
        if (rc != GM_E_INVAL)
            fatal("a bad web config is not GM_E_INVAL", &err);
        if (wc)
            fatal("a failed load set *out", &err);
        if (strncmp(err.msg, path, strlen(path)) != 0 || err.msg[strlen(path)] != ':')
            fatal("the message does not start with \"PATH:\"", &err);
        return 0;
    }
    if (gm_webconfig_load(path, &again, &err) != 0)
        fatal("a web config that loaded does not load again", &err);
    if (!gm_webconfig_equal(wc, again) || !gm_webconfig_tls_equal(wc, again))
        fatal("two loads of one file differ", NULL);
    accessors(wc);
    if (gm_webconfig_basic_auth(wc))
        auth(wc);
    gm_webconfig_free(wc);
    gm_webconfig_free(again);
    return 0;
}

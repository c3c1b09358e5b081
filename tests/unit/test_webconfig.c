/* test_webconfig.c -- unit tests for src/export/webconfig.c, the exporter's
 * --web-config (exporter-toolkit format) and its basic-auth checker.
 *
 * Everything runs in a fresh temporary directory.  openssl makes a CA, a
 * server certificate and key, an unrelated key, client certificates (one
 * from the CA for clientAuth, one from the CA for serverAuth only, one
 * self-signed), a DER copy and an encrypted key; without openssl the tests
 * that need them are skipped with a message.  Fixture YAML files
 * (tests/unit/fixtures/webconfig/) are copied next to the certificates, so
 * their relative paths resolve, and every error is compared whole:
 * "FILE:LINE: reason".
 *
 * Client-certificate modes and TLS versions are checked with real GnuTLS
 * handshakes over a socketpair, the server configured exactly as the
 * exporter would from the accessors.  Basic auth uses bcrypt hashes made
 * here with cost 4 (fast), plus one committed cost-10 hash; the bcrypt
 * counter in gm_auth_stats proves what the cache saves and what it must not
 * (failures, unknown users).  Timing assertions are one-sided (at least half
 * a bcrypt), never tight.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <crypt.h>
#include <errno.h>
#include <ftw.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export/webconfig.h"

#ifndef WEBCONFIG_FIXTURES
#error "WEBCONFIG_FIXTURES must name tests/unit/fixtures/webconfig"
#endif

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static char g_dir[256];  /* the temporary directory, absolute */
static int g_have_certs; /* openssl made the certificates */
static char g_cwd[4096]; /* to return to after chdir */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *path_in(const char *name)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", g_dir, name);
    return p[i];
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* Copies a fixture into g_dir and returns its new path. */
static const char *fixture(const char *name)
{
    char src[512];
    snprintf(src, sizeof(src), "%s/%s", WEBCONFIG_FIXTURES, name);
    char *text = slurp(src);
    const char *dst = path_in(name);
    write_file(dst, text);
    free(text);
    return dst;
}

/* s with every "$D" replaced by g_dir. */
static void expand(char *dst, size_t n, const char *s)
{
    size_t o = 0;
    for (; *s && o + 1 < n; s++) {
        if (s[0] == '$' && s[1] == 'D') {
            o += (size_t)snprintf(dst + o, n - o, "%s", g_dir);
            s++;
        } else {
            dst[o++] = *s;
        }
    }
    dst[o < n ? o : n - 1] = '\0';
}

static void b64(const unsigned char *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, i;
    for (i = 0; i + 2 < n; i += 3) {
        unsigned long w = (unsigned long)in[i] << 16 | (unsigned long)in[i + 1] << 8 | in[i + 2];
        out[o++] = t[w >> 18 & 63];
        out[o++] = t[w >> 12 & 63];
        out[o++] = t[w >> 6 & 63];
        out[o++] = t[w & 63];
    }
    if (i < n) {
        unsigned long w =
            (unsigned long)in[i] << 16 | (i + 1 < n ? (unsigned long)in[i + 1] << 8 : 0);
        out[o++] = t[w >> 18 & 63];
        out[o++] = t[w >> 12 & 63];
        out[o++] = i + 1 < n ? t[w >> 6 & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
}

/* "Basic " + base64(cred). */
static const char *basic(const char *cred)
{
    static char h[1024];
    memcpy(h, "Basic ", 6);
    b64((const unsigned char *)cred, strlen(cred), h + 6);
    return h;
}

/* A bcrypt hash of password with prefix ("$2y$") and cost, made with libxcrypt. */
static void make_hash(const char *prefix, int cost, const char *password, char out[61])
{
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    struct crypt_data *cd = calloc(1, sizeof(*cd));
    assert_non_null(cd);
    assert_non_null(
        crypt_gensalt_rn(prefix, (unsigned long)cost, NULL, 0, setting, (int)sizeof(setting)));
    const char *h = crypt_rn(password, setting, cd, (int)sizeof(*cd));
    assert_non_null(h);
    assert_int_equal(strlen(h), 60);
    memcpy(out, h, 61);
    free(cd);
}

static struct gm_webconfig *load_ok(const char *path)
{
    struct gm_webconfig *wc = NULL;
    struct gm_err err = {0};
    int r = gm_webconfig_load(path, &wc, &err);
    if (r != 0)
        print_error("unexpected error: %s\n", err.msg);
    assert_int_equal(r, 0);
    assert_non_null(wc);
    return wc;
}

#define NEED_CERTS()                                                                               \
    do {                                                                                           \
        if (!g_have_certs) {                                                                       \
            print_message("openssl not available: certificate test skipped\n");                    \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Setup: a temporary directory with certificates                            */

static const char make_certs[] =
    "set -e\n"
    "command -v openssl >/dev/null\n"
    "printf '[req]\\ndistinguished_name = dn\\nprompt = no\\n[dn]\\n' > req.cnf\n"
    "ec='-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -config req.cnf'\n"
    "openssl req -x509 $ec -keyout ca.key -out ca.crt -subj /CN=gpumon-test-ca "
    "  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign\n"
    "openssl req -x509 $ec -keyout server.key -out server.crt -subj /CN=localhost "
    "  -addext subjectAltName=DNS:localhost\n"
    "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out other.key\n"
    "openssl req -x509 $ec -CA ca.crt -CAkey ca.key -keyout client.key -out client.crt "
    "  -subj /CN=prometheus -addext extendedKeyUsage=clientAuth\n"
    "openssl req -x509 $ec -CA ca.crt -CAkey ca.key -keyout serveronly.key -out serveronly.crt "
    "  -subj /CN=wrong-purpose -addext extendedKeyUsage=serverAuth\n"
    "openssl req -x509 $ec -keyout rogue.key -out rogue.crt -subj /CN=rogue "
    "  -addext extendedKeyUsage=clientAuth\n"
    "openssl x509 -in server.crt -outform DER -out server.der\n"
    "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -aes-256-cbc "
    "  -pass pass:secret -out encrypted.key\n";

static int group_setup(void **state)
{
    (void)state;
    if (!getcwd(g_cwd, sizeof(g_cwd)))
        return -1;
    snprintf(g_dir, sizeof(g_dir), "/tmp/gm-webconfig-XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "cd '%s' && { %s} >openssl.log 2>&1", g_dir, make_certs);
    g_have_certs = system(cmd) == 0;
    if (!g_have_certs)
        fprintf(stderr,
                "note: openssl could not make test certificates; certificate tests are "
                "skipped (GM_KEEP_TMP=1 keeps %s/openssl.log)\n",
                g_dir);

    /* Files the error fixtures name that need no openssl. */
    write_file(path_in("garbage.txt"), "hello\n");
    write_file(path_in("corrupt.key"),
               "-----BEGIN PRIVATE KEY-----\nnot base64 at all!!\n-----END PRIVATE KEY-----\n");
    mkdir(path_in("adir"), 0755);
    mkdir(path_in("sub"), 0755);
    FILE *f = fopen(path_in("big.pem"), "wb");
    if (!f)
        return -1;
    for (int i = 0; i < 2 * 1024; i++)
        for (int j = 0; j < 1024; j++)
            fputc('A', f);
    fclose(f);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    if (chdir(g_cwd) != 0)
        return -1;
    if (!getenv("GM_KEEP_TMP"))
        nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Errors: every one names FILE:LINE and the reason                          */

static const struct err_case {
    const char *file;
    int needs_certs;    /* the error comes after the certificate files load */
    const char *expect; /* after "<path>:"; $D is the directory; a trailing '*' = prefix */
} err_cases[] = {
    {"err_syntax.yml", 0,
     "3: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence on "
     "line 2)"},
    {"err_top_list.yml", 0,
     "2: expected a mapping of tls_server_config, http_server_config and basic_auth_users, got "
     "a list"},
    {"err_unknown_top.yml", 0,
     "2: unknown key \"tls_config\" (expected tls_server_config, http_server_config or "
     "basic_auth_users)"},
    {"err_unknown_tls.yml", 0, "4: tls_server_config: unknown key \"cert_path\""},
    {"err_cipher_suites.yml", 0,
     "4: tls_server_config: cipher_suites is not supported: gpumon uses GnuTLS's NORMAL cipher "
     "suites; restrict the protocol with min_version instead"},
    {"err_curve_preferences.yml", 0,
     "4: tls_server_config: curve_preferences is not supported: gpumon uses GnuTLS's NORMAL "
     "groups"},
    {"err_client_allowed_sans.yml", 0,
     "6: tls_server_config: client_allowed_sans is not supported: gpumon accepts every client "
     "certificate its client CAs verify; issue client certificates from a dedicated CA instead"},
    {"err_rate_limit.yml", 0,
     "2: rate_limit is not supported by gpumon; limit requests in a reverse proxy instead"},
    {"err_tls_not_map.yml", 0, "1: tls_server_config: expected a mapping, got a scalar"},
    {"err_cert_list.yml", 0, "3: cert_file: expected a string, got a list"},
    {"err_no_cert.yml", 0, "2: tls_server_config: missing cert_file (or cert)"},
    {"err_no_key.yml", 0, "1: tls_server_config: missing key_file (or key)"},
    {"err_only_min_version.yml", 0, "2: tls_server_config: missing cert_file (or cert)"},
    {"err_cert_both.yml", 0, "4: tls_server_config: cert_file and cert are both set; use one"},
    {"err_ca_both.yml", 0,
     "6: tls_server_config: client_ca_file and client_ca are both set; use one"},
    {"err_client_auth_bad.yml", 0,
     "4: client_auth_type: \"RequireAndVerifyClientCerts\" is not one of NoClientCert, "
     "RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, "
     "RequireAndVerifyClientCert"},
    {"err_verify_no_ca.yml", 0,
     "4: client_auth_type RequireAndVerifyClientCert needs client_ca_file (or client_ca)"},
    {"err_require_any_no_ca.yml", 0,
     "4: client_auth_type RequireAnyClientCert needs client_ca_file (or client_ca): "
     "libmicrohttpd asks clients for a certificate only when it has CAs to name"},
    {"err_ca_no_auth.yml", 0,
     "4: tls_server_config: client_ca_file is set but client_auth_type is NoClientCert; set "
     "client_auth_type (RequireAndVerifyClientCert is the secure choice)"},
    {"err_min_version_bad.yml", 0,
     "4: min_version: \"TLS1.2\" is not one of TLS10, TLS11, TLS12, TLS13"},
    {"err_max_version_bad.yml", 0,
     "4: max_version: \"13\" is not one of TLS10, TLS11, TLS12, TLS13"},
    {"err_min_above_max.yml", 0,
     "4: tls_server_config: min_version TLS13 is above max_version TLS12"},
    {"err_cert_missing.yml", 0, "2: cert_file \"$D/missing.crt\": No such file or directory"},
    {"err_cert_dir.yml", 0, "2: cert_file \"$D/adir\": not a regular file"},
    {"err_cert_big.yml", 0,
     "2: cert_file \"$D/big.pem\": larger than 1048576 bytes; not a PEM file"},
    {"err_cert_is_key.yml", 1, "2: cert_file \"$D/server.key\": no PEM certificate in it"},
    {"err_cert_der.yml", 1,
     "2: cert_file \"$D/server.der\": binary data, not PEM (DER must be converted, e.g. with "
     "openssl x509 -outform PEM)"},
    {"err_key_garbage.yml", 1, "3: key_file \"$D/garbage.txt\": no PEM private key in it"},
    {"err_key_is_cert.yml", 1, "3: key_file \"$D/server.crt\": no PEM private key in it"},
    {"err_key_corrupt.yml", 1,
     "3: key_file \"$D/corrupt.key\": cannot read the private key (GnuTLS: *"},
    {"err_key_encrypted.yml", 1,
     "3: key_file \"$D/encrypted.key\": the key is encrypted; gpumon needs it unencrypted "
     "(restrict the file's permissions instead)"},
    {"err_key_mismatch.yml", 1,
     "3: key_file \"$D/other.key\" does not match the certificate in cert_file "
     "\"$D/server.crt\""},
    {"err_ca_not_cert.yml", 1, "5: client_ca_file \"$D/server.key\": no PEM certificate in it"},
    {"err_ca_missing.yml", 1,
     "5: client_ca_file \"/nonexistent/ca.crt\": No such file or directory"},
    {"err_inline_cert_bad.yml", 1, "2: cert: no PEM certificate in it"},
    {"err_dup_key.yml", 0, "4: tls_server_config: duplicate key \"cert_file\" (first on line 2)"},
    {"err_dup_section.yml", 0,
     "3: web config: duplicate key \"basic_auth_users\" (first on line 1)"},
    {"err_headers_unknown.yml", 0,
     "3: headers: \"X-Powered-By\" can not be configured (allowed: Content-Security-Policy, "
     "X-Frame-Options, X-Content-Type-Options, X-XSS-Protection, Strict-Transport-Security)"},
    {"err_headers_case.yml", 0,
     "3: headers: \"x-frame-options\" can not be configured; did you mean X-Frame-Options?"},
    {"err_headers_frame_value.yml", 0,
     "3: headers: X-Frame-Options must be deny or sameorigin, not \"allow-from "
     "https://example.com\""},
    {"err_headers_nosniff_value.yml", 0,
     "3: headers: X-Content-Type-Options must be nosniff, not \"sniff\""},
    {"err_headers_crlf.yml", 0,
     "3: headers: the value of Content-Security-Policy contains a control character"},
    {"err_headers_null.yml", 0, "3: headers: X-XSS-Protection has no value"},
    {"err_headers_not_map.yml", 0, "2: headers: expected a mapping of header: value, got a list"},
    {"err_http_unknown.yml", 0, "3: http_server_config: unknown key \"keep_alive\""},
    {"err_http2_not_bool.yml", 0, "2: http2: expected true or false, got \"maybe\""},
    {"err_prefer_not_bool.yml", 0,
     "4: prefer_server_cipher_suites: expected true or false, got \"true\""},
    {"err_users_not_map.yml", 0,
     "2: basic_auth_users: expected a mapping of user: bcrypt hash, got a list"},
    {"err_user_no_hash.yml", 0, "2: basic_auth_users: user \"alice\" has no password hash"},
    {"err_user_plaintext.yml", 0,
     "2: basic_auth_users: user \"alice\": not a bcrypt hash (those start with $2y$, $2b$ or "
     "$2a$); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'"},
    {"err_user_md5.yml", 0,
     "2: basic_auth_users: user \"alice\": not a bcrypt hash (those start with $2y$, $2b$ or "
     "$2a$); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'"},
    {"err_user_2x.yml", 0,
     "2: basic_auth_users: user \"alice\": not a bcrypt hash (those start with $2y$, $2b$ or "
     "$2a$); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'"},
    {"err_user_cost3.yml", 0, "2: basic_auth_users: user \"alice\": bcrypt cost 3 is outside 4-31"},
    {"err_user_cost32.yml", 0,
     "2: basic_auth_users: user \"alice\": bcrypt cost 32 is outside 4-31"},
    {"err_user_no_cost.yml", 0,
     "2: basic_auth_users: user \"alice\": not a bcrypt hash (the cost must be two digits, as "
     "in $2y$10$); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'"},
    {"err_user_short.yml", 0,
     "2: basic_auth_users: user \"alice\": not a bcrypt hash (it must be 60 characters long); "
     "make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'"},
    {"err_user_badchar.yml", 0,
     "2: basic_auth_users: user \"alice\": not a bcrypt hash (a character outside "
     "./A-Za-z0-9); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'"},
    {"err_user_colon.yml", 0,
     "2: basic_auth_users: user \"team:alice\" contains ':', which basic auth cannot carry in a "
     "user name"},
    {"err_user_empty.yml", 0, "2: basic_auth_users: a user name is empty"},
    {"err_user_ctrl.yml", 0,
     "2: basic_auth_users: user \"ali\\x09ce\" contains a control character"},
    {"err_dup_user.yml", 0, "4: basic_auth_users: duplicate key \"alice\" (first on line 2)"},
    {"err_two_docs.yml", 0, "3: a second YAML document; the web config is one document"},
    {"err_tag.yml", 0, "2: unsupported YAML tag \"!vault\""},
    {"err_nul.yml", 0, "2: cert_file: contains a NUL character"},
    {"err_complex_key.yml", 0, "1: web config: keys must be strings, got a list"},
    {"err_bad_utf8.yml", 0, " invalid YAML: invalid leading UTF-8 octet at byte 20"},
};

static void test_errors(void **state)
{
    (void)state;
    size_t skipped = 0;
    for (size_t i = 0; i < N_ELEM(err_cases); i++) {
        const struct err_case *t = &err_cases[i];
        if (t->needs_certs && !g_have_certs) {
            skipped++;
            continue;
        }
        const char *path = fixture(t->file);
        struct gm_webconfig *wc = (struct gm_webconfig *)1;
        struct gm_err err = {0};
        int r = gm_webconfig_load(path, &wc, &err);
        char expect[1024], tail[900];
        expand(tail, sizeof(tail), t->expect);
        snprintf(expect, sizeof(expect), "%s:%s", path, tail);
        size_t n = strlen(expect);
        int prefix = n > 0 && expect[n - 1] == '*';
        int same = prefix ? strncmp(err.msg, expect, n - 1) == 0 : strcmp(err.msg, expect) == 0;
        if (r != GM_E_INVAL || !same)
            print_error("%s:\n  got    [%d] %s\n  wanted      %s\n", t->file, r, err.msg, expect);
        assert_int_equal(r, GM_E_INVAL);
        assert_int_equal(err.code, GM_E_INVAL);
        assert_null(wc);
        assert_true(same);
    }
    if (skipped)
        print_message("%zu certificate cases skipped (no openssl)\n", skipped);
}

/* The config file itself: missing (GM_E_IO), not a file, too big. */
static void test_config_file_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int code;
        const char *expect;
    } cases[] = {
        {"nope.yml", GM_E_IO, "$D/nope.yml: No such file or directory"},
        {"adir", GM_E_INVAL, "$D/adir: not a regular file"},
        {"big.pem", GM_E_INVAL, "$D/big.pem: larger than 1048576 bytes; not a web config"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_webconfig *wc = NULL;
        struct gm_err err = {0};
        char expect[600];
        expand(expect, sizeof(expect), cases[i].expect);
        assert_int_equal(gm_webconfig_load(path_in(cases[i].name), &wc, &err), cases[i].code);
        assert_null(wc);
        assert_string_equal(err.msg, expect);
    }
    /* err may be NULL. */
    struct gm_webconfig *wc = NULL;
    assert_int_equal(gm_webconfig_load(path_in("nope.yml"), &wc, NULL), GM_E_IO);
    assert_int_equal(gm_webconfig_load(fixture("err_dup_user.yml"), &wc, NULL), GM_E_INVAL);
    assert_null(wc);
}

/* Files that would make libyaml or the walker slow (quadratic in the
 * nesting depth, the anchors or a mapping's keys) are refused, naming the
 * place.  Each expect is after "<path>:".  How long the refusal takes (well
 * under a second; before the bounds 16 s for 100000 '[' and 37 s for 100000
 * keys) is measured by make bench (the "tests" section of
 * docs/BENCHMARKS.md), not asserted here: on a loaded machine a duration says
 * how busy it is.  The text is static, so that a failed assert (which
 * leaves the function) leaks nothing. */
static void test_config_limits(void **state)
{
    (void)state;
    enum { BIG = 1000000 };
    static char text[BIG + 64];
    static const struct {
        const char *what;
        const char *expect;
    } cases[] = {
        {"100000 [", "1: nested deeper than 64 levels (lists and mappings)"},
        {"65 [ then ]", "1: nested deeper than 64 levels (lists and mappings)"},
        {"64 [ then ]", "1: expected a mapping of tls_server_config, http_server_config and "
                        "basic_auth_users, got a list"},
        {"70 block mappings", "65: nested deeper than 64 levels (lists and mappings)"},
        {"100000 {a: ", "1: nested deeper than 64 levels (lists and mappings)"},
        {"65 anchors", "2: more than 64 anchors (&NAME)"},
        {"5000 keys", "4098: more than 4096 keys in one mapping"},
        {"100000 keys", "4097: more than 4096 keys in one mapping"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        size_t o = 0;
        const char *w = cases[i].what;
        if (!strcmp(w, "100000 [")) {
            memset(text, '[', 100000);
            o = 100000;
        } else if (!strcmp(w, "65 [ then ]") || !strcmp(w, "64 [ then ]")) {
            int n = w[1] == '5' ? 65 : 64;
            memset(text, '[', (size_t)n);
            memset(text + n, ']', (size_t)n);
            o = 2 * (size_t)n;
            text[o++] = '\n';
        } else if (!strcmp(w, "70 block mappings")) {
            for (int d = 0; d < 70; d++) {
                memset(text + o, ' ', (size_t)d * 2);
                o += (size_t)d * 2;
                memcpy(text + o, "a:\n", 3);
                o += 3;
            }
        } else if (!strcmp(w, "100000 {a: ")) {
            for (int d = 0; d < 100000; d++) {
                memcpy(text + o, "{a: ", 4);
                o += 4;
                if (o > BIG - 8)
                    break;
            }
        } else if (!strcmp(w, "65 anchors")) {
            o = (size_t)snprintf(text, BIG, "basic_auth_users:\n  [");
            for (int a = 0; a < 65; a++)
                o += (size_t)snprintf(text + o, BIG - o, "&a%d x, ", a);
            o += (size_t)snprintf(text + o, BIG - o, "]\n");
        } else if (!strcmp(w, "100000 keys")) {
            for (int k = 0; k < 100000; k++)
                o += (size_t)snprintf(text + o, BIG - o, "k%05d:\n", k);
        } else {
            o = (size_t)snprintf(text, BIG, "basic_auth_users:\n");
            for (int k = 0; k < 5000; k++)
                o += (size_t)snprintf(text + o, BIG - o, "  u%d: x\n", k);
        }
        text[o] = '\0';
        write_file(path_in("limit.yml"), text);
        struct gm_webconfig *wc = NULL;
        struct gm_err err = {0};
        int r = gm_webconfig_load(path_in("limit.yml"), &wc, &err);
        char expect[600];
        snprintf(expect, sizeof(expect), "%s:%s", path_in("limit.yml"), cases[i].expect);
        if (r != GM_E_INVAL || strcmp(err.msg, expect) != 0)
            print_error("%s:\n  got    [%d] %s\n  wanted      %s\n", w, r, err.msg, expect);
        assert_int_equal(r, GM_E_INVAL);
        assert_null(wc);
        assert_string_equal(err.msg, expect);
    }
}

/* ------------------------------------------------------------------------ */
/* Good configurations                                                       */

#define DEFAULT_PRIO "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE"

static void test_nothing_configured(void **state)
{
    (void)state;
    static const char *const files[] = {"good_empty.yml", "good_comments.yml",
                                        "good_null_sections.yml"};
    for (size_t i = 0; i < N_ELEM(files); i++) {
        struct gm_webconfig *wc = load_ok(fixture(files[i]));
        assert_int_equal(gm_webconfig_tls(wc), 0);
        assert_null(gm_webconfig_cert_pem(wc));
        assert_null(gm_webconfig_key_pem(wc));
        assert_null(gm_webconfig_client_ca_pem(wc));
        assert_int_equal(gm_webconfig_client_auth(wc), GM_WEBCONFIG_NO_CLIENT_CERT);
        assert_string_equal(gm_webconfig_tls_priorities(wc), DEFAULT_PRIO);
        assert_int_equal(gm_webconfig_basic_auth(wc), 0);
        assert_int_equal(gm_webconfig_header_count(wc), 0);
        assert_int_equal(gm_webconfig_check_client_cert(wc, NULL, NULL), 0);
        gm_webconfig_free(wc);
    }
    gm_webconfig_free(NULL);
}

static void test_tls_only(void **state)
{
    (void)state;
    NEED_CERTS();
    struct gm_webconfig *wc = load_ok(fixture("good_tls.yml"));
    char *cert = slurp(path_in("server.crt")), *key = slurp(path_in("server.key"));
    assert_int_equal(gm_webconfig_tls(wc), 1);
    assert_string_equal(gm_webconfig_cert_pem(wc), cert);
    assert_string_equal(gm_webconfig_key_pem(wc), key);
    assert_string_equal(gm_webconfig_cert_file(wc), path_in("server.crt"));
    assert_string_equal(gm_webconfig_key_file(wc), path_in("server.key"));
    assert_null(gm_webconfig_client_ca_pem(wc));
    assert_null(gm_webconfig_client_ca_file(wc));
    assert_int_equal(gm_webconfig_client_auth(wc), GM_WEBCONFIG_NO_CLIENT_CERT);
    assert_int_equal(gm_webconfig_min_version(wc), GM_WEBCONFIG_TLS12);
    assert_int_equal(gm_webconfig_max_version(wc), GM_WEBCONFIG_TLS13);
    assert_string_equal(gm_webconfig_tls_priorities(wc), DEFAULT_PRIO);
    assert_int_equal(gm_webconfig_basic_auth(wc), 0);
    free(cert);
    free(key);
    gm_webconfig_free(wc);
}

static void test_versions(void **state)
{
    (void)state;
    NEED_CERTS();
    static const struct {
        const char *file;
        int min, max;
        const char *prio;
    } cases[] = {
        {"good_tls.yml", GM_WEBCONFIG_TLS12, GM_WEBCONFIG_TLS13, DEFAULT_PRIO},
        {"good_tls13.yml", GM_WEBCONFIG_TLS13, GM_WEBCONFIG_TLS13,
         "NORMAL:-VERS-ALL:+VERS-TLS1.3:%SERVER_PRECEDENCE"},
        {"good_old_tls.yml", GM_WEBCONFIG_TLS10, GM_WEBCONFIG_TLS11,
         "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0:%SERVER_PRECEDENCE"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_webconfig *wc = load_ok(fixture(cases[i].file));
        assert_int_equal(gm_webconfig_min_version(wc), cases[i].min);
        assert_int_equal(gm_webconfig_max_version(wc), cases[i].max);
        assert_string_equal(gm_webconfig_tls_priorities(wc), cases[i].prio);
        gm_webconfig_free(wc);
    }
}

static void test_client_auth_modes(void **state)
{
    (void)state;
    NEED_CERTS();
    char *ca = slurp(path_in("ca.crt"));
    static const struct {
        const char *file;
        enum gm_webconfig_client_auth mode;
        const char *name;
        int has_ca;
    } cases[] = {
        {"good_tls.yml", GM_WEBCONFIG_NO_CLIENT_CERT, "NoClientCert", 0},
        {"good_request.yml", GM_WEBCONFIG_REQUEST_CLIENT_CERT, "RequestClientCert", 0},
        {"good_require_any_alias.yml", GM_WEBCONFIG_REQUIRE_ANY_CLIENT_CERT, "RequireAnyClientCert",
         1},
        {"good_full.yml", GM_WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN, "VerifyClientCertIfGiven", 1},
        {"good_mtls.yml", GM_WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT, "RequireAndVerifyClientCert",
         1},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_webconfig *wc = load_ok(fixture(cases[i].file));
        assert_int_equal(gm_webconfig_client_auth(wc), cases[i].mode);
        assert_string_equal(gm_webconfig_client_auth_name(cases[i].mode), cases[i].name);
        if (cases[i].has_ca) {
            assert_string_equal(gm_webconfig_client_ca_pem(wc), ca);
            assert_string_equal(gm_webconfig_client_ca_file(wc), path_in("ca.crt"));
        } else {
            assert_null(gm_webconfig_client_ca_pem(wc));
        }
        gm_webconfig_free(wc);
    }
    free(ca);
}

static void test_full(void **state)
{
    (void)state;
    NEED_CERTS();
    static const char *const want[][2] = {
        {"X-Frame-Options", "DENY"},
        {"X-Content-Type-Options", "nosniff"},
        {"Strict-Transport-Security", "max-age=31536000; includeSubDomains"},
        {"Content-Security-Policy", "default-src 'none'"},
        {"X-XSS-Protection", "1; mode=block"},
    };
    struct gm_webconfig *wc = load_ok(fixture("good_full.yml"));
    assert_int_equal(gm_webconfig_tls(wc), 1);
    assert_int_equal(gm_webconfig_basic_auth(wc), 1);
    assert_int_equal(gm_webconfig_user_count(wc), 2);
    assert_int_equal(gm_webconfig_header_count(wc), N_ELEM(want));
    for (size_t i = 0; i < N_ELEM(want); i++) {
        const char *name = NULL, *value = NULL;
        assert_int_equal(gm_webconfig_header(wc, i, &name, &value), 0);
        assert_string_equal(name, want[i][0]);
        assert_string_equal(value, want[i][1]);
    }
    const char *name = NULL, *value = NULL;
    assert_int_equal(gm_webconfig_header(wc, N_ELEM(want), &name, &value), -1);

    /* Its two users: the committed cost-10 $2y$ and a cost-4 $2b$ hash. */
    struct gm_auth *auth = NULL;
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc); /* the checker keeps copies */
    assert_int_equal(gm_auth_check(auth, basic("scraper:prometheus")), 1);
    assert_int_equal(gm_auth_check(auth, basic("grafana agent:pw")), 1);
    assert_int_equal(gm_auth_check(auth, basic("grafana agent:prometheus")), 0);
    gm_auth_free(auth);
}

/* Relative paths are relative to the config file's directory, whatever the
 * working directory; absolute ones stay. */
static void test_relative_paths(void **state)
{
    (void)state;
    NEED_CERTS();
    char yml[1024];
    write_file(path_in("sub/web.yml"), "tls_server_config:\n"
                                       "  cert_file: ../server.crt\n"
                                       "  key_file: ../server.key\n");
    snprintf(yml, sizeof(yml), "tls_server_config:\n  cert_file: %s\n  key_file: ../server.key\n",
             path_in("server.crt"));
    write_file(path_in("sub/abs.yml"), yml);
    write_file(path_in("bare.yml"), "tls_server_config:\n"
                                    "  cert_file: server.crt\n"
                                    "  key_file: server.key\n");
    static const struct {
        const char *chdir_to; /* NULL: stay */
        const char *config;   /* $D expands */
        const char *cert;     /* the resolved cert_file */
    } cases[] = {
        {NULL, "$D/sub/web.yml", "$D/sub/../server.crt"},
        {"$D", "sub/web.yml", "sub/../server.crt"},
        {"$D", "bare.yml", "server.crt"},
        {"$D/sub", "./web.yml", "./../server.crt"},
        {"/", "$D/sub/abs.yml", "$D/server.crt"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        char dir[600], config[600], cert[600];
        if (cases[i].chdir_to) {
            expand(dir, sizeof(dir), cases[i].chdir_to);
            assert_int_equal(chdir(dir), 0);
        }
        expand(config, sizeof(config), cases[i].config);
        expand(cert, sizeof(cert), cases[i].cert);
        struct gm_webconfig *wc = load_ok(config);
        assert_string_equal(gm_webconfig_cert_file(wc), cert);
        assert_non_null(strstr(gm_webconfig_key_file(wc), "server.key"));
        gm_webconfig_free(wc);
        assert_int_equal(chdir(g_cwd), 0);
    }
}

/* Appends "  key: |" and pem indented as a literal block. */
static size_t put_block(char *yml, size_t cap, size_t o, const char *key, const char *pem)
{
    o += (size_t)snprintf(yml + o, cap - o, "  %s: |\n", key);
    for (const char *line = pem; *line && o < cap;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        o += (size_t)snprintf(yml + o, cap - o, "    %.*s\n", (int)len, line);
        line += len + (nl ? 1 : 0);
    }
    assert_true(o < cap);
    return o;
}

/* Inline PEM (cert, key, client_ca) as literal blocks. */
static void test_inline_pem(void **state)
{
    (void)state;
    NEED_CERTS();
    char *cert = slurp(path_in("server.crt")), *key = slurp(path_in("server.key"));
    char *ca = slurp(path_in("ca.crt")), *other = slurp(path_in("other.key"));
    static const char head[] = "tls_server_config:\n"
                               "  client_auth_type: RequireAndVerifyClientCert\n";
    char yml[16384];
    size_t o = (size_t)snprintf(yml, sizeof(yml), "%s", head);
    o = put_block(yml, sizeof(yml), o, "cert", cert);
    o = put_block(yml, sizeof(yml), o, "key", key);
    put_block(yml, sizeof(yml), o, "client_ca", ca);
    write_file(path_in("inline.yml"), yml);
    struct gm_webconfig *wc = load_ok(path_in("inline.yml"));
    assert_string_equal(gm_webconfig_cert_pem(wc), cert);
    assert_string_equal(gm_webconfig_key_pem(wc), key);
    assert_string_equal(gm_webconfig_client_ca_pem(wc), ca);
    assert_null(gm_webconfig_cert_file(wc));
    assert_null(gm_webconfig_key_file(wc));
    assert_null(gm_webconfig_client_ca_file(wc));
    gm_webconfig_free(wc);

    /* An inline key that does not match the certificate: the message names
     * the key's line and carries no key material. */
    o = (size_t)snprintf(yml, sizeof(yml), "%s", head);
    o = put_block(yml, sizeof(yml), o, "cert", cert);
    o = put_block(yml, sizeof(yml), o, "key", other);
    put_block(yml, sizeof(yml), o, "client_ca", ca);
    write_file(path_in("inline_bad.yml"), yml);
    struct gm_err err = {0};
    wc = NULL;
    assert_int_equal(gm_webconfig_load(path_in("inline_bad.yml"), &wc, &err), GM_E_INVAL);
    int cert_lines = 0;
    for (const char *s = cert; *s; s++)
        cert_lines += *s == '\n';
    char expect[600];
    snprintf(expect, sizeof(expect), "%s:%d: key does not match the certificate in cert",
             path_in("inline_bad.yml"), 2 + 1 + cert_lines + 1);
    assert_string_equal(err.msg, expect);
    assert_null(strstr(err.msg, "PRIVATE"));
    free(cert);
    free(key);
    free(ca);
    free(other);
}

/* ------------------------------------------------------------------------ */
/* TLS handshakes: the server set up from the accessors, as the exporter     */

static gnutls_pcert_st g_pcert;
static gnutls_privkey_t g_pkey;
static int g_send_cert;

/* Always offers the client certificate, whatever CAs the server names. */
static int retrieve_cert(gnutls_session_t s, const gnutls_datum_t *req_ca_dn, int nreqs,
                         const gnutls_pk_algorithm_t *algos, int nalgos, gnutls_pcert_st **pcert,
                         unsigned int *n, gnutls_privkey_t *pkey)
{
    (void)s, (void)req_ca_dn, (void)nreqs, (void)algos, (void)nalgos;
    if (!g_send_cert) {
        *pcert = NULL;
        *n = 0;
        *pkey = NULL;
        return 0;
    }
    *pcert = &g_pcert;
    *n = 1;
    *pkey = g_pkey;
    return 0;
}

struct side {
    gnutls_session_t s;
    int fd;
    int rc;
};

static void *server_side(void *arg)
{
    struct side *sd = arg;
    int r;
    do {
        r = gnutls_handshake(sd->s);
    } while (r < 0 && !gnutls_error_is_fatal(r));
    sd->rc = r;
    if (r < 0) { /* GnuTLS sends no alert by itself: end the client's wait */
        gnutls_alert_send_appropriate(sd->s, r);
        shutdown(sd->fd, SHUT_RDWR);
    }
    return NULL;
}

#define HANDSHAKE_FAILED 1

/* Handshakes a server configured from wc with a client limited to
 * client_prio, offering the certificate in client (a base name like
 * "client", or NULL for none).  Returns HANDSHAKE_FAILED, or the result of
 * gm_webconfig_check_client_cert on the server's session, with its message
 * in msg and the protocol version in *version. */
static int handshake(const struct gm_webconfig *wc, const char *client_prio, const char *client,
                     char *msg, size_t msgn, gnutls_protocol_t *version)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

    gnutls_certificate_credentials_t sc, cc;
    assert_int_equal(gnutls_certificate_allocate_credentials(&sc), 0);
    gnutls_datum_t c = {(unsigned char *)gm_webconfig_cert_pem(wc),
                        (unsigned)strlen(gm_webconfig_cert_pem(wc))};
    gnutls_datum_t k = {(unsigned char *)gm_webconfig_key_pem(wc),
                        (unsigned)strlen(gm_webconfig_key_pem(wc))};
    assert_int_equal(gnutls_certificate_set_x509_key_mem(sc, &c, &k, GNUTLS_X509_FMT_PEM), 0);
    const char *ca = gm_webconfig_client_ca_pem(wc);
    if (ca) {
        gnutls_datum_t a = {(unsigned char *)ca, (unsigned)strlen(ca)};
        assert_true(gnutls_certificate_set_x509_trust_mem(sc, &a, GNUTLS_X509_FMT_PEM) > 0);
    }
    struct side server = {.fd = sv[0]};
    assert_int_equal(gnutls_init(&server.s, GNUTLS_SERVER), 0);
    assert_int_equal(gnutls_priority_set_direct(server.s, gm_webconfig_tls_priorities(wc), NULL),
                     0);
    assert_int_equal(gnutls_credentials_set(server.s, GNUTLS_CRD_CERTIFICATE, sc), 0);
    if (ca) /* what libmicrohttpd does when it has a trust list */
        gnutls_certificate_server_set_request(server.s, GNUTLS_CERT_REQUEST);
    gnutls_transport_set_int(server.s, sv[0]);
    gnutls_handshake_set_timeout(server.s, 10000);

    assert_int_equal(gnutls_certificate_allocate_credentials(&cc), 0);
    g_send_cert = client != NULL;
    if (client) {
        char name[64];
        snprintf(name, sizeof(name), "%s.crt", client);
        char *cpem = slurp(path_in(name));
        snprintf(name, sizeof(name), "%s.key", client);
        char *kpem = slurp(path_in(name));
        gnutls_datum_t cd = {(unsigned char *)cpem, (unsigned)strlen(cpem)};
        gnutls_datum_t kd = {(unsigned char *)kpem, (unsigned)strlen(kpem)};
        assert_int_equal(gnutls_pcert_import_x509_raw(&g_pcert, &cd, GNUTLS_X509_FMT_PEM, 0), 0);
        assert_int_equal(gnutls_privkey_init(&g_pkey), 0);
        assert_int_equal(gnutls_privkey_import_x509_raw(g_pkey, &kd, GNUTLS_X509_FMT_PEM, NULL, 0),
                         0);
        free(cpem);
        free(kpem);
    }
    gnutls_certificate_set_retrieve_function2(cc, retrieve_cert);
    gnutls_session_t cs;
    assert_int_equal(gnutls_init(&cs, GNUTLS_CLIENT), 0);
    assert_int_equal(gnutls_priority_set_direct(cs, client_prio, NULL), 0);
    assert_int_equal(gnutls_credentials_set(cs, GNUTLS_CRD_CERTIFICATE, cc), 0);
    gnutls_transport_set_int(cs, sv[1]);
    gnutls_handshake_set_timeout(cs, 10000);

    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, server_side, &server), 0);
    int r;
    do {
        r = gnutls_handshake(cs);
    } while (r < 0 && !gnutls_error_is_fatal(r));
    if (r < 0)
        shutdown(sv[1], SHUT_RDWR);
    pthread_join(th, NULL);

    int result = HANDSHAKE_FAILED;
    msg[0] = '\0';
    if (r >= 0 && server.rc >= 0) {
        struct gm_err err = {0};
        *version = gnutls_protocol_get_version(server.s);
        result = gm_webconfig_check_client_cert(wc, server.s, &err);
        if (result)
            snprintf(msg, msgn, "%s", err.msg);
    }
    gnutls_deinit(cs);
    gnutls_deinit(server.s);
    gnutls_certificate_free_credentials(cc);
    gnutls_certificate_free_credentials(sc);
    if (client) {
        gnutls_pcert_deinit(&g_pcert);
        gnutls_privkey_deinit(g_pkey);
    }
    close(sv[0]);
    close(sv[1]);
    return result;
}

static void test_client_cert_checks(void **state)
{
    (void)state;
    NEED_CERTS();
    static const struct {
        const char *file;
        const char *client; /* NULL: no certificate */
        int want;           /* 0 or GM_E_NOPERM */
        const char *msg;    /* prefix of the message when refused */
    } cases[] = {
        /* RequireAndVerifyClientCert: only a CA-issued clientAuth certificate. */
        {"good_mtls.yml", NULL, GM_E_NOPERM,
         "the client sent no certificate (client_auth_type RequireAndVerifyClientCert)"},
        {"good_mtls.yml", "client", 0, ""},
        {"good_mtls.yml", "rogue", GM_E_NOPERM, "client certificate rejected: "},
        {"good_mtls.yml", "serveronly", GM_E_NOPERM, "client certificate rejected: "},
        /* VerifyClientCertIfGiven: none is fine, a bad one is not. */
        {"good_full.yml", NULL, 0, ""},
        {"good_full.yml", "client", 0, ""},
        {"good_full.yml", "rogue", GM_E_NOPERM, "client certificate rejected: "},
        /* RequireAnyClientCert: any certificate, none is refused. */
        {"good_require_any_alias.yml", NULL, GM_E_NOPERM,
         "the client sent no certificate (client_auth_type RequireAnyClientCert)"},
        {"good_require_any_alias.yml", "rogue", 0, ""},
        /* RequestClientCert and NoClientCert never refuse. */
        {"good_request.yml", "rogue", 0, ""},
        {"good_request.yml", NULL, 0, ""},
        {"good_tls.yml", NULL, 0, ""},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_webconfig *wc = load_ok(fixture(cases[i].file));
        char msg[512];
        gnutls_protocol_t v = GNUTLS_VERSION_UNKNOWN;
        int r = handshake(wc, "NORMAL", cases[i].client, msg, sizeof(msg), &v);
        if (r != cases[i].want || strncmp(msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            print_error("%s with %s: got %d \"%s\"\n", cases[i].file,
                        cases[i].client ? cases[i].client : "no certificate", r, msg);
        assert_int_equal(r, cases[i].want);
        assert_true(strncmp(msg, cases[i].msg, strlen(cases[i].msg)) == 0);
        gm_webconfig_free(wc);
    }
}

static void test_tls_versions_negotiated(void **state)
{
    (void)state;
    NEED_CERTS();
    static const struct {
        const char *file;
        const char *client_prio;
        int ok;
        gnutls_protocol_t version;
    } cases[] = {
        {"good_tls.yml", "NORMAL", 1, GNUTLS_TLS1_3},
        {"good_tls.yml", "NORMAL:-VERS-ALL:+VERS-TLS1.2", 1, GNUTLS_TLS1_2},
        {"good_tls.yml", "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0", 0, 0},
        {"good_tls13.yml", "NORMAL", 1, GNUTLS_TLS1_3},
        {"good_tls13.yml", "NORMAL:-VERS-ALL:+VERS-TLS1.2", 0, 0},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_webconfig *wc = load_ok(fixture(cases[i].file));
        char msg[512];
        gnutls_protocol_t v = GNUTLS_VERSION_UNKNOWN;
        int r = handshake(wc, cases[i].client_prio, NULL, msg, sizeof(msg), &v);
        if (cases[i].ok) {
            assert_int_equal(r, 0);
            assert_int_equal(v, cases[i].version);
        } else {
            assert_int_equal(r, HANDSHAKE_FAILED);
        }
        gm_webconfig_free(wc);
    }
}

/* ------------------------------------------------------------------------ */
/* Basic auth                                                                */

static char g_alice[61], g_bob[61]; /* cost 4 */

/* Writes and loads a config with alice and bob (and extra lines), then makes a checker. */
static struct gm_auth *auth_with(const char *extra)
{
    if (!g_alice[0]) {
        make_hash("$2y$", 4, "correct horse:battery", g_alice);
        make_hash("$2b$", 4, "hunter2", g_bob);
    }
    char yml[4096];
    snprintf(yml, sizeof(yml), "basic_auth_users:\n  alice: %s\n  bob: '%s'\n%s", g_alice, g_bob,
             extra ? extra : "");
    write_file(path_in("auth.yml"), yml);
    struct gm_webconfig *wc = load_ok(path_in("auth.yml"));
    struct gm_auth *auth = NULL;
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    return auth;
}

static void test_auth_headers(void **state)
{
    (void)state;
    static const struct {
        const char *scheme; /* prefix before base64(cred); NULL: raw is the whole header */
        const char *cred;
        size_t cred_len; /* 0: strlen(cred) */
        const char *raw;
        int allowed;
        int bcrypt; /* bcrypt computations it costs */
        int malformed;
    } rows[] = {
        {"Basic ", "alice:correct horse:battery", 0, NULL, 1, 1, 0},
        {"basic ", "alice:correct horse:battery", 0, NULL, 1, 1, 0},
        {"BASIC   ", "alice:correct horse:battery", 0, NULL, 1, 1, 0},
        {" \tBasic ", "alice:correct horse:battery", 0, NULL, 1, 1, 0},
        {"Basic ", "alice:correct horse", 0, NULL, 0, 1, 0}, /* cut at a ':' */
        {"Basic ", "alice:correct horse:batter", 0, NULL, 0, 1, 0},
        {"Basic ", "alice:correct horse:battery!", 0, NULL, 0, 1, 0},
        {"Basic ", "alice:", 0, NULL, 0, 1, 0},
        {"Basic ", "Alice:correct horse:battery", 0, NULL, 0, 1, 0}, /* unknown user */
        {"Basic ", "alic:correct horse:battery", 0, NULL, 0, 1, 0},
        {"Basic ", "mallory:hunter2", 0, NULL, 0, 1, 0},
        {"Basic ", "bob:hunter2", 0, NULL, 1, 1, 0},
        {"Basic ", "alice:hunter2", 0, NULL, 0, 1, 0}, /* another user's password */
        {"Basic ", ":hunter2", 0, NULL, 0, 0, 1},      /* empty user */
        {"Basic ", "bobhunter2", 0, NULL, 0, 0, 1},    /* no colon */
        {"Basic ", "", 0, NULL, 0, 0, 1},
        {"Basic ", "bob:hunter2\0x", 13, NULL, 0, 0, 1}, /* NUL would cut the password */
        {"Basic ", "bob\0:hunter2", 12, NULL, 0, 0, 1},
        {NULL, NULL, 0, NULL, 0, 0, 1}, /* no Authorization header */
        {NULL, NULL, 0, "", 0, 0, 1},
        {NULL, NULL, 0, "Basic", 0, 0, 1},
        {NULL, NULL, 0, "Basic ", 0, 0, 1},
        {NULL, NULL, 0, "Basic !!!", 0, 0, 1},
        {NULL, NULL, 0, "Basic !!!!", 0, 0, 1},
        {NULL, NULL, 0, "Bearer x", 0, 0, 1},
        {NULL, NULL, 0, "Bearer Ym9iOmh1bnRlcjI=", 0, 0, 1},
        {NULL, NULL, 0, "Digest username=\"bob\"", 0, 0, 1},
        {NULL, NULL, 0, "BasicYm9iOmh1bnRlcjI=", 0, 0, 1},
        {NULL, NULL, 0, "Basic\tYm9iOmh1bnRlcjI=", 0, 0, 1},
        {NULL, NULL, 0, "Basic Ym9iOmh1bnRlcjI=", 1, 1, 0},
        {NULL, NULL, 0, "Basic Ym9iOmh1bnRlcjI=  ", 1, 1, 0},
        {NULL, NULL, 0, "Basic Ym9iOmh1bnRlcjI", 0, 0, 1},   /* padding missing */
        {NULL, NULL, 0, "Basic Ym9iOmh1bnRlcjI==", 0, 0, 1}, /* too much */
        {NULL, NULL, 0, "Basic Ym9i Omh1bnRlcjI=", 0, 0, 1},
        {NULL, NULL, 0, "Basic =Ym9iOmh1bnRlcjI", 0, 0, 1},
        {NULL, NULL, 0, "Basic Ym9iOm=1bnRlcjI=", 0, 0, 1},
        {NULL, NULL, 0, "Basic ====", 0, 0, 1},
        {NULL, NULL, 0, "Basic Ym9iOmh1bnRlcjI=, Basic eA==", 0, 0, 1},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_auth *auth = auth_with(NULL);
        char h[1024];
        const char *header = rows[i].raw;
        if (rows[i].scheme) {
            size_t n = rows[i].cred_len ? rows[i].cred_len : strlen(rows[i].cred);
            size_t s = strlen(rows[i].scheme);
            memcpy(h, rows[i].scheme, s);
            b64((const unsigned char *)rows[i].cred, n, h + s);
            header = h;
        }
        struct gm_auth_stats st;
        int got = gm_auth_check(auth, header);
        gm_auth_stats(auth, &st);
        if (got != rows[i].allowed || st.bcrypt_calls != (uint64_t)rows[i].bcrypt ||
            st.malformed != (uint64_t)rows[i].malformed)
            print_error("row %zu (%s): allowed %d, bcrypt %llu, malformed %llu\n", i,
                        header ? header : "(none)", got, (unsigned long long)st.bcrypt_calls,
                        (unsigned long long)st.malformed);
        assert_int_equal(got, rows[i].allowed);
        assert_int_equal(st.bcrypt_calls, rows[i].bcrypt);
        assert_int_equal(st.malformed, rows[i].malformed);
        assert_int_equal(st.checks, 1);
        assert_int_equal(st.allowed, rows[i].allowed);
        gm_auth_free(auth);
    }

    /* An overlong header is refused without decoding it. */
    struct gm_auth *auth = auth_with(NULL);
    size_t n = 6 + 8192;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memcpy(big, "Basic ", 6);
    memset(big + 6, 'A', n - 6);
    big[n] = '\0';
    assert_int_equal(gm_auth_check(auth, big), 0);
    struct gm_auth_stats st;
    gm_auth_stats(auth, &st);
    assert_int_equal(st.malformed, 1);
    assert_int_equal(st.bcrypt_calls, 0);
    free(big);
    gm_auth_free(auth);
}

/* $2a$, $2b$ and $2y$ hashes all verify; the committed cost-10 one too. */
static void test_auth_hash_variants(void **state)
{
    (void)state;
    char a[61], b[61], y[61], yml[1024];
    make_hash("$2a$", 4, "pa", a);
    make_hash("$2b$", 5, "pb", b);
    make_hash("$2y$", 6, "pý", y); /* a non-ASCII password, UTF-8 */
    snprintf(yml, sizeof(yml), "basic_auth_users:\n  a: %s\n  b: %s\n  \"ý\": %s\n", a, b, y);
    write_file(path_in("variants.yml"), yml);
    struct gm_webconfig *wc = load_ok(path_in("variants.yml"));
    struct gm_auth *auth = NULL;
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    assert_int_equal(gm_auth_check(auth, basic("a:pa")), 1);
    assert_int_equal(gm_auth_check(auth, basic("b:pb")), 1);
    assert_int_equal(gm_auth_check(auth, basic("ý:pý")), 1);
    assert_int_equal(gm_auth_check(auth, basic("ý:py")), 0);
    assert_int_equal(gm_auth_check(auth, basic("a:pb")), 0);
    gm_auth_free(auth);

    /* A salt whose last character carries stray low bits (not what any tool
     * writes, but Go's bcrypt accepts it): libxcrypt re-encodes the salt, so
     * only the hash part may be compared. */
    char odd[61];
    make_hash("$2y$", 4, "po", odd);
    static const char canon[] = ".Oeu", stray[] = "/Pfv";
    const char *at = strchr(canon, odd[28]);
    assert_non_null(at);
    odd[28] = stray[at - canon];
    snprintf(yml, sizeof(yml), "basic_auth_users:\n  o: %s\n", odd);
    write_file(path_in("odd.yml"), yml);
    wc = load_ok(path_in("odd.yml"));
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    assert_int_equal(gm_auth_check(auth, basic("o:po")), 1);
    assert_int_equal(gm_auth_check(auth, basic("o:pO")), 0);
    gm_auth_free(auth);

    wc = load_ok(fixture("good_auth_only.yml"));
    assert_int_equal(gm_webconfig_tls(wc), 0);
    assert_int_equal(gm_webconfig_user_count(wc), 1);
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    assert_int_equal(gm_auth_check(auth, basic("scraper:prometheus")), 1);
    assert_int_equal(gm_auth_check(auth, basic("scraper:Prometheus")), 0);
    gm_auth_free(auth);
}

/* A success is cached: the second check costs no bcrypt (the counters say
 * so; the times are printed, not compared: a loaded machine can make the
 * cached check the slower one). */
static void test_auth_cache(void **state)
{
    (void)state;
    struct gm_webconfig *wc = load_ok(fixture("good_auth_only.yml")); /* cost 10 */
    struct gm_auth *auth = NULL;
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    struct gm_auth_stats st;
    const char *h = basic("scraper:prometheus");

    double t0 = now_ms();
    assert_int_equal(gm_auth_check(auth, h), 1);
    double first = now_ms() - t0;
    t0 = now_ms();
    assert_int_equal(gm_auth_check(auth, h), 1);
    double second = now_ms() - t0;
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 1);
    assert_int_equal(st.cache_hits, 1);
    assert_int_equal(st.allowed, 2);
    print_message("cost-10 check: %.2f ms; cached: %.3f ms\n", first, second);

    /* The cache is keyed on the password: a wrong one still costs bcrypt. */
    assert_int_equal(gm_auth_check(auth, basic("scraper:prometheus ")), 0);
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 2);
    assert_int_equal(st.cache_hits, 1);
    gm_auth_free(auth);
}

/* Failures are never cached, for known and unknown users alike. */
static void test_auth_failures_not_cached(void **state)
{
    (void)state;
    struct gm_auth *auth = auth_with(NULL);
    struct gm_auth_stats st;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(gm_auth_check(auth, basic("alice:wrong")), 0);
        assert_int_equal(gm_auth_check(auth, basic("nobody:wrong")), 0);
    }
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 6);
    assert_int_equal(st.cache_hits, 0);
    /* and a later success is still checked properly, then cached */
    assert_int_equal(gm_auth_check(auth, basic("alice:correct horse:battery")), 1);
    assert_int_equal(gm_auth_check(auth, basic("alice:correct horse:battery")), 1);
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 7);
    assert_int_equal(st.cache_hits, 1);
    gm_auth_free(auth);
}

/* 256 entries; the oldest goes first. */
static void test_auth_cache_eviction(void **state)
{
    (void)state;
    enum { N = 257 };
    size_t cap = 64 + N * 80;
    char *yml = malloc(cap);
    assert_non_null(yml);
    size_t o = (size_t)snprintf(yml, cap, "basic_auth_users:\n");
    for (int i = 0; i < N; i++) {
        char pw[16], h[61];
        snprintf(pw, sizeof(pw), "pw%d", i);
        make_hash("$2y$", 4, pw, h);
        o += (size_t)snprintf(yml + o, cap - o, "  u%d: %s\n", i, h);
    }
    write_file(path_in("many.yml"), yml);
    free(yml);
    struct gm_webconfig *wc = load_ok(path_in("many.yml"));
    struct gm_auth *auth = NULL;
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    char cred[32];
    for (int i = 0; i < N; i++) {
        snprintf(cred, sizeof(cred), "u%d:pw%d", i, i);
        assert_int_equal(gm_auth_check(auth, basic(cred)), 1);
    }
    struct gm_auth_stats st;
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, N);
    static const struct {
        int user;
        int hit;
    } then[] = {{256, 1}, {0, 0}, {2, 1}, {1, 0}, {0, 1}};
    for (size_t i = 0; i < N_ELEM(then); i++) {
        uint64_t before = st.cache_hits;
        snprintf(cred, sizeof(cred), "u%d:pw%d", then[i].user, then[i].user);
        assert_int_equal(gm_auth_check(auth, basic(cred)), 1);
        gm_auth_stats(auth, &st);
        assert_int_equal(st.cache_hits - before, (uint64_t)then[i].hit);
    }
    gm_auth_free(auth);
}

/* An unknown user costs a bcrypt at the highest configured cost, like a
 * wrong password: both take at least half of one (no tight bounds). */
static void test_auth_unknown_user_timing(void **state)
{
    (void)state;
    char carol[61];
    make_hash("$2y$", 8, "x", carol);
    char extra[128];
    snprintf(extra, sizeof(extra), "  carol: %s\n", carol);
    struct gm_auth *auth = auth_with(extra); /* alice, bob at cost 4; carol at 8 */

    struct crypt_data *cd = calloc(1, sizeof(*cd));
    assert_non_null(cd);
    double ref = 1e9;
    for (int i = 0; i < 3; i++) {
        double t0 = now_ms();
        assert_non_null(crypt_rn("y", carol, cd, (int)sizeof(*cd)));
        double t = now_ms() - t0;
        if (t < ref)
            ref = t;
    }
    free(cd);

    double t0 = now_ms();
    assert_int_equal(gm_auth_check(auth, basic("nobody:x")), 0);
    double unknown = now_ms() - t0;
    t0 = now_ms();
    assert_int_equal(gm_auth_check(auth, basic("carol:y")), 0);
    double wrong = now_ms() - t0;
    print_message("cost-8 bcrypt %.2f ms; unknown user %.2f ms; wrong password %.2f ms\n", ref,
                  unknown, wrong);
    assert_true(unknown >= ref / 2); /* a cost-4 dummy would take ref / 16 */
    assert_true(wrong >= ref / 2);
    struct gm_auth_stats st;
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 2);
    gm_auth_free(auth);
}

/* No users: every check fails (fail closed), still paying a bcrypt. */
static void test_auth_no_users(void **state)
{
    (void)state;
    struct gm_webconfig *wc = load_ok(fixture("good_empty.yml"));
    struct gm_auth *auth = NULL;
    assert_int_equal(gm_auth_new(wc, &auth, NULL), 0);
    gm_webconfig_free(wc);
    assert_int_equal(gm_auth_check(auth, basic("a:b")), 0);
    struct gm_auth_stats st;
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 1);
    gm_auth_free(auth);
    gm_auth_free(NULL);
}

/* Many threads at once: right answers and consistent counters. */
enum { THREADS = 8, ITER = 24 };
static char g_hdr[4][128]; /* good, wrong password, unknown user, malformed */
static const int g_hdr_ok[4] = {1, 0, 0, 0};
static int g_thread_errors;

static void *auth_thread(void *arg)
{
    struct gm_auth *auth = arg;
    for (int i = 0; i < ITER; i++) {
        if (gm_auth_check(auth, g_hdr[i % 4]) != g_hdr_ok[i % 4])
            __atomic_fetch_add(&g_thread_errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_auth_threads(void **state)
{
    (void)state;
    struct gm_auth *auth = auth_with(NULL);
    snprintf(g_hdr[0], sizeof(g_hdr[0]), "%s", basic("bob:hunter2"));
    snprintf(g_hdr[1], sizeof(g_hdr[1]), "%s", basic("bob:hunter3"));
    snprintf(g_hdr[2], sizeof(g_hdr[2]), "%s", basic("eve:hunter2"));
    snprintf(g_hdr[3], sizeof(g_hdr[3]), "Basic %%%%%%%%");
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, auth_thread, auth), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(g_thread_errors, 0);
    struct gm_auth_stats st;
    gm_auth_stats(auth, &st);
    const uint64_t per = (uint64_t)THREADS * ITER / 4;
    assert_int_equal(st.checks, 4 * per);
    assert_int_equal(st.allowed, per);
    assert_int_equal(st.malformed, per);
    /* every wrong password and unknown user pays; a good one until cached */
    assert_true(st.bcrypt_calls >= 2 * per + 1);
    assert_true(st.bcrypt_calls <= 2 * per + THREADS);
    assert_int_equal(st.cache_hits + (st.bcrypt_calls - 2 * per), per);
    gm_auth_free(auth);
}

/* The two halves: gm_auth_begin never runs bcrypt; it refuses what is
 * malformed, allows what is cached and leaves the rest (unknown users too,
 * so that they cost the same) to gm_auth_verify. */
static void test_auth_two_halves(void **state)
{
    (void)state;
    struct gm_auth *auth = auth_with(NULL);
    struct gm_auth_stats st;
    struct gm_auth_pending *p = (struct gm_auth_pending *)1;

    assert_int_equal(gm_auth_begin(auth, "Basic %%%%", &p), GM_AUTH_DENY);
    assert_null(p);
    assert_int_equal(gm_auth_begin(auth, NULL, &p), GM_AUTH_DENY);
    assert_null(p);

    static const struct {
        const char *cred;
        int ok;
    } cases[] = {
        {"bob:hunter2", 1},
        {"bob:hunter3", 0},
        {"eve:hunter2", 0},
        {"alice:correct horse:battery", 1},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        assert_int_equal(gm_auth_begin(auth, basic(cases[i].cred), &p), GM_AUTH_VERIFY);
        assert_non_null(p);
        gm_auth_stats(auth, &st);
        assert_int_equal(st.bcrypt_calls, i); /* none in begin */
        assert_int_equal(gm_auth_verify(auth, p), cases[i].ok);
    }
    /* verified once: allowed by begin alone, no bcrypt */
    assert_int_equal(gm_auth_begin(auth, basic("bob:hunter2"), &p), GM_AUTH_ALLOW);
    assert_null(p);
    /* a pending check freed unverified costs nothing and allows nothing */
    assert_int_equal(gm_auth_begin(auth, basic("bob:hunter3"), &p), GM_AUTH_VERIFY);
    gm_auth_pending_free(p);
    gm_auth_pending_free(NULL);
    gm_auth_stats(auth, &st);
    assert_int_equal(st.bcrypt_calls, 4);
    assert_int_equal(st.checks, 8);
    assert_int_equal(st.malformed, 2);
    assert_int_equal(st.cache_hits, 1);
    assert_int_equal(st.allowed, 3);
    gm_auth_free(auth);
}

/* A reload's checker keeps the credentials verified before, for users whose
 * hash is unchanged; a changed or removed user is verified anew. */
static void test_auth_renew(void **state)
{
    (void)state;
    struct gm_auth *old = auth_with(NULL);
    assert_int_equal(gm_auth_check(old, basic("alice:correct horse:battery")), 1);
    assert_int_equal(gm_auth_check(old, basic("bob:hunter2")), 1);

    char bob2[61], yml[512];
    make_hash("$2y$", 4, "new bob", bob2);
    snprintf(yml, sizeof(yml), "basic_auth_users:\n  alice: %s\n  bob: %s\n", g_alice, bob2);
    write_file(path_in("renew.yml"), yml);
    struct gm_webconfig *wc = load_ok(path_in("renew.yml"));
    struct gm_auth *fresh = NULL;
    assert_int_equal(gm_auth_renew(wc, old, &fresh, NULL), 0);
    gm_webconfig_free(wc);

    struct gm_auth_pending *p;
    assert_int_equal(gm_auth_begin(fresh, basic("alice:correct horse:battery"), &p), GM_AUTH_ALLOW);
    assert_int_equal(gm_auth_begin(fresh, basic("bob:hunter2"), &p), GM_AUTH_VERIFY);
    assert_int_equal(gm_auth_verify(fresh, p), 0); /* bob's old password is gone */
    assert_int_equal(gm_auth_check(fresh, basic("bob:new bob")), 1);
    struct gm_auth_stats st;
    gm_auth_stats(fresh, &st);
    assert_int_equal(st.bcrypt_calls, 2);
    assert_int_equal(st.cache_hits, 1);

    /* the old checker is untouched and still answers as before */
    assert_int_equal(gm_auth_begin(old, basic("bob:hunter2"), &p), GM_AUTH_ALLOW);
    assert_int_equal(gm_auth_begin(old, basic("bob:new bob"), &p), GM_AUTH_VERIFY);
    assert_int_equal(gm_auth_verify(old, p), 0);

    /* alice removed: her cached pair allows nothing */
    snprintf(yml, sizeof(yml), "basic_auth_users:\n  bob: %s\n", bob2);
    write_file(path_in("renew.yml"), yml);
    wc = load_ok(path_in("renew.yml"));
    struct gm_auth *third = NULL;
    assert_int_equal(gm_auth_renew(wc, fresh, &third, NULL), 0);
    gm_webconfig_free(wc);
    assert_int_equal(gm_auth_begin(third, basic("alice:correct horse:battery"), &p),
                     GM_AUTH_VERIFY);
    assert_int_equal(gm_auth_verify(third, p), 0);
    assert_int_equal(gm_auth_begin(third, basic("bob:new bob"), &p), GM_AUTH_ALLOW);
    gm_auth_free(third);
    gm_auth_free(fresh);
    gm_auth_free(old);
}

/* What a reload compares: gm_webconfig_equal and gm_webconfig_tls_equal on
 * files that differ in one thing each (contents, not names: a copy of the
 * certificate under another name is the same TLS). */
static void test_equal(void **state)
{
    (void)state;
    char hash[61];
    make_hash("$2y$", 4, "pw", hash);
    char users[256], users2[256];
    snprintf(users, sizeof(users), "basic_auth_users:\n  alice: %s\n", hash);
    snprintf(users2, sizeof(users2), "basic_auth_users:\n  bob: %s\n", hash);
    static const char hdr1[] = "http_server_config:\n  headers:\n    X-Frame-Options: deny\n";
    static const char hdr2[] = "http_server_config:\n  headers:\n    X-Frame-Options: sameorigin\n";
    char a[1024], b[1024];
    /* no TLS: NULL is the same as an empty file */
    write_file(path_in("eq_empty.yml"), "# nothing\n");
    struct gm_webconfig *empty = load_ok(path_in("eq_empty.yml"));
    assert_int_equal(gm_webconfig_equal(NULL, NULL), 1);
    assert_int_equal(gm_webconfig_equal(NULL, empty), 1);
    assert_int_equal(gm_webconfig_tls_equal(empty, NULL), 1);
    snprintf(a, sizeof(a), "%s%s", hdr1, users);
    write_file(path_in("eq_a.yml"), a);
    write_file(path_in("eq_a2.yml"), a);
    struct gm_webconfig *wa = load_ok(path_in("eq_a.yml")), *wa2 = load_ok(path_in("eq_a2.yml"));
    assert_int_equal(gm_webconfig_equal(wa, wa2), 1);
    assert_int_equal(gm_webconfig_equal(wa, empty), 0);
    assert_int_equal(gm_webconfig_tls_equal(wa, empty), 1);
    static const char *const variants[] = {hdr2, NULL};
    for (size_t i = 0; i < N_ELEM(variants); i++) {
        snprintf(b, sizeof(b), "%s%s", variants[i] ? variants[i] : hdr1,
                 variants[i] ? users : users2);
        write_file(path_in("eq_b.yml"), b);
        struct gm_webconfig *wb = load_ok(path_in("eq_b.yml"));
        assert_int_equal(gm_webconfig_equal(wa, wb), 0); /* another header, another user */
        assert_int_equal(gm_webconfig_tls_equal(wa, wb), 1);
        gm_webconfig_free(wb);
    }
    gm_webconfig_free(wa);
    gm_webconfig_free(wa2);
    if (!g_have_certs) {
        gm_webconfig_free(empty);
        print_message("openssl not available: TLS comparisons skipped\n");
        return;
    }
    /* TLS: the same contents under another file name are the same */
    char *cert = slurp(path_in("server.crt"));
    write_file(path_in("copy.crt"), cert);
    free(cert);
    static const char tls[] =
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
    write_file(path_in("eq_t.yml"), tls);
    write_file(path_in("eq_t2.yml"), "tls_server_config:\n  cert_file: copy.crt\n"
                                     "  key_file: server.key\n");
    struct gm_webconfig *t = load_ok(path_in("eq_t.yml")), *t2 = load_ok(path_in("eq_t2.yml"));
    assert_int_equal(gm_webconfig_tls_equal(t, t2), 1);
    assert_int_equal(gm_webconfig_equal(t, t2), 1);
    assert_int_equal(gm_webconfig_tls_equal(t, empty), 0);
    assert_int_equal(gm_webconfig_tls_equal(NULL, t), 0);
    static const char *const tls_variants[] = {
        "  min_version: TLS13\n",
        "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n",
        "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n",
    };
    for (size_t i = 0; i < N_ELEM(tls_variants); i++) {
        snprintf(b, sizeof(b), "%s%s", tls, tls_variants[i]);
        write_file(path_in("eq_tb.yml"), b);
        struct gm_webconfig *tb = load_ok(path_in("eq_tb.yml"));
        assert_int_equal(gm_webconfig_tls_equal(t, tb), 0);
        assert_int_equal(gm_webconfig_equal(t, tb), 0);
        gm_webconfig_free(tb);
    }
    /* another certificate and key (the client's pair, from the same CA) */
    write_file(path_in("eq_tc.yml"), "tls_server_config:\n  cert_file: client.crt\n"
                                     "  key_file: client.key\n");
    struct gm_webconfig *tc = load_ok(path_in("eq_tc.yml"));
    assert_int_equal(gm_webconfig_tls_equal(t, tc), 0);
    gm_webconfig_free(tc);
    /* headers alone do not touch TLS */
    snprintf(b, sizeof(b), "%s%s", tls, hdr1);
    write_file(path_in("eq_th.yml"), b);
    struct gm_webconfig *th = load_ok(path_in("eq_th.yml"));
    assert_int_equal(gm_webconfig_tls_equal(t, th), 1);
    assert_int_equal(gm_webconfig_equal(t, th), 0);
    gm_webconfig_free(th);
    gm_webconfig_free(t);
    gm_webconfig_free(t2);
    gm_webconfig_free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_config_file_errors),
        cmocka_unit_test(test_config_limits),
        cmocka_unit_test(test_nothing_configured),
        cmocka_unit_test(test_tls_only),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_client_auth_modes),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_relative_paths),
        cmocka_unit_test(test_inline_pem),
        cmocka_unit_test(test_client_cert_checks),
        cmocka_unit_test(test_tls_versions_negotiated),
        cmocka_unit_test(test_auth_headers),
        cmocka_unit_test(test_auth_hash_variants),
        cmocka_unit_test(test_auth_cache),
        cmocka_unit_test(test_auth_failures_not_cached),
        cmocka_unit_test(test_auth_cache_eviction),
        cmocka_unit_test(test_auth_unknown_user_timing),
        cmocka_unit_test(test_auth_no_users),
        cmocka_unit_test(test_auth_threads),
        cmocka_unit_test(test_auth_two_halves),
        cmocka_unit_test(test_auth_renew),
        cmocka_unit_test(test_equal),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/* webconfig.c -- the exporter-toolkit web config: YAML (libyaml), certificate
 * checks (GnuTLS) and the basic-auth checker (bcrypt from libxcrypt).  See
 * webconfig.h for the supported keys and the contracts.
 *
 * libyaml's document loader gives a node tree with a line for every node;
 * the walker below knows the three sections and reports the first problem as
 * "FILE:LINE: reason".  User-supplied strings are escaped before they go into
 * a message; password hashes and keys never do.
 *
 * Not done here: the toolkit's re-reading of the file per request (the
 * exporter decides when to load again), rate limiting, SAN filters.
 */
#include "webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "../core/text.h"

#define MAX_CONFIG_BYTES 1048576 /* the YAML file */
#define MAX_DEPTH 64             /* nested lists and mappings */
#define MAX_ANCHORS 64
#define MAX_KEYS 4096         /* in one mapping */
#define MAX_PEM_BYTES 1048576 /* each certificate, key or CA file */
#define N_ALLOWED_HEADERS 5
#define BCRYPT_LEN 60     /* $2y$10$ + 22 salt + 31 hash characters */
#define BCRYPT_SETTING 29 /* the part crypt reads: prefix, cost, salt */
#define AUTH_SALT_LEN 32  /* per-process cache salt */
#define AUTH_CACHE_SIZE 256
#define AUTH_MAX_TOKEN 4096 /* base64 characters after "Basic " */
#define AUTH_MAX_DECODED ((size_t)AUTH_MAX_TOKEN / 4 * 3)
#define SHA256_LEN 32

struct wc_header {
    char *name;
    char *value;
};

struct wc_user {
    char *name;
    char *hash; /* a validated bcrypt hash, BCRYPT_LEN characters */
};

struct gm_webconfig {
    int tls;
    char *cert_pem, *key_pem, *ca_pem;
    char *cert_file, *key_file, *ca_file;
    enum gm_webconfig_client_auth client_auth;
    enum gm_webconfig_tls_version min_version, max_version;
    char priorities[128];
    struct wc_header headers[N_ALLOWED_HEADERS];
    size_t n_headers;
    struct wc_user *users;
    size_t n_users;
};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

static void wipe_free(char *p)
{
    if (p) {
        explicit_bzero(p, strlen(p));
        free(p);
    }
}

/* Writes s into dst as a double-quoted string, at most 64 of its bytes, with
 * '"', '\\' and non-printable bytes escaped, so a message never carries
 * control characters from the file.  Returns dst. */
static const char *quote(char *dst, size_t n, const char *s)
{
    size_t o = 0, i;
    if (n < 8)
        return "";
    dst[o++] = '"';
    for (i = 0; i < 64 && s[i] && o + 6 < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7f) {
            o += (size_t)snprintf(dst + o, n - o, "\\x%02x", ch);
        } else {
            dst[o++] = (char)ch;
        }
    }
    if (s[i] && o + 5 < n) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o++] = '"';
    dst[o] = '\0';
    return dst;
}

/* Constant-time equality of n bytes. */
static int ct_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned char)(x[i] ^ y[i]);
    return d == 0;
}

enum { READ_NOT_REGULAR = -1, READ_TOO_BIG = -2 };

/* errno, never 0, so a failure cannot read as success. */
static int errno_or_eio(void)
{
    int e = errno;
    return e > 0 ? e : EIO;
}

/* Reads the regular file at path (at most max bytes) into a NUL-terminated
 * buffer.  Returns 0, an errno value, READ_NOT_REGULAR or READ_TOO_BIG.
 * O_NONBLOCK keeps a FIFO from hanging the open; it is refused after. */
static int read_small_file(const char *path, size_t max, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return errno_or_eio();
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno_or_eio();
        close(fd);
        return e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return READ_NOT_REGULAR;
    }
    if ((unsigned long long)st.st_size > max) {
        close(fd);
        return READ_TOO_BIG;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = gm_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) { /* the file grew while we read it */
            if (cap > max) {
                close(fd);
                explicit_bzero(buf, n);
                free(buf);
                return READ_TOO_BIG;
            }
            cap *= 2;
            buf = gm_xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno_or_eio();
            close(fd);
            explicit_bzero(buf, n);
            free(buf);
            return e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > max) {
        explicit_bzero(buf, n);
        free(buf);
        return READ_TOO_BIG;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The YAML walker                                                           */

struct ctx {
    const char *path;     /* the config file, as given */
    char *dir;            /* its directory with a trailing '/', or NULL */
    yaml_document_t *doc; /* the parsed file */
    struct gm_webconfig *wc;
    struct gm_err *err;
};

static unsigned long line_of(const yaml_node_t *n)
{
    return (unsigned long)n->start_mark.line + 1;
}

/* Sets err to "PATH:LINE: message" (at the node) and returns GM_E_INVAL. */
static int fail(struct ctx *c, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const yaml_node_t *at, const char *fmt, ...)
{
    char msg[sizeof(c->err->msg)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (at)
        return gm_err_set(c->err, GM_E_INVAL, "%s:%lu: %s", c->path, line_of(at), msg);
    return gm_err_set(c->err, GM_E_INVAL, "%s: %s", c->path, msg);
}

static const char *kind_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_SCALAR_NODE:
        return "a scalar";
    default:
        return "nothing";
    }
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* A plain empty, "~" or "null" scalar (YAML's null); an absent value. */
static int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return 0;
    if (n->tag && strcmp((const char *)n->tag, YAML_NULL_TAG) == 0)
        return 1;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *v = scalar(n);
    return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* Refuses application tags (!vault, !!binary, ...): the toolkit's strict
 * decoder would not know them either, and guessing is worse. */
static int check_tag(struct ctx *c, const yaml_node_t *n)
{
    static const char *const ok[] = {YAML_STR_TAG, YAML_NULL_TAG, YAML_BOOL_TAG,
                                     YAML_INT_TAG, YAML_MAP_TAG,  YAML_SEQ_TAG};
    if (!n->tag)
        return 0;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (strcmp((const char *)n->tag, ok[i]) == 0)
            return 0;
    char q[96];
    return fail(c, n, "unsupported YAML tag %s", quote(q, sizeof(q), (const char *)n->tag));
}

/* The string value of a scalar, NULL for null or an empty string (unset, as
 * in the toolkit).  what names the setting in messages. */
static int get_string(struct ctx *c, const yaml_node_t *n, const char *what, const char **out)
{
    *out = NULL;
    if (check_tag(c, n))
        return GM_E_INVAL;
    if (is_null(n))
        return 0;
    if (n->type != YAML_SCALAR_NODE)
        return fail(c, n, "%s: expected a string, got %s", what, kind_name(n));
    if (memchr(n->data.scalar.value, '\0', n->data.scalar.length))
        return fail(c, n, "%s: contains a NUL character", what);
    if (n->data.scalar.length)
        *out = scalar(n);
    return 0;
}

/* A YAML boolean (true/false, and YAML 1.1's yes/no/on/off as Go's yaml.v2
 * reads them).  Null leaves *out alone. */
static int get_bool(struct ctx *c, const yaml_node_t *n, const char *what, int *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES",  "on",   "On",   "ON"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                     "NO",    "off",   "Off",   "OFF"};
    if (check_tag(c, n))
        return GM_E_INVAL;
    if (is_null(n))
        return 0;
    if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
            if (strcmp(scalar(n), yes[i]) == 0) {
                *out = 1;
                return 0;
            }
            if (strcmp(scalar(n), no[i]) == 0) {
                *out = 0;
                return 0;
            }
        }
    }
    if (n->type == YAML_SCALAR_NODE) {
        char q[96];
        return fail(c, n, "%s: expected true or false, got %s", what,
                    quote(q, sizeof(q), scalar(n)));
    }
    return fail(c, n, "%s: expected true or false, got %s", what, kind_name(n));
}

/* Checks that n is a mapping (null counts as an empty one) and that its keys
 * are unique strings.  Returns 0 and sets *is_map, or an error. */
static int check_mapping(struct ctx *c, const yaml_node_t *n, const char *what,
                         const char *expected, int *is_map)
{
    *is_map = 0;
    if (check_tag(c, n))
        return GM_E_INVAL;
    if (is_null(n))
        return 0;
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, n, "%s: expected %s, got %s", what, expected, kind_name(n));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        /* the duplicate check below is quadratic: bound it */
        if (p - n->data.mapping.pairs.start == MAX_KEYS)
            return fail(c, k, "more than %d keys in one mapping", MAX_KEYS);
        if (check_tag(c, k))
            return GM_E_INVAL;
        if (k->type != YAML_SCALAR_NODE)
            return fail(c, k, "%s: keys must be strings, got %s", what, kind_name(k));
        if (memchr(k->data.scalar.value, '\0', k->data.scalar.length))
            return fail(c, k, "%s: a key contains a NUL character", what);
        for (yaml_node_pair_t *e = n->data.mapping.pairs.start; e < p; e++) {
            const yaml_node_t *ek = yaml_document_get_node(c->doc, e->key);
            if (strcmp(scalar(ek), scalar(k)) == 0) {
                char q[96];
                return fail(c, k, "%s: duplicate key %s (first on line %lu)", what,
                            quote(q, sizeof(q), scalar(k)), line_of(ek));
            }
        }
    }
    *is_map = 1;
    return 0;
}

#define FOR_PAIRS(c, n, k, v)                                                                      \
    for (yaml_node_pair_t *p_ = (n)->data.mapping.pairs.start;                                     \
         p_ < (n)->data.mapping.pairs.top &&                                                       \
         ((k) = yaml_document_get_node((c)->doc, p_->key),                                         \
         (v) = yaml_document_get_node((c)->doc, p_->value), 1);                                    \
         p_++)

/* ------------------------------------------------------------------------ */
/* tls_server_config                                                         */

static const char *const client_auth_names[] = {
    "NoClientCert",
    "RequestClientCert",
    "RequireAnyClientCert",
    "VerifyClientCertIfGiven",
    "RequireAndVerifyClientCert",
};

static const char *const version_names[] = {"TLS10", "TLS11", "TLS12", "TLS13"};

enum tls_key {
    K_CERT_FILE,
    K_CERT,
    K_KEY_FILE,
    K_KEY,
    K_CA_FILE,
    K_CA,
    K_CLIENT_AUTH,
    K_MIN_VERSION,
    K_MAX_VERSION,
    K_PREFER_SERVER,
    N_TLS_KEYS
};

static const char *const tls_key_names[N_TLS_KEYS] = {
    "cert_file",        "cert",
    "key_file",         "key",
    "client_ca_file",   "client_ca",
    "client_auth_type", "min_version",
    "max_version",      "prefer_server_cipher_suites",
};

/* Keys the toolkit has and gpumon refuses, with the reason. */
static const struct {
    const char *key;
    const char *why;
} tls_refused[] = {
    {"cipher_suites", "cipher_suites is not supported: gpumon uses GnuTLS's NORMAL cipher "
                      "suites; restrict the protocol with min_version instead"},
    {"curve_preferences", "curve_preferences is not supported: gpumon uses GnuTLS's NORMAL "
                          "groups"},
    {"client_allowed_sans", "client_allowed_sans is not supported: gpumon accepts every client "
                            "certificate its client CAs verify; issue client certificates from "
                            "a dedicated CA instead"},
};

/* The value of setting k for messages: `cert_file "/etc/x.crt"` or `cert`. */
static const char *source_desc(char *dst, size_t n, const char *key, const char *file)
{
    char q[160];
    if (file)
        snprintf(dst, n, "%s %s", key, quote(q, sizeof(q), file));
    else
        snprintf(dst, n, "%s", key);
    return dst;
}

/* Resolves a relative path against the config file's directory. */
static char *resolve(struct ctx *c, const char *p)
{
    if (p[0] == '/' || !c->dir)
        return gm_xstrdup(p);
    size_t a = strlen(c->dir), b = strlen(p);
    char *r = gm_xmalloc(a + b + 1);
    memcpy(r, c->dir, a);
    memcpy(r + a, p, b + 1);
    return r;
}

/* Loads a PEM setting, from its file (resolved, into *file) or inline, into
 * *pem.  at is the node for messages. */
static int load_pem(struct ctx *c, const yaml_node_t *at, const char *key, const char *path,
                    const char *inline_pem, char **pem, char **file)
{
    if (!path) {
        *pem = gm_xstrdup(inline_pem);
        return 0;
    }
    *file = resolve(c, path);
    char q[200];
    size_t len = 0;
    int r = read_small_file(*file, MAX_PEM_BYTES, pem, &len);
    if (r == READ_NOT_REGULAR)
        return fail(c, at, "%s %s: not a regular file", key, quote(q, sizeof(q), *file));
    if (r == READ_TOO_BIG)
        return fail(c, at, "%s %s: larger than %d bytes; not a PEM file", key,
                    quote(q, sizeof(q), *file), MAX_PEM_BYTES);
    if (r)
        return fail(c, at, "%s %s: %s", key, quote(q, sizeof(q), *file), strerror(r));
    if (memchr(*pem, '\0', len))
        return fail(c, at,
                    "%s %s: binary data, not PEM (DER must be converted, e.g. with "
                    "openssl x509 -outform PEM)",
                    key, quote(q, sizeof(q), *file));
    return 0;
}

/* Checks that pem holds at least one certificate, all parseable. */
static int check_certs(struct ctx *c, const yaml_node_t *at, const char *desc, const char *pem)
{
    gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
    gnutls_x509_crt_t *crts = NULL;
    unsigned n = 0;
    int r = gnutls_x509_crt_list_import2(&crts, &n, &d, GNUTLS_X509_FMT_PEM, 0);
    if (r >= 0) {
        for (unsigned i = 0; i < n; i++)
            gnutls_x509_crt_deinit(crts[i]);
        gnutls_free(crts);
    }
    if (r == GNUTLS_E_NO_CERTIFICATE_FOUND || (r >= 0 && n == 0))
        return fail(c, at, "%s: no PEM certificate in it", desc);
    if (r < 0)
        return fail(c, at, "%s: cannot read the certificates (GnuTLS: %s)", desc,
                    gnutls_strerror(r));
    return 0;
}

static int check_key(struct ctx *c, const yaml_node_t *at, const char *desc, const char *pem)
{
    gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
    gnutls_x509_privkey_t k;
    if (gnutls_x509_privkey_init(&k) < 0)
        gm_oom();
    int r = gnutls_x509_privkey_import2(k, &d, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN);
    gnutls_x509_privkey_deinit(k);
    if (r >= 0)
        return 0;
    if (strstr(pem, "ENCRYPTED"))
        return fail(c, at,
                    "%s: the key is encrypted; gpumon needs it unencrypted (restrict "
                    "the file's permissions instead)",
                    desc);
    if (!strstr(pem, "PRIVATE KEY-----"))
        return fail(c, at, "%s: no PEM private key in it", desc);
    return fail(c, at, "%s: cannot read the private key (GnuTLS: %s)", desc, gnutls_strerror(r));
}

static void build_priorities(struct gm_webconfig *wc)
{
    static const char *const vers[] = {"VERS-TLS1.0", "VERS-TLS1.1", "VERS-TLS1.2", "VERS-TLS1.3"};
    size_t o = (size_t)snprintf(wc->priorities, sizeof(wc->priorities), "NORMAL:-VERS-ALL");
    for (int v = (int)wc->max_version; v >= (int)wc->min_version; v--)
        o += (size_t)snprintf(wc->priorities + o, sizeof(wc->priorities) - o, ":+%s", vers[v]);
    snprintf(wc->priorities + o, sizeof(wc->priorities) - o, ":%%SERVER_PRECEDENCE");
}

static int parse_version(struct ctx *c, const yaml_node_t *n, const char *what, const char *v,
                         enum gm_webconfig_tls_version *out)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(v, version_names[i]) == 0) {
            *out = (enum gm_webconfig_tls_version)i;
            return 0;
        }
    }
    char q[96];
    return fail(c, n, "%s: %s is not one of TLS10, TLS11, TLS12, TLS13", what,
                quote(q, sizeof(q), v));
}

static int parse_tls(struct ctx *c, const yaml_node_t *section_key, const yaml_node_t *n)
{
    struct gm_webconfig *wc = c->wc;
    const char *val[N_TLS_KEYS] = {0};
    const yaml_node_t *at[N_TLS_KEYS] = {0}; /* the key node of each setting present */
    int is_map, r, prefer = 1;
    char q[96], d1[256], d2[256];

    if ((r = check_mapping(c, n, "tls_server_config", "a mapping", &is_map)))
        return r;
    if (!is_map || n->data.mapping.pairs.start == n->data.mapping.pairs.top)
        return 0; /* empty: no TLS */

    const yaml_node_t *k, *v;
    FOR_PAIRS(c, n, k, v)
    {
        size_t i;
        for (i = 0; i < sizeof(tls_refused) / sizeof(tls_refused[0]); i++)
            if (strcmp(scalar(k), tls_refused[i].key) == 0)
                return fail(c, k, "tls_server_config: %s", tls_refused[i].why);
        for (i = 0; i < N_TLS_KEYS; i++)
            if (strcmp(scalar(k), tls_key_names[i]) == 0)
                break;
        if (i == N_TLS_KEYS)
            return fail(c, k, "tls_server_config: unknown key %s", quote(q, sizeof(q), scalar(k)));
        at[i] = k;
        if (i == K_PREFER_SERVER)
            r = get_bool(c, v, "prefer_server_cipher_suites", &prefer);
        else
            r = get_string(c, v, tls_key_names[i], &val[i]);
        if (r)
            return r;
    }
    (void)prefer; /* ignored: GnuTLS always gets %SERVER_PRECEDENCE */
    wc->tls = 1;

    /* Which settings go together. */
    static const int pairs[][2] = {{K_CERT_FILE, K_CERT}, {K_KEY_FILE, K_KEY}, {K_CA_FILE, K_CA}};
    for (size_t i = 0; i < 3; i++) {
        int f = pairs[i][0], s = pairs[i][1];
        if (val[f] && val[s])
            return fail(c, at[s], "tls_server_config: %s and %s are both set; use one",
                        tls_key_names[f], tls_key_names[s]);
    }
    if (!val[K_CERT_FILE] && !val[K_CERT])
        return fail(c, section_key, "tls_server_config: missing cert_file (or cert)");
    if (!val[K_KEY_FILE] && !val[K_KEY])
        return fail(c, section_key, "tls_server_config: missing key_file (or key)");

    wc->client_auth = GM_WEBCONFIG_NO_CLIENT_CERT;
    if (val[K_CLIENT_AUTH]) {
        size_t i;
        for (i = 0; i < 5; i++)
            if (strcmp(val[K_CLIENT_AUTH], client_auth_names[i]) == 0)
                break;
        if (i < 5)
            wc->client_auth = (enum gm_webconfig_client_auth)i;
        else if (strcmp(val[K_CLIENT_AUTH], "RequireClientCert") == 0) /* the toolkit's alias */
            wc->client_auth = GM_WEBCONFIG_REQUIRE_ANY_CLIENT_CERT;
        else
            return fail(c, at[K_CLIENT_AUTH],
                        "client_auth_type: %s is not one of NoClientCert, RequestClientCert, "
                        "RequireAnyClientCert, VerifyClientCertIfGiven, "
                        "RequireAndVerifyClientCert",
                        quote(q, sizeof(q), val[K_CLIENT_AUTH]));
    }
    int has_ca = val[K_CA_FILE] || val[K_CA];
    int ca_key = val[K_CA_FILE] ? K_CA_FILE : K_CA;
    if (has_ca && wc->client_auth == GM_WEBCONFIG_NO_CLIENT_CERT)
        return fail(c, at[ca_key],
                    "tls_server_config: %s is set but client_auth_type is NoClientCert; set "
                    "client_auth_type (RequireAndVerifyClientCert is the secure choice)",
                    tls_key_names[ca_key]);
    if (!has_ca && wc->client_auth >= GM_WEBCONFIG_REQUIRE_ANY_CLIENT_CERT)
        return fail(c, at[K_CLIENT_AUTH],
                    "client_auth_type %s needs client_ca_file (or client_ca)%s",
                    client_auth_names[wc->client_auth],
                    wc->client_auth == GM_WEBCONFIG_REQUIRE_ANY_CLIENT_CERT
                        ? ": libmicrohttpd asks clients for a certificate only when it has "
                          "CAs to name"
                        : "");

    wc->min_version = GM_WEBCONFIG_TLS12;
    wc->max_version = GM_WEBCONFIG_TLS13;
    if (val[K_MIN_VERSION] && (r = parse_version(c, at[K_MIN_VERSION], "min_version",
                                                 val[K_MIN_VERSION], &wc->min_version)))
        return r;
    if (val[K_MAX_VERSION] && (r = parse_version(c, at[K_MAX_VERSION], "max_version",
                                                 val[K_MAX_VERSION], &wc->max_version)))
        return r;
    if (wc->min_version > wc->max_version)
        return fail(c, at[K_MIN_VERSION] ? at[K_MIN_VERSION] : at[K_MAX_VERSION],
                    "tls_server_config: min_version %s is above max_version %s",
                    version_names[wc->min_version], version_names[wc->max_version]);

    /* The files: read once, checked, kept in memory for libmicrohttpd. */
    int kc = val[K_CERT_FILE] ? K_CERT_FILE : K_CERT;
    int kk = val[K_KEY_FILE] ? K_KEY_FILE : K_KEY;
    if ((r = load_pem(c, at[kc], tls_key_names[kc], val[K_CERT_FILE], val[K_CERT], &wc->cert_pem,
                      &wc->cert_file)))
        return r;
    if ((r = load_pem(c, at[kk], tls_key_names[kk], val[K_KEY_FILE], val[K_KEY], &wc->key_pem,
                      &wc->key_file)))
        return r;
    source_desc(d1, sizeof(d1), tls_key_names[kc], wc->cert_file);
    source_desc(d2, sizeof(d2), tls_key_names[kk], wc->key_file);
    if ((r = check_certs(c, at[kc], d1, wc->cert_pem)))
        return r;
    if ((r = check_key(c, at[kk], d2, wc->key_pem)))
        return r;

    gnutls_certificate_credentials_t cred;
    if (gnutls_certificate_allocate_credentials(&cred) < 0)
        gm_oom();
    gnutls_datum_t cd = {(unsigned char *)wc->cert_pem, (unsigned)strlen(wc->cert_pem)};
    gnutls_datum_t kd = {(unsigned char *)wc->key_pem, (unsigned)strlen(wc->key_pem)};
    int g = gnutls_certificate_set_x509_key_mem2(cred, &cd, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (g == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
        r = fail(c, at[kk], "%s does not match the certificate in %s", d2, d1);
    else if (g < 0)
        r = fail(c, at[kc], "%s and %s: GnuTLS cannot use them: %s", d1, d2, gnutls_strerror(g));

    if (!r && has_ca) {
        r = load_pem(c, at[ca_key], tls_key_names[ca_key], val[K_CA_FILE], val[K_CA], &wc->ca_pem,
                     &wc->ca_file);
        if (!r) {
            source_desc(d1, sizeof(d1), tls_key_names[ca_key], wc->ca_file);
            r = check_certs(c, at[ca_key], d1, wc->ca_pem);
        }
        if (!r) {
            gnutls_datum_t ad = {(unsigned char *)wc->ca_pem, (unsigned)strlen(wc->ca_pem)};
            g = gnutls_certificate_set_x509_trust_mem(cred, &ad, GNUTLS_X509_FMT_PEM);
            if (g <= 0)
                r = fail(c, at[ca_key], "%s: GnuTLS cannot use it as a trust list: %s", d1,
                         g < 0 ? gnutls_strerror(g) : "no certificates");
        }
    }
    gnutls_certificate_free_credentials(cred);
    if (r)
        return r;

    build_priorities(wc);
    gnutls_priority_t prio;
    const char *errpos = NULL;
    g = gnutls_priority_init2(&prio, wc->priorities, &errpos, 0);
    if (g < 0)
        return fail(c, at[K_MIN_VERSION] ? at[K_MIN_VERSION] : section_key,
                    "tls_server_config: GnuTLS rejects the priority string %s: %s",
                    quote(q, sizeof(q), wc->priorities), gnutls_strerror(g));
    gnutls_priority_deinit(prio);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* http_server_config                                                        */

static const struct {
    const char *name;
    const char *values; /* allowed values, '|'-separated, or NULL for any */
} allowed_headers[N_ALLOWED_HEADERS] = {
    {"Content-Security-Policy", NULL},     {"X-Frame-Options", "deny|sameorigin"},
    {"X-Content-Type-Options", "nosniff"}, {"X-XSS-Protection", NULL},
    {"Strict-Transport-Security", NULL},
};

static int parse_headers(struct ctx *c, const yaml_node_t *n)
{
    struct gm_webconfig *wc = c->wc;
    int is_map, r;
    char q[96], q2[96];
    if ((r = check_mapping(c, n, "headers", "a mapping of header: value", &is_map)) || !is_map)
        return r;
    const yaml_node_t *k, *v;
    FOR_PAIRS(c, n, k, v)
    {
        const char *name = scalar(k);
        size_t i;
        for (i = 0; i < N_ALLOWED_HEADERS; i++)
            if (strcmp(name, allowed_headers[i].name) == 0)
                break;
        if (i == N_ALLOWED_HEADERS) {
            for (i = 0; i < N_ALLOWED_HEADERS; i++)
                if (strcasecmp(name, allowed_headers[i].name) == 0)
                    return fail(c, k, "headers: %s can not be configured; did you mean %s?",
                                quote(q, sizeof(q), name), allowed_headers[i].name);
            return fail(c, k,
                        "headers: %s can not be configured (allowed: Content-Security-Policy, "
                        "X-Frame-Options, X-Content-Type-Options, X-XSS-Protection, "
                        "Strict-Transport-Security)",
                        quote(q, sizeof(q), name));
        }
        const char *value;
        if ((r = get_string(c, v, name, &value)))
            return r;
        if (!value)
            return fail(c, k, "headers: %s has no value", name);
        for (const unsigned char *s = (const unsigned char *)value; *s; s++)
            if ((*s < 0x20 && *s != '\t') || *s == 0x7f)
                return fail(c, v, "headers: the value of %s contains a control character", name);
        if (allowed_headers[i].values && gm_text_choice(allowed_headers[i].values, value, 1) < 0)
            return fail(c, v, "headers: %s must be %s, not %s", name,
                        strchr(allowed_headers[i].values, '|') ? "deny or sameorigin"
                                                               : allowed_headers[i].values,
                        quote(q2, sizeof(q2), value));
        wc->headers[wc->n_headers].name = gm_xstrdup(allowed_headers[i].name);
        wc->headers[wc->n_headers].value = gm_xstrdup(value);
        wc->n_headers++;
    }
    return 0;
}

static int parse_http(struct ctx *c, const yaml_node_t *n)
{
    int is_map, r, http2 = 1;
    char q[96];
    if ((r = check_mapping(c, n, "http_server_config", "a mapping", &is_map)) || !is_map)
        return r;
    const yaml_node_t *k, *v;
    FOR_PAIRS(c, n, k, v)
    {
        if (strcmp(scalar(k), "headers") == 0)
            r = parse_headers(c, v);
        else if (strcmp(scalar(k), "http2") == 0)
            r = get_bool(c, v, "http2", &http2); /* ignored: gpumon serves HTTP/1.1 */
        else
            r = fail(c, k, "http_server_config: unknown key %s", quote(q, sizeof(q), scalar(k)));
        if (r)
            return r;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* basic_auth_users                                                          */

static int bcrypt_char(unsigned char ch)
{
    return ch == '.' || ch == '/' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
           (ch >= '0' && ch <= '9');
}

/* Checks that h is a bcrypt hash as htpasswd -B, Go's bcrypt and libxcrypt
 * write it: $2y$, $2b$ or $2a$, a two-digit cost 04-31, '$', then 22
 * characters of salt and 31 of hash in bcrypt's base64 alphabet.  Returns 0
 * and the cost, or -1 with *why set, or -2 for a cost out of range. */
static int bcrypt_parse(const char *h, int *cost, const char **why)
{
    size_t n = strlen(h);
    if (n < 7 || h[0] != '$' || h[1] != '2' || (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') ||
        h[3] != '$') {
        *why = "not a bcrypt hash (those start with $2y$, $2b$ or $2a$)";
        return -1;
    }
    if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$') {
        *why = "not a bcrypt hash (the cost must be two digits, as in $2y$10$)";
        return -1;
    }
    *cost = (h[4] - '0') * 10 + (h[5] - '0');
    if (n != BCRYPT_LEN) {
        *why = "not a bcrypt hash (it must be 60 characters long)";
        return -1;
    }
    for (size_t i = 7; i < n; i++) {
        if (!bcrypt_char((unsigned char)h[i])) {
            *why = "not a bcrypt hash (a character outside ./A-Za-z0-9)";
            return -1;
        }
    }
    if (*cost < 4 || *cost > 31)
        return -2;
    if (crypt_checksalt(h) != CRYPT_SALT_OK) {
        *why = "this libcrypt refuses the hash";
        return -1;
    }
    return 0;
}

static int parse_users(struct ctx *c, const yaml_node_t *n)
{
    struct gm_webconfig *wc = c->wc;
    int is_map, r;
    char q[96];
    if ((r = check_mapping(c, n, "basic_auth_users", "a mapping of user: bcrypt hash", &is_map)) ||
        !is_map)
        return r;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    wc->users = gm_xcalloc(count, sizeof(*wc->users));
    const yaml_node_t *k, *v;
    FOR_PAIRS(c, n, k, v)
    {
        const char *user = scalar(k), *hash;
        quote(q, sizeof(q), user);
        if (!*user)
            return fail(c, k, "basic_auth_users: a user name is empty");
        for (const unsigned char *s = (const unsigned char *)user; *s; s++) {
            if (*s == ':')
                return fail(c, k,
                            "basic_auth_users: user %s contains ':', which basic auth cannot "
                            "carry in a user name",
                            q);
            if (*s < 0x20 || *s == 0x7f)
                return fail(c, k, "basic_auth_users: user %s contains a control character", q);
        }
        if ((r = get_string(c, v, "basic_auth_users", &hash)))
            return r;
        if (!hash)
            return fail(c, k, "basic_auth_users: user %s has no password hash", q);
        int cost = 0;
        const char *why = NULL;
        int b = bcrypt_parse(hash, &cost, &why);
        if (b == -2)
            return fail(c, v, "basic_auth_users: user %s: bcrypt cost %d is outside 4-31", q, cost);
        if (b)
            return fail(c, v,
                        "basic_auth_users: user %s: %s; make one with: htpasswd -nBC 10 \"\" | "
                        "tr -d ':\\n'",
                        q, why);
        wc->users[wc->n_users].name = gm_xstrdup(user);
        wc->users[wc->n_users].hash = gm_xstrdup(hash);
        wc->n_users++;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */

static int parse_root(struct ctx *c, const yaml_node_t *root)
{
    int is_map, r;
    char q[96];
    if (check_tag(c, root))
        return GM_E_INVAL;
    if (is_null(root))
        return 0;
    if (root->type != YAML_MAPPING_NODE)
        return fail(c, root,
                    "expected a mapping of tls_server_config, http_server_config and "
                    "basic_auth_users, got %s",
                    kind_name(root));
    if ((r = check_mapping(c, root, "web config", "a mapping", &is_map)))
        return r;
    const yaml_node_t *k, *v;
    FOR_PAIRS(c, root, k, v)
    {
        const char *key = scalar(k);
        if (strcmp(key, "tls_server_config") == 0)
            r = parse_tls(c, k, v);
        else if (strcmp(key, "http_server_config") == 0)
            r = parse_http(c, v);
        else if (strcmp(key, "basic_auth_users") == 0)
            r = parse_users(c, v);
        else if (strcmp(key, "rate_limit") == 0)
            r = fail(c, k,
                     "rate_limit is not supported by gpumon; limit requests in a reverse "
                     "proxy instead");
        else
            r = fail(c, k,
                     "unknown key %s (expected tls_server_config, http_server_config or "
                     "basic_auth_users)",
                     quote(q, sizeof(q), key));
        if (r)
            return r;
    }
    return 0;
}

/* Reports a libyaml failure as "PATH:LINE: invalid YAML: ...". */
static int yaml_fail(struct ctx *c, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR)
        gm_oom();
    const char *problem = p->problem ? p->problem : "syntax error";
    if (p->error == YAML_READER_ERROR)
        return fail(c, NULL, "invalid YAML: %s at byte %zu", problem, p->problem_offset);
    unsigned long line = (unsigned long)p->problem_mark.line + 1;
    if (p->context)
        return gm_err_set(c->err, GM_E_INVAL, "%s:%lu: invalid YAML: %s (%s on line %lu)", c->path,
                          line, problem, p->context, (unsigned long)p->context_mark.line + 1);
    return gm_err_set(c->err, GM_E_INVAL, "%s:%lu: invalid YAML: %s", c->path, line, problem);
}

/* libyaml's scanner costs time in proportion to the open flow levels for
 * every token, and its loader looks up every alias among all anchors, so a
 * file well under MAX_CONFIG_BYTES can keep yaml_parser_load busy for
 * minutes (100000 '[' take 16 s).  This pass reads the file's events, which
 * costs time in proportion to its size, and refuses more than MAX_DEPTH
 * levels of nesting and more than MAX_ANCHORS anchors before the loader
 * sees the file.  YAML errors are left to the loader, which words them the
 * same way. */
static int check_shape(struct ctx *c, const char *text, size_t len)
{
    yaml_parser_t p;
    yaml_event_t e;
    if (!yaml_parser_initialize(&p))
        gm_oom();
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int depth = 0, anchors = 0, r = 0;
    while (!r && yaml_parser_parse(&p, &e)) {
        unsigned long line = (unsigned long)e.start_mark.line + 1;
        const yaml_char_t *anchor = NULL;
        yaml_event_type_t type = e.type;
        if (type == YAML_SEQUENCE_START_EVENT)
            anchor = e.data.sequence_start.anchor;
        else if (type == YAML_MAPPING_START_EVENT)
            anchor = e.data.mapping_start.anchor;
        else if (type == YAML_SCALAR_EVENT)
            anchor = e.data.scalar.anchor;
        if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
            if (++depth > MAX_DEPTH)
                r = gm_err_set(c->err, GM_E_INVAL,
                               "%s:%lu: nested deeper than %d levels (lists and mappings)", c->path,
                               line, MAX_DEPTH);
        } else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        if (!r && anchor && ++anchors > MAX_ANCHORS)
            r = gm_err_set(c->err, GM_E_INVAL, "%s:%lu: more than %d anchors (&NAME)", c->path,
                           line, MAX_ANCHORS);
        if (type == YAML_SCALAR_EVENT) /* inline keys must not linger in freed memory */
            explicit_bzero(e.data.scalar.value, e.data.scalar.length);
        yaml_event_delete(&e);
        if (type == YAML_STREAM_END_EVENT)
            break;
    }
    if (p.error == YAML_MEMORY_ERROR)
        gm_oom();
    yaml_parser_delete(&p);
    return r;
}

/* Overwrites every scalar in doc: inline keys must not linger in freed memory. */
static void wipe_document(yaml_document_t *doc)
{
    for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++)
        if (n->type == YAML_SCALAR_NODE)
            explicit_bzero(n->data.scalar.value, n->data.scalar.length);
}

int gm_webconfig_load(const char *path, struct gm_webconfig **out, struct gm_err *err)
{
    *out = NULL;
    struct ctx c = {.path = path, .err = err};
    char *text = NULL;
    size_t len = 0;
    int r = read_small_file(path, MAX_CONFIG_BYTES, &text, &len);
    if (r == READ_NOT_REGULAR)
        return gm_err_set(err, GM_E_INVAL, "%s: not a regular file", path);
    if (r == READ_TOO_BIG)
        return gm_err_set(err, GM_E_INVAL, "%s: larger than %d bytes; not a web config", path,
                          MAX_CONFIG_BYTES);
    if (r)
        return gm_err_set(err, GM_E_IO, "%s: %s", path, strerror(r));

    const char *slash = strrchr(path, '/');
    if (slash)
        c.dir = gm_xstrndup(path, (size_t)(slash - path) + 1);
    c.wc = gm_xcalloc(1, sizeof(*c.wc));
    c.wc->min_version = GM_WEBCONFIG_TLS12;
    c.wc->max_version = GM_WEBCONFIG_TLS13;
    build_priorities(c.wc); /* the defaults, for a config without TLS */

    yaml_parser_t parser;
    yaml_document_t doc, next;
    if (!yaml_parser_initialize(&parser))
        gm_oom();
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if ((r = check_shape(&c, text, len)) != 0) {
        /* refused before the loader */
    } else if (!yaml_parser_load(&parser, &doc)) {
        r = yaml_fail(&c, &parser);
    } else {
        c.doc = &doc;
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        r = root ? parse_root(&c, root) : 0;
        if (!r && root) {
            /* One document only: a second one would be silently ignored. */
            if (!yaml_parser_load(&parser, &next)) {
                r = yaml_fail(&c, &parser);
            } else {
                yaml_node_t *second = yaml_document_get_root_node(&next);
                if (second)
                    r = fail(&c, second, "a second YAML document; the web config is one document");
                wipe_document(&next);
                yaml_document_delete(&next);
            }
        }
        wipe_document(&doc);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    explicit_bzero(text, len);
    free(text);
    free(c.dir);
    if (r) {
        gm_webconfig_free(c.wc);
        return r;
    }
    *out = c.wc;
    return 0;
}

void gm_webconfig_free(struct gm_webconfig *wc)
{
    if (!wc)
        return;
    free(wc->cert_pem);
    wipe_free(wc->key_pem);
    free(wc->ca_pem);
    free(wc->cert_file);
    free(wc->key_file);
    free(wc->ca_file);
    for (size_t i = 0; i < wc->n_headers; i++) {
        free(wc->headers[i].name);
        free(wc->headers[i].value);
    }
    for (size_t i = 0; i < wc->n_users; i++) {
        free(wc->users[i].name);
        wipe_free(wc->users[i].hash);
    }
    free(wc->users);
    free(wc);
}

/* ------------------------------------------------------------------------ */
/* Accessors                                                                 */

int gm_webconfig_tls(const struct gm_webconfig *wc)
{
    return wc->tls;
}

const char *gm_webconfig_cert_pem(const struct gm_webconfig *wc)
{
    return wc->cert_pem;
}

const char *gm_webconfig_key_pem(const struct gm_webconfig *wc)
{
    return wc->key_pem;
}

const char *gm_webconfig_client_ca_pem(const struct gm_webconfig *wc)
{
    return wc->ca_pem;
}

const char *gm_webconfig_cert_file(const struct gm_webconfig *wc)
{
    return wc->cert_file;
}

const char *gm_webconfig_key_file(const struct gm_webconfig *wc)
{
    return wc->key_file;
}

const char *gm_webconfig_client_ca_file(const struct gm_webconfig *wc)
{
    return wc->ca_file;
}

const char *gm_webconfig_tls_priorities(const struct gm_webconfig *wc)
{
    return wc->priorities;
}

enum gm_webconfig_tls_version gm_webconfig_min_version(const struct gm_webconfig *wc)
{
    return wc->min_version;
}

enum gm_webconfig_tls_version gm_webconfig_max_version(const struct gm_webconfig *wc)
{
    return wc->max_version;
}

enum gm_webconfig_client_auth gm_webconfig_client_auth(const struct gm_webconfig *wc)
{
    return wc->client_auth;
}

const char *gm_webconfig_client_auth_name(enum gm_webconfig_client_auth a)
{
    if ((unsigned)a >= sizeof(client_auth_names) / sizeof(client_auth_names[0]))
        return "?";
    return client_auth_names[a];
}

size_t gm_webconfig_header_count(const struct gm_webconfig *wc)
{
    return wc->n_headers;
}

int gm_webconfig_header(const struct gm_webconfig *wc, size_t i, const char **name,
                        const char **value)
{
    if (i >= wc->n_headers)
        return -1;
    *name = wc->headers[i].name;
    *value = wc->headers[i].value;
    return 0;
}

int gm_webconfig_basic_auth(const struct gm_webconfig *wc)
{
    return wc->n_users > 0;
}

size_t gm_webconfig_user_count(const struct gm_webconfig *wc)
{
    return wc->n_users;
}

static int str_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int gm_webconfig_tls_equal(const struct gm_webconfig *a, const struct gm_webconfig *b)
{
    int ta = a && a->tls, tb = b && b->tls;
    if (!ta || !tb)
        return ta == tb;
    return str_same(a->cert_pem, b->cert_pem) && str_same(a->key_pem, b->key_pem) &&
           str_same(a->ca_pem, b->ca_pem) && a->client_auth == b->client_auth &&
           strcmp(a->priorities, b->priorities) == 0;
}

int gm_webconfig_equal(const struct gm_webconfig *a, const struct gm_webconfig *b)
{
    static const struct gm_webconfig none; /* NULL: no TLS, no headers, no users */
    if (!a)
        a = &none;
    if (!b)
        b = &none;
    if (!gm_webconfig_tls_equal(a, b) || a->n_headers != b->n_headers || a->n_users != b->n_users)
        return 0;
    for (size_t i = 0; i < a->n_headers; i++)
        if (strcmp(a->headers[i].name, b->headers[i].name) != 0 ||
            strcmp(a->headers[i].value, b->headers[i].value) != 0)
            return 0;
    for (size_t i = 0; i < a->n_users; i++)
        if (strcmp(a->users[i].name, b->users[i].name) != 0 ||
            strcmp(a->users[i].hash, b->users[i].hash) != 0)
            return 0;
    return 1;
}

int gm_webconfig_check_client_cert(const struct gm_webconfig *wc, void *tls_session,
                                   struct gm_err *err)
{
    enum gm_webconfig_client_auth a = wc->client_auth;
    if (!wc->tls || a == GM_WEBCONFIG_NO_CLIENT_CERT || a == GM_WEBCONFIG_REQUEST_CLIENT_CERT)
        return 0;
    gnutls_session_t s = tls_session;
    if (!s)
        return gm_err_set(err, GM_E_NOPERM, "not a TLS connection");
    unsigned n = 0;
    const gnutls_datum_t *peers = gnutls_certificate_get_peers(s, &n);
    if (!peers || n == 0) {
        if (a == GM_WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN)
            return 0;
        return gm_err_set(err, GM_E_NOPERM, "the client sent no certificate (client_auth_type %s)",
                          client_auth_names[a]);
    }
    if (a == GM_WEBCONFIG_REQUIRE_ANY_CLIENT_CERT)
        return 0;
    gnutls_typed_vdata_st purpose = {
        .type = GNUTLS_DT_KEY_PURPOSE_OID,
        .data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
        .size = 0,
    };
    unsigned status = 0;
    int r = gnutls_certificate_verify_peers(s, &purpose, 1, &status);
    if (r < 0)
        return gm_err_set(err, GM_E_NOPERM, "client certificate not verified: %s",
                          gnutls_strerror(r));
    if (status != 0) {
        gnutls_datum_t txt = {NULL, 0};
        if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &txt, 0) < 0)
            return gm_err_set(err, GM_E_NOPERM, "client certificate rejected (status 0x%x)",
                              status);
        gm_err_set(err, GM_E_NOPERM, "client certificate rejected: %s", (const char *)txt.data);
        gnutls_free(txt.data);
        return GM_E_NOPERM;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Basic auth                                                                */

struct gm_auth {
    struct wc_user *users;
    size_t n_users;
    char dummy[BCRYPT_LEN + 1]; /* for unknown users: the highest configured cost */
    unsigned char salt[AUTH_SALT_LEN];

    pthread_mutex_t cache_mu; /* guards cache, cache_next, cache_len */
    unsigned char cache[AUTH_CACHE_SIZE][SHA256_LEN];
    size_t cache_next, cache_len;

    struct gm_auth_stats stats; /* updated with __atomic builtins */
};

#define STAT_INC(a, f) __atomic_fetch_add(&(a)->stats.f, 1, __ATOMIC_RELAXED)

int gm_auth_new(const struct gm_webconfig *wc, struct gm_auth **out, struct gm_err *err)
{
    return gm_auth_renew(wc, NULL, out, err);
}

int gm_auth_renew(const struct gm_webconfig *wc, struct gm_auth *prev, struct gm_auth **out,
                  struct gm_err *err)
{
    *out = NULL;
    struct gm_auth *a = gm_xcalloc(1, sizeof(*a));
    int max_cost = 0;
    a->users = gm_xcalloc(wc->n_users, sizeof(*a->users));
    for (size_t i = 0; i < wc->n_users; i++) {
        a->users[i].name = gm_xstrdup(wc->users[i].name);
        a->users[i].hash = gm_xstrdup(wc->users[i].hash);
        int cost = (wc->users[i].hash[4] - '0') * 10 + (wc->users[i].hash[5] - '0');
        if (cost > max_cost)
            max_cost = cost;
    }
    a->n_users = wc->n_users;
    if (max_cost == 0)
        max_cost = 10;

    unsigned char rnd[16];
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    int g = gnutls_rnd(GNUTLS_RND_KEY, a->salt, sizeof(a->salt));
    if (g >= 0)
        g = gnutls_rnd(GNUTLS_RND_NONCE, rnd, sizeof(rnd));
    if (g < 0) {
        gm_auth_free(a);
        return gm_err_set(err, GM_E_IO, "basic auth: no random bytes: %s", gnutls_strerror(g));
    }
    if (!crypt_gensalt_rn("$2y$", (unsigned long)max_cost, (const char *)rnd, (int)sizeof(rnd),
                          setting, (int)sizeof(setting)) ||
        strlen(setting) != BCRYPT_SETTING) {
        gm_auth_free(a);
        return gm_err_set(err, GM_E_INVAL, "basic auth: libcrypt cannot make a bcrypt salt");
    }
    /* The hash part is never compared for an unknown user; any valid
     * characters do. */
    memcpy(a->dummy, setting, BCRYPT_SETTING);
    memset(a->dummy + BCRYPT_SETTING, '.', BCRYPT_LEN - BCRYPT_SETTING);
    a->dummy[BCRYPT_LEN] = '\0';

    pthread_mutex_init(&a->cache_mu, NULL);
    if (prev) {
        /* A key binds the user, the password and the stored hash: one made
         * by prev still means "verified" here when the user is still there
         * with the same hash, and can never match otherwise. */
        memcpy(a->salt, prev->salt, sizeof(a->salt));
        pthread_mutex_lock(&prev->cache_mu);
        memcpy(a->cache, prev->cache, sizeof(a->cache));
        a->cache_next = prev->cache_next;
        a->cache_len = prev->cache_len;
        pthread_mutex_unlock(&prev->cache_mu);
    }
    *out = a;
    return 0;
}

void gm_auth_free(struct gm_auth *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_users; i++) {
        free(a->users[i].name);
        wipe_free(a->users[i].hash);
    }
    free(a->users);
    pthread_mutex_destroy(&a->cache_mu);
    explicit_bzero(a, sizeof(*a));
    free(a);
}

void gm_auth_stats(struct gm_auth *a, struct gm_auth_stats *st)
{
    st->checks = __atomic_load_n(&a->stats.checks, __ATOMIC_RELAXED);
    st->allowed = __atomic_load_n(&a->stats.allowed, __ATOMIC_RELAXED);
    st->malformed = __atomic_load_n(&a->stats.malformed, __ATOMIC_RELAXED);
    st->cache_hits = __atomic_load_n(&a->stats.cache_hits, __ATOMIC_RELAXED);
    st->bcrypt_calls = __atomic_load_n(&a->stats.bcrypt_calls, __ATOMIC_RELAXED);
}

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

/* Decodes standard padded base64 (RFC 4648 section 4, no whitespace) of len
 * characters into out (len / 4 * 3 bytes available).  Returns the decoded
 * length or -1. */
static long b64_decode(const char *in, size_t len, unsigned char *out)
{
    if (len == 0 || len % 4 != 0)
        return -1;
    size_t pad = 0;
    if (in[len - 1] == '=')
        pad = in[len - 2] == '=' ? 2 : 1;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int last = i + 4 == len;
        unsigned long w = 0;
        for (size_t j = 0; j < 4; j++) {
            int v = 0;
            if (!(last && j >= 4 - pad)) {
                v = b64_value((unsigned char)in[i + j]);
                if (v < 0)
                    return -1;
            }
            w = (w << 6) | (unsigned long)v;
        }
        out[o++] = (unsigned char)(w >> 16);
        if (!(last && pad == 2))
            out[o++] = (unsigned char)(w >> 8);
        if (!(last && pad >= 1))
            out[o++] = (unsigned char)w;
    }
    return (long)o;
}

/* The layout of the buffer a check works in: the cache key's input is
 * salt, user, NUL, password, NUL, stored hash, in one piece. */
struct auth_work {
    unsigned char buf[AUTH_SALT_LEN + AUTH_MAX_DECODED + 1 + BCRYPT_LEN + 1];
    size_t user_len, pass_len;
};
#define WORK_CRED(w) ((char *)(w)->buf + AUTH_SALT_LEN)

/* Parses "Basic <base64(user:password)>" into w: user and password NUL-
 * terminated at WORK_CRED(w).  Returns 0, or -1 when malformed. */
static int parse_basic(const char *h, struct auth_work *w)
{
    if (!h)
        return -1;
    while (*h == ' ' || *h == '\t')
        h++;
    if (strncasecmp(h, "Basic", 5) != 0 || h[5] != ' ')
        return -1;
    h += 5;
    while (*h == ' ')
        h++;
    size_t len = strnlen(h, AUTH_MAX_TOKEN + 64);
    while (len > 0 && (h[len - 1] == ' ' || h[len - 1] == '\t'))
        len--;
    if (len == 0 || len > AUTH_MAX_TOKEN)
        return -1;
    unsigned char *cred = (unsigned char *)WORK_CRED(w);
    long n = b64_decode(h, len, cred);
    if (n < 0 || memchr(cred, '\0', (size_t)n))
        return -1;
    unsigned char *colon = memchr(cred, ':', (size_t)n);
    if (!colon || colon == cred)
        return -1;
    *colon = '\0';
    cred[n] = '\0';
    w->user_len = (size_t)(colon - cred);
    w->pass_len = (size_t)n - w->user_len - 1;
    return 0;
}

/* The configured user named by w, or NULL; looks at every user. */
static const struct wc_user *find_user(const struct gm_auth *a, const struct auth_work *w)
{
    const struct wc_user *found = NULL;
    for (size_t i = 0; i < a->n_users; i++) {
        const struct wc_user *u = &a->users[i];
        if (strlen(u->name) == w->user_len && ct_equal(u->name, WORK_CRED(w), w->user_len))
            found = u;
    }
    return found;
}

static int cache_has(struct gm_auth *a, const unsigned char *key)
{
    int hit = 0;
    pthread_mutex_lock(&a->cache_mu);
    for (size_t i = 0; i < a->cache_len; i++)
        hit |= ct_equal(a->cache[i], key, SHA256_LEN);
    pthread_mutex_unlock(&a->cache_mu);
    return hit;
}

static void cache_add(struct gm_auth *a, const unsigned char *key)
{
    pthread_mutex_lock(&a->cache_mu);
    for (size_t i = 0; i < a->cache_len; i++) {
        if (ct_equal(a->cache[i], key, SHA256_LEN)) { /* another thread was first */
            pthread_mutex_unlock(&a->cache_mu);
            return;
        }
    }
    memcpy(a->cache[a->cache_next], key, SHA256_LEN); /* overwrites the oldest when full */
    a->cache_next = (a->cache_next + 1) % AUTH_CACHE_SIZE;
    if (a->cache_len < AUTH_CACHE_SIZE)
        a->cache_len++;
    pthread_mutex_unlock(&a->cache_mu);
}

/* What gm_auth_begin leaves for gm_auth_verify: the decoded credentials
 * (in w), the hash to check them against and the cache key. */
struct gm_auth_pending {
    struct auth_work w;
    const char *hash; /* the user's, or the dummy for an unknown user */
    int known;        /* the user exists */
    int have_key;
    unsigned char key[SHA256_LEN];
};

void gm_auth_pending_free(struct gm_auth_pending *p)
{
    if (!p)
        return;
    explicit_bzero(p, sizeof(*p));
    free(p);
}

enum gm_auth_verdict gm_auth_begin(struct gm_auth *a, const char *authorization,
                                   struct gm_auth_pending **pending)
{
    *pending = NULL;
    STAT_INC(a, checks);
    struct gm_auth_pending *p = gm_xmalloc(sizeof(*p));
    if (parse_basic(authorization, &p->w) != 0) {
        STAT_INC(a, malformed);
        gm_auth_pending_free(p);
        return GM_AUTH_DENY;
    }
    const struct wc_user *u = find_user(a, &p->w);
    p->known = u != NULL;
    p->hash = u ? u->hash : a->dummy;

    /* Cache key: SHA-256(salt || user || NUL || password || NUL || hash). */
    size_t cred_len = p->w.user_len + 1 + p->w.pass_len + 1;
    memcpy(p->w.buf, a->salt, AUTH_SALT_LEN);
    memcpy(p->w.buf + AUTH_SALT_LEN + cred_len, p->hash, BCRYPT_LEN);
    p->have_key = gnutls_hash_fast(GNUTLS_DIG_SHA256, p->w.buf,
                                   AUTH_SALT_LEN + cred_len + BCRYPT_LEN, p->key) == 0;
    if (p->have_key && u && cache_has(a, p->key)) {
        STAT_INC(a, cache_hits);
        STAT_INC(a, allowed);
        gm_auth_pending_free(p);
        return GM_AUTH_ALLOW;
    }
    *pending = p;
    return GM_AUTH_VERIFY;
}

/* One bcrypt computation: whether password hashes to hash.  Only the 31
 * hash characters are compared: libxcrypt re-encodes a salt whose last
 * character carries stray bits, which Go's bcrypt would accept.  Each call
 * has its own crypt_data (32 KiB), so calls may run side by side. */
static int bcrypt_verify(struct gm_auth *a, const char *password, const char *hash)
{
    struct crypt_data *cd = gm_xcalloc(1, sizeof(*cd));
    STAT_INC(a, bcrypt_calls);
    const char *r = crypt_rn(password, hash, cd, (int)sizeof(*cd));
    int ok = r && strlen(r) == BCRYPT_LEN &&
             ct_equal(r + BCRYPT_SETTING, hash + BCRYPT_SETTING, BCRYPT_LEN - BCRYPT_SETTING);
    explicit_bzero(cd, sizeof(*cd));
    free(cd);
    return ok;
}

int gm_auth_verify(struct gm_auth *a, struct gm_auth_pending *p)
{
    const char *password = WORK_CRED(&p->w) + p->w.user_len + 1;
    int ok = bcrypt_verify(a, password, p->hash) && p->known;
    if (ok && p->have_key)
        cache_add(a, p->key);
    if (ok)
        STAT_INC(a, allowed);
    gm_auth_pending_free(p);
    return ok;
}

int gm_auth_check(struct gm_auth *a, const char *authorization)
{
    struct gm_auth_pending *p;
    enum gm_auth_verdict v = gm_auth_begin(a, authorization, &p);
    return v == GM_AUTH_VERIFY ? gm_auth_verify(a, p) : v == GM_AUTH_ALLOW;
}

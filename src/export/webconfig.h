/* webconfig.h -- the exporter's --web-config FILE: TLS, client certificates,
 * HTTP basic auth and extra response headers, in the YAML format of the
 * Prometheus exporter-toolkit (docs/web-configuration.md), so a file written
 * for node_exporter or dcgm-exporter works unchanged where gpumon supports
 * the setting, and fails loudly where it does not.
 *
 * Two objects:
 *
 *   gm_webconfig  the validated file: loaded once, immutable afterwards, so
 *                 any number of threads may read it.  Loading reads the
 *                 certificate, key and CA files into memory and checks them
 *                 with GnuTLS (the key must match the certificate), so what
 *                 was validated is exactly what the server hands to
 *                 libmicrohttpd, and a bad file stops the exporter at start
 *                 instead of failing every handshake.
 *   gm_auth       the basic-auth checker built from it: thread-safe, bcrypt
 *                 via libxcrypt, a cache of successful checks, unknown users
 *                 checked against a dummy hash so they cost the same time;
 *                 a check splits into a cheap half (the header, the cache)
 *                 and the bcrypt half, for the server to run elsewhere.
 *
 * Supported (exporter-toolkit keys; anything else is an error naming FILE:LINE):
 *
 *   tls_server_config:
 *     cert_file | cert          server certificate (chain), PEM; one of them
 *     key_file | key            its private key, PEM, unencrypted; one of them
 *     client_auth_type          NoClientCert (default) | RequestClientCert |
 *                               RequireAnyClientCert | VerifyClientCertIfGiven |
 *                               RequireAndVerifyClientCert (RequireClientCert is
 *                               the toolkit's old alias of RequireAnyClientCert)
 *     client_ca_file | client_ca  CA(s) for client certificates, PEM
 *     min_version, max_version  TLS10 | TLS11 | TLS12 | TLS13 (default 12 / 13)
 *     prefer_server_cipher_suites  accepted and ignored: GnuTLS is always told
 *                               to prefer the server's order (%SERVER_PRECEDENCE)
 *   http_server_config:
 *     headers                   Content-Security-Policy, X-Frame-Options (deny |
 *                               sameorigin), X-Content-Type-Options (nosniff),
 *                               X-XSS-Protection, Strict-Transport-Security
 *     http2                     accepted and ignored: gpumon serves HTTP/1.1
 *   basic_auth_users:           user: bcrypt hash ($2y$, $2b$ or $2a$, cost 4-31)
 *
 * Rejected with a message saying why, because ignoring them would quietly
 * weaken what the file asks for: cipher_suites, curve_preferences,
 * client_allowed_sans, rate_limit.
 *
 * Differences from exporter-toolkit, on purpose:
 *   - A tls_server_config with any key in it turns TLS on (and then needs a
 *     certificate and key); the toolkit silently serves plain HTTP when only,
 *     say, min_version is set.  An empty or null section means no TLS.
 *   - RequireAnyClientCert needs client_ca_file (or client_ca): libmicrohttpd
 *     asks clients for a certificate only when it has a trust list.  The
 *     certificate is then required but not verified, as in Go.
 *   - Duplicate keys are errors (a user listed twice is ambiguous).
 *   - The file is read once; the toolkit re-reads it on every request.  To
 *     pick up a new certificate or password, load again and swap.
 *
 * Limits, each refused with FILE:LINE (they keep libyaml's loader and the
 * duplicate-key check, both quadratic, from stalling a start): the file at
 * most 1 MiB, lists and mappings nested at most 64 deep, at most 64 anchors,
 * at most 4096 keys in one mapping (so at most 4096 users).
 *
 * Relative paths are relative to the directory of the config file, as in the
 * toolkit.  An empty file (or one with only comments) means no TLS, no auth.
 *
 * Secrets: the key PEM and the password hashes are never copied into error
 * messages, and the memory holding the key and passwords is wiped on free.
 */
#ifndef GM_EXPORT_WEBCONFIG_H
#define GM_EXPORT_WEBCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* client_auth_type.  What gpumon enforces for each is in
 * gm_webconfig_check_client_cert. */
enum gm_webconfig_client_auth {
    GM_WEBCONFIG_NO_CLIENT_CERT = 0,
    GM_WEBCONFIG_REQUEST_CLIENT_CERT,
    GM_WEBCONFIG_REQUIRE_ANY_CLIENT_CERT,
    GM_WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN,
    GM_WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

enum gm_webconfig_tls_version {
    GM_WEBCONFIG_TLS10 = 0,
    GM_WEBCONFIG_TLS11,
    GM_WEBCONFIG_TLS12,
    GM_WEBCONFIG_TLS13,
};

struct gm_webconfig;

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */

/* Reads and validates the web config at path.  On success returns 0 and sets
 * *out (free with gm_webconfig_free).  On failure returns GM_E_INVAL (bad
 * content, including unreadable or invalid certificate, key and CA files)
 * or GM_E_IO (the config file itself cannot be read), leaves *out NULL, and
 * puts "PATH:LINE: reason" in err ("PATH: reason" when there is no line).
 * Costs no bcrypt computation. */
int gm_webconfig_load(const char *path, struct gm_webconfig **out, struct gm_err *err);

/* Frees wc, wiping the private key; accepts NULL. */
void gm_webconfig_free(struct gm_webconfig *wc);

/* ------------------------------------------------------------------------ */
/* What the HTTP server needs.  Strings are owned by wc, valid until it is
 * freed, and NUL-terminated (libmicrohttpd's MHD_OPTION_HTTPS_MEM_* take
 * C strings). */

/* 1 when the server must speak TLS (a non-empty tls_server_config), else 0. */
int gm_webconfig_tls(const struct gm_webconfig *wc);

/* The certificate chain and key, PEM, for MHD_OPTION_HTTPS_MEM_CERT and
 * MHD_OPTION_HTTPS_MEM_KEY; NULL when TLS is off. */
const char *gm_webconfig_cert_pem(const struct gm_webconfig *wc);
const char *gm_webconfig_key_pem(const struct gm_webconfig *wc);

/* The client CA PEM for MHD_OPTION_HTTPS_MEM_TRUST, or NULL when none was
 * configured.  libmicrohttpd requests (never requires) a client certificate
 * exactly when a trust list is set; the per-mode decision is then
 * gm_webconfig_check_client_cert's. */
const char *gm_webconfig_client_ca_pem(const struct gm_webconfig *wc);

/* The resolved file names, for log lines; NULL when the PEM was inline or
 * the setting is absent. */
const char *gm_webconfig_cert_file(const struct gm_webconfig *wc);
const char *gm_webconfig_key_file(const struct gm_webconfig *wc);
const char *gm_webconfig_client_ca_file(const struct gm_webconfig *wc);

/* The GnuTLS priority string for MHD_OPTION_HTTPS_PRIORITIES: NORMAL limited
 * to min_version..max_version, server order preferred; e.g. the defaults give
 * "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE".  Checked
 * with gnutls_priority_init at load.  Never NULL. */
const char *gm_webconfig_tls_priorities(const struct gm_webconfig *wc);

enum gm_webconfig_tls_version gm_webconfig_min_version(const struct gm_webconfig *wc);
enum gm_webconfig_tls_version gm_webconfig_max_version(const struct gm_webconfig *wc);
enum gm_webconfig_client_auth gm_webconfig_client_auth(const struct gm_webconfig *wc);

/* The canonical name of a client auth type ("RequireAndVerifyClientCert"). */
const char *gm_webconfig_client_auth_name(enum gm_webconfig_client_auth a);

/* After the TLS handshake, decides whether the client's certificate satisfies
 * client_auth_type.  tls_session is the connection's gnutls_session_t
 * (MHD_get_connection_info(..., MHD_CONNECTION_INFO_GNUTLS_SESSION)), whose
 * credentials carry the trust list from gm_webconfig_client_ca_pem.  Returns
 * 0 when the request may go on, GM_E_NOPERM with the reason in err when not:
 *   NoClientCert, RequestClientCert   always 0
 *   RequireAnyClientCert              a certificate must have been sent
 *   VerifyClientCertIfGiven           if one was sent, it must verify
 *   RequireAndVerifyClientCert        one must be sent and verify
 * "Verify" means: chains to the client CAs, in its validity period, and
 * usable for TLS client authentication (extended key usage clientAuth or
 * none), as Go's crypto/tls checks.  Returns 0 when TLS is off.  The server
 * must refuse the request (403) on failure; doing so once per connection is
 * enough, as the peer's certificate does not change within a session. */
int gm_webconfig_check_client_cert(const struct gm_webconfig *wc, void *tls_session,
                                   struct gm_err *err);

/* Extra response headers, in file order; gm_webconfig_header returns 0 and
 * sets *name and *value for i < gm_webconfig_header_count, else -1.  Values
 * contain no control characters but tab, which HTTP allows in a value
 * (checked at load), so they are safe to pass to MHD_add_response_header as
 * they are. */
size_t gm_webconfig_header_count(const struct gm_webconfig *wc);
int gm_webconfig_header(const struct gm_webconfig *wc, size_t i, const char **name,
                        const char **value);

/* 1 when basic_auth_users lists at least one user: every request must then
 * pass gm_auth_check. */
int gm_webconfig_basic_auth(const struct gm_webconfig *wc);

/* Number of users in basic_auth_users. */
size_t gm_webconfig_user_count(const struct gm_webconfig *wc);

/* ------------------------------------------------------------------------ */
/* Comparing two loads (a reload decides what to restart).  NULL stands for
 * "no web config", the same as a file that configures nothing. */

/* 1 when a and b give the server the same TLS: both off, or the same
 * certificate chain, key and client CA contents (not file names), the same
 * client_auth_type and the same versions; else 0.  A listener must restart
 * exactly when this is 0. */
int gm_webconfig_tls_equal(const struct gm_webconfig *a, const struct gm_webconfig *b);

/* 1 when a and b are the same in everything the server uses: the TLS above,
 * the extra headers (in order) and the basic-auth users with their hashes. */
int gm_webconfig_equal(const struct gm_webconfig *a, const struct gm_webconfig *b);

/* ------------------------------------------------------------------------ */
/* Basic auth                                                                */

struct gm_auth;

/* Counters since gm_auth_new, for the exporter's self-metrics and tests. */
struct gm_auth_stats {
    uint64_t checks;       /* checks begun (gm_auth_begin, gm_auth_check) */
    uint64_t allowed;      /* of which allowed */
    uint64_t malformed;    /* missing or malformed Authorization header */
    uint64_t cache_hits;   /* allowed from the cache, no bcrypt */
    uint64_t bcrypt_calls; /* bcrypt computations (known and unknown users) */
};

/* Builds a checker for wc's users (copied: wc may be freed afterwards).
 * Returns 0 and sets *out, or a GM_E* code with err set (the random salt
 * could not be drawn).  With no users every check fails. */
int gm_auth_new(const struct gm_webconfig *wc, struct gm_auth **out, struct gm_err *err);

/* The same, for a checker replacing prev (after a reload; NULL: none):
 * prev's cache of verified credentials carries over, so clients verified
 * before need no bcrypt after.  An entry counts only for a user still
 * configured with the same hash: a changed password must be verified anew.
 * prev stays usable and is not changed. */
int gm_auth_renew(const struct gm_webconfig *wc, struct gm_auth *prev, struct gm_auth **out,
                  struct gm_err *err);

/* Frees auth, wiping its cache and copies; accepts NULL.  No check may be
 * running. */
void gm_auth_free(struct gm_auth *auth);

/* A check is two halves, so that a server can keep bcrypt (tens to hundreds
 * of milliseconds of CPU) off its request threads: gm_auth_begin costs no
 * bcrypt and decides what it can; gm_auth_verify is the one bcrypt
 * computation, for a thread of the server's choosing.
 *
 * What is checked: authorization (the Authorization header's value, or NULL
 * when the request has none) must be "Basic base64(user:password)" (RFC
 * 7617; scheme case-insensitive, the password may contain ':') naming a
 * configured user and that user's password; otherwise the server answers 401
 * with "WWW-Authenticate: Basic".  Credentials containing a NUL byte, and
 * passwords longer than libxcrypt accepts (512 bytes), are refused; as with
 * every bcrypt, only a password's first 72 bytes count.
 *
 * The cache: a user/password pair that passed gm_auth_verify is remembered
 * (256 entries, oldest evicted; keyed by SHA-256 of a per-process random
 * salt, the user, the password and the stored hash, so no password is kept)
 * and allowed by gm_auth_begin from then on.  Failures are not cached (a
 * flood of wrong passwords cannot evict a good entry).  Unknown users are
 * verified against a dummy hash with the highest cost among the configured
 * ones, so they take as long as a wrong password. */
enum gm_auth_verdict {
    GM_AUTH_DENY = 0,   /* refuse (401): malformed, or no users */
    GM_AUTH_ALLOW = 1,  /* allow: the credentials are in the cache */
    GM_AUTH_VERIFY = 2, /* undecided: *pending is set, for gm_auth_verify */
};

/* The credentials of an undecided check (a copy, wiped when freed). */
struct gm_auth_pending;

/* The first half: parses the header and looks in the cache, without bcrypt.
 * Sets *pending (owned by the caller: pass it to gm_auth_verify or
 * gm_auth_pending_free) exactly when it returns GM_AUTH_VERIFY, else NULL.
 * Safe to call from many threads at once. */
enum gm_auth_verdict gm_auth_begin(struct gm_auth *auth, const char *authorization,
                                   struct gm_auth_pending **pending);

/* The second half: one bcrypt computation.  Returns 1 (allow; the pair is
 * cached) or 0 (refuse).  Takes p (frees it).  auth must be the checker p
 * came from, still alive.  Safe to call from many threads at once; each
 * call computes on its own, so the caller bounds how many run. */
int gm_auth_verify(struct gm_auth *auth, struct gm_auth_pending *p);

/* Frees p without verifying it (wiping the credentials); accepts NULL. */
void gm_auth_pending_free(struct gm_auth_pending *p);

/* Both halves in the calling thread: 1 to allow, 0 to refuse. */
int gm_auth_check(struct gm_auth *auth, const char *authorization);

/* Copies auth's counters into *st. */
void gm_auth_stats(struct gm_auth *auth, struct gm_auth_stats *st);

#endif /* GM_EXPORT_WEBCONFIG_H */

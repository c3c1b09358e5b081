/* listen.h -- the exporter's listen address, "ADDR:PORT".
 *
 * Accepted: "127.0.0.1:9842", "[::1]:9842", "[::]:9842" and ":9842" (every
 * interface, IPv6 and IPv4).  Addresses are numeric (no name lookups: an
 * agent must not wait on DNS to start), ports 1-65535.  The parser lives in
 * the core (export/load.c), not in the exporter module, so that `gpumon
 * config check` and the option parser refuse a bad address with its place
 * without loading the HTTP stack.
 */
#ifndef GM_EXPORT_LISTEN_H
#define GM_EXPORT_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/* Parses s into *ss and *len.  Returns 0, or GM_E_INVAL with the reason
 * (without the value itself: callers quote it) in why. */
int gm_listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *why,
                    size_t wlen);

/* The [exporter] section's own checks of a string setting, made where the
 * file or flag is read so that `config check`, flags and a reload name the
 * place: "listen" must parse (gm_listen_parse), "web-config" must exist
 * (its content is checked when the exporter loads it) and "allowed-hosts"
 * must be comma-separated host names or "*".  Other keys and an
 * empty value pass.  Returns 0, or GM_E_INVAL with the reason in why. */
int gm_exporter_conf_check(const char *key, const char *value, char *why, size_t wlen);

#endif /* GM_EXPORT_LISTEN_H */

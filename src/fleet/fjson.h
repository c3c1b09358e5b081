/* fjson.h -- a small JSON reader for what other machines answer.
 *
 * The fleet view reads each agent's /api/v1 documents, and an agent is
 * somebody else's machine: its answer may be cut short, nested ten
 * thousand deep, hold invalid UTF-8, or claim a million elements.  The
 * parser here builds a tree (arrays and objects keep their members in
 * order) and refuses, with the byte offset and why, anything that is not
 * RFC 8259 JSON, anything nested deeper than GM_FJ_MAX_DEPTH, and more than
 * max_nodes values in all.  Strings are kept as the bytes they decode to
 * (escapes resolved, \u0000 and lone surrogates as U+FFFD, invalid UTF-8
 * kept as is): whoever prints one escapes it (core/text.h).  Nothing here
 * does I/O.
 */
#ifndef GM_FLEET_FJSON_H
#define GM_FLEET_FJSON_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

#define GM_FJ_MAX_DEPTH 64

enum gm_fj_type { GM_FJ_NULL, GM_FJ_BOOL, GM_FJ_NUM, GM_FJ_STR, GM_FJ_ARR, GM_FJ_OBJ };

struct gm_fj {
    enum gm_fj_type type;
    int b;            /* GM_FJ_BOOL */
    double num;       /* GM_FJ_NUM */
    char *str;        /* GM_FJ_STR: NUL-terminated, len bytes (no NUL inside) */
    size_t len;       /* GM_FJ_STR: bytes; GM_FJ_ARR/OBJ: members */
    char **keys;      /* GM_FJ_OBJ: len keys */
    struct gm_fj **v; /* GM_FJ_ARR/OBJ: len members */
};

/* Parses text[0..n) as one JSON value with at most max_nodes values.
 * Returns the tree (free it with gm_fj_free), or NULL with err set to
 * "offset N: what" (GM_E_INVAL). */
struct gm_fj *gm_fj_parse(const char *text, size_t n, size_t max_nodes, struct gm_err *err);

void gm_fj_free(struct gm_fj *j);

/* The member key of object o (the first of that name), or NULL when o is
 * not an object or has none. */
const struct gm_fj *gm_fj_get(const struct gm_fj *o, const char *key);

/* The string of j, or NULL when j is not a string. */
const char *gm_fj_str(const struct gm_fj *j);

/* Whether j is a number; then *v is set. */
int gm_fj_num(const struct gm_fj *j, double *v);

#endif /* GM_FLEET_FJSON_H */

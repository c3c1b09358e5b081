/* json.h -- a small streaming JSON writer over gm_buf.
 *
 * The writer tracks nesting and inserts commas, so callers cannot produce
 * invalid JSON by forgetting one; strings are escaped per RFC 8259 by
 * gm_text_json (text.h: control characters, C1 included, as \u00XX,
 * U+2028/U+2029 as \u2028/\u2029, invalid UTF-8 bytes replaced by U+FFFD,
 * so that the output is valid UTF-8 and safe to print); numbers are
 * written as JSON numbers (never strings), non-finite doubles as null.
 * Optional pretty printing with two-space indentation.
 */
#ifndef GM_JSON_H
#define GM_JSON_H

#include <stdint.h>

#include "buf.h"

#define GM_JSON_MAX_DEPTH 32

struct gm_json {
    struct gm_buf *b;
    int pretty;
    int depth;
    uint8_t first[GM_JSON_MAX_DEPTH]; /* no element written yet at this level */
    uint8_t after_key;                /* a key was just written: no comma before the value */
};

void gm_json_init(struct gm_json *j, struct gm_buf *b, int pretty);
void gm_json_obj_begin(struct gm_json *j);
void gm_json_obj_end(struct gm_json *j);
void gm_json_arr_begin(struct gm_json *j);
void gm_json_arr_end(struct gm_json *j);
void gm_json_key(struct gm_json *j, const char *key);
void gm_json_str(struct gm_json *j, const char *s);
void gm_json_strn(struct gm_json *j, const char *s, size_t n);
void gm_json_u64(struct gm_json *j, uint64_t v);
void gm_json_i64(struct gm_json *j, int64_t v);
/* decimals >= 0: that many digits after the point, trailing zeros trimmed
 * (12.50 -> 12.5, 3.00 -> 3); < 0: the shortest text that reads back as the
 * same double (0.1, 12345.678). */
void gm_json_f64(struct gm_json *j, double v, int decimals);
void gm_json_bool(struct gm_json *j, int v);
void gm_json_null(struct gm_json *j);

/* Appends s to b as the body of a JSON string (no quotes), escaped. */
void gm_json_escape(struct gm_buf *b, const char *s, size_t n);

#endif /* GM_JSON_H */

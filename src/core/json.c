/* json.c -- streaming JSON writer (see json.h). */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gm_json_init(struct gm_json *j, struct gm_buf *b, int pretty)
{
    memset(j, 0, sizeof(*j));
    j->b = b;
    j->pretty = pretty;
    j->first[0] = 1;
}

static void newline(struct gm_json *j)
{
    if (!j->pretty)
        return;
    gm_buf_putc(j->b, '\n');
    gm_buf_fill(j->b, ' ', (size_t)j->depth * 2);
}

/* Before any value or key: comma and indentation as needed. */
static void pre(struct gm_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (!j->first[j->depth])
        gm_buf_putc(j->b, ',');
    j->first[j->depth] = 0;
    if (j->depth > 0)
        newline(j);
}

static void open(struct gm_json *j, char c)
{
    pre(j);
    gm_buf_putc(j->b, c);
    if (j->depth < GM_JSON_MAX_DEPTH - 1)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_(struct gm_json *j, char c)
{
    int empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty)
        newline(j);
    gm_buf_putc(j->b, c);
}

void gm_json_obj_begin(struct gm_json *j)
{
    open(j, '{');
}
void gm_json_obj_end(struct gm_json *j)
{
    close_(j, '}');
}
void gm_json_arr_begin(struct gm_json *j)
{
    open(j, '[');
}
void gm_json_arr_end(struct gm_json *j)
{
    close_(j, ']');
}

/* Length of a valid UTF-8 sequence at s (n bytes available), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void gm_json_escape(struct gm_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* copy a run of characters that need no escaping in one call */
        size_t run = i;
        while (run < n && p[run] >= 0x20 && p[run] < 0x7F && p[run] != '"' && p[run] != '\\')
            run++;
        if (run > i) {
            gm_buf_put(b, s + i, run - i);
            i = run;
            continue;
        }
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            gm_buf_putc(b, '\\');
            gm_buf_putc(b, (char)c);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            switch (c) {
            case '\n':
                gm_buf_puts(b, "\\n");
                break;
            case '\t':
                gm_buf_puts(b, "\\t");
                break;
            case '\r':
                gm_buf_puts(b, "\\r");
                break;
            default:
                gm_buf_printf(b, "\\u%04x", c);
            }
            i++;
        } else {
            size_t l = utf8_len(p + i, n - i);
            if (l) {
                gm_buf_put(b, s + i, l);
                i += l;
            } else {
                gm_buf_puts(b, "\xEF\xBF\xBD"); /* U+FFFD */
                i++;
            }
        }
    }
}

void gm_json_key(struct gm_json *j, const char *key)
{
    pre(j);
    gm_buf_putc(j->b, '"');
    gm_json_escape(j->b, key, strlen(key));
    gm_buf_puts(j->b, j->pretty ? "\": " : "\":");
    j->after_key = 1;
}

void gm_json_strn(struct gm_json *j, const char *s, size_t n)
{
    pre(j);
    gm_buf_putc(j->b, '"');
    gm_json_escape(j->b, s, n);
    gm_buf_putc(j->b, '"');
}

void gm_json_str(struct gm_json *j, const char *s)
{
    if (!s) {
        gm_json_null(j);
        return;
    }
    gm_json_strn(j, s, strlen(s));
}

void gm_json_u64(struct gm_json *j, uint64_t v)
{
    pre(j);
    gm_buf_printf(j->b, "%" PRIu64, v);
}

void gm_json_i64(struct gm_json *j, int64_t v)
{
    pre(j);
    gm_buf_printf(j->b, "%" PRId64, v);
}

void gm_json_f64(struct gm_json *j, double v, int decimals)
{
    if (!isfinite(v)) {
        gm_json_null(j);
        return;
    }
    pre(j);
    char tmp[64];
    if (decimals >= 0) {
        snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
    } else {
        /* the fewest significant digits that read back as the same double
         * (0.1, not %.17g's 0.10000000000000001); 17 always do */
        int prec = 1;
        for (; prec <= 17; prec++) {
            snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        /* %g's exponent form for ordinary magnitudes (90 -> "9e+01") is
         * valid JSON but not what people or diff expect: write those out */
        double a = fabs(v);
        if (strchr(tmp, 'e') && a >= 1e-4 && a < 1e17) {
            int e10 = (int)floor(log10(a));
            int dec = prec - 1 - e10;
            snprintf(tmp, sizeof(tmp), "%.*f", dec > 0 ? dec : 0, v);
        }
    }
    /* trim trailing zeros of a fraction: 12.50 -> 12.5, 3.00 -> 3 */
    if (strchr(tmp, '.') && !strchr(tmp, 'e')) {
        size_t l = strlen(tmp);
        while (l > 0 && tmp[l - 1] == '0')
            tmp[--l] = '\0';
        if (l > 0 && tmp[l - 1] == '.')
            tmp[--l] = '\0';
    }
    if (strcmp(tmp, "-0") == 0)
        snprintf(tmp, sizeof(tmp), "0");
    gm_buf_puts(j->b, tmp);
}

void gm_json_bool(struct gm_json *j, int v)
{
    pre(j);
    gm_buf_puts(j->b, v ? "true" : "false");
}

void gm_json_null(struct gm_json *j)
{
    pre(j);
    gm_buf_puts(j->b, "null");
}

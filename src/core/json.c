/* json.c -- streaming JSON writer (see json.h); strings are escaped by
 * gm_text_json (text.h). */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

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

void gm_json_escape(struct gm_buf *b, const char *s, size_t n)
{
    gm_text_json(b, s, n);
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

/* test_json.c -- unit tests for the streaming JSON writer (src/core/json.c).
 *
 * Exact output for nested documents, compact and pretty; string escaping
 * (quotes, backslash, control characters, invalid and valid UTF-8); numbers
 * (integer extremes, trimmed doubles, shortest round-trip doubles, non-finite
 * values as null).  A small strict RFC 8259 checker (below) also validates
 * every document, and a seeded random walk of writer calls, so that a comma
 * or escape mistake anywhere shows up as invalid JSON, not only as a diff.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* A strict JSON checker: returns 1 if s[0..n) is exactly one JSON value
 * (RFC 8259, with strings required to be valid UTF-8), else 0. */

struct jc {
    const unsigned char *p, *e;
    int depth;
};

static void jc_ws(struct jc *c)
{
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int jc_lit(struct jc *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->e - c->p) < n || memcmp(c->p, w, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static int jc_utf8(struct jc *c)
{
    unsigned b = *c->p;
    int len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || c->e - c->p < len)
        return 0;
    uint32_t cp = b & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((c->p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (c->p[i] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    c->p += len;
    return 1;
}

static int jc_string(struct jc *c)
{
    if (c->p >= c->e || *c->p != '"')
        return 0;
    c->p++;
    while (c->p < c->e) {
        unsigned b = *c->p;
        if (b == '"') {
            c->p++;
            return 1;
        }
        if (b < 0x20)
            return 0;
        if (b == '\\') {
            c->p++;
            if (c->p >= c->e)
                return 0;
            if (*c->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (c->p + i >= c->e || !strchr("0123456789abcdefABCDEF", c->p[i]) || !c->p[i])
                        return 0;
                c->p += 5;
            } else if (*c->p && strchr("\"\\/bfnrt", *c->p)) {
                c->p++;
            } else {
                return 0;
            }
        } else if (b < 0x80) {
            c->p++;
        } else if (!jc_utf8(c)) {
            return 0;
        }
    }
    return 0;
}

static int jc_digits(struct jc *c)
{
    const unsigned char *s = c->p;
    while (c->p < c->e && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > s;
}

static int jc_number(struct jc *c)
{
    if (c->p < c->e && *c->p == '-')
        c->p++;
    if (c->p < c->e && *c->p == '0')
        c->p++;
    else if (!jc_digits(c))
        return 0;
    if (c->p < c->e && *c->p == '.') {
        c->p++;
        if (!jc_digits(c))
            return 0;
    }
    if (c->p < c->e && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->e && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!jc_digits(c))
            return 0;
    }
    return 1;
}

static int jc_value(struct jc *c)
{
    jc_ws(c);
    if (c->p >= c->e || ++c->depth > 200)
        return 0;
    int ok;
    switch (*c->p) {
    case '{':
        c->p++;
        jc_ws(c);
        if (c->p < c->e && *c->p == '}') {
            c->p++;
            ok = 1;
            break;
        }
        for (;;) {
            jc_ws(c);
            if (!jc_string(c))
                return 0;
            jc_ws(c);
            if (c->p >= c->e || *c->p++ != ':')
                return 0;
            if (!jc_value(c))
                return 0;
            jc_ws(c);
            if (c->p < c->e && *c->p == ',') {
                c->p++;
                continue;
            }
            if (c->p < c->e && *c->p == '}') {
                c->p++;
                break;
            }
            return 0;
        }
        ok = 1;
        break;
    case '[':
        c->p++;
        jc_ws(c);
        if (c->p < c->e && *c->p == ']') {
            c->p++;
            ok = 1;
            break;
        }
        for (;;) {
            if (!jc_value(c))
                return 0;
            jc_ws(c);
            if (c->p < c->e && *c->p == ',') {
                c->p++;
                continue;
            }
            if (c->p < c->e && *c->p == ']') {
                c->p++;
                break;
            }
            return 0;
        }
        ok = 1;
        break;
    case '"':
        ok = jc_string(c);
        break;
    case 't':
        ok = jc_lit(c, "true");
        break;
    case 'f':
        ok = jc_lit(c, "false");
        break;
    case 'n':
        ok = jc_lit(c, "null");
        break;
    default:
        ok = jc_number(c);
    }
    c->depth--;
    return ok;
}

static int json_valid(const char *s, size_t n)
{
    struct jc c = {(const unsigned char *)s, (const unsigned char *)s + n, 0};
    if (!jc_value(&c))
        return 0;
    jc_ws(&c);
    return c.p == c.e;
}

/* The checker must reject what it should (else every validity assertion
 * below could never fail). */
static void test_checker_itself(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int valid;
    } rows[] = {
        {"{}", 1},
        {"[1,-2.5e+3,\"a\\u00e9\",true,false,null,{\"k\":[]}]", 1},
        {"\"\xc3\xa9\"", 1},
        {"[1,]", 0},
        {"{\"a\" 1}", 0},
        {"{\"a\":1,}", 0},
        {"[1 2]", 0},
        {"01", 0},
        {"1.", 0},
        {"NaN", 0},
        {"\"a\nb\"", 0},
        {"\"\\x\"", 0},
        {"\"\xff\"", 0},
        {"\"\xc0\xaf\"", 0},
        {"{} {}", 0},
        {"[", 0},
        {"", 0},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++)
        if (json_valid(rows[i].s, strlen(rows[i].s)) != rows[i].valid)
            fail_msg("checker wrong on row %zu: %s", i, rows[i].s);
}

/* ------------------------------------------------------------------------ */

static void build_nested(struct gm_json *j)
{
    gm_json_obj_begin(j);
    gm_json_key(j, "a");
    gm_json_u64(j, 1);
    gm_json_key(j, "b");
    gm_json_arr_begin(j);
    gm_json_u64(j, 1);
    gm_json_str(j, "two");
    gm_json_obj_begin(j);
    gm_json_key(j, "c");
    gm_json_null(j);
    gm_json_key(j, "d");
    gm_json_bool(j, 1);
    gm_json_obj_end(j);
    gm_json_arr_end(j);
    gm_json_key(j, "e");
    gm_json_obj_begin(j);
    gm_json_obj_end(j);
    gm_json_key(j, "f");
    gm_json_arr_begin(j);
    gm_json_arr_end(j);
    gm_json_key(j, "g");
    gm_json_bool(j, 0);
    gm_json_obj_end(j);
}

static void test_nested_compact(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    build_nested(&j);
    assert_string_equal(b.p, "{\"a\":1,\"b\":[1,\"two\",{\"c\":null,\"d\":true}],\"e\":{},\"f\":[],"
                             "\"g\":false}");
    assert_true(json_valid(b.p, b.len));
    gm_buf_free(&b);
}

static void test_nested_pretty(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 1);
    build_nested(&j);
    assert_string_equal(b.p, "{\n"
                             "  \"a\": 1,\n"
                             "  \"b\": [\n"
                             "    1,\n"
                             "    \"two\",\n"
                             "    {\n"
                             "      \"c\": null,\n"
                             "      \"d\": true\n"
                             "    }\n"
                             "  ],\n"
                             "  \"e\": {},\n"
                             "  \"f\": [],\n"
                             "  \"g\": false\n"
                             "}");
    assert_true(json_valid(b.p, b.len));
    gm_buf_free(&b);
}

static void test_top_level_array(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    gm_json_arr_begin(&j);
    gm_json_arr_begin(&j);
    gm_json_arr_end(&j);
    gm_json_arr_begin(&j);
    gm_json_i64(&j, -1);
    gm_json_arr_end(&j);
    gm_json_obj_begin(&j);
    gm_json_obj_end(&j);
    gm_json_arr_end(&j);
    assert_string_equal(b.p, "[[],[-1],{}]");
    gm_buf_free(&b);
}

/* ----------------------------------------------------------------- strings */

static void test_escaping(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *in;
        size_t n;         /* 0: strlen(in) */
        const char *want; /* body between the quotes */
    } rows[] = {
        {"plain", "GPU 0", 0, "GPU 0"},
        {"quote", "say \"hi\"", 0, "say \\\"hi\\\""},
        {"backslash", "C:\\Windows\\x.exe", 0, "C:\\\\Windows\\\\x.exe"},
        {"newline", "a\nb", 0, "a\\nb"},
        {"tab, cr", "a\tb\rc", 0, "a\\tb\\rc"},
        {"control 0x01", "\x01", 0, "\\u0001"},
        {"control 0x1f", "x\x1fy", 0, "x\\u001fy"},
        {"backspace, formfeed", "\b\f", 0, "\\u0008\\u000c"},
        {"DEL", "\x7f", 0, "\\u007f"},
        {"embedded NUL", "a\0b", 3, "a\\u0000b"},
        {"slash kept", "/usr/bin/python3", 0, "/usr/bin/python3"},
        /* valid multi-byte UTF-8 is kept byte for byte */
        {"2-byte", "caf\xc3\xa9", 0, "caf\xc3\xa9"},
        {"3-byte", "\xe4\xb8\xad\xe6\x96\x87", 0, "\xe4\xb8\xad\xe6\x96\x87"},
        {"4-byte", "\xf0\x9f\x98\x80", 0, "\xf0\x9f\x98\x80"},
        {"U+FFFD itself", "\xef\xbf\xbd", 0, "\xef\xbf\xbd"},
        {"U+10FFFF", "\xf4\x8f\xbf\xbf", 0, "\xf4\x8f\xbf\xbf"},
        /* invalid UTF-8: each bad byte becomes U+FFFD */
        {"lone 0xff",
         "a\xff"
         "b",
         0,
         "a\xef\xbf\xbd"
         "b"},
        {"lone continuation", "\x80", 0, "\xef\xbf\xbd"},
        {"truncated at end", "ab\xc3", 0, "ab\xef\xbf\xbd"},
        {"bad continuation", "\xc3(", 0, "\xef\xbf\xbd("},
        {"overlong /", "\xc0\xaf", 0, "\xef\xbf\xbd\xef\xbf\xbd"},
        {"surrogate", "\xed\xa0\x80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"above U+10FFFF", "\xf4\x90\x80\x80", 0,
         "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"latin-1 name", "Jos\xe9", 0, "Jos\xef\xbf\xbd"},
        {"length stops early", "abc\xc3\xa9", 4, "abc\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        size_t n = rows[i].n ? rows[i].n : strlen(rows[i].in);
        struct gm_buf b = GM_BUF_INIT;
        struct gm_json j;
        gm_json_init(&j, &b, 0);
        gm_json_strn(&j, rows[i].in, n);
        char want[256];
        snprintf(want, sizeof(want), "\"%s\"", rows[i].want);
        if (strcmp(b.p, want) != 0)
            fail_msg("%s: got %s want %s", rows[i].name, b.p, want);
        if (!json_valid(b.p, b.len))
            fail_msg("%s: invalid JSON %s", rows[i].name, b.p);
        gm_buf_free(&b);
    }
}

static void test_keys_escaped_and_null_string(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "we\"ird\\key\n");
    gm_json_str(&j, NULL); /* NULL string -> null */
    gm_json_key(&j, "s");
    gm_json_str(&j, "");
    gm_json_obj_end(&j);
    assert_string_equal(b.p, "{\"we\\\"ird\\\\key\\n\":null,\"s\":\"\"}");
    assert_true(json_valid(b.p, b.len));
    gm_buf_free(&b);
}

static void test_escape_into_buffer(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "x=");
    gm_json_escape(&b, "\"\x01", 2);
    assert_string_equal(b.p, "x=\\\"\\u0001");
    gm_buf_free(&b);
}

/* ----------------------------------------------------------------- numbers */

static void test_integers(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    gm_json_arr_begin(&j);
    gm_json_u64(&j, 0);
    gm_json_u64(&j, UINT64_MAX);
    gm_json_i64(&j, INT64_MIN);
    gm_json_i64(&j, INT64_MAX);
    gm_json_i64(&j, -42);
    gm_json_arr_end(&j);
    assert_string_equal(b.p,
                        "[0,18446744073709551615,-9223372036854775808,9223372036854775807,-42]");
    assert_true(json_valid(b.p, b.len));
    gm_buf_free(&b);
}

static void test_doubles(void **state)
{
    (void)state;
    static const struct {
        double v;
        int decimals;
        const char *want;
    } rows[] = {
        /* fixed decimals, trailing zeros trimmed */
        {12.5, 2, "12.5"},
        {3.0, 2, "3"},
        {0.001, 3, "0.001"},
        {0.001, 6, "0.001"},
        {280.12, 3, "280.12"},
        {280.126, 2, "280.13"},
        {1234.5678, 3, "1234.568"},
        {100.0, 0, "100"}, /* no point: zeros of the integer part stay */
        {10.0, 3, "10"},
        {0.0, 3, "0"},
        {-1.5, 1, "-1.5"},
        {-0.0001, 2, "0"}, /* rounds to -0.00: written as 0, never -0 */
        {-0.0, 3, "0"},
        {1e15, 3, "1000000000000000"},
        /* decimals < 0: the shortest text that reads back as the same double */
        {12.5, -1, "12.5"},
        {3.0, -1, "3"},
        {0.001, -1, "0.001"},
        {0.1, -1, "0.1"},
        {12345.678, -1, "12345.678"},
        {1.0 / 3.0, -1, "0.3333333333333333"},
        {90.0, -1, "90"}, /* not %g's "9e+01" */
        {1500.0, -1, "1500"},
        {-700.0, -1, "-700"},
        {1.5e10, -1, "15000000000"},
        {0.00025, -1, "0.00025"},
        {1e20, -1, "1e+20"},
        {-2.5e-7, -1, "-2.5e-07"},
        {-0.0, -1, "0"},
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_buf b = GM_BUF_INIT;
        struct gm_json j;
        gm_json_init(&j, &b, 0);
        gm_json_f64(&j, rows[i].v, rows[i].decimals);
        if (strcmp(b.p, rows[i].want) != 0)
            fail_msg("gm_json_f64(%.17g, %d) = \"%s\", want \"%s\"", rows[i].v, rows[i].decimals,
                     b.p, rows[i].want);
        if (!json_valid(b.p, b.len))
            fail_msg("gm_json_f64(%.17g, %d): invalid JSON \"%s\"", rows[i].v, rows[i].decimals,
                     b.p);
        /* with decimals < 0 the text round-trips exactly */
        if (rows[i].decimals < 0 && strtod(b.p, NULL) != rows[i].v)
            fail_msg("gm_json_f64(%.17g, -1) = \"%s\" does not round-trip", rows[i].v, b.p);
        gm_buf_free(&b);
    }
}

static void test_non_finite_is_null(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    struct gm_json j;
    gm_json_init(&j, &b, 0);
    gm_json_obj_begin(&j);
    gm_json_key(&j, "nan");
    gm_json_f64(&j, NAN, 2);
    gm_json_key(&j, "inf");
    gm_json_f64(&j, INFINITY, -1);
    gm_json_key(&j, "list");
    gm_json_arr_begin(&j);
    gm_json_f64(&j, -INFINITY, 0);
    gm_json_f64(&j, 1.5, 1);
    gm_json_f64(&j, NAN, -1);
    gm_json_arr_end(&j);
    gm_json_obj_end(&j);
    assert_string_equal(b.p, "{\"nan\":null,\"inf\":null,\"list\":[null,1.5,null]}");
    assert_true(json_valid(b.p, b.len));
    gm_buf_free(&b);
}

/* ------------------------------------------------------------- structure */

/* Nesting deeper than GM_JSON_MAX_DEPTH still balances and stays valid,
 * with siblings before and after each child. */
static void test_deep_nesting(void **state)
{
    (void)state;
    for (int pretty = 0; pretty <= 1; pretty++) {
        struct gm_buf b = GM_BUF_INIT;
        struct gm_json j;
        gm_json_init(&j, &b, pretty);
        const int depth = GM_JSON_MAX_DEPTH + 8;
        for (int d = 0; d < depth; d++) {
            if (d % 2) {
                gm_json_obj_begin(&j);
                gm_json_key(&j, "before");
                gm_json_u64(&j, (uint64_t)d);
                gm_json_key(&j, "child");
            } else {
                gm_json_arr_begin(&j);
                gm_json_u64(&j, (uint64_t)d);
            }
        }
        gm_json_null(&j);
        for (int d = depth - 1; d >= 0; d--) {
            if (d % 2) {
                gm_json_key(&j, "after");
                gm_json_bool(&j, 1);
                gm_json_obj_end(&j);
            } else {
                gm_json_str(&j, "after");
                gm_json_arr_end(&j);
            }
        }
        if (!json_valid(b.p, b.len))
            fail_msg("deep nesting (pretty=%d) is not valid JSON:\n%s", pretty, b.p);
        gm_buf_free(&b);
    }
}

/* A seeded random walk of writer calls, always valid (keys only in objects,
 * bounded depth), in both modes: every output must parse. */
static void test_random_documents_are_valid(void **state)
{
    (void)state;
    static const char *const strs[] = {"",         "x",        "a\"b",         "\\",  "\n\t",
                                       "\x01\x7f", "\xff\xfe", "\xe2\x82\xac", "\xc3"};
    srand(12345);
    for (int doc = 0; doc < 300; doc++) {
        struct gm_buf b = GM_BUF_INIT;
        struct gm_json j;
        gm_json_init(&j, &b, doc % 2);
        char kind[64]; /* 'o' object, 'a' array per open level */
        int depth = 0;
        gm_json_obj_begin(&j);
        kind[depth++] = 'o';
        for (int step = 0; step < 60 && depth > 0; step++) {
            int in_obj = kind[depth - 1] == 'o';
            int r = rand() % 12;
            if (r == 0 || (r == 1 && depth > 1)) {
                if (in_obj)
                    gm_json_obj_end(&j);
                else
                    gm_json_arr_end(&j);
                depth--;
                continue;
            }
            if (in_obj)
                gm_json_key(&j, strs[rand() % N_ELEM(strs)]);
            switch (rand() % 8) {
            case 0:
                if (depth < 20) {
                    gm_json_obj_begin(&j);
                    kind[depth++] = 'o';
                } else {
                    gm_json_null(&j);
                }
                break;
            case 1:
                if (depth < 20) {
                    gm_json_arr_begin(&j);
                    kind[depth++] = 'a';
                } else {
                    gm_json_bool(&j, 0);
                }
                break;
            case 2:
                gm_json_str(&j, strs[rand() % N_ELEM(strs)]);
                break;
            case 3:
                gm_json_u64(&j, (uint64_t)rand() * 7919u);
                break;
            case 4:
                gm_json_i64(&j, -(int64_t)rand());
                break;
            case 5:
                gm_json_f64(&j, (rand() % 2 ? -1 : 1) * rand() / 977.0, rand() % 5 - 1);
                break;
            case 6:
                gm_json_f64(&j, rand() % 2 ? NAN : INFINITY, 2);
                break;
            default:
                gm_json_bool(&j, rand() % 2);
            }
        }
        while (depth > 0) {
            if (kind[--depth] == 'o')
                gm_json_obj_end(&j);
            else
                gm_json_arr_end(&j);
        }
        if (!json_valid(b.p, b.len))
            fail_msg("random document %d is not valid JSON:\n%s", doc, b.p);
        gm_buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_itself),
        cmocka_unit_test(test_nested_compact),
        cmocka_unit_test(test_nested_pretty),
        cmocka_unit_test(test_top_level_array),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_keys_escaped_and_null_string),
        cmocka_unit_test(test_escape_into_buffer),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_non_finite_is_null),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_random_documents_are_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

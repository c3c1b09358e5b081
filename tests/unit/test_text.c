/* test_text.c -- unit tests for the outside-text sanitiser (src/core/text.c).
 *
 * One table of inputs (plain names, every kind of invalid UTF-8, C0, DEL
 * and C1 controls, the characters each form quotes or escapes, a hostile
 * process name) with the exact output of every form: UTF-8 repair, one
 * line, terminal (UTF-8 and ASCII), Prometheus label value, CSV cell (with
 * and without the formula rule) and JSON string body.  Then properties over
 * all 2-byte and a seeded sample of longer byte strings: every form's output
 * is well-formed UTF-8, the line, terminal, label and CSV forms hold no
 * control byte, and clean text passes every form unchanged (before
 * quoting); the bounded terminal copy cuts at a character boundary; the
 * sequence decoder agrees with a reference decoder on every 1-4 byte
 * prefix class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/text.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define R GM_TEXT_REPL

enum { T_UTF8, T_LINE, T_TERM, T_ASCII, T_PROM, T_CSV, T_CSVO, T_JSON, T__N };
static const char *const form_name[T__N] = {"utf8", "line",      "term",        "term-ascii",
                                            "prom", "csv-plain", "csv-outside", "json"};

static void apply(int form, struct gm_buf *b, const char *s, size_t n)
{
    switch (form) {
    case T_UTF8:
        gm_text_utf8(b, s, n);
        break;
    case T_LINE:
        gm_text_line(b, s, n);
        break;
    case T_TERM:
        gm_text_term(b, s, n, 1);
        break;
    case T_ASCII:
        gm_text_term(b, s, n, 0);
        break;
    case T_PROM:
        gm_text_prom(b, s, n);
        break;
    case T_CSV:
        gm_text_csv(b, s, n, 0);
        break;
    case T_CSVO:
        gm_text_csv(b, s, n, GM_TEXT_CSV_OUTSIDE);
        break;
    default:
        gm_text_json(b, s, n);
        break;
    }
}

/* A reference decoder written from the definition (code point ranges), not
 * from the lead-byte table the implementation uses. */
static size_t ref_seq(const unsigned char *p, size_t n)
{
    for (size_t len = 1; len <= 4 && len <= n; len++) {
        uint32_t v;
        if (len == 1) {
            if (p[0] < 0x80)
                return 1;
            continue;
        }
        unsigned lead_bits = 7 - (unsigned)len; /* payload bits of the lead byte */
        unsigned lead_mark = (0xFF << (8 - len)) & 0xFF;
        if ((p[0] & (0xFF << (7 - len) & 0xFF)) != lead_mark)
            continue;
        v = p[0] & ((1u << lead_bits) - 1);
        size_t i;
        for (i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80)
                break;
            v = (v << 6) | (p[i] & 0x3F);
        }
        if (i < len)
            return 0;
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return 0;
        return len;
    }
    return 0;
}

/* Whether s[0..n) is well-formed UTF-8 (by the reference decoder). */
static int ref_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t l = ref_seq(p + i, n - i);
        if (!l)
            return 0;
        i += l;
    }
    return 1;
}

/* Whether s holds a control byte: C0, DEL, or a C1 control as UTF-8. */
static int has_control(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x20 || p[i] == 0x7F)
            return 1;
        if (p[i] == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)
            return 1;
    }
    return 0;
}

/* The bidirectional formatting characters, from their definition (Unicode
 * 15 UAX #9, table 4): LRM, RLM, ALM, LRE..RLO and LRI..PDI. */
static const uint32_t bidi_cps[] = {0x200E, 0x200F, 0x061C, 0x202A, 0x202B, 0x202C,
                                    0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069};

/* Whether s holds one of bidi_cps as UTF-8. */
static int has_bidi(const char *s, size_t n)
{
    for (size_t k = 0; k < N_ELEM(bidi_cps); k++) {
        uint32_t c = bidi_cps[k];
        char u[3];
        size_t l = c < 0x800 ? 2 : 3;
        if (l == 2) {
            u[0] = (char)(0xC0 | (c >> 6));
            u[1] = (char)(0x80 | (c & 0x3F));
        } else {
            u[0] = (char)(0xE0 | (c >> 12));
            u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            u[2] = (char)(0x80 | (c & 0x3F));
        }
        for (size_t i = 0; i + l <= n; i++)
            if (memcmp(s + i, u, l) == 0)
                return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ the table */

struct row {
    const char *name;
    const char *in;
    size_t n; /* 0: strlen(in) */
    const char *want[T__N];
};

static const struct row rows[] = {
    {"plain",
     "python3",
     0,
     {"python3", "python3", "python3", "python3", "python3", "python3", "python3", "python3"}},
    {"empty", "", 0, {"", "", "", "", "", "", "", ""}},
    {"GPU name",
     "NVIDIA H100 80GB HBM3",
     0,
     {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3",
      "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3",
      "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"}},
    /* valid non-ASCII passes; only the ASCII terminal cannot show it */
    {"2-byte",
     "caf\xc3\xa9",
     0,
     {"caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9", "caf?", "caf\xc3\xa9", "caf\xc3\xa9",
      "caf\xc3\xa9", "caf\xc3\xa9"}},
    {"3-byte",
     "\xe8\xae\xad\xe7\xbb\x83",
     0,
     {"\xe8\xae\xad\xe7\xbb\x83", "\xe8\xae\xad\xe7\xbb\x83", "\xe8\xae\xad\xe7\xbb\x83", "??",
      "\xe8\xae\xad\xe7\xbb\x83", "\xe8\xae\xad\xe7\xbb\x83", "\xe8\xae\xad\xe7\xbb\x83",
      "\xe8\xae\xad\xe7\xbb\x83"}},
    {"4-byte",
     "\xf0\x9f\x98\x80",
     0,
     {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "?", "\xf0\x9f\x98\x80",
      "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"}},
    {"U+10FFFF",
     "\xf4\x8f\xbf\xbf",
     0,
     {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", "?", "\xf4\x8f\xbf\xbf",
      "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"}},
    {"U+FFFD itself", R, 0, {R, R, R, "?", R, R, R, R}},
    /* invalid UTF-8: each byte outside a well-formed sequence is one U+FFFD */
    {"lone 0xff", "a\xff", 0, {"a" R, "a" R, "a" R, "a?", "a" R, "a" R, "a" R, "a" R}},
    {"0xfe 0xff", "\xfe\xff", 0, {R R, R R, R R, "??", R R, R R, R R, R R}},
    {"lone continuation", "\x80x", 0, {R "x", R "x", R "x", "?x", R "x", R "x", R "x", R "x"}},
    {"cut short",
     "ab\xe8\xae",
     0,
     {"ab" R R, "ab" R R, "ab" R R, "ab??", "ab" R R, "ab" R R, "ab" R R, "ab" R R}},
    {"bad continuation", "\xc3(", 0, {R "(", R "(", R "(", "?(", R "(", R "(", R "(", R "("}},
    {"overlong 2-byte /", "\xc0\xaf", 0, {R R, R R, R R, "??", R R, R R, R R, R R}},
    {"overlong 2-byte NUL", "\xc1\x80", 0, {R R, R R, R R, "??", R R, R R, R R, R R}},
    {"overlong 3-byte",
     "\xe0\x80\xaf",
     0,
     {R R R, R R R, R R R, "???", R R R, R R R, R R R, R R R}},
    {"overlong 4-byte",
     "\xf0\x80\x80\xaf",
     0,
     {R R R R, R R R R, R R R R, "????", R R R R, R R R R, R R R R, R R R R}},
    {"surrogate D800", "\xed\xa0\x80", 0, {R R R, R R R, R R R, "???", R R R, R R R, R R R, R R R}},
    {"surrogate DFFF", "\xed\xbf\xbf", 0, {R R R, R R R, R R R, "???", R R R, R R R, R R R, R R R}},
    {"above U+10FFFF",
     "\xf4\x90\x80\x80",
     0,
     {R R R R, R R R R, R R R R, "????", R R R R, R R R R, R R R R, R R R R}},
    {"F5 lead",
     "\xf5\x80\x80\x80",
     0,
     {R R R R, R R R R, R R R R, "????", R R R R, R R R R, R R R R, R R R R}},
    {"latin-1",
     "Jos\xe9",
     0,
     {"Jos" R, "Jos" R, "Jos" R, "Jos?", "Jos" R, "Jos" R, "Jos" R, "Jos" R}},
    /* controls */
    {"ESC",
     "\x1b[2J",
     0,
     {"\x1b[2J", R "[2J", R "[2J", "?[2J", R "[2J", R "[2J", R "[2J", "\\u001b[2J"}},
    {"newline",
     "a\nb",
     0,
     {"a\nb", "a" R "b", "a" R "b", "a?b", "a\\nb", "a" R "b", "a" R "b", "a\\nb"}},
    {"tab and CR",
     "a\tb\rc",
     0,
     {"a\tb\rc", "a" R "b" R "c", "a" R "b" R "c", "a?b?c", "a" R "b" R "c", "a" R "b" R "c",
      "a" R "b" R "c", "a\\tb\\rc"}},
    {"NUL inside",
     "a\0b",
     3,
     {"a\0b", "a" R "b", "a" R "b", "a?b", "a" R "b", "a" R "b", "a" R "b", "a\\u0000b"}},
    {"DEL", "x\x7f", 0, {"x\x7f", "x" R, "x" R, "x?", "x" R, "x" R, "x" R, "x\\u007f"}},
    {"C1 CSI U+009B",
     "\xc2\x9b"
     "31m",
     0,
     {"\xc2\x9b"
      "31m",
      R "31m", R "31m", "?31m", R "31m", R "31m", R "31m", "\\u009b31m"}},
    {"C1 NEL U+0085", "\xc2\x85", 0, {"\xc2\x85", R, R, "?", R, R, R, "\\u0085"}},
    {"U+00A0 is not C1",
     "\xc2\xa0",
     0,
     {"\xc2\xa0", "\xc2\xa0", "\xc2\xa0", "?", "\xc2\xa0", "\xc2\xa0", "\xc2\xa0", "\xc2\xa0"}},
    {"U+2028",
     "a\xe2\x80\xa8",
     0,
     {"a\xe2\x80\xa8", "a\xe2\x80\xa8", "a\xe2\x80\xa8", "a?", "a\xe2\x80\xa8", "a\xe2\x80\xa8",
      "a\xe2\x80\xa8", "a\\u2028"}},
    /* what each form quotes */
    {"quote and backslash",
     "say \"hi\" C:\\x",
     0,
     {"say \"hi\" C:\\x", "say \"hi\" C:\\x", "say \"hi\" C:\\x", "say \"hi\" C:\\x",
      "say \\\"hi\\\" C:\\\\x", "\"say \"\"hi\"\" C:\\x\"", "\"say \"\"hi\"\" C:\\x\"",
      "say \\\"hi\\\" C:\\\\x"}},
    {"comma", "a,b", 0, {"a,b", "a,b", "a,b", "a,b", "a,b", "\"a,b\"", "\"a,b\"", "a,b"}},
    /* the formula rule: only for outside text, after the line form */
    {"formula =", "=1+2", 0, {"=1+2", "=1+2", "=1+2", "=1+2", "=1+2", "=1+2", "'=1+2", "=1+2"}},
    {"formula + - @", "+x", 0, {"+x", "+x", "+x", "+x", "+x", "+x", "'+x", "+x"}},
    {"minus one", "-1", 0, {"-1", "-1", "-1", "-1", "-1", "-1", "'-1", "-1"}},
    {"login shell",
     "-bash",
     0,
     {"-bash", "-bash", "-bash", "-bash", "-bash", "-bash", "'-bash", "-bash"}},
    {"at",
     "@SUM(A1)",
     0,
     {"@SUM(A1)", "@SUM(A1)", "@SUM(A1)", "@SUM(A1)", "@SUM(A1)", "@SUM(A1)", "'@SUM(A1)",
      "@SUM(A1)"}},
    {"leading quote is doubled", "'x", 0, {"'x", "'x", "'x", "'x", "'x", "'x", "''x", "'x"}},
    {"formula with comma",
     "=HYPERLINK(\"u\",\"c\")",
     0,
     {"=HYPERLINK(\"u\",\"c\")", "=HYPERLINK(\"u\",\"c\")", "=HYPERLINK(\"u\",\"c\")",
      "=HYPERLINK(\"u\",\"c\")", "=HYPERLINK(\\\"u\\\",\\\"c\\\")",
      "\"=HYPERLINK(\"\"u\"\",\"\"c\"\")\"", "\"'=HYPERLINK(\"\"u\"\",\"\"c\"\")\"",
      "=HYPERLINK(\\\"u\\\",\\\"c\\\")"}},
    {"leading tab", "\t=1", 0, {"\t=1", R "=1", R "=1", "?=1", R "=1", R "=1", R "=1", "\\t=1"}},
    {"formula later in cell", "a=1", 0, {"a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "a=1"}},
    /* the name the hardening was about */
    {"hostile comm",
     "ev\xff\xfe\n\x1b[2Jx",
     0,
     {"ev" R R "\n\x1b[2Jx", "ev" R R R R "[2Jx", "ev" R R R R "[2Jx", "ev????[2Jx",
      "ev" R R "\\n" R "[2Jx", "ev" R R R R "[2Jx", "ev" R R R R "[2Jx",
      "ev" R R "\\n\\u001b[2Jx"}},
};

static void test_table(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        size_t n = rows[i].n ? rows[i].n : strlen(rows[i].in);
        for (int f = 0; f < T__N; f++) {
            struct gm_buf b = GM_BUF_INIT;
            apply(f, &b, rows[i].in, n);
            const char *want = rows[i].want[f];
            size_t wn = f == T_UTF8 && rows[i].n ? rows[i].n : strlen(want);
            if (b.len != wn || (wn && memcmp(b.p, want, wn) != 0)) {
                print_error("%s, %s: got \"%s\" want \"%s\"\n", rows[i].name, form_name[f],
                            b.p ? b.p : "", want);
                bad++;
            }
            gm_buf_free(&b);
        }
    }
    assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ properties */

static void check_forms(const char *s, size_t n, int *bad)
{
    int clean = ref_valid(s, n) && !has_control(s, n) && !has_bidi(s, n);
    assert_int_equal(gm_text_is_clean(s, n), clean);
    assert_int_equal(gm_text_is_utf8(s, n), ref_valid(s, n));
    for (int f = 0; f < T__N; f++) {
        struct gm_buf b = GM_BUF_INIT;
        apply(f, &b, s, n);
        const char *o = b.p ? b.p : "";
        if (!ref_valid(o, b.len)) {
            print_error("%s: output is not UTF-8\n", form_name[f]);
            (*bad)++;
        }
        if (f != T_UTF8 && has_control(o, b.len)) {
            print_error("%s: output holds a control byte\n", form_name[f]);
            (*bad)++;
        }
        if (f != T_UTF8 && f != T_PROM && f != T_JSON && has_bidi(o, b.len)) {
            print_error("%s: output holds a bidi control\n", form_name[f]);
            (*bad)++;
        }
        if (f == T_UTF8 && ref_valid(s, n) && (b.len != n || memcmp(o, s, n) != 0)) {
            print_error("utf8: valid input changed\n");
            (*bad)++;
        }
        if (clean && (f == T_LINE || f == T_TERM) && (b.len != n || memcmp(o, s, n) != 0)) {
            print_error("%s: clean input changed\n", form_name[f]);
            (*bad)++;
        }
        gm_buf_free(&b);
    }
}

static void test_all_short_strings(void **state)
{
    (void)state;
    int bad = 0;
    char s[2];
    for (unsigned a = 0; a < 256; a++) {
        s[0] = (char)a;
        check_forms(s, 1, &bad);
        for (unsigned c = 0; c < 256; c++) {
            s[1] = (char)c;
            check_forms(s, 2, &bad);
        }
    }
    assert_int_equal(bad, 0);
}

static void test_random_strings(void **state)
{
    (void)state;
    int bad = 0;
    unsigned seed = 12345;
    /* bytes drawn mostly from the interesting ones: leads, continuations,
     * controls, quotes */
    static const unsigned char pool[] = {'a',  ' ',  ',',  '"',  '\\', '=',  '\n', '\t', 0x1b,
                                         0x7f, 0x80, 0x9b, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed,
                                         0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x90, 0x8f, 0,
                                         0xe2, 0xe2, 0x80, 0x81, 0xae, 0xa6, 0xd8, 0x9c};
    for (int k = 0; k < 20000; k++) {
        char s[12];
        seed = seed * 1103515245u + 12345u;
        size_t n = 3 + (seed >> 16) % 9;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            s[i] = (char)pool[(seed >> 16) % sizeof(pool)];
        }
        check_forms(s, n, &bad);
    }
    assert_int_equal(bad, 0);
}

/* gm_text_utf8_seq against the reference on every lead byte followed by
 * each continuation class. */
static void test_seq_reference(void **state)
{
    (void)state;
    static const unsigned char conts[] = {0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0};
    for (unsigned a = 0; a < 256; a++)
        for (size_t i = 0; i < N_ELEM(conts); i++)
            for (size_t j = 0; j < N_ELEM(conts); j++)
                for (size_t k = 0; k < N_ELEM(conts); k++) {
                    unsigned char s[4] = {(unsigned char)a, conts[i], conts[j], conts[k]};
                    for (size_t n = 1; n <= 4; n++) {
                        uint32_t cp = 0;
                        size_t got = gm_text_utf8_seq((const char *)s, n, &cp);
                        size_t want = ref_seq(s, n);
                        if (got != want)
                            fail_msg("%02x %02x %02x %02x (n=%zu): got %zu want %zu", s[0], s[1],
                                     s[2], s[3], n, got, want);
                    }
                }
    uint32_t cp;
    assert_int_equal(gm_text_utf8_seq("\xe2\x82\xac", 3, &cp), 3);
    assert_int_equal(cp, 0x20AC);
    assert_int_equal(gm_text_utf8_seq("", 0, &cp), 0);
}

static void test_control_classes(void **state)
{
    (void)state;
    static const struct {
        uint32_t cp;
        int ctl;
    } t[] = {{0, 1},    {0x1f, 1}, {0x20, 0}, {0x7e, 0},   {0x7f, 1},
             {0x80, 1}, {0x9f, 1}, {0xa0, 0}, {0xfffd, 0}, {0x2028, 0}};
    for (size_t i = 0; i < N_ELEM(t); i++)
        if (gm_text_is_control(t[i].cp) != t[i].ctl)
            fail_msg("U+%04X: got %d", (unsigned)t[i].cp, !t[i].ctl);
}

/* Every bidirectional formatting character (U+202E RIGHT-TO-LEFT OVERRIDE
 * reverses the rest of a terminal line or a report row): replaced like a
 * control by the forms a person reads (line, terminal, CSV, HTML), kept by
 * the data forms (UTF-8 repair, Prometheus label, JSON), and not clean. */
static void test_bidi(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t k = 0; k < N_ELEM(bidi_cps); k++) {
        uint32_t c = bidi_cps[k];
        char in[8];
        if (c < 0x800)
            snprintf(in, sizeof in, "a%c%cb", (char)(0xC0 | (c >> 6)), (char)(0x80 | (c & 0x3F)));
        else
            snprintf(in, sizeof in, "a%c%c%cb", (char)(0xE0 | (c >> 12)),
                     (char)(0x80 | ((c >> 6) & 0x3F)), (char)(0x80 | (c & 0x3F)));
        size_t n = strlen(in);
        const char *want[T__N] = {in, "a" R "b", "a" R "b", "a?b", in, "a" R "b", "a" R "b", in};
        for (int f = 0; f < T__N; f++) {
            struct gm_buf b = GM_BUF_INIT;
            apply(f, &b, in, n);
            if (strcmp(b.p ? b.p : "", want[f]) != 0) {
                print_error("U+%04X, %s: got \"%s\" want \"%s\"\n", (unsigned)c, form_name[f],
                            b.p ? b.p : "", want[f]);
                bad++;
            }
            gm_buf_free(&b);
        }
        struct gm_buf h = GM_BUF_INIT;
        gm_text_html(&h, in, n);
        if (strcmp(h.p ? h.p : "", "a" R "b") != 0) {
            print_error("U+%04X, html: got \"%s\"\n", (unsigned)c, h.p ? h.p : "");
            bad++;
        }
        gm_buf_free(&h);
        if (gm_text_is_clean(in, n) || !gm_text_is_utf8(in, n) || !gm_text_is_bidi(c)) {
            print_error("U+%04X: clean %d, utf8 %d, bidi %d\n", (unsigned)c,
                        gm_text_is_clean(in, n), gm_text_is_utf8(in, n), gm_text_is_bidi(c));
            bad++;
        }
        char t[16];
        if (strcmp(gm_text_term_s(t, sizeof t, in, 1), "a" R "b") != 0) {
            print_error("U+%04X, term_s: got \"%s\"\n", (unsigned)c, t);
            bad++;
        }
    }
    /* the neighbours of each range are ordinary text */
    static const uint32_t not_bidi[] = {0x061B, 0x061D, 0x200D, 0x2010, 0x2029,
                                        0x202F, 0x2065, 0x206A, 0x05D0, 0xFFFD};
    for (size_t k = 0; k < N_ELEM(not_bidi); k++)
        if (gm_text_is_bidi(not_bidi[k])) {
            print_error("U+%04X counted as bidi\n", (unsigned)not_bidi[k]);
            bad++;
        }
    /* an RLO in a real name: the terminal line keeps its order */
    struct gm_buf b = GM_BUF_INIT;
    gm_text_term(&b, "evil\xe2\x80\xaetxt.exe", 14, 1);
    if (strcmp(b.p, "evil" R "txt.exe") != 0) {
        print_error("RLO name: got \"%s\"\n", b.p);
        bad++;
    }
    gm_buf_free(&b);
    assert_int_equal(bad, 0);
}

static void test_term_bounded(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        int utf8;
        const char *want;
    } t[] = {
        {"python3", 32, 1, "python3"},
        {"python3", 4, 1, "pyt"},
        {"ab\xe8\xae\xad", 5, 1, "ab"}, /* the 3-byte character does not fit in 4 */
        {"ab\xe8\xae\xad", 6, 1, "ab\xe8\xae\xad"},
        {"a\x1b", 4, 1, "a"}, /* U+FFFD is 3 bytes: "a" + 3 would need 5 */
        {"a\x1b", 5, 1, "a" R},
        {"a\x1b\xff", 64, 0, "a??"},
        {"", 8, 1, ""},
        {NULL, 8, 1, ""},
    };
    for (size_t i = 0; i < N_ELEM(t); i++) {
        char dst[64];
        memset(dst, 'Z', sizeof(dst));
        const char *got = gm_text_term_s(dst, t[i].len, t[i].in, t[i].utf8);
        assert_ptr_equal(got, dst);
        if (strcmp(got, t[i].want) != 0)
            fail_msg("row %zu: got \"%s\" want \"%s\"", i, got, t[i].want);
    }
    char one[1] = {'Z'};
    assert_string_equal(gm_text_term_s(one, 1, "abc", 1), "");
}

static void test_width_and_formula(void **state)
{
    (void)state;
    assert_int_equal(gm_text_width(""), 0);
    assert_int_equal(gm_text_width("H100"), 4);
    assert_int_equal(gm_text_width("ev" R R "x"), 5);
    assert_int_equal(gm_text_width("\xe8\xae\xad"), 1);
    static const struct {
        const char *s;
        int f;
    } t[] = {{"=", 1},  {"+", 1}, {"-", 1}, {"@", 1},  {"'", 1}, {"\t", 1},
             {"\r", 1}, {"a", 0}, {"", 0},  {" =", 0}, {"1", 0}, {R, 0}};
    for (size_t i = 0; i < N_ELEM(t); i++)
        if (gm_text_csv_formula(t[i].s, strlen(t[i].s)) != t[i].f)
            fail_msg("\"%s\": got %d", t[i].s, !t[i].f);
}

/* The HTML form: the five characters as references, the rest as the line
 * form (controls and invalid bytes as U+FFFD), and nothing else touched. */
static void test_html(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"python3", "python3"},
        {"", ""},
        {"<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"},
        {"a & b \"c\"", "a &amp; b &quot;c&quot;"},
        {"&amp;", "&amp;amp;"},
        {"x\ny\x1b[2J\xff<", "x" R "y" R "[2J" R "&lt;"},
        {"\xc2\x9b<b>", R "&lt;b&gt;"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_buf b = GM_BUF_INIT;
        gm_text_html(&b, cases[i].in, strlen(cases[i].in));
        if (strcmp(b.p ? b.p : "", cases[i].want) != 0)
            fail_msg("html form of case %zu: got '%s', want '%s'", i, b.p ? b.p : "",
                     cases[i].want);
        assert_null(memchr(b.p ? b.p : "", '<', b.len));
        gm_buf_free(&b);
    }
}

/* ------------------------------------------------------- did you mean */

static void test_choice(void **state)
{
    (void)state;
    const struct {
        const char *choices, *word;
        int nocase, want;
    } t[] = {
        {"error|warning|notice", "error", 0, 0},
        {"error|warning|notice", "notice", 0, 2},
        {"error|warning|notice", "warn", 0, -1},     /* a prefix */
        {"error|warning|notice", "warnings", 0, -1}, /* longer */
        {"error|warning|notice", "Error", 0, -1},
        {"error|warning|notice", "Error", 1, 0},
        {"error|warning|notice", "", 0, -1},
        {"error|warning|notice", "error|warning", 0, -1},
        {"check|show", "show", 0, 1},
        {"a||b", "b", 0, 2}, /* an empty choice counts its place */
        {"", "x", 0, -1},
        {NULL, "x", 0, -1},
        {"nosniff", "NOSNIFF", 1, 0},
    };
    for (size_t i = 0; i < N_ELEM(t); i++) {
        int got = gm_text_choice(t[i].choices, t[i].word, t[i].nocase);
        if (got != t[i].want)
            fail_msg("'%s' in '%s' (nocase %d): %d, want %d", t[i].word,
                     t[i].choices ? t[i].choices : "(null)", t[i].nocase, got, t[i].want);
    }
}

static void test_distance(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int max, want;
    } cases[] = {
        {"status", "status", 3, 0},
        {"stauts", "status", 3, 1}, /* a swap of neighbours is one edit */
        {"staus", "status", 3, 1},
        {"statuss", "status", 3, 1},
        {"stat", "status", 3, 2},
        {"temperatur.gpu", "temperature.gpu", 3, 1},
        {"ca", "abc", 3, 3}, /* optimal string alignment: no edit of a swapped pair */
        {"", "top", 3, 3},
        {"", "", 0, 0},
        {"kitten", "sitting", 3, 3},
        {"kitten", "sitting", 2, 3}, /* past max: max + 1 */
        {"a", "abcdefgh", 2, 3},     /* lengths alone rule it out */
        {"report", "plot", 1, 2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int d = gm_text_distance(cases[i].a, strlen(cases[i].a), cases[i].b, strlen(cases[i].b),
                                 cases[i].max);
        if (d != cases[i].want)
            fail_msg("distance(%s, %s, max %d) = %d, want %d", cases[i].a, cases[i].b, cases[i].max,
                     d, cases[i].want);
        /* symmetric */
        assert_int_equal(gm_text_distance(cases[i].b, strlen(cases[i].b), cases[i].a,
                                          strlen(cases[i].a), cases[i].max),
                         d);
    }
    /* longer than the bound: never close, even to itself */
    char big[GM_TEXT_SUGGEST_MAX + 2];
    memset(big, 'x', sizeof(big));
    assert_int_equal(gm_text_distance(big, sizeof(big), big, sizeof(big), 3), 4);
    assert_int_equal(gm_text_distance(big, GM_TEXT_SUGGEST_MAX, big, GM_TEXT_SUGGEST_MAX, 3), 0);
}

/* The full, unbounded table (optimal string alignment), to check the bounded
 * one on random short strings over a small alphabet. */
static int osa_reference(const char *a, size_t na, const char *b, size_t nb)
{
    int d[9][9];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + (a[i - 1] != b[j - 1]) < v)
                v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

static void test_distance_reference(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    for (int n = 0; n < 20000; n++) {
        char a[8], b[8];
        seed = seed * 1103515245u + 12345u;
        size_t na = (seed >> 8) % 9, nb = (seed >> 16) % 9;
        if (na > 8)
            na = 8;
        for (size_t i = 0; i < 8; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i] = (char)('a' + (seed >> 10) % 3);
            b[i] = (char)('a' + (seed >> 20) % 3);
        }
        na = na > 8 ? 8 : na;
        nb = nb > 8 ? 8 : nb;
        int max = (int)(seed >> 28) % 5;
        int ref = osa_reference(a, na, b, nb);
        int got = gm_text_distance(a, na, b, nb, max);
        if (got != (ref > max ? max + 1 : ref))
            fail_msg("distance(%.*s, %.*s, max %d) = %d, reference %d", (int)na, a, (int)nb, b, max,
                     got, ref);
    }
}

static void test_suggest(void **state)
{
    (void)state;
    static const char *const names[] = {"status", "query", "agent", "record", "serve", "mark",
                                        "report", "top",   "free",  "plot",   NULL /* skipped */};
    static const struct {
        const char *word;
        const char *want; /* NULL: nothing close enough */
    } cases[] = {
        {"stauts", "status"}, {"statsu", "status"}, {"qeury", "query"},   {"reprot", "report"},
        {"tpo", "top"},       {"fre", "free"},      {"mrk", "mark"},      {"xyz", NULL},
        {"", NULL},           {"st", NULL},         {"statistics", NULL}, {"serv", "serve"},
        {"plto", "plot"}, /* a swap of neighbours */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gm_text_suggest sg;
        gm_text_suggest_init(&sg, cases[i].word, strlen(cases[i].word));
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
            gm_text_suggest_add(&sg, names[k]);
        if ((sg.best == NULL) != (cases[i].want == NULL) ||
            (sg.best && strcmp(sg.best, cases[i].want) != 0))
            fail_msg("suggest(%s) = %s, want %s", cases[i].word, sg.best ? sg.best : "NULL",
                     cases[i].want ? cases[i].want : "NULL");
    }
    /* a tie goes to the first name added */
    static const char *const tie[] = {"abd", "abe"};
    struct gm_text_suggest sg;
    gm_text_suggest_init(&sg, "abc", 3);
    gm_text_suggest_add(&sg, tie[0]);
    gm_text_suggest_add(&sg, tie[1]);
    assert_ptr_equal(sg.best, tie[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_all_short_strings),
        cmocka_unit_test(test_random_strings),
        cmocka_unit_test(test_seq_reference),
        cmocka_unit_test(test_control_classes),
        cmocka_unit_test(test_bidi),
        cmocka_unit_test(test_term_bounded),
        cmocka_unit_test(test_width_and_formula),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_distance_reference),
        cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* text.c -- the outside-text sanitiser (see text.h).
 *
 * One walker does every form: it copies runs of printable ASCII in one
 * call, decodes each other sequence with gm_text_utf8_seq, and lets the form
 * decide what an invalid byte, a control character or a form-special ASCII
 * character (the quotes and backslash of Prometheus and JSON) becomes.  CSV
 * is the line form plus its own quoting on top.  The forms a person reads
 * (line, terminal, and CSV and HTML through the line form) also replace the
 * bidirectional formatting characters, which reorder the rest of a line;
 * the data forms (UTF-8 repair, Prometheus, JSON) keep them.
 */
#include "text.h"

#include <string.h>
#include <strings.h>

enum form {
    F_UTF8,       /* repair only */
    F_LINE,       /* repair, controls and bidi controls -> U+FFFD */
    F_TERM_ASCII, /* anything but printable ASCII -> '?' */
    F_PROM,       /* label value body */
    F_JSON,       /* string body */
};

size_t gm_text_utf8_seq(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    if (n == 0)
        return 0;
    unsigned c = p[0];
    size_t len;
    uint32_t v;
    if (c < 0x80) {
        len = 1;
        v = c;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
    } else {
        return 0; /* continuation byte, C0/C1 (overlong 2-byte) or F5-FF lead */
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || v > 0x10FFFF ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0; /* overlong, above U+10FFFF, surrogate */
    if (cp)
        *cp = v;
    return len;
}

int gm_text_is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

int gm_text_is_bidi(uint32_t cp)
{
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

int gm_text_is_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t l = gm_text_utf8_seq(s + i, n - i, NULL);
        if (!l)
            return 0;
        i += l;
    }
    return 1;
}

int gm_text_is_clean(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (p[i] >= 0x20 && p[i] < 0x7F) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t l = gm_text_utf8_seq(s + i, n - i, &cp);
        if (!l || gm_text_is_control(cp) || gm_text_is_bidi(cp))
            return 0;
        i += l;
    }
    return 1;
}

/* Printable ASCII that the form must escape. */
static int special(enum form f, unsigned c)
{
    return (f == F_PROM || f == F_JSON) && (c == '\\' || c == '"');
}

/* A control character (C0, DEL or C1; cp) whose UTF-8 bytes are s[0..l). */
static void put_control(struct gm_buf *b, enum form f, uint32_t cp, const char *s, size_t l)
{
    switch (f) {
    case F_UTF8:
        gm_buf_put(b, s, l);
        return;
    case F_TERM_ASCII:
        gm_buf_putc(b, '?');
        return;
    case F_PROM:
        gm_buf_puts(b, cp == '\n' ? "\\n" : GM_TEXT_REPL);
        return;
    case F_JSON:
        switch (cp) {
        case '\n':
            gm_buf_puts(b, "\\n");
            return;
        case '\t':
            gm_buf_puts(b, "\\t");
            return;
        case '\r':
            gm_buf_puts(b, "\\r");
            return;
        default:
            gm_buf_printf(b, "\\u%04x", (unsigned)cp);
            return;
        }
    default:
        gm_buf_puts(b, GM_TEXT_REPL);
        return;
    }
}

static void walk(struct gm_buf *b, const char *s, size_t n, enum form f)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    gm_buf_reserve(b, n);
    while (i < n) {
        /* a run of characters that need nothing, in one call */
        size_t run = i;
        while (run < n && p[run] >= 0x20 && p[run] < 0x7F && !special(f, p[run]))
            run++;
        if (run > i) {
            gm_buf_put(b, s + i, run - i);
            i = run;
            continue;
        }
        if (special(f, p[i])) {
            gm_buf_putc(b, '\\');
            gm_buf_putc(b, (char)p[i]);
            i++;
            continue;
        }
        uint32_t cp;
        size_t l = gm_text_utf8_seq(s + i, n - i, &cp);
        if (!l) {
            if (f == F_TERM_ASCII)
                gm_buf_putc(b, '?');
            else
                gm_buf_puts(b, GM_TEXT_REPL);
            i++;
            continue;
        }
        if (gm_text_is_control(cp) || (f == F_LINE && gm_text_is_bidi(cp)))
            put_control(b, f, cp, s + i, l); /* F_LINE: U+FFFD */
        else if (f == F_TERM_ASCII)
            gm_buf_putc(b, '?');
        else if (f == F_JSON && (cp == 0x2028 || cp == 0x2029))
            gm_buf_printf(b, "\\u%04x", (unsigned)cp);
        else
            gm_buf_put(b, s + i, l);
        i += l;
    }
}

void gm_text_utf8(struct gm_buf *b, const char *s, size_t n)
{
    walk(b, s, n, F_UTF8);
}

void gm_text_line(struct gm_buf *b, const char *s, size_t n)
{
    walk(b, s, n, F_LINE);
}

void gm_text_term(struct gm_buf *b, const char *s, size_t n, int utf8)
{
    walk(b, s, n, utf8 ? F_LINE : F_TERM_ASCII);
}

const char *gm_text_term_s(char *dst, size_t len, const char *s, int utf8)
{
    if (!len)
        return dst;
    dst[0] = '\0';
    if (!s)
        return dst;
    struct gm_buf t = GM_BUF_INIT;
    gm_text_term(&t, s, strlen(s), utf8);
    size_t n = t.len;
    if (n >= len) {
        n = len - 1;
        while (n > 0 && ((unsigned char)t.p[n] & 0xC0) == 0x80)
            n--; /* t.p[n] starts the character that does not fit */
    }
    if (n)
        memcpy(dst, t.p, n);
    dst[n] = '\0';
    gm_buf_free(&t);
    return dst;
}

size_t gm_text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

void gm_text_prom(struct gm_buf *b, const char *s, size_t n)
{
    walk(b, s, n, F_PROM);
}

int gm_text_csv_formula(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    switch (s[0]) {
    case '=':
    case '+':
    case '-':
    case '@':
    case '\'':
    case '\t':
    case '\r':
        return 1;
    default:
        return 0;
    }
}

void gm_text_csv(struct gm_buf *b, const char *s, size_t n, unsigned flags)
{
    struct gm_buf t = GM_BUF_INIT;
    if (!gm_text_is_clean(s, n)) {
        gm_text_line(&t, s, n);
        s = t.p;
        n = t.len;
    }
    int quote = n > 0 && (memchr(s, ',', n) || memchr(s, '"', n));
    if (quote)
        gm_buf_putc(b, '"');
    if ((flags & GM_TEXT_CSV_OUTSIDE) && gm_text_csv_formula(s, n))
        gm_buf_putc(b, '\'');
    if (quote) {
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '"')
                gm_buf_putc(b, '"');
            gm_buf_putc(b, s[i]);
        }
        gm_buf_putc(b, '"');
    } else {
        gm_buf_put(b, s, n);
    }
    gm_buf_free(&t);
}

void gm_text_json(struct gm_buf *b, const char *s, size_t n)
{
    walk(b, s, n, F_JSON);
}

void gm_text_html(struct gm_buf *b, const char *s, size_t n)
{
    struct gm_buf t = GM_BUF_INIT;
    if (!gm_text_is_clean(s, n)) {
        gm_text_line(&t, s, n);
        s = t.p;
        n = t.len;
    }
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&':
            gm_buf_puts(b, "&amp;");
            break;
        case '<':
            gm_buf_puts(b, "&lt;");
            break;
        case '>':
            gm_buf_puts(b, "&gt;");
            break;
        case '"':
            gm_buf_puts(b, "&quot;");
            break;
        case '\'':
            gm_buf_puts(b, "&#39;");
            break;
        default:
            gm_buf_putc(b, s[i]);
        }
    }
    gm_buf_free(&t);
}

/* ------------------------------------------------------- did you mean */

/* Optimal string alignment distance with three rows of at most
 * GM_TEXT_SUGGEST_MAX + 1 cells: bounded memory, no allocation.  Stops early
 * when a whole row is past max (no later row can come back under it). */
int gm_text_distance(const char *a, size_t na, const char *b, size_t nb, int max)
{
    if (na > GM_TEXT_SUGGEST_MAX || nb > GM_TEXT_SUGGEST_MAX)
        return max + 1;
    if ((na > nb ? na - nb : nb - na) > (size_t)max)
        return max + 1;
    int rows[3][GM_TEXT_SUGGEST_MAX + 1];
    int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= nb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = (int)i;
        int row_min = cur[0];
        for (size_t j = 1; j <= nb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < row_min)
                row_min = d;
        }
        if (row_min > max)
            return max + 1;
        int *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[nb] > max ? max + 1 : prev[nb];
}

void gm_text_suggest_init(struct gm_text_suggest *sg, const char *word, size_t len)
{
    sg->word = word;
    sg->len = len;
    sg->max = len <= 5 ? 1 : len <= 9 ? 2 : 3;
    sg->best = NULL;
    sg->best_d = sg->max + 1;
}

void gm_text_suggest_add(struct gm_text_suggest *sg, const char *cand)
{
    if (!cand)
        return;
    int d = gm_text_distance(sg->word, sg->len, cand, strlen(cand), sg->max);
    if (d < sg->best_d) {
        sg->best_d = d;
        sg->best = cand;
    }
}

int gm_text_choice(const char *choices, const char *word, int nocase)
{
    size_t n = strlen(word);
    int idx = 0;
    for (const char *p = choices; p && *p && n; idx++) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && (nocase ? strncasecmp(p, word, n) : strncmp(p, word, n)) == 0)
            return idx;
        p = e ? e + 1 : NULL;
    }
    return -1;
}

/* fjson.c -- the recursive-descent JSON reader of fjson.h.
 *
 * Recursion is bounded by GM_FJ_MAX_DEPTH, the work by the input's length
 * and max_nodes; numbers are read with strtod after their RFC 8259 form
 * has been checked (strtod alone takes "0x1p3", "inf" and "nan").  It
 * does not keep duplicate keys apart: gm_fj_get answers the first.
 */
#include "fjson.h"

#include "../core/buf.h"

#include <stdlib.h>
#include <string.h>

struct rd {
    const char *s;
    size_t n, i;
    size_t nodes, max_nodes;
    struct gm_err *err;
    int failed;
};

static void fail(struct rd *r, const char *what)
{
    if (!r->failed)
        gm_err_set(r->err, GM_E_INVAL, "offset %zu: %s", r->i, what);
    r->failed = 1;
}

static void ws(struct rd *r)
{
    while (r->i < r->n &&
           (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
        r->i++;
}

static struct gm_fj *node(struct rd *r, enum gm_fj_type t)
{
    if (++r->nodes > r->max_nodes) {
        fail(r, "too many values");
        return NULL;
    }
    struct gm_fj *j = gm_xcalloc(1, sizeof(*j));
    j->type = t;
    return j;
}

static int hex4(struct rd *r, uint32_t *cp)
{
    if (r->n - r->i < 4)
        return -1;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = r->s[r->i + (size_t)k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    r->i += 4;
    *cp = v;
    return 0;
}

static void put_cp(struct gm_buf *b, uint32_t cp)
{
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    if (cp < 0x80) {
        gm_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        gm_buf_putc(b, (char)(0xC0 | (cp >> 6)));
        gm_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        gm_buf_putc(b, (char)(0xE0 | (cp >> 12)));
        gm_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        gm_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        gm_buf_putc(b, (char)(0xF0 | (cp >> 18)));
        gm_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        gm_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        gm_buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

/* A string at r->i (the opening quote); its bytes into *out (malloc'd). */
static int string(struct rd *r, char **out, size_t *len)
{
    struct gm_buf b = GM_BUF_INIT;
    r->i++;
    for (;;) {
        if (r->i >= r->n) {
            fail(r, "string not terminated");
            break;
        }
        /* the bytes up to the next quote, backslash or control character
         * in one piece: most strings have no escape and take one exact
         * allocation */
        size_t run = r->i;
        while (run < r->n && r->s[run] != '"' && r->s[run] != '\\' &&
               (unsigned char)r->s[run] >= 0x20)
            run++;
        if (run < r->n && r->s[run] == '"' && b.len == 0) {
            *len = run - r->i;
            *out = gm_xmalloc(*len + 1);
            memcpy(*out, r->s + r->i, *len);
            (*out)[*len] = '\0';
            r->i = run + 1;
            gm_buf_free(&b);
            return 0;
        }
        if (run > r->i) {
            gm_buf_put(&b, r->s + r->i, run - r->i);
            r->i = run;
            continue;
        }
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == '"') {
            r->i++;
            gm_buf_putc(&b, '\0');
            *out = b.p;
            *len = b.len - 1;
            return 0;
        }
        if (c < 0x20) {
            fail(r, "control character in a string");
            break;
        }
        if (++r->i >= r->n) {
            fail(r, "string not terminated");
            break;
        }
        char e = r->s[r->i++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *p = e ? strchr(from, e) : NULL;
        if (p) {
            gm_buf_putc(&b, to[p - from]);
            continue;
        }
        uint32_t cp, lo;
        if (e != 'u' || hex4(r, &cp) != 0) {
            fail(r, "bad escape in a string");
            break;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF && r->n - r->i >= 6 && r->s[r->i] == '\\' &&
            r->s[r->i + 1] == 'u') {
            size_t save = r->i;
            r->i += 2;
            if (hex4(r, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF)
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            else
                r->i = save;
        }
        put_cp(&b, cp);
    }
    gm_buf_free(&b);
    return -1;
}

static int number(struct rd *r, double *v)
{
    size_t i = r->i;
    if (i < r->n && r->s[i] == '-')
        i++;
    if (i >= r->n || r->s[i] < '0' || r->s[i] > '9')
        return -1;
    if (r->s[i] == '0')
        i++;
    else
        while (i < r->n && r->s[i] >= '0' && r->s[i] <= '9')
            i++;
    if (i < r->n && r->s[i] == '.') {
        i++;
        size_t d = i;
        while (i < r->n && r->s[i] >= '0' && r->s[i] <= '9')
            i++;
        if (i == d)
            return -1;
    }
    if (i < r->n && (r->s[i] == 'e' || r->s[i] == 'E')) {
        i++;
        if (i < r->n && (r->s[i] == '+' || r->s[i] == '-'))
            i++;
        size_t d = i;
        while (i < r->n && r->s[i] >= '0' && r->s[i] <= '9')
            i++;
        if (i == d)
            return -1;
    }
    if (i - r->i > 64)
        return -1;
    char tmp[80];
    memcpy(tmp, r->s + r->i, i - r->i);
    tmp[i - r->i] = '\0';
    *v = strtod(tmp, NULL);
    r->i = i;
    return 0;
}

static struct gm_fj *value(struct rd *r, int depth);

static void add(struct gm_fj *j, char *key, struct gm_fj *m)
{
    /* room for 4, then twice as much each time it is full (at 4, 8, 16, ...) */
    if (j->len == 0 || (j->len >= 4 && (j->len & (j->len - 1)) == 0)) {
        size_t cap = j->len ? j->len * 2 : 4;
        j->v = gm_xrealloc(j->v, cap * sizeof(struct gm_fj *));
        if (j->type == GM_FJ_OBJ)
            j->keys = gm_xrealloc(j->keys, cap * sizeof(*j->keys));
    }
    if (j->type == GM_FJ_OBJ)
        j->keys[j->len] = key;
    j->v[j->len++] = m;
}

static struct gm_fj *container(struct rd *r, int depth, int obj)
{
    struct gm_fj *j = node(r, obj ? GM_FJ_OBJ : GM_FJ_ARR);
    if (!j)
        return NULL;
    char close = obj ? '}' : ']';
    r->i++;
    ws(r);
    if (r->i < r->n && r->s[r->i] == close) {
        r->i++;
        return j;
    }
    for (;;) {
        char *key = NULL;
        size_t klen;
        ws(r);
        if (obj) {
            if (r->i >= r->n || r->s[r->i] != '"') {
                fail(r, "expected a key");
                break;
            }
            if (string(r, &key, &klen) != 0)
                break;
            ws(r);
            if (r->i >= r->n || r->s[r->i] != ':') {
                free(key);
                fail(r, "expected ':'");
                break;
            }
            r->i++;
        }
        struct gm_fj *m = value(r, depth + 1);
        if (!m) {
            free(key);
            break;
        }
        add(j, key, m);
        ws(r);
        if (r->i < r->n && r->s[r->i] == ',') {
            r->i++;
            continue;
        }
        if (r->i < r->n && r->s[r->i] == close) {
            r->i++;
            return j;
        }
        fail(r, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    gm_fj_free(j);
    return NULL;
}

static int word(struct rd *r, const char *w)
{
    size_t l = strlen(w);
    if (r->n - r->i < l || memcmp(r->s + r->i, w, l) != 0)
        return -1;
    r->i += l;
    return 0;
}

static struct gm_fj *value(struct rd *r, int depth)
{
    if (depth > GM_FJ_MAX_DEPTH) {
        fail(r, "nested too deep");
        return NULL;
    }
    ws(r);
    if (r->i >= r->n) {
        fail(r, "unexpected end");
        return NULL;
    }
    char c = r->s[r->i];
    struct gm_fj *j;
    switch (c) {
    case '{':
    case '[':
        return container(r, depth, c == '{');
    case '"': {
        char *s;
        size_t len;
        if (string(r, &s, &len) != 0)
            return NULL;
        if (!(j = node(r, GM_FJ_STR))) {
            free(s);
            return NULL;
        }
        j->str = s;
        j->len = len;
        return j;
    }
    case 't':
    case 'f':
    case 'n':
        if (word(r, c == 't' ? "true" : c == 'f' ? "false" : "null") != 0)
            break;
        if (!(j = node(r, c == 'n' ? GM_FJ_NULL : GM_FJ_BOOL)))
            return NULL;
        j->b = c == 't';
        return j;
    default: {
        double v;
        if (number(r, &v) != 0)
            break;
        if (!(j = node(r, GM_FJ_NUM)))
            return NULL;
        j->num = v;
        return j;
    }
    }
    fail(r, "not a JSON value");
    return NULL;
}

struct gm_fj *gm_fj_parse(const char *text, size_t n, size_t max_nodes, struct gm_err *err)
{
    struct rd r = {.s = text, .n = n, .max_nodes = max_nodes, .err = err};
    struct gm_fj *j = value(&r, 0);
    if (j) {
        ws(&r);
        if (r.i != r.n) {
            fail(&r, "text after the JSON value");
            gm_fj_free(j);
            j = NULL;
        }
    }
    return j;
}

void gm_fj_free(struct gm_fj *j)
{
    if (!j)
        return;
    for (size_t k = 0; k < j->len && (j->type == GM_FJ_ARR || j->type == GM_FJ_OBJ); k++) {
        gm_fj_free(j->v[k]);
        if (j->keys)
            free(j->keys[k]);
    }
    free(j->v);
    free(j->keys);
    free(j->str);
    free(j);
}

const struct gm_fj *gm_fj_get(const struct gm_fj *o, const char *key)
{
    if (!o || o->type != GM_FJ_OBJ)
        return NULL;
    for (size_t k = 0; k < o->len; k++)
        if (strcmp(o->keys[k], key) == 0)
            return o->v[k];
    return NULL;
}

const char *gm_fj_str(const struct gm_fj *j)
{
    return j && j->type == GM_FJ_STR ? j->str : NULL;
}

int gm_fj_num(const struct gm_fj *j, double *v)
{
    if (!j || j->type != GM_FJ_NUM)
        return 0;
    *v = j->num;
    return 1;
}

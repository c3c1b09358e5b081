/* buf.c -- growable output buffer (see buf.h). */
#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

void gm_buf_reserve(struct gm_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    b->p = gm_xrealloc(b->p, cap);
    b->cap = cap;
}

void gm_buf_put(struct gm_buf *b, const char *s, size_t n)
{
    gm_buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void gm_buf_puts(struct gm_buf *b, const char *s)
{
    gm_buf_put(b, s, strlen(s));
}

void gm_buf_putc(struct gm_buf *b, char c)
{
    gm_buf_reserve(b, 1);
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

void gm_buf_fill(struct gm_buf *b, char c, size_t n)
{
    gm_buf_reserve(b, n);
    memset(b->p + b->len, c, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void gm_buf_vprintf(struct gm_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    gm_buf_reserve(b, 64);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    if (n < 0) {
        /* a failed conversion may have written part of its output: drop it */
        b->p[b->len] = '\0';
        va_end(ap2);
        return;
    }
    if ((size_t)n >= b->cap - b->len) {
        gm_buf_reserve(b, (size_t)n);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap2);
    }
    b->len += (size_t)n;
    va_end(ap2);
}

void gm_buf_printf(struct gm_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gm_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void gm_buf_reset(struct gm_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

void gm_buf_free(struct gm_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void gm_buf_ini_kv(struct gm_buf *b, const char *key, const char *value)
{
    gm_buf_puts(b, key);
    gm_buf_puts(b, value[0] == ';' ? " =" : " = ");
    gm_buf_puts(b, value);
    gm_buf_putc(b, '\n');
}

int gm_buf_write_fd(const struct gm_buf *b, int fd)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->p + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        off += (size_t)w;
    }
    return 0;
}

/* buf.h -- a growable byte buffer for building output (text, JSON, CSV,
 * Prometheus exposition) without sprintf into fixed arrays.
 *
 * The buffer is always NUL-terminated.  Allocation failure aborts (err.h).
 */
#ifndef GM_BUF_H
#define GM_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct gm_buf {
    char *p;
    size_t len;
    size_t cap;
};

#define GM_BUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void gm_buf_reserve(struct gm_buf *b, size_t extra);
void gm_buf_put(struct gm_buf *b, const char *s, size_t n);
void gm_buf_puts(struct gm_buf *b, const char *s);
void gm_buf_putc(struct gm_buf *b, char c);
void gm_buf_printf(struct gm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gm_buf_vprintf(struct gm_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Appends n copies of c. */
void gm_buf_fill(struct gm_buf *b, char c, size_t n);
/* Empties the buffer, keeping its memory. */
void gm_buf_reset(struct gm_buf *b);
void gm_buf_free(struct gm_buf *b);

/* Appends one "key = value" line of an INI file (config show), written so
 * that config.c's reader gives value back: when value starts with ';' it
 * goes right after the '=', as "key =;...", because that reader (inih's
 * syntax) takes a ';' after a blank for the start of a comment. */
void gm_buf_ini_kv(struct gm_buf *b, const char *key, const char *value);

/* Writes the whole buffer to fd, retrying short writes and EINTR.
 * Returns 0 or -errno. */
int gm_buf_write_fd(const struct gm_buf *b, int fd);

#endif /* GM_BUF_H */

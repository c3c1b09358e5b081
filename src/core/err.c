/* err.c -- error messages and the aborting allocators.
 *
 * Out of memory is not a recoverable condition in gpumon: the x* allocators
 * print one line and abort (STYLE.md).
 */
#include "err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GM_HAVE_MEMCHECK
#include <valgrind/memcheck.h>
#endif

int gm_err_set(struct gm_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

void gm_oom(void)
{
    static const char msg[] = "gpumon: fatal: out of memory\n";
    fwrite(msg, 1, sizeof(msg) - 1, stderr);
    abort();
}

void *gm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        gm_oom();
    return p;
}

void *gm_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        gm_oom();
    return p;
}

void gm_zero_sparse(void *p, size_t n)
{
#ifdef GM_HAVE_MEMCHECK
    /* Every byte is zero when this returns: those read as zero are left
     * alone, the rest written.  memcheck cannot know that of stack or
     * malloc memory, and would report each read below and every later use
     * of a byte left alone (3 million reports in a run of the agent,
     * hiding any real one); its bits are valid whatever they were. */
    (void)VALGRIND_MAKE_MEM_DEFINED(p, n);
#endif
    unsigned char *c = p, *end = c + n;
    while (c < end) {
        /* up to the next page boundary, so that a page read is one page */
        size_t step = 4096 - (size_t)((uintptr_t)c % 4096);
        if (step > (size_t)(end - c))
            step = (size_t)(end - c);
        size_t i = 0;
        while (i < step && !c[i])
            i++;
        if (i < step)
            memset(c + i, 0, step - i);
        c += step;
    }
}

void *gm_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        gm_oom();
    return q;
}

char *gm_xstrdup(const char *s)
{
    return gm_xstrndup(s, strlen(s));
}

char *gm_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = gm_xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *gm_strlcpy(char *dst, const char *src, size_t len)
{
    if (len == 0)
        return dst;
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
    return dst;
}

/* err.h -- error codes and the optional message carrier.
 *
 * House rule (STYLE.md): functions return 0 on success or a negative GM_E*
 * code; where a person needs to know more, an optional struct gm_err receives
 * a message.  Library code never prints and never exits; src/cli/ turns
 * errors into "gpumon: error: ..." and an exit status (docs/exit-codes in
 * README).
 */
#ifndef GM_ERR_H
#define GM_ERR_H

#include <stddef.h>

enum {
    GM_OK = 0,
    GM_E_INVAL = -1, /* bad argument or input (flag, field, file content) */
    GM_E_NOMEM = -2,
    GM_E_IO = -3,     /* a system call failed; errno-style detail in the message */
    GM_E_NOLIB = -4,  /* libnvidia-ml.so.1 could not be loaded */
    GM_E_DRIVER = -5, /* NVML init failed: driver not loaded, mismatch, ... */
    GM_E_NOPERM = -6,
    GM_E_NOTFOUND = -7,
    GM_E_TIMEOUT = -8,
    GM_E_BUSY = -9, /* a lock is held by someone else */
    GM_E_NOSPC = -10,
};

struct gm_err {
    int code;      /* the GM_E* code of the last failure */
    int nvml_code; /* the NVML return code behind it, or 0 */
    char msg[512];
};

/* Records code and a printf-style message in err (which may be NULL) and
 * returns code, so callers can write `return gm_err_set(err, GM_E_INVAL, ...)`. */
int gm_err_set(struct gm_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prints "gm: out of memory" to stderr and aborts.  Used by the x* allocators. */
void gm_oom(void) __attribute__((noreturn));

void *gm_xmalloc(size_t n);
void *gm_xcalloc(size_t n, size_t size);
void *gm_xrealloc(void *p, size_t n);
char *gm_xstrdup(const char *s);
char *gm_xstrndup(const char *s, size_t n);

/* Zeroes n bytes at p, writing only the 4 KiB pages of it that are not
 * zero already: a large, mostly unused struct in memory that was never
 * written (static storage, a fresh mapping) stays out of the process's
 * resident memory where it is unused, as reading leaves such pages unmapped
 * (the kernel's shared zero page).  Afterwards all n bytes read as zero. */
void gm_zero_sparse(void *p, size_t n);

/* Bounded copy that always NUL-terminates (when len > 0); returns dst. */
char *gm_strlcpy(char *dst, const char *src, size_t len);

#endif /* GM_ERR_H */

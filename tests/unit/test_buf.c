/* test_buf.c -- unit tests for the growable output buffer (src/core/buf.c).
 *
 * The contract: after every call the buffer holds exactly what was appended,
 * len counts it, p[len] is NUL and cap > len.  Checked after appends that
 * cross the growth steps (including printf output that lands exactly on the
 * capacity, where an off-by-one would lose or overrun a byte), fills, resets
 * (memory kept), frees, embedded NULs, a printf whose conversion fails, and
 * writes to a pipe, a full device and a closed descriptor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include "core/buf.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The invariants every call must keep. */
static void check_inv(const struct gm_buf *b)
{
    assert_non_null(b->p);
    assert_true(b->cap > b->len);
    assert_int_equal(b->p[b->len], '\0');
}

static void test_empty(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    assert_null(b.p);
    assert_int_equal(b.len, 0);
    gm_buf_reset(&b); /* never allocated: a no-op */
    assert_null(b.p);
    gm_buf_free(&b);
    gm_buf_free(&b); /* twice is fine */
    gm_buf_puts(&b, "");
    check_inv(&b);
    assert_string_equal(b.p, "");
    gm_buf_free(&b);
}

/* Appends of every size from 0 to 3000 bytes, in a growing buffer: content and
 * invariants hold across every growth step. */
static void test_growth(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    size_t total = 0;
    char chunk[3001];
    for (size_t n = 0; n <= 3000; n += 7) {
        memset(chunk, 'a' + (int)(n % 26), n);
        gm_buf_put(&b, chunk, n);
        total += n;
        check_inv(&b);
        assert_int_equal(b.len, total);
        assert_memory_equal(b.p + total - n, chunk, n);
    }
    /* spot-check the whole content */
    size_t off = 0;
    for (size_t n = 0; n <= 3000; n += 7) {
        for (size_t k = 0; k < n; k++)
            assert_int_equal(b.p[off + k], 'a' + (int)(n % 26));
        off += n;
    }
    gm_buf_free(&b);
    assert_null(b.p);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
}

static void test_put_putc_embedded_nul(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_put(&b, "a\0b", 3);
    gm_buf_putc(&b, '\0');
    gm_buf_putc(&b, 'c');
    check_inv(&b);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.p, "a\0b\0c", 6);
    for (int i = 0; i < 1000; i++)
        gm_buf_putc(&b, (char)('0' + i % 10));
    check_inv(&b);
    assert_int_equal(b.len, 1005);
    assert_int_equal(b.p[1004], '9');
    gm_buf_free(&b);
}

/* printf output of every length around the capacity boundaries, appended to
 * buffers that already hold 0..300 bytes. */
static void test_printf_lengths(void **state)
{
    (void)state;
    static const size_t prefixes[] = {0, 1, 63, 64, 191, 192, 200, 255, 256, 300};
    char *s = malloc(1200);
    assert_non_null(s);
    for (size_t i = 0; i < 1200; i++)
        s[i] = (char)('A' + i % 26);
    for (size_t pi = 0; pi < N_ELEM(prefixes); pi++) {
        for (size_t n = 0; n < 1100; n += (n < 600 ? 1 : 37)) {
            struct gm_buf b = GM_BUF_INIT;
            gm_buf_fill(&b, '-', prefixes[pi]);
            gm_buf_printf(&b, "<%.*s|%d>", (int)n, s, 42);
            check_inv(&b);
            size_t want = prefixes[pi] + n + 5;
            if (b.len != want)
                fail_msg("prefix %zu, %zu chars: len %zu, want %zu", prefixes[pi], n, b.len, want);
            assert_int_equal(b.p[prefixes[pi]], '<');
            assert_memory_equal(b.p + prefixes[pi] + 1, s, n);
            assert_memory_equal(b.p + prefixes[pi] + 1 + n, "|42>", 4);
            gm_buf_free(&b);
        }
    }
    free(s);
}

static void test_printf_long_and_repeated(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    char *big = malloc(100001);
    assert_non_null(big);
    memset(big, 'z', 100000);
    big[100000] = '\0';
    gm_buf_printf(&b, "%s", big);
    check_inv(&b);
    assert_int_equal(b.len, 100000);
    assert_string_equal(b.p, big);
    gm_buf_reset(&b);
    for (int i = 0; i < 5000; i++)
        gm_buf_printf(&b, "%d,", i);
    check_inv(&b);
    assert_memory_equal(b.p, "0,1,2,3,", 8);
    assert_string_equal(b.p + b.len - 10, "4998,4999,");
    gm_buf_free(&b);
    free(big);
}

/* A conversion that fails (a wide character the C locale cannot encode)
 * appends nothing and leaves the buffer terminated where it was. */
static void test_printf_failed_conversion(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "keep");
    static const wchar_t wide[] = {0x00e9, 0};
    gm_buf_printf(&b, "abcdef%ls", wide);
    check_inv(&b);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.p, "keep");
    gm_buf_puts(&b, "!");
    assert_string_equal(b.p, "keep!");
    gm_buf_free(&b);
}

static void test_fill(void **state)
{
    (void)state;
    static const struct {
        size_t before, n;
    } rows[] = {{0, 0}, {0, 1}, {0, 255}, {0, 256}, {3, 253}, {3, 254}, {10, 5000}};
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        struct gm_buf b = GM_BUF_INIT;
        gm_buf_fill(&b, 'x', rows[i].before);
        gm_buf_fill(&b, ' ', rows[i].n);
        check_inv(&b);
        assert_int_equal(b.len, rows[i].before + rows[i].n);
        for (size_t k = 0; k < b.len; k++)
            assert_int_equal(b.p[k], k < rows[i].before ? 'x' : ' ');
        gm_buf_free(&b);
    }
}

/* reset empties but keeps the memory, so a reused buffer does not allocate. */
static void test_reset_keeps_memory(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_fill(&b, 'q', 5000);
    char *p = b.p;
    size_t cap = b.cap;
    gm_buf_reset(&b);
    check_inv(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.p, "");
    assert_ptr_equal(b.p, p);
    assert_int_equal(b.cap, cap);
    gm_buf_printf(&b, "%s-%u", "again", 7u);
    assert_string_equal(b.p, "again-7");
    assert_ptr_equal(b.p, p);
    gm_buf_free(&b);
}

static void test_reserve(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_reserve(&b, 1000);
    assert_true(b.cap >= 1001);
    size_t cap = b.cap;
    char *p = b.p;
    gm_buf_fill(&b, 'r', 1000); /* fits: no reallocation */
    assert_ptr_equal(b.p, p);
    assert_int_equal(b.cap, cap);
    check_inv(&b);
    gm_buf_free(&b);
}

static void test_write_fd(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    for (int i = 0; i < 3000; i++)
        gm_buf_printf(&b, "%04d\n", i);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    /* 15000 bytes: more than one pipe write may take, so a reader runs */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        _exit(gm_buf_write_fd(&b, fds[1]) == 0 ? 0 : 1);
    }
    close(fds[1]);
    struct gm_buf got = GM_BUF_INIT;
    char tmp[4096];
    ssize_t r;
    while ((r = read(fds[0], tmp, sizeof(tmp))) > 0)
        gm_buf_put(&got, tmp, (size_t)r);
    close(fds[0]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(got.len, b.len);
    assert_memory_equal(got.p, b.p, b.len);

    /* errors come back as -errno */
    int fd = open("/dev/full", O_WRONLY);
    if (fd >= 0) {
        assert_int_equal(gm_buf_write_fd(&b, fd), -ENOSPC);
        close(fd);
    }
    assert_int_equal(gm_buf_write_fd(&b, 987654), -EBADF);
    /* an empty buffer writes nothing and succeeds, even to a bad fd */
    struct gm_buf empty = GM_BUF_INIT;
    assert_int_equal(gm_buf_write_fd(&empty, 987654), 0);
    gm_buf_free(&got);
    gm_buf_free(&b);
}

/* gm_buf_ini_kv: "key = value", except that a value starting with ';'
 * follows the '=' directly (after a blank it would read as a comment). */
static void test_ini_kv(void **state)
{
    (void)state;
    struct gm_buf b = GM_BUF_INIT;
    gm_buf_ini_kv(&b, "task", "t");
    gm_buf_ini_kv(&b, "nvml-lib", "");
    gm_buf_ini_kv(&b, "body", ";");
    gm_buf_ini_kv(&b, "summary", ";) a ;b");
    gm_buf_ini_kv(&b, "x", "a;b");
    assert_string_equal(b.p, "task = t\nnvml-lib = \nbody =;\nsummary =;) a ;b\nx = a;b\n");
    gm_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_put_putc_embedded_nul),
        cmocka_unit_test(test_printf_lengths),
        cmocka_unit_test(test_printf_long_and_repeated),
        cmocka_unit_test(test_printf_failed_conversion),
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_reset_keeps_memory),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_write_fd),
        cmocka_unit_test(test_ini_kv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

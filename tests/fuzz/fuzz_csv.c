/* fuzz_csv.c -- libFuzzer harness for the CSV log's torn-tail repair
 * (src/store/csv.c): the record scanner that finds the end of the last
 * whole record (gm_csv_valid_prefix, gm_csv_scan_feed), and the repair
 * itself, which cuts a daily file back to it when the writer reopens it.
 *
 * Input: one byte of options, then the bytes of a file's tail.
 *   bit 0   also run the repair on a real file (else only the scanner)
 *   bit 1   the file is the tail alone, without the header before it
 * Scanner checks (csv.h lists them as properties a fuzzer may check): the
 * result r <= n; r == 0 or the byte before it is '\n'; the prefix is its
 * own valid prefix; a shorter input never has a longer one; and feeding
 * the bytes in pieces (sizes taken from the input) gives the same r.
 * Repair checks: an events file "header + tail" of today's day in the
 * harness's temporary directory is reopened by gm_csv_open and written one
 * row with gm_csv_event; afterwards it must hold exactly header, the
 * tail's whole records, and the row, with torn_repaired counting the cut.
 * Without the header, a tail that is not a prefix of the header must be
 * left as it was and the row go to a new "-2" file; a tail that is a
 * prefix of it is a torn header, cut to nothing.
 * Deterministic: TZ is set to UTC and the event's time is fixed.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/event.h"
#include "core/err.h"
#include "fuzz_tmp.h"
#include "store/csv.h"

#define TASK "fz"
#define DAY_FILE TASK "_events_20240310.csv"
#define NEXT_FILE TASK "_events_20240310-2.csv"

static char dir[4200];
static char *header, *row; /* what the writer writes to an empty directory */
static size_t hlen, rowlen;

static void fatal(const char *what)
{
    fprintf(stderr, "fuzz_csv: %s\n", what);
    abort();
}

/* --------------------------------------------------------------- scanner */

static void scanner(const char *p, size_t n, const uint8_t *sizes, size_t nsizes)
{
    size_t r = gm_csv_valid_prefix(p, n);
    if (r > n)
        fatal("valid prefix longer than the input");
    if (r > 0 && p[r - 1] != '\n')
        fatal("valid prefix does not end in a newline");
    if (gm_csv_valid_prefix(p, r) != r)
        fatal("the valid prefix is not its own valid prefix");
    size_t half = n / 2;
    if (gm_csv_valid_prefix(p, half) > r)
        fatal("a shorter input has a longer valid prefix");
    struct gm_csv_scan sc;
    gm_csv_scan_init(&sc);
    size_t off = 0;
    for (size_t i = 0; off < n; i++) {
        size_t k = nsizes ? sizes[i % nsizes] % 17 : 1;
        if (k == 0) { /* an empty piece, then at least a byte */
            gm_csv_scan_feed(&sc, p + off, 0);
            k = 1;
        }
        if (k > n - off)
            k = n - off;
        gm_csv_scan_feed(&sc, p + off, k);
        off += k;
    }
    if (sc.fed != n || sc.valid != r)
        fatal("the scanner fed in pieces disagrees");
}

/* ---------------------------------------------------------------- repair */

static struct gm_csv *open_writer(void)
{
    struct gm_csv_opts o = {
        .dir = dir, .task = TASK, .host = "fuzzhost", .retention_ns = 0, .compress_after_ns = -1};
    struct gm_err err = {0};
    struct gm_csv *c = gm_csv_open(&o, &err);
    if (!c) {
        fprintf(stderr, "fuzz_csv: gm_csv_open: %s\n", err.msg);
        abort();
    }
    return c;
}

static void write_event(struct gm_csv *c)
{
    struct gm_event e = {.type = GM_EV_MARK, .gpu = -1, .wall_ns = 1710072000LL * 1000000000LL};
    snprintf(e.text, sizeof(e.text), "fuzz");
    if (gm_csv_event(c, &e) != 0)
        fatal("gm_csv_event failed");
}

static char *slurp(const char *name, size_t *len)
{
    char p[4300];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (n == cap)
            b = realloc(b, cap *= 2);
        if (!b)
            abort();
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0)
            fatal("read error");
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return b;
}

static void setup(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    snprintf(dir, sizeof(dir), "%s/csv", fuzz_tmp_dir());
    struct gm_csv *c = open_writer();
    write_event(c);
    gm_csv_close(c);
    size_t n;
    char *f = slurp(DAY_FILE, &n);
    const char *nl = f ? memchr(f, '\n', n) : NULL;
    if (!nl)
        fatal("the first file has no header");
    hlen = (size_t)(nl - f) + 1;
    header = f;
    row = f + hlen;
    rowlen = n - hlen;
    if (gm_csv_valid_prefix(f, n) != n)
        fatal("the writer's own file is not whole records");
}

static void expect_file(const char *name, const char *a, size_t alen, const char *b, size_t blen,
                        const char *c, size_t clen)
{
    size_t n;
    char *f = slurp(name, &n);
    if (!f || n != alen + blen + clen || memcmp(f, a, alen) != 0 ||
        memcmp(f + alen, b, blen) != 0 || memcmp(f + alen + blen, c, clen) != 0) {
        fprintf(stderr, "fuzz_csv: %s holds %zu bytes, want %zu\n", name, f ? n : 0,
                alen + blen + clen);
        fatal("the file after the repair is not what it should be");
    }
    free(f);
}

static void repair(const char *tail, size_t n, int with_header)
{
    char p[4300];
    snprintf(p, sizeof(p), "%s/" DAY_FILE, dir);
    char *file = malloc(hlen + n + 1);
    if (!file)
        abort();
    size_t flen = 0;
    if (with_header) {
        memcpy(file, header, hlen);
        flen = hlen;
    }
    if (n)
        memcpy(file + flen, tail, n);
    flen += n;
    fuzz_tmp_write(p, file, flen);

    struct gm_csv *c = open_writer();
    write_event(c);
    struct gm_csv_stats st;
    gm_csv_stats(c, &st);
    gm_csv_close(c);

    /* ours: the header line first, or nothing, or a torn header (no line
     * break yet, a prefix of the header); anything else is another file */
    size_t keep = gm_csv_valid_prefix(file, flen);
    int ours = flen == 0 || (flen >= hlen && memcmp(file, header, hlen) == 0) ||
               (!memchr(file, '\n', flen) && flen <= hlen && memcmp(file, header, flen) == 0);
    if (with_header && !ours)
        fatal("a file that starts with the header is not ours");
    if (ours) {
        /* the same file, cut back to its whole records, then the row */
        if (keep == 0)
            expect_file(DAY_FILE, header, hlen, "", 0, row, rowlen);
        else
            expect_file(DAY_FILE, file, keep, "", 0, row, rowlen);
        if (st.torn_repaired != (keep != flen))
            fatal("torn_repaired does not count the cut");
    } else {
        /* left alone, the row in a new file */
        expect_file(DAY_FILE, file, flen, "", 0, "", 0);
        expect_file(NEXT_FILE, header, hlen, row, rowlen, "", 0);
    }
    free(file);
    fuzz_tmp_clear(dir, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *tail = (const char *)data + 1;
    size_t n = size - 1;
    scanner(tail, n, data + 1, n < 8 ? n : 8);
    if (data[0] & 1) {
        if (!header)
            setup();
        repair(tail, n, !(data[0] & 2));
    }
    return 0;
}

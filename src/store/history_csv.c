/* history_csv.c -- the agent's daily CSV logs back as per-GPU rows for
 * `gpumon diagnose --csv`.
 *
 * The file is read whole (a day of 8 GPUs at 10 s is ~10 MB; gzip through
 * zlib, which reads plain files too) and split into RFC 4180 records:
 * quoted fields may hold commas, quotes and newlines (a GPU name is text
 * from outside).  Columns are found by the header's names.  A row whose
 * time or GPU index does not parse is an error naming the line; an empty
 * cell is a value not recorded (NAN), never 0.
 */
#include "history.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define MAXF 64
#define MIB 1048576.0

enum col {
    C_TIME,
    C_GPU,
    C_UUID,
    C_NAME,
    C_UTIL,
    C_UMEM,
    C_MEMU,
    C_MEMT,
    C_PW,
    C_PL,
    C_TEMP,
    C_SM,
    C_MCLK,
    C_REASONS,
    C_STATUS,
    C__N
};

static const char *const col_names[C__N] = {"time",
                                            "gpu",
                                            "uuid",
                                            "name",
                                            "utilization_gpu_percent",
                                            "utilization_memory_percent",
                                            "memory_used_mib",
                                            "memory_total_mib",
                                            "power_draw_w",
                                            "power_limit_w",
                                            "temperature_gpu_c",
                                            "clocks_sm_mhz",
                                            "clocks_mem_mhz",
                                            "clocks_event_reasons",
                                            "status"};

static const struct {
    const char *name;
    int64_t bit;
} reason_names[] = {
    {"gpu_idle", 0x1},
    {"applications_clocks_setting", 0x2},
    {"sw_power_cap", 0x4},
    {"hw_slowdown", 0x8},
    {"sync_boost", 0x10},
    {"sw_thermal_slowdown", 0x20},
    {"hw_thermal_slowdown", 0x40},
    {"hw_power_brake_slowdown", 0x80},
    {"display_clock_setting", 0x100},
};

/* Splits the record at *pos into fields (unquoted in place); returns the
 * number of fields, advances *pos past the record's line end, counts lines. */
static int split(char *buf, size_t len, size_t *pos, char **f, int maxf, size_t *line)
{
    int n = 0;
    size_t i = *pos;
    char *w = buf + i;
    f[n++] = w;
    int q = 0;
    while (i < len) {
        char c = buf[i++];
        if (q) {
            if (c == '"' && i < len && buf[i] == '"') {
                *w++ = '"';
                i++;
            } else if (c == '"') {
                q = 0;
            } else {
                if (c == '\n')
                    (*line)++;
                *w++ = c;
            }
        } else if (c == '"') {
            q = 1;
        } else if (c == ',') {
            *w++ = '\0';
            if (n < maxf)
                f[n++] = w;
        } else if (c == '\n') {
            break;
        } else if (c != '\r') {
            *w++ = c;
        }
    }
    *w = '\0';
    (*line)++;
    *pos = i;
    return n;
}

/* 2026-12-03T12:43:00.127+00:00 (or Z); -1 when not that form */
static int parse_iso(const char *s, int64_t *ns)
{
    struct tm tm = {0};
    int ms = 0, n = 0;
    // NOLINTNEXTLINE(cert-err34-c): fixed-width fields; the count checks the form
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &n) != 6)
        return -1;
    const char *p = s + n;
    if (*p == '.') {
        int k = 0;
        p++;
        while (*p >= '0' && *p <= '9') {
            if (k < 3) {
                ms = ms * 10 + (*p - '0');
                k++;
            }
            p++;
        }
        while (k++ < 3)
            ms *= 10;
    }
    int off = 0;
    if (*p == 'Z') {
        p++;
    } else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
        int h = (p[1] - '0') * 10 + (p[2] - '0'), m = (p[4] - '0') * 10 + (p[5] - '0');
        if (h > 23 || m > 59 || p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9' ||
            p[4] < '0' || p[4] > '9' || p[5] < '0' || p[5] > '9')
            return -1;
        off = (h * 3600 + m * 60) * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    *ns = ((int64_t)timegm(&tm) - off) * 1000000000LL + (int64_t)ms * 1000000LL;
    return 0;
}

/* A number cell: NAN when empty; -2 (an error) when not a number. */
static int num(const char *s, double *v)
{
    if (!s || !*s) {
        *v = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (*end || errno || !isfinite(*v)) ? -1 : 0;
}

static int reasons(const char *s, int64_t *r)
{
    *r = -1;
    if (!s || !*s)
        return 0;
    if (strcmp(s, "none") == 0) {
        *r = 0;
        return 0;
    }
    int64_t bits = 0;
    const char *p = s;
    while (*p) {
        const char *e = strchr(p, '|');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        /* names this gpumon does not know (a newer writer) are left out */
        for (size_t k = 0; k < sizeof reason_names / sizeof reason_names[0]; k++)
            if (strlen(reason_names[k].name) == l && strncmp(p, reason_names[k].name, l) == 0)
                bits |= reason_names[k].bit;
        p += l + (e ? 1 : 0);
        if (!e)
            break;
    }
    *r = bits;
    return 0;
}

static int read_all(const char *path, char **out, size_t *len, struct gm_err *err)
{
    gzFile z = gzopen(path, "rb");
    if (!z)
        return gm_err_set(err, errno == ENOENT ? GM_E_NOTFOUND : GM_E_IO, "%s: %s", path,
                          errno ? strerror(errno) : "cannot open");
    size_t cap = 1 << 20, n = 0;
    char *b = malloc(cap + 1);
    if (!b)
        gm_oom();
    for (;;) {
        if (n == cap) {
            if (cap > ((size_t)1 << 31)) {
                gzclose(z);
                free(b);
                return gm_err_set(err, GM_E_INVAL, "%s: larger than 2 GiB", path);
            }
            cap *= 2;
            b = realloc(b, cap + 1);
            if (!b)
                gm_oom();
        }
        int r = gzread(z, b + n, (unsigned)(cap - n));
        if (r < 0) {
            int e;
            const char *m = gzerror(z, &e);
            int rc = gm_err_set(err, GM_E_IO, "%s: %s", path, m);
            gzclose(z);
            free(b);
            return rc;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    gzclose(z);
    b[n] = '\0';
    *out = b;
    *len = n;
    return 0;
}

int gm_hist_read_csv(const char *path, int64_t from_ns, int64_t to_ns, gm_hist_fn fn, void *arg,
                     size_t *nrows, struct gm_err *err)
{
    *nrows = 0;
    char *buf = NULL;
    size_t len = 0, pos = 0, line = 1;
    int rc = read_all(path, &buf, &len, err);
    if (rc != 0)
        return rc;
    char *f[MAXF];
    int idx[C__N];
    for (int c = 0; c < C__N; c++)
        idx[c] = -1;
    int nf = len ? split(buf, len, &pos, f, MAXF, &line) : 0;
    for (int i = 0; i < nf; i++)
        for (int c = 0; c < C__N; c++)
            if (strcmp(f[i], col_names[c]) == 0)
                idx[c] = i;
    if (idx[C_TIME] < 0 || idx[C_GPU] < 0) {
        free(buf);
        return gm_err_set(err, GM_E_INVAL,
                          "%s:1: not a gpumon GPU log: the header has no 'time' and 'gpu' columns "
                          "(the processes and events files are not GPU logs)",
                          path);
    }
    while (rc == 0 && pos < len) {
        size_t at = line;
        nf = split(buf, len, &pos, f, MAXF, &line);
        if (nf == 1 && !f[0][0])
            continue; /* an empty line */
#define CELL(c) (idx[c] >= 0 && idx[c] < nf ? f[idx[c]] : NULL)
        struct gm_hist_row r;
        memset(&r, 0, sizeof r);
        r.uuid = CELL(C_UUID) ? CELL(C_UUID) : "";
        r.name = CELL(C_NAME) ? CELL(C_NAME) : "";
        r.job = "";
        r.nproc = r.nproc_dead = -1;
        r.util_min = r.util_max = r.clk_mem_mhz = r.proc_mem_b = NAN;
        if (parse_iso(CELL(C_TIME) ? CELL(C_TIME) : "", &r.ts_ns) != 0) {
            rc = gm_err_set(err, GM_E_INVAL, "%s:%zu: bad time '%.40s' (want ISO 8601 with offset)",
                            path, at, CELL(C_TIME) ? CELL(C_TIME) : "");
            break;
        }
        double g;
        if (num(CELL(C_GPU), &g) != 0 || isnan(g) || g < 0 || g > 4095 || g != floor(g)) {
            rc = gm_err_set(err, GM_E_INVAL, "%s:%zu: bad gpu index '%.40s'", path, at,
                            CELL(C_GPU) ? CELL(C_GPU) : "");
            break;
        }
        r.gpu_index = (uint32_t)g;
        const char *st = CELL(C_STATUS);
        if (st && strcmp(st, "gpu_lost") == 0)
            r.down = 1;
        else if (st && *st && strcmp(st, "ok") != 0 && strcmp(st, "value_error") != 0)
            r.down = 2;
        static const enum col nc[] = {C_UTIL, C_UMEM, C_MEMU, C_MEMT, C_PW,
                                      C_PL,   C_TEMP, C_SM,   C_MCLK};
        double *dst[] = {&r.util,          &r.util_mem, &r.mem_used_b, &r.mem_total_b, &r.power_w,
                         &r.power_limit_w, &r.temp_c,   &r.clk_sm_mhz, &r.clk_mem_mhz};
        for (size_t k = 0; k < sizeof nc / sizeof nc[0]; k++)
            if (num(CELL(nc[k]), dst[k]) != 0) {
                rc = gm_err_set(err, GM_E_INVAL, "%s:%zu: column %s: not a number '%.40s'", path,
                                at, col_names[nc[k]], CELL(nc[k]));
                break;
            }
        if (rc != 0)
            break;
        r.mem_used_b *= MIB;
        r.mem_total_b *= MIB;
        reasons(CELL(C_REASONS), &r.reasons);
#undef CELL
        if ((from_ns && r.ts_ns < from_ns) || (to_ns && r.ts_ns > to_ns))
            continue;
        (*nrows)++;
        rc = fn(arg, &r);
    }
    free(buf);
    return rc;
}

/* history_csv.c -- the agent's daily CSV logs back as per-GPU rows for
 * `gpumon diagnose --csv`.
 *
 * The file is read whole (a day of 8 GPUs at 10 s is ~10 MB; gzip through
 * zlib, which reads plain files too) and split into RFC 4180 records:
 * quoted fields may hold commas, quotes and newlines (a GPU name is text
 * from outside).  Columns are found by the header's names.  A row whose
 * time or GPU index does not parse is an error naming the line; an empty
 * cell is a value not recorded (NAN), never 0 -- except a slow read group's
 * cell that the status calls "between_reads" (the agent writes ECC counts,
 * PCIe link and the like only on the row of the sample that read them):
 * that row takes the GPU's last value read, as the store's states table
 * gives it.  The processes file of the
 * same task and day (<task>_procs_<day>.csv[.gz], beside it) is read too
 * when it exists: each GPU row then has the processes of its sample.
 *
 * The seeds' own logger (the first article's gpu_monitor.sh: `time,task_id,
 * gpu_id,gpu_name,utilization_percent,...`) is read too, found by its
 * header: its names map onto the same columns, its time is local time
 * without an offset ("%Y-%m-%d %H:%M:%S", "%z" after it allowed), its cells
 * keep the space nvidia-smi's ", " leaves, nvidia-smi's "[N/A]" is a value
 * not recorded, and its error line ("TS,TASK,ERROR,nvidia-smi failed") is a
 * sample not taken.  It has no processes, reasons or limits (docs/diagnose.md
 * says what that costs).
 */
#include "history.h"
#include "../core/attrib.h"

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
    C_ENC,
    C_DEC,
    C_RX,
    C_GEN,
    C_GEN_MAX,
    C_WIDTH,
    C_WIDTH_MAX,
    C_CMODE,
    C_ECC,
    C_REMAP,
    C_RETIRED,
    C_SM_ACT,
    C_DRAM,
    C_GPM_RX,
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
                                            "status",
                                            "utilization_encoder_percent",
                                            "utilization_decoder_percent",
                                            "pcie_rx_mibps",
                                            "pcie_link_gen_current",
                                            "pcie_link_gen_max",
                                            "pcie_link_width_current",
                                            "pcie_link_width_max",
                                            "compute_mode",
                                            "ecc_uncorrected_volatile",
                                            "remapped_rows_pending",
                                            "retired_pages_pending",
                                            "gpm_sm_active_percent",
                                            "gpm_dram_active_percent",
                                            "gpm_pcie_rx_mibps"};

/* The seeds' loggers' names for the same columns: gpu_monitor.sh (bash,
 * nvidia-smi --query-gpu) and the article's pynvml script. */
static const struct {
    const char *name;
    enum col c;
} seeds_cols[] = {
    {"gpu_id", C_GPU},         {"gpu_name", C_NAME},     {"utilization_percent", C_UTIL},
    {"temperature_c", C_TEMP}, {"sm_clock_mhz", C_SM},   {"mem_clock_mhz", C_MCLK},
    {"gpu_index", C_GPU},      {"util_percent", C_UTIL}, {"mem_used_mib", C_MEMU},
    {"mem_total_mib", C_MEMT}, {"power_w", C_PW},        {"temp_c", C_TEMP},
};

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

/* The seeds' logger's time: "2025-06-01 10:00:00" in the local time zone
 * (the reading machine's, or TZ), or with date's %z after it ("+0800",
 * "+08:00", one space before it or none); -1 when not that form. */
static int parse_local(const char *s, int64_t *ns)
{
    struct tm tm = {0};
    int n = 0;
    // NOLINTNEXTLINE(cert-err34-c): fixed-width fields; the count checks the form
    if (sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &n) != 6 ||
        s[10] != ' ')
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 ||
        tm.tm_sec > 60)
        return -1;
    const char *p = s + n;
    if (*p == ' ')
        p++;
    if (!*p) {
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        if (t == (time_t)-1)
            return -1;
        *ns = (int64_t)t * 1000000000LL;
        return 0;
    }
    size_t l = strlen(p);
    int colon = l == 6 && p[3] == ':';
    if ((*p != '+' && *p != '-') || (l != 5 && !colon))
        return -1;
    const char *d = p + 1, *m = p + (colon ? 4 : 3);
    for (int k = 0; k < 2; k++)
        if (d[k] < '0' || d[k] > '9' || m[k] < '0' || m[k] > '9')
            return -1;
    int h = (d[0] - '0') * 10 + (d[1] - '0'), mi = (m[0] - '0') * 10 + (m[1] - '0');
    if (h > 23 || mi > 59)
        return -1;
    int off = (h * 3600 + mi * 60) * (*p == '+' ? 1 : -1);
    *ns = ((int64_t)timegm(&tm) - off) * 1000000000LL;
    return 0;
}

/* A seeds' logger cell as a value: the spaces around it gone, nvidia-smi's
 * absent values ("[N/A]", "[Not Supported]", any bracketed word) empty. */
static void seeds_cell(char *c)
{
    size_t a = strspn(c, " \t"), l = strlen(c + a);
    memmove(c, c + a, l + 1);
    while (l && (c[l - 1] == ' ' || c[l - 1] == '\t'))
        c[--l] = '\0';
    if (l >= 2 && c[0] == '[' && c[l - 1] == ']')
        c[0] = '\0';
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

/* A state cell: a number, or the words the log writes for a state
 * (Yes/No, the compute modes); NAN when empty, -1 when unknown words. */
static int state(const char *s, double *v)
{
    static const struct {
        const char *word;
        double v;
    } words[] = {{"No", 0},         {"Yes", 1},
                 {"Default", 0},    {"Exclusive_Thread", 1},
                 {"Prohibited", 2}, {"Exclusive_Process", 3}};
    for (size_t k = 0; s && k < sizeof words / sizeof words[0]; k++)
        if (strcmp(s, words[k].word) == 0) {
            *v = words[k].v;
            return 0;
        }
    return num(s, v);
}

/* Whether the status cell st lists column col as absent because of why
 * ("ok;missing=<col>:<why>,..."; store/csv.h). */
static int status_says(const char *st, const char *col, const char *why)
{
    const char *p = st ? strstr(st, ";missing=") : NULL;
    if (!p)
        return 0;
    size_t cl = strlen(col), wl = strlen(why);
    for (p += 9; *p;) {
        size_t item = strcspn(p, ",;");
        if (item == cl + 1 + wl && strncmp(p, col, cl) == 0 && p[cl] == ':' &&
            strncmp(p + cl + 1, why, wl) == 0)
            return 1;
        p += item;
        if (*p != ',')
            break;
        p++;
    }
    return 0;
}

/* A GPU's last values read of the number columns (the agent's CSV log
 * writes a slow read group's value -- ECC counts, PCIe link, ... -- only on
 * the row of the sample that read it, and an empty cell saying
 * "between_reads" on the rows between: those take the last one, as the
 * store's states table gives it).  have[k]: column k's last row had it. */
#define NNUM 23
struct held {
    uint32_t gpu;
    unsigned char have[NNUM];
    double v[NNUM];
};

static struct held *held_for(struct held **hv, size_t *nh, uint32_t gpu)
{
    for (size_t i = 0; i < *nh; i++)
        if ((*hv)[i].gpu == gpu)
            return &(*hv)[i];
    *hv = gm_xrealloc(*hv, (*nh + 1) * sizeof **hv);
    struct held *h = &(*hv)[(*nh)++];
    memset(h, 0, sizeof *h);
    h->gpu = gpu;
    return h;
}

/* The processes of one sample of one GPU, from the processes file. */
struct psample {
    int64_t ts_ns;
    uint32_t gpu;
    int n, dead;
    double mem_mib;  /* NAN when no process had a figure */
    double dead_mib; /* of it, the gone/zombie processes'; NAN when none had a figure */
    long job_pid;    /* the live compute process with the lowest pid; -1 none */
    const char *job;
    char pidkey[24]; /* "parent:<PPID>" or "pid:<PID>": job's target when the log names none */
};

struct procs {
    char *buf; /* the file, the names point into it */
    struct psample *v;
    size_t n, cap;
};

static int cmp_ps(const void *a, const void *b)
{
    const struct psample *x = a, *y = b;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* The processes file of the GPU log at path: its name with "procs_" before
 * the day (default_20261203.csv -> default_procs_20261203.csv), as the log
 * is (.gz or not) or the other way round (one may be compressed first). */
static int procs_path(const char *path, char *out, size_t len, int other)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *us = strrchr(base, '_');
    if (!us)
        return -1;
    const char *ext = strstr(us, ".csv");
    if (!ext)
        return -1;
    int gz = strcmp(ext, ".csv.gz") == 0;
    if (!gz && strcmp(ext, ".csv") != 0)
        return -1;
    int n = snprintf(out, len, "%.*sprocs_%.*s%s", (int)(us + 1 - path), path, (int)(ext - us - 1),
                     us + 1, gz != other ? ".csv.gz" : ".csv");
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Reads the processes file beside the log at path into p (p->n = 0 and
 * p->buf NULL when there is none).  Errors name the file and line. */
static int read_procs(const char *path, struct procs *p, struct gm_err *err)
{
    memset(p, 0, sizeof *p);
    char ppath[4096];
    size_t len = 0, pos = 0, line = 1;
    int rc = GM_E_NOTFOUND;
    for (int other = 0; other < 2 && rc == GM_E_NOTFOUND; other++) {
        if (procs_path(path, ppath, sizeof ppath, other) != 0)
            return 0;
        struct gm_err e = {0};
        rc = read_all(ppath, &p->buf, &len, &e);
        if (rc != 0 && rc != GM_E_NOTFOUND)
            return gm_err_set(err, rc, "%s", e.msg);
    }
    if (rc != 0)
        return 0; /* no processes file: processes not recorded */
    enum { P_TIME, P_GPU, P_PID, P_NAME, P_MEM, P_TYPE, P_STATE, P_JOB, P_PPID, P_SID, P__N };
    static const char *const pnames[P__N] = {
        "time", "gpu",        "pid",    "process_name", "used_memory_mib",
        "type", "host_state", "job_id", "ppid",         "sid"};
    char *f[MAXF];
    int idx[P__N];
    for (int c = 0; c < P__N; c++)
        idx[c] = -1;
    int nf = len ? split(p->buf, len, &pos, f, MAXF, &line) : 0;
    for (int i = 0; i < nf; i++)
        for (int c = 0; c < P__N; c++)
            if (strcmp(f[i], pnames[c]) == 0)
                idx[c] = i;
    if (idx[P_TIME] < 0 || idx[P_GPU] < 0 || idx[P_PID] < 0)
        return gm_err_set(err, GM_E_INVAL,
                          "%s:1: not a gpumon processes log: no 'time', 'gpu' and 'pid' columns",
                          ppath);
    while (pos < len) {
        size_t at = line;
        nf = split(p->buf, len, &pos, f, MAXF, &line);
        if (nf == 1 && !f[0][0])
            continue;
#define PCELL(c) (idx[c] >= 0 && idx[c] < nf ? f[idx[c]] : NULL)
        int64_t ts;
        double g, pid, mem;
        if (parse_iso(PCELL(P_TIME) ? PCELL(P_TIME) : "", &ts) != 0)
            return gm_err_set(err, GM_E_INVAL, "%s:%zu: bad time '%.40s'", ppath, at,
                              PCELL(P_TIME) ? PCELL(P_TIME) : "");
        if (num(PCELL(P_GPU), &g) != 0 || isnan(g) || g < 0 || g > 4095 || g != floor(g))
            return gm_err_set(err, GM_E_INVAL, "%s:%zu: bad gpu index '%.40s'", ppath, at,
                              PCELL(P_GPU) ? PCELL(P_GPU) : "");
        if (num(PCELL(P_PID), &pid) != 0 || isnan(pid) || pid < 0 || pid > 4294967295.0)
            return gm_err_set(err, GM_E_INVAL, "%s:%zu: bad pid '%.40s'", ppath, at,
                              PCELL(P_PID) ? PCELL(P_PID) : "");
        /* the parent and session: empty (or a log without them) is unknown (0) */
        double ppid = NAN, sid = NAN;
        if (num(PCELL(P_PPID), &ppid) != 0 ||
            (!isnan(ppid) && (ppid < 0 || ppid > 4294967295.0 || ppid != floor(ppid))))
            return gm_err_set(err, GM_E_INVAL, "%s:%zu: bad ppid '%.40s'", ppath, at,
                              PCELL(P_PPID));
        if (num(PCELL(P_SID), &sid) != 0 ||
            (!isnan(sid) && (sid < 0 || sid > 4294967295.0 || sid != floor(sid))))
            return gm_err_set(err, GM_E_INVAL, "%s:%zu: bad sid '%.40s'", ppath, at, PCELL(P_SID));
        if (num(PCELL(P_MEM), &mem) != 0)
            return gm_err_set(err, GM_E_INVAL,
                              "%s:%zu: column used_memory_mib: not a number '%.40s'", ppath, at,
                              PCELL(P_MEM));
        const char *hs = PCELL(P_STATE) ? PCELL(P_STATE) : "";
        const char *type = PCELL(P_TYPE) ? PCELL(P_TYPE) : "";
        int dead = strcmp(hs, "gone") == 0 || strcmp(hs, "zombie") == 0;
        struct psample *ps = p->n ? &p->v[p->n - 1] : NULL;
        if (!ps || ps->ts_ns != ts || ps->gpu != (uint32_t)g) {
            if (p->n == p->cap) {
                p->cap = p->cap ? p->cap * 2 : 256;
                p->v = realloc(p->v, p->cap * sizeof *p->v);
                if (!p->v)
                    gm_oom();
            }
            ps = &p->v[p->n++];
            *ps = (struct psample){.ts_ns = ts,
                                   .gpu = (uint32_t)g,
                                   .mem_mib = NAN,
                                   .dead_mib = NAN,
                                   .job_pid = -1,
                                   .job = ""};
        }
        ps->n++;
        ps->dead += dead;
        if (!isnan(mem))
            ps->mem_mib = isnan(ps->mem_mib) ? mem : ps->mem_mib + mem;
        if (dead && !isnan(mem))
            ps->dead_mib = isnan(ps->dead_mib) ? mem : ps->dead_mib + mem;
        if (!dead && strchr(type, 'C') && (ps->job_pid < 0 || (long)pid < ps->job_pid)) {
            ps->job_pid = (long)pid;
            /* the job (gm_attrib_job_key, as live): the one it belongs to (slurm:...,
             * pod:...) when the log has it, else its launcher parent when the log has
             * ppid and sid, else the process itself: never its name (every trainer is
             * "python3"), and not a login session's "user:<UID>" */
            const char *jc = PCELL(P_JOB);
            if (jc && *jc && strncmp(jc, "user:", 5) != 0) {
                ps->job = jc;
            } else {
                gm_attrib_job_key(NULL, (uint32_t)pid, isnan(ppid) ? 0 : (uint32_t)ppid,
                                  isnan(sid) ? 0 : (uint32_t)sid, ps->pidkey, sizeof ps->pidkey);
                ps->job = NULL; /* pidkey: set after the array settles (realloc moves it) */
            }
        }
#undef PCELL
    }
    qsort(p->v, p->n, sizeof *p->v, cmp_ps);
    for (size_t i = 0; i < p->n; i++)
        if (!p->v[i].job)
            p->v[i].job = p->v[i].pidkey[0] ? p->v[i].pidkey : "";
    return 0;
}

static const struct psample *procs_at(const struct procs *p, int64_t ts, uint32_t gpu)
{
    struct psample key = {.ts_ns = ts, .gpu = gpu};
    return p->n ? bsearch(&key, p->v, p->n, sizeof *p->v, cmp_ps) : NULL;
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
    struct procs procs;
    if ((rc = read_procs(path, &procs, err)) != 0) {
        free(procs.buf);
        free(procs.v);
        free(buf);
        return rc;
    }
    char *f[MAXF];
    int idx[C__N];
    for (int c = 0; c < C__N; c++)
        idx[c] = -1;
    const char *hname[C__N]; /* the header's name of each column, for messages */
    memcpy(hname, col_names, sizeof hname);
    int nf = len ? split(buf, len, &pos, f, MAXF, &line) : 0;
    for (int i = 0; i < nf; i++)
        for (int c = 0; c < C__N; c++)
            if (strcmp(f[i], col_names[c]) == 0)
                idx[c] = i;
    /* the seeds' logger: no "gpu" column, its own names for the others */
    int seeds = 0;
    if (idx[C_GPU] < 0)
        for (int i = 0; i < nf; i++)
            for (size_t k = 0; k < sizeof seeds_cols / sizeof seeds_cols[0]; k++)
                if (strcmp(f[i], seeds_cols[k].name) == 0 && idx[seeds_cols[k].c] < 0) {
                    idx[seeds_cols[k].c] = i;
                    hname[seeds_cols[k].c] = f[i];
                    seeds |= seeds_cols[k].c == C_GPU;
                }
    if (idx[C_TIME] < 0 || idx[C_GPU] < 0) {
        free(procs.buf);
        free(procs.v);
        free(buf);
        return gm_err_set(err, GM_E_INVAL,
                          "%s:1: not a gpumon GPU log: the header has no 'time' and 'gpu' columns "
                          "(nor the seeds' logger's 'time' and 'gpu_id'; the processes and events "
                          "files are not GPU logs)",
                          path);
    }
    struct held *hv = NULL; /* per GPU, in order of appearance */
    size_t nh = 0;
    while (rc == 0 && pos < len) {
        size_t at = line;
        nf = split(buf, len, &pos, f, MAXF, &line);
        if (nf == 1 && !f[0][0])
            continue; /* an empty line */
#define CELL(c) (idx[c] >= 0 && idx[c] < nf ? f[idx[c]] : NULL)
        if (seeds) {
            for (int i = 0; i < nf; i++)
                if (i != idx[C_NAME])
                    seeds_cell(f[i]);
            /* "$TS,$TASK_ID,ERROR,nvidia-smi failed": no GPU was read */
            const char *gc = CELL(C_GPU);
            if (gc && strcmp(gc, "ERROR") == 0)
                continue;
        }
        struct gm_hist_row r;
        memset(&r, 0, sizeof r);
        r.uuid = CELL(C_UUID) ? CELL(C_UUID) : "";
        r.name = CELL(C_NAME) ? CELL(C_NAME) : "";
        r.job = "";
        r.nproc = r.nproc_dead = -1;
        r.util_min = r.util_max = r.clk_mem_mhz = r.proc_mem_b = r.dead_mem_b = NAN;
        r.compute_mode = r.pcie_gen = r.pcie_gen_max = r.pcie_width = r.pcie_width_max = -1;
        r.host_workers = -1; /* CSV logs keep no host side */
        r.host_cpu_pct = r.host_workers_cpu_pct = r.host_iowait_pct = r.psi_cpu = r.psi_io = NAN;
        const char *tcell = CELL(C_TIME) ? CELL(C_TIME) : "";
        if ((seeds ? parse_local(tcell, &r.ts_ns) : parse_iso(tcell, &r.ts_ns)) != 0) {
            rc = gm_err_set(err, GM_E_INVAL, "%s:%zu: bad time '%.40s' (want %s)", path, at, tcell,
                            seeds ? "YYYY-MM-DD HH:MM:SS, local time or with an offset"
                                  : "ISO 8601 with offset");
            break;
        }
        double g;
        if (num(CELL(C_GPU), &g) != 0 || isnan(g) || g < 0 || g > 4095 || g != floor(g)) {
            rc = gm_err_set(err, GM_E_INVAL, "%s:%zu: bad gpu index '%.40s'", path, at,
                            CELL(C_GPU) ? CELL(C_GPU) : "");
            break;
        }
        r.gpu_index = (uint32_t)g;
        /* the status word, before any ";missing=..." list */
        const char *st = CELL(C_STATUS);
        size_t stl = st ? strcspn(st, ";") : 0;
        if (stl == 8 && strncmp(st, "gpu_lost", 8) == 0)
            r.down = 1;
        else if (stl && !(stl == 2 && strncmp(st, "ok", 2) == 0) &&
                 !(stl == 11 && strncmp(st, "value_error", 11) == 0))
            r.down = 2;
        double cmode = NAN, gen = NAN, gen_max = NAN, width = NAN, width_max = NAN, gpm_rx = NAN;
        static const enum col nc[] = {C_UTIL,  C_UMEM,    C_MEMU,   C_MEMT,      C_PW,    C_PL,
                                      C_TEMP,  C_SM,      C_MCLK,   C_ENC,       C_DEC,   C_RX,
                                      C_GEN,   C_GEN_MAX, C_WIDTH,  C_WIDTH_MAX, C_CMODE, C_ECC,
                                      C_REMAP, C_RETIRED, C_SM_ACT, C_DRAM,      C_GPM_RX};
        double *dst[] = {&r.util,        &r.util_mem,        &r.mem_used_b,    &r.mem_total_b,
                         &r.power_w,     &r.power_limit_w,   &r.temp_c,        &r.clk_sm_mhz,
                         &r.clk_mem_mhz, &r.enc_util,        &r.dec_util,      &r.pcie_rx_Bps,
                         &gen,           &gen_max,           &width,           &width_max,
                         &cmode,         &r.ecc_uncorrected, &r.remap_pending, &r.retired_pending,
                         &r.sm_active,   &r.dram_active,     &gpm_rx};
        _Static_assert(sizeof nc / sizeof nc[0] == NNUM, "held values: one per number column");
        struct held *h = held_for(&hv, &nh, r.gpu_index);
        for (size_t k = 0; k < NNUM; k++) {
            if (state(CELL(nc[k]), dst[k]) != 0) {
                rc = gm_err_set(err, GM_E_INVAL, "%s:%zu: column %s: not a number '%.40s'", path,
                                at, hname[nc[k]], CELL(nc[k]));
                break;
            }
            if (!isnan(*dst[k])) {
                h->v[k] = *dst[k];
                h->have[k] = 1;
            } else if (h->have[k] && status_says(st, hname[nc[k]], "between_reads")) {
                *dst[k] = h->v[k];
            } else {
                h->have[k] = 0;
            }
        }
        if (rc != 0)
            break;
        r.mem_used_b *= MIB;
        r.mem_total_b *= MIB;
        /* PCIe RX: the counter's when the log has it, else GPM's */
        r.pcie_rx_Bps = (isnan(r.pcie_rx_Bps) ? gpm_rx : r.pcie_rx_Bps) * MIB;
        r.sm_active /= 100;
        r.dram_active /= 100;
        int *ints[] = {&r.compute_mode, &r.pcie_gen, &r.pcie_gen_max, &r.pcie_width,
                       &r.pcie_width_max};
        double dv[] = {cmode, gen, gen_max, width, width_max};
        for (int k = 0; k < 5; k++)
            *ints[k] = isnan(dv[k]) || dv[k] < 0 || dv[k] > 1e6 ? -1 : (int)dv[k];
        reasons(CELL(C_REASONS), &r.reasons);
        const struct psample *ps = procs.buf ? procs_at(&procs, r.ts_ns, r.gpu_index) : NULL;
        if (procs.buf && !r.down) {
            r.nproc = ps ? ps->n : 0;
            r.nproc_dead = ps ? ps->dead : 0;
            r.proc_mem_b = ps ? (isnan(ps->mem_mib) ? NAN : ps->mem_mib * MIB) : 0;
            r.dead_mem_b = !ps || !ps->dead ? 0 : isnan(ps->dead_mib) ? NAN : ps->dead_mib * MIB;
            r.job = ps ? ps->job : "";
        }
#undef CELL
        if ((from_ns && r.ts_ns < from_ns) || (to_ns && r.ts_ns > to_ns))
            continue;
        (*nrows)++;
        rc = fn(arg, &r);
    }
    free(hv);
    free(procs.buf);
    free(procs.v);
    free(buf);
    return rc;
}

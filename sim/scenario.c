/* scenario.c -- loads a scenario file: structure, [machine], [process.NAME]
 * and [fault.NAME]; GPUs are built by scenario_gpu.c.
 *
 * Loading is all-or-nothing: the first problem stops it with one message of
 * the form "FILE:LINE: reason", naming the key and quoting the bad value, so
 * a user can fix the file without reading code.  Sections may appear in any
 * order ([gpu] defaults apply whether they come before or after [gpu.N]).
 * The result is immutable apart from the model's integration cache.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario_int.h"

/* ------------------------------------------------------------ helpers */

int gs_fail(struct gs_pctx *c, int line, const char *fmt, ...)
{
    char msg[384];
    va_list ap;

    va_start(ap, fmt);
    /* The analyzer sometimes loses track of va_start here (only when it
     * checks several files in one run); ap is initialised on the line above. */
    vsnprintf(msg, sizeof(msg), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    if (c->err[0])
        return -1; /* keep the first error */
    if (line > 0)
        snprintf(c->err, c->errlen, "%s:%d: %s", c->file, line, msg);
    else
        snprintf(c->err, c->errlen, "%s: %s", c->file, msg);
    return -1;
}

int gs_bad_value(struct gs_pctx *c, const struct gs_ini_entry *e, const char *value,
                 const char *expected)
{
    return gs_fail(c, e->line, "bad value '%s' for '%s' (expected %s)", value, e->key, expected);
}

static int hexval(char h)
{
    if (h >= '0' && h <= '9')
        return h - '0';
    if (h >= 'a' && h <= 'f')
        return h - 'a' + 10;
    if (h >= 'A' && h <= 'F')
        return h - 'A' + 10;
    return -1;
}

int gs_set_string(struct gs_pctx *c, const struct gs_ini_entry *e, const char *value, char *dst,
                  size_t size)
{
    size_t o = 0;
    for (const char *p = value; *p;) {
        char ch = *p++;
        if (ch == '\\') {
            if (*p == '\\') {
                p++;
            } else if (*p == 'x' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0 &&
                       hexval(p[1]) * 16 + hexval(p[2]) != 0) {
                ch = (char)(hexval(p[1]) * 16 + hexval(p[2]));
                p += 3;
            } else {
                return gs_fail(c, e->line,
                               "bad escape in '%s': a backslash starts \\xHH (a byte, 01-ff) or "
                               "\\\\ (a backslash)",
                               e->key);
            }
        }
        if (o + 1 >= size)
            return gs_fail(c, e->line, "value of '%s' too long (at most %zu characters)", e->key,
                           size - 1);
        dst[o++] = ch;
    }
    dst[o] = '\0';
    return 0;
}

const char *gs_entry_value(struct gs_pctx *c, const struct gs_ini_entry *e, char *buf, size_t len)
{
    char why[256];
    if (gs_expand_env(e->value, buf, len, why, sizeof(why)) != 0) {
        gs_fail(c, e->line, "%s: %s", e->key, why);
        return NULL;
    }
    return buf;
}

const struct gs_ini_entry *gs_find_entry(const struct gs_pctx *c, long sec, const char *key)
{
    if (sec < 0)
        return NULL;
    for (size_t i = 0; i < c->ini.nentries; i++) {
        const struct gs_ini_entry *e = &c->ini.entries[i];
        if ((long)e->section == sec && strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return false;
    return true;
}

static const char *sec_name(const struct gs_pctx *c, size_t sec)
{
    return c->ini.sections[sec].name;
}

/* ------------------------------------------------------ section structure */

static int classify_sections(struct gs_pctx *c)
{
    c->info = calloc(c->ini.nsections ? c->ini.nsections : 1, sizeof(*c->info));
    if (!c->info)
        return gs_fail(c, 0, "out of memory");
    for (size_t i = 0; i < GS_MAX_GPUS; i++)
        c->gpu_sec[i] = -1;
    c->defaults_sec = -1;
    long machine = -1;

    for (size_t i = 0; i < c->ini.nsections; i++) {
        const struct gs_ini_section *sec = &c->ini.sections[i];
        struct gs_sec_info *in = &c->info[i];
        const char *n = sec->name;

        if (strcmp(n, "machine") == 0) {
            if (machine >= 0)
                return gs_fail(c, sec->line, "duplicate section [machine] (first at line %d)",
                               c->ini.sections[machine].line);
            machine = (long)i;
            in->kind = GS_SEC_MACHINE;
        } else if (strcmp(n, "gpu") == 0) {
            if (c->defaults_sec >= 0)
                return gs_fail(c, sec->line, "duplicate section [gpu] (first at line %d)",
                               c->ini.sections[c->defaults_sec].line);
            c->defaults_sec = (long)i;
            in->kind = GS_SEC_GPU_DEFAULTS;
        } else if (strncmp(n, "gpu.", 4) == 0) {
            unsigned long long idx;
            if (gs_parse_uint(n + 4, GS_MAX_GPUS - 1, &idx) != 0 || !isdigit((unsigned char)n[4]))
                return gs_fail(c, sec->line,
                               "bad section [%s]: expected [gpu.N] with N from 0 to %d", n,
                               GS_MAX_GPUS - 1);
            if (c->gpu_sec[idx] >= 0)
                return gs_fail(c, sec->line, "duplicate gpu index %llu: [%s] and [%s] (line %d)",
                               idx, n, sec_name(c, (size_t)c->gpu_sec[idx]),
                               c->ini.sections[c->gpu_sec[idx]].line);
            c->gpu_sec[idx] = (long)i;
            in->kind = GS_SEC_GPU;
            in->gpu = (unsigned)idx;
        } else if (strncmp(n, "process.", 8) == 0 || strncmp(n, "fault.", 6) == 0) {
            bool proc = n[0] == 'p';
            const char *name = n + (proc ? 8 : 6);
            if (!valid_name(name))
                return gs_fail(c, sec->line,
                               "bad section [%s]: the name after '%s' must be letters, digits, "
                               "'_', '-' or '.'",
                               n, proc ? "process." : "fault.");
            for (size_t j = 0; j < i; j++)
                if (strcmp(c->ini.sections[j].name, n) == 0)
                    return gs_fail(c, sec->line, "duplicate section [%s] (first at line %d)", n,
                                   c->ini.sections[j].line);
            in->kind = proc ? GS_SEC_PROCESS : GS_SEC_FAULT;
            in->name = name;
        } else {
            return gs_fail(c, sec->line,
                           "unknown section [%s] (expected [machine], [gpu], [gpu.N], "
                           "[process.NAME] or [fault.NAME])",
                           n);
        }
    }

    /* Duplicate keys anywhere, and keys before the first section. */
    for (size_t i = 0; i < c->ini.nentries; i++) {
        const struct gs_ini_entry *e = &c->ini.entries[i];
        if (e->section == GS_INI_NO_SECTION)
            return gs_fail(c, e->line, "key '%s' outside any section", e->key);
        for (size_t j = 0; j < i; j++) {
            const struct gs_ini_entry *p = &c->ini.entries[j];
            if (p->section == e->section && strcmp(p->key, e->key) == 0)
                return gs_fail(c, e->line, "duplicate key '%s' in [%s] (first at line %d)", e->key,
                               sec_name(c, e->section), p->line);
        }
    }
    return 0;
}

/* -------------------------------------------------------------- machine */

static int parse_cuda_version(const char *v, int *out)
{
    unsigned long long whole;
    unsigned major, minor;

    if (gs_parse_uint(v, 999999, &whole) == 0 && whole >= 1000) {
        *out = (int)whole;
        return 0;
    }
    /* "12.4" and "12.4.1" both mean 12040 (patch levels are not encoded). */
    if (gs_parse_major_minor(v, true, &major, &minor) != 0 || major == 0 || minor > 99)
        return -1;
    *out = (int)(major * 1000 + minor * 10);
    return 0;
}

static int apply_machine(struct gs_pctx *c, long sec)
{
    struct gs_scenario *s = c->s;
    char buf[1100];

    for (size_t i = 0; i < c->ini.nentries; i++) {
        const struct gs_ini_entry *e = &c->ini.entries[i];
        if ((long)e->section != sec)
            continue;
        const char *v = gs_entry_value(c, e, buf, sizeof(buf));
        if (!v)
            return -1;
        if (strcmp(e->key, "driver_version") == 0) {
            if (!*v)
                return gs_bad_value(c, e, v, "a version such as 550.54.15");
            if (gs_set_string(c, e, v, s->driver_version, sizeof(s->driver_version)) != 0)
                return -1;
            s->driver_version_set = true;
        } else if (strcmp(e->key, "nvml_version") == 0) {
            if (!*v)
                return gs_bad_value(c, e, v, "a version such as 12.550.54.15");
            if (gs_set_string(c, e, v, s->nvml_version, sizeof(s->nvml_version)) != 0)
                return -1;
            s->nvml_version_set = true;
        } else if (strcmp(e->key, "cuda_version") == 0) {
            if (parse_cuda_version(v, &s->cuda_version) != 0)
                return gs_bad_value(c, e, v,
                                    "MAJOR.MINOR such as 12.4, or an integer such as 12040");
            s->cuda_version_set = true;
        } else if (strcmp(e->key, "seed") == 0) {
            unsigned long long seed;
            if (gs_parse_uint(v, UINT64_MAX, &seed) != 0)
                return gs_bad_value(c, e, v, "an unsigned integer");
            s->seed = seed;
        } else if (strcmp(e->key, "nvlink") == 0) {
            if (strcmp(v, "nvswitch") == 0)
                s->nvswitch = true;
            else if (strcmp(v, "none") == 0)
                s->nvswitch = false;
            else
                return gs_bad_value(c, e, v, "nvswitch or none");
        } else if (strcmp(e->key, "start") == 0) {
            double t;
            if (gs_parse_seconds(v, &t) != 0 || t < 0)
                return gs_bad_value(c, e, v, "a scenario time such as 600s, 10min or 1h");
            s->start = t;
        } else if (strcmp(e->key, "gpus") == 0) {
            unsigned long long n;
            if (gs_parse_uint(v, GS_MAX_GPUS, &n) != 0)
                return gs_bad_value(c, e, v, "a GPU count from 0 to 64");
            s->ngpus = (unsigned)n;
            c->machine_gpus_line = e->line;
        } else {
            return gs_fail(c, e->line,
                           "unknown key '%s' in [machine] (expected driver_version, "
                           "cuda_version, nvml_version, seed, nvlink, start or gpus)",
                           e->key);
        }
    }
    return 0;
}

static int count_gpus(struct gs_pctx *c)
{
    struct gs_scenario *s = c->s;
    long last = -1;

    for (long i = 0; i < GS_MAX_GPUS; i++)
        if (c->gpu_sec[i] >= 0)
            last = i;
    if (c->machine_gpus_line) {
        for (long i = (long)s->ngpus; i < GS_MAX_GPUS; i++)
            if (c->gpu_sec[i] >= 0)
                return gs_fail(c, c->ini.sections[c->gpu_sec[i]].line,
                               "[gpu.%ld] is out of range: [machine] gpus = %u (line %d)", i,
                               s->ngpus, c->machine_gpus_line);
        return 0;
    }
    if (last < 0)
        return gs_fail(c, 0,
                       "no GPUs: add [gpu.0], [gpu.1], ... sections or set gpus = N in "
                       "[machine]");
    for (long i = 0; i < last; i++)
        if (c->gpu_sec[i] < 0)
            return gs_fail(c, c->ini.sections[c->gpu_sec[last]].line,
                           "[gpu.%ld] is missing: GPU indices are dense from 0 (or set gpus = N "
                           "in [machine] and use [gpu] for the defaults)",
                           i);
    s->ngpus = (unsigned)last + 1;
    return 0;
}

/* ------------------------------------------------------------ processes */

static int parse_gpu_list(struct gs_pctx *c, const struct gs_ini_entry *e, const char *v,
                          uint64_t *mask)
{
    char tok[32];
    const char *cur = v;

    *mask = 0;
    while (gs_next_item(&cur, tok, sizeof(tok))) {
        unsigned long long idx;
        if (gs_parse_uint(tok, GS_MAX_GPUS - 1, &idx) != 0)
            return gs_bad_value(c, e, v, "a GPU index or a comma-separated list such as 0,1");
        if (idx >= c->s->ngpus)
            return gs_fail(c, e->line, "gpu %llu does not exist (the scenario has %u GPU%s)", idx,
                           c->s->ngpus, c->s->ngpus == 1 ? "" : "s");
        *mask |= UINT64_C(1) << idx;
    }
    if (!*mask)
        return gs_bad_value(c, e, v, "a GPU index or a comma-separated list such as 0,1");
    return 0;
}

static int parse_ptype(const char *v, unsigned *types)
{
    static const struct {
        const char *name;
        unsigned types;
    } map[] = {
        {"compute", GS_PT_COMPUTE},
        {"C", GS_PT_COMPUTE},
        {"graphics", GS_PT_GRAPHICS},
        {"G", GS_PT_GRAPHICS},
        {"compute+graphics", GS_PT_COMPUTE | GS_PT_GRAPHICS},
        {"graphics+compute", GS_PT_COMPUTE | GS_PT_GRAPHICS},
        {"C+G", GS_PT_COMPUTE | GS_PT_GRAPHICS},
        {"mps", GS_PT_MPS},
        {"M", GS_PT_MPS},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcasecmp(map[i].name, v) == 0) {
            *types = map[i].types;
            return 0;
        }
    }
    return -1;
}

/* Reads one [process.NAME] section into p; *count is how many processes it
 * stands for (pids pid, pid + 1, ...). */
static int apply_process(struct gs_pctx *c, long sec, struct gs_process *p,
                         unsigned long long *count)
{
    char buf[1100];
    const struct gs_ini_section *hdr = &c->ini.sections[sec];
    bool have_gpu = false, have_pid = false;
    const struct gs_ini_entry *mig_entry = NULL, *pid_file_entry = NULL;
    unsigned long long mig_idx = 0;

    memset(p, 0, sizeof(*p));
    snprintf(p->key, sizeof(p->key), "%s", c->info[sec].name);
    snprintf(p->name, sizeof(p->name), "%s", c->info[sec].name);
    p->types = GS_PT_COMPUTE;
    p->mem_mode = GS_MEM_SHARE;
    p->sm_util = NAN;
    p->mem_util = NAN;
    p->start = 0;
    p->end = INFINITY;
    p->mig = -1;
    p->cpu = 100;
    p->rss = 2.0 * 1024 * 1024 * 1024;
    gs_host_init(&p->host);
    *count = 1;

    for (size_t i = 0; i < c->ini.nentries; i++) {
        const struct gs_ini_entry *e = &c->ini.entries[i];
        if ((long)e->section != sec)
            continue;
        const char *v = gs_entry_value(c, e, buf, sizeof(buf));
        if (!v)
            return -1;
        const char *k = e->key, *want = NULL;
        int host;
        if (strcmp(k, "gpu") == 0) {
            if (parse_gpu_list(c, e, v, &p->gpus) != 0)
                return -1;
            have_gpu = true;
        } else if (strcmp(k, "pid") == 0) {
            unsigned long long pid;
            if (gs_parse_uint(v, UINT32_MAX, &pid) != 0 || pid == 0)
                return gs_bad_value(c, e, v, "a process id from 1 to 4294967295, or ${VAR}");
            p->pid = (unsigned)pid;
            have_pid = true;
        } else if (strcmp(k, "pid_file") == 0) {
            if (!*v || strlen(v) >= 4096)
                return gs_bad_value(c, e, v, "the path of a file holding a pid");
            free(p->pid_file);
            p->pid_file = strdup(v);
            if (!p->pid_file)
                return gs_fail(c, e->line, "out of memory");
            pid_file_entry = e;
        } else if (strcmp(k, "count") == 0) {
            if (gs_parse_uint(v, GS_MAX_PROC_COUNT, count) != 0 || *count == 0)
                return gs_bad_value(c, e, v, "a number of processes from 1 to 100000");
        } else if (strcmp(k, "type") == 0) {
            if (parse_ptype(v, &p->types) != 0)
                return gs_bad_value(c, e, v, "compute, graphics, compute+graphics or mps");
        } else if (strcmp(k, "name") == 0) {
            if (!*v)
                return gs_bad_value(c, e, v, "a process name");
            if (gs_set_string(c, e, v, p->name, sizeof(p->name)) != 0)
                return -1;
        } else if (strcmp(k, "used_memory") == 0) {
            double bytes;
            if (strcasecmp(v, "na") == 0) {
                p->mem_mode = GS_MEM_NA;
            } else if (strcasecmp(v, "share") == 0) {
                p->mem_mode = GS_MEM_SHARE;
            } else if (gs_parse_size(v, &bytes) == 0) {
                p->mem_mode = GS_MEM_FIXED;
                p->used_memory = (unsigned long long)llround(bytes);
            } else {
                return gs_bad_value(c, e, v, "a size such as 6GiB, 'na' or 'share'");
            }
        } else if (strcmp(k, "sm_util") == 0 || strcmp(k, "mem_util") == 0) {
            double pct;
            if (gs_parse_percent(v, &pct) != 0)
                return gs_bad_value(c, e, v, "a percentage from 0 to 100");
            *(k[0] == 's' ? &p->sm_util : &p->mem_util) = pct;
        } else if (strcmp(k, "start") == 0 || strcmp(k, "end") == 0) {
            double t;
            if (gs_parse_seconds(v, &t) != 0 || t < 0)
                return gs_bad_value(c, e, v, "a scenario time such as 90, 90s, 1.5min or 2h");
            *(k[0] == 's' ? &p->start : &p->end) = t;
        } else if (strcmp(k, "alive") == 0) {
            bool alive;
            if (gs_parse_bool(v, &alive) != 0)
                return gs_bad_value(c, e, v, "yes or no");
            p->dead = !alive;
        } else if (strcmp(k, "rss") == 0) {
            if (gs_parse_size(v, &p->rss) != 0)
                return gs_bad_value(c, e, v, "a size such as 2GiB");
        } else if (strcmp(k, "cmdline") == 0) {
            char line[1100];
            if (!*v)
                return gs_bad_value(c, e, v, "a command line");
            if (gs_set_string(c, e, v, line, sizeof(line)) != 0)
                return -1;
            free((char *)p->cmdline);
            p->cmdline = strdup(line);
            if (!p->cmdline)
                return gs_fail(c, e->line, "out of memory");
        } else if (strcmp(k, "mig") == 0) {
            if (gs_parse_uint(v, GS_MAX_MIG - 1, &mig_idx) != 0)
                return gs_bad_value(c, e, v, "a MIG device index from 0 to 6");
            mig_entry = e;
        } else if ((host = gs_host_key(p, k, v, &want)) != 0) {
            if (host < 0)
                return gs_bad_value(c, e, v, want);
        } else {
            return gs_fail(c, e->line,
                           "unknown key '%s' in [%s] (expected gpu, pid, pid_file, count, type, "
                           "name, used_memory, sm_util, mem_util, start, end, mig, alive, "
                           "cpu, rss, cmdline, or the host side: workers, worker_cpu, iowait, "
                           "psi_cpu, psi_io)",
                           k, hdr->name);
        }
    }
    if (!have_gpu)
        return gs_fail(c, hdr->line, "[%s]: missing required key 'gpu'", hdr->name);
    if (have_pid && pid_file_entry)
        return gs_fail(c, pid_file_entry->line, "[%s]: give either 'pid' or 'pid_file', not both",
                       hdr->name);
    if (pid_file_entry && *count != 1)
        return gs_fail(c, pid_file_entry->line,
                       "[%s]: 'pid_file' stands for one process ('count' must be 1)", hdr->name);
    if (!have_pid && !pid_file_entry)
        return gs_fail(c, hdr->line, "[%s]: missing required key 'pid' (or 'pid_file')", hdr->name);
    if (p->pid + (*count - 1) > UINT32_MAX)
        return gs_fail(c, hdr->line, "[%s]: pids %u to %llu go past 4294967295", hdr->name, p->pid,
                       p->pid + (*count - 1));
    if (p->end <= p->start)
        return gs_fail(c, hdr->line, "[%s]: end (%g s) must be after start (%g s)", hdr->name,
                       p->end, p->start);

    /* MIG placement: a process on a MIG-enabled GPU lives in one MIG device. */
    unsigned first = (unsigned)__builtin_ctzll(p->gpus);
    const struct gs_gpu *g = &c->s->gpus[first];
    if (mig_entry) {
        if (p->gpus & (p->gpus - 1))
            return gs_fail(c, mig_entry->line, "'mig' needs a process on exactly one GPU");
        if (g->nmig == 0)
            return gs_fail(c, mig_entry->line, "gpu %u has MIG disabled (set mig = ... on it)",
                           first);
        if (mig_idx >= g->nmig)
            return gs_fail(c, mig_entry->line,
                           "MIG device %llu does not exist on gpu %u (it has %u)", mig_idx, first,
                           g->nmig);
        p->mig = (int)mig_idx;
    } else if (g->nmig > 0) {
        if (p->gpus & (p->gpus - 1))
            return gs_fail(c, hdr->line, "[%s]: a process on a MIG-enabled GPU must run on one GPU",
                           hdr->name);
        p->mig = 0;
    }
    return 0;
}

struct pid_ix {
    unsigned pid;
    size_t i;
};

static int cmp_pid_ix(const void *a, const void *b)
{
    const struct pid_ix *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Builds s->by_pid (indices sorted by pid, then file order) and reports the
 * first pid used twice on one GPU, in file order -- in O(n log n), so that a
 * scenario can hold 100000s of processes. */
static int index_processes(struct gs_pctx *c)
{
    struct gs_scenario *s = c->s;
    size_t all = s->nprocs;
    struct pid_ix *ix = malloc((all ? all : 1) * sizeof(*ix));
    s->by_pid = malloc((all ? all : 1) * sizeof(*s->by_pid));
    s->dyn = malloc((all ? all : 1) * sizeof(*s->dyn));
    if (!ix || !s->by_pid || !s->dyn) {
        free(ix);
        return gs_fail(c, 0, "out of memory");
    }
    /* pid_file processes have no pid until run time: not in the index */
    size_t n = 0;
    s->ndyn = 0;
    for (size_t i = 0; i < all; i++) {
        if (s->procs[i].pid_file)
            s->dyn[s->ndyn++] = i;
        else
            ix[n++] = (struct pid_ix){s->procs[i].pid, i};
    }
    s->nby_pid = n;
    qsort(ix, n, sizeof(*ix), cmp_pid_ix);
    size_t bi = SIZE_MAX, bj = 0; /* the clash the file reaches first: smallest later entry */
    for (size_t r0 = 0, r1; r0 < n; r0 = r1) {
        for (r1 = r0 + 1; r1 < n && ix[r1].pid == ix[r0].pid; r1++)
            ;
        for (size_t a = r0; a < r1; a++)
            for (size_t b = a + 1; b < r1; b++) {
                size_t i = ix[b].i, j = ix[a].i; /* j < i */
                bool first = i < bi || (i == bi && j < bj);
                if (first && (s->procs[i].gpus & s->procs[j].gpus)) {
                    bi = i;
                    bj = j;
                }
            }
    }
    for (size_t k = 0; k < n; k++)
        s->by_pid[k] = ix[k].i;
    free(ix);
    if (bi != SIZE_MAX)
        return gs_fail(c, 0,
                       "[process.%s] and [process.%s] both use pid %u on the same GPU "
                       "(list several GPUs in one section instead)",
                       s->procs[bj].key, s->procs[bi].key, s->procs[bi].pid);
    return 0;
}

const struct gs_process *gs_proc_by_pid(const struct gs_scenario *s, unsigned pid)
{
    for (size_t i = 0; i < s->ndyn; i++) {
        const struct gs_process *p = &s->procs[s->dyn[i]];
        if (p->dyn_live && p->pid == pid)
            return p;
    }
    size_t lo = 0, hi = s->nby_pid;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->procs[s->by_pid[mid]].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nby_pid && s->procs[s->by_pid[lo]].pid == pid ? &s->procs[s->by_pid[lo]] : NULL;
}

static int check_processes(struct gs_pctx *c)
{
    struct gs_scenario *s = c->s;

    if (index_processes(c) != 0)
        return -1;
    /* Fixed process memory must fit the GPU (or MIG device), even if all of
     * them ran at once, so memory.used can always cover their sum. */
    for (unsigned gi = 0; gi < s->ngpus; gi++) {
        const struct gs_gpu *g = &s->gpus[gi];
        double sum = 0, mig_sum[GS_MAX_MIG] = {0};
        for (size_t i = 0; i < s->nprocs; i++) {
            const struct gs_process *p = &s->procs[i];
            if (!(p->gpus & (UINT64_C(1) << gi)) || p->mem_mode != GS_MEM_FIXED)
                continue;
            sum += (double)p->used_memory;
            if (p->mig >= 0)
                mig_sum[p->mig] += (double)p->used_memory;
        }
        if (sum > (double)(g->mem_total - g->mem_reserved))
            return gs_fail(c, 0,
                           "processes on gpu %u hold %.0f MiB, more than its usable memory "
                           "(%llu MiB)",
                           gi, sum / 1048576.0, (g->mem_total - g->mem_reserved) >> 20);
        for (unsigned m = 0; m < g->nmig; m++)
            if (mig_sum[m] > (double)g->mig[m].mem_total)
                return gs_fail(c, 0,
                               "processes on gpu %u MIG device %u hold more than its %llu MiB", gi,
                               m, g->mig[m].mem_total >> 20);
    }
    return 0;
}

/* --------------------------------------------------------------- faults */

static const char *const fault_names[] = {
    [GS_FAULT_DRIVER_NOT_LOADED] = "driver_not_loaded",
    [GS_FAULT_VERSION_MISMATCH] = "version_mismatch",
    [GS_FAULT_NO_PERMISSION] = "no_permission",
    [GS_FAULT_GPU_LOST] = "gpu_lost",
    [GS_FAULT_HANG] = "hang",
    [GS_FAULT_ECC] = "ecc",
    [GS_FAULT_XID] = "xid",
    [GS_FAULT_HW_SLOWDOWN] = "hw_slowdown",
};

/* Which keys each fault type takes, as bit masks over fault kinds. */
#define FK(k) (1u << (k))
static const struct {
    const char *key;
    unsigned kinds;
} fault_keys[] = {
    {"type", ~0u},
    {"at", ~0u},
    {"until", ~0u & ~FK(GS_FAULT_ECC) & ~FK(GS_FAULT_XID)},
    {"gpu", FK(GS_FAULT_NO_PERMISSION) | FK(GS_FAULT_GPU_LOST) | FK(GS_FAULT_HANG) |
                FK(GS_FAULT_ECC) | FK(GS_FAULT_XID) | FK(GS_FAULT_HW_SLOWDOWN)},
    {"power_brake", FK(GS_FAULT_HW_SLOWDOWN)},
    {"call", FK(GS_FAULT_HANG)},
    {"seconds", FK(GS_FAULT_HANG)},
    {"corrected", FK(GS_FAULT_ECC)},
    {"uncorrected", FK(GS_FAULT_ECC)},
    {"xid", FK(GS_FAULT_XID)},
};

static int apply_fault(struct gs_pctx *c, long sec, struct gs_fault *f)
{
    char buf[1100];
    const struct gs_ini_section *hdr = &c->ini.sections[sec];
    const struct gs_ini_entry *te = gs_find_entry(c, sec, "type");

    memset(f, 0, sizeof(*f));
    snprintf(f->key, sizeof(f->key), "%s", c->info[sec].name);
    f->at = 0;
    f->until = INFINITY;
    f->gpu = GS_NO_GPU;
    f->call = -1;
    f->seconds = NAN;

    if (!te)
        return gs_fail(c, hdr->line, "[%s]: missing required key 'type'", hdr->name);
    const char *tv = gs_entry_value(c, te, buf, sizeof(buf));
    if (!tv)
        return -1;
    size_t k;
    for (k = 0; k < sizeof(fault_names) / sizeof(fault_names[0]); k++)
        if (strcmp(tv, fault_names[k]) == 0)
            break;
    if (k == sizeof(fault_names) / sizeof(fault_names[0]))
        return gs_bad_value(c, te, tv,
                            "driver_not_loaded, version_mismatch, no_permission, gpu_lost, hang, "
                            "ecc, xid or hw_slowdown");
    f->kind = (enum gs_fault_kind)k;

    bool have_xid = false, have_gpu = false;
    for (size_t i = 0; i < c->ini.nentries; i++) {
        const struct gs_ini_entry *e = &c->ini.entries[i];
        if ((long)e->section != sec)
            continue;
        size_t fk;
        for (fk = 0; fk < sizeof(fault_keys) / sizeof(fault_keys[0]); fk++)
            if (strcmp(fault_keys[fk].key, e->key) == 0)
                break;
        if (fk == sizeof(fault_keys) / sizeof(fault_keys[0]))
            return gs_fail(c, e->line,
                           "unknown key '%s' in [%s] (expected type, at, until, gpu, call, "
                           "seconds, corrected, uncorrected, xid or power_brake)",
                           e->key, hdr->name);
        if (!(fault_keys[fk].kinds & FK(f->kind)))
            return gs_fail(c, e->line, "key '%s' does not apply to a fault of type %s", e->key,
                           fault_names[f->kind]);
        const char *v = gs_entry_value(c, e, buf, sizeof(buf));
        if (!v)
            return -1;
        const char *key = e->key;
        unsigned long long u;
        double d;
        if (strcmp(key, "type") == 0) {
            continue;
        } else if (strcmp(key, "at") == 0 || strcmp(key, "until") == 0) {
            if (key[0] == 'u' && (strcasecmp(v, "never") == 0 || strcasecmp(v, "forever") == 0)) {
                f->until = INFINITY;
                continue;
            }
            if (gs_parse_seconds(v, &d) != 0 || d < 0)
                return gs_bad_value(c, e, v, "a scenario time such as 120, 120s or 2min");
            *(key[0] == 'a' ? &f->at : &f->until) = d;
        } else if (strcmp(key, "gpu") == 0) {
            if (gs_parse_uint(v, GS_MAX_GPUS - 1, &u) != 0)
                return gs_bad_value(c, e, v, "a GPU index");
            if (u >= c->s->ngpus)
                return gs_fail(c, e->line, "gpu %llu does not exist (the scenario has %u GPU%s)", u,
                               c->s->ngpus, c->s->ngpus == 1 ? "" : "s");
            f->gpu = (int)u;
            have_gpu = true;
        } else if (strcmp(key, "call") == 0) {
            if (strcmp(v, "*") == 0) {
                f->call = -1;
                continue;
            }
            int idx = gs_name_index(v);
            if (idx < 0 || gs_names[idx].kind != GS_NAME_FUNCTION)
                return gs_bad_value(c, e, v, "'*' or the name of an exported NVML function");
            f->call = idx;
        } else if (strcmp(key, "seconds") == 0) {
            if (gs_parse_seconds(v, &d) != 0 || d <= 0 || d > 3600)
                return gs_bad_value(c, e, v, "a duration above 0 and at most 1h");
            f->seconds = d;
        } else if (strcmp(key, "corrected") == 0 || strcmp(key, "uncorrected") == 0) {
            if (gs_parse_uint(v, 1000000000ULL, &u) != 0)
                return gs_bad_value(c, e, v, "an error count");
            *(key[0] == 'c' ? &f->corrected : &f->uncorrected) = u;
        } else if (strcmp(key, "xid") == 0) {
            if (gs_parse_uint(v, 9999, &u) != 0 || u == 0)
                return gs_bad_value(c, e, v, "an Xid number such as 79");
            f->xid = (unsigned)u;
            have_xid = true;
        } else if (strcmp(key, "power_brake") == 0) {
            if (gs_parse_bool(v, &f->power_brake) != 0)
                return gs_bad_value(c, e, v, "on or off");
        }
    }

    if (f->until <= f->at)
        return gs_fail(c, hdr->line, "[%s]: until (%g s) must be after at (%g s)", hdr->name,
                       f->until, f->at);
    switch (f->kind) {
    case GS_FAULT_HANG:
        if (isnan(f->seconds))
            return gs_fail(c, hdr->line, "[%s]: missing required key 'seconds'", hdr->name);
        break;
    case GS_FAULT_ECC:
        if (!have_gpu)
            return gs_fail(c, hdr->line, "[%s]: missing required key 'gpu'", hdr->name);
        if (f->corrected == 0 && f->uncorrected == 0)
            return gs_fail(c, hdr->line, "[%s]: an ecc fault needs 'corrected' or 'uncorrected'",
                           hdr->name);
        if (!c->s->gpus[f->gpu].ecc)
            return gs_fail(c, hdr->line,
                           "[%s]: gpu %d has ECC disabled, so ECC errors cannot be "
                           "counted (set ecc = on)",
                           hdr->name, f->gpu);
        break;
    case GS_FAULT_XID:
        if (!have_gpu)
            return gs_fail(c, hdr->line, "[%s]: missing required key 'gpu'", hdr->name);
        if (!have_xid)
            return gs_fail(c, hdr->line, "[%s]: missing required key 'xid'", hdr->name);
        break;
    default:
        break;
    }
    return 0;
}

/* ------------------------------------------------------------- loading */

static int interpret(struct gs_pctx *c)
{
    struct gs_scenario *s = c->s;
    long machine = -1;

    if (classify_sections(c) != 0)
        return -1;
    snprintf(s->driver_version, sizeof(s->driver_version), "550.54.15");
    s->cuda_version = 12040;
    s->seed = 1;
    for (size_t i = 0; i < c->ini.nsections; i++)
        if (c->info[i].kind == GS_SEC_MACHINE)
            machine = (long)i;
    if (machine >= 0 && apply_machine(c, machine) != 0)
        return -1;
    if (!s->nvml_version_set)
        snprintf(s->nvml_version, sizeof(s->nvml_version), "%d.%.60s", s->cuda_version / 1000,
                 s->driver_version);
    if (count_gpus(c) != 0)
        return -1;
    if (gs_build_gpus(c) != 0)
        return -1;

    size_t nf = 0, cap = 16;
    for (size_t i = 0; i < c->ini.nsections; i++)
        nf += c->info[i].kind == GS_SEC_FAULT;
    s->procs = calloc(cap, sizeof(*s->procs));
    s->faults = calloc(nf ? nf : 1, sizeof(*s->faults));
    if (!s->procs || !s->faults)
        return gs_fail(c, 0, "out of memory");
    for (size_t i = 0; i < c->ini.nsections; i++) {
        if (c->info[i].kind == GS_SEC_PROCESS) {
            struct gs_process p;
            unsigned long long count;
            if (apply_process(c, (long)i, &p, &count) != 0) {
                free(p.pid_file);
                free((char *)p.cmdline);
                return -1;
            }
            if (p.cmdline) {
                /* owned by the scenario, shared by the count copies */
                char **nc = realloc(s->cmdlines, (s->ncmdlines + 1) * sizeof(*nc));
                if (!nc) {
                    free(p.pid_file);
                    free((char *)p.cmdline);
                    return gs_fail(c, 0, "out of memory");
                }
                s->cmdlines = nc;
                s->cmdlines[s->ncmdlines++] = (char *)p.cmdline;
            }
            if (s->nprocs + count > cap) {
                while (s->nprocs + count > cap)
                    cap *= 2;
                struct gs_process *np = realloc(s->procs, cap * sizeof(*s->procs));
                if (!np) {
                    free(p.pid_file);
                    return gs_fail(c, 0, "out of memory");
                }
                s->procs = np;
            }
            for (unsigned long long k = 0; k < count; k++) {
                s->procs[s->nprocs] = p;
                s->procs[s->nprocs].pid = p.pid + (unsigned)k;
                s->nprocs++;
            }
        } else if (c->info[i].kind == GS_SEC_FAULT) {
            if (apply_fault(c, (long)i, &s->faults[s->nfaults]) != 0)
                return -1;
            s->nfaults++;
        }
    }
    if (check_processes(c) != 0)
        return -1;
    if (gs_events_build(s) != 0)
        return gs_fail(c, 0, "out of memory");
    return 0;
}

static int load(const char *path, const char *text, struct gs_scenario **out, char *err,
                size_t errlen)
{
    struct gs_pctx c = {.file = path, .err = err, .errlen = errlen};
    char dummy[8];

    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof(dummy);
        c.err = err;
        c.errlen = errlen;
    }
    err[0] = '\0';
    *out = NULL;
    if (gs_ini_read(path, text, &c.ini, err, errlen) != 0) {
        gs_ini_free(&c.ini);
        return -1;
    }
    c.s = calloc(1, sizeof(*c.s));
    if (!c.s) {
        gs_ini_free(&c.ini);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(c.s->path, sizeof(c.s->path), "%s", path);
    int rc = interpret(&c);
    free(c.info);
    gs_ini_free(&c.ini);
    if (rc != 0) {
        if (!err[0])
            snprintf(err, errlen, "%s: invalid scenario", path);
        gs_scenario_free(c.s);
        return -1;
    }
    *out = c.s;
    return 0;
}

int gs_scenario_load(const char *path, struct gs_scenario **out, char *err, size_t errlen)
{
    return load(path, NULL, out, err, errlen);
}

int gs_scenario_parse_string(const char *name, const char *text, struct gs_scenario **out,
                             char *err, size_t errlen)
{
    return load(name, text ? text : "", out, err, errlen);
}

void gs_scenario_free(struct gs_scenario *s)
{
    if (!s)
        return;
    gs_integ_free(s);
    free(s->gpus);
    for (size_t i = 0; s->procs && i < s->nprocs; i++)
        free(s->procs[i].pid_file);
    free(s->procs);
    for (size_t i = 0; i < s->ncmdlines; i++)
        free(s->cmdlines[i]);
    free(s->cmdlines);
    free(s->by_pid);
    free(s->dyn);
    free(s->faults);
    free(s->events);
    free(s);
}

/* hostside.c -- the host side of scenario processes: CPU use, DataLoader
 * workers, I/O wait and pressure, as /proc and cgroup v2 would show them.
 *
 * A scenario process may say how it looks from the host (`cpu = 100%`,
 * `workers = 0`, `worker_cpu`, `iowait`, `psi_cpu`, `psi_io` in its
 * [process.NAME]).  `cpu` is the process's one CPU use (default 100 % of a
 * core): the simulated /proc view (procview.c) grows its utime by it too.
 * The files of such a process:
 *
 *   stat                 CPU ticks growing at `cpu` % of a core and block-I/O
 *                        delay ticks at `iowait` % of the time (field 42), by
 *                        the wall clock
 *   task/PID/children    the workers' pids (0x7f000000 + 64 * the process's
 *                        index + k: never a real pid)
 *   WORKER's stat        each worker at `worker_cpu` % of a core
 *   cgroup               0::/gpusim/KEY
 *   {cpu,io}.pressure    of that cgroup: "some avg10=" psi_cpu/psi_io
 *
 * They are given two ways, from one text (host_text):
 *
 *   - from memory, through gpusimHostRead() (procview.c, gs_host_read), for
 *     the processes whose pid no host process can have (GS_PID_SIM_MIN, the
 *     rule of the /proc view) and their workers: what gpumon's host reader
 *     asks when it runs on the simulator with no GPUMON_HOST_ROOT;
 *   - as files under $GPUSIM_HOST_ROOT when it names a directory: every
 *     process list the library answers first writes proc/PID/..., and
 *     sys/fs/cgroup/gpusim/KEY/... for the listed processes with a host side,
 *     real pids included; gpumon reads them with GPUMON_HOST_ROOT pointing
 *     there (docs/simulator.md).  Each file is written to a temporary name
 *     and renamed, so a reader never sees half of one.  Errors are ignored:
 *     the NVML answer must not fail because of the host view.
 *
 * Rates follow the wall clock since the session's epoch, not scenario time,
 * because the reader divides by its own monotonic clock.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpusim.h"

#define GS_HOST_WORKER_BASE 0x7f000000u

void gs_host_init(struct gs_host *h)
{
    h->set = false;
    h->worker_cpu = h->iowait = h->psi_cpu = h->psi_io = NAN;
    h->workers = -1;
}

int gs_host_key(struct gs_process *p, const char *k, const char *v, const char **want)
{
    struct gs_host *h = &p->host;
    /* the percentages: the first two are CPU use, which may exceed one core;
     * `cpu` is the process's one CPU use, the /proc view's too (procview.c) */
    static const char *const pct_keys[] = {"cpu", "worker_cpu", "iowait", "psi_cpu", "psi_io"};
    double *dst[] = {&p->cpu, &h->worker_cpu, &h->iowait, &h->psi_cpu, &h->psi_io};
    for (size_t i = 0; i < sizeof pct_keys / sizeof pct_keys[0]; i++) {
        if (strcmp(k, pct_keys[i]) != 0)
            continue;
        double x;
        if (i < 2) { /* up to 64 cores */
            char *end;
            errno = 0;
            x = strtod(v, &end);
            if (end != v && *end == '%')
                end++;
            if (end == v || *end || errno || !(x >= 0 && x <= 6400)) {
                *want = "a CPU use in % of one core, 0 to 6400 (e.g. 100%)";
                return -1;
            }
        } else if (gs_parse_percent(v, &x) != 0) {
            *want = "a percentage from 0 to 100";
            return -1;
        }
        *dst[i] = x;
        h->set = true;
        return 1;
    }
    if (strcmp(k, "workers") == 0) {
        unsigned long long n;
        if (gs_parse_uint(v, GS_HOST_MAX_WORKERS, &n) != 0) {
            *want = "a number of worker processes from 0 to 64";
            return -1;
        }
        h->workers = (int)n;
        h->set = true;
        return 1;
    }
    return 0;
}

/* Writes text to root/rel through a temporary file and rename. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[4200], tmp[4300];
    if (snprintf(path, sizeof path, "%s/%s", root, rel) >= (int)sizeof path)
        return;
    /* the directories on the way, the root itself too (mkdir -p) */
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    int ok = fputs(text, f) >= 0;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* The stat line of a process the way the kernel writes it: the name up to
 * 15 bytes (any bytes but NUL), utime at field 14, starttime at 22 and the
 * block-I/O delay ticks at 42.  Returns its length (cut at cap). */
static size_t text_stat(char *buf, size_t cap, unsigned pid, unsigned ppid, const char *name,
                        unsigned long long ticks, unsigned long long start,
                        unsigned long long blkio)
{
    int n = snprintf(buf, cap,
                     "%u (%.15s) S %u %u %u 0 -1 4194304 0 0 0 0 %llu 0 0 0 20 0 1 0 %llu 0 0 "
                     "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 %llu 0 0\n",
                     pid, name, ppid, pid, pid, ticks, start, blkio);
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

static size_t text_psi(char *buf, size_t cap, double v)
{
    if (isnan(v))
        v = 0;
    int n = snprintf(buf, cap,
                     "some avg10=%.2f avg60=%.2f avg300=%.2f total=0\nfull avg10=0.00 "
                     "avg60=0.00 avg300=0.00 total=0\n",
                     v, v, v);
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* The process's key as one safe path component (section names are the
 * scenario author's text). */
static void key_component(const char *key, char *out, size_t len)
{
    size_t k = 0;
    for (; key[k] && k + 1 < len; k++) {
        char c = key[k];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        out[k] = ok ? c : '_';
    }
    out[k] = '\0';
    if (!k)
        snprintf(out, len, "_");
}

/* The files of the host side, one text for both ways of giving them. */
enum hs_file { HF_STAT, HF_CHILDREN, HF_CGROUP, HF_PSI_CPU, HF_PSI_IO };

/* The pid of worker k of process i: 0x7f000000 + 64 * i + k, never a real
 * pid (and at or above GS_PID_SIM_MIN). */
static unsigned worker_pid(size_t i, int k)
{
    return GS_HOST_WORKER_BASE + (unsigned)(i % 0x10000) * GS_HOST_MAX_WORKERS + (unsigned)k;
}

/* The text of file f of process i (s->procs[i]) when worker < 0, else of
 * its worker `worker` (only HF_STAT), secs wall seconds after the epoch
 * with hz clock ticks a second, into buf[cap] (NUL-terminated).  Returns
 * the length. */
static size_t host_text(const struct gs_scenario *s, size_t i, int worker, enum hs_file f,
                        double secs, double hz, char *buf, size_t cap)
{
    const struct gs_process *p = &s->procs[i];
    const struct gs_host *h = &p->host;
    unsigned long long start = 1000 + (unsigned long long)i;
    if (worker >= 0) {
        double wc = isnan(h->worker_cpu) ? 0 : h->worker_cpu;
        return text_stat(buf, cap, worker_pid(i, worker), p->pid, "pt_data_worker",
                         (unsigned long long)(wc / 100 * secs * hz), start + 1, 0);
    }
    char key[64];
    int n = 0;
    switch (f) {
    case HF_STAT: {
        double io = isnan(h->iowait) ? 0 : h->iowait;
        return text_stat(buf, cap, p->pid, 1, p->name,
                         (unsigned long long)(p->cpu / 100 * secs * hz), start,
                         (unsigned long long)(io / 100 * secs * hz));
    }
    case HF_CHILDREN: {
        size_t l = 0;
        buf[0] = '\0';
        for (int k = 0; k < h->workers && l < cap; k++) {
            n = snprintf(buf + l, cap - l, "%u ", worker_pid(i, k));
            l = n < 0 ? l : (size_t)n >= cap - l ? cap - 1 : l + (size_t)n;
        }
        return l;
    }
    case HF_CGROUP:
        key_component(p->key, key, sizeof key);
        n = snprintf(buf, cap, "0::/gpusim/%s\n", key);
        return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
    case HF_PSI_CPU:
        return text_psi(buf, cap, h->psi_cpu);
    case HF_PSI_IO:
        return text_psi(buf, cap, h->psi_io);
    }
    return 0;
}

/* Wall seconds since the epoch and clock ticks a second; false when the
 * clock is before the epoch or the tick rate unknown. */
static bool host_clock(const struct gs_timecfg *tc, double *secs, double *hz)
{
    long tck = sysconf(_SC_CLK_TCK);
    *secs = gs_wall_now() - tc->epoch;
    *hz = (double)tck;
    return tck > 0 && *secs >= 0;
}

void gs_host_write(const struct gs_scenario *s, const struct gs_timecfg *tc, unsigned gpu, double t)
{
    const char *root = getenv("GPUSIM_HOST_ROOT");
    double secs, hz;
    if (!root || !*root || !host_clock(tc, &secs, &hz))
        return;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gs_process *p = &s->procs[i];
        if (!p->host.set || !p->pid || !gs_proc_on(p, gpu, t))
            continue;
        const struct gs_host *h = &p->host;
        char text[64 * 12], rel[160], key[64];
        host_text(s, i, -1, HF_STAT, secs, hz, text, sizeof text);
        snprintf(rel, sizeof rel, "proc/%u/stat", p->pid);
        put(root, rel, text);
        for (int k = 0; k < h->workers; k++) {
            host_text(s, i, k, HF_STAT, secs, hz, text, sizeof text);
            snprintf(rel, sizeof rel, "proc/%u/stat", worker_pid(i, k));
            put(root, rel, text);
        }
        host_text(s, i, -1, HF_CHILDREN, secs, hz, text, sizeof text);
        snprintf(rel, sizeof rel, "proc/%u/task/%u/children", p->pid, p->pid);
        put(root, rel, text);
        host_text(s, i, -1, HF_CGROUP, secs, hz, text, sizeof text);
        snprintf(rel, sizeof rel, "proc/%u/cgroup", p->pid);
        put(root, rel, text);
        key_component(p->key, key, sizeof key);
        host_text(s, i, -1, HF_PSI_CPU, secs, hz, text, sizeof text);
        snprintf(rel, sizeof rel, "sys/fs/cgroup/gpusim/%s/cpu.pressure", key);
        put(root, rel, text);
        host_text(s, i, -1, HF_PSI_IO, secs, hz, text, sizeof text);
        snprintf(rel, sizeof rel, "sys/fs/cgroup/gpusim/%s/io.pressure", key);
        put(root, rel, text);
    }
}

/* A simulated process with a host side that lives at t: a pid no host
 * process can have, listed now (on any of its GPUs) and not gone. */
static bool host_live(const struct gs_process *p, double t)
{
    return p->host.set && p->pid >= GS_PID_SIM_MIN && !p->pid_file && !p->dead && p->gpus &&
           t >= p->start && t < p->end;
}

int gs_host_read(const struct gs_scenario *s, const struct gs_timecfg *tc, double t, unsigned pid,
                 const char *file, char *buf, size_t cap)
{
    static const char *const names[] = {"stat", "children", "cgroup", "cpu.pressure",
                                        "io.pressure"};
    int f = -1;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(file, names[k]) == 0)
            f = (int)k;
    if (f < 0)
        return -EINVAL;
    double secs, hz;
    if (pid < GS_PID_SIM_MIN || !host_clock(tc, &secs, &hz))
        return -ENOENT;
    char text[64 * 12];
    size_t len;
    const struct gs_process *p = gs_proc_by_pid(s, pid);
    if (p && host_live(p, t)) {
        len =
            host_text(s, (size_t)(p - s->procs), -1, (enum hs_file)f, secs, hz, text, sizeof text);
    } else if (pid >= GS_HOST_WORKER_BASE && f == HF_STAT) {
        /* a worker: its process by its index, which must be alive and have it */
        size_t i = (pid - GS_HOST_WORKER_BASE) / GS_HOST_MAX_WORKERS;
        int k = (int)((pid - GS_HOST_WORKER_BASE) % GS_HOST_MAX_WORKERS);
        if (i >= s->nprocs || !host_live(&s->procs[i], t) || k >= s->procs[i].host.workers)
            return -ENOENT;
        len = host_text(s, i, k, HF_STAT, secs, hz, text, sizeof text);
    } else {
        return -ENOENT;
    }
    if (len > cap)
        len = cap;
    memcpy(buf, text, len);
    return (int)len;
}

/* hostside.c -- the host side of scenario processes: CPU use, DataLoader
 * workers, I/O wait and pressure, as files under $GPUSIM_HOST_ROOT.
 *
 * A scenario process may say how it looks from the host (`cpu = 100%`,
 * `workers = 0`, `worker_cpu`, `iowait`, `psi_cpu`, `psi_io` in its
 * [process.NAME]).  `cpu` is the process's one CPU use (default 100 % of a
 * core): the simulated /proc view (procview.c) grows its utime by it too.  When GPUSIM_HOST_ROOT
 * names a directory, every process list the library answers first writes, for the listed processes
 * that have such keys, what /proc and cgroup v2 would show there:
 *
 *   proc/PID/stat                 CPU ticks growing at `cpu` % of a core and
 *                                 block-I/O delay ticks at `iowait` % of the
 *                                 time (field 42), by the wall clock
 *   proc/PID/task/PID/children    the workers' pids (0x7f000000 + 64 * the
 *                                 process's index + k: never a real pid)
 *   proc/WORKER/stat              each worker at `worker_cpu` % of a core
 *   proc/PID/cgroup               0::/gpusim/KEY
 *   sys/fs/cgroup/gpusim/KEY/{cpu,io}.pressure   "some avg10=" psi_cpu/psi_io
 *
 * gpumon reads that directory as its host root (GPUMON_HOST_ROOT, docs/
 * simulator.md).  Rates follow the wall clock, not scenario time, because
 * the reader divides by its own monotonic clock.  Each file is written to a
 * temporary name and renamed, so a reader never sees half of one.  Errors
 * are ignored: the host view is a test aid, the NVML answer must not fail
 * because of it.  Nothing is written without GPUSIM_HOST_ROOT.
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

static void put_stat(const char *root, unsigned pid, unsigned ppid, const char *name,
                     unsigned long long ticks, unsigned long long start, unsigned long long blkio)
{
    char rel[64], line[512];
    snprintf(rel, sizeof rel, "proc/%u/stat", pid);
    /* the name as the kernel gives it: up to 15 bytes, any bytes but NUL */
    snprintf(line, sizeof line,
             "%u (%.15s) S %u %u %u 0 -1 4194304 0 0 0 0 %llu 0 0 0 20 0 1 0 %llu 0 0 "
             "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 %llu 0 0\n",
             pid, name, ppid, pid, pid, ticks, start, blkio);
    put(root, rel, line);
}

static void put_psi(const char *root, const char *rel, double v)
{
    char text[160];
    snprintf(text, sizeof text,
             "some avg10=%.2f avg60=%.2f avg300=%.2f total=0\nfull avg10=0.00 avg60=0.00 "
             "avg300=0.00 total=0\n",
             isnan(v) ? 0 : v, isnan(v) ? 0 : v, isnan(v) ? 0 : v);
    put(root, rel, text);
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

void gs_host_write(const struct gs_scenario *s, const struct gs_timecfg *tc, unsigned gpu, double t)
{
    const char *root = getenv("GPUSIM_HOST_ROOT");
    if (!root || !*root)
        return;
    long hz = sysconf(_SC_CLK_TCK);
    double secs = gs_wall_now() - tc->epoch;
    if (hz <= 0 || secs < 0)
        return;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gs_process *p = &s->procs[i];
        if (!p->host.set || !p->pid || !gs_proc_on(p, gpu, t))
            continue;
        const struct gs_host *h = &p->host;
        unsigned long long start = 1000 + (unsigned long long)i;
        double io = isnan(h->iowait) ? 0 : h->iowait;
        put_stat(root, p->pid, 1, p->name, (unsigned long long)(p->cpu / 100 * secs * (double)hz),
                 start, (unsigned long long)(io / 100 * secs * (double)hz));
        int nw = h->workers < 0 ? 0 : h->workers;
        char list[64 * 12] = "", rel[128];
        size_t l = 0;
        for (int k = 0; k < nw; k++) {
            unsigned w =
                GS_HOST_WORKER_BASE + (unsigned)(i % 0x10000) * GS_HOST_MAX_WORKERS + (unsigned)k;
            double wc = isnan(h->worker_cpu) ? 0 : h->worker_cpu;
            put_stat(root, w, p->pid, "pt_data_worker",
                     (unsigned long long)(wc / 100 * secs * (double)hz), start + 1, 0);
            l += (size_t)snprintf(list + l, sizeof list - l, "%u ", w);
        }
        snprintf(rel, sizeof rel, "proc/%u/task/%u/children", p->pid, p->pid);
        put(root, rel, list);
        char cg[160], key[64];
        key_component(p->key, key, sizeof key);
        snprintf(cg, sizeof cg, "0::/gpusim/%s\n", key);
        snprintf(rel, sizeof rel, "proc/%u/cgroup", p->pid);
        put(root, rel, cg);
        snprintf(rel, sizeof rel, "sys/fs/cgroup/gpusim/%s/cpu.pressure", key);
        put_psi(root, rel, h->psi_cpu);
        snprintf(rel, sizeof rel, "sys/fs/cgroup/gpusim/%s/io.pressure", key);
        put_psi(root, rel, h->psi_io);
    }
}

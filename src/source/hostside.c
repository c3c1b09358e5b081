/* hostside.c -- CPU, workers, I/O wait and pressure of each GPU process.
 *
 * gm_hostside_enrich() runs once per sample over the snapshot's compute
 * processes.  Per process it reads its stat, its main thread's children
 * file, each child's stat, and two pressure files (its cgroup's when cgroup
 * v2 has them, else the node's): a handful of small reads per GPU process,
 * nothing for the rest of the machine.  The cgroup path is kept with the
 * cache entry (it does not change while the process lives).
 *
 * The cache is a small array of (pid, start time) -> the previous CPU and
 * block-I/O ticks and when they were read; each call marks what it saw and
 * drops the rest, so it holds the GPU processes and their workers only.
 * Every file is read with one open/read/close into a stack buffer; parsing
 * takes the name of a process as hostile (spaces, ')' and newlines in it).
 *
 * On the simulator (gm_hostside_set_sim), the files of pids no host process
 * can have (GM_PID_SIM_MIN and above: simulated processes and their
 * workers) come from its gpusimHostRead() instead, through the same
 * parsers; their pressure is their cgroup's as the simulator gives it,
 * never the node's (the host's pressure is not theirs), and their I/O wait
 * is read whatever the host's delay accounting says.
 */
#include "hostside.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/err.h"
#include "procfs.h"

#define HS_MAX_CHILDREN 256 /* children counted per process; more are counted, not read */
#define HS_PSI_MEMO 16      /* cgroups whose pressure one call remembers */
#define HS_KIDS_KEEP 32     /* a process with at most this many children keeps their list */
#define HS_KIDS_TTL_NS (5 * INT64_C(1000000000)) /* ... and reads it again 2.5-5 s later */

struct hs_entry {
    uint32_t pid;
    unsigned long long starttime;
    unsigned long long ticks; /* utime + stime */
    long long blkio;          /* -1 unknown */
    int64_t mono_ns;
    uint32_t gen;
    char cgroup[256]; /* "0::" path, "" none (then the node's pressure) */
    int cgroup_read;
    uint32_t out_gen; /* out is this call's result for the pid when == gen */
    int nkids;        /* kept children of the main thread, -1 none kept */
    uint32_t kids[HS_KIDS_KEEP];
    int64_t kids_read_ns; /* when they were read */
    int64_t kids_due_ns;  /* read them again from then on */
    struct gm_host_side out;
};

/* One cgroup's pressure, read once per call. */
struct hs_psi {
    char cgroup[256];
    double cpu, io;
    uint8_t scope;
    uint8_t sim; /* a simulated process's cgroup (gm_hostside_set_sim) */
};

struct gm_hostside {
    char root[512];
    double hz;
    int delayacct_off;          /* kernel.task_delayacct = 0: blkio ticks never grow */
    const struct gm_procfs *pf; /* GPU processes' stat from there (gm_hostside_set_procfs) */
    gm_hostside_sim_fn sim;     /* simulated pids' files (gm_hostside_set_sim); NULL none */
    struct hs_entry *e;
    size_t n, cap;
    uint32_t *idx; /* open addressing over e by pid: index + 1, 0 empty */
    size_t idxcap; /* power of two, > 2 * n; 0 none yet */
    uint32_t gen;
    struct hs_psi psi[HS_PSI_MEMO];
    size_t npsi; /* psi entries of this call */
};

static ssize_t slurp(const char *path, char *buf, size_t cap);

struct gm_hostside *gm_hostside_new(const char *root)
{
    struct gm_hostside *h = gm_xmalloc(sizeof *h);
    memset(h, 0, sizeof *h);
    snprintf(h->root, sizeof h->root, "%s", root ? root : "");
    /* "/" and "" are the same root: paths are built as root + "/proc/..." */
    size_t l = strlen(h->root);
    while (l && h->root[l - 1] == '/')
        h->root[--l] = '\0';
    long hz = sysconf(_SC_CLK_TCK);
    h->hz = hz > 0 ? (double)hz : 100.0;
    /* Without delay accounting the blkio ticks stay 0 however long a
     * process waits: its I/O wait is then unknown, not 0 %.  Kernels
     * before 5.14 have no such switch (accounting on unless booted with
     * nodelayacct, which this cannot see). */
    char path[600], buf[16];
    snprintf(path, sizeof path, "%s/proc/sys/kernel/task_delayacct", h->root);
    h->delayacct_off = slurp(path, buf, sizeof buf) > 0 && buf[0] == '0';
    return h;
}

void gm_hostside_free(struct gm_hostside *h)
{
    if (!h)
        return;
    free(h->e);
    free(h->idx);
    free(h);
}

void gm_hostside_set_procfs(struct gm_hostside *h, const struct gm_procfs *pf)
{
    if (h)
        h->pf = pf;
}

void gm_hostside_set_sim(struct gm_hostside *h, gm_hostside_sim_fn fn)
{
    if (h)
        h->sim = fn;
}

/* Whether pid's files come from the simulator. */
static int is_sim(const struct gm_hostside *h, uint32_t pid)
{
    return h->sim && pid >= GM_PID_SIM_MIN;
}

/* Reads a small file whole into buf (NUL-terminated); the length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

int gm_hs_parse_stat(const char *buf, size_t len, struct gm_hs_stat *out)
{
    const char *end = buf + len, *rp = NULL;
    for (const char *p = buf; p < end; p++)
        if (*p == ')')
            rp = p;
    if (!rp || rp + 2 >= end || rp[1] != ' ')
        return GM_E_INVAL;
    /* fields from 3 (state) on, space-separated */
    memset(out, 0, sizeof *out);
    out->blkio = -1;
    const char *p = rp + 2;
    int field = 3, have = 0;
    while (p < end && field <= 42) {
        const char *q = p;
        while (q < end && *q != ' ' && *q != '\n')
            q++;
        if (q == p)
            return GM_E_INVAL;
        /* only the fields used are numbers to us: others (rsslim is 2^64-1,
         * addresses exceed LLONG_MAX) are skipped unread */
        if (field == 4 || field == 14 || field == 15 || field == 22 || field == 42) {
            char num[32];
            size_t l = (size_t)(q - p);
            if (l >= sizeof num)
                return GM_E_INVAL;
            memcpy(num, p, l);
            num[l] = '\0';
            char *e;
            errno = 0;
            long long v = strtoll(num, &e, 10);
            if (*e || errno)
                return GM_E_INVAL;
            switch (field) {
            case 4:
                out->ppid = (int)v;
                have |= 1;
                break;
            case 14:
                out->utime = (unsigned long long)v;
                have |= 2;
                break;
            case 15:
                out->stime = (unsigned long long)v;
                have |= 4;
                break;
            case 22:
                out->starttime = (unsigned long long)v;
                have |= 8;
                break;
            case 42:
                out->blkio = v < 0 ? -1 : v;
                break;
            default:
                break;
            }
        }
        field++;
        if (q >= end || *q == '\n')
            break;
        p = q + 1;
    }
    return have == 15 ? 0 : GM_E_INVAL;
}

int gm_hs_parse_pressure(const char *buf, size_t len, double *some)
{
    /* "some avg10=1.23 avg60=... total=N\nfull ..." */
    static const char key[] = "some avg10=";
    size_t kl = sizeof key - 1;
    for (size_t i = 0; i + kl <= len; i++) {
        if ((i == 0 || buf[i - 1] == '\n') && memcmp(buf + i, key, kl) == 0) {
            char num[32];
            size_t l = 0;
            for (size_t k = i + kl;
                 k < len && l + 1 < sizeof num && buf[k] != ' ' && buf[k] != '\n'; k++)
                num[l++] = buf[k];
            num[l] = '\0';
            char *e;
            errno = 0;
            double v = strtod(num, &e);
            if (!l || *e || errno || !isfinite(v) || v < 0 || v > 100)
                return GM_E_INVAL;
            *some = v;
            return 0;
        }
    }
    return GM_E_INVAL;
}

/* Reads file (stat, children, cgroup) of pid into buf (NUL-terminated):
 * from the simulator for a simulated pid, else from the root's
 * proc/PID/FILE (children: proc/PID/task/PID/children).  The length, or
 * -1. */
static ssize_t read_pid_file(const struct gm_hostside *h, uint32_t pid, const char *file, char *buf,
                             size_t cap)
{
    if (is_sim(h, pid)) {
        int n = h->sim(pid, file, buf, cap - 1);
        if (n < 0 || (size_t)n >= cap)
            return -1;
        buf[n] = '\0';
        return n;
    }
    char path[640];
    if (strcmp(file, "children") == 0)
        snprintf(path, sizeof path, "%s/proc/%u/task/%u/children", h->root, pid, pid);
    else
        snprintf(path, sizeof path, "%s/proc/%u/%s", h->root, pid, file);
    return slurp(path, buf, cap);
}

/* The slot of pid in h->idx: its entry's, or the empty one it would take. */
static size_t idx_slot(const struct gm_hostside *h, uint32_t pid)
{
    size_t i = (size_t)(pid * 2654435761u) & (h->idxcap - 1);
    while (h->idx[i] && h->e[h->idx[i] - 1].pid != pid)
        i = (i + 1) & (h->idxcap - 1);
    return i;
}

/* Rebuilds the index over h->e[0..n), at least twice as large as n + 1. */
static void idx_rebuild(struct gm_hostside *h)
{
    size_t cap = h->idxcap ? h->idxcap : 64;
    while (cap < 2 * (h->n + 1))
        cap *= 2;
    if (cap != h->idxcap) {
        free(h->idx);
        h->idx = gm_xcalloc(cap, sizeof *h->idx);
        h->idxcap = cap;
    } else {
        memset(h->idx, 0, cap * sizeof *h->idx);
    }
    for (size_t k = 0; k < h->n; k++)
        h->idx[idx_slot(h, h->e[k].pid)] = (uint32_t)k + 1;
}

/* The cache entry of pid whatever its start time, or NULL. */
static struct hs_entry *find(const struct gm_hostside *h, uint32_t pid)
{
    if (!h->idxcap)
        return NULL;
    uint32_t k = h->idx[idx_slot(h, pid)];
    return k ? &h->e[k - 1] : NULL;
}

/* The cache entry of (pid, starttime), created when new; *fresh = 1 then. */
static struct hs_entry *entry(struct gm_hostside *h, uint32_t pid, unsigned long long starttime,
                              int *fresh)
{
    struct hs_entry *e = find(h, pid);
    if (e) {
        if (e->starttime == starttime) {
            *fresh = 0;
            return e;
        }
        memset(e, 0, sizeof *e); /* a reused pid: start over */
        e->nkids = -1;
        e->pid = pid;
        e->starttime = starttime;
        *fresh = 1;
        return e;
    }
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 32;
        h->e = gm_xrealloc(h->e, h->cap * sizeof *h->e);
    }
    e = &h->e[h->n++];
    memset(e, 0, sizeof *e);
    e->nkids = -1;
    e->pid = pid;
    e->starttime = starttime;
    if (2 * (h->n + 1) > h->idxcap)
        idx_rebuild(h);
    else
        h->idx[idx_slot(h, pid)] = (uint32_t)h->n;
    *fresh = 1;
    return e;
}

/* Reads pid's stat; rates since its previous reading into *cpu / *io (NAN
 * at first sight or unknown).  Returns the entry, or NULL when unreadable. */
static struct hs_entry *sample(struct gm_hostside *h, uint32_t pid, int64_t now, double *cpu,
                               double *io, int gpu_proc)
{
    char buf[1024];
    struct gm_hs_stat st;
    struct gm_procfs_stat ps;
    *cpu = *io = NAN;
    if (gpu_proc && h->pf && gm_procfs_last_stat(h->pf, pid, &ps) == 0) {
        /* the same sample's reading: the file need not be read twice */
        memset(&st, 0, sizeof st);
        st.utime = ps.ticks;
        st.starttime = ps.starttime;
        st.blkio = ps.blkio;
    } else {
        ssize_t n = read_pid_file(h, pid, "stat", buf, sizeof buf);
        if (n <= 0 || gm_hs_parse_stat(buf, (size_t)n, &st) != 0)
            return NULL;
    }
    int fresh;
    struct hs_entry *e = entry(h, pid, st.starttime, &fresh);
    unsigned long long ticks = st.utime + st.stime;
    if (!fresh && now > e->mono_ns && ticks >= e->ticks) {
        double dt = (double)(now - e->mono_ns) / 1e9;
        *cpu = (double)(ticks - e->ticks) / h->hz / dt * 100.0;
        /* the host's delay accounting says nothing of a simulated process */
        if ((!h->delayacct_off || is_sim(h, pid)) && st.blkio >= 0 && e->blkio >= 0 &&
            st.blkio >= e->blkio) {
            double w = (double)(st.blkio - e->blkio) / h->hz / dt * 100.0;
            *io = w > 100 ? 100 : w;
        }
    }
    if (fresh || now > e->mono_ns) {
        e->ticks = ticks;
        e->blkio = st.blkio;
        e->mono_ns = now;
    }
    e->gen = h->gen;
    return e;
}

/* The "0::/path" line of /proc/PID/cgroup into e->cgroup ("" without v2). */
static void read_cgroup(struct gm_hostside *h, struct hs_entry *e)
{
    char buf[2048];
    e->cgroup[0] = '\0';
    e->cgroup_read = 1;
    if (read_pid_file(h, e->pid, "cgroup", buf, sizeof buf) <= 0)
        return;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        /* a path with ".." would leave /sys/fs/cgroup: not followed */
        if (strncmp(line, "0::/", 4) == 0 && !strstr(line, "/..") &&
            strlen(line + 3) < sizeof e->cgroup) {
            snprintf(e->cgroup, sizeof e->cgroup, "%s", line + 3);
            return;
        }
        line = nl ? nl + 1 : NULL;
    }
}

static double pressure(const char *path)
{
    char buf[512];
    double v;
    ssize_t n = slurp(path, buf, sizeof buf);
    return n > 0 && gm_hs_parse_pressure(buf, (size_t)n, &v) == 0 ? v : NAN;
}

static void read_psi_files(struct gm_hostside *h, struct hs_entry *e, struct gm_host_side *o);

/* The pressure of e's cgroup (or the node's), read once per call. */
static void read_psi(struct gm_hostside *h, struct hs_entry *e, struct gm_host_side *o)
{
    if (!e->cgroup_read)
        read_cgroup(h, e);
    uint8_t sim = (uint8_t)is_sim(h, e->pid);
    for (size_t k = 0; k < h->npsi; k++)
        if (h->psi[k].sim == sim && strcmp(h->psi[k].cgroup, e->cgroup) == 0) {
            o->psi_cpu = h->psi[k].cpu;
            o->psi_io = h->psi[k].io;
            o->psi_scope = h->psi[k].scope;
            return;
        }
    read_psi_files(h, e, o);
    if (h->npsi < HS_PSI_MEMO) {
        struct hs_psi *m = &h->psi[h->npsi++];
        memcpy(m->cgroup, e->cgroup, sizeof m->cgroup);
        m->cpu = o->psi_cpu;
        m->io = o->psi_io;
        m->scope = (uint8_t)o->psi_scope;
        m->sim = sim;
    }
}

static void read_psi_files(struct gm_hostside *h, struct hs_entry *e, struct gm_host_side *o)
{
    char path[1024];
    const char *what[2] = {"cpu", "io"};
    double *dst[2] = {&o->psi_cpu, &o->psi_io};
    o->psi_scope = GM_PSI_NONE;
    if (is_sim(h, e->pid)) {
        /* the simulator's cgroup of the process: its pressure, or none */
        for (int k = 0; k < 2; k++) {
            char buf[512], file[16];
            snprintf(file, sizeof file, "%s.pressure", what[k]);
            int n = h->sim(e->pid, file, buf, sizeof buf - 1);
            double v;
            *dst[k] =
                n > 0 && (size_t)n < sizeof buf && gm_hs_parse_pressure(buf, (size_t)n, &v) == 0
                    ? v
                    : NAN;
        }
        if (!isnan(o->psi_cpu) || !isnan(o->psi_io))
            o->psi_scope = GM_PSI_CGROUP;
        return;
    }
    if (e->cgroup[0]) {
        /* "/" is the root cgroup, which has no pressure files: the node's */
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/sys/fs/cgroup%s/%s.pressure", h->root,
                     strcmp(e->cgroup, "/") == 0 ? "" : e->cgroup, what[k]);
            *dst[k] = pressure(path);
        }
        if (!isnan(o->psi_cpu) || !isnan(o->psi_io)) {
            o->psi_scope = GM_PSI_CGROUP;
            return;
        }
    }
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/proc/pressure/%s", h->root, what[k]);
        *dst[k] = pressure(path);
    }
    if (!isnan(o->psi_cpu) || !isnan(o->psi_io))
        o->psi_scope = GM_PSI_NODE;
}

/* Reads the children file of pid's main thread: the first cap pids into
 * kids, the count of all of them (more may be listed than cap); -1 when
 * there is no such file or it is malformed (unknown rather than a wrong
 * count). */
static int read_children(const struct gm_hostside *h, uint32_t pid, uint32_t *kids, int cap)
{
    char buf[4096];
    ssize_t n = read_pid_file(h, pid, "children", buf, sizeof buf);
    if (n < 0)
        return -1;
    int count = 0;
    for (char *p = buf; *p;) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        char *e;
        errno = 0;
        unsigned long c = strtoul(p, &e, 10);
        if (e == p || errno || c == 0 || c > UINT32_MAX || (*e && *e != ' ' && *e != '\n'))
            return -1;
        p = e;
        if (count < cap)
            kids[count] = (uint32_t)c;
        count++;
    }
    return count;
}

/* The children of pid's main thread: count and CPU.  The list is kept with
 * pid's entry (when it is short) and read again HS_KIDS_TTL_NS after, or
 * at once when one of the kept workers cannot be read (it exited). */
static void read_workers(struct gm_hostside *h, uint32_t pid, int64_t now, struct gm_host_side *o,
                         double *io_max)
{
    uint32_t kids[HS_MAX_CHILDREN];
    struct hs_entry *pe = find(h, pid);
    int count;
    int kept = pe && pe->nkids >= 0 && now >= pe->kids_read_ns && now < pe->kids_due_ns;

    if (kept) {
        count = pe->nkids;
        memcpy(kids, pe->kids, (size_t)count * sizeof *kids);
    } else {
        count = read_children(h, pid, kids, HS_MAX_CHILDREN);
        if (pe) {
            pe->nkids = count >= 0 && count <= HS_KIDS_KEEP ? count : -1;
            if (pe->nkids >= 0)
                memcpy(pe->kids, kids, (size_t)count * sizeof *kids);
            pe->kids_read_ns = now;
            pe->kids_due_ns = now + HS_KIDS_TTL_NS / 2 +
                              (int64_t)((pid * 2654435761u) % 1024u) * (HS_KIDS_TTL_NS / 2) / 1024;
        }
    }
    if (count < 0)
        return; /* no children file: unknown */
    int read = 0, all = 1, gone = 0;
    double sum = 0, max = NAN, wio = NAN;
    for (int k = 0; k < count; k++) {
        if (read >= HS_MAX_CHILDREN) {
            all = 0;
            continue;
        }
        read++;
        double cpu, io;
        /* sample() may move the cache: pe is not used after this */
        struct hs_entry *we = sample(h, kids[k], now, &cpu, &io, 0);
        if (!we && kept) {
            /* a kept worker has exited: no longer a worker; the list is
             * read again in the next sample */
            struct hs_entry *again = find(h, pid);
            if (again)
                again->kids_due_ns = now;
            gone++;
            continue;
        }
        if (!we || isnan(cpu)) {
            all = 0;
            continue;
        }
        sum += cpu;
        if (isnan(max) || cpu > max)
            max = cpu;
        if (!isnan(io) && (isnan(wio) || io > wio))
            wio = io;
    }
    if (!isnan(wio) && (isnan(*io_max) || wio > *io_max))
        *io_max = wio;
    count -= gone;
    o->workers = count;
    o->workers_cpu_pct = count == 0 ? 0 : all ? sum : NAN;
    o->workers_cpu_max = count == 0 ? 0 : max;
}

void gm_hostside_enrich(struct gm_hostside *h, struct gm_snapshot *s)
{
    h->gen++;
    h->npsi = 0;
    for (uint32_t i = 0; i < s->nproc; i++) {
        struct gm_proc *p = &s->procs[i];
        struct gm_host_side *o = &p->host;
        memset(o, 0, sizeof *o);
        o->workers = -1;
        o->cpu_pct = o->workers_cpu_pct = o->workers_cpu_max = o->iowait_pct = NAN;
        o->psi_cpu = o->psi_io = NAN;
        if (!(p->type & GM_PT_COMPUTE) || p->host_state == GM_HS_GONE ||
            p->host_state == GM_HS_ZOMBIE || p->pid == 0)
            continue;
        /* one process on several GPUs is read once */
        struct hs_entry *twin = find(h, p->pid);
        if (twin && twin->out_gen == h->gen) {
            *o = twin->out;
            continue;
        }
        struct hs_entry *e =
            sample(h, p->pid, s->mono_ns, &o->cpu_pct, &o->iowait_pct, !p->simulated);
        if (!e)
            continue;
        o->read = 1;
        unsigned long long start = e->starttime;
        double worker_io = NAN;
        read_workers(h, p->pid, s->mono_ns, o, &worker_io);
        /* the feeder's I/O wait: the process's or its busiest-waiting worker's */
        if (!isnan(worker_io) && (isnan(o->iowait_pct) || worker_io > o->iowait_pct))
            o->iowait_pct = worker_io;
        /* read_workers may have moved the cache: look the entry up again */
        int fresh;
        e = entry(h, p->pid, start, &fresh);
        e->gen = h->gen;
        read_psi(h, e, o);
        e->out = *o;
        e->out_gen = h->gen;
    }
    /* forget what this call did not see */
    size_t k = 0;
    for (size_t i = 0; i < h->n; i++)
        if (h->e[i].gen == h->gen)
            h->e[k++] = h->e[i];
    if (k != h->n || !h->idxcap) {
        h->n = k;
        idx_rebuild(h);
    }
}

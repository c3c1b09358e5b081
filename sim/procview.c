/* procview.c -- the simulated /proc view of a scenario's processes.
 *
 * A scenario process whose pid is at or above Linux's PID_MAX_LIMIT
 * (GS_PID_SIM_MIN, 4194304) can never be a process of the host: the kernel
 * does not hand out such pids.  So that `gpumon --sim` shows a live node
 * without starting stand-in programs, the simulator answers what /proc would
 * say about such a process through one extra exported function,
 * gpusimProcRead(), which gpumon's procfs reader calls (by dlsym on the NVML
 * library it loaded) for exactly those pids.  Nothing is written to disk.
 *
 * A simulated process is alive while NVML lists it (its [start, end) window
 * holds the scenario time) unless the scenario says `alive = no`: then it is
 * gone, like a crashed rank whose memory the driver still holds.  Its files:
 *
 *   stat     "PID (COMM) S 1 PID PID 0 -1 ..." up to field 24: COMM is the
 *            last path component of the process's name, cut to 15 bytes as the
 *            kernel does; utime grows with scenario time at `cpu` percent of
 *            one core; starttime (ticks after this host's boot) is the
 *            process's `start` on the shared timeline (with GPUSIM_TIME
 *            pinned: as long before the session's epoch as the scenario
 *            time is past `start`); rss is `rss`.
 *   status   Name, State, Pid, PPid, Uid, Gid (the calling process's real
 *            ids: the simulated job belongs to whoever runs the simulator),
 *            NSpid.  The name is escaped as the kernel does (\n, \\).
 *   cmdline  `cmdline` (default: the name) split at blanks, NUL-terminated.
 *   cgroup   "0::/user.slice/user-UID.slice/session-gpusim.scope".
 *   exe      not given (-ENOENT): the simulator does not pretend a binary.
 *
 * Real pids (GPUSIM_PID_* or pid_file) are never answered here: /proc has
 * them.  The legacy variant exports the same function.
 *
 * gpusimHostRead() is the same for the host side of such processes
 * (sim/hostside.c): their CPU and block-I/O delay ticks by the wall clock,
 * their DataLoader workers, their cgroup and its pressure, which gpumon's
 * host reader (src/source/hostside.c) asks when no GPUMON_HOST_ROOT points
 * it at files.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"

GS_EXPORT int gpusimProcRead(unsigned int pid, const char *file, char *buf, size_t cap);
GS_EXPORT int gpusimHostRead(unsigned int pid, const char *file, char *buf, size_t cap);

/* Appends printf output at *len of buf[cap]; cut when it does not fit. */
__attribute__((format(printf, 4, 5))) static void put(char *buf, size_t cap, size_t *len,
                                                      const char *fmt, ...)
{
    va_list ap;
    if (*len >= cap)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *len = (size_t)n >= cap - *len ? cap : *len + (size_t)n;
}

/* The kernel's comm of a process called name: its last path component, at
 * most 15 bytes. */
static void comm_of(const char *name, char out[16])
{
    const char *slash = strrchr(name, '/');
    const char *base = slash && slash[1] ? slash + 1 : name;
    size_t n = strnlen(base, 15);
    memcpy(out, base, n);
    out[n] = '\0';
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t view_stat(const struct gs_call *c, const struct gs_process *p, char *buf, size_t cap)
{
    char comm[16];
    long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    if (tck <= 0)
        tck = 100;
    if (page <= 0)
        page = 4096;
    comm_of(p->name, comm);
    double run_s = (c->t - p->start) / c->tc->speed; /* wall seconds it has run */
    unsigned long long utime =
        run_s > 0 ? (unsigned long long)floor(p->cpu / 100.0 * run_s * (double)tck) : 0;
    /* Its start on the wall clock, the same at every call (a changing
     * starttime would read as a new process): on the shared timeline, or
     * with GPUSIM_TIME pinned as old as the scenario time says at the
     * session's start (the epoch), ageing with the wall clock after it. */
    double start_wall =
        c->tc->pinned ? c->tc->epoch - run_s : c->tc->epoch + p->start / c->tc->speed;
    static double boot_wall; /* the host's boot on the wall clock; under the library's lock */
    if (boot_wall == 0)
        boot_wall = clock_s(CLOCK_REALTIME) - clock_s(CLOCK_BOOTTIME);
    double since_boot = start_wall - boot_wall;
    unsigned long long start = since_boot > 0 ? (unsigned long long)(since_boot * (double)tck) : 0;
    size_t len = 0;
    put(buf, cap, &len, "%u (%s) S 1 %u %u 0 -1 4194560 0 0 0 0 %llu 0 0 0 20 0 1 0 %llu 0 %llu\n",
        p->pid, comm, p->pid, p->pid, utime, start, (unsigned long long)(p->rss / (double)page));
    return len;
}

static size_t view_status(const struct gs_process *p, char *buf, size_t cap)
{
    char comm[16], esc[40];
    size_t e = 0;
    comm_of(p->name, comm);
    for (const char *q = comm; *q && e + 3 < sizeof(esc); q++) {
        if (*q == '\n' || *q == '\\') {
            esc[e++] = '\\';
            esc[e++] = *q == '\n' ? 'n' : '\\';
        } else {
            esc[e++] = *q;
        }
    }
    esc[e] = '\0';
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    size_t len = 0;
    put(buf, cap, &len,
        "Name:\t%s\nState:\tS (sleeping)\nTgid:\t%u\nPid:\t%u\nPPid:\t1\n"
        "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nNSpid:\t%u\n",
        esc, p->pid, p->pid, uid, uid, uid, uid, gid, gid, gid, gid, p->pid);
    return len;
}

static size_t view_cmdline(const struct gs_process *p, char *buf, size_t cap)
{
    const char *src = p->cmdline ? p->cmdline : p->name;
    size_t len = 0;
    int in_arg = 0;
    for (const char *q = src; *q && len < cap; q++) {
        if (*q == ' ' || *q == '\t') {
            if (in_arg)
                buf[len++] = '\0';
            in_arg = 0;
        } else {
            buf[len++] = *q;
            in_arg = 1;
        }
    }
    if (in_arg && len < cap)
        buf[len++] = '\0';
    return len;
}

GS_EXPORT int gpusimProcRead(unsigned int pid, const char *file, char *buf, size_t cap)
{
    if (!file || !buf || cap == 0 || cap > (size_t)INT32_MAX)
        return -EINVAL;
    int which = strcmp(file, "stat") == 0      ? 0
                : strcmp(file, "status") == 0  ? 1
                : strcmp(file, "cmdline") == 0 ? 2
                : strcmp(file, "cgroup") == 0  ? 3
                : strcmp(file, "exe") == 0     ? 4
                                               : -1;
    if (which < 0)
        return -EINVAL;
    if (pid < GS_PID_SIM_MIN)
        return -ENOENT; /* a host pid: /proc knows it */
    struct gs_call c;
    memset(&c, 0, sizeof(c));
    if (gs_relock(&c) != NVML_SUCCESS)
        return -ENOENT; /* no session: nothing is simulated */
    const struct gs_process *p = gs_proc_by_pid(c.s, pid);
    if (!p || p->pid_file || p->dead || c.t < p->start || c.t >= p->end || which == 4) {
        gs_end(&c, NVML_SUCCESS);
        return -ENOENT;
    }
    size_t len = 0;
    if (which == 0) {
        len = view_stat(&c, p, buf, cap);
    } else if (which == 1) {
        len = view_status(p, buf, cap);
    } else if (which == 2) {
        len = view_cmdline(p, buf, cap);
    } else {
        put(buf, cap, &len, "0::/user.slice/user-%u.slice/session-gpusim.scope\n",
            (unsigned)getuid());
    }
    gs_end(&c, NVML_SUCCESS);
    return (int)len;
}

GS_EXPORT int gpusimHostRead(unsigned int pid, const char *file, char *buf, size_t cap)
{
    if (!file || !buf || cap == 0 || cap > (size_t)INT32_MAX)
        return -EINVAL;
    if (pid < GS_PID_SIM_MIN)
        return -ENOENT; /* a host pid: /proc knows it */
    struct gs_call c;
    memset(&c, 0, sizeof(c));
    if (gs_relock(&c) != NVML_SUCCESS)
        return -ENOENT; /* no session: nothing is simulated */
    int n = gs_host_read(c.s, c.tc, c.t, pid, file, buf, cap);
    gs_end(&c, NVML_SUCCESS);
    return n;
}

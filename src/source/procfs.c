/* procfs.c -- what /proc says about the processes NVML reports.
 *
 * gm_procfs_enrich() walks a snapshot's process list once per sample.  For
 * each distinct PID it reads /proc/PID/stat (state, name, CPU times, start
 * time, RSS, block-I/O delay) every call, because those change every sample.
 * The facts that rarely change are kept per (PID, start time), read when the
 * process is first seen and again when its comm changes (an exec): the real
 * uid (/proc/PID/status), the command line and the executable path, which
 * are also read again PF_INFO_TTL_NS (60 s) after the last read (a
 * setproctitle() shows within a minute), and the cgroup with the job
 * attribution made of it, read again PF_CGROUP_TTL_NS (10 s) after the last
 * read: a process moved into a job's cgroup is attributed within 10 s.  Each
 * pid's next read falls between half the period and the period after the
 * last (pf_spread), so a thousand processes first seen together are not all
 * read again in one sample.  Reading the four files costs about 30 us per
 * process on the VM we measured, stat through a kept descriptor (below) about
 * 2-3; the goal is 3 us per process per sample (docs/BENCHMARKS.md,
 * "Processes").
 *
 * Files are read with one open/read/close into a stack buffer: /proc's
 * seq_file and cmdline readers fill the buffer as far as the data goes, so a
 * short read is the end of the file.  The stat file of each tracked PID stays
 * open between samples (O_CLOEXEC; up to half the descriptors RLIMIT_NOFILE
 * allows, between PF_STATFD_MIN and PF_STATFD_MAX) and is re-read with
 * pread() at offset 0, which halves its cost.  The descriptor is
 * bound to that process, so once it is reaped the read fails with ESRCH and
 * the PID is looked up afresh (it may be gone, or reused).  The strings the
 * snapshot owns (struct gm_proc's cmdline, exe, cgroup) are copied into
 * buffers the snapshot kept from its last fill (gm_snapshot_strdup), so a
 * steady sample allocates nothing here.
 *
 * CPU % needs the previous sample of the same process: PIDs are reused, so a
 * history entry counts only when its starttime matches.  The history lives in
 * two small open-addressing tables keyed by PID: the previous call's and the
 * one being built; after each call they swap and the old one is emptied,
 * which is how PIDs that disappeared are forgotten.
 *
 * Leaves out: threads, I/O counters, environment, container names, and any
 * translation between PID namespaces.  NVML reports PIDs of the initial PID
 * namespace; when gpumon itself runs in a child namespace a missing
 * /proc/PID proves nothing, so such processes stay GM_HS_UNKNOWN instead of
 * GM_HS_GONE (no false "memory held by a dead process" in containers).
 * User names come from getpwuid_r(), which may block on a slow NSS backend;
 * results are cached, failures retried after PF_USER_RETRY_NS.
 *
 * Pids at or above GM_PID_SIM_MIN are read through the simulator's view
 * when one is set (procfs.h): the same text, fetched by a call instead of a
 * file, parsed by the same functions; no descriptor is kept for them.
 */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "../core/err.h"
#include "procfs_int.h"

#define PF_INFO_TTL_NS (60 * INT64_C(1000000000))   /* re-read uid, cmdline, exe (and cgroup) */
#define PF_CGROUP_TTL_NS (10 * INT64_C(1000000000)) /* re-read the cgroup (job attribution) */
#define PF_USER_RETRY_NS (60 * INT64_C(1000000000)) /* retry a uid with no passwd entry */
#define PF_STATFD_MIN 64                            /* stat files kept open, at least */
#define PF_STATFD_MAX 16384                         /* ... and at most */
#define PF_USERS_MAX 64                             /* uid -> name cache entries */
#define PF_PROC_SUPER_MAGIC 0x9fa0                  /* statfs f_type of procfs */
#define PF_PID_INIT_INO UINT64_C(4026531836)        /* inode of the initial PID namespace */

/* ------------------------------------------------------------------------ */
/* Types                                                                     */

/* What we remember about one PID, within a call and until the next one. */
struct pf_hist {
    uint32_t pid;
    uint8_t used;
    uint8_t have_stat; /* stat parsed in that call: starttime, ticks, mono_ns, comm valid */
    uint8_t have_info; /* uid, cmdline, exe, cgroup were read at info_mono_ns */
    uint8_t have_uid;
    uint32_t uid;
    uint32_t nspid;          /* 0 unknown */
    struct gm_attrib attrib; /* from cgroup */
    uint32_t first;          /* index in s->procs of the entry filled for this PID */
    int statfd;              /* /proc/PID/stat kept open, or -1 */
    uint64_t starttime;
    uint64_t ticks;  /* utime + stime */
    long long blkio; /* delayacct_blkio_ticks, -1 unknown */
    int64_t mono_ns; /* snapshot's monotonic time of that stat */
    int64_t info_mono_ns;
    int64_t info_due_ns;   /* read uid, cmdline, exe and cgroup again from then on */
    int64_t cgroup_due_ns; /* read the cgroup again from then on */
    char *cmdline;         /* owned; NULL when unknown */
    char *exe;
    char *cgroup;
    char comm[64];
};

struct pf_table {
    struct pf_hist *slot;
    uint32_t cap; /* power of two, or 0 */
    uint32_t n;
};

struct pf_user {
    uint32_t uid;
    uint8_t found; /* the passwd entry exists; else name is the number */
    int64_t mono_ns;
    char name[33];
};

struct gm_procfs {
    char *root;
    gm_procfs_sim_fn sim; /* the simulator's view of pids >= GM_PID_SIM_MIN, or NULL */
    int rootfd;           /* O_PATH directory, or -1 until it can be opened */
    uint8_t live;         /* root is a procfs: a missing PID is confirmed with kill(pid, 0) */
    uint8_t foreign_ns;   /* live, but we are in a child PID namespace */
    uint8_t boot_known;
    int64_t boot_ns; /* wall-clock time of boot */
    uint64_t clk_tck;
    uint64_t page_size;
    struct pf_table tab[2];
    unsigned prev; /* tab[prev] holds the previous call's PIDs; the other is empty */
    unsigned nstatfd;
    unsigned statfd_max; /* half the descriptors RLIMIT_NOFILE allows, within bounds */
    struct pf_user users[PF_USERS_MAX];
    unsigned nusers;
    unsigned users_next; /* round-robin victim once the cache is full */
};

static int64_t pf_clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * PF_NS + ts.tv_nsec;
}

static void pf_boot_time(struct gm_procfs *pf)
{
    if (pf->boot_known)
        return;
    if (gm_pf_read_btime(pf->rootfd, &pf->boot_ns) < 0)
        pf->boot_ns = pf_clock_ns(CLOCK_REALTIME) - pf_clock_ns(CLOCK_BOOTTIME);
    pf->boot_known = 1;
}

/* ------------------------------------------------------------------------ */
/* Root directory                                                            */

static int pf_open_root(struct gm_procfs *pf)
{
    struct statfs sfs;

    if (pf->rootfd >= 0)
        return 0;
    pf->rootfd = open(pf->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (pf->rootfd < 0)
        return -1;
    pf->live = fstatfs(pf->rootfd, &sfs) == 0 && sfs.f_type == PF_PROC_SUPER_MAGIC;
    pf->foreign_ns = 0;
    if (pf->live) {
        char link[64];
        ssize_t n = readlinkat(pf->rootfd, "self/ns/pid", link, sizeof link - 1);
        if (n > 0) {
            char want[64];
            link[n] = '\0';
            snprintf(want, sizeof want, "pid:[%" PRIu64 "]", PF_PID_INIT_INO);
            pf->foreign_ns = strcmp(link, want) != 0;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* uid -> user name                                                          */

static void pf_user_name(struct gm_procfs *pf, uint32_t uid, int64_t now, char *out, size_t len)
{
    struct pf_user *u = NULL;
    struct passwd pw, *res = NULL;
    char sbuf[1024], *buf = sbuf, *heap = NULL;
    size_t blen = sizeof sbuf;
    int rc;

    for (unsigned i = 0; i < pf->nusers; i++) {
        if (pf->users[i].uid == uid) {
            u = &pf->users[i];
            break;
        }
    }
    if (u && (u->found || now - u->mono_ns < PF_USER_RETRY_NS)) {
        gm_strlcpy(out, u->name, len);
        return;
    }
    if (!u) {
        if (pf->nusers < PF_USERS_MAX) {
            u = &pf->users[pf->nusers++];
        } else {
            u = &pf->users[pf->users_next];
            pf->users_next = (pf->users_next + 1) % PF_USERS_MAX;
        }
    }

    for (;;) {
        rc = getpwuid_r((uid_t)uid, &pw, buf, blen, &res);
        if (rc != ERANGE || blen >= 65536)
            break;
        blen *= 4;
        heap = gm_xrealloc(heap, blen);
        buf = heap;
    }
    u->uid = uid;
    u->mono_ns = now;
    u->found = rc == 0 && res && res->pw_name && res->pw_name[0];
    if (u->found)
        gm_strlcpy(u->name, res->pw_name, sizeof u->name);
    else
        snprintf(u->name, sizeof u->name, "%" PRIu32, uid);
    free(heap);
    gm_strlcpy(out, u->name, len);
}

/* ------------------------------------------------------------------------ */
/* PID history tables                                                        */

static uint32_t pf_hash(uint32_t pid)
{
    return pid * 2654435761u; /* Knuth's multiplicative hash */
}

static struct pf_hist *pf_find(const struct pf_table *t, uint32_t pid)
{
    if (t->cap == 0)
        return NULL;
    for (uint32_t i = pf_hash(pid) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (!t->slot[i].used)
            return NULL;
        if (t->slot[i].pid == pid)
            return &t->slot[i];
    }
}

/* Finds pid or claims an empty slot for it (*fresh = 1).  The table must
 * have room: callers size it to twice the number of processes. */
static struct pf_hist *pf_insert(struct pf_table *t, uint32_t pid, int *fresh)
{
    uint32_t i = pf_hash(pid) & (t->cap - 1);

    while (t->slot[i].used) {
        if (t->slot[i].pid == pid) {
            *fresh = 0;
            return &t->slot[i];
        }
        i = (i + 1) & (t->cap - 1);
    }
    memset(&t->slot[i], 0, sizeof t->slot[i]);
    t->slot[i].used = 1;
    t->slot[i].pid = pid;
    t->slot[i].statfd = -1;
    t->n++;
    *fresh = 1;
    return &t->slot[i];
}

static void pf_hist_free_info(struct pf_hist *h)
{
    free(h->cmdline);
    free(h->exe);
    free(h->cgroup);
    h->cmdline = h->exe = h->cgroup = NULL;
}

static void pf_close_statfd(struct gm_procfs *pf, struct pf_hist *h)
{
    if (h->statfd >= 0) {
        close(h->statfd);
        h->statfd = -1;
        pf->nstatfd--;
    }
}

/* Frees the strings and descriptors of every entry and empties the table. */
static void pf_table_clear(struct gm_procfs *pf, struct pf_table *t)
{
    if (t->n == 0)
        return;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (t->slot[i].used) {
            pf_hist_free_info(&t->slot[i]);
            pf_close_statfd(pf, &t->slot[i]);
        }
    }
    memset(t->slot, 0, sizeof *t->slot * t->cap);
    t->n = 0;
}

/* Makes the (empty) table hold at least 2 * n entries. */
static void pf_table_reserve(struct pf_table *t, uint32_t n)
{
    uint32_t cap = t->cap ? t->cap : 16;

    while (cap / 2 < n)
        cap *= 2;
    if (cap == t->cap)
        return;
    free(t->slot);
    t->slot = gm_xcalloc(cap, sizeof *t->slot);
    t->cap = cap;
}

/* ------------------------------------------------------------------------ */
/* Enrichment                                                                */

/* Whether pid is read through the simulator's view (procfs.h). */
static int pf_is_sim(const struct gm_procfs *pf, uint32_t pid)
{
    return pf->sim && pid >= GM_PID_SIM_MIN;
}

static void pf_clear_strings(struct gm_proc *p)
{
    free(p->cmdline);
    free(p->exe);
    free(p->cgroup);
    p->cmdline = p->exe = p->cgroup = NULL;
}

/* Marks p as not readable: the per-sample values get status st. */
static void pf_set_unreadable(struct gm_proc *p, enum gm_host_state hs, enum gm_vstatus st)
{
    p->host_state = (uint8_t)hs;
    p->state_char = 0;
    p->ppid = p->sid = 0;
    p->nspid = 0;
    gm_attrib_parse(NULL, GM_ATTRIB_NO_UID, &p->attrib);
    p->start_time = gm_v_status(st, 0);
    p->elapsed = gm_v_status(st, 0);
    p->cpu = gm_v_status(st, 0);
    p->rss = gm_v_status(st, 0);
}

/* /proc/PID is missing or refused (errno e): GONE, HIDDEN or UNKNOWN. */
static void pf_not_there(struct gm_procfs *pf, struct gm_proc *p, const char *pidstr, int e,
                         int64_t now)
{
    if (e == ENOENT || e == ESRCH) {
        if (pf->foreign_ns) {
            pf_set_unreadable(p, GM_HS_UNKNOWN, GM_VS_NA);
            return;
        }
        /* hidepid=invisible hides other users' PIDs: ask the kernel directly. */
        if (pf->live && p->pid > 0 && p->pid <= INT_MAX &&
            (kill((pid_t)p->pid, 0) == 0 || errno == EPERM)) {
            pf_set_unreadable(p, GM_HS_HIDDEN, GM_VS_NOPERM);
            return;
        }
        pf_set_unreadable(p, GM_HS_GONE, GM_VS_NA);
    } else if (e == EACCES || e == EPERM) {
        struct stat st;
        pf_set_unreadable(p, GM_HS_HIDDEN, GM_VS_NOPERM);
        /* hidepid=noaccess still shows who owns the directory. */
        if (fstatat(pf->rootfd, pidstr, &st, 0) == 0) {
            p->uid = (uint32_t)st.st_uid;
            pf_user_name(pf, p->uid, now, p->user, sizeof p->user);
        }
    } else {
        pf_set_unreadable(p, GM_HS_UNKNOWN, GM_VS_ERROR);
    }
}

/* When, after a read, the next one of a fact kept for ttl is due: between
 * ttl/2 and ttl, fixed per pid, so that the processes seen in one sample
 * (all of them, at the agent's start) are not all read again in the same
 * later sample.  A change is seen at most ttl after it happened. */
static int64_t pf_spread(uint32_t pid, int64_t ttl)
{
    return ttl / 2 + (int64_t)((pid * 2654435761u) % 1024u) * (ttl / 2) / 1024;
}

/* Reads the rarely changing facts of pid into h. */
static void pf_read_info(struct gm_procfs *pf, const char *pidstr, struct pf_hist *h, int64_t now)
{
    char path[48];

    char buf[4096];
    ssize_t n;

    pf_hist_free_info(h);
    if (pf_is_sim(pf, h->pid)) {
        n = pf->sim(h->pid, "status", buf, sizeof buf);
        h->have_uid = gm_pf_parse_uid(buf, n, &h->uid, &h->nspid) == 0;
        n = pf->sim(h->pid, "cmdline", buf, sizeof buf);
        h->cmdline = n > 0 ? gm_pf_cmdline_text(buf, (size_t)n, NULL) : NULL;
        n = pf->sim(h->pid, "exe", buf, sizeof buf);
        h->exe = n > 0 ? gm_xstrndup(buf, (size_t)n) : NULL;
        n = pf->sim(h->pid, "cgroup", buf, sizeof buf);
        h->cgroup = gm_pf_parse_cgroup(buf, n);
    } else {
        snprintf(path, sizeof path, "%s/status", pidstr);
        n = gm_pf_read(pf->rootfd, path, buf, sizeof buf);
        h->have_uid = gm_pf_parse_uid(buf, n, &h->uid, &h->nspid) == 0;
        snprintf(path, sizeof path, "%s/cmdline", pidstr);
        h->cmdline = gm_pf_read_cmdline(pf->rootfd, path);
        snprintf(path, sizeof path, "%s/exe", pidstr);
        h->exe = gm_pf_read_exe(pf->rootfd, path);
        snprintf(path, sizeof path, "%s/cgroup", pidstr);
        n = gm_pf_read(pf->rootfd, path, buf, sizeof buf);
        h->cgroup = gm_pf_parse_cgroup(buf, n);
    }
    /* the uid first: a Slurm path names its user (attrib.h) */
    gm_attrib_parse(h->cgroup, h->have_uid ? h->uid : GM_ATTRIB_NO_UID, &h->attrib);
    h->have_info = 1;
    h->info_mono_ns = now;
    h->info_due_ns = now + pf_spread(h->pid, PF_INFO_TTL_NS);
    h->cgroup_due_ns = now + pf_spread(h->pid, PF_CGROUP_TTL_NS);
}

/* Reads pid's cgroup (and so its job) again, keeping the other facts. */
static void pf_read_cgroup(struct gm_procfs *pf, const char *pidstr, struct pf_hist *h, int64_t now)
{
    char path[48], buf[4096];
    ssize_t n;

    if (pf_is_sim(pf, h->pid)) {
        n = pf->sim(h->pid, "cgroup", buf, sizeof buf);
    } else {
        snprintf(path, sizeof path, "%s/cgroup", pidstr);
        n = gm_pf_read(pf->rootfd, path, buf, sizeof buf);
    }
    h->cgroup_due_ns = now + pf_spread(h->pid, PF_CGROUP_TTL_NS);
    /* unchanged, the usual case: nothing to copy or parse again */
    size_t len = 0;
    const char *cg = gm_pf_cgroup_best(buf, n, &len);
    if (cg ? h->cgroup && strlen(h->cgroup) == len && memcmp(h->cgroup, cg, len) == 0 : !h->cgroup)
        return;
    free(h->cgroup);
    h->cgroup = cg ? gm_xstrndup(cg, len) : NULL;
    gm_attrib_parse(h->cgroup, h->have_uid ? h->uid : GM_ATTRIB_NO_UID, &h->attrib);
}

/* Is old the same process as h (same start time, no exec since), whose
 * rarely changing facts h can take over? */
static int pf_same_life(const struct pf_hist *old, const struct pf_hist *h, int64_t now)
{
    return old && old->have_stat && old->have_info && old->starttime == h->starttime &&
           strcmp(old->comm, h->comm) == 0 && now >= old->info_mono_ns;
}

/* Reads /proc/PID/stat into buf, through old's open descriptor while that
 * process lives, else by opening it (and keeping it in h while there is room).
 * Returns the length, or -errno. */
static ssize_t pf_read_stat(struct gm_procfs *pf, const char *pidstr, struct pf_hist *h,
                            struct pf_hist *old, char *buf, size_t cap)
{
    char path[48];
    ssize_t n;
    int fd, e;

    if (pf_is_sim(pf, h->pid))
        return pf->sim(h->pid, "stat", buf, cap);
    if (old && old->statfd >= 0) {
        h->statfd = old->statfd; /* moves with the PID to this call's table */
        old->statfd = -1;
        do
            n = pread(h->statfd, buf, cap, 0);
        while (n < 0 && errno == EINTR);
        if (n >= 0)
            return n;
        pf_close_statfd(pf, h); /* ESRCH: that process was reaped; look the PID up again */
    }

    snprintf(path, sizeof path, "%s/stat", pidstr);
    fd = openat(pf->rootfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    do
        n = read(fd, buf, cap);
    while (n < 0 && errno == EINTR);
    e = errno;
    if (n >= 0 && pf->nstatfd < pf->statfd_max) {
        h->statfd = fd;
        pf->nstatfd++;
    } else {
        close(fd);
    }
    return n < 0 ? -e : n;
}

/* Fills p (the first entry for its PID in this call) and h from /proc. */
static void pf_enrich_one(struct gm_procfs *pf, struct gm_snapshot *s, struct gm_proc *p,
                          struct pf_hist *h, struct pf_hist *old)
{
    char pidstr[16], buf[1024];
    struct gm_proc_stat st;
    ssize_t n;

    pf_clear_strings(p);
    p->simulated = (uint8_t)pf_is_sim(pf, p->pid);
    snprintf(pidstr, sizeof pidstr, "%" PRIu32, p->pid);
    if (pf->rootfd < 0 && !pf_is_sim(pf, p->pid)) {
        pf_set_unreadable(p, GM_HS_UNKNOWN, GM_VS_ERROR);
        return;
    }
    n = pf_read_stat(pf, pidstr, h, old, buf, sizeof buf);
    if (n < 0 && pf_is_sim(pf, p->pid)) {
        /* no such simulated process: gone, and no kernel to ask */
        pf_set_unreadable(p, GM_HS_GONE, GM_VS_NA);
        return;
    }
    if (n < 0) {
        pf_not_there(pf, p, pidstr, (int)-n, s->mono_ns);
        return;
    }
    if (gm_proc_parse_stat(buf, (size_t)n, &st) < 0) {
        /* It exists, but we cannot make sense of it. */
        pf_set_unreadable(p, GM_HS_ALIVE, GM_VS_ERROR);
        return;
    }

    h->have_stat = 1;
    h->starttime = st.starttime;
    h->ticks = st.utime + st.stime;
    h->blkio = st.blkio;
    h->mono_ns = s->mono_ns;
    gm_strlcpy(h->comm, st.comm, sizeof h->comm);

    p->state_char = st.state;
    p->ppid = st.ppid;
    p->sid = st.session;
    p->host_state = (st.state == 'Z' || st.state == 'X') ? GM_HS_ZOMBIE : GM_HS_ALIVE;
    gm_strlcpy(p->comm, st.comm, sizeof p->comm);

    /* starttime ticks -> ns without overflowing for any realistic uptime. */
    int64_t since_boot = (int64_t)(st.starttime / pf->clk_tck) * PF_NS +
                         (int64_t)(st.starttime % pf->clk_tck * PF_NS / pf->clk_tck);
    int64_t start = pf->boot_ns + since_boot;
    p->start_time = gm_v_u64((uint64_t)start);
    p->elapsed = gm_v_f64(s->wall_ns > start ? (double)(s->wall_ns - start) / 1e9 : 0.0);

    if (old && old->have_stat && old->starttime == st.starttime && s->mono_ns > old->mono_ns &&
        h->ticks >= old->ticks) {
        double cpu_s = (double)(h->ticks - old->ticks) / (double)pf->clk_tck;
        double wall_s = (double)(s->mono_ns - old->mono_ns) / 1e9;
        p->cpu = gm_v_f64(cpu_s / wall_s * 100.0);
    } else {
        p->cpu = gm_v_status(GM_VS_NA, 0); /* first sight, or a new process with this PID */
    }
    p->rss = gm_v_u64((uint64_t)st.rss_pages * pf->page_size);

    if (pf_same_life(old, h, s->mono_ns) && s->mono_ns < old->info_due_ns) {
        h->have_info = 1;
        h->info_mono_ns = old->info_mono_ns;
        h->info_due_ns = old->info_due_ns;
        h->cgroup_due_ns = old->cgroup_due_ns;
        h->have_uid = old->have_uid;
        h->uid = old->uid;
        h->nspid = old->nspid;
        h->attrib = old->attrib;
        h->cmdline = old->cmdline;
        h->exe = old->exe;
        h->cgroup = old->cgroup;
        old->cmdline = old->exe = old->cgroup = NULL;
        if (s->mono_ns >= h->cgroup_due_ns)
            pf_read_cgroup(pf, pidstr, h, s->mono_ns); /* moved into (or out of) a job? */
    } else {
        pf_read_info(pf, pidstr, h, s->mono_ns);
    }

    if (h->have_uid) {
        p->uid = h->uid;
        pf_user_name(pf, h->uid, s->mono_ns, p->user, sizeof p->user);
    } else {
        p->user[0] = '\0';
    }
    p->cmdline = gm_snapshot_strdup(s, h->cmdline);
    p->exe = gm_snapshot_strdup(s, h->exe);
    p->cgroup = gm_snapshot_strdup(s, h->cgroup);
    p->nspid = h->nspid;
    p->attrib = h->attrib;
}

/* Copies what /proc said about src's PID into dst (same PID, another GPU). */
static void pf_copy_proc(struct gm_snapshot *s, struct gm_proc *dst, const struct gm_proc *src)
{
    pf_clear_strings(dst);
    dst->host_state = src->host_state;
    dst->simulated = src->simulated;
    dst->state_char = src->state_char;
    dst->ppid = src->ppid;
    dst->sid = src->sid;
    dst->uid = src->uid;
    dst->start_time = src->start_time;
    dst->elapsed = src->elapsed;
    dst->cpu = src->cpu;
    dst->rss = src->rss;
    gm_strlcpy(dst->comm, src->comm, sizeof dst->comm);
    gm_strlcpy(dst->user, src->user, sizeof dst->user);
    dst->cmdline = gm_snapshot_strdup(s, src->cmdline);
    dst->exe = gm_snapshot_strdup(s, src->exe);
    dst->cgroup = gm_snapshot_strdup(s, src->cgroup);
    dst->nspid = src->nspid;
    dst->attrib = src->attrib;
}

/* ------------------------------------------------------------------------ */
/* Public                                                                    */

struct gm_procfs *gm_procfs_new(const char *root)
{
    struct gm_procfs *pf = gm_xcalloc(1, sizeof *pf);
    long v;

    pf->root = gm_xstrdup(root && root[0] ? root : "/proc");
    pf->rootfd = -1;
    v = sysconf(_SC_CLK_TCK);
    pf->clk_tck = v > 0 ? (uint64_t)v : 100;
    v = sysconf(_SC_PAGESIZE);
    pf->page_size = v > 0 ? (uint64_t)v : 4096;
    /* One kept stat file per process: half the descriptors we may open,
     * leaving the other half to the rest of the program. */
    struct rlimit rl;
    rlim_t fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur / 2 : PF_STATFD_MIN;
    pf->statfd_max = fds < PF_STATFD_MIN   ? PF_STATFD_MIN
                     : fds > PF_STATFD_MAX ? PF_STATFD_MAX
                                           : (unsigned)fds;
    pf_open_root(pf); /* retried by each enrich call until it works */
    return pf;
}

void gm_procfs_set_sim(struct gm_procfs *pf, gm_procfs_sim_fn fn)
{
    if (pf)
        pf->sim = fn;
}

void gm_procfs_free(struct gm_procfs *pf)
{
    if (!pf)
        return;
    for (int i = 0; i < 2; i++) {
        pf_table_clear(pf, &pf->tab[i]);
        free(pf->tab[i].slot);
    }
    if (pf->rootfd >= 0)
        close(pf->rootfd);
    free(pf->root);
    free(pf);
}

size_t gm_procfs_tracked(const struct gm_procfs *pf)
{
    return pf ? pf->tab[pf->prev].n : 0;
}

int gm_procfs_last_stat(const struct gm_procfs *pf, uint32_t pid, struct gm_procfs_stat *out)
{
    /* after a call, tab[prev] is the table that call built */
    const struct pf_hist *h = pf ? pf_find(&pf->tab[pf->prev], pid) : NULL;

    if (!h || !h->have_stat || pf_is_sim(pf, pid))
        return GM_E_NOTFOUND;
    out->starttime = h->starttime;
    out->ticks = h->ticks;
    out->blkio = h->blkio;
    return 0;
}

void gm_procfs_enrich(struct gm_procfs *pf, struct gm_snapshot *s)
{
    struct pf_table *prev, *cur;

    if (!pf || !s)
        return;
    prev = &pf->tab[pf->prev];
    cur = &pf->tab[pf->prev ^ 1u];
    pf_table_reserve(cur, s->nproc);
    if (pf_open_root(pf) == 0)
        pf_boot_time(pf);

    for (uint32_t i = 0; i < s->nproc; i++) {
        struct gm_proc *p = &s->procs[i];
        int fresh;
        struct pf_hist *h = pf_insert(cur, p->pid, &fresh);

        if (!fresh) {
            pf_copy_proc(s, p, &s->procs[h->first]);
            continue;
        }
        h->first = i;
        pf_enrich_one(pf, s, p, h, pf_find(prev, p->pid));
    }

    /* PIDs of the previous call that we did not see again are forgotten. */
    pf_table_clear(pf, prev);
    pf->prev ^= 1u;
}

/* procfs.h -- enriches GPU processes with what /proc says about them.
 *
 * For each PID NVML reports: user, process name, full command line,
 * executable path, cgroup, state, start time, elapsed time, CPU % (since the
 * previous sample of the same PID) and RSS.  A PID that is not in /proc is
 * marked GM_HS_GONE, a zombie GM_HS_ZOMBIE: the seeds' "GPU memory not
 * released after the job died".  Parsing handles hostile process names
 * (spaces, parentheses, newlines) and truncated or malformed files.
 *
 * The root directory is a parameter so tests can point it at fixtures.
 *
 * Simulated processes: a pid at or above Linux's PID_MAX_LIMIT
 * (GM_PID_SIM_MIN) is never a host process.  When gpumon runs on the NVML
 * simulator, which exports such a process's /proc files through
 * gpusimProcRead() (sim/procview.c, docs/simulator.md), gm_procfs_set_sim()
 * hands that function here and those pids -- only those -- are read from it
 * instead of the root directory, through the same parsers.  Every other pid
 * is read from /proc as always, so a simulated process can never be taken
 * for a host process or the other way round.
 */
#ifndef GM_SOURCE_PROCFS_H
#define GM_SOURCE_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/snapshot.h"

struct gm_procfs;

/* root: "/proc" normally. */
struct gm_procfs *gm_procfs_new(const char *root);
void gm_procfs_free(struct gm_procfs *pf);

/* Linux's PID_MAX_LIMIT: no host process has a pid at or above it. */
#define GM_PID_SIM_MIN 4194304u

/* The simulator's /proc view: the contents of /proc/PID/FILE (FILE one of
 * stat, status, cmdline, cgroup, exe -- exe gives the link's target) in buf
 * (at most cap bytes, no terminator), returning the length, or -ENOENT
 * when no such simulated process lives. */
typedef int (*gm_procfs_sim_fn)(unsigned int pid, const char *file, char *buf, size_t cap);

/* Reads pids >= GM_PID_SIM_MIN through fn from now on (NULL: from the root
 * directory again, where they are gone). */
void gm_procfs_set_sim(struct gm_procfs *pf, gm_procfs_sim_fn fn);

/* Enriches every process of s in place.  now_mono_ns/now_wall_ns are the
 * snapshot's clocks (for CPU % and elapsed time).  Keeps per-PID CPU times
 * between calls; forgets PIDs that disappeared. */
void gm_procfs_enrich(struct gm_procfs *pf, struct gm_snapshot *s);

/* What the last gm_procfs_enrich() read from /proc/PID/stat of pid (a host
 * process, not a simulated one): its start time, utime + stime (clock ticks)
 * and block-I/O delay ticks (-1 unknown), so that another reader of the same
 * sample (source/hostside.c) need not read the file again.  Returns 0, or
 * GM_E_NOTFOUND when that call did not read pid's stat. */
struct gm_procfs_stat {
    unsigned long long starttime;
    unsigned long long ticks;
    long long blkio;
};
int gm_procfs_last_stat(const struct gm_procfs *pf, uint32_t pid, struct gm_procfs_stat *out);

/* How many processes the cache holds: those of the last call (for tests). */
size_t gm_procfs_tracked(const struct gm_procfs *pf);

/* Parsed /proc/PID/stat fields we use.  Exposed for unit tests. */
struct gm_proc_stat {
    char comm[64];
    char state;
    uint32_t ppid;                   /* parent pid (field 4) */
    uint32_t session;                /* session id (field 6) */
    unsigned long long utime, stime; /* clock ticks */
    unsigned long long starttime;    /* clock ticks after boot */
    long long rss_pages;
    long long blkio; /* delayacct_blkio_ticks (field 42); -1 when the line has none */
};

/* Parses the contents of /proc/PID/stat (len bytes, need not be
 * NUL-terminated).  The comm field runs from the first '(' to the LAST ')'.
 * Returns 0, or GM_E_INVAL for malformed input. */
int gm_proc_parse_stat(const char *buf, size_t len, struct gm_proc_stat *out);

#endif /* GM_SOURCE_PROCFS_H */

/* hostside.h -- the host's side of each GPU process: what feeds the GPU.
 *
 * A GPU whose utilisation sits steadily at 30-40 % may run a small model or
 * wait for its input; the GPU cannot tell which, the host can.  For every
 * live compute process of a snapshot this reads, under a root prefix ("" on
 * a real node; a directory that tests or the simulator fill):
 *
 *   /proc/PID/stat              its CPU time and block-I/O delay
 *                               (delayacct_blkio_ticks, field 42)
 *   /proc/PID/task/PID/children its child processes (DataLoader workers) and
 *                               their /proc/CHILD/stat for their CPU
 *   /proc/PID/cgroup            its cgroup v2 path, then that cgroup's
 *                               cpu.pressure and io.pressure under
 *                               /sys/fs/cgroup, else the node's
 *                               /proc/pressure/cpu and io
 *
 * CPU and I/O wait are rates since the previous sample of the same process:
 * the previous readings are kept per (pid, start time), so a reused pid
 * starts over.  A process on several GPUs is read once, and processes in one
 * cgroup share one reading of its pressure per sample.  Only GPU processes
 * and their children are read, never the whole of /proc.  Known limits:
 * children of threads other than the main one are not counted (PyTorch
 * starts its workers from the main thread); a kernel without
 * CONFIG_PROC_CHILDREN gives no worker count (-1, unknown); with delay
 * accounting off (kernel.task_delayacct = 0, read once when the reader is
 * made) the I/O wait is unknown (NAN); a kernel booted with nodelayacct
 * before 5.14 cannot be told apart and reads 0.
 *
 * On the simulator, its processes (pids no host process can have) are read
 * from it instead (gm_hostside_set_sim): `gpumon --sim` shows their host
 * side with no root directory to fill.
 */
#ifndef GM_SOURCE_HOSTSIDE_H
#define GM_SOURCE_HOSTSIDE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/snapshot.h"

struct gm_hostside;

/* A reader with an empty cache.  root: prefix of /proc and /sys ("" or NULL
 * for the real ones); copied.  Aborts on out-of-memory. */
struct gm_hostside *gm_hostside_new(const char *root);

void gm_hostside_free(struct gm_hostside *h);

/* Takes each GPU process's /proc/PID/stat from pf's last enrichment of the
 * same snapshot (gm_procfs_last_stat) instead of reading it again: only
 * when pf reads the same /proc as h (h's root "" and pf's "/proc").  pf is
 * borrowed and must outlive h, or be unset (NULL) first. */
struct gm_procfs;
void gm_hostside_set_procfs(struct gm_hostside *h, const struct gm_procfs *pf);

/* The simulator's host side (sim/hostside.c, gpusimHostRead): the contents
 * of FILE -- "stat", "children" (of the main thread), "cgroup",
 * "cpu.pressure" or "io.pressure" (of its cgroup) -- of pid in buf (at
 * most cap bytes, no terminator), returning the length, or a negative errno
 * (-ENOENT: no such simulated process lives). */
typedef int (*gm_hostside_sim_fn)(unsigned int pid, const char *file, char *buf, size_t cap);

/* Reads pids >= GM_PID_SIM_MIN (source/procfs.h: no host process has one)
 * through fn from now on, never from the root; their pressure is what fn
 * gives, never the node's.  NULL: from the root again. */
void gm_hostside_set_sim(struct gm_hostside *h, gm_hostside_sim_fn fn);

/* Fills the host side of every compute process of s that is not known to be
 * gone (struct gm_proc.host; read = 1 where its stat could be read), using
 * s->mono_ns for the rates.  Forgets processes not seen in this call. */
void gm_hostside_enrich(struct gm_hostside *h, struct gm_snapshot *s);

/* The fields of /proc/PID/stat this module uses.  Exposed for unit tests. */
struct gm_hs_stat {
    int ppid;
    unsigned long long utime, stime, starttime;
    long long blkio; /* delayacct_blkio_ticks; -1 when the line has no field 42 */
};

/* Parses /proc/PID/stat (len bytes, not NUL-terminated); the name runs to
 * the LAST ')'.  Returns 0, or GM_E_INVAL for malformed input. */
int gm_hs_parse_stat(const char *buf, size_t len, struct gm_hs_stat *out);

/* Parses a pressure file's "some avg10=X" (cpu.pressure, io.pressure, or
 * /proc/pressure/...); returns 0 with *some in percent, or GM_E_INVAL. */
int gm_hs_parse_pressure(const char *buf, size_t len, double *some);

#endif /* GM_SOURCE_HOSTSIDE_H */

/* proctree.h -- the process tree under one process, read from /proc.
 *
 * `gpumon run` follows everything its command starts: children, their
 * children, and those that daemonise (double fork, setsid) -- which, with
 * gpumon a child subreaper (prctl PR_SET_CHILD_SUBREAPER), are reparented
 * to gpumon rather than to init, so they stay under it.  The tree is the
 * set of processes whose chain of parents reaches the root, read by one
 * scan of /proc (the ppid of every /proc/PID/stat).
 *
 * What it cannot see: a process in another PID namespace is listed by its
 * pid in ours, which is what NVML reports, so that works; but a process
 * that has left the tree (handed to another subreaper below us that then
 * exits, or started through a daemon such as systemd-run or a container
 * runtime) is not a descendant and is not followed.
 *
 * The root directory is a parameter so tests can point it at fixtures.
 */
#ifndef GM_SOURCE_PROCTREE_H
#define GM_SOURCE_PROCTREE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* A set of pids, sorted ascending (for gm_pidset_has). */
struct gm_pidset {
    size_t n, cap;
    uint32_t *pid;
};

void gm_pidset_free(struct gm_pidset *s); /* frees the array; the struct is reusable */
int gm_pidset_has(const struct gm_pidset *s, uint32_t pid);

/* Pure: the descendants of root (root itself excluded) among n processes
 * given as pid[i] with parent ppid[i], into out (replacing what it held,
 * sorted).  A pid listed twice counts once; cycles (impossible in /proc,
 * possible in bad input) end. */
void gm_proctree_descendants(const uint32_t *pid, const uint32_t *ppid, size_t n, uint32_t root,
                             struct gm_pidset *out);

/* Parses a /proc/PID/stat line (len bytes) for its parent pid: the number
 * after the state that follows the last ')' (comm may hold ')' and spaces).
 * Returns 0 with *ppid, or -1 for a malformed line. */
int gm_proctree_parse_ppid(const char *buf, size_t len, uint32_t *ppid);

/* Scans root_dir ("/proc" when NULL) and fills out with the descendants of
 * root.  A process that vanishes during the scan is skipped.  GM_E_IO with
 * err when root_dir cannot be read. */
int gm_proctree_scan(const char *root_dir, uint32_t root, struct gm_pidset *out,
                     struct gm_err *err);

#endif /* GM_SOURCE_PROCTREE_H */

/* procfs_int.h -- what procfs.c and procfs_read.c share: the readers and
 * parsers of single /proc files (procfs_read.c), used by the per-process
 * cache and its walk (procfs.c).  Private to src/source/procfs*.c. */
#ifndef GM_SOURCE_PROCFS_INT_H
#define GM_SOURCE_PROCFS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PF_CMDLINE_MAX ((size_t)32 * 1024) /* longer command lines are cut */
#define PF_NS 1000000000

ssize_t gm_pf_read(int dirfd, const char *path, char *buf, size_t cap);
char *gm_pf_cmdline_text(char *res, size_t len, char *big);
char *gm_pf_read_cmdline(int dirfd, const char *path);
const char *gm_pf_cgroup_best(const char *buf, ssize_t n, size_t *len);
char *gm_pf_parse_cgroup(const char *buf, ssize_t n);
int gm_pf_parse_uid(const char *buf, ssize_t n, uint32_t *uid, uint32_t *nspid);
char *gm_pf_read_exe(int dirfd, const char *path);
int gm_pf_read_btime(int rootfd, int64_t *ns);

#endif

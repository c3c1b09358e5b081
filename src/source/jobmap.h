/* jobmap.h -- the job-mapping directory: which jobs hold which GPU.
 *
 * The format is dcgm-exporter's `--hpc-job-mapping-dir`
 * (internal/pkg/transformation/hpc.go in NVIDIA/dcgm-exporter): one
 * regular file per GPU, named by the GPU's index in decimal ("0", "1",
 * ...), listing the ids of the jobs that hold that GPU, one per line.  A
 * Slurm prolog writes them and an epilog removes them, so that sites
 * which feed dcgm-exporter can feed gpumon the same files.  Other names
 * in the directory are ignored, as dcgm-exporter ignores them.
 *
 * The files are hostile input (anyone who can write the directory writes
 * them): a file is read only when it is a regular file reached without
 * following a symbolic link (O_NOFOLLOW), at most GM_JOBMAP_MAX_BYTES of
 * it, and a line is an id only when it is 1..63 characters of
 * [A-Za-z0-9._+:@-] after blanks around it are cut; anything else is
 * skipped and the file named in one warning.  A file is parsed again only
 * when its inode, size or modification time changed, so reading the
 * directory on every sample costs one open and one fstatat per GPU.
 * MIG devices take the job of their GPU (dcgm-exporter's files name
 * GPUs, not instances).
 */
#ifndef GM_SOURCE_JOBMAP_H
#define GM_SOURCE_JOBMAP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/log.h"
#include "../core/snapshot.h"

#define GM_JOBMAP_MAX_BYTES 65536

struct gm_jobmap;

/* dir: the directory (copied); log/log_arg receive the warnings (log may
 * be NULL). */
struct gm_jobmap *gm_jobmap_new(const char *dir, gm_log_fn log, void *log_arg);
void gm_jobmap_free(struct gm_jobmap *m);

/* Sets hpc_known, nhpc_jobs, hpc_dropped and hpc_jobs of every GPU of s
 * from the directory as it is now.  A directory that cannot be opened
 * leaves every GPU unknown and is warned about once (again after it was
 * readable in between). */
void gm_jobmap_apply(struct gm_jobmap *m, struct gm_snapshot *s);

/* What one file says (exposed for the unit tests).  */
struct gm_jobmap_ids {
    uint8_t n;                                /* ids kept */
    uint16_t dropped;                         /* valid ids beyond GM_HPC_JOBS_MAX */
    uint32_t bad;                             /* lines that are not ids (skipped) */
    char id[GM_HPC_JOBS_MAX][GM_HPC_JOB_LEN]; /* in the file's order, without repeats */
};

/* Parses len bytes of a mapping file into *out.  Never fails. */
void gm_jobmap_parse(const char *data, size_t len, struct gm_jobmap_ids *out);

#endif /* GM_SOURCE_JOBMAP_H */

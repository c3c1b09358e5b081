/* usage_acct.h -- the accounting rules of "who used the GPUs", shared by
 * the store's usage_1h (store_write.c, store_rollup.c) and the exporter's
 * usage counters (export/prom.c), so that both give a GPU's time and
 * energy to the same people in the same parts (docs/jobs.md).
 *
 * A sample's processes on a GPU make groups, one per (job, user, process
 * name); the interval that follows the sample is given to those groups in
 * equal parts, to the live ones only when there are any; the interval is
 * capped at twice the usual sampling interval (a gap in sampling is not
 * use); its energy comes from the GPU's energy counter, else from power x
 * time.  Pure functions over caller-owned state: no I/O, no allocation.
 */
#ifndef GM_STORE_USAGE_ACCT_H
#define GM_STORE_USAGE_ACCT_H

#include <stdint.h>

#include "snapshot.h"

/* The groupings of "who used the GPUs" (the store's gm_store_usage_rows,
 * the API's /api/v1/usage?by=). */
enum gm_usage_by { GM_USAGE_JOB = 0, GM_USAGE_USER, GM_USAGE_TASK, GM_USAGE_GPU };

#define GM_UACCT_GROUPS 16 /* groups per GPU and sample; the rest are one "(other)" */
#define GM_UACCT_NDELTA 7  /* intervals for the usual-interval median */

struct gm_uacct_group {
    char job[128], user[33], proc[64];
    int mem_ok;
    int64_t mem_mib;
    int vanished; /* its processes are gone or zombies on the host */
};

/* gpu's process groups in snapshot s into ug (GM_UACCT_GROUPS entries),
 * their number into *n.  Returns 1 when the processes are known (the GPU
 * answered and NVML listed them), 0 otherwise (*n is 0).  gpu NULL: not
 * known.  A process without a job of its own counts to the job the
 * job-mapping directory names first for its GPU; a vanished process is
 * user "(vanished)" with the GPU's mapped job or "(vanished)". */
int gm_uacct_groups(const struct gm_snapshot *s, const struct gm_gpu *gpu,
                    struct gm_uacct_group *ug, int *n);

/* The part of an interval group i of ug[0..n) is given: equal parts among
 * the live groups (a vanished group beside live ones gets 0), among all
 * when none is live. */
double gm_uacct_share(const struct gm_uacct_group *ug, int n, int i);

/* The recent sampling intervals of one GPU, for the cap. */
struct gm_uacct_gaps {
    int64_t delta[GM_UACCT_NDELTA];
    int n, pos;
};

/* Records interval dt (any unit, > 0) and returns the part of it that is
 * counted: dt capped at twice the usual interval (fixed when > 0, else the
 * median of the recent ones, dt included). */
int64_t gm_uacct_gap(struct gm_uacct_gaps *g, int64_t dt, int64_t fixed);

/* What is known of a GPU's energy at a sample. */
struct gm_uacct_energy_at {
    int energy_ok;   /* the energy counter */
    double energy_j; /* its value, J */
    int power_ok;
    double power_w;
};

enum { GM_UACCT_ESRC_NONE = 0, GM_UACCT_ESRC_COUNTER, GM_UACCT_ESRC_POWER };

/* The energy (J) of the counted part d of the interval dt (ms, d <= dt)
 * from sample prev to sample cur: the counter's increase over dt scaled to
 * d, else (no counter, or it went backwards) prev's power x d.  Returns
 * the source (GM_UACCT_ESRC_*), GM_UACCT_ESRC_NONE with *e 0 when neither
 * is known. */
int gm_uacct_energy(const struct gm_uacct_energy_at *prev, const struct gm_uacct_energy_at *cur,
                    int64_t d, int64_t dt, double *e);

#endif /* GM_STORE_USAGE_ACCT_H */

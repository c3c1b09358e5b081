/* free.h -- which GPUs are free: verdicts from a window of snapshots.
 *
 * The articles' free-GPU matrix (memory free x utilisation) made a rule:
 * a GPU, or a MIG instance, is free when in every snapshot of the window
 * its free memory is at least the minimum, its utilisation at most the
 * maximum, and no compute process runs on it; and it is not lost or
 * unreadable, not waiting for a row remap or page retirement (it needs a
 * reset), not in compute mode "prohibited", not in an exclusive compute
 * mode with a process on it.  A GPU in MIG mode is not itself a candidate:
 * each of its MIG instances is judged on its own (memory and its own
 * processes; NVML reports no utilisation per instance, so none is judged).
 * A value NVML does not report is not judged either -- except free memory,
 * without which nothing is free.
 *
 * Candidates are listed in NVML order (GPU index, then MIG device index);
 * the chosen ones are the first `count` free candidates in that order.
 * The outputs (table, ids, env, JSON) are described in docs/free.md.
 * Nothing here samples, prints or exits: cli/cmd_free.c does.
 */
#ifndef GM_VIEW_FREE_H
#define GM_VIEW_FREE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../core/snapshot.h"

/* Why a candidate is not free (bit numbers in gm_free_unit.reasons). */
enum gm_free_reason {
    GM_FREE_R_LOST = 0,       /* the GPU is lost (in any sample) */
    GM_FREE_R_UNREADABLE,     /* no permission, or another error opening it */
    GM_FREE_R_REMAP_PENDING,  /* remapped rows pending: needs a reset */
    GM_FREE_R_RETIRE_PENDING, /* retired pages pending: needs a reset */
    GM_FREE_R_MIG,            /* MIG mode: its instances are the candidates */
    GM_FREE_R_PROHIBITED,     /* compute mode prohibited */
    GM_FREE_R_EXCLUSIVE,      /* exclusive compute mode with a process on it */
    GM_FREE_R_BUSY,           /* utilisation above the maximum */
    GM_FREE_R_MEMORY,         /* free memory below the minimum */
    GM_FREE_R_MEM_UNKNOWN,    /* free memory not reported */
    GM_FREE_R_PROCS,          /* compute processes on it */
    GM_FREE_R__COUNT
};

/* Stable lower-case id of a reason ("lost", "busy", ...), used in JSON. */
const char *gm_free_reason_name(enum gm_free_reason r);

struct gm_free_opts {
    uint64_t min_mem;     /* bytes of free memory needed (when min_mem_pct is 0) */
    unsigned min_mem_pct; /* 1-100: free memory needed as a percentage of the total */
    unsigned max_util;    /* utilisation allowed, percent */
    int allow_procs;      /* compute processes do not make a candidate busy */
};

/* The defaults: free >= 90 % of the total ("memory almost empty"), util <= 10 %,
 * no compute process. */
#define GM_FREE_OPTS_DEFAULT                                                                       \
    {                                                                                              \
        .min_mem_pct = 90, .max_util = 10                                                          \
    }

/* One candidate: a whole GPU or one MIG instance. */
struct gm_free_unit {
    uint32_t gpu; /* NVML index of the GPU */
    int32_t mig;  /* MIG device index under it, -1 for the whole GPU */
    char uuid[GM_STR_MAX];
    char name[GM_STR_MAX];
    int free;                 /* the verdict */
    int chosen;               /* set by gm_free_choose */
    uint32_t reasons;         /* bits 1 << enum gm_free_reason */
    char why[256];            /* the reasons as text, "; " between them; "" when free */
    struct gm_value mem_free; /* least seen in the window (bytes) */
    struct gm_value mem_total;
    struct gm_value util; /* most seen in the window (percent); NA for MIG instances */
    uint32_t nproc;       /* compute processes (most seen in one sample) */
};

struct gm_free_result {
    uint32_t n;     /* candidates */
    uint32_t nfree; /* of which free */
    uint32_t nchosen;
    uint32_t count; /* what gm_free_choose was asked for (0: every free one) */
    struct gm_free_unit *u;
};

/* Judges every GPU and MIG instance over the window s[0..n) (n >= 1, the
 * same machine sampled n times; the last snapshot lists the candidates).
 * Fills r, which the caller releases with gm_free_result_clear. */
void gm_free_judge(const struct gm_snapshot *const *s, size_t n, const struct gm_free_opts *o,
                   struct gm_free_result *r);

/* Marks the first count free candidates chosen (every free one when count
 * is 0).  Returns 0 when count were free, -1 when fewer: then none is
 * chosen (no half a request). */
int gm_free_choose(struct gm_free_result *r, uint32_t count);

void gm_free_result_clear(struct gm_free_result *r);

/* Parses --min-mem (the option's name is flag, for the message): a size with a unit (K, M, G, T,
 * with optional "i" and "B", all powers of 1024: "20G", "512MiB"), "0", or a percentage of the
 * total ("90%").  GM_E_INVAL with a message otherwise. */
int gm_free_parse_min_mem(const char *s, const char *flag, struct gm_free_opts *o,
                          struct gm_err *err);

/* The table: every candidate with its free memory, utilisation, processes
 * and verdict: "free", "free, chosen" (when a count was asked for), or the
 * reasons. */
void gm_free_table(const struct gm_free_result *r, struct gm_buf *out);

/* The chosen candidates, comma-separated, one line: UUIDs (by_index 0) or
 * NVML indices ("GPU" or "GPU:MIG" for an instance). */
void gm_free_ids(const struct gm_free_result *r, int by_index, struct gm_buf *out);

/* Shell code that exports CUDA_VISIBLE_DEVICES for the chosen candidates,
 * single-quoted: by UUID, or by index together with
 * CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's own order differs from NVML's).
 * CUDA names a MIG instance only by UUID: with by_index and a MIG instance
 * chosen, writes nothing and returns GM_E_INVAL with a message. */
int gm_free_env(const struct gm_free_result *r, int by_index, struct gm_buf *out,
                struct gm_err *err);

/* The JSON document of docs/free.md.  window_s and samples describe the
 * window; count is --count (0: not given). */
void gm_free_json(const struct gm_free_result *r, const struct gm_free_opts *o, double window_s,
                  unsigned samples, uint32_t count, int pretty, struct gm_buf *out);

#endif /* GM_VIEW_FREE_H */

/* accounting.h -- a GPU's accounted processes (nvidia-smi
 * --query-accounted-apps), read on demand through
 * nvmlDeviceGetAccountingPids and nvmlDeviceGetAccountingStats.  The
 * driver keeps them only while accounting mode is on (nvidia-smi -am 1,
 * root): NVML answers NOT_SUPPORTED otherwise. */
#ifndef GM_SOURCE_ACCOUNTING_H
#define GM_SOURCE_ACCOUNTING_H

#include <stddef.h>
#include <stdint.h>

#include "nvml.h"

/* One accounted process.  The have_ flags say whether NVML knew the value
 * (NVML_VALUE_NOT_AVAILABLE otherwise). */
struct gm_accounted {
    uint32_t pid;
    uint32_t gpu_util, mem_util; /* % over the process's life */
    uint64_t max_memory;         /* bytes */
    uint64_t time_ms;            /* how long its context was active; 0 while it runs */
    uint8_t have_gpu_util, have_mem_util, have_max_memory;
    uint8_t running;
};

/* Fills *out (allocated, the caller frees it; NULL when none) and *count
 * for GPU index of an initialised n, after a sample obtained the handles:
 * the driver's accounted PIDs, oldest first, each with its statistics (a
 * PID the driver dropped between the two calls is left out).  Returns 0,
 * or the NVML return code that stopped the read (NOT_SUPPORTED while
 * accounting is off); then *out is NULL and *count 0. */
int gm_nvml_accounted(struct gm_nvml *n, uint32_t index, struct gm_accounted **out, size_t *count);

#endif /* GM_SOURCE_ACCOUNTING_H */

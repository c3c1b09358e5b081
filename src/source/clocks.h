/* clocks.h -- a GPU's supported clock pairs (nvidia-smi
 * --query-supported-clocks): every graphics clock the GPU supports with
 * each of its memory clocks, read on demand through NVML
 * (nvmlDeviceGetSupportedMemoryClocks, nvmlDeviceGetSupportedGraphicsClocks). */
#ifndef GM_SOURCE_CLOCKS_H
#define GM_SOURCE_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "nvml.h"

struct gm_clock_pair {
    uint32_t mem_mhz, gr_mhz;
};

/* Fills *out (allocated, the caller frees it; NULL when none) and *count
 * for GPU index of an initialised n, after a sample obtained the handles.
 * Returns 0, or the NVML return code that stopped the read (then *out is
 * NULL and *count 0). */
int gm_nvml_supported_clocks(struct gm_nvml *n, uint32_t index, struct gm_clock_pair **out,
                             size_t *count);

#endif /* GM_SOURCE_CLOCKS_H */

/* pages.h -- a GPU's retired memory pages (nvidia-smi --query-retired-pages),
 * read on demand through nvmlDeviceGetRetiredPages for both causes. */
#ifndef GM_SOURCE_PAGES_H
#define GM_SOURCE_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "nvml.h"

struct gm_retired_page {
    uint64_t address;
    int cause; /* 0: multiple single-bit errors, 1: a double-bit error */
};

/* Fills *out (allocated, the caller frees it; NULL when none) and *count
 * with the pages of both causes of GPU index, single-bit first.  Returns 0,
 * or the NVML code that stopped the read (NOT_SUPPORTED on boards that
 * remap rows instead); then *out is NULL and *count 0. */
int gm_nvml_retired_pages(struct gm_nvml *n, uint32_t index, struct gm_retired_page **out,
                          size_t *count);

#endif /* GM_SOURCE_PAGES_H */

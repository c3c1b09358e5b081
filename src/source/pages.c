/* pages.c -- retired pages through NVML's sizing protocol (a count of 0
 * asks for the count), for each cause in turn. */
#include <stdlib.h>

#include "../core/err.h"
#include "nvml_abi.h"
#include "pages.h"

typedef nvmlReturn_t (*fn_pages)(nvmlDevice_t, nvmlPageRetirementCause_t, unsigned int *,
                                 unsigned long long *);

#define MAX_PAGES 65536

int gm_nvml_retired_pages(struct gm_nvml *n, uint32_t index, struct gm_retired_page **out,
                          size_t *count)
{
    *out = NULL;
    *count = 0;
    fn_pages get = (fn_pages)gm_nvml_symbol(n, "nvmlDeviceGetRetiredPages");
    nvmlDevice_t h = gm_nvml_device(n, index);
    if (!get)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    if (!h)
        return NVML_ERROR_GPU_IS_LOST;
    struct gm_retired_page *pages = NULL;
    size_t np = 0;
    for (int cause = 0; cause < 2; cause++) {
        unsigned int cnt = 0;
        nvmlReturn_t rc = get(h, (nvmlPageRetirementCause_t)cause, &cnt, NULL);
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE) {
            free(pages);
            return rc;
        }
        if (cnt == 0)
            continue;
        if (cnt > MAX_PAGES)
            cnt = MAX_PAGES;
        unsigned long long *addr = calloc(cnt, sizeof(*addr));
        if (!addr)
            gm_oom();
        rc = get(h, (nvmlPageRetirementCause_t)cause, &cnt, addr);
        if (rc != NVML_SUCCESS) {
            free(addr);
            free(pages);
            return rc;
        }
        struct gm_retired_page *p = realloc(pages, (np + cnt) * sizeof(*pages));
        if (!p)
            gm_oom();
        pages = p;
        for (unsigned int k = 0; k < cnt; k++)
            pages[np++] = (struct gm_retired_page){addr[k], cause};
        free(addr);
    }
    *out = pages;
    *count = np;
    return 0;
}

/* clocks.c -- supported clock pairs through NVML's sizing protocol: a call
 * with a count of 0 answers INSUFFICIENT_SIZE with the count, then a
 * buffer of that size is filled.  The functions are looked up by name, so
 * a driver without them answers FUNCTION_NOT_FOUND here only.
 */
#include <stdlib.h>

#include "../core/err.h"
#include "clocks.h"
#include "nvml_abi.h"

typedef nvmlReturn_t (*fn_mem)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_gr)(nvmlDevice_t, unsigned int, unsigned int *, unsigned int *);

#define MAX_CLOCKS 4096 /* a sane bound on what a driver may answer */

int gm_nvml_supported_clocks(struct gm_nvml *n, uint32_t index, struct gm_clock_pair **out,
                             size_t *count)
{
    *out = NULL;
    *count = 0;
    fn_mem mem = (fn_mem)gm_nvml_symbol(n, "nvmlDeviceGetSupportedMemoryClocks");
    fn_gr gr = (fn_gr)gm_nvml_symbol(n, "nvmlDeviceGetSupportedGraphicsClocks");
    nvmlDevice_t h = gm_nvml_device(n, index);
    if (!mem || !gr)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    if (!h)
        return NVML_ERROR_GPU_IS_LOST;
    unsigned int nm = 0;
    nvmlReturn_t rc = mem(h, &nm, NULL);
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS)
        return rc;
    if (nm == 0)
        return 0;
    if (nm > MAX_CLOCKS)
        nm = MAX_CLOCKS;
    unsigned int *mems = calloc(nm, sizeof(*mems));
    if (!mems)
        gm_oom();
    rc = mem(h, &nm, mems);
    struct gm_clock_pair *pairs = NULL;
    size_t np = 0;
    for (unsigned int i = 0; rc == NVML_SUCCESS && i < nm; i++) {
        unsigned int ng = 0;
        rc = gr(h, mems[i], &ng, NULL);
        if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS)
            break;
        if (ng > MAX_CLOCKS)
            ng = MAX_CLOCKS;
        unsigned int *grs = calloc(ng ? ng : 1, sizeof(*grs));
        if (!grs)
            gm_oom();
        rc = ng ? gr(h, mems[i], &ng, grs) : NVML_SUCCESS;
        if (rc == NVML_SUCCESS && ng) {
            struct gm_clock_pair *p = realloc(pairs, (np + ng) * sizeof(*pairs));
            if (!p)
                gm_oom();
            pairs = p;
            for (unsigned int k = 0; k < ng; k++)
                pairs[np++] = (struct gm_clock_pair){mems[i], grs[k]};
        }
        free(grs);
    }
    free(mems);
    if (rc != NVML_SUCCESS) {
        free(pairs);
        return rc;
    }
    *out = pairs;
    *count = np;
    return 0;
}

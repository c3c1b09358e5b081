/* accounting.c -- accounted processes through NVML's sizing protocol (a
 * count of 0 asks for the count), then one statistics call per PID. */
#include "accounting.h"

#include <stdlib.h>

#include "../core/err.h"
#include "nvml_abi.h"

typedef nvmlReturn_t (*fn_pids)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_stats)(nvmlDevice_t, unsigned int, nvmlAccountingStats_t *);

#define MAX_PIDS 65536 /* the driver's buffer holds 4000 by default */
#define NOT_AVAILABLE 0xFFFFFFFFu

int gm_nvml_accounted(struct gm_nvml *n, uint32_t index, struct gm_accounted **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    fn_pids get_pids = (fn_pids)gm_nvml_symbol(n, "nvmlDeviceGetAccountingPids");
    fn_stats get_stats = (fn_stats)gm_nvml_symbol(n, "nvmlDeviceGetAccountingStats");
    nvmlDevice_t h = gm_nvml_device(n, index);
    if (!get_pids || !get_stats)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    if (!h)
        return NVML_ERROR_GPU_IS_LOST;
    unsigned int cnt = 0;
    nvmlReturn_t rc = get_pids(h, &cnt, NULL);
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE)
        return rc;
    if (cnt == 0)
        return 0;
    if (cnt > MAX_PIDS)
        cnt = MAX_PIDS;
    unsigned int *pids = calloc(cnt, sizeof(*pids));
    if (!pids)
        gm_oom();
    rc = get_pids(h, &cnt, pids);
    if (rc != NVML_SUCCESS) {
        free(pids);
        return rc;
    }
    struct gm_accounted *a = cnt ? calloc(cnt, sizeof(*a)) : NULL;
    if (cnt && !a)
        gm_oom();
    size_t na = 0;
    for (unsigned int k = 0; k < cnt; k++) {
        nvmlAccountingStats_t st = {0};
        rc = get_stats(h, pids[k], &st);
        if (rc == NVML_ERROR_NOT_FOUND)
            continue; /* dropped from the driver's buffer meanwhile */
        if (rc != NVML_SUCCESS) {
            free(a);
            free(pids);
            return rc;
        }
        a[na++] = (struct gm_accounted){
            .pid = pids[k],
            .gpu_util = st.gpuUtilization,
            .mem_util = st.memoryUtilization,
            .max_memory = st.maxMemoryUsage,
            .time_ms = st.time,
            .have_gpu_util = st.gpuUtilization != NOT_AVAILABLE,
            .have_mem_util = st.memoryUtilization != NOT_AVAILABLE,
            .have_max_memory = st.maxMemoryUsage != ~0ULL,
            .running = st.isRunning != 0,
        };
    }
    free(pids);
    if (na == 0) {
        free(a);
        a = NULL;
    }
    *out = a;
    *count = na;
    return 0;
}

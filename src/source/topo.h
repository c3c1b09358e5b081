/* topo.h -- the GPUs' place in the host, as nvidia-smi topo -m shows it:
 * the PCIe path between each pair of GPUs, the NVLink links joining them,
 * and each GPU's CPU and NUMA affinity.
 *
 * Read on demand through NVML (nvmlDeviceGetTopologyCommonAncestor, the
 * NVLink state and remote-end calls, nvmlDeviceGetCpuAffinity,
 * nvmlDeviceGetMemoryAffinity, nvmlDeviceGetNumaNodeId), not by the
 * sampler: the layout does not change while the driver is loaded.  Every
 * entry carries the NVML return code it came with (0: read), so absence is
 * never shown as a value.  NICs are not read (NVML does not list them).
 */
#ifndef GM_SOURCE_TOPO_H
#define GM_SOURCE_TOPO_H

#include <stdint.h>

#include "nvml.h"

#define GM_TOPO_MAX_GPUS 64
#define GM_TOPO_CPU_WORDS 64 /* 4096 CPUs */

struct gm_topo_gpu {
    uint32_t index;
    int present;  /* 0: no handle (the GPU is lost or refused): nothing below read */
    int cpu_code; /* nvmlDeviceGetCpuAffinity's return code */
    uint64_t cpus[GM_TOPO_CPU_WORDS]; /* bit i of word i / 64: CPU i */
    int numa_code;                    /* nvmlDeviceGetMemoryAffinity's */
    int numa;                         /* the lowest NUMA node in the GPU's memory affinity */
    int gpu_numa_code;                /* nvmlDeviceGetNumaNodeId's (GPUs that are NUMA nodes) */
    uint32_t gpu_numa;
    int nvlink_code;       /* nvmlDeviceGetNvLinkState's on link 0 (NOT_SUPPORTED: none) */
    uint32_t switch_links; /* active links ending at an NVSwitch */
    char bus_id[32];       /* nvmlPciInfo_t.busId */
};

struct gm_topo_pair {
    int code;         /* nvmlDeviceGetTopologyCommonAncestor's */
    uint32_t level;   /* nvmlGpuTopologyLevel_t: 0, 10, 20, 30, 40, 50 */
    uint32_t nvlinks; /* links joining the two GPUs (directly or through NVSwitches) */
};

struct gm_topo {
    uint32_t ngpu;
    struct gm_topo_gpu gpu[GM_TOPO_MAX_GPUS];
    struct gm_topo_pair pair[GM_TOPO_MAX_GPUS][GM_TOPO_MAX_GPUS];
};

/* Fills t (cleared here) for the first ngpu GPUs (at most GM_TOPO_MAX_GPUS)
 * of an initialised n: call after a sample has obtained the handles. */
void gm_nvml_topo(struct gm_nvml *n, uint32_t ngpu, struct gm_topo *t);

#endif /* GM_SOURCE_TOPO_H */

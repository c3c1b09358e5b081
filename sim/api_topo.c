/* api_topo.c -- exported NVML calls for the host topology: CPU and memory
 * affinity, NUMA node, the PCIe common ancestor of two GPUs, the GPUs near
 * one GPU or one CPU, peer-to-peer status and board sharing.
 *
 * The layout itself (sockets, NUMA nodes, PCIe switches, NVLink) is the
 * model's (sim/topo.c).  CPU sets are bit masks in unsigned longs, CPU i in
 * bit i % 64 of word i / 64, as nvml.h specifies; a set shorter than the
 * host's CPUs is filled as far as it goes, as the real call does.  All of
 * these take physical handles: MIG devices have no topology of their own.
 */
#include <string.h>

#include "api.h"
#include "ext_abi.h"

#define BITS_PER_WORD (8 * sizeof(unsigned long))

static void cpu_mask(const struct gs_scenario *s, unsigned node, unsigned size, unsigned long *set)
{
    memset(set, 0, size * sizeof(*set));
    unsigned n = gs_topo_cpus(s);
    for (unsigned cpu = 0; cpu < n && cpu / BITS_PER_WORD < size; cpu++)
        if (gs_topo_cpu_node(s, cpu) == node)
            set[cpu / BITS_PER_WORD] |= 1UL << (cpu % BITS_PER_WORD);
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int cpuSetSize,
                                                unsigned long *cpuSet)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, cpuSet != NULL && cpuSetSize > 0);
    if (r != NVML_SUCCESS)
        return r;
    cpu_mask(c.s, gs_topo_numa(c.s, c.gpu), cpuSetSize, cpuSet);
    return gs_end(&c, NVML_SUCCESS);
}

/* scope 0 (NVML_AFFINITY_SCOPE_NODE) or 1 (_SOCKET): the same here, one
 * NUMA node per socket. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t device,
                                                           unsigned int nodeSetSize,
                                                           unsigned long *nodeSet,
                                                           unsigned int scope)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              nodeSet != NULL && nodeSetSize > 0 && scope <= 1);
    if (r != NVML_SUCCESS)
        return r;
    cpu_mask(c.s, gs_topo_numa(c.s, c.gpu), nodeSetSize, nodeSet);
    return gs_end(&c, NVML_SUCCESS);
}

/* A set of NUMA nodes: the GPU's own. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t device, unsigned int nodeSetSize,
                                                   unsigned long *nodeSet, unsigned int scope)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              nodeSet != NULL && nodeSetSize > 0 && scope <= 1);
    if (r != NVML_SUCCESS)
        return r;
    memset(nodeSet, 0, nodeSetSize * sizeof(*nodeSet));
    unsigned node = gs_topo_numa(c.s, c.gpu);
    if (node / BITS_PER_WORD < nodeSetSize)
        nodeSet[node / BITS_PER_WORD] |= 1UL << (node % BITS_PER_WORD);
    return gs_end(&c, NVML_SUCCESS);
}

/* The NUMA node the GPU's own memory forms, on platforms where GPU memory
 * is a NUMA node (Grace Hopper's coherent C2C link; nvidia-smi topo -m's
 * "GPU NUMA ID").  No modelled host is one: NOT_SUPPORTED, which
 * nvidia-smi prints as N/A.  The node a GPU is attached to is
 * GetMemoryAffinity's. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0, node != NULL);
    if (r != NVML_SUCCESS)
        return r;
    return gs_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* Decodes a second physical handle inside a call that holds the lock. */
static bool second_gpu(const struct gs_call *c, nvmlDevice_t d, unsigned *gpu)
{
    int mig;
    return gs_decode(c->s, d, gpu, &mig) && mig < 0;
}

GS_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1,
                                                           nvmlDevice_t device2,
                                                           unsigned int *pathInfo)
{
    struct gs_call c;
    unsigned other;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device1, 0, pathInfo != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!second_gpu(&c, device2, &other))
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *pathInfo = gs_topo_level(c.s, c.gpu, other);
    return gs_end(&c, NVML_SUCCESS);
}

/* The GPUs (other than device) whose path to it is at level or closer,
 * with the INSUFFICIENT_SIZE protocol of the list calls. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device, unsigned int level,
                                                        unsigned int *count,
                                                        nvmlDevice_t *deviceArray)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device, 0,
                              count != NULL && level <= GS_TOPO_SYSTEM && level % 10 == 0);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = 0;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        n += i != c.gpu && gs_topo_level(c.s, c.gpu, i) <= level;
    if (*count < n) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n > 0 && !deviceArray)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned k = 0;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        if (i != c.gpu && gs_topo_level(c.s, c.gpu, i) <= level)
            deviceArray[k++] = gs_handle(i, -1);
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

/* The GPUs attached to the NUMA node of CPU cpuNumber. */
GS_EXPORT nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpuNumber, unsigned int *count,
                                                   nvmlDevice_t *deviceArray)
{
    struct gs_call c;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_NONE, NULL, 0, count != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (cpuNumber >= gs_topo_cpus(c.s))
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned node = gs_topo_cpu_node(c.s, cpuNumber);
    unsigned n = 0;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        n += gs_topo_numa(c.s, i) == node;
    if (*count < n) {
        *count = n;
        return gs_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n > 0 && !deviceArray)
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned k = 0;
    for (unsigned i = 0; i < c.s->ngpus; i++)
        if (gs_topo_numa(c.s, i) == node)
            deviceArray[k++] = gs_handle(i, -1);
    *count = n;
    return gs_end(&c, NVML_SUCCESS);
}

/* nvmlGpuP2PStatus_t: 0 OK, 4 NOT_SUPPORTED (topology).  Peer access works
 * over NVLink and under one PCIe switch; capability index 0 read, 1 write,
 * 2 NVLink, 3 atomics, 4 prop (unused), 5 PCI. */
GS_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
                                              unsigned int p2pIndex, unsigned int *p2pStatus)
{
    struct gs_call c;
    unsigned other;
    nvmlReturn_t r =
        gs_begin(&c, __func__, GS_H_PHYS, device1, 0, p2pStatus != NULL && p2pIndex <= 6);
    if (r != NVML_SUCCESS)
        return r;
    if (!second_gpu(&c, device2, &other))
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    bool nvlink = gs_nvlinks(c.s, c.gpu) && gs_nvlinks(c.s, other);
    bool pcie = gs_topo_level(c.s, c.gpu, other) <= GS_TOPO_MULTIPLE;
    bool ok;
    if (p2pIndex == 2)
        ok = nvlink;
    else if (p2pIndex == 5)
        ok = pcie;
    else
        ok = nvlink || pcie;
    *p2pStatus = ok ? 0 : 4;
    return gs_end(&c, NVML_SUCCESS);
}

/* No modelled board carries two GPUs. */
GS_EXPORT nvmlReturn_t nvmlDeviceOnSameBoard(nvmlDevice_t device1, nvmlDevice_t device2,
                                             int *onSameBoard)
{
    struct gs_call c;
    unsigned other;
    nvmlReturn_t r = gs_begin(&c, __func__, GS_H_PHYS, device1, 0, onSameBoard != NULL);
    if (r != NVML_SUCCESS)
        return r;
    if (!second_gpu(&c, device2, &other))
        return gs_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *onSameBoard = other == c.gpu;
    return gs_end(&c, NVML_SUCCESS);
}

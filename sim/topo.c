/* topo.c -- the host around the simulated GPUs: CPU sockets, NUMA nodes,
 * the PCIe tree and NVLink, as nvidia-smi topo -m and the topology calls
 * (nvmlDeviceGetTopologyCommonAncestor, GetCpuAffinity, GetNumaNodeId,
 * GetNvLinkState) see them.
 *
 * The layout is a function of the GPU count, so every scenario has one
 * without saying anything: one socket for up to 3 GPUs (a workstation),
 * two for 4 or more with the GPUs split evenly between them and in pairs
 * behind a PCIe switch (the HGX/DGX layout).  NVLink exists only where the
 * scenario says `nvlink = nvswitch` ([machine]) and the board is an SXM
 * module; then every such GPU reaches every other through the NVSwitches
 * with all its links.  Left out: NICs (topo -m lists none), per-scenario
 * socket counts, PCIe peer-to-peer bridges and direct (switchless) NVLink
 * meshes.
 */
#include <string.h>

#include "gpusim.h"

unsigned gs_topo_sockets(const struct gs_scenario *s)
{
    return s->ngpus >= 4 ? 2 : 1;
}

unsigned gs_topo_cores_per_socket(const struct gs_scenario *s)
{
    return gs_topo_sockets(s) == 2 ? 56 : 16;
}

unsigned gs_topo_cpus(const struct gs_scenario *s)
{
    return gs_topo_sockets(s) * gs_topo_cores_per_socket(s) * 2;
}

unsigned gs_topo_numa(const struct gs_scenario *s, unsigned gpu)
{
    if (s->ngpus == 0)
        return 0;
    return gpu * gs_topo_sockets(s) / s->ngpus;
}

unsigned gs_topo_cpu_node(const struct gs_scenario *s, unsigned cpu)
{
    unsigned cores = gs_topo_cores_per_socket(s);
    unsigned physical = gs_topo_sockets(s) * cores;
    return (cpu % physical) / cores;
}

unsigned gs_topo_level(const struct gs_scenario *s, unsigned a, unsigned b)
{
    if (a == b)
        return 0;
    if (gs_topo_numa(s, a) != gs_topo_numa(s, b))
        return 50;
    if (gs_topo_sockets(s) == 1)
        return 30;
    return a / 2 == b / 2 ? 20 : 40;
}

unsigned gs_nvlinks(const struct gs_scenario *s, unsigned gpu)
{
    if (!s->nvswitch || gpu >= s->ngpus)
        return 0;
    const struct gs_gpu *g = &s->gpus[gpu];
    if (!g->preset || !strstr(g->preset->key, "SXM"))
        return 0;
    switch (g->arch) {
    case GS_ARCH_VOLTA:
        return 6;
    case GS_ARCH_AMPERE:
        return 12;
    case GS_ARCH_HOPPER:
    case GS_ARCH_BLACKWELL: /* B200: 18 NVLink 5 links */
        return 18;
    default:
        return 0;
    }
}

unsigned gs_nvlink_version(const struct gs_gpu *g)
{
    switch (g->arch) {
    case GS_ARCH_VOLTA:
        return 2;
    case GS_ARCH_AMPERE:
        return 3;
    case GS_ARCH_HOPPER:
        return 4;
    case GS_ARCH_BLACKWELL:
        return 5;
    default:
        return 0;
    }
}

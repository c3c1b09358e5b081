/* topo.c -- nvidia-smi topo -m's layout (driver 535/550 series), as pasted
 * in NVIDIA/go-gpuallocator#17 (8 GPUs, two NUMA nodes) and
 * Project-HAMi/HAMi#99 (one GPU, the legend): tab-separated cells, " X " on
 * the diagonal, NV<links> where NVLink joins two GPUs, else the PCIe level
 * (PIX, PXB, PHB, NODE, SYS); then CPU Affinity as CPU ranges, NUMA
 * Affinity and GPU NUMA ID, each of the first two followed by a second tab
 * when shorter than 8 characters (so the next column starts under its
 * header).  A value NVML did not give is N/A.  NIC rows and columns are
 * not printed: NVML does not list NICs.
 */
#include <stdio.h>
#include <string.h>

#include "topo.h"

static const char *level_name(uint32_t level)
{
    switch (level) {
    case 10:
        return "PIX";
    case 20:
        return "PXB";
    case 30:
        return "PHB";
    case 40:
        return "NODE";
    case 50:
        return "SYS";
    default:
        return NULL;
    }
}

static void cpu_ranges(const struct gm_topo_gpu *g, char *dst, size_t len)
{
    size_t n = 0;
    dst[0] = '\0';
    int cpu = 0, total = GM_TOPO_CPU_WORDS * 64;
    while (cpu < total) {
        if (!(g->cpus[cpu / 64] & (UINT64_C(1) << (cpu % 64)))) {
            cpu++;
            continue;
        }
        int first = cpu;
        while (cpu < total && (g->cpus[cpu / 64] & (UINT64_C(1) << (cpu % 64))))
            cpu++;
        int w = first == cpu - 1
                    ? snprintf(dst + n, len - n, "%s%d", n ? "," : "", first)
                    : snprintf(dst + n, len - n, "%s%d-%d", n ? "," : "", first, cpu - 1);
        if (w < 0 || (size_t)w >= len - n) {
            dst[n] = '\0';
            return;
        }
        n += (size_t)w;
    }
}

static void cell_tabbed(struct gm_buf *out, const char *s, int last)
{
    gm_buf_putc(out, '\t');
    gm_buf_puts(out, s);
    if (!last && strlen(s) < 8)
        gm_buf_putc(out, '\t');
}

void gm_topo_render(const struct gm_topo *t, struct gm_buf *out)
{
    for (uint32_t j = 0; j < t->ngpu; j++)
        gm_buf_printf(out, "\tGPU%u", t->gpu[j].index);
    gm_buf_puts(out, "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    for (uint32_t i = 0; i < t->ngpu; i++) {
        const struct gm_topo_gpu *g = &t->gpu[i];
        gm_buf_printf(out, "GPU%u", g->index);
        for (uint32_t j = 0; j < t->ngpu; j++) {
            const struct gm_topo_pair *p = &t->pair[i][j];
            const char *lv = level_name(p->level);
            if (i == j)
                gm_buf_puts(out, "\t X ");
            else if (p->nvlinks)
                gm_buf_printf(out, "\tNV%u", p->nvlinks);
            else if (p->code == 0 && lv)
                gm_buf_printf(out, "\t%s", lv);
            else
                gm_buf_puts(out, "\tN/A");
        }
        char cpus[1024] = "N/A", numa[16] = "N/A", gnuma[16] = "N/A";
        if (g->present && g->cpu_code == 0)
            cpu_ranges(g, cpus, sizeof(cpus));
        if (!cpus[0])
            snprintf(cpus, sizeof(cpus), "N/A");
        if (g->present && g->numa_code == 0)
            snprintf(numa, sizeof(numa), "%d", g->numa);
        if (g->present && g->gpu_numa_code == 0)
            snprintf(gnuma, sizeof(gnuma), "%u", g->gpu_numa);
        cell_tabbed(out, cpus, 0);
        cell_tabbed(out, numa, 0);
        cell_tabbed(out, gnuma, 1);
        gm_buf_putc(out, '\n');
    }
    gm_buf_puts(out,
                "\nLegend:\n\n"
                "  X    = Self\n"
                "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA "
                "nodes (e.g., QPI/UPI)\n"
                "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
                "Bridges within a NUMA node\n"
                "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the "
                "CPU)\n"
                "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe "
                "Host Bridge)\n"
                "  PIX  = Connection traversing at most a single PCIe bridge\n"
                "  NV#  = Connection traversing a bonded set of # NVLinks\n");
}

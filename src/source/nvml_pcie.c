/* nvml_pcie.c -- the NVML source's readers of the PCIe link (see
 * nvml_int.h): its maximum and current generation and width, throughput,
 * replay counter, and the maximum generation of the port the GPU plugs
 * into (sysfs, source/pcihost.c).
 */
#include "nvml_int.h"

#include <string.h>

#include "pcihost.h"

void gm_nv_rd_max_pcie(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetMaxPcieLinkGeneration, &u);
    setv(r->g, GM_M_PCIE_GEN_MAX, rc, gm_v_u64(u));
    rc = RCALL(r, nvmlDeviceGetMaxPcieLinkWidth, &u);
    setv(r->g, GM_M_PCIE_WIDTH_MAX, rc, gm_v_u64(u));
    rc = RCALL(r, nvmlDeviceGetGpuMaxPcieLinkGeneration, &u);
    setv(r->g, GM_M_PCIE_GEN_GPUMAX, rc, gm_v_u64(u));
}

void gm_nv_rd_pcie_link(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetCurrPcieLinkGeneration, &u);
    setv(r->g, GM_M_PCIE_GEN_CUR, rc, gm_v_u64(u));
    rc = RCALL(r, nvmlDeviceGetCurrPcieLinkWidth, &u);
    setv(r->g, GM_M_PCIE_WIDTH_CUR, rc, gm_v_u64(u));
    note(r, rc);
}

void gm_nv_rd_pcie_tput(struct rd *r)
{
    /* NVML reports KB/s (KiB, as nvtop and nvitop read it) */
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_TX_BYTES, &u);
    setv(r->g, GM_M_PCIE_TX, rc, gm_v_u64((uint64_t)u * 1024));
    rc = RCALL(r, nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_RX_BYTES, &u);
    setv(r->g, GM_M_PCIE_RX, rc, gm_v_u64((uint64_t)u * 1024));
    note(r, rc);
}

void gm_nv_rd_pcie_replay(struct rd *r)
{
    unsigned int u = 0;
    nvmlReturn_t rc = RCALL(r, nvmlDeviceGetPcieReplayCounter, &u);
    setv(r->g, GM_M_PCIE_REPLAY, rc, gm_v_u64(u));
    note(r, rc);
}

/* pcie.link.gen.hostmax: not NVML but sysfs (source/pcihost.h), from the
 * bus id gm_nv_rd_pci read; [N/A] when the bus id or the file is not there. */
void gm_nv_rd_pcie_hostmax(struct rd *r)
{
    const struct gm_gpu *g = r->g;
    unsigned gen = 0;
    if (gm_v_ok(&g->m[GM_M_PCI_BUS_ID]))
        gen = gm_pcihost_max_gen(gm_pcihost_sysfs_root(), g->str[GM_S_PCI_BUS_ID]);
    r->g->m[GM_M_PCIE_GEN_HOSTMAX] = gen ? gm_v_u64(gen) : gm_v_status(GM_VS_NA, 0);
}

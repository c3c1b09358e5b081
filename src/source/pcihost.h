/* pcihost.h -- the PCIe side the GPU plugs into, read from sysfs: the
 * maximum link generation of the upstream port (nvidia-smi's
 * pcie.link.gen.hostmax).  NVML has no call for it: its
 * nvmlDeviceGetMaxPcieLinkGeneration is the GPU and the system together,
 * nvmlDeviceGetGpuMaxPcieLinkGeneration the GPU alone. */
#ifndef GM_SOURCE_PCIHOST_H
#define GM_SOURCE_PCIHOST_H

/* The sysfs root: $GPUMON_SYSFS_ROOT when set and not empty (tests point it
 * at a fixture tree), else "/sys". */
const char *gm_pcihost_sysfs_root(void);

/* The PCIe generation (1-6) that "<root>/bus/pci/devices/<bdf>/../max_link_speed"
 * names, bdf made from NVML's bus id ("00000000:3B:00.0" -> "0000:3b:00.0"):
 * the port upstream of the GPU (a root port, or a switch's downstream
 * port).  Returns the generation, or 0 when the bus id does not parse, the
 * file cannot be read or names a speed that is not a PCIe generation
 * ("Unknown"). */
unsigned gm_pcihost_max_gen(const char *root, const char *nvml_bus_id);

/* The generation a max_link_speed text names ("16.0 GT/s PCIe", "8 GT/s"),
 * or 0. */
unsigned gm_pcihost_gen_of_speed(const char *text);

#endif /* GM_SOURCE_PCIHOST_H */

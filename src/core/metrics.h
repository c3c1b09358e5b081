/* metrics.h -- the metric registry: every metric gpumon knows, declared once.
 *
 * DESIGN principle 1.  Each row of gm_metrics[] (metrics.c) names a metric's
 * nvidia-smi query key(s), base unit, CSV column, JSON key, native Prometheus
 * name and help, dcgm-exporter field, kind, value formatter and the NVML read
 * group that fills it (src/source/nvml*.c).  CSV headers, --query-gpu fields,
 * JSON, Prometheus output, TUI labels and docs/metrics.md are all generated
 * from this table; nothing else in the project spells a metric's name.
 *
 * Adding a metric: one enum line below, one row in metrics.c, and (if no
 * existing read group covers it) one read function in the nvml_<area>.c of
 * its NVML area.
 */
#ifndef GM_METRICS_H
#define GM_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "value.h"

/* Base units.  Values are stored in these units at the point they are read;
 * every conversion for display lives in gm_units[] (metrics.c). */
enum gm_unit {
    GM_U_NONE = 0, /* a plain number, count or enum code */
    GM_U_PERCENT,  /* 0-100 */
    GM_U_BYTES,
    GM_U_BYTES_PER_S, /* PCIe throughput */
    GM_U_WATTS,       /* double */
    GM_U_JOULES,      /* double */
    GM_U_CELSIUS,
    GM_U_MHZ,
    GM_U_SECONDS,  /* double */
    GM_U_ACTIVITY, /* 0-100 % of time or of capacity, a double (GPM); dcgm-exporter: a 0-1 ratio */
    GM_U_US,       /* a duration in seconds (double) that nvidia-smi prints in microseconds */
    GM_U_MS,       /* a duration in seconds (double) that nvidia-smi prints in milliseconds */
    GM_U_PERCENT2, /* 0-100, a double that nvidia-smi prints with two decimals (100.00 %) */
    GM_U__COUNT
};

/* How a unit is shown by each output.  Every conversion out of a base unit
 * is here: nvidia-smi style text (query, status, and dmon/pmon, which print
 * nvidia-smi's whole numbers), CSV, JSON, native Prometheus, dcgm-exporter. */
struct gm_unit_info {
    const char *smi;   /* nvidia-smi unit text ("MiB"), "" for none */
    double smi_div;    /* base value / smi_div = nvidia-smi number */
    int smi_decimals;  /* digits after the point in nvidia-smi output */
    int dcgm_frac;     /* 1: the dcgm-exporter value keeps its fraction (the PROF ratios) */
    const char *csv;   /* CSV column suffix ("mib") */
    const char *json;  /* JSON key suffix ("bytes") */
    const char *prom;  /* Prometheus name suffix ("bytes", "ratio", "hertz") */
    double prom_mul;   /* base value * prom_mul = Prometheus value */
    const char *dcgm;  /* dcgm-exporter's unit, named in its help text ("MiB"); NULL = none */
    double dcgm_mul;   /* base value * dcgm_mul = dcgm-exporter value, rounded down to a whole
                          number when dcgm_mul is not 1 (whole MiB, mJ, ns) unless dcgm_frac */
    const char *store; /* SQLite column suffix for the nvidia-smi number ("mib", "pct", "w");
                          a metric's store_scale adds its prefix ("cw") */
};
extern const struct gm_unit_info gm_units[GM_U__COUNT];

/* What kind of series a metric is. */
enum gm_kind {
    GM_K_GAUGE = 0,
    GM_K_COUNTER, /* only grows (until a driver reload) */
    GM_K_INFO,    /* a static fact: string, version, identifier */
    GM_K_STATE,   /* an enum or boolean state */
};

/* How a metric's value is printed in nvidia-smi style. */
enum gm_fmt {
    GM_F_NUM = 0,      /* number in the unit's smi form */
    GM_F_STR,          /* a string slot (struct gm_gpu.str) */
    GM_F_ENABLED,      /* 0/1 -> Disabled/Enabled */
    GM_F_ACTIVE,       /* 0/1 -> Not Active/Active */
    GM_F_YESNO,        /* 0/1 -> No/Yes */
    GM_F_PSTATE,       /* 0..15 -> P0..P15, 32 -> Unknown */
    GM_F_COMPUTE_MODE, /* NVML compute mode -> Default, Exclusive_Thread, ... */
    GM_F_HEX64,        /* 0x%016llx */
    GM_F_HEX32,        /* 0x%08X */
    GM_F_HEX16,        /* 0x%04X (pci.domain) */
    GM_F_HEX8,         /* 0x%02X (pci.bus, pci.device) */
    GM_F_CC,           /* compute capability major*10+minor -> "9.0" */
    GM_F_CUDA,         /* CUDA driver version 12040 -> "12.4" */
    GM_F_TIME,         /* the snapshot's wall time */
    GM_F_PTYPE,        /* process type bits -> C, G, C+G */
    GM_F_HOSTSTATE,    /* enum gm_host_state -> alive, zombie, gone, ... */
    GM_F_DRIVER_MODEL, /* nvmlDriverModel_t -> WDDM, TCC, MCDM */
    GM_F_GOM,          /* nvmlGpuOperationMode_t -> All On, Compute, Low Double Precision */
    GM_F_FABRIC_STATE, /* nvmlGpuFabricState_t -> Not Supported, Not Started, In Progress, Completed
                        */
    GM_F_NVML_RC,      /* an nvmlReturn_t -> Success or the error's text */
    GM_F_HEX,          /* 0x%X, no padding (pci.baseClass: 0x3) */
    GM_F_VALID,        /* 0/1 -> invalid/valid (inforom.checksum_validation) */
    GM_F_RECOVERY,     /* nvmlDeviceGpuRecoveryAction_t -> None, GPU Reset, ... */
    GM_F_ADDR_MODE,    /* nvmlDeviceAddressingModeType_t -> None, HMM, ATS */
    GM_F_FABRIC_HEALTH, /* NVML_GPU_FABRIC_HEALTH_SUMMARY_* -> Healthy, Unhealthy, Limited Capacity
                         */
    GM_F_FABRIC_BW,     /* degraded-bandwidth field: 1 Degraded, 2 Full */
    GM_F_TRUE_FALSE,    /* a fabric health field: 1 True, 2 False */
    GM_F_FABRIC_CONFIG, /* incorrect-configuration field: 1 None, 2.. the reason */
    GM_F_PEER_TYPE,     /* nvmlPlatformInfo_t.peerType: 0 Direct Connected, 1 Switch Connected */
};

/* Where a metric applies. */
enum gm_scope {
    GM_SC_GPU = 0, /* one value per GPU */
    GM_SC_HOST,    /* one value per snapshot (driver version, GPU count) */
    GM_SC_PROC,    /* one value per process on a GPU */
};

/* String slots of a GPU (struct gm_gpu.str). */
enum gm_sslot {
    GM_S_NAME = 0,
    GM_S_UUID,
    GM_S_SERIAL,
    GM_S_PCI_BUS_ID,
    GM_S_VBIOS,
    GM_S_BOARD_PART,
    GM_S_INFOROM_IMG,
    GM_S_INFOROM_OEM,
    GM_S_INFOROM_ECC,
    GM_S_INFOROM_PWR,
    GM_S_FABRIC_CLUSTER,
    GM_S_BRAND,
    GM_S_GPU_HOSTNAME,
    GM_S_CHASSIS_SERIAL,
    GM_S__COUNT
};
#define GM_STR_MAX 96

/* NVML read groups: one NVML call (or a small fixed set) that fills one or
 * more metrics.  Groups marked static in gm_read_groups[] are read once per
 * GPU and refreshed on reconnect. */
enum gm_read_group {
    GM_RG_NONE = 0,     /* filled elsewhere (snapshot header, derived, procfs) */
    GM_RG_INDEX,        /* static */
    GM_RG_MINOR,        /* static */
    GM_RG_NAME,         /* static */
    GM_RG_UUID,         /* static */
    GM_RG_SERIAL,       /* static */
    GM_RG_PCI,          /* static */
    GM_RG_VBIOS,        /* static */
    GM_RG_BOARD_PART,   /* static */
    GM_RG_CC,           /* static */
    GM_RG_TEMP_THRESH,  /* static */
    GM_RG_POWER_LIMITS, /* static: default, min, max */
    GM_RG_MAX_CLOCKS,   /* static */
    GM_RG_MAX_PCIE,     /* static */
    GM_RG_PERSISTENCE,
    GM_RG_COMPUTE_MODE,
    GM_RG_DISPLAY,
    GM_RG_MIG_MODE,
    GM_RG_PSTATE,
    GM_RG_FAN,
    GM_RG_TEMP,
    GM_RG_TEMP_MEM,
    GM_RG_POWER,
    GM_RG_POWER_INSTANT,
    GM_RG_POWER_LIMIT, /* enforced + management limit (can change at run time) */
    GM_RG_ENERGY,
    GM_RG_UTIL,
    GM_RG_ENC,
    GM_RG_DEC,
    GM_RG_MEMORY,
    GM_RG_BAR1,
    GM_RG_CLOCKS,
    GM_RG_CLOCK_REASONS,
    GM_RG_VIOLATION,
    GM_RG_PCIE_LINK,
    GM_RG_PCIE_TPUT,
    GM_RG_PCIE_REPLAY,
    GM_RG_ECC_MODE,
    GM_RG_ECC_COUNTS,
    GM_RG_RETIRED,
    GM_RG_REMAPPED,
    GM_RG_GPM, /* GPM (Hopper+): one interval between two samples, state kept per GPU */
    GM_RG_POWER_MGMT,
    GM_RG_APP_CLOCKS,
    GM_RG_DRIVER_MODEL, /* static */
    GM_RG_GOM,
    GM_RG_ACCOUNTING,
    GM_RG_ENC_STATS,
    GM_RG_INFOROM, /* static */
    GM_RG_REMAP_HIST,
    GM_RG_FABRIC,
    GM_RG_ECC_LOCATIONS,
    GM_RG_CER_COUNTERS,
    GM_RG_NVLINK, /* link states, error counters summed over the links, throughput counters */
    GM_RG_TEMP_MARGIN,
    GM_RG_MODULE_POWER, /* field values 185-192 with scopeId NVML_POWER_SCOPE_MODULE */
    GM_RG_PCIE_HOSTMAX, /* static: sysfs, the upstream port's max_link_speed (not NVML) */
    GM_RG_ECC_UNITS,    /* nvmlDeviceGetMemoryErrorCounter for the locations besides DRAM/SRAM */
    GM_RG_BRAND,        /* static */
    /* nvidia-smi 570-595 --query-gpu fields (issue 28 point 8) */
    GM_RG_ENGINE_UTIL,   /* nvmlDeviceGetJpgUtilization, nvmlDeviceGetOfaUtilization */
    GM_RG_PCI_EXT,       /* static: nvmlDeviceGetPciInfoExt (base and sub class) */
    GM_RG_GSP_MODE,      /* static: nvmlDeviceGetGspFirmwareMode */
    GM_RG_PROT_MEM,      /* nvmlDeviceGetConfComputeProtectedMemoryUsage */
    GM_RG_SRAM_STATUS,   /* nvmlDeviceGetSramEccErrorStatus */
    GM_RG_INFOROM_CHECK, /* static: nvmlDeviceValidateInforom */
    GM_RG_C2C,           /* static: nvmlDeviceGetC2cModeInfoV */
    GM_RG_RECOVERY,      /* field value 230, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION */
    GM_RG_ADDR_MODE,     /* static: nvmlDeviceGetAddressingMode */
    GM_RG_DRAM_ENC,      /* static: nvmlDeviceGetDramEncryptionMode */
    GM_RG_GPU_HOSTNAME,  /* static: nvmlDeviceGetHostname_v1 */
    GM_RG_PLATFORM,      /* static: nvmlDeviceGetPlatformInfo */
    GM_RG_MODULE_ID,     /* static: nvmlDeviceGetModuleId */
    GM_RG_POWER_SMOOTH,  /* field values 264, 275-288 (power smoothing) */
    GM_RG_EDPP,          /* field value 274, NVML_FI_DEV_EDPP_MULTIPLIER */
    GM_RG_REMAP_INACT,   /* field values 301, 302 (inactive row remappings) */
    GM_RG__COUNT
};

/* The metrics.  Order is the order of `gpumon status --json`, docs/metrics.md
 * and --help-query-gpu. */
enum gm_metric_id {
    /* host-scope facts, repeated on each GPU row by nvidia-smi */
    GM_M_TIMESTAMP = 0,
    GM_M_DRIVER_VERSION,
    GM_M_CUDA_VERSION,
    GM_M_NVML_VERSION,
    GM_M_COUNT,
    /* identity */
    GM_M_INDEX,
    GM_M_MINOR,
    GM_M_NAME,
    GM_M_SERIAL,
    GM_M_UUID,
    GM_M_PCI_BUS_ID,
    GM_M_PCI_DOMAIN,
    GM_M_PCI_BUS,
    GM_M_PCI_DEVICE,
    GM_M_PCI_DEVICE_ID,
    GM_M_PCI_SUB_DEVICE_ID,
    GM_M_VBIOS,
    GM_M_BOARD_PART,
    GM_M_COMPUTE_CAP,
    /* modes */
    GM_M_PERSISTENCE,
    GM_M_COMPUTE_MODE,
    GM_M_DISPLAY_MODE,
    GM_M_DISPLAY_ACTIVE,
    GM_M_MIG_CURRENT,
    GM_M_MIG_PENDING,
    GM_M_PSTATE,
    /* thermal */
    GM_M_FAN,
    GM_M_TEMP_GPU,
    GM_M_TEMP_MEM,
    GM_M_TEMP_SHUTDOWN,
    GM_M_TEMP_SLOWDOWN,
    GM_M_TEMP_GPU_MAX,
    GM_M_TEMP_MEM_MAX,
    /* power */
    GM_M_POWER_DRAW,
    GM_M_POWER_INSTANT,
    GM_M_POWER_LIMIT,
    GM_M_POWER_ENFORCED,
    GM_M_POWER_DEFAULT,
    GM_M_POWER_MIN,
    GM_M_POWER_MAX,
    GM_M_ENERGY,
    /* utilisation */
    GM_M_UTIL_GPU,
    GM_M_UTIL_MEM,
    GM_M_UTIL_ENC,
    GM_M_UTIL_DEC,
    /* memory */
    GM_M_MEM_TOTAL,
    GM_M_MEM_RESERVED,
    GM_M_MEM_USED,
    GM_M_MEM_FREE,
    GM_M_BAR1_TOTAL,
    GM_M_BAR1_USED,
    /* clocks */
    GM_M_CLK_GR,
    GM_M_CLK_SM,
    GM_M_CLK_MEM,
    GM_M_CLK_VIDEO,
    GM_M_CLK_MAX_GR,
    GM_M_CLK_MAX_SM,
    GM_M_CLK_MAX_MEM,
    GM_M_CLK_MAX_VIDEO,
    /* clock event (throttle) reasons */
    GM_M_CER_SUPPORTED,
    GM_M_CER_ACTIVE,
    GM_M_CER_GPU_IDLE,
    GM_M_CER_APP_CLOCKS,
    GM_M_CER_SW_POWER_CAP,
    GM_M_CER_HW_SLOWDOWN,
    GM_M_CER_HW_THERMAL,
    GM_M_CER_HW_POWER_BRAKE,
    GM_M_CER_SW_THERMAL,
    GM_M_CER_SYNC_BOOST,
    GM_M_CER_DISPLAY_CLOCK,
    GM_M_VIOL_POWER,
    GM_M_VIOL_THERMAL,
    GM_M_VIOL_SYNC_BOOST,
    GM_M_VIOL_BOARD_LIMIT,
    GM_M_VIOL_LOW_UTIL,
    GM_M_VIOL_RELIABILITY,
    /* PCIe */
    GM_M_PCIE_GEN_CUR,
    GM_M_PCIE_GEN_MAX,
    GM_M_PCIE_WIDTH_CUR,
    GM_M_PCIE_WIDTH_MAX,
    GM_M_PCIE_TX,
    GM_M_PCIE_RX,
    GM_M_PCIE_REPLAY,
    /* ECC and memory health */
    GM_M_ECC_CUR,
    GM_M_ECC_PENDING,
    GM_M_ECC_CORR_VOL,
    GM_M_ECC_UNCORR_VOL,
    GM_M_ECC_CORR_AGG,
    GM_M_ECC_UNCORR_AGG,
    GM_M_RETIRED_SBE,
    GM_M_RETIRED_DBE,
    GM_M_RETIRED_PENDING,
    GM_M_REMAP_CORR,
    GM_M_REMAP_UNCORR,
    GM_M_REMAP_PENDING,
    GM_M_REMAP_FAILURE,
    /* GPM profiling metrics (Hopper and later) */
    GM_M_GPM_GR_ACTIVE,
    GM_M_GPM_SM_ACTIVE,
    GM_M_GPM_SM_OCCUPANCY,
    GM_M_GPM_INT_ACTIVE,
    GM_M_GPM_TENSOR_ACTIVE,
    GM_M_GPM_DRAM_ACTIVE,
    GM_M_GPM_FP64_ACTIVE,
    GM_M_GPM_FP32_ACTIVE,
    GM_M_GPM_FP16_ACTIVE,
    GM_M_GPM_PCIE_TX,
    GM_M_GPM_PCIE_RX,
    GM_M_GPM_NVLINK_TX,
    GM_M_GPM_NVLINK_RX,
    /* nvidia-smi's remaining --query-gpu fields (issue 14) */
    GM_M_POWER_AVERAGE,
    GM_M_POWER_MGMT,
    GM_M_CLK_APP_GR,
    GM_M_CLK_APP_MEM,
    GM_M_CLK_DEFAPP_GR,
    GM_M_CLK_DEFAPP_MEM,
    GM_M_PCIE_GEN_GPUMAX,
    GM_M_DRIVER_MODEL_CUR,
    GM_M_DRIVER_MODEL_PEND,
    GM_M_GOM_CUR,
    GM_M_GOM_PEND,
    GM_M_ACCOUNTING_MODE,
    GM_M_ACCOUNTING_BUFFER,
    GM_M_ENC_SESSIONS,
    GM_M_ENC_FPS,
    GM_M_ENC_LATENCY,
    GM_M_INFOROM_IMG,
    GM_M_INFOROM_OEM,
    GM_M_INFOROM_ECC,
    GM_M_INFOROM_PWR,
    GM_M_BRAND,
    GM_M_REMAP_HIST_MAX,
    GM_M_REMAP_HIST_HIGH,
    GM_M_REMAP_HIST_PARTIAL,
    GM_M_REMAP_HIST_LOW,
    GM_M_REMAP_HIST_NONE,
    GM_M_FABRIC_STATE,
    GM_M_FABRIC_STATUS,
    GM_M_FABRIC_CLUSTER,
    GM_M_FABRIC_CLIQUE,
    GM_M_ECC_CORR_VOL_DRAM,
    GM_M_ECC_UNCORR_VOL_DRAM,
    GM_M_ECC_CORR_AGG_DRAM,
    GM_M_ECC_UNCORR_AGG_DRAM,
    GM_M_ECC_CORR_VOL_SRAM,
    GM_M_ECC_UNCORR_VOL_SRAM,
    GM_M_ECC_CORR_AGG_SRAM,
    GM_M_ECC_UNCORR_AGG_SRAM,
    GM_M_CERC_SW_POWER_CAP,
    GM_M_CERC_SYNC_BOOST,
    GM_M_CERC_SW_THERMAL,
    GM_M_CERC_HW_THERMAL,
    GM_M_CERC_HW_POWER_BRAKE,
    /* NVLink, all links of a GPU together */
    GM_M_NVLINK_LINKS,
    GM_M_NVLINK_DOWN,
    GM_M_NVLINK_TX,
    GM_M_NVLINK_RX,
    GM_M_NVLINK_TOTAL,
    GM_M_NVLINK_L0,
    GM_M_NVLINK_ERR_REPLAY,
    GM_M_NVLINK_ERR_RECOVERY,
    GM_M_NVLINK_ERR_CRC_FLIT,
    GM_M_NVLINK_ERR_CRC_DATA,
    GM_M_TEMP_TLIMIT,
    /* Grace Hopper module power (the GPU, the CPU and the memory of a module together) */
    GM_M_MODULE_POWER_AVERAGE,
    GM_M_MODULE_POWER_INSTANT,
    GM_M_MODULE_POWER_LIMIT,
    GM_M_MODULE_POWER_ENFORCED,
    GM_M_MODULE_POWER_DEFAULT,
    GM_M_MODULE_POWER_MIN,
    GM_M_MODULE_POWER_MAX,
    GM_M_PCIE_GEN_HOSTMAX,
    /* ECC counts by location beyond DRAM and SRAM: per location, corrected
     * volatile (CV), uncorrected volatile (UV), corrected aggregate (CA),
     * uncorrected aggregate (UA), in that order (src/source/nvml_ecc.c relies on it) */
    GM_M_ECCU_DEVMEM_CV,
    GM_M_ECCU_DEVMEM_UV,
    GM_M_ECCU_DEVMEM_CA,
    GM_M_ECCU_DEVMEM_UA,
    GM_M_ECCU_REGFILE_CV,
    GM_M_ECCU_REGFILE_UV,
    GM_M_ECCU_REGFILE_CA,
    GM_M_ECCU_REGFILE_UA,
    GM_M_ECCU_L1_CV,
    GM_M_ECCU_L1_UV,
    GM_M_ECCU_L1_CA,
    GM_M_ECCU_L1_UA,
    GM_M_ECCU_L2_CV,
    GM_M_ECCU_L2_UV,
    GM_M_ECCU_L2_CA,
    GM_M_ECCU_L2_UA,
    GM_M_ECCU_TEX_CV,
    GM_M_ECCU_TEX_UV,
    GM_M_ECCU_TEX_CA,
    GM_M_ECCU_TEX_UA,
    GM_M_ECCU_CBU_CV,
    GM_M_ECCU_CBU_UV,
    GM_M_ECCU_CBU_CA,
    GM_M_ECCU_CBU_UA,
    /* nvidia-smi 570-595 --query-gpu fields (issue 28 point 8) */
    GM_M_UTIL_JPEG,
    GM_M_UTIL_OFA,
    GM_M_PCI_BASE_CLASS,
    GM_M_PCI_SUB_CLASS,
    GM_M_GSP_MODE_CUR,
    GM_M_GSP_MODE_DEF,
    GM_M_PROT_MEM_TOTAL,
    GM_M_PROT_MEM_USED,
    GM_M_PROT_MEM_FREE,
    GM_M_SRAM_UV_PARITY, /* the nvmlEccSramErrorStatus_t rows: this order (nvml_ecc.c) */
    GM_M_SRAM_UV_SECDED,
    GM_M_SRAM_UA_PARITY,
    GM_M_SRAM_UA_SECDED,
    GM_M_SRAM_UA_THRESHOLD,
    GM_M_SRAM_UA_L2,
    GM_M_SRAM_UA_SM,
    GM_M_SRAM_UA_MCU,
    GM_M_SRAM_UA_PCIE,
    GM_M_SRAM_UA_OTHER,
    GM_M_INFOROM_CHECKSUM,
    GM_M_C2C_MODE,
    GM_M_KMD_VERSION, /* host scope: the driver version again, under 595's name */
    GM_M_GPU_RECOVERY_ACTION,
    GM_M_ADDRESSING_MODE,
    GM_M_DRAM_ENC_CUR,
    GM_M_DRAM_ENC_PEND,
    GM_M_GPU_HOSTNAME,
    GM_M_FABRIC_HEALTH_SUMMARY, /* nvmlGpuFabricInfo_v3 healthSummary */
    GM_M_FABRIC_HEALTH_BW,      /* the healthMask fields, below */
    GM_M_FABRIC_HEALTH_ROUTE_RECOVERY,
    GM_M_FABRIC_HEALTH_ROUTE_UNHEALTHY,
    GM_M_FABRIC_HEALTH_ACCESS_TIMEOUT,
    GM_M_FABRIC_HEALTH_CONFIG,
    GM_M_FABRIC_HEALTH_PARTITION,
    GM_M_PLATFORM_CHASSIS_SERIAL, /* nvmlPlatformInfo_v2 */
    GM_M_PLATFORM_SLOT,
    GM_M_PLATFORM_TRAY,
    GM_M_PLATFORM_HOST_ID,
    GM_M_PLATFORM_PEER_TYPE,
    GM_M_PLATFORM_MODULE_ID, /* nvmlDeviceGetModuleId */
    GM_M_PLATFORM_FABRIC_GUID,
    GM_M_PS_DELAYED_SUPPORTED, /* power smoothing: field values 275-288 */
    GM_M_PS_PRIMARY_FLOOR,
    GM_M_PS_SECONDARY_FLOOR,
    GM_M_PS_MIN_ACT_OFFSET,
    GM_M_PS_MIN_ACT_POINT,
    GM_M_PS_WINDOW_MULT,
    GM_M_PS_CUR_SECONDARY_FLOOR, /* of the active profile (field 264) */
    GM_M_PS_CUR_ACT_WIN_MULT,
    GM_M_PS_CUR_TAR_WIN_MULT,
    GM_M_PS_CUR_ACT_OFFSET,
    GM_M_PS_ADM_SECONDARY_FLOOR, /* admin override: absent when not set */
    GM_M_PS_ADM_ACT_WIN_MULT,
    GM_M_PS_ADM_TAR_WIN_MULT,
    GM_M_PS_ADM_ACT_OFFSET,
    GM_M_EDPP_MULTIPLIER,     /* field value 274 */
    GM_M_REMAP_CORR_INACTIVE, /* field values 301, 302 */
    GM_M_REMAP_UNCORR_INACTIVE,
    GM_M__GPU_END, /* metrics below are per process */

    /* per-process fields (struct gm_proc) */
    GM_P_PID = GM_M__GPU_END,
    GM_P_TYPE,
    GM_P_NAME,
    GM_P_USED_MEMORY,
    GM_P_GPU_INSTANCE,
    GM_P_COMPUTE_INSTANCE,
    GM_P_SM_UTIL,
    GM_P_MEM_UTIL,
    GM_P_ENC_UTIL,
    GM_P_DEC_UTIL,
    GM_P_USER,
    GM_P_STATE,
    GM_P_CMDLINE,
    GM_P_EXE,
    GM_P_START_TIME,
    GM_P_ELAPSED,
    GM_P_CPU,
    GM_P_RSS,
    GM_M__COUNT
};

/* Metric flags (struct gm_metric.flags). */
enum {
    /* Left out of `status --json`, whose GPU object lists every other GPU
     * metric: a metric added after that document's key set was settled
     * (docs/json.md) is shown where it is named instead (a --query-gpu
     * field, a CSV column, an alert rule), and by the exporter and the store
     * if it has a Prometheus name or a store column. */
    GM_MF_NOT_IN_STATUS = 1 << 0,
};

struct gm_metric {
    const char *smi;       /* nvidia-smi query key, NULL if nvidia-smi has none */
    const char *smi_alias; /* further accepted keys, comma-separated, or NULL; "=key" marks a
                              separate nvidia-smi field with the same value (its header is
                              that key, not the canonical one) */
    const char *desc;      /* one line, for --help-query-gpu and docs */
    const char *csv;       /* CSV column stem; the unit suffix is appended */
    const char *json;      /* JSON key stem; the unit suffix is appended */
    const char *prom;      /* native Prometheus name without prefix/suffix, NULL = not exported */
    const char *prom_help;
    const char *dcgm;   /* dcgm-exporter field name, NULL if none */
    uint8_t unit;       /* enum gm_unit */
    uint8_t kind;       /* enum gm_kind */
    uint8_t fmt;        /* enum gm_fmt */
    uint8_t scope;      /* enum gm_scope */
    uint8_t rg;         /* enum gm_read_group */
    uint8_t sslot;      /* enum gm_sslot for GM_F_STR metrics */
    uint64_t bit;       /* for per-reason metrics: the bit in GM_M_CER_ACTIVE */
    const char *smi_na; /* nvidia-smi's text when unavailable, NULL = "[N/A]" */
    /* The SQLite store's `samples` column (src/store/store_sql.c), NULL = not stored.  The
     * column is the stem, the scale's prefix and the unit's store suffix ("power", 100, watts
     * -> power_cw); it holds the nvidia-smi number (base / smi_div) times store_scale as an
     * integer: rounded, or rounded down when the unit has a divisor (whole MiB, as
     * nvidia-smi); a bit mask (GM_F_HEX64) as it is. */
    const char *store;
    uint16_t store_scale; /* 1, 10 (deci), 100 (centi) or 1000 (milli) */
    uint8_t store_col;    /* the column's place in `samples` after (ts, gpu, dup, task, status),
                             from 1: the order the columns were added in, never changed or
                             reused (an existing store gets a new column at its end) */
    uint8_t flags;        /* GM_MF_* */
    uint16_t gpm_id;      /* GM_RG_GPM rows: the NVML_GPM_METRIC_* id (also nvidia-smi dmon's
                             --gpm-metrics number) */
};

/* The GPM rows, GM_M_GPM_GR_ACTIVE .. GM_M_GPM_NVLINK_RX. */
#define GM_GPM_FIRST GM_M_GPM_GR_ACTIVE
#define GM_GPM_COUNT (GM_M_GPM_NVLINK_RX - GM_M_GPM_GR_ACTIVE + 1)

/* The GPM row with NVML metric id gpm_id, or -1. */
int gm_metric_by_gpm_id(unsigned gpm_id);

extern const struct gm_metric gm_metrics[GM_M__COUNT];

/* Read-group facts: whether it is static, and the NVML symbol(s) it calls
 * (for docs and for naming a call that hangs); whether it is slow: read
 * every few seconds when sampling again and again and reused in between,
 * each value with its age (value.h's age_ms; source/nvml.h,
 * gm_nvml_set_cadence). */
enum gm_rg_slow {
    GM_RG_FAST = 0,     /* read every sample */
    GM_RG_SLOW_CADENCE, /* settings and health counters: slow when a cadence is set (the agent) */
    GM_RG_SLOW_ALWAYS,  /* slow also without one (every 10 s): seldom-read settings and
                           counters, NVLink states and error counters */
};
struct gm_read_group_info {
    const char *name;
    const char *nvml; /* primary NVML function */
    int is_static;
    int slow; /* enum gm_rg_slow */
};
extern const struct gm_read_group_info gm_read_groups[GM_RG__COUNT];

/* Looks a metric up by nvidia-smi key or alias (exact, case-sensitive, as
 * nvidia-smi), among per-process metrics when proc != 0, else among GPU and
 * host metrics.  Returns the id, or -1. */
int gm_metric_by_smi(const char *key, size_t len, int proc);

/* Whether key is an "=key" alias of id: a field of its own in nvidia-smi,
 * printed under its own name in headers. */
int gm_metric_smi_own_header(int id, const char *key, size_t len);

/* Looks a metric up by nvidia-smi key, full JSON key ("memory_used_bytes")
 * or full CSV column ("memory_used_mib"), in the same scope rule.
 * Returns the id, or -1. */
int gm_metric_by_name(const char *name, int proc);

/* The full JSON key / CSV column of a metric, written to buf ("memory_used_bytes"). */
const char *gm_metric_json_key(int id, char *buf, size_t len);
const char *gm_metric_csv_col(int id, char *buf, size_t len);

/* The SQLite store's column of a metric ("power_cw"), and its name in the
 * store's view in the unit's own scale ("power_w"; the column itself when
 * store_scale is 1), written to buf; NULL when the metric is not stored (or
 * its scale has no prefix). */
const char *gm_metric_store_col(int id, char *buf, size_t len);
const char *gm_metric_store_view_col(int id, char *buf, size_t len);

/* Clock event reasons: the per-reason rows GM_M_CER_GPU_IDLE ..
 * GM_M_CER_DISPLAY_CLOCK, each with its NVML bit in gm_metrics[].bit (the
 * only place the bits are written). */
#define GM_REASON_COUNT (GM_M_CER_DISPLAY_CLOCK - GM_M_CER_GPU_IDLE + 1)

/* The k-th reason's bit in ascending bit order (0 = the lowest bit), 0 when
 * k is out of range: the order outputs list reasons in. */
uint64_t gm_reason_bit(int k);

/* The bit's short name ("hw_thermal_slowdown"), and a whole mask spelled
 * out as "sw_power_cap,hw_thermal_slowdown" into buf ("none" when zero).
 * Bits that gpumon does not know are printed in hex. */
const char *gm_reason_name(uint64_t bit);
const char *gm_reasons_format(uint64_t mask, char *buf, size_t len);

#endif /* GM_METRICS_H */

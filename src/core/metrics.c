/* metrics.c -- the metric registry table and its lookups (see metrics.h).
 *
 * This file is the single place where a metric's names are spelled: the
 * nvidia-smi query key and aliases, the CSV column and JSON key stems (the
 * unit suffix comes from gm_units[]), the native Prometheus name and help,
 * and the dcgm-exporter field.  docs/metrics.md is generated from it
 * (`gpumon metrics --markdown`) and a test fails when the doc is stale.
 */
#include "metrics.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ units */

const struct gm_unit_info gm_units[GM_U__COUNT] = {
    [GM_U_NONE] = {"", 1, 0, 0, "", "", "", 1, NULL, 1, ""},
    [GM_U_PERCENT] = {"%", 1, 0, 0, "percent", "percent", "ratio", 0.01, "%", 1, "pct"},
    [GM_U_BYTES] = {"MiB", 1048576.0, 0, 0, "mib", "bytes", "bytes", 1, "MiB", 1.0 / 1048576.0,
                    "mib"},
    [GM_U_BYTES_PER_S] = {"MiB/s", 1048576.0, 0, 0, "mibps", "bytes_per_second", "bytes_per_second",
                          1, "B/s", 1, "mibps"},
    [GM_U_WATTS] = {"W", 1, 2, 0, "w", "watts", "watts", 1, "W", 1, "w"},
    [GM_U_JOULES] = {"J", 1, 3, 0, "j", "joules", "joules", 1, "mJ", 1000.0, "j"},
    [GM_U_CELSIUS] = {"", 1, 0, 0, "c", "celsius", "celsius", 1, "C", 1, "c"},
    [GM_U_MHZ] = {"MHz", 1, 0, 0, "mhz", "mhz", "hertz", 1e6, "MHz", 1, "mhz"},
    [GM_U_SECONDS] = {"s", 1, 3, 0, "s", "seconds", "seconds", 1, "ns", 1e9, "s"},
    [GM_U_ACTIVITY] = {"%", 1, 1, 1, "percent", "percent", "ratio", 0.01, "ratio", 0.01, "pct"},
    [GM_U_US] = {"us", 1e-6, 0, 0, "s", "seconds", "seconds", 1, "ns", 1e9, "us"},
};

/* ------------------------------------------------------------ read groups */

const struct gm_read_group_info gm_read_groups[GM_RG__COUNT] = {
    [GM_RG_NONE] = {"none", NULL, 0},
    [GM_RG_INDEX] = {"index", "nvmlDeviceGetIndex", 1},
    [GM_RG_MINOR] = {"minor", "nvmlDeviceGetMinorNumber", 1},
    [GM_RG_NAME] = {"name", "nvmlDeviceGetName", 1},
    [GM_RG_UUID] = {"uuid", "nvmlDeviceGetUUID", 1},
    [GM_RG_SERIAL] = {"serial", "nvmlDeviceGetSerial", 1},
    [GM_RG_PCI] = {"pci", "nvmlDeviceGetPciInfo_v3", 1},
    [GM_RG_VBIOS] = {"vbios", "nvmlDeviceGetVbiosVersion", 1},
    [GM_RG_BOARD_PART] = {"board_part", "nvmlDeviceGetBoardPartNumber", 1},
    [GM_RG_CC] = {"compute_cap", "nvmlDeviceGetCudaComputeCapability", 1},
    [GM_RG_TEMP_THRESH] = {"temp_thresholds", "nvmlDeviceGetTemperatureThreshold", 1},
    [GM_RG_POWER_LIMITS] = {"power_limits", "nvmlDeviceGetPowerManagementLimitConstraints", 1},
    [GM_RG_MAX_CLOCKS] = {"max_clocks", "nvmlDeviceGetMaxClockInfo", 1},
    [GM_RG_MAX_PCIE] = {"max_pcie", "nvmlDeviceGetMaxPcieLinkGeneration", 1},
    [GM_RG_PERSISTENCE] = {"persistence", "nvmlDeviceGetPersistenceMode", 0},
    [GM_RG_COMPUTE_MODE] = {"compute_mode", "nvmlDeviceGetComputeMode", 0},
    [GM_RG_DISPLAY] = {"display", "nvmlDeviceGetDisplayActive", 0},
    [GM_RG_MIG_MODE] = {"mig_mode", "nvmlDeviceGetMigMode", 0},
    [GM_RG_PSTATE] = {"pstate", "nvmlDeviceGetPerformanceState", 0},
    [GM_RG_FAN] = {"fan", "nvmlDeviceGetFanSpeed", 0},
    [GM_RG_TEMP] = {"temperature", "nvmlDeviceGetTemperature", 0},
    [GM_RG_TEMP_MEM] = {"memory_temperature", "nvmlDeviceGetFieldValues", 0},
    [GM_RG_POWER] = {"power", "nvmlDeviceGetPowerUsage", 0},
    [GM_RG_POWER_INSTANT] = {"power_instant", "nvmlDeviceGetFieldValues", 0},
    [GM_RG_POWER_LIMIT] = {"power_limit", "nvmlDeviceGetEnforcedPowerLimit", 0},
    [GM_RG_ENERGY] = {"energy", "nvmlDeviceGetTotalEnergyConsumption", 0},
    [GM_RG_UTIL] = {"utilization", "nvmlDeviceGetUtilizationRates", 0},
    [GM_RG_ENC] = {"encoder", "nvmlDeviceGetEncoderUtilization", 0},
    [GM_RG_DEC] = {"decoder", "nvmlDeviceGetDecoderUtilization", 0},
    [GM_RG_MEMORY] = {"memory", "nvmlDeviceGetMemoryInfo_v2", 0},
    [GM_RG_BAR1] = {"bar1", "nvmlDeviceGetBAR1MemoryInfo", 0},
    [GM_RG_CLOCKS] = {"clocks", "nvmlDeviceGetClockInfo", 0},
    [GM_RG_CLOCK_REASONS] = {"clock_reasons", "nvmlDeviceGetCurrentClocksEventReasons", 0},
    [GM_RG_VIOLATION] = {"violation", "nvmlDeviceGetViolationStatus", 0},
    [GM_RG_PCIE_LINK] = {"pcie_link", "nvmlDeviceGetCurrPcieLinkGeneration", 0},
    [GM_RG_PCIE_TPUT] = {"pcie_throughput", "nvmlDeviceGetPcieThroughput", 0},
    [GM_RG_PCIE_REPLAY] = {"pcie_replay", "nvmlDeviceGetPcieReplayCounter", 0},
    [GM_RG_ECC_MODE] = {"ecc_mode", "nvmlDeviceGetEccMode", 0},
    [GM_RG_ECC_COUNTS] = {"ecc_counts", "nvmlDeviceGetTotalEccErrors", 0},
    [GM_RG_RETIRED] = {"retired_pages", "nvmlDeviceGetRetiredPages", 0},
    [GM_RG_REMAPPED] = {"remapped_rows", "nvmlDeviceGetRemappedRows", 0},
    [GM_RG_GPM] = {"gpm", "nvmlGpmMetricsGet", 0},
    [GM_RG_POWER_MGMT] = {"power_management", "nvmlDeviceGetPowerManagementMode", 0},
    [GM_RG_APP_CLOCKS] = {"application_clocks", "nvmlDeviceGetApplicationsClock", 0},
    [GM_RG_DRIVER_MODEL] = {"driver_model", "nvmlDeviceGetDriverModel_v2", 1},
    [GM_RG_GOM] = {"gpu_operation_mode", "nvmlDeviceGetGpuOperationMode", 0},
    [GM_RG_ACCOUNTING] = {"accounting", "nvmlDeviceGetAccountingMode", 0},
    [GM_RG_ENC_STATS] = {"encoder_stats", "nvmlDeviceGetEncoderStats", 0},
    [GM_RG_INFOROM] = {"inforom", "nvmlDeviceGetInforomVersion", 1},
    [GM_RG_REMAP_HIST] = {"remapped_rows_histogram", "nvmlDeviceGetRowRemapperHistogram", 0},
    [GM_RG_FABRIC] = {"fabric", "nvmlDeviceGetGpuFabricInfoV", 0},
    [GM_RG_ECC_LOCATIONS] = {"ecc_locations", "nvmlDeviceGetMemoryErrorCounter", 0},
    [GM_RG_CER_COUNTERS] = {"clock_event_counters", "nvmlDeviceGetFieldValues", 0},
    [GM_RG_NVLINK] = {"nvlink", "nvmlDeviceGetNvLinkState", 0},
    [GM_RG_TEMP_MARGIN] = {"temperature_margin", "nvmlDeviceGetMarginTemperature", 0},
    [GM_RG_MODULE_POWER] = {"module_power", "nvmlDeviceGetFieldValues", 0},
    [GM_RG_PCIE_HOSTMAX] = {"pcie_hostmax", "/sys/bus/pci/devices/BDF/../max_link_speed", 1},
    [GM_RG_ECC_UNITS] = {"ecc_units", "nvmlDeviceGetMemoryErrorCounter", 0},
};

/* --------------------------------------------------------------- registry */

/* A row: its names, unit, kind, format, scope and read group, then any of
 * STORE(stem, scale, place) for a metric the SQLite store keeps,
 * .flags = GM_MF_..., .smi_na = "..." (designated: every other field is 0). */
#define R(smi_, alias_, desc_, csv_, json_, prom_, help_, dcgm_, unit_, kind_, fmt_, scope_, rg_,  \
          ...)                                                                                     \
    {                                                                                              \
        .smi = (smi_), .smi_alias = (alias_), .desc = (desc_), .csv = (csv_), .json = (json_),     \
        .prom = (prom_), .prom_help = (help_), .dcgm = (dcgm_), .unit = (unit_), .kind = (kind_),  \
        .fmt = (fmt_), .scope = (scope_), .rg = (rg_), __VA_ARGS__                                 \
    }
#define STORE(stem, scale, col) .store = (stem), .store_scale = (scale), .store_col = (col)
/* A string fact of a GPU, in string slot slot_. */
#define S(smi_, alias_, desc_, csv_, json_, dcgm_, slot_, rg_)                                     \
    R(smi_, alias_, desc_, csv_, json_, NULL, NULL, dcgm_, GM_U_NONE, GM_K_INFO, GM_F_STR,         \
      GM_SC_GPU, rg_, .sslot = (slot_))
/* A per-reason row: CSV stem REASON_PREFIX name; gm_reason_name() reads the name back. */
#define REASON_PREFIX "reason_"
#define REASON(name, bit_, desc)                                                                   \
    R("clocks_event_reasons." name, "clocks_throttle_reasons." name, desc, REASON_PREFIX name,     \
      "clocks_event_reason_" name, "clock_event_reason_active",                                    \
      "Whether a clock event (throttle) reason is active (1) or not (0), by reason.", NULL,        \
      GM_U_NONE, GM_K_STATE, GM_F_ACTIVE, GM_SC_GPU, GM_RG_CLOCK_REASONS, .bit = (bit_))

/* A GPM row: key gpm.<stem>, every name from the stem, NVML GPM metric id id_; not in
 * `status --json` (its keys are fixed; `status --json --gpm` adds these). */
#define GPM(stem, id_, unit_, dcgm_, desc_)                                                        \
    R("gpm." stem, NULL, desc_, "gpm_" stem, "gpm_" stem, "gpm_" stem, desc_, dcgm_, unit_,        \
      GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_GPM, .flags = GM_MF_NOT_IN_STATUS, .gpm_id = (id_))

const struct gm_metric gm_metrics[GM_M__COUNT] = {
    /* host */
    [GM_M_TIMESTAMP] = R("timestamp", NULL, "Time of the sample (local time).", "time", "time",
                         NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_TIME, GM_SC_HOST, GM_RG_NONE),
    [GM_M_DRIVER_VERSION] =
        R("driver_version", NULL, "Version of the installed NVIDIA display driver.",
          "driver_version", "driver_version", NULL, NULL, "DCGM_FI_DRIVER_VERSION", GM_U_NONE,
          GM_K_INFO, GM_F_STR, GM_SC_HOST, GM_RG_NONE),
    [GM_M_CUDA_VERSION] = R(NULL, NULL, "Highest CUDA version the driver supports.",
                            "cuda_driver_version", "cuda_driver_version", NULL, NULL, NULL,
                            GM_U_NONE, GM_K_INFO, GM_F_CUDA, GM_SC_HOST, GM_RG_NONE),
    [GM_M_NVML_VERSION] =
        R(NULL, NULL, "Version of the NVML library.", "nvml_version", "nvml_version", NULL, NULL,
          "DCGM_FI_NVML_VERSION", GM_U_NONE, GM_K_INFO, GM_F_STR, GM_SC_HOST, GM_RG_NONE),
    [GM_M_COUNT] = R("count", NULL, "Number of NVIDIA GPUs in the system.", "count", "count", NULL,
                     NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_NUM, GM_SC_HOST, GM_RG_NONE),

    /* identity */
    [GM_M_INDEX] =
        R("index", NULL, "Zero based index of the GPU (NVML enumeration order).", "gpu", "index",
          NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_NUM, GM_SC_GPU, GM_RG_INDEX),
    [GM_M_MINOR] =
        R(NULL, NULL, "Minor number of the device node (/dev/nvidiaN).", "minor_number",
          "minor_number", NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_NUM, GM_SC_GPU, GM_RG_MINOR),
    [GM_M_NAME] = S("name", "gpu_name", "Official product name of the GPU.", "name", "name",
                    "modelName", GM_S_NAME, GM_RG_NAME),
    [GM_M_SERIAL] = S("serial", "gpu_serial", "Serial number printed on the board.", "serial",
                      "serial", "DCGM_FI_DEV_SERIAL", GM_S_SERIAL, GM_RG_SERIAL),
    [GM_M_UUID] = S("uuid", "gpu_uuid", "Globally unique immutable identifier of the GPU.", "uuid",
                    "uuid", "UUID", GM_S_UUID, GM_RG_UUID),
    [GM_M_PCI_BUS_ID] = S("pci.bus_id", "gpu_bus_id", "PCI bus id as domain:bus:device.function.",
                          "pci_bus_id", "pci_bus_id", "pci_bus_id", GM_S_PCI_BUS_ID, GM_RG_PCI),
    [GM_M_PCI_DOMAIN] =
        R("pci.domain", NULL, "PCI domain number, in hex.", "pci_domain", "pci_domain", NULL, NULL,
          NULL, GM_U_NONE, GM_K_INFO, GM_F_HEX16, GM_SC_GPU, GM_RG_PCI),
    [GM_M_PCI_BUS] = R("pci.bus", NULL, "PCI bus number, in hex.", "pci_bus", "pci_bus", NULL, NULL,
                       NULL, GM_U_NONE, GM_K_INFO, GM_F_HEX8, GM_SC_GPU, GM_RG_PCI),
    [GM_M_PCI_DEVICE] =
        R("pci.device", NULL, "PCI device number, in hex.", "pci_device", "pci_device", NULL, NULL,
          NULL, GM_U_NONE, GM_K_INFO, GM_F_HEX8, GM_SC_GPU, GM_RG_PCI),
    [GM_M_PCI_DEVICE_ID] =
        R("pci.device_id", NULL, "PCI vendor device id, in hex.", "pci_device_id", "pci_device_id",
          NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_HEX32, GM_SC_GPU, GM_RG_PCI),
    [GM_M_PCI_SUB_DEVICE_ID] = R("pci.sub_device_id", NULL, "PCI sub system id, in hex.",
                                 "pci_sub_device_id", "pci_sub_device_id", NULL, NULL, NULL,
                                 GM_U_NONE, GM_K_INFO, GM_F_HEX32, GM_SC_GPU, GM_RG_PCI),
    [GM_M_VBIOS] = S("vbios_version", NULL, "BIOS of the GPU board.", "vbios_version",
                     "vbios_version", "DCGM_FI_DEV_VBIOS_VERSION", GM_S_VBIOS, GM_RG_VBIOS),
    [GM_M_BOARD_PART] = S(NULL, NULL, "Board part number.", "board_part_number",
                          "board_part_number", NULL, GM_S_BOARD_PART, GM_RG_BOARD_PART),
    [GM_M_COMPUTE_CAP] =
        R("compute_cap", NULL, "CUDA compute capability, major.minor.", "compute_cap",
          "compute_cap", NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_CC, GM_SC_GPU, GM_RG_CC),

    /* modes */
    [GM_M_PERSISTENCE] = R("persistence_mode", NULL, "Whether persistence mode is on.",
                           "persistence_mode", "persistence_mode", "persistence_mode",
                           "Whether persistence mode is enabled (1) or not (0).", NULL, GM_U_NONE,
                           GM_K_STATE, GM_F_ENABLED, GM_SC_GPU, GM_RG_PERSISTENCE),
    [GM_M_COMPUTE_MODE] =
        R("compute_mode", NULL,
          "Compute mode: Default, Exclusive_Thread, Prohibited, Exclusive_Process.", "compute_mode",
          "compute_mode", NULL, NULL, NULL, GM_U_NONE, GM_K_STATE, GM_F_COMPUTE_MODE, GM_SC_GPU,
          GM_RG_COMPUTE_MODE),
    [GM_M_DISPLAY_MODE] =
        R("display_attached", "display_mode",
          "Whether a physical display is attached to one of the GPU's connectors.",
          "display_attached", "display_attached", NULL, NULL, NULL, GM_U_NONE, GM_K_STATE,
          GM_F_YESNO, GM_SC_GPU, GM_RG_DISPLAY),
    [GM_M_DISPLAY_ACTIVE] = R("display_active", NULL,
                              "Whether a display is initialized on the GPU (driving a monitor).",
                              "display_active", "display_active", NULL, NULL, NULL, GM_U_NONE,
                              GM_K_STATE, GM_F_ENABLED, GM_SC_GPU, GM_RG_DISPLAY),
    [GM_M_MIG_CURRENT] =
        R("mig.mode.current", NULL, "MIG mode currently in effect.", "mig_mode_current",
          "mig_mode_current", "mig_mode", "Whether MIG mode is enabled (1) or not (0).", NULL,
          GM_U_NONE, GM_K_STATE, GM_F_ENABLED, GM_SC_GPU, GM_RG_MIG_MODE),
    [GM_M_MIG_PENDING] = R("mig.mode.pending", NULL, "MIG mode after the next reset.",
                           "mig_mode_pending", "mig_mode_pending", NULL, NULL, NULL, GM_U_NONE,
                           GM_K_STATE, GM_F_ENABLED, GM_SC_GPU, GM_RG_MIG_MODE),
    [GM_M_PSTATE] = R("pstate", NULL, "Performance state, P0 (maximum) to P12 (minimum).", "pstate",
                      "pstate", "performance_state", "Performance state number (0 = P0 = maximum).",
                      NULL, GM_U_NONE, GM_K_STATE, GM_F_PSTATE, GM_SC_GPU, GM_RG_PSTATE),

    /* thermal */
    [GM_M_FAN] = R("fan.speed", NULL, "Fan speed as a percentage of its maximum (may exceed 100).",
                   "fan_speed", "fan_speed", "fan_speed",
                   "Intended fan speed as a fraction of the maximum (may exceed 1).",
                   "DCGM_FI_DEV_FAN_SPEED", GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
                   GM_RG_FAN, STORE("fan", 1, 10)),
    [GM_M_TEMP_GPU] =
        R("temperature.gpu", NULL, "Core GPU temperature, degrees C.", "temperature_gpu",
          "temperature_gpu", "gpu_temperature", "GPU core temperature.", "DCGM_FI_DEV_GPU_TEMP",
          GM_U_CELSIUS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_TEMP, STORE("temp", 1, 6)),
    /* nvidia-smi prints a bare N/A (no brackets) for boards without an HBM sensor */
    [GM_M_TEMP_MEM] = R("temperature.memory", NULL, "HBM memory temperature, degrees C.",
                        "temperature_memory", "temperature_memory", "memory_temperature",
                        "GPU memory (HBM) temperature.", "DCGM_FI_DEV_MEMORY_TEMP", GM_U_CELSIUS,
                        GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_TEMP_MEM, .smi_na = "N/A"),
    [GM_M_TEMP_SHUTDOWN] =
        R(NULL, NULL, "Temperature at which the GPU shuts down.", "temperature_shutdown",
          "temperature_shutdown", "gpu_temperature_shutdown_threshold",
          "Temperature at which the GPU shuts down to protect itself.", "DCGM_FI_DEV_SHUTDOWN_TEMP",
          GM_U_CELSIUS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_TEMP_THRESH),
    [GM_M_TEMP_SLOWDOWN] =
        R(NULL, NULL, "Temperature at which the GPU starts to slow its clocks.",
          "temperature_slowdown", "temperature_slowdown", "gpu_temperature_slowdown_threshold",
          "Temperature at which the GPU starts to lower its clocks.", "DCGM_FI_DEV_SLOWDOWN_TEMP",
          GM_U_CELSIUS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_TEMP_THRESH),
    [GM_M_TEMP_GPU_MAX] =
        R(NULL, NULL, "Maximum operating temperature of the GPU core.", "temperature_gpu_max",
          "temperature_gpu_max", "gpu_temperature_max_operating",
          "Maximum operating temperature of the GPU core.", NULL, GM_U_CELSIUS, GM_K_GAUGE,
          GM_F_NUM, GM_SC_GPU, GM_RG_TEMP_THRESH),
    [GM_M_TEMP_MEM_MAX] =
        R(NULL, NULL, "Maximum operating temperature of the GPU memory.", "temperature_memory_max",
          "temperature_memory_max", "memory_temperature_max_operating",
          "Maximum operating temperature of the GPU memory.", NULL, GM_U_CELSIUS, GM_K_GAUGE,
          GM_F_NUM, GM_SC_GPU, GM_RG_TEMP_THRESH),

    /* power */
    [GM_M_POWER_DRAW] =
        R("power.draw", NULL, "Power drawn by the whole board, W.", "power_draw", "power_draw",
          "power_draw", "Power drawn by the whole board.", "DCGM_FI_DEV_POWER_USAGE", GM_U_WATTS,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_POWER, STORE("power", 100, 4)),
    [GM_M_POWER_INSTANT] =
        R("power.draw.instant", NULL,
          "Power drawn by the whole board at the last measurement, W (power.draw is a "
          "one-second average on recent GPUs).",
          "power_draw_instant", "power_draw_instant", "power_draw_instant",
          "Power drawn by the whole board at the last measurement (not averaged).",
          "DCGM_FI_DEV_POWER_USAGE_INSTANT", GM_U_WATTS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
          GM_RG_POWER_INSTANT),
    [GM_M_POWER_LIMIT] = R("power.limit", "gpu.power.requested_limit",
                           "Software power limit (power management limit), W.", "power_limit",
                           "power_limit", "power_limit", "Software power management limit.",
                           "DCGM_FI_DEV_POWER_MGMT_LIMIT", GM_U_WATTS, GM_K_GAUGE, GM_F_NUM,
                           GM_SC_GPU, GM_RG_POWER_LIMIT, STORE("power_limit", 100, 5)),
    [GM_M_POWER_ENFORCED] =
        R("enforced.power.limit", "gpu.power.current_limit",
          "Power limit actually enforced (minimum of all limiters), W.", "power_limit_enforced",
          "power_limit_enforced", "power_limit_enforced",
          "Power limit actually enforced by the board.", "DCGM_FI_DEV_ENFORCED_POWER_LIMIT",
          GM_U_WATTS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_POWER_LIMIT),
    [GM_M_POWER_DEFAULT] =
        R("power.default_limit", "gpu.power.default_limit", "Default power limit, W.",
          "power_limit_default", "power_limit_default", "power_limit_default",
          "Default power management limit.", NULL, GM_U_WATTS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
          GM_RG_POWER_LIMITS),
    [GM_M_POWER_MIN] =
        R("power.min_limit", "gpu.power.min_limit", "Minimum settable power limit, W.",
          "power_limit_min", "power_limit_min", "power_limit_min", "Minimum settable power limit.",
          NULL, GM_U_WATTS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_POWER_LIMITS),
    [GM_M_POWER_MAX] =
        R("power.max_limit", "gpu.power.max_limit", "Maximum settable power limit, W.",
          "power_limit_max", "power_limit_max", "power_limit_max", "Maximum settable power limit.",
          NULL, GM_U_WATTS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_POWER_LIMITS),
    [GM_M_ENERGY] = R(NULL, NULL, "Energy consumed since the driver was loaded, J.", "energy",
                      "energy", "energy_consumed", "Energy consumed since the driver was loaded.",
                      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", GM_U_JOULES, GM_K_COUNTER, GM_F_NUM,
                      GM_SC_GPU, GM_RG_ENERGY, STORE("energy", 1000, 11)),

    /* utilisation */
    [GM_M_UTIL_GPU] = R("utilization.gpu", NULL,
                        "Percent of time over the past sample period during which one or more "
                        "kernels was executing on the GPU.",
                        "utilization_gpu", "utilization_gpu", "gpu_utilization",
                        "Fraction of the last sample period in which a kernel was running.",
                        "DCGM_FI_DEV_GPU_UTIL", GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
                        GM_RG_UTIL, STORE("util_gpu", 1, 1)),
    [GM_M_UTIL_MEM] = R("utilization.memory", NULL,
                        "Percent of time over the past sample period during which device memory "
                        "was being read or written.",
                        "utilization_memory", "utilization_memory", "memory_utilization",
                        "Fraction of the last sample period in which memory was read or written.",
                        "DCGM_FI_DEV_MEM_COPY_UTIL", GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
                        GM_RG_UTIL, STORE("util_mem", 1, 2)),
    [GM_M_UTIL_ENC] = R("utilization.encoder", NULL, "Video encoder utilization, percent.",
                        "utilization_encoder", "utilization_encoder", "encoder_utilization",
                        "Video encoder utilization.", "DCGM_FI_DEV_ENC_UTIL", GM_U_PERCENT,
                        GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_ENC, STORE("util_enc", 1, 12)),
    [GM_M_UTIL_DEC] = R("utilization.decoder", NULL, "Video decoder utilization, percent.",
                        "utilization_decoder", "utilization_decoder", "decoder_utilization",
                        "Video decoder utilization.", "DCGM_FI_DEV_DEC_UTIL", GM_U_PERCENT,
                        GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_DEC, STORE("util_dec", 1, 13)),

    /* memory */
    [GM_M_MEM_TOTAL] =
        R("memory.total", NULL, "Total installed GPU memory, MiB.", "memory_total", "memory_total",
          "memory_total", "Total installed GPU memory.", "DCGM_FI_DEV_FB_TOTAL", GM_U_BYTES,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MEMORY),
    [GM_M_MEM_RESERVED] =
        R("memory.reserved", NULL, "GPU memory reserved by the driver, MiB.", "memory_reserved",
          "memory_reserved", "memory_reserved", "GPU memory reserved by the driver and firmware.",
          "DCGM_FI_DEV_FB_RESERVED", GM_U_BYTES, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MEMORY),
    [GM_M_MEM_USED] = R("memory.used", NULL, "GPU memory allocated by active contexts, MiB.",
                        "memory_used", "memory_used", "memory_used",
                        "GPU memory allocated by active contexts (excludes reserved memory).",
                        "DCGM_FI_DEV_FB_USED", GM_U_BYTES, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
                        GM_RG_MEMORY, STORE("mem_used", 1, 3)),
    [GM_M_MEM_FREE] = R("memory.free", NULL, "Free GPU memory, MiB.", "memory_free", "memory_free",
                        "memory_free", "Free GPU memory.", "DCGM_FI_DEV_FB_FREE", GM_U_BYTES,
                        GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MEMORY),
    [GM_M_BAR1_TOTAL] = R(NULL, NULL, "Total BAR1 memory, MiB.", "bar1_total", "bar1_total",
                          "bar1_memory_total", "Total BAR1 memory.", "DCGM_FI_DEV_BAR1_TOTAL",
                          GM_U_BYTES, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_BAR1),
    [GM_M_BAR1_USED] = R(NULL, NULL, "Used BAR1 memory, MiB.", "bar1_used", "bar1_used",
                         "bar1_memory_used", "Used BAR1 memory.", "DCGM_FI_DEV_BAR1_USED",
                         GM_U_BYTES, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_BAR1),

    /* clocks */
    [GM_M_CLK_GR] =
        R("clocks.current.graphics", "clocks.gr", "Current graphics clock, MHz.", "clocks_gr",
          "clocks_graphics", "graphics_clock", "Current graphics clock.", "DCGM_FI_DEV_GPU_CLOCK",
          GM_U_MHZ, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_CLOCKS),
    [GM_M_CLK_SM] =
        R("clocks.current.sm", "clocks.sm", "Current SM clock, MHz.", "clocks_sm", "clocks_sm",
          "sm_clock", "Current streaming multiprocessor clock.", "DCGM_FI_DEV_SM_CLOCK", GM_U_MHZ,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_CLOCKS, STORE("clk_sm", 1, 7)),
    [GM_M_CLK_MEM] =
        R("clocks.current.memory", "clocks.mem", "Current memory clock, MHz.", "clocks_mem",
          "clocks_memory", "memory_clock", "Current memory clock.", "DCGM_FI_DEV_MEM_CLOCK",
          GM_U_MHZ, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_CLOCKS, STORE("clk_mem", 1, 8)),
    [GM_M_CLK_VIDEO] =
        R("clocks.current.video", "clocks.video", "Current video clock, MHz.", "clocks_video",
          "clocks_video", "video_clock", "Current video clock.", "DCGM_FI_DEV_VIDEO_CLOCK",
          GM_U_MHZ, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_CLOCKS),
    [GM_M_CLK_MAX_GR] =
        R("clocks.max.graphics", "clocks.max.gr", "Maximum graphics clock, MHz.", "clocks_max_gr",
          "clocks_max_graphics", "graphics_clock_max", "Maximum graphics clock.", NULL, GM_U_MHZ,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MAX_CLOCKS),
    [GM_M_CLK_MAX_SM] =
        R("clocks.max.sm", NULL, "Maximum SM clock, MHz.", "clocks_max_sm", "clocks_max_sm",
          "sm_clock_max", "Maximum streaming multiprocessor clock.", "DCGM_FI_DEV_MAX_SM_CLOCK",
          GM_U_MHZ, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MAX_CLOCKS),
    [GM_M_CLK_MAX_MEM] =
        R("clocks.max.memory", "clocks.max.mem", "Maximum memory clock, MHz.", "clocks_max_mem",
          "clocks_max_memory", "memory_clock_max", "Maximum memory clock.",
          "DCGM_FI_DEV_MAX_MEM_CLOCK", GM_U_MHZ, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MAX_CLOCKS),
    [GM_M_CLK_MAX_VIDEO] =
        R(NULL, NULL, "Maximum video clock, MHz.", "clocks_max_video", "clocks_max_video",
          "video_clock_max", "Maximum video clock.", "DCGM_FI_DEV_MAX_VIDEO_CLOCK", GM_U_MHZ,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MAX_CLOCKS),

    /* clock event reasons */
    [GM_M_CER_SUPPORTED] =
        R("clocks_event_reasons.supported", "clocks_throttle_reasons.supported",
          "Bitmask of clock event reasons this GPU can report.", "clocks_event_reasons_supported",
          "clocks_event_reasons_supported", NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_HEX64,
          GM_SC_GPU, GM_RG_CLOCK_REASONS),
    [GM_M_CER_ACTIVE] =
        R("clocks_event_reasons.active", "clocks_throttle_reasons.active",
          "Bitmask of the clock event (throttle) reasons active now.", "clocks_event_reasons",
          "clocks_event_reasons", NULL, NULL, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", GM_U_NONE,
          GM_K_STATE, GM_F_HEX64, GM_SC_GPU, GM_RG_CLOCK_REASONS, STORE("reasons", 1, 9)),
    [GM_M_CER_GPU_IDLE] = REASON("gpu_idle", 0x1, "Nothing is running; clocks are low."),
    [GM_M_CER_APP_CLOCKS] = REASON("applications_clocks_setting", 0x2,
                                   "Clocks are limited by the applications clocks setting."),
    [GM_M_CER_SW_POWER_CAP] =
        REASON("sw_power_cap", 0x4, "The power limit is reached; clocks lowered to stay below it."),
    [GM_M_CER_HW_SLOWDOWN] =
        REASON("hw_slowdown", 0x8, "Hardware slowdown (temperature, power brake or power supply)."),
    [GM_M_CER_HW_THERMAL] =
        REASON("hw_thermal_slowdown", 0x40, "Hardware thermal slowdown: the GPU is too hot."),
    [GM_M_CER_HW_POWER_BRAKE] =
        REASON("hw_power_brake_slowdown", 0x80,
               "Power brake asserted by the system (e.g. the power supply)."),
    [GM_M_CER_SW_THERMAL] =
        REASON("sw_thermal_slowdown", 0x20,
               "Software thermal slowdown: clocks lowered to keep the GPU below "
               "its maximum operating temperature."),
    [GM_M_CER_SYNC_BOOST] =
        REASON("sync_boost", 0x10, "Clocks held down to match other GPUs in a sync-boost group."),
    [GM_M_CER_DISPLAY_CLOCK] =
        REASON("display_clock_setting", 0x100, "Clocks limited by the display clock setting."),
    [GM_M_VIOL_POWER] =
        R(NULL, NULL, "Time spent clocked down by the power limit since driver load.",
          "violation_power", "violation_power", "power_violation",
          "Time the GPU spent clocked down by the power limit (since driver load).",
          "DCGM_FI_DEV_POWER_VIOLATION", GM_U_SECONDS, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU,
          GM_RG_VIOLATION),
    [GM_M_VIOL_THERMAL] = R(NULL, NULL, "Time spent clocked down by temperature since driver load.",
                            "violation_thermal", "violation_thermal", "thermal_violation",
                            "Time the GPU spent clocked down by temperature (since driver load).",
                            "DCGM_FI_DEV_THERMAL_VIOLATION", GM_U_SECONDS, GM_K_COUNTER, GM_F_NUM,
                            GM_SC_GPU, GM_RG_VIOLATION),

    /* PCIe */
    [GM_M_PCIE_GEN_CUR] =
        R("pcie.link.gen.current", "=pcie.link.gen.gpucurrent",
          "Current PCIe link generation (may drop when idle).", "pcie_link_gen_current",
          "pcie_link_gen_current", "pcie_link_generation", "Current PCIe link generation.",
          "DCGM_FI_DEV_PCIE_LINK_GEN", GM_U_NONE, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_PCIE_LINK),
    [GM_M_PCIE_GEN_MAX] =
        R("pcie.link.gen.max", NULL, "Maximum PCIe link generation of the GPU and system together.",
          "pcie_link_gen_max", "pcie_link_gen_max", "pcie_link_generation_max",
          "Maximum PCIe link generation.", NULL, GM_U_NONE, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU,
          GM_RG_MAX_PCIE),
    [GM_M_PCIE_WIDTH_CUR] =
        R("pcie.link.width.current", NULL, "Current PCIe link width (lanes).",
          "pcie_link_width_current", "pcie_link_width_current", "pcie_link_width",
          "Current PCIe link width in lanes.", "DCGM_FI_DEV_PCIE_LINK_WIDTH", GM_U_NONE, GM_K_GAUGE,
          GM_F_NUM, GM_SC_GPU, GM_RG_PCIE_LINK),
    [GM_M_PCIE_WIDTH_MAX] =
        R("pcie.link.width.max", NULL, "Maximum PCIe link width (lanes).", "pcie_link_width_max",
          "pcie_link_width_max", "pcie_link_width_max", "Maximum PCIe link width in lanes.", NULL,
          GM_U_NONE, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_MAX_PCIE),
    [GM_M_PCIE_TX] =
        R(NULL, NULL, "PCIe transmit throughput (GPU to host), over ~20 ms.", "pcie_tx", "pcie_tx",
          "pcie_transmit", "PCIe transmit throughput (GPU to host).", NULL, GM_U_BYTES_PER_S,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_PCIE_TPUT),
    [GM_M_PCIE_RX] =
        R(NULL, NULL, "PCIe receive throughput (host to GPU), over ~20 ms.", "pcie_rx", "pcie_rx",
          "pcie_receive", "PCIe receive throughput (host to GPU).", NULL, GM_U_BYTES_PER_S,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_PCIE_TPUT, STORE("pcie_rx", 1, 14)),
    [GM_M_PCIE_REPLAY] =
        R(NULL, NULL, "PCIe replay (retry) counter.", "pcie_replay", "pcie_replay_count",
          "pcie_replays", "PCIe link replays (retries).", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
          GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_PCIE_REPLAY),

    /* ECC and memory health */
    [GM_M_ECC_CUR] = R("ecc.mode.current", NULL, "ECC mode in effect.", "ecc_mode_current",
                       "ecc_mode_current", "ecc_mode", "Whether ECC is enabled (1) or not (0).",
                       NULL, GM_U_NONE, GM_K_STATE, GM_F_ENABLED, GM_SC_GPU, GM_RG_ECC_MODE),
    [GM_M_ECC_PENDING] = R("ecc.mode.pending", NULL, "ECC mode after the next reboot.",
                           "ecc_mode_pending", "ecc_mode_pending", NULL, NULL, NULL, GM_U_NONE,
                           GM_K_STATE, GM_F_ENABLED, GM_SC_GPU, GM_RG_ECC_MODE),
    [GM_M_ECC_CORR_VOL] =
        R("ecc.errors.corrected.volatile.total", NULL,
          "Corrected ECC errors since the driver was loaded.", "ecc_corrected_volatile",
          "ecc_corrected_volatile", "ecc_corrected_volatile_errors",
          "Corrected (single-bit) ECC errors since the driver was loaded.",
          "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU,
          GM_RG_ECC_COUNTS),
    [GM_M_ECC_UNCORR_VOL] =
        R("ecc.errors.uncorrected.volatile.total", NULL,
          "Uncorrected ECC errors since the driver was loaded.", "ecc_uncorrected_volatile",
          "ecc_uncorrected_volatile", "ecc_uncorrected_volatile_errors",
          "Uncorrected (double-bit) ECC errors since the driver was loaded.",
          "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU,
          GM_RG_ECC_COUNTS),
    [GM_M_ECC_CORR_AGG] =
        R("ecc.errors.corrected.aggregate.total", NULL,
          "Corrected ECC errors over the GPU's lifetime.", "ecc_corrected_aggregate",
          "ecc_corrected_aggregate", "ecc_corrected_aggregate_errors",
          "Corrected ECC errors over the lifetime of the GPU.", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
          GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_ECC_COUNTS),
    [GM_M_ECC_UNCORR_AGG] =
        R("ecc.errors.uncorrected.aggregate.total", NULL,
          "Uncorrected ECC errors over the GPU's lifetime.", "ecc_uncorrected_aggregate",
          "ecc_uncorrected_aggregate", "ecc_uncorrected_aggregate_errors",
          "Uncorrected ECC errors over the lifetime of the GPU.", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
          GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_ECC_COUNTS),
    [GM_M_RETIRED_SBE] =
        R("retired_pages.single_bit_ecc.count", "retired_pages.sbe",
          "Pages retired after multiple single-bit ECC errors.", "retired_pages_sbe",
          "retired_pages_sbe", "retired_pages_sbe",
          "Memory pages retired after multiple single-bit ECC errors.", "DCGM_FI_DEV_RETIRED_SBE",
          GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_RETIRED),
    [GM_M_RETIRED_DBE] =
        R("retired_pages.double_bit.count", "retired_pages.dbe",
          "Pages retired after a double-bit ECC error.", "retired_pages_dbe", "retired_pages_dbe",
          "retired_pages_dbe", "Memory pages retired after a double-bit ECC error.",
          "DCGM_FI_DEV_RETIRED_DBE", GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_RETIRED),
    [GM_M_RETIRED_PENDING] = R(
        "retired_pages.pending", NULL, "Whether a page retirement waits for the next reboot.",
        "retired_pages_pending", "retired_pages_pending", "retired_pages_pending",
        "Whether a page is pending retirement at the next reboot (1) or not.",
        "DCGM_FI_DEV_RETIRED_PENDING", GM_U_NONE, GM_K_STATE, GM_F_YESNO, GM_SC_GPU, GM_RG_RETIRED),
    [GM_M_REMAP_CORR] =
        R("remapped_rows.correctable", "remapped_rows.sbe",
          "Rows remapped because of correctable errors.", "remapped_rows_correctable",
          "remapped_rows_correctable", "remapped_rows_correctable",
          "Memory rows remapped because of correctable errors.",
          "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU,
          GM_RG_REMAPPED),
    [GM_M_REMAP_UNCORR] =
        R("remapped_rows.uncorrectable", "remapped_rows.dbe",
          "Rows remapped because of uncorrectable errors.", "remapped_rows_uncorrectable",
          "remapped_rows_uncorrectable", "remapped_rows_uncorrectable",
          "Memory rows remapped because of uncorrectable errors.",
          "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", GM_U_NONE, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU,
          GM_RG_REMAPPED),
    [GM_M_REMAP_PENDING] =
        R("remapped_rows.pending", NULL, "Whether a row remapping waits for the next GPU reset.",
          "remapped_rows_pending", "remapped_rows_pending", "remapped_rows_pending",
          "Whether a row remapping is pending until the next reset (1) or not.",
          "DCGM_FI_DEV_ROW_REMAP_PENDING", GM_U_NONE, GM_K_STATE, GM_F_YESNO, GM_SC_GPU,
          GM_RG_REMAPPED),
    [GM_M_REMAP_FAILURE] =
        R("remapped_rows.failure", NULL, "Whether a row remapping has failed.",
          "remapped_rows_failure", "remapped_rows_failure", "remapped_rows_failure",
          "Whether a row remapping has failed (1) or not (0).", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
          GM_U_NONE, GM_K_STATE, GM_F_YESNO, GM_SC_GPU, GM_RG_REMAPPED),

    /* GPM (Hopper and later): one interval between two GPM samples; see docs/metrics.md */
    [GM_M_GPM_GR_ACTIVE] = GPM("graphics_active", 1, GM_U_ACTIVITY, "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                               "Time any graphics or compute engine was active over the "
                               "interval (GPM; finer than utilization.gpu)."),
    [GM_M_GPM_SM_ACTIVE] = GPM(
        "sm_active", 2, GM_U_ACTIVITY, "DCGM_FI_PROF_SM_ACTIVE",
        "SM activity: SMs with at least one warp resident, averaged over SMs and the interval."),
    [GM_M_GPM_SM_OCCUPANCY] =
        GPM("sm_occupancy", 3, GM_U_ACTIVITY, "DCGM_FI_PROF_SM_OCCUPANCY",
            "SM occupancy: warps resident relative to the SMs' maximum, over the interval."),
    [GM_M_GPM_INT_ACTIVE] = GPM("integer_active", 4, GM_U_ACTIVITY, NULL,
                                "Integer pipe activity: share of the interval."),
    [GM_M_GPM_TENSOR_ACTIVE] =
        GPM("tensor_active", 5, GM_U_ACTIVITY, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
            "Tensor pipe activity (any tensor type): share of the interval."),
    [GM_M_GPM_DRAM_ACTIVE] =
        GPM("dram_active", 10, GM_U_ACTIVITY, "DCGM_FI_PROF_DRAM_ACTIVE",
            "DRAM bandwidth used, relative to the peak (GPM; the real \"memory busy\", unlike "
            "utilization.memory)."),
    [GM_M_GPM_FP64_ACTIVE] = GPM("fp64_active", 11, GM_U_ACTIVITY, "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
                                 "FP64 pipe activity: share of the interval."),
    [GM_M_GPM_FP32_ACTIVE] = GPM("fp32_active", 12, GM_U_ACTIVITY, "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
                                 "FP32 pipe activity: share of the interval."),
    [GM_M_GPM_FP16_ACTIVE] = GPM("fp16_active", 13, GM_U_ACTIVITY, "DCGM_FI_PROF_PIPE_FP16_ACTIVE",
                                 "FP16 pipe activity: share of the interval."),
    [GM_M_GPM_PCIE_TX] = GPM("pcie_tx", 20, GM_U_BYTES_PER_S, "DCGM_FI_PROF_PCIE_TX_BYTES",
                             "PCIe transmit (GPU to host) over the GPM interval."),
    [GM_M_GPM_PCIE_RX] = GPM("pcie_rx", 21, GM_U_BYTES_PER_S, "DCGM_FI_PROF_PCIE_RX_BYTES",
                             "PCIe receive (host to GPU) over the GPM interval."),
    [GM_M_GPM_NVLINK_TX] = GPM("nvlink_tx", 61, GM_U_BYTES_PER_S, "DCGM_FI_PROF_NVLINK_TX_BYTES",
                               "NVLink transmit, all links, over the GPM interval."),
    [GM_M_GPM_NVLINK_RX] = GPM("nvlink_rx", 60, GM_U_BYTES_PER_S, "DCGM_FI_PROF_NVLINK_RX_BYTES",
                               "NVLink receive, all links, over the GPM interval."),

/* nvidia-smi's remaining --query-gpu fields (issue 14); X14 and S14 rows
 * are not in `status --json`.  The power average and the application clocks
 * are (rows written out with R), as are the NVLink rows below (docs/json.md). */
#define X14(smi_, alias_, desc_, stem_, unit_, fmt_, rg_)                                          \
    R(smi_, alias_, desc_, stem_, stem_, NULL, NULL, NULL, unit_, GM_K_GAUGE, fmt_, GM_SC_GPU,     \
      rg_, .flags = GM_MF_NOT_IN_STATUS)
#define S14(smi_, desc_, stem_, slot_, rg_)                                                        \
    R(smi_, NULL, desc_, stem_, stem_, NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_STR,           \
      GM_SC_GPU, rg_, .sslot = (slot_), .flags = GM_MF_NOT_IN_STATUS)
    [GM_M_POWER_AVERAGE] =
        R("power.draw.average", NULL,
          "Power drawn by the whole board averaged over the last second, W "
          "(NVML_FI_DEV_POWER_AVERAGE).",
          "power_draw_average", "power_draw_average", "power_draw_average",
          "Board power averaged over one second (power_draw_instant is the "
          "last reading).",
          NULL, GM_U_WATTS, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_POWER_INSTANT),
    [GM_M_POWER_MGMT] = X14("power.management", NULL,
                            "Whether power management (a power limit and its reading) is on.",
                            "power_management", GM_U_NONE, GM_F_ENABLED, GM_RG_POWER_MGMT),
    [GM_M_CLK_APP_GR] =
        R("clocks.applications.graphics", "clocks.applications.gr",
          "Graphics clock applications run at (the application clock target), "
          "MHz.",
          "clocks_applications_graphics", "clocks_applications_graphics",
          "clock_applications_graphics", "Application clock target of the graphics domain.", NULL,
          GM_U_MHZ, GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_APP_CLOCKS),
    [GM_M_CLK_APP_MEM] =
        R("clocks.applications.memory", "clocks.applications.mem",
          "Memory clock applications run at (the application clock target), MHz.",
          "clocks_applications_memory", "clocks_applications_memory", "clock_applications_memory",
          "Application clock target of the memory domain.", NULL, GM_U_MHZ, GM_K_GAUGE, GM_F_NUM,
          GM_SC_GPU, GM_RG_APP_CLOCKS),
    [GM_M_CLK_DEFAPP_GR] =
        R("clocks.default_applications.graphics", "clocks.default_applications.gr",
          "Default graphics application clock, MHz.", "clocks_default_applications_graphics",
          "clocks_default_applications_graphics", NULL, NULL, NULL, GM_U_MHZ, GM_K_GAUGE, GM_F_NUM,
          GM_SC_GPU, GM_RG_APP_CLOCKS),
    [GM_M_CLK_DEFAPP_MEM] =
        R("clocks.default_applications.memory", "clocks.default_applications.mem",
          "Default memory application clock, MHz.", "clocks_default_applications_memory",
          "clocks_default_applications_memory", NULL, NULL, NULL, GM_U_MHZ, GM_K_GAUGE, GM_F_NUM,
          GM_SC_GPU, GM_RG_APP_CLOCKS),
    [GM_M_PCIE_GEN_GPUMAX] = X14("pcie.link.gen.gpumax", NULL,
                                 "Maximum PCIe link generation the GPU supports (pcie.link.gen.max "
                                 "is that of the GPU and the system together).",
                                 "pcie_link_gen_gpumax", GM_U_NONE, GM_F_NUM, GM_RG_MAX_PCIE),
    [GM_M_DRIVER_MODEL_CUR] =
        X14("driver_model.current", NULL,
            "Driver model in use (Windows only: WDDM, TCC, MCDM; [N/A] on "
            "Linux).",
            "driver_model_current", GM_U_NONE, GM_F_DRIVER_MODEL, GM_RG_DRIVER_MODEL),
    [GM_M_DRIVER_MODEL_PEND] =
        X14("driver_model.pending", NULL, "Driver model after the next reboot (Windows only).",
            "driver_model_pending", GM_U_NONE, GM_F_DRIVER_MODEL, GM_RG_DRIVER_MODEL),
    [GM_M_GOM_CUR] = X14("gom.current", "gpu_operation_mode.current",
                         "GPU operation mode (All On, Compute, Low Double Precision) of boards "
                         "that have one.",
                         "gom_current", GM_U_NONE, GM_F_GOM, GM_RG_GOM),
    [GM_M_GOM_PEND] = X14("gom.pending", "gpu_operation_mode.pending",
                          "GPU operation mode after the next reboot.", "gom_pending", GM_U_NONE,
                          GM_F_GOM, GM_RG_GOM),
    [GM_M_ACCOUNTING_MODE] = X14("accounting.mode", NULL, "Whether per-process accounting is on.",
                                 "accounting_mode", GM_U_NONE, GM_F_ENABLED, GM_RG_ACCOUNTING),
    [GM_M_ACCOUNTING_BUFFER] =
        X14("accounting.buffer_size", NULL, "How many processes the accounting buffer keeps.",
            "accounting_buffer_size", GM_U_NONE, GM_F_NUM, GM_RG_ACCOUNTING),
    [GM_M_ENC_SESSIONS] = X14("encoder.stats.sessionCount", NULL, "Active encoder sessions.",
                              "encoder_sessions", GM_U_NONE, GM_F_NUM, GM_RG_ENC_STATS),
    [GM_M_ENC_FPS] = X14("encoder.stats.averageFps", NULL,
                         "Frames per second averaged over the encoder sessions.",
                         "encoder_average_fps", GM_U_NONE, GM_F_NUM, GM_RG_ENC_STATS),
    [GM_M_ENC_LATENCY] = X14("encoder.stats.averageLatency", NULL,
                             "Encode latency averaged over the sessions, microseconds.",
                             "encoder_average_latency_us", GM_U_NONE, GM_F_NUM, GM_RG_ENC_STATS),
    [GM_M_INFOROM_IMG] = S14("inforom.img", "Version of the inforom image.", "inforom_img",
                             GM_S_INFOROM_IMG, GM_RG_INFOROM),
    [GM_M_INFOROM_OEM] = S14("inforom.oem", "Version of the inforom's OEM configuration object.",
                             "inforom_oem", GM_S_INFOROM_OEM, GM_RG_INFOROM),
    [GM_M_INFOROM_ECC] = S14("inforom.ecc", "Version of the inforom's ECC object.", "inforom_ecc",
                             GM_S_INFOROM_ECC, GM_RG_INFOROM),
    [GM_M_INFOROM_PWR] = S14("inforom.pwr", "Version of the inforom's power management object.",
                             "inforom_pwr", GM_S_INFOROM_PWR, GM_RG_INFOROM),
    [GM_M_REMAP_HIST_MAX] =
        X14("remapped_rows.histogram.max", NULL, "Memory banks with all their spare rows left.",
            "remapped_rows_histogram_max", GM_U_NONE, GM_F_NUM, GM_RG_REMAP_HIST),
    [GM_M_REMAP_HIST_HIGH] = X14(
        "remapped_rows.histogram.high", NULL, "Memory banks with most of their spare rows left.",
        "remapped_rows_histogram_high", GM_U_NONE, GM_F_NUM, GM_RG_REMAP_HIST),
    [GM_M_REMAP_HIST_PARTIAL] = X14(
        "remapped_rows.histogram.partial", NULL, "Memory banks with some of their spare rows left.",
        "remapped_rows_histogram_partial", GM_U_NONE, GM_F_NUM, GM_RG_REMAP_HIST),
    [GM_M_REMAP_HIST_LOW] =
        X14("remapped_rows.histogram.low", NULL, "Memory banks with few spare rows left.",
            "remapped_rows_histogram_low", GM_U_NONE, GM_F_NUM, GM_RG_REMAP_HIST),
    [GM_M_REMAP_HIST_NONE] =
        X14("remapped_rows.histogram.none", NULL,
            "Memory banks with no spare rows left: the next error there "
            "cannot be remapped.",
            "remapped_rows_histogram_none", GM_U_NONE, GM_F_NUM, GM_RG_REMAP_HIST),
    [GM_M_FABRIC_STATE] =
        X14("fabric.state", NULL, "NVSwitch fabric registration of the GPU (Hopper and later).",
            "fabric_state", GM_U_NONE, GM_F_FABRIC_STATE, GM_RG_FABRIC),
    [GM_M_FABRIC_STATUS] =
        X14("fabric.status", NULL, "Outcome of the fabric registration (Success or the error).",
            "fabric_status", GM_U_NONE, GM_F_NVML_RC, GM_RG_FABRIC),
    [GM_M_FABRIC_CLUSTER] = S14("fabric.clusterUuid", "UUID of the fabric cluster the GPU is in.",
                                "fabric_cluster_uuid", GM_S_FABRIC_CLUSTER, GM_RG_FABRIC),
    [GM_M_FABRIC_CLIQUE] = X14("fabric.cliqueId", NULL, "Clique of GPUs within the fabric cluster.",
                               "fabric_clique_id", GM_U_NONE, GM_F_NUM, GM_RG_FABRIC),
#define ECCL(smi_, desc_, stem_)                                                                   \
    X14(smi_, NULL, desc_, stem_, GM_U_NONE, GM_F_NUM, GM_RG_ECC_LOCATIONS)
    [GM_M_ECC_CORR_VOL_DRAM] = ECCL("ecc.errors.corrected.volatile.dram",
                                    "Corrected ECC errors in DRAM since the driver loaded.",
                                    "ecc_errors_corrected_volatile_dram"),
    [GM_M_ECC_UNCORR_VOL_DRAM] = ECCL("ecc.errors.uncorrected.volatile.dram",
                                      "Uncorrected ECC errors in DRAM since the driver loaded.",
                                      "ecc_errors_uncorrected_volatile_dram"),
    [GM_M_ECC_CORR_AGG_DRAM] = ECCL("ecc.errors.corrected.aggregate.dram",
                                    "Corrected ECC errors in DRAM over the GPU's life.",
                                    "ecc_errors_corrected_aggregate_dram"),
    [GM_M_ECC_UNCORR_AGG_DRAM] = ECCL("ecc.errors.uncorrected.aggregate.dram",
                                      "Uncorrected ECC errors in DRAM over the GPU's life.",
                                      "ecc_errors_uncorrected_aggregate_dram"),
    [GM_M_ECC_CORR_VOL_SRAM] = ECCL("ecc.errors.corrected.volatile.sram",
                                    "Corrected ECC errors in on-chip SRAM since the driver loaded.",
                                    "ecc_errors_corrected_volatile_sram"),
    [GM_M_ECC_UNCORR_VOL_SRAM] = ECCL("ecc.errors.uncorrected.volatile.sram",
                                      "Uncorrected ECC errors in on-chip SRAM since the driver "
                                      "loaded.",
                                      "ecc_errors_uncorrected_volatile_sram"),
    [GM_M_ECC_CORR_AGG_SRAM] = ECCL("ecc.errors.corrected.aggregate.sram",
                                    "Corrected ECC errors in on-chip SRAM over the GPU's life.",
                                    "ecc_errors_corrected_aggregate_sram"),
    [GM_M_ECC_UNCORR_AGG_SRAM] = ECCL("ecc.errors.uncorrected.aggregate.sram",
                                      "Uncorrected ECC errors in on-chip SRAM over the GPU's life.",
                                      "ecc_errors_uncorrected_aggregate_sram"),
#define CERC(name_, desc_)                                                                         \
    X14("clocks_event_reasons_counters." name_, "clocks_throttle_reasons_counters." name_, desc_,  \
        "clocks_event_reasons_counters_" name_, GM_U_US, GM_F_NUM, GM_RG_CER_COUNTERS)
    [GM_M_CERC_SW_POWER_CAP] =
        CERC("sw_power_cap", "Time clocks were held down by the software power cap since "
                             "the driver loaded, microseconds."),
    [GM_M_CERC_SYNC_BOOST] =
        CERC("sync_boost", "Time clocks were held down by sync boost, microseconds."),
    [GM_M_CERC_SW_THERMAL] =
        CERC("sw_thermal_slowdown", "Time clocks were held down by software thermal slowdown, "
                                    "microseconds."),
    [GM_M_CERC_HW_THERMAL] =
        CERC("hw_thermal_slowdown", "Time clocks were held down by hardware thermal slowdown, "
                                    "microseconds."),
    [GM_M_CERC_HW_POWER_BRAKE] =
        CERC("hw_power_brake_slowdown", "Time clocks were held down by the hardware power brake, "
                                        "microseconds."),
#undef CERC

    /* NVLink: every link of the GPU together (nvidia-smi has no --query-gpu
     * key for these; `nvidia-smi nvlink` prints them per link).  Absent
     * (NOT_SUPPORTED) on a GPU without NVLink. */
    [GM_M_NVLINK_LINKS] = R(NULL, NULL, "NVLink links that are up.", "nvlink_links", "nvlink_links",
                            "nvlink_links_active", "NVLink links that are up.", NULL, GM_U_NONE,
                            GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_NVLINK),
    [GM_M_NVLINK_DOWN] = R(NULL, NULL,
                           "NVLink links the GPU has that are not up (nvmlDeviceGetNvLinkState "
                           "answers inactive): 0 on a healthy board.",
                           "nvlink_links_down", "nvlink_links_down", "nvlink_links_down",
                           "NVLink links the GPU has that are not up.", NULL, GM_U_NONE, GM_K_GAUGE,
                           GM_F_NUM, GM_SC_GPU, GM_RG_NVLINK),
    [GM_M_NVLINK_TX] =
        R(NULL, NULL,
          "Data sent over NVLink since the driver loaded, all links (payload, "
          "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX).",
          "nvlink_tx", "nvlink_tx", "nvlink_transmitted", "Data sent over NVLink, all links.", NULL,
          GM_U_BYTES, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_NVLINK),
    [GM_M_NVLINK_RX] =
        R(NULL, NULL,
          "Data received over NVLink since the driver loaded, all links (payload, "
          "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX).",
          "nvlink_rx", "nvlink_rx", "nvlink_received", "Data received over NVLink, all links.",
          NULL, GM_U_BYTES, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_NVLINK),
    [GM_M_NVLINK_TOTAL] =
        R(NULL, NULL,
          "Data sent and received over NVLink since the driver loaded, all "
          "links (dcgm-exporter's DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, in MiB).",
          "nvlink_total", "nvlink_total", NULL, NULL, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
          GM_U_BYTES, GM_K_COUNTER, GM_F_NUM, GM_SC_GPU, GM_RG_NVLINK),
#define NVERR(stem_, prom_, dcgm_, desc_)                                                          \
    R(NULL, NULL, desc_, stem_, stem_, prom_, desc_, dcgm_, GM_U_NONE, GM_K_COUNTER, GM_F_NUM,     \
      GM_SC_GPU, GM_RG_NVLINK)
    [GM_M_NVLINK_ERR_REPLAY] = NVERR("nvlink_replay_errors", "nvlink_replay_errors",
                                     "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
                                     "NVLink data-link replays, all links."),
    [GM_M_NVLINK_ERR_RECOVERY] = NVERR("nvlink_recovery_errors", "nvlink_recovery_errors",
                                       "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
                                       "NVLink link recoveries, all links."),
    [GM_M_NVLINK_ERR_CRC_FLIT] = NVERR("nvlink_crc_flit_errors", "nvlink_crc_flit_errors",
                                       "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                                       "NVLink flow-control CRC errors, all links."),
    [GM_M_NVLINK_ERR_CRC_DATA] = NVERR("nvlink_crc_data_errors", "nvlink_crc_data_errors",
                                       "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
                                       "NVLink data CRC errors, all links."),
#undef NVERR
    [GM_M_TEMP_TLIMIT] =
        R("temperature.gpu.tlimit", NULL,
          "Degrees C the GPU is below the temperature where it starts slowing "
          "down (negative: past it).",
          "temperature_gpu_tlimit", "temperature_gpu_tlimit", NULL, NULL, NULL, GM_U_CELSIUS,
          GM_K_GAUGE, GM_F_NUM, GM_SC_GPU, GM_RG_TEMP_MARGIN, .flags = GM_MF_NOT_IN_STATUS),
/* Grace Hopper module power: field values with scopeId
 * NVML_POWER_SCOPE_MODULE; [N/A] on every board that is not a module. */
#define MODP(smi_, desc_, stem_)                                                                   \
    X14(smi_, NULL, desc_, stem_, GM_U_WATTS, GM_F_NUM, GM_RG_MODULE_POWER)
    [GM_M_MODULE_POWER_AVERAGE] =
        MODP("module.power.draw.average",
             "Power drawn by the whole module (GPU, CPU and memory of a Grace Hopper), averaged "
             "over one second, W (field 185, module scope).",
             "module_power_draw_average"),
    [GM_M_MODULE_POWER_INSTANT] = MODP("module.power.draw.instant",
                                       "Last power reading of the whole module, W (field 186, "
                                       "module scope).",
                                       "module_power_draw_instant"),
    [GM_M_MODULE_POWER_LIMIT] = MODP("module.power.limit",
                                     "Module power limit requested by software, W (field 192, "
                                     "module scope).",
                                     "module_power_limit"),
    [GM_M_MODULE_POWER_ENFORCED] = MODP("module.enforced.power.limit",
                                        "Module power limit in force, the lowest of every limiter, "
                                        "W (field 190, module scope).",
                                        "module_enforced_power_limit"),
    [GM_M_MODULE_POWER_DEFAULT] = MODP("module.power.default_limit",
                                       "Default module power limit, W (field 189, module scope).",
                                       "module_power_default_limit"),
    [GM_M_MODULE_POWER_MIN] = MODP("module.power.min_limit",
                                   "Lowest module power limit that can be set, W (field 187, "
                                   "module scope).",
                                   "module_power_min_limit"),
    [GM_M_MODULE_POWER_MAX] = MODP("module.power.max_limit",
                                   "Highest module power limit that can be set, W (field 188, "
                                   "module scope).",
                                   "module_power_max_limit"),
#undef MODP
    [GM_M_PCIE_GEN_HOSTMAX] = X14("pcie.link.gen.hostmax", NULL,
                                  "Maximum PCIe link generation of the port the GPU plugs into "
                                  "(root port or switch), from sysfs max_link_speed.",
                                  "pcie_link_gen_hostmax", GM_U_NONE, GM_F_NUM, GM_RG_PCIE_HOSTMAX),
#define ECCU(smi_, desc_, stem_) X14(smi_, NULL, desc_, stem_, GM_U_NONE, GM_F_NUM, GM_RG_ECC_UNITS)
    [GM_M_ECCU_DEVMEM_CV] = ECCU("ecc.errors.corrected.volatile.device_memory",
                                 "Corrected ECC errors in global device memory (the same counter "
                                 "as dram) since the driver loaded.",
                                 "ecc_errors_corrected_volatile_device_memory"),
    [GM_M_ECCU_DEVMEM_UV] = ECCU("ecc.errors.uncorrected.volatile.device_memory",
                                 "Uncorrected ECC errors in global device memory (the same counter "
                                 "as dram) since the driver loaded.",
                                 "ecc_errors_uncorrected_volatile_device_memory"),
    [GM_M_ECCU_DEVMEM_CA] = ECCU("ecc.errors.corrected.aggregate.device_memory",
                                 "Corrected ECC errors in global device memory (the same counter "
                                 "as dram) over the GPU's life.",
                                 "ecc_errors_corrected_aggregate_device_memory"),
    [GM_M_ECCU_DEVMEM_UA] = ECCU("ecc.errors.uncorrected.aggregate.device_memory",
                                 "Uncorrected ECC errors in global device memory (the same counter "
                                 "as dram) over the GPU's life.",
                                 "ecc_errors_uncorrected_aggregate_device_memory"),
    [GM_M_ECCU_REGFILE_CV] =
        ECCU("ecc.errors.corrected.volatile.register_file",
             "Corrected ECC errors in the register file since the driver loaded.",
             "ecc_errors_corrected_volatile_register_file"),
    [GM_M_ECCU_REGFILE_UV] =
        ECCU("ecc.errors.uncorrected.volatile.register_file",
             "Uncorrected ECC errors in the register file since the driver loaded.",
             "ecc_errors_uncorrected_volatile_register_file"),
    [GM_M_ECCU_REGFILE_CA] = ECCU("ecc.errors.corrected.aggregate.register_file",
                                  "Corrected ECC errors in the register file over the GPU's life.",
                                  "ecc_errors_corrected_aggregate_register_file"),
    [GM_M_ECCU_REGFILE_UA] =
        ECCU("ecc.errors.uncorrected.aggregate.register_file",
             "Uncorrected ECC errors in the register file over the GPU's life.",
             "ecc_errors_uncorrected_aggregate_register_file"),
    [GM_M_ECCU_L1_CV] = ECCU("ecc.errors.corrected.volatile.l1_cache",
                             "Corrected ECC errors in the L1 cache since the driver loaded.",
                             "ecc_errors_corrected_volatile_l1_cache"),
    [GM_M_ECCU_L1_UV] = ECCU("ecc.errors.uncorrected.volatile.l1_cache",
                             "Uncorrected ECC errors in the L1 cache since the driver loaded.",
                             "ecc_errors_uncorrected_volatile_l1_cache"),
    [GM_M_ECCU_L1_CA] = ECCU("ecc.errors.corrected.aggregate.l1_cache",
                             "Corrected ECC errors in the L1 cache over the GPU's life.",
                             "ecc_errors_corrected_aggregate_l1_cache"),
    [GM_M_ECCU_L1_UA] = ECCU("ecc.errors.uncorrected.aggregate.l1_cache",
                             "Uncorrected ECC errors in the L1 cache over the GPU's life.",
                             "ecc_errors_uncorrected_aggregate_l1_cache"),
    [GM_M_ECCU_L2_CV] = ECCU("ecc.errors.corrected.volatile.l2_cache",
                             "Corrected ECC errors in the L2 cache since the driver loaded.",
                             "ecc_errors_corrected_volatile_l2_cache"),
    [GM_M_ECCU_L2_UV] = ECCU("ecc.errors.uncorrected.volatile.l2_cache",
                             "Uncorrected ECC errors in the L2 cache since the driver loaded.",
                             "ecc_errors_uncorrected_volatile_l2_cache"),
    [GM_M_ECCU_L2_CA] = ECCU("ecc.errors.corrected.aggregate.l2_cache",
                             "Corrected ECC errors in the L2 cache over the GPU's life.",
                             "ecc_errors_corrected_aggregate_l2_cache"),
    [GM_M_ECCU_L2_UA] = ECCU("ecc.errors.uncorrected.aggregate.l2_cache",
                             "Uncorrected ECC errors in the L2 cache over the GPU's life.",
                             "ecc_errors_uncorrected_aggregate_l2_cache"),
    [GM_M_ECCU_TEX_CV] =
        ECCU("ecc.errors.corrected.volatile.texture_memory",
             "Corrected ECC errors in texture memory (parity errors) since the driver loaded.",
             "ecc_errors_corrected_volatile_texture_memory"),
    [GM_M_ECCU_TEX_UV] =
        ECCU("ecc.errors.uncorrected.volatile.texture_memory",
             "Uncorrected ECC errors in texture memory (parity errors) since the driver loaded.",
             "ecc_errors_uncorrected_volatile_texture_memory"),
    [GM_M_ECCU_TEX_CA] =
        ECCU("ecc.errors.corrected.aggregate.texture_memory",
             "Corrected ECC errors in texture memory (parity errors) over the GPU's life.",
             "ecc_errors_corrected_aggregate_texture_memory"),
    [GM_M_ECCU_TEX_UA] =
        ECCU("ecc.errors.uncorrected.aggregate.texture_memory",
             "Uncorrected ECC errors in texture memory (parity errors) over the GPU's life.",
             "ecc_errors_uncorrected_aggregate_texture_memory"),
    [GM_M_ECCU_CBU_CV] =
        ECCU("ecc.errors.corrected.volatile.cbu",
             "Corrected ECC errors in the CBU (parity errors) since the driver loaded.",
             "ecc_errors_corrected_volatile_cbu"),
    [GM_M_ECCU_CBU_UV] =
        ECCU("ecc.errors.uncorrected.volatile.cbu",
             "Uncorrected ECC errors in the CBU (parity errors) since the driver loaded.",
             "ecc_errors_uncorrected_volatile_cbu"),
    [GM_M_ECCU_CBU_CA] =
        ECCU("ecc.errors.corrected.aggregate.cbu",
             "Corrected ECC errors in the CBU (parity errors) over the GPU's life.",
             "ecc_errors_corrected_aggregate_cbu"),
    [GM_M_ECCU_CBU_UA] =
        ECCU("ecc.errors.uncorrected.aggregate.cbu",
             "Uncorrected ECC errors in the CBU (parity errors) over the GPU's life.",
             "ecc_errors_uncorrected_aggregate_cbu"),
#undef ECCU
#undef ECCL
#undef S14
#undef X14

    /* per process */
    [GM_P_PID] = R("pid", NULL, "Process id of the compute application.", "pid", "pid", NULL, NULL,
                   NULL, GM_U_NONE, GM_K_INFO, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_TYPE] = R(NULL, NULL, "Process type: C (compute), G (graphics) or C+G.", "type", "type",
                    NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_PTYPE, GM_SC_PROC, GM_RG_NONE),
    [GM_P_NAME] = R("process_name", "name", "Process name as NVML reports it (usually argv[0]).",
                    "process_name", "name", NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_STR,
                    GM_SC_PROC, GM_RG_NONE),
    [GM_P_USED_MEMORY] =
        R("used_gpu_memory", "used_memory", "GPU memory used by the process, MiB.", "used_memory",
          "used_memory", "process_memory_used", "GPU memory used by a process.", NULL, GM_U_BYTES,
          GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_GPU_INSTANCE] =
        R(NULL, NULL, "MIG GPU instance id of the process.", "gpu_instance_id", "gpu_instance_id",
          NULL, NULL, NULL, GM_U_NONE, GM_K_INFO, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_COMPUTE_INSTANCE] = R(NULL, NULL, "MIG compute instance id of the process.",
                                "compute_instance_id", "compute_instance_id", NULL, NULL, NULL,
                                GM_U_NONE, GM_K_INFO, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_SM_UTIL] = R(NULL, NULL, "SM utilization of the process, percent.", "sm_util", "sm_util",
                       "process_sm_utilization", "SM utilization of a process.", NULL, GM_U_PERCENT,
                       GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_MEM_UTIL] =
        R(NULL, NULL, "Memory controller utilization of the process, percent.", "mem_util",
          "mem_util", "process_memory_utilization", "Memory controller utilization of a process.",
          NULL, GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_ENC_UTIL] =
        R(NULL, NULL, "Encoder utilization of the process, percent.", "enc_util", "enc_util", NULL,
          NULL, NULL, GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_DEC_UTIL] =
        R(NULL, NULL, "Decoder utilization of the process, percent.", "dec_util", "dec_util", NULL,
          NULL, NULL, GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_USER] = R(NULL, NULL, "Owner of the process.", "user", "user", NULL, NULL, NULL,
                    GM_U_NONE, GM_K_INFO, GM_F_STR, GM_SC_PROC, GM_RG_NONE),
    [GM_P_STATE] =
        R(NULL, NULL,
          "Host state of the process: alive, zombie, gone (holds GPU memory but does not "
          "exist), hidden.",
          "host_state", "host_state", NULL, NULL, NULL, GM_U_NONE, GM_K_STATE, GM_F_HOSTSTATE,
          GM_SC_PROC, GM_RG_NONE),
    [GM_P_CMDLINE] = R(NULL, NULL, "Full command line.", "command", "command", NULL, NULL, NULL,
                       GM_U_NONE, GM_K_INFO, GM_F_STR, GM_SC_PROC, GM_RG_NONE),
    [GM_P_EXE] = R(NULL, NULL, "Executable path.", "exe", "exe", NULL, NULL, NULL, GM_U_NONE,
                   GM_K_INFO, GM_F_STR, GM_SC_PROC, GM_RG_NONE),
    [GM_P_START_TIME] = R(NULL, NULL, "Process start time.", "start_time", "start_time", NULL, NULL,
                          NULL, GM_U_NONE, GM_K_INFO, GM_F_TIME, GM_SC_PROC, GM_RG_NONE),
    [GM_P_ELAPSED] = R(NULL, NULL, "Time since the process started, s.", "elapsed", "elapsed", NULL,
                       NULL, NULL, GM_U_SECONDS, GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_CPU] =
        R(NULL, NULL, "CPU use of the process since the previous sample, percent of a core.", "cpu",
          "cpu", NULL, NULL, NULL, GM_U_PERCENT, GM_K_GAUGE, GM_F_NUM, GM_SC_PROC, GM_RG_NONE),
    [GM_P_RSS] = R(NULL, NULL, "Host memory (resident set) of the process, MiB.", "host_memory",
                   "host_memory", NULL, NULL, NULL, GM_U_BYTES, GM_K_GAUGE, GM_F_NUM, GM_SC_PROC,
                   GM_RG_NONE),
};

/* ---------------------------------------------------------------- lookups */

/* Whether key is in a comma-separated alias list; *own is set when the alias
 * is written "=key" (a separate nvidia-smi field with the same value). */
static int list_has(const char *list, const char *key, size_t len, int *own)
{
    const char *p = list;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int eq = *p == '=';
        if (n - (size_t)eq == len && memcmp(p + eq, key, len) == 0) {
            if (own)
                *own = eq;
            return 1;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int gm_metric_smi_own_header(int id, const char *key, size_t len)
{
    int own = 0;
    const struct gm_metric *m = &gm_metrics[id];
    return m->smi_alias && list_has(m->smi_alias, key, len, &own) && own;
}

int gm_metric_by_smi(const char *key, size_t len, int proc)
{
    for (int i = 0; i < GM_M__COUNT; i++) {
        const struct gm_metric *m = &gm_metrics[i];
        if ((m->scope == GM_SC_PROC) != (proc != 0))
            continue;
        if (m->smi && strlen(m->smi) == len && memcmp(m->smi, key, len) == 0)
            return i;
        if (m->smi_alias && list_has(m->smi_alias, key, len, NULL))
            return i;
    }
    return -1;
}

static const char *join(const char *stem, const char *suffix, char *buf, size_t len)
{
    if (suffix && *suffix)
        snprintf(buf, len, "%s_%s", stem, suffix);
    else
        snprintf(buf, len, "%s", stem);
    return buf;
}

const char *gm_metric_json_key(int id, char *buf, size_t len)
{
    const struct gm_metric *m = &gm_metrics[id];
    return join(m->json, gm_units[m->unit].json, buf, len);
}

const char *gm_metric_csv_col(int id, char *buf, size_t len)
{
    const struct gm_metric *m = &gm_metrics[id];
    return join(m->csv, gm_units[m->unit].csv, buf, len);
}

/* The SI prefix of a store scale: the stored integer counts hundredths ("c"), ... */
static const char *scale_prefix(unsigned scale)
{
    switch (scale) {
    case 1:
        return "";
    case 10:
        return "d";
    case 100:
        return "c";
    case 1000:
        return "m";
    default:
        return NULL;
    }
}

const char *gm_metric_store_col(int id, char *buf, size_t len)
{
    const struct gm_metric *m = &gm_metrics[id];
    const char *pre = scale_prefix(m->store_scale);
    const char *suf = gm_units[m->unit].store;
    if (!m->store || !pre)
        return NULL;
    snprintf(buf, len, "%s%s%s%s", m->store, *pre || *suf ? "_" : "", pre, suf);
    return buf;
}

const char *gm_metric_store_view_col(int id, char *buf, size_t len)
{
    const struct gm_metric *m = &gm_metrics[id];
    if (!m->store || !scale_prefix(m->store_scale))
        return NULL;
    return join(m->store, gm_units[m->unit].store, buf, len);
}

int gm_metric_by_name(const char *name, int proc)
{
    int id = gm_metric_by_smi(name, strlen(name), proc);
    if (id >= 0)
        return id;
    char buf[128];
    for (int i = 0; i < GM_M__COUNT; i++) {
        if ((gm_metrics[i].scope == GM_SC_PROC) != (proc != 0))
            continue;
        if (strcmp(gm_metric_json_key(i, buf, sizeof(buf)), name) == 0 ||
            strcmp(gm_metric_csv_col(i, buf, sizeof(buf)), name) == 0)
            return i;
    }
    return -1;
}

uint64_t gm_reason_bit(int k)
{
    /* the k-th smallest of the rows' bits: rank each row by the bits below it */
    for (int id = GM_M_CER_GPU_IDLE; id <= GM_M_CER_DISPLAY_CLOCK; id++) {
        int below = 0;
        for (int o = GM_M_CER_GPU_IDLE; o <= GM_M_CER_DISPLAY_CLOCK; o++)
            below += gm_metrics[o].bit < gm_metrics[id].bit;
        if (below == k)
            return gm_metrics[id].bit;
    }
    return 0;
}

const char *gm_reason_name(uint64_t bit)
{
    for (int id = GM_M_CER_GPU_IDLE; bit && id <= GM_M_CER_DISPLAY_CLOCK; id++)
        if (gm_metrics[id].bit == bit)
            return gm_metrics[id].csv + strlen(REASON_PREFIX);
    return NULL;
}

const char *gm_reasons_format(uint64_t mask, char *buf, size_t len)
{
    size_t off = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (mask == 0) {
        snprintf(buf, len, "none");
        return buf;
    }
    for (int b = 0; b < 64; b++) {
        uint64_t bit = UINT64_C(1) << b;
        if (!(mask & bit))
            continue;
        const char *n = gm_reason_name(bit);
        int w =
            n ? snprintf(buf + off, len - off, "%s%s", off ? "," : "", n)
              : snprintf(buf + off, len - off, "%s0x%llx", off ? "," : "", (unsigned long long)bit);
        if (w < 0 || (size_t)w >= len - off) {
            buf[off] = '\0';
            break;
        }
        off += (size_t)w;
    }
    return buf;
}

int gm_metric_by_gpm_id(unsigned gpm_id)
{
    for (int id = GM_GPM_FIRST; id < GM_GPM_FIRST + GM_GPM_COUNT; id++)
        if (gm_metrics[id].gpm_id == gpm_id)
            return id;
    return -1;
}

/* nvml_abi.h -- our own declarations of the subset of NVIDIA's NVML C ABI
 * that gpumon calls and that the simulator (sim/) exports.
 *
 * No nvml.h is needed to build gpumon: every type, constant, struct layout and
 * function signature used anywhere in the project is declared here, from the
 * facts in NVIDIA's public nvml.h (13.x).  tests/unit/test_nvml_abi.c pins each
 * struct's size, field offsets and version constant, so a mistake here fails
 * the build's tests instead of silently misreading memory (the nvmlMemory_v2
 * bug other clients shipped).
 *
 * The function prototypes are declared so that
 *   - sim/ defines them and the compiler checks each definition against them,
 *     and sim/gen_names.py derives the simulator's name list from them (a
 *     declaration here or in a sim/ ABI header is what the simulator must export:
 *     the sim-exports test checks it);
 *   - src/source/nvml.c never calls them directly (it dlopens the library) but
 *     takes `__typeof__(nvmlFoo) *` pointers, so a pointer and the real
 *     signature cannot drift apart.
 * What is left out: vGPU, NvLink, unit (S-class) and all set/modify calls
 * (the two GPM streaming calls are declared for the simulator, which
 * exports them; gpumon only reads).
 */
#ifndef GM_NVML_ABI_H
#define GM_NVML_ABI_H

#include <stddef.h>

#include "../core/nvmlrc.h"

/* ------------------------------------------------------------------ basics */

typedef enum nvmlReturn_enum {
/* an enumerator, not an expression: name cannot be parenthesised */
/* NOLINTNEXTLINE(bugprone-macro-parentheses) */
#define GM_NVML_RC_ENUM(name, num, text, vstatus) name = num,
    GM_NVML_RETURN_CODES(GM_NVML_RC_ENUM)
#undef GM_NVML_RC_ENUM
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

/* (unsigned int)(sizeof(struct) | (ver << 24)), as nvml.h's NVML_STRUCT_VERSION */
#define NVML_STRUCT_VERSION_OF(type, ver)                                                          \
    ((unsigned int)(sizeof(type) | ((unsigned int)(ver) << 24U)))

/* Sentinel for "value not available", e.g. usedGpuMemory under MIG/WDDM. */
#define NVML_VALUE_NOT_AVAILABLE (-1)
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL

#define NVML_INIT_FLAG_NO_GPUS 1
#define NVML_INIT_FLAG_NO_ATTACH 2

/* String buffer sizes (bytes, including the NUL). */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_UUID_BUFFER_SIZE 80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE 80
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16

/* ------------------------------------------------------------------ enums */

typedef enum nvmlEnableState_enum {
    NVML_FEATURE_DISABLED = 0,
    NVML_FEATURE_ENABLED = 1
} nvmlEnableState_t;

typedef enum nvmlComputeMode_enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
} nvmlComputeMode_t;

typedef enum nvmlPStates_enum {
    NVML_PSTATE_0 = 0,
    NVML_PSTATE_15 = 15,
    NVML_PSTATE_UNKNOWN = 32
} nvmlPstates_t;

typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;

typedef enum nvmlTemperatureThresholds_enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN = 4,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR = 5,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX = 6,
    NVML_TEMPERATURE_THRESHOLD_GPS_CURR = 7,
    NVML_TEMPERATURE_THRESHOLD_COUNT = 8
} nvmlTemperatureThresholds_t;

typedef enum nvmlClockType_enum {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
    NVML_CLOCK_VIDEO = 3,
    NVML_CLOCK_COUNT = 4
} nvmlClockType_t;

typedef enum nvmlPcieUtilCounter_enum {
    NVML_PCIE_UTIL_TX_BYTES = 0,
    NVML_PCIE_UTIL_RX_BYTES = 1,
    NVML_PCIE_UTIL_COUNT = 2
} nvmlPcieUtilCounter_t;

typedef enum nvmlMemoryErrorType_enum {
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
} nvmlMemoryErrorType_t;

typedef enum nvmlEccCounterType_enum {
    NVML_VOLATILE_ECC = 0,
    NVML_AGGREGATE_ECC = 1
} nvmlEccCounterType_t;

typedef enum nvmlPageRetirementCause_enum {
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1
} nvmlPageRetirementCause_t;

typedef enum nvmlPerfPolicyType_enum {
    NVML_PERF_POLICY_POWER = 0,
    NVML_PERF_POLICY_THERMAL = 1,
    NVML_PERF_POLICY_SYNC_BOOST = 2,
    NVML_PERF_POLICY_BOARD_LIMIT = 3,
    NVML_PERF_POLICY_LOW_UTILIZATION = 4,
    NVML_PERF_POLICY_RELIABILITY = 5
} nvmlPerfPolicyType_t;

typedef enum nvmlSamplingType_enum {
    NVML_TOTAL_POWER_SAMPLES = 0,
    NVML_GPU_UTILIZATION_SAMPLES = 1,
    NVML_MEMORY_UTILIZATION_SAMPLES = 2,
    NVML_ENC_UTILIZATION_SAMPLES = 3,
    NVML_DEC_UTILIZATION_SAMPLES = 4,
    NVML_PROCESSOR_CLK_SAMPLES = 5,
    NVML_MEMORY_CLK_SAMPLES = 6
} nvmlSamplingType_t;

typedef enum nvmlValueType_enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6
} nvmlValueType_t;

typedef enum nvmlBrandType_enum { NVML_BRAND_UNKNOWN = 0 } nvmlBrandType_t;
typedef unsigned int nvmlDeviceArchitecture_t;

#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1

/* Clock event ("throttle") reason bits; the older nvmlClocksThrottleReason*
 * names have the same values. */
#define nvmlClocksEventReasonGpuIdle 0x0000000000000001ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x0000000000000002ULL
#define nvmlClocksEventReasonSwPowerCap 0x0000000000000004ULL
#define nvmlClocksThrottleReasonHwSlowdown 0x0000000000000008ULL
#define nvmlClocksEventReasonSyncBoost 0x0000000000000010ULL
#define nvmlClocksEventReasonSwThermalSlowdown 0x0000000000000020ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x0000000000000040ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x0000000000000080ULL
#define nvmlClocksEventReasonDisplayClockSetting 0x0000000000000100ULL
#define nvmlClocksEventReasonNone 0x0000000000000000ULL
#define nvmlClocksEventReasonAll 0x00000000000001FFULL

/* Event types (bit mask). */
#define nvmlEventTypeSingleBitEccError 0x0000000000000001ULL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002ULL
#define nvmlEventTypePState 0x0000000000000004ULL
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL
#define nvmlEventTypeClock 0x0000000000000010ULL
#define nvmlEventTypeNone 0x0000000000000000ULL

/* Field ids used with nvmlDeviceGetFieldValues. */
#define NVML_FI_DEV_ECC_CURRENT 1
#define NVML_FI_DEV_ECC_PENDING 2
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94
#define NVML_FI_DEV_POWER_AVERAGE 185
#define NVML_FI_DEV_POWER_INSTANT 186
/* Power smoothing (R570+, Blackwell datacenter boards).  The "profile"
 * fields (281-284) take the profile in scopeId; the active one is field
 * 264.  An admin override that is not set reads
 * NVML_POWER_SMOOTHING_ADMIN_OVERRIDE_NOT_SET. */
#define NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE 264
#define NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR 275          /* W */
#define NVML_FI_PWR_SMOOTHING_SECONDARY_POWER_FLOOR 276        /* W */
#define NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_OFFSET 277 /* W, static */
#define NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_POINT 278  /* W */
#define NVML_FI_PWR_SMOOTHING_WINDOW_MULTIPLIER 279            /* ms, static */
#define NVML_FI_PWR_SMOOTHING_DELAYED_PWR_SMOOTHING_SUPPORTED 280
#define NVML_FI_PWR_SMOOTHING_PROFILE_SECONDARY_POWER_FLOOR 281 /* W */
#define NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_WIN_MULT 282
#define NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_TAR_WIN_MULT 283
#define NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_OFFSET 284 /* W */
#define NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_SECONDARY_POWER_FLOOR 285
#define NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_WIN_MULT 286
#define NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_TAR_WIN_MULT 287
#define NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_OFFSET 288
#define NVML_POWER_SMOOTHING_ADMIN_OVERRIDE_NOT_SET 0xFFFFFFFFU
/* "EDPp multiplier expressed as a percentage" (nvml.h names no value type). */
#define NVML_FI_DEV_EDPP_MULTIPLIER 274
/* "Number of inactive row remappings due to correctable/uncorrectable errors". */
#define NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE 301
#define NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE 302

/* ------------------------------------------------------------------ structs */

typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "%04X:%02X:%02X.0" */
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId; /* (device id << 16) | vendor id */
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "%08X:%02X:%02X.0" */
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used; /* includes reserved memory */
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version; /* nvmlMemory_v2 */
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used; /* excludes reserved memory: what nvidia-smi shows */
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION_OF(nvmlMemory_v2_t, 2)

typedef struct nvmlBAR1Memory_st {
    unsigned long long bar1Total;
    unsigned long long bar1Free;
    unsigned long long bar1Used;
} nvmlBAR1Memory_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlTemperature_v1_st {
    unsigned int version; /* nvmlTemperature_v1 */
    nvmlTemperatureSensors_t sensorType;
    int temperature;
} nvmlTemperature_v1_t;
typedef nvmlTemperature_v1_t nvmlTemperature_t;
#define nvmlTemperature_v1 NVML_STRUCT_VERSION_OF(nvmlTemperature_v1_t, 1)

typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_v2_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;     /* 0xFFFFFFFF when not MIG */
    unsigned int computeInstanceId; /* 0xFFFFFFFF when not MIG */
} nvmlProcessInfo_v2_t;
typedef nvmlProcessInfo_v2_t nvmlProcessInfo_t; /* the _v3 symbols use this 24-byte layout */

typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp; /* CPU timestamp, microseconds */
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef union nvmlValue_st {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlSample_st {
    unsigned long long timeStamp;
    nvmlValue_t sampleValue;
} nvmlSample_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp; /* microseconds since 1970 */
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct nvmlViolationTime_st {
    unsigned long long referenceTime; /* ns */
    unsigned long long violationTime; /* ns */
} nvmlViolationTime_t;

/* nvmlEventSetWait_v2 fills all 32 bytes; the legacy nvmlEventSetWait fills
 * only the first 24 (device, eventType, eventData). */
typedef struct nvmlEventData_st {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData; /* Xid number for XidCriticalError */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

/* ------------------------------------------------------------------ GPM */

/* GPU Performance Monitoring (Hopper and later), fact sheet §2.19.  A
 * sample is an opaque buffer owned by the library; nvmlGpmMetricsGet
 * computes metrics over the interval between two samples. */
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

#define NVML_GPM_SUPPORT_VERSION 1     /* a plain integer, not NVML_STRUCT_VERSION */
#define NVML_GPM_METRICS_GET_VERSION 1 /* a plain integer: it does not encode the size */

typedef struct nvmlGpmSupport_st {
    unsigned int version; /* NVML_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

typedef struct nvmlGpmMetric_st {
    unsigned int metricId;   /* in: NVML_GPM_METRIC_* */
    nvmlReturn_t nvmlReturn; /* out: this metric's own status */
    double value;            /* out */
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo; /* out, may be NULL */
} nvmlGpmMetric_t;

/* NVML_GPM_METRIC_MAX differs between NVIDIA's headers: 98 (12.0-12.8,
 * pynvml 12.560), 210 (12.9/13.0), 333 (13.3).  The library reads and writes
 * only metrics[0 .. numMetrics-1], so a client picks its own array length;
 * ours is the 12.x one (3944 bytes), enough for the metrics gpumon asks. */
#define NVML_GPM_METRIC_MAX_V12 98
typedef struct nvmlGpmMetricsGet_st {
    unsigned int version;    /* NVML_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics; /* in: entries of metrics[] used */
    nvmlGpmSample_t sample1; /* in: the earlier sample */
    nvmlGpmSample_t sample2; /* in: the later sample */
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX_V12];
} nvmlGpmMetricsGet_t;

/* Metric ids (nvml.h nvmlGpmMetricId_t): utilisations are percent (0-100),
 * the *_PER_SEC ones MiB/s. */
#define NVML_GPM_METRIC_GRAPHICS_UTIL 1
#define NVML_GPM_METRIC_SM_UTIL 2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
#define NVML_GPM_METRIC_INTEGER_UTIL 4
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5
#define NVML_GPM_METRIC_DFMA_TENSOR_UTIL 6
#define NVML_GPM_METRIC_HMMA_TENSOR_UTIL 7
#define NVML_GPM_METRIC_IMMA_TENSOR_UTIL 9
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10
#define NVML_GPM_METRIC_FP64_UTIL 11
#define NVML_GPM_METRIC_FP32_UTIL 12
#define NVML_GPM_METRIC_FP16_UTIL 13
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21
#define NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC 60
#define NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC 61

/* ------------------------------------------------------------- functions */

/* Init, shutdown, errors, system. */
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length);

/* Enumeration. */
nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);

/* Identity. */
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length);
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber,
                                          unsigned int length);
nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type);
nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length);

/* Modes. */
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode);
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode);
nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *display);
nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *isActive);
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState);

/* Utilization. */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type,
                                  unsigned long long lastSeenTimeStamp,
                                  nvmlValueType_t *sampleValType, unsigned int *sampleCount,
                                  nvmlSample_t *samples);

/* Memory. */
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory);

/* Temperature. */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType,
                                      unsigned int *temp);
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature);
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device,
                                               nvmlTemperatureThresholds_t thresholdType,
                                               unsigned int *temp);

/* Power and energy (mW, mJ). */
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit);
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device,
                                                      unsigned int *defaultLimit);
nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device,
                                                          unsigned int *minLimit,
                                                          unsigned int *maxLimit);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);

/* Clocks (MHz), fan, clock event reasons, violations. */
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                       unsigned int *clock);
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed);
nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed);
nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                    unsigned long long *clocksEventReasons);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long *clocksThrottleReasons);
nvmlReturn_t
nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device,
                                         unsigned long long *supportedClocksEventReasons);
nvmlReturn_t
nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t device,
                                            unsigned long long *supportedClocksThrottleReasons);
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
                                          nvmlViolationTime_t *violTime);

/* PCIe. */
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                         unsigned int *value);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth);
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value);

/* ECC, retired pages, remapped rows. */
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
                                  nvmlEnableState_t *pending);
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long *eccCounts);
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                       unsigned int *pageCount, unsigned long long *addresses);
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device,
                                                    nvmlEnableState_t *isPending);
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
                                       unsigned int *uncRows, unsigned int *isPending,
                                       unsigned int *failureOccurred);

/* Field values. */
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t *values);

/* MIG. */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                  unsigned int *pendingMode);
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                 nvmlDevice_t *migDevice);
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
                                                          nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice);

/* Processes.  The symbol fixes the element stride: v1 16 bytes, _v2/_v3 24. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_v1_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                   nvmlProcessInfo_v1_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v1_t *infos);
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t device,
                                                        unsigned int *infoCount,
                                                        nvmlProcessInfo_v2_t *infos);
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device,
                                                        unsigned int *infoCount,
                                                        nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                             nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *processSamplesCount,
                                             unsigned long long lastSeenTimeStamp);

/* Events. */
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                      nvmlEventSet_t set);
nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);

/* GPM (Hopper and later). */
nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport);
nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample);
nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId,
                                 nvmlGpmSample_t gpmSample);
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet);
/* Streaming: declared for the simulator, which exports them; gpumon does not call them. */
nvmlReturn_t nvmlGpmQueryIfStreamingEnabled(nvmlDevice_t device, unsigned int *state);
nvmlReturn_t nvmlGpmSetStreamingEnabled(nvmlDevice_t device, unsigned int state);

/* The queries behind nvidia-smi's remaining --query-gpu fields (issue 14):
 * application clocks, power management, driver model, GPU operation mode,
 * accounting, encoder sessions, inforom, row-remapper histogram, fabric,
 * ECC by location, the GPU's own PCIe generation.  Enums passed by value
 * are unsigned int (the same type at the ABI level). */
typedef struct {
    unsigned int max, high, partial, low, none;
} nvmlRowRemapperHistogramValues_t;

/* nvmlGpuFabricInfo_v2_t (R550+) and v3 (nvmlGpuFabricInfoV_t of current
 * headers: healthSummary appended, R570+).  A driver older than v3 answers
 * NVML_ERROR_ARGUMENT_VERSION_MISMATCH to it; the reader then asks for v2. */
typedef struct {
    unsigned int version; /* nvmlGpuFabricInfo_v2, 0x02000024 */
    char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state; /* 0 not supported, 1 not started, 2 in progress, 3 completed */
    unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
#define nvmlGpuFabricInfo_v2 (unsigned int)(sizeof(nvmlGpuFabricInfo_v2_t) | (2U << 24))
typedef struct {
    unsigned int version; /* nvmlGpuFabricInfo_v3, 0x03000028 */
    char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
    unsigned int healthMask;     /* NVML_GPU_FABRIC_HEALTH_MASK_* fields, below */
    unsigned char healthSummary; /* NVML_GPU_FABRIC_HEALTH_SUMMARY_*: 0 not supported, 1 healthy,
                                  * 2 unhealthy, 3 limited capacity */
} nvmlGpuFabricInfoV_t;
#define nvmlGpuFabricInfo_v3 (unsigned int)(sizeof(nvmlGpuFabricInfoV_t) | (3U << 24))
/* healthMask: (mask >> SHIFT) & WIDTH; 0 is "not supported" in every field.
 * Degraded bandwidth, route recovery, route unhealthy, access timeout
 * recovery and partition assigned: 1 true, 2 false.  Incorrect
 * configuration: 1 none, 2 SysGUID, 3 chassis serial number, 4 no
 * partition, 5 insufficient NVLinks, 6 incompatible GPU firmware, 7 invalid
 * location, 8 GPU state invalid. */
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW 0
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY 2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY 4
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY 6
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION 8
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED 12
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_2BIT 0x3 /* all but incorrect configuration */
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION 0xf

#define NVML_INFOROM_OEM 0
#define NVML_INFOROM_ECC 1
#define NVML_INFOROM_POWER 2
#define NVML_MEMORY_LOCATION_DRAM 2
#define NVML_MEMORY_LOCATION_SRAM 7
#define NVML_MEMORY_LOCATION_L1_CACHE 0
#define NVML_MEMORY_LOCATION_L2_CACHE 1
#define NVML_MEMORY_LOCATION_REGISTER_FILE 3
#define NVML_MEMORY_LOCATION_TEXTURE_MEMORY 4
#define NVML_MEMORY_LOCATION_CBU 6
/* nvmlFieldValue_t.scopeId of the power fields 185-192 (nvmlPowerScopeType_t) */
#define NVML_POWER_SCOPE_MODULE 1

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                            unsigned int *clockMHz);
nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType,
                                                   unsigned int *clockMHz);
nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, unsigned int *mode);
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, unsigned int *current,
                                         unsigned int *pending);
nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, unsigned int *current,
                                      unsigned int *pending);
nvmlReturn_t nvmlDeviceGetGpuOperationMode(nvmlDevice_t device, unsigned int *current,
                                           unsigned int *pending);
nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode);
/* Per-process accounting (src/source/accounting.c): a process's lifetime
 * statistics, 56 bytes; utilisation NVML_VALUE_NOT_AVAILABLE (0xFFFFFFFF)
 * and memory ~0ULL when unknown; time 0 while the process runs. */
typedef struct nvmlAccountingStats_st {
    unsigned int gpuUtilization;       /* % of the process's life a kernel ran */
    unsigned int memoryUtilization;    /* % of its life memory was read or written */
    unsigned long long maxMemoryUsage; /* bytes */
    unsigned long long time;           /* ms the context was active, once ended */
    unsigned long long startTime;      /* CPU time stamp, us */
    unsigned int isRunning;
    unsigned int reserved[5];
} nvmlAccountingStats_t;
nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t device, unsigned int *count,
                                         unsigned int *pids);
nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned int pid,
                                          nvmlAccountingStats_t *stats);
nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int *bufferSize);
nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount,
                                       unsigned int *averageFps, unsigned int *averageLatency);
nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, unsigned int object, char *version,
                                         unsigned int length);
nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version,
                                              unsigned int length);
nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device,
                                               nvmlRowRemapperHistogramValues_t *values);
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo);
nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                             nvmlEccCounterType_t counterType,
                                             unsigned int locationType, unsigned long long *count);

/* Degrees below the temperature where the GPU starts slowing down
 * (nvidia-smi's temperature.gpu.tlimit, "GPU T.Limit Temp"). */
typedef struct {
    unsigned int version; /* nvmlMarginTemperature_v1 */
    int marginTemperature;
} nvmlMarginTemperature_t;
#define nvmlMarginTemperature_v1 (unsigned int)(sizeof(nvmlMarginTemperature_t) | (1U << 24))
nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device,
                                            nvmlMarginTemperature_t *marginTempInfo);

/* NVLink (issue 14): per-link state and error counters; throughput comes
 * from field values 138/139 with scopeId UINT_MAX (all links, KiB). */
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      unsigned int *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                             unsigned int counter, unsigned long long *value);
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
                                        unsigned int *version);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                 nvmlPciInfo_t *pci);

/* nvidia-smi 570-595 --query-gpu fields (issue 28 point 8); the simulator
 * implements these too (sim/). */
nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t device, unsigned int *utilization,
                                         unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t device, unsigned int *utilization,
                                         unsigned int *samplingPeriodUs);
/* nvmlPciInfoExt_v1_t (64 bytes): the PCI class codes nvmlPciInfo_t lacks */
typedef struct {
    unsigned int version; /* nvmlPciInfoExt_v1, 0x01000040 */
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId, baseClass, subClass;
    char busId[32];
} nvmlPciInfoExt_t;
#define nvmlPciInfoExt_v1 (unsigned int)(sizeof(nvmlPciInfoExt_t) | (1U << 24))
nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_t *pci);
nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int *isEnabled,
                                          unsigned int *defaultMode);
nvmlReturn_t nvmlDeviceGetConfComputeProtectedMemoryUsage(nvmlDevice_t device,
                                                          nvmlMemory_t *memory);
/* nvmlEccSramErrorStatus_v1_t (104 bytes on LP64) */
typedef struct {
    unsigned int version; /* nvmlEccSramErrorStatus_v1, 0x01000068 */
    unsigned long long aggregateUncParity;
    unsigned long long aggregateUncSecDed;
    unsigned long long aggregateCor;
    unsigned long long volatileUncParity;
    unsigned long long volatileUncSecDed;
    unsigned long long volatileCor;
    unsigned long long aggregateUncBucketL2;
    unsigned long long aggregateUncBucketSm;
    unsigned long long aggregateUncBucketPcie;
    unsigned long long aggregateUncBucketMcu;
    unsigned long long aggregateUncBucketOther;
    unsigned int bThresholdExceeded;
} nvmlEccSramErrorStatus_t;
#define nvmlEccSramErrorStatus_v1 (unsigned int)(sizeof(nvmlEccSramErrorStatus_t) | (1U << 24))
nvmlReturn_t nvmlDeviceGetSramEccErrorStatus(nvmlDevice_t device, nvmlEccSramErrorStatus_t *status);
nvmlReturn_t nvmlDeviceValidateInforom(nvmlDevice_t device);
/* nvmlDeviceAddressingMode_v1_t: value is nvmlDeviceAddressingModeType_t,
 * 0 none, 1 HMM, 2 ATS (Turing and later, Linux) */
typedef struct {
    unsigned int version; /* nvmlDeviceAddressingMode_v1, 0x01000008 */
    unsigned int value;
} nvmlDeviceAddressingMode_t;
#define nvmlDeviceAddressingMode_v1 (unsigned int)(sizeof(nvmlDeviceAddressingMode_t) | (1U << 24))
nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t *mode);
/* nvmlC2cModeInfo_v1_t: no version word. */
typedef struct {
    unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;
nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *c2cModeInfo);
/* nvmlDramEncryptionInfo_v1_t (R570+, Blackwell and later): encryptionState
 * is an nvmlEnableState_t */
typedef struct {
    unsigned int version; /* nvmlDramEncryptionInfo_v1, 0x01000008 */
    unsigned int encryptionState;
} nvmlDramEncryptionInfo_t;
#define nvmlDramEncryptionInfo_v1 (unsigned int)(sizeof(nvmlDramEncryptionInfo_t) | (1U << 24))
nvmlReturn_t nvmlDeviceGetDramEncryptionMode(nvmlDevice_t device, nvmlDramEncryptionInfo_t *current,
                                             nvmlDramEncryptionInfo_t *pending);
/* nvmlHostname_v1_t (R580+, Blackwell and later): a name kept per GPU, NUL
 * terminated in NVML_DEVICE_HOSTNAME_BUFFER_SIZE (64) bytes; no version word */
#define NVML_DEVICE_HOSTNAME_BUFFER_SIZE 64
typedef struct {
    char value[NVML_DEVICE_HOSTNAME_BUFFER_SIZE];
} nvmlHostname_v1_t;
nvmlReturn_t nvmlDeviceGetHostname_v1(nvmlDevice_t device, nvmlHostname_v1_t *hostname);
/* nvmlPlatformInfo_v2_t (R570+, "Blackwell or newer fully supported
 * devices"): where the GPU sits in a rack-scale system.  ibGuid holds 8
 * bytes and chassisSerialNumber 13 on Blackwell (the rest zero); v1 had
 * rackGuid where v2 has the chassis serial number. */
typedef struct {
    unsigned int version; /* nvmlPlatformInfo_v2, 0x0200002C */
    unsigned char ibGuid[16];
    unsigned char chassisSerialNumber[16];
    unsigned char slotNumber; /* in the chassis, switches included */
    unsigned char trayIndex;  /* among the compute slots, switches not included */
    unsigned char hostId;     /* index of the node within the slot */
    unsigned char peerType;   /* NVLink peer type (switch present or not) */
    unsigned char moduleId;   /* the GPU within the node */
} nvmlPlatformInfo_t;
#define nvmlPlatformInfo_v2 (unsigned int)(sizeof(nvmlPlatformInfo_t) | (2U << 24))
nvmlReturn_t nvmlDeviceGetPlatformInfo(nvmlDevice_t device, nvmlPlatformInfo_t *platformInfo);
/* The GPU module's id on its baseboard (R550+; every board answers). */
nvmlReturn_t nvmlDeviceGetModuleId(nvmlDevice_t device, unsigned int *moduleId);

#endif /* GM_NVML_ABI_H */

/* names.c -- the names the simulator answers to: every exported NVML
 * function and every NVML_FI_* field id that nvmlDeviceGetFieldValues knows.
 *
 * Scenario keys refer to these names (`unsupported = nvmlDeviceGetFanSpeed`,
 * `call = nvmlDeviceGetPowerUsage`), so the list is the single place where a
 * new entry point or field becomes addressable.  The function part mirrors
 * the prototypes in src/source/nvml_abi.h one for one; tests/unit/test_sim_abi.c
 * checks that each function listed here is exported by the built library.
 */
#include <string.h>
#include <strings.h>

#include "gpusim.h"

const struct gs_name gs_names[] = {
    {"nvmlInit", GS_NAME_FUNCTION, 0},
    {"nvmlInit_v2", GS_NAME_FUNCTION, 0},
    {"nvmlInitWithFlags", GS_NAME_FUNCTION, 0},
    {"nvmlShutdown", GS_NAME_FUNCTION, 0},
    {"nvmlErrorString", GS_NAME_FUNCTION, 0},
    {"nvmlSystemGetDriverVersion", GS_NAME_FUNCTION, 0},
    {"nvmlSystemGetNVMLVersion", GS_NAME_FUNCTION, 0},
    {"nvmlSystemGetCudaDriverVersion", GS_NAME_FUNCTION, 0},
    {"nvmlSystemGetCudaDriverVersion_v2", GS_NAME_FUNCTION, 0},
    {"nvmlSystemGetProcessName", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCount", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCount_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetHandleByIndex", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetHandleByIndex_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetHandleByUUID", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetHandleByPciBusId", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetHandleByPciBusId_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetHandleBySerial", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetIndex", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetName", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetUUID", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetSerial", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPciInfo", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPciInfo_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPciInfo_v3", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMinorNumber", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetBoardPartNumber", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetBrand", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetArchitecture", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCudaComputeCapability", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetVbiosVersion", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPersistenceMode", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetComputeMode", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetDisplayMode", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetDisplayActive", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPerformanceState", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetUtilizationRates", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetEncoderUtilization", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetDecoderUtilization", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetSamples", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMemoryInfo", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMemoryInfo_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetBAR1MemoryInfo", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetTemperature", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetTemperatureV", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetTemperatureThreshold", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPowerUsage", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetEnforcedPowerLimit", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPowerManagementLimit", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPowerManagementDefaultLimit", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPowerManagementLimitConstraints", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetTotalEnergyConsumption", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetClockInfo", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMaxClockInfo", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetClock", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetApplicationsClock", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetDefaultApplicationsClock", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetFanSpeed", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetFanSpeed_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetNumFans", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCurrentClocksEventReasons", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCurrentClocksThrottleReasons", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetSupportedClocksEventReasons", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetSupportedClocksThrottleReasons", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetViolationStatus", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPcieThroughput", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCurrPcieLinkGeneration", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetCurrPcieLinkWidth", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMaxPcieLinkGeneration", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMaxPcieLinkWidth", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetPcieReplayCounter", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetEccMode", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetTotalEccErrors", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetRetiredPages", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetRetiredPagesPendingStatus", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetRemappedRows", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetFieldValues", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMigMode", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMaxMigDeviceCount", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMigDeviceHandleByIndex", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetDeviceHandleFromMigDeviceHandle", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetGpuInstanceId", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetComputeInstanceId", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceIsMigDeviceHandle", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetComputeRunningProcesses", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetComputeRunningProcesses_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetComputeRunningProcesses_v3", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetGraphicsRunningProcesses", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetGraphicsRunningProcesses_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetGraphicsRunningProcesses_v3", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMPSComputeRunningProcesses", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMPSComputeRunningProcesses_v2", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetMPSComputeRunningProcesses_v3", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetProcessUtilization", GS_NAME_FUNCTION, 0},
    {"nvmlEventSetCreate", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceRegisterEvents", GS_NAME_FUNCTION, 0},
    {"nvmlDeviceGetSupportedEventTypes", GS_NAME_FUNCTION, 0},
    {"nvmlEventSetWait", GS_NAME_FUNCTION, 0},
    {"nvmlEventSetWait_v2", GS_NAME_FUNCTION, 0},
    {"nvmlEventSetFree", GS_NAME_FUNCTION, 0},
    {"nvmlGpmQueryDeviceSupport", GS_NAME_FUNCTION, 0},
    {"nvmlGpmSampleAlloc", GS_NAME_FUNCTION, 0},
    {"nvmlGpmSampleFree", GS_NAME_FUNCTION, 0},
    {"nvmlGpmSampleGet", GS_NAME_FUNCTION, 0},
    {"nvmlGpmMigSampleGet", GS_NAME_FUNCTION, 0},
    {"nvmlGpmMetricsGet", GS_NAME_FUNCTION, 0},
    {"nvmlGpmQueryIfStreamingEnabled", GS_NAME_FUNCTION, 0},
    {"nvmlGpmSetStreamingEnabled", GS_NAME_FUNCTION, 0},
    /* Field ids (nvmlDeviceGetFieldValues). */
    {"NVML_FI_DEV_ECC_CURRENT", GS_NAME_FIELD, 1},
    {"NVML_FI_DEV_ECC_PENDING", GS_NAME_FIELD, 2},
    {"NVML_FI_DEV_ECC_SBE_VOL_TOTAL", GS_NAME_FIELD, 3},
    {"NVML_FI_DEV_ECC_DBE_VOL_TOTAL", GS_NAME_FIELD, 4},
    {"NVML_FI_DEV_ECC_SBE_AGG_TOTAL", GS_NAME_FIELD, 5},
    {"NVML_FI_DEV_ECC_DBE_AGG_TOTAL", GS_NAME_FIELD, 6},
    {"NVML_FI_DEV_RETIRED_SBE", GS_NAME_FIELD, 29},
    {"NVML_FI_DEV_RETIRED_DBE", GS_NAME_FIELD, 30},
    {"NVML_FI_DEV_RETIRED_PENDING", GS_NAME_FIELD, 31},
    {"NVML_FI_DEV_PERF_POLICY_POWER", GS_NAME_FIELD, 74},
    {"NVML_FI_DEV_PERF_POLICY_THERMAL", GS_NAME_FIELD, 75},
    {"NVML_FI_DEV_MEMORY_TEMP", GS_NAME_FIELD, 82},
    {"NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION", GS_NAME_FIELD, 83},
    {"NVML_FI_DEV_PCIE_REPLAY_COUNTER", GS_NAME_FIELD, 94},
    {"NVML_FI_DEV_REMAPPED_COR", GS_NAME_FIELD, 142},
    {"NVML_FI_DEV_REMAPPED_UNC", GS_NAME_FIELD, 143},
    {"NVML_FI_DEV_REMAPPED_PENDING", GS_NAME_FIELD, 144},
    {"NVML_FI_DEV_REMAPPED_FAILURE", GS_NAME_FIELD, 145},
    {"NVML_FI_DEV_POWER_AVERAGE", GS_NAME_FIELD, 185},
    {"NVML_FI_DEV_POWER_INSTANT", GS_NAME_FIELD, 186},
    {"NVML_FI_DEV_ENERGY", GS_NAME_FIELD, 191},
    {"NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN", GS_NAME_FIELD, 269},
    {"NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN", GS_NAME_FIELD, 270},
    {"NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN", GS_NAME_FIELD, 271},
};

const size_t gs_name_count = sizeof(gs_names) / sizeof(gs_names[0]);

_Static_assert(sizeof(gs_names) / sizeof(gs_names[0]) <= GS_NAMES_MAX,
               "raise GS_NAMES_MAX: the unsupported bitmap is indexed by name");

int gs_name_index(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < gs_name_count; i++) {
        /* Function names are case-sensitive C symbols; field names are macros
         * and accepted in any case. */
        if (gs_names[i].kind == GS_NAME_FUNCTION ? strcmp(gs_names[i].name, name) == 0
                                                 : strcasecmp(gs_names[i].name, name) == 0)
            return (int)i;
    }
    return -1;
}

int gs_field_index(unsigned field_id)
{
    for (size_t i = 0; i < gs_name_count; i++)
        if (gs_names[i].kind == GS_NAME_FIELD && gs_names[i].field_id == field_id)
            return (int)i;
    return -1;
}

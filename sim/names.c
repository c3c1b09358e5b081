/* names.c -- the names the simulator answers to: every exported NVML
 * function and every NVML_FI_* field id that nvmlDeviceGetFieldValues knows.
 *
 * Scenario keys refer to these names (`unsupported = nvmlDeviceGetFanSpeed`,
 * `call = nvmlDeviceGetPowerUsage`), so the list is the single place where a
 * new entry point or field becomes addressable.  The functions are not kept
 * here by hand: sim/gen_names.py derives GS_DECLARED_FUNCTIONS (gs_declared.h,
 * in the build directory) from the prototypes of src/source/nvml_abi.h and
 * the sim/ ABI headers, so declaring a function makes it addressable, and
 * tests/compat/check_exports.sh (the sim-exports test) fails when the built
 * library does not export exactly the declared functions.  The field ids are
 * the simulator's own choice and listed here.
 */
#include <string.h>
#include <strings.h>

#include "gpusim.h"
#include "gs_declared.h"

/* the name is a string literal, not an expression */
/* NOLINTNEXTLINE(bugprone-macro-parentheses) */
#define GS_FUNCTION_ROW(name) {#name, GS_NAME_FUNCTION, 0},

const struct gs_name gs_names[] = {
    GS_DECLARED_FUNCTIONS(GS_FUNCTION_ROW)
    /* Field ids (nvmlDeviceGetFieldValues), the NVLink ones last. */
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
    {"NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", GS_NAME_FIELD, 230},
    {"NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE", GS_NAME_FIELD, 264},
    {"NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR", GS_NAME_FIELD, 275},
    {"NVML_FI_PWR_SMOOTHING_SECONDARY_POWER_FLOOR", GS_NAME_FIELD, 276},
    {"NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_OFFSET", GS_NAME_FIELD, 277},
    {"NVML_FI_PWR_SMOOTHING_MIN_PRIMARY_FLOOR_ACT_POINT", GS_NAME_FIELD, 278},
    {"NVML_FI_PWR_SMOOTHING_WINDOW_MULTIPLIER", GS_NAME_FIELD, 279},
    {"NVML_FI_PWR_SMOOTHING_DELAYED_PWR_SMOOTHING_SUPPORTED", GS_NAME_FIELD, 280},
    {"NVML_FI_PWR_SMOOTHING_PROFILE_SECONDARY_POWER_FLOOR", GS_NAME_FIELD, 281},
    {"NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_WIN_MULT", GS_NAME_FIELD, 282},
    {"NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_TAR_WIN_MULT", GS_NAME_FIELD, 283},
    {"NVML_FI_PWR_SMOOTHING_PROFILE_PRIMARY_FLOOR_ACT_OFFSET", GS_NAME_FIELD, 284},
    {"NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_SECONDARY_POWER_FLOOR", GS_NAME_FIELD, 285},
    {"NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_WIN_MULT", GS_NAME_FIELD, 286},
    {"NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_TAR_WIN_MULT", GS_NAME_FIELD, 287},
    {"NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PRIMARY_FLOOR_ACT_OFFSET", GS_NAME_FIELD, 288},
    {"NVML_FI_DEV_EDPP_MULTIPLIER", GS_NAME_FIELD, 274},
    {"NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE", GS_NAME_FIELD, 301},
    {"NVML_FI_DEV_REMAPPED_ROWS_UNC_INACTIVE", GS_NAME_FIELD, 302},
    {"NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON", GS_NAME_FIELD, 90},
    {"NVML_FI_DEV_NVLINK_LINK_COUNT", GS_NAME_FIELD, 91},
    {"NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX", GS_NAME_FIELD, 138},
    {"NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX", GS_NAME_FIELD, 139},
    {"NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX", GS_NAME_FIELD, 140},
    {"NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX", GS_NAME_FIELD, 141},
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

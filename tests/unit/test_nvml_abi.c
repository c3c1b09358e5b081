/* test_nvml_abi.c -- pins src/source/nvml_abi.h to NVIDIA's NVML C ABI.
 *
 * gpumon declares its own subset of nvml.h; a wrong size, offset, enum value
 * or struct version constant there would make gpumon (and the simulator,
 * which shares the header) silently misread memory on a real driver.  Every
 * number below comes from shared/reference/nvml-abi.md (section in the row
 * comments), never from the header under test, so a test here fails when the
 * header drifts from NVIDIA's ABI.  LP64 (Linux x86_64/aarch64) is assumed,
 * as in the fact sheet.
 *
 * Tables: struct sizes, field offsets, struct version constants, return
 * codes, the other enums gpumon passes to NVML, clock event reason bits,
 * event type bits, field ids and string buffer sizes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "source/nvml_abi.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One row: a name for the report, the value in the header, the fact. */
struct num_row {
    const char *name;
    unsigned long long got;
    unsigned long long want;
};

/* Checks every row, reports each mismatch by name, then fails if any did. */
static void check_rows(const char *table, const struct num_row *rows, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].got != rows[i].want) {
            print_error("%s: %s is %llu (0x%llx), the ABI says %llu (0x%llx)\n", table,
                        rows[i].name, rows[i].got, rows[i].got, rows[i].want, rows[i].want);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

#define ROW(expr, want)                                                                            \
    {                                                                                              \
#expr, (unsigned long long)(expr), (unsigned long long)(want)                              \
    }

/* ------------------------------------------------------------------------ */

static void test_basic_types(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §1: the return type is a 4-byte enum, handles are pointers */
        ROW(sizeof(nvmlReturn_t), 4),
        ROW(sizeof(nvmlDevice_t), 8),
        ROW(sizeof(nvmlEventSet_t), 8),
        /* enums used inside structs must be 4 bytes too */
        ROW(sizeof(nvmlValueType_t), 4),
        ROW(sizeof(nvmlTemperatureSensors_t), 4),
        ROW(sizeof(nvmlEnableState_t), 4),
        ROW(sizeof(nvmlPstates_t), 4),
        ROW(sizeof(nvmlComputeMode_t), 4),
    };
    check_rows("basic types", rows, N_ELEM(rows));
}

static void test_struct_sizes(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        ROW(sizeof(nvmlPciInfo_t), 68),                  /* §2.4 */
        ROW(_Alignof(nvmlPciInfo_t), 4),                 /* §2.4 "align 4" */
        ROW(sizeof(nvmlMemory_t), 24),                   /* §2.6 */
        ROW(sizeof(nvmlMemory_v2_t), 40),                /* §1.2, §2.6 */
        ROW(sizeof(nvmlBAR1Memory_t), 24),               /* §2.6 */
        ROW(sizeof(nvmlUtilization_t), 8),               /* §2.5 */
        ROW(sizeof(nvmlTemperature_v1_t), 12),           /* §1.2, §2.7 */
        ROW(sizeof(nvmlTemperature_t), 12),              /* §2.7 */
        ROW(sizeof(nvmlProcessInfo_v1_t), 16),           /* §2.15 */
        ROW(sizeof(nvmlProcessInfo_v2_t), 24),           /* §2.15 */
        ROW(sizeof(nvmlProcessInfo_t), 24),              /* §2.15: _v3 stride */
        ROW(sizeof(nvmlProcessUtilizationSample_t), 32), /* §2.16 */
        ROW(sizeof(nvmlValue_t), 8),                     /* §2.5 */
        ROW(sizeof(nvmlSample_t), 16),                   /* §2.5 */
        ROW(sizeof(nvmlFieldValue_t), 40),               /* §2.18 */
        ROW(sizeof(nvmlEventData_t), 32),                /* §2.17 */
        ROW(sizeof(nvmlViolationTime_t), 16),            /* two u64 ns counters */
    };
    check_rows("struct sizes", rows, N_ELEM(rows));
}

static void test_field_offsets(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §2.4 nvmlPciInfo_t */
        ROW(offsetof(nvmlPciInfo_t, busIdLegacy), 0),
        ROW(sizeof(((nvmlPciInfo_t *)0)->busIdLegacy), 16),
        ROW(offsetof(nvmlPciInfo_t, domain), 16),
        ROW(offsetof(nvmlPciInfo_t, bus), 20),
        ROW(offsetof(nvmlPciInfo_t, device), 24),
        ROW(offsetof(nvmlPciInfo_t, pciDeviceId), 28),
        ROW(offsetof(nvmlPciInfo_t, pciSubSystemId), 32),
        ROW(offsetof(nvmlPciInfo_t, busId), 36),
        ROW(sizeof(((nvmlPciInfo_t *)0)->busId), 32),
        /* §2.6 nvmlMemory_t */
        ROW(offsetof(nvmlMemory_t, total), 0),
        ROW(offsetof(nvmlMemory_t, free), 8),
        ROW(offsetof(nvmlMemory_t, used), 16),
        /* §2.6 nvmlMemory_v2_t: 4 bytes of padding after version */
        ROW(offsetof(nvmlMemory_v2_t, version), 0),
        ROW(offsetof(nvmlMemory_v2_t, total), 8),
        ROW(offsetof(nvmlMemory_v2_t, reserved), 16),
        ROW(offsetof(nvmlMemory_v2_t, free), 24),
        ROW(offsetof(nvmlMemory_v2_t, used), 32),
        /* §2.6 nvmlBAR1Memory_t */
        ROW(offsetof(nvmlBAR1Memory_t, bar1Total), 0),
        ROW(offsetof(nvmlBAR1Memory_t, bar1Free), 8),
        ROW(offsetof(nvmlBAR1Memory_t, bar1Used), 16),
        /* §2.5 nvmlUtilization_t */
        ROW(offsetof(nvmlUtilization_t, gpu), 0),
        ROW(offsetof(nvmlUtilization_t, memory), 4),
        /* §2.7 nvmlTemperature_v1_t */
        ROW(offsetof(nvmlTemperature_v1_t, version), 0),
        ROW(offsetof(nvmlTemperature_v1_t, sensorType), 4),
        ROW(offsetof(nvmlTemperature_v1_t, temperature), 8),
        /* §2.15 process info */
        ROW(offsetof(nvmlProcessInfo_v1_t, pid), 0),
        ROW(offsetof(nvmlProcessInfo_v1_t, usedGpuMemory), 8),
        ROW(offsetof(nvmlProcessInfo_v2_t, pid), 0),
        ROW(offsetof(nvmlProcessInfo_v2_t, usedGpuMemory), 8),
        ROW(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId), 16),
        ROW(offsetof(nvmlProcessInfo_v2_t, computeInstanceId), 20),
        /* §2.16 nvmlProcessUtilizationSample_t */
        ROW(offsetof(nvmlProcessUtilizationSample_t, pid), 0),
        ROW(offsetof(nvmlProcessUtilizationSample_t, timeStamp), 8),
        ROW(offsetof(nvmlProcessUtilizationSample_t, smUtil), 16),
        ROW(offsetof(nvmlProcessUtilizationSample_t, memUtil), 20),
        ROW(offsetof(nvmlProcessUtilizationSample_t, encUtil), 24),
        ROW(offsetof(nvmlProcessUtilizationSample_t, decUtil), 28),
        /* §2.5 nvmlSample_t */
        ROW(offsetof(nvmlSample_t, timeStamp), 0),
        ROW(offsetof(nvmlSample_t, sampleValue), 8),
        /* §2.18 nvmlFieldValue_t */
        ROW(offsetof(nvmlFieldValue_t, fieldId), 0),
        ROW(offsetof(nvmlFieldValue_t, scopeId), 4),
        ROW(offsetof(nvmlFieldValue_t, timestamp), 8),
        ROW(offsetof(nvmlFieldValue_t, latencyUsec), 16),
        ROW(offsetof(nvmlFieldValue_t, valueType), 24),
        ROW(offsetof(nvmlFieldValue_t, nvmlReturn), 28),
        ROW(offsetof(nvmlFieldValue_t, value), 32),
        /* §2.17 nvmlEventData_t */
        ROW(offsetof(nvmlEventData_t, device), 0),
        ROW(offsetof(nvmlEventData_t, eventType), 8),
        ROW(offsetof(nvmlEventData_t, eventData), 16),
        ROW(offsetof(nvmlEventData_t, gpuInstanceId), 24),
        ROW(offsetof(nvmlEventData_t, computeInstanceId), 28),
        /* nvmlViolationTime_t */
        ROW(offsetof(nvmlViolationTime_t, referenceTime), 0),
        ROW(offsetof(nvmlViolationTime_t, violationTime), 8),
    };
    check_rows("field offsets", rows, N_ELEM(rows));
}

/* The union's members all start at 0 and the wide ones fill it: a value
 * written through one member reads back through the same bytes. */
static void test_value_union(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        ROW(offsetof(nvmlValue_t, dVal), 0),        ROW(offsetof(nvmlValue_t, siVal), 0),
        ROW(offsetof(nvmlValue_t, uiVal), 0),       ROW(offsetof(nvmlValue_t, ulVal), 0),
        ROW(offsetof(nvmlValue_t, ullVal), 0),      ROW(offsetof(nvmlValue_t, sllVal), 0),
        ROW(offsetof(nvmlValue_t, usVal), 0),       ROW(sizeof(((nvmlValue_t *)0)->ulVal), 8),
        ROW(sizeof(((nvmlValue_t *)0)->ullVal), 8), ROW(sizeof(((nvmlValue_t *)0)->usVal), 2),
    };
    check_rows("nvmlValue_t", rows, N_ELEM(rows));
}

static void test_struct_versions(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §1.2: the nvmlMemory_v2 constant other clients got wrong (2, not 0x02000028) */
        ROW(nvmlMemory_v2, 0x02000028),
        ROW(nvmlTemperature_v1, 0x0100000C),
        /* the macro itself: sizeof | (ver << 24), for a struct of a known size */
        ROW(NVML_STRUCT_VERSION_OF(nvmlPciInfo_t, 1), 0x01000044),
        ROW(NVML_STRUCT_VERSION_OF(nvmlFieldValue_t, 3), 0x03000028),
    };
    check_rows("struct versions", rows, N_ELEM(rows));
    /* The constant has the type nvml.h gives it (an unsigned int), so it
     * compares equal to what a caller stores in the version field. */
    nvmlMemory_v2_t m = {.version = nvmlMemory_v2};
    assert_true(m.version == 0x02000028u);
    assert_int_equal(sizeof(nvmlMemory_v2), sizeof(unsigned int));
}

static void test_return_codes(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §3, all of them */
        ROW(NVML_SUCCESS, 0),
        ROW(NVML_ERROR_UNINITIALIZED, 1),
        ROW(NVML_ERROR_INVALID_ARGUMENT, 2),
        ROW(NVML_ERROR_NOT_SUPPORTED, 3),
        ROW(NVML_ERROR_NO_PERMISSION, 4),
        ROW(NVML_ERROR_ALREADY_INITIALIZED, 5),
        ROW(NVML_ERROR_NOT_FOUND, 6),
        ROW(NVML_ERROR_INSUFFICIENT_SIZE, 7),
        ROW(NVML_ERROR_INSUFFICIENT_POWER, 8),
        ROW(NVML_ERROR_DRIVER_NOT_LOADED, 9),
        ROW(NVML_ERROR_TIMEOUT, 10),
        ROW(NVML_ERROR_IRQ_ISSUE, 11),
        ROW(NVML_ERROR_LIBRARY_NOT_FOUND, 12),
        ROW(NVML_ERROR_FUNCTION_NOT_FOUND, 13),
        ROW(NVML_ERROR_CORRUPTED_INFOROM, 14),
        ROW(NVML_ERROR_GPU_IS_LOST, 15),
        ROW(NVML_ERROR_RESET_REQUIRED, 16),
        ROW(NVML_ERROR_OPERATING_SYSTEM, 17),
        ROW(NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18),
        ROW(NVML_ERROR_IN_USE, 19),
        ROW(NVML_ERROR_MEMORY, 20),
        ROW(NVML_ERROR_NO_DATA, 21),
        ROW(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, 22),
        ROW(NVML_ERROR_INSUFFICIENT_RESOURCES, 23),
        ROW(NVML_ERROR_FREQ_NOT_SUPPORTED, 24),
        ROW(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, 25),
        ROW(NVML_ERROR_DEPRECATED, 26),
        ROW(NVML_ERROR_NOT_READY, 27),
        ROW(NVML_ERROR_GPU_NOT_FOUND, 28),
        ROW(NVML_ERROR_INVALID_STATE, 29),
        ROW(NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, 30),
        ROW(NVML_ERROR_UNKNOWN, 999),
    };
    check_rows("nvmlReturn_t", rows, N_ELEM(rows));
}

static void test_enums(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §2.13 */
        ROW(NVML_FEATURE_DISABLED, 0),
        ROW(NVML_FEATURE_ENABLED, 1),
        ROW(NVML_COMPUTEMODE_DEFAULT, 0),
        ROW(NVML_COMPUTEMODE_EXCLUSIVE_THREAD, 1),
        ROW(NVML_COMPUTEMODE_PROHIBITED, 2),
        ROW(NVML_COMPUTEMODE_EXCLUSIVE_PROCESS, 3),
        /* §2.10 */
        ROW(NVML_PSTATE_0, 0),
        ROW(NVML_PSTATE_15, 15),
        ROW(NVML_PSTATE_UNKNOWN, 32),
        /* §2.7 */
        ROW(NVML_TEMPERATURE_GPU, 0),
        ROW(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 0),
        ROW(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, 1),
        ROW(NVML_TEMPERATURE_THRESHOLD_MEM_MAX, 2),
        ROW(NVML_TEMPERATURE_THRESHOLD_GPU_MAX, 3),
        ROW(NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN, 4),
        ROW(NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR, 5),
        ROW(NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX, 6),
        ROW(NVML_TEMPERATURE_THRESHOLD_GPS_CURR, 7),
        ROW(NVML_TEMPERATURE_THRESHOLD_COUNT, 8),
        /* §2.9 */
        ROW(NVML_CLOCK_GRAPHICS, 0),
        ROW(NVML_CLOCK_SM, 1),
        ROW(NVML_CLOCK_MEM, 2),
        ROW(NVML_CLOCK_VIDEO, 3),
        ROW(NVML_CLOCK_COUNT, 4),
        /* §2.11 */
        ROW(NVML_PCIE_UTIL_TX_BYTES, 0),
        ROW(NVML_PCIE_UTIL_RX_BYTES, 1),
        /* §2.12 */
        ROW(NVML_MEMORY_ERROR_TYPE_CORRECTED, 0),
        ROW(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, 1),
        ROW(NVML_VOLATILE_ECC, 0),
        ROW(NVML_AGGREGATE_ECC, 1),
        ROW(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, 0),
        ROW(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, 1),
        /* §2.5 */
        ROW(NVML_TOTAL_POWER_SAMPLES, 0),
        ROW(NVML_GPU_UTILIZATION_SAMPLES, 1),
        ROW(NVML_MEMORY_UTILIZATION_SAMPLES, 2),
        ROW(NVML_ENC_UTILIZATION_SAMPLES, 3),
        ROW(NVML_DEC_UTILIZATION_SAMPLES, 4),
        ROW(NVML_PROCESSOR_CLK_SAMPLES, 5),
        ROW(NVML_MEMORY_CLK_SAMPLES, 6),
        ROW(NVML_VALUE_TYPE_DOUBLE, 0),
        ROW(NVML_VALUE_TYPE_UNSIGNED_INT, 1),
        ROW(NVML_VALUE_TYPE_UNSIGNED_LONG, 2),
        ROW(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, 3),
        ROW(NVML_VALUE_TYPE_SIGNED_LONG_LONG, 4),
        ROW(NVML_VALUE_TYPE_SIGNED_INT, 5),
        ROW(NVML_VALUE_TYPE_UNSIGNED_SHORT, 6),
        /* nvml.h nvmlPerfPolicyType_t (nvmlDeviceGetViolationStatus) */
        ROW(NVML_PERF_POLICY_POWER, 0),
        ROW(NVML_PERF_POLICY_THERMAL, 1),
        ROW(NVML_PERF_POLICY_SYNC_BOOST, 2),
        ROW(NVML_PERF_POLICY_BOARD_LIMIT, 3),
        ROW(NVML_PERF_POLICY_LOW_UTILIZATION, 4),
        ROW(NVML_PERF_POLICY_RELIABILITY, 5),
        /* §2.14 */
        ROW(NVML_DEVICE_MIG_DISABLE, 0),
        ROW(NVML_DEVICE_MIG_ENABLE, 1),
        /* §2.1 */
        ROW(NVML_INIT_FLAG_NO_GPUS, 1),
        ROW(NVML_INIT_FLAG_NO_ATTACH, 2),
    };
    check_rows("enums", rows, N_ELEM(rows));
}

static void test_gpm(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §2.19 */
        ROW(sizeof(nvmlGpmSample_t), 8),
        ROW(sizeof(nvmlGpmSupport_t), 8),
        ROW(offsetof(nvmlGpmSupport_t, version), 0),
        ROW(offsetof(nvmlGpmSupport_t, isSupportedDevice), 4),
        ROW(NVML_GPM_SUPPORT_VERSION, 1),
        ROW(sizeof(nvmlGpmMetric_t), 40),
        ROW(offsetof(nvmlGpmMetric_t, metricId), 0),
        ROW(offsetof(nvmlGpmMetric_t, nvmlReturn), 4),
        ROW(offsetof(nvmlGpmMetric_t, value), 8),
        ROW(offsetof(nvmlGpmMetric_t, metricInfo), 16),
        ROW(offsetof(nvmlGpmMetric_t, metricInfo.shortName), 16),
        ROW(offsetof(nvmlGpmMetric_t, metricInfo.longName), 24),
        ROW(offsetof(nvmlGpmMetric_t, metricInfo.unit), 32),
        ROW(NVML_GPM_METRICS_GET_VERSION, 1),
        ROW(offsetof(nvmlGpmMetricsGet_t, version), 0),
        ROW(offsetof(nvmlGpmMetricsGet_t, numMetrics), 4),
        ROW(offsetof(nvmlGpmMetricsGet_t, sample1), 8),
        ROW(offsetof(nvmlGpmMetricsGet_t, sample2), 16),
        ROW(offsetof(nvmlGpmMetricsGet_t, metrics), 24),
        /* the 12.x header's NVML_GPM_METRIC_MAX = 98: 3944 bytes, as pynvml 12.560 */
        ROW(NVML_GPM_METRIC_MAX_V12, 98),
        ROW(sizeof(nvmlGpmMetricsGet_t), 3944),
        ROW(NVML_GPM_METRIC_GRAPHICS_UTIL, 1),
        ROW(NVML_GPM_METRIC_SM_UTIL, 2),
        ROW(NVML_GPM_METRIC_SM_OCCUPANCY, 3),
        ROW(NVML_GPM_METRIC_INTEGER_UTIL, 4),
        ROW(NVML_GPM_METRIC_ANY_TENSOR_UTIL, 5),
        ROW(NVML_GPM_METRIC_DFMA_TENSOR_UTIL, 6),
        ROW(NVML_GPM_METRIC_HMMA_TENSOR_UTIL, 7),
        ROW(NVML_GPM_METRIC_IMMA_TENSOR_UTIL, 9),
        ROW(NVML_GPM_METRIC_DRAM_BW_UTIL, 10),
        ROW(NVML_GPM_METRIC_FP64_UTIL, 11),
        ROW(NVML_GPM_METRIC_FP32_UTIL, 12),
        ROW(NVML_GPM_METRIC_FP16_UTIL, 13),
        ROW(NVML_GPM_METRIC_PCIE_TX_PER_SEC, 20),
        ROW(NVML_GPM_METRIC_PCIE_RX_PER_SEC, 21),
        ROW(NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, 60),
        ROW(NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, 61),
    };
    check_rows("GPM", rows, N_ELEM(rows));
}

static void test_sentinels(void **state)
{
    (void)state;
    /* §1: NVML_VALUE_NOT_AVAILABLE is (-1); in a u64 field it reads all ones */
    assert_int_equal(NVML_VALUE_NOT_AVAILABLE, -1);
    assert_true(NVML_VALUE_NOT_AVAILABLE_ULL == UINT64_MAX);
    assert_true((unsigned long long)NVML_VALUE_NOT_AVAILABLE == NVML_VALUE_NOT_AVAILABLE_ULL);
}

static void test_clock_event_reasons(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §2.10 */
        ROW(nvmlClocksEventReasonNone, 0x0),
        ROW(nvmlClocksEventReasonGpuIdle, 0x1),
        ROW(nvmlClocksEventReasonApplicationsClocksSetting, 0x2),
        ROW(nvmlClocksEventReasonSwPowerCap, 0x4),
        ROW(nvmlClocksThrottleReasonHwSlowdown, 0x8),
        ROW(nvmlClocksEventReasonSyncBoost, 0x10),
        ROW(nvmlClocksEventReasonSwThermalSlowdown, 0x20),
        ROW(nvmlClocksThrottleReasonHwThermalSlowdown, 0x40),
        ROW(nvmlClocksThrottleReasonHwPowerBrakeSlowdown, 0x80),
        ROW(nvmlClocksEventReasonDisplayClockSetting, 0x100),
        ROW(nvmlClocksEventReasonAll, 0x1FF),
    };
    check_rows("clock event reasons", rows, N_ELEM(rows));
    /* "All" is exactly the union of the nine reasons */
    unsigned long long all = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++)
        if (rows[i].want != 0x1FF)
            all |= rows[i].got;
    assert_true(all == nvmlClocksEventReasonAll);
}

static void test_event_types(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §2.17 */
        ROW(nvmlEventTypeNone, 0x0),
        ROW(nvmlEventTypeSingleBitEccError, 0x1),
        ROW(nvmlEventTypeDoubleBitEccError, 0x2),
        ROW(nvmlEventTypePState, 0x4),
        ROW(nvmlEventTypeXidCriticalError, 0x8),
        ROW(nvmlEventTypeClock, 0x10),
    };
    check_rows("event types", rows, N_ELEM(rows));
}

static void test_field_ids(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §2.18 */
        ROW(NVML_FI_DEV_ECC_CURRENT, 1),          ROW(NVML_FI_DEV_ECC_PENDING, 2),
        ROW(NVML_FI_DEV_MEMORY_TEMP, 82),         ROW(NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, 83),
        ROW(NVML_FI_DEV_PCIE_REPLAY_COUNTER, 94), ROW(NVML_FI_DEV_POWER_AVERAGE, 185),
        ROW(NVML_FI_DEV_POWER_INSTANT, 186),
    };
    check_rows("field ids", rows, N_ELEM(rows));
}

static void test_buffer_sizes(void **state)
{
    (void)state;
    static const struct num_row rows[] = {
        /* §1.3 */
        ROW(NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, 32),
        ROW(NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE, 16),
        ROW(NVML_DEVICE_UUID_BUFFER_SIZE, 80),
        ROW(NVML_DEVICE_UUID_V2_BUFFER_SIZE, 96),
        ROW(NVML_DEVICE_NAME_BUFFER_SIZE, 64),
        ROW(NVML_DEVICE_NAME_V2_BUFFER_SIZE, 96),
        ROW(NVML_DEVICE_SERIAL_BUFFER_SIZE, 30),
        ROW(NVML_DEVICE_PART_NUMBER_BUFFER_SIZE, 80),
        ROW(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, 80),
        ROW(NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE, 80),
        ROW(NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE, 32),
        ROW(NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE, 16),
    };
    check_rows("buffer sizes", rows, N_ELEM(rows));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_types),     cmocka_unit_test(test_struct_sizes),
        cmocka_unit_test(test_field_offsets),   cmocka_unit_test(test_value_union),
        cmocka_unit_test(test_struct_versions), cmocka_unit_test(test_return_codes),
        cmocka_unit_test(test_enums),           cmocka_unit_test(test_gpm),
        cmocka_unit_test(test_sentinels),       cmocka_unit_test(test_clock_event_reasons),
        cmocka_unit_test(test_event_types),     cmocka_unit_test(test_field_ids),
        cmocka_unit_test(test_buffer_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

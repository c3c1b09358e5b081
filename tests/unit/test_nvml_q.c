/* test_nvml_q.c -- unit tests for the report-only NVML reads of `gpumon -q`
 * (src/source/nvml_q.c).
 *
 * Against FAKE_LIB (tests/unit/fake_nvml_q.c), which answers the calls the
 * simulator does not export yet with values that encode their arguments:
 * the per-location ECC counters land in the right slots, the FBC and
 * encoder stats, the histogram, the inforom and GSP strings, the supported
 * clocks (with a memory clock whose graphics list is not supported), the MIG
 * devices' attributes and BAR1; a function the library lacks is "not
 * supported" (FUNCTION_NOT_FOUND), NOT_SUPPORTED from the library too.
 * Against the simulator (SIM_LIB_PATH): brand and architecture of a real
 * scenario.  A library that cannot be loaded, and an index with no GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/nvml_q.h"

#if !defined(FAKE_LIB) || !defined(SIM_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes FAKE_LIB, SIM_LIB_PATH and SCENARIO_DIR"
#endif

static struct gm_q_gpu q;

static void assert_u(int id, uint64_t want)
{
    if (!gm_v_ok(&q.v[id]))
        fail_msg("value %d: status %d code %d", id, q.v[id].status, q.v[id].code);
    assert_int_equal(q.v[id].v.u, want);
}

static void test_fake_library(void **state)
{
    (void)state;
    uint32_t idx = 0;
    struct gm_err err = {0};
    assert_int_equal(gm_q_read(FAKE_LIB, &idx, 1, &q, &err), 0);
    /* missing from the library: not supported, FUNCTION_NOT_FOUND */
    assert_int_equal(q.v[GM_Q_BRAND].status, GM_VS_UNSUPPORTED);
    assert_int_equal(q.v[GM_Q_BRAND].code, 13);
    assert_int_equal(q.v[GM_Q_ACCOUNTING].status, GM_VS_UNSUPPORTED);
    /* NOT_SUPPORTED from the library */
    assert_int_equal(q.v[GM_Q_DM_CUR].status, GM_VS_UNSUPPORTED);
    assert_int_equal(q.v[GM_Q_DM_CUR].code, 3);
    assert_int_equal(q.v[GM_Q_DM_PEND].code, 3);
    assert_u(GM_Q_ARCH, 7);
    /* type*1000 + counter*100 + location (7 SRAM, 2 DRAM) */
    static const struct {
        int id;
        uint64_t v;
    } ecc[] = {
        {GM_Q_ECC_VOL_SRAM_CORR, 7},   {GM_Q_ECC_VOL_SRAM_UNCORR, 1007},
        {GM_Q_ECC_VOL_DRAM_CORR, 2},   {GM_Q_ECC_VOL_DRAM_UNCORR, 1002},
        {GM_Q_ECC_AGG_SRAM_CORR, 107}, {GM_Q_ECC_AGG_SRAM_UNCORR, 1107},
        {GM_Q_ECC_AGG_DRAM_CORR, 102}, {GM_Q_ECC_AGG_DRAM_UNCORR, 1102},
    };
    for (size_t i = 0; i < sizeof(ecc) / sizeof(ecc[0]); i++)
        assert_u(ecc[i].id, ecc[i].v);
    assert_u(GM_Q_ENC_SESSIONS, 2);
    assert_u(GM_Q_ENC_FPS, 30);
    assert_u(GM_Q_ENC_LATENCY, 700);
    assert_u(GM_Q_FBC_SESSIONS, 3);
    assert_u(GM_Q_FBC_FPS, 60);
    assert_u(GM_Q_FBC_LATENCY, 1500);
    assert_u(GM_Q_JPG_UTIL, 17); /* the percentage, not the sampling period */
    assert_u(GM_Q_HIST_MAX, 640);
    assert_u(GM_Q_HIST_NONE, 4);
    assert_u(GM_Q_TARGET_MIN, 60);
    assert_u(GM_Q_TARGET_TEMP, 83);
    assert_u(GM_Q_TARGET_MAX, 90);
    assert_string_equal(gm_q_str(&q, GM_Q_INFOROM_IMG), "G506.0212.00.01");
    assert_string_equal(gm_q_str(&q, GM_Q_INFOROM_OEM), "2.0");
    assert_string_equal(gm_q_str(&q, GM_Q_INFOROM_ECC), "6.16");
    assert_null(gm_q_str(&q, GM_Q_INFOROM_PWR));
    assert_string_equal(gm_q_str(&q, GM_Q_GSP_FW), "535.54.03");
    assert_null(gm_q_str(&q, GM_Q_BRAND)); /* not a string */
    /* supported clocks: two memory clocks, the second without graphics list */
    assert_true(gm_v_ok(&q.supported));
    assert_int_equal(q.nmem, 2);
    assert_int_equal(q.mem[0], 1593);
    assert_int_equal(q.ngr[0], 3);
    assert_int_equal(q.gr[0][2], 210);
    assert_int_equal(q.gr_status[1].status, GM_VS_UNSUPPORTED);
    assert_int_equal(q.ngr[1], 0);
    /* MIG devices 0 and 1; 2 does not exist */
    assert_true(gm_v_ok(&q.mig_attr[0]));
    static const uint32_t counts[6] = {14, 1, 0, 5, 8, 7}; /* SM, CE, enc, dec, OFA, JPG */
    assert_memory_equal(q.mig_counts[1], counts, sizeof(counts));
    assert_true(gm_v_ok(&q.mig_bar1[0]));
    assert_int_equal(q.mig_bar1_total[0], 32768ULL << 20);
    assert_int_equal(q.mig_bar1_used[0], 1ULL << 20);
    assert_int_equal(q.mig_bar1[1].status, GM_VS_UNSUPPORTED);
    assert_int_equal(q.mig_attr[2].status, GM_VS_NA); /* NOT_FOUND */
}

static void test_no_gpu_at_index(void **state)
{
    (void)state;
    uint32_t idx = 5;
    struct gm_err err = {0};
    assert_int_equal(gm_q_read(FAKE_LIB, &idx, 1, &q, &err), 0);
    for (int k = 0; k < GM_Q__COUNT; k++) {
        assert_int_equal(q.v[k].status, GM_VS_ERROR);
        assert_int_equal(q.v[k].code, 2);
    }
    assert_int_equal(q.supported.status, GM_VS_ERROR);
}

static void test_no_library(void **state)
{
    (void)state;
    uint32_t idx = 0;
    struct gm_err err = {0};
    assert_int_equal(gm_q_read("/nonexistent/libnvidia-ml.so.1", &idx, 1, &q, &err), GM_E_NOLIB);
    assert_non_null(strstr(err.msg, "/nonexistent/libnvidia-ml.so.1"));
    assert_int_equal(q.v[GM_Q_ARCH].status, GM_VS_ERROR);
    assert_int_equal(q.mig_attr[0].status, GM_VS_ERROR);
}

static void test_simulator(void **state)
{
    (void)state;
    setenv("GPUSIM_SCENARIO", SCENARIO_DIR "/workstation.ini", 1);
    setenv("GPUSIM_TIME", "45", 1);
    uint32_t idx[2] = {0, 1};
    static struct gm_q_gpu two[2];
    struct gm_err err = {0};
    assert_int_equal(gm_q_read(SIM_LIB_PATH, idx, 2, two, &err), 0);
    for (int i = 0; i < 2; i++) {
        assert_true(gm_v_ok(&two[i].v[GM_Q_BRAND]));
        assert_int_equal(two[i].v[GM_Q_BRAND].v.u, 5); /* GeForce */
        assert_int_equal(two[i].v[GM_Q_ARCH].v.u, 8);  /* Ada */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fake_library),
        cmocka_unit_test(test_no_gpu_at_index),
        cmocka_unit_test(test_no_library),
        cmocka_unit_test(test_simulator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

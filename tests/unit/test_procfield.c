/* test_procfield.c -- unit tests for src/core/procfield.c, the per-process
 * field table that fmt.c (CSV, JSON, --query-compute-apps), pmon and top
 * read process values through.
 *
 * Table-driven: every GM_P_* id has its row, is a per-process row of the
 * registry, has exactly one way of being read, and text exactly when the
 * registry says it is a string; each member row reads its own member of a
 * record whose values all differ; each computed row gives the value or the
 * absence the record's sentinels mean (no MIG instance, state not looked
 * up, a name NVML failed to give, text missing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/metrics.h"
#include "core/procfield.h"
#include "core/snapshot.h"
#include "source/nvml_abi.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static void test_rows(void **state)
{
    (void)state;
    for (int id = GM_P__FIRST; id < GM_M__COUNT; id++) {
        const struct gm_proc_field *f = gm_proc_field(id);
        if (!f)
            fail_msg("per-process field %d (%s) has no row", id, gm_metrics[id].csv);
        assert_int_equal(f->id, id);
        assert_int_equal(gm_metrics[id].scope, GM_SC_PROC);
        if ((f->member >= 0) == (f->value != NULL))
            fail_msg("%s: a row is read either from a member or by value()", gm_metrics[id].csv);
        if (f->member >= 0 && (size_t)f->member + sizeof(struct gm_value) > sizeof(struct gm_proc))
            fail_msg("%s: member offset %ld outside struct gm_proc", gm_metrics[id].csv, f->member);
        if ((f->text != NULL) != (gm_metrics[id].fmt == GM_F_STR))
            fail_msg("%s: text() exactly for the registry's string fields", gm_metrics[id].csv);
    }
    /* not per-process: no row, NA, no text */
    const int others[] = {-1, 0, GM_M__GPU_END - 1, GM_M__COUNT, GM_M__COUNT + 7};
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    for (size_t i = 0; i < N_ELEM(others); i++) {
        struct gm_value tmp = gm_v_u64(5);
        assert_null(gm_proc_field(others[i]));
        assert_int_equal(gm_proc_value(&p, others[i], &tmp)->status, GM_VS_NA);
        assert_null(gm_proc_text(&p, others[i]));
    }
    struct gm_value tmp;
    assert_int_equal(gm_proc_value(NULL, GM_P_PID, &tmp)->status, GM_VS_NA);
    assert_null(gm_proc_text(NULL, GM_P_NAME));
}

/* A record whose every value differs, so a row reading the wrong member
 * shows. */
static struct gm_proc full_record(void)
{
    struct gm_proc p;
    memset(&p, 0, sizeof(p));
    p.pid = 4242;
    p.type = GM_PT_COMPUTE | GM_PT_GRAPHICS;
    p.host_state = GM_HS_ZOMBIE;
    p.gpu_instance_id = 3;
    p.compute_instance_id = 1;
    p.used_memory = gm_v_u64(UINT64_C(7) << 30);
    p.sm_util = gm_v_u64(11);
    p.mem_util = gm_v_u64(12);
    p.enc_util = gm_v_u64(13);
    p.dec_util = gm_v_u64(14);
    p.start_time = gm_v_i64(INT64_C(1784016758000000000));
    p.elapsed = gm_v_f64(93.5);
    p.cpu = gm_v_f64(150.25);
    p.rss = gm_v_u64(UINT64_C(300) << 20);
    snprintf(p.name, sizeof(p.name), "python3");
    snprintf(p.user, sizeof(p.user), "alice");
    p.cmdline = (char *)"python3 train.py --lr 0.1";
    p.exe = (char *)"/usr/bin/python3.11";
    return p;
}

static void test_values(void **state)
{
    (void)state;
    static const struct {
        int id;
        double want;
    } cases[] = {
        {GM_P_PID, 4242},
        {GM_P_TYPE, GM_PT_COMPUTE | GM_PT_GRAPHICS},
        {GM_P_USED_MEMORY, 7.0 * 1073741824.0},
        {GM_P_GPU_INSTANCE, 3},
        {GM_P_COMPUTE_INSTANCE, 1},
        {GM_P_SM_UTIL, 11},
        {GM_P_MEM_UTIL, 12},
        {GM_P_ENC_UTIL, 13},
        {GM_P_DEC_UTIL, 14},
        {GM_P_STATE, GM_HS_ZOMBIE},
        {GM_P_START_TIME, 1784016758000000000.0},
        {GM_P_ELAPSED, 93.5},
        {GM_P_CPU, 150.25},
        {GM_P_RSS, 300.0 * 1048576.0},
        {GM_P_NAME, 0},
        {GM_P_USER, 0},
        {GM_P_CMDLINE, 0},
        {GM_P_EXE, 0},
    };
    /* every field is a case */
    assert_int_equal(N_ELEM(cases), GM_P__N);
    struct gm_proc p = full_record();
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_value tmp;
        const struct gm_value *v = gm_proc_value(&p, cases[i].id, &tmp);
        if (!gm_v_ok(v))
            fail_msg("%s: status %d, want a value", gm_metrics[cases[i].id].csv, v->status);
        if (gm_v_as_double(v) != cases[i].want)
            fail_msg("%s: %g, want %g", gm_metrics[cases[i].id].csv, gm_v_as_double(v),
                     cases[i].want);
    }
    static const struct {
        int id;
        const char *want;
    } texts[] = {
        {GM_P_NAME, "python3"},
        {GM_P_USER, "alice"},
        {GM_P_CMDLINE, "python3 train.py --lr 0.1"},
        {GM_P_EXE, "/usr/bin/python3.11"},
        {GM_P_PID, NULL},
        {GM_P_USED_MEMORY, NULL},
    };
    for (size_t i = 0; i < N_ELEM(texts); i++) {
        const char *got = gm_proc_text(&p, texts[i].id);
        if (texts[i].want)
            assert_string_equal(got, texts[i].want);
        else
            assert_null(got);
    }
}

/* The sentinels of the record: what each computed field says when absent. */
static void test_absent(void **state)
{
    (void)state;
    struct gm_proc p = full_record();
    p.gpu_instance_id = GM_NO_INSTANCE;
    p.compute_instance_id = GM_NO_INSTANCE;
    p.host_state = GM_HS_UNKNOWN;
    p.name[0] = '\0';
    p.user[0] = '\0';
    p.cmdline = NULL;
    p.exe = NULL;
    p.sm_util = gm_v_status(GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED);
    static const struct {
        int id;
        int status;
    } cases[] = {
        {GM_P_GPU_INSTANCE, GM_VS_NA}, {GM_P_COMPUTE_INSTANCE, GM_VS_NA},
        {GM_P_STATE, GM_VS_NA},        {GM_P_NAME, GM_VS_NA},
        {GM_P_USER, GM_VS_NA},         {GM_P_CMDLINE, GM_VS_NA},
        {GM_P_EXE, GM_VS_NA},          {GM_P_SM_UTIL, GM_VS_UNSUPPORTED},
    };
    for (size_t i = 0; i < N_ELEM(cases); i++) {
        struct gm_value tmp;
        const struct gm_value *v = gm_proc_value(&p, cases[i].id, &tmp);
        if (v->status != cases[i].status)
            fail_msg("%s: status %d, want %d", gm_metrics[cases[i].id].csv, v->status,
                     cases[i].status);
        assert_null(gm_proc_text(&p, cases[i].id));
    }
    /* a name NVML refused: its status and code, not a silent NA */
    p.name_code = NVML_ERROR_NO_PERMISSION;
    struct gm_value tmp;
    const struct gm_value *v = gm_proc_value(&p, GM_P_NAME, &tmp);
    assert_int_equal(v->status, GM_VS_NOPERM);
    assert_int_equal(v->code, NVML_ERROR_NO_PERMISSION);
    assert_null(gm_proc_text(&p, GM_P_NAME));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

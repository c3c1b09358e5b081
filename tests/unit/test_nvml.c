/* test_nvml.c -- unit tests for the NVML source (src/source/nvml.c) against
 * the simulator (SIM_LIB_PATH, a scenario from SCENARIO_DIR at a pinned
 * time).
 *
 * The reader table: with every group wanted, every GPU metric that names a
 * read group is read (no value is left "not collected"); with each dynamic
 * group wanted alone, only it and the static groups are read.  And each read
 * group's documented NVML function (gm_read_groups[].nvml, shown in
 * docs/metrics.md) is a symbol the library exports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/snapshot.h"
#include "core/value.h"
#include "source/nvml.h"

#if !defined(SIM_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH and SCENARIO_DIR"
#endif

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static int collected(const struct gm_value *v)
{
    return !(v->status == GM_VS_NA && v->code == GM_CODE_NOT_COLLECTED);
}

/* A snapshot of scenario scn at time t with the groups wanted. */
static struct gm_snapshot *sample(const char *scn, const char *t, uint64_t groups)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", SCENARIO_DIR, scn);
    setenv("GPUSIM_SCENARIO", path, 1);
    setenv("GPUSIM_TIME", t, 1);
    struct gm_nvml *n = NULL;
    struct gm_err err = {0};
    if (gm_nvml_open(&n, SIM_LIB_PATH, &err) != 0)
        fail_msg("gm_nvml_open %s: %s", scn, err.msg);
    gm_nvml_set_groups(n, groups, 0);
    struct gm_snapshot *s = gm_snapshot_new();
    assert_int_equal(gm_nvml_sample(n, s), 0);
    gm_nvml_close(n);
    assert_int_equal(s->driver, GM_DRV_OK);
    assert_true(s->ngpu > 0);
    return s;
}

static void test_every_group_read(void **state)
{
    (void)state;
    static const char *const scenarios[] = {"h100x8-training.ini", "workstation.ini",
                                            "a100-mig.ini"};
    for (size_t k = 0; k < N_ELEM(scenarios); k++) {
        struct gm_snapshot *s = sample(scenarios[k], "100", ~UINT64_C(0));
        int bad = 0;
        for (uint32_t i = 0; i < s->ngpu; i++) {
            const struct gm_gpu *g = &s->gpus[i];
            assert_int_equal(g->state, GM_GPU_OK);
            for (int id = 0; id < GM_M__GPU_END; id++) {
                if (gm_metrics[id].scope != GM_SC_GPU || gm_metrics[id].rg == GM_RG_NONE)
                    continue;
                if (!collected(&g->m[id])) {
                    print_error("%s GPU %u: %s (group %s) not read\n", scenarios[k], i,
                                gm_metrics[id].json, gm_read_groups[gm_metrics[id].rg].name);
                    bad++;
                }
            }
        }
        gm_snapshot_free(s);
        assert_int_equal(bad, 0);
    }
}

/* Each dynamic group alone: it and the static groups are read, nothing else
 * (a reader filed under the wrong group fails here). */
static void test_only_wanted_groups(void **state)
{
    (void)state;
    for (int rg = GM_RG_NONE + 1; rg < GM_RG__COUNT; rg++) {
        if (gm_read_groups[rg].is_static)
            continue;
        struct gm_snapshot *s = sample("h100x8-training.ini", "100", UINT64_C(1) << rg);
        const struct gm_gpu *g = &s->gpus[0];
        for (int id = 0; id < GM_M__GPU_END; id++) {
            const struct gm_metric *m = &gm_metrics[id];
            if (m->scope != GM_SC_GPU || m->rg == GM_RG_NONE)
                continue;
            int want = m->rg == rg || gm_read_groups[m->rg].is_static;
            if (want != collected(&g->m[id]))
                fail_msg("group %s wanted: %s is %scollected", gm_read_groups[rg].name, m->json,
                         want ? "not " : "");
        }
        gm_snapshot_free(s);
    }
}

static void test_read_group_symbols(void **state)
{
    (void)state;
    void *lib = dlopen(SIM_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    for (int rg = GM_RG_NONE + 1; rg < GM_RG__COUNT; rg++)
        if (!dlsym(lib, gm_read_groups[rg].nvml))
            fail_msg("read group %s: %s is not an NVML symbol", gm_read_groups[rg].name,
                     gm_read_groups[rg].nvml);
    dlclose(lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_group_read),
        cmocka_unit_test(test_only_wanted_groups),
        cmocka_unit_test(test_read_group_symbols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

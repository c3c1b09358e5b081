/* test_model.c -- the simulator's integrals (sim/model.c gs_model_integrals):
 * energy and seconds power-capped / thermally limited, at every scenario
 * time (hardening point 17).
 *
 * The first day is a sum on the 1 s grid of the values gs_model_eval gives
 * at each whole second (noise included): checked against that sum done
 * here.  Past a day the sums go on as the integral of their expectation over
 * the noise, in closed form: checked against the expectation worked out
 * here for steady, power-capped and throttled GPUs up to 1e9 s, and against
 * the grid sum of the model's own readings across ramps that start after
 * the first day (into the power cap, into thermal slowdown and out of it).
 * The library answers the same at GPUSIM_TIME=1e8 and 1e9 for the 8-GPU
 * demo.
 *
 * No timing assertions (speed belongs to benchmarks), but meson runs this
 * with a 10 s timeout: the old integration took > 20 s for one read at 1e8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpusim.h"

#ifndef SCENARIO_DIR
#error "SCENARIO_DIR must point at the shipped scenarios/"
#endif
#ifndef SIM_LIB_PATH
#error "SIM_LIB_PATH must name the built simulator"
#endif

#define DAY 86400.0

static struct gs_scenario *load_ok(const char *text)
{
    struct gs_scenario *s = NULL;
    char err[600];
    if (gs_scenario_parse_string("t.ini", text, &s, err, sizeof(err)) != 0)
        fail_msg("scenario failed to load: %s", err);
    return s;
}

struct integ {
    double e_j; /* energy, J (from mJ) */
    double pc, th;
};

static struct integ at(struct gs_scenario *s, unsigned gpu, double t)
{
    struct integ r;
    double mj;
    gs_model_integrals(s, gpu, t, &mj, &r.pc, &r.th);
    r.e_j = mj / 1000;
    return r;
}

/* The grid sum over whole seconds [k0, k1) of the model's readings. */
static void grid_sum(const struct gs_scenario *s, unsigned gpu, int64_t k0, int64_t k1,
                     double sum[3])
{
    sum[0] = sum[1] = sum[2] = 0;
    for (int64_t k = k0; k < k1; k++) {
        struct gs_state st;
        gs_model_eval(s, gpu, (double)k, &st);
        sum[0] += st.power_w;
        sum[1] += st.power_capped;
        sum[2] += st.thermal_limited;
    }
}

/* Mean of min(p (1 + 0.01 u), L) for u uniform in [-1, 1), numerically. */
static double mean_reading(double p, double L)
{
    const int n = 200000;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double u = -1 + 2 * (i + 0.5) / n;
        sum += fmin(p * (1 + 0.01 * u), L);
    }
    return sum / n;
}

static double slowdown_temp(const struct gs_gpu *g)
{
    return g->temp_slowdown ? g->temp_slowdown : g->temp_shutdown - 3.0;
}

/* ----------------------------------------------------------- first day */

/* Up to a day: exactly the grid sum (plus the base before t = 0), so every
 * value a test or a client saw before stays what it was. */
static void test_first_day_is_the_grid_sum(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[machine]\nseed = 3\n"
                                    "[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = heartbeat\n"
                                    "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = thermal\n"
                                    "[gpu.2]\nmodel = A100-SXM4-80GB\nworkload = powercap\n"
                                    "power_limit = 300W\n"
                                    "[gpu.3]\nmodel = L40S\nworkload = ramp\nramp_start = 100\n"
                                    "ramp_duration = 900\n");
    for (unsigned g = 0; g < 4; g++) {
        struct integ base = at(s, g, 0);
        double sum[3] = {0, 0, 0};
        int64_t k = 0;
        static const double ts[] = {1, 100.25, 3600, 50000.5, DAY - 0.5, DAY};
        for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
            int64_t kt = (int64_t)floor(ts[i]);
            double more[3];
            grid_sum(s, g, k, kt, more);
            for (int j = 0; j < 3; j++)
                sum[j] += more[j];
            k = kt;
            struct gs_state st;
            gs_model_eval(s, g, (double)kt, &st);
            double frac = ts[i] - (double)kt;
            struct integ r = at(s, g, ts[i]);
            double want_e = sum[0] + st.power_w * frac;
            if (fabs(r.e_j - base.e_j - want_e) > 0.002)
                fail_msg("gpu %u t=%g: energy %.3f J since 0, grid sum %.3f J", g, ts[i],
                         r.e_j - base.e_j, want_e);
            assert_true(r.pc == sum[1] + st.power_capped * frac);
            assert_true(r.th == sum[2] + st.thermal_limited * frac);
        }
    }
    gs_scenario_free(s);
}

/* ------------------------------------------------------- after the first day */

/* A steady GPU: past the first day energy grows at exactly the mean reading
 * of its (constant) power, up to 1e9 s. */
static void test_steady_closed_form(void **state)
{
    (void)state;
    struct gs_scenario *s = load_ok("[gpu.0]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                                    "util = 90%\n[gpu.1]\nmodel = L40S\nworkload = idle\n"
                                    "[gpu.2]\nmodel = H100-SXM5-80GB\nworkload = steady\n"
                                    "util = 100%\npower_demand = 99.5%\n");
    for (unsigned g = 0; g < 3; g++) {
        const struct gs_gpu *gg = &s->gpus[g];
        double load = gg->wl.kind == GS_WL_IDLE ? 0 : gg->wl.util / 100;
        double p = gg->power_idle + (gg->wl.power_demand - gg->power_idle) * load;
        assert_true(p <= gg->power_limit);
        double rate = mean_reading(p, gg->power_limit);
        if (g == 2) /* within 1 % of the limit: some readings are clipped */
            assert_true(rate < p - 0.01);
        struct integ d = at(s, g, DAY);
        static const double ts[] = {DAY + 1, 1e6, 1e8, 1e9};
        for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
            struct integ r = at(s, g, ts[i]);
            double want = rate * (ts[i] - DAY);
            if (fabs(r.e_j - d.e_j - want) > 1e-6 * want + 0.002)
                fail_msg("gpu %u t=%g: %.3f J after the first day, want %.3f J", g, ts[i],
                         r.e_j - d.e_j, want);
            assert_true(r.pc == 0 && r.th == 0);
        }
    }
    gs_scenario_free(s);
}

/* At the power cap the reading sits in [0.996 L, L], 0.998 L on average, and
 * every second counts as capped; a throttled GPU reads its hold power and
 * every second counts as thermally limited. */
static void test_capped_and_throttled_closed_form(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu.0]\nmodel = A100-SXM4-80GB\nworkload = powercap\npower_limit = 300W\n"
                "[gpu.1]\nmodel = H100-SXM5-80GB\nworkload = thermal\n");
    struct integ d0 = at(s, 0, DAY), d1 = at(s, 1, DAY);
    const struct gs_gpu *g1 = &s->gpus[1];
    double r = g1->thermal_r / g1->cooling;
    double hold = fmax((slowdown_temp(g1) - g1->ambient) / r, g1->power_idle);
    static const double ts[] = {2 * DAY, 1e8, 1e9};
    for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
        double span = ts[i] - DAY;
        struct integ a = at(s, 0, ts[i]), b = at(s, 1, ts[i]);
        double want = 300 * 0.998 * span;
        assert_true(fabs(a.e_j - d0.e_j - want) <= 1e-6 * want);
        assert_true(a.pc - d0.pc == span && a.th == 0);
        want = mean_reading(hold, g1->power_limit) * span;
        assert_true(fabs(b.e_j - d1.e_j - want) <= 1e-6 * want);
        assert_true(b.th - d1.th == span && b.pc == 0);
    }
    gs_scenario_free(s);
}

/* Ramps that start on the second day, where the closed form has to cut
 * at the model's breakpoints: into the power cap (gpu 0), into thermal
 * slowdown (gpu 1), out of it while ramping down (gpu 2).  The expectation
 * must match the grid sum of the model's own readings to within the noise
 * (about 0.1 % over these 1800 s; allowed 0.5 %), and the capped and
 * throttled seconds to within a second per transition. */
static void test_late_ramps_match_the_grid(void **state)
{
    (void)state;
    struct gs_scenario *s =
        load_ok("[gpu]\nmodel = H100-SXM5-80GB\nworkload = ramp\nramp_start = 172800\n"
                "[gpu.0]\nramp_from = 10%\nramp_to = 100%\nramp_duration = 600\n"
                "power_demand = 110%\n"
                "[gpu.1]\nramp_from = 10%\nramp_to = 100%\nramp_duration = 300\ncooling = 0.35\n"
                "[gpu.2]\nramp_from = 100%\nramp_to = 10%\nramp_duration = 900\ncooling = 0.35\n"
                "[machine]\ngpus = 3\n");
    /* the scenario is what this test means it to be */
    struct gs_state st;
    gs_model_eval(s, 0, 2 * DAY + 1200, &st);
    assert_true(st.power_capped);
    gs_model_eval(s, 1, 2 * DAY + 1200, &st);
    assert_true(st.thermal_limited);
    gs_model_eval(s, 2, 2 * DAY - 10, &st);
    assert_true(st.thermal_limited);
    gs_model_eval(s, 2, 2 * DAY + 1700, &st);
    assert_false(st.thermal_limited);

    const int64_t k0 = (int64_t)(2 * DAY) - 100, k1 = k0 + 1800;
    for (unsigned g = 0; g < 3; g++) {
        double sum[3];
        grid_sum(s, g, k0, k1, sum);
        struct integ a = at(s, g, (double)k0), b = at(s, g, (double)k1);
        double e = b.e_j - a.e_j;
        if (fabs(e - sum[0]) > 0.005 * sum[0])
            fail_msg("gpu %u: %.1f J over the ramp, the grid sum %.1f J", g, e, sum[0]);
        if (fabs(b.pc - a.pc - sum[1]) > 2 || fabs(b.th - a.th - sum[2]) > 2)
            fail_msg("gpu %u: capped %.2f s, thermal %.2f s; grid %.0f s, %.0f s", g, b.pc - a.pc,
                     b.th - a.th, sum[1], sum[2]);
    }
    gs_scenario_free(s);
}

/* Monotone, finite, and the same whatever was asked before. */
static void test_monotone_and_order_free(void **state)
{
    (void)state;
    char err[600];
    struct gs_scenario *a, *b;
    assert_int_equal(gs_scenario_load(SCENARIO_DIR "/h100x8-training.ini", &a, err, sizeof(err)),
                     0);
    assert_int_equal(gs_scenario_load(SCENARIO_DIR "/h100x8-training.ini", &b, err, sizeof(err)),
                     0);
    for (unsigned g = 0; g < a->ngpus; g++) {
        double prev = -1, prev_th = -1;
        for (int i = 0; i < 40; i++) {
            double t = (DAY - 10) * pow(1.7, i);
            if (t > 2e9)
                break;
            struct integ r = at(a, g, t);
            assert_true(isfinite(r.e_j) && r.e_j > prev && r.th >= prev_th);
            prev = r.e_j;
            prev_th = r.th;
        }
        struct integ x = at(a, g, 1e9), y = at(a, g, 3600), z = at(a, g, 1e8);
        assert_true(x.e_j == at(b, g, 1e9).e_j && y.e_j == at(b, g, 3600).e_j &&
                    z.e_j == at(b, g, 1e8).e_j && z.th == at(b, g, 1e8).th);
    }
    gs_scenario_free(a);
    gs_scenario_free(b);
}

/* ------------------------------------------------------------- the library */

typedef nvmlReturn_t (*init_fn)(void);
typedef nvmlReturn_t (*handle_fn)(unsigned, nvmlDevice_t *);
typedef nvmlReturn_t (*energy_fn)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*viol_fn)(nvmlDevice_t, nvmlPerfPolicyType_t, nvmlViolationTime_t *);

/* nvmlDeviceGetTotalEnergyConsumption and the thermal violation time at
 * GPUSIM_TIME=1e8 and 1e9, for each GPU of the demo: what the model says. */
static void test_library_far_out(void **state)
{
    (void)state;
    void *h = dlopen(SIM_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    init_fn init = (init_fn)dlsym(h, "nvmlInit_v2"), shut = (init_fn)dlsym(h, "nvmlShutdown");
    handle_fn handle = (handle_fn)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    energy_fn energy = (energy_fn)dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
    viol_fn viol = (viol_fn)dlsym(h, "nvmlDeviceGetViolationStatus");
    assert_true(init && shut && handle && energy && viol);

    char err[600];
    struct gs_scenario *s;
    unsetenv("GPUSIM_SPEED");
    unsetenv("GPUSIM_EPOCH");
    unsetenv("GPUSIM_PID_RANK0");
    setenv("GPUSIM_SCENARIO", SCENARIO_DIR "/h100x8-training.ini", 1);
    assert_int_equal(gs_scenario_load(SCENARIO_DIR "/h100x8-training.ini", &s, err, sizeof(err)),
                     0);
    static const char *const times[] = {"1e8", "1e9"};
    for (size_t i = 0; i < 2; i++) {
        setenv("GPUSIM_TIME", times[i], 1);
        assert_int_equal(init(), NVML_SUCCESS);
        for (unsigned g = 0; g < s->ngpus; g++) {
            nvmlDevice_t d;
            unsigned long long mj = 0;
            nvmlViolationTime_t vt;
            assert_int_equal(handle(g, &d), NVML_SUCCESS);
            assert_int_equal(energy(d, &mj), NVML_SUCCESS);
            assert_int_equal(viol(d, NVML_PERF_POLICY_THERMAL, &vt), NVML_SUCCESS);
            double want_mj, pc, th;
            gs_model_integrals(s, g, strtod(times[i], NULL), &want_mj, &pc, &th);
            assert_true(mj == (unsigned long long)want_mj);
            assert_true(vt.violationTime == (unsigned long long)llround(th * 1e9));
            if (g == 5) /* throttles from ~45 s on */
                assert_true(th > strtod(times[i], NULL) - 100);
        }
        assert_int_equal(shut(), NVML_SUCCESS);
    }
    unsetenv("GPUSIM_TIME");
    gs_scenario_free(s);
    dlclose(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_day_is_the_grid_sum),
        cmocka_unit_test(test_steady_closed_form),
        cmocka_unit_test(test_capped_and_throttled_closed_form),
        cmocka_unit_test(test_late_ramps_match_the_grid),
        cmocka_unit_test(test_monotone_and_order_free),
        cmocka_unit_test(test_library_far_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_nvml.c -- unit tests for the NVML source (src/source/nvml*.c) against
 * the simulator (SIM_LIB_PATH, a scenario from SCENARIO_DIR at a pinned
 * time).
 *
 * The reader table: with every group wanted, every GPU metric that names a
 * read group is read (no value is left "not collected"); with each dynamic
 * group wanted alone, only it and the static groups are read.  And each read
 * group's documented NVML function (gm_read_groups[].nvml, shown in
 * docs/metrics.md) is a symbol the library exports.
 *
 * GPM (gm_nv_rd_gpm): a GPU's first read has no interval (NA, NVML_ERROR_NO_DATA)
 * unless GM_NVML_GPM_PRIME takes a second sample; the next read of the same
 * handle has one and agrees with the primed one-shot; a GPU without GPM
 * (isSupportedDevice 0, or nvmlGpmSampleGet NOT_SUPPORTED) is "not
 * supported" on every read, never 0.  Per MIG GPU instance
 * (nvmlGpmMigSampleGet, gpm/mig.ini): each instance's values, not supported
 * where the driver or the GPU has none, failures on purpose (GPUSIM_FAIL)
 * and every sample buffer freed (GPUSIM_TRACE).
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
#include <time.h>
#include <unistd.h>

#include "core/metrics.h"
#include "core/snapshot.h"
#include "core/value.h"
#include "source/nvml.h"

/* NVML return codes (core/nvmlrc.h numbers) */
#define NVML_ERROR_NOT_SUPPORTED_CODE 3
#define NVML_ERROR_NO_DATA_CODE 21

#if !defined(SIM_LIB_PATH) || !defined(SCENARIO_DIR)
#error "meson passes SIM_LIB_PATH and SCENARIO_DIR"
#endif

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static int collected(const struct gm_value *v)
{
    return !(v->status == GM_VS_NA && v->code == GM_CODE_NOT_COLLECTED);
}

/* A snapshot of scenario scn at time t with the groups wanted. */
static struct gm_snapshot *sample(const char *scn, const char *t, struct gm_rgset groups,
                                  unsigned flags)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", SCENARIO_DIR, scn);
    setenv("GPUSIM_SCENARIO", path, 1);
    setenv("GPUSIM_TIME", t, 1);
    struct gm_nvml *n = NULL;
    struct gm_err err = {0};
    if (gm_nvml_open(&n, SIM_LIB_PATH, &err) != 0)
        fail_msg("gm_nvml_open %s: %s", scn, err.msg);
    gm_nvml_set_groups(n, &groups, 0, flags);
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
        struct gm_snapshot *s =
            sample(scenarios[k], "100", gm_rgset_all(), GM_NVML_GPM_PRIME | GM_NVML_NVLINK_LINKS);
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
        struct gm_snapshot *s = sample("h100x8-training.ini", "100", GM_RGSET_OF(rg), 0);
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
        if (strncmp(gm_read_groups[rg].nvml, "/sys/", 5) != 0 && /* not NVML: sysfs */
            !dlsym(lib, gm_read_groups[rg].nvml))
            fail_msg("read group %s: %s is not an NVML symbol", gm_read_groups[rg].name,
                     gm_read_groups[rg].nvml);
    dlclose(lib);
}

/* ------------------------------------------------------------------- GPM */

#define GPM_BIT GM_RGSET_OF(GM_RG_GPM)

static struct gm_nvml *open_scn(const char *scn, const char *t, struct gm_rgset groups,
                                unsigned flags)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", SCENARIO_DIR, scn);
    setenv("GPUSIM_SCENARIO", path, 1);
    setenv("GPUSIM_TIME", t, 1);
    struct gm_nvml *n = NULL;
    struct gm_err err = {0};
    if (gm_nvml_open(&n, SIM_LIB_PATH, &err) != 0)
        fail_msg("gm_nvml_open %s: %s", scn, err.msg);
    gm_nvml_set_groups(n, &groups, 0, flags);
    return n;
}

static struct gm_snapshot *take(struct gm_nvml *n)
{
    struct gm_snapshot *s = gm_snapshot_new();
    assert_int_equal(gm_nvml_sample(n, s), 0);
    assert_int_equal(s->driver, GM_DRV_OK);
    return s;
}

static void assert_gpm_status(const struct gm_gpu *g, int status, int code)
{
    for (int id = GM_GPM_FIRST; id < GM_GPM_FIRST + GM_GPM_COUNT; id++) {
        if (g->m[id].status != status || g->m[id].code != code)
            fail_msg("GPU %u %s: status %d code %d, want %d / %d", g->index, gm_metrics[id].json,
                     g->m[id].status, g->m[id].code, status, code);
    }
}

/* The agent's way: the first sample has no interval, the second has one. */
static void test_gpm_first_interval(void **state)
{
    (void)state;
    struct gm_nvml *n = open_scn("gpm/unsupported.ini", "45", GPM_BIT, 0);
    struct gm_snapshot *s1 = take(n);
    assert_gpm_status(&s1->gpus[0], GM_VS_NA, NVML_ERROR_NO_DATA_CODE);
    struct gm_snapshot *s2 = take(n);
    const struct gm_gpu *g = &s2->gpus[0];
    for (int id = GM_GPM_FIRST; id < GM_GPM_FIRST + GM_GPM_COUNT; id++)
        assert_true(gm_v_ok(&g->m[id]));
    /* steady training on an H100 (docs/simulator.md: SM 0.80, DRAM 0.40 at full load, ±2 %
     * noise) */
    double sm = gm_v_as_double(&g->m[GM_M_GPM_SM_ACTIVE]);
    double dram = gm_v_as_double(&g->m[GM_M_GPM_DRAM_ACTIVE]);
    assert_true(sm > 60 && sm <= 85);
    assert_true(dram > 30 && dram <= 45);
    assert_true(gm_v_as_double(&g->m[GM_M_GPM_FP64_ACTIVE]) == 0);
    /* NVLink: MiB/s from NVML, bytes/s here (40 GB/s at full load) */
    double nvl = gm_v_as_double(&g->m[GM_M_GPM_NVLINK_TX]);
    assert_true(nvl > 20e9 && nvl < 45e9);
    gm_snapshot_free(s1);
    gm_snapshot_free(s2);
    gm_nvml_close(n);
}

/* The one-shot way: the first sample is primed, and gives what the second
 * sample of a handle gives at the same pinned time. */
static void test_gpm_prime(void **state)
{
    (void)state;
    struct gm_nvml *n = open_scn("gpm/unsupported.ini", "45", GPM_BIT, GM_NVML_GPM_PRIME);
    struct gm_snapshot *p = take(n);
    gm_nvml_close(n);
    n = open_scn("gpm/unsupported.ini", "45", GPM_BIT, 0);
    struct gm_snapshot *a = take(n), *b = take(n);
    gm_nvml_close(n);
    for (int id = GM_GPM_FIRST; id < GM_GPM_FIRST + GM_GPM_COUNT; id++) {
        assert_true(gm_v_ok(&p->gpus[0].m[id]));
        assert_true(gm_v_ok(&b->gpus[0].m[id]));
        if (gm_v_as_double(&p->gpus[0].m[id]) != gm_v_as_double(&b->gpus[0].m[id]))
            fail_msg("%s: primed %g, second sample %g", gm_metrics[id].json,
                     gm_v_as_double(&p->gpus[0].m[id]), gm_v_as_double(&b->gpus[0].m[id]));
    }
    gm_snapshot_free(p);
    gm_snapshot_free(a);
    gm_snapshot_free(b);
}

/* No GPM: not supported on the first read and every later one (never 0,
 * never "no data"), primed or not. */
static void test_gpm_unsupported(void **state)
{
    (void)state;
    static const unsigned modes[] = {0, GM_NVML_GPM_PRIME};
    for (size_t k = 0; k < N_ELEM(modes); k++) {
        struct gm_nvml *n = open_scn("gpm/unsupported.ini", "45", GPM_BIT, modes[k]);
        for (int round = 0; round < 3; round++) {
            struct gm_snapshot *s = take(n);
            assert_int_equal(s->ngpu, 3);
            assert_int_equal(s->gpus[1].state, GM_GPU_OK);
            assert_gpm_status(&s->gpus[1], GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED_CODE);
            assert_gpm_status(&s->gpus[2], GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED_CODE);
            gm_snapshot_free(s);
        }
        gm_nvml_close(n);
    }
}

/* ------------------------------------------------------------ GPM on MIG */

#define GPM_MIG_BITS GM_RGSET_OF(GM_RG_GPM, GM_RG_MIG_MODE)
#define MIG_BIT GM_RGSET_OF(GM_RG_MIG_MODE)

static int is_link_metric(int id)
{
    return id == GM_M_GPM_PCIE_TX || id == GM_M_GPM_PCIE_RX || id == GM_M_GPM_NVLINK_TX ||
           id == GM_M_GPM_NVLINK_RX;
}

static void assert_mig_gpm_status(const struct gm_gpu *g, uint32_t k, int status, int code)
{
    assert_true(k < g->nmig);
    for (int q = 0; q < GM_GPM_COUNT; q++) {
        const struct gm_value *v = &g->mig[k].gpm[q];
        if (v->status != status || v->code != code)
            fail_msg("GPU %u MIG %u %s: status %d code %d, want %d / %d", g->index, k,
                     gm_metrics[GM_GPM_FIRST + q].json, v->status, v->code, status, code);
    }
}

/* gpm/mig.ini (docs/simulator.md, "MIG" under GPM): an instance with a
 * process shows its GPU's activity, an instance without one 0 (a real 0);
 * PCIe and NVLink are the GPU's, not supported per instance. */
static void assert_mig_values(const struct gm_gpu *g)
{
    assert_int_equal(g->nmig, 4);
    static const unsigned gi[] = {1, 3, 7, 8};
    static const int busy[] = {1, 0, 1, 0};
    for (uint32_t k = 0; k < 4; k++) {
        const struct gm_mig *mg = &g->mig[k];
        assert_int_equal(mg->gpu_instance_id, gi[k]);
        for (int q = 0; q < GM_GPM_COUNT; q++) {
            int id = GM_GPM_FIRST + q;
            const struct gm_value *v = &mg->gpm[q];
            if (is_link_metric(id)) {
                if (v->status != GM_VS_UNSUPPORTED || v->code != NVML_ERROR_NOT_SUPPORTED_CODE)
                    fail_msg("MIG %u %s: status %d code %d, want not supported", k,
                             gm_metrics[id].json, v->status, v->code);
                continue;
            }
            if (!gm_v_ok(v))
                fail_msg("MIG %u %s: status %d code %d", k, gm_metrics[id].json, v->status,
                         v->code);
            double want = busy[k] ? gm_v_as_double(&g->m[id]) : 0;
            if (gm_v_as_double(v) != want)
                fail_msg("MIG %u %s: %g, want %g", k, gm_metrics[id].json, gm_v_as_double(v), want);
        }
        if (busy[k]) /* the training activity, not 0 */
            assert_true(gm_v_as_double(&mg->gpm[GM_M_GPM_SM_ACTIVE - GM_GPM_FIRST]) > 60);
    }
}

/* One-shot (primed) and agent ways on gpm/mig.ini: each instance's values;
 * an instance whose driver answers NOT_SUPPORTED and the instances of a GPU
 * without GPM are not supported on every read; GPM not asked for: not
 * collected. */
static void test_mig_gpm(void **state)
{
    (void)state;
    struct gm_nvml *n = open_scn("gpm/mig.ini", "60", GPM_MIG_BITS, GM_NVML_GPM_PRIME);
    struct gm_snapshot *p = take(n);
    gm_nvml_close(n);
    assert_int_equal(p->ngpu, 3);
    assert_mig_values(&p->gpus[0]);

    n = open_scn("gpm/mig.ini", "60", GPM_MIG_BITS, 0);
    for (int round = 0; round < 3; round++) {
        struct gm_snapshot *s = take(n);
        if (round == 0)
            for (uint32_t k = 0; k < 4; k++)
                assert_mig_gpm_status(&s->gpus[0], k, GM_VS_NA, NVML_ERROR_NO_DATA_CODE);
        else
            assert_mig_values(&s->gpus[0]);
        assert_int_equal(s->gpus[1].nmig, 2);
        assert_int_equal(s->gpus[2].nmig, 2);
        for (uint32_t k = 0; k < 2; k++) {
            assert_mig_gpm_status(&s->gpus[1], k, GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED_CODE);
            assert_mig_gpm_status(&s->gpus[2], k, GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED_CODE);
        }
        if (round > 0) /* the whole GPU 1 still has GPM */
            assert_true(gm_v_ok(&s->gpus[1].m[GM_M_GPM_SM_ACTIVE]));
        gm_snapshot_free(s);
    }
    gm_nvml_close(n);

    n = open_scn("gpm/mig.ini", "60", MIG_BIT, 0);
    struct gm_snapshot *s = take(n);
    assert_int_equal(s->gpus[0].nmig, 4);
    for (uint32_t k = 0; k < 4; k++)
        assert_mig_gpm_status(&s->gpus[0], k, GM_VS_NA, -1 /* GM_CODE_NOT_COLLECTED */);
    gm_snapshot_free(s);
    gm_nvml_close(n);
    gm_snapshot_free(p);
}

/* Counts the lines of the GPUSIM_TRACE file path that start with fn and
 * name no failure (the calls that succeeded), and those that failed. */
static void trace_count(const char *path, const char *fn, int *ok, int *failed)
{
    *ok = *failed = 0;
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    size_t len = strlen(fn);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, fn, len) != 0 || (line[len] != '\n' && line[len] != ' '))
            continue;
        if (strstr(line, " NVML_ERROR_"))
            (*failed)++;
        else
            (*ok)++;
    }
    fclose(f);
}

/* Lines of the GPUSIM_TRACE file path: the calls so far (all of them
 * without GPUSIM_FAIL rules), those of fn alone (on any GPU) when fn is
 * not NULL. */
static int trace_lines(const char *path, const char *fn)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    int n = 0;
    size_t len = fn ? strlen(fn) : 0;
    while (fgets(line, sizeof(line), f))
        n += !fn || (strncmp(line, fn, len) == 0 && strchr("@ \n", line[len]) && line[len]);
    fclose(f);
    return n;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The cadence of the slow groups (gm_nvml_set_cadence): a second sample
 * within the period makes fewer NVML calls than one without a cadence --
 * none of the ECC counters, retired pages or PCIe link -- and shows the
 * ECC counts of the first with their age (at least the time that passed
 * between the samples), the fast values with age 0; the snapshot says
 * that a cadence is on.  Without one, every sample reads them again and
 * every age is 0.  Calls are counted by the simulator (GPUSIM_TRACE). */
static void test_cadence(void **state)
{
    (void)state;
    static const char *const slow_fns[] = {"nvmlDeviceGetTotalEccErrors",
                                           "nvmlDeviceGetRetiredPages",
                                           "nvmlDeviceGetCurrPcieLinkGeneration"};
    int second[2]; /* calls of the second sample: without, with a cadence */
    for (int cad = 0; cad < 2; cad++) {
        char trace[] = "/tmp/test_nvml_cadenceXXXXXX";
        int fd = mkstemp(trace);
        assert_true(fd >= 0);
        close(fd);
        setenv("GPUSIM_TRACE", trace, 1);
        struct gm_nvml *n = open_scn("h100x8-training.ini", "60", gm_nvml_groups_default(), 0);
        unsetenv("GPUSIM_TRACE");
        if (cad)
            gm_nvml_set_cadence(n, 3600LL * 1000000000LL);
        int64_t t_0 = mono_ms();
        struct gm_snapshot *a = take(n);
        int64_t t_a = mono_ms();
        int calls_a = trace_lines(trace, NULL), slow_a[N_ELEM(slow_fns)];
        for (size_t k = 0; k < N_ELEM(slow_fns); k++) {
            slow_a[k] = trace_lines(trace, slow_fns[k]);
            if (slow_a[k] <= 0)
                fail_msg("%s: not called in the first sample", slow_fns[k]);
        }
        while (mono_ms() - t_a < 30) /* some time between the samples, for an age */
            usleep(5000);
        struct gm_snapshot *b = take(n);
        int64_t waited = mono_ms() - t_0 + 1; /* the most the ages can be */
        second[cad] = trace_lines(trace, NULL) - calls_a;
        for (size_t k = 0; k < N_ELEM(slow_fns); k++) {
            int more = trace_lines(trace, slow_fns[k]) - slow_a[k];
            if (cad ? more != 0 : more != slow_a[k])
                fail_msg("%s: %d calls in the second sample %s a cadence", slow_fns[k], more,
                         cad ? "with" : "without");
        }
        assert_true(b->slow_ns == (cad ? 3600LL * 1000000000LL : 0));
        for (uint32_t i = 0; i < b->ngpu; i++) {
            const struct gm_value *ecc = &b->gpus[i].m[GM_M_ECC_CORR_VOL];
            const struct gm_value *gen = &b->gpus[i].m[GM_M_PCIE_GEN_CUR];
            assert_true(gm_v_ok(ecc) && gm_v_ok(gen));
            assert_true(gm_v_ok(&b->gpus[i].m[GM_M_TEMP_GPU]));
            assert_int_equal(b->gpus[i].m[GM_M_TEMP_GPU].age_ms, 0);
            /* the power limit is read every sample: the CSV log, the store and
             * the page show it, and they show no ages */
            if (!gm_v_ok(&b->gpus[i].m[GM_M_POWER_LIMIT]) || b->gpus[i].m[GM_M_POWER_LIMIT].age_ms)
                fail_msg("GPU %u: power limit status %d, age %u ms (want a fresh value)", i,
                         b->gpus[i].m[GM_M_POWER_LIMIT].status,
                         b->gpus[i].m[GM_M_POWER_LIMIT].age_ms);
            assert_int_equal(a->gpus[i].m[GM_M_ECC_CORR_VOL].age_ms, 0);
            if (cad) {
                assert_true(ecc->v.u == a->gpus[i].m[GM_M_ECC_CORR_VOL].v.u);
                if (ecc->age_ms < 29 || ecc->age_ms > waited || gen->age_ms < 29)
                    fail_msg("GPU %u: ECC age %u ms, PCIe generation age %u ms, want 29..%lld", i,
                             ecc->age_ms, gen->age_ms, (long long)waited);
            } else {
                assert_int_equal(ecc->age_ms, 0);
                assert_int_equal(gen->age_ms, 0);
            }
        }
        gm_snapshot_free(a);
        gm_snapshot_free(b);
        gm_nvml_close(n);
        unlink(trace);
    }
    if (second[1] >= second[0])
        fail_msg("a sample makes %d NVML calls with a cadence, %d without", second[1], second[0]);
}

/* A slow group is due again when its period has all but passed: the
 * agent's samples sit on a grid of the interval, and a sample that starts a
 * few ms earlier after its deadline than the one that read the group must
 * not hold the value one more interval (at the default 10 s interval and
 * 10 s period every other read was skipped, and the CSV log's cell left
 * empty, "between_reads", on a row that should have read it).  Within the
 * period's first 15/16 the value is still reused. */
static void test_cadence_due(void **state)
{
    (void)state;
    char trace[] = "/tmp/test_nvml_dueXXXXXX";
    int fd = mkstemp(trace);
    assert_true(fd >= 0);
    close(fd);
    setenv("GPUSIM_TRACE", trace, 1);
    struct gm_nvml *n = open_scn("h100x8-training.ini", "60", gm_nvml_groups_default(), 0);
    unsetenv("GPUSIM_TRACE");
    const int64_t period_ms = 1600;
    gm_nvml_set_cadence(n, period_ms * 1000000LL);
    struct gm_snapshot *a = take(n);
    int64_t t_read = mono_ms(); /* the read was before: its age is more than since then */
    int first = trace_lines(trace, "nvmlDeviceGetTotalEccErrors");
    assert_true(first > 0);
    struct gm_snapshot *b = take(n); /* at once: reused */
    assert_int_equal(trace_lines(trace, "nvmlDeviceGetTotalEccErrors"), first);
    assert_true(b->gpus[0].m[GM_M_ECC_CORR_VOL].age_ms < period_ms);
    /* 1/32 of the period before it ends (the machine may be slower, never
     * faster): due */
    while (mono_ms() - t_read < period_ms - period_ms / 32)
        usleep(5000);
    struct gm_snapshot *c = take(n);
    int now = trace_lines(trace, "nvmlDeviceGetTotalEccErrors");
    if (now != 2 * first)
        fail_msg("nvmlDeviceGetTotalEccErrors: %d calls after a sample %lld ms after the read "
                 "(period %lld ms), want %d",
                 now, (long long)(mono_ms() - t_read), (long long)period_ms, 2 * first);
    assert_int_equal(c->gpus[0].m[GM_M_ECC_CORR_VOL].age_ms, 0);
    gm_snapshot_free(a);
    gm_snapshot_free(b);
    gm_snapshot_free(c);
    gm_nvml_close(n);
    unlink(trace);
}

/* GM_NVML_EVERY_SAMPLE (issue 30: nvidia-smi's forms have no place for an
 * age): the groups that are otherwise read every 10 s also without a
 * cadence (NVLink states and errors, power management, ECC by location)
 * are read again in the second sample, and even with a cadence set no
 * value carries an age. */
static void test_every_sample(void **state)
{
    (void)state;
    static const char *const fns[] = {
        "nvmlDeviceGetNvLinkState", "nvmlDeviceGetPowerManagementMode",
        "nvmlDeviceGetMemoryErrorCounter", "nvmlDeviceGetTotalEccErrors"};
    for (int cad = 0; cad < 2; cad++) {
        char trace[] = "/tmp/test_nvml_everyXXXXXX";
        int fd = mkstemp(trace);
        assert_true(fd >= 0);
        close(fd);
        setenv("GPUSIM_TRACE", trace, 1);
        struct gm_nvml *n =
            open_scn("h100x8-training.ini", "60", gm_nvml_groups_default(), GM_NVML_EVERY_SAMPLE);
        unsetenv("GPUSIM_TRACE");
        if (cad)
            gm_nvml_set_cadence(n, 3600LL * 1000000000LL);
        struct gm_snapshot *a = take(n);
        int first[N_ELEM(fns)];
        for (size_t k = 0; k < N_ELEM(fns); k++) {
            first[k] = trace_lines(trace, fns[k]);
            if (first[k] <= 0)
                fail_msg("%s: not called in the first sample", fns[k]);
        }
        int64_t t_a = mono_ms();
        while (mono_ms() - t_a < 30) /* time enough for an age */
            usleep(5000);
        struct gm_snapshot *b = take(n);
        for (size_t k = 0; k < N_ELEM(fns); k++) {
            int more = trace_lines(trace, fns[k]) - first[k];
            if (more != first[k])
                fail_msg("%s: %d calls in the second sample, %d in the first (cadence %d)", fns[k],
                         more, first[k], cad);
        }
        for (uint32_t i = 0; i < b->ngpu; i++)
            for (int id = 0; id < GM_M__GPU_END; id++)
                if (b->gpus[i].m[id].age_ms)
                    fail_msg("GPU %u: %s has an age of %u ms", i, gm_metrics[id].json,
                             b->gpus[i].m[id].age_ms);
        gm_snapshot_free(a);
        gm_snapshot_free(b);
        gm_nvml_close(n);
        unlink(trace);
    }
}

/* nvmlGpmMigSampleGet failing on purpose (GPUSIM_FAIL): that instance's
 * values carry the error (never 0), the next sample starts a new interval,
 * the one after has values again, the other instances are untouched; a
 * sample buffer that could not be allocated is asked for again.  Every
 * buffer allocated is freed at close (GPUSIM_TRACE counts them). */
static void test_mig_gpm_faults(void **state)
{
    (void)state;
    char trace[] = "/tmp/test_nvml_traceXXXXXX";
    int fd = mkstemp(trace);
    assert_true(fd >= 0);
    close(fd);
    setenv("GPUSIM_TRACE", trace, 1);
    /* agent: sample 1 takes calls 1-4 (instances 0-3), sample 2 calls 5-8 */
    setenv("GPUSIM_FAIL", "nvmlGpmMigSampleGet@0:6:NVML_ERROR_UNKNOWN", 1);
    struct gm_nvml *n = open_scn("gpm/mig.ini", "60", GPM_MIG_BITS, 0);
    struct gm_snapshot *s[4];
    for (int k = 0; k < 4; k++)
        s[k] = take(n);
    gm_nvml_close(n);
    assert_mig_gpm_status(&s[1]->gpus[0], 1, GM_VS_ERROR, 999);
    assert_true(gm_v_ok(&s[1]->gpus[0].mig[0].gpm[GM_M_GPM_SM_ACTIVE - GM_GPM_FIRST]));
    assert_true(gm_v_ok(&s[1]->gpus[0].mig[2].gpm[GM_M_GPM_SM_ACTIVE - GM_GPM_FIRST]));
    assert_mig_gpm_status(&s[2]->gpus[0], 1, GM_VS_NA, NVML_ERROR_NO_DATA_CODE);
    assert_mig_values(&s[3]->gpus[0]);
    for (int k = 0; k < 4; k++)
        gm_snapshot_free(s[k]);

    /* NOT_SUPPORTED on every call of GPU 0's instances: not supported, not asked again */
    setenv("GPUSIM_FAIL", "nvmlGpmMigSampleGet@0:*:NVML_ERROR_NOT_SUPPORTED", 1);
    n = open_scn("gpm/mig.ini", "60", GPM_MIG_BITS, GM_NVML_GPM_PRIME);
    for (int k = 0; k < 2; k++) {
        struct gm_snapshot *t = take(n);
        for (uint32_t m = 0; m < 4; m++)
            assert_mig_gpm_status(&t->gpus[0], m, GM_VS_UNSUPPORTED, NVML_ERROR_NOT_SUPPORTED_CODE);
        assert_true(gm_v_ok(&t->gpus[0].m[GM_M_GPM_SM_ACTIVE]));
        gm_snapshot_free(t);
    }
    gm_nvml_close(n);

    /* one-shot: the 5th call is instance 0's second sample */
    setenv("GPUSIM_FAIL", "nvmlGpmMigSampleGet@0:5:NVML_ERROR_UNKNOWN", 1);
    n = open_scn("gpm/mig.ini", "60", GPM_MIG_BITS, GM_NVML_GPM_PRIME);
    struct gm_snapshot *t = take(n);
    gm_nvml_close(n);
    assert_mig_gpm_status(&t->gpus[0], 0, GM_VS_ERROR, 999);
    assert_true(gm_v_ok(&t->gpus[0].mig[1].gpm[GM_M_GPM_SM_ACTIVE - GM_GPM_FIRST]));
    gm_snapshot_free(t);

    /* allocation: calls 1-2 are GPU 0's own buffers, 3-4 instance 0's, 5 instance 1's */
    setenv("GPUSIM_FAIL", "nvmlGpmSampleAlloc:5:NVML_ERROR_MEMORY", 1);
    n = open_scn("gpm/mig.ini", "60", GPM_MIG_BITS, 0);
    struct gm_snapshot *a = take(n), *b = take(n), *c = take(n);
    gm_nvml_close(n);
    assert_mig_gpm_status(&a->gpus[0], 1, GM_VS_ERROR, 20 /* NVML_ERROR_MEMORY */);
    assert_mig_gpm_status(&b->gpus[0], 1, GM_VS_NA, NVML_ERROR_NO_DATA_CODE);
    assert_true(gm_v_ok(&c->gpus[0].mig[1].gpm[GM_M_GPM_SM_ACTIVE - GM_GPM_FIRST]));
    gm_snapshot_free(a);
    gm_snapshot_free(b);
    gm_snapshot_free(c);
    unsetenv("GPUSIM_FAIL");
    unsetenv("GPUSIM_TRACE");

    int alloc_ok, alloc_failed, free_ok, free_failed;
    trace_count(trace, "nvmlGpmSampleAlloc", &alloc_ok, &alloc_failed);
    trace_count(trace, "nvmlGpmSampleFree", &free_ok, &free_failed);
    unlink(trace);
    assert_int_equal(alloc_failed, 1);
    assert_true(alloc_ok > 0);
    assert_int_equal(free_failed, 0);
    if (alloc_ok != free_ok)
        fail_msg("%d GPM samples allocated, %d freed", alloc_ok, free_ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_group_read),
        cmocka_unit_test(test_only_wanted_groups),
        cmocka_unit_test(test_read_group_symbols),
        cmocka_unit_test(test_gpm_first_interval),
        cmocka_unit_test(test_gpm_prime),
        cmocka_unit_test(test_gpm_unsupported),
        cmocka_unit_test(test_mig_gpm),
        cmocka_unit_test(test_mig_gpm_faults),
        cmocka_unit_test(test_cadence),
        cmocka_unit_test(test_every_sample),
        cmocka_unit_test(test_cadence_due),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

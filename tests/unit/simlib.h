/* simlib.h -- the NVML simulator (SIM_LIB_PATH) loaded with dlopen, for
 * the sim-* unit tests that call it as an NVML client would.
 *
 * Before including it a test includes cmocka and the NVML ABI header, and
 * defines GS_FUNCS(X): X(name) for each NVML function it calls.  It then
 * has a pointer p_NAME for each, CALL(name, ...) to call one, and:
 *
 *   simlib_open(tmpl)       dlopen the simulator, resolve GS_FUNCS, make
 *                           the temp dir g_dir from tmpl
 *                           ("/tmp/gs-x-XXXXXX"; NULL: none); 0 or -1
 *   simlib_close()          shut NVML down, remove g_dir; 0 or -1
 *   simlib_write(n, t, o, olen)  the scenario text t as file n in g_dir;
 *                           its path in o (olen bytes)
 *   simlib_start(path, t)   (re)initialise NVML on the scenario path with
 *                           its time pinned at t seconds ("60"; NULL: live)
 *   simlib_start_text(t)    the same on scenario text t, at 60 s
 *   dev(i)                  GPU i's handle (asserted)
 *   simlib_legacy(old, n, newer, m)  the legacy R450 variant
 *                           (SIM_LEGACY_LIB_PATH) exports the n functions
 *                           of old and none of the m of newer; the
 *                           simulator exports all of them
 */
#ifndef GM_TEST_SIMLIB_H
#define GM_TEST_SIMLIB_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SIM_LIB_PATH
#error "meson passes SIM_LIB_PATH"
#endif

#define GS_DECLARE(name) static __typeof__(name) *p_##name;
GS_FUNCS(GS_DECLARE)
#define CALL(name, ...) p_##name(__VA_ARGS__)

static void *g_lib;
static char g_dir[64];

static inline int simlib_open(const char *tmpl)
{
    g_lib = dlopen(SIM_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!g_lib) {
        fprintf(stderr, "dlopen %s: %s\n", SIM_LIB_PATH, dlerror());
        return -1;
    }
#define GS_RESOLVE(name)                                                                           \
    p_##name = (__typeof__(name) *)dlsym(g_lib, #name);                                            \
    if (!p_##name) {                                                                               \
        fprintf(stderr, "missing symbol %s\n", #name);                                             \
        return -1;                                                                                 \
    }
    GS_FUNCS(GS_RESOLVE)
#undef GS_RESOLVE
    if (!tmpl)
        return 0;
    snprintf(g_dir, sizeof(g_dir), "%s", tmpl);
    return mkdtemp(g_dir) ? 0 : -1;
}

static inline int simlib_close(void)
{
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    if (!g_dir[0])
        return 0;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static inline void simlib_write(const char *name, const char *text, char *out, size_t outlen)
{
    assert_true((size_t)snprintf(out, outlen, "%s/%s", g_dir, name) < outlen);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static inline void simlib_start(const char *path, const char *t)
{
    /* a failed earlier test may have left a session open: close it, so
     * this one really loads path with its own time */
    while (CALL(nvmlShutdown) == NVML_SUCCESS)
        ;
    setenv("GPUSIM_SCENARIO", path, 1);
    unsetenv("GPUSIM_SPEED");
    unsetenv("GPUSIM_EPOCH");
    if (t)
        setenv("GPUSIM_TIME", t, 1);
    else
        unsetenv("GPUSIM_TIME");
    assert_int_equal(CALL(nvmlInit_v2), NVML_SUCCESS);
}

static inline void simlib_start_text(const char *text)
{
    char path[128];
    simlib_write("t.ini", text, path, sizeof(path));
    simlib_start(path, "60");
}

static inline nvmlDevice_t dev(unsigned i)
{
    nvmlDevice_t d = NULL;
    assert_int_equal(CALL(nvmlDeviceGetHandleByIndex_v2, i, &d), NVML_SUCCESS);
    return d;
}

#ifdef SIM_LEGACY_LIB_PATH
static inline void simlib_legacy(const char *const *old, size_t n, const char *const *newer,
                                 size_t m)
{
    void *h = dlopen(SIM_LEGACY_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    for (size_t i = 0; i < n + m; i++) {
        const char *f = i < n ? old[i] : newer[i - n];
        if (i < n && !dlsym(h, f))
            fail_msg("legacy variant lacks %s", f);
        if (i >= n && dlsym(h, f))
            fail_msg("legacy variant exports %s (newer than R450)", f);
        if (!dlsym(g_lib, f))
            fail_msg("simulator lacks %s", f);
    }
    dlclose(h);
}
#endif

#endif

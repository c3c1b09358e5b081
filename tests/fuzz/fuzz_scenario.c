/* fuzz_scenario.c -- libFuzzer harness for the simulator's scenario files
 * (sim/ini_read.c, the line-tracking reader over libinih, and
 * sim/scenario.c, scenario_gpu.c, values.c, which give the entries
 * meaning), followed by the model and fault functions on what loaded.
 *
 * The input is the whole file, up to a NUL byte, given to
 * gs_scenario_parse_string (the loader without a file).  Besides crashes,
 * leaks and undefined behaviour (a float cast out of range included), it
 * checks:
 *   - a failed load returns -1, no scenario, and a NUL-terminated message
 *     that starts with the file name;
 *   - for every GPU of a loaded scenario, the model at a few times gives
 *     percentages from 0 to 100, and its integrals (energy, time capped)
 *     do not depend on which times were asked before (gpusim.h's
 *     contract: the sums are added in the same order on a second pass).
 * ${VAR} expansion reads the environment, which does not change during a
 * run, so the harness is deterministic.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_tmp.h"
#include "gpusim.h"

#define NAME "fuzz.ini"

static void fatal(const char *what, unsigned gpu, double t)
{
    fprintf(stderr, "fuzz_scenario: GPU %u at t = %g: %s\n", gpu, t, what);
    abort();
}

static void model(struct gs_scenario *s)
{
    static const double times[] = {0, 0.5, 61, 3601, 86400 * 3.5};
    for (unsigned g = 0; g < s->ngpus; g++) {
        for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
            double t = times[i];
            struct gs_state st;
            gs_model_eval(s, g, t, &st);
            if (st.util_gpu > 100 || st.util_mem > 100 || st.util_enc > 100 || st.util_dec > 100 ||
                st.fan > 100)
                fatal("a percentage above 100", g, t);
            unsigned long long c, u;
            gs_ecc_counts(s, g, t, &c, &u);
            unsigned long long pages[4];
            gs_retired_pages(s, g, t, 0, pages, 4);
            gs_retired_pages(s, g, t, 1, pages, 4);
            unsigned a, b, p, f;
            gs_remapped_rows(s, g, t, &a, &b, &p, &f);
            (void)gs_fault_gpu(s, g, t);
            (void)gs_fault_hang(s, (int)g, 0, t);
            for (unsigned m = 0; m < s->gpus[g].nmig; m++)
                (void)gs_mig_mem_used(s, g, m, t);
            for (size_t k = 0; k < s->nprocs; k++) {
                const struct gs_process *pr = &s->procs[k];
                if (!gs_proc_on(pr, g, t))
                    continue;
                unsigned sm, mem;
                (void)gs_proc_memory(s, pr, g, t);
                gs_proc_util(s, pr, g, t, &sm, &mem);
                if (sm > 100 || mem > 100)
                    fatal("a process's utilisation above 100", g, t);
            }
        }
        double e1, c1, h1, e2, c2, h2, x, y, z;
        gs_model_integrals(s, g, 130.5, &e1, &c1, &h1);
        gs_model_integrals(s, g, 7, &x, &y, &z);
        gs_model_integrals(s, g, 130.5, &e2, &c2, &h2);
        if (memcmp(&e1, &e2, sizeof(e1)) || memcmp(&c1, &c2, sizeof(c1)) ||
            memcmp(&h1, &h2, sizeof(h1)))
            fatal("the integrals changed after asking an earlier time", g, 130.5);
    }
    (void)gs_fault_driver(s, 0);
    (void)gs_fault_driver(s, 1e6);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    char err[512];
    memset(err, 'x', sizeof(err));
    struct gs_scenario *s = (struct gs_scenario *)1;
    if (gs_scenario_parse_string(NAME, text, &s, err, sizeof(err)) != 0) {
        if (s)
            fatal("a failed load returned a scenario", 0, 0);
        if (!memchr(err, '\0', sizeof(err)) || strncmp(err, NAME ":", strlen(NAME ":")) != 0) {
            fprintf(stderr, "fuzz_scenario: message \"%.*s\"\n", (int)sizeof(err), err);
            abort();
        }
    } else {
        model(s);
        gs_scenario_free(s);
    }
    free(text);
    return 0;
}

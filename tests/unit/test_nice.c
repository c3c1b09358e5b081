/* test_nice.c -- unit tests for src/core/nice.c: nice axis ticks and the
 * series palette.
 *
 * The ticks are a table in tests/unit/fixtures/nice/ticks.txt (a range and
 * a step count -> the tick labels), the same file tests/e2e/live_page.py
 * runs the live page's niceTicks on, so the C charts and the page's agree.
 * Every tick must be a 1, 2 or 5 times a power of ten multiple.  The
 * palette: eight distinct colours, none as pale on white as Okabe-Ito's
 * yellow (contrast at least 2.2:1), each series a dash as well.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nice.h"

/* "a b n -> t0 t1 ..." lines: each checked; returns the number of cases. */
static int run_table(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char line[512];
    int cases = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        double a, b;
        int n, used = 0;
        if (sscanf(line, "%lf %lf %d -> %n", &a, &b, &n, &used) != 3 || !used)
            fail_msg("%s:%d: malformed line", path, lineno);
        struct gm_ticks t;
        gm_nice_ticks(a, b, n, &t);
        char got[512] = "", lab[64];
        for (int k = 0; k < t.n; k++) {
            size_t l = strlen(got);
            snprintf(got + l, sizeof got - l, "%s%s", k ? " " : "",
                     gm_nice_label(&t, gm_nice_tick(&t, k), lab, sizeof lab));
        }
        char want[512];
        snprintf(want, sizeof want, "%s", line + used);
        want[strcspn(want, "\n")] = 0;
        if (strcmp(got, want) != 0)
            fail_msg("%s:%d: %g..%g in %d steps: got \"%s\", want \"%s\"", path, lineno, a, b, n,
                     got, want);
        /* the contract: covers the range, at most n steps, a 1-2-5 step */
        assert_true(t.lo <= a + 1e-12 || a == b);
        assert_true(t.hi >= b - 1e-12 || a == b);
        assert_true(t.n - 1 <= n || a == b);
        double m = t.step / pow(10, floor(log10(t.step) + 1e-9));
        assert_true(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6);
        cases++;
    }
    fclose(f);
    return cases;
}

static void test_ticks_table(void **state)
{
    (void)state;
    assert_true(run_table(NICE_FIXTURES "/ticks.txt") >= 15);
}

static void test_ticks_odd_input(void **state)
{
    (void)state;
    struct gm_ticks t;
    gm_nice_ticks(NAN, 5, 4, &t); /* not finite: 0..1 */
    assert_true(t.lo == 0 && t.hi == 1);
    gm_nice_ticks(10, 0, 0, &t); /* reversed, no steps asked: one step */
    assert_true(t.lo <= 0 && t.hi >= 10 && t.n == 2);
    char lab[16];
    gm_nice_ticks(-1, 1, 4, &t);
    assert_string_equal(gm_nice_label(&t, -1e-17, lab, sizeof lab), "0"); /* never "-0" */
}

static double lin(double c)
{
    return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static void test_palette(void **state)
{
    (void)state;
    for (int i = 0; i < GM_PALETTE_N; i++) {
        const struct gm_colour *c = &gm_palette[i];
        unsigned r, g, b;
        assert_int_equal(sscanf(c->hex, "#%2x%2x%2x", &r, &g, &b), 3);
        assert_true(fabs(r / 255.0 - c->r) < 0.003 && fabs(g / 255.0 - c->g) < 0.003 &&
                    fabs(b / 255.0 - c->b) < 0.003);
        double y = 0.2126 * lin(c->r) + 0.7152 * lin(c->g) + 0.0722 * lin(c->b);
        double contrast = 1.05 / (y + 0.05);
        if (contrast < 2.2) /* Okabe-Ito's orange and sky blue (2.25, 2.31) are the palest kept;
                               its yellow (1.32) is out */
            fail_msg("%s (%s) contrast %.2f on white", c->hex, c->name, contrast);
        for (int k = 0; k < i; k++)
            assert_true(strcmp(c->hex, gm_palette[k].hex) != 0);
    }
    /* eight series: eight colours; the ninth repeats the first with another dash */
    for (size_t i = 0; i < 8; i++)
        for (size_t k = 0; k < i; k++)
            assert_ptr_not_equal(gm_series_colour(i), gm_series_colour(k));
    assert_ptr_equal(gm_series_colour(8), gm_series_colour(0));
    assert_ptr_not_equal(gm_series_dash(8), gm_series_dash(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ticks_table),
        cmocka_unit_test(test_ticks_odd_input),
        cmocka_unit_test(test_palette),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_rgset.c -- unit tests for the read-group set (src/core/rgset.h).
 *
 * The set has no fixed size: it is compiled here with 130 groups (three
 * words), far past the 64 bits the read groups once shared with two flags,
 * and checked for add, del, has, union, equal, empty, all and iteration
 * with indices on and beside the word boundaries.  The program's own width
 * (GM_RG__COUNT) is what test_nvml.c's read-group tests sample with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>

#define GM_RGSET_NBITS 130
#include "core/rgset.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(GM_RGSET_WORDS == 3, "130 groups take three words");

/* Index sets, each with what must hold after adding them. */
static const struct {
    const char *what;
    unsigned idx[8];
    unsigned n;
} cases[] = {
    {"none", {0}, 0},
    {"first", {0}, 1},
    {"word 0 end", {63}, 1},
    {"word 1 start", {64}, 1},
    {"above 70", {70, 71, 99}, 3},
    {"last", {129}, 1},
    {"boundaries", {0, 63, 64, 127, 128, 129}, 6},
    {"unordered, repeated", {100, 3, 100, 65, 3}, 5},
};

/* Whether idx[0..n) holds g. */
static int listed(const unsigned *idx, unsigned n, unsigned g)
{
    for (unsigned k = 0; k < n; k++)
        if (idx[k] == g)
            return 1;
    return 0;
}

static void test_add_has_next(void **state)
{
    (void)state;
    for (size_t c = 0; c < N_ELEM(cases); c++) {
        struct gm_rgset s = GM_RGSET_EMPTY;
        for (unsigned k = 0; k < cases[c].n; k++)
            gm_rgset_add(&s, cases[c].idx[k]);
        for (unsigned g = 0; g < GM_RGSET_NBITS; g++)
            if (gm_rgset_has(&s, g) != listed(cases[c].idx, cases[c].n, g))
                fail_msg("%s: has(%u) is %d", cases[c].what, g, gm_rgset_has(&s, g));
        assert_int_equal(gm_rgset_empty(&s), cases[c].n == 0);
        /* iteration visits each listed index once, in ascending order */
        int prev = -1;
        unsigned seen = 0;
        for (int g = gm_rgset_next(&s, 0); g >= 0; g = gm_rgset_next(&s, (unsigned)g + 1)) {
            if (g <= prev || !listed(cases[c].idx, cases[c].n, (unsigned)g))
                fail_msg("%s: next gave %d after %d", cases[c].what, g, prev);
            prev = g;
            seen++;
        }
        unsigned distinct = 0;
        for (unsigned g = 0; g < GM_RGSET_NBITS; g++)
            distinct += (unsigned)listed(cases[c].idx, cases[c].n, g);
        if (seen != distinct)
            fail_msg("%s: iteration saw %u of %u", cases[c].what, seen, distinct);
    }
}

static void test_del(void **state)
{
    (void)state;
    struct gm_rgset s = gm_rgset_all();
    static const unsigned gone[] = {0, 63, 64, 70, 129};
    for (size_t k = 0; k < N_ELEM(gone); k++)
        gm_rgset_del(&s, gone[k]);
    for (unsigned g = 0; g < GM_RGSET_NBITS; g++)
        assert_int_equal(gm_rgset_has(&s, g), !listed(gone, N_ELEM(gone), g));
    assert_int_equal(gm_rgset_next(&s, 63), 65);
    assert_int_equal(gm_rgset_next(&s, 129), -1);
    assert_int_equal(gm_rgset_next(&s, 130), -1);
}

static void test_union_equal(void **state)
{
    (void)state;
    struct gm_rgset a = GM_RGSET_EMPTY, b = GM_RGSET_EMPTY, want = GM_RGSET_EMPTY;
    gm_rgset_add(&a, 1);
    gm_rgset_add(&a, 70);
    gm_rgset_add(&b, 70);
    gm_rgset_add(&b, 128);
    gm_rgset_add(&want, 1);
    gm_rgset_add(&want, 70);
    gm_rgset_add(&want, 128);
    assert_false(gm_rgset_equal(&a, &want));
    gm_rgset_union(&a, &b);
    assert_true(gm_rgset_equal(&a, &want));
    assert_true(gm_rgset_has(&b, 128) && !gm_rgset_has(&b, 1)); /* b unchanged */
    struct gm_rgset e = GM_RGSET_EMPTY;
    gm_rgset_union(&e, &GM_RGSET_EMPTY);
    assert_true(gm_rgset_empty(&e));
}

static void test_all(void **state)
{
    (void)state;
    struct gm_rgset s = gm_rgset_all();
    for (unsigned g = 0; g < GM_RGSET_NBITS; g++)
        assert_true(gm_rgset_has(&s, g));
    /* the bits past the last group stay clear */
    assert_int_equal(s.w[2], (UINT64_C(1) << (130 - 128)) - 1);
    assert_false(gm_rgset_empty(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_has_next),
        cmocka_unit_test(test_del),
        cmocka_unit_test(test_union_equal),
        cmocka_unit_test(test_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

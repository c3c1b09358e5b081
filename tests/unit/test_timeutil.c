/* test_timeutil.c -- unit tests for src/core/timeutil.c.
 *
 * Duration parsing (a table of good and bad inputs, including overflow);
 * wall-clock formatting in several time zones -- UTC, east (+08:00), west
 * (-05:00, and -04:00 in summer), half-hour zones both sides (+05:30,
 * -03:30) -- for the ISO, nvidia-smi and day formats; the local midnight
 * boundary for daily files; the two clocks; absolute sleeps.
 *
 * Zones are given twice: as POSIX TZ strings, which need no tzdata and so
 * always run, and by tz database name (Asia/Shanghai, ...), which run when
 * /usr/share/zoneinfo has them and are reported as skipped rows otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/timeutil.h"

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NS INT64_C(1000000000)
#define MS INT64_C(1000000)

/* 2026-12-02T02:00:00Z and 2026-07-14T12:00:00Z */
#define T_DEC INT64_C(1796176800)
#define T_JUL INT64_C(1784030400)

/* Sets TZ; returns 0 if a named zone is not installed (row skipped). */
static int use_tz(const char *tz)
{
    if (strchr(tz, '/')) {
        char path[256];
        snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", tz);
        if (access(path, R_OK) != 0) {
            print_message("skipping zone %s: not installed\n", tz);
            return 0;
        }
    }
    setenv("TZ", tz, 1);
    tzset();
    return 1;
}

/* --------------------------------------------------------- gm_parse_duration */

static void test_parse_duration(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int rc;
        int64_t ns;
    } rows[] = {
        {"500ms", 0, 500 * MS},
        {"10s", 0, 10 * NS},
        {"1m", 0, 60 * NS},
        {"1min", 0, 60 * NS},
        {"1.5m", 0, 90 * NS},
        {"1.5h", 0, 5400 * NS},
        {"1d", 0, 86400 * NS},
        {"2", 0, 2 * NS}, /* bare number: seconds */
        {"0", 0, 0},
        {"0s", 0, 0},
        {"0.5", 0, 500 * MS},
        {"250us", 0, 250000},
        {"0.001s", 0, 1 * MS},
        {"100d", 0, 100 * 86400 * NS},
        /* errors */
        {"-1", GM_E_INVAL, 0},
        {"-1s", GM_E_INVAL, 0},
        {"10x", GM_E_INVAL, 0},
        {"10S", GM_E_INVAL, 0}, /* units are lower case */
        {"10 s", GM_E_INVAL, 0},
        {"10s ", GM_E_INVAL, 0},
        {"10ss", GM_E_INVAL, 0},
        {"", GM_E_INVAL, 0},
        {"s", GM_E_INVAL, 0},
        {"ms", GM_E_INVAL, 0},
        {"nan", GM_E_INVAL, 0},
        {"inf", GM_E_INVAL, 0},
        {"1e400", GM_E_INVAL, 0}, /* strtod overflow */
        {"1e30", GM_E_INVAL, 0},  /* finite but past int64 ns */
        {"99999999999999999999d", GM_E_INVAL, 0},
        {"300000000000h", GM_E_INVAL, 0},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        int64_t ns = -777; /* must stay untouched on error */
        int rc = gm_parse_duration(rows[i].in, &ns);
        int64_t want = rows[i].rc ? -777 : rows[i].ns;
        if (rc != rows[i].rc || ns != want) {
            print_error("gm_parse_duration(\"%s\") = %d, ns %lld; want %d, ns %lld\n", rows[i].in,
                        rc, (long long)ns, rows[i].rc, (long long)want);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    int64_t ns = -777;
    assert_int_equal(gm_parse_duration(NULL, &ns), GM_E_INVAL);
    assert_true(ns == -777);
}

/* gm_duration_fine: exact, and read back to the same nanoseconds (config
 * show printed a finer duration as whole milliseconds: "for = 1us" as
 * "0ms", found by tests/fuzz/fuzz_config). */
static void test_duration_fine(void **state)
{
    (void)state;
    static const struct {
        int64_t ns;
        const char *text;
    } rows[] = {
        {0, "0ms"},
        {250 * MS, "250ms"},
        {1500 * MS, "1500ms"},
        {1000, "1us"},
        {1500000, "1500us"},
        {100500000, "100500us"},
        {1, "0.001us"},
        {1500, "1.500us"},
        {3 * NS + 7, "3000000.007us"},
        {86400 * NS + 1, "86400000000.001us"},
    };
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        char buf[64];
        int64_t back = -1;
        gm_duration_fine(rows[i].ns, buf, sizeof(buf));
        if (strcmp(buf, rows[i].text) != 0 || gm_parse_duration(buf, &back) != 0 ||
            back != rows[i].ns) {
            print_error("gm_duration_fine(%lld) = \"%s\", reads back as %lld; want \"%s\"\n",
                        (long long)rows[i].ns, buf, (long long)back, rows[i].text);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* -------------------------------------------------------------- formatting */

struct tz_row {
    const char *tz;
    int64_t wall_ns;
    const char *iso;
    const char *smi;
    const char *day;
    int32_t offset;
};

static const struct tz_row tz_rows[] = {
    /* UTC */
    {"UTC0", T_DEC *NS + 123 * MS, "2026-12-02T02:00:00.123+00:00", "2026/12/02 02:00:00.123",
     "20261202", 0},
    {"UTC", T_DEC *NS + 123 * MS, "2026-12-02T02:00:00.123+00:00", "2026/12/02 02:00:00.123",
     "20261202", 0},
    /* east of Greenwich */
    {"CST-8", T_DEC *NS + 123 * MS, "2026-12-02T10:00:00.123+08:00", "2026/12/02 10:00:00.123",
     "20261202", 8 * 3600},
    {"Asia/Shanghai", T_DEC *NS + 123 * MS, "2026-12-02T10:00:00.123+08:00",
     "2026/12/02 10:00:00.123", "20261202", 8 * 3600},
    /* west: the local date is the day before */
    {"EST5", T_DEC *NS + 123 * MS, "2026-12-01T21:00:00.123-05:00", "2026/12/01 21:00:00.123",
     "20261201", -5 * 3600},
    {"America/New_York", T_DEC *NS + 123 * MS, "2026-12-01T21:00:00.123-05:00",
     "2026/12/01 21:00:00.123", "20261201", -5 * 3600},
    {"America/New_York", T_JUL *NS, "2026-07-14T08:00:00.000-04:00", "2026/07/14 08:00:00.000",
     "20260714", -4 * 3600}, /* daylight saving time */
    /* half-hour zones */
    {"IST-5:30", T_DEC *NS + 123 * MS, "2026-12-02T07:30:00.123+05:30", "2026/12/02 07:30:00.123",
     "20261202", 5 * 3600 + 1800},
    {"Asia/Kolkata", T_DEC *NS + 123 * MS, "2026-12-02T07:30:00.123+05:30",
     "2026/12/02 07:30:00.123", "20261202", 5 * 3600 + 1800},
    {"NST3:30", T_DEC *NS + 123 * MS, "2026-12-01T22:30:00.123-03:30", "2026/12/01 22:30:00.123",
     "20261201", -(3 * 3600 + 1800)},
    {"America/St_Johns", T_DEC *NS + 123 * MS, "2026-12-01T22:30:00.123-03:30",
     "2026/12/01 22:30:00.123", "20261201", -(3 * 3600 + 1800)},
    {"Asia/Kathmandu", T_DEC *NS, "2026-12-02T07:45:00.000+05:45", "2026/12/02 07:45:00.000",
     "20261202", 5 * 3600 + 2700},
    /* milliseconds are truncated, never rounded up into the next second */
    {"UTC0", T_DEC *NS + 999999999, "2026-12-02T02:00:00.999+00:00", "2026/12/02 02:00:00.999",
     "20261202", 0},
    /* before the epoch: floor, not truncation toward zero */
    {"UTC0", -1, "1969-12-31T23:59:59.999+00:00", "1969/12/31 23:59:59.999", "19691231", 0},
    {"UTC0", -NS - 500 * MS, "1969-12-31T23:59:58.500+00:00", "1969/12/31 23:59:58.500", "19691231",
     0},
    {"UTC0", 0, "1970-01-01T00:00:00.000+00:00", "1970/01/01 00:00:00.000", "19700101", 0},
};

static void test_time_formats(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < N_ELEM(tz_rows); i++) {
        const struct tz_row *r = &tz_rows[i];
        if (!use_tz(r->tz))
            continue;
        char buf[64];
        const char *got = gm_time_iso(r->wall_ns, buf, sizeof(buf));
        if (got != buf || strcmp(got, r->iso) != 0) {
            print_error("TZ=%s gm_time_iso(%lld) = \"%s\", want \"%s\"\n", r->tz,
                        (long long)r->wall_ns, got, r->iso);
            bad++;
        }
        got = gm_time_smi(r->wall_ns, buf, sizeof(buf));
        if (got != buf || strcmp(got, r->smi) != 0) {
            print_error("TZ=%s gm_time_smi(%lld) = \"%s\", want \"%s\"\n", r->tz,
                        (long long)r->wall_ns, got, r->smi);
            bad++;
        }
        got = gm_time_day(r->wall_ns, buf, sizeof(buf));
        if (got != buf || strcmp(got, r->day) != 0) {
            print_error("TZ=%s gm_time_day(%lld) = \"%s\", want \"%s\"\n", r->tz,
                        (long long)r->wall_ns, got, r->day);
            bad++;
        }
        int32_t off = gm_utc_offset(r->wall_ns);
        if (off != r->offset) {
            print_error("TZ=%s gm_utc_offset = %d, want %d\n", r->tz, off, r->offset);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* The day changes at local midnight, not at UTC midnight. */
static void test_day_across_local_midnight(void **state)
{
    (void)state;
    /* 2026-12-01T15:59:59Z = 23:59:59 in Shanghai */
    const int64_t before = INT64_C(1796140799) * NS + 999 * MS;
    const int64_t after = before + MS;
    static const struct {
        const char *tz;
        const char *day_before, *day_after;
    } rows[] = {
        {"CST-8", "20261201", "20261202"},
        {"Asia/Shanghai", "20261201", "20261202"},
        {"UTC0", "20261201", "20261201"}, /* 15:59 / 16:00 UTC: same day */
    };
    for (size_t i = 0; i < N_ELEM(rows); i++) {
        if (!use_tz(rows[i].tz))
            continue;
        char a[16], b[16], t[64];
        assert_string_equal(gm_time_day(before, a, sizeof(a)), rows[i].day_before);
        assert_string_equal(gm_time_day(after, b, sizeof(b)), rows[i].day_after);
        if (strcmp(rows[i].tz, "UTC0") != 0) {
            assert_string_equal(gm_time_iso(before, t, sizeof(t)), "2026-12-01T23:59:59.999+08:00");
            assert_string_equal(gm_time_iso(after, t, sizeof(t)), "2026-12-02T00:00:00.000+08:00");
        }
    }
}

/* Short buffers truncate and stay NUL-terminated; nothing past len is written. */
static void test_short_buffers(void **state)
{
    (void)state;
    assert_true(use_tz("UTC0"));
    static const size_t lens[] = {1, 5, 11, 20};
    for (size_t i = 0; i < N_ELEM(lens); i++) {
        char buf[64];
        memset(buf, 'X', sizeof(buf));
        gm_time_iso(T_DEC * NS, buf, lens[i]);
        assert_int_equal(strlen(buf), lens[i] - 1);
        assert_memory_equal(buf, "2026-12-02T02:00:00.000+00:00", lens[i] - 1);
        assert_int_equal(buf[lens[i]], 'X');
        memset(buf, 'X', sizeof(buf));
        gm_time_smi(T_DEC * NS, buf, lens[i]);
        assert_int_equal(strlen(buf), lens[i] - 1);
        assert_int_equal(buf[lens[i]], 'X');
    }
}

/* ------------------------------------------------------------------ clocks */

static void test_clocks(void **state)
{
    (void)state;
    int64_t w = gm_wall_ns();
    time_t now = time(NULL);
    assert_true(w / NS >= now - 2 && w / NS <= now + 2);
    int64_t m1 = gm_mono_ns();
    int64_t m2 = gm_mono_ns();
    assert_true(m1 > 0);
    assert_true(m2 >= m1);
}

static void test_sleep_until(void **state)
{
    (void)state;
    volatile sig_atomic_t stop = 0;
    /* a deadline in the past returns at once */
    int64_t t0 = gm_mono_ns();
    assert_int_equal(gm_sleep_until(t0 - NS, &stop), 0);
    /* an absolute deadline: never early */
    int64_t deadline = gm_mono_ns() + 20 * MS;
    assert_int_equal(gm_sleep_until(deadline, &stop), 0);
    assert_true(gm_mono_ns() >= deadline);
    assert_true(gm_mono_ns() - deadline < 2 * NS);
    /* a stop request already made returns 1 without sleeping */
    stop = 1;
    t0 = gm_mono_ns();
    assert_int_equal(gm_sleep_until(t0 + 10 * NS, &stop), 1);
    assert_true(gm_mono_ns() - t0 < NS);
    /* stop may be NULL */
    assert_int_equal(gm_sleep_until(gm_mono_ns() + MS, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_duration),
        cmocka_unit_test(test_duration_fine),
        cmocka_unit_test(test_time_formats),
        cmocka_unit_test(test_day_across_local_midnight),
        cmocka_unit_test(test_short_buffers),
        cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_sleep_until),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

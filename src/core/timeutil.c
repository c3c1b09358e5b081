/* timeutil.c -- clocks, time formatting, duration parsing, absolute sleeps. */
#include "timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t gm_wall_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}

int64_t gm_mono_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

static void local_tm(int64_t wall_ns, struct tm *tm)
{
    time_t t = (time_t)(wall_ns / 1000000000LL);
    if (wall_ns < 0 && wall_ns % 1000000000LL)
        t -= 1;
    localtime_r(&t, tm);
}

static int millis(int64_t wall_ns)
{
    int64_t r = wall_ns % 1000000000LL;
    if (r < 0)
        r += 1000000000LL;
    return (int)(r / 1000000);
}

int32_t gm_utc_offset(int64_t wall_ns)
{
    struct tm tm;
    local_tm(wall_ns, &tm);
    return (int32_t)tm.tm_gmtoff;
}

const char *gm_time_iso(int64_t wall_ns, char *buf, size_t len)
{
    struct tm tm;
    local_tm(wall_ns, &tm);
    long off = tm.tm_gmtoff;
    char sign = off < 0 ? '-' : '+';
    if (off < 0)
        off = -off;
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%c%02ld:%02ld", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis(wall_ns), sign,
             off / 3600, (off / 60) % 60);
    return buf;
}

const char *gm_time_smi(int64_t wall_ns, char *buf, size_t len)
{
    struct tm tm;
    local_tm(wall_ns, &tm);
    snprintf(buf, len, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis(wall_ns));
    return buf;
}

const char *gm_time_day(int64_t wall_ns, char *buf, size_t len)
{
    struct tm tm;
    local_tm(wall_ns, &tm);
    snprintf(buf, len, "%04d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    return buf;
}

int gm_parse_duration(const char *s, int64_t *ns)
{
    if (!s || !*s)
        return GM_E_INVAL;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return GM_E_INVAL;
    double mul;
    if (*end == '\0' || strcmp(end, "s") == 0)
        mul = 1e9;
    else if (strcmp(end, "ms") == 0)
        mul = 1e6;
    else if (strcmp(end, "us") == 0)
        mul = 1e3;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mul = 60e9;
    else if (strcmp(end, "h") == 0)
        mul = 3600e9;
    else if (strcmp(end, "d") == 0)
        mul = 86400e9;
    else if (strcmp(end, "w") == 0)
        mul = 7 * 86400e9;
    else if (strcmp(end, "y") == 0)
        mul = 365 * 86400e9;
    else
        return GM_E_INVAL;
    double r = v * mul;
    if (r > 9.2e18)
        return GM_E_INVAL;
    *ns = (int64_t)llround(r);
    return 0;
}

void gm_duration_fine(int64_t ns, char *buf, size_t len)
{
    if (ns % 1000000 == 0)
        snprintf(buf, len, "%lldms", (long long)(ns / 1000000));
    else if (ns % 1000 == 0)
        snprintf(buf, len, "%lldus", (long long)(ns / 1000));
    else
        snprintf(buf, len, "%lld.%03lldus", (long long)(ns / 1000), (long long)(ns % 1000));
}

int gm_sleep_until(int64_t deadline, volatile sig_atomic_t *stop)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000LL),
                          .tv_nsec = (long)(deadline % 1000000000LL)};
    for (;;) {
        if (stop && *stop)
            return 1;
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc == 0)
            return (stop && *stop) ? 1 : 0;
        if (rc != EINTR)
            return 0;
    }
}

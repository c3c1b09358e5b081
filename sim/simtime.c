/* simtime.c -- scenario time: how the simulated timeline follows the clock.
 *
 * t = GPUSIM_TIME when set (pinned: every call sees the same instant), else
 * (now - epoch) * GPUSIM_SPEED, where epoch is GPUSIM_EPOCH (unix seconds) or
 * the time of the process's first nvmlInit.  A shared GPUSIM_EPOCH puts
 * several processes (the demo, gpumon, nvtop) on one timeline.  Wall-clock
 * timestamps that NVML returns (samples, field values, events) are the unix
 * time at which scenario time t happens: epoch + t / speed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpusim.h"

static int env_double(const char *name, double *out, bool *set, char *err, size_t errlen)
{
    const char *v = getenv(name);
    *set = false;
    if (!v || !*v)
        return 0;
    if (gs_parse_double(v, out) != 0) {
        snprintf(err, errlen, "%s: bad value '%s' (expected a number of seconds)", name, v);
        return -1;
    }
    *set = true;
    return 0;
}

int gs_timecfg_from_env(struct gs_timecfg *tc, double default_epoch, char *err, size_t errlen)
{
    bool set;
    double v;

    tc->pinned = false;
    tc->pinned_t = 0;
    tc->speed = 1;
    tc->epoch = default_epoch;
    if (env_double("GPUSIM_TIME", &v, &set, err, errlen) != 0)
        return -1;
    if (set) {
        if (v < 0) {
            snprintf(err, errlen, "GPUSIM_TIME: must not be negative");
            return -1;
        }
        tc->pinned = true;
        tc->pinned_t = v;
    }
    if (env_double("GPUSIM_SPEED", &v, &set, err, errlen) != 0)
        return -1;
    if (set) {
        if (!(v > 0) || v > 1e6) {
            snprintf(err, errlen, "GPUSIM_SPEED: must be above 0 (1 = real time)");
            return -1;
        }
        tc->speed = v;
    }
    if (env_double("GPUSIM_EPOCH", &v, &set, err, errlen) != 0)
        return -1;
    if (set)
        tc->epoch = v;
    return 0;
}

double gs_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double gs_time_now(const struct gs_timecfg *tc)
{
    if (tc->pinned)
        return tc->pinned_t;
    double t = (gs_wall_now() - tc->epoch) * tc->speed;
    return t > 0 ? t : 0;
}

unsigned long long gs_time_to_wall_us(const struct gs_timecfg *tc, double t)
{
    double wall = tc->epoch + t / tc->speed;
    return wall > 0 ? (unsigned long long)llround(wall * 1e6) : 0;
}

/* clockstep.c -- an LD_PRELOAD shim for tests: steps a process's wall clock
 * without root and without touching the system clock.
 *
 * CLOCK_REALTIME (and CLOCK_REALTIME_COARSE) read through clock_gettime is
 * offset by the signed number of nanoseconds written in the file named by
 * $GPUMON_TEST_CLOCK_OFFSET_FILE (missing or unreadable: 0).  The file is
 * read again at most every 10 ms of monotonic time, so a test steps the clock
 * by rewriting the file (`echo -5000000000 > f` is an NTP step back of 5 s).
 * CLOCK_MONOTONIC is left alone, as a real step leaves it.  gettimeofday and
 * time(2) are not covered: gpumon reads the wall clock through clock_gettime
 * only (src/core/timeutil.c).
 *
 * Built by tests/e2e/meson.build as a module that is never installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static _Atomic(clock_gettime_fn) real_fn;
static _Atomic int64_t offset_ns;
static _Atomic int64_t next_read_ns = INT64_MIN;

static clock_gettime_fn real(void)
{
    clock_gettime_fn f = atomic_load(&real_fn);
    if (!f) {
        f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        atomic_store(&real_fn, f);
    }
    return f;
}

static int64_t read_offset(void)
{
    const char *path = getenv("GPUMON_TEST_CLOCK_OFFSET_FILE");
    if (!path || !*path)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtoll(buf, NULL, 10);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    clock_gettime_fn f = real();
    if (!f)
        return -1;
    int rc = f(id, ts);
    if (rc != 0 || (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE))
        return rc;
    struct timespec m;
    if (f(CLOCK_MONOTONIC, &m) == 0) {
        int64_t now = (int64_t)m.tv_sec * 1000000000LL + m.tv_nsec;
        int64_t due = atomic_load(&next_read_ns);
        if (now >= due && atomic_compare_exchange_strong(&next_read_ns, &due, now + 10000000LL))
            atomic_store(&offset_ns, read_offset());
    }
    int64_t t = (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec + atomic_load(&offset_ns);
    ts->tv_sec = (time_t)(t / 1000000000LL);
    ts->tv_nsec = (long)(t % 1000000000LL);
    if (ts->tv_nsec < 0) {
        ts->tv_nsec += 1000000000L;
        ts->tv_sec -= 1;
    }
    return 0;
}

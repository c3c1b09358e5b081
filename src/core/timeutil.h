/* timeutil.h -- the two clocks (DESIGN principle 4) and time formatting.
 *
 * Wall-clock time is UTC nanoseconds since the epoch (CLOCK_REALTIME) and is
 * shown with the host's UTC offset; durations, rates and cadence use
 * CLOCK_MONOTONIC.  Formatting uses the process's TZ (localtime_r).
 */
#ifndef GM_TIMEUTIL_H
#define GM_TIMEUTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

int64_t gm_wall_ns(void);
int64_t gm_mono_ns(void);

/* Local UTC offset in seconds at wall time ns. */
int32_t gm_utc_offset(int64_t wall_ns);

/* ISO 8601 with milliseconds and offset: 2026-12-02T10:00:00.000+08:00 */
const char *gm_time_iso(int64_t wall_ns, char *buf, size_t len);

/* nvidia-smi's timestamp: 2026/12/02 10:00:00.000 (local time) */
const char *gm_time_smi(int64_t wall_ns, char *buf, size_t len);

/* Local calendar day as YYYYMMDD (for daily files). */
const char *gm_time_day(int64_t wall_ns, char *buf, size_t len);

/* Parses a duration with an optional unit (ms, us, s, m, h, d, w, y = 365 d;
 * bare = seconds):
 * "500ms", "10s", "1.5m", "2".  Returns 0 and *ns, or GM_E_INVAL. */
int gm_parse_duration(const char *s, int64_t *ns);

/* ns (>= 0) exactly, as gm_parse_duration reads it back: "250ms" when it is
 * whole milliseconds, else "1500us", else "0.001us" (durations are whole
 * nanoseconds).  The last resort of the printers that prefer s, m, h or d
 * (config show): printing "%lldms" of a finer duration lost the rest. */
void gm_duration_fine(int64_t ns, char *buf, size_t len);

/* Sleeps until the monotonic deadline (absolute), restarting on EINTR
 * unless *stop becomes non-zero.  Returns 0, or 1 when stopped.  stop (may
 * be NULL) is a flag a signal handler sets, hence volatile sig_atomic_t. */
int gm_sleep_until(int64_t mono_deadline_ns, volatile sig_atomic_t *stop);

#endif /* GM_TIMEUTIL_H */

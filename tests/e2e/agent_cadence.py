#!/usr/bin/env python3
"""Drift-free cadence over 1000 samples (about 100 s; suites e2e and slow).

The agent samples at --interval 100ms until it has taken 1000 samples.  From
the CSV time column (wall clock, millisecond resolution) of samples
i = 0..999, with lateness L_i = (t_i - i * 100 ms) - min_j (t_j - j * 100 ms)
(a sample is never early: the sampler waits for absolute deadlines, so the
least late sample marks the grid):

  - no sample added, none skipped unseen: one sample per grid point, a point
    missing only where the agent's status counts a skipped deadline (a
    machine that holds the sampler past a whole interval makes it skip, and
    it says so; how often is make bench's, not this test's);
  - no accumulation: the median lateness of the last 100 samples exceeds
    that of the first 100 by at most 1 ms + 1 ms (timestamp resolution), i.e.
    under 2 us of drift per sample;
  - per sample: L_i <= 1 ms + 1 ms resolution for at least 95 % of samples
    (the rest is scheduler latency on a loaded machine -- measured up to 2 %
    of samples and 21 ms with the ASan build beside other tests on 2 cores --
    which does not carry over to the next sample), plus as many samples as a
    reference sleeper was late by more than 1 ms in the same run, and
    L_i < 50 ms plus the reference sleeper's worst lateness for all;
  - the store has the same 1000+ samples.

The reference sleeper is a separate process that waits for the same grid
(absolute deadlines 100 ms apart on CLOCK_MONOTONIC) for as long as the
agent runs and records how late each wake-up was: what the machine gave any
program at that moment.  Unloaded it is late by more than 1 ms a handful of
times at most and never by much, so the bounds stay 5 % and 50 ms; with two
busy loops beside other work on 2 cores (load 3-5) it was late 15-43 times
in 1000, by up to 37 ms, and the agent's sampler, which the machine treats
the same, 3-62 times, by up to 50 ms and more (the fixed bounds failed 2
runs in 7; the grid check used round((t_i - t_0) / 100 ms), which reads a
sample 50 ms late as one in the next slot).

A sampler that sleeps an interval after each sample drifts by the sample's
duration every time (0.1 ms and more) and fails the accumulation check by two
orders of magnitude.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import statistics
import subprocess
import sys

from agentlib import (Agent, Scratch, check, check_eq, check_grid, check_whole_samples,
                      db_samples, gpu_rows, grid_points, main, sim_env)

N = 1000
INTERVAL = 100  # ms
RES = 1  # ms, of the CSV time column

# The reference sleeper: n wake-ups on a grid of interval ms from its start;
# writes each wake-up's lateness in ns, one a line.
REFERENCE = """
import sys, time
n, iv, out = int(sys.argv[1]), int(sys.argv[2]) * 1000000, sys.argv[3]
t0 = time.monotonic_ns()
late = []
for k in range(1, n + 1):
    d = t0 + k * iv
    now = time.monotonic_ns()
    if d > now:
        time.sleep((d - now) / 1e9)
    late.append(time.monotonic_ns() - d)
with open(out, "w") as f:
    f.write("".join(f"{x}\\n" for x in late))
"""


def test_cadence():
    env = sim_env(pinned=100)
    with Scratch("cad") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", f"{INTERVAL}ms"])
        ref_out = os.path.join(d, "reference")
        ref = None
        try:
            a.start()
            ref = subprocess.Popen([sys.executable, "-c", REFERENCE, str(N), str(INTERVAL),
                                    ref_out])
            st = a.wait_samples(N + 1, timeout=N * INTERVAL / 1000 + 40)
            counted = a.skip_count()
            rc, _ = a.stop()
            check_eq(ref.wait(timeout=30), 0, "the reference sleeper's exit status")
        finally:
            if ref is not None and ref.poll() is None:
                ref.kill()
                ref.wait()
            a.cleanup()
        with open(ref_out) as f:
            ref_late = [int(x) / 1e6 for x in f.read().split()]
        check_eq(len(ref_late), N, "reference wake-ups")
        ref_over = sum(1 for x in ref_late if x > 1)
        check_eq(rc, 0, "exit status", a.log())
        rows = gpu_rows(os.path.join(data, "csv"))
        times = check_whole_samples(rows, 8, "CSV")
        check(len(times) >= N, f"{len(times)} samples, want {N}")
        # one sample per grid point; a point missing only where the agent
        # counted a skipped deadline (the machine held it past a whole
        # interval: that is reported, not hidden, and not drift)
        check_grid(times, INTERVAL, "CSV", counted=counted)
        t = times[:N]
        pts = grid_points(t, INTERVAL)
        e = [x - p * INTERVAL for p, x in zip(pts, t)]
        base = min(e)
        late = [x - base for x in e]
        drift = statistics.median(late[-100:]) - statistics.median(late[:100])
        over = [(i, v) for i, v in enumerate(late) if v > 1 + RES]
        span = t[-1] - t[0]
        print(f"  span {span} ms for {N - 1} intervals; lateness median "
              f"{statistics.median(late)} ms, max {max(late)} ms; drift {drift} ms over {N} "
              f"samples; {len(over)} samples later than {1 + RES} ms")
        print(f"  reference sleeper: {ref_over} of {N} wake-ups later than 1 ms, median "
              f"{statistics.median(ref_late):.3f} ms, max {max(ref_late):.3f} ms")
        check(abs(drift) <= 1 + RES, f"drift {drift} ms over {N} samples (at most {1 + RES})",
              late[:20], late[-20:])
        allowed = N // 20 + ref_over
        check(len(over) <= allowed, f"{len(over)} samples later than {1 + RES} ms (at most "
              f"{N // 20} + {ref_over}, the reference sleeper's late wake-ups)", over[:20])
        worst = 50 + max(ref_late)
        check(max(late) < worst, f"a sample {max(late)} ms late (at most 50 + "
              f"{max(ref_late):.1f}, the reference sleeper's worst)", over[:20])
        srows = db_samples(os.path.join(data, "gpumon.db"))
        check_eq(sorted({r[0] for r in srows}), times, "store sample times = CSV times")
        check_eq(len(srows), len(rows), "store rows")


if __name__ == "__main__":
    main([test_cadence])

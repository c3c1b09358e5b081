#!/usr/bin/env python3
"""Drift-free cadence over 1000 samples (about 100 s; suites e2e and slow).

The agent samples at --interval 100ms until it has taken 1000 samples.  From
the CSV time column (wall clock, millisecond resolution) of samples
i = 0..999, with lateness L_i = (t_i - i * 100 ms) - min_j (t_j - j * 100 ms)
(a sample is never early: the sampler waits for absolute deadlines, so the
least late sample marks the grid):

  - no sample skipped or added: round((t_i - t_0) / 100 ms) == i for every i,
    and --status reports no overrun and no skipped deadline;
  - no accumulation: the median lateness of the last 100 samples exceeds
    that of the first 100 by at most 1 ms + 1 ms (timestamp resolution), i.e.
    under 2 us of drift per sample;
  - per sample: L_i <= 1 ms + 1 ms resolution for at least 95 % of samples
    (the rest is scheduler latency on a loaded machine -- measured up to 2 %
    of samples and 21 ms with the ASan build beside other tests on 2 cores --
    which does not carry over to the next sample) and L_i < 50 ms for all;
  - the store has the same 1000+ samples.

A sampler that sleeps an interval after each sample drifts by the sample's
duration every time (0.1 ms and more) and fails the accumulation check by two
orders of magnitude.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import statistics

from agentlib import (Agent, Scratch, check, check_eq, check_whole_samples, db_samples, gpu_rows,
                      main, sim_env)

N = 1000
INTERVAL = 100  # ms
RES = 1  # ms, of the CSV time column


def test_cadence():
    env = sim_env(pinned=100)
    with Scratch("cad") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", f"{INTERVAL}ms"])
        try:
            a.start()
            st = a.wait_samples(N + 1, timeout=N * INTERVAL / 1000 + 40)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        check_eq((st["overruns"], st["skipped"]), (0, 0), "overruns and skipped deadlines", st)
        rows = gpu_rows(os.path.join(data, "csv"))
        times = check_whole_samples(rows, 8, "CSV")
        check(len(times) >= N, f"{len(times)} samples, want {N}")
        t = times[:N]
        idx = [round((x - t[0]) / INTERVAL) for x in t]
        bad = [(i, j) for i, j in enumerate(idx) if i != j]
        check(not bad, "samples off their place in the grid (skipped or extra)", bad[:10])
        e = [x - i * INTERVAL for i, x in enumerate(t)]
        base = min(e)
        late = [x - base for x in e]
        drift = statistics.median(late[-100:]) - statistics.median(late[:100])
        over = [(i, v) for i, v in enumerate(late) if v > 1 + RES]
        span = t[-1] - t[0]
        print(f"  span {span} ms for {N - 1} intervals; lateness median "
              f"{statistics.median(late)} ms, max {max(late)} ms; drift {drift} ms over {N} "
              f"samples; {len(over)} samples later than {1 + RES} ms")
        check(abs(drift) <= 1 + RES, f"drift {drift} ms over {N} samples (at most {1 + RES})",
              late[:20], late[-20:])
        check(len(over) <= N // 20, f"{len(over)} samples later than {1 + RES} ms (at most "
              f"{N // 20})", over[:20])
        check(max(late) < 50, f"a sample {max(late)} ms late", over[:20])
        srows = db_samples(os.path.join(data, "gpumon.db"))
        check_eq(sorted({r[0] for r in srows}), times, "store sample times = CSV times")
        check_eq(len(srows), len(rows), "store rows")


if __name__ == "__main__":
    main([test_cadence])

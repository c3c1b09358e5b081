#!/usr/bin/env python3
"""The wall clock steps back under a running agent (an NTP step, a VM resume).

The agent runs with clockstep.c preloaded: its CLOCK_REALTIME is offset by
the nanoseconds written in a file, so the test steps the agent's clock, and
only the agent's, without root.

  step_back: at a 500 ms interval, the clock steps back 5 s (ten intervals:
      the samples after the step repeat the times, to the millisecond, of
      samples already written).  The agent logs the step once, with its
      size, and records it as an agent event in the CSV log and the store;
      its status counts it; the CSV log and the store hold the same rows (8
      per sample, the repeated times twice in both: none dropped), and the
      store's dup column tells a repeated row from the first.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT, CLOCKSTEP_LIB (the
shim), CLOCKSTEP_ASAN_RT (the ASan runtime, when gpumon is sanitized).
"""
import collections
import os
import time

from agentlib import (Agent, Scratch, Skip, check, check_eq, db_integrity, db_query,
                      event_rows, gpu_rows, main, parse_time_ms, sim_env)

NGPU = 8
STEP_NS = -5_000_000_000


def shim_env(offset_file):
    lib = os.environ.get("CLOCKSTEP_LIB")
    if not lib or not os.path.exists(lib):
        raise Skip("the clockstep shim is not built (run through meson test)")
    preload = [p for p in (os.environ.get("CLOCKSTEP_ASAN_RT"), lib) if p]
    env = sim_env(pinned=100, LD_PRELOAD=":".join(preload),
                  GPUMON_TEST_CLOCK_OFFSET_FILE=offset_file)
    if os.environ.get("CLOCKSTEP_ASAN_RT"):
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def write_offset(path, ns):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{ns}\n")
    os.replace(tmp, path)


def test_step_back():
    with Scratch("clk") as d:
        data = os.path.join(d, "data")
        off = os.path.join(d, "offset")
        write_offset(off, 0)
        a = Agent(data, shim_env(off), ["--interval", "500ms"])
        try:
            a.start()
            st = a.wait_samples(6)
            write_offset(off, STEP_NS)
            a.wait_samples(st["samples"] + 16, timeout=20)
            st = a.status()
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        lines = a.log_lines()
        steps = [x for x in lines if "wall clock stepped back" in x]
        check_eq(len(steps), 1, "log lines for the step", a.log())
        check("by 5.0" in steps[0], "the log line gives the step's size", steps[0])
        check_eq(st.get("clock_steps_back"), 1, "--status clock_steps_back", st)

        csv_dir = os.path.join(data, "csv")
        rows = gpu_rows(csv_dir)
        times = [parse_time_ms(r[0]) for r in rows]
        back = [i for i in range(1, len(times)) if times[i] < times[i - 1]]
        check_eq(len(back), 1, "places where the CSV's times go back (the step)",
                 times[:: NGPU])
        check(times[back[0] - 1] - times[back[0]] > 4000, "the CSV's times go back ~5 s",
              times[back[0] - 1], times[back[0]])
        csv_keys = collections.Counter((t, r[3]) for t, r in zip(times, rows))
        repeated = sum(1 for n in csv_keys.values() if n > 1)

        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity")
        srows = db_query(db, "SELECT s.ts, g.gpu_index, s.dup FROM samples s JOIN gpus g ON "
                         "g.id = s.gpu ORDER BY s.ts, g.gpu_index, s.dup")
        store_keys = collections.Counter((ts, str(g)) for ts, g, _ in srows)
        only_csv = csv_keys - store_keys
        only_store = store_keys - csv_keys
        check(not only_csv and not only_store,
              f"CSV and store rows differ: {sum(only_csv.values())} only in the CSV (e.g. "
              f"{sorted(only_csv)[:3]}), {sum(only_store.values())} only in the store "
              f"({repeated} (time, GPU) keys repeat in the CSV)")
        check_eq(len(rows), NGPU * st["samples"], "CSV rows: 8 per sample")
        # a repeated (ts, gpu) is told apart by dup: 0 for the first, 1 for the next
        dups = collections.defaultdict(list)
        for ts, g, dup in srows:
            dups[(ts, g)].append(dup)
        check(all(v == list(range(len(v))) for v in dups.values()),
              "dup numbers the rows of one (ts, gpu) from 0")
        # the step is on the timeline of both files, once
        ev = [e for e in event_rows(csv_dir) if "wall clock stepped back" in e[7]]
        check_eq(len(ev), 1, "clock events in the CSV", *[e[7] for e in ev])
        sev = db_query(db, "SELECT type, code FROM events WHERE text LIKE "
                       "'wall clock stepped back%'")
        check_eq(len(sev), 1, "clock events in the store", sev)
        check(sev[0][0] == "agent" and -5100 <= sev[0][1] <= -4900,
              "the store's event: type agent, code the step in ms", sev)
        print(f"  {len(rows) // NGPU} samples, {repeated} (time, GPU) keys twice in both files")


if __name__ == "__main__":
    main([test_step_back])

#!/usr/bin/env python3
"""Reloads under way: SIGHUP again and again while the agent samples fast.

  reload_store_retention: 30 reloads, 0.4-1 s apart, at a 150 ms interval,
      alternating the store's raw retention (a store setting: the CSV log's
      settings stay).  Every reload succeeds (one "configuration reloaded"
      line per SIGHUP, no "reload failed", no error or warning in the log,
      no sink dropped or failed anything); the CSV log and the store hold the
      same samples (8 rows each, no duplicate), on the 150 ms grid without a
      gap.
  reload_task: the same, alternating the task (a setting of both the CSV
      log, whose file names and rows carry it, and the store): every sample
      is in exactly one task's CSV file and in the store under that task.

  reload_fifo: the config path is replaced by a FIFO that nobody writes,
      then SIGHUP: the reload fails at once with a message naming the path
      ("not a regular file"), the agent keeps its configuration and keeps
      sampling, and SIGTERM then stops it (exit 0, "stopping" logged).
      Before, the main loop waited in open(2) for a writer, SIGTERM was never
      taken, and systemd's kill lost the final flush.

Before, a reload that changed a store setting opened a second connection
beside the one still writing and could fail on its lock ("database is
locked"), and a snapshot taken during the switch could miss the CSV log.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import random
import signal
import time

from agentlib import (Agent, Scratch, check, check_eq, check_grid, check_no_duplicates,
                      check_whole_samples, db_integrity, db_query, gpu_rows, main, sim_env)

INTERVAL_MS = 150
RELOADS = 30
NGPU = 8


def write_conf(path, body):
    """Replaces the file in one step (the agent never reads half of it)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(body)
    os.replace(tmp, path)


def count_reload_lines(a):
    lines = a.log_lines()
    return (sum("SIGHUP: configuration reloaded" in x for x in lines),
            sum("reload failed" in x for x in lines))


def hammer(a, conf, bodies, rng):
    """RELOADS SIGHUPs, each with the next of bodies written first, each
    after the previous one's log line, 0.4-1 s apart."""
    for i in range(RELOADS):
        t0 = time.monotonic()
        write_conf(conf, bodies[(i + 1) % len(bodies)])
        before = sum(count_reload_lines(a))
        a.send(signal.SIGHUP)
        deadline = time.monotonic() + 60
        while sum(count_reload_lines(a)) == before:
            check(a.alive(), "the agent died during the reloads", a.log())
            check(time.monotonic() < deadline, f"reload {i + 1} not logged within 60 s", a.log())
            time.sleep(0.02)
        pause = rng.uniform(0.4, 1.0) - (time.monotonic() - t0)
        if pause > 0:
            time.sleep(pause)


def run_reloads(tag, bodies, tasks):
    """Runs the agent through RELOADS reloads over bodies; returns (data
    dir, {task: CSV rows}, the store's rows, Agent.skip_count() before the
    stop)."""
    rng = random.Random(tag)
    env = sim_env(pinned=100)
    with Scratch(tag) as d:
        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        write_conf(conf, bodies[0])
        a = Agent(data, env, config=conf)
        try:
            a.start(wait_samples=3)
            hammer(a, conf, bodies, rng)
            st = a.wait_samples(a.status()["samples"] + 3)
            counted = (st["skipped"], st["last_sample_unix_ns"] // 1000000)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        ok, failed = count_reload_lines(a)
        check_eq((ok, failed), (RELOADS, 0), "reloads that succeeded, failed", a.log())
        # a loaded machine's late wake-ups and slow samples are reported (and
        # their skipped deadlines counted for the grid below); nothing else
        # may be
        bad = [x for x in a.log_lines() if (": error: " in x or ": warning: " in x) and
               ": warning: late wake-up: " not in x and ": warning: slow sample: " not in x]
        check(not bad, f"{len(bad)} errors or warnings in the log", *bad[:5])
        for name, k in st["sinks"].items():
            check_eq((k["dropped"], k["errors"]), (0, 0), f"sink {name}: dropped, errors")
        csv_dir = os.path.join(data, "csv")
        rows = {t: gpu_rows(csv_dir, t) for t in tasks}
        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity")
        srows = db_query(db, "SELECT s.ts, g.gpu_index, t.name FROM samples s JOIN gpus g ON "
                         "g.id = s.gpu JOIN tasks t ON t.id = s.task ORDER BY s.ts, g.gpu_index")
        return data, rows, srows, counted


def check_consistent(rows, srows, counted):
    """The CSV rows of every task and the store's rows are the same samples,
    under the same task, on the grid without a gap."""
    times = {}
    for task, rs in rows.items():
        check_no_duplicates(rs, f"CSV of task {task}")
        for t in check_whole_samples(rs, NGPU, f"CSV of task {task}"):
            check(t not in times, f"sample {t} in the CSV of two tasks", task, times.get(t))
            times[t] = task
    grid = sorted(times)
    check(len(grid) > RELOADS * 2, f"samples: {len(grid)}")
    check_grid(grid, INTERVAL_MS, "CSV samples across the reloads", counted=counted)
    store = {}
    for ts, g, task in srows:
        store.setdefault(ts, []).append((g, task))
    missing_csv = sorted(set(store) - set(times))
    missing_store = sorted(set(times) - set(store))
    check(not missing_csv and not missing_store,
          f"samples only in the store: {missing_csv[:5]} ({len(missing_csv)}); only in the "
          f"CSV: {missing_store[:5]} ({len(missing_store)})")
    for t in grid:
        check_eq(store[t], [(g, times[t]) for g in range(NGPU)], f"store rows at {t}")
    return len(grid)


def test_reload_store_retention():
    bodies = [f"[agent]\ninterval = {INTERVAL_MS}ms\nstore-retention-raw = {d}\n"
              for d in ("7d", "8d")]
    _, rows, srows, counted = run_reloads("rlret", bodies, ["default"])
    n = check_consistent(rows, srows, counted)
    print(f"  {RELOADS} reloads, {n} samples in both files")


def test_reload_task():
    bodies = [f"[agent]\ninterval = {INTERVAL_MS}ms\ntask = {t}\n" for t in ("blue", "green")]
    _, rows, srows, counted = run_reloads("rltask", bodies, ["blue", "green"])
    n = check_consistent(rows, srows, counted)
    print(f"  {RELOADS} reloads, {n} samples in both files")


def test_reload_fifo():
    env = sim_env(pinned=100)
    with Scratch("rlfifo") as d:
        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        write_conf(conf, f"[agent]\ninterval = {INTERVAL_MS}ms\n")
        a = Agent(data, env, config=conf)
        try:
            a.start(wait_samples=2)
            os.unlink(conf)
            os.mkfifo(conf)
            a.send(signal.SIGHUP)
            deadline = time.monotonic() + 30
            while count_reload_lines(a)[1] == 0:
                check(a.alive(), "the agent died on the reload", a.log())
                check(time.monotonic() < deadline,
                      "no 'reload failed' within 30 s of SIGHUP (blocked on the FIFO?)", a.log())
                time.sleep(0.05)
            failed = [x for x in a.log_lines() if "reload failed" in x]
            check(conf in failed[0] and "not a regular file" in failed[0],
                  "the reload error names the config and why", failed[0])
            n = a.status()["samples"]
            a.wait_samples(n + 2, timeout=30)  # the main loop and the sampler go on
            rc, _ = a.stop(timeout=30)
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status after SIGTERM", a.log())
        check(any("SIGTERM: stopping" in x for x in a.log_lines()), "SIGTERM taken", a.log())
        check_eq(count_reload_lines(a), (0, 1), "reloads that succeeded, failed", a.log())


if __name__ == "__main__":
    main([test_reload_store_retention, test_reload_task, test_reload_fifo])

#!/usr/bin/env python3
"""A full disk: the agent keeps sampling, counts and logs the loss, and
resumes by itself.

  enospc: the CSV directory is a 256 KiB tmpfs and the store a 16 MiB one
          (mounted here; skipped where mounting is not allowed).  A ballast
          file fills both: sampling goes on (the status counters rise), each
          sink counts errors, the loss is logged once (at most once a
          minute), nothing crashes.  The ballast removed, writing resumes
          without help and the log says so; the CSV has no torn line, its
          header once, and exactly the logged number of rows missing: the
          gap in the 200 ms time grid times 8 GPUs.  The store passes
          integrity_check and has rows from before and after the outage.
  alerts_full: the whole data directory is a 16 MiB tmpfs, filled before
          gpu-temperature-critical fires and resolves
          (scenarios/alerts/temperature-critical.ini at 2x from the
          agent's start) and freed a few
          seconds after: both notices reach alerts.jsonl (whole JSON lines,
          once each, in order) and the store's alerts table, the log says
          the alert log kept them in memory; each CSV file that failed
          says "writing again" for itself, and only once it was written
          again (the GPU file only after space returned), with the rows it
          lost.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import re
import time

from agentlib import (DEADLINE, Agent, Scratch, check, check_eq, check_grid, check_no_duplicates,
                      check_whole_samples, control, day_files, db_integrity, db_query, db_samples,
                      fill_fs, gpu_rows, main, mount_tmpfs, sim_env, stored_samples, umount,
                      wait_until)


def wait_log(a, pattern, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for x in a.log_lines():
            m = re.search(pattern, x)
            if m:
                return m
        check(a.alive(), f"the agent died waiting for {pattern!r}", a.log())
        time.sleep(0.1)
    check(False, f"no {pattern!r} in the log after {timeout} s", a.log())


def test_enospc():
    env = sim_env(pinned=100)
    with Scratch("full") as d:
        data = os.path.join(d, "data")
        csv_dir = os.path.join(d, "csv")
        db_dir = os.path.join(d, "db")
        mounted = []
        a = None
        try:
            mount_tmpfs(csv_dir, "256k")
            mounted.append(csv_dir)
            mount_tmpfs(db_dir, "16m")
            mounted.append(db_dir)
            db = os.path.join(db_dir, "gpumon.db")
            a = Agent(data, env, ["--interval", "200ms", "--csv-dir", csv_dir, "--store-path", db])
            a.start()
            a.wait_for(lambda s: s["sinks"]["store"]["snapshots"] >= 6, DEADLINE,
                       "6 samples stored")
            wait_until(lambda: stored_samples(db) >= 1, "a store commit")
            fill_fs(os.path.join(csv_dir, "ballast"))
            fill_fs(os.path.join(db_dir, "ballast"))
            st0 = a.status()
            # both sinks fail, sampling goes on
            st1 = a.wait_for(lambda s: s["sinks"]["csv"]["errors"] >= 5 and
                             s["sinks"]["store"]["errors"] >= 2, DEADLINE, "write errors")
            st2 = a.wait_samples(st1["samples"] + 5)
            check(a.alive(), "the agent runs with a full disk", a.log())
            check(st2["samples"] > st0["samples"] + 5, "sampling goes on", st0, st2)
            check_eq(st2["driver"], "ok", "driver state")
            lost = wait_log(a, r"csv: cannot write (\S+): No space left on device; (\d+) rows "
                            r"lost so far")
            check_eq(os.path.dirname(lost.group(1)), csv_dir, "the file named in the message")
            wait_log(a, r"store \S+: \w+ failed: database or disk is full")
            # space returns
            os.unlink(os.path.join(csv_dir, "ballast"))
            os.unlink(os.path.join(db_dir, "ballast"))
            m = wait_log(a, r"csv: writing again after (\d+) rows lost")
            wait_log(a, r"store \S+: writing again")
            st3 = a.status()
            n3 = stored_samples(db)
            a.wait_for(lambda s: s["sinks"]["store"]["snapshots"] >= st3["sinks"]["store"][
                "snapshots"] + 8, DEADLINE, "more samples stored")
            wait_until(lambda: stored_samples(db) > n3, "a store commit after the outage")
            rc, _ = a.stop()
            check_eq(rc, 0, "exit status", a.log())
            lines = a.log_lines()
            check_eq(sum("csv: cannot write" in x for x in lines), 1,
                     "log lines for the CSV failure (at most once a minute)", a.log())
            check_eq(sum(re.search(r"store \S+: \w+ failed", x) is not None for x in lines), 1,
                     "log lines for the store failure (at most once a minute)", a.log())
            check_eq(sum("writing again" in x for x in lines), 2, "log lines for the recovery")

            rows = gpu_rows(csv_dir)  # header once, no torn line
            check_no_duplicates(rows, "CSV")
            times = check_whole_samples(rows, 8, "CSV")
            # one gap in the 200 ms grid, exactly as long as the rows logged as lost
            missing = check_grid(times, 200, "CSV", allow_gap=True)
            check_eq(8 * missing, int(m.group(1)), "rows missing from the grid vs rows logged "
                     "as lost")
            gaps = [b - a for a, b in zip(times, times[1:])]
            gap_at = gaps.index(max(gaps))
            check(gap_at >= 3 and len(times) - gap_at >= 8, "rows before and after the outage",
                  gap_at, len(times))

            check_eq(db_integrity(db), "ok", "store integrity")
            srows = db_samples(db)
            ts = sorted({r[0] for r in srows})
            # (the WAL may have had room for some batches while the CSV had none)
            odd = [t for t in ts if t not in times and not times[gap_at] < t < times[gap_at + 1]]
            check_eq(odd, [], "stored samples that the CSV does not have outside its outage")
            check(ts[0] < times[gap_at] and ts[-1] > times[gap_at + 1],
                  "the store has samples from before and after the outage")
            check_eq(len(srows), 8 * len(ts), "whole samples in the store")
            print(f"  {missing} samples lost in the CSV ({int(m.group(1))} rows), "
                  f"{len(ts)} samples in the store, {len(times)} in the CSV")
        finally:
            if a is not None:
                a.cleanup()
            for p in reversed(mounted):
                umount(p)


SPEED = 2.0
# scenario t = 0 at the agent's own first nvmlInit (GPUSIM_EPOCH unset): it
# fires at 25 s (12.5 s in: time to fill the disk first, however slowly the
# agent started) and resolves at 52 s (26 s in)


def engine_firing(a):
    """The rules the agent's engine shows firing."""
    js = json.loads(control(a.data_dir, "ALERTS"))
    return [x["rule"] for x in js["engine"]["alerts"] if x["state"] == "firing"]


def test_alerts_full():
    env = sim_env("alerts/temperature-critical.ini", speed=SPEED)
    with Scratch("afull") as d:
        data = os.path.join(d, "data")
        a = None
        mounted = False
        try:
            mount_tmpfs(data, "16m")
            mounted = True
            a = Agent(data, env, ["--interval", "200ms"])
            a.start()
            a.wait_for(lambda s: s["sinks"]["store"]["snapshots"] >= 4, DEADLINE,
                       "4 samples stored")
            wait_until(lambda: stored_samples(os.path.join(data, "gpumon.db")) >= 1,
                       "a store commit")
            check_eq(engine_firing(a), [], "nothing fires before the disk is full")
            fill_fs(os.path.join(data, "ballast"))
            a.wait_for(lambda s: s["sinks"]["csv"]["errors"] >= 3 and
                       s["sinks"]["store"]["errors"] >= 1, DEADLINE, "write errors")
            # the alert fires and resolves while nothing can be written
            wait_log(a, r"alert firing: GPU 0 ")
            wait_log(a, r"alert resolved: GPU 0 ")
            check_eq(engine_firing(a), [], "nothing fires any more")
            # the alert log has tried (and keeps the notices)
            wait_log(a, r"keeping the alert notices in memory")
            a.wait_for(lambda s: s["sinks"]["csv"]["errors"] >= 5, DEADLINE, "the CSV still fails")
            with open(os.path.join(data, "alerts.jsonl")) as f:
                check_eq(f.read(), "", "alerts.jsonl while the disk is full")
            n_full = len(a.log_lines())
            os.unlink(os.path.join(data, "ballast"))

            def notices():
                with open(os.path.join(data, "alerts.jsonl")) as f:
                    text = f.read()
                check(text == "" or text.endswith("\n"), "alerts.jsonl ends with a whole line",
                      repr(text[-200:]))
                return [json.loads(x) for x in text.splitlines()]
            wait_until(lambda: len(notices()) >= 2, "both notices in alerts.jsonl")
            wait_log(a, r"store \S+: writing again")
            csv_dir = os.path.join(data, "csv")
            gpu_path = day_files(csv_dir)[0]
            wait_log(a, r"csv: writing again after \d+ rows lost \(" + re.escape(gpu_path))
            n = stored_samples(os.path.join(data, "gpumon.db"))
            wait_until(lambda: stored_samples(os.path.join(data, "gpumon.db")) > n,
                       "a store commit after the space returned")
            rc, _ = a.stop()
            check_eq(rc, 0, "exit status", a.log())
            got = [(n["rule"], n["state"]) for n in notices()]
            check_eq(got, [("gpu-temperature-critical", "firing"),
                           ("gpu-temperature-critical", "resolved")],
                     "alerts.jsonl after the disk was full", a.log())
            db = os.path.join(data, "gpumon.db")
            check_eq(db_integrity(db), "ok", "store integrity")
            stored = db_query(db, "SELECT rule, state FROM alerts ORDER BY ts, id")
            check_eq(stored, got, "the store's alerts table after the disk was full", a.log())
            lines = a.log_lines()
            check(any("notify log:" in x and "in memory" in x for x in lines),
                  "the log says the alert log kept the notices in memory", a.log())

            # per file: a failure message, then its own recovery once written again
            fails = {}
            for i, x in enumerate(lines):
                m = re.search(r"csv: cannot write (\S+): No space left on device; (\d+) rows", x)
                if m:
                    fails.setdefault(m.group(1), i)
            check(gpu_path in fails, "the GPU file's failure is logged", a.log())
            again = []
            for i, x in enumerate(lines):
                if "csv: writing again" in x:
                    m = re.search(r"csv: writing again after (\d+) rows lost \((\S+)\)$", x)
                    check(m is not None, "a recovery message that names its file", x)
                    again.append((i, m.group(2), int(m.group(1))))
            for i, path, n in again:
                check(path in fails and fails[path] < i, f"{path} recovers after it failed", x)
            gpu_again = [(i, n) for i, path, n in again if path == gpu_path]
            check_eq(len(gpu_again), 1, "recovery messages for the GPU file", a.log())
            check(gpu_again[0][0] >= n_full, "the GPU file says it writes again only after "
                  "space returned", a.log())
            rows = gpu_rows(csv_dir)
            times = check_whole_samples(rows, 1, "CSV")
            missing = check_grid(times, 200, "CSV", allow_gap=True)
            check_eq(missing, gpu_again[0][1], "rows missing from the grid vs rows logged as lost")
            print(f"  {missing} CSV rows lost, {len(again)} recovery messages, "
                  f"notices {got}")
        finally:
            if a is not None:
                a.cleanup()
            if mounted:
                umount(data)


if __name__ == "__main__":
    main([test_enospc, test_alerts_full])

#!/usr/bin/env python3
"""The agent's signals and crashes.

  sigterm_sigint:  with a 1 h interval, SIGTERM and SIGINT each make it exit
                   0 (not at its next tick); every sample taken is in the CSV
                   and in the store; "agent stopped" is the last event in both.
  stop_while_hung: SIGTERM while an NVML call hangs (60 s,
                   tests/fixtures/hang-long.ini): still exit 0 (not after the
                   hang), the log says the sampler is stuck, "agent stopped"
                   is written.
  sighup:          a config file with a bad value + SIGHUP: the log has the
                   file:line error, the agent keeps its old interval; a valid
                   file with a new interval + SIGHUP: the new spacing; the CSV
                   moved away before SIGHUP is started again at its path with
                   a header; no sample lost or duplicated across the reload.
  kill9_restart:   kill -9 mid-run and a torn partial line appended to the CSV
                   files: the restarted agent cuts exactly the torn bytes,
                   keeps every earlier row, does not repeat the header, and
                   continues; the store passes integrity_check and keeps every
                   row committed before the kill.
  torn_quoted:     kill -9, then the processes file (--procs) gets a whole
                   record whose command cell holds a quoted line break and a
                   torn one cut inside such a cell: the restarted agent cuts
                   exactly the torn record, keeps the whole one, and every row
                   after it reads back whole with Python's csv module.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import csv
import os
import shutil
import signal
import sqlite3
import statistics
import time

from agentlib import (DEADLINE, EVENTS_HEADER, PROCS_HEADER, ROOT, Agent, Fail, Scratch, check,
                      check_eq, check_grid, check_no_duplicates, check_whole_samples, day_files,
                      db_integrity, db_query, db_samples, event_rows, gpu_rows, main,
                      parse_time_ms, read_csv, read_text, sim_env, stored_samples, wait_until)


def test_sigterm_sigint():
    env = sim_env(pinned=100)
    for sig in (signal.SIGTERM, signal.SIGINT):
        with Scratch("sig") as d:
            data = os.path.join(d, "data")
            # a 1 h interval: an agent that waited for its next tick would
            # not exit within stop()'s 30 s (no duration is asserted)
            a = Agent(data, env, ["--interval", "1h"])
            try:
                a.start()
                st = a.status()
                rc, secs = a.stop(sig)
            finally:
                a.cleanup()
            name = signal.Signals(sig).name
            check_eq(rc, 0, f"exit status after {name}", a.log())
            check(any(f"{name}: stopping" in x for x in a.log_lines()), f"the log names {name}",
                  a.log())
            n = st["samples"]
            check_eq(n, 1, "samples of a 1 h interval")
            rows = gpu_rows(os.path.join(data, "csv"))
            check_eq(len(check_whole_samples(rows, 8, "CSV")), n, "samples in the CSV")
            db = os.path.join(data, "gpumon.db")
            check_eq(len(db_samples(db)), 8 * n, "rows in the store")
            ev = event_rows(os.path.join(data, "csv"))
            check_eq(ev[-1][3:] if ev else None, ["agent", "", "", "0", "agent stopped"],
                     "the last event in the CSV", ev)
            last = db_query(db, "SELECT type, text FROM events ORDER BY id DESC LIMIT 1")
            check_eq(last, [("agent", "agent stopped")], "the last event in the store")
            print(f"  {name}: exit 0 in {secs:.2f} s")


def test_stop_while_hung():
    # every nvmlDeviceGetPowerUsage on GPU 2 blocks 60 s: an agent that
    # waited for the hung call would not exit within stop()'s 30 s
    env = sim_env(os.path.join(ROOT, "tests", "fixtures", "hang-long.ini"), pinned=130)
    with Scratch("hung") as d:
        data = os.path.join(d, "data")
        # the simulator lists each call in GPUSIM_TRACE before its hang
        trace = os.path.join(d, "nvml.trace")
        env["GPUSIM_TRACE"] = trace
        a = Agent(data, env, ["--interval", "1s"])
        try:
            a.start(wait_samples=0)
            a.wait_for(lambda s: True, DEADLINE, "the control socket")
            wait_until(lambda: os.path.exists(trace) and
                       "nvmlDeviceGetPowerUsage@2\n" in read_text(trace),
                       "the first sample to enter the hung call")
            st = a.status()
            check_eq(st["samples"], 0, "samples while the first one hangs")
            rc, secs = a.stop(signal.SIGTERM)
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status after SIGTERM during a hang", a.log())
        check(any("the sampler is stuck in NVML" in x for x in a.log_lines()),
              "the log says the sampler is stuck", a.log())
        ev = event_rows(os.path.join(data, "csv"))
        check_eq([e[7] for e in ev], ["agent started", "agent stopped"], "events")
        print(f"  exit 0 in {secs:.2f} s with a sample hung in NVML")


def wait_log(a, text, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text in x for x in a.log_lines()):
            return
        check(a.alive(), f"the agent died waiting for {text!r}", a.log())
        time.sleep(0.05)
    raise Fail(f"no {text!r} in the log after {timeout} s\n" + a.log())


def spacing(times):
    return [b - a for a, b in zip(times, times[1:])]


def test_sighup():
    env = sim_env(pinned=100)
    with Scratch("hup") as d:
        data = os.path.join(d, "data")
        conf = os.path.join(d, "gpumon.conf")
        with open(conf, "w") as f:
            f.write("[agent]\ninterval = 300ms\n")
        a = Agent(data, env, config=conf)
        csv_dir = os.path.join(data, "csv")
        try:
            a.start()
            a.wait_samples(4)
            path = day_files(csv_dir)[0]  # the CSV sink writes after the sampler counts
            # a bad file: an error naming file:line, the running settings stay
            with open(conf, "w") as f:
                f.write("[agent]\ninterval = 500ms\nretention = 10x\n")
            a.send(signal.SIGHUP)
            wait_log(a, "reload failed")
            t_bad = time.time()
            n = a.status()["samples"]
            a.wait_samples(n + 5)
            # a good file with a new interval; the CSV moved away first
            with open(conf, "w") as f:
                f.write("[agent]\ninterval = 500ms\n")
            moved = os.path.join(d, "moved.csv")
            os.rename(path, moved)
            a.send(signal.SIGHUP)
            wait_log(a, "SIGHUP: configuration reloaded")
            n = a.status()["samples"]
            a.wait_samples(n + 5)
            check(a.alive(), "the agent runs", a.log())
            counted = a.skip_count()
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        lines = a.log_lines()
        want = f'reload failed, keeping the running configuration: {conf}:3: invalid duration "10x"'
        check_eq(sum(want in x for x in lines), 1, "log lines with the file:line error", a.log())
        # besides a loaded machine's late wake-ups and slow samples
        errors = [x for x in lines if (": error: " in x or ": warning: " in x) and
                  ": warning: late wake-up: " not in x and ": warning: slow sample: " not in x]
        check_eq(len(errors), 1, "errors and warnings in the log", *errors)

        old = read_csv(moved)
        new = read_csv(path)  # the header again, once, at the original path
        check(old and new, f"rows before ({len(old)}) and after ({len(new)}) the reopen")
        t_old = check_whole_samples(old, 8, "moved CSV")
        t_new = check_whole_samples(new, 8, "new CSV")
        check(t_old[-1] < t_new[0], "the moved file ends before the new one starts")
        times = t_old + t_new
        check_no_duplicates(old + new, "CSV")
        ev = event_rows(csv_dir)
        reloads = [parse_time_ms(e[0]) for e in ev if e[7] == "configuration reloaded"]
        check_eq(len(reloads), 1, "configuration reloaded events (not for the bad file)")
        before = [t for t in times if t < reloads[0]]
        after = [t for t in times if t > reloads[0]]
        # old spacing throughout the bad reload; the new one after the good
        # one (the first deadline after it was set with the old interval, so
        # that sample is on the old grid: none lost across the reload).  The
        # grids hold each sample to its point however late it is; the median
        # spacing tells the intervals apart (5 %: late samples shift it)
        sp_before, sp_after = spacing(before), spacing(after[1:])
        check(any(t < t_bad * 1000 for t in before) and any(t > t_bad * 1000 for t in before),
              "samples on both sides of the bad reload")
        check(abs(statistics.median(sp_before) - 300) <= 15, "spacing before the good reload",
              sp_before)
        check_grid(before + after[:1], 300, "samples before the good reload", counted=counted)
        check(len(sp_after) >= 3 and abs(statistics.median(sp_after) - 500) <= 25,
              "spacing after the good reload", sp_after)
        check_grid(after[1:], 500, "samples after the good reload", counted=counted)
        # the store was reopened too: the same samples, no loss, no duplicate
        srows = db_samples(os.path.join(data, "gpumon.db"))
        check_eq(sorted({r[0] for r in srows}), times, "store sample times = CSV times")
        check_eq(len(srows), 8 * len(times), "store rows")
        print(f"  {len(t_old)} samples before the reopen, {len(t_new)} after; spacing "
              f"{statistics.median(sp_before)} -> {statistics.median(sp_after)} ms")


def test_kill9_restart():
    env = sim_env(pinned=100)
    with Scratch("k9") as d:
        data = os.path.join(d, "data")
        csv_dir = os.path.join(data, "csv")
        db = os.path.join(data, "gpumon.db")
        a = Agent(data, env, ["--interval", "200ms"])
        try:
            a.start()
            a.wait_for(lambda s: s["samples"] >= 8 and s["sinks"]["store"]["snapshots"] >= 8,
                       DEADLINE, "8 samples")
            wait_until(lambda: stored_samples(db) >= 1, "a store commit")
            a.kill9()
        finally:
            a.cleanup()
        gpu_path = day_files(csv_dir)[0]
        ev_path = day_files(csv_dir, kind="events")[0]
        before = read_text(gpu_path)
        rows_before = read_csv(gpu_path)  # whole: one write(2) per sample
        ev_before = read_text(ev_path)
        # the store as the crash left it (a copy: opening it recovers the WAL)
        snap = os.path.join(d, "snap")
        os.mkdir(snap)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                shutil.copy(db + suffix, os.path.join(snap, "gpumon.db" + suffix))
        con = sqlite3.connect(os.path.join(snap, "gpumon.db"))
        check_eq(con.execute("PRAGMA integrity_check").fetchone()[0], "ok",
                 "integrity of the store after kill -9")
        committed = set(con.execute("SELECT ts, gpu FROM samples").fetchall())
        con.close()
        check(committed, "rows were committed before the kill")
        csv_keys = {(parse_time_ms(r[0]), int(r[3])) for r in rows_before}
        check_eq({ts for ts, _ in committed} - {k[0] for k in csv_keys}, set(),
                 "committed store rows that the CSV does not have")

        # a crash in the middle of a write: a torn last line in each file
        torn = rows_before[-1][0] + ",vm,default,3,GPU-torn"
        with open(gpu_path, "a") as f:
            f.write(torn)
        torn_ev = "2026-01-01T00:00:00.000+00:00,vm,default,ma"
        with open(ev_path, "a") as f:
            f.write(torn_ev)

        b = Agent(data, env, ["--interval", "200ms"], log=a.log_path)
        try:
            b.start()
            b.wait_samples(5)
            rc, _ = b.stop()
        finally:
            b.cleanup()
        check_eq(rc, 0, "exit status of the restarted agent", b.log())
        after = read_text(gpu_path)
        check(after.startswith(before), "the rows written before the kill are intact")
        check(torn not in after, "the torn line is gone")
        rows = read_csv(gpu_path)  # header once, every line whole
        check_no_duplicates(rows, "CSV")
        times = check_whole_samples(rows, 8, "CSV")
        check(len(rows) >= len(rows_before) + 5 * 8, "rows continue after the restart")
        ev_after = read_text(ev_path)
        check(ev_after.startswith(ev_before) and torn_ev not in ev_after,
              "events file: earlier events intact, torn line gone")
        read_csv(ev_path, EVENTS_HEADER)
        log = b.log_lines()
        for p, t in ((gpu_path, torn), (ev_path, torn_ev)):
            msg = f"csv: {p}: cut {len(t.encode())} bytes of a torn last line"
            check_eq(sum(msg in x for x in log), 1, f"log lines saying {msg!r}", b.log())

        check_eq(db_integrity(db), "ok", "store integrity after the restart")
        stored = db_query_keys(db)
        check_eq(committed - stored, set(), "rows committed before the kill that are gone")
        restart_ms = min(t for t in times if t > max(k[0] for k in csv_keys))
        second = [t for t in times if t >= restart_ms]
        got_second = [ts for ts, _ in stored if ts >= restart_ms]
        check_eq(sorted(set(got_second)), second, "the restarted agent's sample times in the store")
        check_eq(len(got_second), 8 * len(second), "the restarted agent's rows in the store")
        print(f"  {len(rows_before) // 8} samples before kill -9 ({len(committed) // 8} "
              f"committed to the store), {len(second)} after the restart")


def test_torn_quoted():
    env = sim_env(pinned=100)
    with Scratch("k9q") as d:
        data = os.path.join(d, "data")
        csv_dir = os.path.join(data, "csv")
        a = Agent(data, env, ["--interval", "200ms", "--procs", "--no-store"])
        try:
            a.start()
            a.wait_samples(4)
            a.kill9()
        finally:
            a.cleanup()
        path = day_files(csv_dir, kind="procs")[0]
        rows_before = read_csv(path, PROCS_HEADER)
        check(rows_before, "processes were recorded before the kill")
        t_last = rows_before[-1][0]
        # a command line may hold quotes and line breaks: the writer quotes it
        # (RFC 4180), so a record can span lines
        whole = [t_last, "vm", "default", "0", "GPU-whole", "4242", "alice", "python3",
                 'python3 -c "print(1)"\nsecond line, with a comma', "100", "C", "alive",
                 "slurm:42", "7", "4200", "4100"]
        whole_text = ",".join('"' + c.replace('"', '""') + '"' if any(x in c for x in ',"\n')
                              else c for c in whole) + "\n"
        torn = f'{t_last},vm,default,1,GPU-torn,4343,bob,python3,"python3 train.py --tag ""x""\n--lr'
        with open(path, "a", newline="") as f:
            f.write(whole_text + torn)
        before = read_text(path)[:-len(torn)]

        b = Agent(data, env, ["--interval", "200ms", "--procs", "--no-store"], log=a.log_path)
        try:
            b.start()
            n = b.status()["samples"]
            b.wait_samples(n + 4)
            rc, _ = b.stop()
        finally:
            b.cleanup()
        check_eq(rc, 0, "exit status of the restarted agent", b.log())
        after = read_text(path)
        check(after.startswith(before), "the records before the torn one are intact",
              repr(after[len(before) - 300:len(before) + 100]))
        check("--lr" not in after, "the torn record is gone")
        with open(path, newline="") as f:
            recs = list(csv.reader(f))
        check_eq(recs[0], PROCS_HEADER.split(","), "the header")
        ncell = len(PROCS_HEADER.split(","))
        bad = [r for r in recs[1:] if len(r) != ncell]
        check_eq(len(bad), 0, f"records without the {ncell} cells of the header",
                 repr(bad[:1])[:600])
        check(whole in recs, "the whole record with a quoted line break is kept", recs[-20:])
        new = [r for r in recs[1:] if parse_time_ms(r[0]) > parse_time_ms(t_last)]
        check(len(new) >= 4, f"rows of the restarted agent read back whole ({len(new)})")
        for r in new:
            check(r[4].startswith("GPU-") and r[5].isdigit(), "a row of the restarted agent", r)
        log = b.log_lines()
        msg = f"csv: {path}: cut {len(torn.encode())} bytes of a torn last line"
        check_eq(sum(msg in x for x in log), 1, f"log lines saying {msg!r}", b.log())
        print(f"  {len(rows_before)} process rows before kill -9, {len(new)} after the restart")


def db_query_keys(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return set(con.execute("SELECT ts, gpu FROM samples").fetchall())
    finally:
        con.close()


if __name__ == "__main__":
    main([test_sigterm_sigint, test_stop_while_hung, test_sighup, test_kill9_restart,
          test_torn_quoted])

#!/usr/bin/env python3
"""The agent records exactly what it sampled, in the CSV log and the store.

  exact_window:   pinned scenario time, 200 ms for ~2 s, SIGTERM: CSV GPU
                  rows = store rows = 8 x distinct sample times, the same
                  (time, GPU) keys in both, no duplicates, the sample count
                  agrees with `--status`; every value equals `gpumon query`
                  at the same scenario time; with --procs the processes
                  file and the store's procs table hold `--query-compute-apps`
                  in every sample; `gpumon report` lists the 8 GPUs with
                  those values as averages and maxima.
  record_once:    `record --once` three times: one day file, one header, 3
                  samples per GPU in the store, exit 0 each; with the driver
                  not loaded it writes the explicit status row and exits 3;
                  silent on success (cron mails output), the error on stderr.
  columns_change: a file whose header does not match the columns is never
                  appended to: other columns go to <task>_<day>-2.csv, and
                  back to the first file when the columns are back.
  marks:          `gpumon mark` reaches the events CSV, the store's events
                  table and `gpumon report`; without an agent it exits 1.
  lock:           a second agent, and `record --once`, on the same data dir
                  exit 1 naming the first agent's PID; the first is unharmed.
  slow_columns:   columns of groups the agent reads every 10 s (ECC counts,
                  PCIe link) hold a value only on the rows of the samples
                  that read it; the rows between have an empty cell that
                  status calls between_reads (issue 30), a read comes again
                  after 10 s, and each states row of the store is at a
                  sample that read them.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import csv
import io
import json
import os
import signal
import time

from agentlib import (DEADLINE, Agent, PROCS_HEADER, QUERY_FIELDS, REASON_BITS, Scratch, check,
                      check_eq, check_grid, check_no_duplicates, check_whole_samples, day_files,
                      db_integrity, db_query, db_samples, event_rows, gpu_rows, local_time, main,
                      parse_time_ms, quiet_args, read_csv, run, sim_env)

PINNED = 100  # scenario seconds: h100x8-training's values are constant at a pinned time


def query_values(env):
    """`gpumon query` of the CSV's columns: {index: [cells]} (nvidia-smi text)."""
    rc, out, err = run(["query", "--query-gpu=" + QUERY_FIELDS, "--format=csv,noheader,nounits"],
                       env)
    check_eq(rc, 0, "gpumon query exit status", err)
    rows = list(csv.reader(io.StringIO(out), skipinitialspace=True))
    check_eq(len(rows), 8, "GPUs in gpumon query", out)
    return {int(r[0]): r for r in rows}


def reason_names(hexmask):
    mask = int(hexmask, 16)
    check(mask & ~sum(REASON_BITS) == 0, f"unknown clock event reason bits in {hexmask}")
    return {n for b, n in REASON_BITS.items() if mask & b} or {"none"}


def test_exact_window():
    env = sim_env(pinned=PINNED)
    want = query_values(env)
    with Scratch("rec") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms", "--procs"])
        try:
            a.start()
            a.wait_samples(10)
            # the CLI's --status is the same JSON as the socket's
            rc, out, err = run(["agent", "--status", "--no-config", "--data-dir", data], env)
            check_eq(rc, 0, "agent --status exit status", err)
            cli = json.loads(out)
            check_eq(cli["pid"], a.pid, "--status pid")
            check_eq(cli["driver"], "ok", "--status driver")
            check_eq(set(cli["sinks"]), {"alerts", "csv", "store"}, "--status sinks")
            st = a.status()
            t_status = time.monotonic()
            rc, secs = a.stop(signal.SIGTERM)
            t_signal = time.monotonic() - secs
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status after SIGTERM", a.log())
        for k in ("csv", "store"):
            check_eq(st["sinks"][k]["dropped"], 0, f"{k} sink dropped", st)
            check_eq(st["sinks"][k]["errors"], 0, f"{k} sink errors", st)

        csv_dir = os.path.join(data, "csv")
        files = day_files(csv_dir)
        rows = gpu_rows(csv_dir)
        check_no_duplicates(rows, "CSV")
        times = check_whole_samples(rows, 8, "CSV")
        n = len(times)
        # the count is exact: what --status counted, plus only the samples
        # that fit between the status request and the signal
        extra = int((t_signal - t_status) / 0.2) + 1
        check(st["samples"] <= n <= st["samples"] + extra,
              f"{n} samples in the CSV, --status said {st['samples']} ({extra} may follow)")
        check_eq(len(rows), 8 * n, "CSV GPU rows")
        # on the 200 ms grid, a point missing only where the sampler was late
        # and said so (an overrun skips deadlines; a loaded machine makes
        # them, so their number is make bench's, not a test's)
        check_grid(times, 200, "CSV",
                   counted=(st["skipped"], st["last_sample_unix_ns"] // 1000000))

        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity_check")
        srows = db_samples(db)
        check_eq(len(srows), 8 * n, "store raw rows (8 x samples)")
        check_eq(len({r[0] for r in srows}), n, "distinct sample times in the store")
        csv_keys = sorted((parse_time_ms(r[0]), int(r[3])) for r in rows)
        check_eq(sorted((r[0], r[1]) for r in srows), csv_keys,
                 "store (ts, gpu) keys = CSV (time, gpu) keys")
        check(all(r[2] == "ok" for r in srows), "every store row has status ok")

        # values: the CSV says what `gpumon query` says at the same scenario time
        for r in rows:
            g = int(r[3])
            q = want[g]
            check_eq(r[3:15], q[0:12], f"CSV values of GPU {g} vs gpumon query", r)
            got = set(r[15].split("|"))
            check_eq(got, reason_names(q[12]), f"GPU {g} clock event reasons ({q[12]})")
            check_eq(r[16], "ok", f"GPU {g} status")
            check_eq(r[2], "default", "task_id")
        # the store keeps them in its integer units
        vals = db_query(db, "SELECT g.gpu_index, g.uuid, g.name, g.mem_total_mib, s.util_gpu_pct,"
                        " s.util_mem_pct, s.mem_used_mib, s.power_cw, s.power_limit_cw, s.temp_c,"
                        " s.clk_sm_mhz, s.clk_mem_mhz, s.reasons FROM samples s JOIN gpus g ON"
                        " g.id = s.gpu")
        for v in vals:
            q = want[v[0]]
            exp = (v[0], q[1], q[2], int(q[6]), int(q[3]), int(q[4]), int(q[5]),
                   round(float(q[7]) * 100), round(float(q[8]) * 100), int(q[9]), int(q[10]),
                   int(q[11]), int(q[12], 16))
            check_eq(tuple(v), exp, f"store values of GPU {v[0]}")

        # the report for the window: the 8 GPUs, each with n samples in all
        rc, out, err = run(["report", "--data-dir", data, "--since", "2h", "--format", "csv"],
                           env)
        check_eq(rc, 0, "gpumon report exit status", err)
        rep = list(csv.DictReader(io.StringIO(out)))
        check_eq(sorted({int(r["gpu"]) for r in rep}), list(range(8)), "GPUs in the report", out)
        for g in range(8):
            q = want[g]
            mine = [r for r in rep if int(r["gpu"]) == g]
            check_eq(sum(int(r["samples"]) for r in mine), n, f"report samples of GPU {g}", out)
            for r in mine:
                check_eq((r["uuid"], r["name"]), (q[1], q[2]), f"report identity of GPU {g}")
                check_eq(float(r["util_avg_pct"]), float(q[3]), f"report util_avg of GPU {g}")
                check_eq(int(r["util_max_pct"]), int(q[3]), f"report util_max of GPU {g}")
                check_eq(int(r["mem_max_mib"]), int(q[5]), f"report mem_max of GPU {g}")
                check(abs(float(r["power_avg_w"]) - float(q[7])) <= 0.05 + 1e-9,
                      f"report power_avg of GPU {g}: {r['power_avg_w']} vs {q[7]}")
                check_eq(int(r["temp_max_c"]), int(q[9]), f"report temp_max of GPU {g}")

        # processes (--procs): the same processes as `gpumon query` in every sample
        rc, out, err = run(["query", "--query-compute-apps=pid,gpu_uuid,used_memory",
                            "--format=csv,noheader,nounits"], env)
        check_eq(rc, 0, "query --query-compute-apps exit status", err)
        apps = sorted((int(p), u, int(m)) for p, u, m in
                      csv.reader(io.StringIO(out), skipinitialspace=True))
        check(apps, "the scenario has processes", out)
        prows = read_csv(day_files(csv_dir, kind="procs")[0], PROCS_HEADER)
        by_time = {}
        for r in prows:
            by_time.setdefault(parse_time_ms(r[0]), []).append((int(r[5]), r[4], int(r[9])))
        check_eq(sorted(by_time), times, "process rows at the sample times")
        for t, procs in by_time.items():
            check_eq(sorted(procs), apps, f"processes at {t} (pid, GPU uuid, MiB)")
        sp = db_query(db, "SELECT p.ts, p.pid, g.uuid, p.mem_used_mib FROM procs p JOIN gpus g "
                      "ON g.id = p.gpu")
        check_eq(sorted(sp), sorted((t, pid, u, m) for t in times for pid, u, m in apps),
                 "process rows in the store")

        # events: started first, stopped last, once each
        ev = event_rows(csv_dir)
        texts = [e[7] for e in ev if e[3] == "agent"]
        check_eq(texts, ["agent started", "agent stopped"], "agent events")
        lines = a.log_lines()
        check(any(f"agent started: pid {a.pid}, interval 0.200 s" in x for x in lines),
              "the log names the pid and interval", a.log())
        # a loaded machine's late wake-ups and slow samples are reported; nothing
        # else may be
        bad = [x for x in lines if (": error: " in x or ": warning: " in x) and
               ": warning: late wake-up: " not in x and ": warning: slow sample: " not in x]
        check(not bad, "errors or warnings in the log of a clean run", *bad)
        print(f"  {n} samples, {len(rows)} CSV rows in {len(files)} file(s), "
              f"{len(srows)} store rows")


def test_record_once():
    env = sim_env(pinned=PINNED)
    with Scratch("once") as d:
        data = os.path.join(d, "data")
        for i in range(3):
            rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data], env)
            check_eq(rc, 0, f"record --once run {i + 1} exit status", err)
            check_eq(out, "", "record --once prints nothing on stdout")
            # cron mails whatever a job prints: a successful run prints nothing
            # (GPU 5's critical alert fires on the first run: a notice, not an error)
            check_eq(err, "", f"record --once run {i + 1} prints nothing on stderr")
        files = day_files(os.path.join(data, "csv"))
        check_eq(len(files), 1, "day files after 3 runs", files)
        rows = read_csv(files[0])  # header exactly once
        check_no_duplicates(rows, "CSV")
        times = check_whole_samples(rows, 8, "CSV")
        check_eq(len(times), 3, "samples in the CSV")
        db = os.path.join(data, "gpumon.db")
        per_gpu = db_query(db, "SELECT g.gpu_index, count(*) FROM samples s JOIN gpus g ON "
                           "g.id = s.gpu GROUP BY g.gpu_index ORDER BY 1")
        check_eq(per_gpu, [(g, 3) for g in range(8)], "store samples per GPU")
        check_eq(sorted({r[0] for r in db_samples(db)}), times, "store times = CSV times")

        # the driver is not loaded: an explicit status row, exit 3
        env2 = sim_env("fault-driver-not-loaded.ini")
        rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data], env2)
        check_eq(rc, 3, "record --once exit status with the driver not loaded", err)
        check("not loaded" in err, "stderr names the cause", err)
        # an explicit level is kept: --log-level info shows what a run did
        rc, out, err = run(["record", "--once", "--no-config", "--data-dir",
                            os.path.join(d, "verbose"), "--log-level", "info"], env)
        check_eq(rc, 0, "record --once --log-level info exit status", err)
        check("info: NVML ready" in err, "record --once --log-level info logs at info", err)
        rows = read_csv(files[0])
        last = rows[-1]
        check_eq(len(rows), 25, "rows: 3 samples x 8 GPUs + 1 status row")
        check_eq(last[16], "driver_not_loaded", "status cell of the outage row", last)
        check_eq(last[3:16], [""] * 13, "the outage row has no values (not repeated ones)", last)
        st = db_query(db, "SELECT c.name, count(*) FROM samples s JOIN codes c ON c.kind = "
                      "'status' AND c.code = s.status WHERE s.ts = (SELECT max(ts) FROM samples)"
                      " GROUP BY c.name")
        check_eq(st, [("driver_not_loaded", 8)],
                 "store: a driver_not_loaded row for each GPU last seen")
        # GPU 5 runs hot at the pinned time: the critical temperature rule fires
        # on the first run and, its state kept in alerts.state, not again on the
        # next two; then the driver-lost rule fires with the outage
        ev = event_rows(os.path.join(data, "csv"))
        check_eq([(e[3], e[7].split(":")[0]) for e in ev],
                 [("alert", "firing gpu-temperature-critical (critical)"),
                  ("driver", "driver_not_loaded"),
                  ("alert", "firing driver-lost (critical)")],
                 "events of the --once runs")


def test_columns_change():
    env = sim_env(pinned=PINNED)
    with Scratch("cols") as d:
        data = os.path.join(d, "data")
        csv_dir = os.path.join(data, "csv")
        narrow = ["--columns", "index,utilization.gpu"]
        for extra in ([], narrow, [], narrow):
            rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data] + extra,
                               env)
            check_eq(rc, 0, f"record --once {' '.join(extra)}", err)
        files = day_files(csv_dir)
        check_eq(len(files), 2, "day files: the default columns and the narrow ones",
                 os.listdir(csv_dir))
        plain = [p for p in files if not p.endswith("-2.csv")]
        second = [p for p in files if p.endswith("-2.csv")]
        check(plain and second, "a -2 file for the other columns", files)
        check_eq(len(read_csv(plain[0])), 16, "rows with the default columns (2 runs)")
        rows = read_csv(second[0], "time,host,task_id,gpu,utilization_gpu_percent,status")
        check_eq(len(rows), 16, "rows with the narrow columns (2 runs)")


def test_marks():
    env = sim_env(pinned=PINNED)
    with Scratch("mark") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "1s"])
        try:
            a.start()
            t0 = time.time()
            rc, out, err = run(["mark", "--no-config", "--data-dir", data, "epoch 3 start"], env)
            check_eq((rc, out, err), (0, "", ""), "gpumon mark (status, stdout, stderr)")
            rc, out, err = run(["mark", "--no-config", "--data-dir", data, "--task", "eval",
                                'quick, "fast"', "run"], env)
            check_eq((rc, out, err), (0, "", ""), "gpumon mark --task (status, stdout, stderr)")
            t1 = time.time()
            a.wait_for(lambda s: s["sinks"]["store"]["events"] >= 3, DEADLINE,
                       "the marks to arrive")
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        ev = event_rows(os.path.join(data, "csv"))
        marks = [(e[2], e[3], e[4], e[7]) for e in ev if e[3] == "mark"]
        check_eq(marks, [("default", "mark", "", "epoch 3 start"),
                         ("eval", "mark", "", 'quick, "fast" run')], "marks in the events CSV")
        mt = [parse_time_ms(e[0]) for e in ev if e[3] == "mark"]
        # between the start of the first `gpumon mark` and the end of the
        # second (however long a loaded machine makes them), 1 ms of rounding
        check(all(t0 * 1000 - 1 <= m <= t1 * 1000 + 1 for m in mt),
              f"mark times are when they were made ({t0 * 1000:.0f}..{t1 * 1000:.0f})", mt)
        db = os.path.join(data, "gpumon.db")
        got = db_query(db, "SELECT e.ts, t.name, e.text, e.gpu FROM events e JOIN tasks t ON "
                       "t.id = e.task WHERE e.type = 'mark' ORDER BY e.id")
        check_eq(got, [(mt[0], "default", "epoch 3 start", None),
                       (mt[1], "eval", 'quick, "fast" run', None)], "marks in the store")
        hhmm = local_time(mt[0] / 1000).strftime("%H:%M")
        rc, out, err = run(["report", "--data-dir", data, "--since", "2h", "--format", "csv"], env)
        check_eq(rc, 0, "report exit status", err)
        rep = list(csv.DictReader(io.StringIO(out)))
        period = [r for r in rep if f"{hhmm} epoch 3 start" in r["marks"]]
        check_eq(len(period), 8, "report rows (one per GPU) that show the mark", out)
        rc, out, err = run(["report", "--data-dir", data, "--since", "2h", "--task", "default",
                            "--format", "json"], env)
        check_eq(rc, 0, "report --task default exit status", err)
        js = json.loads(out)
        shown = [(m["task"], m["text"]) for r in js for m in r["marks"]]
        check_eq(shown, [("default", "epoch 3 start")] * 8,
                 "report --task default shows that task's mark only, once per GPU")
        rc, out, err = run(["report", "--data-dir", data, "--since", "2h"], env)
        check(f"{hhmm} epoch 3 start" in out, "the table report shows the mark", out)

        # no agent: exit 1 with a clear message
        rc, out, err = run(["mark", "--no-config", "--data-dir", data, "too late"], env)
        check_eq(rc, 1, "gpumon mark without an agent", err)
        check(f"no gpumon agent is running for data directory {data}" in err,
              "the message says no agent runs for that directory", err)
        rc, out, err = run(["mark", "--no-config", "--data-dir", data], env)
        check_eq(rc, 2, "gpumon mark without text", err)
        rc, out, err = run(["agent", "--status", "--no-config", "--data-dir", data], env)
        check_eq((rc, out), (1, ""), "agent --status without an agent", err)
        check(f"no gpumon agent is running for data directory {data}" in err,
              "agent --status says no agent runs", err)


def test_lock():
    env = sim_env(pinned=PINNED)
    with Scratch("lock") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms"])
        try:
            a.start()
            rc, out, err = run(["agent", "--no-config", "--data-dir", data, "--interval", "200ms"]
                               + quiet_args(), env, timeout=DEADLINE)
            check_eq(rc, 1, "second agent's exit status", err)
            check(f"another gpumon agent (PID {a.pid}) is already using {data}" in err,
                  "the message names the first agent's PID", err)
            rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data], env,
                               timeout=DEADLINE)
            check_eq(rc, 1, "record --once exit status while an agent runs", err)
            check(f"PID {a.pid}" in err, "record --once names the agent's PID", err)
            n0 = a.status()["samples"]
            a.wait_samples(n0 + 3)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "first agent's exit status", a.log())
        rows = gpu_rows(os.path.join(data, "csv"))
        check_no_duplicates(rows, "CSV")
        check_whole_samples(rows, 8, "CSV")
        # the lock is released with the agent
        rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data], env)
        check_eq(rc, 0, "record --once after the agent stopped", err)
        check_eq(len(read_csv(day_files(os.path.join(data, "csv"))[-1])), len(rows) + 8,
                 "rows after the --once run")


SLOW_COLS = ["ecc_uncorrected_volatile", "pcie_link_gen_current"]


def test_slow_columns():
    env = sim_env(pinned=PINNED)
    header = "time,host,task_id,gpu,uuid,utilization_gpu_percent," + ",".join(SLOW_COLS) + ",status"
    with Scratch("slow") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "500ms", "--no-exporter", "--columns",
                              "index,uuid,utilization.gpu,ecc.errors.uncorrected.volatile.total,"
                              "pcie.link.gen.current"])
        try:
            t0 = a.start(wait_samples=1).status()["last_sample_unix_ns"]
            # past the second read of the slow groups (10 s after the first,
            # on the agent's own sample times; not a sleep)
            a.wait_for(lambda st: st["last_sample_unix_ns"] - t0 >= 12_000_000_000,
                       3 * 60, "12 s of samples")
            a.stop()
        finally:
            a.cleanup()
        files = day_files(os.path.join(data, "csv"))
        rows = []
        for p in files:
            rows += read_csv(p, header)
        check_whole_samples(rows, 8, "CSV")
        ci = [header.split(",").index(c) for c in SLOW_COLS]
        read_at = {}  # uuid -> times of the rows that read the slow groups
        for g in range(8):
            mine = sorted((r for r in rows if r[3] == str(g)), key=lambda r: parse_time_ms(r[0]))
            check(len(mine) >= 20, f"GPU {g}: rows over 12 s at 500 ms", len(mine))
            between = 0
            for r in mine:
                for c, k in zip(SLOW_COLS, ci):
                    held = f"{c}:between_reads" in r[-1]
                    check(bool(r[k]) != held, f"GPU {g}: {c} has a value or is between reads", r)
                    between += held
                if r[ci[0]]:
                    read_at.setdefault(r[4], []).append(parse_time_ms(r[0]))
            check(between > 0, f"GPU {g}: rows between two reads of the slow groups", mine[:3])
            reads = read_at.get(mine[0][4], [])
            check(len(reads) >= 2 and reads[0] == parse_time_ms(mine[0][0])
                  and reads[-1] - reads[0] >= 9_000,
                  f"GPU {g}: read at the first sample and again about 10 s later", reads)
        states = db_query(os.path.join(data, "gpumon.db"),
                          "SELECT g.uuid, st.ts FROM states st JOIN gpus g ON g.id = st.gpu")
        check_eq(len({u for u, _ in states}), 8, "GPUs with a states row", states)
        for u, ts in states:
            check(ts in read_at.get(u, []), f"states row of {u} at {ts}: a sample that read them",
                  read_at.get(u))


if __name__ == "__main__":
    main([test_exact_window, test_record_once, test_columns_change, test_marks, test_lock,
          test_slow_columns])

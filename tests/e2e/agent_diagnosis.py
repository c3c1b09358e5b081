#!/usr/bin/env python3
"""agent_diagnosis.py -- the agent's running diagnosis (docs/diagnose.md, "In
the agent"): on the demo node (h100x8-training.ini) with every rank a live
stand-in process, GPU 3 is input-starved and GPU 7 holds memory for a process
that is gone; the agent must say so as events (CSV and store), as
gpumon_diagnosis_active on its metrics, to an alert rule on
diagnosis.<cause>, and in the report's findings; the healthy GPUs have none.
test_host_side: the same for a finding from the host side alone
(starved-host-cpu.ini), whose event keeps the host-side evidence.
"""
import json
import os
import re
import sqlite3
import subprocess
import time

from agentlib import (Agent, Fail, Scratch, check, check_eq, event_rows, main, run, sim_env,
                      wait_until)


def prom_values(path):
    """gpumon_diagnosis_active samples: {(gpu, cause): value}."""
    out = {}
    try:
        text = open(path).read()
    except OSError:
        return out
    for line in text.splitlines():
        if not line.startswith("gpumon_diagnosis_active{"):
            continue
        labels, value = line.rsplit(" ", 1)
        lab = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels))
        out[(int(lab["gpu"]), lab["cause"])] = float(value)
    return out


def test_findings():
    sleepers = [subprocess.Popen(["sleep", "300"]) for _ in range(8)]
    try:
        with Scratch("dg") as data:
            env = sim_env("h100x8-training.ini",
                          **{f"GPUSIM_PID_RANK{i}": sleepers[i].pid for i in range(8)})
            cfg = os.path.join(data + ".ini")
            with open(cfg, "w") as f:
                f.write("[alert.starved]\nwhen = diagnosis.input-starved\nseverity = warning\n"
                        "summary = GPU {gpu} waits for its input\n")
            prom = os.path.join(data, "prom")
            os.makedirs(prom)
            a = Agent(data, env, config=cfg,
                      args=["--interval", "0.5s", "--diagnose-window", "1m",
                            "--diagnose-every", "2s", "--default-rules=false", "--exporter",
                            "--listen", "", "--textfile-dir", prom])
            try:
                a.start()
                csv_dir = os.path.join(data, "csv")
                want = {(3, "input-starved"), (7, "memory-orphaned")}
                deadline = time.time() + 75
                began = set()
                while time.time() < deadline:
                    began = {(int(e[4]), e[7].split(" ", 1)[0]) for e in event_rows(csv_dir)
                             if e[3] == "diagnosis" and " began " in e[7]}
                    if want <= began:
                        break
                    time.sleep(0.5)
                check(want <= began, f"findings began: {sorted(began)}", a.log())
                # nothing found on the GPUs that train steadily with live ranks
                healthy = {g for g in (0, 1, 2, 4, 6)}
                check(not {b for b in began if b[0] in healthy},
                      f"no finding on a healthy GPU: {sorted(began)}")
                # a sample with the set after the events
                def written():
                    v = prom_values(os.path.join(prom, "gpumon.prom"))
                    return v if v.get((3, "input-starved")) == 1.0 else None
                v = wait_until(written, "the textfile with GPU 3 input-starved")
                check_eq(v.get((3, "input-starved")), 1.0, "GPU 3 input-starved on the metrics")
                check_eq(v.get((7, "memory-orphaned")), 1.0, "GPU 7 memory-orphaned")
                check_eq(v.get((0, "input-starved")), 0.0, "GPU 0 has the series, at 0")
                check_eq(len([k for k in v if k[0] == 0]), 17, "every cause for GPU 0")
                check(not any(v[k] for k in v if k[0] == 0), "GPU 0: all 0", v)
                alerts = [json.loads(l) for l in open(os.path.join(data, "alerts.jsonl"))]
                fired = {(x.get("gpu"), x.get("rule"), x.get("state")) for x in alerts}
                check((3, "starved", "firing") in fired, f"the rule fired for GPU 3: {fired}")
                check(not [x for x in fired if x[1] == "starved" and x[0] != 3],
                      f"only for GPU 3: {fired}")
                rc, _ = a.stop()
                check_eq(rc, 0, "agent exit status", a.log())
            finally:
                a.cleanup()
            ended = [e for e in event_rows(csv_dir) if e[3] == "diagnosis" and "ended" in e[7]]
            check(any(e[4] == "3" and "agent stopped" in e[7] for e in ended),
                  "the finding ends when the agent stops", ended)
            db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
            rows = db.execute("SELECT g.gpu_index, e.code FROM events e JOIN gpus g ON "
                              "g.id = e.gpu WHERE e.type = 'diagnosis'").fetchall()
            db.close()
            check((3, 0) in rows and (3, 256) in rows,
                  f"the store has GPU 3's beginning (code 0) and end (256): {rows}")
            rc, out, err = run(["report", "--no-config", "--data-dir", data, "--format", "json"],
                               env)
            check_eq(rc, 0, "report exit status", err)
            rep = {r["gpu"]: r["findings"] for r in json.loads(out)}
            check("input-starved" in rep.get(3, []), f"the report's findings for GPU 3: {rep}")
            check_eq(rep.get(0), [], "no findings for GPU 0 in the report")
    finally:
        for s in sleepers:
            s.kill()
            s.wait()


def test_host_side():
    """The agent's diagnosis reads the host side (docs/diagnose.md, "The host
    side"): on starved-host-cpu.ini GPU 0's feeder has one core pinned and no
    workers (the simulator's host view); the finding's event in the CSV
    events file and the store carries the host-side evidence, and the
    report's findings name it; GPU 1 (same GPU side, host at ease) has none."""
    sleepers = [subprocess.Popen(["sleep", "300"]) for _ in range(2)]
    try:
        with Scratch("dgh") as data:
            host = os.path.join(data, "host")
            env = sim_env("diagnose/starved-host-cpu.ini", GPUSIM_PID_LIVE=sleepers[0].pid,
                          GPUSIM_PID_LIVE2=sleepers[1].pid, GPUSIM_HOST_ROOT=host,
                          GPUMON_HOST_ROOT=host)
            a = Agent(data, env, args=["--interval", "0.5s", "--diagnose-window", "1m",
                                       "--diagnose-every", "2s", "--default-rules=false"])
            csv_dir = os.path.join(data, "csv")
            try:
                a.start()
                deadline = time.time() + 90
                began = []
                while time.time() < deadline and not began:
                    began = [e for e in event_rows(csv_dir) if e[3] == "diagnosis"
                             and " began " in e[7] and e[7].startswith("input-starved")]
                    time.sleep(0.5)
                check(began, "input-starved began", a.log())
                check_eq(began[0][4], "0", "on GPU 0", began)
                msg = began[0][7]
                check(f"feeder CPU-bound (num_workers=0" in msg and
                      f"pid {sleepers[0].pid} at " in msg and "0 workers" in msg,
                      "the event's evidence has the host side", msg)
                rc, _ = a.stop()
                check_eq(rc, 0, "agent exit status", a.log())
            finally:
                a.cleanup()
            others = [e for e in event_rows(csv_dir) if e[3] == "diagnosis" and e[4] != "0"]
            check_eq(others, [], "no finding on GPUs 1 and 2")
            db = sqlite3.connect(f"file:{data}/gpumon.db?mode=ro", uri=True)
            rows = db.execute("SELECT e.text FROM events e WHERE e.type = 'diagnosis' AND "
                              "e.code = 0").fetchall()
            db.close()
            check(any("num_workers=0" in r[0] for r in rows),
                  "the store's event keeps the host-side evidence", rows)
            rc, out, err = run(["report", "--no-config", "--data-dir", data, "--format", "json"],
                               env)
            check_eq(rc, 0, "report exit status", err)
            rep = {r["gpu"]: r["findings"] for r in json.loads(out)}
            check("input-starved" in rep.get(0, []), f"the report's findings for GPU 0: {rep}")
            check_eq(rep.get(1), [], "no findings for GPU 1 in the report")
    finally:
        for s in sleepers:
            s.kill()
            s.wait()


if __name__ == "__main__":
    main([test_findings, test_host_side])

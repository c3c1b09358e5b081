#!/usr/bin/env python3
"""diagnose_hostsim.py -- the simulator's host side reaches gpumon with no
variable set (docs/simulator.md, "The host side of a process").

A user who runs

    gpumon --sim scenarios/diagnose/starved-host-cpu.ini diagnose

exports neither GPUSIM_HOST_ROOT nor GPUMON_HOST_ROOT: the simulator answers
the host side of its simulated processes (pids >= 4194304, their workers)
from memory through gpusimHostRead(), and gpumon's host reader asks it.  So
GPU 0 of starved-host-cpu.ini is input-starved with the feeder's evidence
(one core pinned, no workers), GPU 0 of starved-host-io.ini is input-starved
as I/O-stalled (its workers' I/O wait, its cgroup's I/O pressure), and GPU
1 of both -- the same to the GPU, its host at ease -- stays light-load.
The scenarios' default pids are used (no GPUSIM_PID_* either), as a user
has them.  Both run side by side; each waits for gpumon to exit (at most
120 s on a loaded machine for an 8 s diagnosis).

The agent samples through the same collector: on starved-host-cpu.ini,
with no variable, it stores the host side (the hostside table), so
`diagnose --since` over its store and `report --html` name GPU 0
input-starved with the feeder's evidence ("Done when" of issue 25: the
report carries the host side).  The agent runs until its store holds 30
host-side rows of GPU 0 (15 s at 0.5 s; at most 120 s).
"""
import concurrent.futures
import os
import re
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import Agent, Scratch, run, scenario, sim_env  # noqa: E402

CASES = [
    # scenario, the feeder's verdict and what its evidence says of the host
    ("diagnose/starved-host-cpu.ini", "feeder CPU-bound (num_workers=0",
     r"pid 4194400 at 100 % of a core, 0 workers, I/O wait 0 %, cgroup pressure cpu 0 % io 0 %"),
    ("diagnose/starved-host-io.ini", "feeder I/O-stalled (waiting for storage)",
     r"pid 4194400 at 20 % of a core, 8 workers at 15 % of a core each, I/O wait 45 %, "
     r"cgroup pressure cpu 0 % io 40 %"),
]


def plain_env(scn):
    env = sim_env(scn)
    for k in ("GPUSIM_HOST_ROOT", "GPUMON_HOST_ROOT", "GPUSIM_PID_LIVE", "GPUSIM_PID_LIVE2"):
        env.pop(k, None)
    return env


def diagnose(scn):
    env = plain_env(scn)
    return run(["--sim", scenario(scn), "diagnose", "--duration", "8s"], env, timeout=120)


def check(scn, verdict, host, result):
    rc, out, err = result
    where = f"{scn}: gpumon diagnose (no host root)"
    if rc != 0:
        raise SystemExit(f"FAIL {where}: exit {rc}\n{err}")
    if not re.search(r"^GPU 0 .*findings: input-starved", out, re.M):
        raise SystemExit(f"FAIL {where}: GPU 0 is not input-starved:\n{out}")
    if not re.search(r"^GPU 1 .*  light-load ", out, re.M):
        raise SystemExit(f"FAIL {where}: GPU 1 (its host at ease) is not light-load:\n{out}")
    ev = [l for l in out.splitlines() if l.strip().startswith("evidence:")]
    if len(ev) != 1 or verdict not in ev[0] or not re.search(host, ev[0]):
        raise SystemExit(f"FAIL {where}: want evidence '{verdict}' with '{host}':\n{out}")
    print(f"ok {scn}: GPU 0 input-starved, {verdict}")


def host_rows(db_path):
    """GPU 0's host-side rows with a CPU figure in the store, 0 before it exists."""
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT count(*) FROM hostside h JOIN gpus g ON g.id = h.gpu "
                              "WHERE g.gpu_index = 0 AND h.cpu_cpct IS NOT NULL").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def test_store_report():
    scn = CASES[0][0]
    env = plain_env(scn)
    with Scratch("dhs") as data:
        a = Agent(data, env, args=["--interval", "0.5s", "--procs"])
        a.start()
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and host_rows(f"{data}/gpumon.db") < 30:
                if not a.alive():
                    raise SystemExit(f"FAIL the agent died:\n{a.log()}")
                time.sleep(0.5)
        finally:
            rc, _ = a.stop()
        n = host_rows(f"{data}/gpumon.db")
        if rc != 0 or n < 30:
            raise SystemExit(f"FAIL agent exit {rc}, {n} host-side rows of GPU 0 (want 30):\n"
                             + a.log())
        result = run(["diagnose", "--no-config", "--since", "10m", "--data-dir", data], env)
        check(scn + " (store)", CASES[0][1], CASES[0][2], result)
        html = os.path.join(data, "report.html")
        rc, out, err = run(["report", "--no-config", "--since", "1h", "--data-dir", data,
                            "--html", html], env)
        if rc != 0:
            raise SystemExit(f"FAIL report exit {rc}: {err}")
        with open(html, encoding="utf-8") as f:
            page = f.read()
        if CASES[0][1] not in page or "pid 4194400 at 100 % of a core" not in page:
            raise SystemExit(f"FAIL the report's diagnosis has no host side for GPU 0 ({html})")
    print("ok the agent's store and the report carry the host side")


def main():
    with concurrent.futures.ThreadPoolExecutor(len(CASES)) as ex:
        results = list(ex.map(lambda c: diagnose(c[0]), CASES))
    for (scn, verdict, host), result in zip(CASES, results):
        check(scn, verdict, host, result)
    test_store_report()


if __name__ == "__main__":
    main()

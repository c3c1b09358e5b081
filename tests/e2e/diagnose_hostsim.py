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
"""
import concurrent.futures
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import run, scenario, sim_env  # noqa: E402

CASES = [
    # scenario, the feeder's verdict and what its evidence says of the host
    ("diagnose/starved-host-cpu.ini", "feeder CPU-bound (num_workers=0",
     r"pid 4194400 at 100 % of a core, 0 workers, I/O wait 0 %, cgroup pressure cpu 0 % io 0 %"),
    ("diagnose/starved-host-io.ini", "feeder I/O-stalled (waiting for storage)",
     r"pid 4194400 at 20 % of a core, 8 workers at 15 % of a core each, I/O wait 45 %, "
     r"cgroup pressure cpu 0 % io 40 %"),
]


def diagnose(scn):
    env = sim_env(scn)
    for k in ("GPUSIM_HOST_ROOT", "GPUMON_HOST_ROOT", "GPUSIM_PID_LIVE", "GPUSIM_PID_LIVE2"):
        env.pop(k, None)
    return run(["--sim", scenario(scn), "diagnose", "--duration", "8s"], env, timeout=120)


def check(scn, verdict, host, result):
    rc, out, err = result
    where = f"{scn}: gpumon --sim {scn} diagnose (no host root)"
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


def main():
    with concurrent.futures.ThreadPoolExecutor(len(CASES)) as ex:
        results = list(ex.map(lambda c: diagnose(c[0]), CASES))
    for (scn, verdict, host), result in zip(CASES, results):
        check(scn, verdict, host, result)


if __name__ == "__main__":
    main()

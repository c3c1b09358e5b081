#!/usr/bin/env python3
"""Loop behaviour of gpumon's repeating commands against the simulator:

  query -lms: header once, drift-free rows, a clean exit on SIGINT, and the
              0.5 s "heartbeat" of a data-starved GPU visible at 10 Hz;
  query -l:   a driver that goes away mid-loop is reported once on stderr,
              rows stop, and resume when the driver is back;
  status -i:  repeats, and exits 0 on SIGTERM.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import signal
import subprocess
import sys
import time

ROOT = os.environ["SOURCE_ROOT"]
GPUMON = os.environ["GPUMON"]


def env_for(scenario, **extra):
    env = dict(os.environ)
    for k in ("GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH"):
        env.pop(k, None)
    env.update({"GPUMON_NVML_LIB": os.environ["SIM_LIB"], "TZ": "UTC", "LC_ALL": "C",
                "NO_COLOR": "1", "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", scenario)})
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_for(args, env, seconds, sig=signal.SIGINT):
    p = subprocess.Popen([GPUMON] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(seconds)
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"{args} did not stop within 5 s of {sig!r}")
    return p.returncode, out.decode(), err.decode()


def check(cond, msg, *ctx):
    if not cond:
        print("FAIL:", msg)
        for c in ctx:
            print(c)
        sys.exit(1)


def test_query_lms_heartbeat():
    rc, out, err = run_for(["query", "--query-gpu=index,utilization.gpu", "--format=csv,nounits",
                            "-i", "3", "-lms", "100"], env_for("h100x8-training.ini"), 2.05)
    lines = out.splitlines()
    check(rc == 0, f"exit status {rc} after SIGINT", err)
    check(lines[0] == "index, utilization.gpu [%]", "header", out)
    check(lines.count(lines[0]) == 1, "the header is printed once", out)
    rows = lines[1:]
    # 100 ms cadence for ~2 s: 20 or 21 rows (drift-free, not piling up)
    check(19 <= len(rows) <= 22, f"{len(rows)} rows in 2.05 s at 10 Hz", out)
    utils = [int(r.split(", ")[1]) for r in rows]
    check(all(r.startswith("3, ") for r in rows), "only GPU 3", out)
    # the data-starved GPU beats: both busy and idle samples at 10 Hz
    check(max(utils) >= 80 and min(utils) <= 10, f"no heartbeat visible in {utils}")
    print(f"ok query -lms: {len(rows)} rows, utilisation {min(utils)}..{max(utils)} %")


def test_query_loop_driver_away_and_back():
    # faults.ini: driver not loaded 240-300 s, version mismatch 300-360 s, healthy after.
    # Run the scenario clock 60x from t=230: the loop sees rows, the driver leave, and return.
    speed = 60
    env = env_for("faults.ini", GPUSIM_SPEED=speed, GPUSIM_EPOCH=f"{time.time() - 230 / speed:.3f}")
    rc, out, err = run_for(["query", "--query-gpu=index,name", "--format=csv,noheader",
                            "-i", "0", "-lms", "100"], env, 3.2)
    check(rc == 0, f"exit status {rc}", err)
    warn_lost = "gpumon: warning: no rows until the driver answers again"
    warn_back = "gpumon: warning: the driver answers again; rows resume"
    errs = err.splitlines()
    check(errs.count(warn_lost) == 1, "one warning when the driver goes", err)
    check(errs.count(warn_back) == 1, "one warning when it comes back", err)
    check(errs.index(warn_lost) < errs.index(warn_back), "in that order", err)
    # the cause is named once, not once per sample
    check(sum("not loaded" in e for e in errs) == 1, "driver message printed once", err)
    rows = out.splitlines()
    check(len(rows) >= 4, "rows before and after the outage", out)
    check(all(r == "0, NVIDIA A100-SXM4-80GB" for r in rows), "rows are GPU 0", out)
    print(f"ok query -l across a driver outage: {len(rows)} rows, stderr: {errs}")


def test_status_interval_sigterm():
    rc, out, err = run_for(["status", "-i", "0.2", "--no-procs"], env_for("workstation.ini"),
                           1.1, signal.SIGTERM)
    check(rc == 0, f"exit status {rc} after SIGTERM", err)
    blocks = out.count("NVIDIA GeForce RTX 4090")
    check(5 <= blocks <= 7, f"{blocks} refreshes in 1.1 s at 0.2 s", out)
    print(f"ok status -i: {blocks} refreshes")


if __name__ == "__main__":
    test_query_lms_heartbeat()
    test_query_loop_driver_away_and_back()
    test_status_interval_sigterm()

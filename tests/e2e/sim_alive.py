#!/usr/bin/env python3
"""The demo scenario tells its story with nothing but --sim (issue 26).

`gpumon --sim scenarios/h100x8-training.ini ...` with no GPUSIM_* or
GPUMON_NVML_LIB in the environment, no stand-in processes: the simulated
/proc view (docs/simulator.md) makes the eight ranks live processes and the
stale rank (pid 4194304, `alive = no`) gone, and `start = 600s` makes GPU 5
hot from the first sample.  So:

  diagnose      GPU 3 input-starved, GPU 5 thermal-throttle, GPU 7
                memory-orphaned, no finding on GPUs 0, 1, 2, 4, 6;
  status        every rank with its user, only 4194304 "process gone",
                GPU 5 [thermal];
  status --json host_state alive for the ranks, gone for 4194304;
  top           (in a tmux pane) `[gone]` on the 4194304 row only, and no
                SM % charged to it (NVML has no sample of a dead process);
  report        after a few seconds of `agent --procs`: `--by user` charges
                the ranks' user, and the dead pid only as "(vanished)" with
                no GPU time, energy or utilisation, its 30 GiB as memory
                (docs/jobs.md), never "(unknown)".

Environment from meson: GPUMON, SOURCE_ROOT.
"""
import csv
import io
import json
import os
import signal
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_lib import free_port  # noqa: E402

ROOT = os.environ["SOURCE_ROOT"]
GPUMON = os.environ["GPUMON"]
SCENARIO = os.path.join(ROOT, "scenarios", "h100x8-training.ini")
RANKS = [4194400 + r for r in range(8)]
STALE = 4194304
USER = pwd.getpwuid(os.getuid()).pw_name
failures = []


def check(ok, msg, detail=""):
    if not ok:
        failures.append(msg + ("\n" + detail if detail else ""))


def bare_env():
    """The environment of a new user: no simulator variables at all."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GPUSIM_") and k != "GPUMON_NVML_LIB"}
    env.update({"TZ": "UTC", "LC_ALL": "C.UTF-8", "NO_COLOR": "1"})
    return env


def gpumon(*args, timeout=120):
    r = subprocess.run([GPUMON, "--sim", SCENARIO, *args], env=bare_env(), capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        failures.append(f"gpumon {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def test_diagnose():
    out = gpumon("diagnose")
    found = {}
    for line in out.split("\n"):
        m = re.match(r"GPU (\d+)  .*?  (findings: (.*?)|[a-z-]+)  \(\d+ samples\)$", line)
        if m:
            found[int(m.group(1))] = m.group(3).split(", ") if m.group(3) else []
    want = {3: ["input-starved"], 5: ["thermal-throttle"], 7: ["memory-orphaned"]}
    check(sorted(found) == list(range(8)), "diagnose lists GPUs 0-7", out)
    for gpu in range(8):
        check(found.get(gpu) == want.get(gpu, []),
              f"diagnose GPU {gpu}: {found.get(gpu)}, want {want.get(gpu, [])}", out)
    # the orphan's own memory, not the GPU's total (issue 26)
    check("1 of 2 process(es) on the GPU no longer exist on the host and hold 30.0 GiB "
          "(of 74.5 GiB used)" in out, "memory-orphaned names the dead pid's 30 GiB", out)


def test_status():
    out = gpumon("status")
    lines = [l for l in out.split("\n") if l.startswith("[")]
    check(len(lines) == 8, "status shows 8 GPUs", out)
    for gpu, pid in enumerate(RANKS):
        check(f"{USER}:python3/{pid}(" in out, f"status: rank {pid} live, of {USER}", out)
    check(out.count("process gone") == 1 and f"python3/{STALE}(30720M,process gone)" in out,
          "status: only the stale rank is gone", out)
    check(len(lines) == 8 and "[thermal]" in lines[5], "status: GPU 5 [thermal] at once", out)
    doc = json.loads(gpumon("status", "--json"))
    states = {p["pid"]: p["host_state"] for g in doc["gpus"] for p in g["processes"]}
    want = {pid: "alive" for pid in RANKS}
    want[STALE] = "gone"
    check(states == want, f"status --json host states {states}, want {want}")
    # one story of the dead process: NVML has no utilisation sample of it,
    # so no SM share is charged to it (the live rank on GPU 7 has its own)
    sm = {p["pid"]: p["sm_util_percent"] for g in doc["gpus"] for p in g["processes"]}
    check(sm.get(STALE, 0) is None, f"status --json: the dead pid's SM share {sm.get(STALE)}")
    check(all(isinstance(sm.get(p), int) for p in RANKS), f"status --json: ranks' SM {sm}")


def test_top():
    if not shutil.which("tmux"):
        print("note: tmux is not installed; top not checked")
        return
    d = tempfile.mkdtemp(prefix="gpumon-alive-")
    sock = os.path.join(d, "tmux.sock")
    script = os.path.join(d, "run.sh")
    env = bare_env()
    env.pop("NO_COLOR", None)
    with open(script, "w") as f:
        f.write("#!/bin/sh\n")
        f.write(f"exec {shlex.quote(GPUMON)} --sim {shlex.quote(SCENARIO)} top\n")
    os.chmod(script, 0o755)

    def tmux(*a):
        return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", *a], env=env,
                              capture_output=True, text=True, timeout=10).stdout

    try:
        tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "70", script)
        deadline = time.monotonic() + 30
        screen = ""
        while time.monotonic() < deadline:
            screen = tmux("capture-pane", "-p", "-t", "t")
            if all(str(p) in screen for p in RANKS + [STALE]):
                break
            time.sleep(0.2)
        rows = {p: [l for l in screen.split("\n") if str(p) in l] for p in RANKS + [STALE]}
        check(all(rows[p] for p in rows), "top shows every process", screen)
        check(all("[gone]" not in l for p in RANKS for l in rows[p]),
              "top: no rank is [gone]", screen)
        check(any("[gone]" in l for l in rows[STALE]), "top: the stale rank is [gone]", screen)
        check(any(re.match(rf"^\s*7\s+{STALE}\s+\S+\s+C\s+30\.0G\s+N/A\s", l)
                  for l in rows[STALE]), "top: no SM % charged to the stale rank", screen)
        tmux("send-keys", "-t", "t", "q")
    finally:
        tmux("kill-server")
        shutil.rmtree(d, ignore_errors=True)


def test_report():
    d = tempfile.mkdtemp(prefix="gpumon-alive-")
    data = os.path.join(d, "data")
    agent = subprocess.Popen([GPUMON, "--sim", SCENARIO, "agent", "--no-config", "--data-dir", data,
                              "--interval", "1s", "--procs", "--listen",
                              f"127.0.0.1:{free_port()}"],
                             env=bare_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rows, out = {}, ""
    try:
        # wait until the store holds some seconds of both groups
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(1)
            if not os.path.exists(os.path.join(data, "gpumon.db")):
                continue
            r = subprocess.run([GPUMON, "report", "--no-config", "--data-dir", data, "--since",
                                "1h", "--by", "user", "--format", "csv"], env=bare_env(),
                               capture_output=True, text=True, timeout=30)
            out = r.stdout
            rows = {row["user"]: row for row in csv.DictReader(io.StringIO(out))}
            if USER in rows and "(vanished)" in rows and float(rows[USER]["energy_wh"] or 0) > 1:
                break
    finally:
        agent.send_signal(signal.SIGINT)
        try:
            agent.wait(timeout=30)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait()
        shutil.rmtree(d, ignore_errors=True)
    check(set(rows) == {USER, "(vanished)"}, f"report --by user: {sorted(rows)}", out)
    if set(rows) == {USER, "(vanished)"}:
        live, dead = rows[USER], rows["(vanished)"]
        check(live["gpus"] == "8" and float(live["gpu_hours"]) > 0 and
              float(live["energy_wh"]) > 0 and live["util_avg_pct"] != "",
              "the ranks' user has the GPUs' time, energy, utilisation", out)
        check((dead["gpus"], dead["gpu_hours"], dead["energy_wh"], dead["util_avg_pct"],
               dead["mem_peak_mib"], dead["throttled_s"]) == ("1", "0.000", "0.0", "", "30720", "0"),
              "the dead pid: no time, energy or utilisation, its 30 GiB", out)


def main():
    test_status()
    test_report()
    test_top()
    test_diagnose()
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

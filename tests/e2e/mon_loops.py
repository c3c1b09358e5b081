#!/usr/bin/env python3
"""dmon and pmon as running programs, against the simulator with its clock
moving:

  * Ctrl-C (SIGINT) and SIGTERM end a run with status 0 and whole lines;
  * `| head` ends a run at once with status 0 and nothing on stderr;
  * -f FILE writes the table to the file;
  * the violation columns are rates: GPU 5 of the training node is held at
    its slowdown temperature, so its tviol reads 1 from the second sample on
    while its pviol (never power-capped) reads 0;
  * -c N stops after N samples at the -d cadence;
  * the header comes again once a screenful has gone by.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.environ["SOURCE_ROOT"]
GPUMON = os.environ["GPUMON"]


def env_for(scenario, **extra):
    env = dict(os.environ)
    for k in ("GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH", "GPUSIM_SCENARIO"):
        env.pop(k, None)
    env.update({"GPUMON_NVML_LIB": os.environ["SIM_LIB"], "TZ": "UTC", "LC_ALL": "C",
                "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", scenario)})
    env.update({k: str(v) for k, v in extra.items()})
    return env


def check(cond, msg, *ctx):
    if not cond:
        print("FAIL:", msg)
        for c in ctx:
            print(c)
        sys.exit(1)


# generous: a loaded machine is slow, and the tests wait for what they mean
DEADLINE = 60


def test_signals():
    for cmd, sig in ((["dmon", "-d", "0.1"], signal.SIGINT), (["pmon", "-d", "0.1"], signal.SIGTERM)):
        per = 8 if cmd[0] == "dmon" else 9
        p = subprocess.Popen([GPUMON] + cmd, env=env_for("h100x8-training.ini"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # the signal comes once two whole samples are out (not after a fixed
        # time: a loaded machine may not have printed them yet)
        head, rows = b"", 0
        while rows < 2 * per:
            line = p.stdout.readline()
            if not line:
                break
            head += line
            rows += not line.startswith(b"#")
        check(rows >= 2 * per, f"{cmd}: ended before two samples", head)
        p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            p.kill()
            check(False, f"{cmd} did not stop within {DEADLINE} s of {sig!r}")
        out, err = (head + out).decode(), err.decode()
        check(p.returncode == 0, f"{cmd}: exit status {p.returncode} after {sig!r}", err)
        check(err == "", f"{cmd}: stderr after {sig!r}", err)
        check(out.endswith("\n"), f"{cmd}: the last line is whole", out)
        rows = [l for l in out.splitlines() if not l.startswith("#")]
        check(len(rows) >= 2 * per and len(rows) % per == 0,
              f"{cmd}: whole samples of rows", out)
    print("ok signals")


def test_head():
    for cmd in (["dmon", "-d", "0.05"], ["pmon", "-d", "0.05"]):
        p = subprocess.Popen([GPUMON] + cmd, env=env_for("h100x8-training.ini"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        h = subprocess.Popen(["head", "-n", "3"], stdin=p.stdout, stdout=subprocess.PIPE)
        p.stdout.close()
        out = h.communicate(timeout=DEADLINE)[0].decode()
        try:
            # "at once": it stops at its next write, well within the deadline
            err = p.communicate(timeout=DEADLINE)[1].decode()
        except subprocess.TimeoutExpired:
            p.kill()
            check(False, f"{cmd} | head: gpumon kept running after head exited")
        check(len(out.splitlines()) == 3, f"{cmd} | head -n 3", out)
        check(p.returncode == 0, f"{cmd} | head: gpumon exit status {p.returncode}", err)
        check(err == "", f"{cmd} | head: stderr", err)
    print("ok head")


def test_file_and_count():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pmon.txt")
        with open(path, "w") as f:
            f.write("old content that -f truncates\n" * 50)
        t0 = time.monotonic()
        r = subprocess.run([GPUMON, "pmon", "-c", "3", "-d", "0.3", "-f", path, "-s", "m"],
                           env=env_for("h100x8-training.ini", GPUSIM_TIME=300),
                           capture_output=True, timeout=DEADLINE)
        took = time.monotonic() - t0
        check(r.returncode == 0 and r.stdout == b"" and r.stderr == b"", "pmon -f", r)
        lines = open(path).read().splitlines()
        check(lines[0].startswith("# gpu         pid   type     fb   ccpm    command"), "header", lines)
        rows = [l for l in lines if not l.startswith("#")]
        check(len(rows) == 3 * 9, f"3 samples of 9 processes in {path}", lines)
        # 24 lines to a screen when not a terminal: the third sample repeats the header
        check([i for i, l in enumerate(lines) if l.startswith("# gpu")] == [0, 20],
              "the header again before the third sample", lines)
        check("30720" in lines[-1] and "4194304" in lines[-1], "the dead PID's 30 GiB", lines)
        # the first sample at once, two more 0.3 s apart: never sooner (a
        # loaded machine only makes it later, so no upper bound here; the
        # cadence itself is measured by make bench)
        check(took > 0.55, f"-c 3 -d 0.3 took {took:.2f} s (two intervals are 0.6 s)")
    print("ok file and count")


def test_violation_rates():
    # scenario time ~100 s: GPU 5 has been at its 89 C slowdown since ~45 s
    env = env_for("h100x8-training.ini", GPUSIM_EPOCH=f"{time.time() - 100:.3f}")
    r = subprocess.run([GPUMON, "dmon", "-s", "pv", "-i", "5,0", "-c", "3", "-d", "0.5"],
                       env=env, capture_output=True, timeout=DEADLINE)
    out = r.stdout.decode()
    check(r.returncode == 0, "dmon -s pv", r.stderr.decode())
    rows = [l.split() for l in out.splitlines() if not l.startswith("#")]
    check(len(rows) == 6, "3 samples of 2 GPUs", out)
    # first sample: no interval yet
    check(rows[0][4:] == ["-", "-"] and rows[1][4:] == ["-", "-"], "first sample: '-'", out)
    for r0, r5 in (rows[2:4], rows[4:6]):
        check(r0[0] == "0" and r0[4:] == ["0", "0"], "GPU 0: no violations", out)
        check(r5[0] == "5" and r5[4] == "0" and r5[5] == "1", "GPU 5: thermally limited", out)
        check(int(r5[2]) >= 88, "GPU 5 at its slowdown temperature", out)
    print("ok violation rates")


if __name__ == "__main__":
    test_signals()
    test_head()
    test_file_and_count()
    test_violation_rates()
    print("mon_loops: all passed")

#!/usr/bin/env python3
"""nvidia-smi's top-level forms that loop or depend on the program's name
(issue 28 point 11; the one-shot forms are tests/e2e/cases/smi-*.t):

  gpumon -lms MS --query-gpu=... -i N   rows of GPU N only, header once, exit 0 on SIGINT
  gpumon --query-gpu=... -l SEC -i N    the same with -l after the query
  gpumon -l SEC -i N                    the default view (status) of GPU N, repeated
  nvidia-smi --version (a link)         nvidia-smi's version block alone; exit 3 without NVML

Each loop is read until it has shown what the test means (a generous
deadline, never a duration or a count of ticks), then stopped.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.environ["SOURCE_ROOT"]
GPUMON = os.environ["GPUMON"]
DEADLINE = 40.0


def env_for(scenario, **extra):
    env = dict(os.environ)
    for k in ("GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH"):
        env.pop(k, None)
    env.update({"GPUMON_NVML_LIB": os.environ["SIM_LIB"], "TZ": "UTC", "LC_ALL": "C",
                "NO_COLOR": "1", "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", scenario)})
    env.update({k: str(v) for k, v in extra.items()})
    return env


def fail(msg, *ctx):
    print("FAIL:", msg)
    for c in ctx:
        print(c)
    sys.exit(1)


def run_until(args, env, done, sig=signal.SIGINT):
    """Runs gpumon ARGS until done(lines) holds (or the deadline), then
    sends sig; returns (exit status, stdout lines, stderr)."""
    p = subprocess.Popen([GPUMON] + args, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    buf = b""
    end = time.monotonic() + DEADLINE
    while not done(buf.decode(errors="replace").splitlines()):
        left = end - time.monotonic()
        if left <= 0 or p.poll() is not None:
            p.kill()
            out, err = p.communicate()
            fail(f"{args}: not seen within {DEADLINE} s (exit {p.returncode})",
                 (buf + out).decode(errors="replace"), err.decode(errors="replace"))
        if sel.select(timeout=min(left, 1.0)):
            chunk = os.read(p.stdout.fileno(), 65536)
            buf += chunk
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(f"{args} did not stop within 20 s of {sig!r}")
    return p.returncode, (buf + out).decode(errors="replace").splitlines(), err.decode()


def test_lms_before_query():
    args = ["-lms", "200", "--query-gpu=index,name", "--format=csv", "-i", "1"]
    rc, lines, err = run_until(args, env_for("h100x8-training.ini"), lambda ls: len(ls) >= 4)
    if rc != 0:
        fail(f"{args}: exit {rc} after SIGINT", err)
    if lines[0] != "index, name" or lines.count(lines[0]) != 1:
        fail(f"{args}: the header once, first", "\n".join(lines))
    rows = [ln for ln in lines[1:] if ln]
    if len(rows) < 3 or any(r != "1, NVIDIA H100 80GB HBM3" for r in rows):
        fail(f"{args}: rows of GPU 1 only", "\n".join(lines))
    print(f"ok gpumon {' '.join(args)}: {len(rows)} rows of GPU 1")


def test_loop_after_query():
    args = ["--query-gpu=index", "--format=csv,noheader", "-l", "1", "-i", "2"]
    rc, lines, err = run_until(args, env_for("h100x8-training.ini"), lambda ls: len(ls) >= 2)
    if rc != 0 or any(ln != "2" for ln in lines if ln):
        fail(f"{args}: exit {rc}, rows {lines}", err)
    print(f"ok gpumon {' '.join(args)}: {len(lines)} rows")


def test_status_loop():
    args = ["-l", "1", "-i", "1"]
    heads = lambda ls: [ln for ln in ls if "  driver 550.54.15  CUDA 12.4" in ln]
    rc, lines, err = run_until(args, env_for("a100-mig.ini", GPUSIM_TIME=120),
                               lambda ls: len(heads(ls)) >= 2, sig=signal.SIGTERM)
    if rc != 0:
        fail(f"{args}: exit {rc} after SIGTERM", err)
    gpus = [ln for ln in lines if ln.startswith("[")]
    if len(gpus) < 2 or any(not g.startswith("[1] NVIDIA A100-SXM4-80GB |") for g in gpus):
        fail(f"{args}: the view of GPU 1, repeated", "\n".join(lines))
    print(f"ok gpumon {' '.join(args)}: {len(heads(lines))} views of GPU 1")


def test_version_as_nvidia_smi():
    with tempfile.TemporaryDirectory() as d:
        smi = os.path.join(d, "nvidia-smi")
        os.symlink(GPUMON, smi)
        p = subprocess.run([smi, "--version"], env=env_for("h100x8-training.ini"),
                           capture_output=True, text=True, timeout=60)
        want = ("NVIDIA-SMI version  : 550.54.15\nNVML version        : 550.54\n"
                "DRIVER version      : 550.54.15\nCUDA Version        : 12.4\n")
        if p.returncode != 0 or p.stdout != want or p.stderr:
            fail("nvidia-smi --version: the block alone", p.returncode, p.stdout, p.stderr)
        env = env_for("h100x8-training.ini", GPUMON_NVML_LIB=os.path.join(d, "missing.so"))
        p = subprocess.run([smi, "--version"], env=env, capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 3 or p.stdout or "missing.so" not in p.stderr:
            fail("nvidia-smi --version without NVML: exit 3 and the cause", p.returncode,
                 p.stdout, p.stderr)
    print("ok nvidia-smi --version (a link to gpumon): the block; without NVML exit 3")


test_lms_before_query()
test_loop_after_query()
test_status_loop()
test_version_as_nvidia_smi()

#!/usr/bin/env python3
"""calls_run.py -- NVML calls per GPU per sample of `gpumon agent`, by read group.

    calls_run.py --gpumon PATH --dir DIR --out JSON [--doc DOC] [--window 30]
                 [--interval 1s] [--warmup 3] [--gpus 8]

Runs the agent (--no-config, 1 s, the clock moving) on the simulator with
GPUSIM_COUNT (docs/simulator.md) pointing at a file of its own, once per
configuration: the default outputs (CSV log, store, processes, exporter) and
the CSV log alone.  Between two readings taken half an interval after a
sample (so that no sample is half counted) it takes the difference of the
simulator's per-function counts and of the agent's own sample counter, and
prints calls per GPU per sample, by function and by read group.  The window
(30 s) spans the slow groups' period, so their calls are averaged over it.

A function is given to a read group by reading gpumon's NVML source
(src/source/nvml*.c): the functions that the group's reader
(gm_nv_rd_GROUP) and the helpers it calls name.  A function that two groups
name is shown under both names joined by "+"; one that no reader names
(handles, the host's versions, the process lists, MIG, sample buffers)
under "other".  A machine-independent figure: on a GPU each call costs
microseconds to milliseconds whatever this machine is.

With --doc, rewrites the block between <!-- generated:calls --> and
<!-- /generated:calls --> of DOC; the block keeps its "before" table (the
first one recorded) and replaces the "latest" one.  Exit status 0, 1 when
a run failed.  Benchmarks never assert: a figure is a figure.
"""

import argparse
import glob
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

from agent_run import status

REC = 64   # GS_COUNT_REC (sim/gpusim.h)
NAME = 56  # GS_COUNT_NAME


def die(msg):
    sys.exit("calls_run: " + msg)


def read_counts(path):
    out = {}
    with open(path, "rb") as f:
        data = f.read()
    for k in range(len(data) // REC):
        rec = data[k * REC:(k + 1) * REC]
        name = rec[:NAME].split(b"\0", 1)[0].decode("ascii", "replace")
        out[name] = struct.unpack("=Q", rec[NAME:REC])[0]
    return out


def group_map(src_dir):
    """function -> sorted list of read groups whose reader names it."""
    text = ""
    for p in sorted(glob.glob(os.path.join(src_dir, "nvml*.c")) +
                    glob.glob(os.path.join(src_dir, "nvml_int.h"))):
        with open(p) as f:
            text += f.read() + "\n"
    # function bodies: a definition at column 0 up to the next "}" at column 0
    bodies = {}
    for m in re.finditer(r"^[A-Za-z][\w \*]*?\b(\w+)\([^;{]*\)\s*\{(.*?)^\}", text, re.S | re.M):
        bodies.setdefault(m.group(1), "")
        bodies[m.group(1)] += m.group(2)
    calls = {f: set(re.findall(r"\b(nvml[A-Z]\w+)\b", b)) for f, b in bodies.items()}
    helpers = {f: {g for g in re.findall(r"\b(\w+)\s*\(", b) if g in bodies and g != f}
               for f, b in bodies.items()}
    fn_groups = {}
    for f in bodies:
        if not f.startswith("gm_nv_rd_"):
            continue
        group = f[len("gm_nv_rd_"):]
        seen, todo = set(), [f]
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            todo.extend(helpers.get(h, ()))
        for h in seen:
            for c in calls.get(h, ()):
                fn_groups.setdefault(c, set()).add(group)
    return {k: sorted(v) for k, v in fn_groups.items()}


def after_sample(gpumon, data_dir, interval_s, deadline=60):
    """Waits for the agent's sample counter to move, then half an interval."""
    t0 = time.monotonic()
    st = status(gpumon, data_dir)
    first = st["samples"] if st else -1
    while time.monotonic() - t0 < deadline:
        time.sleep(0.05)
        st = status(gpumon, data_dir)
        if st and st.get("samples", 0) > first >= 0:
            time.sleep(interval_s / 2)
            return
        if st and first < 0:
            first = st["samples"]
    die("the agent's sample counter did not move within %d s" % deadline)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(a, name, extra):
    data_dir = os.path.join(a.dir, name + ".d")
    counts = os.path.join(a.dir, name + ".counts")
    env = dict(os.environ, GPUSIM_COUNT=os.path.abspath(counts))
    cmd = [a.gpumon, "agent", "--no-config", "--data-dir", data_dir, "--interval",
           a.interval] + extra
    log = open(os.path.join(a.dir, name + ".log"), "w")
    agent = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    interval_s = float(a.interval.rstrip("ms").rstrip("s")) / (1000 if a.interval.endswith("ms")
                                                               else 1)
    try:
        t0 = time.monotonic()
        while True:
            if agent.poll() is not None:
                die("%s: the agent exited (status %d); see %s"
                    % (name, agent.returncode, log.name))
            st = status(a.gpumon, data_dir)
            if st and st.get("samples", 0) >= 1:
                break
            if time.monotonic() - t0 > 60:
                die("%s: no sample within 60 s" % name)
            time.sleep(0.2)
        time.sleep(a.warmup)
        after_sample(a.gpumon, data_dir, interval_s)
        s0, c0 = status(a.gpumon, data_dir)["samples"], read_counts(counts)
        time.sleep(max(0.0, a.window - interval_s))
        after_sample(a.gpumon, data_dir, interval_s)
        s1, c1 = status(a.gpumon, data_dir)["samples"], read_counts(counts)
    finally:
        if agent.poll() is None:
            agent.send_signal(signal.SIGTERM)
            try:
                agent.wait(timeout=30)
            except subprocess.TimeoutExpired:
                agent.kill()
    samples = s1 - s0
    if samples <= 0:
        die("%s: no sample in the window" % name)
    per = {f: (c1.get(f, 0) - c0.get(f, 0)) / samples / a.gpus for f in c1}
    return {"command": cmd, "samples": samples,
            "per_gpu_sample": {f: v for f, v in sorted(per.items()) if v > 0}}


def by_group(per, fmap):
    groups = {}
    for f, v in per.items():
        g = "+".join(fmap.get(f, [])) or "other"
        groups[g] = groups.get(g, 0.0) + v
    return groups


def table(result, configs):
    groups = sorted({g for c in configs for g in result[c]["groups"]},
                    key=lambda g: (-max(result[c]["groups"].get(g, 0) for c in configs), g))
    head = "| read group | " + " | ".join(configs) + " |\n"
    head += "| --- |" + " ---: |" * len(configs) + "\n"
    rows = ["| **all** | " + " | ".join("**%.1f**" % result[c]["total"] for c in configs) + " |"]
    for g in groups:
        rows.append("| %s | " % g + " | ".join("%.2f" % result[c]["groups"].get(g, 0)
                                              for c in configs) + " |")
    return head + "\n".join(rows) + "\n"


def write_doc(doc, result, configs, when, commit):
    with open(doc) as f:
        text = f.read()
    pat = r"<!-- generated:calls -->\n(.*?)<!-- /generated:calls -->"
    m = re.search(pat, text, re.S)
    if not m:
        die("no <!-- generated:calls --> block in %s" % doc)
    old = m.group(1)
    latest = ("Latest: %s, commit %s; NVML calls per GPU per sample (the agent at %s, %d GPUs; "
              "samples in the window: %s).\n\n" % (
                  when, commit, result["interval"], result["gpus"],
                  ", ".join("%s %d" % (c, result[c]["samples"]) for c in configs))
              + table(result, configs))
    b = old.find("Before:")
    lat = old.find("Latest:")
    if b >= 0:
        before = old[b:lat if lat > b else len(old)].rstrip("\n") + "\n\n"
    else:  # the first run records its figures as "before"
        before = "Before:" + latest[len("Latest:"):] + "\n"
    block = before + latest
    text = text[:m.start(1)] + block + text[m.end(1):]
    with open(doc, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpumon", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc")
    ap.add_argument("--window", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--interval", default="1s")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "src", "source"))
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    fmap = group_map(a.src)
    configs = {
        "default": ["--csv", "--store", "--procs", "--listen=127.0.0.1:%d" % free_port()],
        "CSV only": ["--csv", "--no-store", "--no-exporter"],
    }
    result = {"interval": a.interval, "gpus": a.gpus, "window_s": a.window}
    for name, extra in configs.items():
        r = run(a, name.replace(" ", "-").lower(), extra)
        r["groups"] = by_group(r["per_gpu_sample"], fmap)
        r["total"] = sum(r["per_gpu_sample"].values())
        result[name] = r
        print("calls: %s: %.1f NVML calls per GPU per sample (%d samples)"
              % (name, r["total"], r["samples"]), file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    sys.stdout.write(table(result, list(configs)))
    if a.doc:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        write_doc(a.doc, result, list(configs),
                  time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())

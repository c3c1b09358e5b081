#!/usr/bin/env python3
"""mem_run.py -- the agent's memory until its windows are full.

    mem_run.py --gpumon PATH --dir DIR --out JSON [--doc DOC] [--interval 100ms]
               [--seconds 420] [--every 30]

Runs two agents side by side on the simulator (8 GPUs, the clock moving;
--no-config, CSV log, store, processes, exporter on a free port): one with
the diagnosis on (the default) and one with --diagnose=false, for --seconds,
reading VmRSS and VmHWM (/proc/PID/status) and the agent's sample counter
every --every seconds.  At 100 ms the diagnosis window (5 minutes) is full
after 3000 samples per GPU and the live page's history ring (at most 3600
samples per GPU, src/export/live.h) after 6 minutes: the default 420 s sees
both full.  The diagnosis window's cost per GPU-sample is the difference of
the two agents' RSS at the end divided by the GPUs and the samples the
window holds.

With --doc, rewrites the block between <!-- generated:memory --> and
<!-- /generated:memory --> of DOC.  Exit status 0, 1 when a run failed.
Benchmarks never assert: a figure is a figure.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

from agent_run import status


def die(msg):
    sys.exit("mem_run: " + msg)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mem(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0])
    return out


def seconds(text):
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text.rstrip("s"))


def write_doc(doc, r, when, commit):
    with open(doc) as f:
        text = f.read()
    pat = r"<!-- generated:memory -->\n(.*?)<!-- /generated:memory -->"
    m = re.search(pat, text, re.S)
    if not m:
        die("no <!-- generated:memory --> block in %s" % doc)
    on, off = r["runs"]["on"], r["runs"]["off"]
    rows = ["| after | samples | RSS, diagnosis on | RSS, `--diagnose=false` |",
            "| ---: | ---: | ---: | ---: |"]
    for a, b in zip(on["readings"], off["readings"]):
        rows.append("| %d s | %d | %.1f MiB | %.1f MiB |" % (
            a["t"], a["samples"], a["VmRSS"] / 1024, b["VmRSS"] / 1024))
    block = ("Last run: %s, commit %s, %s (load average %s at the start): two agents "
             "side by side at %s on 8 GPUs (CSV, store, processes, exporter).\n\n%s\n\n"
             "| what | measured |\n| --- | ---: |\n"
             "| agent RSS with the windows full (diagnosis on; VmHWM) | **%.1f MiB** (%.1f) |\n"
             "| the same with `--diagnose=false` (VmHWM) | %.1f MiB (%.1f) |\n"
             "| the diagnosis window, per GPU-sample it holds (%d samples a GPU) | %.0f B |\n\n"
             % (when, commit, r["machine"], r["load"], r["interval"], "\n".join(rows),
                on["end"]["VmRSS"] / 1024, on["end"]["VmHWM"] / 1024,
                off["end"]["VmRSS"] / 1024, off["end"]["VmHWM"] / 1024,
                r["window_samples"], r["diag_bytes_per_gpu_sample"]))
    text = text[:m.start(1)] + block + text[m.end(1):]
    with open(doc, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpumon", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc")
    ap.add_argument("--interval", default="100ms")
    ap.add_argument("--seconds", type=float, default=420.0)
    ap.add_argument("--every", type=float, default=30.0)
    ap.add_argument("--window", default="5m", help="the agent's diagnose-window")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    load = "%.2f / %.2f / %.2f" % os.getloadavg()
    agents = {}
    try:
        for name, extra in (("on", []), ("off", ["--diagnose=false"])):
            d = os.path.join(a.dir, name + ".d")
            subprocess.run(["rm", "-rf", d], check=True)
            cmd = [a.gpumon, "agent", "--no-config", "--data-dir", d, "--interval", a.interval,
                   "--csv", "--store", "--procs", "--listen=127.0.0.1:%d" % free_port()] + extra
            log = open(os.path.join(a.dir, name + ".log"), "w")
            agents[name] = {"proc": subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT),
                            "dir": d, "readings": []}
        t0 = time.monotonic()
        while True:
            time.sleep(a.every)
            t = time.monotonic() - t0
            for name, ag in agents.items():
                if ag["proc"].poll() is not None:
                    die("the agent '%s' exited; see %s.log" % (name, os.path.join(a.dir, name)))
                st = status(a.gpumon, ag["dir"]) or {}
                ag["readings"].append(dict(mem(ag["proc"].pid), t=round(t),
                                           samples=st.get("samples", 0)))
            if t >= a.seconds:
                break
    finally:
        for ag in agents.values():
            if ag["proc"].poll() is None:
                ag["proc"].send_signal(signal.SIGTERM)
                try:
                    ag["proc"].wait(timeout=30)
                except subprocess.TimeoutExpired:
                    ag["proc"].kill()
                    ag["proc"].wait()

    window_s = float(a.window[:-1]) * 60 if a.window.endswith("m") else seconds(a.window)
    window_samples = int(window_s / seconds(a.interval))
    on, off = agents["on"]["readings"], agents["off"]["readings"]
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    if subprocess.run(["git", "diff", "--quiet", "HEAD"]).returncode != 0:
        commit += " (with uncommitted changes)"
    r = {"interval": a.interval, "load": load, "machine": "%s (%d cores)" % (cpu, os.cpu_count()),
         "window_samples": window_samples,
         "runs": {"on": {"readings": on, "end": on[-1]}, "off": {"readings": off, "end": off[-1]}},
         "diag_bytes_per_gpu_sample": (on[-1]["VmRSS"] - off[-1]["VmRSS"]) * 1024
         / (8 * window_samples)}
    with open(a.out, "w") as f:
        json.dump(r, f, indent=1)
    print("mem_run: RSS at the end %.1f MiB (diagnosis on), %.1f MiB (off); %.0f B per "
          "GPU-sample of the diagnosis window" % (on[-1]["VmRSS"] / 1024, off[-1]["VmRSS"] / 1024,
                                                 r["diag_bytes_per_gpu_sample"]))
    if a.doc:
        write_doc(a.doc, r, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit)


if __name__ == "__main__":
    main()

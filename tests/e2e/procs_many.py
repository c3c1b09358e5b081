#!/usr/bin/env python3
"""More processes on one GPU than a 256-entry buffer holds (hardening point 14).

NVML answers a process list or process-sample call whose buffer is too small
with NVML_ERROR_INSUFFICIENT_SIZE and the count it needs, and fills nothing;
gpumon grows its buffer and asks again (src/source/nvml_procs.c).  Before, it read
at most 256 entries and skipped the whole list beyond that, so a GPU under
MPS or many-process inference listed no processes at all.
scenarios/many-processes.ini (pinned at 10 s): GPU 0 runs 300 workers (pids
4194600..4194899, 200 MiB each), GPU 1 1000 clients (4195000..4195999,
48 MiB each) and one C+G process (4196100, 1 GiB).

  status_json: `status --json` lists 300 and 1001 processes, in NVML's
      order, with their memory, and with per-process SM utilisation (the
      samples list is as long); the C+G process once, typed C+G.
  query_apps: `query --query-compute-apps=pid,used_memory` lists all 1301
      compute processes.
  pmon: one `pmon -c 1` sample has a row for each of the 1301 processes.
  prometheus: `serve --print --process-metrics` exports 256 processes (the
      default max-process-series) and counts the other 1045 as dropped; with
      --max-process-series 2000 it exports all 1301, memory and SM series.
  v1_lists: through a library with only the unversioned process calls
      (16-byte entries; tests/e2e/nvml_v1only.c), the same 1301 pids and
      memory sizes.
  samples_past_256: 200 compute and 100 graphics processes on one GPU -- each
      list fits 256 entries, the 300 process-utilisation samples do not:
      every process still has its SM utilisation (before, none had).
  bound: GM_NVML_PROC_MAX (65536) processes on GPU 0 are all listed (none
      left out); GPU 1 has 65537 compute processes and a graphics one: the
      first 65536 in NVML's order are listed and the other 2 counted, in
      `status --json` (processes_not_listed 2, the list whole: no
      "processes" in unavailable) and in the text of `status`, whose GPU 1
      line ends "[+2 processes not listed]" (before, GPU 1 listed only the
      graphics process and the text said nothing of the rest); gpumon exits
      0.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT, NVML_V1ONLY.
"""
import csv
import io
import json
import os
import re

from agentlib import Scratch, check, check_eq, main, run, sim_env

SCN = "many-processes.ini"
T = 10
MIB = 1 << 20
WORKERS = [4194600 + k for k in range(300)]
CLIENTS = [4195000 + k for k in range(1000)]
VIZ = 4196100
BOUND = 65536


def env(**extra):
    e = sim_env(SCN, pinned=T, **extra)
    for k in ("GPUSIM_PID_WORKER", "GPUSIM_PID_CLIENT", "GPUSIM_PID_VIZ"):
        e.pop(k, None)
    return e


def gpumon(args, e=None, timeout=60):
    rc, out, err = run(args, e or env(), timeout=timeout)
    check_eq(rc, 0, f"gpumon {' '.join(args)}: exit status", err[-2000:])
    return out


def csv_rows(text):
    return [[c.strip() for c in r] for r in csv.reader(io.StringIO(text)) if r]


def status_json():
    doc = json.loads(gpumon(["status", "--json"]))
    g0, g1 = doc["gpus"]
    check_eq([p["pid"] for p in g0["processes"]], WORKERS, "GPU 0 pids")
    check_eq([p["pid"] for p in g1["processes"]], CLIENTS + [VIZ], "GPU 1 pids")
    check(all(p["used_memory_bytes"] == 200 * MIB and p["type"] == "C" and p["name"] == "python3"
              for p in g0["processes"]), "GPU 0: 200 MiB compute python3 workers")
    check(all(p["used_memory_bytes"] == 48 * MIB and p["type"] == "C"
              for p in g1["processes"][:1000]), "GPU 1: 48 MiB compute clients")
    viz = g1["processes"][1000]
    check_eq((viz["type"], viz["used_memory_bytes"], viz["name"]), ("C+G", 1024 * MIB, "/usr/bin/viz"),
             "GPU 1: the process in both lists")
    for g in (g0, g1):
        no_util = [p["pid"] for p in g["processes"] if p["sm_util_percent"] is None]
        check_eq(no_util, [], f"GPU {g['index']}: processes without SM utilisation")


def query_apps():
    rows = csv_rows(gpumon(["query", "--query-compute-apps=pid,used_memory",
                            "--format=csv,noheader,nounits"]))
    want = [[str(p), "200"] for p in WORKERS] + [[str(p), "48"] for p in CLIENTS] + \
        [[str(VIZ), "1024"]]
    check_eq(len(rows), 1301, "compute apps listed")
    check_eq(rows, want, "pid, used_memory [MiB] of every compute process")


def pmon():
    out = gpumon(["pmon", "-c", "1"])
    rows = [line.split() for line in out.splitlines() if line.strip() and not line.startswith("#")]
    check_eq([tuple(r[:2]) for r in rows],
             [("0", str(p)) for p in WORKERS] + [("1", str(p)) for p in CLIENTS + [VIZ]],
             "pmon rows (gpu, pid)")


def prom_series(*args):
    out = gpumon(["serve", "--no-config", "--print", "--process-metrics"] + list(args))
    mem = [line for line in out.splitlines() if line.startswith("gpumon_process_memory_used_bytes{")]
    sm = [line for line in out.splitlines()
          if line.startswith("gpumon_process_sm_utilization_ratio{")]
    dropped = [line.split()[-1] for line in out.splitlines()
               if line.startswith("gpumon_exporter_process_series_dropped")]
    return mem, sm, dropped


def prometheus():
    mem, sm, dropped = prom_series()
    check_eq((len(mem), len(sm), dropped), (256, 256, ["1045"]),
             "default cap: (memory series, SM series, dropped)")
    mem, sm, dropped = prom_series("--max-process-series", "2000")
    check_eq((len(mem), len(sm), dropped), (1301, 1301, ["0"]),
             "cap 2000: (memory series, SM series, dropped)")
    pids = sorted(int(line.split('pid="')[1].split('"')[0]) for line in mem)
    check_eq(pids, WORKERS + CLIENTS + [VIZ], "exported pids")


def v1_lists():
    lib = os.environ.get("NVML_V1ONLY")
    check(lib and os.path.exists(lib), "NVML_V1ONLY is not built", lib)
    e = env(GPUMON_NVML_LIB=lib, NVML_V1ONLY_SIM=env()["GPUMON_NVML_LIB"])
    rows = csv_rows(gpumon(["query", "--query-compute-apps=pid,used_memory",
                            "--format=csv,noheader,nounits"], e))
    want = [[str(p), "200"] for p in WORKERS] + [[str(p), "48"] for p in CLIENTS] + \
        [[str(VIZ), "1024"]]
    check_eq(rows, want, "v1 lists: pid, used_memory [MiB]")
    doc = json.loads(gpumon(["status", "--json"], e))
    g1 = doc["gpus"][1]["processes"]
    check_eq((len(g1), g1[-1]["pid"], g1[-1]["type"]), (1001, VIZ, "C+G"), "v1 lists: GPU 1")


def samples_past_256():
    with Scratch("procs") as d:
        path = os.path.join(d, "samples.ini")
        with open(path, "w", encoding="utf-8") as f:
            f.write("""[gpu.0]
model = H100-SXM5-80GB
util = 90%
[process.c]
gpu = 0
pid = 1000
count = 200
used_memory = 100MiB
[process.g]
gpu = 0
pid = 2000
count = 100
type = graphics
used_memory = 100MiB
""")
        doc = json.loads(gpumon(["status", "--json"], sim_env(path, pinned=T)))
        procs = doc["gpus"][0]["processes"]
        check_eq(len(procs), 300, "processes listed")
        no_util = [p["pid"] for p in procs if p["sm_util_percent"] is None]
        check_eq(no_util, [], "processes without SM utilisation")


def bound():
    with Scratch("procs") as d:
        path = os.path.join(d, "bound.ini")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"""[gpu.0]
model = H100-SXM5-80GB
[gpu.1]
model = H100-SXM5-80GB
[process.at]
gpu = 0
pid = 100000
count = {BOUND}
used_memory = 1MiB
[process.over]
gpu = 1
pid = 200000
count = {BOUND + 1}
used_memory = 1MiB
[process.desktop]
gpu = 1
pid = 99
type = graphics
name = Xorg
used_memory = 64MiB
""")
        e = sim_env(path, pinned=T)
        rows = csv_rows(gpumon(["query", "--query-compute-apps=gpu_bus_id,pid",
                                "--format=csv,noheader"], e, timeout=120))
        check_eq(len(rows), 2 * BOUND, "compute apps: the bound on each GPU")
        check_eq([r[1] for r in rows[:BOUND]], [str(100000 + k) for k in range(BOUND)],
                 "GPU 0's pids")
        check_eq([r[1] for r in rows[BOUND:]], [str(200000 + k) for k in range(BOUND)],
                 "GPU 1's pids: the first 65536 in NVML's order")
        check_eq(len({r[0] for r in rows[:BOUND]}), 1, "GPU 0's rows from one GPU")
        check(rows[0][0] != rows[BOUND][0], "GPU 1's rows name GPU 1", rows[0], rows[BOUND])
        doc = json.loads(gpumon(["status", "--json"], e, timeout=120))
        g0, g1 = doc["gpus"]
        check_eq((len(g0["processes"]), g0["processes_not_listed"]), (BOUND, 0),
                 "GPU 0: processes listed, not listed")
        check_eq((len(g1["processes"]), g1["processes_not_listed"]), (BOUND, 2),
                 "GPU 1: processes listed, not listed")
        check_eq((g1["processes"][0]["pid"], g1["processes"][-1]["pid"]),
                 (200000, 200000 + BOUND - 1), "GPU 1: first and last pid listed")
        check("processes" not in g1["unavailable"], "GPU 1's list reads as not whole",
              g1["unavailable"])
        text = gpumon(["status", "--id", "1"], dict(e, LC_ALL="C"), timeout=120)
        lines = [ln for ln in text.splitlines() if ln.startswith("[1]")]
        check_eq(len(lines), 1, "GPU 1's status line", text[:2000])
        check(lines[0].endswith(" [+2 processes not listed]"),
              "GPU 1's status line does not say 2 processes were left out", lines[0][-300:])
        pids = [int(p) for p in re.findall(r"/(\d+)\(", lines[0])]
        check_eq(pids, [200000 + k for k in range(BOUND)], "pids on GPU 1's status line")


if __name__ == "__main__":
    main([status_json, query_apps, pmon, prometheus, v1_lists, samples_past_256, bound])

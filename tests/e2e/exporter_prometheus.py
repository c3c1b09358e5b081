#!/usr/bin/env python3
"""A real Prometheus server scraping gpumon, queried through its HTTP API.

Three targets, scraped every second, with contrib/prometheus/gpumon-rules.yml
loaded (evaluated every second):

  A  `gpumon serve`, h100x8-training.ini pinned at 100 s        job gpumon
  B  `gpumon agent` (CSV and store too), faults.ini with its clock running
     at 2x from 50 s, so GPU 1 falls off the bus 5 s in          job gpumon
  C  `gpumon serve --names dcgm`, h100x8-training.ini at 100 s  job gpumon-dcgm

  two_hosts: gpumon_gpu_temperature_celsius has 8 series from A and 4 from
      B, each with instance = its address and the labels gpu, uuid, name,
      pci_bus_id; A's values (temperature, power draw and limit, memory
      used and total, utilisation, SM clock and its max) equal what
      `gpumon query` reports for the same pinned scenario time, after the
      unit conversions (MiB, %, MHz).
  gpu_lost: once B's GPU 1 is lost, gpumon_gpu_up{gpu="1"} is 0 for B and
      its temperature series is gone from an instant query (Prometheus
      wrote staleness markers when it vanished from the scrape; default
      5 min lookback), while it has samples from before the loss and B's
      other GPUs and A's GPU 1 are still there;
      gpumon_exporter_sampling_errors_total{kind="gpu_lost"} counts it.
  rules_on_real_data: every rule of gpumon-rules.yml evaluates without error
      on these series; GpuLost is pending or firing for B's GPU 1 and
      GpuTemperatureCritical for A's GPU 5 (89 °C, its slowdown threshold);
      the recording rules have values for both instances.
  dcgm_target: DCGM_FI_DEV_GPU_TEMP from C, with dcgm-exporter's labels
      (gpu, UUID, pci_bus_id, device, modelName) and A's values.
  dashboard_queries: every query of contrib/grafana/gpumon-dashboard.json
      (variables set to .* and 1m) is accepted by Prometheus, and the main
      panels' queries return data.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import math
import os
import time
import urllib.parse
import urllib.request

import sys

from agentlib import ROOT, Fail, Skip, check, check_eq, epoch_for, main
from exporter_lib import Gpumon, Scratch, free_port, run_gpumon, sim_env, stop_all
from prometheus_lib import Prometheus

RULES = os.path.join(ROOT, "contrib", "prometheus", "gpumon-rules.yml")
DASHBOARD = os.path.join(ROOT, "contrib", "grafana", "gpumon-dashboard.json")
PINNED = 100
SPEED = 2
T0 = 50


class Prom:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"

    def api(self, path, **params):
        url = f"{self.base}{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=10) as r:
            doc = json.load(r)
        check_eq(doc.get("status"), "success", f"Prometheus API {path} {params}", doc)
        return doc["data"]

    def query(self, q, **kw):
        """The result vector: [(labels, float)]."""
        data = self.api("/api/v1/query", query=q, **kw)
        check_eq(data["resultType"], "vector", f"result type of {q}")
        return [(r["metric"], float(r["value"][1])) for r in data["result"]]

    def wait(self, q, pred, timeout, what):
        return self.wait_at(q, pred, timeout, what)[0]

    def wait_at(self, q, pred, timeout, what):
        """Polls q until pred(result); returns the result and the time
        Prometheus evaluated it at (for queries about that same instant)."""
        deadline = time.time() + timeout
        got = None
        while time.time() < deadline:
            try:
                data = self.api("/api/v1/query", query=q)
                got = [(r["metric"], float(r["value"][1])) for r in data["result"]]
                if pred(got):
                    return got, data["result"][0]["value"][0] if data["result"] else time.time()
            except OSError as e:
                got = e
            time.sleep(0.2)
        raise Fail(f"timed out after {timeout} s waiting for {what}; last {got}")


class World:
    """The three targets and the Prometheus server, started once."""

    def __init__(self, d):
        self.d = d
        self.procs = []

    def start(self):
        d = self.d
        ports = [free_port() for _ in range(3)]
        check_eq(len(set(ports)), 3, "three different free ports")
        self.ia, self.ib, self.ic = (f"127.0.0.1:{p}" for p in ports[:3])
        # Prometheus first: its scrape manager applies new targets only every
        # 5 s, so it must know them before B's clock reaches the fault
        self.p = Prometheus(d, f"""global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files: ['{RULES}']
scrape_configs:
  - job_name: gpumon
    static_configs:
      - targets: ['{self.ia}', '{self.ib}']
  - job_name: gpumon-dcgm
    static_configs:
      - targets: ['{self.ic}']
""")
        self.procs.append(self.p)
        self.p.start()
        self.prom = Prom(self.p.port)
        self.a = Gpumon(d, sim_env("h100x8-training.ini", pinned=PINNED), ["--interval", "1s"],
                        port=ports[0])
        self.c = Gpumon(d, sim_env("h100x8-training.ini", pinned=PINNED),
                        ["--interval", "1s", "--names", "dcgm"], port=ports[2])
        for g in (self.a, self.c):
            self.procs.append(g)
            g.start()
        self.prom.wait(f'up{{instance="{self.ia}"}} == 1', lambda r: len(r) == 1, 60,
                       "Prometheus scraping target A")
        self.b = Gpumon(d, sim_env("faults.ini", speed=SPEED, epoch=epoch_for(T0, SPEED)),
                        ["--interval", "500ms"], cmd="agent", port=ports[1])
        self.procs.append(self.b)
        self.b.start()
        self.prom.wait('up == 1', lambda r: len(r) == 3, 60, "three targets up")

    def stop(self):
        stop_all(*reversed(self.procs))


W = None


def gpu_rows(result, instance):
    return {lab["gpu"]: (lab, v) for lab, v in result if lab.get("instance") == instance}


def test_two_hosts():
    p = W.prom
    # B's GPU 1 may already be lost: look at the last minute for B
    res = p.wait('last_over_time(gpumon_gpu_temperature_celsius{job="gpumon"}[1m])',
                 lambda r: len(gpu_rows(r, W.ia)) == 8 and len(gpu_rows(r, W.ib)) == 4, 60,
                 "temperatures from both targets")
    a, b = gpu_rows(res, W.ia), gpu_rows(res, W.ib)
    check_eq(sorted(a), [str(i) for i in range(8)], "A's GPUs")
    check_eq(sorted(b), [str(i) for i in range(4)], "B's GPUs (before GPU 1 was lost)")
    for inst, rows in ((W.ia, a), (W.ib, b)):
        for g, (lab, _) in rows.items():
            check_eq(set(lab) - {"__name__"},
                     {"instance", "job", "gpu", "uuid", "name", "pci_bus_id"},
                     f"labels of {inst} GPU {g}")
            check(lab["uuid"].startswith("GPU-") and lab["pci_bus_id"].count(":") == 2,
                  f"{inst} GPU {g}: uuid/pci_bus_id", lab)
    check(b["0"][0]["name"].startswith("NVIDIA A100"), "B is the A100 node", b["0"])

    # A against `gpumon query` at the same pinned time
    fields = ("index,uuid,name,pci.bus_id,temperature.gpu,power.draw,power.limit,memory.used,"
              "memory.total,utilization.gpu,clocks.sm,clocks.max.sm")
    rc, out, err = run_gpumon(["query", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                              sim_env("h100x8-training.ini", pinned=PINNED))
    check_eq(rc, 0, "gpumon query", err)
    want = {}
    for line in out.strip().splitlines():
        c = [x.strip() for x in line.split(",")]
        want[c[0]] = c
    check_eq(len(want), 8, "gpumon query rows")
    series = {
        "gpumon_gpu_temperature_celsius": (4, 1, 0),
        "gpumon_power_draw_watts": (5, 1, 0.005 + 1e-9),
        "gpumon_power_limit_watts": (6, 1, 0.005 + 1e-9),
        "gpumon_memory_used_bytes": (7, 1 / 1048576, 1),
        "gpumon_memory_total_bytes": (8, 1 / 1048576, 1),
        "gpumon_gpu_utilization_ratio": (9, 100, 0.5),
        "gpumon_sm_clock_hertz": (10, 1e-6, 0),
        "gpumon_sm_clock_max_hertz": (11, 1e-6, 0),
    }
    for metric, (col, mul, tol) in series.items():
        got = gpu_rows(p.query(f'{metric}{{instance="{W.ia}"}}'), W.ia)
        check_eq(sorted(got), sorted(want), f"{metric}: GPUs")
        for g, (lab, v) in got.items():
            q = want[g]
            check_eq((lab["uuid"], lab["name"], lab["pci_bus_id"]), (q[1], q[2], q[3]),
                     f"GPU {g}: identity labels vs gpumon query")
            check(abs(v * mul - float(q[col])) <= tol + 1e-9,
                  f"{metric} GPU {g}: Prometheus has {v} (= {v * mul} in query's unit), "
                  f"gpumon query says {q[col]}")
    # the thermally throttled GPU 5 of the training scenario
    check_eq(a["5"][1], 89.0, "A's GPU 5 temperature (at its slowdown threshold)")


def test_gpu_lost():
    p = W.prom
    sel = f'instance="{W.ib}",gpu="1"'
    # GPU 1 is lost 5 s (10 scenario s) after B started, until scenario
    # t = 120 s; every query below asks about the instant Prometheus saw it
    # lost (time=at), however long a loaded machine takes to ask
    _, at = p.wait_at(f'gpumon_gpu_up{{{sel}}}', lambda r: len(r) == 1 and r[0][1] == 0,
                      60, "gpumon_gpu_up 0 for B's GPU 1")
    # the scrape that saw gpu_up 0 had no temperature for it: stale at once
    gone = p.query(f'gpumon_gpu_temperature_celsius{{{sel}}}', time=at)
    check_eq(gone, [], "B's GPU 1 temperature while it is lost (staleness marker expected)")
    for name in ("gpumon_power_draw_watts", "gpumon_memory_used_bytes", "gpumon_sm_clock_hertz"):
        check_eq(p.query(f'{name}{{{sel}}}', time=at), [], f"{name} of the lost GPU")
    check_eq(len(p.query(f'gpumon_gpu_temperature_celsius{{instance="{W.ib}"}}', time=at)), 3,
             "B's other three GPUs keep their temperature")
    check_eq(len(p.query(f'gpumon_gpu_temperature_celsius{{instance="{W.ia}",gpu="1"}}',
                         time=at)), 1, "A's GPU 1 is unaffected")
    # it did exist before the loss
    data = p.api("/api/v1/query", time=at,
                 query=f"count_over_time(gpumon_gpu_temperature_celsius{{{sel}}}[1m])")
    check(data["result"] and float(data["result"][0]["value"][1]) >= 1,
          "B's GPU 1 had temperature samples before it was lost", data)
    errs = p.query(f'gpumon_exporter_sampling_errors_total{{instance="{W.ib}",kind="gpu_lost"}}',
                   time=at)
    check(errs and errs[0][1] >= 1, "sampling_errors_total{kind=gpu_lost} counts the loss", errs)
    ups = {lab["gpu"]: v for lab, v in p.query(f'gpumon_gpu_up{{instance="{W.ib}"}}', time=at)}
    check_eq(ups, {"0": 1.0, "1": 0.0, "2": 1.0, "3": 1.0}, "gpumon_gpu_up of B")


def test_rules_on_real_data():
    p = W.prom
    p.wait(f'ALERTS{{alertname="GpuLost",instance="{W.ib}",gpu="1"}}', lambda r: len(r) == 1,
           60, "GpuLost for B's GPU 1")
    crit = p.wait(f'ALERTS{{alertname="GpuTemperatureCritical",instance="{W.ia}"}}',
                  lambda r: len(r) >= 1, 60, "GpuTemperatureCritical for A")
    check_eq(sorted(lab["gpu"] for lab, _ in crit), ["5"], "GPUs at a critical temperature")
    # every rule evaluated, none failed
    deadline = time.time() + 10
    while True:
        groups = p.api("/api/v1/rules")["groups"]
        rules = [r for g in groups for r in g["rules"]]
        if all(r.get("lastEvaluation", "").startswith("2") and
               not r["lastEvaluation"].startswith("0001") for r in rules) or \
                time.time() > deadline:
            break
        time.sleep(0.3)
    check(len(rules) >= 20, f"only {len(rules)} rules loaded")
    bad = [(r["name"], r.get("health"), r.get("lastError")) for r in rules
           if r.get("health") != "ok" or r.get("lastError")]
    check(not bad, "rules that failed on real data", bad)
    for rec in ("instance:gpumon_gpu_utilization_ratio:avg", "instance:gpumon_power_draw_watts:sum",
                "instance:gpumon_memory_used_bytes:ratio", "instance:gpumon_gpu_up:sum"):
        got = {lab["instance"]: v for lab, v in p.query(rec)}
        check(W.ia in got and W.ib in got, f"{rec}: a value for both instances", got)
        check(all(math.isfinite(v) for v in got.values()), f"{rec}: finite values", got)
    check_eq({lab["instance"]: v for lab, v in p.query("instance:gpumon_gpu_up:sum")}[W.ia], 8.0,
             "A's GPUs up")


def test_dcgm_target():
    p = W.prom
    res = p.wait(f'DCGM_FI_DEV_GPU_TEMP{{instance="{W.ic}"}}', lambda r: len(r) == 8, 60,
                 "DCGM_FI_DEV_GPU_TEMP from the dcgm target")
    native = gpu_rows(p.query(f'gpumon_gpu_temperature_celsius{{instance="{W.ia}"}}'), W.ia)
    for lab, v in res:
        check_eq(lab["job"], "gpumon-dcgm", "job of the dcgm target")
        for k in ("gpu", "UUID", "pci_bus_id", "device", "modelName"):
            check(k in lab, f"dcgm label {k} missing", lab)
        check_eq(lab["device"], f"nvidia{lab['gpu']}", "device label")
        check_eq(v, native[lab["gpu"]][1], f"DCGM_FI_DEV_GPU_TEMP GPU {lab['gpu']} vs native")
        check_eq(lab["UUID"], native[lab["gpu"]][0]["uuid"], "UUID label vs native uuid")
    check_eq(p.query(f'gpumon_gpu_temperature_celsius{{instance="{W.ic}"}}'), [],
             "no native names from the dcgm target")


def test_dashboard_queries():
    p = W.prom
    with open(DASHBOARD, encoding="utf-8") as f:
        dash = json.load(f)
    panels = [q for pn in dash["panels"] for q in ([pn] + pn.get("panels", []))]
    must_have_data = {"GPU utilisation", "Memory used / total", "Power draw vs limit",
                      "Temperature vs slowdown threshold", "SM clock vs max", "GPU up",
                      "Energy rate", "Clock event (throttle) reasons active",
                      "ECC errors and remapped rows", "GPUs answering", "NVML state"}
    seen = set()
    for pn in panels:
        for t in pn.get("targets", []):
            expr = (t["expr"].replace("${instance}", ".*").replace("$instance", ".*")
                    .replace("${gpu}", ".*").replace("$gpu", ".*")
                    .replace("$__rate_interval", "1m"))
            data = p.api("/api/v1/query", query=expr)
            if data["result"]:
                seen.add(pn["title"])
    missing = sorted(must_have_data - seen)
    check(not missing, "dashboard panels without data from a live gpumon", missing)


def run_all():
    global W
    with Scratch("prom") as d:
        W = World(d)
        try:
            try:
                W.start()
            except Skip as e:
                print(f"SKIP all: {e}")
                sys.exit(77)
            except Fail as e:
                print(f"FAIL setup: {e}")
                for p in W.procs:
                    print(p.log())
                sys.exit(1)
            main([test_two_hosts, test_gpu_lost, test_rules_on_real_data, test_dcgm_target,
                  test_dashboard_queries])
        finally:
            W.stop()


if __name__ == "__main__":
    run_all()

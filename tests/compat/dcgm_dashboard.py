#!/usr/bin/env python3
"""dcgm-exporter's shipped Grafana dashboard on gpumon, through a real Prometheus.

The panel queries are tests/compat/dcgm_dashboard_queries.txt, derived from
dcgm-exporter's grafana/dcgm-exporter-dashboard.json (its header names the
commit).  Three `gpumon serve --names dcgm` targets, scraped every second
by Prometheus (as tests/e2e/exporter_prometheus.py starts one):

  H100      h100x8-training.ini, pinned at 100 s
  A100-MIG  a100-mig.ini, pinned at 100 s (GPU 0 an A100 in MIG mode with
            four GPU instances, GPU 1 an A100 without MIG)
  GPM-MIG   gpm/mig.ini, running (three GPUs in MIG mode: two H100 with
            GPM, one A100 without)

  panels: every panel's query, with $instance set to one target and $gpu
      to .*, returns data for that target, except where NVML has nothing to
      give, and there it returns nothing (never a 0 standing in): "Tensor
      Core Utilization" on A100-MIG (DCGM_FI_PROF_* needs GPM, Hopper and
      later) and "GPU Utilization" on GPM-MIG (NVML answers no utilisation
      for a GPU in MIG mode; dcgm-exporter has none for MIG either).
  mig_instances: on the MIG GPUs every series of the panels carries
      GPU_I_ID and GPU_I_PROFILE and there is none without them (no whole-
      GPU series beside its instances: a sum over a panel counts once);
      the framebuffer panel has one series per GPU instance, with the
      instance's memory (the A100-MIG instances' used MiB add up to less
      than the GPU's 80 GiB); the Tensor panel on GPM-MIG has series of
      GPU 0's instances only where GPM per instance is answered.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))

from agentlib import ROOT, Fail, Skip, check, check_eq, epoch_for, main, sim_env  # noqa: E402
from exporter_lib import Gpumon, Scratch, free_port, stop_all  # noqa: E402
from exporter_prometheus import Prom  # noqa: E402
from prometheus_lib import Prometheus  # noqa: E402

QUERIES = os.path.join(ROOT, "tests", "compat", "dcgm_dashboard_queries.txt")
# (target, panel) whose query has no data, and why (docs/exporter.md)
EMPTY = {
    ("A100-MIG", "Tensor Core Utilization"): "DCGM_FI_PROF_* is not served by NVML before Hopper",
    ("GPM-MIG", "GPU Utilization"): "NVML gives no utilisation for a GPU in MIG mode",
}
DEADLINE = 60


def panels():
    out = []
    with open(QUERIES, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            title, expr = line.rstrip("\n").split("\t")
            out.append((title, expr))
    check_eq(len(out), 8, "panels of the dashboard")
    return out


def query_for(expr, instance):
    """The panel's query as Grafana sends it with $instance = instance (a
    regular expression, in a PromQL string: backslashes doubled) and $gpu =
    All (.*)."""
    rx = re.escape(instance).replace("\\", "\\\\")
    return expr.replace("$instance", rx).replace("$gpu", ".*")


class World:
    def __init__(self, d):
        self.d = d
        self.procs = []

    def start(self):
        ports = [free_port() for _ in range(3)]
        check_eq(len(set(ports)), 3, "three different free ports")
        self.targets = {"H100": f"127.0.0.1:{ports[0]}", "A100-MIG": f"127.0.0.1:{ports[1]}",
                        "GPM-MIG": f"127.0.0.1:{ports[2]}"}
        p = Prometheus(self.d, f"""global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: dcgm
    static_configs:
      - targets: {sorted(self.targets.values())!r}
""")
        self.procs.append(p)
        p.start()
        self.prom = Prom(p.port)
        envs = {"H100": sim_env("h100x8-training.ini", pinned=100),
                "A100-MIG": sim_env("a100-mig.ini", pinned=100),
                "GPM-MIG": sim_env("gpm/mig.ini", speed=1, epoch=epoch_for(100, 1))}
        for name, port in zip(("H100", "A100-MIG", "GPM-MIG"), ports):
            g = Gpumon(self.d, envs[name], ["--interval", "1s", "--names", "dcgm"], port=port)
            self.procs.append(g)
            g.start()
        self.prom.wait("up == 1", lambda r: len(r) == 3, DEADLINE, "three targets up")

    def stop(self):
        stop_all(*reversed(self.procs))


W = None


def test_panels():
    missing, fake = [], []
    for target, inst in W.targets.items():
        # two scrapes of this target in Prometheus: GPM needs a second sample
        W.prom.wait(f'count_over_time(up{{instance="{inst}"}}[1m]) >= 3', lambda r: len(r) == 1,
                    DEADLINE, f"three scrapes of {target}")
        for title, expr in panels():
            q = query_for(expr, inst)
            if (target, title) in EMPTY:
                got = W.prom.query(q)
                if got:
                    fake.append(f"{target} / {title}: {got[:2]}")
                continue
            try:
                W.prom.wait(q, lambda r: len(r) > 0, DEADLINE, f"{target} / {title}")
            except Fail:
                missing.append(f"{target} / {title}: {q}")
    check(not missing, "panels without data", *missing)
    check(not fake, "panels with data where NVML has none", *fake)


def test_mig_instances():
    for target, mig_gpus in (("A100-MIG", {"0"}), ("GPM-MIG", {"0", "1", "2"})):
        inst = W.targets[target]
        for title, expr in panels():
            for lab, _ in W.prom.query(query_for(expr, inst).replace("sum(", "(").replace(
                    "avg(", "(")):
                if lab.get("gpu") in mig_gpus:
                    check(lab.get("GPU_I_ID") and lab.get("GPU_I_PROFILE"),
                          f"{target} / {title}: a MIG GPU's series without its instance", lab)
        fb = W.prom.query(f'DCGM_FI_DEV_FB_USED{{instance="{inst}",gpu="0"}}')
        ids = sorted(lab["GPU_I_ID"] for lab, _ in fb)
        check_eq(len(ids), len(set(ids)), f"{target}: one framebuffer series per GPU instance")
        check(len(ids) >= 2, f"{target}: GPU 0's instances in the framebuffer panel", fb)
        check(sum(v for _, v in fb) < 81920, f"{target}: instance memory, not the GPU's", fb)
    inst = W.targets["GPM-MIG"]
    tensor = W.prom.query(f'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{instance="{inst}"}}')
    check_eq(sorted({lab["gpu"] for lab, _ in tensor}), ["0"],
             "GPM-MIG: Tensor series only for the GPU whose instances answer GPM", tensor)
    check_eq(len(tensor), 4, "GPM-MIG: GPU 0's four instances in the Tensor panel", tensor)


def run_all():
    global W
    with Scratch("dcgmdash") as d:
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
            main([test_panels, test_mig_instances])
        finally:
            W.stop()


if __name__ == "__main__":
    run_all()

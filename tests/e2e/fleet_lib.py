"""Helpers for `gpumon fleet`'s end-to-end tests (tests/e2e/fleet_*.py).

Agents are real `gpumon serve` processes on the simulator, each on a free
loopback port (exporter_lib.Gpumon), started together and then waited
for, so that many start in the time of one.  fleet() runs the built
gpumon's `fleet` and returns (exit status, stdout, stderr).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import DEADLINE, GPUMON, Fail, check, sim_env  # noqa: E402,F401
from exporter_lib import Gpumon, free_port, stop_all  # noqa: E402,F401


def start_agents(scratch, specs, wait=True):
    """specs: a list of (scenario, extra args, extra env dict).  Starts them
    all, then (with wait) waits until each answers /api/v1/status over plain
    HTTP.  Returns the agents."""
    agents = []
    try:
        for scn, args, extra in specs:
            env = sim_env(scn, **(extra or {}))
            g = Gpumon(scratch, env, ["--interval", "0.5s"] + list(args))
            agents.append(g)
            g.start(ready=False)
        for g in agents if wait else ():
            for attempt in range(3):
                try:
                    g.wait_ready(path="/api/v1/status")
                    break
                except Fail:
                    # its port was free when picked and taken before it
                    # bound (64 agents and other tests pick at once): again
                    # on a fresh port, as Gpumon.start(ready=True) does
                    if g.alive() or "cannot listen" not in g.log() or attempt == 2:
                        raise
                    g.logf.close()
                    g.start(ready=False)
    except BaseException:
        stop_all(*agents)
        raise
    return agents


def fleet(args, env=None, timeout=DEADLINE):
    p = subprocess.run([GPUMON, "fleet"] + [str(a) for a in args], capture_output=True,
                       env=env or sim_env(), timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def fleet_json(args, env=None):
    rc, out, err = fleet(list(args) + ["--json"], env)
    check(rc in (0, 1), f"fleet --json exit {rc}", err)
    try:
        return json.loads(out), rc, err
    except ValueError as e:
        raise Fail(f"fleet --json is not JSON: {e}\n{out[:2000]}\n{err}")


def by_host(doc):
    return {n["host"]: n for n in doc["nodes"]}


def start_prometheus(scratch, targets, every="1s", within="900ms"):
    """A real Prometheus (prometheus_lib: a taken port is retried, ready
    before it returns) scraping targets (host:port) every `every`, each
    scrape within `within`, as job gpumon, with its data in scratch.
    Returns (Prometheus, URL)."""
    from prometheus_lib import Prometheus
    prom = Prometheus(scratch, f"global:\n  scrape_interval: {every}\n  scrape_timeout: {within}\n"
                      "scrape_configs:\n  - job_name: gpumon\n    static_configs:\n"
                      f"      - targets: {json.dumps(targets)}\n").start()
    return prom, prom.url


def prom_query(url, query):
    """The result list of an instant query, or None while Prometheus does
    not answer."""
    import urllib.parse
    import urllib.request
    try:
        with urllib.request.urlopen(url + "/api/v1/query?query=" + urllib.parse.quote(query),
                                    timeout=5) as r:
            return json.load(r)["data"]["result"]
    except OSError:
        return None

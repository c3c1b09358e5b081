#!/usr/bin/env python3
"""fleet_scale.py -- `gpumon fleet` over 64 real agents (docs/fleet.md).

64 `gpumon serve` processes on free loopback ports, on nine shipped
scenarios in turn (8, 16, 4, 2 GPUs; a lost GPU; no driver; hostile
names), started together.  Four are then killed (SIGKILL: connection
refused) and four stopped with SIGSTOP (they accept connections and never
answer: the per-node deadline).  One `fleet --json` must list all 64 in
order, each live agent with its own state and the GPU count its API gave,
each killed one refused and each stopped one timed out; the text view has
a line per node; `fleet free` and `fleet diagnose` run over the same list
(the stopped agents resumed, the killed ones still refused).

The same over a real Prometheus that scrapes the 64 (when the prometheus
binary is there): fleet --prometheus lists all 64, the killed and the
stopped ones unreachable (up 0), every live one ok with its GPU count
(a node without a driver is ok with none: the series carry no driver
state), no control character of the hostile names in the text view;
fleet free chooses no GPU of a node that is down, diagnose counts the
eight.
Nothing is timed: the deadlines are generous for a loaded machine, and a
live agent that Prometheus failed to scrape once is waited for.
"""
import json
import re
import shutil
import signal
import time

from agentlib import Fail, Scratch, check, check_eq, main
from exporter_lib import get, stop_all
from fleet_lib import by_host, fleet, fleet_json, start_agents, start_prometheus

SCENARIOS = ["h100x8-training.ini", "workstation.ini", "a100x16-mixed.ini",
             "diagnose/idle.ini", "diagnose/gpu-lost.ini", "fault-driver-not-loaded.ini",
             "inference-leak.ini", "hostile-names.ini", "a100-mig.ini"]
N = 64


def test_64_agents():
    with Scratch("fx") as d:
        specs = [(SCENARIOS[i % len(SCENARIOS)], ["--interval", "2s", "--no-diagnose"],
                  {"pinned": 100}) for i in range(N)]
        agents = start_agents(d, specs)
        stopped = []
        prom = None
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents]
            if shutil.which("prometheus"):
                prom, url = start_prometheus(d, hosts, "2s", "2s")
            want = {}
            for h, g in zip(hosts, agents):
                doc = json.loads(get("127.0.0.1", g.port, "/api/v1/status").body)
                want[h] = ("ok" if doc["driver"]["status"] == "ok" else "driver",
                           len(doc["gpus"]))
            killed = [agents[i] for i in (3, 17, 40, 63)]
            stopped = [agents[i] for i in (5, 22, 41, 50)]
            for g in killed:
                g.proc.kill()
                g.proc.wait()
            for g in stopped:
                g.proc.send_signal(signal.SIGSTOP)
            args = ["--hosts", ",".join(hosts), "--timeout", "40", "--node-timeout", "20"]
            doc, rc, err = fleet_json(args)
            check_eq(rc, 0, "exit status", err)
            check_eq([x["host"] for x in doc["nodes"]], hosts, "all 64 nodes, in order")
            n = by_host(doc)
            for g in killed:
                h = f"127.0.0.1:{g.port}"
                check_eq((n[h]["state"], n[h]["reason"]), ("unreachable", "connection refused"),
                         f"killed {h}", n[h])
            for g in stopped:
                h = f"127.0.0.1:{g.port}"
                check_eq((n[h]["state"], n[h]["reason"]), ("unreachable", "timeout"),
                         f"stopped {h}", n[h])
            gone = {f"127.0.0.1:{g.port}" for g in killed + stopped}
            for h in hosts:
                if h in gone:
                    continue
                check_eq((n[h]["state"], len(n[h]["gpus"])), want[h], f"live {h}", n[h])
            check_eq(sum(len(x["gpus"]) for x in doc["nodes"]),
                     sum(want[h][1] for h in hosts if h not in gone), "every live GPU")
            if prom:
                over_prometheus(url, hosts, gone, want)
            # the stopped agents resume: the other commands need not wait for them
            for g in stopped:
                g.proc.send_signal(signal.SIGCONT)
            dead = {f"127.0.0.1:{g.port}" for g in killed}
            rc, out, err = fleet(args)
            check_eq(rc, 0, "text view", err)
            check_eq(len([ln for ln in out.splitlines() if ln.startswith("127.0.0.1:")]), N,
                     "a line per node", out[:3000])
            rc, out, err = fleet(["free"] + args + ["--format", "json"])
            check_eq(rc, 0, "fleet free", err)
            free = json.loads(out)
            check(free["free"] > 0 and all(c["host"] not in dead for c in free["chosen"]),
                  "free GPUs only on live nodes", out[:2000])
            rc, out, err = fleet(["diagnose"] + args + ["--json"])
            check_eq(rc, 0, "fleet diagnose", err)
            check(json.loads(out)["nodes_not_ok"] >= 4, "the dead nodes are counted", out[:500])
        finally:
            for g in stopped:
                g.proc.send_signal(signal.SIGCONT)
            stop_all(prom, *agents)


def over_prometheus(url, hosts, gone, want):
    """fleet over Prometheus with the killed and stopped agents in gone."""
    args = ["--prometheus", url, "--timeout", "40"]
    seen = {}

    def settled():
        doc, rc, err = fleet_json(args)
        n = by_host(doc)
        seen["doc"] = (rc, err, {h: (x["state"], x["reason"], len(x["gpus"]))
                                 for h, x in n.items()})
        if rc != 0 or sorted(n) != sorted(hosts):
            return None
        for h in hosts:
            if h in gone:
                if (n[h]["state"], n[h]["reason"]) != ("unreachable",
                                                       "Prometheus cannot scrape it (up 0)"):
                    return None
            elif (n[h]["state"], len(n[h]["gpus"])) != ("ok", want[h][1]):
                return None
        return doc
    deadline = time.monotonic() + 180
    while not settled():
        if time.monotonic() > deadline:
            raise Fail("Prometheus' view never had the down agents up 0 and the live ones ok "
                       f"with their GPUs; last: {seen}")
        time.sleep(1)
    rc, out, err = fleet(args)
    check_eq(rc, 0, "text view over Prometheus", err)
    check_eq(len([ln for ln in out.splitlines() if ln.startswith("127.0.0.1:")]), N,
             "a line per node over Prometheus", out[:3000])
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out),
          "no control character in the text over Prometheus", out[:3000])
    rc, out, err = fleet(["free", "--format", "json"] + args)
    check_eq(rc, 0, "fleet free over Prometheus", err)
    free = json.loads(out)
    check(free["free"] > 0 and all(c["host"] not in gone for c in free["chosen"]),
          "free GPUs over Prometheus only on live nodes", out[:2000])
    rc, out, err = fleet(["diagnose", "--json"] + args)
    check_eq(rc, 0, "fleet diagnose over Prometheus", err)
    dg = json.loads(out)
    check(dg["nodes_not_ok"] >= len(gone), "the down nodes are counted", out[:500])


if __name__ == "__main__":
    main([test_64_agents])

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
Nothing is timed: the deadlines are generous for a loaded machine.
"""
import json
import signal

from agentlib import Scratch, check, check_eq, main
from exporter_lib import get, stop_all
from fleet_lib import by_host, fleet, fleet_json, start_agents

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
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents]
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
            stop_all(*agents)


if __name__ == "__main__":
    main([test_64_agents])

#!/usr/bin/env python3
"""fleet_prometheus.py -- `gpumon fleet --prometheus URL` against a real
Prometheus (docs/fleet.md, "Prometheus").

A Prometheus server scrapes, every second, two agents at pinned scenario
times (the demo node, whose GPU 5's critical temperature alert fires, and a
node with a lost GPU) and a port nobody listens on.  Then:

  - fleet --prometheus --json lists the three targets: the agents ok with
    every GPU and the values the agents' own API gives (utilisation, memory,
    temperature; power to the exposition's rounding), the lost GPU lost,
    the dead target unreachable with "up 0";
  - the text view has a line per target;
  - diagnose runs over it, and so does fleet free (every GPU busy or
    lost: none free);
  - --prometheus with --hosts is a usage error.

Skipped without the prometheus binary (scripts/install-deps.sh).

test_queries: a fake Prometheus (http.server) answering for 1 and then 50
nodes: the same nineteen queries both times (the count does not grow with
the nodes), asked at once (more than one in flight), and the 50 nodes all
listed.
"""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse
import json
import time
import urllib.request

from agentlib import Scratch, check, check_eq, main, wait_until
from exporter_lib import free_port, get, need, stop_all
from fleet_lib import by_host, fleet, fleet_json, start_agents, start_prometheus


def test_prometheus():
    need("prometheus")
    with Scratch("fp") as d:
        agents = start_agents(d, [("h100x8-training.ini", ["--interval", "1s"], {"pinned": 100}),
                                  ("diagnose/gpu-lost.ini", ["--interval", "1s"],
                                   {"pinned": 100})])
        prom = None
        try:
            dead = f"127.0.0.1:{free_port()}"
            targets = [f"127.0.0.1:{g.port}" for g in agents] + [dead]
            prom, url = start_prometheus(d, targets)

            def scraped():
                try:
                    with urllib.request.urlopen(url + "/api/v1/query?query=gpumon_gpu_up",
                                                timeout=5) as r:
                        got = json.load(r)["data"]["result"]
                    with urllib.request.urlopen(url + "/api/v1/query?query=up",
                                                timeout=5) as r:
                        up = json.load(r)["data"]["result"]
                    return len(got) == 12 and len(up) == 3
                except OSError:
                    return False
            wait_until(scraped, "Prometheus scraping the three targets", timeout=90, step=0.5)
            args = ["--prometheus", url + "/", "--timeout", "20"]

            # the live agents ok in Prometheus's view: waited for, as one
            # scrape of a live agent may miss its timeout on a loaded machine
            def settled():
                doc, rc, err = fleet_json(args)
                n = by_host(doc)
                return (doc, rc, err) if all(
                    n.get(f"127.0.0.1:{g.port}", {}).get("state") == "ok"
                    for g in agents) else None
            doc, rc, err = wait_until(settled, "the three live agents ok over Prometheus",
                                      timeout=90, step=0.5)
            check_eq(rc, 0, "exit status", err)
            n = by_host(doc)
            check_eq(sorted(n), sorted(targets), "every target a node", doc)
            check_eq((n[dead]["state"], n[dead]["reason"]),
                     ("unreachable", "Prometheus cannot scrape it (up 0)"), "the dead target")
            for g in agents:
                h = f"127.0.0.1:{g.port}"
                check_eq(n[h]["state"], "ok", h, n[h])
                api = json.loads(get("127.0.0.1", g.port, "/api/v1/status").body)
                check_eq(len(n[h]["gpus"]), len(api["gpus"]), f"{h}: GPUs")
                mine = {x["index"]: x for x in n[h]["gpus"]}
                for ag in api["gpus"]:
                    fg = mine[ag["index"]]
                    check_eq(fg["status"], ag["status"], f"{h} GPU {ag['index']}: status")
                    if ag["status"] != "ok":
                        continue
                    for k in ("uuid", "name", "utilization_gpu_percent", "memory_used_bytes",
                              "memory_total_bytes", "temperature_gpu_celsius"):
                        check_eq(fg[k], ag[k], f"{h} GPU {ag['index']}: {k}")
                    check(abs(fg["power_draw_watts"] - ag["power_draw_watts"]) < 0.01,
                          f"{h} GPU {ag['index']}: power", (fg, ag))
            rc, out, err = fleet(args)
            check_eq(rc, 0, "text view", err)
            check_eq(len([ln for ln in out.splitlines() if ln.startswith("127.0.0.1:")]), 3,
                     "a line per target", out)
            rc, out, err = fleet(["diagnose"] + args + ["--json"])
            check_eq(rc, 0, "diagnose", err)
            check_eq(json.loads(out)["nodes_not_ok"], 1, "the dead target not diagnosed", out)
            rc, out, err = fleet(["free", "--format", "json"] + args)
            check_eq(rc, 0, "free over Prometheus", err)
            check_eq(json.loads(out)["free"], 0, "free: every GPU busy or lost", out)
            rc, out, err = fleet(args + ["--hosts", targets[0]])
            check(rc == 2 and "not both" in err, "--prometheus with --hosts", err)
            rc, out, err = fleet(["--prometheus", "http://u:pw@127.0.0.1:9090"])
            check(rc == 2 and "pw@" not in err, "credentials in the URL refused", err)
            # Prometheus gone: an error naming it, exit 1
            prom.stop()
            rc, out, err = fleet(args)
            check(rc == 1 and "connection refused" in err, "Prometheus down", err)
        finally:
            stop_all(prom, *agents)


class FakeProm:
    """Answers every instant query for `nodes` gpumon targets of one GPU
    each; counts the queries and the most in flight at once."""

    def __init__(self):
        self.nodes = 1
        self.queries = []
        self.inflight = self.most = 0
        self.lock = threading.Lock()
        fake = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                with fake.lock:
                    fake.inflight += 1
                    fake.most = max(fake.most, fake.inflight)
                    fake.queries.append(parse_qs(urlparse(self.path).query)["query"][0])
                time.sleep(0.3)  # hold it, so that queries asked at once overlap
                body = json.dumps(fake.answer()).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                with fake.lock:
                    fake.inflight -= 1

        class S(ThreadingHTTPServer):
            daemon_threads = True
        self.srv = S(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}"
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def answer(self):
        res = [{"metric": {"job": "gpumon", "instance": f"10.0.0.{i}:9842", "gpu": "0"},
                "value": [1, "1"]} for i in range(self.nodes)]
        return {"status": "success", "data": {"resultType": "vector", "result": res}}

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def test_queries():
    fake = FakeProm()
    try:
        counts = []
        for nodes in (1, 50):
            fake.nodes = nodes
            fake.queries = []
            doc, rc, err = fleet_json(["--prometheus", fake.url, "--timeout", "20"])
            check_eq(len(doc["nodes"]), nodes, f"{nodes} nodes listed", err)
            counts.append(sorted(fake.queries))
        check_eq(len(counts[0]), 19, "nineteen queries", counts[0])
        check_eq(counts[0], counts[1], "the same queries for 1 and for 50 nodes")
        check(fake.most > 1, f"the queries asked at once (at most {fake.most} in flight)")
    finally:
        fake.close()


if __name__ == "__main__":
    main([test_queries, test_prometheus])

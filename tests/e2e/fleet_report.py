#!/usr/bin/env python3
"""fleet_report.py -- `gpumon fleet report` (docs/fleet.md), the agent's
/api/v1/usage (docs/api.md) and the exporter's gpumon_usage_* counters
(docs/exporter.md).

test_direct: two real agents (`gpumon serve --store`) on the 16-GPU shared
node scenario, whose processes are stand-in `sleep`s: as root they run
under other users (daemon, nobody), so the agents see three users and the
vanished rank.  Then, against each agent's own `gpumon report --by user`
(the store's usage_1h):
  - its /metrics gpumon_usage_gpu_seconds_total summed by user agrees (the
    exporter's counters keep the store's accounting);
  - /api/v1/usage answers the same rows; bad parameters are 400 naming
    the parameter;
  - fleet report --by user over both agents and a dead port: each user's
    GPU-hours the sum of the two agents' reports, the dead node named with
    its reason and the totals incomplete (text, CSV, JSON); --by node a
    line per agent; an unknown --by a usage error (exit 2).

test_prometheus: the same two agents scraped every second by a real
Prometheus (skipped without it): fleet report --prometheus --by user
agrees with the direct report and with the agents' own counters.

test_hostile: a fake agent and a fake Prometheus whose user names hold
ESC, BEL, a newline, invalid UTF-8, a CSV formula and a comma: no control
character in the text, the CSV cell quoted and formula-guarded, the JSON
valid with the names as sent (invalid bytes replaced); Prometheus is asked
two queries whatever the number of nodes.

Every comparison of two readings taken at different moments allows for
the time between them (the agents keep counting).
"""
import csv
import io
import json
import os
import re
import signal
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from agentlib import GPUMON, Scratch, check, check_eq, main, run, sim_env, wait_until
from exporter_lib import Gpumon, free_port, get, need, parse_samples, stop_all
from fleet_lib import fleet, start_prometheus

SCN = "a100x16-mixed.ini"
# the scenario's processes whose pid a test may give: name -> GPUs
PROCS = {"TRAIN": 8, "INFER": 4, "CAPPED": 1, "NOTEBOOK": 1}
UIDS = {"TRAIN": 1, "INFER": 65534}  # daemon, nobody (as root); the others run as we do


def stand_ins():
    """A sleep per scenario process, under UIDS's users when we are root.
    Returns (processes, env additions)."""
    procs, env = [], {}
    for name in PROCS:
        uid = UIDS.get(name) if os.geteuid() == 0 else None

        def drop(uid=uid):
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
        p = subprocess.Popen(["sleep", "600"], preexec_fn=drop)
        procs.append(p)
        env[f"GPUSIM_PID_{name}"] = p.pid
    return procs, env


def start_two(d):
    sleeps, extra = stand_ins()
    agents = []
    try:
        for _ in range(2):
            g = Gpumon(d, sim_env(SCN, **extra), ["--interval", "0.5s", "--store"])
            agents.append(g)
            g.start(ready=False)
        for g in agents:
            g.wait_ready(path="/api/v1/status")
    except BaseException:
        stop_all(*agents)
        for p in sleeps:
            p.kill()
        raise
    return agents, sleeps


def own_report(g, by="user"):
    """The agent's own `gpumon report --by BY` of its store: {key: gpu_seconds}."""
    rc, out, err = run(["report", "--no-config", "--data-dir", g.data_dir, "--since", "2h",
                        "--by", by, "--format", "json"], sim_env(SCN))
    check_eq(rc, 0, "gpumon report", err)
    return {r[by]: r["gpu_seconds"] for r in json.loads(out)}


def own_counters(g):
    """The agent's gpumon_usage_gpu_seconds_total summed by user."""
    body = get("127.0.0.1", g.port, "/metrics").body.decode()
    got = {}
    for name, labels, v in parse_samples(body):
        if name == "gpumon_usage_gpu_seconds_total":
            got[labels.get("user", "")] = got.get(labels.get("user", ""), 0) + v
    return got


def between(lo, x, hi, slack, what):
    """x, read between two readings lo and hi of a growing total, lies
    between them, give or take slack GPU-seconds and 10 % (the store
    commits once a second, Prometheus scrapes once a second)."""
    check(lo * 0.9 - slack <= x <= hi * 1.1 + slack, f"{what}: {x:.1f} not in [{lo:.1f}, {hi:.1f}]",
          (lo, x, hi))


def summed(*reports):
    got = {}
    for r in reports:
        for k, v in r.items():
            got[k] = got.get(k, 0) + v
    return got


def fleet_report_json(args):
    rc, out, err = fleet(["report"] + args + ["--format", "json", "--timeout", "20"])
    check(rc in (0, 1), f"fleet report exit {rc}", err)
    return json.loads(out), rc, err


def by_key(doc, key):
    return {(r[key] if r[key] is not None else ""): r for r in doc["rows"]}


def wait_usage(agents, seconds):
    """Until every agent's store has at least `seconds` GPU-seconds of root's."""
    def enough():
        try:
            return all(sum(own_report(g).values()) >= seconds for g in agents)
        except Exception:
            return False
    wait_until(enough, f"{seconds} GPU-seconds in each store", timeout=90, step=1)


# what a second of the store's commit lag or a scrape interval can hold:
# 15 GPUs with processes on each agent
SLACK = 40


def check_direct(agents, dead):
    hosts = [f"127.0.0.1:{g.port}" for g in agents]
    # the exporter's counters against the agent's own store, user by user
    for g in agents:
        before = own_report(g)
        mine = own_counters(g)
        after = own_report(g)
        users = set(after) | set(mine)
        check(len(users) >= 2, "the agent sees several users", after)
        for u in users:
            between(before.get(u, 0), mine.get(u, 0), after.get(u, 0), SLACK,
                    f"{g.port} user {u!r}: /metrics against its report")
    # the API
    g = agents[0]
    before = own_report(g)
    r = get("127.0.0.1", g.port, "/api/v1/usage?by=user&since=2h")
    after = own_report(g)
    check_eq(r.status, 200, "/api/v1/usage", r.body)
    doc = json.loads(r.body)
    check_eq((doc["schema"], doc["by"]), ("gpumon.usage/1", "user"), "the usage document")
    check_eq(sorted(row["user"] for row in doc["rows"]), sorted(after), "the users", doc)
    for row in doc["rows"]:
        between(before[row["user"]], row["gpu_seconds"], after[row["user"]], SLACK,
                f"/api/v1/usage user {row['user']}")
    for q, param in (("by=host", "by"), ("since=soon", "since"), ("since=-1h", "since"),
                     ("by=user&by=job", "by"), ("color=red", "color")):
        r = get("127.0.0.1", g.port, "/api/v1/usage?" + q)
        check_eq(r.status, 400, f"/api/v1/usage?{q}", r.body)
        check_eq(json.loads(r.body).get("parameter"), param, f"{q}: the parameter named", r.body)
    # fleet report --by user: the sum of the agents' own reports
    before = summed(*[own_report(a) for a in agents])
    doc, rc, err = fleet_report_json(["--hosts", ",".join(hosts + [dead])])
    after = summed(*[own_report(a) for a in agents])
    check_eq(rc, 0, "fleet report with a dead node", err)
    rows = by_key(doc, "user")
    check_eq(sorted(rows), sorted(after), "the users of both agents", doc)
    for u in after:
        between(before.get(u, 0), rows[u]["gpu_seconds"], after[u], 2 * SLACK,
                f"fleet report user {u!r}")
    check(not doc["complete"], "the totals incomplete", doc)
    check_eq([(m["host"], m["state"]) for m in doc["nodes_missing"]], [(dead, "unreachable")],
             "the dead node named", doc)
    check("connection refused" in doc["nodes_missing"][0]["reason"], "its reason", doc)
    check_eq(rows["root" if os.geteuid() == 0 else list(rows)[0]]["gpus"] > 0, True,
             "GPUs counted", rows)
    if os.geteuid() == 0:
        check_eq(rows["daemon"]["gpus"], 16, "the training job's 8 GPUs on each node", rows)
        check_eq(rows["nobody"]["gpus"], 8, "the inference's 4 GPUs on each node", rows)
    # text and CSV
    rc, out, err = fleet(["report", "--hosts", ",".join(hosts + [dead]), "--timeout", "20"])
    check_eq(rc, 0, "text report", err)
    check(re.search(r"^total \(incomplete\) ", out, re.M), "total marked incomplete", out)
    check(f"missing: {dead} unreachable" in out, "the dead node under the table", out)
    check("incomplete" in err, "a warning on stderr", err)
    rc, out, err = fleet(["report", "--hosts", ",".join(hosts), "--format", "csv",
                          "--timeout", "20", "--by", "job"])
    check_eq(rc, 0, "CSV report", err)
    table = list(csv.reader(io.StringIO(out)))
    check_eq(table[0], ["job", "gpus", "gpu_hours", "energy_kwh", "first_seen", "last_seen"],
             "the CSV header")
    check("(vanished)" in [r[0] for r in table[1:]], "the vanished rank's job", table)
    # --by node: a line per agent, complete
    before = [sum(own_report(a).values()) for a in agents]
    doc, rc, err = fleet_report_json(["--hosts", ",".join(hosts), "--by", "node"])
    after = [sum(own_report(a).values()) for a in agents]
    check(doc["complete"], "all nodes answered", doc)
    check_eq(sorted(by_key(doc, "node")), sorted(hosts), "a row per node", doc)
    for h, lo, hi in zip(hosts, before, after):
        between(lo, by_key(doc, "node")[h]["gpu_seconds"], hi, SLACK, f"node {h}")
    # usage errors
    rc, out, err = fleet(["report", "--hosts", hosts[0], "--by", "host"])
    check_eq(rc, 2, "unknown --by", err)
    check("--by" in err and "user, job, node" in err, "the usage error names --by", err)
    rc, out, err = fleet(["report", "--hosts", hosts[0], "--since", "soon"])
    check_eq(rc, 2, "bad --since", err)
    rc, out, err = fleet(["report", "--hosts", hosts[0], "--format", "env"])
    check_eq(rc, 2, "--format env", err)
    # only dead nodes: exit 1
    rc, out, err = fleet(["report", "--hosts", dead, "--timeout", "20"])
    check_eq(rc, 1, "no node answered", err)


def test_direct():
    with Scratch("fr") as d:
        agents, sleeps = start_two(d)
        try:
            wait_usage(agents, 60)
            check_direct(agents, f"127.0.0.1:{free_port()}")
        finally:
            stop_all(*agents)
            for p in sleeps:
                p.kill()
                p.wait()


def test_prometheus():
    need("prometheus")
    with Scratch("frp") as d:
        agents, sleeps = start_two(d)
        prom = None
        try:
            targets = [f"127.0.0.1:{g.port}" for g in agents]
            prom, url = start_prometheus(d, targets)
            args = ["--prometheus", url, "--by", "user"]

            def counted():
                try:
                    doc, rc, err = fleet_report_json(args)
                except Exception:
                    return False
                return rc == 0 and sum(r["gpu_seconds"] for r in doc["rows"]) >= 600
            wait_until(counted, "Prometheus' increase() over both agents", timeout=120, step=1)
            # each reading of Prometheus between a reading of the agents'
            # counters and of their reports before it and one after it;
            # increase() sees the counters from their first scrape on and
            # extrapolates, and Prometheus lags a scrape behind
            c0 = summed(*[own_counters(g) for g in agents])
            d0 = by_key(fleet_report_json(["--hosts", ",".join(targets)])[0], "user")
            doc, rc, err = fleet_report_json(args)
            c1 = summed(*[own_counters(g) for g in agents])
            d1 = by_key(fleet_report_json(["--hosts", ",".join(targets)])[0], "user")
            check_eq((doc["source"], doc["complete"]), ("prometheus", True), "the source", doc)
            prom_rows = by_key(doc, "user")
            check_eq(sorted(prom_rows), sorted(d1), "the same users", doc, d1)
            for u, r in prom_rows.items():
                check(r["gpus"] is None and r["first_seen"] is None, "no GPUs or times", r)
                check(r["gpu_seconds"] > 0 or c1.get(u, 0) == 0, f"user {u!r}: counted", r)
                between(d0[u]["gpu_seconds"], r["gpu_seconds"], d1[u]["gpu_seconds"],
                        4 * SLACK, f"user {u!r}: Prometheus against the agents' stores")
                between(c0.get(u, 0), r["gpu_seconds"], c1.get(u, 0), 4 * SLACK,
                        f"user {u!r}: Prometheus against the counters")
                check(r["energy_joules"] is not None and r["energy_joules"] > 0,
                      f"user {u!r}: energy", r)
            rc, out, err = fleet(["report", "--prometheus", url, "--by", "node"])
            check_eq(rc, 0, "--by node over Prometheus", err)
            for t in targets:
                check(t in out, f"{t} a line", out)
            prom.stop()
            rc, out, err = fleet(["report", "--prometheus", url])
            check(rc == 1 and "Prometheus" in err, "Prometheus down", err)
        finally:
            stop_all(prom, *agents)
            for p in sleeps:
                p.kill()
                p.wait()


HOSTILE = ["ev\x1b[2Jil\x07", "new\nline", "bad\xff\xfeutf8", "=cmd|' /C calc'!A0", "a,b\"c"]


class Fake:
    """An agent's /api/v1/usage or a Prometheus answering with HOSTILE
    users, on a free port; counts the queries."""

    def __init__(self, prom=False, nodes=1):
        self.queries = []
        self.nodes = nodes
        fake = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                q = parse_qs(urlparse(self.path).query)
                fake.queries.append(q.get("query", [self.path])[0])
                body = fake.answer(prom, self.path).encode("utf-8", "surrogateescape")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        class S(ThreadingHTTPServer):
            daemon_threads = True
        self.srv = S(("127.0.0.1", 0), H)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def answer(self, prom, path):
        # json.dumps escapes \x1b and \n; the raw bytes \xff\xfe go out as such
        if prom:
            res = [{"metric": {"user": u, "instance": f"10.0.0.{n}:9842"},
                    "value": [1, str(3600.0 * (k + 1))]}
                   for n in range(self.nodes) for k, u in enumerate(HOSTILE)]
            doc = {"status": "success", "data": {"resultType": "vector", "result": res}}
        else:
            rows = [{"job": None, "user": u, "process": "p", "gpu": k, "gpus": 1,
                     "gpu_seconds": 3600.0 * (k + 1), "energy_joules": 1000.0,
                     "first_seen_unix_ms": 1700000000000, "last_seen_unix_ms": 1700003600000}
                    for k, u in enumerate(HOSTILE)]
            doc = {"schema": "gpumon.usage/1", "by": "gpu", "rows": rows}
        return json.dumps(doc, ensure_ascii=False).replace("\\u00ff\\u00fe", "\udcff\udcfe")

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def check_outputs(args, what):
    rc, out, err = fleet(["report"] + args + ["--timeout", "20"])
    check_eq(rc, 0, f"{what}: text", err)
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out), f"{what}: no control byte", out)
    check_eq(len(out.splitlines()), 1 + len(HOSTILE) + 1, f"{what}: a line per user", out)
    check("=cmd|' /C calc'!A0" in out and "ev\ufffd[2Jil\ufffd" in out, f"{what}: names", out)
    rc, out, err = fleet(["report"] + args + ["--timeout", "20", "--format", "csv"])
    check_eq(rc, 0, f"{what}: CSV", err)
    cells = [r[0] for r in csv.reader(io.StringIO(out))][1:]
    check_eq(len(cells), len(HOSTILE), f"{what}: a CSV row per user", out)
    check("'=cmd|' /C calc'!A0" in cells and 'a,b"c' in cells, f"{what}: CSV cells", cells)
    check(not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out), f"{what}: CSV control bytes", out)
    rc, out, err = fleet(["report"] + args + ["--timeout", "20", "--format", "json"])
    check_eq(rc, 0, f"{what}: JSON", err)
    check(not re.search(r"[\x00-\x1f]", out.replace("\n", "")), f"{what}: raw controls", out)
    users = {r["user"] for r in json.loads(out)["rows"]}
    check({"ev\x1b[2Jil\x07", "new\nline", "=cmd|' /C calc'!A0", 'a,b"c'} <= users,
          f"{what}: JSON names as sent", users)


def test_hostile():
    agent = Fake()
    try:
        check_outputs(["--hosts", f"127.0.0.1:{agent.port}"], "agent")
    finally:
        agent.close()
    counts = []
    for nodes in (1, 50):
        prom = Fake(prom=True, nodes=nodes)
        try:
            if nodes == 1:
                check_outputs(["--prometheus", f"http://127.0.0.1:{prom.port}"], "Prometheus")
            prom.queries = []
            rc, out, err = fleet(["report", "--prometheus", f"http://127.0.0.1:{prom.port}",
                                  "--by", "node", "--timeout", "20"])
            check_eq(rc, 0, "--by node", err)
            counts.append(sorted(prom.queries))
        finally:
            prom.close()
    check_eq(len(counts[0]), 2, "two queries", counts[0])
    check_eq(counts[0], counts[1], "the same queries for 1 and 50 nodes")
    check("sum by (instance) (increase(gpumon_usage_gpu_seconds_total[604800s]))" in counts[0],
          "the GPU-seconds query", counts[0])


if __name__ == "__main__":
    main([test_hostile, test_direct, test_prometheus])

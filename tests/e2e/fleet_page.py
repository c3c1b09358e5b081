#!/usr/bin/env python3
"""The fleet page (/fleet and /api/v1/fleet), end to end (docs/fleet.md).

  agent: three real agents (training with a firing alert, a lost GPU, a
      workstation) and a fake node whose host name and GPU name are hostile
      HTML with escape sequences; a fourth agent whose configuration has
      `fleet =` naming the four.  An agent without `fleet =` answers 404
      saying so, and only the agent with `fleet =` has loaded
      gpumon_fleet.so (/proc/PID/maps).  /api/v1/fleet is `gpumon fleet --json`'s document (the
      same nodes, states and GPUs) with its round and age, every key of
      the schema typed; the page, its assets and the endpoint carry the
      strict CSP.  One agent killed: it turns unreachable.  In headless
      chromium (DevTools): a cell per GPU plus one for the node without
      any, the killed node's cell unreachable, the lost GPU a problem, the
      problem list by severity (the unreachable node first), the hostile
      names drawn as text (no element made of them, no script ran, no
      control character drawn).  A reload (SIGHUP) that changes [fleet] is
      logged and the rounds keep their nodes.
  agent_tls_auth: an agent's rounds over a node with TLS and basic auth
      (fleet-tls, fleet-cacert, fleet-user, fleet-password-file): ok; a
      wrong password is the node's 401; the password in no answer or log.
  serve: `gpumon fleet serve --listen` with a web config holding a user:
      the page, its assets and the endpoint 401 without the password, 200
      with it; /metrics is not there; 20 viewers' requests ask the nodes
      no more than once per round (a counting fake node).
  serve_hosts: without auth a Host that does not name fleet serve is 421
      unless --allowed-hosts names it; its usage errors.
  serve_prometheus: fleet serve --prometheus over a fake Prometheus: its
      targets are the nodes, and a later round reads it again; once it is
      gone, the last good round stays with round_error saying why.
  scale: 125 fake nodes of 8 GPUs under fleet serve: the page draws 1000
      cells.

Skipped (77) without chromium.  Environment from meson: GPUMON, SIM_LIB,
SOURCE_ROOT.
"""
import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from agentlib import (DEADLINE, GPUMON, Scratch, check, check_eq, main, sim_env,  # noqa: E402
                      wait_until)
from exporter_lib import (Gpumon, Proc, basic, bcrypt_hash, free_port, get, make_pki,  # noqa: E402
                          need, stop_all)
from fleet_hostile import Fake, status_doc  # noqa: E402
from fleet_lib import by_host, fleet, fleet_json, start_agents  # noqa: E402
from fleet_prometheus import FakeProm  # noqa: E402
from live_page import check_live_headers  # noqa: E402

# under the 64 bytes of a host name (struct gm_snapshot), so all of it arrives
EVIL = "ev\u202e\x1b[2J<script>pwned=1</script><img src=x onerror=pwned=2>"
EVIL_DRAWN = EVIL.replace("\x1b", "\ufffd").replace("\u202e", "\ufffd")  # fleet.js's clean()
PASSWORD = "fleet-page-pw"

NODE_KEYS = {"host": str, "state": str, "reason": (str, type(None)),
             "api_schema": (str, type(None)), "version_skew": bool,
             "hostname": (str, type(None)), "sample_age_seconds": (int, float, type(None)),
             "alerts_known": bool, "gpus": list}
GPU_KEYS = {"index": int, "name": (str, type(None)), "uuid": (str, type(None)), "status": str,
            "busy": bool, "severity": int, "problem": (str, type(None)),
            "job": (str, type(None)), "users": list}


BAD_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def strings(v):
    """Every string in a JSON-like value."""
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def maps_module(pid):
    """Whether process pid has gpumon_fleet.so mapped."""
    with open(f"/proc/{pid}/maps") as f:
        return "gpumon_fleet.so" in f.read()


def fleet_doc(host, port, headers=None):
    r = get(host, port, "/api/v1/fleet", headers=headers)
    if r.status != 200:
        return None, r
    check_eq(r.header("Content-Type"), "application/json", "/api/v1/fleet Content-Type")
    return json.loads(r.body), r


def check_schema(doc):
    check_eq(doc["schema"], "gpumon.fleet/1", "schema")
    for k, t in {"round": int, "fetched_unix_ns": int, "age_seconds": (int, float),
                 "interval_seconds": (int, float)}.items():
        check(isinstance(doc.get(k), t), f"/api/v1/fleet: {k} is not {t}", doc.get(k))
    check(doc["round"] >= 1 and doc["age_seconds"] >= 0, "round and age", doc)
    check(doc.get("round_error", 0) is None or isinstance(doc["round_error"], str),
          "round_error: null or a string", doc.get("round_error", 0))
    for n in doc["nodes"]:
        for k, t in NODE_KEYS.items():
            check(k in n and isinstance(n[k], t), f"node {n.get('host')}: {k}", n.get(k))
        for g in n["gpus"]:
            for k, t in GPU_KEYS.items():
                check(k in g and isinstance(g[k], t), f"node {n['host']} gpu: {k}", g.get(k))
            check(0 <= g["severity"] <= 4, "severity 0-4", g)


def wait_doc(host, port, pred, what, headers=None):
    def ok():
        doc, _ = fleet_doc(host, port, headers)
        return doc if doc and pred(doc) else None
    return wait_until(ok, what)


def hostile_fake():
    raw = json.dumps(status_doc(hostname=EVIL, gpu_name=EVIL), ensure_ascii=False).encode()
    return Fake("ok", raw)


def page_state(url, d, expect_cells):
    """Opens url in chromium once the script drew expect_cells cells;
    returns what the page shows."""
    with cdp.Page(url, d, width=1200, height=900) as p:
        def drawn():
            return p.eval('document.querySelectorAll("#grid .cell").length') == expect_cells
        wait_until(drawn, f"the page never drew {expect_cells} cells", step=0.3)
        return p.eval("""(function () {
          const nodes = Array.from(document.querySelectorAll("#grid .node")).map(function (n) {
            return { host: n.querySelector(".host").textContent,
                     state: n.querySelector(".state").textContent,
                     hostname: (n.querySelector(".hostname") || {}).textContent || null,
                     cells: Array.from(n.querySelectorAll(".cell")).map(function (c) {
                       return c.className.replace("cell ", ""); }) };
          });
          const rows = Array.from(document.querySelectorAll("#problems tbody tr")).map(
            function (r) { return Array.from(r.cells).map(function (c) {
              return c.textContent; }); });
          return { nodes: nodes, rows: rows, pwned: window.pwned === undefined ? null : 1,
                   scripts: Array.from(document.scripts).map(function (s) { return s.src; }),
                   imgs: document.querySelectorAll("img").length,
                   state: document.getElementById("fleet-state").textContent,
                   legend: Array.from(document.querySelectorAll("#legend li")).map(
                     function (l) { return l.textContent.trim(); }) };
        })()""")


def test_agent():
    cdp.chromium_exe()
    fake = hostile_fake()
    with Scratch("fpage") as d:
        agents = start_agents(d, [("h100x8-training.ini", [], {"pinned": 120}),
                                  ("diagnose/gpu-lost.ini", [], {"pinned": 100}),
                                  ("workstation.ini", [], {"pinned": 100})])
        viewer = None
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents] + [fake.host]
            r = agents[0].get("/fleet")
            check_eq(r.status, 404, "/fleet without fleet =", r.text)
            check("no fleet is configured" in r.text, "the 404 says why", r.text)
            r = agents[0].get("/api/v1/fleet")
            check_eq(r.status, 404, "/api/v1/fleet without fleet =", r.text)
            check("no fleet is configured" in json.loads(r.body)["error"], "JSON 404", r.text)

            viewer = viewer_agent(d, "[fleet]\nfleet = " + ", ".join(hosts) + "\n")
            viewer.start()
            doc = wait_doc("127.0.0.1", viewer.port,
                           lambda doc: [n["state"] for n in doc["nodes"]] == ["ok"] * 4,
                           "every node ok on /api/v1/fleet")
            check_schema(doc)
            check_eq([n["host"] for n in doc["nodes"]], hosts, "the nodes in order")
            check(maps_module(viewer.pid), "the agent with fleet = has not loaded gpumon_fleet.so")
            check(not maps_module(agents[0].pid), "an agent without fleet = loaded gpumon_fleet.so")
            cli, rc, err = fleet_json(["--hosts", ",".join(hosts)])
            check_eq(rc, 0, "fleet --json", err)
            for n in cli["nodes"]:
                m = by_host(doc)[n["host"]]
                check_eq((m["state"], m["hostname"], [(g["index"], g["name"]) for g in m["gpus"]]),
                         (n["state"], n["hostname"], [(g["index"], g["name"]) for g in n["gpus"]]),
                         f"{n['host']}: /api/v1/fleet against gpumon fleet --json")
            for path in ("/fleet", "/api/v1/fleet", "/static/fleet.js", "/static/fleet.css"):
                r = viewer.get(path)
                check_eq(r.status, 200, path, r.text)
                check_live_headers(r, path)
            check('<script src="/static/fleet.js" defer>' in viewer.get("/fleet").text,
                  "the page's one script", viewer.get("/fleet").text)

            killed = agents[2]
            killed.stop(signal.SIGKILL)
            doc = wait_doc("127.0.0.1", viewer.port,
                           lambda doc: doc["nodes"][2]["state"] == "unreachable",
                           "the killed agent unreachable")
            check_schema(doc)
            ngpu = [len(n["gpus"]) for n in doc["nodes"]]
            check_eq(ngpu[2], 0, "the killed node's GPUs", doc["nodes"][2])
            got = page_state(viewer.url + "/fleet", d, sum(ngpu) + 1)

            check_eq(got["pwned"], None, "a script of a node's text ran", got)
            check_eq(got["imgs"], 0, "an element made of a node's text", got)
            check_eq(got["scripts"], [viewer.url + "/static/fleet.js"], "the page's scripts")
            check_eq(got["legend"], ["busy", "idle", "problem", "stale", "unreachable"], "legend")
            check_eq([n["host"] for n in got["nodes"]], hosts, "the grid's nodes")
            for n, m in zip(got["nodes"], doc["nodes"]):
                check_eq(len(n["cells"]), max(1, len(m["gpus"])), f"{n['host']}: cells")
            check_eq(got["nodes"][2]["cells"], ["none unreachable"], "the killed node's cell")
            check_eq(got["nodes"][2]["state"], "unreachable", "the killed node's state")
            check_eq(doc["nodes"][3]["hostname"], EVIL, "the hostile host name in the JSON")
            check_eq(got["nodes"][3]["hostname"], EVIL_DRAWN, "the hostile host name drawn as text")
            drawn = list(strings(got))
            check(drawn and not any(BAD_CHAR.search(t) for t in drawn),
                  "a control or bidi character drawn", got)
            lost = [i for i, g in enumerate(doc["nodes"][1]["gpus"]) if g["severity"] == 4]
            check(lost, "the lost GPU in the document", doc["nodes"][1])
            for i in lost:
                check_eq(got["nodes"][1]["cells"][i], "problem", "the lost GPU's cell")
            sev = [int(r[0]) for r in got["rows"]]
            check_eq(sev, sorted(sev, reverse=True), "the problems by severity", got["rows"])
            check_eq(got["rows"][0][1:3], [hosts[2], "node unreachable"], "the first problem")
            check(got["state"].startswith("(round "), "the round shown", got["state"])

            # a reload that changes [fleet] is logged; the rounds keep their nodes
            with open(viewer.conf, "w") as f:
                f.write("[fleet]\nfleet = " + hosts[0] + "\n")
            viewer.proc.send_signal(signal.SIGHUP)
            wait_until(lambda: "the [fleet] section changed" in viewer.log(),
                       "the reload's notice about [fleet]")
            r0 = fleet_doc("127.0.0.1", viewer.port)[0]["round"]
            doc = wait_doc("127.0.0.1", viewer.port, lambda doc: doc["round"] > r0,
                           "a round after the reload")
            check_eq([n["host"] for n in doc["nodes"]], hosts, "the nodes after the reload")
            check_eq(viewer.stop(), 0, "the viewer's exit status", viewer.log())
        finally:
            fake.close()
            stop_all(viewer, *agents)


def viewer_agent(d, conf_text):
    """An agent (serve) on the workstation scenario whose configuration
    file is conf_text."""
    conf = os.path.join(d, f"viewer{len(os.listdir(d))}.conf")
    with open(conf, "w") as f:
        f.write(conf_text)
    g = Gpumon(d, sim_env("workstation.ini", pinned=100), ["--interval", "0.5s"])
    g.base_args = [a for a in g.base_args if a != "--no-config"] + ["--config", conf]
    g.conf = conf
    return g


def test_agent_tls_auth():
    """The agent's rounds over a node with TLS and basic auth: fleet-tls,
    fleet-cacert, fleet-user and fleet-password-file; a wrong password is
    the node's 401, and the password is in no answer or log."""
    need("openssl")
    with Scratch("fpta") as d:
        pki = make_pki(d)
        web = os.path.join(d, "web.yml")
        with open(web, "w") as f:
            f.write(f"tls_server_config:\n  cert_file: {pki['server_crt']}\n"
                    f"  key_file: {pki['server_key']}\n"
                    f"basic_auth_users:\n  lab: {bcrypt_hash(PASSWORD)}\n")
        for name, pw in (("pw", PASSWORD), ("bad", PASSWORD + "x")):
            with open(os.path.join(d, name), "w") as f:
                f.write(pw + "\n")
        agents = start_agents(d, [("workstation.ini", ["--web-config", web], None)], wait=False)
        viewers = []
        try:
            host = f"127.0.0.1:{agents[0].port}"
            base = (f"[fleet]\nfleet = {host}\nfleet-tls = true\nfleet-cacert = {pki['ca']}\n"
                    "fleet-user = lab\nfleet-timeout = 5s\nfleet-interval = 0.5s\n")
            good = viewer_agent(d, base + f"fleet-password-file = {d}/pw\n")
            bad = viewer_agent(d, base + f"fleet-password-file = {d}/bad\n")
            viewers = [good, bad]
            for v in viewers:
                v.start()
            doc = wait_doc("127.0.0.1", good.port,
                           lambda doc: doc["nodes"][0]["state"] == "ok", "the TLS node ok")
            check_schema(doc)
            check_eq(doc["nodes"][0]["host"], host, "the node's host")
            doc = wait_doc("127.0.0.1", bad.port,
                           lambda doc: doc["nodes"][0]["state"] != "ok" and doc["round"] >= 2,
                           "the wrong password's rounds")
            check_eq((doc["nodes"][0]["state"], doc["nodes"][0]["reason"]),
                     ("unreachable", "401: unauthorized (basic auth)"), "a wrong password")
            for v in viewers:
                r = v.get("/api/v1/fleet")
                check(PASSWORD not in r.text, "the password in /api/v1/fleet", r.text)
                check_eq(v.stop(), 0, "the viewer's exit status", v.log())
                check(PASSWORD not in v.log(), "the password in the log", v.log())
        finally:
            stop_all(*viewers, *agents)


def serve(d, hosts, args=()):
    port = free_port()
    source = ["--hosts", ",".join(hosts)] if hosts else []
    p = Proc([GPUMON, "fleet", "serve", "--listen", f"127.0.0.1:{port}"] + source + list(args),
             env=sim_env(),
             log=os.path.join(d, f"serve{port}.log"))
    p.start()
    p.port = port

    def up():
        check(p.alive(), "fleet serve exited", p.log())
        try:
            return get("127.0.0.1", port, "/livez", timeout=2).status in (200, 401)
        except OSError:
            return False
    wait_until(up, "fleet serve answering /livez (200, or 401 with basic auth)")
    return p


def test_serve():
    counted = Fake("ok", json.dumps(status_doc(ngpu=2)).encode())
    with Scratch("fserve") as d:
        web = os.path.join(d, "web.yml")
        with open(web, "w") as f:
            f.write(f"basic_auth_users:\n  viewer: {bcrypt_hash(PASSWORD)}\n")
        p = None
        try:
            p = serve(d, [counted.host], ["--web-config", web, "--interval", "60",
                                          "--timeout", "10"])
            auth = basic("viewer", PASSWORD)
            for path in ("/fleet", "/", "/api/v1/fleet", "/static/fleet.js"):
                r = get("127.0.0.1", p.port, path)
                check_eq(r.status, 401, f"{path} without the password", r.text)
                r = get("127.0.0.1", p.port, path, headers=basic("viewer", "wrong"))
                check_eq(r.status, 401, f"{path} with a wrong password", r.text)
            doc = wait_doc("127.0.0.1", p.port, lambda doc: doc["nodes"][0]["state"] == "ok",
                           "the node ok", headers=auth)
            check_schema(doc)
            check_eq(len(doc["nodes"][0]["gpus"]), 2, "the fake's GPUs")
            for path in ("/fleet", "/", "/static/fleet.js"):
                r = get("127.0.0.1", p.port, path, headers=auth)
                check_eq(r.status, 200, f"{path} with the password", r.text)
                check_live_headers(r, path)
            for path in ("/metrics", "/api/v1/status"):
                r = get("127.0.0.1", p.port, path, headers=auth)
                check_eq(r.status, 404, f"{path} on fleet serve", r.text)
            r = get("127.0.0.1", p.port, "/livez", headers=auth)
            check_eq((r.status, r.text), (200, "ok: serving the fleet page (gpumon fleet serve)\n"),
                     "/livez on fleet serve")
            rounds = []
            for _ in range(20):
                doc, r = fleet_doc("127.0.0.1", p.port, auth)
                check(doc is not None, "/api/v1/fleet", r)
                rounds.append(doc["round"])
            asked = sum(1 for path, _ in counted.hits if path == "/api/v1/status")
            check(asked <= max(rounds) + 1,
                  f"20 viewers' requests asked the node {asked} times in {max(rounds)} rounds",
                  rounds)
            check_eq(p.stop(), 0, "fleet serve's exit status", p.log())
        finally:
            counted.close()
            stop_all(p)


def test_serve_hosts():
    """Without auth, a Host that does not name fleet serve is 421 (DNS
    rebinding), unless --allowed-hosts names it; usage errors."""
    node = Fake("ok", json.dumps(status_doc()).encode())
    with Scratch("fshost") as d:
        procs = []
        try:
            plain = serve(d, [node.host])
            named = serve(d, [node.host], ["--allowed-hosts", "fleet.example"])
            procs = [plain, named]
            wait_doc("127.0.0.1", plain.port, lambda doc: True, "plain's first round")
            wait_doc("127.0.0.1", named.port, lambda doc: True, "named's first round")
            for path in ("/fleet", "/api/v1/fleet"):
                r = get("127.0.0.1", plain.port, path, headers={"Host": "fleet.example"})
                check_eq(r.status, 421, f"{path}: a foreign Host", r.text)
                r = get("127.0.0.1", named.port, path, headers={"Host": "fleet.example"})
                check_eq(r.status, 200, f"{path}: an allowed Host", r.text)
            for args, what in ((["serve", "--hosts", node.host], "needs --listen"),
                               (["status", "--hosts", node.host, "--listen", "127.0.0.1:1"],
                                "only fleet serve does"),
                               (["--hosts", node.host, "--allowed-hosts", "x"],
                                "only fleet serve does")):
                rc, out, err = fleet(args)
                check(rc == 2 and what in err, f"usage: {args}", err)
            for p in procs:
                check_eq(p.stop(), 0, "fleet serve's exit status", p.log())
        finally:
            node.close()
            stop_all(*procs)


def test_serve_prometheus():
    fake = FakeProm()
    fake.nodes = 3
    with Scratch("fsprom") as d:
        p = None
        try:
            p = serve(d, None, ["--prometheus", fake.url, "--interval", "1", "--timeout", "20"])
            doc = wait_doc("127.0.0.1", p.port, lambda doc: len(doc["nodes"]) == 3,
                           "Prometheus' three targets on /api/v1/fleet")
            check_schema(doc)
            check_eq([n["host"] for n in doc["nodes"]], [f"10.0.0.{i}:9842" for i in range(3)],
                     "the nodes of Prometheus")
            fake.nodes = 5  # a later round reads Prometheus again
            wait_doc("127.0.0.1", p.port, lambda doc: len(doc["nodes"]) == 5,
                     "five targets after Prometheus changed")
            r = get("127.0.0.1", p.port, "/fleet")
            check_eq(r.status, 200, "/fleet", r.text)
            check_live_headers(r, "/fleet")
            fake.close()  # Prometheus gone: the last good round stays, saying why
            doc = wait_doc("127.0.0.1", p.port,
                           lambda doc: "connection refused" in (doc["round_error"] or ""),
                           "round_error once Prometheus is gone")
            check_eq(len(doc["nodes"]), 5, "the last good round's nodes")
            check_eq(p.stop(), 0, "fleet serve's exit status", p.log())
        finally:
            fake.close()
            stop_all(p)


def test_scale():
    cdp.chromium_exe()
    fakes = [Fake("ok", json.dumps(status_doc(hostname=f"n{i}", ngpu=8)).encode())
             for i in range(125)]
    with Scratch("fscale") as d:
        p = None
        try:
            p = serve(d, [f.host for f in fakes], ["--interval", "5", "--timeout", "30"])
            wait_doc("127.0.0.1", p.port,
                     lambda doc: sum(len(n["gpus"]) for n in doc["nodes"]) == 1000,
                     "1000 GPUs on /api/v1/fleet")
            got = page_state(f"http://127.0.0.1:{p.port}/fleet", d, 1000)
            check_eq(len(got["nodes"]), 125, "the grid's nodes")
            check(all(c == "busy" for n in got["nodes"] for c in n["cells"]), "every cell busy",
                  got["nodes"][:2])
            check_eq(p.stop(), 0, "fleet serve's exit status", p.log())
        finally:
            for f in fakes:
                f.close()
            stop_all(p)


if __name__ == "__main__":
    main([test_agent, test_agent_tls_auth, test_serve, test_serve_hosts, test_serve_prometheus,
          test_scale])

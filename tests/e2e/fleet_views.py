#!/usr/bin/env python3
"""fleet_views.py -- `gpumon fleet status`, `fleet free` and `fleet
diagnose` against real agents on simulated scenarios (docs/fleet.md).

  status     four agents: the demo node (GPU 5's critical temperature alert
             fires), a node with GPU 2 lost, a node whose driver is not
             loaded, a workstation; the text view's node lines and problems
             sorted by severity (lost, then the critical alert), --gpus
             with every GPU, --json with every node's state and each GPU's
             values equal to what its agent's /api/v1/status says
  free       an idle node and a busy one: the free GPUs are those that
             `gpumon free` itself finds on the idle node's scenario (the
             same rules), ranked, as host: CUDA_VISIBLE_DEVICES lines, env
             and JSON; --count beyond them exits 1 and chooses none
  diagnose   three nodes with one job (the job-mapping directory names it
             on every GPU), two at 94 % and one at 20 %: straggler-node
             names the slow node; the same nodes with independent jobs: no
             straggler-node; the per-GPU findings equal the agents'
  options    an option that only some subcommands read (--json, --gpus,
             --count, --min-memory, --format, --by, --since, --interval,
             --listen, --web-config, --allowed-hosts), given to any other,
             is a usage error naming it and who reads it, never ignored
"""
import json
import os

from agentlib import Scratch, check, check_eq, main, run, sim_env, wait_until
from exporter_lib import get, stop_all
from fleet_lib import by_host, fleet, fleet_json, start_agents


def api_status(g):
    r = get("127.0.0.1", g.port, "/api/v1/status")
    check_eq(r.status, 200, "the agent's /api/v1/status")
    return json.loads(r.body)


def test_status():
    with Scratch("fv") as d:
        agents = start_agents(d, [("h100x8-training.ini", [], {"pinned": 100}),
                                  ("diagnose/gpu-lost.ini", [], {"pinned": 100}),
                                  ("fault-driver-not-loaded.ini", [], None),
                                  ("workstation.ini", [], {"pinned": 100})])
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents]
            args = ["--hosts", ",".join(hosts), "--timeout", "10"]

            def fired():
                doc, rc, err = fleet_json(args)
                gpus = by_host(doc)[hosts[0]]["gpus"]
                return doc if gpus and gpus[5]["severity"] == 3 else None
            doc = wait_until(fired, "GPU 5's critical alert on the demo node")
            n = by_host(doc)
            check_eq([n[h]["state"] for h in hosts], ["ok", "ok", "driver", "ok"], "states", doc)
            check(n[hosts[2]]["reason"].startswith("driver_not_loaded"), "the driver's reason",
                  n[hosts[2]])
            check_eq([len(n[h]["gpus"]) for h in hosts], [8, 4, 0, 2], "GPUs per node")
            lost = n[hosts[1]]["gpus"][2]
            check_eq((lost["status"], lost["severity"]), ("lost", 4), "the lost GPU", lost)
            for i, h in enumerate(hosts):
                if n[h]["state"] != "ok":
                    continue
                api = api_status(agents[i])
                check_eq(n[h]["hostname"], api["hostname"], f"{h}: hostname")
                for fg, ag in zip(n[h]["gpus"], api["gpus"]):
                    for k in ("index", "uuid", "name", "utilization_gpu_percent",
                              "memory_used_bytes", "memory_total_bytes",
                              "temperature_gpu_celsius", "power_draw_watts", "diagnosis"):
                        check_eq(fg[k], ag.get(k), f"{h} GPU {ag['index']}: {k}")
            rc, out, err = fleet(args)
            check_eq(rc, 0, "text view", err)
            lines = out.splitlines()
            check(lines[0].startswith("NODE") and "WORST" in lines[0], "the header", out)
            for h, want in zip(hosts, [" ok ", " ok ", " driver ", " ok "]):
                line = [ln for ln in lines if ln.startswith(h + " ")]
                check(len(line) == 1 and want in line[0], f"{h}'s line", out)
            check("gpu2 lost" in [ln for ln in lines if ln.startswith(hosts[1] + " ")][0],
                  "the lost GPU is the worst problem of its node", out)
            probs = lines[lines.index("Problems:") + 1:]
            check(probs[0].startswith(f"  {hosts[1]} gpu2 ") and ": lost" in probs[0],
                  "the lost GPU first (severity 4)", out)
            check(probs[1].startswith(f"  {hosts[0]} gpu5 ") and
                  "alert gpu-temperature-critical" in probs[1], "then the critical alert", out)
            rc, out, err = fleet(args + ["--gpus"])
            rows = out.splitlines()
            rows = rows[rows.index("GPUs:") + 1:]
            check_eq(len(rows), 14, "--gpus: every GPU of the ok nodes", out)
        finally:
            stop_all(*agents)


def test_free():
    with Scratch("ff") as d:
        agents = start_agents(d, [("h100x8-training.ini", [], {"pinned": 100}),
                                  ("diagnose/idle.ini", [], {"pinned": 100})])
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents]
            args = ["free", "--hosts", ",".join(hosts), "--timeout", "10"]
            rc, out, err = run(["free", "--format", "json", "--window", "0"],
                               sim_env("diagnose/idle.ini", pinned=100))
            want = [u["uuid"] for u in json.loads(out)["gpus"] if u["free"]]
            check_eq(len(want), 4, "gpumon free on the idle scenario: 4 free", out)
            rc, out, err = fleet(args)
            check_eq(rc, 0, "fleet free", err)
            check_eq(out.splitlines(), [f"{hosts[1]}: CUDA_VISIBLE_DEVICES={','.join(want)}"],
                     "the idle node's GPUs, as gpumon free judges them", out)
            rc, out, err = fleet(args + ["--count", "2", "--format", "env"])
            check_eq(rc, 0, "--count 2 --format env", err)
            check_eq(out.splitlines(), [f"# {hosts[1]}",
                                        f"CUDA_VISIBLE_DEVICES='{want[0]},{want[1]}'"],
                     "env: two chosen", out)
            rc, out, err = fleet(args + ["--format", "json"])
            doc = json.loads(out)
            check_eq((doc["schema"], doc["free"]), ("gpumon.fleet-free/1", 4), "json", out)
            check_eq(sorted(c["uuid"] for c in doc["chosen"]), sorted(want), "json: chosen")
            check(all(c["host"] == hosts[1] for c in doc["chosen"]), "json: the idle host")
            rc, out, err = fleet(args + ["--count", "5"])
            check_eq((rc, out), (1, ""), "--count 5 of 4: exit 1, none chosen", err)
            check("too few free GPUs: 4 free, --count 5" in err, "says so", err)
            rc, out, err = fleet(args + ["--min-memory", "200G"])
            check_eq((rc, out), (0, ""), "--min-memory beyond any GPU: none free", err)
        finally:
            stop_all(*agents)


GPU_SCN = """[machine]
seed = {seed}
gpus = 4

[gpu]
model = A100-SXM4-80GB
workload = steady
util = {util}%
"""


def job_dir(d, name, job):
    path = os.path.join(d, name)
    os.makedirs(path)
    for i in range(4):
        with open(os.path.join(path, str(i)), "w") as f:
            f.write(f"{job}\n")
    return path


def test_diagnose():
    with Scratch("fd") as d:
        specs = []
        for k, util in enumerate((94, 94, 20)):
            scn = os.path.join(d, f"n{k}.ini")
            with open(scn, "w") as f:
                f.write(GPU_SCN.format(seed=200 + k, util=util))
            specs.append((scn, ["--job-mapping-dir", job_dir(d, f"same{k}", "4242")],
                          {"pinned": 100}))
        for k, util in enumerate((94, 94, 20)):
            specs.append((os.path.join(d, f"n{k}.ini"),
                          ["--job-mapping-dir", job_dir(d, f"own{k}", f"77{k}")],
                          {"pinned": 100}))
        agents = start_agents(d, specs)
        try:
            same = [f"127.0.0.1:{g.port}" for g in agents[:3]]
            own = [f"127.0.0.1:{g.port}" for g in agents[3:]]
            rc, out, err = fleet(["diagnose", "--hosts", ",".join(same), "--timeout", "10",
                                  "--json"])
            check_eq(rc, 0, "diagnose", err)
            doc = json.loads(out)
            check_eq(doc["schema"], "gpumon.fleet-diagnose/1", "schema")
            st = doc["stragglers"]
            check_eq(len(st), 1, "one straggling node", out)
            check_eq((st[0]["job"], st[0]["host"], st[0]["nodes"]), ("hpc:4242", same[2], 3),
                     "the slow node of job 4242", st)
            check(st[0]["node_utilization_percent"] < 30 <= st[0]["others_utilization_percent"],
                  "its utilisation against the others'", st)
            rc, out, err = fleet(["diagnose", "--hosts", ",".join(same), "--timeout", "10"])
            check(f"job hpc:4242 on 3 nodes: {same[2]} at 20% GPU utilisation" in out,
                  "text: the straggling node", out)
            rc, out, err = fleet(["diagnose", "--hosts", ",".join(own), "--timeout", "10",
                                  "--json"])
            doc = json.loads(out)
            check_eq(doc["stragglers"], [], "independent jobs: no straggler-node", out)
            # the per-GPU findings are the agents' own
            want = sorted((f"127.0.0.1:{g.port}", gpu["index"], c)
                          for g in agents[3:] for gpu in api_status(g)["gpus"]
                          for c in gpu["diagnosis"] or [])
            got = sorted((f["host"], f["gpu"], f["cause"]) for f in doc["findings"])
            check_eq(got, want, "findings as the agents report them")
        finally:
            stop_all(*agents)


# option -> (its arguments, the subcommands that read it)
SUB_OPTS = {
    "--json": ([], {"status", "diagnose", "report"}),
    "--gpus": ([], {"status"}),
    "--count": (["1"], {"free"}),
    "--min-memory": (["50%"], {"free"}),
    "--format": (["json"], {"free", "report"}),
    "--by": (["job"], {"report"}),
    "--since": (["1d"], {"report"}),
    "--interval": (["1"], {"top", "serve"}),
    "--listen": (["127.0.0.1:1"], {"serve"}),
    "--web-config": (["/nonexistent/web.yml"], {"serve"}),
    "--allowed-hosts": (["x"], {"serve"}),
}
SUBS = ("status", "free", "diagnose", "top", "report", "serve")


def test_options():
    # a port nothing listens on: the subcommands that read the option get
    # past the options and fail on the node (exit 1), the others exit 2
    node = ["--hosts", "127.0.0.1:1", "--timeout", "2"]
    for opt, (val, readers) in SUB_OPTS.items():
        for sub in SUBS:
            if sub in readers:
                if sub in ("top", "serve"):
                    continue  # full screen / a server: their options in fleet-top, fleet-page
                rc, out, err = fleet([sub, opt] + val + node)
                check(rc != 2 and "does not read" not in err,
                      f"fleet {sub} {opt}: read, not refused (exit {rc})", err)
                continue
            rc, out, err = fleet([sub, opt] + val + node)
            check_eq((rc, out), (2, ""), f"fleet {sub} {opt}: a usage error", err)
            check(f"fleet {sub} does not read {opt}: only fleet " in err,
                  f"fleet {sub} {opt}: the message names the option", err)
            names = err.split("only fleet ", 1)[1].split("do", 1)[0]
            check(all(r in names for r in readers),
                  f"fleet {sub} {opt}: the message names every reader {sorted(readers)}", err)
    # the default subcommand is status
    rc, out, err = fleet(["--by", "job"] + node)
    check(rc == 2 and "fleet status does not read --by" in err, "the default status", err)


if __name__ == "__main__":
    main([test_status, test_free, test_diagnose, test_options])

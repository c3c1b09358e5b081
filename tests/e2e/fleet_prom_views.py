#!/usr/bin/env python3
"""fleet_prom_views.py -- every `gpumon fleet` view read from a real
Prometheus that scrapes real agents (docs/fleet.md, "Prometheus"), against
the same views read from the agents directly.

  views      six agents with process series (--process-metrics): two idle
             nodes, the demo training node (8 ranks of one user), a node
             with a lost GPU, idle GPUs with a row remap or a page
             retirement pending (and one clean), and idle GPUs in compute
             mode prohibited.  Over --prometheus: fleet status --json gives
             each GPU the users, job and busy flag the agents' own API
             gives (fleet --hosts); fleet free chooses what it chooses over
             the agents (the same rules: not the pending or prohibited
             GPUs); fleet top lists every node ok.  Then one idle agent
             stopped with SIGSTOP and the other killed: Prometheus cannot
             scrape them (up 0), fleet status shows both unreachable with
             that reason, fleet free chooses none of their GPUs, diagnose
             counts them not ok, and fleet top marks both unreachable with
             their last GPUs kept and their cells 'x' while the rounds go
             on; Prometheus stopped: every node in fleet top unreachable
             ("Prometheus did not answer"), the round's error on screen; q
             gives the terminal back (tmux; that part skipped without it)
  diagnose   six agents: one job (the job-mapping directory names 4242 on
             every GPU) on three nodes, two at 94 % and one at 20 %, and
             three independent jobs (770, 771, 772) at the same
             utilisations: over Prometheus, straggler-node names the slow
             node of job 4242 and nothing for the independent jobs, as
             over the agents

Skipped without the prometheus binary (scripts/install-deps.sh).
"""
import json
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import DEADLINE, Fail, Scratch, check, check_eq, main, wait_until  # noqa: E402
from exporter_lib import need, stop_all  # noqa: E402
from fleet_lib import (by_host, fleet, fleet_json, prom_query, start_agents,  # noqa: E402
                       start_prometheus)

PROCS = ["--process-metrics", "--interval", "1s"]

PROHIBITED = """[machine]
seed = 51
gpus = 2

[gpu]
model = L40S
workload = idle
compute_mode = prohibited
"""


def scraped(url, targets, ngpu):
    """Waits until Prometheus has every target up with its GPUs."""
    def ok():
        up = prom_query(url, "up == 1")
        gpus = prom_query(url, "gpumon_gpu_up")
        stamp = prom_query(url, "gpumon_exporter_last_sample_timestamp_seconds")
        return (up is not None and gpus is not None and stamp is not None and
                sorted(u["metric"]["instance"] for u in up) == sorted(targets) and
                len(gpus) == ngpu and len(stamp) == len(targets))
    wait_until(ok, f"Prometheus scraping the {len(targets)} agents", timeout=90, step=0.5)


def gpu_facts(doc):
    """Per host and GPU index: its users, job and busy flag."""
    return {(n["host"], g["index"]): (sorted(g["users"]), g["job"], g["busy"])
            for n in doc["nodes"] if n["state"] == "ok" for g in n["gpus"]}


def free_lines(args):
    rc, out, err = fleet(["free"] + args)
    check_eq(rc, 0, f"fleet free {args}", err)
    return sorted(out.splitlines())


def test_views():
    need("prometheus")
    with Scratch("fpv") as d:
        prohibited = os.path.join(d, "prohibited.ini")
        with open(prohibited, "w") as f:
            f.write(PROHIBITED)
        agents = start_agents(d, [("diagnose/idle.ini", PROCS, {"pinned": 100}),
                                  ("diagnose/idle.ini", PROCS, {"pinned": 100}),
                                  ("h100x8-training.ini", PROCS, {"pinned": 100}),
                                  ("diagnose/gpu-lost.ini", PROCS, {"pinned": 100}),
                                  ("free/remap.ini", PROCS, {"pinned": 100}),
                                  (prohibited, PROCS, {"pinned": 100})])
        stopped, killed = agents[0], agents[1]
        hosts = [f"127.0.0.1:{g.port}" for g in agents]
        prom, t = None, None
        try:
            prom, url = start_prometheus(d, hosts)
            scraped(url, hosts, 4 + 4 + 8 + 4 + 3 + 2)
            # the training node's process series are there (its ranks)
            wait_until(lambda: len(prom_query(url, "gpumon_process_memory_used_bytes") or []) >= 8,
                       "the process series", timeout=60, step=0.5)
            pargs = ["--prometheus", url, "--timeout", "20"]
            hargs = ["--hosts", ",".join(hosts), "--timeout", "20"]

            # status: users, jobs, busy as the agents say
            # (every node ok: waited for, as one scrape of a live agent may
            # miss its timeout on a loaded machine; see below)
            def all_ok():
                doc, rc, err = fleet_json(pargs)
                n = by_host(doc)
                return (doc, rc, err) if all(n.get(h, {}).get("state") == "ok"
                                             for h in hosts) else None
            doc, rc, err = wait_until(all_ok, "every agent ok over Prometheus",
                                      timeout=DEADLINE, step=0.5)
            check_eq(rc, 0, "fleet --prometheus --json", err)
            n = by_host(doc)
            check_eq(sorted(n), sorted(hosts), "every agent a node", doc)
            for h in hosts:
                check_eq((n[h]["state"], n[h]["reason"]), ("ok", None), h, n[h])
            direct, rc, err = fleet_json(hargs)
            check_eq(rc, 0, "fleet --hosts --json", err)
            want = gpu_facts(direct)
            check_eq(gpu_facts(doc), want, "users, job and busy of every GPU as the agents give")
            train = n[hosts[2]]["gpus"]
            check(all(g["users"] and g["busy"] for g in train), "the training node's users",
                  train)
            rc, out, err = fleet(pargs)
            check_eq(rc, 0, "text view", err)
            line = [ln for ln in out.splitlines() if ln.startswith(hosts[2] + " ")]
            users = sorted({u for g in train for u in g["users"]})
            check(len(line) == 1 and users and all(u in line[0].split()[-1] for u in users),
                  "the training node's users on its line", out)

            # free: the same choice as over the agents
            got = free_lines(pargs)
            check_eq(got, free_lines(hargs), "fleet free: as over the agents")
            rc, out, err = fleet(["free", "--format", "json"] + pargs)
            check_eq(rc, 0, "free --format json", err)
            chosen = sorted((c["host"], c["gpu"]) for c in json.loads(out)["chosen"])
            want = sorted([(h, i) for h in hosts[:2] for i in range(4)] + [(hosts[4], 2)])
            check_eq(chosen, want, "the idle nodes' GPUs and the clean one beside the pending "
                     "remap and retirement; none prohibited", out)
            rc, out, err = fleet(["free", "--count", "10"] + pargs)
            check_eq((rc, out), (1, ""), "--count 10 of 9: exit 1, none chosen", err)

            # fleet top over Prometheus
            if shutil.which("tmux"):
                from fleet_top import FleetTop
                t = FleetTop(200, 50, pargs[:2] + ["--interval", "1", "--timeout", "10"])
                for h in hosts:
                    t.wait_row(h, lambda r: r[1] == "ok", "ok")
                check_eq([t.row(h)[2] for h in hosts], ["4", "4", "8", "4", "3", "2"],
                         "GPUs per node", t.screen())

            # one agent stopped, one killed: Prometheus cannot scrape them
            stopped.proc.send_signal(signal.SIGSTOP)
            killed.proc.send_signal(signal.SIGKILL)
            killed.proc.wait()

            # A live agent stays ok: Prometheus scrapes it.  On a loaded
            # machine one scrape of a live agent can miss its timeout and
            # read up 0 for a round (Prometheus's view, which fleet shows
            # as it is), so each view is waited for in its steady state:
            # the two down, the four others ok.
            def settled():
                dn, rc, err = fleet_json(pargs)
                s = by_host(dn)
                return dn if (all(s[h]["state"] == "unreachable" for h in hosts[:2]) and
                              all(s[h]["state"] == "ok" for h in hosts[2:])) else None
            dn = wait_until(settled, "the stopped and the killed agent unreachable, the other "
                            "four ok", timeout=DEADLINE, step=0.5)
            s = by_host(dn)
            for h in hosts[:2]:
                check_eq(s[h]["reason"], "Prometheus cannot scrape it (up 0)", h, s[h])

            last = {}

            def free_chosen():
                rc, out, err = fleet(["free", "--format", "json"] + pargs)
                last["free"] = (rc, out[-1000:], err[-1000:])
                return rc == 0 and [(c["host"], c["gpu"]) for c in
                                    json.loads(out)["chosen"]] == [(hosts[4], 2)]
            try:
                wait_until(free_chosen, "free with two nodes down: none of the down nodes' GPUs, "
                           "the clean one of the live node", timeout=DEADLINE, step=0.5)
            except Fail as e:
                raise Fail(f"{e}\n{last['free']}")

            def diagnosed():
                rc, out, err = fleet(["diagnose", "--json"] + pargs)
                return rc == 0 and json.loads(out)["nodes_not_ok"] == 2
            wait_until(diagnosed, "diagnose: exactly the two down nodes not diagnosed",
                       timeout=DEADLINE, step=0.5)
            if t:
                for h in hosts[:2]:
                    r = t.wait_row(h, lambda r: r[1] == "unreachable", "unreachable")
                    check_eq(r[2], "4", f"{h}: its last GPUs kept", t.screen())
                    check("Prometheus" in r, f"{h}: the reason", r)
                n0 = t.round()
                t.wait_round(n0 + 2, "rounds go on with two nodes down")

                def top_settled():
                    grid = "\n".join(t.lines()[2:6])
                    return (grid.split().count("xxxx") == 2 and
                            all((t.row(h) or ["", ""])[1] == "ok" for h in hosts[2:]))
                try:
                    wait_until(top_settled, "fleet top: the two down nodes' cells 'x', the other "
                               "four ok", timeout=DEADLINE, step=0.5)
                except Fail as e:
                    raise Fail(f"{e}\n{t.screen()}")
                # Prometheus gone: every node unreachable, the round's error shown
                prom.stop()
                r = t.wait_row(hosts[2], lambda r: r[1] == "unreachable", "unreachable")
                check_eq(r[2], "8", "the training node's last GPUs kept", t.screen())
                check(" ".join(r).endswith("Prometheus did not answer"), "its reason", r)
                t.wait_for("round failed: Prometheus", what="the round's error")
                t.keys("q")
                code, stty = t.wait_exit()
                t.check_restored(code, stty)
        finally:
            if stopped.proc and stopped.proc.poll() is None:
                stopped.proc.send_signal(signal.SIGCONT)
            if t:
                t.close()
            stop_all(prom, *agents)


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
    need("prometheus")
    with Scratch("fpd") as d:
        specs = []
        for k, util in enumerate((94, 94, 20)):
            scn = os.path.join(d, f"n{k}.ini")
            with open(scn, "w") as f:
                f.write(GPU_SCN.format(seed=200 + k, util=util))
            specs.append((scn, ["--interval", "1s", "--job-mapping-dir",
                                job_dir(d, f"same{k}", "4242")], {"pinned": 100}))
        for k in range(3):
            specs.append((os.path.join(d, f"n{k}.ini"),
                          ["--interval", "1s", "--job-mapping-dir",
                           job_dir(d, f"own{k}", f"77{k}")], {"pinned": 100}))
        agents = start_agents(d, specs)
        prom = None
        try:
            hosts = [f"127.0.0.1:{g.port}" for g in agents]
            same = hosts[:3]
            prom, url = start_prometheus(d, hosts)
            scraped(url, hosts, 24)
            wait_until(lambda: len(prom_query(url, "gpumon_gpu_job_info") or []) == 24,
                       "the job series", timeout=60, step=0.5)
            pargs = ["diagnose", "--prometheus", url, "--timeout", "20"]
            rc, out, err = fleet(pargs + ["--json"])
            check_eq(rc, 0, "diagnose --prometheus", err)
            st = json.loads(out)["stragglers"]
            check_eq([(x["cause"], x["job"], x["host"], x["nodes"]) for x in st],
                     [("straggler-node", "hpc:4242", same[2], 3)],
                     "the slow node of job 4242 only (not the independent jobs')", out)
            check(st[0]["node_utilization_percent"] < 30 <= st[0]["others_utilization_percent"],
                  "its utilisation against the others'", st)
            rc, out2, err = fleet(["diagnose", "--hosts", ",".join(hosts), "--timeout", "20",
                                   "--json"])
            check_eq(rc, 0, "diagnose over the agents", err)
            check_eq(json.loads(out2)["stragglers"], st, "the same as over the agents")
            rc, out, err = fleet(pargs)
            check(f"job hpc:4242 on 3 nodes: {same[2]} at 20% GPU utilisation" in out,
                  "text: the straggling node", out)
            check("hpc:77" not in out, "text: no independent job named", out)
        finally:
            stop_all(prom, *agents)


if __name__ == "__main__":
    main([test_views, test_diagnose])

#!/usr/bin/env python3
"""fleet_fds.py -- `gpumon fleet` over more nodes than its limit of open
files allows (docs/fleet.md, "Sources": a connection per node at once).

300 agents answered by bench/fleet_replay.py (one process on 300 loopback
ports, the benchmark's replaying server, here with no latency, none dead
and none hung; the document is fleet_hostile's status_doc).  `fleet
--json` runs with RLIMIT_NOFILE's soft limit at 128 (the hard one as it
is): every node must be ok, none "connection refused" for want of a
descriptor; then with the hard limit at 128 too, where the fetch cannot
raise it: the nodes beyond it wait for a free connection and every node
is still ok.  Nothing is timed.
"""
import json
import os
import resource
import signal
import subprocess
import sys

from agentlib import ROOT, Scratch, check, check_eq, main, wait_until
from fleet_hostile import ALERTS, status_doc
from fleet_lib import GPUMON, sim_env

N = 300
LIMIT = 128


def limit(soft, hard):
    def pre():
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return pre


def replay(d):
    docs = os.path.join(d, "docs")
    os.makedirs(docs)
    with open(os.path.join(docs, "status-0.json"), "w") as f:
        json.dump(status_doc(hostname="replayed", ngpu=2), f)
    with open(os.path.join(docs, "alerts-0.json"), "wb") as f:
        f.write(ALERTS)
    man = os.path.join(d, "manifest.json")
    log = open(os.path.join(d, "replay.log"), "w")
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, "bench", "fleet_replay.py"),
                          "--docs", docs, "--nodes", str(N), "--manifest", man,
                          "--dead-pct", "0", "--hung-pct", "0", "--latency-ms", "0-0"],
                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    log.close()
    wait_until(lambda: os.path.exists(man) or p.poll() is not None, "the replaying server")
    check(p.poll() is None, "fleet_replay.py exited",
          open(os.path.join(d, "replay.log")).read())
    with open(man) as f:
        return p, ["127.0.0.1:%d" % port for port in json.load(f)["ports"]]


def run_fleet(hosts_file, pre):
    p = subprocess.run([GPUMON, "fleet", "--hosts-file", hosts_file, "--json", "--timeout", "40",
                        "--node-timeout", "30"], capture_output=True, env=sim_env(),
                       preexec_fn=pre, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def test_more_nodes_than_descriptors():
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    with Scratch("ff") as d:
        p, hosts = replay(d)
        try:
            hf = os.path.join(d, "hosts.txt")
            with open(hf, "w") as f:
                f.write("\n".join(hosts) + "\n")
            cases = [("soft limit %d" % LIMIT, limit(LIMIT, hard)),
                     ("soft and hard limit %d" % LIMIT, limit(LIMIT, LIMIT))]
            for what, pre in cases:
                rc, out, err = run_fleet(hf, pre)
                check_eq(rc, 0, f"{what}: exit status", err)
                nodes = json.loads(out)["nodes"]
                check_eq([x["host"] for x in nodes], hosts, f"{what}: all {N} nodes, in order")
                bad = [(x["host"], x["state"], x["reason"]) for x in nodes if x["state"] != "ok"]
                check_eq(len(bad), 0, f"{what}: nodes not ok (the first five: {bad[:5]})")
                check_eq(sum(len(x["gpus"]) for x in nodes), 2 * N, f"{what}: every GPU")
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(30)


if __name__ == "__main__":
    main([test_more_nodes_than_descriptors])

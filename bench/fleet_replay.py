#!/usr/bin/env python3
"""fleet_replay.py -- many gpumon agents in one process, for the fleet
benchmark (docs/BENCHMARKS.md, "Fleet").

    fleet_replay.py --docs DIR --nodes N --manifest JSON [--dead-pct 5]
                    [--hung-pct 5] [--latency-ms 1-50] [--seed 27]

Listens on N loopback ports (each a port the kernel hands out) and answers
each as one agent would: GET /api/v1/status and /api/v1/alerts with the
documents recorded from real `gpumon serve` agents (DIR holds
status-K.json and alerts-K.json, K = 0, 1, ...; port i answers with the
pair i mod K), HTTP/1.1 with keep-alive, gzip when the client accepts it
(as the agent does), after the port's own latency (drawn once per port,
uniform in the --latency-ms range).  The documents' `time_unix_ns` is set
to now once a second, so that no node reads as stale however long the
benchmark runs; everything else is the agent's text byte for byte.

Of the N ports, --dead-pct percent are bound and not listening (the
kernel refuses a connection to them: a dead agent) and --hung-pct percent
accept connections and never answer (a hung agent).  Which ports are which
is drawn with --seed and written, once every port is listening, to
--manifest: {"ports": [...], "kind": ["ok"|"dead"|"hung", ...],
"doc": [K, ...], "latency_ms": [...], "pid": PID}.  Then it serves until
SIGTERM or SIGINT and exits 0.  Standard library only; one process, one
asyncio loop; RLIMIT_NOFILE is raised to its hard limit (two descriptors
per port, and one per connection).
"""
import argparse
import asyncio
import gzip
import json
import os
import random
import resource
import signal
import socket
import sys
import time


def die(msg):
    sys.exit("fleet_replay: " + msg)


class Docs:
    """The recorded documents, re-stamped once a second: per path and K,
    the plain body and its gzip."""

    def __init__(self, d):
        self.status, self.alerts = [], []
        k = 0
        while os.path.exists(os.path.join(d, "status-%d.json" % k)):
            with open(os.path.join(d, "status-%d.json" % k), "rb") as f:
                self.status.append(json.loads(f.read()))
            with open(os.path.join(d, "alerts-%d.json" % k), "rb") as f:
                self.alerts.append(f.read())
            k += 1
        if not k:
            die("no status-0.json in %s" % d)
        self.n = k
        self.body = {}
        self.restamp()

    def restamp(self):
        now = time.time_ns()
        body = {}
        for k, doc in enumerate(self.status):
            doc["time_unix_ns"] = now
            raw = json.dumps(doc, separators=(",", ":")).encode()
            body[("/api/v1/status", k)] = (raw, gzip.compress(raw, 6))
        for k, raw in enumerate(self.alerts):
            body[("/api/v1/alerts", k)] = (raw, gzip.compress(raw, 6))
        self.body = body


def response(status, body, gz, ctype="application/json"):
    head = ["HTTP/1.1 %s" % status, "Content-Type: %s" % ctype,
            "Content-Length: %d" % len(body), "Vary: Accept, Accept-Encoding"]
    if gz:
        head.append("Content-Encoding: gzip")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def serve_ok(reader, writer, docs, k, latency):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            path = parts[1].split("?", 1)[0] if len(parts) >= 2 else ""
            accept_gz = any(ln.lower().startswith("accept-encoding:") and "gzip" in ln.lower()
                            for ln in lines[1:])
            await asyncio.sleep(latency)
            got = docs.body.get((path, k))
            if got is None:
                writer.write(response("404 Not Found", b'{"error":"not found"}', False))
            else:
                writer.write(response("200 OK", got[1] if accept_gz else got[0], accept_gz))
            await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    finally:
        writer.close()


async def serve_hung(reader, writer):
    try:
        while await reader.read(65536):
            pass  # read and never answer
    except ConnectionError:
        pass
    finally:
        writer.close()


async def run(a, docs):
    rng = random.Random(a.seed)
    lo, hi = (float(x) for x in a.latency_ms.split("-"))
    n = a.nodes
    kinds = ["ok"] * n
    idx = list(range(n))
    rng.shuffle(idx)
    ndead = round(n * a.dead_pct / 100)
    nhung = round(n * a.hung_pct / 100)
    for i in idx[:ndead]:
        kinds[i] = "dead"
    for i in idx[ndead:ndead + nhung]:
        kinds[i] = "hung"
    lat = [round(rng.uniform(lo, hi), 3) for _ in range(n)]
    ports, keep, servers = [], [], []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        if kinds[i] == "dead":
            keep.append(s)  # bound, never listening: connections are refused
            continue
        s.listen(128)
        s.setblocking(False)
        if kinds[i] == "hung":
            cb = serve_hung
        else:
            def cb(r, w, k=i % docs.n, lt=lat[i] / 1000):
                return serve_ok(r, w, docs, k, lt)
        servers.append(await asyncio.start_server(cb, sock=s))
    man = {"ports": ports, "kind": kinds, "doc": [i % docs.n for i in range(n)],
           "latency_ms": lat, "pid": os.getpid()}
    tmp = a.manifest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(man, f)
    os.rename(tmp, a.manifest)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except asyncio.TimeoutError:
            docs.restamp()
    for s in servers:
        s.close()
    for s in keep:
        s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", required=True)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--dead-pct", type=float, default=5)
    ap.add_argument("--hung-pct", type=float, default=5)
    ap.add_argument("--latency-ms", default="1-50")
    ap.add_argument("--seed", type=int, default=27)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 3 * a.nodes + 64
    if soft < need:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))
        except (ValueError, OSError) as e:
            die("cannot raise RLIMIT_NOFILE to %d: %s" % (need, e))
        if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < need:
            die("RLIMIT_NOFILE's hard limit %d is under the %d descriptors %d ports need"
                % (hard, need, a.nodes))
    asyncio.run(run(a, Docs(a.docs)))


if __name__ == "__main__":
    main()

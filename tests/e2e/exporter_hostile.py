#!/usr/bin/env python3
"""Hostile requests to the exporter's HTTP server (issue 23, points 2 and 8).

  nul: a %00 anywhere in the request target is refused with 400 (docs/api.md:
      malformed input), not cut there: /api/v1/status%00, /metrics%00.txt,
      since=1m%00junk, a %00 in a parameter's name; %2500 (a literal
      "%00" after decoding) is an ordinary unknown path (404).  The
      connection is still answered after it.
  many_params: 500 and 5000 '&' in a query (and 500 "a=1&" pairs) get an
      answer, 400 or 414, at once rather than a closed connection or the
      connection timeout; a request with a few parameters still gets 200.
  host: DNS rebinding.  Without auth, the agent answers only Host values
      that name it: its address with and without the port, any IP literal
      ([::1] bracket forms too), localhost, the host name (gethostname, any
      case, a trailing dot) and names in allowed-hosts; any other name is
      421 on every endpoint (a JSON error under /api/), so a web page that
      rebinds its name to 127.0.0.1 cannot read the API.  A request without
      Host (HTTP/1.0) is answered.  allowed-hosts = * turns the check off.
      With basic auth in the web config, the check is off (the credentials
      are the defence): a foreign name with the right password gets 200.
  command_lines: the unauthenticated /api/v1/status leaves each process's
      command line out ("command": null, reason "withheld" in its
      "unavailable"); with basic auth it has them, as `status --json` does.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import socket
import subprocess
import time

from agentlib import check, check_eq, main
from exporter_lib import Gpumon, Scratch, basic, bcrypt_hash, get, sim_env, stop_all

TRAINING = ("h100x8-training.ini", 100)


def raw(port, request, timeout=20):
    """Sends request bytes, returns what the server sends until it closes or
    has sent one whole response (a Content-Length body), and the seconds it
    took."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(request)
        data = b""
        while True:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            if not b:
                break
            data += b
            head, sep, body = data.partition(b"\r\n\r\n")
            if sep:
                for line in head.split(b"\r\n")[1:]:
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length" and len(body) >= int(v):
                        return data, time.monotonic() - t0
        return data, time.monotonic() - t0
    finally:
        s.close()


def status_of(resp):
    line = resp.split(b"\r\n", 1)[0]
    parts = line.split()
    return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None


def test_nul():
    with Scratch("nul") as d:
        g = Gpumon(d, sim_env(*TRAINING))
        try:
            g.start()
            for path in ("/api/v1/status%00", "/metrics%00.txt", "/%00",
                         "/api/v1/history?since=1m%00junk", "/api/v1/history?since%00x=1m",
                         "/api/v1/history?metric=power_draw_watts%00&since=1m",
                         "/metrics?x=%00"):
                r = g.get(path)
                check_eq(r.status, 400, f"GET {path}", r.text[:300])
                check("NUL" in r.text or "%00" in r.text, f"GET {path}: the reason", r.text)
                if path.startswith("/api/"):
                    doc = json.loads(r.body)
                    check_eq(doc["status"], 400, f"GET {path}: JSON status", doc)
            check_eq(g.get("/api/v1/history?since=1m").status, 200, "since=1m")
            check_eq(g.get("/%2500").status, 404, "GET /%2500 (a literal %00)")
            check_eq(g.get("/api/v1/status").status, 200, "after the refusals")
        finally:
            stop_all(g)


def test_many_params():
    with Scratch("amp") as d:
        g = Gpumon(d, sim_env(*TRAINING))
        try:
            g.start()
            for what, q in (("500 '&'", "&" * 500), ("5000 '&'", "&" * 5000),
                            ("500 pairs", "a=1&" * 500), ("500 '&' on /metrics", None)):
                path = "/metrics?" + "&" * 500 if q is None else "/api/v1/history?" + q
                resp, took = raw(g.port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                 .encode())
                st = status_of(resp)
                check(st in (400, 414), f"{what}: status {st} after {took:.1f} s, want 400 or 414",
                      resp[:300], g.log())
            check_eq(g.get("/api/v1/history?since=1m&id=0&metric=power.draw").status, 200,
                     "three parameters")
            check_eq(g.get("/metrics").status, 200, "/metrics afterwards")
        finally:
            stop_all(g)


ENDPOINTS = ("/metrics", "/healthz", "/", "/static/live.js", "/api/v1/status",
             "/api/v1/history?since=1m", "/api/v1/alerts", "/nope")


def test_host():
    """The default: no allowed-hosts."""
    with Scratch("host") as d:
        g = Gpumon(d, sim_env(*TRAINING))
        try:
            g.start()
            port = g.port
            name = socket.gethostname()
            for host in ("127.0.0.1", f"127.0.0.1:{port}", "10.1.2.3:9100", "[::1]",
                         f"[::1]:{port}", "[fe80::1]:80", "localhost", f"localhost:{port}",
                         "LOCALHOST.", name, name.upper(), name + ".", f"{name}:{port}",
                         name.split(".")[0]):
                for path in ENDPOINTS[:2] + ENDPOINTS[4:5]:
                    r = g.get(path, headers={"Host": host})
                    check_eq(r.status, 200, f"GET {path} with Host {host!r}", r.text[:300])
            for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example",
                         "localhost.evil.example", f"{name}.evil.example", "gpu-node.example",
                         "", "::1", "[::1", "[::1]x", "[evil]:80", f"127.0.0.1:{port}x",
                         "127.0.0.1:", "localhost:123456", "1.2.3", "*"):
                for path in ENDPOINTS:
                    r = g.get(path, headers={"Host": host})
                    check_eq(r.status, 421, f"GET {path} with Host {host!r}", r.text[:300])
                    if path.startswith("/api/"):
                        doc = json.loads(r.body)
                        check_eq(doc["status"], 421, f"GET {path}: JSON status", doc)
                        check("misdirected" in doc["error"], f"GET {path}: JSON error", doc)
                    else:
                        check("misdirected request: Host" in r.text, f"GET {path}: reason", r.text)
            # the client's text is quoted as one sanitised line
            resp, _ = raw(port, b"GET /healthz HTTP/1.1\r\nHost: ev\x1b[2Jil\xff\r\n\r\n")
            check_eq(status_of(resp), 421, "a Host with an escape sequence", resp[:300])
            check(b"\x1b" not in resp and b"\xff" not in resp, "raw bytes of Host echoed", resp)
            # HTTP/1.0 without Host: no browser sends that, so it is answered
            resp, _ = raw(port, b"GET /healthz HTTP/1.0\r\n\r\n")
            check_eq(status_of(resp), 200, "HTTP/1.0 without Host", resp[:300])
        finally:
            stop_all(g)


def test_allowed_hosts():
    with Scratch("ahost") as d:
        g = Gpumon(d, sim_env(*TRAINING),
                   ["--allowed-hosts", " gpu-node.example, Metrics.Example.ORG. "])
        try:
            g.start()
            port = g.port
            for host in ("gpu-node.example", f"metrics.example.org:{port}",
                         "METRICS.example.org.", "localhost", "127.0.0.1"):
                r = g.get("/api/v1/status", headers={"Host": host})
                check_eq(r.status, 200, f"allowed-hosts: Host {host!r}", r.text[:300])
            for host in ("evil.example", "gpu-node.example.evil", "example.org", "node.example"):
                r = g.get("/api/v1/status", headers={"Host": host})
                check_eq(r.status, 421, f"allowed-hosts: Host {host!r}", r.text[:300])
        finally:
            stop_all(g)
        # * turns the check off
        g = Gpumon(d, sim_env(*TRAINING), ["--allowed-hosts", "*"])
        try:
            g.start()
            r = g.get("/api/v1/status", headers={"Host": "evil.example"})
            check_eq(r.status, 200, "allowed-hosts = *: Host evil.example", r.text[:300])
        finally:
            stop_all(g)
        # bad names are refused where the config is read
        rc = subprocess.run([os.environ["GPUMON"], "serve", "--no-config", "--allowed-hosts",
                             "ok.example,bad/name"], env=sim_env(*TRAINING),
                            capture_output=True, timeout=60)
        check(rc.returncode != 0 and b"allowed-hosts" in rc.stderr and b"bad/name" in rc.stderr,
              "allowed-hosts with a bad name", rc.returncode, rc.stderr)


def test_host_auth():
    """With basic auth the credentials are the defence: no Host check."""
    with Scratch("hauth") as d:
        web = os.path.join(d, "web.yml")
        with open(web, "w") as f:
            f.write(f"basic_auth_users:\n  prom: {bcrypt_hash('right pass', cost=4)}\n")
        g = Gpumon(d, sim_env(*TRAINING), ["--web-config", web])
        try:
            g.start(ready=False)
            r = wait_auth(g, "/api/v1/status", {"Host": "evil.example",
                                                **basic("prom", "right pass")})
            check_eq(r.status, 200, "basic auth, Host evil.example", r.text[:300], g.log())
            r = g.get("/api/v1/status", headers={"Host": "evil.example"})
            check_eq(r.status, 401, "no credentials, Host evil.example", r.text[:300])
        finally:
            stop_all(g)


def rank_proc(d):
    """A process named train_rank whose command line holds a secret."""
    link = os.path.join(d, "train_rank")
    os.symlink(subprocess.check_output(["sh", "-c", "command -v sleep"]).decode().strip(), link)
    return subprocess.Popen(["python3 train.py --db-password=hunter2-SECRET", "600"],
                            executable=link)


def rank0_commands(body, pid):
    doc = json.loads(body)
    procs = [p for p in doc["gpus"][0]["processes"] if p["pid"] == pid]
    check_eq(len(procs), 1, f"pid {pid} on GPU 0", doc["gpus"][0]["processes"])
    return procs[0]


def test_command_lines():
    with Scratch("cmd") as d:
        proc = rank_proc(d)
        g = None
        try:
            env = sim_env(*TRAINING, GPUSIM_PID_RANK0=proc.pid)
            g = Gpumon(d, env)
            g.start()
            r = g.get("/api/v1/status")
            check_eq(r.status, 200, "/api/v1/status", r.text[:300])
            check(b"hunter2" not in r.body, "a command line in the unauthenticated API")
            p = rank0_commands(r.body, proc.pid)
            check_eq(p["command"], None, "command without auth")
            check_eq(p["unavailable"].get("command"), "withheld", "its reason", p)
            check_eq(p["name"], "python3", "the process name is still there", p)
            stop_all(g)
            # the local `status --json` is another matter: the user's own terminal
            out = subprocess.run([os.environ["GPUMON"], "status", "--json"], env=env,
                                 capture_output=True, timeout=60).stdout
            check("hunter2-SECRET" in (rank0_commands(out, proc.pid)["command"] or ""),
                  "status --json has the command line", out[:300])
            # opted in
            g = Gpumon(d, env, ["--api-command-lines"])
            g.start()
            p = rank0_commands(g.get("/api/v1/status").body, proc.pid)
            check("--db-password=hunter2-SECRET" in (p["command"] or ""),
                  "api-command-lines: the command line", p)
            stop_all(g)
            # basic auth
            web = os.path.join(d, "web.yml")
            with open(web, "w") as f:
                f.write(f"basic_auth_users:\n  prom: {bcrypt_hash('right pass', cost=4)}\n")
            g = Gpumon(d, env, ["--web-config", web])
            g.start(ready=False)
            r = wait_auth(g, "/api/v1/status", basic("prom", "right pass"))
            p = rank0_commands(r.body, proc.pid)
            check("--db-password=hunter2-SECRET" in (p["command"] or ""),
                  "basic auth: the command line", p)
        finally:
            stop_all(g)
            proc.kill()
            proc.wait()


def wait_auth(g, path, headers, timeout=30):
    """The first 200 for path with headers (bcrypt runs on the verifier)."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = g.get(path, headers=headers)
            if last.status == 200:
                return last
        except OSError as e:
            last = e
        time.sleep(0.1)
    check(False, f"{path}: no 200 within {timeout} s (last {last!r})", g.log())


if __name__ == "__main__":
    main([test_nul, test_many_params, test_host, test_allowed_hosts, test_host_auth,
          test_command_lines])

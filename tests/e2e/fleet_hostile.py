#!/usr/bin/env python3
"""fleet_hostile.py -- `gpumon fleet` against hostile and broken nodes
(docs/fleet.md, "Security model").  Fake agents (the standard library's
http.server, in this process, each on a free loopback port) answer:

  oversized   a status document larger than the 16 MiB cap
  invalid     text that is not JSON
  names       a valid document whose host, GPU, process and user names
              hold ESC sequences, BEL, invalid UTF-8 and a bidi override
  slow        one byte a second
  redirect    302 to another fake server (which must never be asked)
  million     a document claiming 10^6 GPUs
  auth        401 to everything, with the credentials of the request echoed

Each case is run beside a good fake node: the bad node is marked with its
state and reason, the good one is ok with its GPU, the output holds no
control character in text and is valid JSON; the basic-auth password sent
is in no output.
"""
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agentlib import check, check_eq, main
from fleet_lib import by_host, fleet

PASSWORD = "Tr0ub4dor-fleet-pw"


def status_doc(hostname="good", gpu_name="NVIDIA H100 80GB HBM3", proc="python3",
               user="alice", ngpu=1):
    gpus = [{"index": i, "status": "ok", "name": gpu_name, "uuid": f"GPU-0000000{i}",
             "utilization_gpu_percent": 50, "memory_total_bytes": 100,
             "memory_used_bytes": 10, "memory_free_bytes": 90,
             "processes": [{"pid": 7, "type": "C", "name": proc, "user": user,
                            "used_memory_bytes": 10}]} for i in range(ngpu)]
    return {"schema": "gpumon.status/1", "hostname": hostname,
            "time_unix_ns": time.time_ns(), "driver": {"status": "ok"}, "gpus": gpus}


ALERTS = b'{"schema":"gpumon.alerts/1","enabled":true,"count":0,"alerts":[]}'


class Fake:
    """A fake agent on a free port; mode says how it answers."""

    def __init__(self, mode, body=None):
        self.mode = mode
        self.body = body
        self.hits = []
        fake = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                fake.hits.append((self.path, self.headers.get("Authorization")))
                fake.answer(self)

        class S(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True
        self.srv = S(("127.0.0.1", 0), H)
        self.port = self.srv.server_address[1]
        self.host = f"127.0.0.1:{self.port}"
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def answer(self, h):
        try:
            if self.mode == "redirect":
                h.send_response(302)
                h.send_header("Location", self.body)
                h.send_header("Content-Length", "0")
                h.end_headers()
                return
            if self.mode == "auth":
                h.send_response(401)
                msg = f"bad credentials {h.headers.get('Authorization')}".encode()
                h.send_header("WWW-Authenticate", 'Basic realm="x"')
                h.send_header("Content-Length", str(len(msg)))
                h.end_headers()
                h.wfile.write(msg)
                return
            body = ALERTS if h.path == "/api/v1/alerts" else self.body
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            if self.mode == "slow":
                for i in range(len(body)):
                    h.wfile.write(body[i:i + 1])
                    h.wfile.flush()
                    time.sleep(1)
            else:
                h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def good_body():
    return json.dumps(status_doc()).encode()


def run_case(bad, extra=()):
    """Runs fleet over [good, bad] as text and JSON; checks the good node and
    the outputs' hygiene; returns (the bad node's JSON, text output)."""
    good = Fake("ok", good_body())
    try:
        env = dict(os.environ, FLEET_PW=PASSWORD)
        args = ["--hosts", f"{good.host},{bad.host}", "--timeout", "4", "--node-timeout", "3",
                "--user", "lab", "--password-env", "FLEET_PW"] + list(extra)
        rc, out, err = fleet(args + ["--json"], env)
        check_eq(rc, 0, "exit status (the good node answers)", err)
        doc = json.loads(out)
        n = by_host(doc)
        check_eq(n[good.host]["state"], "ok", "the good node beside the bad one", n[good.host])
        check_eq(len(n[good.host]["gpus"]), 1, "the good node's GPU")
        prc, text, perr = fleet(args, env)
        for what, o in (("json", out + err), ("text", text + perr)):
            check(PASSWORD not in o, f"{what}: the password is never printed", o[:400])
            check(not any(c < " " and c != "\n" for c in o), f"{what}: no control character",
                  repr(o[:600]))
        return n[bad.host], text
    finally:
        good.close()


def test_oversized():
    bad = Fake("ok", b'{"schema":"gpumon.status/1","pad":"' + b"x" * (17 << 20) + b'"}')
    try:
        node, _ = run_case(bad)
        check_eq((node["state"], node["reason"]), ("invalid", "answer larger than the cap"),
                 "17 MiB answer", node)
    finally:
        bad.close()


def test_invalid_json():
    bad = Fake("ok", b"<html><body>It works!</body></html>")
    try:
        node, _ = run_case(bad)
        check_eq((node["state"], node["reason"]),
                 ("invalid", "/api/v1/status is not JSON: offset 0: not a JSON value"),
                 "HTML instead of JSON", node)
    finally:
        bad.close()


def test_names():
    evil = "\x1b[2J\x1b]0;pwned\x07ev\u202eil"
    raw = json.dumps(status_doc(hostname="host" + evil, gpu_name="GPU" + evil,
                                proc="proc" + evil, user="user" + evil),
                     ensure_ascii=False).encode()
    raw = raw.replace(b"ev", b"\xff\xfeev")  # invalid UTF-8 bytes in every name
    bad = Fake("ok", raw)
    try:
        node, text = run_case(bad, ["--gpus"])
        check_eq(node["state"], "ok", "a node with hostile names is read", node)
        check(node["hostname"].startswith("host\x1b[2J"), "JSON keeps the name (escaped)",
              node["hostname"])
        check("\ufffd" in node["gpus"][0]["name"], "invalid UTF-8 as U+FFFD in JSON",
              node["gpus"][0]["name"])
        check_eq(node["gpus"][0]["users"][0][:4], "user", "the user in JSON")
        check("GPU\ufffd[2J" in text and "user\ufffd[2J" in text, "text: ESC as U+FFFD", text)
        check("\u202e" not in text, "text: the bidi override replaced", text)
    finally:
        bad.close()


def test_slow():
    bad = Fake("slow", good_body())
    try:
        node, _ = run_case(bad)
        check_eq((node["state"], node["reason"]), ("unreachable", "timeout"),
                 "one byte a second", node)
    finally:
        bad.close()


def test_redirect():
    target = Fake("ok", good_body())
    bad = Fake("redirect", f"http://{target.host}/api/v1/status")
    try:
        node, _ = run_case(bad)
        check_eq((node["state"], node["reason"]),
                 ("invalid", "HTTP 302: a redirect (not followed)"), "a redirect", node)
        check_eq(target.hits, [], "the redirect's target was never asked")
    finally:
        bad.close()
        target.close()


def test_million_gpus():
    body = b'{"schema":"gpumon.status/1","driver":{"status":"ok"},"gpus":[' + \
        b",".join([b"{}"] * 1000000) + b"]}"
    bad = Fake("ok", body)
    try:
        node, _ = run_case(bad)
        check_eq(node["state"], "invalid", "10^6 GPUs", node)
        check(node["reason"].startswith("/api/v1/status refused: offset ") and
              node["reason"].endswith("too many values"), "refused by the value cap", node)
        check_eq(node["gpus"], [], "none of them kept")
    finally:
        bad.close()


def test_auth():
    bad = Fake("auth")
    try:
        node, _ = run_case(bad)
        check_eq((node["state"], node["reason"]),
                 ("unreachable", "401: unauthorized (basic auth)"), "401", node)
        check(bad.hits and bad.hits[0][1].startswith("Basic "),
              "the credentials were sent (and must not be printed)", bad.hits)
    finally:
        bad.close()


if __name__ == "__main__":
    main([test_oversized, test_invalid_json, test_names, test_slow, test_redirect,
          test_million_gpus, test_auth])

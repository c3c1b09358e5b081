#!/usr/bin/env python3
"""prometheus_lib.Prometheus, the one way the tests start a real Prometheus,
against the race it exists for: the port free_port() chose is taken before
Prometheus binds it (tests run in parallel).  free_port is made to hand out
a taken port first:

  taken_by_listener: a socket listens there and never answers: Prometheus
      logs "address already in use" and exits, the helper starts it again on
      another port, where it is ready (its own /-/ready) and scrapes;
  taken_by_http: another HTTP server there answers 200 to every path: its
      answers are not taken for Prometheus' readiness;
  config_error: a Prometheus that fails for another reason (a configuration
      it refuses) fails the start at once with its log, on one port, not
      after retries.

Skipped without the prometheus binary.  Environment from meson: GPUMON,
SIM_LIB, SOURCE_ROOT.
"""
import http.server
import json
import socket
import threading
import urllib.request

import prometheus_lib
from agentlib import Fail, check, check_eq, main, wait_until
from exporter_lib import Scratch, free_port, need
from prometheus_lib import Prometheus

CONFIG = "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"


class Ports:
    """Stands in for prometheus_lib.free_port: hands out `first`, then free
    ports; counts the calls."""

    def __init__(self, first):
        self.first, self.calls = first, 0

    def __call__(self):
        self.calls += 1
        return self.first if self.calls == 1 else free_port()

    def __enter__(self):
        self.saved = prometheus_lib.free_port
        prometheus_lib.free_port = self
        return self

    def __exit__(self, *exc):
        prometheus_lib.free_port = self.saved


def query(url, q):
    try:
        with urllib.request.urlopen(f"{url}/api/v1/query?query={q}", timeout=10) as r:
            return json.load(r)["data"]["result"]
    except OSError:
        return None


def start_beside(d, taken, what):
    """Starts Prometheus while free_port's first port is `taken`; checks it
    moved to another port and works there; returns it (running)."""
    with Ports(taken) as ports:
        p = Prometheus(d, CONFIG)
        try:
            p.start()
        except Fail:
            p.cleanup()
            raise
    check(ports.calls >= 2, f"{what}: Prometheus started on the taken port {taken}", p.log())
    check(p.port != taken, f"{what}: the port is still the taken one", p.log())
    check(p.alive(), f"{what}: Prometheus is not running", p.log())
    check("address already in use" in p.log(), f"{what}: no first try on the taken port in "
          "the log", p.log())
    with urllib.request.urlopen(p.url + "/-/ready", timeout=10) as r:
        check_eq((r.status, r.read()), (200, b"Prometheus Server is Ready.\n"),
                 f"{what}: /-/ready on the port the helper gives")
    got = wait_until(lambda: query(p.url, "vector(7)"), f"{what}: Prometheus answering "
                     "queries on its port")
    check_eq(got[0]["value"][1], "7", f"{what}: the query's answer", got)
    return p


def test_taken_by_listener():
    need("prometheus")
    with Scratch("ppl") as d:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("127.0.0.1", 0))
            s.listen(16)
            p = start_beside(d, s.getsockname()[1], "a listener on the port")
            check_eq(p.stop(), 0, "Prometheus' exit status after SIGTERM", p.log())
            p.cleanup()
        finally:
            s.close()


def test_taken_by_http():
    need("prometheus")

    class Any(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"ok\n")

        def log_message(self, *args):
            pass

    with Scratch("pph") as d:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Any)
        th = threading.Thread(target=srv.serve_forever, daemon=True)
        th.start()
        try:
            p = start_beside(d, srv.server_address[1], "an HTTP server on the port")
            check_eq(p.stop(), 0, "Prometheus' exit status after SIGTERM", p.log())
            p.cleanup()
        finally:
            srv.shutdown()
            srv.server_close()


def test_config_error():
    need("prometheus")
    with Scratch("ppc") as d:
        with Ports(free_port()) as ports:
            p = Prometheus(d, "global:\n  scrape_interval: not-a-duration\n")
            try:
                p.start()
                raise AssertionError("started with a configuration it refuses")
            except Fail as e:
                msg = str(e)
            finally:
                p.cleanup()
        check_eq(ports.calls, 1, "ports tried for a configuration error", msg)
        check("prometheus exited" in msg and "not-a-duration" in msg,
              "the failure says that Prometheus exited, with its log", msg)


if __name__ == "__main__":
    main([test_taken_by_listener, test_taken_by_http, test_config_error])

"""Helpers for the notifier's end-to-end tests (tests/e2e/notify_*.py).

The tests drive the notifier through tests/e2e/notify_driver.c (a small
program around src/alert/notify.h: config sections in, alerts and stats
over a pipe) against real peers on loopback: Python HTTP(S) servers that
record what they get or answer 500, refuse with a chat-bot errcode, or never
answer at all; and a real Alertmanager (Debian's prometheus-alertmanager).

Failures, skips and the runner come from agentlib.py; ports and TLS
material from exporter_lib.py.  Every process and server a test starts is
stopped in a finally: block.

Environment (set by tests/e2e/meson.build): NOTIFY_DRIVER, and
GPUMON_NOTIFY_MODULE for the HTTP module (gpumon_notify.so).
"""
import http.server
import json
import os
import select
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
import urllib.request

from agentlib import Fail, Skip, check, main  # noqa: F401 (re-exported)
from exporter_lib import Scratch, free_port, make_pki, need, openssl  # noqa: F401

DRIVER = os.environ.get("NOTIFY_DRIVER", "")


# ------------------------------------------------------------ the driver

class Driver:
    """notify_driver with the config text given; commands answer one JSON
    line each."""

    def __init__(self, scratch, ini, queue=64, tag="d"):
        if not os.access(DRIVER, os.X_OK):
            raise Fail(f"NOTIFY_DRIVER {DRIVER!r} is not built")
        self.ini = os.path.join(scratch, f"{tag}.ini")
        self.log_path = os.path.join(scratch, f"{tag}-alerts.jsonl")
        self.err_path = os.path.join(scratch, f"{tag}.stderr")
        with open(self.ini, "w") as f:
            f.write(ini)
        self.err = open(self.err_path, "w")
        self.p = subprocess.Popen([DRIVER, self.log_path, self.ini, str(queue)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True)
        first = self._read(30)
        check(first.get("started"), "the driver did not start", self.stderr())

    def stderr(self):
        self.err.flush()
        with open(self.err_path) as f:
            return f.read()[-6000:]

    def _read(self, timeout):
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            raise Fail(f"the driver did not answer within {timeout} s\n{self.stderr()}")
        line = self.p.stdout.readline()
        if not line:
            raise Fail(f"the driver exited ({self.p.wait()})\n{self.stderr()}")
        return json.loads(line)

    def cmd(self, line, timeout=60):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self._read(timeout)

    def send(self, **alert):
        return self.cmd("send " + enc(alert))

    def burst(self, n, **alert):
        return self.cmd(f"burst {n} " + enc(alert))

    def cadence(self, n, period_ms, **alert):
        return self.cmd(f"cadence {n} {period_ms} " + enc(alert), timeout=n * period_ms / 1e3 + 60)

    def stats(self):
        return self.cmd("stats")["channels"]

    def wait(self, name, field, n, timeout_s=30):
        r = self.cmd(f"wait {name} {field} {n} {int(timeout_s * 1000)}", timeout=timeout_s + 30)
        return r["ok"], r["channels"]

    def must_wait(self, name, field, n, timeout_s=30):
        ok, st = self.wait(name, field, n, timeout_s)
        check(ok, f"{name}: {field} did not reach {n} within {timeout_s} s", st, self.stderr())
        return st

    def stop(self, timeout_ms=5000):
        """Stops the notifier; the driver must then exit 0 with no sanitizer
        report (in an ASan/UBSan build: no leak, no undefined behaviour)."""
        r = self.cmd(f"stop {timeout_ms}", timeout=timeout_ms / 1e3 + 60)
        rc = self.p.wait(timeout=30)
        err = self.stderr()
        check(rc == 0, f"the driver exited with {rc}", err)
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            check(bad not in err, f"sanitizer report: {bad}", err)
        return r

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.err.close()

    def log_lines(self):
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path) as f:
            return [json.loads(line) for line in f]


def enc(alert):
    return " ".join(f"{k}={urllib.parse.quote(str(v), safe='')}" for k, v in alert.items())


# ----------------------------------------------------------- HTTP peers

class Request:
    def __init__(self, path, headers, body):
        self.t = time.monotonic()
        self.path = path
        self.headers = headers
        self.body = body

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise Fail(f"{self.path}: body is not JSON ({e}): {self.body[:400]!r}")


class Peer:
    """A recording HTTP(S) server.  Paths: /ok (200), /flaky (500 once, then
    200), /errcode (200 with a DingTalk-style refusal), /redirect (302).
    Pass tls=(cert, key) for HTTPS."""

    def __init__(self, tls=None):
        peer = self
        self.requests = []
        self.lock = threading.Lock()
        self.flaky_seen = 0

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n).decode("utf-8", "replace")
                with peer.lock:
                    peer.requests.append(Request(self.path, dict(self.headers), body))
                    flaky = peer.flaky_seen
                    if self.path.startswith("/flaky"):
                        peer.flaky_seen += 1
                if self.path.startswith("/flaky") and flaky == 0:
                    self.reply(500, b"try again later")
                elif self.path.startswith("/errcode"):
                    self.reply(200, b'{"errcode":310000,"errmsg":"keywords not in content"}')
                elif self.path.startswith("/redirect"):
                    self.send_response(302)
                    self.send_header("Location", "/ok")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self.reply(200, b'{"errcode":0,"errmsg":"ok"}')

            def reply(self, code, body):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.srv.daemon_threads = True
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(tls[0], tls[1])
            self.srv.socket = ctx.wrap_socket(self.srv.socket, server_side=True)
        self.port = self.srv.server_address[1]
        self.scheme = "https" if tls else "http"
        self.thread = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def got(self, prefix):
        with self.lock:
            return [r for r in self.requests if r.path.startswith(prefix)]

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


class Silent:
    """A TCP port that accepts connections (the kernel completes the
    handshake into the backlog) and never reads or answers."""

    def __init__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(512)
        self.port = self.s.getsockname()[1]

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def wait_connected(self, timeout=60):
        """Waits until a client's connection sits in the backlog (the
        listening socket turns readable), without accepting it."""
        r, _, _ = select.select([self.s], [], [], timeout)
        check(r, f"no connection to the silent server within {timeout} s")

    def close(self):
        self.s.close()


# ---------------------------------------------------------- Alertmanager

AM_CONFIG = """route:
  receiver: 'null'
  group_wait: 1s
  group_interval: 1s
receivers:
- name: 'null'
"""


class Alertmanager:
    """Debian's prometheus-alertmanager on a free loopback port, clustering
    off, its storage in the scratch directory."""

    def __init__(self, scratch):
        (am,) = need_am()
        cfg = os.path.join(scratch, "am.yml")
        with open(cfg, "w") as f:
            f.write(AM_CONFIG)
        self.log_path = os.path.join(scratch, "am.log")
        self.logf = open(self.log_path, "w")
        # free_port's port may be taken by another test before Alertmanager
        # binds it (seen: a test's HTTP server answering on it): then
        # Alertmanager exits, and another port is tried
        for attempt in range(5):
            self.port = free_port()
            self.p = subprocess.Popen([am, f"--config.file={cfg}",
                                       f"--storage.path={os.path.join(scratch, 'am-data')}",
                                       f"--web.listen-address=127.0.0.1:{self.port}",
                                       "--cluster.listen-address=", "--log.level=warn"],
                                      stdout=self.logf, stderr=subprocess.STDOUT)
            if self._ready():
                return
            self.p.wait()
            if "address already in use" not in self.log():
                break
        raise Fail(f"alertmanager did not become ready\n{self.log()}")

    def _ready(self):
        """True once this Alertmanager answers (its own status document, not
        whatever else listens there); False when it exited."""
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.url("/api/v2/status"), timeout=2) as r:
                    if r.status == 200 and "versionInfo" in json.loads(r.read()):
                        if self.p.poll() is None:
                            return True
            except (OSError, ValueError):
                pass
            if self.p.poll() is not None:
                return False
            if time.monotonic() > deadline:
                raise Fail(f"alertmanager did not become ready\n{self.log()}")
            time.sleep(0.1)

    def url(self, path=""):
        return f"http://127.0.0.1:{self.port}{path}"

    def log(self):
        self.logf.flush()
        with open(self.log_path) as f:
            return f.read()[-4000:]

    def get_json(self, path):
        with urllib.request.urlopen(self.url(path), timeout=10) as r:
            return json.loads(r.read())

    def alerts(self, query=""):
        return self.get_json("/api/v2/alerts" + query)

    def metric(self, name_and_labels):
        with urllib.request.urlopen(self.url("/metrics"), timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(name_and_labels + " "):
                    return float(line.split()[-1])
        return None

    def close(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.logf.close()


def need_am():
    for name in ("prometheus-alertmanager", "alertmanager"):
        w = shutil.which(name) or (os.path.exists(f"/usr/bin/{name}") and f"/usr/bin/{name}")
        if w:
            return (w,)
    raise Skip("prometheus-alertmanager is not installed (scripts/install-deps.sh installs it)")

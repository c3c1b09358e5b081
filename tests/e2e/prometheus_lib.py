"""A real Prometheus server for the end-to-end tests that need one
(exporter_prometheus.py, fleet_prometheus.py, fleet_report.py, the fleet
tests through fleet_lib.start_prometheus, tests/compat/dcgm_dashboard.py).

One way to start it, as notify_lib.Alertmanager starts Alertmanager: on a
free loopback port, retried on another port when that one was taken between
free_port() and Prometheus' bind (a race between tests run in parallel: it
then logs "address already in use" and exits); ready when its own /-/ready
answers (not whatever else listens on that port); stopped with SIGTERM.  A
Prometheus that fails for any other reason fails the test with its log.  It
does not install Prometheus: without it the test skips (need()).
"""
import os
import time
import urllib.request

from agentlib import DEADLINE, Fail
from exporter_lib import Proc, free_port, need

ATTEMPTS = 5


class Prometheus(Proc):
    """Debian's prometheus with the configuration text `config` (written to
    scratch/prometheus.yml), its TSDB in scratch/tsdb, its log in
    scratch/prometheus.log.  start() returns self once it is ready; port and
    url are set from then on."""

    def __init__(self, scratch, config):
        (binary,) = need("prometheus")
        self.cfg = os.path.join(scratch, "prometheus.yml")
        with open(self.cfg, "w") as f:
            f.write(config)
        self.tsdb = os.path.join(scratch, "tsdb")
        self.port = None
        super().__init__([binary], log=os.path.join(scratch, "prometheus.log"))
        self.binary = binary

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=DEADLINE):
        """Starts it and waits until it is ready (within timeout seconds of
        each try); on a port that was taken meanwhile, tries another, up to
        ATTEMPTS ports."""
        for _ in range(ATTEMPTS):
            self.port = free_port()
            self.argv = [self.binary, f"--config.file={self.cfg}",
                         f"--storage.tsdb.path={self.tsdb}",
                         f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"]
            logged = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
            super().start()
            if self._ready(timeout):
                return self
            self.proc.wait()
            self.logf.close()
            with open(self.log_path, errors="replace") as f:
                f.seek(logged)
                this_try = f.read()
            if "address already in use" not in this_try:
                raise Fail(f"prometheus exited (status {self.proc.returncode}) before it was "
                           f"ready on port {self.port}\n{self.log()}")
        raise Fail(f"prometheus found no free port in {ATTEMPTS} tries\n{self.log()}")

    def _ready(self, timeout):
        """True once this Prometheus answers /-/ready; False when it exited;
        fails after timeout seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=5) as r:
                    if r.status == 200 and b"Prometheus" in r.read() and self.alive():
                        return True
            except OSError:
                pass
            if not self.alive():
                return False
            if time.monotonic() > deadline:
                raise Fail(f"prometheus not ready within {timeout} s on port {self.port}\n"
                           + self.log())
            time.sleep(0.1)

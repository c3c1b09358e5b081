"""Helpers for the exporter's end-to-end tests (tests/e2e/exporter_*.py).

The tests run the built `gpumon serve` / `gpumon agent` against the NVML
simulator on a free loopback port (bound to port 0 first, so tests running
side by side never share one) with a short scratch data directory (the
control socket <data-dir>/agent.sock must fit in 108 bytes), and talk to it
with the standard library's HTTP client, raw sockets and the real peers
Debian ships: promtool, prometheus, prometheus-node-exporter, wrk, curl,
openssl.

Failures, skips and the runner come from agentlib.py (check, Fail, Skip,
main: exit 1 if a test failed, 77 if every test skipped).  Every process a
test starts is stopped in a finally: block (Proc.stop / Proc.cleanup).

Environment (set by tests/e2e/meson.build): GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import gzip
import http.client
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time

from agentlib import DEADLINE, GPUMON, ROOT, Fail, Skip, check, sim_env  # noqa: F401 (re-exported)

SCENARIOS = sorted(n for n in os.listdir(os.path.join(ROOT, "scenarios")) if n.endswith(".ini"))


# ------------------------------------------------------------------ tools

def need(*progs):
    """Raises Skip unless every program is on PATH; returns their paths."""
    paths = []
    for p in progs:
        w = shutil.which(p)
        if not w:
            raise Skip(f"{p} is not installed (scripts/install-deps.sh installs it)")
        paths.append(w)
    return paths


def free_port(family=socket.AF_INET, host="127.0.0.1"):
    """A port the kernel just handed out for host (bound to port 0, then closed)."""
    s = socket.socket(family, socket.SOCK_STREAM)
    try:
        s.bind((host, 0))
        return s.getsockname()[1]
    finally:
        s.close()


def has_ipv6_loopback():
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    except OSError:
        return False
    try:
        s.bind(("::1", 0))
        return True
    except OSError:
        return False
    finally:
        s.close()


class Scratch:
    """A short scratch directory under /tmp, removed on exit (kept when the
    test failed and GPUMON_KEEP is set)."""

    def __init__(self, tag):
        self.path = tempfile.mkdtemp(prefix=f"gx{tag}.", dir="/tmp")

    def __enter__(self):
        return self.path

    def __exit__(self, et, ev, tb):
        if et is not None and os.environ.get("GPUMON_KEEP"):
            print(f"  (kept {self.path})")
            return False
        shutil.rmtree(self.path, ignore_errors=True)
        return False


# ------------------------------------------------------------------ processes

class Proc:
    """A background process with stdout+stderr in a log file."""

    def __init__(self, argv, env=None, log=None, cwd=None):
        self.argv = [str(a) for a in argv]
        self.env = env
        self.cwd = cwd
        self.log_path = log or tempfile.mktemp(prefix="gxlog.", dir="/tmp")
        self.proc = None
        self.logf = None

    def start(self):
        self.logf = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.argv, env=self.env, cwd=self.cwd,
                                     stdin=subprocess.DEVNULL, stdout=self.logf,
                                     stderr=subprocess.STDOUT)
        return self

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self, tail=4000):
        try:
            with open(self.log_path, errors="replace") as f:
                text = f.read()
        except OSError:
            return f"--- no log for {os.path.basename(self.argv[0])} ---"
        return f"--- log of {os.path.basename(self.argv[0])} ---\n" + text[-tail:]

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Sends sig and waits for the exit; returns the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise Fail(f"{self.argv[0]} did not exit within {timeout} s of {sig!r}\n"
                           + self.log())
        if self.logf and not self.logf.closed:
            self.logf.close()
        return self.proc.returncode

    def cleanup(self):
        """For finally: blocks: kills the process if it still runs, removes the log."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.logf and not self.logf.closed:
            self.logf.close()
        if not os.environ.get("GPUMON_KEEP"):
            try:
                os.unlink(self.log_path)
            except OSError:
                pass

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Fail("no VmRSS in /proc/PID/status")


def stop_all(*procs):
    """For finally: blocks: stops every process (SIGTERM, then SIGKILL after
    10 s) even when stopping one fails, then raises the first failure."""
    first = None
    for p in procs:
        if p is None:
            continue
        try:
            p.stop()
        except Exception as e:  # noqa: BLE001 -- stop the others first
            first = first or e
        finally:
            p.cleanup()
    if first is not None:
        raise first


class Gpumon(Proc):
    """`gpumon serve` (or `agent`) on the simulator, listening on a free
    loopback port, or on port / on listen (ADDR:PORT, verbatim) when given.

    scratch: a short directory; the data dir is <scratch>/d<N>."""

    _n = 0

    def __init__(self, scratch, env, args=(), cmd="serve", listen=None, host="127.0.0.1",
                 port=None):
        Gpumon._n += 1
        self.data_dir = os.path.join(scratch, f"d{Gpumon._n}")
        self.host = host
        self.port = port
        if port is not None and listen is None:
            listen = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
        self.explicit_listen = listen
        self.base_args = [GPUMON, cmd, "--no-config", "--data-dir", self.data_dir]
        self.extra = [str(a) for a in args]
        super().__init__(self.base_args + self.extra, env,
                         log=os.path.join(scratch, f"gpumon{Gpumon._n}.log"))

    def start(self, ready=True, timeout=DEADLINE):
        """Starts it (on a fresh port; a port taken in between is retried);
        with ready, waits until /metrics answers 200."""
        for attempt in range(3):
            if self.explicit_listen is not None:
                listen = self.explicit_listen
            else:
                self.port = free_port()
                listen = f"{self.host}:{self.port}"
            self.argv = self.base_args + ["--listen", listen] + self.extra
            super().start()
            if not ready:
                return self
            try:
                self.wait_ready(timeout)
                return self
            except Fail:
                if (self.explicit_listen is None and not self.alive()
                        and "cannot listen" in self.log() and attempt < 2):
                    self.logf.close()
                    continue
                raise
        return self

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    def wait_ready(self, timeout=DEADLINE, path="/metrics", tls=None):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            check(self.alive(), f"gpumon exited ({self.proc.returncode}) before it was ready",
                  self.log())
            try:
                r = get(self.host, self.port, path, tls=tls, timeout=2)
                last = r.status
                if r.status == 200:
                    return r
            except OSError as e:
                last = e
            time.sleep(0.05)
        raise Fail(f"gpumon not ready within {timeout} s (last answer {last!r})\n" + self.log())

    def get(self, path="/metrics", **kw):
        return get(self.host, self.port, path, **kw)


# ------------------------------------------------------------------ HTTP

class Resp:
    def __init__(self, status, headers, body, elapsed):
        self.status = status
        self.headers = headers  # list of (name, value)
        self.body = body
        self.elapsed = elapsed

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    @property
    def text(self):
        return self.body.decode("utf-8", errors="replace")

    def __repr__(self):
        return f"<{self.status} {self.headers} {self.body[:200]!r}>"


def get(host, port, path="/metrics", method="GET", headers=None, tls=None, timeout=30.0):
    """One request on a fresh connection; tls is an ssl.SSLContext or None."""
    t0 = time.monotonic()
    if tls is not None:
        c = http.client.HTTPSConnection(host, port, timeout=timeout, context=tls)
    else:
        c = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        return Resp(r.status, r.getheaders(), body, time.monotonic() - t0)
    finally:
        c.close()


def basic(user, password):
    import base64
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def gunzip(b):
    return gzip.decompress(b)


# ------------------------------------------------------------------ gpumon one-shots

def run_gpumon(args, env, timeout=60):
    p = subprocess.run([GPUMON] + [str(a) for a in args], env=env, capture_output=True,
                       timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def serve_print(env, *args):
    """`gpumon serve --print` -> (rc, stdout, stderr)."""
    return run_gpumon(["serve", "--no-config", "--print"] + list(args), env)


# ------------------------------------------------------------------ exposition

SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_samples(text):
    """[(name, {label: value}, float)] of the sample lines of a text exposition."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE_RE.match(line)
        check(m is not None, "unparsable sample line", line)
        labels = dict(LABEL_RE.findall(m.group(3) or ""))
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def families(text):
    """{name: type} from the # TYPE lines."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^# TYPE (\S+) (\S+)$", text, re.M)}


def promtool_check_metrics(text):
    """(rc, combined output) of `promtool check metrics` on text."""
    (promtool,) = need("promtool")
    p = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True,
                       timeout=60)
    return p.returncode, (p.stdout + p.stderr).decode(errors="replace")


def check_openmetrics(text, where):
    """A small OpenMetrics 1.0 checker (promtool only lints the text format):
    ends with '# EOF\\n' and nothing after; no blank lines; only TYPE/UNIT/HELP
    and EOF comments, at most one of each per family and before its samples;
    families not interleaved; counters declared without _total and sampled
    with _total (or _created); unknown instead of untyped; unique series."""
    check(text.endswith("# EOF\n"), f"{where}: does not end with '# EOF\\n'", repr(text[-100:]))
    lines = text[:-1].split("\n")
    check(lines.count("# EOF") == 1 and lines[-1] == "# EOF", f"{where}: '# EOF' not last/once")
    types = {}
    meta_seen = set()
    closed = set()       # families whose samples are over
    current = None       # family of the previous line
    series = set()
    sampled = set()      # families with samples so far
    for n, line in enumerate(lines[:-1], 1):
        check(line != "", f"{where}:{n}: blank line (not allowed in OpenMetrics)")
        check("\r" not in line, f"{where}:{n}: carriage return")
        if line.startswith("#"):
            m = re.match(r"^# (TYPE|HELP|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*)( .*)?$", line)
            check(m is not None, f"{where}:{n}: a comment that is not TYPE/HELP/UNIT/EOF", line)
            kind, fam = m.group(1), m.group(2)
            check((kind, fam) not in meta_seen, f"{where}:{n}: second {kind} for {fam}")
            check(fam not in closed and fam not in sampled,
                  f"{where}:{n}: {kind} {fam} after samples of the family")
            meta_seen.add((kind, fam))
            if kind == "TYPE":
                t = (m.group(3) or "").strip()
                check(t in ("gauge", "counter", "stateset", "info", "histogram", "gaugehistogram",
                            "summary", "unknown"), f"{where}:{n}: type {t!r}", line)
                if t == "counter":
                    check(not fam.endswith("_total"),
                          f"{where}:{n}: counter family named with _total on its TYPE line", line)
                types[fam] = t
            if current is not None and current != fam:
                closed.add(current)
            current = fam
            continue
        m = SAMPLE_RE.match(line)
        check(m is not None, f"{where}:{n}: unparsable sample", line)
        name = m.group(1)
        fam = name
        t = types.get(name)
        for suffix in ("_total", "_created"):
            if t is None and name.endswith(suffix) and types.get(name[:-len(suffix)]) == "counter":
                fam, t = name[:-len(suffix)], "counter"
        check(t is not None, f"{where}:{n}: sample of {name} without a TYPE before it", line)
        if t == "counter":
            check(name != fam, f"{where}:{n}: counter sample without _total", line)
        check(fam not in closed, f"{where}:{n}: family {fam} interleaved with another", line)
        if current is not None and current != fam:
            closed.add(current)
        current = fam
        sampled.add(fam)
        key = (name, m.group(3) or "")
        check(key not in series, f"{where}:{n}: duplicate series", line)
        series.add(key)
        v = m.group(4)
        check(re.match(r"^(-?[0-9.eE+-]+|NaN|[+-]Inf)$", v) is not None,
              f"{where}:{n}: bad value {v!r}")
    return types


# ------------------------------------------------------------------ TLS material

def openssl(*args, cwd):
    (o,) = need("openssl")
    p = subprocess.run([o] + list(args), cwd=cwd, capture_output=True, timeout=60)
    check(p.returncode == 0, f"openssl {' '.join(args[:2])} failed", p.stderr.decode())


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1/localhost (SAN) and a client
    certificate, all signed by the CA (EC P-256: fast to make).  Returns a
    dict of paths: ca, server_crt, server_key, client_crt, client_key."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=gpumon test CA", cwd=d)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
                "basicConstraints=CA:FALSE\n")
    with open(os.path.join(d, "client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n")
    for who in ("server", "client"):
        openssl("req", *ec, "-keyout", f"{who}.key", "-out", f"{who}.csr",
                "-subj", f"/CN=gpumon test {who}", cwd=d)
        openssl("x509", "-req", "-in", f"{who}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{who}.crt", "-days", "2",
                "-extfile", f"{who}.ext", cwd=d)
    return {k: os.path.join(d, v) for k, v in (
        ("ca", "ca.crt"), ("server_crt", "server.crt"), ("server_key", "server.key"),
        ("client_crt", "client.crt"), ("client_key", "client.key"))}


def bcrypt_hash(password, cost=10):
    """A $2y$/$2b$ bcrypt hash: htpasswd -nbBC when apache2-utils is there,
    else libxcrypt through ctypes (the library gpumon itself links); raises
    Skip when neither can make one."""
    h = shutil.which("htpasswd")
    if h:
        p = subprocess.run([h, "-nbBC", str(cost), "u", password], capture_output=True,
                           timeout=30)
        if p.returncode == 0:
            return p.stdout.decode().strip().split(":", 1)[1]
    try:
        import ctypes
        import ctypes.util
        lib = ctypes.CDLL(ctypes.util.find_library("crypt") or "libcrypt.so.1")
        lib.crypt_gensalt.restype = ctypes.c_char_p
        lib.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p,
                                      ctypes.c_int]
        lib.crypt.restype = ctypes.c_char_p
        lib.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        salt = lib.crypt_gensalt(b"$2b$", cost, None, 0)
        out = lib.crypt(password.encode(), salt) if salt else None
        if out and out.startswith(b"$2b$"):
            return out.decode()
    except (OSError, AttributeError):
        pass
    raise Skip("no bcrypt generator: neither htpasswd (apache2-utils) nor libxcrypt's bcrypt")


def tls_context(ca, cert=None, key=None):
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert, key)
    return ctx


# ------------------------------------------------------------------ PromQL names

PROMQL_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
                   "unless", "offset", "bool", "atan2", "Inf", "NaN", "inf", "nan"}
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)")


def promql_names(expr):
    """(metric names, label names) an expression refers to.  Grafana
    variables ($instance, ${gpu}, $__rate_interval) are ignored; functions
    and aggregations are recognised by the '(' that follows them."""
    labels = set()
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    e = re.sub(r"\$\{[^}]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*", " ", e)

    def matchers(m):
        labels.update(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", m.group(1)))
        return " "
    e = re.sub(r"\{([^{}]*)\}", matchers, e)
    e = re.sub(r"\[[^\]]*\]", " ", e)

    def grouping(m):
        labels.update(x.strip() for x in m.group(2).split(",") if x.strip())
        return " "
    e = _GROUPING.sub(grouping, e)
    e = re.sub(r"\boffset\s+-?[0-9a-z]+", " ", e)
    e = re.sub(r"(?<![a-zA-Z_:0-9])(0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)", " ", e)
    names = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        tok = m.group(0)
        rest = e[m.end():].lstrip()
        if tok in PROMQL_KEYWORDS or rest.startswith("("):
            continue
        names.add(tok)
    labels.discard("__name__")
    return names, labels


def emitted_names():
    """(metric names, label names) the exporter's native set really has:
    what `serve --print --process-metrics --hostname-label` renders on
    h100x8-training.ini and workstation.ini, plus the native names of
    docs/metrics.md and docs/exporter.md for series those scenarios
    legitimately lack (PCIe throughput, fans, retired pages, MIG)."""
    names, labels = set(), {"instance", "job"}
    for scn, t in (("h100x8-training.ini", 100), ("workstation.ini", 45)):
        rc, out, err = serve_print(sim_env(scn, pinned=t), "--process-metrics", "--hostname-label")
        check(rc == 0, f"serve --print on {scn} failed ({rc})", err)
        for n, lab, _ in parse_samples(out):
            names.add(n)
            labels.update(lab)
    for doc in ("metrics.md", "exporter.md"):
        with open(os.path.join(ROOT, "docs", doc), encoding="utf-8") as f:
            names.update(re.findall(r"`(gpumon_[a-z0-9_]*[a-z0-9])`", f.read()))
    labels.update({"mig_uuid", "gpu_instance_id", "compute_instance_id", "mig_profile"})
    return names, labels

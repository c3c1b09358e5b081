#!/usr/bin/env python3
"""Every client of agent.sock against a hostile listener in the agent's
place (hardening round two, point 6: clients trust whatever listens).

A stranger who can bind <data-dir>/agent.sock (a stale directory, an agent
that is not ours) answers the clients.  Three such listeners:

  flood:    answers endless bytes (192 MiB, then closes);
  trickle:  answers one byte every 0.5 s for 40 s and never a newline;
  escapes:  answers at once, with terminal escape sequences (CSI, OSC, BEL,
            C1 controls, invalid UTF-8) in every reply.

Against each, every client: the Python client (`python3 -m gpumon mark`,
`hello`, Client.status()), `gpumon agent --status`, `gpumon alerts` (text
and --json), `gpumon mark`, `gpumon run`'s marks and libgpumon's
gpumon_mark (tests/e2e/mark_client.c).  Each must return by itself within
30 s (the documented limit is 5 s overall; the rest is room for a loaded
machine), keep its peak memory under 100 MiB, say why it gave up, and
write no raw control character (other than a newline) and no invalid UTF-8
to stdout or stderr.

Environment (tests/e2e/meson.build): GPUMON, SIM_LIB, SOURCE_ROOT,
MARK_CLIENT.
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

from agentlib import GPUMON, ROOT, Fail, Scratch, check, main, sim_env

MARK_CLIENT = os.environ.get("MARK_CLIENT") or os.path.join(ROOT, "build-e2e", "tests", "e2e",
                                                            "mark_client")
PYDIR = os.path.join(ROOT, "python")
DEADLINE = 30.0          # seconds a client may take (its documented limit: 5 s)
RSS_MAX_KIB = 100 * 1024  # peak resident memory of a client
FLOOD_BYTES = 192 << 20  # what the flood sends per connection at most
ESC = b"\x1b[2J\x1b]0;owned\x07\xc2\x9b31m\x9b\xff\x1bP"

PY_STATUS = """
import sys
import gpumon.client as c
try:
    print(c.Client(sys.argv[1]).status())
except c.GpumonError as e:
    print("error:", e, file=sys.stderr)
    sys.exit(1)
"""


def escape_reply(req):
    """The escapes listener's answer to the request line req."""
    if req.startswith(b"STATUS"):
        return b'{"pid":1,"driver":"' + ESC + b'","sinks":{}}\n'
    if req.startswith(b"ALERTS TEXT"):
        return b"gpu0 " + ESC + b" firing\n" + ESC + b"second line\n"
    if req.startswith(b"ALERTS"):
        return b'{"alerts":["' + ESC + b'"]}\n'
    if req.startswith(b"HELLO"):
        return b"OK version=2 requests=HELLO,PING," + ESC + b",MARK\n"
    return b"ERR refused " + ESC + b"\n"


class Hostile:
    """A listener on <d>/agent.sock that answers every connection as mode
    says ("flood", "trickle", "escapes"), each on its own thread."""

    def __init__(self, d, mode):
        self.mode = mode
        self.stop = threading.Event()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(os.path.join(d, "agent.sock"))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def serve(self):
        while not self.stop.is_set():
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self.handle, args=(c,), daemon=True).start()

    def handle(self, c):
        try:
            c.settimeout(2)
            req = b""
            try:
                while b"\n" not in req and len(req) < 16384:
                    b = c.recv(4096)
                    if not b:
                        break
                    req += b
            except OSError:
                pass
            c.settimeout(5)
            end = time.monotonic() + 40
            if self.mode == "flood":
                chunk = b"x" * 65536
                sent = 0
                while sent < FLOOD_BYTES and not self.stop.is_set():
                    c.sendall(chunk)
                    sent += len(chunk)
            elif self.mode == "trickle":
                while time.monotonic() < end and not self.stop.is_set():
                    c.send(b"O")
                    self.stop.wait(0.5)
            else:
                c.sendall(escape_reply(req))
        except OSError:
            pass  # the client gave up: what it should do
        finally:
            c.close()

    def close(self):
        self.stop.set()
        self.t.join()
        self.sock.close()


def clients(d):
    """(name, argv, env) of every client, pointed at data directory d."""
    env = sim_env(pinned=300)
    py = dict(env, PYTHONPATH=PYDIR, PYTHONDONTWRITEBYTECODE="1")
    g = [GPUMON]
    return [
        ("python mark", [sys.executable, "-m", "gpumon", "mark", "--data-dir", d, "x"], py),
        ("python hello", [sys.executable, "-m", "gpumon", "hello", "--data-dir", d], py),
        ("python status", [sys.executable, "-c", PY_STATUS, d], py),
        ("agent --status", g + ["agent", "--status", "--no-config", "--data-dir", d], env),
        ("alerts", g + ["alerts", "--no-config", "--data-dir", d], env),
        ("alerts --json", g + ["alerts", "--json", "--no-config", "--data-dir", d], env),
        ("mark", g + ["mark", "--no-config", "--data-dir", d, "x"], env),
        ("run", g + ["run", "--no-config", "--data-dir", d, "--", "true"], env),
        ("libgpumon gpumon_mark", [MARK_CLIENT, d, "x"], env),
    ]


def run_one(name, argv, env, results):
    """Runs argv with a deadline; results[name] = (returned, seconds, exit
    status, peak RSS in KiB, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        returned = True
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > DEADLINE:
                returned = False
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        took = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        results[name] = (returned, took, p.returncode, ru.ru_maxrss, out.read(), err.read())


def unsafe(b):
    """Why the bytes b are not safe on a terminal, or None: invalid UTF-8,
    or a control character other than a newline."""
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"invalid UTF-8 at byte {e.start}"
    for i, ch in enumerate(s):
        o = ord(ch)
        if (o < 0x20 and ch != "\n") or 0x7F <= o <= 0x9F:
            return f"control character U+{o:04X} at character {i}"
    return None


def against(mode, want_err):
    """Every client against the listener of mode, at once; want_err(name)
    is a text its stderr must hold (None: no check)."""
    with Scratch("hst") as d:
        os.chmod(d, 0o700)
        srv = Hostile(d, mode)
        results = {}
        try:
            ts = [threading.Thread(target=run_one, args=(n, a, e, results))
                  for n, a, e in clients(d)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        finally:
            srv.close()
        problems = []
        for name, (returned, took, rc, rss, out, err) in sorted(results.items()):
            what = f"{mode}: {name} (exit {rc}, {took:.1f} s, {rss // 1024} MiB)"
            if not returned:
                problems.append(f"{what}: still running after {DEADLINE:.0f} s (killed)")
                continue
            if rc < 0:
                problems.append(f"{what}: died of signal {-rc}")
            if rss > RSS_MAX_KIB:
                problems.append(f"{what}: peak memory {rss // 1024} MiB, over "
                                f"{RSS_MAX_KIB // 1024} MiB")
            for stream, b in (("stdout", out), ("stderr", err)):
                why = unsafe(b)
                if why:
                    problems.append(f"{what}: {stream} unsafe ({why}): {b[:300]!r}")
            w = want_err(name)
            if w and w not in err.decode(errors="replace"):
                problems.append(f"{what}: stderr does not say {w!r}: {err[:300]!r}")
        if problems:
            raise Fail("\n".join(problems))


def test_flood():
    # every client gives up on a reply over its bound, before its deadline
    against("flood", lambda n: "longer than")


def test_trickle():
    # one byte every 0.5 s: the 5 s are for the whole exchange, not each read
    against("trickle", lambda n: "within 5 s")


def test_escapes():
    # the replies reach the terminal only as printable text
    against("escapes", lambda n: None)


if __name__ == "__main__":
    main([test_flood, test_trickle, test_escapes])

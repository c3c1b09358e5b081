#!/usr/bin/env python3
"""How `make demo` (scripts/demo.sh) ends: never with a link to a page that
nothing serves.

  no_terminal:  stdin is not a terminal (a pipe, CI): the demo exits 0 by
                itself, its agent stopped (the port refuses connections, no
                stand-in process is left), and it says how to keep the agent
                running instead of printing the page as live.
  terminal:     stdin is a terminal (a pty): the demo starts the agent again
                on the same data and says "press Ctrl-C to stop"; the page
                it names answers while it waits; Ctrl-C (SIGINT to its
                process group, as the terminal sends it) stops the agent and
                the demo, which then says so.

The demo runs on the tests' own build (GPUMON_DEMO_BUILD: no packages, no
build), a free port and a temporary data directory.  Each run takes the
demo's own 20-odd seconds; every wait is for a condition, with a generous
deadline.

Environment from meson: GPUMON, SOURCE_ROOT.
"""
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentlib import check, check_eq, main  # noqa: E402
from exporter_lib import free_port  # noqa: E402

SRC = os.environ["SOURCE_ROOT"]
BUILD = os.path.dirname(os.path.dirname(os.path.abspath(os.environ["GPUMON"])))
DEMO = os.path.join(SRC, "scripts", "demo.sh")


def demo_env(tmp, port):
    env = dict(os.environ, GPUMON_DEMO_BUILD=BUILD, GPUMON_DEMO_DIR=os.path.join(tmp, "data"),
               GPUMON_DEMO_PORT=str(port), TMPDIR=tmp, LC_ALL="C.UTF-8")
    env.pop("GPUSIM_SCENARIO", None)
    return env


def port_closed(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        return False
    except OSError:
        return True


def left_behind(tmp):
    """PIDs of the demo's processes still alive: the training stand-ins
    (python3 train.py, started in a directory under tmp) and agents on the
    data directory under tmp."""
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if b"train.py" in cmd and cwd.startswith(tmp):
            left.append(int(pid))
        if os.path.join(tmp, "data").encode() in cmd:
            left.append(int(pid))
    return left


def check_none_left(tmp):
    """The demo's processes are gone: its cleanup signals them as it exits, so
    wait for them (30 s) rather than look once."""
    deadline = time.monotonic() + 30
    while left_behind(tmp) and time.monotonic() < deadline:
        time.sleep(0.2)
    check_eq(left_behind(tmp), [], "processes left by the demo")


def test_no_terminal():
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        p = subprocess.run(["bash", DEMO], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, env=demo_env(tmp, port), timeout=240)
        check_eq(p.returncode, 0, "demo exit status without a terminal", p.stderr[-2000:])
        out = p.stdout
        check("The agent has stopped. To open its live page, run make demo in a terminal" in out,
              "the demo says how to keep the agent running", out[-1500:])
        check("press Ctrl-C" not in out, "no Ctrl-C prompt without a terminal", out[-1500:])
        # (the old ending: "While it runs, the node is live in a browser at
        # http://...", printed after the agent had stopped)
        check("While it runs, the node is live" not in out and "the node is live at" not in out,
              "no page announced as live after the agent stopped", out[-1500:])
        check(port_closed(port), f"nothing listens on {port} after the demo")
        check_none_left(tmp)


def read_until(fd, proc, text, deadline):
    """Reads the pty until text appears; returns all output read."""
    buf = b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the other side closed
                break
            if not chunk:
                break
            buf += chunk
            if text.encode() in buf:
                return buf.decode("utf-8", "replace")
        elif proc.poll() is not None:
            break
    return buf.decode("utf-8", "replace")


def test_terminal():
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        master, slave = pty.openpty()
        proc = subprocess.Popen(["bash", DEMO], stdin=slave, stdout=slave, stderr=slave,
                                env=demo_env(tmp, port), start_new_session=True)
        os.close(slave)
        try:
            out = read_until(master, proc, "press Ctrl-C to stop", time.monotonic() + 240)
            check("press Ctrl-C to stop" in out, "the demo waits for Ctrl-C at a terminal",
                  out[-1500:])
            url = f"http://127.0.0.1:{port}/"
            check(f"the node is live at {url}" in out, "the demo names the page", out[-1500:])
            with urllib.request.urlopen(url, timeout=10) as r:
                check_eq(r.status, 200, f"GET {url} while the demo waits")
                check(b"<html" in r.read().lower(), "the page is HTML")
            # Ctrl-C: the terminal sends SIGINT to the foreground process group
            os.killpg(proc.pid, signal.SIGINT)
            out += read_until(master, proc, "The agent has stopped", time.monotonic() + 60)
            rc = proc.wait(timeout=60)
            check_eq(rc, 0, "demo exit status after Ctrl-C", out[-1500:])
            check("The agent has stopped; its data stays in" in out, "the demo says it stopped",
                  out[-1500:])
            check("Traceback" not in out, "Ctrl-C ends the demo without a traceback",
                  out[-1500:])
            check(port_closed(port), f"nothing listens on {port} after Ctrl-C")
            check_none_left(tmp)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            os.close(master)


if __name__ == "__main__":
    main([test_no_terminal, test_terminal])

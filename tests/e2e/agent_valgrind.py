#!/usr/bin/env python3
"""agent_valgrind.py -- the agent under valgrind's memcheck: no error, no
leak.

  memcheck   `gpumon agent` on the simulated H100 node (processes, the
             exporter, the store, the CSV log, alerts: GPU 5 fires) under
             `valgrind --leak-check=full`: after three samples every
             endpoint is read (/metrics, the API's status, history and
             alerts, the page), then SIGHUP reloads the configuration and
             two more samples are taken, then SIGTERM.  The exit status is
             0 and memcheck reports 0 errors and no block definitely or
             indirectly lost.  Before gm_zero_sparse told memcheck that the
             bytes it read and left as they were are zero, such a run gave
             about 3 million reports (every use of the configuration's
             defaults), which hid any real one.

Waits are for conditions (a sample number, a log line, the exit), with
deadlines long enough for valgrind's 20-50x slow-down on a loaded machine.
Skipped (77) without valgrind.  Not registered for a sanitized build
(ASan's runtime and memcheck do not mix).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request

from agentlib import GPUMON, Fail, Scratch, Skip, check, check_eq, main, sim_env
from exporter_lib import free_port

DEADLINE = 300  # seconds, for each wait under valgrind


def fetch(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
        return r.status, r.read()


def wait_for(what, cond, proc, log):
    end = time.time() + DEADLINE
    while time.time() < end:
        if proc.poll() is not None:
            raise Fail(f"the agent exited ({proc.returncode}) before {what}\n{log()}")
        try:
            v = cond()
            if v:
                return v
        except OSError:
            pass
        time.sleep(0.5)
    raise Fail(f"not within {DEADLINE} s: {what}\n{log()}")


def test_memcheck():
    vg = shutil.which("valgrind")
    if not vg:
        raise Skip("valgrind is not installed")
    with Scratch("vg") as d:
        port = free_port()
        vglog = os.path.join(d, "memcheck.log")
        out = open(os.path.join(d, "agent.log"), "wb")
        argv = [vg, "--leak-check=full", "--show-leak-kinds=definite,indirect",
                "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99",
                f"--log-file={vglog}", GPUMON, "agent", "--no-config",
                "--data-dir", os.path.join(d, "data"), "--listen", f"127.0.0.1:{port}",
                "--interval", "1s", "--procs"]
        proc = subprocess.Popen(argv, env=sim_env(), stdout=out, stderr=subprocess.STDOUT)

        def log():
            with open(os.path.join(d, "agent.log"), errors="replace") as f:
                a = f.read()
            try:
                with open(vglog, errors="replace") as f:
                    v = f.read()
            except OSError:
                v = ""
            return a[-3000:] + "\n--- memcheck\n" + v[-6000:]

        def seq():  # the latest sample's number (0 before the first)
            st, body = fetch(port, "/api/v1/history?since=10s&metric=power_draw_watts&id=0")
            return (json.loads(body).get("latest_seq") or 0) if st == 200 else 0

        try:
            first = wait_for("three samples", lambda: max(seq(), 0) >= 3 and seq(), proc, log)
            for path in ("/metrics", "/api/v1/status", "/api/v1/history?since=1m",
                         "/api/v1/alerts", "/"):
                st, body = fetch(port, path)
                check_eq(st, 200, f"{path} under valgrind")
                check(len(body) > 100, f"{path}: an answer", body[:200])
            proc.send_signal(signal.SIGHUP)
            wait_for("the reload's log line",
                     lambda: "configuration reloaded" in log(), proc, log)
            wait_for("two samples after the reload", lambda: seq() >= first + 2, proc, log)
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=DEADLINE)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            out.close()
        text = log()
        check_eq(rc, 0, "exit status under memcheck (99: memcheck found errors)", text)
        m = re.search(r"ERROR SUMMARY: (\d+) errors", text)
        check(m is not None, "memcheck's summary", text)
        check_eq(int(m.group(1)), 0, "memcheck's errors", text)
        for kind in ("definitely", "indirectly"):
            m = re.search(kind + r" lost: ([\d,]+) bytes", text)
            check(m is None or m.group(1) == "0", f"{kind} lost", text)
        print(f"  memcheck: 0 errors, no leak; {first} samples before the reads")


if __name__ == "__main__":
    main([test_memcheck])

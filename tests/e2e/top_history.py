#!/usr/bin/env python3
"""gpumon top fills its charts from the agent's store when it starts, so
they do not start empty for minutes while the agent holds the history.

An agent (the training scenario, 1 s samples) records into a private data
directory named by a configuration file (CONFIGURATION_DIRECTORY, which
both the agent and top read, as a systemd unit's would); once the store
holds at least 40 samples, top starts at 80x24 with a 1 minute span.  Its
first screen must show GPU 0's utilisation chart filled over more columns
than top's own samples could fill in the time it has run, and the footer
names the store it read (checked when the screen is read within its 5 s).
The diagnosis is fed the same rows: a memory-orphaned finding is on the
screen well before top's own samples could make one (30 s).  A screen captured after top has run long enough
to fill that much itself proves nothing: the test then skips.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from top_lib import GPUMON, ROOT, Top, fail, skip_without_tmux

SPAN_S = 60
CHART_COLS = 80 // 3 - 1 - 5 - 1  # the first chart's plot columns at 80 wide (top_draw.c)


def stored_samples(db):
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return c.execute("SELECT COUNT(DISTINCT ts) FROM samples").fetchone()[0]
        finally:
            c.close()
    except sqlite3.Error:
        return 0


def filled_columns(screen):
    """Columns of the utilisation chart's bottom row that hold a bar."""
    lines = screen.split("\n")
    title = next((i for i, l in enumerate(lines) if l.startswith("GPU 0 utilisation")), None)
    if title is None:
        return None
    axis = next((i for i in range(title + 1, len(lines)) if "-60s" in lines[i]), None)
    if axis is None:
        return None
    row = lines[axis - 1]
    bar = row.find("│")
    if bar < 0:
        return None
    return sum(1 for ch in row[bar + 1:bar + 1 + CHART_COLS] if ch not in " ")


def main():
    skip_without_tmux()
    tmp = tempfile.mkdtemp(prefix="gpumon-top-hist-")
    conf, data = os.path.join(tmp, "conf"), os.path.join(tmp, "data")
    os.makedirs(conf)
    with open(os.path.join(conf, "gpumon.conf"), "w") as f:
        f.write(f"[agent]\ndata-dir = {data}\ninterval = 1s\n[exporter]\nlisten =\n")
    env = dict(os.environ)
    for k in ("GPUSIM_TIME", "GPUSIM_EPOCH", "GPUSIM_SPEED", "NO_COLOR"):
        env.pop(k, None)
    env.update({"GPUMON_NVML_LIB": os.environ["SIM_LIB"], "CONFIGURATION_DIRECTORY": conf,
                "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", "h100x8-training.ini"),
                "GPUSIM_TIME": "300", "TZ": "UTC"})
    log = open(os.path.join(tmp, "agent.log"), "wb")
    agent = subprocess.Popen([GPUMON, "agent"], env=env, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=log)
    t = None
    try:
        db = os.path.join(data, "gpumon.db")
        deadline = time.monotonic() + 120
        while stored_samples(db) < 40:
            if agent.poll() is not None or time.monotonic() > deadline:
                fail("the agent did not store 40 samples: "
                     + open(os.path.join(tmp, "agent.log"), errors="replace").read())
            time.sleep(0.5)
        started = time.monotonic()
        t = Top("h100x8-training.ini", 80, 24, args=["--span", "1m"],
                env={"CONFIGURATION_DIRECTORY": conf})
        s = t.wait_for(("GPU 0 utilisation", "-60s"), timeout=30, what="the charts")
        ran = time.monotonic() - started
        got = filled_columns(s)
        if got is None:
            fail("no utilisation chart found", s)
        # what top's own samples (1 s apart) can fill in the time it ran, at most
        own = int(ran / (SPAN_S / CHART_COLS)) + 2
        if own + 3 > 9:
            print(f"SKIP: top ran {ran:.1f} s before its screen could be read; its own "
                  f"samples could fill {own} columns")
            return 77
        if got < own + 3:
            fail(f"the chart has {got} filled columns after {ran:.1f} s: not the agent's "
                 f"40 s of history (top alone fills at most {own})", s)
        # the footer says so for 5 s from the first frame
        if ran < 4 and "earlier samples from" not in s:
            fail("the footer does not name the store read", s)
        # the diagnosis had the history too: its finding (the scenario's
        # ranks are not running here, so every GPU's memory is orphaned) is
        # told before top could have sampled the 30 s it needs alone
        s = t.wait_for("⚠ memory-orphaned", timeout=20, what="a finding from the history")
        ran = time.monotonic() - started
        if ran >= 28:
            print(f"SKIP: the finding was read only {ran:.1f} s after top started")
            return 77
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        if t:
            t.close()
        agent.terminate()
        agent.wait(timeout=30)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"ok top's charts filled from the agent's store ({got} columns)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""gpumon top's screens in real terminals (tmux), against the simulator at
pinned scenario times:

  * 80x24, 8 GPUs: one line per GPU in two columns, GPU 5 marked thermal,
    the charts' titles and time axis, the process table with the dead PID's
    leaked memory marked, the footer's keys; the alternate screen while it
    runs;
  * 200x60, 8 GPUs: full panels side by side with every field (P-state,
    temperature against the slowdown threshold, power against the limit,
    fan, SM/memory clocks against their maximum, PCIe TX/RX, encoder and
    decoder, throttle reasons spelled out, ECC, MIG) and GPU 5's diagnosis;
    then a live resize to 80x24 and back;
  * 16 GPUs at 80x24 and 200x60: every GPU on screen, the power-capped one
    diagnosed;
  * a lost GPU and a MIG GPU;
  * --ascii --no-color: nothing but ASCII, no colour escapes;
  * hostile names (scenarios/hostile-names.ini and a live process that named
    itself with prctl and has ESC, a newline and a bad byte in argv[0]):
    shown with U+FFFD on their own line, the screen not cleared.
"""
import os
import re
import subprocess
import sys

from top_lib import Top, fail, me, skip_without_tmux, spawn


def test_80x24_training():
    ranks = spawn(2)
    env = {"GPUSIM_PID_RANK0": str(ranks[0].pid), "GPUSIM_PID_RANK3": str(ranks[1].pid)}
    t = Top("h100x8-training.ini", 80, 24, env=env)
    try:
        s = t.wait_for("COMMAND")
        lines = s.split("\n")
        if t.fmt("#{alternate_on}") != "1":
            fail("top does not use the alternate screen", s)
        if not lines[0].startswith("gpumon top") or "driver 550.54.15" not in lines[0]:
            fail("header line", s)
        # one line per GPU, two to a row: GPU 5 at its slowdown temperature, thermal
        if not re.search(r"^ 0 63°C\s+95%\s+71\.2/79\.6G\s+619W\s+1 63°C", lines[1]):
            fail("GPUs 0 and 1 on the first panel line", s)
        if not re.search(r" 5 89°C\s+99%\s+71\.2/79\.6G\s+367W !thermal", s):
            fail("GPU 5 at 89 C marked thermal", s)
        for i in range(8):
            if not re.search(rf"(^|\s){i} \d+°C", s, re.M):
                fail(f"GPU {i} missing", s)
        # charts of GPU 0 with a labelled time axis
        for want in ("GPU 0 utilisation %", "GPU 0 memory used %", "GPU 0 power W",
                     "-5m", "-2.5m", "now", "100%", "700W"):
            if want not in s:
                fail(f"chart text {want!r}", s)
        # the table: live ranks resolved, the dead PID's memory marked
        if not re.search(r"GPU\s+PID USER\s+TYPE\s*▼GPU-MEM\s+SM%\s+CPU%\s+HOST-MEM\s+TIME COMMAND", s):
            fail("process table header, sorted by GPU memory", s)
        if not re.search(rf"^\s+0\s+{ranks[0].pid} \S+\s+C\s+71\.2G\s+\d+\s+(N/A|[\d.]+)\s+[\d.]+[KM]\s+\d+s sleep 600", s, re.M):
            fail("rank 0 resolved to the live process", s)
        # rank 1 keeps its simulated pid: alive in the simulator's /proc
        # view, 300 s old at scenario time 300 (docs/simulator.md)
        if not re.search(rf"^\s+1\s+4194401 {me()}\s+C\s+71\.2G\s+95\s+N/A\s+2\.0G\s+(4:59|5:0\d) python3 train", s, re.M):
            fail("a simulated rank: alive, of this user, started at scenario time 0", s)
        if "q quit" not in lines[23] or "k signal" not in s:
            fail("footer keys", s)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
        for p in ranks:
            p.kill()
    print("ok 80x24 training")


def test_200x60_and_resize():
    t = Top("h100x8-training.ini", 200, 60)
    try:
        s = t.wait_for("COMMAND")
        lines = s.split("\n")
        if not re.search(r"^GPU 0 NVIDIA H100 80GB HBM3  P0  63°C/89°C slowdown  619/700 W  fan N/A\s+"
                         r"GPU 1 NVIDIA H100 80GB HBM3", lines[1]):
            fail("full panels, two side by side", s)
        g5 = [l for l in lines if "GPU 5 NVIDIA" in l]
        if not g5:
            fail("GPU 5's panel", s)
        i = lines.index(g5[0])
        col = g5[0].index("GPU 5")
        panel = [l[col:col + 99] for l in lines[i:i + 5]]
        want = [r"GPU 5 NVIDIA H100 80GB HBM3  P0  89°C/89°C slowdown  367/700 W  fan N/A",
                r"GPU \[█+ *99%\] MEM \[█+ *71\.2G/79\.6G\]",
                r"SM 1020/1980 MHz  MEM 2619/2619 MHz  PCIe TX \S+/s RX \S+/s  ENC 0%  DEC 0%",
                r"reasons: hw slowdown, sw thermal slowdown, hw thermal slowdown  ECC 0 corr 0 uncorr  MIG off",
                r"⚠ thermal slowdown: 89°C at its 89°C slowdown threshold; SM clock 1020 of 1980 MHz \(52 %\)"]
        for k, w in enumerate(want):
            if not re.search(w, panel[k]):
                fail(f"GPU 5 panel line {k}: {panel[k]!r} !~ {w!r}", s)
        if "no limit: SM clock at 100 % of max" not in s:
            fail("a healthy GPU says no limit", s)
        # GPM on the H100s (two samples at start): SM activity, tensor, DRAM on line 3
        g0 = lines[4][:99]
        if not re.search(r"MIG off  SMACT \d+%  TENSOR \d+%  DRAM \d+%", g0):
            fail(f"GPU 0 panel line 3 has GPM: {g0!r}", s)
        # live resize: down to 80x24 (one line per GPU), then back
        t.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
        s = t.wait_for("!thermal", what="the 80x24 layout after a resize")
        if len(s.rstrip("\n").split("\n")) > 24 or "GPU 0 NVIDIA" in s:
            fail("80x24 layout after the resize", s)
        t.tmux("resize-window", "-t", "t", "-x", "200", "-y", "60")
        t.wait_for("GPU 7 NVIDIA H100 80GB HBM3", what="full panels again")
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
    print("ok 200x60 and resize")


def test_16_gpus():
    for cols, rows in ((80, 24), (200, 60)):
        t = Top("a100x16-mixed.ini", cols, rows)
        try:
            s = t.wait_for("COMMAND")
            for i in range(16):
                if not re.search(rf"(^|\s){i:2d} ", s, re.M):
                    fail(f"{cols}x{rows}: GPU {i} not on screen", s)
            if "!power cap" not in s and "power cap: 399 of 400 W" not in s:
                fail(f"{cols}x{rows}: GPU 12 at its power cap", s)
            if "more GPUs" in s:
                fail(f"{cols}x{rows}: GPUs left out", s)
            if len(s.rstrip("\n").split("\n")) > rows:
                fail("taller than the terminal", s)
            t.keys("q")
            code, stty = t.wait_exit()
            t.check_restored(code, stty)
        finally:
            t.close()
    print("ok 16 GPUs")


def test_lost_and_mig():
    t = Top("faults.ini", 200, 60, time_pin="70")
    try:
        s = t.wait_for("GPU is lost: it fell off the bus", what="GPU 1 lost")
        if "GPU 0 NVIDIA A100-SXM4-80GB" not in s or "GPU 2 NVIDIA A100-SXM4-80GB" not in s:
            fail("the other GPUs go on", s)
        t.keys("q")
        t.wait_exit()
    finally:
        t.close()
    t = Top("a100-mig.ini", 200, 60, time_pin="60")
    try:
        s = t.wait_for("MIG 3g.40gb 2g.20gb 1g.10gb 1g.10gb", what="GPU 0's MIG devices")
        if not re.search(r"GPU \[ *N/A\]", s):
            fail("MIG GPU utilisation is N/A, not 0", s)
        t.keys("q")
        t.wait_exit()
    finally:
        t.close()
    print("ok lost GPU and MIG")


def test_marks():
    """The marks `status` shows, under each GPU in the compact and the full panels."""
    want = {0: "[exclusive-process]", 1: "[pcie gen5 x8 of gen5 x16]",
            4: "[12.0 GiB used, no process]", 6: "[persistence off]",
            7: "[row remap pending: reset]"}
    for cols, rows, ids in ((160, 60, None), (160, 60, "6,7")):
        t = Top("flags.ini", cols, rows, time_pin="120",
                args=["--id", ids] if ids else [])
        try:
            s = t.wait_for("COMMAND")
            for gpu, mark in want.items():
                if ids and str(gpu) not in ids.split(","):
                    continue
                if mark not in s:
                    fail(f"GPU {gpu}: {mark} on screen", s)
            for gpu in (2, 3, 5):  # idle link, healthy, unanswered process list: no mark
                if not ids and re.search(rf"^ {gpu} .*\n.*\[", s, re.M):
                    fail(f"GPU {gpu} has no mark", s)
            t.keys("q")
            t.wait_exit()
        finally:
            t.close()
    print("ok marks")


def test_ascii_monochrome():
    t = Top("h100x8-training.ini", 120, 40, args=["--ascii", "--no-color"])
    try:
        s = t.wait_for("COMMAND")
        bad = sorted({c for c in s if ord(c) > 127})
        if bad:
            fail(f"--ascii drew non-ASCII characters {bad}", s)
        if "89C" not in s or "vGPU-MEM" not in s:
            fail("ASCII temperature and sort marker", s)
        esc = t.screen(escapes=True)
        if re.search(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;", esc):
            fail("--no-color printed colour escapes", esc)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
    t = Top("h100x8-training.ini", 120, 40, args=["--color"])
    try:
        t.wait_for("COMMAND")
        esc = t.screen(escapes=True)
        if not re.search(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;", esc):
            fail("--color printed no colour", esc)
        t.keys("q")
        t.wait_exit()
    finally:
        t.close()
    print("ok ascii and monochrome")


LIVE = """import ctypes, sys, time
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(b"ev\\xff\\n\\x1b[2Jx"), 0, 0, 0)
print("ready", flush=True)
time.sleep(600)
"""


def test_hostile_names():
    p = subprocess.Popen([b"ev\x1b[2J\nx\xff", b"-c", LIVE.encode()], executable=sys.executable,
                         stdout=subprocess.PIPE)
    try:
        if p.stdout.readline() != b"ready\n":
            fail("the live process did not start")
        t = Top(os.path.join(os.environ["SOURCE_ROOT"], "scenarios", "hostile-names.ini"), 200,
                60, env={"GPUSIM_PID_ESCAPE": str(p.pid)}, time_pin="10")
        try:
            s = t.wait_for("COMMAND")
            lines = s.split("\n")
            if not lines[0].startswith("gpumon top"):
                fail("the header line is gone (the screen was cleared?)", s)
            if 'GPU 0 =HYPERLINK("http://example.invalid/","x"),\ufffd\ufffd]0;pwned' not in s:
                fail("GPU 0's name with U+FFFD for its controls", s)
            if "GPU 1 NVIDIA L40S \u8bad\u7ec3 \"lab\", 2" not in s:
                fail("GPU 1's valid UTF-8 name unchanged", s)
            row = [x for x in lines if re.search(rf"^\s+0\s+{p.pid} ", x)]
            if len(row) != 1 or "ev\ufffd[2J\ufffdx\ufffd -c import ctypes" not in row[0]:
                fail("the live process's command line on its row, controls as U+FFFD", s)
            # alive in the simulator's /proc view: its command line is its name
            if not re.search(r"^\s+0\s+4194401 .* =cmd\|' /C calc'!A0$", s, re.M):
                fail("the formula-named process shown by its command line", s)
            t.keys("q")
            code, stty = t.wait_exit()
            t.check_restored(code, stty)
        finally:
            t.close()
    finally:
        p.kill()
        p.wait()
    print("ok hostile names")


if __name__ == "__main__":
    skip_without_tmux()
    test_80x24_training()
    test_200x60_and_resize()
    test_16_gpus()
    test_lost_and_mig()
    test_marks()
    test_ascii_monochrome()
    test_hostile_names()
    print("top_screens: all passed")

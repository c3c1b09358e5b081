#!/usr/bin/env python3
"""gpumon top when things go wrong, in a real terminal (tmux):

  * SIGTERM, SIGINT and SIGHUP end it with status 0 and the terminal given
    back (alternate screen left, echo and canonical mode on, cursor shown);
  * a crash (SIGSEGV) still gives the terminal back before the process
    dies of the signal;
  * a hung NVML call (faults.ini at 130 s: nvmlDeviceGetPowerUsage on GPU 2
    blocks 5 s each time) is named in the header with its age while the
    keys keep working, and the view goes on when the call returns; q while
    a call hangs still quits at once with the terminal restored.  The keys
    are pressed during a hang lengthened to 900 s (a copy of faults.ini, its
    clock running from 30 s before the hang), so that they meet it however
    slow the machine is, and a quit that waited for the call would miss the
    test's 60 s wait by far; nothing is timed.
"""
import os
import signal
import tempfile
import time

from top_lib import ROOT, WAIT_S, Top, fail, skip_without_tmux


def test_stop_signals():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        t = Top("h100x8-training.ini", 100, 30)
        try:
            t.wait_for("COMMAND")
            pid = t.top_pid()
            if not pid:
                fail("cannot find gpumon top's PID", t.screen())
            os.kill(pid, sig)
            code, stty = t.wait_exit()
            t.check_restored(code, stty)
        finally:
            t.close()
    print("ok SIGTERM, SIGINT, SIGHUP")


def test_crash():
    t = Top("h100x8-training.ini", 100, 30)
    try:
        t.wait_for("COMMAND")
        os.kill(t.top_pid(), signal.SIGSEGV)
        code, stty = t.wait_exit()
        t.check_restored(code, stty, want_code=128 + signal.SIGSEGV)
    finally:
        t.close()
    print("ok crash")


def test_hung_nvml():
    t = Top("faults.ini", 120, 40, time_pin="130")
    try:
        # the first sample itself waits out one 5 s hang
        t.wait_for("COMMAND", what="the first sample")
        t.wait_for("NVML HUNG: nvmlDeviceGetPowerUsage on GPU 2 has not returned for",
                   what="the hung call named in the header")
        # the call returns after 5 s: the banner goes, values are fresh
        t.wait_for("NVML HUNG", absent=True, what="the banner after the call returned")
        t.wait_for("NVML HUNG", what="the banner of the next hang")
    finally:
        t.close()
    print("ok hung NVML")


def long_hang(d):
    """faults.ini with GPU 2's power read hanging 900 s instead of 5 s: a key
    pressed while it hangs meets the hang however slow the machine is, and
    a quit that waited for the call would take far longer than any wait of
    this test."""
    with open(os.path.join(ROOT, "scenarios", "faults.ini")) as f:
        text = f.read()
    old = "call = nvmlDeviceGetPowerUsage\nseconds = 5\n"
    if text.count(old) != 1:
        fail(f"faults.ini no longer has the hang this test lengthens ({old!r})")
    path = os.path.join(d, "faults-long-hang.ini")
    with open(path, "w") as f:
        f.write(text.replace(old, "call = nvmlDeviceGetPowerUsage\nseconds = 900\n"))
    return path


LEAD_S = 30


def test_keys_while_hung():
    with tempfile.TemporaryDirectory() as d:
        # the scenario's clock runs from 30 s before the hang (at 120 s): the
        # first sample must not meet it (top gives up on a first sample after
        # 10 s); the test waits for the hang, it does not time it
        t = Top(long_hang(d), 120, 40, time_pin=None,
                env={"GPUSIM_SPEED": "1", "GPUSIM_EPOCH": f"{time.time() - 120 + LEAD_S:.3f}"})
        try:
            t.wait_for("COMMAND", what="the first sample, before the hang")
            t.wait_for("NVML HUNG: nvmlDeviceGetPowerUsage on GPU 2 has not returned for",
                       timeout=LEAD_S + WAIT_S, what="the hung call named in the header")
            # the screen is alive: help opens and closes while the call hangs
            t.keys("?")
            s = t.wait_for("gpumon top: keys", what="help while NVML hangs")
            if "NVML HUNG" not in s:
                fail("the help opened without the hang named", s)
            t.keys("x")
            t.wait_for("gpumon top: keys", absent=True, what="help closed while NVML hangs")
            # q quits at once: within the wait, not after the 900 s call
            t.keys("q")
            code, stty = t.wait_exit()
            t.check_restored(code, stty)
        finally:
            t.close()
    print("ok keys while NVML hangs")


if __name__ == "__main__":
    skip_without_tmux()
    test_stop_signals()
    test_crash()
    test_hung_nvml()
    test_keys_while_hung()
    print("top_signals: all passed")

#!/usr/bin/env python3
"""gpumon top when things go wrong, in a real terminal (tmux):

  * SIGTERM, SIGINT and SIGHUP end it with status 0 and the terminal given
    back (alternate screen left, echo and canonical mode on, cursor shown);
  * a crash (SIGSEGV) still gives the terminal back before the process
    dies of the signal;
  * a hung NVML call (faults.ini at 130 s: nvmlDeviceGetPowerUsage on GPU 2
    blocks 5 s each time) is named in the header with its age while the
    keys keep working, and the view goes on when the call returns; q while
    a call hangs still quits at once with the terminal restored.
"""
import os
import signal
import time

from top_lib import Top, fail, skip_without_tmux


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
        t0 = time.monotonic()
        # the first sample itself waits out one 5 s hang
        t.wait_for("COMMAND", timeout=20, what="the first sample")
        s = t.wait_for("NVML HUNG: nvmlDeviceGetPowerUsage on GPU 2 has not returned for",
                       timeout=15, what="the hung call named in the header")
        # the screen is alive: help opens and closes while the call hangs
        t.keys("?")
        s = t.wait_for("gpumon top: keys", timeout=3, what="help while NVML hangs")
        if "NVML HUNG" not in s:
            fail("the help opened after the call returned; not a test of a hang", s)
        t.keys("x")
        # the call returns after 5 s: the banner goes, values are fresh
        t.wait_for("NVML HUNG", absent=True, timeout=10, what="the banner after the call returned")
        # q during the next hang quits at once
        t.wait_for("NVML HUNG", timeout=15)
        q0 = time.monotonic()
        t.keys("q")
        code, stty = t.wait_exit(timeout=10)
        if time.monotonic() - q0 > 4:
            fail("q waited for the hung call")
        t.check_restored(code, stty)
        if time.monotonic() - t0 > 60:
            fail("the hung test took over a minute")
    finally:
        t.close()
    print("ok hung NVML")


if __name__ == "__main__":
    skip_without_tmux()
    test_stop_signals()
    test_crash()
    test_hung_nvml()
    print("top_signals: all passed")

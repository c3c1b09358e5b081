#!/usr/bin/env python3
"""gpumon top's diagnosis sentence carries the host side (docs/diagnose.md,
"The host side"): scenarios/diagnose/starved-host-cpu.ini at 200x60, GPU 0
fed by a process with one core pinned and no workers (the simulator's host
view, GPUSIM_HOST_ROOT = GPUMON_HOST_ROOT).  top diagnoses after 30 s of
samples; the test waits up to 120 s for GPU 0's sentence to name
input-starved with the feeder's verdict and pid, and checks that GPU 1 (the
same to the GPU side, its host at ease) does not.
"""
import re
import tempfile
import shutil

from top_lib import Top, fail, skip_without_tmux, spawn


def test_host_side_sentence():
    procs = spawn(2)
    host = tempfile.mkdtemp(prefix="gpumon-top-host-")
    env = {"GPUSIM_PID_LIVE": str(procs[0].pid), "GPUSIM_PID_LIVE2": str(procs[1].pid),
           "GPUSIM_HOST_ROOT": host, "GPUMON_HOST_ROOT": host}
    t = Top("diagnose/starved-host-cpu.ini", 200, 60, env=env, time_pin=None)
    try:
        want = "input-starved: feeder CPU-bound (num_workers=0"
        s = t.wait_for(want, timeout=120, what="GPU 0's diagnosis with the host side")
        lines = s.split("\n")
        g0 = [i for i, l in enumerate(lines) if "GPU 0 NVIDIA" in l]
        if not g0:
            fail("GPU 0's panel", s)
        col = lines[g0[0]].index("GPU 0")
        sentence = lines[g0[0] + 4][col:col + 99]
        if want not in sentence or not re.search(rf"pid {procs[0].pid}\b", s):
            fail(f"GPU 0's sentence names the feeder: {sentence!r}", s)
        if s.count("input-starved:") != 1:
            fail("only GPU 0 is input-starved (GPU 1's host is at ease)", s)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(host, ignore_errors=True)
    print("ok host side in top's sentence")


if __name__ == "__main__":
    skip_without_tmux()
    test_host_side_sentence()

#!/usr/bin/env python3
"""gpumon top driven by keys in a real terminal (tmux), 120x40, 8 GPUs:
help, sort (< > r), text filter (/), user filter (u), Esc, select and
details (Down, Enter), the signal dialog cancelled at both steps, a signal
sent to a live process after confirmation, --readonly, and q restoring the
terminal.  As root: the JOB column of two processes moved into a Slurm-like
and a Docker-like cgroup, the job filter (j), --container at 80x24 (JOB in
place of TYPE and HOST-MEM) and sorting by JOB.
"""
import os
import re
import shutil
import tempfile
import time

import top_lib
from top_lib import Top, fail, me, skip_without_tmux, spawn


def header(t):
    return [l for l in t.lines() if "COMMAND" in l][0]


def test_keys():
    ranks = spawn(2)
    env = {"GPUSIM_PID_RANK0": str(ranks[0].pid), "GPUSIM_PID_RANK3": str(ranks[1].pid)}
    t = Top("h100x8-training.ini", 120, 40, env=env)
    try:
        t.wait_for("COMMAND")
        # help, closed by any key
        t.keys("?")
        t.wait_for("gpumon top: keys", what="help")
        t.wait_for("send a signal to the selected process")
        t.keys("x")
        t.wait_for("gpumon top: keys", absent=True, what="help closed")

        # sort: the default is GPU memory, high first; > moves to SM%, r reverses
        if "▼GPU-MEM" not in header(t):
            fail("default sort mark", t.screen())
        t.keys(">")
        t.wait_for("▼SM%", what="sorted by SM%")
        t.keys("r")
        t.wait_for("▲SM%", what="SM% reversed")
        t.keys("<")
        t.wait_for("▼GPU-MEM", what="back to GPU memory")

        # text filter: only the dead PID
        t.keys("/")
        t.wait_for("Filter (text in user, command or PID", what="filter prompt")
        t.keys("4194304", literal=True)
        t.keys("Enter")
        s = t.wait_for("[1 of 9 shown /4194304]", what="filtered")
        rows = [l for l in s.split("\n") if re.match(r"^\s+\d+\s+\d+ ", l)]
        if len(rows) != 1 or "4194304" not in rows[0] or "30.0G" not in rows[0]:
            fail("the filter leaves the dead PID's 30 GiB only", s)
        t.keys("Escape")
        t.wait_for("shown", absent=True, what="filter cleared")

        # user filter: every user in turn ("?" first), then everyone
        t.keys("u")
        s = t.wait_for("user ?]", what="user ?")
        if ranks[0].pid and str(ranks[0].pid) in s:
            fail("user ? shows a live process", s)
        t.keys("u")
        # the two stand-ins and the six simulated ranks (the simulator's /proc
        # view gives them to whoever runs it); the dead rank has no user
        s = t.wait_for(f"[8 of 9 shown user {me()}]", what="this user's eight processes")
        t.keys("u")
        t.wait_for("shown", absent=True, what="everyone again")

        # select the first live process, then its details
        t.keys("/")
        t.keys(str(ranks[0].pid), literal=True)
        t.keys("Enter")
        t.wait_for("[1 of 9 shown", what="filtered to rank 0")
        t.keys("Down", "Enter")
        s = t.wait_for(("process (Esc or Enter closes)", "started:"), what="details")
        for want in (f"PID {ranks[0].pid} on GPU 0, user {me()}, alive", "sleep 600",
                     "executable: /usr/bin/sleep", "cgroup:", "started:"):
            if want not in s:
                fail(f"details: {want!r}", s)
        t.keys("Escape")
        t.wait_for("process (Esc or Enter closes)", absent=True)

        # the signal dialog, cancelled at the menu and at the confirmation
        t.keys("k")
        s = t.wait_for((f"signal for PID {ranks[0].pid}", "SIGKILL"), what="signal menu")
        if "SIGTERM" not in s or "SIGKILL" not in s:
            fail("signal menu", s)
        t.keys("Escape")
        t.wait_for("signal for PID", absent=True)
        t.keys("k")
        t.wait_for("signal for PID")
        t.keys("Enter")
        s = t.wait_for((f"Send SIGTERM (15) to PID {ranks[0].pid}, user {me()}?", "command:"),
                       what="confirm")
        if "command: sleep 600" not in s:
            fail("the confirmation names the command", s)
        t.keys("n")
        t.wait_for("cancelled: no signal sent")
        time.sleep(0.3)
        if ranks[0].poll() is not None:
            fail("a cancelled dialog sent a signal")

        # ... and sent: SIGKILL chosen from the menu, then y
        t.keys("k")
        t.wait_for("signal for PID")
        for _ in range(7):
            t.keys("Down")
        t.keys("Enter")
        t.wait_for(f"Send SIGKILL (9) to PID {ranks[0].pid}")
        t.keys("y")
        t.wait_for(f"sent SIGKILL to PID {ranks[0].pid}")
        try:
            ranks[0].wait(timeout=5)
        except Exception:
            fail("the confirmed signal did not arrive")
        if ranks[0].returncode != -9:
            fail(f"rank 0 ended with {ranks[0].returncode}, not SIGKILL")

        # a process the user may not signal: the dead PID
        t.keys("Escape", "/")
        t.keys("4194304", literal=True)
        t.keys("Enter", "Down", "k")
        t.wait_for("cannot signal: PID 4194304 does not exist (any more)")

        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
        for p in ranks:
            p.kill()
    print("ok keys")


def test_readonly():
    ranks = spawn(1)
    t = Top("h100x8-training.ini", 120, 40, args=["--readonly"],
            env={"GPUSIM_PID_RANK0": str(ranks[0].pid)})
    try:
        s = t.wait_for("COMMAND")
        if "k signal" in s or "[read-only]" not in s:
            fail("--readonly: no k in the footer, [read-only] in the header", s)
        t.keys("Down", "k")
        t.wait_for("read-only (--readonly): signals are off")
        if "signal for PID" in t.screen():
            fail("--readonly opened the signal dialog")
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
        ranks[0].kill()
    print("ok readonly")


CID = "0123456789abcdef" * 4


def test_jobs():
    """The JOB column and the job filters on real processes in made-up
    cgroups (tests/e2e/jobs_attrib.py makes them the same way, and runs
    gpumon in a cgroup namespace rooted above them, so that the Slurm
    layout is at the top of the path, where Slurm makes it)."""
    if os.geteuid() != 0:
        print("skip jobs: needs root (cgroups)")
        return
    import jobs_attrib
    try:
        base = jobs_attrib.hierarchy()
    except jobs_attrib.Skip as e:
        print(f"skip jobs: {e}")
        return
    top = os.path.join(base, f"gpumon-top-{os.getpid()}")
    ranks = spawn(2)
    env = {"GPUSIM_PID_RANK0": str(ranks[0].pid), "GPUSIM_PID_RANK3": str(ranks[1].pid)}
    t = None
    real_gpumon = top_lib.GPUMON
    scratch = tempfile.mkdtemp(prefix="gmtopjobs.", dir="/tmp")
    try:
        os.makedirs(top, exist_ok=True)
        top_lib.GPUMON = jobs_attrib.in_namespace(top, scratch, real_gpumon)
        # the path's uid is the process's (the ranks run as this test's user)
        jobs_attrib.move(ranks[0].pid, top, f"slurm/uid_{os.getuid()}/job_4242/step_0/task_0")
        jobs_attrib.move(ranks[1].pid, top, f"docker/{CID}")
        t = Top("h100x8-training.ini", 120, 40, env=env)
        s = t.wait_for("slurm:4242.0", what="the Slurm job in the JOB column")
        if not re.search(r"TIME JOB\s+COMMAND", header(t)):
            fail("JOB between TIME and COMMAND at 120 columns", s)
        row = [l for l in s.split("\n") if f" {ranks[0].pid} " in l]
        if len(row) != 1 or not re.search(r"slurm:4242\.0\s+sleep 600", row[0]):
            fail("rank 0's row names its job before its command", s)
        row = [l for l in s.split("\n") if f" {ranks[1].pid} " in l]
        if len(row) != 1 or "docker:0123456789ab" not in row[0]:
            fail("rank 3's row names its container", s)
        # the job filter
        t.keys("j")
        t.wait_for("Job filter (slurm:4242, pod UID", what="job filter prompt")
        t.keys("4242", literal=True)
        t.keys("Enter")
        s = t.wait_for("[1 of 9 shown job 4242]", what="filtered by job")
        rows = [l for l in s.split("\n") if re.match(r"^\s+\d+\s+\d+ ", l)]
        if len(rows) != 1 or str(ranks[0].pid) not in rows[0]:
            fail("the job filter leaves rank 0 only", s)
        t.keys("Escape")
        t.wait_for("shown", absent=True, what="job filter cleared")
        # sort by JOB: > steps through the columns shown, JOB among them
        for _ in range(12):  # at most once around the columns
            t.keys(">")
            time.sleep(0.3)
            if "JOB▲" in header(t):
                break
        s = t.wait_for("JOB▲", what="sorted by JOB")
        rows = [l for l in s.split("\n") if re.match(r"^\s+\d+\s+\d+ ", l)]
        if f" {ranks[1].pid} " not in rows[-2] or f" {ranks[0].pid} " not in rows[-1]:
            fail("by JOB: docker:... then slurm:... after the processes without a job", s)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
        t.close()
        # 80x24 with --container: JOB 12 wide in place of TYPE and HOST-MEM
        t = Top("h100x8-training.ini", 80, 24, args=["--container", "docker:0123"], env=env)
        s = t.wait_for("[1 of 9 shown container docker:0123]", what="--container")
        h = header(t)
        if "TYPE" in h or "HOST-MEM" in h or not re.search(r"TIME JOB\s+COMMAND", h):
            fail("80 columns: JOB instead of TYPE and HOST-MEM", s)
        row = [l for l in s.split("\n") if f" {ranks[1].pid} " in l]
        if len(row) != 1 or "docker:01234" not in row[0] or "sleep" not in row[0]:
            fail("80 columns: the container's row with its job and command", s)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        top_lib.GPUMON = real_gpumon
        if t:
            t.close()
        for p in ranks:
            p.kill()
            p.wait()
        time.sleep(0.2)
        jobs_attrib.remove_tree(top)
        shutil.rmtree(scratch, ignore_errors=True)
    print("ok jobs")


if __name__ == "__main__":
    skip_without_tmux()
    test_keys()
    test_readonly()
    test_jobs()
    print("top_keys: all passed")

"""Helpers for the `gpumon top` tests: the real program in a real terminal.

Each test starts a private tmux server (its own socket), runs gpumon top in a
pane of a given size against the simulator, types keys with send-keys and
reads the screen with capture-pane.  The pane runs a small shell script that
prints a marker before top starts and, after it exits, its exit status and
the terminal modes (`stty -a`), so the tests can check that the terminal was
given back: the marker visible again (the alternate screen was left), echo
and canonical mode on, the cursor visible.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.environ["SOURCE_ROOT"]
GPUMON = os.environ["GPUMON"]
MARKER = "BEFORE-GPUMON-TOP"


def skip_without_tmux():
    if not shutil.which("tmux"):
        print("SKIP: tmux is not installed (Debian package tmux)")
        sys.exit(77)


def fail(msg, screen=None):
    print("FAIL:", msg)
    if screen is not None:
        print("--- screen\n" + screen + "\n---")
    sys.exit(1)


# What the tests wait for shows within a second on an idle machine; the
# deadline is generous so that a loaded one still passes (issue 24).
WAIT_S = 60


class Top:
    """gpumon top in a tmux pane of cols x rows."""

    def __init__(self, scenario, cols, rows, args=(), env=None, time_pin="300", utf8=True):
        self.dir = tempfile.mkdtemp(prefix="gpumon-top-")
        self.sock = os.path.join(self.dir, "tmux.sock")
        self.stty = os.path.join(self.dir, "stty.txt")
        e = {"GPUMON_NVML_LIB": os.environ["SIM_LIB"],
             "GPUSIM_SCENARIO": os.path.join(ROOT, "scenarios", scenario),
             "TERM": "tmux-256color" if _has_terminfo("tmux-256color") else "screen",
             "LANG": "C.UTF-8" if utf8 else "C", "LC_ALL": "C.UTF-8" if utf8 else "C",
             "TZ": "UTC"}
        if time_pin is not None:
            e["GPUSIM_TIME"] = str(time_pin)
        e.update(env or {})
        script = os.path.join(self.dir, "run.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n")
            for k in ("GPUSIM_TIME", "GPUSIM_EPOCH", "GPUSIM_SPEED", "NO_COLOR"):
                f.write(f"unset {k}\n")
            for k, v in e.items():
                f.write(f"export {k}={shlex.quote(v)}\n")
            f.write(f"echo {MARKER}\n")
            f.write(" ".join(shlex.quote(a) for a in [GPUMON, "top"] + list(args)) + "\n")
            f.write("echo EXIT=$?\n")
            # whole or not there: written aside, then renamed
            f.write(f"stty -a > {shlex.quote(self.stty)}.tmp 2>&1\n")
            f.write(f"mv {shlex.quote(self.stty)}.tmp {shlex.quote(self.stty)}\n")
            f.write("exec sleep 600\n")
        os.chmod(script, 0o755)
        self.tmux("new-session", "-d", "-s", "t", "-x", str(cols), "-y", str(rows), script)
        self.wait_for("gpumon top", what="the view to start")

    def tmux(self, *args, check=True):
        r = subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null"] + list(args),
                           capture_output=True, text=True, timeout=10)
        if check and r.returncode != 0:
            fail(f"tmux {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    def screen(self, escapes=False):
        return self.tmux("capture-pane", "-p", "-t", "t", *(["-e"] if escapes else []))

    def lines(self):
        return self.screen().split("\n")

    def keys(self, *keys, literal=False):
        self.tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def fmt(self, f):
        return self.tmux("display", "-p", "-t", "t", f).strip()

    def wait_for(self, text, timeout=WAIT_S, what=None, absent=False):
        """Waits until text is on the screen (absent: is not); text may be
        a tuple of strings that must all be there at once, so that a box is
        not read while it is half drawn."""
        deadline = time.monotonic() + timeout
        s = ""
        texts = text if isinstance(text, tuple) else (text,)
        while time.monotonic() < deadline:
            s = self.screen()
            if all(x in s for x in texts) != absent:
                return s
            time.sleep(0.1)
        fail(f"{'still' if absent else 'never'} saw {text!r} ({what or 'screen'})", s)

    def top_pid(self):
        shell = self.fmt("#{pane_pid}")
        r = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", shell], capture_output=True,
                           text=True)
        for line in r.stdout.split("\n"):
            parts = line.split()
            if len(parts) == 2 and parts[1] == "gpumon":
                return int(parts[0])
        return None

    def wait_exit(self, timeout=WAIT_S):
        """Waits for top to end; returns (exit status, stty -a)."""
        s = self.wait_for("EXIT=", timeout=timeout, what="top to exit")
        code = int(s.split("EXIT=")[1].split()[0])
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.stty):
            if time.monotonic() > deadline:
                fail(f"no stty -a after {timeout} s", s)
            time.sleep(0.05)
        return code, open(self.stty).read()

    def check_restored(self, code, stty, want_code=0):
        s = self.screen()
        if code != want_code:
            fail(f"exit status {code}, want {want_code}", s)
        if self.fmt("#{alternate_on}") != "0":
            fail("the alternate screen is still on after top exited", s)
        if MARKER not in s:
            fail("the screen before top is not back (alternate screen not left)", s)
        if self.fmt("#{cursor_flag}") != "1":
            fail("the cursor is still hidden", s)
        words = stty.replace(";", " ").split()
        for mode in ("icanon", "echo", "icrnl", "isig"):
            if mode not in words or f"-{mode}" in words:
                fail(f"terminal mode {mode} not restored: {stty}", s)

    def close(self):
        self.tmux("kill-server", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


def _has_terminfo(name):
    return subprocess.run(["infocmp", name], capture_output=True).returncode == 0


# The shipped scenarios' simulated PIDs (4194304 and up: never a real PID).
_SIM_PIDS = [str(p) for p in range(4194300, 4194500)]


def spawn(n):
    """n real processes to stand in for GPU processes (their PIDs), none of
    whose PIDs is a part of a simulated one (a live PID 9430 would match a
    text filter or a screen search meant for 4194304)."""
    got, spare = [], []
    while len(got) < n:
        p = subprocess.Popen(["sleep", "600"])
        (spare if any(str(p.pid) in s for s in _SIM_PIDS) else got).append(p)
    for p in spare:
        p.kill()
        p.wait()
    return got


def me():
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name

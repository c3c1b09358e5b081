#!/usr/bin/env python3
"""Every output-file option against a FIFO at its path (docs/security-files.md,
"A file the user names"; docs/security.md, "Output files: FIFOs").

The command runs as root; the FIFO sits in a sticky directory writable by
every user (as /tmp is).  One row per option: query -f, query -q -f, dmon -f,
pmon -f, doctor --capture, report --html, plot -o, run --csv, run
--json-file, manpage --write.

  fifo_other_no_reader: a FIFO of uid 65534 with no reader: the command exits
                        non-zero, promptly (it used to wait for ever in the
                        open), naming the path; the FIFO is left in place.
  fifo_other_reader:    the same FIFO with a reader (the attacker's): the
                        command exits non-zero naming the path and the reader
                        receives nothing (it used to receive the output, or
                        the FIFO was replaced by a file).
  fifo_own_reader:      root's own FIFO with a reader: the output goes into it
                        (the reader receives it, the command exits 0) and it
                        stays a FIFO (the whole-file writers used to rename a
                        new file over it).
  dev_null:             -f /dev/null keeps working for the -f options.

A command that is still running after DEADLINE seconds fails the test (it
blocked); nothing here measures how long a command took.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import select
import stat
import subprocess
import threading

from agentlib import GPUMON, Fail, Scratch, Skip, check, check_eq, main, run, sim_env

NOBODY = 65534
PINNED = 120
DEADLINE = 60


def need_root():
    if os.geteuid() != 0:
        raise Skip("needs root (the command as root, the FIFO of uid 65534)")


def first_manpage():
    rc, out, err = run(["manpage", "--list"], sim_env())
    check_eq(rc, 0, "manpage --list", err)
    return out.splitlines()[0]


def cases(data):
    """(name, argv with {P} for the path, the path's file name)."""
    q = ["query", "--query-gpu=index,name", "--format=csv,noheader"]
    return [
        ("query -f", q + ["-f", "{P}"], "out.csv"),
        ("query -q -f", ["query", "-q", "-f", "{P}"], "out.txt"),
        ("dmon -f", ["dmon", "-c", "1", "-f", "{P}"], "out.txt"),
        ("pmon -f", ["pmon", "-c", "1", "-f", "{P}"], "out.txt"),
        # doctor exits 1 when a check fails (no GPU here): the capture is
        # judged by its message and by what the reader gets
        ("doctor --capture", ["doctor", "--capture", "{P}"], "cap.tar.gz"),
        ("report --html", ["report", "--no-config", "--data-dir", data, "--since", "30d",
                           "--html", "{P}"], "report.html"),
        ("plot -o", ["plot", "--no-config", "--data-dir", data, "--since", "30d", "-o", "{P}"],
         "plot.svg"),
        ("run --csv", ["run", "--no-config", "--data-dir", data, "--csv", "{P}", "--", "true"],
         "run.csv"),
        ("run --json-file", ["run", "--no-config", "--data-dir", data, "--json-file", "{P}",
                             "--", "true"], "run.json"),
    ]


def argv_for(argv, path):
    return [a.replace("{P}", path) for a in argv]


def start(argv, env):
    return subprocess.Popen([GPUMON] + argv, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(p, what):
    """Waits up to DEADLINE seconds for p; a command still running then has
    blocked: killed, and the test fails."""
    try:
        out, err = p.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Fail(f"{what}: still running after {DEADLINE} s (blocked on the FIFO?)")
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


class Reader:
    """Reads the FIFO at path in a thread until stop() (opened at once, so the
    FIFO has a reader from now on)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = bytearray()
        self.done = threading.Event()
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def loop(self):
        while True:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            chunk = b""
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except BlockingIOError:
                    pass
            self.data += chunk
            if not chunk and self.done.is_set():
                return

    def stop(self):
        self.done.set()
        self.t.join(DEADLINE)
        os.close(self.fd)
        return bytes(self.data)


def setup(d):
    env = sim_env(pinned=PINNED)
    data = os.path.join(d, "data")
    rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data], env, timeout=60)
    check_eq(rc, 0, "record --once for report and plot", err)
    shared = os.path.join(d, "shared")
    os.makedirs(shared)
    os.chmod(shared, 0o1777)
    return env, data, shared


def fifo(path, uid):
    os.mkfifo(path, 0o666)
    os.chown(path, uid, uid)
    return path


def manpage_case(shared):
    """manpage --write DIR: the FIFO at DIR/man1/<first page>."""
    out = os.path.join(shared, "man")
    os.makedirs(os.path.join(out, "man1"))
    os.chmod(out, 0o1777)
    os.chmod(os.path.join(out, "man1"), 0o1777)
    return ("manpage --write", ["manpage", "--write", out], os.path.join(out, first_manpage()))


def all_cases(shared, data):
    rows = []
    for name, argv, file in cases(data):
        path = os.path.join(shared, name.replace(" ", "_").replace("-", "") + "." + file)
        rows.append((name, argv_for(argv, path), path))
    rows.append(manpage_case(shared))
    return rows


def test_fifo_other_no_reader():
    need_root()
    with Scratch("ofn") as d:
        env, data, shared = setup(d)
        for name, argv, path in all_cases(shared, data):
            fifo(path, NOBODY)
            rc, out, err = finish(start(argv, env), name)
            check(rc != 0, f"{name}: another user's FIFO without a reader is refused", out, err)
            check(path in err, f"{name}: the message names {path}", err)
            check(stat.S_ISFIFO(os.lstat(path).st_mode), f"{name}: the FIFO is left as it was")


def test_fifo_other_reader():
    need_root()
    with Scratch("ofr") as d:
        env, data, shared = setup(d)
        for name, argv, path in all_cases(shared, data):
            fifo(path, NOBODY)
            r = Reader(path)
            try:
                rc, out, err = finish(start(argv, env), name)
            finally:
                got = r.stop()
            check(rc != 0, f"{name}: another user's FIFO with a reader is refused", out, err)
            check(path in err and "another user" in err,
                  f"{name}: the message names {path} and its owner", err)
            check_eq(got, b"", f"{name}: the other user's reader receives nothing")
            check(stat.S_ISFIFO(os.lstat(path).st_mode), f"{name}: the FIFO is left as it was")


def test_fifo_own_reader():
    need_root()
    with Scratch("ofo") as d:
        env, data, shared = setup(d)
        for name, argv, path in all_cases(shared, data):
            fifo(path, os.geteuid())
            r = Reader(path)
            try:
                rc, out, err = finish(start(argv, env), name)
            finally:
                got = r.stop()
            check(rc == 0 or (name.startswith("doctor") and rc == 1 and path not in err),
                  f"{name}: into the caller's own FIFO: exit {rc}", err)
            check(len(got) > 0, f"{name}: the reader of the caller's FIFO receives the output")
            check(stat.S_ISFIFO(os.lstat(path).st_mode), f"{name}: the FIFO stays a FIFO")


def test_dev_null():
    env = sim_env(pinned=PINNED)
    for argv in (["query", "--query-gpu=index", "--format=csv", "-f", "/dev/null"],
                 ["dmon", "-c", "1", "-f", "/dev/null"], ["pmon", "-c", "1", "-f", "/dev/null"]):
        rc, out, err = finish(start(argv, env), argv[0])
        check_eq(rc, 0, f"{argv[0]} -f /dev/null", err)
    check(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is still a device")


if __name__ == "__main__":
    main([test_fifo_other_no_reader, test_fifo_other_reader, test_fifo_own_reader, test_dev_null])

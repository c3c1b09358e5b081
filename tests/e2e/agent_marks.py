#!/usr/bin/env python3
"""`gpumon mark` and the agent's control socket, at and past their bounds
(hardening point 15).

  mark_lengths:     40 marks of exactly 4096 bytes (the documented maximum,
                    multi-byte characters, commas and quotes in them) are
                    taken, each whole, into the events CSV and the store;
                    40 of 4097 bytes and 40 of 100 KB are refused before
                    anything is sent (exit 2, one message; a mark sent
                    after them is the next in the store), none of them dies
                    of SIGPIPE.
  closed_connection: a "agent" that accepts and closes at once, 40 times
                    for `mark` and for `agent --status`: exit 1 with a
                    message, never death by SIGPIPE (exit 141 in a shell).
  hostile_clients:  raw clients on agent.sock: 1 MiB without a newline is
                    read (no EPIPE for the sender) and answered with an
                    error; a mark over the bound, a NUL byte, a task that is
                    no task name are refused; a client that sends a byte
                    every 0.3 s is cut off (not before its 2 s deadline),
                    20 clients that send nothing (more than the 16 slots)
                    are closed, a mark made meanwhile is answered while they
                    still hold their connections, and the sampler keeps
                    sampling throughout (its cadence under this load is a
                    benchmark: make bench, docs/BENCHMARKS.md).
  mark_window:      (hardening round two, point 5) MARK and STEP times more
                    than an hour from the agent's clock (-1, 0, 1970, an
                    hour and 2 minutes either way, 2262, 300 future days)
                    are refused, counted in the status's
                    marks_out_of_window, and make no events file; times
                    within the hour are taken.
  socket_group:     (hardening round two, point 4; needs root and setpriv)
                    the agent under the shipped unit's UMask and
                    StateDirectoryMode (read from contrib/gpumon.service),
                    as root with a group of its own: agent.sock is 0660, and
                    a user whose only group is the agent's marks with
                    `gpumon mark`, reads `agent --status` and marks with the
                    Python client; a user outside the group is refused.
"""
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time

from agentlib import (DEADLINE, GPUMON, ROOT, Agent, Fail, Scratch, Skip, check, check_eq,
                      db_query, event_rows, gpu_rows, main, parse_time_ms, run, sim_env,
                      wait_until)

PINNED = 300
MAX = 4096


def mark_text(i, size):
    """A mark of exactly size bytes: its number, multi-byte characters, a
    comma and quotes (so the CSV quotes it), then filler."""
    head = f"mark {i:02d}: \u00e9poque \u2192 \"quoted\", then filler "
    body = head.encode()
    fill = b"0123456789abcdef"
    while len(body) < size:
        body += fill[:size - len(body)]
    check_eq(len(body), size, "test bug: mark size")
    return body.decode()


def too_long_err(n):
    return (f"gpumon: error: the mark is {n} bytes long; a mark is at most {MAX} bytes\n"
            "Try 'gpumon mark --help'.\n")


def store_marks(data):
    """The texts of the mark events in the agent's store, in order."""
    db = os.path.join(data, "gpumon.db")
    if not os.path.exists(db):
        return []
    return [r[0] for r in db_query(db, "SELECT text FROM events WHERE type = 'mark' ORDER BY id")]


def test_mark_lengths():
    env = sim_env(pinned=PINNED)
    with Scratch("mkl") as d:
        data = os.path.join(d, "data")
        # no alert rules: this test counts only marks (of the store's events,
        # only those of type 'mark': a diagnosis may add its own)
        a = Agent(data, env, ["--interval", "1s", "--no-alerts"])
        want = [mark_text(i, MAX) for i in range(40)]
        # sent after the refused marks: once it is in the store, anything
        # they had sent would be there before it
        last = "after the refused marks"
        try:
            a.start()
            for i, text in enumerate(want):
                rc, out, err = run(["mark", "--no-config", "--data-dir", data, text], env)
                check_eq((rc, out, err), (0, "", ""), f"mark {i} of {MAX} bytes")
            wait_until(lambda: len(store_marks(data)) >= 40, "the 40 marks in the store")
            for size in (MAX + 1, 100 * 1000):
                for i in range(40):
                    rc, out, err = run(["mark", "--no-config", "--data-dir", data,
                                        mark_text(i, size)], env)
                    check(rc >= 0, f"mark {i} of {size} bytes died of signal {-rc}", err)
                    check_eq((rc, out, err), (2, "", too_long_err(size)),
                             f"mark {i} of {size} bytes")
            # the length is the text's, arguments joined by one space
            rc, out, err = run(["mark", "--no-config", "--data-dir", data, "a" * 2048,
                                "b" * 2048], env)
            check_eq((rc, out, err), (2, "", too_long_err(MAX + 1)), "two words of 2048 bytes")
            rc, out, err = run(["mark", "--no-config", "--data-dir", data, last], env)
            check_eq((rc, out, err), (0, "", ""), "the mark after the refused ones")
            wait_until(lambda: last in store_marks(data), "the last mark in the store")
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "agent exit status", a.log())
        marks = [e[7] for e in event_rows(os.path.join(data, "csv")) if e[3] == "mark"]
        check_eq(len(marks), 41, "marks in the events CSV (none of the refused ones)")
        for i, (got, w) in enumerate(zip(marks, want + [last])):
            check_eq(got, w, f"mark {i} in the events CSV (whole)")
        check_eq(store_marks(data), want + [last],
                 "marks in the store (whole; none of the refused ones)")
        rc, out, err = run(["report", "--no-config", "--data-dir", data, "--since", "2h",
                            "--format", "csv"], env)
        check_eq(rc, 0, "report", err)
        check(want[39] in out.replace('""', '"'), "the report shows a whole mark", out[-3000:])


class ClosingAgent:
    """A listener on <dir>/agent.sock that accepts and closes at once,
    reading nothing: an agent that died or refused the connection."""

    def __init__(self, d):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(os.path.join(d, "agent.sock"))
        self.sock.listen(64)
        self.stop = False
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def serve(self):
        self.sock.settimeout(0.2)
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            c.close()

    def close(self):
        self.stop = True
        self.t.join()
        self.sock.close()


def test_closed_connection():
    env = sim_env(pinned=PINNED)
    with Scratch("mkc") as d:
        os.chmod(d, 0o700)
        srv = ClosingAgent(d)
        sock = os.path.join(d, "agent.sock")
        msg = (f"gpumon: error: the agent at {sock} closed the connection without "
               "answering\n")
        try:
            for args in (["mark", "--no-config", "--data-dir", d, mark_text(0, MAX)],
                         ["agent", "--status", "--no-config", "--data-dir", d]):
                for i in range(40):
                    rc, out, err = run(args, env)
                    check(rc >= 0, f"{args[0]} try {i} died of signal {-rc} (SIGPIPE is 13)")
                    check_eq((rc, out, err), (1, "", msg), f"{args[0]} try {i}")
        finally:
            srv.close()


def raw(data_dir, payload, timeout=5.0):
    """Sends payload, half-closes, and reads the reply to EOF.  Returns
    (reply, error) where error names an OSError of the send or the reads."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(os.path.join(data_dir, "agent.sock"))
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            return b"", f"send: {e!r}"
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except OSError as e:
                return b"".join(chunks), f"recv: {e!r}"
            if not b:
                return b"".join(chunks), None
            chunks.append(b)
    finally:
        s.close()


def test_hostile_clients():
    env = sim_env(pinned=PINNED)
    with Scratch("mkh") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "100ms"])
        idle = []
        try:
            a.start()
            sock = os.path.join(data, "agent.sock")

            # 1 MiB without a newline: read to the end, answered
            for i in range(3):
                got = raw(data, b"MARK 1 - " + b"x" * (1 << 20))
                check_eq(got, (b"ERR request longer than 8192 bytes\n", None),
                         f"1 MiB without a newline, try {i}")
            now = time.time_ns()
            cases = [
                (f"MARK {now} - ".encode() + b"y" * (MAX + 1) + b"\n",
                 b"ERR mark longer than 4096 bytes\n"),
                (f"MARK {now} - ab\0cd\n".encode(), b"ERR malformed request (a NUL byte)\n"),
                (f"MARK {now} ../../etc text\n".encode(),
                 b"ERR invalid task (1-63 letters, digits, '.', '_', '-'; not starting with "
                 b"'.')\n"),
                (f"MARK {now} - ".encode() + b"z" * MAX + b"\n", b"OK\n"),
                (b"PING", b"PONG\n"),  # no newline, then EOF: still one request
                (b"NOPE\n", b"ERR unknown request\n"),
            ]
            for payload, want in cases:
                check_eq(raw(data, payload), (want, None), f"request {payload[:60]!r}")

            # a client that dribbles (alone: cut off by its deadline), then 20
            # that say nothing (more than the 16 slots: the oldest make room).
            # A request made meanwhile is answered while they still hold
            # their connections (the order of events, not a duration: on a
            # loaded machine durations say nothing), and the sampler keeps
            # sampling (the sample times in the CSV fall inside the stall).
            # The cadence's cost under this load is measured by make bench
            # (the "tests" section of docs/BENCHMARKS.md), not here.
            slow = {}
            started = threading.Event()

            def slowloris():
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sock)
                slow["t0"] = time.time()
                t0 = time.monotonic()
                try:
                    for _ in range(40):  # 12 s if nobody stops it
                        s.send(b"M")
                        started.set()
                        time.sleep(0.3)
                    slow["end"] = "still open after 12 s"
                except OSError as e:
                    slow["end"] = repr(e)
                slow["t"] = time.monotonic() - t0
                slow["t1"] = time.time()
                s.close()

            th = threading.Thread(target=slowloris)
            th.start()
            check(started.wait(DEADLINE), "the dribbling client could not send")
            got = raw(data, f"MARK {time.time_ns()} - meanwhile\n".encode(), timeout=DEADLINE)
            open_then = "end" not in slow
            check_eq(got, (b"OK\n", None), "a mark while a client dribbles")
            check(open_then, "the mark was answered only after the dribbling client was cut off",
                  slow)
            rc, out, err = run(["mark", "--no-config", "--data-dir", data, "meanwhile-cli"], env,
                               timeout=DEADLINE)
            check_eq((rc, out, err), (0, "", ""), "gpumon mark while a client dribbles")
            th.join(DEADLINE)
            check(not th.is_alive() and slow.get("end") != "still open after 12 s",
                  "the dribbling client was not cut off", slow)
            # never before its 2 s deadline (a loaded machine only makes it later)
            check(slow["t"] > 1.8, "the dribbling client was cut off before its 2 s deadline",
                  slow)

            for _ in range(20):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sock)
                idle.append(s)
            crowd_t0 = time.time()
            got = raw(data, f"MARK {time.time_ns()} - crowded\n".encode(), timeout=DEADLINE)
            still_open = 0
            for s in idle:
                try:
                    s.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK)
                except BlockingIOError:
                    still_open += 1
                except OSError:
                    pass
            check_eq(got, (b"OK\n", None), "a mark while 20 clients hold connections")
            check(still_open > 0, "the mark was answered only after every idle client was "
                  "closed")
            rc, out, err = run(["mark", "--no-config", "--data-dir", data, "crowded-cli"], env,
                               timeout=DEADLINE)
            check_eq((rc, out, err), (0, "", ""), "gpumon mark behind the idle clients")
            for s in idle:
                s.settimeout(DEADLINE)
                try:
                    b = s.recv(100)
                except OSError as e:
                    b = repr(e).encode()
                check_eq(b, b"", "an idle client's connection is closed (EOF)")
            crowd_t1 = time.time()
            rc, _ = a.stop()
        finally:
            for s in idle:
                s.close()
            a.cleanup()
        check_eq(rc, 0, "agent exit status", a.log())
        marks = [e[7] for e in event_rows(os.path.join(data, "csv")) if e[3] == "mark"]
        check_eq(marks, ["z" * MAX, "meanwhile", "meanwhile-cli", "crowded", "crowded-cli"],
                 "the marks taken (and only those)")
        times = sorted({parse_time_ms(r[0]) / 1000 for r in gpu_rows(os.path.join(data, "csv"))})
        for what, t0, t1 in (("the client dribbled", slow["t0"], slow["t1"]),
                             ("the idle clients held their connections", crowd_t0, crowd_t1)):
            inside = [t for t in times if t0 < t < t1]
            check(len(inside) >= 3, f"{len(inside)} samples while {what} "
                  f"({t1 - t0:.1f} s at 100 ms): the sampler waited for the socket",
                  [t - t0 for t in times])


WINDOW_S = 3600


def window_err(what, t):
    return (f"ERR {what} time {t} is more than {WINDOW_S} s from the agent's clock ").encode()


def test_mark_window():
    env = sim_env(pinned=PINNED)
    with Scratch("mkw") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "1s", "--no-alerts"])
        try:
            a.start()
            st0 = a.status()
            now = time.time_ns()
            day = 86400 * 10**9
            hour = WINDOW_S * 10**9
            # just outside by 2 minutes: room for a slow run of this test
            bad = [-1, 0, 1, now - hour - 120 * 10**9, now + hour + 120 * 10**9, 2**63 - 1]
            bad += [now + k * day for k in range(1, 301)]
            refused = 0
            for t in bad:
                for what, req in (("MARK", f"MARK {t} - far\n"),
                                  ("STEP", f"STEP {t} - 7 loss=0.5\n")):
                    reply, e = raw(data, req.encode())
                    check(e is None and reply.startswith(window_err(what, t))
                          and reply.endswith(b")\n") and reply.count(b"\n") == 1,
                          f"{what} at {t} is refused", reply, e)
                    refused += 1
            # within the window, either way: taken (2 minutes inside its
            # edges, from the time now)
            now = time.time_ns()
            ok_times = [now - hour + 120 * 10**9, now, now + hour - 120 * 10**9]
            for i, t in enumerate(ok_times):
                check_eq(raw(data, f"MARK {t} - near {i}\n".encode()), (b"OK\n", None),
                         f"a mark {(t - now) / 1e9:.0f} s from now")
            st = a.wait_for(lambda s: s["sinks"]["store"]["events"] >=
                            st0["sinks"]["store"]["events"] + len(ok_times), 20,
                            "the marks within the window to arrive")
            check_eq((st0.get("marks_out_of_window"), st.get("marks_out_of_window")),
                     (0, refused), "marks_out_of_window before and after", st)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "agent exit status", a.log())
        csv_dir = os.path.join(data, "csv")
        marks = sorted(e[7] for e in event_rows(csv_dir) if e[3] == "mark")
        check_eq(marks, [f"near {i}" for i in range(len(ok_times))], "the marks taken")
        days = [n for n in os.listdir(csv_dir) if "_events_" in n]
        check(len(days) <= 3, f"{len(days)} events files for marks within an hour of now",
              sorted(days))


AGENT_GID = 4243  # the agent's group (the unit's Group=gpumon, DynamicUser's group)
MEMBER_UID = 4242  # a user whose only group is the agent's
OTHER_GID = 4244  # a group that is not the agent's


def unit_setting(key):
    """KEY= in contrib/gpumon.service, the shipped unit (the last one)."""
    with open(os.path.join(ROOT, "contrib", "gpumon.service")) as f:
        found = re.findall(rf"^{key}=(\S+)\s*$", f.read(), re.M)
    check(found, f"contrib/gpumon.service has no {key}=")
    return found[-1]


def as_user(uid, gid, argv, env):
    """argv run as uid with gid as its only group -> (rc, stdout, stderr)."""
    p = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"] + argv,
                       env=env, capture_output=True, timeout=30)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def test_socket_group():
    if os.geteuid() != 0:
        raise Skip("needs root (the agent as root in a group of its own, clients as others)")
    if not shutil.which("setpriv"):
        raise Skip("needs setpriv (util-linux)")
    umask = int(unit_setting("UMask"), 8)
    dir_mode = int(unit_setting("StateDirectoryMode"), 8)
    env = sim_env(pinned=PINNED)
    py = dict(env, PYTHONPATH=os.path.join(ROOT, "python"), PYTHONDONTWRITEBYTECODE="1")
    with Scratch("mkg") as d:
        os.chmod(d, 0o755)
        data = os.path.join(d, "data")
        os.mkdir(data)
        os.chown(data, 0, AGENT_GID)
        os.chmod(data, dir_mode)  # as systemd makes the StateDirectory
        a = Agent(data, env, ["--interval", "1s", "--no-alerts"])
        # root, with the agent's group and the unit's umask
        a.argv = ["sh", "-c", f"umask {umask:04o} && exec \"$@\"", "sh", "setpriv",
                  f"--regid={AGENT_GID}", "--clear-groups"] + a.argv
        try:
            a.start()
            st = os.stat(os.path.join(data, "agent.sock"))
            check_eq((oct(stat.S_IMODE(st.st_mode)), st.st_uid, st.st_gid),
                     (oct(0o660), 0, AGENT_GID), "agent.sock's mode, owner and group")
            ev0 = a.status()["sinks"]["store"]["events"]
            mark = [GPUMON, "mark", "--no-config", "--data-dir", data]
            got = as_user(MEMBER_UID, AGENT_GID, mark + ["from the group"], env)
            check_eq(got, (0, "", ""), "gpumon mark by a member of the agent's group")
            rc, out, err = as_user(MEMBER_UID, AGENT_GID, [GPUMON, "agent", "--status",
                                                           "--no-config", "--data-dir", data], env)
            check_eq((rc, err), (0, ""), "agent --status by a member of the agent's group", out)
            check('"samples"' in out, "agent --status prints the counters", out)
            got = as_user(MEMBER_UID, AGENT_GID, [sys.executable, "-m", "gpumon", "mark",
                                                  "--data-dir", data, "from python"], py)
            check_eq(got, (0, "", ""), "the Python client's mark by a member of the group")
            rc, out, err = as_user(MEMBER_UID, OTHER_GID, mark + ["from outside"], env)
            check_eq((rc, out), (1, ""), "gpumon mark by a user outside the group", err)
            check("Permission denied" in err, "the outsider is told why", err)
            a.wait_for(lambda s: s["sinks"]["store"]["events"] >= ev0 + 2, DEADLINE,
                       "the group's two marks to arrive")
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "agent exit status", a.log())
        marks = sorted(e[7] for e in event_rows(os.path.join(data, "csv")) if e[3] == "mark")
        check_eq(marks, ["from python", "from the group"], "the marks taken (and only those)")


if __name__ == "__main__":
    main([test_mark_lengths, test_closed_connection, test_hostile_clients, test_mark_window,
          test_socket_group])

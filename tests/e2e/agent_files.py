#!/usr/bin/env python3
"""The files the agent (and `query -f`, `dmon -f`) create, in directories
that someone else can write to (docs/security-files.md).

The agent runs as root; an unprivileged user (uid 65534, through setpriv)
owns the directories and plants symbolic links at every name gpumon creates
or rewrites there, each pointing at a victim file of root's.  After the run
every victim is byte for byte what it was, and gpumon either refused with a
message naming the file or went on safely.

  lock_link:        agent.lock -> victim: refused, the victim keeps its bytes
                    (it used to be truncated to the agent's PID).
  alert_log_link:   alerts.jsonl -> victim: refused at start.
  alert_state_link: alerts.state.tmp (the temporary's old, predictable name)
                    and alerts.state -> victims: `record --once` saves its
                    state as a new regular file; the victims are untouched.
  textfile_links:   .gpumon.prom.<PID>.tmp (the old temporary, planted for
                    the PID of the agent about to run) and gpumon.prom ->
                    victims: the textfile is written, the victims untouched.
  csv_links:        today's GPU, processes and events files and an old
                    day's gzip temporary -> victims: rows go to -2 files,
                    the old day is compressed, the victims are untouched.
  socket_link:      agent.sock -> victim: not removed, the agent runs on
                    without its control socket and says why.
  store_links:      gpumon.db (an empty victim, which SQLite would have
                    made a database of), gpumon.db.lock, -wal, -shm:
                    refused or safe, the victims untouched.
  loose_dirs:       a data, CSV, store, textfile or alert-log directory
                    writable by every user without the sticky bit is refused
                    with a message naming it and its mode; sticky (1777) and
                    group-writable (0770) ones are accepted.
  second_agent:     a second agent with its own data directory but the
                    first one's --store-path, or --csv-dir, exits 1 naming
                    the first one's PID and the path; the first one's rows
                    stay whole and on its 200 ms grid.
  output_file:      `query -f`/`dmon -f` leave the file alone when sampling
                    cannot start, and do not follow another user's symbolic
                    link in a sticky shared directory (as the kernel's
                    protected_symlinks would not).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import shutil
import signal
import subprocess
import time

from agentlib import (DEADLINE, GPUMON, GPU_HEADER, Agent, Fail, Scratch, Skip, check, check_eq,
                      check_grid, check_no_duplicates, check_whole_samples, day_files, db_samples,
                      gpu_rows, local_time, main, quiet_args, run, sim_env)

NOBODY = 65534
PINNED = 120


def need_root():
    if os.geteuid() != 0:
        raise Skip("needs root (the agent as root, the attacker as uid 65534)")
    if not shutil.which("setpriv"):
        raise Skip("needs setpriv (util-linux)")


def as_nobody(*cmd):
    p = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
                       + list(cmd), capture_output=True, text=True)
    check_eq(p.returncode, 0, f"as uid {NOBODY}: {' '.join(cmd)}", p.stderr)


def nobody_dir(path, mode=0o755):
    os.makedirs(path, exist_ok=True)
    os.chown(path, NOBODY, NOBODY)
    os.chmod(path, mode)
    return path


class Victims:
    """Root's files that the planted links point at."""

    def __init__(self, d):
        self.dir = os.path.join(d, "victims")
        os.makedirs(self.dir, exist_ok=True)
        self.want = {}

    def make(self, tag, content=None):
        p = os.path.join(self.dir, tag)
        data = (f"precious {tag}\n" if content is None else content).encode()
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o600)
        self.want[p] = data
        return p

    def plant(self, link, tag, content=None):
        """A victim named tag, and a link to it at link, made by the attacker."""
        v = self.make(tag, content)
        as_nobody("ln", "-s", v, link)
        return v

    def check(self, *ctx):
        for p, data in self.want.items():
            with open(p, "rb") as f:
                got = f.read()
            check(got == data, f"victim {p} was written: {got[:80]!r}, want {data!r}", *ctx)


def setup(d):
    os.chmod(d, 0o755)  # the attacker must reach the directories below
    return Victims(d)


def today():
    return local_time(time.time()).strftime("%Y%m%d")


def once(data, env, extra=(), timeout=30):
    return run(["record", "--once", "--no-config", "--data-dir", data] + list(extra), env,
               timeout=timeout)


def start_stopped(argv, env):
    """Starts argv stopped (SIGSTOP) before it runs, so that its PID is known
    before its first instruction; SIGCONT lets it go."""
    p = subprocess.Popen(["sh", "-c", 'kill -STOP $$; exec "$@"', "sh"] + argv, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    deadline = time.time() + DEADLINE
    while time.time() < deadline:
        with open(f"/proc/{p.pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "T":
                return p
        time.sleep(0.01)
    p.kill()
    raise Exception("the child did not stop")


# --------------------------------------------------------------- the links

def test_lock_link():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("flk") as d:
        vs = setup(d)
        data = nobody_dir(os.path.join(d, "data"))
        vs.plant(os.path.join(data, "agent.lock"), "lock")
        rc, out, err = once(data, env)
        vs.check(err)
        check_eq(rc, 1, "record --once with agent.lock a symbolic link", err)
        check(f"{data}/agent.lock" in err and "symbolic link" in err,
              "the message names agent.lock and says it is a symbolic link", err)


def test_alert_log_link():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("fal") as d:
        vs = setup(d)
        data = nobody_dir(os.path.join(d, "data"))
        vs.plant(os.path.join(data, "alerts.jsonl"), "alertlog")
        rc, out, err = once(data, env)
        vs.check(err)
        check_eq(rc, 1, "record --once with alerts.jsonl a symbolic link", err)
        check(f"{data}/alerts.jsonl" in err and "symbolic link" in err,
              "the message names alerts.jsonl and says it is a symbolic link", err)


def test_alert_state_link():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("fas") as d:
        vs = setup(d)
        data = nobody_dir(os.path.join(d, "data"))
        state = os.path.join(data, "alerts.state")
        vs.plant(state + ".tmp", "statetmp")
        vs.plant(state, "state")
        rc, out, err = once(data, env)
        vs.check(err)
        check_eq(rc, 0, "record --once", err)
        check(not os.path.islink(state) and os.path.isfile(state),
              "alerts.state is now a regular file of its own", os.listdir(data))
        with open(state) as f:
            check_eq(f.readline(), "gpumon-alert-state 1\n", "the saved state's first line")
        check(f"{state}" in err and "symbolic link" in err,
              "a warning names the linked alerts.state it did not read", err)


def test_textfile_links():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("ftf") as d:
        vs = setup(d)
        data = nobody_dir(os.path.join(d, "data"))
        tf = nobody_dir(os.path.join(d, "tf"))
        p = start_stopped([GPUMON, "record", "--once", "--no-config", "--data-dir", data,
                           "--exporter", "--listen", "", "--textfile-dir", tf], env)
        try:
            vs.plant(os.path.join(tf, f".gpumon.prom.{p.pid}.tmp"), "tftmp")
            vs.plant(os.path.join(tf, "gpumon.prom"), "tf")
        finally:
            p.send_signal(signal.SIGCONT)
        out, err = p.communicate(timeout=30)
        err = err.decode(errors="replace")
        vs.check(err)
        check_eq(p.returncode, 0, "record --once with a textfile", err)
        prom = os.path.join(tf, "gpumon.prom")
        check(not os.path.islink(prom) and os.path.isfile(prom), "gpumon.prom is a regular file",
              os.listdir(tf))
        with open(prom) as f:
            text = f.read()
        check("gpumon_" in text, "gpumon.prom holds the metrics", text[:300])
        left = [n for n in os.listdir(tf) if n != "gpumon.prom" and not n.endswith(f".{p.pid}.tmp")]
        check_eq(left, [], "no temporary left in the textfile directory")


def test_csv_links():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("fcv") as d:
        vs = setup(d)
        data = nobody_dir(os.path.join(d, "data"))
        csv_dir = nobody_dir(os.path.join(data, "csv"))
        day = today()
        for kind in ("", "procs_", "events_"):
            vs.plant(os.path.join(csv_dir, f"default_{kind}{day}.csv"), f"csv{kind}")
        # an old day to compress, its gzip temporary planted
        old = local_time(time.time() - 3 * 86400).strftime("%Y%m%d")
        oldp = os.path.join(csv_dir, f"default_{old}.csv")
        with open(oldp, "w") as f:
            f.write(GPU_HEADER + "\n")
        vs.plant(oldp + ".gz.tmp", "gztmp")
        a = Agent(data, env, ["--interval", "200ms", "--procs", "--compress-after", "1d"])
        try:
            a.start(wait_samples=3)
            deadline = time.time() + DEADLINE
            while not os.path.exists(oldp + ".gz") and time.time() < deadline:
                check(a.alive(), "the agent runs", a.log())
                time.sleep(0.1)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        vs.check(a.log())
        check_eq(rc, 0, "exit status", a.log())
        check(os.path.isfile(oldp + ".gz") and not os.path.islink(oldp + ".gz"),
              "the old day was compressed", os.listdir(csv_dir))
        for kind in ("", "procs_", "events_"):
            p = os.path.join(csv_dir, f"default_{kind}{day}-2.csv")
            check(os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) > 0,
                  f"the {kind or 'GPU '}rows went to a -2 file", os.listdir(csv_dir))


def test_socket_link():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("fso") as d:
        vs = setup(d)
        data = nobody_dir(os.path.join(d, "data"))
        sock = os.path.join(data, "agent.sock")
        vs.plant(sock, "sock")
        a = Agent(data, env, ["--interval", "200ms"])
        try:
            a.start(wait_samples=0)
            deadline = time.time() + DEADLINE
            while "agent.sock" not in a.log() and time.time() < deadline:
                check(a.alive(), "the agent runs", a.log())
                time.sleep(0.1)
            check(a.alive(), "the agent runs without its control socket", a.log())
            rc, _ = a.stop()
        finally:
            a.cleanup()
        vs.check(a.log())
        check_eq(rc, 0, "exit status", a.log())
        check(os.path.islink(sock), "the planted link is left where it is")
        check(f"{sock} exists and is not a socket" in a.log(),
              "the log says why the control socket is missing", a.log())


def test_store_links():
    need_root()
    env = sim_env(pinned=PINNED)
    # (name planted, victim content, expected exit status, words in the message)
    cases = [
        ("gpumon.db", "", 1, ["gpumon.db", "symbolic link"]),
        ("gpumon.db.lock", None, 1, ["gpumon.db.lock", "symbolic link"]),
        ("gpumon.db-wal", None, None, []),
        ("gpumon.db-shm", None, 1, ["gpumon.db-shm", "symbolic link"]),
    ]
    with Scratch("fst") as d:
        vs = setup(d)
        for i, (name, content, want_rc, words) in enumerate(cases):
            data = nobody_dir(os.path.join(d, f"data{i}"))
            vs.plant(os.path.join(data, name), f"store{i}", content)
            rc, out, err = once(data, env, ["--no-csv"])
            vs.check(name, err)
            if want_rc is None:
                check(rc in (0, 1), f"{name}: exit status {rc}", err)
            else:
                check_eq(rc, want_rc, f"record --once with {name} a symbolic link", err)
            for w in words:
                check(w in err, f"{name}: the message says {w!r}", err)


def test_loose_dirs():
    need_root()
    env = sim_env(pinned=PINNED)
    # (which directory, its mode, refused?)
    cases = [("data", 0o777, True), ("data", 0o1777, False), ("data", 0o770, False),
             ("csv", 0o777, True), ("csv", 0o1777, False), ("store", 0o757, True),
             ("textfile", 0o777, True), ("textfile", 0o775, False), ("alertlog", 0o777, True)]
    with Scratch("fld") as d:
        os.chmod(d, 0o755)
        for i, (which, mode, refused) in enumerate(cases):
            base = os.path.join(d, str(i))
            data = os.path.join(base, "data")
            loose = os.path.join(base, which)
            os.makedirs(data)
            os.makedirs(loose, exist_ok=True)
            os.chmod(loose, mode)
            extra = {"data": [], "csv": ["--csv-dir", loose],
                     "store": ["--store-path", os.path.join(loose, "g.db")],
                     "textfile": ["--exporter", "--listen", "", "--textfile-dir", loose],
                     "alertlog": ["--alert-log", os.path.join(loose, "a.jsonl")]}[which]
            rc, out, err = once(data, env, extra)
            what = f"{which} directory mode {mode:04o}"
            if refused:
                check_eq(rc, 1, f"{what}: exit status", err)
                check(f"{loose} is writable by every user (mode {mode:04o})" in err,
                      f"{what}: the message names the directory and its mode", err)
                check("chmod" in err, f"{what}: the message says how to fix it", err)
            else:
                check_eq(rc, 0, f"{what}: exit status", err)


# ---------------------------------------------------------- second agent

def second_agent(flag):
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("f2a") as d:
        d1, d2 = os.path.join(d, "one"), os.path.join(d, "two")
        a = Agent(d1, env, ["--interval", "200ms"])
        target = {"--store-path": os.path.join(d1, "gpumon.db"),
                  "--csv-dir": os.path.join(d1, "csv")}[flag]
        try:
            a.start(wait_samples=2)
            try:  # (a second agent that started would run until the timeout)
                rc, out, err = run(["agent", "--no-config", "--data-dir", d2, "--interval",
                                    "100ms", flag, target] + quiet_args(), env, timeout=30)
            except subprocess.TimeoutExpired:
                raise Fail(f"a second agent with the first's {flag} started and kept running")
            check_eq(rc, 1, f"second agent with the first's {flag}: exit status", err)
            check(f"PID {a.pid}" in err and target in err,
                  "the message names the first agent's PID and the path", err)
            n0 = a.status()["samples"]
            a.wait_samples(n0 + 5)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "first agent's exit status", a.log())
        rows = gpu_rows(os.path.join(d1, "csv"))
        check_no_duplicates(rows, "CSV")
        times = check_whole_samples(rows, 8, "CSV")
        check_grid(times, 200, "CSV")
        st = db_samples(os.path.join(d1, "gpumon.db"))
        check_eq(len(st), len(rows), "store rows = CSV rows")
        check_grid(sorted({r[0] for r in st}), 200, "store")
        check(not os.path.exists(os.path.join(d2, "csv")) or not day_files(os.path.join(d2, "csv")),
              "the second agent wrote no CSV rows of its own")


def test_second_agent_store():
    second_agent("--store-path")


def test_second_agent_csv():
    second_agent("--csv-dir")


# ------------------------------------------------------------ -f FILE

def test_output_file():
    need_root()
    env = sim_env(pinned=PINNED)
    with Scratch("fof") as d:
        vs = setup(d)
        query = ["query", "--query-gpu=index,name", "--format=csv,noheader"]
        # sampling cannot start: the file keeps what it had
        keep = vs.make("keep", "yesterday's results\n")
        for cmd in (query, ["dmon", "-c", "1"]):
            rc, out, err = run(cmd + ["-f", keep], dict(env, GPUMON_NVML_LIB="/nonexistent"))
            check(rc != 0, f"{cmd[0]} -f without a driver fails", err)
        vs.check("a failed start must not truncate the -f file")
        # another user's link in a sticky, world-writable directory
        shared = os.path.join(d, "shared")
        os.makedirs(shared)
        os.chmod(shared, 0o1777)
        for cmd in (query, ["dmon", "-c", "1"]):
            link = os.path.join(shared, f"{cmd[0]}.csv")
            vs.plant(link, f"out-{cmd[0]}")
            rc, out, err = run(cmd + ["-f", link], env)
            vs.check(err)
            check_eq(rc, 1, f"{cmd[0]} -f through another user's link in {shared}", err)
            check(link in err and "symbolic link" in err, "the message names the link", err)
        # root's own link, in root's directory, is followed, like a shell's >
        mine = os.path.join(d, "mine.csv")
        target = os.path.join(d, "target.csv")
        with open(target, "w") as f:
            f.write("old old old old old old old old old old old old old old old old\n" * 10)
        os.symlink(target, mine)
        rc, out, err = run(query + ["-f", mine], env)
        check_eq(rc, 0, "query -f through root's own link", err)
        with open(target) as f:
            lines = f.read().splitlines()
        check_eq(len(lines), 8, "the target holds the 8 GPUs' lines, nothing of before", lines)
        check(lines[0].startswith("0, "), "the first line is GPU 0", lines)


if __name__ == "__main__":
    main([test_lock_link, test_alert_log_link, test_alert_state_link, test_textfile_links,
          test_csv_links, test_socket_link, test_store_links, test_loose_dirs,
          test_second_agent_store, test_second_agent_csv, test_output_file])

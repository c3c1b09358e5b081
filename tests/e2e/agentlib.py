"""Helpers for the agent's end-to-end tests (tests/e2e/agent_*.py).

The tests run the built `gpumon agent` / `gpumon record` against the NVML
simulator in a short scratch directory under /tmp (the control socket path
<data-dir>/agent.sock must fit in 108 bytes), then read what it wrote: the
daily CSV files, the SQLite store (Python's sqlite3 module, read-only), the
agent's log (its stderr) and its `--status` counters.

Environment (set by tests/e2e/meson.build): GPUMON, SIM_LIB, SOURCE_ROOT.
Run by hand from the source root they default to build-e2e/.

A test file calls main(tests): each test is a function; a failed check
raises Fail (printed with its context), Skip skips one test; the process
exits 1 if any test failed, 77 (meson's "skipped") if every test skipped.
Only the standard library is used.
"""
import csv
import datetime
import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.environ.get("SOURCE_ROOT") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
GPUMON = os.environ.get("GPUMON") or os.path.join(ROOT, "build-e2e", "src", "gpumon")
SIM_LIB = os.environ.get("SIM_LIB") or os.path.join(ROOT, "build-e2e", "sim", "libnvidia-ml.so.1")

# The default CSV header of the GPU file (csv.h, docs/config.md).
GPU_HEADER = ("time,host,task_id,gpu,uuid,name,utilization_gpu_percent,utilization_memory_percent,"
              "memory_used_mib,memory_total_mib,power_draw_w,power_limit_w,temperature_gpu_c,"
              "clocks_sm_mhz,clocks_mem_mhz,clocks_event_reasons,status")
EVENTS_HEADER = "time,host,task_id,type,gpu,uuid,code,text"
PROCS_HEADER = ("time,host,task_id,gpu,uuid,pid,user,process_name,command,used_memory_mib,type,"
                "host_state,job_id,ns_pid,ppid,sid")
# The nvidia-smi fields of those columns, in order (for `gpumon query`).
QUERY_FIELDS = ("index,uuid,name,utilization.gpu,utilization.memory,memory.used,memory.total,"
                "power.draw,power.limit,temperature.gpu,clocks.sm,clocks.mem,"
                "clocks_event_reasons.active")
# Clock event reason bits (docs/store.md) and the names the CSV writes.
REASON_BITS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap",
               0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
               0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
               0x100: "display_clock_setting"}


def _noon_offset_h():
    """Whole hours east of UTC that make local time about noon now."""
    return round((43200 - time.time() % 86400) / 3600)


# The tests run in a zone where it is about noon (a whole-hour offset, so
# the CSV's ISO 8601 times are exact): a nightly run at 00:00 UTC must not
# split a test's rows over two day files.  agent_rotation.py makes its own
# midnight.
LOCAL_OFFSET_H = _noon_offset_h()
LOCAL_TZ = f"LCL{'-' if LOCAL_OFFSET_H >= 0 else '+'}{abs(LOCAL_OFFSET_H):02d}"
LOCAL = datetime.timezone(datetime.timedelta(hours=LOCAL_OFFSET_H))


def local_time(unix_s):
    """A unix time as an aware datetime in LOCAL_TZ."""
    return datetime.datetime.fromtimestamp(unix_s, LOCAL)


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, msg, *ctx):
    """Fails the running test with msg (and each piece of context) unless cond."""
    if not cond:
        parts = [msg] + [c if isinstance(c, str) else repr(c) for c in ctx]
        raise Fail("\n".join(parts))


def check_eq(got, want, msg, *ctx):
    check(got == want, f"{msg}: got {got!r}, want {want!r}", *ctx)


# A condition a test waits for holds within this many seconds on an idle
# machine; the deadline is generous so that a loaded one (make check-loaded)
# still passes: tests wait for what they mean, never for a fixed time.
DEADLINE = 60


def wait_until(fn, what, timeout=DEADLINE, step=0.05):
    """Polls fn() until it returns a true value, which it returns; fails
    naming what (and fn's last value) after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise Fail(f"timed out after {timeout} s waiting for {what}; last value {got!r}")
        time.sleep(step)


# ------------------------------------------------------------------ setup

def scenario(name):
    return os.path.join(ROOT, "scenarios", name)


def sim_env(scn="h100x8-training.ini", pinned=None, speed=None, epoch=None, tz=None, **extra):
    """The environment for gpumon on the simulator: scenario scn, scenario
    time pinned at `pinned` seconds, or running `speed` times real time from
    unix time `epoch` (scenario t = (now - epoch) * speed); TZ is tz, by
    default LOCAL_TZ."""
    env = dict(os.environ)
    for k in ("GPUSIM_TIME", "GPUSIM_SPEED", "GPUSIM_EPOCH", "GPUSIM_SCENARIO", "STATE_DIRECTORY",
              "LOGS_DIRECTORY", "JOURNAL_STREAM", "INVOCATION_ID", "XDG_CONFIG_HOME"):
        env.pop(k, None)
    env.update({"GPUMON_NVML_LIB": SIM_LIB, "TZ": tz or LOCAL_TZ, "LC_ALL": "C", "NO_COLOR": "1",
                "GPUSIM_SCENARIO": scn if os.path.isabs(scn) else scenario(scn)})
    if pinned is not None:
        env["GPUSIM_TIME"] = str(pinned)
    if speed is not None:
        env["GPUSIM_SPEED"] = str(speed)
    if epoch is not None:
        env["GPUSIM_EPOCH"] = f"{epoch:.3f}"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def epoch_for(t_start, speed, lead=0.0):
    """GPUSIM_EPOCH so that scenario time is t_start `lead` seconds from now."""
    return time.time() + lead - t_start / speed


def shifted_faults(d, start, lead=0.0, end=None):
    """For tests that run faults.ini live: a copy of it in d whose scenario
    time t is the original's t + start - lead: what the original has from
    start on begins at lead (from 0 to lead, what holds at start holds
    already).  Faults that are
    over by start are left out, and so are the point faults before it (the
    ECC burst, the Xid: the tests that use it read neither) and, with end,
    the faults from end on.  With GPUSIM_EPOCH unset, t = 0 is the first
    nvmlInit of the process under test: its phases follow its own start, not
    the test's, however late a loaded machine starts it.  Returns the
    file's path."""
    shift = start - lead
    out, sec = [], []

    def flush():
        if not sec:
            return
        head = sec[0].strip()
        if head.startswith("[fault."):
            kv = {m.group(1): float(m.group(2)) for m in
                  (re.match(r"\s*(at|until)\s*=\s*([\d.]+)\s*$", x) for x in sec[1:]) if m}
            at, until = kv.get("at", 0.0), kv.get("until")
            if (until is not None and until <= start) or (until is None and at < start) or \
                    (end is not None and at >= end):
                sec.clear()
                return
            for i, x in enumerate(sec):
                m = re.match(r"\s*(at|until)\s*=\s*([\d.]+)\s*$", x)
                if m:
                    sec[i] = f"{m.group(1)} = {max(float(m.group(2)) - shift, 0.0):g}\n"
        out.extend(sec)
        sec.clear()
    with open(scenario("faults.ini")) as f:
        for line in f:
            if line.startswith("["):
                flush()
            sec.append(line)
    flush()
    path = os.path.join(d, f"faults-from-{start:g}.ini")
    with open(path, "w") as f:
        f.writelines(out)
    return path


class Scratch:
    """A short scratch directory under /tmp, removed on exit unless the
    test failed and GPUMON_KEEP is set."""

    def __init__(self, tag):
        self.path = tempfile.mkdtemp(prefix=f"gm{tag}.", dir="/tmp")

    def __enter__(self):
        return self.path

    def __exit__(self, et, ev, tb):
        if et is not None and os.environ.get("GPUMON_KEEP"):
            print(f"  (kept {self.path})")
            return False
        shutil.rmtree(self.path, ignore_errors=True)
        return False


def run(args, env, timeout=DEADLINE, input=None):
    """Runs gpumon with args; returns (rc, stdout, stderr) as text."""
    p = subprocess.run([GPUMON] + list(args), env=env, capture_output=True, timeout=timeout,
                       input=input.encode() if input is not None else None)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


# ------------------------------------------------------------------ agent

def control(data_dir, request, timeout=30.0):
    """One request on <data_dir>/agent.sock (the protocol of daemon.c)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(os.path.join(data_dir, "agent.sock"))
        s.sendall(request.encode() + b"\n")
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks).decode()
    finally:
        s.close()


_quiet = None


def quiet_args():
    """Flags that keep an agent to its CSV log and store: where this gpumon
    has an exporter (a fixed default port), it is turned off, so that tests
    running side by side do not compete for the port."""
    global _quiet
    if _quiet is None:
        p = subprocess.run([GPUMON, "config", "show", "--no-config"], capture_output=True,
                           text=True, env=dict(os.environ, LC_ALL="C"))
        keys = {line.split(" = ")[0] for line in p.stdout.splitlines() if " = " in line}
        _quiet = ["--no-exporter"] if "exporter" in keys else []
    return list(_quiet)


class Agent:
    """A running `gpumon agent` (or `record`) with its stderr in a log file.

    args are appended after [cmd, --no-config | --config FILE, --data-dir D]
    and quiet_args()."""

    def __init__(self, data_dir, env, args=(), cmd="agent", config=None, log=None):
        self.data_dir = data_dir
        self.env = env
        self.argv = [GPUMON, cmd]
        self.argv += ["--config", config] if config else ["--no-config"]
        self.argv += ["--data-dir", data_dir] + quiet_args() + [str(a) for a in args]
        self.log_path = log or data_dir.rstrip("/") + ".log"
        self.proc = None

    def start(self, wait_samples=1, timeout=DEADLINE):
        self.logf = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.argv, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=self.logf, stderr=self.logf)
        self.started = time.time()
        if wait_samples:
            self.wait_samples(wait_samples, timeout)
        return self

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def status(self):
        """The agent's counters (JSON over the control socket)."""
        return json.loads(control(self.data_dir, "STATUS"))

    def try_status(self):
        try:
            return self.status()
        except (OSError, ValueError):
            return None

    def wait_for(self, pred, timeout, what):
        """Polls the status until pred(status) holds; returns that status."""
        deadline = time.monotonic() + timeout
        st = None
        while time.monotonic() < deadline:
            check(self.alive(), f"the agent died (exit {self.proc.returncode}) while waiting for "
                  f"{what}", self.log())
            st = self.try_status()
            if st is not None and pred(st):
                return st
            time.sleep(0.05)
        raise Fail(f"timed out after {timeout} s waiting for {what}; last status {st}\n"
                   + self.log())

    def wait_samples(self, n, timeout=DEADLINE):
        return self.wait_for(lambda s: s["samples"] >= n, timeout, f"{n} samples")

    def skip_count(self):
        """For check_grid: (the deadlines the sampler skipped, the time in
        ms of its last sample) from the status now; read just before stop."""
        st = self.status()
        return st["skipped"], st["last_sample_unix_ns"] // 1000000

    def send(self, sig):
        self.proc.send_signal(sig)

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Sends sig and waits; returns (exit status, seconds to exit)."""
        t0 = time.monotonic()
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise Fail(f"the agent did not exit within {timeout} s of {sig!r}\n" + self.log())
        finally:
            self.logf.close()
        return rc, time.monotonic() - t0

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        self.logf.close()

    def cleanup(self):
        """For finally: kills the agent if it still runs."""
        if self.alive():
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None and not self.logf.closed:
            self.logf.close()

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return "--- agent log ---\n" + f.read()
        except OSError:
            return "--- no agent log ---"

    def log_lines(self):
        with open(self.log_path, errors="replace") as f:
            return f.read().splitlines()


# ------------------------------------------------------------------ files

def parse_time_ms(s):
    """ISO 8601 with milliseconds and offset (the CSV's time) -> unix ms."""
    d = datetime.datetime.fromisoformat(s)
    check(d.tzinfo is not None, f"time without an offset: {s!r}")
    return round(d.timestamp() * 1000)


def day_files(csv_dir, task="default", kind=""):
    """This task's plain .csv files of one kind ("", "procs", "events"), sorted."""
    infix = f"_{kind}_" if kind else "_"
    pat = re.compile(re.escape(task) + re.escape(infix) + r"\d{8}(-\d+)?\.csv$")
    return sorted(os.path.join(csv_dir, n) for n in os.listdir(csv_dir) if pat.match(n))


def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode()


def read_csv(path, header=GPU_HEADER):
    """The file's rows (lists of cells) after checking that it is whole:
    the header exactly once, on the first line; every line ends with a
    newline and has as many cells as the header."""
    text = read_text(path)
    check(text.endswith("\n"), f"{path}: the last line is torn (no final newline)",
          repr(text[-200:]))
    lines = text.split("\n")[:-1]
    check(lines and lines[0] == header, f"{path}: first line is not the header",
          lines[0] if lines else "(empty file)")
    check(lines.count(header) == 1, f"{path}: the header appears {lines.count(header)} times")
    ncells = header.count(",") + 1
    rows = list(csv.reader(io.StringIO(text)))[1:]
    for r in rows:
        check(len(r) == ncells, f"{path}: a row with {len(r)} cells, want {ncells}", r)
    return rows


def gpu_rows(csv_dir, task="default"):
    """All GPU rows of the task's day files, in file order."""
    rows = []
    for p in day_files(csv_dir, task):
        rows += read_csv(p)
    return rows


def event_rows(csv_dir, task="default"):
    rows = []
    for p in day_files(csv_dir, task, "events"):
        rows += read_csv(p, EVENTS_HEADER)
    return rows


def check_no_duplicates(rows, where):
    keys = [(r[0], r[3]) for r in rows]
    dup = len(keys) - len(set(keys))
    check(dup == 0, f"{where}: {dup} duplicate (time, gpu) rows")


def grid_points(times, interval):
    """The interval grid points (0 for the first sample's) of sample times
    (ms).  A sample is on its point or late, never early (deadlines are
    absolute; `slack`, 1/20 of the interval, absorbs the times' whole
    milliseconds), and most samples are about on time, so the grid's phase
    is the sample offset (within an interval) that makes the median
    lateness smallest.  A sample late by anything short of a whole interval
    keeps its point, however busy the machine: even the first one."""
    slack = max(2, interval // 20)
    t0 = times[0]
    offs = [(t - t0) % interval for t in times]

    def cost(r):
        # lateness from phase r, a sample up to `slack` before it counting as
        # on time (whole milliseconds); unclamped, the least cost was at the
        # bulk's offset + slack, where a sample 1 ms earlier than the bulk
        # read as 99 ms late, on the point before
        lat = sorted(max(0, (x - r + slack) % interval - slack) for x in offs)
        return lat[len(lat) // 2], sum(lat)
    phase = min(sorted(set(offs)), key=cost)
    first = (slack - phase) // interval
    pts = [(t - t0 - phase + slack) // interval - first for t in times]
    # The phase is where most samples are; a busy machine moves single ones
    # by more than the slack either way from it.  A sample late by nearly a
    # whole interval (its time is taken during the sample, which a busy
    # machine stretches) lands on the next point, where the next, punctual
    # sample also is: it keeps its own point when that point is free.  A
    # sample less late than most reads as on the point before, its
    # predecessor's: it moves on to the next point when that is free.  An
    # added sample is not explained away: the points both sides of the pair
    # are its punctual neighbours'.
    for i in range(len(pts) - 1):
        if pts[i] != pts[i + 1]:
            continue
        if i == 0 or pts[i - 1] < pts[i] - 1:
            pts[i] -= 1
        elif i + 2 == len(pts) or pts[i + 2] > pts[i + 1] + 1:
            pts[i + 1] += 1
    return pts


def grid_steps(times, interval):
    """The grid points between consecutive sample times (ms), as
    grid_points reads them: 1 for each sample on the next point."""
    pts = grid_points(times, interval)
    return [b - a for a, b in zip(pts, pts[1:])]


def check_grid(times, interval, where, allow_gap=False, counted=None):
    """The sample times (ms) sit on points of an interval grid, one sample
    per point at most (a late sample is still on its point: deadlines are
    absolute).  Points may be missing only where the agent says so: with
    counted (Agent.skip_count() read just before the stop) the deadlines it
    skipped when it was late (anywhere, and nothing is checked after the
    status' last sample: a skip there is counted nowhere), and with
    allow_gap one stretch of any length (an outage).  Returns the number
    of grid points missing (up to the status' last sample)."""
    skipped, until = counted if counted else (0, None)
    pts = grid_points(times, interval)
    steps = [b - a for a, b in zip(pts, pts[1:])]
    check(all(s >= 1 for s in steps), f"{where}: two samples on one {interval} ms grid point",
          steps, [b - a for a, b in zip(times, times[1:])])
    gaps = sorted(s - 1 for s, t in zip(steps, times[1:]) if s > 1 and (until is None or
                                                                        t <= until))
    unexplained = sum(gaps[:-1]) if allow_gap and gaps else sum(gaps)
    check(unexplained <= skipped,
          f"{where}: samples missing from the {interval} ms grid: {gaps} "
          f"({skipped} deadlines skipped{', one outage allowed' if allow_gap else ''})",
          [b - a for a, b in zip(times, times[1:])])
    return sum(gaps)


def check_whole_samples(rows, ngpu, where):
    """Every sample's rows are together and complete: ngpu rows (GPU 0..n-1)
    per distinct time, times strictly increasing.  Returns the times (ms)."""
    times = []
    check(len(rows) % ngpu == 0, f"{where}: {len(rows)} GPU rows is not a multiple of {ngpu}")
    for i in range(0, len(rows), ngpu):
        chunk = rows[i:i + ngpu]
        check(len({r[0] for r in chunk}) == 1, f"{where}: a sample's rows have different times",
              chunk)
        check([r[3] for r in chunk] == [str(g) for g in range(ngpu)],
              f"{where}: a sample does not have GPUs 0..{ngpu - 1} in order",
              [r[:4] for r in chunk])
        times.append(parse_time_ms(chunk[0][0]))
    for a, b in zip(times, times[1:]):
        check(b > a, f"{where}: sample times do not increase ({a} then {b})")
    return times


# ------------------------------------------------------------------ store

def db_connect(path):
    """Read-only connection (the agent may still run: WAL readers never block it)."""
    check(os.path.exists(path), f"no store at {path}")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    return db


def db_query(path, sql, args=()):
    db = db_connect(path)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def db_samples(path):
    """(ts, gpu_index, status name) of every raw sample row, ordered."""
    return db_query(path, "SELECT s.ts, g.gpu_index, c.name FROM samples s JOIN gpus g ON g.id = "
                    "s.gpu JOIN codes c ON c.kind = 'status' AND c.code = s.status "
                    "ORDER BY s.ts, g.gpu_index")


def stored_samples(path):
    """How many samples (distinct times) the store has committed; 0 before
    it exists.  For waiting on a commit instead of sleeping past one."""
    if not os.path.exists(path):
        return 0
    try:
        return db_query(path, "SELECT count(DISTINCT ts) FROM samples")[0][0]
    except sqlite3.Error:
        return 0  # not created whole yet


def db_integrity(path):
    return db_query(path, "PRAGMA integrity_check")[0][0]


# ------------------------------------------------------------------ mounts

def mount_tmpfs(path, size):
    """Mounts a tmpfs of size at path; raises Skip when this machine cannot."""
    os.makedirs(path, exist_ok=True)
    if os.geteuid() != 0:
        raise Skip("mounting a tmpfs needs root")
    try:
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs",
                            path], capture_output=True, text=True)
    except OSError as e:
        raise Skip(f"cannot run mount: {e}")
    if p.returncode != 0:
        raise Skip(f"cannot mount a tmpfs here: {p.stderr.strip() or p.returncode}")


def umount(path):
    for _ in range(50):
        p = subprocess.run(["umount", path], capture_output=True, text=True)
        if p.returncode == 0 or "not mounted" in p.stderr:
            return
        time.sleep(0.1)
    subprocess.run(["umount", "-l", path], capture_output=True)


def fill_fs(path):
    """Writes a ballast file at path until the file system is full."""
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 20, 1 << 16, 1 << 12, 1 << 9, 1):
            chunk = b"\0" * size
            while True:
                try:
                    f.write(chunk)
                except OSError:
                    break


# ------------------------------------------------------------------ runner

def main(tests):
    """Runs the test functions given (or those named in argv)."""
    want = set(sys.argv[1:])
    failed = skipped = ran = 0
    for t in tests:
        if want and t.__name__ not in want:
            continue
        ran += 1
        t0 = time.monotonic()
        try:
            t()
        except Skip as e:
            skipped += 1
            print(f"SKIP {t.__name__}: {e}")
            continue
        except Fail as e:
            failed += 1
            print(f"FAIL {t.__name__} ({time.monotonic() - t0:.1f} s): {e}")
            continue
        except Exception:
            failed += 1
            print(f"FAIL {t.__name__}: unexpected exception")
            traceback.print_exc(file=sys.stdout)
            continue
        print(f"ok   {t.__name__} ({time.monotonic() - t0:.1f} s)")
    sys.stdout.flush()
    if failed:
        sys.exit(1)
    if ran and skipped == ran:
        sys.exit(77)
    sys.exit(0)

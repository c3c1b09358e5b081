#!/usr/bin/env python3
"""agent_run.py -- runs `gpumon agent` for a fixed window and measures it.

    agent_run.py --gpumon PATH --data-dir DIR --interval 1s --window 60 --out JSON
                 [--warmup 5] [--sizes] [--callgrind FILE | --strace FILE]
                 [-- more agent arguments]

Starts the agent (--no-config, the CSV log and the store on, --procs) in a
new DIR, waits for its first sample and then --warmup seconds more (start-up
-- NVML init, the schema, the first /proc reads, the first retention run --
stays outside the window), takes a reading, waits --window seconds, takes a
second reading, stops the agent with SIGTERM and writes one JSON object:

  cpu         utime + stime from /proc/PID/stat (all threads, in clock ticks)
              and the sum of the threads' /proc/PID/task/*/schedstat run
              times (ns), each as the difference of the two readings, with
              the monotonic wall time between them
  samples     the agent's own sample counter (`gpumon agent --status`) at
              each reading, with its overruns, drops and sink errors
  memory      VmRSS, VmHWM and Threads from /proc/PID/status at the end
  stop        the exit status and how long SIGTERM took
  sizes       (--sizes) the files the agent wrote: CSV bytes and rows (and
              their gzip -6 size, what compress-after makes of them), and
              the SQLite file once the agent has closed it (dbsize.py)

--callgrind FILE runs the agent under valgrind's callgrind and marks the
window with callgrind_control: counters zeroed at the first reading, dumped
(FILE.1) at the second.  --strace FILE attaches `strace -f -c` for the
window only.  Both slow the agent down: their runs are for counting
instructions and system calls, not for the CPU figures.

Reading the agent's status costs it a control-socket request; the readings
are ordered so that those requests fall outside the window.
"""

import argparse
import gzip
import json
import os
import signal
import subprocess
import sys
import time

from dbsize import db_sizes


def die(msg):
    sys.exit("agent_run: " + msg)


def status(gpumon, data_dir):
    r = subprocess.run([gpumon, "agent", "--status", "--no-config", "--data-dir", data_dir],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        return None
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def proc_stat(pid):
    """utime and stime (clock ticks) of the whole process."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    # the name may contain spaces and ')': the fields start after the last ')'
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]), int(rest[12])  # fields 14 and 15


def schedstat_ns(pid):
    """Sum of the run times of the process's threads (ns), and per thread."""
    per = {}
    tdir = "/proc/%d/task" % pid
    for tid in os.listdir(tdir):
        try:
            with open(os.path.join(tdir, tid, "schedstat")) as f:
                per[int(tid)] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return sum(per.values()), per


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "VmSize", "Threads"):
                out[k] = int(v.split()[0])
    return out


def reading(pid):
    ut, st = proc_stat(pid)
    ns, per = schedstat_ns(pid)
    return {"mono_ns": time.monotonic_ns(), "utime": ut, "stime": st, "sched_ns": ns,
            "sched_per_thread": {str(k): v for k, v in sorted(per.items())}}


def counters(st):
    sinks = st.get("sinks", {})
    return {
        "samples": st["samples"], "overruns": st.get("overruns", 0),
        "skipped": st.get("skipped", 0),
        "dropped": sum(s.get("dropped", 0) for s in sinks.values()),
        "errors": sum(s.get("errors", 0) for s in sinks.values()),
        "last_sample_duration_s": st.get("last_sample_duration_seconds"),
    }


def csv_sizes(csv_dir):
    """Bytes, data rows and gzip -6 bytes of each kind of CSV file."""
    kinds = {}
    for name in sorted(os.listdir(csv_dir)):
        path = os.path.join(csv_dir, name)
        if not os.path.isfile(path) or not name.endswith(".csv"):
            continue
        stem = name[:-4].split("_")  # TASK_DAY or TASK_KIND_DAY
        kind = stem[-2] if len(stem) >= 3 and stem[-2] in ("procs", "events") else "samples"
        with open(path, "rb") as f:
            data = f.read()
        k = kinds.setdefault(kind, {"files": 0, "bytes": 0, "rows": 0, "gzip_bytes": 0})
        k["files"] += 1
        k["bytes"] += len(data)
        k["rows"] += max(0, data.count(b"\n") - 1)  # less the header
        k["gzip_bytes"] += len(gzip.compress(data, compresslevel=6, mtime=0))
    return kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpumon", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--interval", required=True)
    ap.add_argument("--window", type=float, required=True, help="seconds measured")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds after the first sample")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", action="store_true")
    ap.add_argument("--callgrind")
    ap.add_argument("--strace")
    ap.add_argument("agent_args", nargs="*")
    a = ap.parse_args()
    if os.path.exists(a.data_dir):
        die("%s exists; the agent must start from an empty data directory" % a.data_dir)

    cmd = [a.gpumon, "agent", "--no-config", "--data-dir", a.data_dir, "--interval", a.interval,
           "--csv", "--store", "--procs"] + a.agent_args
    if a.callgrind:
        cmd = ["valgrind", "--tool=callgrind", "--compress-strings=no",
               "--callgrind-out-file=" + a.callgrind] + cmd
    log = open(a.out + ".log", "w")
    agent = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    pid = agent.pid
    result = {"command": cmd[cmd.index(a.gpumon):], "interval": a.interval,
              "warmup_s": a.warmup, "window_s": a.window}
    try:
        t_start = time.monotonic()
        st = None
        while time.monotonic() - t_start < 60:
            if agent.poll() is not None:
                die("the agent exited (status %d) before its first sample; see %s.log"
                    % (agent.returncode, a.out))
            st = status(a.gpumon, a.data_dir)
            if st and st.get("samples", 0) >= 1:
                break
            time.sleep(0.2)
        else:
            die("no sample within 60 s; see %s.log" % a.out)
        result["startup_s"] = time.monotonic() - t_start
        time.sleep(a.warmup)

        tracer = None
        if a.callgrind:
            subprocess.run(["callgrind_control", "-z", str(pid)], check=True,
                           capture_output=True, timeout=60)
        if a.strace:
            tracer = subprocess.Popen(["strace", "-f", "-c", "-o", a.strace, "-p", str(pid)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)  # let it attach to every thread
        c0 = counters(status(a.gpumon, a.data_dir))
        r0 = reading(pid)
        time.sleep(a.window)
        r1 = reading(pid)
        if tracer:
            tracer.send_signal(signal.SIGINT)
            tracer.wait(timeout=30)
        c1 = counters(status(a.gpumon, a.data_dir))
        if a.callgrind:
            subprocess.run(["callgrind_control", "-d", str(pid)], check=True,
                           capture_output=True, timeout=60)
        mem = proc_status(pid)

        t_stop = time.monotonic()
        agent.send_signal(signal.SIGTERM)
        rc = agent.wait(timeout=30)
        result["stop"] = {"exit_status": rc, "seconds": time.monotonic() - t_stop}
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
        log.close()

    tck = os.sysconf("SC_CLK_TCK")
    wall_s = (r1["mono_ns"] - r0["mono_ns"]) / 1e9
    ticks = (r1["utime"] + r1["stime"]) - (r0["utime"] + r0["stime"])
    sched_s = (r1["sched_ns"] - r0["sched_ns"]) / 1e9
    per_thread = {t: (r1["sched_per_thread"].get(t, 0) - v) / 1e9
                  for t, v in r0["sched_per_thread"].items()}
    result.update({
        "clk_tck": tck,
        "wall_s": wall_s,
        "utime_s": (r1["utime"] - r0["utime"]) / tck,
        "stime_s": (r1["stime"] - r0["stime"]) / tck,
        "cpu_s": ticks / tck,
        "cpu_pct": 100.0 * ticks / tck / wall_s,
        "sched_s": sched_s,
        "sched_pct": 100.0 * sched_s / wall_s,
        "thread_cpu_s": per_thread,
        "counters_start": c0,
        "counters_end": c1,
        "samples": c1["samples"] - c0["samples"],
        "memory_kib": mem,
    })
    if a.sizes:
        result["csv"] = csv_sizes(os.path.join(a.data_dir, "csv"))
        result["db"] = db_sizes(os.path.join(a.data_dir, "gpumon.db"))
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    if result["stop"]["exit_status"] != 0:
        die("the agent exited with status %d on SIGTERM; see %s.log"
            % (result["stop"]["exit_status"], a.out))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""exec_cpu.py -- CPU time and peak RSS of whole commands, interleaved.

    exec_cpu.py --runs N --out JSON NAME=COMMAND [NAME=COMMAND ...]

Runs each COMMAND (split on whitespace, no shell; stdout to /dev/null,
stderr kept) once per round, in the order given, for --runs rounds, and
reads each run's user + system CPU time from wait4()'s rusage.  On a
loaded machine CPU time, unlike wall time, counts only what the process
itself ran.  The peak RSS comes from a second run of the command in the
same round under /usr/bin/time -f %M: a child of this script inherits the
Python interpreter's high-water mark (about 15 MiB) through fork and exec
in its own ru_maxrss, a child of /usr/bin/time only that small program's.  Prints one line per command (the
median of the runs, and their range) and writes every run to JSON with the
load average at the start and the end.  Exit status 0; 1 when a command
fails (its name and status are printed).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run_once(argv, rss_file):
    t0 = time.monotonic()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:
            return {"rc": rc}
        rc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                            stdout=null).returncode
    with open(rss_file) as f:
        rss = int(f.read().split()[-1])
    return {"rc": rc, "cpu_s": ru.ru_utime + ru.ru_stime, "user_s": ru.ru_utime,
            "sys_s": ru.ru_stime, "maxrss_kib": rss, "wall_s": wall}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("commands", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    cmds = []
    for c in a.commands:
        name, sep, cmd = c.partition("=")
        if not sep or not cmd.split():
            sys.exit("exec_cpu: '%s' is not NAME=COMMAND" % c)
        cmds.append((name, cmd.split()))
    res = {"load_start": os.getloadavg(), "runs": {n: [] for n, _ in cmds}}
    for _ in range(a.runs):
        for name, argv in cmds:
            r = run_once(argv, a.out + ".rss")
            if r["rc"] != 0:
                sys.exit("exec_cpu: %s exited with status %d" % (name, r["rc"]))
            res["runs"][name].append(r)
    res["load_end"] = os.getloadavg()
    os.unlink(a.out + ".rss")
    res["median"] = {}
    for name, _ in cmds:
        rs = res["runs"][name]
        cpu = [r["cpu_s"] for r in rs]
        med = {"cpu_ms": statistics.median(cpu) * 1e3, "min_ms": min(cpu) * 1e3,
               "max_ms": max(cpu) * 1e3,
               "maxrss_mib": statistics.median(r["maxrss_kib"] for r in rs) / 1024,
               "wall_ms": statistics.median(r["wall_s"] for r in rs) * 1e3}
        res["median"][name] = med
        print("%-16s CPU %8.2f ms (%.2f-%.2f), peak RSS %6.1f MiB, wall %8.1f ms" % (
            name, med["cpu_ms"], med["min_ms"], med["max_ms"], med["maxrss_mib"], med["wall_ms"]))
    print("load average %.1f / %.1f / %.1f at the start, %.1f / %.1f / %.1f at the end"
          % (tuple(res["load_start"]) + tuple(res["load_end"])))
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

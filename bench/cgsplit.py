#!/usr/bin/env python3
"""cgsplit.py -- splits a callgrind profile into gpumon, simulator and libc.

    cgsplit.py snapshot FILE --samples N [--root FN] [--sim-obj SUBSTR]
    cgsplit.py process FILE [--sim-obj SUBSTR] [--main-obj SUBSTR]
    cgsplit.py agent FILE --samples N [--roots FN,FN,...] [--sim-obj SUBSTR] [--main-obj SUBSTR]

Prints one JSON object.  Reads files written with --compress-strings=no
(callgrind's name compression spans the dumps of one run, so a later dump
alone cannot be decoded otherwise) and counts the Ir event only.

snapshot: FILE is the "steady" dump of bench_snapshot, which holds exactly N
calls of the root (gm_collector_sample).  Per sample:
  total        inclusive cost of the root
  sim          inclusive cost of every call from gpumon's object into the
               simulator's object (its nvml* entry points, with the libm and
               libc they call)
  gpumon_code  self cost of gpumon's functions (those compiled from src/; the
               bench's own loop is not)
  gpumon_libc  inclusive cost of calls from gpumon's functions into any other
               object (libc, libm, ld.so)
  gpumon       gpumon_code + gpumon_libc: "gpumon's own" instructions
  residual     total - sim - gpumon (0 unless the call graph has cycles)
plus the top functions by self cost and the heaviest callees.

process: FILE is a whole gpumon run.  Total, self cost per object, and the
inclusive cost of all calls into the simulator from gpumon and from the
loader (constructors, destructors); gpumon's own instructions are the total
minus that.

agent: FILE is a dump of a running agent (`gpumon agent`, all threads in
one profile) covering N samples.  Per sample: the total, the simulator (as
in process mode: calls into it from gpumon), and the inclusive cost of each
of the agent's pieces of work, named by the gpumon function that does it
(--roots): taking the snapshot (less the simulator), the CSV sink, the
store sink, the exporter's rendering, their housekeeping ticks, freeing
snapshots; "the rest" is the
total less all of those (the threads' loops, queues, locks, clock reads,
the control socket).  Also the self cost per object and gpumon's top
functions and library callees.

Leaves out: cache and branch events, and anything below the syscall line
(the kernel's work for /proc reads is not an instruction callgrind sees).
"""

import argparse
import collections
import json
import os
import sys


class Profile:
    """Self costs per (object, function) and call edges with inclusive costs."""

    def __init__(self):
        self.events = []
        self.totals = None
        self.self_cost = collections.Counter()  # (ob, fn) -> Ir
        self.fn_file = {}  # (ob, fn) -> file of its fn= line
        self.calls = []  # (caller, callee, count, inclusive Ir)


def parse(path):
    prof = Profile()
    npos = 1
    ir = 0
    ob = fl = fn = None
    cob = cfn = None
    pending_call = None  # (count,) waiting for its cost line
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c0 = line[0]
            if pending_call is not None:
                parts = line.split()
                costs = parts[npos:]
                cost = int(costs[ir]) if len(costs) > ir else 0
                callee = (cob if cob is not None else ob, cfn)
                prof.calls.append(((ob, fn), callee, pending_call, cost))
                pending_call = None
                cob = cfn = None  # a cob=/cfn= holds for the next call only
                continue
            if c0.isdigit() or c0 in "+-*":
                parts = line.split()
                costs = parts[npos:]
                if len(costs) > ir:
                    prof.self_cost[(ob, fn)] += int(costs[ir])
                continue
            colon, eq = line.find(":"), line.find("=")
            if eq > 0 and (colon < 0 or eq < colon):
                key, _, val = line.partition("=")
                key = key.strip()
                val = val.strip()
                if key == "ob":
                    ob = val
                elif key == "fl":
                    fl = val
                elif key in ("fi", "fe"):
                    pass  # inlined code: cost stays with fn
                elif key == "fn":
                    fn = val
                    prof.fn_file.setdefault((ob, fn), fl)
                elif key == "cob":
                    cob = val
                elif key in ("cfi", "cfl"):
                    pass
                elif key == "cfn":
                    cfn = val
                elif key == "calls":
                    pending_call = int(val.split()[0])
                elif key in ("jump", "jcnd"):
                    pass
                continue
            if colon > 0:
                key, _, val = line.partition(":")
                key = key.strip()
                val = val.strip()
                if key == "events":
                    prof.events = val.split()
                    ir = prof.events.index("Ir") if "Ir" in prof.events else 0
                elif key == "positions":
                    npos = len(val.split())
                elif key in ("totals", "summary"):
                    v = val.split()
                    if len(v) > ir:
                        prof.totals = int(v[ir])
    return prof


def is_sim(ob, sim_obj):
    return ob is not None and sim_obj in ob


def short(path):
    return os.path.basename(path) if path else "?"


def split_snapshot(prof, samples, root, sim_obj, gm_src):
    roots = [(a, b, n, c) for (a, b, n, c) in prof.calls if b[1] == root]
    if not roots:
        sys.exit("cgsplit: no call to %s in the profile" % root)
    gm_obj = roots[0][1][0]
    total = sum(c for (_, _, _, c) in roots)
    calls = sum(n for (_, _, n, _) in roots)

    def gpumon_fn(key):
        ob, fn = key
        return ob == gm_obj and gm_src in (prof.fn_file.get(key) or "")

    gm_code = sum(c for k, c in prof.self_cost.items() if gpumon_fn(k))
    sim = 0
    libc = 0
    sim_entry = collections.Counter()
    libc_callee = collections.Counter()
    libc_calls = collections.Counter()
    for caller, callee, n, c in prof.calls:
        if not gpumon_fn(caller):
            continue
        if is_sim(callee[0], sim_obj):
            sim += c
            sim_entry[callee[1]] += c
        elif callee[0] != gm_obj:
            libc += c
            libc_callee["%s (%s)" % (callee[1], short(callee[0]))] += c
            libc_calls["%s (%s)" % (callee[1], short(callee[0]))] += n
    sim_code = sum(c for (ob, _), c in prof.self_cost.items() if is_sim(ob, sim_obj))

    # gpumon's phases: inclusive cost of these callees, wherever called from
    def incl(name):
        return sum(c for (_, b, _, c) in prof.calls if b[0] == gm_obj and b[1] == name)

    per = float(samples)
    top = sorted(((c, k) for k, c in prof.self_cost.items() if gpumon_fn(k)), reverse=True)
    top_sim = sorted(((c, k) for k, c in prof.self_cost.items() if is_sim(k[0], sim_obj)),
                     reverse=True)
    return {
        "samples": samples,
        "root_calls": calls,
        "gpumon_object": gm_obj,
        "per_sample": {
            "total": total / per,
            "sim": sim / per,
            "sim_code": sim_code / per,
            "sim_libc": (sim - sim_code) / per,
            "gpumon": (gm_code + libc) / per,
            "gpumon_code": gm_code / per,
            "gpumon_libc": libc / per,
            "residual": (total - sim - gm_code - libc) / per,
        },
        "phases": {
            name: incl(name) / per
            for name in ("gm_nvml_sample", "gm_procfs_enrich", "gm_snapshot_clear")
        },
        "top_gpumon_self": [
            {"fn": k[1], "file": short(prof.fn_file.get(k)), "ir": c / per}
            for c, k in top[:15]
        ],
        "top_gpumon_libc": [
            {"fn": k, "ir": c / per, "calls": libc_calls[k] / per}
            for k, c in libc_callee.most_common(12)
        ],
        "top_sim_entry": [{"fn": k, "ir": c / per} for k, c in sim_entry.most_common(10)],
        "top_sim_self": [
            {"fn": k[1], "file": short(prof.fn_file.get(k)), "ir": c / per}
            for c, k in top_sim[:10]
        ],
    }


def split_process(prof, sim_obj, main_obj):
    total = prof.totals if prof.totals is not None else sum(prof.self_cost.values())
    by_obj = collections.Counter()
    for (ob, _), c in prof.self_cost.items():
        by_obj[short(ob)] += c
    # Calls into the simulator from gpumon, and from the loader (its
    # constructors and destructors).  Not from other libraries: those calls
    # are callbacks made inside a simulator call (inih's handlers while the
    # scenario is parsed) and are already in that call's inclusive cost.
    def outer_caller(ob):
        return ob is not None and (ob.endswith(main_obj) or "/ld-linux" in ob)

    sim = sum(c for (a, b, _, c) in prof.calls
              if is_sim(b[0], sim_obj) and outer_caller(a[0]))
    main_self = sum(c for (ob, _), c in prof.self_cost.items()
                    if ob and main_obj and ob.endswith(main_obj))
    top_main = sorted(((c, k) for k, c in prof.self_cost.items()
                       if k[0] and main_obj and k[0].endswith(main_obj)), reverse=True)
    return {
        "total": total,
        "sim": sim,
        "gpumon": total - sim,
        "gpumon_code": main_self,
        "by_object": dict(by_obj.most_common()),
        "top_gpumon_self": [
            {"fn": k[1], "file": short(prof.fn_file.get(k)), "ir": c} for c, k in top_main[:10]
        ],
    }


AGENT_ROOTS = ("gm_collector_sample,gm_csv_write,gm_csv_event,gm_csv_tick,gm_store_write,"
               "gm_store_event,gm_store_tick,gm_prom_observe,gm_prom_render,gm_snapshot_new,"
               "gm_snapshot_unref,control_handle")


def split_agent(prof, samples, roots, sim_obj, main_obj):
    def is_main(ob):
        return ob is not None and ob.endswith(main_obj)

    total = prof.totals if prof.totals is not None else sum(prof.self_cost.values())
    by_obj = collections.Counter()
    for (ob, _), c in prof.self_cost.items():
        by_obj[short(ob)] += c
    sim = sum(c for (a, b, _, c) in prof.calls if is_sim(b[0], sim_obj) and is_main(a[0]))
    per = float(samples)
    incl = collections.OrderedDict()
    calls = {}
    for name in roots:
        incl[name] = sum(c for (_, b, _, c) in prof.calls if is_main(b[0]) and b[1] == name)
        calls[name] = sum(n for (_, b, n, _) in prof.calls if is_main(b[0]) and b[1] == name)
    rest = total - sum(incl.values())
    libc_callee = collections.Counter()
    libc_calls = collections.Counter()
    for caller, callee, n, c in prof.calls:
        if is_main(caller[0]) and not is_main(callee[0]) and not is_sim(callee[0], sim_obj):
            key = "%s (%s)" % (callee[1], short(callee[0]))
            libc_callee[key] += c
            libc_calls[key] += n
    top = sorted(((c, k) for k, c in prof.self_cost.items() if is_main(k[0])), reverse=True)
    return {
        "samples": samples,
        "total": total,
        "sim": sim,
        "per_sample": {
            "total": total / per,
            "sim": sim / per,
            "gpumon": (total - sim) / per,
            "roots": {k: v / per for k, v in incl.items()},
            "root_calls": {k: v / per for k, v in calls.items()},
            "rest": rest / per,
            "by_object": {k: v / per for k, v in by_obj.most_common()},
        },
        "top_gpumon_self": [
            {"fn": k[1], "file": short(prof.fn_file.get(k)), "ir": c / per} for c, k in top[:15]
        ],
        "top_gpumon_libc": [
            {"fn": k, "ir": c / per, "calls": libc_calls[k] / per}
            for k, c in libc_callee.most_common(12)
        ],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["snapshot", "process", "agent"])
    ap.add_argument("file")
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--root", default="gm_collector_sample")
    ap.add_argument("--roots", default=AGENT_ROOTS,
                    help="agent mode: comma-separated gpumon functions to account for")
    ap.add_argument("--sim-obj", default="/sim/libnvidia-ml.so")
    ap.add_argument("--main-obj", default="/src/gpumon")
    ap.add_argument("--gpumon-src", default="/src/",
                    help="gpumon's functions are those whose source path contains this")
    a = ap.parse_args()
    prof = parse(a.file)
    if a.mode == "snapshot":
        out = split_snapshot(prof, a.samples, a.root, a.sim_obj, a.gpumon_src)
    elif a.mode == "agent":
        out = split_agent(prof, a.samples, a.roots.split(","), a.sim_obj, a.main_obj)
    else:
        out = split_process(prof, a.sim_obj, a.main_obj)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

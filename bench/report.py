#!/usr/bin/env python3
"""report.py -- turns scripts/bench.sh's raw outputs into docs/BENCHMARKS.md.

    report.py RESULTS_DIR DOC

Rewrites only the text between each "<!-- generated:NAME -->" and
"<!-- /generated:NAME -->" pair of DOC (summary, snapshot, process); the
method text around them is left as written.  A marker pair that is missing
is an error, so a renamed section cannot silently stop being updated.  Also
writes RESULTS_DIR/summary.txt (one PASS/MISS line per target) and prints it.

How the numbers are derived is documented in DOC itself, section "Snapshot"
(the instruction split and the time estimate) and "Whole process".
"""

import json
import os
import re
import sys

SNAPSHOT_TARGET_US = 100.0
PROCESS_TARGET_MS = 10.0
PROCESS_TARGETS = {"status-json": PROCESS_TARGET_MS, "status": PROCESS_TARGET_MS}


def read_kv(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_strace(path):
    """strace -c table -> {syscall: (calls, errors)}."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5 or not parts[0][0].isdigit() or parts[-1] == "total":
                continue
            calls = int(parts[3])
            errors = int(parts[4]) if len(parts) == 6 else 0
            out[parts[-1]] = (calls, errors)
    return out


def n(v):
    return "{:,.0f}".format(v)


def pct(part, whole):
    return "{:.0f} %".format(100.0 * part / whole) if whole else "-"


def verdict(value, target):
    return ("PASS" if value < target else "MISS"), value / target


def table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def replace_block(doc, name, body):
    pat = re.compile(r"(<!-- generated:%s -->\n).*?(<!-- /generated:%s -->)"
                     % (re.escape(name), re.escape(name)), re.S)
    if not pat.search(doc):
        sys.exit("report: %s has no <!-- generated:%s --> ... <!-- /generated:%s --> block"
                 % ("the document", name, name))
    return pat.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), doc, count=1)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS_DIR DOC")
    d, docpath = sys.argv[1], sys.argv[2]
    P = lambda name: os.path.join(d, name)  # noqa: E731
    env = read_json(P("env.json"))
    reps = env["repeats"]

    # ------------------------------------------------------------ snapshot
    wd = sorted((read_kv(P("snap-watchdog.%d.txt" % i)) for i in (1, 2, 3)),
                key=lambda r: r["cpu_median_us"])[1]  # the middle of three runs
    cg = read_json(P("cg-snap.json"))
    cg1 = read_json(P("cg-snap.first.json"))
    cgn = read_json(P("cg-snap-noprocfs.json"))
    I, In, I1 = cg["per_sample"], cgn["per_sample"], cg1["per_sample"]

    # Each run times full and procfs-off samples alternately (--pair), so both
    # see the same machine state (a busy SMT sibling slows both): each run
    # gives one estimate, and the run with the median estimate is shown.
    pairs = []
    for i in range(1, reps + 1):
        a = read_kv(P("snap.%d.txt" % i))
        b = {k[3:]: v for k, v in a.items() if k.startswith("np_")}
        est = a["cpu_median_us"] - I["sim"] * b["cpu_median_us"] / In["total"]
        pairs.append((est, a, b))
    pairs.sort(key=lambda x: x[0])
    est_all = [e for e, _, _ in pairs]
    _, snap, nop = pairs[(len(pairs) - 1) // 2]
    t_all = snap["cpu_median_us"]
    t_nop = nop["cpu_median_us"]
    rate = In["total"] / t_nop  # instructions per microsecond, user space
    sim_us = I["sim"] / rate
    gm_user_us = I["gpumon"] / rate
    kernel_us = max(0.0, t_all - I["total"] / rate)
    gm_own_us = t_all - sim_us
    snap_v, snap_r = verdict(gm_own_us, SNAPSHOT_TARGET_US)

    def per_sample_syscalls(prefix):
        a, b = read_strace(P(prefix + ".100.txt")), read_strace(P(prefix + ".300.txt"))
        out = {}
        for name in set(a) | set(b):
            c = (b.get(name, (0, 0))[0] - a.get(name, (0, 0))[0]) / 200.0
            e = (b.get(name, (0, 0))[1] - a.get(name, (0, 0))[1]) / 200.0
            if abs(c) >= 0.05:  # below: malloc trimming and other one-off noise
                out[name] = (c, e)
        return out

    sc = per_sample_syscalls("strace-snap")
    scw = per_sample_syscalls("strace-snap-watchdog")
    sys_total = sum(c for c, _ in sc.values())
    sysw_total = sum(c for c, _ in scw.values())
    fmt2 = lambda v: "{:.2f}".format(v) if v else ""  # noqa: E731
    sys_rows = [(name, fmt2(sc.get(name, (0, 0))[0]), fmt2(sc.get(name, (0, 0))[1]),
                 fmt2(scw.get(name, (0, 0))[0]))
                for name in sorted(set(sc) | set(scw),
                                   key=lambda k: (-sc.get(k, (0, 0))[0], -scw.get(k, (0, 0))[0]))]
    sys_rows.append(("**all**", "**%.2f**" % sys_total, "", "**%.2f**" % sysw_total))

    timing_rows = []
    for label, r, clock in (
        ("full snapshot (procfs on), the benchmark", snap, "thread"),
        ("same, /proc enrichment off (alternating with the above)", nop, "thread"),
        ("full snapshot through the watchdog thread (CLI path; middle of 3 runs)", wd,
         "process"),
    ):
        timing_rows.append((
            label,
            "{:.1f}".format(r["wall_median_us"]), "{:.1f}".format(r["wall_p90_us"]),
            "{:.1f}".format(r["wall_p99_us"]), "{:.1f}".format(r["wall_min_us"]),
            "{:.1f}".format(r["cpu_median_us"]), "{:.1f}".format(r["cpu_p99_us"]), clock))
    timing_rows.append((
        "first snapshot after open (statics, /proc info files), one sample",
        "{:.1f}".format(snap["first_wall_us"]), "", "", "", "{:.1f}".format(snap["first_cpu_us"]),
        "", "thread"))

    split_rows = [
        ("gpumon code (src/)", n(I["gpumon_code"]), pct(I["gpumon_code"], I["total"]),
         n(In["gpumon_code"]), n(I1["gpumon_code"])),
        ("libc/libm/ld.so called by gpumon", n(I["gpumon_libc"]),
         pct(I["gpumon_libc"], I["total"]), n(In["gpumon_libc"]), n(I1["gpumon_libc"])),
        ("**gpumon's own**", "**%s**" % n(I["gpumon"]), pct(I["gpumon"], I["total"]),
         n(In["gpumon"]), n(I1["gpumon"])),
        ("simulator code (sim/)", n(I["sim_code"]), pct(I["sim_code"], I["total"]),
         n(In["sim_code"]), n(I1["sim_code"])),
        ("libc/libm called by the simulator", n(I["sim_libc"]), pct(I["sim_libc"], I["total"]),
         n(In["sim_libc"]), n(I1["sim_libc"])),
        ("simulator total", n(I["sim"]), pct(I["sim"], I["total"]), n(In["sim"]), n(I1["sim"])),
        ("gm_collector_sample, inclusive", n(I["total"]), "100 %", n(In["total"]),
         n(I1["total"])),
    ]
    ph = cg["phases"]
    nvml_own = ph["gm_nvml_sample"] - I["sim"]
    other = I["gpumon"] - nvml_own - ph["gm_procfs_enrich"] - ph["gm_snapshot_clear"]
    phase_rows = [
        ("gm_nvml_sample, less the simulator (nvml.c, snapshot fill)", n(nvml_own),
         pct(nvml_own, I["gpumon"])),
        ("gm_procfs_enrich (procfs.c, user space only)", n(ph["gm_procfs_enrich"]),
         pct(ph["gm_procfs_enrich"], I["gpumon"])),
        ("gm_snapshot_clear (free the previous sample)", n(ph["gm_snapshot_clear"]),
         pct(ph["gm_snapshot_clear"], I["gpumon"])),
        ("the rest of gm_collector_sample", n(other), pct(other, I["gpumon"])),
    ]
    est_rows = [
        ("measured: thread CPU per snapshot (median)", "{:.1f} µs".format(t_all)),
        ("instruction rate R (procfs-off run: %s instructions in %.1f µs)"
         % (n(In["total"]), t_nop), "{:.0f} instructions/µs".format(rate)),
        ("simulator: its instructions / R", "{:.1f} µs".format(sim_us)),
        ("gpumon user space: its instructions / R", "{:.1f} µs".format(gm_user_us)),
        ("kernel (gpumon's /proc syscalls): measured − all instructions / R",
         "{:.1f} µs".format(kernel_us)),
        ("**gpumon's own CPU: measured − simulator**", "**{:.1f} µs**".format(gm_own_us)),
        ("bounds that need no R: measured − procfs-off CPU ≤ own ≤ measured",
         "{:.1f} … {:.1f} µs".format(t_all - t_nop, t_all)),
        ("target", "< {:.0f} µs: **{}** ({:.2f} of the budget)".format(
            SNAPSHOT_TARGET_US, snap_v, snap_r)),
    ]
    gm_total = I["gpumon"]
    top_rows = [(i + 1, "`%s`" % f["fn"], f["file"], n(f["ir"]), pct(f["ir"], gm_total))
                for i, f in enumerate(cg["top_gpumon_self"][:10])]
    libc_rows = [("`%s`" % f["fn"], "{:.1f}".format(f["calls"]), n(f["ir"]))
                 for f in cg["top_gpumon_libc"][:8]]
    sim_rows = [("`%s`" % f["fn"], n(f["ir"])) for f in cg["top_sim_entry"][:5]]

    snap_md = "\n\n".join([
        "Run of %s: %d GPUs, %d processes (%d alive in /proc, enriched: %d), "
        "%d timed samples of each kind (full, /proc enrichment off; alternating) per run after "
        "%d warm-up samples. %d runs estimated gpumon's own CPU at %s µs; the run with the "
        "median estimate is shown." % (
            env["date"], snap["gpus"], snap["procs"], snap["procs_alive"],
            snap["procs_enriched"], env["samples"], snap["warmup"], reps,
            ", ".join("%.1f" % v for v in est_all)),
        "**Time per snapshot** (µs; CPU = CLOCK_THREAD_CPUTIME_ID of the sampling thread, "
        "or the whole process's for the watchdog row: gpumon + simulator + kernel)",
        table(["", "wall median", "wall p90", "wall p99", "wall min", "CPU median", "CPU p99",
               "CPU clock"], timing_rows),
        "**Instructions per snapshot** (callgrind, %d samples in the steady state; the first "
        "sample separately)" % env["cg_samples"],
        table(["", "instructions", "share", "procfs off", "first sample"], split_rows),
        "gpumon's own instructions by phase:",
        table(["phase", "instructions", "of gpumon's own"], phase_rows),
        "**Estimated time** (see *From instructions to time* above)",
        table(["", "per snapshot"], est_rows),
        "**System calls per snapshot** (strace -c -f, difference of a 300- and a 100-sample "
        "run divided by 200)",
        table(["syscall", "calls", "of which failed", "through the watchdog thread"], sys_rows),
        "**Top 10 gpumon functions by self instructions per snapshot**",
        table(["#", "function", "file", "instructions", "of gpumon's own"], top_rows,
              ["r", "l", "l", "r", "r"]),
        "Library functions gpumon calls most (inclusive instructions per snapshot):",
        table(["function (object)", "calls", "instructions"], libc_rows),
        "For the simulator's owners, its costliest entry points (inclusive per snapshot): "
        + ", ".join("%s %s" % r for r in sim_rows) + ".",
    ])

    # ------------------------------------------------------------ processes
    hf = {r["command"]: r for r in read_json(P("hyperfine.json"))["results"]}
    with open(P("commands.txt")) as f:
        commands = [l.rstrip("\n").split("|", 1) for l in f if "|" in l]
    proc_rows, cg_rows, verdicts = [], [], []
    top_json = None
    for name, args in commands:
        r = hf[name]
        med_ms = r["median"] * 1e3
        tgt = PROCESS_TARGETS.get(name)
        if tgt:
            v, ratio = verdict(med_ms, tgt)
            verdicts.append((name, args, med_ms, tgt, v, ratio))
            tcell = "< %.0f ms: **%s** (%.2f)" % (tgt, v, ratio)
        elif name == "version":
            tcell = "the floor: exec, loader, exit"
        else:
            tcell = "-"
        proc_rows.append((
            "`gpumon --sim … %s`" % args, "{:.2f}".format(med_ms),
            "{:.2f} ± {:.2f}".format(r["mean"] * 1e3, r["stddev"] * 1e3),
            "{:.2f}".format(r["min"] * 1e3), "{:.2f}".format(r["user"] * 1e3),
            "{:.2f}".format(r["system"] * 1e3), tcell))
        c = read_json(P("cg-proc-%s.json" % name))
        st = read_strace(P("strace-proc-%s.txt" % name))
        bo = c["by_object"]
        cg_rows.append((
            "`%s`" % args, n(c["total"]), n(c["gpumon"]), n(c["gpumon_code"]),
            n(bo.get("libc.so.6", 0)), n(bo.get("ld-linux-x86-64.so.2", 0)), n(c["sim"]),
            n(sum(v[0] for v in st.values()))))
        if name == "status-json":
            top_json = c
    proc_parts = [
        "Run of %s: hyperfine -N, %d warm-up runs, %d runs per command; the same "
        "environment as the snapshot benchmark (8 live ranks, GPUSIM_TIME=%s)." % (
            env["date"], env["warmup"], env["runs"], env["scenario_time"]),
        "**Wall time per process** (ms; user and system are hyperfine's means)",
        table(["command", "median", "mean ± σ", "min", "user", "system", "target"], proc_rows),
        "**Instructions per process** (callgrind, one run each; gpumon's own = total − "
        "the calls into the simulator from gpumon and the loader, scenario parsing included; "
        "libc and ld.so are those objects' self cost, whoever called them) and system calls "
        "(strace -c -f)",
        table(["command", "total", "gpumon's own", "of which gpumon code", "libc (self)",
               "ld.so (self)", "simulator", "syscalls"], cg_rows),
    ]
    if top_json:
        rows = [(i + 1, "`%s`" % f["fn"], f["file"], n(f["ir"]))
                for i, f in enumerate(top_json["top_gpumon_self"][:10])]
        proc_parts += ["Top 10 gpumon functions by self instructions in `status --json`:",
                       table(["#", "function", "file", "instructions"], rows,
                             ["r", "l", "l", "r"])]
    proc_md = "\n\n".join(proc_parts)

    # ------------------------------------------------------------ summary
    targets = [("full 8-GPU snapshot, gpumon's own CPU (estimated)",
                "{:.1f} µs".format(gm_own_us), "< %.0f µs" % SNAPSHOT_TARGET_US, snap_v, snap_r)]
    for name, args, med, tgt, v, ratio in verdicts:
        targets.append(("`gpumon %s`, whole process, median wall" % args,
                        "{:.2f} ms".format(med), "< %.0f ms" % tgt, v, ratio))
    sum_rows = [(t, m, g, "**%s**" % v, "{:.2f}".format(r)) for t, m, g, v, r in targets]
    summary_md = "\n\n".join([
        "Last run: %s on %s (%s cores), %s, %s; %s; valgrind %s, %s; commit %s." % (
            env["date"], env["cpu"], env["cores"], env["kernel"], env["gcc"], env["build"],
            env["valgrind"].replace("valgrind-", ""), env["hyperfine"], env["commit"]),
        table(["target", "measured", "target", "result", "measured / target"], sum_rows),
    ])

    with open(docpath) as f:
        doc = f.read()
    doc = replace_block(doc, "summary", summary_md)
    doc = replace_block(doc, "snapshot", snap_md)
    doc = replace_block(doc, "process", proc_md)
    with open(docpath, "w") as f:
        f.write(doc)

    lines = ["%s %s: %s (target %s, %.2f of it)" % (v, t.replace("`", ""), m, g, r)
             for t, m, g, v, r in targets]
    with open(P("summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("snapshot: %s instructions/sample of gpumon's own, %s of the simulator; "
          "%.1f syscalls/sample" % (n(I["gpumon"]), n(I["sim"]), sys_total))


if __name__ == "__main__":
    main()

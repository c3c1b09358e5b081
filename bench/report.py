#!/usr/bin/env python3
"""report.py -- turns scripts/bench.sh's raw outputs into docs/BENCHMARKS.md.

    report.py RESULTS_DIR DOC

Rewrites only the text between each "<!-- generated:NAME -->" and
"<!-- /generated:NAME -->" pair of DOC (summary, snapshot, process, agent,
storage, report); the
method text around them is left as written.  A marker pair that is missing
is an error, so a renamed section cannot silently stop being updated.  Also
writes RESULTS_DIR/summary.txt (one PASS/MISS line per target) and prints it.

How the numbers are derived is documented in DOC itself, sections
"Snapshot" (the instruction split and the time estimate), "Whole process",
"Agent", "Storage" and "Report".
"""

import json
import os
import re
import sys

SNAPSHOT_TARGET_US = 100.0
PROCESS_TARGET_MS = 10.0
PROCESS_TARGETS = {"status-json": PROCESS_TARGET_MS, "status": PROCESS_TARGET_MS}
AGENT_CPU_TARGET_PCT = 0.2  # at 1 s, at most
AGENT_RSS_TARGET_MIB = 10.0  # at most
STORE_BYTES_TARGET = 64.0  # raw tier, per GPU-sample, at most
REPORT_TARGET_MS = 200.0  # 30 days, hourly, at most


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


def verdict_le(value, target):
    return ("PASS" if value <= target else "MISS"), value / target


def mib(kib):
    return kib / 1024.0


def f1(v):
    return "{:.1f}".format(v)


def f2(v):
    return "{:.2f}".format(v)


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

    # ------------------------------------------------------------ agent
    runs = [("1 s", read_json(P("agent-1s.json")))]
    noexp = os.path.exists(P("agent-1s-noexp.json"))
    if noexp:
        runs.append(("1 s, exporter off", read_json(P("agent-1s-noexp.json"))))
    runs.append(("100 ms", read_json(P("agent-100ms.json"))))
    size_runs = [(l, r) for l, r in runs if "csv" in r]
    acg = read_json(P("cg-agent.json"))
    acg_run = read_json(P("agent-cg.json"))
    ast_run = read_json(P("agent-strace.json"))
    A = acg["per_sample"]
    sim_share = A["sim"] / A["total"]
    agent_rows, est_rows = [], []
    cpu_1s = cpu_noexp = rss_max = None
    for label, r in runs:
        sps = r["samples"] / r["wall_s"]
        mem = r["memory_kib"]
        ok = r["counters_end"]
        trouble = (ok["overruns"] - r["counters_start"]["overruns"]) + ok["dropped"] + ok["errors"]
        tcell = "-"
        if label.startswith("1 s"):
            if label == "1 s":
                cpu_1s = r["cpu_pct"]
            else:
                cpu_noexp = r["cpu_pct"]
            v, ratio = verdict_le(r["cpu_pct"], AGENT_CPU_TARGET_PCT)
            tcell = "≤ %.1f %%: **%s** (%.2f)" % (AGENT_CPU_TARGET_PCT, v, ratio)
        rss_max = max(rss_max or 0, mem["VmHWM"])
        agent_rows.append((
            label, "%.0f s" % r["wall_s"], n(r["samples"]),
            "**{:.3f} %**".format(r["cpu_pct"]), "{:.3f} %".format(r["sched_pct"]),
            n(1e6 * r["sched_s"] / r["samples"]),
            f1(mib(mem["VmRSS"])), f1(mib(mem["VmHWM"])), mem["Threads"],
            "none" if trouble == 0 else str(trouble), tcell))
        sim_fast = A["sim"] / rate * sps / 1e4  # % of one core at the hot rate R
        # the callgrind agent runs with the exporter; without it, its share is larger
        share = sim_share
        if "exporter off" in label:
            share = A["sim"] / (A["total"] - A["roots"].get("gm_prom_observe", 0)
                                - A["roots"].get("gm_prom_render", 0))
        sim_prop = r["sched_pct"] * share
        own = sorted((r["sched_pct"] - sim_prop, r["sched_pct"] - sim_fast))
        est_rows.append((
            label, "{:.3f} %".format(r["sched_pct"]), "{:.4f} %".format(sim_fast),
            "{:.3f} % ({})".format(sim_prop, pct(share, 1.0)),
            "**{:.3f} … {:.3f} %**".format(*own)))
    cpu_v, cpu_r = verdict_le(cpu_1s, AGENT_CPU_TARGET_PCT)
    if noexp:
        noexp_v, noexp_r = verdict_le(cpu_noexp, AGENT_CPU_TARGET_PCT)
    rss_v, rss_r = verdict_le(mib(rss_max), AGENT_RSS_TARGET_MIB)

    roots = A["roots"]
    piece_rows = []
    pieces = [
        ("taking the snapshot, less the simulator (gm_collector_sample)",
         roots["gm_collector_sample"] - A["sim"]),
        ("CSV sink: formatting and writing the rows (gm_csv_write)", roots["gm_csv_write"]),
        ("store sink: rows, rollups, commits (gm_store_write)", roots["gm_store_write"]),
        ("exporter sink: rendering /metrics, text and OpenMetrics (gm_prom_observe, "
         "gm_prom_render)", roots.get("gm_prom_observe", 0) + roots.get("gm_prom_render", 0)),
        ("sinks' housekeeping (gm_csv_tick, gm_store_tick), events",
         roots["gm_csv_tick"] + roots["gm_store_tick"] + roots["gm_csv_event"]
         + roots["gm_store_event"]),
        ("allocating and freeing snapshots (gm_snapshot_new, _unref)",
         roots["gm_snapshot_new"] + roots["gm_snapshot_unref"]),
        ("control socket requests (control_handle: the benchmark's status reads)",
         roots["control_handle"]),
        ("the rest: thread loops, queues, locks, clocks", A["rest"]),
    ]
    for label, v in pieces:
        piece_rows.append((label, n(v), pct(v, A["gpumon"])))
    piece_rows.append(("**gpumon's own**", "**%s**" % n(A["gpumon"]), "100 %"))
    piece_rows.append(("simulator (calls into it from gpumon)", n(A["sim"]),
                       "%s of all" % pct(A["sim"], A["total"])))
    piece_rows.append(("all instructions per sample", n(A["total"]), ""))
    obj_rows = [("`%s`" % k, n(v), pct(v, A["total"])) for k, v in A["by_object"].items()
                if v >= 0.001 * A["total"]]
    atop_rows = [(i + 1, "`%s`" % f["fn"], f["file"], n(f["ir"]), pct(f["ir"], A["gpumon"]))
                 for i, f in enumerate(acg["top_gpumon_self"][:10])]
    alib_rows = [("`%s`" % f["fn"], "{:.1f}".format(f["calls"]), n(f["ir"]))
                 for f in acg["top_gpumon_libc"][:8]]

    st = read_strace(P("strace-agent.txt"))
    st_secs = ast_run["wall_s"]
    st_rows = [(name, f2(c / st_secs), f2(e / st_secs) if e else "",
                f2(c / ast_run["samples"]))
               for name, (c, e) in sorted(st.items(), key=lambda kv: -kv[1][0])
               if c / st_secs >= 0.05]
    st_total = sum(c for c, _ in st.values())
    st_rows.append(("**all**", "**%s**" % f2(st_total / st_secs), "",
                    "**%s**" % f2(st_total / ast_run["samples"])))

    agent_md = "\n\n".join([
        "Run of %s: the agent with the CSV log, the store%s and `--procs` on %d GPUs and %d "
        "live ranks; %.0f s of warm-up after the first sample, then the window; the runs side "
        "by side. Start-up to the first sample took %s s, SIGTERM to exit %s s (in the order "
        "of the table)." % (
            env["date"], ", the exporter (unless off)" if noexp else "", snap["gpus"],
            env["ranks"], runs[0][1]["warmup_s"],
            " / ".join(f2(r["startup_s"]) for _, r in runs),
            " / ".join(f2(r["stop"]["seconds"]) for _, r in runs)),
        "**CPU and memory** (CPU in % of one core over the window; utime + stime is the "
        "figure compared with the target, schedstat the same time at ns resolution; CPU per "
        "sample includes the per-second housekeeping)",
        table(["interval", "window", "samples", "CPU (utime+stime)", "CPU (schedstat)",
               "CPU per sample, µs", "VmRSS MiB", "VmHWM MiB", "threads",
               "overruns, drops, errors", "target"], agent_rows),
        "**Where the instructions go** (callgrind, agent at 100 ms, %d samples in a %.0f s "
        "window; inclusive instructions per sample)" % (acg_run["samples"], acg_run["wall_s"]),
        table(["", "instructions", "of gpumon's own"], piece_rows),
        "By object (self instructions per sample, whoever called them):",
        table(["object", "instructions", "share"], obj_rows),
        "**The simulator's share of the CPU.** It runs inside the agent and a real driver's "
        "NVML calls would replace it. Two estimates (see *Method*): at the snapshot "
        "benchmark's rate R = %.0f instructions/µs its %s instructions per sample take "
        "%.1f µs; in proportion to instructions it is %s of the agent's (%s without the "
        "exporter's rendering)." % (
            rate, n(A["sim"]), A["sim"] / rate, pct(A["sim"], A["total"]),
            pct(A["sim"], A["total"] - A["roots"].get("gm_prom_observe", 0)
                - A["roots"].get("gm_prom_render", 0))),
        table(["interval", "measured (schedstat)", "simulator at R", "simulator, proportional",
               "gpumon's own"], est_rows),
        "**System calls** (strace -c -f attached for %.0f s to an agent at 1 s, %d samples)"
        % (st_secs, ast_run["samples"]),
        table(["syscall", "per second", "of which failed", "per sample"], st_rows),
        "**Top 10 gpumon functions by self instructions per sample** (agent at 100 ms)",
        table(["#", "function", "file", "instructions", "of gpumon's own"], atop_rows,
              ["r", "l", "l", "r", "r"]),
        "Library functions gpumon calls most (inclusive instructions per sample):",
        table(["function (object)", "calls", "instructions"], alib_rows),
    ])

    # ------------------------------------------------------------ storage
    gen = read_kv(P("gen-store.txt"))
    gdb = read_json(P("gen-store.json"))

    def tbytes(db, *names):
        return sum(db["tables"].get(t, {}).get("bytes", 0) for t in names)

    fixed_tables = lambda db: [t for t in db["tables"]  # noqa: E731
                               if t not in ("samples", "procs", "rollup_1m", "rollup_1h")]
    size_rows = []
    raw_agent = None
    for label, r in size_runs:
        c, db = r["csv"], r["db"]
        gs = db["rows"]["samples"]
        csv_rows = c["samples"]["rows"]
        procs = c.get("procs", {"bytes": 0, "rows": 0, "gzip_bytes": 0})
        raw = tbytes(db, "samples") / gs
        if label == "100 ms":
            raw_agent = (raw, gs)
        size_rows.append((
            label, n(csv_rows), f1(c["samples"]["bytes"] / csv_rows),
            f1(c["samples"]["gzip_bytes"] / csv_rows),
            "%s (%s per process row)" % (f1(procs["bytes"] / csv_rows),
                                         f1(procs["bytes"] / procs["rows"]) if procs["rows"]
                                         else "-"),
            n(gs), "**%s**" % f1(raw), f1(db["tables"]["samples"]["payload"] / gs),
            f1(tbytes(db, "procs") / gs), f1(tbytes(db, "rollup_1m", "rollup_1h") / gs),
            f1(db["file_bytes"] / gs), n(sum(tbytes(db, t) for t in fixed_tables(db))),
            "yes" if db["wal_left"] else "no"))
    raw_v, raw_r = verdict_le(raw_agent[0], STORE_BYTES_TARGET)
    ggs = gdb["rows"]["samples"]
    whole = gdb["file_bytes"] / ggs
    whole_v, whole_r = verdict_le(whole, STORE_BYTES_TARGET)
    gsm = gdb["tables"]["samples"]
    big_rows = [
        ("raw tier: `samples` (WITHOUT ROWID b-tree)", n(gsm["bytes"]), f2(gsm["bytes"] / ggs),
         f2(gsm["payload"] / ggs), pct(gsm["unused"], gsm["bytes"])),
    ]
    for t in ("rollup_1m", "rollup_1h", "events", "events_ts", "procs"):
        if t in gdb["tables"]:
            x = gdb["tables"][t]
            label = "`%s`" % t
            if t in gdb["rows"]:
                label += " (%s rows)" % n(gdb["rows"][t])
            big_rows.append((label, n(x["bytes"]), f2(x["bytes"] / ggs), f2(x["payload"] / ggs),
                             pct(x["unused"], x["bytes"])))
    rest = gdb["file_bytes"] - sum(x["bytes"] for t, x in gdb["tables"].items()
                                   if t in ("samples", "rollup_1m", "rollup_1h", "events",
                                            "events_ts", "procs"))
    big_rows.append(("everything else (schema, `gpus`, `codes`, free pages)", n(rest),
                     f2(rest / ggs), "", ""))
    big_rows.append(("**the whole file**", "**%s**" % n(gdb["file_bytes"]), "**%s**" % f2(whole),
                     "", ""))
    storage_md = "\n\n".join([
        "Run of %s. The agent's files after the runs above (the CSV log's rows are "
        "GPU-samples; SQLite sizes from `dbstat`, after the agent closed the store):" %
        env["date"],
        table(["interval", "CSV rows", "CSV B / GPU-sample", "gzip -6", "procs CSV B / GPU-sample",
               "store GPU-samples", "SQLite raw (`samples`) B / GPU-sample", "of which records",
               "`procs` B / GPU-sample", "rollups B / GPU-sample", "whole file / GPU-sample",
               "fixed part, bytes", "WAL left"], size_rows),
        "The %d-day store of the report benchmark (below): %s GPU-samples of %d GPUs at 1 s "
        "written by `gen_store` through the store's writer, %s bytes:" % (
            gen["days"], n(ggs), gen["gpus"], n(gdb["file_bytes"])),
        table(["part", "bytes", "B / GPU-sample", "of which records", "unused in its pages"],
              big_rows),
    ])

    # ------------------------------------------------------------ report
    hfr = {r["command"]: r for r in read_json(P("hyperfine-report.json"))["results"]}
    with open(P("reports.txt")) as f:
        rcmds = [l.rstrip("\n").split("|", 1) for l in f if "|" in l]
    rep_rows = []
    rep_med = None
    for name, args in rcmds:
        r = hfr[name]
        med = r["median"] * 1e3
        tcell = "-"
        if name == "report-hour":
            rep_med = med
            v, ratio = verdict_le(med, REPORT_TARGET_MS)
            tcell = "≤ %.0f ms: **%s** (%.2f)" % (REPORT_TARGET_MS, v, ratio)
        rep_rows.append(("`gpumon report %s`" % args, f1(med), "%s ± %s" % (f1(r["mean"] * 1e3),
                         f1(r["stddev"] * 1e3)), f1(r["min"] * 1e3), f1(r["max"] * 1e3),
                         f1(r["user"] * 1e3), f1(r["system"] * 1e3), tcell))
    rep_v, rep_r = verdict_le(rep_med, REPORT_TARGET_MS)
    g1 = read_kv(P("gen-1d.txt"))
    crep = read_json(P("cg-report.json"))
    srep = read_strace(P("strace-report.txt"))
    bo = crep["by_object"]
    sq = sum(v for k, v in bo.items() if k.startswith("libsqlite3"))
    gen_line = ("generated in this run: %s s, %s GPU-samples/s" % (f1(gen["wall_s"]),
                n(gen["rate_gpu_samples_per_s"])) if gen.get("generated") == 1 else
                "taken from the cache (when it was generated: %s s, %s GPU-samples/s)" % (
                    f1(gen["wall_s"]), n(gen["rate_gpu_samples_per_s"])))
    report_md = "\n\n".join([
        "Run of %s: the store of %d days × %d GPUs at 1 s (%s GPU-samples, %s marks, "
        "%s bytes), %s; reports of `--from %s --to %s` (TZ=UTC), hyperfine -N, 3 warm-up "
        "runs, %d runs each." % (
            env["date"], gen["days"], gen["gpus"], n(gen["gpu_samples"]), n(gen["marks"]),
            n(gen["file_bytes"]), gen_line, env["report_from"], env["report_to"],
            env["report_runs"]),
        "**Time per report** (ms; user and system are hyperfine's means)",
        table(["command", "median", "mean ± σ", "min", "max", "user", "system", "target"],
              rep_rows),
        "`report --by hour` under callgrind: %s instructions, of which SQLite %s (%s), "
        "gpumon %s, libc %s, ld.so %s; %s system calls (%s `pread64`)." % (
            n(crep["total"]), n(sq), pct(sq, crep["total"]), n(bo.get("gpumon", 0)),
            n(bo.get("libc.so.6", 0)), n(bo.get("ld-linux-x86-64.so.2", 0)),
            n(sum(v[0] for v in srep.values())), n(srep.get("pread64", (0, 0))[0])),
        "**Write throughput** (a fresh store of one day × %d GPUs at 1 s, written in this run "
        "through gm_store_write, batches of 8 192 rows, rollups included, closed and "
        "checkpointed): %s GPU-samples in %s s, **%s GPU-samples/s** (%s s of CPU, %s "
        "commits, %s bytes per GPU-sample). An agent at 1 s with 8 GPUs writes 8 per second." % (
            g1["gpus"], n(g1["gpu_samples"]), f2(g1["wall_s"]),
            n(g1["rate_gpu_samples_per_s"]), f2(g1["cpu_s"]), n(g1["commits"]),
            f1(g1["bytes_per_gpu_sample"])),
    ])

    # ------------------------------------------------------------ summary
    targets = [("full 8-GPU snapshot, gpumon's own CPU (estimated)",
                "{:.1f} µs".format(gm_own_us), "< %.0f µs" % SNAPSHOT_TARGET_US, snap_v, snap_r)]
    for name, args, med, tgt, v, ratio in verdicts:
        targets.append(("`gpumon %s`, whole process, median wall" % args,
                        "{:.2f} ms".format(med), "< %.0f ms" % tgt, v, ratio))
    targets += [
        ("agent at 1 s, 8 GPUs, CSV + store + procs%s: CPU (utime+stime)"
         % (" + exporter (the default)" if noexp else ""),
         "{:.3f} %".format(cpu_1s), "≤ %.1f %% of a core" % AGENT_CPU_TARGET_PCT, cpu_v, cpu_r),
    ]
    if noexp:
        targets.append(("agent at 1 s, the same with `--no-exporter`: CPU (utime+stime)",
                        "{:.3f} %".format(cpu_noexp), "≤ %.1f %% of a core" % AGENT_CPU_TARGET_PCT,
                        noexp_v, noexp_r))
    targets += [
        ("agent RSS (VmHWM, the largest of the runs)",
         "{:.1f} MiB".format(mib(rss_max)), "≤ %.0f MiB" % AGENT_RSS_TARGET_MIB, rss_v, rss_r),
        ("SQLite raw tier, bytes per GPU-sample (the agent's store, %s GPU-samples)"
         % n(raw_agent[1]), "{:.1f} B".format(raw_agent[0]), "≤ %.0f B" % STORE_BYTES_TARGET,
         raw_v, raw_r),
        ("SQLite whole file, bytes per GPU-sample (the %d-day store)" % gen["days"],
         "{:.1f} B".format(whole), "≤ %.0f B" % STORE_BYTES_TARGET, whole_v, whole_r),
        ("`gpumon report --by hour`, %d days × %d GPUs at 1 s, median wall"
         % (gen["days"], gen["gpus"]), "{:.1f} ms".format(rep_med),
         "≤ %.0f ms" % REPORT_TARGET_MS, rep_v, rep_r),
    ]
    sum_rows = [(t, m, g, "**%s**" % v, "{:.2f}".format(r)) for t, m, g, v, r in targets]
    summary_md = "\n\n".join([
        "Last run: %s on %s (%s cores), %s, %s; %s; valgrind %s, %s; commit %s; "
        "%d s in all, the build included." % (
            env["date"], env["cpu"], env["cores"], env["kernel"], env["gcc"], env["build"],
            env["valgrind"].replace("valgrind-", ""), env["hyperfine"], env["commit"],
            env["seconds"]),
        table(["target", "measured", "target", "result", "measured / target"], sum_rows),
    ])

    with open(docpath) as f:
        doc = f.read()
    doc = replace_block(doc, "summary", summary_md)
    doc = replace_block(doc, "snapshot", snap_md)
    doc = replace_block(doc, "process", proc_md)
    doc = replace_block(doc, "agent", agent_md)
    doc = replace_block(doc, "storage", storage_md)
    doc = replace_block(doc, "report", report_md)
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

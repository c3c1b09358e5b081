#!/usr/bin/env python3
"""diagnose_suite.py -- `gpumon diagnose` against its scenario suite.

Every file in scenarios/diagnose/ states its labels in comments:

    ; expect: 3=input-starved 0-2,4-7=healthy-busy
    ; expect-store: ...        (optional: what the store can show, when less)
    ; expect-csv: ...          (optional: what the CSV log can show; default
                               expect-store: it has no processes)

A label is a cause id or a negative verdict (healthy-busy, idle, light-load);
several causes on one GPU are joined with '+'; '?' leaves the GPU unscored
in that source (what it shows there is chance: e.g. a 10 % duty beat in 20
coarse samples; the scenario's comment says why).  For each scenario the suite
runs, side by side:

  live   `gpumon --sim FILE diagnose --json --duration 8s` (1 s snapshots and
         NVML's 1/6 s sample buffers between them)
  store  `gpumon agent` with a 0.5 s interval for ~10 s at GPUSIM_SPEED=5 (one
         sample every 2.5 s of scenario time: a coarse series like the
         agent's), then `gpumon diagnose --since 1m --data-dir D --json`
  csv    the same agent's daily CSV log: `gpumon diagnose --csv FILE --json`

and compares each GPU's labels with what was reported (its findings' causes,
or its verdict when it has none).  Prints precision and recall per label and
source, and fails when any is below 0.95 (a label with no occurrence in a
source is not scored there).  Also checks the JSON shape and --fail-on.
What the live diagnosis costs (CPU share) is measured by make bench (the
insight section of docs/BENCHMARKS.md), not here: on a loaded machine a
share of a core says how busy the machine is.
"""
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import Agent, Scratch, run, sim_env  # noqa: E402

SUITE = os.path.join(agentlib.ROOT, "scenarios", "diagnose")
# The CSV columns docs/diagnose.md gives for diagnosis from CSV logs: the
# default set and what the detectors read beyond it.
DIAG_COLUMNS = ("index,uuid,name,utilization.gpu,utilization.memory,memory.used,memory.total,"
                "power.draw,power.limit,temperature.gpu,clocks.sm,clocks.mem,"
                "clocks_event_reasons.active,utilization.encoder,utilization.decoder,"
                "pcie_rx_bytes_per_second,pcie.link.gen.current,pcie.link.gen.max,"
                "pcie.link.width.current,pcie.link.width.max,compute_mode,"
                "ecc.errors.uncorrected.volatile.total,remapped_rows.pending,"
                "retired_pages.pending,gpm.sm_active,gpm.dram_active,gpm.pcie_rx")
BAR = 0.95


def parse_labels(spec, where):
    """'3=input-starved 0-2,4-7=healthy-busy' -> {gpu: set(labels)}."""
    out = {}
    for item in spec.split():
        gpus, _, labels = item.partition("=")
        if not labels:
            raise SystemExit(f"{where}: bad label '{item}' (want GPUS=LABEL)")
        for part in gpus.split(","):
            a, _, b = part.partition("-")
            for g in range(int(a), int(b or a) + 1):
                out.setdefault(g, set()).update(labels.split("+"))
    return out


def read_expect(path):
    exp = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*;\s*expect(-store|-csv)?:\s*(.*)", line)
            if m:
                exp[m.group(1) or ""] = parse_labels(m.group(2), path)
    if "" not in exp:
        raise SystemExit(f"{path}: no '; expect:' line")
    store = exp.get("-store", exp[""])
    return exp[""], store, exp.get("-csv", store)


# Ranks of a torchrun-style job for the process-tree scenarios: children of
# this test, each in its own session (as torchrun starts them), alive for
# the run (started in main, ended at its end).
RANKS = []


def start_ranks(n=4):
    for _ in range(n):
        RANKS.append(subprocess.Popen(["sleep", "3600"], start_new_session=True))


def stop_ranks():
    for p in RANKS:
        p.kill()
        p.wait()


def env_for(path, host_root=None, **kw):
    # the live processes of the scenarios are this test (alive for its run),
    # its parent and its children (RANKS)
    ranks = {f"GPUSIM_PID_RANK{i}": p.pid for i, p in enumerate(RANKS)}
    env = sim_env(path, GPUSIM_PID_LIVE=os.getpid(), GPUSIM_PID_LIVE2=os.getppid(), **ranks,
                  **kw)
    if host_root:
        # the simulator writes its processes' host side (CPU, workers, I/O
        # wait, pressure) there and gpumon reads it as its host root; one
        # per run, since each library instance counts CPU from its own epoch
        env["GPUSIM_HOST_ROOT"] = env["GPUMON_HOST_ROOT"] = host_root
    return env


def got_labels(doc):
    check_shape(doc)
    return {g["index"]: set(g["causes"]) if g["verdict"] == "findings" else
            {"gpu-lost" if g["verdict"] == "lost" else g["verdict"]} for g in doc["gpus"]}


def check_shape(doc):
    assert doc["schema"] == "gpumon.diagnose/1", doc.get("schema")
    assert doc["source"] in ("live", "store", "csv")
    for k in ("start", "end", "seconds"):
        assert k in doc["window"], k
    for f in doc["findings"]:
        for k in ("cause", "severity", "gpus", "start", "end", "confidence", "evidence",
                  "values", "advice"):
            assert k in f, (k, f)
        assert f["severity"] in ("info", "warning", "critical")
        assert 0 <= f["confidence"] <= 1


def live(path):
    with Scratch("dgh") as host:
        rc, out, err = run(["diagnose", "--json", "--duration", "8s"],
                           env_for(path, host_root=host), timeout=60)
    if rc != 0:
        raise RuntimeError(f"{path}: live diagnose exit {rc}: {err}")
    return json.loads(out)


def store(path):
    """(store result, csv result) from one recording."""
    with Scratch("dg") as d:
        env = env_for(path, host_root=d + "/host", speed=5)
        a = Agent(d + "/data", env, ["--interval", "500ms", "--procs", "--pcie", "--store-gpm",
                                     "--columns", DIAG_COLUMNS])
        # samples over 10 s of the agent's own sample times: 50 s of scenario
        # time, which the labels depend on (a busy machine may give fewer
        # samples, never a longer or shorter scenario window); not a sleep
        try:
            first = a.start(wait_samples=1, timeout=agentlib.DEADLINE).status()
            t0 = first["last_sample_unix_ns"]
            a.wait_for(lambda st: st["last_sample_unix_ns"] - t0 >= 9_500_000_000,
                       agentlib.DEADLINE, "10 s of samples")
            a.stop()
        finally:
            a.cleanup()
        rc, out, err = run(["diagnose", "--json", "--since", "1m", "--no-config", "--data-dir",
                            d + "/data"], env, timeout=60)
        if rc != 0:
            raise RuntimeError(f"{path}: diagnose --since exit {rc}: {err}")
        logs = [f for f in glob.glob(d + "/data/csv/*.csv")
                if not re.search(r"_(procs|events)_", os.path.basename(f))]
        rc, out2, err = run(["diagnose", "--json", "--csv"] + sorted(logs), env, timeout=60)
        if rc != 0:
            raise RuntimeError(f"{path}: diagnose --csv exit {rc}: {err}")
        return json.loads(out), json.loads(out2)


def score(results):
    """results: [(source, scenario, expect, got)] -> {(source, label): [tp, fp, fn]}"""
    tally = {}
    for source, name, exp, got in results:
        for g in sorted(set(exp) | set(got)):
            e, r = exp.get(g, set()), got.get(g, set())
            if "?" in e:
                continue
            for lab in e | r:
                t = tally.setdefault((source, lab), [0, 0, 0])
                if lab in e and lab in r:
                    t[0] += 1
                elif lab in r:
                    t[1] += 1
                    print(f"  {source} {name} GPU {g}: unexpected {lab} (want {sorted(e)})")
                else:
                    t[2] += 1
                    print(f"  {source} {name} GPU {g}: missed {lab} (got {sorted(r)})")
    return tally


def check_fail_on():
    path = os.path.join(SUITE, "gpu-lost.ini")
    rc, _, _ = run(["diagnose", "--duration", "1s", "--fail-on", "critical"], env_for(path))
    assert rc == 1, f"--fail-on critical with a lost GPU: exit {rc}, want 1"
    path = os.path.join(SUITE, "idle.ini")
    rc, out, _ = run(["diagnose", "--duration", "1s", "--fail-on", "warning"], env_for(path))
    assert rc == 0 and "idle" in out, f"--fail-on warning on idle GPUs: exit {rc}"
    rc, _, err = run(["diagnose", "--fail-on", "loud"], env_for(path))
    assert rc == 2 and "--fail-on" in err, f"bad --fail-on: exit {rc}, {err!r}"


def check_history_days():
    """Four days of a logger's CSV (a row per GPU every 10 min), read with
    `diagnose --csv`: GPU 0 is the seeds' leak (6000 -> 10200 MiB over four
    days at ~8 % utilisation on a 32 GiB card: named by its rate, info:
    the card fills in weeks); GPU 1 is empty until a job starts 6 h in and
    takes 65 GiB at once, then runs busy at low power (a step, not a leak;
    low-intensity with the SM clock's maximum unknown, never "nan %");
    GPU 2 holds a flat 20 GiB."""
    import datetime
    import random
    rnd = random.Random(25)
    t0 = datetime.datetime(2026, 11, 20, tzinfo=datetime.timezone.utc)
    rows = ["time,gpu,utilization_gpu_percent,memory_used_mib,memory_total_mib,power_draw_w,"
            "power_limit_w,clocks_sm_mhz,status"]
    steps = 4 * 24 * 6
    for k in range(steps + 1):
        ts = (t0 + datetime.timedelta(minutes=10 * k)).isoformat(timespec="milliseconds")
        leak = 6000 + 4200 * k / steps + rnd.uniform(-20, 20)
        rows.append(f"{ts},0,{rnd.uniform(4, 12):.0f},{leak:.0f},32768,70,300,1530,ok")
        started = k >= 6 * 6
        mem = 66560 + rnd.uniform(-50, 50) if started else 0
        util = rnd.uniform(95, 99) if started else 0
        rows.append(f"{ts},1,{util:.0f},{mem:.0f},81920,{120 if started else 60},400,"
                    f"{1380 if started else 210},ok")
        rows.append(f"{ts},2,{rnd.uniform(35, 45):.0f},{20480 + rnd.uniform(-30, 30):.0f},"
                    f"81920,150,400,1410,ok")
    with Scratch("dgdays") as d:
        path = os.path.join(d, "node_20261120.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(rows) + "\n")
        rc, out, err = run(["diagnose", "--json", "--csv", path], env_for(
            os.path.join(SUITE, "idle.ini")), timeout=60)
        assert rc == 0, f"diagnose --csv over four days: exit {rc}: {err}"
        doc = json.loads(out)
    growth = {f["gpus"][0]: f for f in doc["findings"] if f["cause"] == "memory-growth"}
    assert set(growth) == {0}, f"memory-growth on {sorted(growth)}, want GPU 0 only: {growth}"
    f = growth[0]
    mib_h = f["values"]["slope_Bps"] * 3600 / 1048576
    assert 40 <= mib_h <= 48, f"leak rate {mib_h:.1f} MiB/h, want ~43.75: {f['evidence']}"
    assert f["severity"] == "info", f"severity {f['severity']}: {f['evidence']}"
    assert "MiB/h" in f["evidence"] and "days" in f["evidence"], f["evidence"]
    for g in doc["findings"]:
        assert "nan" not in g["evidence"].lower(), f"NaN in evidence: {g['evidence']}"
    lowint = [g for g in doc["findings"] if g["cause"] == "low-intensity"]
    assert lowint and "SM clock's maximum not known" in lowint[0]["evidence"], lowint
    print(f"history over four days: {f['evidence']}")


def main():
    start_ranks()
    try:
        return suite()
    finally:
        stop_ranks()


def shared_job():
    """The job id that attribution gives this test, its parent and its
    children alike (they run in one container, pod, Slurm job or unit), or
    None.  Scenarios that stand two jobs on these processes (this test and
    its parent, or its children and its parent) expect them apart; where
    they are one job by identity that is the right answer, and those
    scenarios cannot be scored here."""
    path = os.path.join(SUITE, "jobs-false-alarm.ini")
    rc, out, _ = run(["status", "--json"], env_for(path), timeout=60)
    if rc != 0:
        raise RuntimeError(f"status --json for the job check: exit {rc}")
    jobs = {p.get("job") for g in json.loads(out)["gpus"] for p in g.get("processes", [])}
    jobs = {j for j in jobs if j and not j.startswith("user:")}
    return jobs.pop() if len(jobs) == 1 else None


def suite():
    t0 = time.monotonic()
    files = sorted(glob.glob(os.path.join(SUITE, "*.ini")))
    job = shared_job()
    if job:
        def two_jobs(f):
            with open(f, encoding="utf-8") as fh:
                text = fh.read()
            return "GPUSIM_PID_LIVE2" in text and ("GPUSIM_PID_LIVE:" in text or
                                                   "GPUSIM_PID_RANK" in text)
        skip = [os.path.basename(f) for f in files if two_jobs(f)]
        print(f"not scored, this test and its parent both being in job {job}: {' '.join(skip)}")
        files = [f for f in files if os.path.basename(f) not in skip]
    want = os.environ.get("DIAG_ONLY")
    if want:
        files = [f for f in files if want in os.path.basename(f)]
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as ex:
        for f in files:
            exp_live, exp_store, exp_csv = read_expect(f)
            name = os.path.basename(f)
            jobs.append(("live", name, exp_live, None, ex.submit(live, f)))
            jobs.append(("store", name, exp_store, exp_csv, ex.submit(store, f)))
        fo = ex.submit(check_fail_on)
        hd = ex.submit(check_history_days)
        results = []
        for source, name, exp, exp_csv, fut in jobs:
            if source == "live":
                results.append((source, name, exp, got_labels(fut.result())))
            else:
                st, cs = fut.result()
                assert st["source"] == "store" and cs["source"] == "csv"
                results.append(("store", name, exp, got_labels(st)))
                results.append(("csv", name, exp_csv, got_labels(cs)))
        fo.result()
        hd.result()
    tally = score(results)
    bad = 0
    print(f"{'source':6} {'label':20} {'tp':>3} {'fp':>3} {'fn':>3} {'precision':>9} "
          f"{'recall':>6}")
    for (source, lab), (tp, fp, fn) in sorted(tally.items()):
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        flag = "" if p >= BAR and r >= BAR else "  < 0.95"
        bad += bool(flag)
        print(f"{source:6} {lab:20} {tp:3} {fp:3} {fn:3} {p:9.2f} {r:6.2f}{flag}")
    print(f"{len(files)} scenarios, {time.monotonic() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

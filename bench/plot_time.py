#!/usr/bin/env python3
"""plot_time.py -- times `gpumon plot --since 30d` on the benchmarks' store
(30 days x 8 GPUs at 1 s, bench/gen_store) for each output format.

    plot_time.py --gpumon G --store DB --out JSON --doc docs/BENCHMARKS.md [--runs N]

The window ends at the store's last sample, so the whole month is drawn
(the 1-hour rollups: plotdata.c's tier for windows over 8 days).  Each
format is run once to warm the page cache and cairo's font cache, then
--runs times (default 10); the median wall time is compared with issue
13's target (500 ms).  Writes OUT (JSON) and rewrites the block between
<!-- generated:plot --> and <!-- /generated:plot --> in DOC.  Exit status
0, 3 when the target is missed, 1 when a run failed.
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_MS = 500.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpumon", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    db = sqlite3.connect(f"file:{a.store}?mode=ro", uri=True)
    last_ms = db.execute("SELECT max(ts) FROM rollup_1h").fetchone()[0]
    db.close()
    until_s = last_ms // 1000 + 3600
    until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(until_s))
    res = {}
    with tempfile.TemporaryDirectory() as d:
        for ext in ("png", "svg", "pdf"):
            out = os.path.join(d, "p." + ext)
            argv = [a.gpumon, "plot", "--store-path", a.store, "--since", "30d", "--until", until,
                    "-o", out]
            times = []
            for i in range(a.runs + 1):
                t0 = time.perf_counter()
                p = subprocess.run(argv, capture_output=True, text=True)
                dt = (time.perf_counter() - t0) * 1000
                if p.returncode != 0:
                    sys.exit(f"plot_time.py: {' '.join(argv)}: exit {p.returncode}: {p.stderr}")
                if i:
                    times.append(dt)
            res[ext] = {"median_ms": statistics.median(times), "min_ms": min(times),
                        "max_ms": max(times), "bytes": os.path.getsize(out), "runs": a.runs}
    with open(a.out, "w") as f:
        json.dump({"until": until, "store": os.path.basename(a.store), "results": res}, f, indent=1)
    stamp = time.strftime("Last run: %Y-%m-%d %H:%M:%S UTC", time.gmtime())
    rows = ["| what | median | min–max | file | target | result |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    miss = False
    for ext, r in res.items():
        ok = r["median_ms"] <= TARGET_MS
        miss |= not ok
        rows.append(f"| `gpumon plot --since 30d -o x.{ext}` | {r['median_ms']:.0f} ms | "
                    f"{r['min_ms']:.0f}–{r['max_ms']:.0f} ms | {r['bytes'] / 1024:.0f} KiB | "
                    f"≤ {TARGET_MS:.0f} ms | **{'PASS' if ok else 'MISS'}** |")
    block = (f"{stamp}, {os.cpu_count()} cores; 30 days x 8 GPUs, {a.runs} runs each after one "
             "warm-up.\n\n" + "\n".join(rows) + "\n")
    text = open(a.doc).read()
    pat = r"<!-- generated:plot -->\n.*?<!-- /generated:plot -->"
    if not re.search(pat, text, re.S):
        sys.exit(f"plot_time.py: no <!-- generated:plot --> block in {a.doc}")
    text = re.sub(pat, lambda m: "<!-- generated:plot -->\n" + block + "<!-- /generated:plot -->",
                  text, flags=re.S)
    with open(a.doc, "w") as f:
        f.write(text)
    print(block)
    sys.exit(3 if miss else 0)


if __name__ == "__main__":
    main()

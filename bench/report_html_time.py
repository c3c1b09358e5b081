#!/usr/bin/env python3
"""report_html_time.py -- times `gpumon report --html` for 30 days on the
benchmarks' store (30 days x 8 GPUs at 1 s, bench/gen_store).

    report_html_time.py --gpumon G --store DB --out JSON --doc docs/BENCHMARKS.md [--runs N]

The period ends an hour after the store's last hour, so the whole month is
in it: the summary from the 1-hour rollups, the charts from the 1-hour
rollups (plotdata.c's tier for windows over 8 days), the diagnosis from
history.c's tiers (hours, the last day's minutes, the last hour raw), the
alert notices and marks.  One warm-up run, then --runs (default 10); the
median wall time is compared with issue 13's targets (1 s, 2 MB).  Writes
OUT (JSON) and rewrites the block between <!-- generated:report-html -->
and <!-- /generated:report-html --> in DOC.  Exit status 0, 3 when a
target is missed, 1 when a run failed.
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

TARGET_MS = 1000.0
TARGET_BYTES = 2_000_000


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
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.html")
        argv = [a.gpumon, "report", "--no-config", "--store-path", a.store, "--since", "30d",
                "--until", until, "--html", out]
        times = []
        for i in range(a.runs + 1):
            t0 = time.perf_counter()
            p = subprocess.run(argv, capture_output=True, text=True)
            dt = (time.perf_counter() - t0) * 1000
            if p.returncode != 0:
                sys.exit(f"report_html_time.py: {' '.join(argv)}: exit {p.returncode}: "
                         f"{p.stderr}")
            if i:
                times.append(dt)
        size = os.path.getsize(out)
        with open(out, encoding="utf-8") as f:
            text = f.read()
    r = {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
         "bytes": size, "runs": a.runs, "charts": text.count('<svg class="chart"'),
         "summary_rows": text.count('<tr class="gpu"')}
    with open(a.out, "w") as f:
        json.dump({"until": until, "store": os.path.basename(a.store), "results": r}, f, indent=1)
    stamp = time.strftime("Last run: %Y-%m-%d %H:%M:%S UTC", time.gmtime())
    t_ok = r["median_ms"] <= TARGET_MS
    b_ok = size <= TARGET_BYTES
    rows = ["| what | median | min–max | file | target | result |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            f"| `gpumon report --since 30d --html x.html`: time | {r['median_ms']:.0f} ms | "
            f"{r['min_ms']:.0f}–{r['max_ms']:.0f} ms | | ≤ {TARGET_MS:.0f} ms | "
            f"**{'PASS' if t_ok else 'MISS'}** |",
            f"| `gpumon report --since 30d --html x.html`: size | | | {size / 1e6:.2f} MB "
            f"({size} bytes) | ≤ 2 MB | **{'PASS' if b_ok else 'MISS'}** |"]
    block = (f"{stamp}, {os.cpu_count()} cores; 30 days x 8 GPUs ({r['summary_rows']} summary "
             f"rows, {r['charts']} charts), {a.runs} runs after one warm-up.\n\n"
             + "\n".join(rows) + "\n")
    doc = open(a.doc).read()
    pat = r"<!-- generated:report-html -->\n.*?<!-- /generated:report-html -->"
    if not re.search(pat, doc, re.S):
        sys.exit(f"report_html_time.py: no <!-- generated:report-html --> block in {a.doc}")
    doc = re.sub(pat, lambda m: "<!-- generated:report-html -->\n" + block +
                 "<!-- /generated:report-html -->", doc, flags=re.S)
    with open(a.doc, "w") as f:
        f.write(doc)
    print(block)
    sys.exit(0 if t_ok and b_ok else 3)


if __name__ == "__main__":
    main()

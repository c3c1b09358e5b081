#!/usr/bin/env python3
"""bench/compare.py, which `make bench` runs to set each figure of CPU,
memory and instructions per sample against its last recorded value in
docs/BENCHMARKS.md (no benchmark runs here: two small pages as data).

Table-driven: each case changes one cell of a small page and names the
line compare.py must print (a regression when a figure grew by more than
10 %, an improvement when it shrank so much) or none (a move within 10 %,
a column that is not CPU, memory or instructions, a figure only in the
new page, text outside the generated blocks).  Then the real page against
itself: every figure compared, nothing moved.

Environment from meson: SOURCE_ROOT.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
COMPARE = os.path.join(ROOT, "bench", "compare.py")

PAGE = """# Benchmarks

| outside | CPU per sample, µs |
| --- | ---: |
| not generated | {out} |

<!-- generated:agent -->
Run of some day.

| interval | samples | CPU (utime+stime) | VmRSS MiB | threads |
| --- | ---: | ---: | ---: | ---: |
| 1 s | 60 | **{cpu} %** | {rss} | {threads} |
{extra}
|  | instructions | of gpumon's own |
| --- | ---: | ---: |
| CSV sink | {ir} | 40 % |
<!-- /generated:agent -->

<!-- generated:summary -->
| target | measured | target | result |
| --- | ---: | ---: | ---: |
| agent at 1 s: CPU (utime+stime) | {scpu} % | ≤ 0.2 % | **PASS** |
| agent RSS (VmHWM) | {smem} MiB | ≤ 10 MiB | **PASS** |
| bytes per GPU-sample | {bytes} B | ≤ 64 B | **PASS** |
<!-- /generated:summary -->
"""

BASE = dict(out="100", cpu="0.117", rss="7.7", threads="9", extra="", ir="231,250",
            scpu="0.117", smem="7.9", bytes="56.2")

CASES = [
    # (what changes, the line expected, or None for no move printed)
    (dict(cpu="0.220"),
     "REGRESSION agent: 1 s, CPU (utime+stime): 0.117 % -> 0.220 % (+88 %, CPU)"),
    (dict(cpu="0.100"),
     "improved agent: 1 s, CPU (utime+stime): 0.117 % -> 0.100 % (-15 %, CPU)"),
    (dict(cpu="0.125"), None),  # +7 %
    (dict(rss="11.4"), "REGRESSION agent: 1 s, VmRSS MiB: 7.7 -> 11.4 (+48 %, memory)"),
    (dict(ir="1,310,000"),
     "REGRESSION agent: CSV sink, instructions: 231,250 -> 1,310,000 (+466 %, instructions)"),
    (dict(threads="13"), None),  # not a CPU, memory or instructions column
    (dict(out="500"), None),     # outside the generated blocks
    (dict(extra="| 100 ms | 200 | **5.0 %** | 7.9 | 9 |"), None),  # only in the new page
    (dict(scpu="0.220"),
     "REGRESSION summary: agent at 1 s: CPU (utime+stime), measured: 0.117 % -> 0.220 % "
     "(+88 %, CPU)"),
    (dict(smem="11.0"),
     "REGRESSION summary: agent RSS (VmHWM), measured: 7.9 MiB -> 11.0 MiB (+39 %, memory)"),
    (dict(bytes="80"), None),    # the summary's other rows are not compared
]


def run(old, new, d):
    po, pn = os.path.join(d, "old.md"), os.path.join(d, "new.md")
    with open(po, "w", encoding="utf-8") as f:
        f.write(old)
    with open(pn, "w", encoding="utf-8") as f:
        f.write(new)
    p = subprocess.run([sys.executable, COMPARE, po, pn], capture_output=True, text=True,
                       timeout=60)
    if p.returncode != 0:
        raise SystemExit("compare.py exited %d: %s" % (p.returncode, p.stderr))
    return p.stdout.splitlines()


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gm-bench-compare-") as d:
        old = PAGE.format(**BASE)
        for change, want in CASES:
            lines = run(old, PAGE.format(**dict(BASE, **change)), d)
            moves = [x[len("bench: "):] for x in lines[:-1]]
            expect = [want] if want else []
            if moves != expect or "compared" not in lines[-1]:
                failed += 1
                print("FAIL %s: got %r, want %r" % (change, moves, expect))
            else:
                print("ok   %s" % change)
        doc = open(os.path.join(ROOT, "docs", "BENCHMARKS.md"), encoding="utf-8").read()
        lines = run(doc, doc, d)
        last = lines[-1]
        n = int(last.split("compared ")[1].split()[0])
        if len(lines) != 1 or n < 50 or ": 0 regressions, 0 improvements" not in last:
            failed += 1
            print("FAIL the page against itself: %r" % lines)
        else:
            print("ok   the page against itself: %d figures" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

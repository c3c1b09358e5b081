#!/usr/bin/env python3
"""compare.py -- what moved between two versions of docs/BENCHMARKS.md.

    compare.py OLD.md NEW.md [--threshold 10]

`make bench` keeps the page as it was before the run (bench.sh copies it)
and, once every section has rewritten its block, compares each figure of
CPU, memory and instructions per sample with its last recorded value.  It
prints one line per figure that moved by more than the threshold (10 %):
"REGRESSION" when it grew, "improved" when it shrank, with both values and
the change; then how many figures it compared.  A figure that is only in
one of the two (a new row, a section that did not run) is not compared.

What a figure is: a cell of a table in a <!-- generated:NAME --> block.
Its kind comes from its column's header -- "CPU" (CPU, µs per sample),
"memory" (MiB, RSS, HWM, memory), "instructions" -- or, in a table whose
value column is "measured" (the summary), from the row's label.  A figure
is named by its block, its table's header, its row's first cell and its
column; the number is the cell's first (commas, bold and units dropped).
Exit status 0 whatever moved: a benchmark reports, it does not fail.
"""

import argparse
import re
import sys

NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
BLOCK = re.compile(r"<!-- generated:([\w-]+) -->\n(.*?)<!-- /generated:\1 -->", re.S)


def kind_of(text):
    t = text.lower()
    if "instructions" in t:
        return "instructions"
    if "cpu" in t or "µs" in t:
        return "CPU"
    if "mib" in t or "rss" in t or "hwm" in t or "memory" in t:
        return "memory"
    return None


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def number(cell):
    m = NUM.search(cell.replace("**", ""))
    return float(m.group(0).replace(",", "")) if m else None


def figures(text):
    """{(block, table header, row label, column): (kind, value, cell)}"""
    out = {}
    for name, body in BLOCK.findall(text):
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("|"):
                i += 1
                continue
            table = []
            while i < len(lines) and lines[i].startswith("|"):
                table.append(cells(lines[i]))
                i += 1
            if len(table) < 3:
                continue
            head, rows = table[0], table[2:]
            for row in rows:
                label = row[0]
                for c in range(1, min(len(head), len(row))):
                    kind = kind_of(label) if head[c].lower() == "measured" else kind_of(head[c])
                    if not kind:
                        continue
                    v = number(row[c])
                    if v is None:
                        continue
                    out[(name, " | ".join(head), label, head[c])] = (kind, v, row[c])
    return out


def compare(old_text, new_text, threshold):
    """Lines describing the moves beyond threshold %, and the count compared."""
    old, new = figures(old_text), figures(new_text)
    lines = []
    compared = 0
    for key, (kind, v1, cell1) in new.items():
        if key not in old:
            continue
        v0, cell0 = old[key][1], old[key][2]
        compared += 1
        if v0 == 0:
            continue
        change = (v1 - v0) / abs(v0) * 100
        if abs(change) <= threshold:
            continue
        block, _, label, col = key
        what = "REGRESSION" if change > 0 else "improved"
        lines.append("%s %s: %s, %s: %s -> %s (%+.0f %%, %s)" % (
            what, block, label, col, cell0.replace("**", ""), cell1.replace("**", ""),
            change, kind))
    return lines, compared


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--threshold", type=float, default=10.0)
    a = ap.parse_args()
    with open(a.old, encoding="utf-8") as f:
        old = f.read()
    with open(a.new, encoding="utf-8") as f:
        new = f.read()
    lines, compared = compare(old, new, a.threshold)
    for line in sorted(lines, key=lambda s: (not s.startswith("REGRESSION"), s)):
        print("bench: " + line)
    print("bench: compared %d figures of CPU, memory and instructions per sample with the last "
          "recorded ones: %d regressions, %d improvements beyond %g %%" % (
              compared, sum(s.startswith("REGRESSION") for s in lines),
              sum(s.startswith("improved") for s in lines), a.threshold))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""diagnose_thresholds.py -- every named threshold of the detectors is in
docs/diagnose.md with its reason (issue 25: "Thresholds written in
docs/diagnose.md with their reason").

Reads each `#define NAME VALUE` of src/insight/diagnose.c whose value is a
number (units such as MIB and GIB aside) and fails when NAME appears in no
row of a table of docs/diagnose.md ("Why these numbers", the host side's
table) that also gives a reason (a last column with text).  A constant added without its
row in the docs fails here.
"""
import os
import re
import sys

ROOT = os.environ.get("SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")
UNITS = {"MIB", "GIB"}


def main():
    with open(os.path.join(ROOT, "src", "insight", "diagnose.c"), encoding="utf-8") as f:
        src = f.read()
    names = [m.group(1) for m in re.finditer(
        r"^#define\s+([A-Z][A-Z0-9_]*)\s+\(?[-0-9.(]", src, re.M) if m.group(1) not in UNITS]
    if len(names) < 20:
        sys.exit(f"FAIL only {len(names)} thresholds found in src/insight/diagnose.c: {names}")
    with open(os.path.join(ROOT, "docs", "diagnose.md"), encoding="utf-8") as f:
        rows = [l for l in f if l.startswith("|") and l.count("|") >= 4]
    missing = []
    for n in names:
        ok = False
        for r in rows:
            if f"`{n}`" in r:
                cells = [c.strip() for c in r.strip().strip("|").split("|")]
                ok = len(cells) >= 3 and len(cells[-1]) >= 20
                if ok:
                    break
        if not ok:
            missing.append(n)
    if missing:
        sys.exit("FAIL docs/diagnose.md gives no row with a reason for: " + ", ".join(missing))
    print(f"ok {len(names)} thresholds of src/insight/diagnose.c each have a row with a reason")


if __name__ == "__main__":
    main()

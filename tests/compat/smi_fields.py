#!/usr/bin/env python3
"""smi_fields.py -- every --query-gpu field of real nvidia-smi 570-595 is
either answered by gpumon or listed as absent, with the reason, in
docs/compat.md (issue 28 point 8).

The fields are smi_query_gpu_fields.txt beside this script (derived by
derive_smi_fields.py from captured `nvidia-smi --help-query-gpu` outputs;
its header names them).  A field counts as implemented when
`gpumon query --help-query-gpu` lists its name or one of its aliases, and
each implemented one must then be accepted by `gpumon query --query-gpu`
on the simulator.  The absent ones are the rows of the table under the
heading ABSENT_HEADING in docs/compat.md: "| `field` | reason |".  Fails on

  * a field neither implemented nor in that table;
  * a table row with an empty reason, or naming a field gpumon implements
    (the page has gone stale) or one not in the derived list;
  * an implemented field the query refuses.

Usage: smi_fields.py GPUMON SIMLIB SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ABSENT_HEADING = "## `--query-gpu` fields of drivers 570-595 that gpumon does not answer"


def derived_fields():
    out = []
    with open(os.path.join(HERE, "smi_query_gpu_fields.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                out.append(line.split())
    return out


def absent_table(path):
    """{field: reason} from the table under ABSENT_HEADING."""
    rows, inside = {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                inside = line.strip() == ABSENT_HEADING
                continue
            if not inside:
                continue
            m = re.match(r"^\|([^|]*`[^|]*)\|(.*)\|\s*$", line)
            if m:
                for name in re.findall(r"`([^`]+)`", m.group(1)):
                    rows[name] = m.group(2).strip()
    return rows


def main():
    gpumon, lib, root = sys.argv[1], sys.argv[2], sys.argv[3]
    help_text = subprocess.run([gpumon, "query", "--help-query-gpu"], capture_output=True,
                               text=True, check=True).stdout
    ours = set()
    for line in help_text.splitlines():
        if line.startswith('"'):
            ours.update(re.findall(r'"([^"]+)"', line))
    fields = derived_fields()
    absent = absent_table(os.path.join(root, "docs", "compat.md"))
    bad = 0
    if not absent:
        print("FAIL docs/compat.md has no table under %r" % ABSENT_HEADING)
        bad += 1
    implemented = []
    for names in fields:
        have = [n for n in names if n in ours]
        if have:
            implemented.append(have[0])
            if names[0] in absent:
                print("FAIL %s: implemented, but docs/compat.md lists it as absent" % names[0])
                bad += 1
        elif names[0] not in absent:
            print("FAIL %s: nvidia-smi 570-595 has it; gpumon neither answers it nor "
                  "docs/compat.md lists it as absent" % names[0])
            bad += 1
        elif not absent[names[0]]:
            print("FAIL %s: listed as absent without a reason" % names[0])
            bad += 1
    known = {n for names in fields for n in names}
    for name in absent:
        if name not in known:
            print("FAIL docs/compat.md lists %s, which is not in the derived list" % name)
            bad += 1
    # every implemented field is accepted by the query, on two kinds of board
    env = dict(os.environ)
    env.update({"GPUMON_NVML_LIB": lib, "GPUSIM_TIME": "45", "TZ": "UTC", "LC_ALL": "C",
                "GPUSIM_SCENARIO_DIR": os.path.join(root, "scenarios")})
    for scenario in ("h100x8-training.ini", "workstation.ini"):
        env["GPUSIM_SCENARIO"] = os.path.join(root, "scenarios", scenario)
        p = subprocess.run([gpumon, "query", "--query-gpu=" + ",".join(implemented),
                            "--format=csv,noheader", "-i", "0"],
                           env=env, capture_output=True, text=True, timeout=120)
        cells = p.stdout.strip().split(", ")
        if p.returncode != 0 or len(cells) < len(implemented):
            print("FAIL %s: the query of the %d implemented fields: exit %d, %d cells: %s"
                  % (scenario, len(implemented), p.returncode, len(cells), p.stderr.strip()))
            bad += 1
    print("%d fields: %d implemented, %d listed as absent, %d failures"
          % (len(fields), len(implemented), len(fields) - len(implemented), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

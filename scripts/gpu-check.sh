#!/bin/bash
# gpu-check.sh -- validates gpumon against nvidia-smi on a machine with a real
# NVIDIA GPU.  Builds gpumon (unless GPUMON points at a binary), asks both
# tools for every --query-gpu field they both know and for the compute
# processes, and prints a table of matches and differences.
#
#   scripts/gpu-check.sh              build into build-gpucheck/ and compare
#   GPUMON=path/to/gpumon scripts/gpu-check.sh
#
# Static fields (names, ids, limits, modes) must match exactly.  Live fields
# (utilisation, power, temperature, clocks, memory in use) are read a few
# milliseconds apart by the two tools, so they are compared with a tolerance
# and reported as "close" or "DIFFERS".  Exit status: 0 when no static field
# and no header differs, 1 otherwise, 2 when nvidia-smi is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v nvidia-smi >/dev/null || { echo "gpu-check: nvidia-smi not found" >&2; exit 2; }
if [ -z "${GPUMON:-}" ]; then
    [ -f build-gpucheck/build.ninja ] || meson setup build-gpucheck -Dtests=disabled >/dev/null
    ninja -C build-gpucheck >/dev/null
    GPUMON=build-gpucheck/src/gpumon
fi
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"

keys() { grep -E '^"' | sed -E 's/^"([^"]+)".*/\1/'; }
nvidia-smi --help-query-gpu | keys | sort -u >"$out/smi-fields"
"$GPUMON" query --help-query-gpu | sed '/^gpumon extensions/,$d' | keys | sort -u >"$out/gm-fields"
fields=$(comm -12 "$out/smi-fields" "$out/gm-fields" | paste -sd, -)
echo "fields known to both: $(comm -12 "$out/smi-fields" "$out/gm-fields" | wc -l)" \
     "(nvidia-smi only: $(comm -23 "$out/smi-fields" "$out/gm-fields" | wc -l)," \
     "gpumon only: $(comm -13 "$out/smi-fields" "$out/gm-fields" | wc -l))"
comm -13 "$out/smi-fields" "$out/gm-fields" >"$out/gm-only-fields"

nvidia-smi --version >"$out/nvidia-smi-version.txt" 2>&1 || true
nvidia-smi --query-gpu="$fields" --format=csv >"$out/smi.csv"
"$GPUMON" query --query-gpu="$fields" --format=csv >"$out/gm.csv"
nvidia-smi --query-gpu="$fields" --format=csv,noheader,nounits >"$out/smi-nounits.csv"
"$GPUMON" query --query-gpu="$fields" --format=csv,noheader,nounits >"$out/gm-nounits.csv"
apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory
nvidia-smi --query-compute-apps=$apps --format=csv >"$out/smi-apps.csv"
"$GPUMON" query --query-compute-apps=$apps --format=csv >"$out/gm-apps.csv"
"$GPUMON" status --json >"$out/gm-status.json"
"$GPUMON" status --no-color >"$out/gm-status.txt" || true

python3 - "$out" <<'PY'
import csv, io, re, sys
out = sys.argv[1]

def rows(path):
    with open(path) as f:
        return [[c.strip() for c in r] for r in csv.reader(f, skipinitialspace=True)]

smi, gm = rows(f"{out}/smi.csv"), rows(f"{out}/gm.csv")
live = re.compile(r"^(timestamp|utilization\.|power\.draw|temperature\.|clocks\.current|clocks\.(gr|sm|mem|video)$"
                  r"|fan\.speed|pstate|memory\.(used|free)|clocks_event_reasons\.|clocks_throttle_reasons\."
                  r"|pcie\.link\.gen\.(current|gpucurrent)|pcie\.link\.width\.current|encoder|decoder)")
tol = [("power.", 0.10, 5.0), ("temperature.", 0.0, 2.0), ("clocks.", 0.10, 50.0),
       ("utilization.", 0.0, 25.0), ("memory.", 0.0, 64.0), ("fan.", 0.0, 5.0)]

def num(v):
    m = re.match(r"^\s*(-?[0-9.]+)", v)
    return float(m.group(1)) if m else None

def close(field, a, b):
    x, y = num(a), num(b)
    if x is None or y is None:
        return False
    for prefix, rel, abs_ in tol:
        if field.startswith(prefix):
            return abs(x - y) <= max(abs_, rel * max(abs(x), abs(y)))
    return False

bad = 0
print()
if smi[0] != gm[0]:
    bad += 1
    print("HEADER DIFFERS")
    for a, b in zip(smi[0], gm[0]):
        if a != b:
            print(f"  nvidia-smi: {a!r:45} gpumon: {b!r}")
else:
    print(f"header: identical ({len(smi[0])} columns)")
print(f"\n{'field':45} {'gpu':>3}  {'nvidia-smi':28} {'gpumon':28} result")
counts = {"match": 0, "close": 0, "DIFFERS": 0}
for gi, (rs, rg) in enumerate(zip(smi[1:], gm[1:])):
    for h, a, b in zip(smi[0], rs, rg):
        field = h.split(" [")[0]
        if a == b:
            res = "match"
        elif live.match(field):
            res = "close" if close(field, a, b) or field == "timestamp" else "DIFFERS"
        else:
            res = "DIFFERS"
            bad += 1
        counts[res] += 1
        if res != "match":
            print(f"{field:45} {gi:>3}  {a[:28]:28} {b[:28]:28} {res}")
if len(smi) != len(gm):
    bad += 1
    print(f"row count differs: nvidia-smi {len(smi)-1} GPUs, gpumon {len(gm)-1}")
print(f"\nper-value results: {counts['match']} match, {counts['close']} close (live values read "
      f"ms apart), {counts['DIFFERS']} differ")

sa, ga = rows(f"{out}/smi-apps.csv"), rows(f"{out}/gm-apps.csv")
key = lambda r: (r[4], r[5])
sp = {key(r): r for r in sa[1:]}
gp = {key(r): r for r in ga[1:]}
print(f"\ncompute apps: nvidia-smi {len(sp)}, gpumon {len(gp)}; header "
      f"{'identical' if sa[0] == ga[0] else 'DIFFERS'}")
if sa[0] != ga[0]:
    bad += 1
for k in sorted(set(sp) | set(gp)):
    a, b = sp.get(k), gp.get(k)
    if a is None or b is None:
        print(f"  pid {k[1]} on {k[0]}: only in {'gpumon' if a is None else 'nvidia-smi'}")
    elif a[6:] != b[6:]:
        print(f"  pid {k[1]}: nvidia-smi {a[6:]} gpumon {b[6:]}")
print(f"\nfiles kept in {out}")
sys.exit(1 if bad else 0)
PY

#!/usr/bin/env bash
# bench.sh -- builds a release gpumon in build-bench, runs the benchmarks of
# docs/BENCHMARKS.md against the NVML simulator, and rewrites the generated
# parts of that file (the method text around them stays as written).
#
#   scripts/bench.sh [BUILDDIR]     (make bench calls it with $(BUILD))
#
# Measurements always come from $BENCH_BUILD (default build-bench), configured
# -Dbuildtype=debugoptimized -Db_ndebug=true (-O2 -g, no asserts), never from
# a developer's build whose flags we do not know; a BUILDDIR argument other
# than that is noted and not used.  Raw outputs (callgrind profiles, hyperfine
# JSON, strace summaries) stay in $BENCH_BUILD/bench-results/.
#
# Needs valgrind, hyperfine, strace and python3 (Debian packages of the same
# names); stops at once, naming the package, when one is missing.  Takes
# about 10 s on 2 cores after the build.  Exit status: 0 when every
# benchmark ran (a missed target is reported, not an error; BENCH_STRICT=1
# makes it exit 1), 1 when a benchmark could not run, 2 on a missing tool.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

BUILD=${BENCH_BUILD:-build-bench}
if [ $# -gt 0 ] && [ "$1" != "$BUILD" ]; then
    say "measuring a release build in $BUILD, not '$1' (set BENCH_BUILD to change it)"
fi

# ---------------------------------------------------------------- tools
missing=0
for tool in valgrind:valgrind callgrind_annotate:valgrind hyperfine:hyperfine strace:strace \
            python3:python3 meson:meson ninja:ninja-build; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
        say "error: '${tool%%:*}' not found: install the Debian package '${tool#*:}'" \
            "(apt-get install ${tool#*:})"
        missing=1
    fi
done
[ "$missing" = 0 ] || exit 2

# ---------------------------------------------------------------- settings
SAMPLES=${BENCH_SAMPLES:-2000}      # timed snapshots per native run
REPEATS=${BENCH_REPEATS:-5}         # native runs; the median one is reported
CG_SAMPLES=${BENCH_CG_SAMPLES:-200} # snapshots under callgrind
RUNS=${BENCH_RUNS:-200}             # hyperfine runs per command
WARMUP=${BENCH_WARMUP:-20}          # hyperfine warm-up runs
SCENARIO=scenarios/h100x8-training.ini
SCENARIO_TIME=${BENCH_SCENARIO_TIME:-120}
# the seeds' nvidia-smi field list (README, "Keep my nvidia-smi scripts")
QUERY_FIELDS=index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu
RANKS=8
OUT=$BUILD/bench-results
DOC=docs/BENCHMARKS.md

# ---------------------------------------------------------------- build
if [ ! -f "$BUILD/build.ninja" ]; then
    say "configuring $BUILD"
    mkdir -p "$BUILD"
    meson setup "$BUILD" -Dbuildtype=debugoptimized -Db_ndebug=true >"$BUILD/bench-setup.log" 2>&1 ||
        { cat "$BUILD/bench-setup.log" >&2; die "meson setup failed"; }
fi
say "building $BUILD"
ninja -C "$BUILD" src/gpumon bench/bench_snapshot sim/libnvidia-ml.so.1 >"$BUILD/bench-build.log" 2>&1 ||
    { cat "$BUILD/bench-build.log" >&2; die "build failed"; }
GPUMON=$BUILD/src/gpumon
BENCH=$BUILD/bench/bench_snapshot
SIMLIB=$BUILD/sim/libnvidia-ml.so.1
rm -rf "$OUT"
mkdir -p "$OUT"

# ---------------------------------------------------------------- environment
# Only what the benchmarks set: pinned scenario time, the simulator, the
# ranks' PIDs.  Anything the caller exported for the simulator goes.
unset GPUSIM_SPEED GPUSIM_EPOCH GPUMON_SIM_LIB GPUSIM_SCENARIO_DIR NO_COLOR
export GPUSIM_TIME=$SCENARIO_TIME
export GPUSIM_SCENARIO=$PWD/$SCENARIO
export GPUMON_NVML_LIB=$PWD/$SIMLIB
export LC_ALL=C

# The training job's ranks: real processes, so /proc enrichment does real work.
rank_pids=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    local p
    for p in "${rank_pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for ((r = 0; r < RANKS; r++)); do
    sleep 600 &
    rank_pids+=($!)
    export "GPUSIM_PID_RANK$r=$!"
done

# ---------------------------------------------------------------- snapshot
say "snapshot: $REPEATS runs of $SAMPLES timed sample pairs"
for ((i = 1; i <= REPEATS; i++)); do
    "$BENCH" -n "$SAMPLES" --pair --expect-gpus 8 --expect-alive "$RANKS" >"$OUT/snap.$i.txt" ||
        die "bench_snapshot failed (see above)"
done
for i in 1 2 3; do
    "$BENCH" -n "$SAMPLES" --timeout 10000 >"$OUT/snap-watchdog.$i.txt" ||
        die "bench_snapshot --timeout failed"
done

say "snapshot: callgrind, $CG_SAMPLES samples"
cg() { # name args... : callgrind over bench_snapshot, dumps name.1 (first) and name.2 (steady)
    local name=$1
    shift
    valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="$OUT/$name" \
        "$BENCH" --no-timing -n "$CG_SAMPLES" -w 5 "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.log" ||
        { cat "$OUT/$name.log" >&2; die "callgrind run $name failed"; }
    [ -f "$OUT/$name.2" ] || die "callgrind wrote no steady-state dump ($OUT/$name.2)"
    python3 bench/cgsplit.py snapshot "$OUT/$name.2" --samples "$CG_SAMPLES" >"$OUT/$name.json"
    python3 bench/cgsplit.py snapshot "$OUT/$name.1" --samples 1 >"$OUT/$name.first.json"
}
cg cg-snap
cg cg-snap-noprocfs --no-procfs

say "snapshot: strace -c"
for n in 100 300; do
    strace -f -c -o "$OUT/strace-snap.$n.txt" "$BENCH" --no-timing -n "$n" -w 5 >/dev/null ||
        die "strace of bench_snapshot failed (does this container allow ptrace?)"
    strace -f -c -o "$OUT/strace-snap-watchdog.$n.txt" "$BENCH" --no-timing -n "$n" -w 5 \
        --timeout 10000 >/dev/null || die "strace of bench_snapshot --timeout failed"
done

# ---------------------------------------------------------------- processes
# name|arguments after "gpumon --sim SCENARIO"; "version" is the floor: exec,
# the loader and exit, without NVML
commands=(
    "version|--version"
    "status-json|status --json"
    "status|status"
    "query|query --query-gpu=$QUERY_FIELDS --format=csv"
)
hf_args=()
printf '%s\n' "${commands[@]}" >"$OUT/commands.txt"
for c in "${commands[@]}"; do
    name=${c%%|*}
    args=${c#*|}
    # shellcheck disable=SC2086  # args is a word list on purpose
    "$GPUMON" --sim "$SCENARIO" $args >"$OUT/proc-$name.out" ||
        die "'gpumon --sim $SCENARIO $args' failed"
    hf_args+=(-n "$name" "$GPUMON --sim $SCENARIO $args")
done

say "processes: hyperfine, $RUNS runs each"
hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$OUT/hyperfine.json" \
    "${hf_args[@]}" >"$OUT/hyperfine.txt" 2>&1 ||
    { cat "$OUT/hyperfine.txt" >&2; die "hyperfine failed"; }

say "processes: callgrind and strace"
for c in "${commands[@]}"; do
    name=${c%%|*}
    args=${c#*|}
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="$OUT/cg-proc-$name" \
        "$GPUMON" --sim "$SCENARIO" $args >/dev/null 2>"$OUT/cg-proc-$name.log" ||
        { cat "$OUT/cg-proc-$name.log" >&2; die "callgrind of '$args' failed"; }
    python3 bench/cgsplit.py process "$OUT/cg-proc-$name" --main-obj "/src/gpumon" \
        >"$OUT/cg-proc-$name.json"
    # shellcheck disable=SC2086
    strace -f -c -o "$OUT/strace-proc-$name.txt" "$GPUMON" --sim "$SCENARIO" $args >/dev/null ||
        die "strace of '$args' failed"
done

# ---------------------------------------------------------------- machine
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mhz=$(sed -n "s/^cpu MHz[[:space:]]*: \([0-9]*\).*/\1/p" /proc/cpuinfo | head -n 1)
[ -z "$mhz" ] || cpu="$cpu, $mhz MHz"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit (with uncommitted changes)"
fi
BENCH_DATE=$(date -u '+%Y-%m-%d %H:%M:%S UTC') BENCH_CPU=${cpu:-unknown} BENCH_CORES=$(nproc) \
BENCH_KERNEL=$(uname -sr) BENCH_GCC=$(gcc --version | head -n 1) \
BENCH_VALGRIND=$(valgrind --version) BENCH_HYPERFINE=$(hyperfine --version) \
BENCH_COMMIT=$commit BENCH_DIR=$BUILD BENCH_SCENARIO=$SCENARIO BENCH_SCENARIO_T=$SCENARIO_TIME \
BENCH_NSAMPLES=$SAMPLES BENCH_NREPEATS=$REPEATS BENCH_NCG=$CG_SAMPLES BENCH_NRUNS=$RUNS \
BENCH_NWARMUP=$WARMUP BENCH_NRANKS=$RANKS \
    python3 - "$OUT/env.json" <<'PY'
import json, os, sys
e = os.environ
json.dump({
    "date": e["BENCH_DATE"], "cpu": e["BENCH_CPU"], "cores": e["BENCH_CORES"],
    "kernel": e["BENCH_KERNEL"], "gcc": e["BENCH_GCC"], "valgrind": e["BENCH_VALGRIND"],
    "hyperfine": e["BENCH_HYPERFINE"], "commit": e["BENCH_COMMIT"],
    "build": e["BENCH_DIR"] + ": meson -Dbuildtype=debugoptimized -Db_ndebug=true (-O2 -g)",
    "scenario": e["BENCH_SCENARIO"], "scenario_time": e["BENCH_SCENARIO_T"],
    "samples": int(e["BENCH_NSAMPLES"]), "repeats": int(e["BENCH_NREPEATS"]),
    "cg_samples": int(e["BENCH_NCG"]), "runs": int(e["BENCH_NRUNS"]),
    "warmup": int(e["BENCH_NWARMUP"]), "ranks": int(e["BENCH_NRANKS"]),
}, open(sys.argv[1], "w"), indent=1)
PY

say "writing $DOC"
python3 bench/report.py "$OUT" "$DOC" || die "report failed"
if [ "${BENCH_STRICT:-0}" = 1 ] && grep -q '^MISS' "$OUT/summary.txt"; then
    exit 1
fi
exit 0

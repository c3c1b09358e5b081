#!/usr/bin/env bash
# bench.sh -- builds a release gpumon in build-bench, runs the benchmarks of
# docs/BENCHMARKS.md against the NVML simulator, and rewrites the generated
# parts of that file (the method text around them stays as written).
#
#   scripts/bench.sh [BUILDDIR]     (make bench calls it with $(BUILD))
#   BENCH_ONLY=exporter scripts/bench.sh   only the exporter section
#   BENCH_ONLY=api scripts/bench.sh        only the live page API section
#
# BENCH_ONLY=SECTION[,SECTION] runs only those sections after the build:
# "top" (gpumon top's CPU), "exporter" (the Prometheus exporter under wrk
# beside node_exporter), "plot" (gpumon plot --since 30d on the 30-day
# store), "api" (the live page's /api/v1/status under wrk, the agent's
# cadence beside it), "report-html" (gpumon report --html for 30 days on
# that store), "tests" (the durations tests no longer assert), "calls"
# (NVML calls per GPU per sample), "procs" (one GPU process's cost per
# sample), "fleet" (gpumon fleet over 1000 replayed nodes, 64 real
# agents behind Prometheus, fleet top in tmux) and "seeds" (the agent beside
# the seeds' pynvml logger at 8 and 64 GPUs); each rewrites only its own
# generated block of docs/BENCHMARKS.md
# and its own files in bench-results/, and the other results stay as they
# are.  The sections that bench/report.py writes together (summary,
# snapshot, process, agent, storage, report) run only in a full run.
#
# Measurements always come from $BENCH_BUILD (default build-bench), configured
# -Dbuildtype=debugoptimized -Db_ndebug=true (-O2 -g, no asserts), never from
# a developer's build whose flags we do not know; a BUILDDIR argument other
# than that is noted and not used.  Raw outputs (callgrind profiles, hyperfine
# JSON, strace summaries) stay in $BENCH_BUILD/bench-results/.
#
# The agent benchmarks run `gpumon agent` for fixed windows (60 s at 1 s and
# 20 s at 100 ms, side by side), so the script takes about 2 minutes on 2
# cores after the build, plus about 40 s the first time for the 30-day
# store of the report benchmark, which is kept in $BENCH_BUILD/bench-results/
# cache/ (keyed by the store's schema version and the generator's source;
# BENCH_REGEN=1 makes it anew).
#
# Needs valgrind, hyperfine, strace and python3 (Debian packages of the same
# names), and for the exporter section wrk and prometheus-node-exporter (the
# same); stops at once, naming the package, when one is missing.  Exit
# status: 0 when every benchmark ran (a missed target is reported, not an
# error; BENCH_STRICT=1 makes it exit 1), 1 when a benchmark could not run,
# 2 on a missing tool.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

BUILD=${BENCH_BUILD:-build-bench}
if [ $# -gt 0 ] && [ "$1" != "$BUILD" ]; then
    say "measuring a release build in $BUILD, not '$1' (set BENCH_BUILD to change it)"
fi

# ---------------------------------------------------------------- sections
ONLY=${BENCH_ONLY:-}
for s in ${ONLY//,/ }; do
    case $s in
    top | exporter | insight | plot | api | report-html | tests | calls | procs | fleet | seeds) ;;
    *) die "BENCH_ONLY: no section '$s' (sections that run alone: top, exporter, insight, plot, api, report-html, tests, calls, procs, fleet, seeds)" ;;
    esac
done
want() { # section: runs in this run?
    [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]
}

# ---------------------------------------------------------------- tools
tools=(python3:python3 meson:meson ninja:ninja-build)
if [ -z "$ONLY" ]; then
    tools+=(valgrind:valgrind callgrind_annotate:valgrind hyperfine:hyperfine strace:strace)
elif want insight; then
    tools+=(hyperfine:hyperfine)
fi
if want exporter; then
    tools+=(wrk:wrk)
    # Debian's name for it, then upstream's
    NODE_EXPORTER=$(command -v prometheus-node-exporter || command -v node_exporter || true)
    if [ -z "$NODE_EXPORTER" ]; then
        tools+=(prometheus-node-exporter:prometheus-node-exporter)
    fi
fi
if want api && ! want exporter; then
    tools+=(wrk:wrk)
fi
if want fleet; then # prometheus and curl: their rows say "not measured" without them
    tools+=(tmux:tmux)
fi
missing=0
for tool in "${tools[@]}"; do
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
AGENT_SECS=${BENCH_AGENT_SECS:-60}           # measured window of the agent at 1 s
AGENT_FAST_SECS=${BENCH_AGENT_FAST_SECS:-20} # ... and at 100 ms
AGENT_WARMUP=${BENCH_AGENT_WARMUP:-5}        # seconds after the first sample, not measured
AGENT_CG_SECS=${BENCH_AGENT_CG_SECS:-10}     # agent at 100 ms under callgrind
AGENT_ST_SECS=${BENCH_AGENT_ST_SECS:-20}     # agent at 1 s under strace -c
STORE_DAYS=${BENCH_STORE_DAYS:-30}           # history in the report benchmark's store
REPORT_RUNS=${BENCH_REPORT_RUNS:-20}         # hyperfine runs per report command
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
ninja -C "$BUILD" src/gpumon src/gpumon_top.so src/gpumon_export.so src/gpumon_plot.so \
    src/gpumon_fleet.so src/gpumon_fleettop.so bench/bench_snapshot bench/gen_store sim/libnvidia-ml.so.1 \
    >"$BUILD/bench-build.log" 2>&1 ||
    { cat "$BUILD/bench-build.log" >&2; die "build failed"; }
GPUMON=$BUILD/src/gpumon
BENCH=$BUILD/bench/bench_snapshot
GENSTORE=$BUILD/bench/gen_store
SIMLIB=$BUILD/sim/libnvidia-ml.so.1
CACHE=$OUT/cache # survives reruns: the report benchmark's store
mkdir -p "$OUT"

# The report benchmark's store (STORE_DAYS days of 8 GPUs at 1 s), made once
# and kept in the cache; sets STORE.
ensure_store() {
    local schema gensum
    mkdir -p "$CACHE"
    schema=$("$GENSTORE" --schema-version)
    gensum=$(sha256sum <bench/gen_store.c | cut -c1-12)
    STORE=$CACHE/store-v$schema-${STORE_DAYS}d-8gpu-1s-$gensum.db
    if [ "${BENCH_REGEN:-0}" = 1 ] || [ ! -f "$STORE" ] || [ ! -f "$STORE.txt" ] ||
        [ ! -f "$STORE.json" ]; then
        say "store: generating $STORE_DAYS days of 8 GPUs at 1 s (once; kept in $CACHE)"
        rm -f "$CACHE"/store-*
        "$GENSTORE" --days "$STORE_DAYS" "$STORE.tmp" >"$STORE.txt.tmp" ||
            { rm -f "$STORE.tmp"*; die "gen_store failed"; }
        python3 bench/dbsize.py "$STORE.tmp" >"$STORE.json.tmp" || die "dbsize.py failed"
        mv "$STORE.tmp" "$STORE"
        mv "$STORE.json.tmp" "$STORE.json"
        mv "$STORE.txt.tmp" "$STORE.txt"
        echo "generated 1" >>"$STORE.txt"
    else
        say "store: using $STORE"
        sed -i 's/^generated .*/generated 0/' "$STORE.txt"
    fi
}
if [ -z "$ONLY" ]; then
    find "$OUT" -mindepth 1 -maxdepth 1 ! -name cache -exec rm -rf {} +
else # only the outputs of the sections that run
    ! want top || rm -f "$OUT/top-cpu.json"
    ! want exporter || rm -rf "$OUT/exporter" "$OUT/exporter.json"
    ! want plot || rm -f "$OUT/plot.json"
    ! want api || rm -rf "$OUT/api" "$OUT/api.json"
    ! want report-html || rm -f "$OUT/report-html.json"
    ! want tests || rm -rf "$OUT/tests" "$OUT/tests.json"
    ! want calls || rm -rf "$OUT/calls" "$OUT/calls.json"
    ! want procs || rm -rf "$OUT/procs" "$OUT/procs.json"
    ! want fleet || rm -rf "$OUT/fleet" "$OUT/fleet.json"
    ! want seeds || rm -rf "$OUT/seeds" "$OUT/seeds.json"
fi
mkdir -p "$CACHE"
# the page as it was, for the comparison at the end (bench/compare.py)
cp "$DOC" "$OUT/BENCHMARKS.last.md"

# ---------------------------------------------------------------- environment
# Only what the benchmarks set: pinned scenario time, the simulator, the
# ranks' PIDs.  Anything the caller exported for the simulator goes.
unset GPUSIM_SPEED GPUSIM_EPOCH GPUMON_SIM_LIB GPUSIM_SCENARIO_DIR NO_COLOR \
    STATE_DIRECTORY LOGS_DIRECTORY XDG_CONFIG_HOME XDG_STATE_HOME
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

# The sections of bench/report.py (snapshot to report, and the summary) run
# together or not at all; not indented, to keep them as they were.
if [ -z "$ONLY" ]; then

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

# ---------------------------------------------------------------- agent
# The agent runs on a clock that moves (GPUSIM_TIME unset), as it would on a
# GPU host: the scenario starts SCENARIO_TIME seconds in and goes on, so the
# values and the energy counter change from sample to sample.
# The Prometheus exporter is on by default: each agent gets a loopback port of
# its own (BENCH_AGENT_PORT and up), and nothing scrapes it.  A third agent at
# 1 s runs with it off, to separate its cost.
AGENT_EPOCH=$(($(date +%s) - SCENARIO_TIME))
AGENT_PORT=${BENCH_AGENT_PORT:-39842}
has_listen=0
if "$GPUMON" agent --help 2>/dev/null | grep -q -- '--listen'; then
    has_listen=1
fi
agent_run() { # name interval window port|off [agent_run.py options]
    local name=$1 interval=$2 window=$3 port=$4
    shift 4
    local extra=()
    if [ "$port" = off ]; then
        extra=(-- --no-exporter)
    elif [ "$has_listen" = 1 ]; then
        extra=(-- "--listen=127.0.0.1:$port")
    fi
    env -u GPUSIM_TIME GPUSIM_EPOCH=$AGENT_EPOCH python3 bench/agent_run.py --gpumon "$GPUMON" \
        --data-dir "$OUT/agent-$name.d" --interval "$interval" --window "$window" \
        --warmup "$AGENT_WARMUP" --out "$OUT/agent-$name.json" "$@" "${extra[@]}"
}
say "agent: ${AGENT_SECS} s at 1 s and ${AGENT_FAST_SECS} s at 100 ms, side by side"
agent_run 1s 1s "$AGENT_SECS" "$AGENT_PORT" --sizes &
a1=$!
agent_run 100ms 100ms "$AGENT_FAST_SECS" $((AGENT_PORT + 1)) --sizes &
a2=$!
a3=
if [ "$has_listen" = 1 ]; then # the same at 1 s without the exporter
    agent_run 1s-noexp 1s "$AGENT_SECS" off &
    a3=$!
fi
wait "$a1" || die "the agent run at 1 s failed (see $OUT/agent-1s.json.log)"
wait "$a2" || die "the agent run at 100 ms failed (see $OUT/agent-100ms.json.log)"
[ -z "$a3" ] || wait "$a3" ||
    die "the agent run at 1 s without the exporter failed (see $OUT/agent-1s-noexp.json.log)"

say "agent: callgrind (${AGENT_CG_SECS} s at 100 ms) and strace -c (${AGENT_ST_SECS} s at 1 s)"
agent_run cg 100ms "$AGENT_CG_SECS" $((AGENT_PORT + 2)) --callgrind "$OUT/cg-agent" &
a1=$!
agent_run strace 1s "$AGENT_ST_SECS" $((AGENT_PORT + 3)) --strace "$OUT/strace-agent.txt" &
a2=$!
wait "$a1" || die "the agent run under callgrind failed (see $OUT/agent-cg.json.log)"
wait "$a2" || die "the agent run under strace failed (see $OUT/agent-strace.json.log)"
[ -f "$OUT/cg-agent.1" ] || die "callgrind wrote no dump of the window ($OUT/cg-agent.1)"
cg_samples=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' \
    "$OUT/agent-cg.json")
python3 bench/cgsplit.py agent "$OUT/cg-agent.1" --samples "$cg_samples" >"$OUT/cg-agent.json"

# ---------------------------------------------------------------- store and report
# Write throughput: a fresh one-day store every run.  The report: a store of
# STORE_DAYS days of 8 GPUs at 1 s, made once and kept in the cache.
say "store: writing one day of 8 GPUs at 1 s"
"$GENSTORE" --days 1 --end 1767225600 "$OUT/store-1d.db" >"$OUT/gen-1d.txt" ||
    die "gen_store failed"
ensure_store
cp "$STORE.txt" "$OUT/gen-store.txt"
cp "$STORE.json" "$OUT/gen-store.json"
start_unix=$(sed -n 's/^start_unix //p' "$STORE.txt")
end_unix=$(sed -n 's/^end_unix //p' "$STORE.txt")
FROM=$(date -u -d "@$start_unix" +%Y-%m-%dT%H:%MZ)
TO=$(date -u -d "@$end_unix" +%Y-%m-%dT%H:%MZ)
export TZ=UTC
reports=(
    "report-hour|--by hour"
    "report-day|--by day"
    "report-json|--by hour --format json"
)
printf '%s\n' "${reports[@]}" >"$OUT/reports.txt"
hf_args=()
for c in "${reports[@]}"; do
    name=${c%%|*}
    args="report --no-config --store-path $STORE --from $FROM --to $TO ${c#*|}"
    # shellcheck disable=SC2086
    "$GPUMON" $args >"$OUT/$name.out" || die "'gpumon $args' failed"
    hf_args+=(-n "$name" "$GPUMON $args")
done
hours=$(((end_unix - start_unix) / 3600))
rows=$(($(wc -l <"$OUT/report-hour.out") - 1))
[ "$rows" = $((hours * 8)) ] ||
    die "report --by hour printed $rows rows, not $hours hours x 8 GPUs (see $OUT/report-hour.out)"
say "report: hyperfine, $REPORT_RUNS runs each"
hyperfine -N --style basic --warmup 3 --runs "$REPORT_RUNS" --export-json "$OUT/hyperfine-report.json" \
    "${hf_args[@]}" >"$OUT/hyperfine-report.txt" 2>&1 ||
    { cat "$OUT/hyperfine-report.txt" >&2; die "hyperfine failed"; }
args="report --no-config --store-path $STORE --from $FROM --to $TO --by hour"
# shellcheck disable=SC2086
valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="$OUT/cg-report" \
    "$GPUMON" $args >/dev/null 2>"$OUT/cg-report.log" ||
    { cat "$OUT/cg-report.log" >&2; die "callgrind of 'gpumon $args' failed"; }
python3 bench/cgsplit.py process "$OUT/cg-report" --main-obj "/src/gpumon" >"$OUT/cg-report.json"
# shellcheck disable=SC2086
strace -f -c -o "$OUT/strace-report.txt" "$GPUMON" $args >/dev/null ||
    die "strace of 'gpumon $args' failed"
unset TZ

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
BENCH_NWARMUP=$WARMUP BENCH_NRANKS=$RANKS BENCH_REPORT_FROM=$FROM BENCH_REPORT_TO=$TO \
BENCH_NREPORT=$REPORT_RUNS BENCH_SECONDS=$SECONDS \
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
    "report_from": e["BENCH_REPORT_FROM"], "report_to": e["BENCH_REPORT_TO"],
    "report_runs": int(e["BENCH_NREPORT"]), "seconds": int(e["BENCH_SECONDS"]),
}, open(sys.argv[1], "w"), indent=1)
PY

say "writing $DOC"
python3 bench/report.py "$OUT" "$DOC" || die "report failed"

fi # the sections of bench/report.py

# ---------------------------------------------------------------- top
# gpumon top in a 200x60 tmux pane at -d 1 for BENCH_TOP_SECS (60 s), the
# scenario's clock moving; its own block in $DOC (nvtop too when installed).
top_rc=0
if want top; then
    TOP_SECS=${BENCH_TOP_SECS:-60}
    say "top: ${TOP_SECS} s of gpumon top -d 1 in tmux"
    env -u GPUSIM_TIME python3 bench/top_cpu.py --gpumon "$GPUMON" --simlib "$SIMLIB" \
        --scenario "$SCENARIO" --scenario-time "$SCENARIO_TIME" --window "$TOP_SECS" \
        --json "$OUT/top-cpu.json" --doc "$DOC" || top_rc=$?
    [ "$top_rc" = 0 ] || [ "$top_rc" = 3 ] || die "the top benchmark failed"
fi

# ---------------------------------------------------------------- exporter
# The agent's exporter (8 GPUs, CSV + store + procs, 1 s, the clock moving)
# under wrk on loopback, plain and gzip, beside node_exporter's textfile
# collector serving the same payload; p99 while an NVML call hangs
# (scenarios/faults.ini); the agent's RSS after it all.  Its own block in
# $DOC.  About 3 minutes with the defaults: BENCH_EXPORTER_ROUNDS (3) rounds
# of 4 runs of BENCH_EXPORTER_SECS (8 s) and 2 of BENCH_EXPORTER_HANG_SECS
# (8 s), each after a 1 s warm-up; the median of the rounds is reported.
exp_rc=0
if want exporter; then
    EXP_ROUNDS=${BENCH_EXPORTER_ROUNDS:-3}
    EXP_SECS=${BENCH_EXPORTER_SECS:-8}
    EXP_HANG_SECS=${BENCH_EXPORTER_HANG_SECS:-8}
    EXP_THREADS=${BENCH_EXPORTER_THREADS:-2} # wrk -t
    EXP_CONNS=${BENCH_EXPORTER_CONNS:-16}    # wrk -c
    EXP_PORT=${BENCH_EXPORTER_PORT:-39850}   # gpumon; node_exporter +1, the hang runs +2, +3
    say "exporter: $EXP_ROUNDS rounds of wrk -t$EXP_THREADS -c$EXP_CONNS, ${EXP_SECS} s a run," \
        "gpumon and node_exporter, plain and gzip; ${EXP_HANG_SECS} s with and without a hung NVML call"
    python3 bench/exporter_run.py --gpumon "$GPUMON" --node-exporter "$NODE_EXPORTER" \
        --wrk "$(command -v wrk)" --dir "$OUT/exporter" --port "$EXP_PORT" \
        --out "$OUT/exporter.json" --secs "$EXP_SECS" --hang-secs "$EXP_HANG_SECS" \
        --threads "$EXP_THREADS" --conns "$EXP_CONNS" --rounds "$EXP_ROUNDS" --warmup 1 \
        --scenario-time "$SCENARIO_TIME" \
        --doc "$DOC" || exp_rc=$?
    [ "$exp_rc" = 0 ] || [ "$exp_rc" = 3 ] ||
        die "the exporter benchmark failed (see $OUT/exporter/)"
fi

# ---------------------------------------------------------------- insight
# The diagnosis and GPM (docs/BENCHMARKS.md "Diagnosis and GPM"):
# `diagnose --since 30d` on the report benchmark's store, live diagnose's
# CPU for BENCH_INSIGHT_LIVE_SECS (30 s), the agent at 1 s with GPM and the
# diagnosis on beside one with it off for BENCH_INSIGHT_AGENT_SECS (60 s,
# after 70 s of warm-up: the diagnosis starts after a minute).  About 3
# minutes, plus the store the first time.
ins_rc=0
if want insight; then
    ensure_store
    ins_end=$(sed -n 's/^end_unix //p' "$STORE.txt")
    say "insight: diagnose --since 30d (hyperfine), live diagnose, the agent with GPM and diagnosis"
    python3 bench/insight_run.py --gpumon "$GPUMON" --simlib "$SIMLIB" --store "$STORE" \
        --until "$(date -u -d "@$ins_end" +%Y-%m-%dT%H:%MZ)" --out "$OUT/insight" --doc "$DOC" \
        --live-secs "${BENCH_INSIGHT_LIVE_SECS:-30}" --agent-secs "${BENCH_INSIGHT_AGENT_SECS:-60}" ||
        ins_rc=$?
    [ "$ins_rc" = 0 ] || [ "$ins_rc" = 3 ] || die "the insight benchmark failed"
fi

# ---------------------------------------------------------------- plot
# gpumon plot --since 30d (the 1-hour rollups of the report's 30-day store
# of 8 GPUs, made here when a full run has not made it yet) as PNG, SVG and
# PDF: the median of BENCH_PLOT_RUNS (10) runs each against issue 13's
# 500 ms.  Its own block in $DOC.
plot_rc=0
if want plot; then
    ensure_store
    PSTORE=$STORE
    say "plot: gpumon plot --since 30d, ${BENCH_PLOT_RUNS:-10} runs per format"
    python3 bench/plot_time.py --gpumon "$GPUMON" --store "$PSTORE" --out "$OUT/plot.json" \
        --doc "$DOC" --runs "${BENCH_PLOT_RUNS:-10}" || plot_rc=$?
    [ "$plot_rc" = 0 ] || [ "$plot_rc" = 3 ] || die "the plot benchmark failed"
fi

# ---------------------------------------------------------------- api
# The live page's /api/v1/status (issue 13: at least 5,000 requests/s on
# loopback with the agent's cadence unchanged): the agent at 1 s on 8 GPUs
# (CSV, store, processes, exporter; the clock moving), an idle window, then
# BENCH_API_ROUNDS (3) runs of wrk -t2 -c16 for BENCH_API_SECS (8 s); the
# store's sample times give the cadence idle and under the load.  Its own
# block in $DOC.  About 45 s.
api_rc=0
if want api; then
    API_PORT=${BENCH_API_PORT:-39860}
    say "api: ${BENCH_API_ROUNDS:-3} rounds of wrk on /api/v1/status, ${BENCH_API_SECS:-8} s each"
    python3 bench/api_run.py --gpumon "$GPUMON" --wrk "$(command -v wrk)" --dir "$OUT/api" \
        --port "$API_PORT" --out "$OUT/api.json" --doc "$DOC" --secs "${BENCH_API_SECS:-8}" \
        --rounds "${BENCH_API_ROUNDS:-3}" --scenario-time "$SCENARIO_TIME" || api_rc=$?
    [ "$api_rc" = 0 ] || [ "$api_rc" = 3 ] || die "the api benchmark failed (see $OUT/api/)"
fi

# ---------------------------------------------------------------- report-html
# gpumon report --html for the 30 days of the report's store (8 GPUs): the
# median of BENCH_REPORT_HTML_RUNS (10) runs and the file's size against
# issue 13's 1 s and 2 MB.  Its own block in $DOC.
rh_rc=0
if want report-html; then
    ensure_store
    say "report-html: gpumon report --since 30d --html, ${BENCH_REPORT_HTML_RUNS:-10} runs"
    python3 bench/report_html_time.py --gpumon "$GPUMON" --store "$STORE" \
        --out "$OUT/report-html.json" --doc "$DOC" --runs "${BENCH_REPORT_HTML_RUNS:-10}" ||
        rh_rc=$?
    [ "$rh_rc" = 0 ] || [ "$rh_rc" = 3 ] || die "the report-html benchmark failed"
fi

# ---------------------------------------------------------------- tests
# The durations and costs that tests used to assert (issue 24: tests assert
# behaviour, and time belongs here), each against the bound the test had:
# bench/test_timings.py.  Its own block in $DOC.  About 30 s.
ts_rc=0
if want tests; then
    say "tests: the durations the tests no longer assert"
    python3 bench/test_timings.py --gpumon "$GPUMON" --dir "$OUT/tests" --out "$OUT/tests.json" \
        --doc "$DOC" --runs "${BENCH_TESTS_RUNS:-5}" || ts_rc=$?
    [ "$ts_rc" = 0 ] || [ "$ts_rc" = 3 ] || die "the tests benchmark failed (see $OUT/tests/)"
fi

# ---------------------------------------------------------------- calls
# NVML calls per GPU per sample of the agent, by read group, with its
# default outputs and with the CSV log alone (the simulator's GPUSIM_COUNT):
# bench/calls_run.py.  Its own block in $DOC.  About 90 s.
if want calls; then
    say "calls: NVML calls per GPU per sample, ${BENCH_CALLS_SECS:-30} s per configuration"
    env -u GPUSIM_TIME GPUSIM_EPOCH=$(($(date +%s) - SCENARIO_TIME)) python3 bench/calls_run.py \
        --gpumon "$GPUMON" --dir "$OUT/calls" --out "$OUT/calls.json" --doc "$DOC" \
        --window "${BENCH_CALLS_SECS:-30}" || die "the calls benchmark failed (see $OUT/calls/)"
fi

# ---------------------------------------------------------------- procs
# What one GPU process costs the agent per sample: 1000 real processes on 8
# GPUs against none (bench/procs_run.py).  Its own block in $DOC.  About 90 s.
if want procs; then
    say "procs: ${BENCH_PROCS:-1000} processes on 8 GPUs, ${BENCH_PROCS_SECS:-30} s per run"
    env -u GPUSIM_TIME GPUSIM_EPOCH=$(($(date +%s) - SCENARIO_TIME)) python3 bench/procs_run.py \
        --gpumon "$GPUMON" --dir "$OUT/procs" --out "$OUT/procs.json" --doc "$DOC" \
        --procs "${BENCH_PROCS:-1000}" --window "${BENCH_PROCS_SECS:-30}" ||
        die "the procs benchmark failed (see $OUT/procs/)"
fi

# ---------------------------------------------------------------- fleet
# gpumon fleet at scale (bench/fleet_run.py): 64 real agents recorded and
# scraped by Prometheus (16 then 64: the queries counted), then 1000 nodes
# answered by bench/fleet_replay.py (1-50 ms a port, 5 % refused, 5 %
# hung): fleet status and --json, BENCH_FLEET_RUNS (5) runs each, beside
# curl --parallel; fleet top in tmux (first screen, keys during rounds).
# Its own block in $DOC.  About 2 minutes.
fl_rc=0
if want fleet; then
    say "fleet: ${BENCH_FLEET_NODES:-1000} replayed nodes, ${BENCH_FLEET_AGENTS:-64} agents and Prometheus, fleet top"
    python3 bench/fleet_run.py --gpumon "$GPUMON" --simlib "$SIMLIB" --dir "$OUT/fleet" \
        --out "$OUT/fleet.json" --doc "$DOC" --nodes "${BENCH_FLEET_NODES:-1000}" \
        --agents "${BENCH_FLEET_AGENTS:-64}" --runs "${BENCH_FLEET_RUNS:-5}" || fl_rc=$?
    [ "$fl_rc" = 0 ] || [ "$fl_rc" = 3 ] || die "the fleet benchmark failed (see $OUT/fleet/)"
fi

# ---------------------------------------------------------------- seeds
# Issue 30's peer: the agent asked for the seeds' nine pynvml fields, with
# its CSV log alone and with its defaults, beside the seeds' Python logger
# (bench/seeds_logger.py, ctypes standing in for pynvml), side by side at
# 1 s on 8 and 64 GPUs: BENCH_SEEDS_REPEATS (3) windows of BENCH_SEEDS_SECS
# (30 s) per GPU count, the median reported (bench/seeds_run.py).  Its own
# block in $DOC.  About 4 minutes.
if want seeds; then
    say "seeds: the agent beside the seeds' pynvml logger, ${BENCH_SEEDS_REPEATS:-3} x ${BENCH_SEEDS_SECS:-30} s at 8 and 64 GPUs"
    python3 bench/seeds_run.py --gpumon "$GPUMON" --dir "$OUT/seeds" --out "$OUT/seeds.json" \
        --doc "$DOC" --window "${BENCH_SEEDS_SECS:-30}" --repeats "${BENCH_SEEDS_REPEATS:-3}" ||
        die "the seeds benchmark failed (see $OUT/seeds/)"
fi

# ---------------------------------------------------------------- compare
# Every figure of CPU, memory and instructions per sample that this run
# rewrote, against its last recorded value: moves beyond 10 % printed,
# growth as a regression (bench/compare.py; also in $OUT/compare.txt).
python3 bench/compare.py "$OUT/BENCHMARKS.last.md" "$DOC" >"$OUT/compare.txt" ||
    die "comparing with the last figures failed"
cat "$OUT/compare.txt" >&2

if [ "${BENCH_STRICT:-0}" = 1 ]; then
    if [ "$top_rc" = 3 ] || [ "$exp_rc" = 3 ] || [ "$ins_rc" = 3 ] || [ "$plot_rc" = 3 ] ||
        [ "$api_rc" = 3 ] || [ "$rh_rc" = 3 ] || [ "$ts_rc" = 3 ] || [ "$fl_rc" = 3 ]; then
        exit 1
    fi
    if [ -z "$ONLY" ] && grep -q '^MISS' "$OUT/summary.txt"; then
        exit 1
    fi
fi
exit 0

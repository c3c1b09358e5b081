#!/usr/bin/env bash
# issue30_rows.sh -- the rows of issue 30's table that scripts/bench.sh does
# not measure as the issue states them, each 3 times, for docs/BENCHMARKS.md
# "Issue 30: the table, row by row".  By hand, not from make bench: about
# 15 minutes on a loaded 2-core VM, and its figures are typed into that
# section with the load average it prints.
#
#   bench/issue30_rows.sh [BUILDDIR]   (default build-bench, built by scripts/bench.sh)
#   ROWS=exec,history bench/issue30_rows.sh    only those rows (agent, procs, exec, history)
#
# Rows, in the order it runs them (results in BUILDDIR/bench-results/issue30/):
#   agent     bench/agent_run.py at 1 s and at 100 ms side by side on the
#             8-GPU training scenario (CSV, store, --procs, exporter), 30 s
#             windows, 3 rounds: agent-{1s,100ms}.N.json
#   procs     bench/procs_run.py (1000 processes on 8 GPUs against none),
#             3 runs: procs.N.json
#   exec      `status --json` against its floor (/bin/true, gpumon --version):
#             bench/exec_cpu.py, 50 interleaved runs: exec.json
#   history   a store of 365 days x 8 GPUs at 60 s (bench/gen_store -d 365
#             -i 60000, kept), then report, report --html, plot (PNG and SVG)
#             and diagnose over 365 days and over 1 day: bench/exec_cpu.py,
#             3 interleaved runs: history.json
# The seeds' logger row is `BENCH_ONLY=seeds scripts/bench.sh`; the memory
# row is bench/mem_run.py --interval 1s (an hour).  Exit status 0, 1 when a
# run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-bench}
G=$PWD/$BUILD/src/gpumon
OUT=$PWD/$BUILD/bench-results/issue30
[ -x "$G" ] || { echo "issue30_rows: no $G: run scripts/bench.sh first" >&2; exit 1; }
mkdir -p "$OUT"
unset GPUSIM_SPEED GPUSIM_TIME GPUMON_SIM_LIB GPUSIM_SCENARIO_DIR NO_COLOR STATE_DIRECTORY \
    LOGS_DIRECTORY XDG_CONFIG_HOME XDG_STATE_HOME
export GPUSIM_SCENARIO=$PWD/scenarios/h100x8-training.ini
export GPUMON_NVML_LIB=$PWD/$BUILD/sim/libnvidia-ml.so.1
export LC_ALL=C TZ=UTC
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
for r in 0 1 2 3 4 5 6 7; do # the training job's ranks, as scripts/bench.sh starts them
    sleep 3600 &
    pids+=($!)
    export "GPUSIM_PID_RANK$r=$!"
done
ROWS=${ROWS:-agent,procs,exec,history}
want() { [[ ",$ROWS," == *",$1,"* ]]; }
say() { printf 'issue30_rows: %s (load %s)\n' "$*" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2; }
port() { # a free loopback port
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

want agent && for n in 1 2 3; do
    say "agent round $n: 1 s and 100 ms side by side, 30 s windows"
    rm -rf "$OUT/agent-1s.$n.d" "$OUT/agent-100ms.$n.d"
    epoch=$(($(date +%s) - 120))
    for i in 1s 100ms; do
        GPUSIM_EPOCH=$epoch python3 bench/agent_run.py --gpumon "$G" --window 30 \
            --data-dir "$OUT/agent-$i.$n.d" --interval "$i" --out "$OUT/agent-$i.$n.json" \
            -- "--listen=127.0.0.1:$(port)" &
        [ "$i" = 1s ] && a1=$! || a2=$!
    done
    wait "$a1"
    wait "$a2"
done

want procs && for n in 1 2 3; do
    say "procs run $n: 1000 processes on 8 GPUs against none"
    GPUSIM_EPOCH=$(($(date +%s) - 120)) python3 bench/procs_run.py --gpumon "$G" \
        --dir "$OUT/procs.$n" --out "$OUT/procs.$n.json"
done

want exec && say "exec: status --json against /bin/true and gpumon --version, 50 runs" &&
GPUSIM_TIME=120 python3 bench/exec_cpu.py --runs 50 --out "$OUT/exec.json" \
    "true=/bin/true" "version=$G --sim $GPUSIM_SCENARIO --version" \
    "status-json=$G --sim $GPUSIM_SCENARIO status --json"

want history || { say "done"; exit 0; }
Y=$OUT/year.db
if [ ! -f "$Y" ]; then
    say "history: making a store of 365 days x 8 GPUs at 60 s (once)"
    nice -n 19 "$PWD/$BUILD/bench/gen_store" -d 365 -i 60000 "$Y.tmp" >"$OUT/year.txt"
    mv "$Y.tmp" "$Y"
fi
end=$(sed -n 's/^end_unix //p' "$OUT/year.txt")
U=$(date -u -d "@$((end + 3600))" +%Y-%m-%dT%H:%MZ)
h=(--no-config --store-path "$Y" --until "$U")
say "history: report, report --html, plot, diagnose over 365 d and 1 d, 3 runs"
cmds=()
for s in 365d 1d; do
    cmds+=("report-$s=$G report ${h[*]} --since $s"
        "html-$s=$G report ${h[*]} --since $s --html $OUT/h-$s.html"
        "plot-png-$s=$G plot ${h[*]} --since $s -o $OUT/p-$s.png"
        "plot-svg-$s=$G plot ${h[*]} --since $s -o $OUT/p-$s.svg"
        "diagnose-$s=$G diagnose ${h[*]} --since $s")
done
python3 bench/exec_cpu.py --runs 3 --out "$OUT/history.json" "${cmds[@]}"
say "done"

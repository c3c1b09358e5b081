#!/bin/bash
# demo.sh -- `make demo`: installs what is missing (as root), builds, and runs
# gpumon on the simulated 8 x H100 training node (scenarios/h100x8-training.ini).
#
# The scenario's training ranks are real processes started here (python3
# sleeping in a file called train.py), so gpumon shows their users, command
# lines and CPU use like on a real node.  GPU 7 holds memory for a process
# that no longer exists; GPU 3 is starved by its data loader; GPU 5 is hot.
#
# At the end, with a terminal on stdin, the agent runs again on the same data
# until Ctrl-C, so that its live page can be opened; otherwise (a pipe, CI,
# a test) it says how to do that and exits, the agent stopped.
#
# GPUMON_DEMO_DIR (data directory), GPUMON_DEMO_PORT (9842): where it writes
# and listens; GPUMON_DEMO_BUILD: a meson build directory that is already
# built (the tests' own), used as it is: no packages, no build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${GPUMON_DEMO_BUILD:-}" ]; then
    gpumon=$GPUMON_DEMO_BUILD/src/gpumon
else
    # only what the demo builds and runs; `make check` adds the test tools
    if ! scripts/install-deps.sh --demo --check >/dev/null 2>&1; then
        scripts/install-deps.sh --demo
    fi
    [ -f build/build.ninja ] || meson setup build >/dev/null
    ninja -C build >/dev/null
    gpumon=build/src/gpumon
fi
scenario=scenarios/h100x8-training.ini

tmp=$(mktemp -d)
pids=()
cleanup() {
    [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
printf 'import time\ntime.sleep(3600)\n' >"$tmp/train.py"
for r in 0 1 2 3 4 5 6 7; do
    # SIGINT ignored: the Ctrl-C that ends the demo is for the script, which
    # stops them itself (no KeyboardInterrupt traceback from each rank)
    (cd "$tmp" && trap '' INT && exec python3 train.py --model llama-7b --nproc-per-node 8 --rank $r) &
    pids+=($!)
    export GPUSIM_PID_RANK$r=$!
done
# wait until each rank has exec'd python3, so /proc shows the real process
for p in "${pids[@]}"; do
    for _ in $(seq 50); do
        [ "$(cat /proc/$p/comm 2>/dev/null)" = python3 ] && break
        sleep 0.02
    done
done
# every process shares one simulated timeline; start it 10 minutes into the job
export GPUSIM_EPOCH=$(( $(date +%s) - 600 ))

run() {
    printf '\n\033[1m$ gpumon %s\033[0m\n' "$*"
    "$gpumon" --sim "$scenario" "$@"
}

echo "gpumon demo: a simulated node with 8 x H100 80GB running a DDP training job"
run status
run query --query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm,clocks.max.sm,clocks_event_reasons.active --format=csv
run query --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader
run diagnose --duration 10s
printf '\n$ gpumon status --json | python3 -m json.tool (GPU 5 only, abridged)\n'
"$gpumon" --sim "$scenario" status --json --id 5 | python3 -c '
import json, sys
d = json.load(sys.stdin)
g = d["gpus"][0]
keep = ["index", "name", "utilization_gpu_percent", "temperature_gpu_celsius",
        "temperature_slowdown_celsius", "clocks_sm_mhz", "clocks_max_sm_mhz",
        "power_draw_watts", "clocks_event_reasons_active_names", "throttle"]
print(json.dumps({k: g[k] for k in keep}, indent=2))'

# --- the agent: record the node for a few seconds, then look at what it kept
data=${GPUMON_DEMO_DIR:-$PWD/build/demo-data}
rm -rf "$data"
listen=127.0.0.1:${GPUMON_DEMO_PORT:-9842}
printf '\n\033[1m$ gpumon agent --data-dir %s --interval 1s --procs --task llama-7b --listen %s\033[0m  (8 s)\n' "$data" "$listen"
"$gpumon" --sim "$scenario" agent --no-config --data-dir "$data" --interval 1s --procs \
    --task llama-7b --listen "$listen" 2>"$tmp/agent.log" &
agent=$!
pids+=($agent)
fetch() { python3 -c 'import sys, urllib.error, urllib.request
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=5)
except urllib.error.HTTPError as e:
    r = e
sys.stdout.write(r.read().decode())' "$1"; }
# until the agent answers with a sample and its control socket (for
# gpumon mark) is there (a slow or busy machine: up to a minute), then a
# few seconds of recording
ready() { python3 -c 'import sys, urllib.request
sys.exit(urllib.request.urlopen(sys.argv[1], timeout=5).status != 200)' "$1" 2>/dev/null; }
for _ in $(seq 600); do
    kill -0 $agent 2>/dev/null || break
    [ -S "$data/agent.sock" ] && ready "http://$listen/api/v1/status" && break
    sleep 0.1
done
if ! kill -0 $agent 2>/dev/null || ! [ -S "$data/agent.sock" ] ||
    ! ready "http://$listen/api/v1/status"; then
    printf '\nThe agent did not start (%s):\n' "$listen" >&2
    sed 's/^/  log: /' "$tmp/agent.log" | tail -3 >&2
    exit 1
fi
sleep 2
"$gpumon" mark --no-config --data-dir "$data" --task llama-7b "epoch 3 start"
printf '\n$ curl -s http://%s/metrics | grep -E "gpu_temperature|clock_event_reason_active.*thermal|gpu_up" | grep gpu=\"5\"\n' "$listen"
fetch "http://$listen/metrics" | grep -E 'gpu_temperature_celsius|clock_event_reason_active.*hw_thermal|gpu_up' | grep 'gpu="5"' || true
printf '\n$ curl -s http://%s/healthz\n' "$listen"
fetch "http://$listen/healthz" || true
printf '\n\033[1m$ gpumon alerts --data-dir %s\033[0m  (the running agent'"'"'s rules)\n' "$data"
"$gpumon" alerts --no-config --data-dir "$data" || true
sleep 4
kill -TERM $agent
wait $agent || true
sed 's/^/  log: /' "$tmp/agent.log"
printf '\n$ ls %s %s/csv\n' "$data" "$data"
ls "$data" "$data/csv"
printf '\n$ head -3 %s/csv/llama-7b_%s.csv\n' "$data" "$(date +%Y%m%d)"
head -3 "$data/csv/llama-7b_$(date +%Y%m%d).csv"
run report --no-config --data-dir "$data" --since 1h --gpu 5
printf '\n\033[1m$ gpumon alerts --history --data-dir %s\033[0m\n' "$data"
"$gpumon" alerts --history --no-config --data-dir "$data" || true
printf '\n$ head -1 %s/alerts.jsonl | python3 -m json.tool (abridged)\n' "$data"
head -1 "$data/alerts.jsonl" | python3 -c '
import json, sys
a = json.load(sys.stdin)
print(json.dumps({k: a[k] for k in ("rule", "state", "severity", "gpu", "value_text", "summary", "fired_at")}, indent=2, ensure_ascii=False))'

cat <<'TXT'

What you are looking at:
  GPU 3  utilisation swings between ~0 and ~100 % every half second: its data
         loader cannot keep up (try: gpumon --sim scenarios/h100x8-training.ini
         query --query-gpu=index,utilization.gpu --format=csv -i 3 -lms 100).
  GPU 5  is at its slowdown temperature; its SM clock is far below max and the
         thermal clock-event reasons are active: "[thermal]" in status. The
         agent's gpu-temperature-critical rule fired on it at once; the
         warnings (hot for 1 min, throttled for 2 min) would follow.
  GPU 7  holds 30 GiB for PID 4194304, which does not exist: "process gone".
  'gpumon diagnose' names all three (input-starved, thermal-throttle,
  memory-orphaned) with the numbers and what to do; the agent runs the same
  analysis (events, gpumon_diagnosis_active on /metrics, the report's
  findings column) once it has a minute of samples.

TXT
cat <<TXT
The agent's data stays in $data: CSV files under csv/, the SQLite store
gpumon.db (try: sqlite3 $data/gpumon.db .tables), the alert log alerts.jsonl.
While an agent runs, its node is live in a browser at http://$listen/
(docs/api.md), Prometheus metrics are at http://$listen/metrics
(docs/exporter.md), and 'gpumon alerts --data-dir $data' shows what fires
(docs/alerts.md: the default rules, webhooks, Alertmanager).

Try it yourself:
  build/src/gpumon --sim scenarios/h100x8-training.ini status -i 1
  build/src/gpumon --sim scenarios/h100x8-training.ini top        (q quits)
  build/src/gpumon --sim scenarios/h100x8-training.ini dmon -c 5
  build/src/gpumon --sim scenarios/h100x8-training.ini alerts test --to 10m
  build/src/gpumon --sim scenarios/h100x8-training.ini free              (why no GPU is free here)
  build/src/gpumon --sim scenarios/h100x8-training.ini agent --no-config --data-dir $data
  build/src/gpumon report --no-config --data-dir $data --since 1h --by user
  build/src/gpumon report --no-config --data-dir $data --since 1h --html report.html
  build/src/gpumon plot --no-config --data-dir $data --since 1h -o plot.png
(GPUSIM_PID_RANK0..7 give the ranks real PIDs; see docs/simulator.md.)
TXT

# --- the end: the live page needs a running agent.  With a person at a
# terminal, run it again on the same data until Ctrl-C; never print a link
# to a page that nothing serves.
if [ ! -t 0 ]; then
    printf '\nThe agent has stopped. To open its live page, run make demo in a terminal:\n'
    printf 'it then keeps the agent running, with the page at http://%s/, until Ctrl-C.\n' "$listen"
    exit 0
fi
"$gpumon" --sim "$scenario" agent --no-config --data-dir "$data" --interval 1s --procs \
    --task llama-7b --listen "$listen" 2>>"$tmp/agent.log" &
agent=$!
pids+=($agent)
for _ in $(seq 600); do
    kill -0 $agent 2>/dev/null || break
    fetch "http://$listen/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
if ! kill -0 $agent 2>/dev/null || ! fetch "http://$listen/healthz" >/dev/null 2>&1; then
    printf '\nThe agent did not start again (%s):\n' "$listen" >&2
    sed 's/^/  log: /' "$tmp/agent.log" | tail -3 >&2
    exit 1
fi
stopped=0
trap 'stopped=1' INT TERM
printf '\n\033[1mThe agent is recording again: the node is live at http://%s/\033[0m\n' "$listen"
printf '(metrics at http://%s/metrics; data in %s)\n' "$listen" "$data"
printf 'press Ctrl-C to stop\n'
while [ $stopped = 0 ] && kill -0 $agent 2>/dev/null; do
    wait $agent 2>/dev/null || true
done
kill -TERM $agent 2>/dev/null || true
wait $agent 2>/dev/null || true
printf '\nThe agent has stopped; its data stays in %s.\n' "$data"

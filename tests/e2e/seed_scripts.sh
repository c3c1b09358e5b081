#!/bin/bash
# The shell loggers and the cron alert script from the source articles, run
# unchanged except that `nvidia-smi` is gpumon query (as a user would alias
# it).  Proves that existing scripts keep working: the CSV they write has a
# header once, one row per GPU per sample, and the values parse as numbers;
# the cron script's consecutive-count state file works.
#
# Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
set -euo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUMON_NVML_LIB=$SIM_LIB
export GPUSIM_SCENARIO=$SOURCE_ROOT/scenarios/h100x8-training.ini
export GPUSIM_TIME=300
export TZ=UTC LC_ALL=C
nvidia-smi() { "$GPUMON" query "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# --- 000: the per-task, per-day CSV logger (two iterations instead of forever)
INTERVAL=0
TASK_ID=train1
LOG_DIR=$tmp/gpu_monitor
mkdir -p "$LOG_DIR"
for _ in 1 2; do
    DAY=$(date +%Y%m%d)
    TS=$(date "+%Y-%m-%d %H:%M:%S")
    CSV=${LOG_DIR}/${TASK_ID}_${DAY}.csv
    if [ ! -s "$CSV" ]; then
        echo "time,task_id,gpu_id,gpu_name,utilization_percent,memory_used_mib,memory_total_mib,power_draw_w,temperature_c,sm_clock_mhz,mem_clock_mhz" > "$CSV"
    fi
    nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm,clocks.mem \
        --format=csv,noheader,nounits | \
    while IFS=, read -r idx name util mem_used mem_total pwr temp sm_clk mem_clk; do
        name=$(echo "$name" | tr -d ' ')
        echo "$TS,$TASK_ID,$idx,$name,$util,$mem_used,$mem_total,$pwr,$temp,$sm_clk,$mem_clk" >> "$CSV"
    done
    sleep "$INTERVAL"
done
csv=$(ls "$LOG_DIR"/train1_*.csv)
[ "$(grep -c '^time,' "$csv")" = 1 ] || fail "header not exactly once in $csv"
[ "$(grep -vc '^time,' "$csv")" = 16 ] || fail "want 2 x 8 rows in $csv"
awk -F, 'NR > 1 { if (NF != 11) exit 1; for (i = 5; i <= 11; i++) if ($i !~ /^ ?[0-9]+(\.[0-9]+)?$/) exit 1 }' "$csv" \
    || fail "non-numeric value in $csv: $(sed -n 2p "$csv")"
grep -q ',train1,5,NVIDIAH10080GBHBM3, 99, 72909, 81559, 366.80, 89, 1020, 2619$' "$csv" \
    || fail "GPU 5 row differs: $(grep ',train1,5,' "$csv" | head -1)"
echo "ok 000 logger: $(wc -l < "$csv") lines"

# --- 001: the minimal logger (timestamp first, appended with -l semantics replaced by 2 runs)
LOG_FILE=$tmp/gpu_$(date +%Y%m%d).csv
echo "timestamp,gpu_name,utilization_gpu,memory_used_mb,temperature_c,power_w" > "$LOG_FILE"
for _ in 1 2; do
    nvidia-smi --query-gpu=timestamp,name,utilization.gpu,memory.used,temperature.gpu,power.draw \
        --format=csv,noheader,nounits >> "$LOG_FILE"
done
[ "$(wc -l < "$LOG_FILE")" = 17 ] || fail "001 logger: want 17 lines"
grep -Eq '^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}, NVIDIA H100 80GB HBM3, [0-9]+, [0-9]+, [0-9]+, [0-9]+\.[0-9]{2}$' "$LOG_FILE" \
    || fail "001 logger rows: $(sed -n 2p "$LOG_FILE")"
echo "ok 001 logger"

# --- 004: the cron one-shot with a consecutive-count state file (threshold 85 C, 3 runs)
count_file=$tmp/gpu_overheat_count
warn_log=$tmp/gpu_warn.log
once() {
    temp=$(nvidia-smi --query-gpu=temperature.gpu --format=csv,noheader | awk -F',' '{print $1}' | sort -rn | head -1)
    if [ "$temp" -gt 85 ]; then
        count=$(cat $count_file 2>/dev/null || echo 0)
        count=$((count+1))
        echo $count > $count_file
        if [ "$count" -ge 3 ]; then
            echo "$(date) GPU temperature high for long: ${temp}C" >> $warn_log
            echo 0 > $count_file
        fi
    else
        echo 0 > $count_file
    fi
}
once; once
[ ! -e "$warn_log" ] || fail "004: alert after 2 runs"
once
grep -q "GPU temperature high for long: 89C" "$warn_log" || fail "004: no alert after 3 runs over 85 C"
echo "ok 004 cron alert script"

# --- 000: the node_exporter textfile script
OUT_FILE=$tmp/gpu.prom
TMP_FILE=$tmp/gpu.prom.$$
nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu \
    --format=csv,noheader,nounits | \
while IFS=, read -r index name util mem_used mem_total power temp; do
    echo "gpu_utilization_percent{gpu_index=\"$index\",gpu_name=\"$name\"} $util" >> "$TMP_FILE"
    echo "gpu_memory_used_bytes{gpu_index=\"$index\",gpu_name=\"$name\"} $((mem_used * 1024 * 1024))" >> "$TMP_FILE"
done
mv "$TMP_FILE" "$OUT_FILE"
[ "$(wc -l < "$OUT_FILE")" = 16 ] || fail "textfile: want 16 samples"
grep -q '^gpu_memory_used_bytes{gpu_index="7",gpu_name=" NVIDIA H100 80GB HBM3"} 79994814464$' "$OUT_FILE" \
    || fail "textfile GPU 7 memory: $(grep 'index="7"' "$OUT_FILE")"
echo "ok 000 textfile script"

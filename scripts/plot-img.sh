#!/bin/sh
# plot-img.sh -- makes docs/img/plot.png, the README's picture of `gpumon plot`:
# a day of 8 simulated H100s from bench/gen_store (the store the benchmarks
# use: training runs with marks at job starts and checkpoints, GPU 3
# data-starved, GPU 5 running hot and throttling), drawn by the built gpumon.
# The store's rows come from a fixed seed, so a rerun draws the same chart.
#
#   scripts/plot-img.sh [BUILD_DIR]      (default build/)
set -eu
BUILD=${1:-build}
ninja -C "$BUILD" src/gpumon src/gpumon_plot.so bench/gen_store >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BUILD/bench/gen_store" --days 1 --end 1767225600 "$tmp/gpumon.db" >/dev/null
mkdir -p docs/img
TZ=UTC "$BUILD/src/gpumon" plot --store-path "$tmp/gpumon.db" --until 2026-01-01T00:00Z \
    --since 1d --utc -o docs/img/plot.png

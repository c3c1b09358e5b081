#!/bin/sh
# report-html-img.sh -- makes docs/img/report-html.png, the README's picture of
# `gpumon report --html`: the report of a day of 8 simulated H100s from
# bench/gen_store (the store the benchmarks use; the same day as
# scripts/plot-img.sh draws), opened in headless chromium and captured (the
# top of the page: the summary and the first charts).  The store's rows come
# from a fixed seed; only the "Made ..." line and the host name change.
#
#   scripts/report-html-img.sh [BUILD_DIR]      (default build/)
set -eu
BUILD=${1:-build}
command -v chromium >/dev/null || { echo "report-html-img.sh: needs chromium" >&2; exit 1; }
ninja -C "$BUILD" src/gpumon bench/gen_store >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BUILD/bench/gen_store" --days 1 --end 1767225600 "$tmp/gpumon.db" >/dev/null
TZ=UTC "$BUILD/src/gpumon" report --no-config --store-path "$tmp/gpumon.db" \
    --until 2026-01-01T00:00Z --since 1d --html "$tmp/report.html" >/dev/null
mkdir -p docs/img
TZ=UTC chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/profile" "--host-resolver-rules=MAP * ~NOTFOUND" \
    --window-size=1040,1500 --screenshot="$PWD/docs/img/report-html.png" \
    "file://$tmp/report.html" 2>/dev/null
echo docs/img/report-html.png

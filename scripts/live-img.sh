#!/bin/sh
# live-img.sh -- makes docs/img/live-page.png, the README's picture of the
# agent's live page: `gpumon agent` on the 8-GPU simulator
# (h100x8-training.ini, its clock running 24x real time so that 80 s of
# charts show half an hour of the scenario: GPU 3 data-starved, GPU 5 hot
# and throttling, its critical temperature alert firing), the page taken by
# headless chromium at desktop width (1280 px) and phone width (390 px),
# then the two put side by side (by chromium too, from a local HTML file,
# so that no imaging package is needed).
#
#   scripts/live-img.sh [BUILD_DIR]      (default build/; about 90 s)
#
# Needs chromium (scripts/install-deps.sh installs it).
set -eu
BUILD=${1:-build}
command -v chromium >/dev/null || { echo "live-img.sh: chromium is not installed" >&2; exit 1; }
ninja -C "$BUILD" src/gpumon src/gpumon_export.so sim/libnvidia-ml.so.1 >/dev/null
tmp=$(mktemp -d)
agent=
cleanup() {
    if [ -n "$agent" ]; then kill "$agent" 2>/dev/null || true; wait "$agent" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
GPUMON_NVML_LIB=$PWD/$BUILD/sim/libnvidia-ml.so.1 GPUSIM_SCENARIO=$PWD/scenarios/h100x8-training.ini \
    GPUSIM_SPEED=24 GPUSIM_EPOCH=$(date +%s) TZ=UTC \
    "$BUILD/src/gpumon" agent --no-config --data-dir "$tmp/data" --interval 500ms \
    --listen "127.0.0.1:$port" >"$tmp/agent.log" 2>&1 &
agent=$!
sleep 80
shot() { # width height out
    HOME=$tmp chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
        --user-data-dir="$tmp/chromium" --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" \
        --window-size="$1,$2" --virtual-time-budget=6000 --screenshot="$3" "$4" >/dev/null 2>&1
}
shot 1280 2250 "$tmp/desktop.png" "http://127.0.0.1:$port/"
shot 390 2250 "$tmp/phone.png" "http://127.0.0.1:$port/"
cat >"$tmp/both.html" <<'EOF'
<!DOCTYPE html><html><head><style>
body { margin: 0; background: #d1d5db; display: flex; gap: 24px; padding: 24px; align-items: flex-start; }
img { display: block; box-shadow: 0 2px 8px #0004; }
</style></head><body><img src="desktop.png"><img src="phone.png"></body></html>
EOF
shot 1742 2298 "$tmp/both.png" "file://$tmp/both.html"
mkdir -p docs/img
cp "$tmp/both.png" docs/img/live-page.png
echo "docs/img/live-page.png"

#!/bin/sh
# `gpumon free --format env` evaluated by a POSIX shell (docs/free.md):
# CUDA_VISIBLE_DEVICES holds exactly the chosen GPUs' UUIDs (as `gpumon
# query` reports them), is exported to children, and with --by index comes
# with CUDA_DEVICE_ORDER=PCI_BUS_ID; with too few free GPUs nothing is
# printed and the status of `vis=$(...)` is 1; a UUID from the driver with
# quotes, $( ) and ; stays one literal value and runs nothing.
#
# Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
set -eu

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUMON_NVML_LIB="$SIM_LIB" LC_ALL=C
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER GPUSIM_TIME || true
fail() { echo "FAIL: $*"; exit 1; }

# what the child of a shell that evaluated $1 sees
child_sees() {
    sh -c 'eval "$1" && sh -c "printf \"%s|%s\" \"\${CUDA_VISIBLE_DEVICES-unset}\" \"\${CUDA_DEVICE_ORDER-unset}\""' sh "$1"
}

# --- scenarios/free/busy.ini: GPUs 1 and 3 are free
export GPUSIM_SCENARIO="$SOURCE_ROOT/scenarios/free/busy.ini"
u1=$("$GPUMON" query --query-gpu=uuid --format=csv,noheader -i 1)
u3=$("$GPUMON" query --query-gpu=uuid --format=csv,noheader -i 3)
case $u1 in GPU-*) ;; *) fail "no UUID from query: '$u1'" ;; esac

vis=$("$GPUMON" free --count 2 --format env --window 0) || fail "free --count 2 exited $?"
got=$(child_sees "$vis")
[ "$got" = "$u1,$u3|unset" ] || fail "by uuid: child sees '$got', want '$u1,$u3|unset'"

vis=$("$GPUMON" free --count 1 --format env --window 0)
got=$(child_sees "$vis")
[ "$got" = "$u1|unset" ] || fail "--count 1: child sees '$got', want '$u1|unset'"

vis=$("$GPUMON" free --count 2 --format env --by index --window 0)
got=$(child_sees "$vis")
[ "$got" = "1,3|PCI_BUS_ID" ] || fail "by index: child sees '$got'"

# too few: no output, status 1, so `vis=$(...) || exit` stops the job
st=0
vis=$("$GPUMON" free --count 3 --format env --window 0 2>"$tmp/err") || st=$?
[ "$st" = 1 ] || fail "too few: status $st, want 1"
[ -z "$vis" ] || fail "too few: printed '$vis'"
grep -q "too few free GPUs: 2 free, --count 3" "$tmp/err" || fail "too few: stderr $(cat "$tmp/err")"

# --- a hostile UUID from the driver stays one word
cat >"$tmp/hostile.ini" <<'INI'
[machine]
gpus = 1
[gpu]
model = A100-SXM4-80GB
uuid = GPU-a'$(touch\x20pwned)'b;touch\x20pwned2\x20"`touch\x20pwned3`"
INI
export GPUSIM_SCENARIO="$tmp/hostile.ini"
want=$(printf '%s' "GPU-a'\$(touch pwned)'b;touch pwned2 \"\`touch pwned3\`\"")
vis=$("$GPUMON" free --count 1 --format env --window 0) || fail "hostile: exited $?"
got=$(cd "$tmp" && child_sees "$vis")
[ "$got" = "$want|unset" ] || fail "hostile: child sees '$got', want '$want|unset'"
for f in pwned pwned2 pwned3; do
    [ ! -e "$tmp/$f" ] || fail "hostile: evaluating the output ran a command ($f)"
done
echo "ok free-env"

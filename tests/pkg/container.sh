#!/bin/sh
# container.sh -- the container image end to end: builds it with
# scripts/container-build.sh from the Debian packages in DEBDIR, runs it
# under podman the way the DaemonSet does (its own CMD, its USER, a read-only
# root filesystem, the data directory a volume) with the bundled NVML
# simulator in place of the host driver's library (GPUMON_NVML_LIB), scrapes
# /metrics from 127.0.0.1:9842 inside a private network namespace (the host's
# port stays free), then removes the container and the image.
#
#   tests/pkg/container.sh DEBDIR
#
# Needs root, podman, buildah (or podman alone), curl and unshare; exits 77
# (skip) with the reason when any is missing.  Storage: the vfs driver (no
# overlay or fuse needed).
set -eu

skip() { echo "container.sh: SKIP: $*"; exit 77; }
fail() { echo "container.sh: FAIL: $*" >&2; exit 1; }
ok() { echo "container.sh: ok: $*"; }

[ $# -eq 1 ] || { echo "usage: tests/pkg/container.sh DEBDIR" >&2; exit 2; }
debdir=$1
[ "$(id -u)" -eq 0 ] || skip "needs root (rootful podman)"
for t in podman curl unshare ip; do
    command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
src=$(cd "$(dirname "$0")/../.." && pwd)
set -- "$debdir"/gpumon_*.deb
[ -f "$1" ] || fail "no gpumon_*.deb in $debdir"
version=$(dpkg-deb -f "$1" Version)
image=localhost/gpumon:$version
name=gpumon-container-test-$$
# runc rather than crun where there is one: crun refuses a hybrid cgroup
# hierarchy ("cgroups in hybrid mode not supported", this CI machine's)
runtime=""
command -v runc >/dev/null 2>&1 && runtime="--runtime runc"
pm() { podman --storage-driver vfs $runtime "$@"; }
tmp=$(mktemp -d /tmp/gpumon-ctr.XXXXXX)
cleanup() {
    pm rm -f -v "$name" >/dev/null 2>&1 || true
    pm rmi -f "$image" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

start=$(date +%s)
"$src/scripts/container-build.sh" "$debdir" "$image" || fail "scripts/container-build.sh"
size=$(pm image inspect --format '{{.Size}}' "$image")
user=$(pm image inspect --format '{{.Config.User}}' "$image")
[ "$user" = "65532:65532" ] || fail "the image's user is '$user'"
ok "built $image in $(($(date +%s) - start)) s: $((size / 1024 / 1024)) MiB, user $user"

simlib=$(cd "$tmp" && dpkg-deb -c "$debdir"/gpumon-sim_*.deb | awk '{print $6}' |
    sed -n 's#^\./\(.*libnvidia-ml\.so\.1\)$#/\1#p')
[ -n "$simlib" ] || fail "no libnvidia-ml.so.1 in gpumon-sim"
cat >"$tmp/run.sh" <<EOF
set -eu
ip link set lo up
# explicit limits under the hard ones: podman's default (nofile 1048576)
# needs CAP_SYS_RESOURCE, which a CI container may lack
podman --storage-driver vfs $runtime run -d --name $name --network host --read-only \
    --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
    -e GPUMON_NVML_LIB=$simlib \
    -e GPUSIM_SCENARIO=/usr/share/gpumon-sim/scenarios/h100x8-training.ini \
    $image >/dev/null
i=0
until curl -sf http://127.0.0.1:9842/metrics >$tmp/metrics 2>/dev/null; do
    i=\$((i + 1))
    if [ \$i -ge 150 ]; then echo "no /metrics after 15 s" >&2; exit 1; fi
    sleep 0.1
done
podman --storage-driver vfs $runtime top $name user args >$tmp/top 2>&1 || true
EOF
if ! unshare --net sh "$tmp/run.sh"; then
    pm logs "$name" >&2 2>&1 || true
    fail "the container served no /metrics"
fi
n=$(grep -c '^gpumon_gpu_utilization_ratio{.*gpu="[0-7]"' "$tmp/metrics" || true)
[ "$n" -eq 8 ] || { head -20 "$tmp/metrics"; fail "/metrics has $n GPU utilization series, want 8"; }
grep -q 'gpumon agent' "$tmp/top" || { cat "$tmp/top"; fail "podman top shows no agent"; }
grep 'gpumon agent' "$tmp/top" | grep -qv '^root ' || { cat "$tmp/top"; fail "the agent runs as root"; }
ok "agent in the container (read-only root, user $user): /metrics with 8 GPUs on 0.0.0.0:9842"
pm stop -t 10 "$name" >/dev/null
echo "container.sh: passed in $(($(date +%s) - start)) s"

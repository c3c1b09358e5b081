#!/bin/sh
# check-arm64.sh -- the unit tests on aarch64 (`make check-arm64`): the
# meson suite "unit" (tests/unit, cmocka) cross-built for aarch64 in the
# release build's Debian 11 chroot (scripts/dist.sh: gcc-aarch64-linux-gnu,
# the arm64 -dev packages and libcmocka-dev:arm64, multiarch) and run there
# under qemu-aarch64-static, which finds the arm64 loader and libraries in
# the chroot's multiarch directories (the chroot is its -L root).  The same
# sources as the x86_64 suite in make check, at glibc 2.31 and on another
# architecture: word size is the same, but char is unsigned on aarch64,
# and memory ordering is weaker (under qemu, only partly).
#
#   scripts/check-arm64.sh          (root; the chroot is made when missing)
#   CACHE, MIRROR, DIST_STRICT      as for scripts/dist.sh
#
# Exit 0 every unit test passed, 1 one failed or the build failed (the
# log's tail printed), 77 cannot run here (not root, no mmdebstrap, no
# qemu-aarch64-static; 1 under DIST_STRICT=1).  Heavy steps under nice -n 19.
set -eu

die() { echo "check-arm64.sh: error: $*" >&2; exit 1; }
skip() {
    [ "${DIST_STRICT:-0}" = 0 ] || die "$* (DIST_STRICT=1: not skipped)"
    echo "check-arm64.sh: SKIP: $*"
    exit 77
}
say() { echo "check-arm64.sh: $*"; }

src=$(cd "$(dirname "$0")/.." && pwd)
cache=${CACHE:-/var/cache/gpumon-dist}
root=$cache/bullseye-build
[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap and chroot)"
command -v qemu-aarch64-static >/dev/null 2>&1 ||
    skip "qemu-aarch64-static is not installed (qemu-user-static)"
# the chroot, made or remade as scripts/dist.sh does (its package list)
rc=0
sh "$src/scripts/dist.sh" --prepare || rc=$?
[ $rc -eq 0 ] || { [ $rc -eq 77 ] && exit 77; die "no build chroot (scripts/dist.sh --prepare: exit $rc)"; }
meson_py=$(sed -n '1s/^#! *//p' "$(command -v meson)" 2>/dev/null | cut -d' ' -f1)
meson_dir=$(${meson_py:-python3} -c 'import mesonbuild, os; print(os.path.dirname(mesonbuild.__file__))') ||
    skip "the host's meson (python3 mesonbuild) is not installed"

work=$root/build/gpumon-arm64-unit
. "$src/scripts/chroot-copy.sh"
chroot_copy "$root" "$work" "$src" "$meson_dir"
cp "$(command -v qemu-aarch64-static)" "$root/usr/bin/qemu-aarch64-static"
cp "$src/scripts/cross-aarch64.ini" "$work/cross.ini"
d=/build/gpumon-arm64-unit
cat >"$work/test.sh" <<EOF
set -eu
cd $d/src
export PATH=/opt/meson:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 TZ=UTC
meson setup $d/out --cross-file $d/cross.ini -Dtests=enabled -Dwerror=false \
    "-Dc_args=['-Werror=implicit-function-declaration','-Werror=int-conversion']" >$d/setup.log
ninja -C $d/out >$d/ninja.log
meson test -C $d/out --suite unit --no-rebuild --print-errorlogs --num-processes 2 \
    --timeout-multiplier 4 >$d/test.log 2>&1
EOF
start=$(date +%s)
say "building the unit tests for aarch64 in $root and running them under qemu-aarch64-static"
if ! nice -n 19 unshare --mount --fork sh -c \
    'mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh /build/gpumon-arm64-unit/test.sh' \
    sh "$root" >"$work/chroot.log" 2>&1; then
    for f in chroot setup ninja test; do
        [ -s "$work/$f.log" ] && { echo "--- $f.log" >&2; tail -40 "$work/$f.log" >&2; }
    done
    die "the aarch64 unit tests failed (logs above, in $work)"
fi
grep -E '^(Ok|Fail|Skipped|Timeout|Expected Fail|Unexpected Pass): ' "$work/test.log" |
    sed 's/^/check-arm64.sh: /'
say "passed in $(($(date +%s) - start)) s ($(file -b "$work/out/tests/unit/test_fmt" | cut -d, -f1-2))"

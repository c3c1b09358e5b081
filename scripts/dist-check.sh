#!/bin/sh
# dist-check.sh -- the release tarball where it must run (`make check-dist`,
# not part of make check): for each of Debian 11 (bullseye, glibc 2.31, the
# floor), 12 (bookworm) and 13 (trixie), a chroot with only the runtime
# libraries (no compiler, no -dev package) made by mmdebstrap and cached in
# CACHE (default /var/cache/gpumon-dist), where the tarball is unpacked and
# installed with `install.sh --prefix /opt/gpumon` (a prefix other than the
# one it was built for), then a smoke run on the simulator:
#
#   gpumon --version                                  the tarball's version
#   --sim h100x8-training.ini status                  8 H100 lines
#   --sim ... query --query-gpu=index,name --format=csv,noheader   8 rows
#   --sim ... agent --listen 127.0.0.1:9842 for 5 s   /livez and /healthz 200,
#                                                     /metrics with 8 GPUs, gpumon mark
#                                                     reaches it, exit 0 on SIGTERM
#   report --data-dir (the agent's history)           rows for GPUs 0-7 with samples
#   plot --data-dir ... -o p.png                      a PNG
#   install.sh --uninstall --prefix /opt/gpumon       /opt/gpumon gone
#   install.sh over a symbolic link planted at bin/gpumon: replaced, its
#   target untouched; --uninstall keeps the directories that were there
#
# each in a private network and mount namespace (port 9842 of the host stays
# free).  A chroot that cannot be made (no mirror, no mmdebstrap) is skipped
# with the reason; any other failure fails.  The chroots are made with dpkg
# not syncing (--dpkgopt=force-unsafe-io: a broken one is remade, not
# repaired).
#
#   scripts/dist-check.sh [DISTDIR]    (root; DISTDIR default dist/, holding the tarball)
#   scripts/dist-check.sh --prepare    only make the chroots that are missing
#   DIST_STRICT=1 (CI)                 nothing is skipped: a chroot that cannot be
#                                      made, a missing qemu-aarch64-static or aarch64
#                                      tarball fails (exit 1), each named
#
# Then the aarch64 tarball (ARCH=aarch64 make dist), when there, in Debian
# 12's arm64 libraries under qemu-aarch64-static (the same steps).
#
# Exit 0 every suite passed, 1 one failed, 77 none could run.  Heavy steps
# run under nice -n 19.
set -eu

say() { echo "dist-check.sh: $*"; }
die() { echo "dist-check.sh: error: $*" >&2; exit 1; }

src=$(cd "$(dirname "$0")/.." && pwd)
prepare=0
if [ "${1:-}" = --prepare ]; then
    prepare=1
    shift
fi
distdir=${1:-$src/dist}
cache=${CACHE:-/var/cache/gpumon-dist}
mirror=${MIRROR:-http://deb.debian.org/debian}
suites=${SUITES:-bullseye bookworm trixie}
# runtime libraries: the binary's (libc, zlib, SQLite) and the modules'
# (exporter, webhooks, top, plot and a font for it), curl to scrape
pkgs=libsqlite3-0,zlib1g,libyaml-0-2,libmicrohttpd12,libgnutls30,libcurl4,libcairo2
pkgs=$pkgs,libncursesw6,fonts-dejavu-core,curl

strict=${DIST_STRICT:-0}
# the whole run cannot happen here: exit 77, or 1 under DIST_STRICT=1
cannot() {
    [ "$strict" = 0 ] || die "$* (DIST_STRICT=1: not skipped)"
    say "SKIP: $*"
    exit 77
}
[ "$(id -u)" -eq 0 ] || cannot "needs root (mmdebstrap, chroot)"
for t in mmdebstrap unshare chroot; do
    command -v "$t" >/dev/null 2>&1 || cannot "$t is not installed"
done
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$src/meson.build")
tarball=$distdir/gpumon-$version-linux-x86_64.tar.gz
[ $prepare -eq 1 ] || [ -f "$tarball" ] || die "no $tarball (make dist)"
mkdir -p "$cache"

cat >"$cache/smoke.sh" <<'EOF'
# $1 the tarball's path, $2 its version, $3 the prefix (/opt/gpumon), $4 a
# scratch directory (/tmp/smoke), $5 what runs gpumon (words: nothing inside
# a chroot of the tarball's architecture, qemu-aarch64-static -L ROOT for
# arm64 from the host)
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 TZ=UTC
P=${3:-/opt/gpumon}
W=${4:-/tmp/smoke}
PL=$(dirname "$P")/planted
rm -rf "$W" "$P" "$PL"
mkdir -p "$W"
cd "$W"
tar -xzf "$1"
inst=$(echo "$W"/gpumon-"$2"-linux-*/install.sh)
"$inst" --prefix "$P" >install.log || { cat install.log; fail "install.sh"; }
G="${5:-} $P/bin/gpumon"
S=$P/share/gpumon/scenarios/h100x8-training.ini
ver=$($G --version | head -1)
[ "$ver" = "gpumon $2" ] || fail "gpumon --version: '$ver'"
ok "$ver"
$G --sim $S status >status.out 2>status.err || { cat status.err; fail "status"; }
n=$(grep -c H100 status.out || true)
[ "$n" -eq 8 ] || { cat status.out; fail "status: $n H100 lines, want 8"; }
ok "status: 8 GPUs"
$G --sim $S query --query-gpu=index,name,utilization.gpu --format=csv,noheader >query.out 2>query.err ||
    { cat query.err; fail "query"; }
[ "$(wc -l <query.out)" -eq 8 ] || { cat query.out; fail "query: not 8 rows"; }
ok "query: 8 rows ($(head -1 query.out))"
$G --sim $S agent --no-config --data-dir "$W/data" --interval 1s --listen 127.0.0.1:9842 \
    >agent.out 2>agent.err &
pid=$!
i=0
until curl -sf http://127.0.0.1:9842/livez >livez.out 2>/dev/null; do
    i=$((i + 1))
    kill -0 $pid 2>/dev/null || { cat agent.err; fail "the agent exited"; }
    [ $i -lt 600 ] || { kill $pid; cat agent.err; fail "no /livez after 60 s"; }
    sleep 0.1
done
# a sample served (/healthz 200) and the control socket there: waited for,
# not slept (qemu and a loaded machine are slow), up to 60 s
i=0
until [ -S "$W/data/agent.sock" ] && curl -sf http://127.0.0.1:9842/healthz >/dev/null 2>&1; do
    i=$((i + 1))
    kill -0 $pid 2>/dev/null || { cat agent.err; fail "the agent exited"; }
    [ $i -lt 600 ] || { kill $pid; cat agent.err; fail "no sample or no agent.sock after 60 s"; }
    sleep 0.1
done
sleep 2 # a few samples more for the report
# the control socket (set up by name, never through a link: glibc 2.31
# needs the fallback of src/core/safefile.c)
$G mark --data-dir "$W/data" smoke run >mark.out 2>mark.err ||
    { kill $pid; cat mark.err agent.err; fail "gpumon mark: the agent's control socket"; }
curl -sf http://127.0.0.1:9842/healthz >healthz.out || { kill $pid; fail "/healthz not 200"; }
curl -sf http://127.0.0.1:9842/metrics >metrics.out || { kill $pid; fail "/metrics"; }
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc -eq 0 ] || { cat agent.err; fail "the agent exited $rc on SIGTERM"; }
n=$(grep -c '^gpumon_gpu_utilization_ratio{.*gpu="[0-7]"' metrics.out || true)
[ "$n" -eq 8 ] || { head -20 metrics.out; fail "/metrics: $n GPU utilization series, want 8"; }
ok "agent with the exporter: /livez, /healthz ($(cat healthz.out | tr -d '\n')), /metrics 8 GPUs, gpumon mark, exit 0"
$G report --data-dir "$W/data" --since 1h >report.out 2>report.err || { cat report.err; fail "report"; }
# one row per GPU per hour: GPUs 0 to 7 (an hour boundary may split them)
n=$(awk 'NR > 1 && $2 ~ /^[0-7]$/ && $3 > 0 { print $2 }' report.out | sort -u | wc -l)
[ "$n" -eq 8 ] || { cat report.out; fail "report: $n GPUs with samples, want 8"; }
ok "report: 8 GPUs with samples"
$G plot --data-dir "$W/data" --since 1h -o "$W/p.png" >plot.out 2>plot.err || { cat plot.err; fail "plot"; }
[ "$(od -An -tx1 -N8 p.png | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "plot: not a PNG"
ok "plot: $(wc -c <p.png) bytes of PNG"
"$inst" --uninstall --prefix "$P" >uninstall.log ||
    { cat uninstall.log; fail "install.sh --uninstall"; }
[ ! -e "$P" ] || { find "$P"; fail "left after --uninstall (above)"; }
ok "install.sh --uninstall: $P gone"
# a symbolic link planted at an installed file's name is replaced, not
# written through; directories that were there stay after --uninstall
mkdir -p "$PL/bin"
echo victim >victim
ln -s "$W/victim" "$PL/bin/gpumon"
"$inst" --prefix "$PL" >planted.log || { cat planted.log; fail "install.sh over a planted link"; }
[ "$(cat victim)" = victim ] || fail "install.sh wrote through the planted link"
[ -f "$PL/bin/gpumon" ] && [ ! -L "$PL/bin/gpumon" ] || fail "the planted link is still there"
"$inst" --uninstall --prefix "$PL" >planted-un.log
[ -d "$PL/bin" ] && [ -z "$(ls -A "$PL/bin")" ] && [ "$(ls -A "$PL")" = bin ] ||
    { find "$PL"; fail "--uninstall: the directories that were there, emptied, expected"; }
rm -rf "$PL"
ok "install.sh replaces a planted link (its target untouched); --uninstall keeps the directories it did not make"
EOF

passed=0
failed=0
skipped=0
# one suite that cannot run: skipped, or failed under DIST_STRICT=1
skip_suite() { # suite reason
    if [ "$strict" = 0 ]; then
        say "SKIP $1: $2"
        skipped=$((skipped + 1))
    else
        echo "dist-check.sh: error: $1: $2 (DIST_STRICT=1: not skipped)" >&2
        failed=$((failed + 1))
    fi
}
for suite in $suites; do
    root=$cache/run-$suite-amd64
    stamp="$suite $pkgs"
    if [ "$(cat "$root/.gpumon-dist" 2>/dev/null)" != "$stamp" ]; then
        say "$suite: making the chroot in $root (once)"
        rm -rf "$root.tmp" "$root"
        start=$(date +%s)
        if ! nice -n 19 mmdebstrap --variant=minbase --include="$pkgs" --dpkgopt=force-unsafe-io \
            "$suite" "$root.tmp" "$mirror" >"$cache/mmdebstrap-run-$suite.log" 2>&1; then
            tail -5 "$cache/mmdebstrap-run-$suite.log"
            rm -rf "$root.tmp"
            skip_suite "$suite" "mmdebstrap from $mirror failed (log: $cache/mmdebstrap-run-$suite.log)"
            continue
        fi
        printf '%s\n' "$stamp" >"$root.tmp/.gpumon-dist"
        mv "$root.tmp" "$root"
        say "$suite: the chroot made in $(($(date +%s) - start)) s"
    fi
    if [ $prepare -eq 1 ]; then
        say "$suite: chroot ready in $root"
        continue
    fi
    cp "$tarball" "$root/tmp/gpumon.tar.gz"
    cp "$cache/smoke.sh" "$root/tmp/smoke.sh"
    echo "ok: $(chroot "$root" ldd --version | head -1)" >"$cache/smoke-$suite.log"
    if nice -n 19 unshare --net --mount --fork sh -c \
        'ip link set lo up && mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh /tmp/smoke.sh /tmp/gpumon.tar.gz "$2"' \
        sh "$root" "$version" >>"$cache/smoke-$suite.log" 2>&1; then
        sed "s/^/dist-check.sh: $suite: /" "$cache/smoke-$suite.log"
        passed=$((passed + 1))
    else
        sed "s/^/dist-check.sh: $suite: /" "$cache/smoke-$suite.log" >&2
        say "FAIL $suite"
        failed=$((failed + 1))
    fi
done

# arm64: Debian 12's arm64 runtime libraries, extracted only (no maintainer
# script runs, so no binfmt_misc is needed), the tarball installed there
# from the host and each gpumon run by qemu-aarch64-static -L ROOT; the
# smoke script runs on the host, in a private network namespace
atar=$distdir/gpumon-$version-linux-aarch64.tar.gz
aroot=$cache/run-bookworm-arm64
apkgs=libc6,libsqlite3-0,zlib1g,libyaml-0-2,libmicrohttpd12,libgnutls30,libcurl4,libcairo2
apkgs=$apkgs,libncursesw6,fonts-dejavu-core,libcrypt1
if ! command -v qemu-aarch64-static >/dev/null 2>&1; then
    skip_suite bookworm-arm64 "qemu-aarch64-static is not installed (qemu-user-static)"
elif [ $prepare -eq 0 ] && [ ! -f "$atar" ]; then
    skip_suite bookworm-arm64 "no $atar (ARCH=aarch64 make dist)"
else
    stamp="bookworm arm64 $apkgs"
    if [ "$(cat "$aroot/.gpumon-dist" 2>/dev/null)" != "$stamp" ]; then
        say "bookworm-arm64: extracting the arm64 libraries in $aroot (once)"
        rm -rf "$aroot.tmp" "$aroot"
        start=$(date +%s)
        if nice -n 19 mmdebstrap --variant=extract --architectures=arm64 --include="$apkgs" \
            bookworm "$aroot.tmp" "$mirror" >"$cache/mmdebstrap-run-arm64.log" 2>&1; then
            printf '%s\n' "$stamp" >"$aroot.tmp/.gpumon-dist"
            mv "$aroot.tmp" "$aroot"
            say "bookworm-arm64: extracted in $(($(date +%s) - start)) s"
        else
            rm -rf "$aroot.tmp"
        fi
    fi
    if [ ! -d "$aroot" ]; then
        skip_suite bookworm-arm64 "mmdebstrap from $mirror failed (log: $cache/mmdebstrap-run-arm64.log)"
    elif [ $prepare -eq 0 ]; then
        libc=$(strings "$aroot"/lib/aarch64-linux-gnu/libc.so.6 | grep -m1 'GNU C Library')
        echo "ok: arm64 $libc, under $(qemu-aarch64-static --version | head -1)" >"$cache/smoke-arm64.log"
        if nice -n 19 unshare --net --fork sh -c 'ip link set lo up && exec sh "$@"' sh \
            "$cache/smoke.sh" "$atar" "$version" "$aroot/opt/gpumon" "$cache/smoke-arm64-work" \
            "qemu-aarch64-static -L $aroot" >>"$cache/smoke-arm64.log" 2>&1; then
            sed "s/^/dist-check.sh: bookworm-arm64: /" "$cache/smoke-arm64.log"
            passed=$((passed + 1))
        else
            sed "s/^/dist-check.sh: bookworm-arm64: /" "$cache/smoke-arm64.log" >&2
            say "FAIL bookworm-arm64"
            failed=$((failed + 1))
        fi
    fi
fi
if [ $prepare -eq 1 ]; then
    [ $failed -eq 0 ] || die "$failed chroots could not be made (above)"
    say "chroots ready, $skipped skipped"
    exit 0
fi
say "$passed passed, $failed failed, $skipped skipped ($(basename "$tarball"), $(basename "$atar"))"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 77

#!/bin/sh
# dist_strict.sh -- CI runs make check-dist with DIST_STRICT=1 (.ci/run): a
# release chroot that cannot be made must fail it, loudly, not be skipped.
# Here the chroots' preparation (scripts/dist.sh --prepare,
# scripts/dist-check.sh --prepare) runs against a mirror that does not
# answer (MIRROR at a local port nothing listens on) with an empty CACHE
# in a temporary directory:
#   * with DIST_STRICT=1: both exit 1, and the error names the suite and
#     the mirror;
#   * without DIST_STRICT, a developer's run: dist.sh skips (77) with the
#     reason, dist-check.sh --prepare says SKIP for the suite and exits 0;
#   * no half-made chroot (*.tmp) is left in CACHE either way.
# Needs root and mmdebstrap (exits 77 otherwise).  Environment from meson:
# SOURCE_ROOT.
set -eu
cd "$SOURCE_ROOT"
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (mmdebstrap)"; exit 77; }
command -v mmdebstrap >/dev/null 2>&1 || { echo "SKIP: mmdebstrap is not installed"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$(python3 -c 'import sys; sys.path.insert(0, "tests/e2e")
from exporter_lib import free_port
print(free_port())')
export MIRROR="http://127.0.0.1:$port/debian" CACHE="$tmp/cache"
unset DIST_STRICT

run() { # name expected-exit command... (output in $tmp/name.out)
    name=$1 want=$2
    shift 2
    rc=0
    "$@" >"$tmp/$name.out" 2>&1 </dev/null || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$tmp/$name.out"; fail "$name: exit $rc, want $want"; }
}
has() { # name text
    grep -qF -- "$2" "$tmp/$1.out" || { cat "$tmp/$1.out"; fail "$1: no '$2' in its output"; }
}

DIST_STRICT=1 run build-strict 1 sh scripts/dist.sh --prepare
has build-strict "dist.sh: error: mmdebstrap bullseye from $MIRROR failed"
has build-strict "(DIST_STRICT=1: not skipped)"
ok "DIST_STRICT=1 dist.sh --prepare, no mirror: exit 1, the mirror named"

DIST_STRICT=1 SUITES="bullseye trixie" run run-strict 1 sh scripts/dist-check.sh --prepare
for s in bullseye trixie; do
    has run-strict "dist-check.sh: error: $s: mmdebstrap from $MIRROR failed"
done
has run-strict "chroots could not be made"
if grep -q 'SKIP' "$tmp/run-strict.out"; then
    cat "$tmp/run-strict.out"
    fail "DIST_STRICT=1 dist-check.sh skipped something"
fi
ok "DIST_STRICT=1 dist-check.sh --prepare, no mirror: exit 1, each suite and the mirror named"

run build 77 sh scripts/dist.sh --prepare
has build "dist.sh: SKIP: mmdebstrap bullseye from $MIRROR failed"
ok "dist.sh --prepare, no mirror: skipped (77) with the reason"

SUITES=bullseye run run 0 sh scripts/dist-check.sh --prepare
has run "SKIP bullseye: mmdebstrap from $MIRROR failed"
ok "dist-check.sh --prepare, no mirror: the suite skipped with the reason"

left=$(find "$CACHE" -maxdepth 1 -name '*.tmp')
[ -z "$left" ] || fail "half-made chroots left in CACHE: $left"
ok "no half-made chroot left"

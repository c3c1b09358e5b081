#!/bin/sh
# check.sh -- builds gpumon twice (plain, and with AddressSanitizer +
# UndefinedBehaviorSanitizer), runs every test in both builds, builds it a
# third time with ThreadSanitizer (build-tsan) and runs the threaded tests
# there (meson suite "threads"; a race fails its test), runs each
# libFuzzer harness briefly over its committed corpus (scripts/fuzz.sh --ci,
# GPUMON_FUZZ_SECONDS each, default 10; one test per harness), as root the
# Debian package and container image tests (tests/pkg/), and ends with
# one summary line: "N passed, N failed" (", N skipped" when any were).
# The fuzzers run beside the package tests (README, "Building and
# testing").
#
#   scripts/check.sh --fast     (make check-fast) the plain build's unit tests
#                               and .t cases only (meson suites unit and
#                               cases): under 5 minutes on 2 cores, what to
#                               run before each commit
#   scripts/check.sh --loaded   (make check-loaded) all of the above beside
#                               stress-ng --cpu 2: the suite must pass on a
#                               busy machine too (tests wait for conditions,
#                               never for durations)
set -u
cd "$(dirname "$0")/.."

# Tests per core at once: most tests wait (on agents, sampling, timeouts),
# not compute -- the plain suite used ~215 CPU-seconds over 500 s of wall
# time at 8 at once on 2 cores (README, "Building and testing") -- so several per core keep
# the cores busy; the longest start first (meson's priority,
# tests/e2e/meson.build).  GPUMON_TEST_JOBS overrides.
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
jobs=${GPUMON_TEST_JOBS:-$((ncpu * 4))}

build_suite() { # builddir meson-setup-args...
    dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
    fi
    ninja -C "$dir" >"$dir.ninja.log" 2>&1 || { cat "$dir.ninja.log"; return 1; }
}

test_suite() { # name builddir
    echo "== $1 tests"
    meson test -C "$2" --print-errorlogs --no-rebuild --num-processes "$jobs" \
        ${suite_args:-} ${GPUMON_TEST_ARGS:-}
    return 0
}

run_suite() { # name builddir meson-setup-args...
    name=$1; dir=$2; shift 2
    build_suite "$dir" "$@" || return 1
    test_suite "$name" "$dir"
}

count() { # builddir -> "ok fail skip"
    python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
ok = fail = skip = 0
try:
    for line in open(sys.argv[1]):
        r = json.loads(line).get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif r == "SKIP":
            skip += 1
        else:
            fail += 1
except FileNotFoundError:
    pass
print(ok, fail, skip)
PY
}

case ${1:-} in
--fast)
    rm -f build/meson-logs/testlog.json
    fast=0
    GPUMON_TEST_ARGS="--suite unit --suite cases ${GPUMON_TEST_ARGS:-}" run_suite plain build || fast=1
    set -- $(count build)
    [ "$fast" -ne 0 ] && [ "$2" -eq 0 ] && set -- "$1" 1 "$3"   # a build failure is a failure
    if [ "$3" -gt 0 ]; then echo "$1 passed, $2 failed, $3 skipped"; else echo "$1 passed, $2 failed"; fi
    [ "$2" -eq 0 ]
    exit ;;
--loaded)
    command -v stress-ng >/dev/null 2>&1 ||
        { echo "check.sh: error: stress-ng not found: install the Debian package stress-ng" >&2; exit 2; }
    stress-ng --cpu 2 --timeout 6h --quiet &
    stress=$!
    trap 'kill "$stress" 2>/dev/null' EXIT
    echo "== beside stress-ng --cpu 2 (pid $stress)"
    "$0"
    exit ;;
"") ;;
*) echo "usage: scripts/check.sh [--fast | --loaded]" >&2; exit 2 ;;
esac

status=0
rm -f build/meson-logs/testlog.json build-asan/meson-logs/testlog.json \
    build-tsan/meson-logs/testlog.json
# undefined behaviour stops the program (UBSan's default is a line on stderr
# and carrying on, which a test that does not compare stderr never sees)
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export UBSAN_OPTIONS
plain_ok=0; san_ok=0
build_suite build && plain_ok=1 || status=1
build_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug &&
    san_ok=1 || status=1
# One suite after the other: side by side (tried) they loaded the machine
# past what a test of memory under slow clients tolerates -- the kernel's
# TCP memory is the whole machine's -- and beside stress-ng past the
# driver-hang watchdog (10 s) in the sanitized build.  ASan and UBSan run
# the programs two to three times slower, and a debug build does not
# optimise: the sanitized suite's timeouts (not assertions, a bound on a
# hang) x2, as TSan's x3 below.
[ "$plain_ok" -eq 1 ] && test_suite plain build
[ "$san_ok" -eq 1 ] && suite_args="--timeout-multiplier 2" test_suite sanitized build-asan
suite_args=

# ThreadSanitizer over the threaded tests only (suite "threads" in
# tests/*/meson.build: the agent's sinks, the exporter, the control socket,
# the live API, the notifier; about a minute): a data race or a lock-order
# inversion stops the program (halt_on_error=1) and so fails its test.  The
# programs run several times slower: timeouts x3.
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
export TSAN_OPTIONS
suite_args="--suite threads --timeout-multiplier 3"
run_suite threads build-tsan -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug || status=1
suite_args=

# the fuzz harnesses, each a test: its last line is "fuzz: N passed, N failed";
# beside the package tests (one core each way); their lines after those
FUZZ_SECONDS=${GPUMON_FUZZ_SECONDS:-10} scripts/fuzz.sh --ci >build-fuzz.check.log 2>&1 &
fuzz=$!

# the Debian packages and the container image (tests/pkg/, docs/install.md):
# they install packages and build images, so they run once, as root only
# (CI); otherwise, or without the tools, they count as skipped (exit 77)
echo "== packages (tests/pkg/deb.sh, tests/pkg/container.sh)"
pk_ok=0; pk_fail=0; pk_skip=0
pk_count() { # exit status
    case $1 in 0) pk_ok=$((pk_ok + 1)) ;; 77) pk_skip=$((pk_skip + 1)) ;; *) pk_fail=$((pk_fail + 1)) ;; esac
}
pk_debs=$(mktemp -d /tmp/gpumon-check-debs.XXXXXX)
GPUMON_PKG_OUT=$pk_debs tests/pkg/deb.sh; deb_rc=$?
pk_count $deb_rc
if [ "$deb_rc" -eq 0 ]; then
    tests/pkg/container.sh "$pk_debs"; pk_count $?
else
    echo "container.sh: SKIP: no packages (deb.sh did not pass)"; pk_count 77
fi
rm -rf "$pk_debs"

wait "$fuzz"
echo "== fuzz (${GPUMON_FUZZ_SECONDS:-10} s each)"
cat build-fuzz.check.log
fz=$(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' build-fuzz.check.log | tail -1)
[ -n "$fz" ] || fz="0 1"   # no summary: the script itself failed

set -- $(count build) $(count build-asan) $(count build-tsan) $fz
passed=$(( $1 + $4 + $7 + ${10} + pk_ok )); failed=$(( $2 + $5 + $8 + ${11} + pk_fail ))
skipped=$(( $3 + $6 + $9 + pk_skip ))
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1   # a build failure is a failure
echo "plain: $1 passed, $2 failed, $3 skipped; sanitized: $4 passed, $5 failed, $6 skipped; threads: $7 passed, $8 failed, $9 skipped; fuzz: ${10} passed, ${11} failed; packages: $pk_ok passed, $pk_fail failed, $pk_skip skipped"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]

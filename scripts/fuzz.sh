#!/bin/sh
# fuzz.sh -- builds the libFuzzer harnesses of tests/fuzz/ with clang in
# build-fuzz/ (-Dfuzz=true: coverage, AddressSanitizer, UndefinedBehavior-
# Sanitizer) and runs each for a bounded time; docs/fuzzing.md.
#
#   scripts/fuzz.sh [--ci] [HARNESS...]     all harnesses, or the ones named
#
#   FUZZ_SECONDS  seconds per harness (default 60; 0: run the corpus once,
#                 no fuzzing -- a regression run)
#   FUZZ_JOBS     harnesses run side by side (default 1)
#   FUZZ_ARGS     more libFuzzer flags for every harness (-jobs is not one)
#   --ci          the run scripts/check.sh makes: new inputs go to a
#                 temporary corpus that is thrown away, so every run starts
#                 from the committed seeds
#
# Each harness starts from its seeds (tests/fuzz/corpus/NAME/, read only)
# and, without --ci, the inputs earlier runs found (build-fuzz/corpus/NAME/).
# A finding (crash, leak, undefined behaviour, a failed check, an input
# slower than 10 s, more than 2 GiB) stops that harness; its input is kept
# in build-fuzz/findings/NAME/ and named in the output.  One line per
# harness, then "fuzz: N passed, N failed"; the exit status is 1 when any
# harness failed or could not be built.
set -u
cd "$(dirname "$0")/.." || exit 1

# name:max_len -- the longest input each is given, about twice its largest seed
HARNESSES="config:16384 rule:600 scenario:16384 webconfig:8192 csv:4096 http:4096 history:2048"
HARNESSES="$HARNESSES attrib:1024 jobmap:4096"
BUILD=build-fuzz

ci=0
if [ "${1:-}" = "--ci" ]; then
    ci=1
    shift
fi
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
case "$seconds$jobs" in
*[!0-9]*)
    echo "fuzz: FUZZ_SECONDS and FUZZ_JOBS must be whole numbers" >&2
    exit 2
    ;;
esac
[ "$jobs" -ge 1 ] || jobs=1

want="$*"
selected=""
for h in $HARNESSES; do
    name=${h%%:*}
    if [ -z "$want" ] || echo " $want " | grep -q " $name "; then
        selected="$selected $h"
    fi
done
for w in $want; do
    echo " $HARNESSES" | grep -q " $w:" || {
        echo "fuzz: no harness \"$w\" (one of: $(echo "$HARNESSES" | sed 's/:[0-9]*//g'))" >&2
        exit 2
    }
done
count=$(echo "$selected" | wc -w)

# The harnesses' own temporary files (fuzz_tmp.h) go under a directory of
# ours, removed however a harness ends; in memory when /dev/shm allows, as
# the config and CSV harnesses write a file per input.
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/gpumon-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

fail_all() { # why
    echo "fuzz: $1"
    echo "fuzz: 0 passed, $count failed"
    exit 1
}

command -v clang >/dev/null 2>&1 || fail_all "clang is not installed (scripts/install-deps.sh)"
if [ ! -f "$BUILD/build.ninja" ]; then
    CC=clang meson setup "$BUILD" -Dfuzz=true -Db_lundef=false >"$BUILD.setup.log" 2>&1 || {
        cat "$BUILD.setup.log"
        fail_all "cannot set up $BUILD (log: $BUILD.setup.log)"
    }
fi
targets=""
for h in $selected; do
    targets="$targets tests/fuzz/fuzz_${h%%:*}"
done
# shellcheck disable=SC2086 # one word per target
ninja -C "$BUILD" $targets >"$BUILD.ninja.log" 2>&1 || {
    cat "$BUILD.ninja.log"
    fail_all "cannot build the harnesses (log: $BUILD.ninja.log)"
}

# run_one NAME MAX_LEN: runs one harness; its result line goes to $tmp/NAME.result
run_one() {
    name=$1
    max_len=$2
    seeds=tests/fuzz/corpus/$name
    findings=$BUILD/findings/$name
    log=$BUILD/findings/$name.log
    mkdir -p "$findings" "$tmp/$name"
    if [ "$ci" -eq 1 ]; then
        work=$tmp/$name/corpus
    else
        work=$BUILD/corpus/$name
    fi
    mkdir -p "$work"
    set -- -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/"
    [ -f "tests/fuzz/$name.dict" ] && set -- "$@" -dict="tests/fuzz/$name.dict"
    if [ "$seconds" -eq 0 ]; then
        set -- "$@" -runs=0
    else
        set -- "$@" -max_total_time="$seconds"
    fi
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    TMPDIR=$tmp/$name timeout $((seconds + 300)) "$BUILD/tests/fuzz/fuzz_$name" "$@" \
        ${FUZZ_ARGS:-} "$work" "$seeds" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ "$rc" -eq 0 ] && [ "$seconds" -eq 0 ]; then
        echo "fuzz: $name: ok, the corpus replayed (${runs:-?} runs)" >"$tmp/$name.result"
        return
    elif [ "$rc" -eq 0 ]; then
        echo "fuzz: $name: ok, ${runs:-?} runs in ${seconds} s (${rate:-?} exec/s)" >"$tmp/$name.result"
        return
    fi
    unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    what=$(grep -m1 -E '^SUMMARY|^==[0-9]+== ?ERROR|^fuzz_[a-z]+: ' "$log")
    {
        echo "fuzz: $name: FAILED (exit status $rc): ${what:-see the log}"
        echo "fuzz: $name:   input: ${unit:-none written}; log: $log"
        [ -n "$unit" ] && echo "fuzz: $name:   reproduce: $BUILD/tests/fuzz/fuzz_$name $unit"
    } >"$tmp/$name.result"
}

running=0
for h in $selected; do
    run_one "${h%%:*}" "${h#*:}" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

passed=0
failed=0
for h in $selected; do
    name=${h%%:*}
    if [ -f "$tmp/$name.result" ]; then
        cat "$tmp/$name.result"
        grep -q ": ok," "$tmp/$name.result" && passed=$((passed + 1)) || failed=$((failed + 1))
    else
        echo "fuzz: $name: FAILED: no result (killed?)"
        failed=$((failed + 1))
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

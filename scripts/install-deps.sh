#!/bin/sh
# install-deps.sh -- installs the Debian 12 packages gpumon needs, in four
# lists: DEMO (build it and run it: what `make` and `make demo` need), TEST
# (what only `make check` adds: the real peers, browsers, packaging tools,
# clang for the fuzzers), DEV (lint and benchmarks) and DIST (the release
# tarballs' chroots: make dist, make check-dist).  As root it runs
# apt-get; otherwise it prints the command.
#
#   scripts/install-deps.sh --demo     DEMO: build and run (make, make demo)
#   scripts/install-deps.sh --test     DEMO + TEST: make check, make fuzz
#   scripts/install-deps.sh            all four (.ci/run, a developer's machine)
#   ... --check                        exit 1 and list what is missing, change nothing
#   ... --list                         print the chosen packages, one a line
set -eu

# --- DEMO: build and run
# the build: compiler, meson, and the libraries gpumon links
DEMO="gcc make meson ninja-build pkg-config libinih-dev zlib1g-dev libsqlite3-dev libyaml-dev libcrypt-dev libgnutls28-dev libmicrohttpd-dev"
# gpumon top (the gpumon_top.so module): ncursesw
DEMO="$DEMO libncurses-dev"
# gpumon plot (the gpumon_plot.so module): cairo for PNG, SVG and PDF
DEMO="$DEMO libcairo2-dev"
# webhooks and Alertmanager (the gpumon_notify.so module): libcurl with OpenSSL
DEMO="$DEMO libcurl4-openssl-dev"
# the unit tests' framework: meson configures build/ with them when it is
# there, and build/ is the one `make check` runs later (no package depends on it)
DEMO="$DEMO libcmocka-dev"
# the demo itself: python3 (the training ranks' stand-ins, JSON), sqlite3
# (the store, as the demo's closing lines suggest)
DEMO="$DEMO python3 sqlite3"

# --- TEST: what only the test suite adds
# JSON checks, the compat test, processes, TLS keys, the real peers
TEST="procps openssl prometheus prometheus-node-exporter wrk curl apache2-utils"
# the Python client installed offline from the checkout (python/tests:
# pip --no-build-isolation with Debian's setuptools and wheel)
TEST="$TEST python3-pip python3-setuptools python3-wheel"
# the notifier's real peer (tests/e2e/notify_alertmanager.py)
TEST="$TEST prometheus-alertmanager"
# gpumon top in a real terminal (tests/e2e/top_*.py)
TEST="$TEST tmux"
# make check-loaded runs the suite beside stress-ng --cpu 2
TEST="$TEST stress-ng"
# gpumon plot's SVG (xmllint) and PDF (pdfinfo, pdftotext) checked by real tools
TEST="$TEST libxml2-utils poppler-utils"
# the agent's live page in a real headless browser (tests/e2e/live_page.py),
# and the README's screenshots of it (scripts/live-img.sh); the HTML report
# in a real headless browser (tests/e2e/report_html.py; skipped, exit 77,
# without it) and its picture (scripts/report-html-img.sh)
TEST="$TEST chromium"
# the manual pages rendered (groff -ww, man -l), the zsh and fish completions
TEST="$TEST groff-base man-db zsh fish"
# the Debian packages (tests/pkg/deb.sh: dpkg-buildpackage, lintian), the
# container image (tests/pkg/container.sh: buildah, rootful podman with runc,
# curl) and the Kubernetes manifests (tests/pkg/k8s.py: python3-yaml)
TEST="$TEST debhelper dpkg-dev lintian buildah podman runc python3-yaml"
# fuzzing (make fuzz, and the short run in make check): clang with libFuzzer's runtime
TEST="$TEST clang libclang-rt-14-dev"
# the agent under valgrind's memcheck (tests/e2e/agent_valgrind.py); also
# the benchmarks' instruction counts (callgrind)
TEST="$TEST valgrind"

# --- DEV: lint and benchmarks
# lint (make lint)
DEV="clang-format clang-tidy cppcheck"
# benchmarks (make bench)
DEV="$DEV hyperfine strace"

# --- DIST: the release tarballs (make dist, make check-dist; .ci/run runs
# them): mmdebstrap makes the Debian 11-13 chroots, qemu-user-static runs
# the aarch64 build and smoke run, ip brings up the smoke run's loopback;
# rpm and rpmlint build the RPMs of the tarballs and check them
DIST="mmdebstrap qemu-user-static iproute2 rpm rpmlint"

which=all check=0 list=0
for a in "$@"; do
    case $a in
    --demo) which=demo ;;
    --test) which=test ;;
    --check) check=1 ;;
    --list) list=1 ;;
    *)
        echo "usage: scripts/install-deps.sh [--demo | --test] [--check | --list]" >&2
        exit 2
        ;;
    esac
done
case $which in
demo) PKGS=$DEMO ;;
test) PKGS="$DEMO $TEST" ;;
*) PKGS="$DEMO $TEST $DEV $DIST" ;;
esac
if [ "$list" = 1 ]; then
    printf '%s\n' $PKGS
    exit 0
fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi
if [ "$check" = 1 ]; then
    echo "missing Debian packages:$missing" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "gpumon needs these Debian packages:$missing" >&2
    echo "install them with:  sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# a fresh machine may have no package lists yet
if ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi

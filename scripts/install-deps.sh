#!/bin/sh
# install-deps.sh -- installs the Debian 12 packages gpumon needs to build,
# test and demo.  As root it runs apt-get; otherwise it prints the command.
#
#   scripts/install-deps.sh           install what is missing (root), or say what
#   scripts/install-deps.sh --check   exit 1 and list what is missing, change nothing
set -eu

# build and run
PKGS="gcc make meson ninja-build pkg-config libinih-dev zlib1g-dev libsqlite3-dev sqlite3 libyaml-dev libcrypt-dev libgnutls28-dev libmicrohttpd-dev"
# gpumon top (the gpumon_top.so module): ncursesw
PKGS="$PKGS libncurses-dev"
# gpumon plot (the gpumon_plot.so module): cairo for PNG, SVG and PDF
PKGS="$PKGS libcairo2-dev"
# webhooks and Alertmanager (the gpumon_notify.so module): libcurl with OpenSSL
PKGS="$PKGS libcurl4-openssl-dev"
# tests: cmocka, python3 (JSON checks, compat test), tmux/valgrind for later suites
PKGS="$PKGS libcmocka-dev python3 procps openssl prometheus prometheus-node-exporter wrk curl apache2-utils"
# tests: the notifier's real peer (tests/e2e/notify_alertmanager.py)
PKGS="$PKGS prometheus-alertmanager"
# tests: gpumon top in a real terminal (tests/e2e/top_*.py)
PKGS="$PKGS tmux"
# tests: make check-loaded runs the suite beside stress-ng --cpu 2
PKGS="$PKGS stress-ng"
# tests: gpumon plot's SVG (xmllint) and PDF (pdfinfo, pdftotext) checked by real tools
PKGS="$PKGS libxml2-utils poppler-utils"
# tests: the agent's live page in a real headless browser (tests/e2e/live_page.py),
# and the README's screenshots of it (scripts/live-img.sh)
# tests: the HTML report in a real headless browser (tests/e2e/report_html.py;
# skipped, exit 77, without it) and its picture (scripts/report-html-img.sh)
PKGS="$PKGS chromium"
# tests: the manual pages rendered (groff -ww, man -l), the zsh and fish completions
PKGS="$PKGS groff-base man-db zsh fish"
# tests: the Debian packages (tests/pkg/deb.sh: dpkg-buildpackage, lintian), the
# container image (tests/pkg/container.sh: buildah, rootful podman with runc,
# curl) and the Kubernetes manifests (tests/pkg/k8s.py: python3-yaml)
PKGS="$PKGS debhelper dpkg-dev lintian buildah podman runc python3-yaml"
# lint
PKGS="$PKGS clang-format clang-tidy cppcheck"
# benchmarks (make bench)
PKGS="$PKGS valgrind hyperfine strace"
# fuzzing (make fuzz, and the short run in make check): clang with libFuzzer's runtime
PKGS="$PKGS clang libclang-rt-14-dev"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi
if [ "${1:-}" = "--check" ]; then
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

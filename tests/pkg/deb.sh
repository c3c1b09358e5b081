#!/bin/sh
# deb.sh -- the Debian packages end to end: builds gpumon and gpumon-sim with
# `dpkg-buildpackage -b -us -uc` from a copy of this checkout (in a temporary
# directory outside the tree, no network), checks that gpumon's Depends name
# no heavy library (cairo, curl, microhttpd, GnuTLS, ncurses: they are
# gpumon-extras', which gpumon recommends), runs lintian, installs gpumon and
# gpumon-sim without recommends, runs `gpumon --version` and `gpumon --sim
# ... status`, checks that the exporter's missing module is named with its
# library and package, installs gpumon-extras, starts the
# agent as the installed unit would (its User=, ExecStart=, directories and
# umask; the simulator through GPUMON_NVML_LIB) for a few seconds in a private
# network namespace (port 9842 of the host stays free), scrapes /metrics, then
# purges twice: plainly (the data and the user stay) and, after reinstalling,
# with GPUMON_PURGE_DATA=1 (nothing is left).
#
# Needs root, dpkg-dev, debhelper, lintian, curl and unshare; exits 77 (skip)
# with the reason when any is missing, or when the package gpumon or a user
# gpumon is already on this machine (the test would remove them).  When
# /var/lib/gpumon or /var/log/gpumon exist (an agent run as root here
# leaves them), it runs itself under tests/pkg/isolated.sh instead: /etc,
# /usr and /var as throw-away overlays in a private mount namespace, where
# they are hidden, not deleted.  Used by scripts/check.sh (make check) when
# run as root.  Environment: JOBS (parallel build jobs, default 2),
# GPUMON_PKG_KEEP=1 keeps the temporary directory, GPUMON_PKG_OUT=DIR copies
# the built .deb files into DIR (for tests/pkg/container.sh).
set -eu

skip() { echo "deb.sh: SKIP: $*"; exit 77; }
fail() { echo "deb.sh: FAIL: $*" >&2; exit 1; }
ok() { echo "deb.sh: ok: $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (it installs and purges packages)"
for t in dpkg-buildpackage dh lintian apt-get curl unshare setpriv ip; do
    command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (scripts/install-deps.sh)"
done
for p in gpumon gpumon-sim gpumon-extras; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
        skip "package $p is already installed here; the test would purge it"
    fi
done
getent passwd gpumon >/dev/null && skip "a user gpumon exists already; the test would delete it"
for d in /var/lib/gpumon /var/log/gpumon; do
    # e.g. an agent run as root on this machine (its default data directory):
    # the test would delete it, so it runs where it cannot
    [ -e "$d" ] || continue
    [ "${GPUMON_DEB_ISOLATED:-0}" != 1 ] || fail "$d is still there under isolated.sh"
    echo "deb.sh: $d exists here: running under tests/pkg/isolated.sh (throw-away /etc, /usr, /var)"
    GPUMON_DEB_ISOLATED=1 exec sh "$(dirname "$0")/isolated.sh" sh "$0" "$@"
done

src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gpumon-deb.XXXXXX)
agent_pid=""
cleanup() {
    [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
    if dpkg-query -W -f='${Status}' gpumon 2>/dev/null | grep -q installed ||
        dpkg-query -W -f='${Status}' gpumon-sim 2>/dev/null | grep -q installed ||
        dpkg-query -W -f='${Status}' gpumon-extras 2>/dev/null | grep -q installed; then
        GPUMON_PURGE_DATA=1 apt-get purge -y -q gpumon gpumon-sim gpumon-extras >/dev/null 2>&1 || true
    fi
    if [ "${GPUMON_PKG_KEEP:-0}" = 1 ]; then echo "deb.sh: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

start=$(date +%s)
# ---- build ------------------------------------------------------------------
mkdir "$tmp/src"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./debian/tmp \
    --exclude=./debian/.debhelper --exclude=./debian/gpumon --exclude=./debian/gpumon-sim \
    --exclude=./debian/gpumon-extras \
    --exclude=./debian/files --exclude='./debian/*.substvars' --exclude=./.gl --exclude=./.whl \
    -cf - . | tar -C "$tmp/src" -xf -
if ! (cd "$tmp/src" && DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-2}" \
        nice dpkg-buildpackage -b -us -uc >"$tmp/build.log" 2>&1); then
    tail -40 "$tmp/build.log" >&2
    fail "dpkg-buildpackage failed (log above)"
fi
deb=$(ls "$tmp"/gpumon_*.deb)
simdeb=$(ls "$tmp"/gpumon-sim_*.deb)
# a headless node's agent: gpumon depends on no library that only plot (cairo),
# top (ncurses), webhooks (curl) or the exporter (microhttpd, GnuTLS) use
deps=$(dpkg-deb -f "$deb" Depends)
for heavy in cairo curl microhttpd gnutls ncurses; do
    case "$deps" in *"$heavy"*) fail "gpumon's Depends names $heavy (it belongs to gpumon-extras): $deps" ;; esac
done
extdeb=$(ls "$tmp"/gpumon-extras_*.deb 2>/dev/null) || fail "no gpumon-extras package was built"
dpkg-deb -f "$deb" Recommends | grep -q 'gpumon-extras (= ' ||
    fail "gpumon does not recommend gpumon-extras of its version: $(dpkg-deb -f "$deb" Recommends)"
ok "gpumon Depends: $deps; Recommends: $(dpkg-deb -f "$deb" Recommends)"
# python3-gpumon: the module where Debian's python3 finds it, importable
pydeb=$(ls "$tmp"/python3-gpumon_*_all.deb) && dpkg-deb -x "$pydeb" "$tmp/py"
got=$(cd / && PYTHONPATH="$tmp/py/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
    'import gpumon.client, gpumon.lightning, gpumon.keras; print(gpumon.__file__)') || fail "python3-gpumon: no import"
[ "$got" = "$tmp/py/usr/lib/python3/dist-packages/gpumon/__init__.py" ] || fail "python3-gpumon: gpumon from $got"
ok "python3-gpumon: gpumon imports from the package's files"
version=$(dpkg-deb -f "$deb" Version)
ok "built $(basename "$deb") $(basename "$simdeb") $(basename "$extdeb") in $(($(date +%s) - start)) s"
if [ -n "${GPUMON_PKG_OUT:-}" ]; then
    mkdir -p "$GPUMON_PKG_OUT"
    rm -f "$GPUMON_PKG_OUT"/gpumon_*.deb "$GPUMON_PKG_OUT"/gpumon-sim_*.deb \
        "$GPUMON_PKG_OUT"/gpumon-extras_*.deb
    cp "$deb" "$simdeb" "$extdeb" "$GPUMON_PKG_OUT/"
fi

# lintian: any tag fails, info and pedantic ones included; the accepted ones
# are in debian/*.lintian-overrides, each with its reason
lintian --fail-on error,warning,info,pedantic --display-info --pedantic \
    "$tmp"/gpumon_*.changes >"$tmp/lintian.log" 2>&1 || {
    cat "$tmp/lintian.log" >&2
    fail "lintian (tags above)"
}
ok "lintian: no tag (--pedantic --display-info) but the $(cat "$src"/debian/*.lintian-overrides | grep -c '^[a-z]') overridden in debian/*.lintian-overrides"

# ---- install ----------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" "$simdeb" \
    >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "apt-get install"; }
ok "installed gpumon and gpumon-sim without recommends"

got=$(gpumon --version)
[ "$got" = "gpumon $version" ] || fail "gpumon --version: '$got', the package is $version"
ok "gpumon --version: $got"

scen=/usr/share/gpumon-sim/scenarios/h100x8-training.ini
gpumon --sim "$scen" status >"$tmp/status.out" 2>"$tmp/status.err" ||
    { cat "$tmp/status.err" >&2; fail "gpumon --sim $scen status exited $?"; }
n=$(grep -c 'H100' "$tmp/status.out" || true)
[ "$n" -eq 8 ] || { cat "$tmp/status.out"; fail "status shows $n H100 lines, want 8"; }
ok "gpumon --sim $scen status: 8 GPUs"

# without gpumon-extras the exporter's module is missing: the agent says which
# file, which library and which package, and exits non-zero
if gpumon --sim "$scen" agent --no-config --data-dir "$tmp/noext" --listen 127.0.0.1:9 \
    >"$tmp/noext.out" 2>"$tmp/noext.err"; then
    fail "the agent with --listen ran without gpumon-extras"
fi
grep -q 'cannot load the exporter module: .*gpumon_export.so: cannot open shared object file' "$tmp/noext.err" &&
    grep -q 'it needs gpumon_export.so and libmicrohttpd.so.12 (Debian and Ubuntu: apt install gpumon-extras' \
        "$tmp/noext.err" || { cat "$tmp/noext.err" >&2; fail "the missing exporter module's message"; }
ok "without gpumon-extras: $(head -1 "$tmp/noext.err")"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$extdeb" \
    >"$tmp/install-ext.log" 2>&1 || { cat "$tmp/install-ext.log" >&2; fail "apt-get install gpumon-extras"; }
dpkg-query -L gpumon gpumon-sim gpumon-extras | sort -u >"$tmp/files"
ok "installed gpumon-extras ($(wc -l <"$tmp/files") paths in the three packages)"

# the user, its directories, the conffile, the unit installed but not enabled
uid=$(getent passwd gpumon | cut -d: -f3)
[ -n "$uid" ] && [ "$uid" -lt 1000 ] || fail "no system user gpumon (uid '$uid')"
for d in /var/lib/gpumon /var/log/gpumon; do
    st=$(stat -c '%U:%G %a' "$d") || fail "$d missing"
    [ "$st" = "gpumon:gpumon 750" ] || fail "$d is $st, want gpumon:gpumon 750"
done
dpkg-query -W -f='${Conffiles}\n' gpumon | grep -q '^ /etc/gpumon/gpumon.conf ' ||
    fail "/etc/gpumon/gpumon.conf is not a conffile"
unit=/lib/systemd/system/gpumon.service
[ -f "$unit" ] || fail "$unit missing"
[ ! -e /etc/systemd/system/multi-user.target.wants/gpumon.service ] || fail "the unit was enabled"
ok "user gpumon (uid $uid), /var/lib/gpumon and /var/log/gpumon 750, conffile, unit not enabled"

# ---- the agent as the unit runs it --------------------------------------------
unitval() { sed -n "s/^$1=//p" "$unit" | tail -1; }
user=$(unitval User); group=$(unitval Group); exec_start=$(unitval ExecStart)
umask_=$(unitval UMask)
[ "$user" = gpumon ] && [ "$group" = gpumon ] || fail "unit runs as '$user:$group'"
[ "$(unitval StateDirectory)" = gpumon ] && [ "$(unitval LogsDirectory)" = gpumon ] &&
    [ "$(unitval ConfigurationDirectory)" = gpumon ] || fail "unit's directories changed; update this test"
simlib=$(grep '/libnvidia-ml.so.1$' "$tmp/files")
[ -f "$simlib" ] || fail "gpumon-sim has no libnvidia-ml.so.1"
cat >"$tmp/agent.sh" <<EOF
set -eu
ip link set lo up
cd /
umask $umask_
env -i PATH=/usr/bin:/bin STATE_DIRECTORY=/var/lib/gpumon LOGS_DIRECTORY=/var/log/gpumon \
    CONFIGURATION_DIRECTORY=/etc/gpumon GPUMON_NVML_LIB=$simlib GPUSIM_SCENARIO=$scen \
    setpriv --reuid $user --regid $group --init-groups --no-new-privs -- $exec_start \
    >$tmp/agent.out 2>$tmp/agent.err &
pid=\$!
i=0
until curl -sf http://127.0.0.1:9842/metrics >$tmp/metrics 2>/dev/null; do
    i=\$((i + 1)); [ \$i -lt 100 ] || { kill \$pid; echo "no /metrics after 10 s" >&2; exit 1; }
    kill -0 \$pid 2>/dev/null || { echo "the agent exited" >&2; exit 1; }
    sleep 0.1
done
sleep 3
curl -sf http://127.0.0.1:9842/metrics >$tmp/metrics
kill -TERM \$pid
wait \$pid
EOF
unshare --net sh "$tmp/agent.sh" || { cat "$tmp/agent.err" >&2; fail "the agent under the unit's settings"; }
n=$(grep -c '^gpumon_gpu_utilization_ratio{.*gpu="[0-7]"' "$tmp/metrics" || true)
[ "$n" -eq 8 ] || { head -30 "$tmp/metrics"; fail "/metrics has $n GPU utilization series, want 8"; }
st=$(stat -c '%U' /var/lib/gpumon/gpumon.db 2>/dev/null) || fail "no store in /var/lib/gpumon"
[ "$st" = gpumon ] || fail "the store belongs to $st"
ls /var/log/gpumon/*.csv >/dev/null 2>&1 || fail "no CSV log in /var/log/gpumon: $(ls -la /var/log/gpumon)"
ok "agent as gpumon with the unit's ExecStart: /metrics with 8 GPUs, store and CSV log written"

# ---- purge without and with the data --------------------------------------------
gone() { # every file of the list is gone, and every directory no other package owns
    while read -r f; do
        if [ -d "$f" ]; then
            [ "$f" = /. ] && continue
            # the system's link, merged /usr (/lib -> usr/lib)
            [ -L "$f" ] && continue
            dpkg-query -S "$f" >/dev/null 2>&1 && continue # shared (/usr/share/man, ...)
        fi
        [ ! -e "$f" ] && [ ! -L "$f" ] || fail "$1: $f is left"
    done <"$tmp/files"
    for d in /usr/lib/*/gpumon /etc/gpumon /usr/share/gpumon /usr/share/gpumon-sim; do
        [ ! -e "$d" ] || fail "$1: $d is left"
    done
    ! ls /var/lib/systemd/deb-systemd-helper-*/*gpumon* >/dev/null 2>&1 ||
        fail "$1: deb-systemd-helper state left"
    ! dpkg-query -W -f='${Status}' gpumon gpumon-sim gpumon-extras 2>/dev/null | grep -q 'installed\|config-files' ||
        fail "$1: dpkg still knows the packages"
}
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q gpumon gpumon-sim gpumon-extras >"$tmp/purge.log" 2>&1 ||
    { cat "$tmp/purge.log" >&2; fail "apt-get purge"; }
gone "purge"
[ -f /var/lib/gpumon/gpumon.db ] || fail "plain purge removed the store"
getent passwd gpumon >/dev/null || fail "plain purge removed the user that owns the data"
grep -q 'GPUMON_PURGE_DATA=1' "$tmp/purge.log" || fail "plain purge did not say how to remove the data"
ok "plain purge: every packaged file gone; the data and the user kept, and it says so"

dpkg -i "$deb" "$simdeb" "$extdeb" >"$tmp/install2.log" 2>&1 || { cat "$tmp/install2.log" >&2; fail "reinstall"; }
[ "$(getent passwd gpumon | cut -d: -f3)" = "$uid" ] || fail "reinstall changed the user"
GPUMON_PURGE_DATA=1 DEBIAN_FRONTEND=noninteractive apt-get purge -y -q gpumon gpumon-sim gpumon-extras \
    >"$tmp/purge2.log" 2>&1 || { cat "$tmp/purge2.log" >&2; fail "GPUMON_PURGE_DATA=1 apt-get purge"; }
gone "purge with GPUMON_PURGE_DATA=1"
for d in /var/lib/gpumon /var/log/gpumon; do [ ! -e "$d" ] || fail "$d left after purging the data"; done
! getent passwd gpumon >/dev/null || fail "the user gpumon is left"
! getent group gpumon >/dev/null || fail "the group gpumon is left"
ok "GPUMON_PURGE_DATA=1 purge: nothing left (files, directories, user, group)"
echo "deb.sh: passed in $(($(date +%s) - start)) s"

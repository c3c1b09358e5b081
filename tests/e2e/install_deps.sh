#!/bin/sh
# scripts/install-deps.sh's lists: `make` and `make demo` install only what
# gpumon builds and the demo runs (--demo), `make check` adds the test tools
# (--test), .ci/run installs everything (and runs make check-dist).  Checked here:
#   * --demo is part of --test, which is part of the whole list, no name twice;
#   * the test-only tools that the issue found `make demo` installing
#     (prometheus, alertmanager, chromium, podman, buildah, lintian, clang,
#     valgrind, zsh, fish, ...) are not in --demo;
#   * every library meson.build asks for comes from a package --demo names
#     (its .pc file's owner, by dpkg -S), so the demo's build finds it;
#   * the callers ask for the right list (Makefile, demo.sh, .ci/run);
#   * .ci/run runs make check-dist after make check, with DIST_STRICT=1
#     (a chroot that cannot be made fails CI) and the chroots made beside it;
#   * an unknown flag is a usage error (2), not "install everything".
#
# Environment from meson: SOURCE_ROOT.
set -eu
cd "$SOURCE_ROOT"
fail() { echo "FAIL: $*"; exit 1; }

demo=$(sh scripts/install-deps.sh --demo --list)
test=$(sh scripts/install-deps.sh --test --list)
all=$(sh scripts/install-deps.sh --list)
[ -n "$demo" ] || fail "--demo --list is empty"

in_list() { # word list
    printf '%s\n' "$2" | grep -qx -- "$1"
}
for p in $demo; do in_list "$p" "$test" || fail "$p is in --demo but not in --test"; done
for p in $test; do in_list "$p" "$all" || fail "$p is in --test but not in the whole list"; done
dups=$(printf '%s\n' "$all" | sort | uniq -d)
[ -z "$dups" ] || fail "named twice: $dups"

for p in prometheus prometheus-node-exporter prometheus-alertmanager chromium podman buildah \
    runc lintian debhelper clang libclang-rt-14-dev clang-format clang-tidy cppcheck valgrind \
    hyperfine strace zsh fish tmux wrk apache2-utils poppler-utils libxml2-utils mmdebstrap \
    qemu-user-static; do
    in_list "$p" "$all" || fail "$p is not in any list"
    in_list "$p" "$demo" && fail "$p (test or development only) is in --demo"
done

# every dependency('NAME') of meson.build, threads aside, from a --demo package
if command -v pkg-config >/dev/null && command -v dpkg >/dev/null; then
    for dep in $(sed -n "s/.*dependency('\([^']*\)'.*/\1/p" meson.build | sort -u); do
        [ "$dep" = threads ] && continue
        dir=$(pkg-config --variable=pcfiledir "$dep" 2>/dev/null) ||
            fail "pkg-config does not know $dep (meson.build)"
        owner=$(dpkg -S "$dir/$dep.pc" 2>/dev/null | sed 's/:.*//' | head -1)
        [ -n "$owner" ] || fail "no package owns $dir/$dep.pc"
        in_list "$owner" "$demo" || fail "$dep comes from $owner, which --demo does not install"
    done
fi

grep -q '^	@scripts/install-deps.sh --demo --check .*|| scripts/install-deps.sh --demo$' Makefile ||
    fail "the Makefile's build step does not install --demo"
grep -A1 '^check:' Makefile | grep -q 'install-deps.sh --test' ||
    fail "make check does not install --test"
grep -q 'scripts/install-deps.sh --demo$' scripts/demo.sh || fail "demo.sh does not install --demo"
grep -qx 'scripts/install-deps.sh' .ci/run || fail ".ci/run does not install every list"
grep -q '^export .*DIST_STRICT=1' .ci/run || fail ".ci/run does not export DIST_STRICT=1"
awk '/^make check \|\|/ { c = NR } /^make check-dist/ { d = NR } /dist-check.sh --prepare/ { p = NR }
    END { exit !(c && d && p && p < c && c < d) }' .ci/run ||
    fail ".ci/run: not the chroots prepared before make check, then make check-dist after it"

set +e
sh scripts/install-deps.sh --everything >/dev/null 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || fail "an unknown flag: exit $rc, want 2"
echo "ok: demo $(echo $demo | wc -w), test $(echo $test | wc -w), all $(echo $all | wc -w) packages"

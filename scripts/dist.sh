#!/bin/sh
# dist.sh -- the release tarball (`make dist`): gpumon-VERSION-linux-x86_64.tar.gz
# in dist/, built inside a Debian 11 (bullseye) chroot so that its glibc
# floor is 2.31 (Ubuntu 20.04's).  It holds the binary, the simulator, the
# modules, the man pages and completions, the systemd unit, the Prometheus
# rules, the Grafana dashboard, libgpumon, and install.sh (scripts/dist-install.sh:
# --prefix, --uninstall).
#
#   scripts/dist.sh [OUTDIR]         (root: mmdebstrap and chroot)
#   ARCH=aarch64 scripts/dist.sh     the arm64 tarball: cross-built (gcc-aarch64-linux-gnu
#                                    and the arm64 -dev packages, multiarch);
#                                    qemu-aarch64-static runs the built gpumon for the
#                                    man pages and completions
#   scripts/dist.sh --prepare        only make the chroot when it is missing (.ci/run
#                                    starts it beside make check)
#   DIST_STRICT=1 (CI)               what would be skipped fails instead (exit 1): no
#                                    mirror, no mmdebstrap, no qemu-aarch64-static
#
# One chroot builds both: bullseye with amd64 and arm64 (--variant=apt:
# the essential packages and apt, then only what the build needs -- gcc,
# libc6-dev, ninja, pkg-config, python3 and the -dev packages of both
# architectures, not build-essential's g++ and dpkg-dev; dpkg without
# fsync, --dpkgopt=force-unsafe-io: the chroot is rebuilt, not repaired).
# It is made once with mmdebstrap (Debian's mirror, MIRROR) and kept
# in CACHE (default /var/cache/gpumon-dist, outside the tree) with a stamp of
# its package list; it is remade when the list changes.  Each run copies the
# checkout (without .git and build directories) into it, builds with the
# host's meson (bullseye's 0.56 is older than meson.build's floor, 1.0; meson
# is pure Python and bullseye's python3.9 runs it), release build type,
# inih static (-Dstatic_deps: its soname differs between distributions;
# libcrypt.a is not position-independent, so libcrypt.so.1 stays dynamic in
# the exporter module: RHEL 9 has it in libxcrypt-compat), warnings not
# fatal but for an implicit declaration or an int-to-pointer conversion (a
# function newer than bullseye's libraries; bullseye's gcc 10 at -O3 warns
# -Wformat-truncation where a bounded snprintf is meant to truncate; the
# main build, gcc 12 -Werror, checks warnings; their count is printed), then stages `meson install`
# under /usr/local and packs it.  Every other library stays dynamic with a
# soname that is the same on Debian 11-13, Ubuntu 20.04-24.04 and RHEL 9
# (libc, libz, libsqlite3, and in the modules only: libmicrohttpd.so.12,
# libgnutls.so.30, libyaml-0.so.2, libcrypt.so.1, libcurl.so.4, libcairo.so.2,
# libncursesw.so.6).  The check at the end prints, for each ELF file, the
# highest GLIBC_ symbol version it needs and fails above 2.31, and fails when
# a file needs libinih.
#
# Heavy steps run under nice -n 19 (a shared machine).  Exit 0 built, 1
# failed, 77 cannot build here (not root, no mmdebstrap, no mirror).
set -eu

die() { echo "dist.sh: error: $*" >&2; exit 1; }
skip() {
    [ "${DIST_STRICT:-0}" = 0 ] || die "$* (DIST_STRICT=1: not skipped)"
    echo "dist.sh: SKIP: $*"
    exit 77
}
say() { echo "dist.sh: $*"; }

src=$(cd "$(dirname "$0")/.." && pwd)
prepare=0
if [ "${1:-}" = --prepare ]; then
    prepare=1
    shift
fi
out=${1:-$src/dist}
cache=${CACHE:-/var/cache/gpumon-dist}
mirror=${MIRROR:-http://deb.debian.org/debian}
arch=${ARCH:-x86_64}
suite=bullseye
glibc_floor=2.31
# the build chroot's packages, for both architectures (Build-Depends less
# debhelper and cmocka: the tarball is built without the unit tests, which
# `make check` runs, and make check-arm64 for aarch64; a C compiler, not
# build-essential)
libs="libinih-dev zlib1g-dev libsqlite3-dev libyaml-dev libcrypt-dev libgnutls28-dev"
libs="$libs libmicrohttpd-dev libncurses-dev libcairo2-dev libcurl4-openssl-dev"
pkgs=gcc,libc6-dev,ninja-build,pkg-config,python3,gcc-aarch64-linux-gnu,libc6-dev:arm64
# the unit tests for aarch64 (scripts/check-arm64.sh, make check-arm64)
pkgs=$pkgs,libcmocka-dev:arm64
for p in $libs; do
    pkgs=$pkgs,$p,$p:arm64
done
root=$cache/$suite-build
case $arch in
x86_64 | aarch64) ;;
*) die "ARCH=$arch: x86_64 or aarch64" ;;
esac

[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap and chroot)"
for t in mmdebstrap unshare chroot; do
    command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$src/meson.build")
[ -n "$version" ] || die "no version in $src/meson.build"
# the python that runs the host's meson (its #! line), not whatever python3 PATH finds
meson_py=$(sed -n '1s/^#! *//p' "$(command -v meson)" 2>/dev/null | cut -d' ' -f1)
meson_dir=$(${meson_py:-python3} -c 'import mesonbuild, os; print(os.path.dirname(mesonbuild.__file__))') ||
    skip "the host's meson (python3 mesonbuild) is not installed"

# ---- the chroot, cached ------------------------------------------------------
stamp="$suite $pkgs"
mkdir -p "$cache"
if [ "$(cat "$root/.gpumon-dist" 2>/dev/null)" != "$stamp" ]; then
    say "making the $suite chroot in $root (once; mmdebstrap from $mirror)"
    rm -rf "$root.tmp" "$root"
    start=$(date +%s)
    nice -n 19 mmdebstrap --variant=apt --architectures=amd64,arm64 --include="$pkgs" \
        --dpkgopt=force-unsafe-io "$suite" "$root.tmp" "$mirror" \
        >"$cache/mmdebstrap-$suite.log" 2>&1 || {
        tail -20 "$cache/mmdebstrap-$suite.log" >&2
        rm -rf "$root.tmp"
        skip "mmdebstrap $suite from $mirror failed (log: $cache/mmdebstrap-$suite.log)"
    }
    printf '%s\n' "$stamp" >"$root.tmp/.gpumon-dist"
    mv "$root.tmp" "$root"
    say "the $suite chroot made in $(($(date +%s) - start)) s"
fi
if [ $prepare -eq 1 ]; then
    say "the $suite chroot is ready in $root"
    exit 0
fi

# ---- build in it -------------------------------------------------------------
work=$root/build/gpumon
. "$src/scripts/chroot-copy.sh"
chroot_copy "$root" "$work" "$src" "$meson_dir"
mkdir -p "$work/stage"
cross=
if [ "$arch" = aarch64 ]; then
    command -v qemu-aarch64-static >/dev/null 2>&1 ||
        skip "qemu-aarch64-static is not installed (qemu-user-static)"
    cp "$(command -v qemu-aarch64-static)" "$root/usr/bin/qemu-aarch64-static"
    cp "$src/scripts/cross-aarch64.ini" "$work/cross.ini"
    cross="--cross-file /build/gpumon/cross.ini"
fi
cat >"$work/build.sh" <<EOF
set -eu
cd /build/gpumon/src
export PATH=/opt/meson:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
[ -z "$cross" ] || export MESON_EXE_WRAPPER=/usr/bin/qemu-aarch64-static
meson setup /build/gpumon/out $cross --prefix=/usr/local --libdir=lib --buildtype=release \
    -Dtests=disabled -Dstatic_deps=inih -Dwerror=false -Dstrip=true \
    "-Dc_args=['-Werror=implicit-function-declaration','-Werror=int-conversion']" \
    >/build/gpumon/setup.log
ninja -C /build/gpumon/out >/build/gpumon/ninja.log
DESTDIR=/build/gpumon/stage meson install -C /build/gpumon/out --no-rebuild >/build/gpumon/install.log
EOF
start=$(date +%s)
say "building gpumon $version in the $suite chroot"
if ! nice -n 19 unshare --mount --fork sh -c \
    'mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh /build/gpumon/build.sh' sh "$root" \
    >"$work/chroot.log" 2>&1; then
    for f in chroot setup ninja install; do
        [ -s "$work/$f.log" ] && { echo "--- $f.log" >&2; tail -30 "$work/$f.log" >&2; }
    done
    die "the build in the $suite chroot failed (logs above, in $work)"
fi
cc=gcc
[ "$arch" = x86_64 ] || cc=aarch64-linux-gnu-gcc
say "built in $(($(date +%s) - start)) s; $cc $(chroot "$root" $cc -dumpfullversion) warnings: $(grep -c 'warning:' "$work/ninja.log" || true) (in $work/ninja.log)"

# ---- check: glibc floor, static inih ----------------------------------------
stage=$work/stage/usr/local
bad=0
for f in $(find "$stage" -type f | sort); do
    head -c 4 "$f" | grep -q 'ELF' || continue
    # the versions it requires (.gnu.version_r; readelf reads any architecture)
    need=$(readelf -W -V "$f" | grep -o 'Name: GLIBC_[0-9][0-9.]*' | sed 's/.*GLIBC_//' | sort -uV | tail -1)
    rel=${f#"$stage"/}
    printf 'dist.sh: glibc: %-40s GLIBC_%s\n' "$rel" "${need:-none}"
    if [ -n "$need" ] &&
        [ "$(printf '%s\n%s\n' "$need" "$glibc_floor" | sort -V | tail -1)" != "$glibc_floor" ]; then
        echo "dist.sh: error: $rel needs GLIBC_$need, above the floor $glibc_floor" >&2
        bad=1
    fi
    if readelf -W -d "$f" | grep -E 'NEEDED.*libinih\.' >&2; then
        echo "dist.sh: error: $rel needs a library that must be static (above)" >&2
        bad=1
    fi
done
[ "$bad" -eq 0 ] || die "the glibc floor or the static libraries (above)"

# ---- the tarball ----------------------------------------------------------------
name=gpumon-$version-linux-$arch
pack=$work/pack/$name
mkdir -p "$pack"
cp -a "$stage" "$pack/files"
cp "$src/debian/copyright" "$pack/files/share/doc/gpumon/copyright"
cp "$src/scripts/dist-install.sh" "$pack/install.sh"
chmod 755 "$pack/install.sh"
cat >"$pack/README" <<EOF
gpumon $version for Linux $arch (glibc $glibc_floor or newer: Debian 11+,
Ubuntu 20.04+, RHEL 9), built in a Debian $suite chroot.

    sudo ./install.sh                  # under /usr/local
    sudo ./install.sh --prefix DIR     # elsewhere (DIR/bin/gpumon)
    sudo ./install.sh --uninstall [--prefix DIR]

gpumon needs libc, zlib and SQLite (libsqlite3.so.0).  Its modules load
only when their command runs: the exporter (agent --listen) needs
libmicrohttpd.so.12, GnuTLS and libyaml, webhooks libcurl.so.4, top
ncurses and plot cairo; a missing one is named when its command runs.
Try it without a GPU: gpumon --sim PREFIX/share/gpumon/scenarios/h100x8-training.ini status
EOF
mkdir -p "$out"
epoch=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
tar -C "$work/pack" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -czf "$out/$name.tar.gz.tmp" "$name"
mv "$out/$name.tar.gz.tmp" "$out/$name.tar.gz"
say "$out/$name.tar.gz ($(du -k "$out/$name.tar.gz" | cut -f1) KiB, $(tar -tzf "$out/$name.tar.gz" | wc -l) entries)"

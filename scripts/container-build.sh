#!/bin/sh
# container-build.sh -- builds the gpumon container image without a registry:
# a root filesystem assembled from the Debian packages (the files they
# install and, found by ldd, the shared libraries those load, taken from
# this Debian 12 machine), then contrib/container/Containerfile (FROM
# scratch) through buildah or podman with the vfs storage driver.
#
#   scripts/container-build.sh DEBDIR [IMAGE]
#
# DEBDIR holds gpumon_*.deb, gpumon-extras_*.deb and gpumon-sim_*.deb
# (dpkg-buildpackage's output, e.g. tests/pkg/deb.sh with GPUMON_PKG_OUT).  IMAGE defaults to
# localhost/gpumon:VERSION (the package's version).  GPUMON_ROOTFS=DIR only
# assembles the root filesystem into DIR and builds nothing.  Left out of the
# image: gpumon top and gpumon plot (their modules need a terminal database
# and fonts; run them on the host) -- docs/install.md.
set -eu

die() { echo "container-build.sh: error: $*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/container-build.sh DEBDIR [IMAGE]"
debdir=$1
src=$(cd "$(dirname "$0")/.." && pwd)
set -- "$debdir"/gpumon_*.deb
[ -f "$1" ] || die "no gpumon_*.deb in $debdir"
deb=$1
set -- "$debdir"/gpumon-sim_*.deb
[ -f "$1" ] || die "no gpumon-sim_*.deb in $debdir"
simdeb=$1
version=$(dpkg-deb -f "$deb" Version)
image=${2:-localhost/gpumon:$version}
uid=65532 # the image's gpumon user (contrib/container/Containerfile's USER)

tmp=$(mktemp -d /tmp/gpumon-image.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/pkg"
dpkg-deb -x "$simdeb" "$tmp/pkg"
# the exporter's and the notifier's modules are gpumon-extras' (debian/control)
set -- "$debdir"/gpumon-extras_*.deb
[ -f "$1" ] || die "no gpumon-extras_*.deb in $debdir"
dpkg-deb -x "$1" "$tmp/pkg"
ctx=$tmp/ctx
root=${GPUMON_ROOTFS:-$ctx/rootfs}
mkdir -p "$root"

# the files of the packages the agent uses (not top's and plot's modules)
moddir=$(cd "$tmp/pkg" && echo usr/lib/*/gpumon)
[ -d "$tmp/pkg/$moddir" ] || die "no module directory in $deb"
add() { # path inside the package tree
    mkdir -p "$root/$(dirname "$1")"
    cp -a "$tmp/pkg/$1" "$root/$1"
}
add usr/bin/gpumon
add "$moddir/gpumon_export.so"
add "$moddir/gpumon_notify.so"
add "$moddir/libnvidia-ml.so.1"
add usr/share/gpumon-sim
add etc/gpumon/gpumon.conf
add usr/share/doc/gpumon/copyright

# their shared libraries, resolved on this machine (the packages' target):
# the file a soname points to, copied under the soname's path
libs() {
    LD_LIBRARY_PATH='' ldd "$1" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
}
for f in usr/bin/gpumon "$moddir/gpumon_export.so" "$moddir/gpumon_notify.so" \
    "$moddir/libnvidia-ml.so.1"; do
    # the modules' core references resolve against the binary: not ldd's business
    libs "$tmp/pkg/$f" || die "ldd $f failed"
done | sort -u >"$tmp/libs"
[ -s "$tmp/libs" ] || die "ldd found no libraries"
while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done <"$tmp/libs"
# the loader by the path in the binary's PT_INTERP (/lib64/ld-linux-x86-64.so.2)
interp=$(readelf -l "$tmp/pkg/usr/bin/gpumon" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
[ -n "$interp" ] || die "no interpreter in gpumon"
mkdir -p "$root$(dirname "$interp")"
cp -L "$interp" "$root$interp"
# the CA bundle for webhooks and Alertmanager over HTTPS, if this machine has one
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$root/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi

# users, a writable data directory, /tmp
# (the data directory goes in by its own COPY --chown: COPY makes everything
# else root's)
mkdir -p "$root/etc" "$root/var/lib" "$root/tmp" "$root/proc" "$root/dev" "$root/sys"
mkdir -p "$ctx/state/gpumon"
chmod 0750 "$ctx/state/gpumon"
printf 'root:x:0:0:root:/root:/nonexistent\ngpumon:x:%s:%s:gpumon:/var/lib/gpumon:/nonexistent\n' \
    "$uid" "$uid" >"$root/etc/passwd"
printf 'root:x:0:\ngpumon:x:%s:\n' "$uid" >"$root/etc/group"
chmod 1777 "$root/tmp"

echo "container-build.sh: root filesystem: $(du -sh "$root" | cut -f1), $(wc -l <"$tmp/libs") libraries"
if [ -n "${GPUMON_ROOTFS:-}" ]; then
    trap - EXIT
    rm -rf "$tmp"
    exit 0
fi

cp "$src/contrib/container/Containerfile" "$ctx/Containerfile"
if command -v buildah >/dev/null 2>&1; then
    buildah --storage-driver vfs bud --quiet -f "$ctx/Containerfile" -t "$image" "$ctx" >/dev/null
elif command -v podman >/dev/null 2>&1; then
    podman --storage-driver vfs build --quiet -f "$ctx/Containerfile" -t "$image" "$ctx" >/dev/null
else
    die "neither buildah nor podman is installed (apt-get install buildah podman)"
fi
echo "container-build.sh: built $image"

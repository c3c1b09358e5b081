#!/bin/sh
# dist-rpm.sh -- the RPMs (gpumon, gpumon-extras, gpumon-sim) of each release
# tarball in DISTDIR (make dist), with rpmbuild from contrib/rpm/gpumon.spec,
# into DISTDIR/rpm/, then rpmlint on them: an error fails; the warnings
# are printed (docs/install.md explains the ones it gives).
#
#   scripts/dist-rpm.sh [DISTDIR]      (DISTDIR default dist/)
#
# rpmbuild runs with --nodeps: the host is Debian, whose rpm database does
# not know the build host's packages (the spec builds nothing anyway).
# Exit 0 built and no rpmlint error, 1 failed, 77 rpmbuild, rpmlint or the
# tarballs missing.
set -eu

say() { echo "dist-rpm.sh: $*"; }
die() { echo "dist-rpm.sh: error: $*" >&2; exit 1; }

src=$(cd "$(dirname "$0")/.." && pwd)
distdir=${1:-$src/dist}
[ -d "$distdir" ] || { say "SKIP: no directory $distdir (make dist)"; exit 77; }
distdir=$(cd "$distdir" && pwd) # rpmbuild's _sourcedir must be absolute
for t in rpmbuild rpmlint; do
    command -v "$t" >/dev/null 2>&1 || { say "SKIP: $t is not installed (apt-get install rpm rpmlint)"; exit 77; }
done
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$src/meson.build")
spec_version=$(sed -n 's/^Version: *//p' "$src/contrib/rpm/gpumon.spec")
[ "$version" = "$spec_version" ] || die "contrib/rpm/gpumon.spec's Version $spec_version is not meson.build's $version"

tmp=$(mktemp -d /tmp/gpumon-rpm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$distdir/rpm"
built=0
for arch in x86_64 aarch64; do
    tarball=$distdir/gpumon-$version-linux-$arch.tar.gz
    if [ ! -f "$tarball" ]; then
        say "no $tarball: $arch skipped"
        continue
    fi
    if ! rpmbuild -bb --nodeps --target "$arch" --define "_topdir $tmp/$arch" \
        --define "_sourcedir $distdir" --define "_rpmdir $distdir/rpm" \
        "$src/contrib/rpm/gpumon.spec" >"$tmp/rpmbuild-$arch.log" 2>&1; then
        tail -30 "$tmp/rpmbuild-$arch.log" >&2
        die "rpmbuild for $arch failed (above)"
    fi
    built=$((built + 1))
done
[ $built -gt 0 ] || { say "SKIP: no tarball in $distdir (make dist)"; exit 77; }
rpms=$(find "$distdir/rpm" -name "gpumon*-$version-*.rpm" | sort)
for r in $rpms; do
    say "built $(basename "$r"): $(rpm -qp --requires "$r" 2>/dev/null | grep -v '^rpmlib\|^/bin/sh' | tr '\n' ' ')"
done
# shellcheck disable=SC2086 # the list is words
if rpmlint -c "$src/contrib/rpm/rpmlint.toml" $rpms >"$tmp/rpmlint.log" 2>&1; then rc=0; else rc=$?; fi
sed 's/^/dist-rpm.sh: rpmlint: /' "$tmp/rpmlint.log"
[ $rc -eq 0 ] || die "rpmlint found errors (above)"
say "rpmlint: no error"

#!/bin/sh
# isolated.sh -- runs a command (tests/pkg/deb.sh) with /etc, /usr and /var
# as throw-away overlays in a private mount namespace, so that installing
# and purging packages, creating and deleting the user gpumon, and
# /var/lib/gpumon and /var/log/gpumon touch nothing of the machine: for a
# shared developer machine where others run gpumon; deb.sh runs itself under
# it when those directories exist.  Otherwise CI runs deb.sh directly
# (a real install is the point there).  Needs root and overlayfs.
#
#   sudo tests/pkg/isolated.sh tests/pkg/deb.sh
set -eu
[ $# -ge 1 ] || { echo "usage: tests/pkg/isolated.sh COMMAND [ARG...]" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "isolated.sh: SKIP: needs root"; exit 77; }
o=$(mktemp -d /tmp/gpumon-ovl.XXXXXX)
rc=0
unshare -m sh -eu -c '
o=$1; shift
mount --make-rprivate /
for d in etc usr var; do
    mkdir -p "$o/$d/upper" "$o/$d/work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$o/$d/upper,workdir=$o/$d/work" "/$d"
done
# hidden in the overlay only (whiteouts), the real ones stay
rm -rf /var/lib/gpumon /var/log/gpumon
exec "$@"
' sh "$o" "$@" || rc=$?
rm -rf "$o"
exit $rc

#!/bin/sh
# scripts/install-generated.sh as `meson install` runs it (a DESTDIR prefix in
# MESON_INSTALL_DESTDIR_PREFIX, directories relative to it, or absolute with
# DESTDIR): every page and the three completions land in their standard
# places, non-empty.   install_generated.sh GPUMON SOURCE_ROOT
set -u
gpumon=$1; root=$2
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
fail=0
MESON_INSTALL_DESTDIR_PREFIX=$tmpd/rel/usr MESON_INSTALL_QUIET=1 \
    sh "$root/scripts/install-generated.sh" "$gpumon" share/man share ||
    { echo "FAIL: install-generated.sh (relative directories)"; exit 1; }
DESTDIR=$tmpd/abs MESON_INSTALL_DESTDIR_PREFIX=$tmpd/abs/opt MESON_INSTALL_QUIET=1 \
    sh "$root/scripts/install-generated.sh" "$gpumon" /opt/man /opt/data ||
    { echo "FAIL: install-generated.sh (absolute directories)"; exit 1; }
for f in rel/usr/share/bash-completion/completions/gpumon rel/usr/share/zsh/vendor-completions/_gpumon \
    rel/usr/share/fish/vendor_completions.d/gpumon.fish rel/usr/share/man/man5/gpumon.conf.5 \
    abs/opt/data/bash-completion/completions/gpumon abs/opt/man/man5/gpumon.conf.5; do
    [ -s "$tmpd/$f" ] || { echo "FAIL: $f missing or empty"; fail=1; }
done
for p in $("$gpumon" manpage --list); do
    [ -s "$tmpd/rel/usr/share/man/$p" ] || { echo "FAIL: share/man/$p missing"; fail=1; }
done
[ $fail = 0 ] && echo "ok: pages and completions installed"
exit $fail

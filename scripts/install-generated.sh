#!/bin/sh
# install-generated.sh -- run by `meson install` (meson.build): installs what
# the built gpumon generates from its command table, its commands' --help,
# the metric registry and the configuration table (docs/completion.md):
#
#   MANDIR/man1/gpumon-COMMAND.1, MANDIR/man5/gpumon.conf.5
#   DATADIR/bash-completion/completions/gpumon
#   DATADIR/zsh/vendor-completions/_gpumon
#   DATADIR/fish/vendor_completions.d/gpumon.fish
#
# install-generated.sh GPUMON MANDIR DATADIR   (directories as meson gives
# them: relative to the prefix, or absolute; DESTDIR is honoured).  In a
# cross build GPUMON runs through $MESON_EXE_WRAPPER (words, e.g.
# qemu-aarch64-static; scripts/dist.sh sets it for the aarch64 tarball).
set -eu
gpumon=$1; mandir=$2; datadir=$3
dest() {
    case $1 in
    /*) printf '%s%s\n' "${DESTDIR:-}" "$1" ;;
    *) printf '%s/%s\n' "$MESON_INSTALL_DESTDIR_PREFIX" "$1" ;;
    esac
}
man=$(dest "$mandir")
data=$(dest "$datadir")
mkdir -p "$man" "$data/bash-completion/completions" "$data/zsh/vendor-completions" \
    "$data/fish/vendor_completions.d"
# shellcheck disable=SC2086 # the wrapper is words
run() { ${MESON_EXE_WRAPPER:-} "$gpumon" "$@"; }
run manpage --write "$man"
run completion bash >"$data/bash-completion/completions/gpumon"
run completion zsh >"$data/zsh/vendor-completions/_gpumon"
run completion fish >"$data/fish/vendor_completions.d/gpumon.fish"
chmod 644 "$man"/man1/gpumon-*.1 "$man"/man5/gpumon.conf.5 \
    "$data/bash-completion/completions/gpumon" "$data/zsh/vendor-completions/_gpumon" \
    "$data/fish/vendor_completions.d/gpumon.fish"
[ -n "${MESON_INSTALL_QUIET:-}" ] || echo "Installing generated manual pages and completions to $man, $data"

#!/bin/sh
# install.sh -- installs gpumon from this release tarball (made by
# scripts/dist.sh, where this file is scripts/dist-install.sh), or removes
# what it installed.
#
#   ./install.sh [--prefix DIR]                 install under DIR (default /usr/local)
#   ./install.sh --uninstall [--prefix DIR]     remove what an install there listed
#
# Copies files/ (bin/, lib/, share/, include/) under DIR, each file replaced,
# never written through: a symbolic link planted at a file's name is
# removed, not followed.  Writes the list of what it installed to
# DIR/share/gpumon/install-manifest and of the directories it made to
# install-manifest.dirs, which --uninstall reads: it removes those files,
# then those directories when empty (DIR too when it made it), never a
# directory that was there before.  The systemd unit (DIR/lib/systemd/system/gpumon.service) and
# gpumon.pc are rewritten to point at DIR.  gpumon finds its modules and
# the simulator in DIR/lib/gpumon from DIR/bin, so any DIR works.  Nothing
# is enabled or started.  Exit 0 done, 1 failed, 2 usage.
set -eu

die() { echo "install.sh: error: $*" >&2; exit 1; }
usage() {
    echo "usage: ./install.sh [--prefix DIR] [--uninstall]" >&2
    exit 2
}

prefix=/usr/local
mode=install
while [ $# -gt 0 ]; do
    case $1 in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --uninstall) mode=uninstall; shift ;;
    -h | --help)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) echo "install.sh: error: unknown argument '$1'" >&2; usage ;;
    esac
done
case $prefix in
/*) ;;
*) die "--prefix must be an absolute path, not '$prefix'" ;;
esac
case $prefix in
*'
'* | *'#'* | *'|'*) die "--prefix '$prefix' holds a character the unit's rewrite cannot take" ;;
esac
prefix=${prefix%/}
[ -n "$prefix" ] || die "--prefix / is refused (use /usr)"
manifest=$prefix/share/gpumon/install-manifest

if [ "$mode" = uninstall ]; then
    [ -f "$manifest" ] || die "no $manifest: nothing was installed under $prefix by install.sh"
    # the manifest's "f REL": a file it installed; install-manifest.dirs'
    # "d REL": a directory it created, "p": it created the prefix itself
    n=0
    while IFS= read -r line; do
        rel=${line#? }
        case $rel in /* | *..*) continue ;; esac
        case $line in
        'f '*)
            if [ -e "$prefix/$rel" ] || [ -L "$prefix/$rel" ]; then
                rm -f "$prefix/$rel"
                n=$((n + 1))
            fi
            ;;
        esac
    done <"$manifest"
    dirs=$(sed -n 's/^d //p' "$manifest.dirs" 2>/dev/null | sort -r)
    created_prefix=$(grep -c '^p$' "$manifest.dirs" 2>/dev/null || true)
    rm -f "$manifest" "$manifest.dirs"
    # the directories it created, children first, when empty
    printf '%s\n' "$dirs" | while IFS= read -r d; do
        if [ -n "$d" ]; then rmdir "$prefix/$d" 2>/dev/null || true; fi
    done
    if [ "${created_prefix:-0}" -gt 0 ]; then
        rmdir "$prefix" 2>/dev/null || echo "install.sh: $prefix is not empty: kept"
    fi
    echo "install.sh: removed $n files of gpumon from $prefix"
    exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
[ -d "$here/files/bin" ] || die "no files/bin beside $0: run the install.sh of an unpacked release tarball"
cd "$here/files"
dirs=$(mktemp "${TMPDIR:-/tmp}/gpumon-install.XXXXXX")
trap 'rm -f "$dirs"' EXIT
if [ ! -d "$prefix" ]; then
    mkdir -p "$prefix"
    echo p >>"$dirs"
fi
# directories first (sorted: parents before children), recording those made
find . -type d | sort | while IFS= read -r d; do
    d=${d#./}
    [ "$d" = . ] && continue
    if [ -L "$prefix/$d" ] || { [ -e "$prefix/$d" ] && [ ! -d "$prefix/$d" ]; }; then
        die "$prefix/$d exists and is not a directory"
    fi
    if [ ! -d "$prefix/$d" ]; then
        mkdir "$prefix/$d"
        printf 'd %s\n' "$d" >>"$dirs"
    fi
done
# an earlier install's directory list is kept: it made those directories
[ -f "$manifest.dirs" ] && cat "$manifest.dirs" >>"$dirs"
files=$(mktemp "$prefix/share/gpumon/.install-manifest.XXXXXX")
trap 'rm -f "$dirs" "$files"' EXIT
find . ! -type d | sort | while IFS= read -r f; do
    f=${f#./}
    rm -f "$prefix/$f"
    cp -P -p "$f" "$prefix/$f"
    printf 'f %s\n' "$f" >>"$files"
done
# point the unit and the pkg-config file at this prefix (built for /usr/local)
unit=$prefix/lib/systemd/system/gpumon.service
if [ -f "$unit" ]; then
    rm -f "$unit.tmp"
    sed "s#/usr/local/bin/gpumon#$prefix/bin/gpumon#" "$unit" >"$unit.tmp" && mv "$unit.tmp" "$unit"
fi
pc=$prefix/lib/pkgconfig/gpumon.pc
if [ -f "$pc" ]; then
    rm -f "$pc.tmp"
    sed "s#^prefix=.*#prefix=$prefix#" "$pc" >"$pc.tmp" && mv "$pc.tmp" "$pc"
fi
sort -u "$dirs" >"$files.dirs"
chmod 644 "$files" "$files.dirs"
mv "$files.dirs" "$manifest.dirs"
mv "$files" "$manifest"
rm -f "$dirs"
trap - EXIT
echo "install.sh: installed $(wc -l <"$manifest") files of gpumon under $prefix"
echo "  $prefix/bin/gpumon --version"
echo "  $prefix/bin/gpumon --sim $prefix/share/gpumon/scenarios/h100x8-training.ini status"
if [ "$prefix" = /usr/local ]; then
    echo "  systemd: systemctl daemon-reload && systemctl enable --now gpumon (not enabled here)"
else
    echo "  systemd: systemctl link $unit (not enabled here)"
fi

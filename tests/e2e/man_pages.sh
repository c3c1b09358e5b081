#!/bin/sh
# The manual pages: `gpumon manpage --write` makes gpumon-COMMAND(1) for every
# command of `gpumon --help` and gpumon.conf(5), exactly the pages --list
# names; each of them and the hand-written docs/gpumon.1 renders without a
# warning (groff -ww -z -man, and man -l where man-db is installed); and
# docs/gpumon.1 describes every command (a .TP entry) and names its page in
# SEE ALSO.   man_pages.sh GPUMON SOURCE_ROOT
set -u
gpumon=$1; root=$2
command -v groff >/dev/null 2>&1 ||
    { echo "FAIL: groff is not installed (groff-base; scripts/install-deps.sh)"; exit 1; }
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
fail=0
"$gpumon" manpage --write "$tmpd" || { echo "FAIL: gpumon manpage --write"; exit 1; }
cmds=$("$gpumon" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ -n "$cmds" ] || { echo "FAIL: no commands in gpumon --help"; exit 1; }
want=$( (for c in $cmds; do echo "man1/gpumon-$c.1"; done; echo man5/gpumon.conf.5) | sort)
listed=$("$gpumon" manpage --list | sort)
written=$(cd "$tmpd" && find . -type f | sed 's|^\./||' | sort)
[ "$listed" = "$want" ] || { echo "FAIL: manpage --list differs from the commands:"; \
    echo "$listed" | diff - "$(printf '%s' "$want" >"$tmpd/want"; echo "$tmpd/want")"; fail=1; }
rm -f "$tmpd/want"
[ "$written" = "$want" ] || { echo "FAIL: --write wrote: $written"; fail=1; }
check() { # PAGE: no warning from groff (nor from man -l)
    out=$(groff -ww -z -man "$1" 2>&1)
    if [ -n "$out" ]; then
        echo "FAIL: groff -ww -z -man $1:"
        echo "$out"
        fail=1
    fi
    if command -v man >/dev/null 2>&1; then
        out=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null)
        if [ -n "$out" ]; then
            echo "FAIL: man --warnings -l $1:"
            echo "$out"
            fail=1
        fi
    fi
}
n=0
for p in "$tmpd"/man1/*.1 "$tmpd"/man5/*.5 "$root/docs/gpumon.1"; do
    check "$p"
    n=$((n + 1))
done
for c in $cmds; do
    page=$tmpd/man1/gpumon-$c.1
    grep -q "^gpumon\\\\-$(echo "$c" | sed 's/-/\\\\-/g') \\\\- " "$page" ||
        { echo "FAIL: $page has no NAME line for $c"; fail=1; }
    grep -q "^\\.BR gpumon\\\\-$(echo "$c" | sed 's/-/\\\\-/g') (1)" "$root/docs/gpumon.1" ||
        { echo "FAIL: docs/gpumon.1 does not name gpumon-$c(1) in SEE ALSO"; fail=1; }
    awk -v c="$c" 'p && ($0 == ".B " c || index($0, ".BR " c " ") == 1 || $0 == ".BR " c) {f = 1}
        {p = ($0 == ".TP")} END {exit !f}' "$root/docs/gpumon.1" ||
        { echo "FAIL: docs/gpumon.1 has no COMMANDS entry (.TP, .B $c) for $c"; fail=1; }
done
# a flag of a command's help is an option of its page
grep -q '^\\fB\\-\\-json\\fR$' "$tmpd/man1/gpumon-status.1" ||
    { echo "FAIL: gpumon-status(1) has no --json option"; fail=1; }
grep -q '^\\fBlog\\-level\\fR$' "$tmpd/man5/gpumon.conf.5" ||
    { echo "FAIL: gpumon.conf(5) has no log-level key"; fail=1; }
[ $fail = 0 ] && echo "ok: $n pages render without warnings"
exit $fail

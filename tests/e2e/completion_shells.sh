#!/bin/sh
# The zsh and fish completions: `gpumon completion zsh|fish` must parse
# (zsh -n, fish -n) and offer the right words for a few prefixes: fish is
# asked with complete -C, zsh in a pseudo-terminal (zsh_complete.zsh).
# completion_shells.sh zsh|fish   Environment from meson: GPUMON.
set -u
sh=$1
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
case $sh in
zsh) out=$tmpd/_gpumon ;;
fish) out=$tmpd/gpumon.fish ;;
*) echo "usage: completion_shells.sh zsh|fish" >&2; exit 2 ;;
esac
"$GPUMON" completion "$sh" >"$out" || { echo "FAIL: gpumon completion $sh"; exit 1; }
"$sh" -n "$out" || { echo "FAIL: $sh -n rejects the generated script"; exit 1; }
echo "ok: $sh -n"
fail=0
here=$(cd "$(dirname "$0")" && pwd)
# expect "PREFIX" "WORDS": the words offered, sorted, space-separated
expect() {
    if [ "$sh" = zsh ]; then
        got=$(cd "$tmpd" && zsh -f "$here/zsh_complete.zsh" "$tmpd" "$1")
    else
        got=$(fish -c "source '$out'; complete -C '$1'" | cut -f1 | sort | tr '\n' ' ' |
            sed 's/ $//')
    fi
    if [ "$got" != "$2" ]; then
        echo "FAIL: completing '$1': got '$got', want '$2'"
        fail=1
    else
        echo "ok: '$1' -> $got"
    fi
}
expect "gpumon st" "status"
expect "gpumon status --js" "--json"
expect "gpumon status --j" "--job-mapping-dir --json"
expect "gpumon agent --log-level e" "error"
expect "gpumon config " "check show"
expect "gpumon completion " "bash fish zsh"
# run: gpumon's flags before "--", the command's own completion after it
mkdir "$tmpd/bin"
printf '#!/bin/sh\n' >"$tmpd/bin/gpumontestcmd" && chmod +x "$tmpd/bin/gpumontestcmd"
PATH=$tmpd/bin:$PATH
export PATH
expect "gpumon run --ta" "--task"
expect "gpumon run -- gpumontestc" "gpumontestcmd"
expect "gpumon run --task x -- gpumontestc" "gpumontestcmd"
if [ "$sh" = fish ]; then
    expect "gpumon query --query-gpu=utilization.g" "--query-gpu=utilization.gpu"
    expect "gpumon query --query-gpu=index,memory.u" "--query-gpu=index,memory.used"
    expect "gpumon query --query-accounted-apps=pid,max_m" "--query-accounted-apps=pid,max_memory_usage"
    mkdir "$tmpd/dir1"
    expect "gpumon agent --data-dir $tmpd/d" "$tmpd/dir1/"
    expect "gpumon config check $tmpd/gpumon.f" "$tmpd/gpumon.fish"
else # zsh offers the item after the comma, and completes the flag's '=' itself
    expect "gpumon query --query-gpu=utilization.g" "utilization.gpu"
    expect "gpumon query --query-gpu=index,memory.u" "memory.used"
    expect "gpumon query --query-accounted-apps=pid,max_m" "max_memory_usage"
    expect "gpumon --sim _gp" "_gpumon" # a path in the current directory
    expect "gpumon config check _gp" "_gpumon"
fi
exit $fail

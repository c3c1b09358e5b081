#!/bin/bash
# The bash completion that `gpumon completion bash` prints, asked the way
# bash asks it: COMP_WORDS and COMP_CWORD as bash splits the line (with '='
# in COMP_WORDBREAKS, --flag=value is three words), then _gpumon, then
# COMPREPLY compared with what should be offered.
# Environment from meson: GPUMON.
set -u
script=$(mktemp)
trap 'rm -rf "$script" "$tmpd"' EXIT
tmpd=$(mktemp -d)
"$GPUMON" completion bash >"$script" || { echo "gpumon completion bash failed"; exit 1; }
bash -n "$script" || { echo "the generated script does not parse"; exit 1; }
# shellcheck disable=SC1090
source "$script"
fail=0
# expect "LINE" "EXPECTED REPLIES" WORDS...: the replies, sorted, space-separated
expect() {
    local want=$1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _gpumon
    local got
    got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
    if [ "$got" != "$want" ]; then
        echo "FAIL: completing '$*': got '$got', want '$want'"
        fail=1
    else
        echo "ok: '$*' -> $got"
    fi
}
expect "status" gpumon st
expect "--json" gpumon status --js
expect "--job-mapping-dir --json" gpumon status --j
expect "--color --compact" gpumon status --co
expect "utilization.decoder utilization.encoder utilization.gpu utilization.jpeg utilization.memory utilization.ofa" \
    gpumon query --query-gpu = util
expect "index,memory.used" gpumon query --query-gpu = index,memory.u
expect "pid" gpumon query --query-compute-apps = pi
# the other query families complete their own fields, not the GPU's
expect "max_memory_usage mem_util mem_utilization" gpumon query --query-accounted-apps = m
expect "pid,gpu_util pid,gpu_utilization pid,gpu_uuid" gpumon query --query-accounted-apps = pid,gpu_u
expect "gr graphics" gpumon query --query-supported-clocks = gr
expect "retired_pages.addr retired_pages.address retired_pages.cause" gpumon query --query-retired-pages = retired
expect "csv csv,noheader csv,noheader,nounits csv,nounits" gpumon query --format = csv
expect "error" gpumon agent --log-level e
expect "dcgm native" gpumon serve --names ""
expect "utilization.gpu" gpumon record --columns utilization.g
expect "check show" gpumon config ""
expect "bash" gpumon completion b
expect "test" gpumon alerts t
expect "hour" gpumon report --by h
expect "warning" gpumon diagnose --fail-on w
# global options, then the command
expect "--nvml-lib" gpumon --nv
expect "status" gpumon --sim x.ini st
# files and directories
mkdir "$tmpd/dir1"
touch "$tmpd/file1.ini"
expect "$tmpd/dir1 $tmpd/file1.ini" gpumon --sim "$tmpd/"
expect "$tmpd/dir1" gpumon agent --data-dir "$tmpd/d"
expect "$tmpd/file1.ini" gpumon query -f "$tmpd/f"
# operands that are files: config check [FILE], diagnose --csv FILE...
expect "$tmpd/file1.ini" gpumon config check "$tmpd/f"
expect "$tmpd/file1.ini" gpumon diagnose --csv a.csv "$tmpd/f"
expect "" gpumon status "$tmpd/f"
# run: gpumon's flags before "--", then another command's line
mkdir "$tmpd/bin"
printf '#!/bin/sh\n' >"$tmpd/bin/gpumontestcmd" && chmod +x "$tmpd/bin/gpumontestcmd"
PATH=$tmpd/bin:$PATH
expect "--task" gpumon run --ta
expect "gpumontestcmd" gpumon run -- gpumontestc
expect "gpumontestcmd" gpumon run --task x -- gpumontestc
expect "gpumontestcmd" gpumon run --interval 1s gpumontestc
if ! declare -F _command_offset >/dev/null; then # without bash-completion: files
    expect "$tmpd/file1.ini" gpumon run -- gpumontestcmd "$tmpd/f"
fi
# a value nothing can complete offers nothing (not the flags)
expect "" gpumon status --interval ""
# without '=' in COMP_WORDBREAKS the word is whole, and so are the replies
COMP_WORDBREAKS=' '
expect "--query-gpu=utilization.gpu" gpumon query --query-gpu=utilization.g
# every command of gpumon --help completes
cmds=$("$GPUMON" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ -n "$cmds" ] || { echo "FAIL: no commands in gpumon --help"; fail=1; }
for c in $cmds; do
    COMP_WORDS=(gpumon "$c")
    COMP_CWORD=1
    _gpumon
    case " ${COMPREPLY[*]} " in
    *" $c "*) ;;
    *) echo "FAIL: command $c does not complete"; fail=1 ;;
    esac
done
exit $fail

#!/bin/sh
# check_exports.sh DECLARED LIB [LEGACY_LIB...] -- the simulator exports the
# NVML functions its headers declare and nothing else.
#
# DECLARED is sim/gen_names.py's list ("name header" per line: every nvml*
# prototype of src/source/nvml_abi.h and sim/*_abi.h, the list sim/names.c is
# built from).  LIB must export exactly those functions; each LEGACY_LIB (the
# R450-era variant, which leaves newer functions out) only functions from it.
# Every defined dynamic symbol of every library must start with "nvml", but
# for gpusimProcRead and gpusimHostRead, the simulated /proc view and host
# side (sim/procview.c), which every library must export.
# (Sanitizer builds add their own __asan/__ubsan bookkeeping symbols; those
# are not ours and are ignored.)
if [ $# -lt 2 ]; then
    echo "usage: check_exports.sh DECLARED LIB [LEGACY_LIB...]" >&2
    exit 2
fi
declared_list=$1
shift
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if ! awk 'NF { print $1 }' "$declared_list" | sort -u >"$tmp/declared" || [ ! -s "$tmp/declared" ]; then
    echo "check_exports.sh: no declared functions in '$declared_list'" >&2
    exit 2
fi
status=0
full=$1
for lib in "$@"; do
    if ! nm -D --defined-only "$lib" >"$tmp/nm"; then
        echo "check_exports.sh: nm cannot read '$lib'" >&2
        exit 2
    fi
    extra=$(awk '{print $NF}' "$tmp/nm" |
        grep -v -e '^nvml' -e '^gpusimProcRead$' -e '^gpusimHostRead$' -e '^__asan' -e '^__odr_asan' -e '^__ubsan' -e '^_init$' -e '^_fini$')
    if [ -n "$extra" ]; then
        echo "$lib exports non-NVML symbols:" $extra
        status=1
    fi
    for fn in gpusimProcRead gpusimHostRead; do
        if ! awk '{print $NF}' "$tmp/nm" | grep -qx "$fn"; then
            echo "$lib does not export $fn (sim/procview.c)"
            status=1
        fi
    done
    awk '{print $NF}' "$tmp/nm" | grep '^nvml' | sort -u >"$tmp/exported"
    for name in $(comm -13 "$tmp/declared" "$tmp/exported"); do
        echo "$lib exports $name, which no header declares (src/source/nvml_abi.h, sim/*_abi.h)"
        status=1
    done
    if [ "$lib" = "$full" ]; then
        for name in $(comm -23 "$tmp/declared" "$tmp/exported"); do
            where=$(awk -v n="$name" '$1 == n { print $2; exit }' "$declared_list")
            echo "$lib does not export $name (declared in $where): define it in sim/api_*.c with GS_EXPORT"
            status=1
        done
    fi
    echo "$lib: $(wc -l <"$tmp/exported") NVML functions"
done
exit $status

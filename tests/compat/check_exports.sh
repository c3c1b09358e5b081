#!/bin/sh
# check_exports.sh LIB... -- the simulator exports NVML functions and nothing
# else: every defined dynamic symbol of each LIB must start with "nvml".
# (Sanitizer builds add their own __asan/__ubsan bookkeeping symbols; those
# are not ours and are ignored.)
status=0
for lib in "$@"; do
    extra=$(nm -D --defined-only "$lib" | awk '{print $NF}' |
        grep -v -e '^nvml' -e '^__asan' -e '^__odr_asan' -e '^__ubsan' -e '^_init$' -e '^_fini$')
    if [ -n "$extra" ]; then
        echo "$lib exports non-NVML symbols:" $extra
        status=1
    fi
    count=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -c '^nvml')
    echo "$lib: $count NVML functions"
done
exit $status

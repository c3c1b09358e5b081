#!/bin/sh
# --help-query-gpu lists the issue-14 fields added last, each on a line of
# its own as nvidia-smi prints a field ("key" then its description), and
# --help-query-accounted-apps lists nvidia-smi's accounted-apps fields.
# help_query_fields.sh GPUMON
set -eu
gpumon=$1
help=$("$gpumon" query --help-query-gpu)
bad=0
fields="module.power.draw.average module.power.draw.instant module.power.limit
module.enforced.power.limit module.power.default_limit module.power.min_limit
module.power.max_limit pcie.link.gen.hostmax"
for loc in device_memory register_file l1_cache l2_cache texture_memory cbu; do
    for t in corrected.volatile uncorrected.volatile corrected.aggregate uncorrected.aggregate; do
        fields="$fields ecc.errors.$t.$loc"
    done
done
for f in $fields; do
    if ! printf '%s\n' "$help" | grep -qx "\"$f\""; then
        echo "--help-query-gpu does not list \"$f\"" >&2
        bad=1
    fi
done
help=$("$gpumon" query --help-query-accounted-apps)
for f in gpu_name gpu_bus_id gpu_serial gpu_uuid vgpu_instance pid gpu_utilization \
    mem_utilization max_memory_usage time; do
    if ! printf '%s\n' "$help" | grep -q "^\"$f\""; then
        echo "--help-query-accounted-apps does not list \"$f\"" >&2
        bad=1
    fi
done
exit $bad

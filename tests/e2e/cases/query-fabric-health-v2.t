# A driver older than nvmlGpuFabricInfo_v3 (R550-R565) refuses it with ARGUMENT_VERSION_MISMATCH:
# gpumon asks again for v2, whose health mask has every field but the summary (N/A). The
# simulator answers v3, so the first call on GPU 0 is failed on purpose.
scenario: compat/blackwell-fabric.ini
time: 30
env: GPUSIM_FAIL=nvmlDeviceGetGpuFabricInfoV@0:1:ARGUMENT_VERSION_MISMATCH
args: --query-gpu=index,fabric.state,fabric.health.summary,fabric.health.bandwidth,fabric.health.route_recovery_in_progress,fabric.health.route_unhealthy,fabric.health.access_timeout_recovery,fabric.health.incorrect_configuration,fabric.health.partition_assigned --format=csv -i 0
exit: 0
--- stdout
index, fabric.state, fabric.health.summary, fabric.health.bandwidth, fabric.health.route_recovery_in_progress, fabric.health.route_unhealthy, fabric.health.access_timeout_recovery, fabric.health.incorrect_configuration, fabric.health.partition_assigned
0, Completed, N/A, Full, False, False, False, None, True
--- stderr

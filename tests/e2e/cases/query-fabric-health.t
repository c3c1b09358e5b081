# Issue 28 point 8: fabric.health.* from nvmlDeviceGetGpuFabricInfoV version 3 (healthMask,
# healthSummary). GPU 0 a Blackwell on NVSwitches: a healthy fabric, in the words a live GB200
# `nvidia-smi -q` prints (Healthy, Full, False) and nvml.h's for the rest; GPU 1 an H100 whose
# registration completed: N/A, as the H100/H200 590 captures print them (no brackets).
scenario: compat/blackwell-fabric.ini
time: 30
args: --query-gpu=index,fabric.state,fabric.health.summary,fabric.health.bandwidth,fabric.health.route_recovery_in_progress,fabric.health.route_unhealthy,fabric.health.access_timeout_recovery,fabric.health.incorrect_configuration,fabric.health.partition_assigned --format=csv
exit: 0
--- stdout
index, fabric.state, fabric.health.summary, fabric.health.bandwidth, fabric.health.route_recovery_in_progress, fabric.health.route_unhealthy, fabric.health.access_timeout_recovery, fabric.health.incorrect_configuration, fabric.health.partition_assigned
0, Completed, Healthy, Full, False, False, False, None, True
1, Completed, N/A, N/A, N/A, N/A, N/A, N/A, N/A
--- stderr

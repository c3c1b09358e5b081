# Issue 28 point 8: edpp_multiplier from nvmlDeviceGetFieldValues (NVML_FI_DEV_EDPP_MULTIPLIER,
# 274, "EDPp multiplier expressed as a percentage"). GPU 0 an H100: 100.00 %, as nvidia-smi 590
# prints it on the captured H100 and H200 (MIG on or off; utkuozdemir/nvidia_gpu_exporter
# internal/captures/); GPU 1 an L40S: NOT_SUPPORTED, [N/A] as the captured L40S (595) and the
# GeForce boards print. The header's unit is the captures' ([%]).
scenario: hostile-names.ini
time: 30
args: --query-gpu=index,edpp_multiplier --format=csv
exit: 0
--- stdout
index, edpp_multiplier [%]
0, 100.00 %
1, [N/A]
--- stderr

# Issue 28 point 8: hostname (nvmlDeviceGetHostname_v1, R580+, "Blackwell or newer": a name
# kept per GPU, not the host's) prints [N/A] on every board of the 590-595 --help-query-gpu
# captures (GeForce RTX 2080 SUPER/4080 SUPER, L40S, H100, H200: utkuozdemir/nvidia_gpu_exporter
# internal/captures/); no simulated board is a Blackwell, so the same here, not an unknown field.
scenario: workstation.ini
time: 45
args: --query-gpu=index,hostname --format=csv
exit: 0
--- stdout
index, hostname
0, [N/A]
1, [N/A]

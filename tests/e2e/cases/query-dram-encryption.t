# Issue 28 point 8: dramEncryption.mode.current/pending (nvmlDeviceGetDramEncryptionMode,
# R570+, Blackwell and later) print [N/A] on every board of the 590-595 --help-query-gpu
# captures (GeForce RTX 2080 SUPER/4080 SUPER, L40S, H100, H200: utkuozdemir/nvidia_gpu_exporter
# internal/captures/); no simulated board is a Blackwell, so the same here, not an unknown field.
scenario: h100x8-training.ini
time: 45
args: --query-gpu=index,dramEncryption.mode.current,dramEncryption.mode.pending --format=csv -i 0
exit: 0
--- stdout
index, dramEncryption.mode.current, dramEncryption.mode.pending
0, [N/A], [N/A]

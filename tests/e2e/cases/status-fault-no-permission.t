scenario: fault-no-permission.ini
args: status
exit: 3
--- stdout
--- stderr
gpumon: error: no permission to open any of the 2 GPUs (NVML: Insufficient Permissions); check that /dev/nvidiactl and /dev/nvidia0.. exist and that your user may open them (ls -l /dev/nvidia*); run 'gpumon doctor' (check 'devnodes')

# no driver: the reason and exit status 3
scenario: fault-driver-not-loaded.ini
args: topo -m
exit: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); run 'gpumon doctor' (check 'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and 'dmesg | grep -i nvrm'

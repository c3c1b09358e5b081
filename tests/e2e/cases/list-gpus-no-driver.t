# no driver: the reason and exit status 3, as every NVML command
scenario: fault-driver-not-loaded.ini
args: -L
exit: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); run 'gpumon doctor' (check 'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and 'dmesg | grep -i nvrm'

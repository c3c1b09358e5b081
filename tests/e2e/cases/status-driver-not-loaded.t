# faults.ini: the driver is not loaded from 240 s to 300 s
scenario: faults.ini
time: 250
args: status
exit: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); run 'gpumon doctor' (check 'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and 'dmesg | grep -i nvrm'

# faults.ini: the driver is not loaded from 240 s to 300 s
scenario: faults.ini
time: 250
args: status
exit: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); check 'lsmod | grep nvidia', 'modprobe nvidia' and 'dmesg | grep -i nvrm', see Troubleshooting in README.md

scenario: fault-driver-not-loaded.ini
args: free
exit: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); check 'lsmod | grep nvidia', 'modprobe nvidia' and 'dmesg | grep -i nvrm', see Troubleshooting in README.md

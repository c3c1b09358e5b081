# top: no driver is reported before anything is drawn
scenario: fault-driver-not-loaded.ini
args: top
exit: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); check 'lsmod | grep nvidia', 'modprobe nvidia' and 'dmesg | grep -i nvrm', see Troubleshooting in README.md

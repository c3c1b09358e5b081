# a 5 s hang of nvmlDeviceGetPowerUsage on GPU 2 (120-180 s): --timeout 1 gives up after 1 s and names the call
scenario: faults.ini
time: 130
args: status --timeout 1
exit: 3
min-seconds: 0.9
max-seconds: 3
--- stdout
--- stderr
gpumon: error: the NVIDIA driver did not answer within 1.0 s: nvmlDeviceGetPowerUsage on GPU 2 has not returned; the driver or GPU may be hung (Xid errors in dmesg: run 'gpumon doctor', check 'kernel-log')

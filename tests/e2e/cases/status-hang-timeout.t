# a 60 s hang of nvmlDeviceGetPowerUsage on GPU 2: --timeout 1 gives up after 1 s
# (not sooner) and names the call; a run that waited the hang out would pass
# the 30 s limit, so no tight upper bound is needed (issue 24)
scenario: none
env: GPUSIM_SCENARIO={root}/tests/fixtures/hang-long.ini
time: 130
args: status --timeout 1
exit: 3
min-seconds: 0.9
--- stdout
--- stderr
gpumon: error: the NVIDIA driver did not answer within 1.0 s: nvmlDeviceGetPowerUsage on GPU 2 has not returned; the driver or GPU may be hung (Xid errors in dmesg: run 'gpumon doctor', check 'kernel-log')

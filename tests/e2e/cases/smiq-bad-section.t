# -d with a name nvidia-smi does not have: usage error naming it and the valid ones
scenario: workstation.ini
args: -q -d MEMORY,BOGUS
exit: 2
--- stdout
--- stderr
gpumon: error: -d: unknown display section 'BOGUS' (one of: MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK, COMPUTE, PIDS, PERFORMANCE, SUPPORTED_CLOCKS, PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS, SUPPORTED_GPU_TARGET_TEMP, VOLTAGE, FBC_STATS, ROW_REMAPPER, RESET_STATUS, GSP_FIRMWARE_VERSION)
Try 'gpumon query --help'.

# the issue-14 fields added last (module.power.*, pcie.link.gen.hostmax, ECC by unit) on every GPU of fault-no-permission.ini: [N/A] where the board lacks them
# pcie.link.gen.hostmax reads tests/fixtures/sysfs-pcie (see its README)
scenario: fault-no-permission.ini
time: 300
env: GPUMON_SYSFS_ROOT={root}/tests/fixtures/sysfs-pcie
args: query --query-gpu=index,module.power.draw.average,module.power.draw.instant,module.power.limit,module.enforced.power.limit,module.power.default_limit,module.power.min_limit,module.power.max_limit,pcie.link.gen.hostmax,ecc.errors.corrected.volatile.device_memory,ecc.errors.uncorrected.volatile.device_memory,ecc.errors.corrected.aggregate.device_memory,ecc.errors.uncorrected.aggregate.device_memory,ecc.errors.corrected.volatile.register_file,ecc.errors.uncorrected.volatile.register_file,ecc.errors.corrected.aggregate.register_file,ecc.errors.uncorrected.aggregate.register_file,ecc.errors.corrected.volatile.l1_cache,ecc.errors.uncorrected.volatile.l1_cache,ecc.errors.corrected.aggregate.l1_cache,ecc.errors.uncorrected.aggregate.l1_cache,ecc.errors.corrected.volatile.l2_cache,ecc.errors.uncorrected.volatile.l2_cache,ecc.errors.corrected.aggregate.l2_cache,ecc.errors.uncorrected.aggregate.l2_cache,ecc.errors.corrected.volatile.texture_memory,ecc.errors.uncorrected.volatile.texture_memory,ecc.errors.corrected.aggregate.texture_memory,ecc.errors.uncorrected.aggregate.texture_memory,ecc.errors.corrected.volatile.cbu,ecc.errors.uncorrected.volatile.cbu,ecc.errors.corrected.aggregate.cbu,ecc.errors.uncorrected.aggregate.cbu --format=csv
exit: 3
--- stdout
--- stderr
gpumon: error: no permission to open any of the 2 GPUs (NVML: Insufficient Permissions); check that /dev/nvidiactl and /dev/nvidia0.. exist and that your user may open them (ls -l /dev/nvidia*); run 'gpumon doctor' (check 'devnodes')

# the issue-14 fields added last with noheader,nounits: the values alone
scenario: compat/v100-retired-pages.ini
time: 300
env: GPUMON_SYSFS_ROOT={root}/tests/fixtures/sysfs-pcie
args: query --query-gpu=pcie.link.gen.hostmax,module.power.draw.average,ecc.errors.corrected.volatile.device_memory,ecc.errors.uncorrected.volatile.l2_cache --format=csv,noheader,nounits
exit: 0
--- stdout
5, [N/A], 6, 0
4, [N/A], 0, 0
--- stderr

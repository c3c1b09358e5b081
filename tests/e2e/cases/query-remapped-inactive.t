# Issue 28 point 8: remapped_rows.correctable_inactive and .uncorrectable_inactive from
# nvmlDeviceGetFieldValues (NVML_FI_DEV_REMAPPED_ROWS_COR_INACTIVE 301, _UNC_INACTIVE 302).
# GPU 0 an A100 with MIG on: row remapping is not reported (NOT_SUPPORTED), [N/A] as
# remapped_rows.* on the captured H100/H200 with MIG on; GPU 1 a whole A100: 0, as the captured
# L40S (595, the only capture with these fields and ECC) prints; the simulator never deactivates
# a remapping (docs/simulator.md).
scenario: a100-mig.ini
time: 30
args: --query-gpu=index,remapped_rows.correctable,remapped_rows.correctable_inactive,remapped_rows.uncorrectable,remapped_rows.uncorrectable_inactive --format=csv
exit: 0
--- stdout
index, remapped_rows.correctable, remapped_rows.correctable_inactive, remapped_rows.uncorrectable, remapped_rows.uncorrectable_inactive
0, [N/A], [N/A], [N/A], [N/A]
1, 0, 0, 0, 0
--- stderr

scenario: a100-mig.ini
time: 120
args: query --query-gpu=index,mig.mode.current,utilization.gpu,memory.used,remapped_rows.correctable --format=csv
--- stdout
index, mig.mode.current, utilization.gpu [%], memory.used [MiB], remapped_rows.correctable
0, Enabled, [N/A], 40449 MiB, [N/A]
1, Disabled, 61 %, 22529 MiB, 0
--- stderr

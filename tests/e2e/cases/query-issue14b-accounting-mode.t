# accounting.mode follows the scenario's accounting key: on for GPU 0 of compat/accounting.ini, off (the default) for GPU 1
scenario: compat/accounting.ini
time: 300
args: query --query-gpu=index,accounting.mode,accounting.buffer_size --format=csv
exit: 0
--- stdout
index, accounting.mode, accounting.buffer_size
0, Enabled, 4000
1, Disabled, 4000
--- stderr

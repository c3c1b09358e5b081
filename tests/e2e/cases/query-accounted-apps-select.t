# -i 1 selects the GPU with accounting off: the header alone
scenario: compat/accounting.ini
time: 300
args: query --query-accounted-apps=gpu_bus_id,pid --format=csv -i 1
exit: 0
--- stdout
gpu_bus_id, pid
--- stderr

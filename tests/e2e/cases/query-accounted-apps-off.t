# accounting off (the driver's default, every shipped scenario): no rows, as NVML accounts nothing
scenario: h100x8-training.ini
time: 300
args: query --query-accounted-apps=gpu_bus_id,pid,gpu_utilization,time --format=csv
exit: 0
--- stdout
gpu_bus_id, pid, gpu_utilization [%], time [ms]
--- stderr

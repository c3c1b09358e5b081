# a GPU the sample could not open (faults.ini GPU 2, refused at 215 s) gets one row with the reason
scenario: faults.ini
time: 215
args: query --query-accounted-apps=gpu_bus_id,pid,time --format=csv
exit: 0
--- stdout
gpu_bus_id, pid, time [ms]
[Insufficient Permissions], [Insufficient Permissions], [Insufficient Permissions]
--- stderr

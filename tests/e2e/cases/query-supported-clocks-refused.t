# a GPU the sample could not open (faults.ini GPU 2, refused at 215 s): its clock cells give
# the sample's reason, Insufficient Permissions (they said [GPU is lost] before: no handle)
scenario: faults.ini
time: 215
args: query --query-supported-clocks=gpu_bus_id,memory,graphics --format=csv -i 2
exit: 0
--- stdout
gpu_bus_id, memory [MHz], graphics [MHz]
[Insufficient Permissions], [Insufficient Permissions], [Insufficient Permissions]
--- stderr

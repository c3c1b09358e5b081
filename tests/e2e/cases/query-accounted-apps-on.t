# accounting on on GPU 0 of compat/accounting.ini at 300 s: prep ended (its run time in ms),
# train and tool run (time 0), tool's memory unknown ([N/A]), xorg (graphics) and eval
# (not started) not accounted; GPU 1 has accounting off: no row
scenario: compat/accounting.ini
time: 300
args: query --query-accounted-apps=gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,vgpu_instance,pid,gpu_utilization,mem_utilization,max_memory_usage,time --format=csv
exit: 0
--- stdout
gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, vgpu_instance, pid, gpu_utilization [%], mem_utilization [%], max_memory_usage [MiB], time [ms]
NVIDIA A100-SXM4-80GB, 00000000:18:00.0, 1654290229655, GPU-d8a090e3-4d7a-f35a-214a-6439a393ce5d, [N/A], 31001, 35 %, 10 %, 6144 MiB, 60000 ms
NVIDIA A100-SXM4-80GB, 00000000:18:00.0, 1654290229655, GPU-d8a090e3-4d7a-f35a-214a-6439a393ce5d, [N/A], 31002, 23 %, 10 %, 40960 MiB, 0 ms
NVIDIA A100-SXM4-80GB, 00000000:18:00.0, 1654290229655, GPU-d8a090e3-4d7a-f35a-214a-6439a393ce5d, [N/A], 31005, 23 %, 10 %, [N/A], 0 ms
--- stderr

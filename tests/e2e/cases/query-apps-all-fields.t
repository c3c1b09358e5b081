scenario: workstation.ini
time: 120
args: query --query-compute-apps=timestamp,gpu_name,gpu_bus_id,gpu_serial,gpu_uuid,pid,process_name,used_gpu_memory --format=csv
--- stdout
timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory [MiB]
{smitime}, NVIDIA GeForce RTX 4090, 00000000:01:00.0, [N/A], GPU-03aaf17d-35f7-fed1-21d2-f8e5e0dd3750, 4194419, python3, 17920 MiB
--- stderr

# nvidia-smi --query-remapped-rows: one row per GPU (the fields node health checks ask for);
# GPU 0 waits for a remap after 2 uncorrectable errors, GPU 2 is refused at 215 s
scenario: faults.ini
time: 215
args: query --query-remapped-rows=gpu_bus_id,gpu_uuid,remapped_rows.correctable,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure --format=csv
exit: 0
--- stdout
gpu_bus_id, gpu_uuid, remapped_rows.correctable, remapped_rows.uncorrectable, remapped_rows.pending, remapped_rows.failure
00000000:18:00.0, GPU-6676be80-c657-bf61-b35a-c6339781c50b, 0, 2, Yes, No
00000000:2A:00.0, GPU-ec78aac7-6a26-a069-eb84-46440b6d4ccd, 0, 0, No, No
[Insufficient Permissions], [Insufficient Permissions], [Insufficient Permissions], [Insufficient Permissions], [Insufficient Permissions], [Insufficient Permissions]
00000000:5D:00.0, GPU-02609814-2dbc-d811-103b-9302aebcd17f, 0, 0, No, No
--- stderr

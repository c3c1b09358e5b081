# 004: map processes to GPUs
scenario: h100x8-training.ini
time: 300
args: query --query-compute-apps=pid,used_gpu_memory,gpu_uuid --format=csv
--- stdout
pid, used_gpu_memory [MiB], gpu_uuid
4194400, 72908 MiB, GPU-c61e2772-b7fe-30ea-c928-27b30f2a24f0
4194401, 72908 MiB, GPU-4ed05b96-2969-aa45-5934-f5d9be04bc98
4194402, 72908 MiB, GPU-8e1684c6-fc49-3d90-9f71-36ed2d4896b8
4194403, 72908 MiB, GPU-4942d9f5-1c13-1125-ce3c-e8af129ad83c
4194404, 72908 MiB, GPU-6314ccc2-4e93-6d3f-3f27-7223bbca9c56
4194405, 72908 MiB, GPU-af693499-8639-27aa-ec30-a86902530827
4194406, 72908 MiB, GPU-401afcfb-7a57-79ee-f673-88a7abf6c11e
4194407, 45568 MiB, GPU-884d5a4a-28a4-988d-ff3f-99d7d70e9cac
4194304, 30720 MiB, GPU-884d5a4a-28a4-988d-ff3f-99d7d70e9cac
--- stderr

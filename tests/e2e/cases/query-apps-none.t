# no compute processes: the header only, as nvidia-smi
scenario: workstation.ini
time: 120
args: query --query-compute-apps=pid,process_name,used_memory --format=csv --id 1
--- stdout
pid, process_name, used_gpu_memory [MiB]
--- stderr

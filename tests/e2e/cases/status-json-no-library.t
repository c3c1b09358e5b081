# no libnvidia-ml: -i --compact prints one JSON line with driver.status
# no_library and ends, exit 3 (docs/json.md)
lib: missing
args: status --json --compact -i 1
exit: 3
json-schema: docs/json.md
--- stdout
{"schema":"gpumon.status/1","hostname":"{host}","time":"{iso}","time_unix_ns":{*},"sample_duration_seconds":{*},"driver":{"status":"no_library","message":"cannot load the NVIDIA management library /nonexistent/libnvidia-ml.so.1 (/nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory); the NVIDIA driver is not installed or its library is not on the loader path; run 'gpumon doctor' (check 'nvml')","driver_version":null,"cuda_driver_version":null,"nvml_version":null},"gpu_count":0,"gpus":[]}
--- stderr
gpumon: error: cannot load the NVIDIA management library /nonexistent/libnvidia-ml.so.1 (/nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory); the NVIDIA driver is not installed or its library is not on the loader path; run 'gpumon doctor' (check 'nvml')

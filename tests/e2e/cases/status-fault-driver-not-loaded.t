# --json prints the document with the failure in it (docs/json.md), exit 3
scenario: fault-driver-not-loaded.ini
args: status --json
exit: 3
json-schema: docs/json.md
--- stdout
{
  "schema": "gpumon.status/1",
  "hostname": "{host}",
  "time": "{iso}",
  "time_unix_ns": {*},
  "sample_duration_seconds": {*},
  "driver": {
    "status": "driver_not_loaded",
    "message": "the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); run 'gpumon doctor' (check 'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and 'dmesg | grep -i nvrm'",
    "driver_version": null,
    "cuda_driver_version": null,
    "nvml_version": null
  },
  "gpu_count": 0,
  "gpus": []
}
--- stderr
gpumon: error: the NVIDIA kernel driver is not loaded (NVML: Driver Not Loaded); run 'gpumon doctor' (check 'modules'), or by hand 'lsmod | grep nvidia', 'sudo modprobe nvidia' and 'dmesg | grep -i nvrm'

# every GPU with its verdict and reasons (docs/free.md)
scenario: free/busy.ini
args: free --count 2 --format json --window 0
exit: 0
json-schema: docs/free.md
--- stdout
{
  "criteria": {
    "min_memory_free_bytes": null,
    "min_memory_free_percent": 90,
    "max_utilization_percent": 10,
    "allow_processes": false,
    "window_seconds": 0,
    "samples": 1
  },
  "count": 2,
  "free": 2,
  "enough": true,
  "chosen": [
    "GPU-959d355f-8119-afa0-e0c8-456ecb49e3cf",
    "GPU-c7c91a07-53a5-a26b-bd85-16a7db286f98"
  ],
  "gpus": [
    {
      "index": 0,
      "mig_index": null,
      "uuid": "GPU-125cb18b-5748-424f-6786-8b111271f9af",
      "name": "NVIDIA A100-SXM4-80GB",
      "free": false,
      "chosen": false,
      "memory_free_bytes": 20525875200,
      "memory_total_bytes": 85899345920,
      "utilization_gpu_percent": 94,
      "compute_processes": 1,
      "reasons": [
        "busy",
        "memory",
        "processes"
      ],
      "why": "busy: util 94 %; 19.1 GiB free < 72.0 GiB; 1 process (pid 4194400)"
    },
    {
      "index": 1,
      "mig_index": null,
      "uuid": "GPU-959d355f-8119-afa0-e0c8-456ecb49e3cf",
      "name": "NVIDIA A100-SXM4-80GB",
      "free": true,
      "chosen": true,
      "memory_free_bytes": 84950384640,
      "memory_total_bytes": 85899345920,
      "utilization_gpu_percent": 0,
      "compute_processes": 0,
      "reasons": [],
      "why": null
    },
    {
      "index": 2,
      "mig_index": null,
      "uuid": "GPU-b1d0ffaa-d41e-5b29-7eff-922a09f747c0",
      "name": "NVIDIA A100-SXM4-80GB",
      "free": false,
      "chosen": false,
      "memory_free_bytes": 9788456960,
      "memory_total_bytes": 85899345920,
      "utilization_gpu_percent": 0,
      "compute_processes": 1,
      "reasons": [
        "memory",
        "processes"
      ],
      "why": "9.1 GiB free < 72.0 GiB; 1 process (pid 4194304)"
    },
    {
      "index": 3,
      "mig_index": null,
      "uuid": "GPU-c7c91a07-53a5-a26b-bd85-16a7db286f98",
      "name": "NVIDIA A100-SXM4-80GB",
      "free": true,
      "chosen": true,
      "memory_free_bytes": 84950384640,
      "memory_total_bytes": 85899345920,
      "utilization_gpu_percent": 0,
      "compute_processes": 0,
      "reasons": [],
      "why": null
    }
  ]
}
--- stderr

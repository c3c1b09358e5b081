# faults.ini: no permission on GPU 2 from 210 s to 230 s
scenario: faults.ini
time: 215
args: status --no-procs
--- stdout
{host}  {datetime}  driver 535.161.08  CUDA 12.2
[0] NVIDIA A100-SXM4-80GB |  59C,  90 % |  40961 /  81920 MiB |  334 /  400 W [row remap pending: reset] |
[1] NVIDIA A100-SXM4-80GB |  59C,  90 % |  40961 /  81920 MiB |  340 /  400 W |
[2] (unknown)             | no permission to open this GPU (check /dev/nvidia* permissions)
[3] NVIDIA A100-SXM4-80GB |  59C,  90 % |  40961 /  81920 MiB |  338 /  400 W |
--- stderr

# faults.ini: GPU 1 is lost from 60 s to 120 s; the others print normally
scenario: faults.ini
time: 70
args: status --no-procs
--- stdout
{host}  {datetime}  driver 535.161.08  CUDA 12.2
[0] NVIDIA A100-SXM4-80GB |  59C,  91 % |  40961 /  81920 MiB |  338 /  400 W |
[1] (unknown)             | GPU is lost: it fell off the bus or became inaccessible (check dmesg for Xid 79; a reset or reboot is needed)
[2] NVIDIA A100-SXM4-80GB |  59C,  91 % |  40961 /  81920 MiB |  336 /  400 W |
[3] NVIDIA A100-SXM4-80GB |  59C,  91 % |  40961 /  81920 MiB |  335 /  400 W |
--- stderr

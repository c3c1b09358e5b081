# without a tighter timeout the 5 s hang is waited out and every GPU prints
scenario: faults.ini
time: 130
args: status --no-procs
min-seconds: 4.5
--- stdout
{host}  {datetime}  driver 535.161.08  CUDA 12.2
[0] NVIDIA A100-SXM4-80GB |  59C,  89 % |  40961 /  81920 MiB |  336 /  400 W |
[1] NVIDIA A100-SXM4-80GB |  59C,  90 % |  40961 /  81920 MiB |  340 /  400 W |
[2] NVIDIA A100-SXM4-80GB |  59C,  89 % |  40961 /  81920 MiB |  339 /  400 W |
[3] NVIDIA A100-SXM4-80GB |  59C,  90 % |  40961 /  81920 MiB |  339 /  400 W |
--- stderr

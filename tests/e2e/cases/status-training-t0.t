# before GPU 5 heats up: no throttle marker
scenario: h100x8-training.ini
time: 0
args: status --no-procs
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[0] NVIDIA H100 80GB HBM3 |  63C,  96 % |  72909 /  81559 MiB |  610 /  700 W |
[1] NVIDIA H100 80GB HBM3 |  63C,  94 % |  72909 /  81559 MiB |  612 /  700 W |
[2] NVIDIA H100 80GB HBM3 |  63C,  95 % |  72909 /  81559 MiB |  614 /  700 W |
[3] NVIDIA H100 80GB HBM3 |  41C,  96 % |  72909 /  81559 MiB |  259 /  700 W |
[4] NVIDIA H100 80GB HBM3 |  63C,  95 % |  72909 /  81559 MiB |  616 /  700 W |
[5] NVIDIA H100 80GB HBM3 |  37C,  99 % |  72909 /  81559 MiB |  631 /  700 W |
[6] NVIDIA H100 80GB HBM3 |  63C,  94 % |  72909 /  81559 MiB |  619 /  700 W |
[7] NVIDIA H100 80GB HBM3 |  63C,  95 % |  76289 /  81559 MiB |  613 /  700 W |
--- stderr

# through --id, without processes; GPU 5: a process list NVML did not answer is no empty list, and says so
scenario: flags.ini
time: 120
args: status --no-procs --id 1,2,4,5
exit: 0
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[1] NVIDIA H100 80GB HBM3 |  63C,  94 % |  40961 /  81559 MiB |  618 /  700 W [pcie gen5 x8 of gen5 x16] |
[2] NVIDIA H100 80GB HBM3 |  29C,   0 % |      1 /  81559 MiB |   72 /  700 W |
[4] NVIDIA H100 80GB HBM3 |  29C,   0 % |  12289 /  81559 MiB |   71 /  700 W [12.0 GiB used, no process] |
[5] NVIDIA H100 80GB HBM3 |  29C,   0 % |  12289 /  81559 MiB |   72 /  700 W | [process list incomplete: Not Supported]
--- stderr

# an R450-era library: no MemoryInfo_v2 (used includes reserved), v1 process lists
scenario: h100x8-training.ini
time: 300
lib: legacy
args: status --id 7
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[7] NVIDIA H100 80GB HBM3 |  63C,  95 % |  76868 /  81559 MiB |  611 /  700 W | {user}:python3/4194407(45568M) ?:python3/4194304(30720M,process gone)
--- stderr

scenario: h100x8-training.ini
time: 300
spawn: 8
args: status --no-color
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[0] NVIDIA H100 80GB HBM3 |  63C,  95 % |  72909 /  81559 MiB |  619 /  700 W | {user}:sleep/{pid0}(72908M)
[1] NVIDIA H100 80GB HBM3 |  63C,  95 % |  72909 /  81559 MiB |  614 /  700 W | {user}:sleep/{pid1}(72908M)
[2] NVIDIA H100 80GB HBM3 |  63C,  94 % |  72909 /  81559 MiB |  621 /  700 W | {user}:sleep/{pid2}(72908M)
[3] NVIDIA H100 80GB HBM3 |  41C,  97 % |  72909 /  81559 MiB |  257 /  700 W | {user}:sleep/{pid3}(72908M)
[4] NVIDIA H100 80GB HBM3 |  63C,  96 % |  72909 /  81559 MiB |  610 /  700 W | {user}:sleep/{pid4}(72908M)
[5] NVIDIA H100 80GB HBM3 |  89C,  99 % |  72909 /  81559 MiB |  367 /  700 W [thermal] | {user}:sleep/{pid5}(72908M)
[6] NVIDIA H100 80GB HBM3 |  63C,  94 % |  72909 /  81559 MiB |  611 /  700 W | {user}:sleep/{pid6}(72908M)
[7] NVIDIA H100 80GB HBM3 |  63C,  95 % |  76289 /  81559 MiB |  611 /  700 W | {user}:sleep/{pid7}(45568M) ?:python3/4194304(30720M,process gone)
--- stderr

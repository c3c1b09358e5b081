scenario: h100x8-training.ini
time: 300
spawn: 2
args: status --id 0,1 -c
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[0] NVIDIA H100 80GB HBM3 |  63C,  95 % |  72909 /  81559 MiB |  619 /  700 W | {user}:sleep 600/{pid0}(72908M)
[1] NVIDIA H100 80GB HBM3 |  63C,  95 % |  72909 /  81559 MiB |  614 /  700 W | {user}:sleep 600/{pid1}(72908M)
--- stderr

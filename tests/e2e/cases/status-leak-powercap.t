scenario: inference-leak.ini
time: 3600
args: status
--- stdout
{host}  {datetime}  driver 470.223.02  CUDA 11.4
[0] Tesla V100-SXM2-32GB |  35C,  19 % |   7201 /  32768 MiB |   85 /  300 W | {user}:python3/4194414(7200M)
[1] Tesla V100-SXM2-32GB |  62C,  98 % |  26625 /  32768 MiB |  299 /  300 W [power cap] | {user}:python3/4194415(26624M)
--- stderr

scenario: a100-mig.ini
time: 120
args: status
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[0] NVIDIA A100-SXM4-80GB |  52C,   N/A |  40449 /  81920 MiB |  277 /  400 W MIG x4 | {user}:python3/4194401(?M) {user}:python3/4194402(?M) {user}:pytest/4194403(?M)
[1] NVIDIA A100-SXM4-80GB |  50C,  61 % |  22529 /  81920 MiB |  244 /  400 W | {user}:tritonserver/4194404(22528M)
--- stderr

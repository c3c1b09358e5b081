scenario: a100-mig.ini
time: 120
args: status
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[0] NVIDIA A100-SXM4-80GB |  52C,   N/A |  40449 /  81920 MiB |  277 /  400 W MIG x4 | ?:python3/4194401(?M,process gone) ?:python3/4194402(?M,process gone) ?:pytest/4194403(?M,process gone)
[1] NVIDIA A100-SXM4-80GB |  50C,  61 % |  22529 /  81920 MiB |  244 /  400 W | ?:tritonserver/4194404(22528M,process gone)
--- stderr

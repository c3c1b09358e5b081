# Issue 28 point 11: `nvidia-smi -i 1` shows its default view for GPU 1; gpumon's default view
# is status, so `gpumon -i 1` is `gpumon status --id 1` (status' own -i is its interval, so the
# nvidia-smi meaning holds only before a command).  Was "unknown option -i".
scenario: a100-mig.ini
time: 120
args: -i 1
exit: 0
--- stdout
{host}  {datetime}  driver 550.54.15  CUDA 12.4
[1] NVIDIA A100-SXM4-80GB |  50C,  61 % |  22529 /  81920 MiB |  244 /  400 W | root:tritonserver/4194404(22528M)
--- stderr

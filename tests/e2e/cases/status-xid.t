# faults.ini: Xid 79 on GPU 3 at 200 s.  NVML reports Xids only as events to a
# listener registered before they happen; a one-shot status cannot see a past
# Xid and must keep working.  (The agent's event thread, a later piece, records them.)
scenario: faults.ini
time: 205
args: status --no-procs
--- stdout
{host}  {datetime}  driver 535.161.08  CUDA 12.2
[0] NVIDIA A100-SXM4-80GB |  59C,  90 % |  40961 /  81920 MiB |  339 /  400 W [row remap pending: reset] |
[1] NVIDIA A100-SXM4-80GB |  59C,  91 % |  40961 /  81920 MiB |  336 /  400 W |
[2] NVIDIA A100-SXM4-80GB |  59C,  89 % |  40961 /  81920 MiB |  335 /  400 W |
[3] NVIDIA A100-SXM4-80GB |  59C,  89 % |  40961 /  81920 MiB |  341 /  400 W |
--- stderr

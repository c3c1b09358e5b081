# four idle GPUs, the default window (4 samples over 1 s): every one is free
scenario: free/idle.ini
args: free
exit: 0
min-seconds: 0.9
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        79.1 GiB    0 %      0  free
1        79.1 GiB    0 %      0  free
2        79.1 GiB    0 %      0  free
3        79.1 GiB    0 %      0  free
--- stderr

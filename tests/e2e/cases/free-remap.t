# a pending row remap or page retirement needs a reset first
scenario: free/remap.ini
args: free --window 0
exit: 0
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        79.1 GiB    0 %      0  pending row remap
1        31.8 GiB    0 %      0  pending page retirement
2        79.1 GiB    0 %      0  free
--- stderr

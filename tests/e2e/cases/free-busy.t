# the free-GPU matrix: training, empty, memory held by a dead process, empty
scenario: free/busy.ini
args: free --window 0
exit: 0
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        19.1 GiB   94 %      1  busy: util 94 %; 19.1 GiB free < 72.0 GiB; 1 process (pid 4194400)
1        79.1 GiB    0 %      0  free
2         9.1 GiB    0 %      1  9.1 GiB free < 72.0 GiB; 1 process (pid 4194304)
3        79.1 GiB    0 %      0  free
--- stderr

# fewer free than --count: the table all the same, exit 1
scenario: free/busy.ini
args: free --count 3 --window 0
exit: 1
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        19.1 GiB   94 %      1  busy: util 94 %; 19.1 GiB free < 72.0 GiB; 1 process (pid 4194400)
1        79.1 GiB    0 %      0  free
2         9.1 GiB    0 %      1  9.1 GiB free < 72.0 GiB; 1 process (pid 4194304)
3        79.1 GiB    0 %      0  free
--- stderr
gpumon: error: too few free GPUs: 2 free, --count 3

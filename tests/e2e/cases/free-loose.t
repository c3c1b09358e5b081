# looser criteria: 5 GiB free is enough, any utilisation, processes allowed
scenario: free/busy.ini
args: free --min-mem 5G --max-util 100 --allow-procs --window 0
exit: 0
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        19.1 GiB   94 %      1  free
1        79.1 GiB    0 %      0  free
2         9.1 GiB    0 %      1  free
3        79.1 GiB    0 %      0  free
--- stderr

# a lost GPU is never free
scenario: free/lost.ini
args: free --window 0
exit: 0
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        79.1 GiB    0 %      0  free
1               -      -      -  lost
--- stderr

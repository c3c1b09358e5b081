# exclusive-process with a process is taken even with --allow-procs
scenario: free/exclusive.ini
args: free --allow-procs --min-mem 1G --window 0
exit: 0
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        43.4 GiB    0 %      1  exclusive-process with pid 4194500
1        44.4 GiB    0 %      0  free
--- stderr

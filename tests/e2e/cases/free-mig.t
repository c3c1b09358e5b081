# MIG instances count separately; the MIG GPU itself is no candidate
scenario: free/mig.ini
args: free --count 2 --window 0
exit: 0
--- stdout
GPU   MEMORY FREE   UTIL  PROCS  VERDICT
0        59.1 GiB      -      1  MIG mode: see its instances
0:0      19.2 GiB      -      1  19.2 GiB free < 35.3 GiB; 1 process (pid 4194600)
0:1      39.2 GiB      -      0  free, chosen
1        79.1 GiB    0 %      0  free, chosen
--- stderr

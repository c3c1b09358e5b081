# Issue 28 point 12: nvidia-smi mig -lgi.  Layout (57 columns): the A100 80GB listing pasted in
# NVIDIA/DCGM issue 138 ("|   0  MIG 1g.10gb         19        9          2:1     |"); instances
# by profile (1g, 2g, 3g) and within one by id, as there and in NVIDIA/go-nvml issue 146.
scenario: a100-mig.ini
time: 120
args: mig -lgi
exit: 0
--- stdout
+-------------------------------------------------------+
| GPU instances:                                        |
| GPU   Name             Profile  Instance   Placement  |
|                          ID       ID       Start:Size |
|=======================================================|
|   0  MIG 1g.10gb         19        7          2:1     |
+-------------------------------------------------------+
|   0  MIG 1g.10gb         19        8          3:1     |
+-------------------------------------------------------+
|   0  MIG 2g.20gb         14        3          0:2     |
+-------------------------------------------------------+
|   0  MIG 3g.40gb          9        1          4:4     |
+-------------------------------------------------------+
--- stderr

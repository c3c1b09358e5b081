# Issue 28 point 12: nvidia-smi mig -lgip from the simulator's MIG tables (sim/mig.c) on the
# A100 80GB whose four instances (3g, 2g, 1g, 1g) use all seven compute slices: every Free is 0.
# Layout (79 columns, the ID right-aligned at column 27, memory in GiB left-aligned, CE/JPEG/OFA
# on the second line): nvidia-smi mig -lgip on a GH200 in NVIDIA/mig-parted pull 139 and on an
# A100 40GB in NVIDIA's MIG user guide ("Getting Started with MIG"); profile order 1g, 1g+me,
# 1g with two memory slices, 2g, 3g, 4g, 7g as there.
scenario: a100-mig.ini
time: 120
args: mig -lgip
exit: 0
--- stdout
+-----------------------------------------------------------------------------+
| GPU instance profiles:                                                      |
| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |
|                              Free/Total   GiB              CE    JPEG  OFA  |
|=============================================================================|
|   0  MIG 1g.10gb       19     0/7        9.50       No     14     0     0   |
|                                                             1     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 1g.10gb+me    20     0/1        9.50       No     14     1     0   |
|                                                             1     1     1   |
+-----------------------------------------------------------------------------+
|   0  MIG 1g.20gb       15     0/4        19.50      No     14     1     0   |
|                                                             1     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 2g.20gb       14     0/3        19.50      No     28     1     0   |
|                                                             2     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 3g.40gb        9     0/2        39.25      No     42     2     0   |
|                                                             3     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 4g.40gb        5     0/1        39.25      No     56     2     0   |
|                                                             4     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 7g.80gb        0     0/1        78.75      No     98     5     0   |
|                                                             7     1     1   |
+-----------------------------------------------------------------------------+
--- stderr

# Issue 28 point 12: nvidia-smi mig -lci.  Layout (70 columns, with the Placement column):
# NVIDIA's MIG user guide and the A100 listing of sudo nvidia-smi mig -i 0 -lci ("|   0      7
# MIG 1g.10gb          0         0          0:1     |"), GPU instances in -lgi's order.
scenario: a100-mig.ini
time: 120
args: mig -lci
exit: 0
--- stdout
+--------------------------------------------------------------------+
| Compute instances:                                                 |
| GPU     GPU       Name             Profile   Instance   Placement  |
|       Instance                       ID        ID       Start:Size |
|         ID                                                         |
|====================================================================|
|   0      7       MIG 1g.10gb          0         0          0:1     |
+--------------------------------------------------------------------+
|   0      8       MIG 1g.10gb          0         0          0:1     |
+--------------------------------------------------------------------+
|   0      3       MIG 2g.20gb          1         0          0:2     |
+--------------------------------------------------------------------+
|   0      1       MIG 3g.40gb          2         0          0:3     |
+--------------------------------------------------------------------+
--- stderr

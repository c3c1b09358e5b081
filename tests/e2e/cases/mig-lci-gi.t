# Issue 28 point 12: -gi keeps one GPU instance (nvidia-smi mig -lci -gi 1 in the MIG user guide).
scenario: a100-mig.ini
time: 120
args: mig -lci -gi 3
exit: 0
--- stdout
+--------------------------------------------------------------------+
| Compute instances:                                                 |
| GPU     GPU       Name             Profile   Instance   Placement  |
|       Instance                       ID        ID       Start:Size |
|         ID                                                         |
|====================================================================|
|   0      3       MIG 2g.20gb          1         0          0:2     |
+--------------------------------------------------------------------+
--- stderr

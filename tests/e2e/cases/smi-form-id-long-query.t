# Issue 28 point 11: nvidia-smi's long spelling --id=IDS before the query (was "unknown option").
scenario: h100x8-training.ini
time: 45
args: --id=0,3 --query-gpu=index --format=csv,noheader
exit: 0
--- stdout
0
3
--- stderr

# Issue 28 point 11: nvidia-smi's top-level form with -i before --query-gpu, as scripts call it
# (`nvidia-smi -i 0 --query-gpu=clocks.current.sm --format=csv,noheader,nounits`; nvidia-smi's
# usage: "nvidia-smi [OPTION1 [ARG1]] [OPTION2 [ARG2]] ...", options in any order).  Was
# "unknown option -i".
scenario: h100x8-training.ini
time: 45
args: -i 3 --query-gpu=index,name,temperature.gpu --format=csv,noheader
exit: 0
--- stdout
3, NVIDIA H100 80GB HBM3, 41
--- stderr

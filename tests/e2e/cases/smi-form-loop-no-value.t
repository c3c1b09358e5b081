# Issue 28 point 11: -l before any command is nvidia-smi's loop and needs its seconds.
scenario: h100x8-training.ini
args: -l
exit: 2
--- stdout
--- stderr
gpumon: error: -l needs a value
Try 'gpumon --help'.

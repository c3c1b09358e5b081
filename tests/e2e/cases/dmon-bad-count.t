# -c takes a positive number
scenario: h100x8-training.ini
args: dmon -c 0
exit: 2
--- stdout
--- stderr
gpumon: error: invalid -c/--count '0' (a number of samples > 0)
Try 'gpumon dmon --help'.

# -o takes D and T
scenario: h100x8-training.ini
args: dmon -o DX
exit: 2
--- stdout
--- stderr
gpumon: error: invalid -o 'DX': 'X' is not an option (D: date, T: time)
Try 'gpumon dmon --help'.

# Issue 28 point 11: nvidia-smi's -lms takes whole milliseconds; anything else is a usage error
# that names the option and the value (escaped: it is user input).
scenario: h100x8-training.ini
args: -lms 1e3x
exit: 2
--- stdout
--- stderr
gpumon: error: invalid -lms value '1e3x' (milliseconds)
Try 'gpumon --help'.

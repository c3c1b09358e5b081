# -L is one list: -l and -f are refused
scenario: h100x8-training.ini
args: -L -l 1
exit: 2
--- stdout
--- stderr
gpumon: error: -L takes no -f or -l
Try 'gpumon query --help'.

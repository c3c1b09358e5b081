# an unknown flag is named
scenario: h100x8-training.ini
args: dmon --frobnicate
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --frobnicate
Try 'gpumon dmon --help'.

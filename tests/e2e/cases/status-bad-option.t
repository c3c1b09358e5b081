scenario: h100x8-training.ini
args: status --frobnicate
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --frobnicate
Try 'gpumon status --help'.

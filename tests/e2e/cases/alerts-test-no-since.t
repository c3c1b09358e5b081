# alerts test reads the simulator's timeline: no --since (that is --history's)
scenario: none
args: alerts test --since 1h
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --since
Try 'gpumon alerts --help'.

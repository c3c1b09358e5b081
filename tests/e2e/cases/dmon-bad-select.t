# an unknown -s letter is named
scenario: h100x8-training.ini
args: dmon -s pux
exit: 2
--- stdout
--- stderr
gpumon: error: invalid -s 'pux': 'x' is not a metric group (p, u, c, v, m, e, t)
Try 'gpumon dmon --help'.

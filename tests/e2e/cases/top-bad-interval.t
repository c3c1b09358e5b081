# top: a bad flag is named
scenario: h100x8-training.ini
args: top --interval 0.01
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --interval '0.01' (seconds, at least 0.1)
Try 'gpumon top --help'.

# an unknown option that is a typo of one of the command's: the nearest is named
scenario: h100x8-training.ini
args: status --jsn
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --jsn; did you mean --json?
Try 'gpumon status --help'.

# pmon knows u and m only
scenario: h100x8-training.ini
args: pmon -s p
exit: 2
--- stdout
--- stderr
gpumon: error: invalid -s 'p': 'p' is not a metric group (u: utilisation, m: memory)
Try 'gpumon pmon --help'.

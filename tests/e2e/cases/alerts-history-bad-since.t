# alerts --history: --since is the shared history source's (a duration > 0)
scenario: none
args: alerts --history --since 0
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --since '0' (e.g. 2h, 30m, 7d)
Try 'gpumon alerts --help'.

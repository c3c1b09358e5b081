# report: --since of the shared history source, checked as plot and diagnose check it
scenario: none
args: report --since yesterday
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --since 'yesterday' (e.g. 2h, 30m, 7d)
Try 'gpumon report --help'.

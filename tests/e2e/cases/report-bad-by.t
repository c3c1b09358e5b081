# report: --by takes one of its choices; the error lists them
scenario: none
args: report --by week
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --by 'week' (hour, day, period, job, user or task)
Try 'gpumon report --help'.

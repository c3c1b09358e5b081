# report: the history source's --csv is not one of report's flags
scenario: none
args: report --csv a.csv
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --csv
Try 'gpumon report --help'.

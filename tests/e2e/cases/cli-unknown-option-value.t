# a mistyped option with its value (--flag=value): the flag's name is matched
scenario: none
args: report --sinse=1h
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --sinse=1h; did you mean --since?
Try 'gpumon report --help'.

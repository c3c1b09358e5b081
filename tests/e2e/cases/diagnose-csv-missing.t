scenario: diagnose/idle.ini
args: diagnose --csv /nonexistent/default_20261203.csv
exit: 1
--- stdout
--- stderr
gpumon: error: /nonexistent/default_20261203.csv: No such file or directory

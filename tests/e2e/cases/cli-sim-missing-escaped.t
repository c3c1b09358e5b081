# Issue 24: --sim's file that cannot be read is named terminal-safe
scenario: none
env: LC_ALL=C.UTF-8
args: --sim "/nonexistent/x[2J.ini" status
exit: 2
--- stdout
--- stderr
gpumon: error: cannot read scenario file /nonexistent/x�[2J.ini

# Issue 24: a bad value of a configuration flag is quoted terminal-safe in the usage error
scenario: none
env: LC_ALL=C.UTF-8
args: serve --no-config --interval "5[2J"
exit: 2
--- stdout
--- stderr
gpumon: error: --interval: invalid duration "5�[2J" (examples: 500ms, 10s, 1m, 14d, 3y)
Try 'gpumon serve --help'.

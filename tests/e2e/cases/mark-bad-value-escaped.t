# Issue 24: mark's bad --task is quoted terminal-safe in the usage error
scenario: none
env: LC_ALL=C.UTF-8
args: mark --no-config --task "a[2J" hello
exit: 2
--- stdout
--- stderr
gpumon: error: --task: invalid task "a�[2J" (1-63 letters, digits, '.', '_', '-'; it is part of file names)
Try 'gpumon mark --help'.

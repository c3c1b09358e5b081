# Issue 24: config's unknown subcommand is quoted terminal-safe
scenario: none
env: LC_ALL=C.UTF-8
args: config "show"
exit: 2
--- stdout
--- stderr
gpumon: error: unknown subcommand 'sh�ow'
Try 'gpumon config --help'.

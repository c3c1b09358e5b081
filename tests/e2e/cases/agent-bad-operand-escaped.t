# Issue 24: a word the agent does not take is quoted in the usage error, terminal-safe (the
# agent commands' hand parse echoed it as it was)
scenario: none
env: LC_ALL=C.UTF-8
args: agent --no-config "x[2Jy"
exit: 2
--- stdout
--- stderr
gpumon: error: unexpected argument 'x�[2Jy'
Try 'gpumon agent --help'.

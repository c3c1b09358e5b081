# dmon: an unknown letter inside a cluster of short flags is named itself (was the word before it)
scenario: none
args: dmon -d 1 -xs p
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option -x
Try 'gpumon dmon --help'.

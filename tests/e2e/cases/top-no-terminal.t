# top needs a terminal: it says so, and what to use for a log
scenario: h100x8-training.ini
time: 300
args: top
exit: 1
--- stdout
--- stderr
gpumon: error: gpumon top needs a terminal (for a log, use 'gpumon dmon' or 'gpumon status -i SEC')

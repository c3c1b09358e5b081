# only the matrix exists: topo without -m is a usage error
scenario: h100x8-training.ini
args: topo
exit: 2
--- stdout
--- stderr
gpumon: error: give -m (the topology matrix)
Try 'gpumon topo --help'.

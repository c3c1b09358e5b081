# nvidia-smi's other topo reports are named as not implemented
scenario: h100x8-training.ini
args: topo -p2p r
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option -p (gpumon topo has only -m: nvidia-smi's -p, -p2p, -n, -c and -i reports are not implemented)
Try 'gpumon topo --help'.

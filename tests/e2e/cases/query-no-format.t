scenario: h100x8-training.ini
args: query --query-gpu=index
exit: 2
--- stdout
--- stderr
gpumon: error: --format=csv is required (as with nvidia-smi)
Try 'gpumon query --help'.

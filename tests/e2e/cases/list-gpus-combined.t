# -L lists devices; it is not a --query-gpu field set
scenario: h100x8-training.ini
args: query -L --query-gpu=name --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: -L cannot be combined with --query-gpu or --query-compute-apps
Try 'gpumon query --help'.

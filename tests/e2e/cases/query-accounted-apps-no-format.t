# --format is required, as for the other queries
scenario: compat/accounting.ini
time: 300
args: query --query-accounted-apps=pid
exit: 2
--- stdout
--- stderr
gpumon: error: --format=csv is required (as with nvidia-smi)
Try 'gpumon query --help'.

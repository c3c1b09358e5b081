# fewer free than --count: no shell code at all (nothing half-exported), exit 1
scenario: free/busy.ini
args: free --count 3 --format env --window 0
exit: 1
--- stdout
--- stderr
gpumon: error: too few free GPUs: 2 free, --count 3

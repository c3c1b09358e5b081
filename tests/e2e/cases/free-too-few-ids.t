# fewer free than --count: no ids at all, exit 1
scenario: free/busy.ini
args: free --count 3 --format ids --window 0
exit: 1
--- stdout
--- stderr
gpumon: error: too few free GPUs: 2 free, --count 3

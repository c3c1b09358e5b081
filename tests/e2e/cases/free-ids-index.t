# the chosen GPUs by NVML index
scenario: free/busy.ini
args: free --count 2 --format ids --by index --window 0
exit: 0
--- stdout
1,3
--- stderr

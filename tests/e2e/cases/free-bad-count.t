scenario: free/idle.ini
args: free --count 0
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --count '0'
Try 'gpumon free --help'.

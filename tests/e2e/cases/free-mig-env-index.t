# CUDA names MIG instances only by UUID: --by index refuses
scenario: free/mig.ini
args: free --count 1 --format env --by index --window 0
exit: 1
--- stdout
--- stderr
gpumon: error: MIG instance 0:1 can only be named by UUID in CUDA_VISIBLE_DEVICES (drop --by index)

# CUDA_VISIBLE_DEVICES by UUID, single-quoted
scenario: free/busy.ini
args: free --count 2 --format env --window 0
exit: 0
--- stdout
export CUDA_VISIBLE_DEVICES='GPU-959d355f-8119-afa0-e0c8-456ecb49e3cf,GPU-c7c91a07-53a5-a26b-bd85-16a7db286f98'
--- stderr

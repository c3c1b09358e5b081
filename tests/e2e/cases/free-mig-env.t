# a MIG instance in CUDA_VISIBLE_DEVICES by its UUID
scenario: free/mig.ini
args: free --count 2 --format env --window 0
exit: 0
--- stdout
export CUDA_VISIBLE_DEVICES='MIG-5f7ad9ba-0ba7-51e8-8b03-df5bcc80b524,GPU-b2bdd10b-630d-df03-501a-cbe689c5b6da'
--- stderr

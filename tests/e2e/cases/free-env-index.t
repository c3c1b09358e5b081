# by index: with CUDA_DEVICE_ORDER=PCI_BUS_ID, else CUDA counts in its own order
scenario: free/busy.ini
args: free --count 2 --format env --by index --window 0
exit: 0
--- stdout
export CUDA_DEVICE_ORDER=PCI_BUS_ID
export CUDA_VISIBLE_DEVICES='1,3'
--- stderr

# Issue 28 point 11: nvidia-smi's options come before no command; a word after them is refused
# with the reason (`gpumon dmon -i 0` is the form that works).
scenario: h100x8-training.ini
args: -i 0 dmon
exit: 2
--- stdout
--- stderr
gpumon: error: unexpected argument 'dmon' after nvidia-smi's options (a command comes first)
Try 'gpumon --help'.

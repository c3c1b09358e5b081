# Issue 28 point 12: gpumon mig only lists; nvidia-smi's create/destroy flags are refused with
# the reason (exit 2).
scenario: a100-mig.ini
time: 120
args: mig -cgi 9
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option -c (gpumon mig only lists: nvidia-smi's -cgi, -dgi, -cci and -dci are not implemented)
Try 'gpumon mig --help'.

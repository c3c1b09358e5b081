# Issue 28 point 12: gpumon mig only lists; nvidia-smi's create/destroy flags are refused with
# the reason (exit 2).  Issue 24: -cgi is named as the write it is, not as "unknown option -c".
scenario: a100-mig.ini
time: 120
args: mig -cgi 9
exit: 2
--- stdout
--- stderr
gpumon: error: -cgi: creating GPU instances is a write operation, and gpumon is read-only: use nvidia-smi mig -cgi
Try 'gpumon mig --help'.

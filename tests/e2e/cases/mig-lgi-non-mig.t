# Issue 28 point 12: -i naming only a GPU not in MIG mode: nothing to list, said in one line
# (gpumon's words; no capture of nvidia-smi's was found).
scenario: a100-mig.ini
time: 120
args: mig -lgi -i 1
exit: 0
--- stdout
No MIG-enabled devices found.
--- stderr

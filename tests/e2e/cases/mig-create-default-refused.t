# Issue 24: nvidia-smi mig's flags that write and have no row of their own (-C) are unknown,
# with the reason that gpumon mig writes nothing (exit 2).
scenario: a100-mig.ini
time: 120
args: mig -C
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option -C (gpumon mig only lists: it creates and destroys nothing, nvidia-smi mig's -C included)
Try 'gpumon mig --help'.

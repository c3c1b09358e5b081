scenario: faults.ini
time: 310
args: status
exit: 3
--- stdout
--- stderr
gpumon: error: driver/library version mismatch: the loaded kernel module and libnvidia-ml.so come from different driver versions (usually an upgrade without a reboot); reboot or reload the nvidia modules; 'gpumon doctor' (check 'version') shows both

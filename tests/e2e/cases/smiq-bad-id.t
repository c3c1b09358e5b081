# -i naming no GPU
scenario: workstation.ini
args: -q -i 7
exit: 2
--- stdout
--- stderr
gpumon: error: no GPU matches id "7" (give an index 0-1, a UUID or a PCI bus id)

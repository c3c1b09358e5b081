# top: an -i that matches no GPU
scenario: h100x8-training.ini
time: 300
args: top -i 12
exit: 2
--- stdout
--- stderr
gpumon: error: no GPU matches id "12" (give an index 0-7, a UUID or a PCI bus id)

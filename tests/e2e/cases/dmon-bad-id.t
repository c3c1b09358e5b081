# an -i id that matches no GPU
scenario: h100x8-training.ini
time: 300
args: dmon -i 9 -c 1
exit: 2
--- stdout
--- stderr
gpumon: error: no GPU matches id "9" (give an index 0-7, a UUID or a PCI bus id)

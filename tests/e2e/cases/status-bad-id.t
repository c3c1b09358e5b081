scenario: h100x8-training.ini
args: status --id 9
exit: 2
--- stdout
--- stderr
gpumon: error: no GPU matches id "9" (give an index 0-7, a UUID or a PCI bus id)
Try 'gpumon status --help'.

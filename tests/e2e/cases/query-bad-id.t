scenario: h100x8-training.ini
args: query --query-gpu=index --format=csv -i 8
exit: 2
--- stdout
--- stderr
gpumon: error: no GPU matches id "8" (give an index 0-7, a UUID or a PCI bus id)

scenario: h100x8-training.ini
args: query --query-gpu=index --format=json
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --format option "json" (expected csv, noheader, nounits)

# a field close to none: no guess
scenario: h100x8-training.ini
args: query --query-gpu=index,frobnicate --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "frobnicate" is not a valid field to query.

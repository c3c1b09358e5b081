scenario: h100x8-training.ini
args: query --query-gpu=index,foo --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "foo" is not a valid field to query.

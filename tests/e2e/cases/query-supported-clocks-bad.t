# an unknown field: nvidia-smi's message, exit status 2
scenario: h100x8-training.ini
args: query --query-supported-clocks=mem,index --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "index" is not a valid field to query.

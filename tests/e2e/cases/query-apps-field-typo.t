# a --query-compute-apps field that is a typo of one (a gpu_ key of that list): named
scenario: h100x8-training.ini
args: query --query-compute-apps=pid,gpu_uid --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "gpu_uid" is not a valid field to query. Did you mean "gpu_uuid"?

# a --query-gpu field that is a typo of one: the nearest field is named
scenario: h100x8-training.ini
args: query --query-gpu=index,temperatur.gpu --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "temperatur.gpu" is not a valid field to query. Did you mean "temperature.gpu"?

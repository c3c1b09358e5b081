# a field is text from outside: a terminal escape in it is replaced in the message
scenario: h100x8-training.ini
args: query "--query-gpu=index,temp[2J" --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "temp�[2J" is not a valid field to query.

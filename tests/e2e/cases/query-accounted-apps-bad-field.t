# a field --query-accounted-apps does not have fails the query, as with nvidia-smi
scenario: compat/accounting.ini
time: 300
args: query --query-accounted-apps=pid,process_name --format=csv
exit: 2
--- stdout
--- stderr
gpumon: error: Field "process_name" is not a valid field to query.

scenario: free/idle.ini
args: free --format csv
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --format 'csv' (table, ids, env, json)
Try 'gpumon free --help'.

# An option that only another subcommand reads is refused, naming who reads it
# (it was ignored without a word: `fleet status --by job` printed the status).
scenario: h100x8-training.ini
args: fleet status --hosts 127.0.0.1:1 --since 1d
exit: 2
--- stdout
--- stderr
gpumon: error: fleet status does not read --since: only fleet report does
Try 'gpumon fleet --help'.

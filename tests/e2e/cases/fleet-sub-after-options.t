# A subcommand after the options is refused with the order that works
# (options are read up to the first operand; the subcommand is that operand).
scenario: h100x8-training.ini
args: fleet --hosts 127.0.0.1:1 status
exit: 2
--- stdout
--- stderr
gpumon: error: unexpected argument 'status': the subcommand comes first (gpumon fleet status [OPTIONS])
Try 'gpumon fleet --help'.

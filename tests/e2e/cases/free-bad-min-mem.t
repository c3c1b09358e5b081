# a bare number is refused: bytes or gigabytes?
scenario: free/idle.ini
args: free --min-mem 20
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --min-mem '20': give a size with a unit (20G, 512MiB) or a percentage of the total (90%)
Try 'gpumon free --help'.

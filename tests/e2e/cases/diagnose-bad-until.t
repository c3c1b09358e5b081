# diagnose: --until of the shared history source names the format it wants
scenario: none
args: diagnose --since 1h --until 2026-13-01
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --until '2026-13-01' (YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM])
Try 'gpumon diagnose --help'.

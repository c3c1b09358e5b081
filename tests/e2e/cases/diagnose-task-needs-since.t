scenario: diagnose/idle.ini
args: diagnose --task train
exit: 2
--- stdout
--- stderr
gpumon: error: --until, --task, --data-dir and --store-path read history: give --since too
Try 'gpumon diagnose --help'.

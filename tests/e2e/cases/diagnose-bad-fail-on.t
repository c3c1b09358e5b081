scenario: diagnose/idle.ini
args: diagnose --fail-on info
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --fail-on 'info' (warning, critical)
Try 'gpumon diagnose --help'.

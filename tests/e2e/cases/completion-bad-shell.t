# completion: a shell it cannot write for is a usage error (exit 2) that names it
scenario: none
args: completion tcsh
exit: 2
--- stdout
--- stderr
gpumon: error: unknown shell 'tcsh' (bash, zsh or fish)
Try 'gpumon completion --help'.

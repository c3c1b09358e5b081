# an unknown command close to none: no guess
scenario: none
args: frobnicate
exit: 2
--- stdout
--- stderr
gpumon: error: unknown command 'frobnicate'
Try 'gpumon --help'.

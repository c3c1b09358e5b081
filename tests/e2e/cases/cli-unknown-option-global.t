# a mistyped global option (before the command): gpumon's own options are matched
scenario: none
args: --vresion
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --vresion; did you mean --version?
Try 'gpumon --help'.

# an unknown command that is a typo of one: the closest command is named (as git does)
scenario: none
args: stauts
exit: 2
--- stdout
--- stderr
gpumon: error: unknown command 'stauts'; did you mean 'status'?
Try 'gpumon --help'.

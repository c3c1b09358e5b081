# an unknown command is text from outside: a terminal escape in it is replaced
scenario: none
env: LC_ALL=C.UTF-8
args: "rep[2Jort"
exit: 2
--- stdout
--- stderr
gpumon: error: unknown command 'rep�[2Jort'
Try 'gpumon --help'.

# an unknown option is text from outside: a terminal escape in it is replaced
scenario: h100x8-training.ini
env: LC_ALL=C.UTF-8
args: status "--j[2Jsn"
exit: 2
--- stdout
--- stderr
gpumon: error: unknown option --j�[2Jsn
Try 'gpumon status --help'.

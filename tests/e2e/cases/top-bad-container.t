# --container takes the start of a container id in hex, optionally after RUNTIME:
scenario: h100x8-training.ini
args: top --container 'docker:xyz'
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --container 'docker:xyz' (hex digits of a container id, optionally after RUNTIME:, e.g. docker:0123abcd)
Try 'gpumon top --help'.

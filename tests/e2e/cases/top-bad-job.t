# --job takes 1-63 printable characters
scenario: h100x8-training.ini
args: top --job ''
exit: 2
--- stdout
--- stderr
gpumon: error: invalid --job '' (1-63 printable characters)
Try 'gpumon top --help'.

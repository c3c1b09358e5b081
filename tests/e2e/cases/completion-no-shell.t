# completion: without a shell, a usage error that says which shells there are
scenario: none
args: completion
exit: 2
--- stdout
--- stderr
gpumon: error: name the shell: bash, zsh or fish
Try 'gpumon completion --help'.

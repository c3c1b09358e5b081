# doctor: --capture records this machine, so it cannot read a captured tree
scenario: none
args: doctor --capture out.tar.gz --root /tmp
exit: 2
--- stdout
--- stderr
gpumon: error: --capture records this machine: it cannot be used with --root
Try 'gpumon doctor --help'.

# manpage: a page that does not exist is a usage error (exit 2) naming it
scenario: none
args: manpage nosuchcommand
exit: 2
--- stdout
--- stderr
gpumon: error: no manual page for 'nosuchcommand' (a command, or gpumon.conf)
Try 'gpumon manpage --help'.
